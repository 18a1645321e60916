#!/usr/bin/env bash
# Issue 12 §7 benchmark, three parts, markdown on stdout:
#   1. SSIM of our 256 px thumbnail (PNG output) against Pillow's LANCZOS reference for the photo-like WebP,
#      AVIF and GIF files of the corpus (scripts/quality.py, threshold 0.99);
#   2. time and peak RSS per image against vipsthumbnail on the same files (scripts/bench-thumbnail.sh);
#   3. WebP and AVIF bytes, SSIM and encode time against JPEG q80 for the 50 photos of the corpus's jpeg/ and
#      png/ folders (format-bench + scripts/format-sizes.py).
# Pillow, numpy and scipy come from a venv under /tmp (created on first use). Release builds.
#
# usage: scripts/bench-formats.sh [quality|speed|sizes]...   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
[ -f "$corpus/MANIFEST.tsv" ] || { echo "shared corpus not found at $corpus (set THUMBCACHE_CORPUS)" >&2; exit 1; }
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(quality speed sizes)
venv=${BENCH_VENV:-/tmp/thumbcache-bench-venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pillow numpy scipy
fi
swift build -c release --product thumbcache >/dev/null
swift build -c release --product format-bench >/dev/null
photos=("$corpus/webp/photos" "$corpus/avif/photos" "$corpus/gif/photos")
for part in "${parts[@]}"; do
    case $part in
    quality)
        echo "## SSIM against Pillow $("$venv/bin/python" -c 'import PIL; print(PIL.__version__)') (256 px, LANCZOS)"
        "$venv/bin/python" scripts/quality.py --min 0.99 "${photos[@]}" ;;
    speed)
        echo "## Time and peak RSS against vipsthumbnail"
        PATH="$venv/bin:$PATH" scripts/bench-thumbnail.sh "${photos[@]}" ;;
    sizes)
        echo "## WebP and AVIF against JPEG q80 (256 px, the 50 photos of jpeg/ and png/)"
        out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
        files=("$corpus"/jpeg/*.jpg "$corpus"/png/*.png)
        .build/release/format-bench "$out" --size 256 --runs 5 "${files[@]}" > "$out/bench.tsv"
        "$venv/bin/python" scripts/format-sizes.py "$out" < "$out/bench.tsv" ;;
    *) echo "unknown part $part (quality, speed, sizes)" >&2; exit 64 ;;
    esac
    echo
done
