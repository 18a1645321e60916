#!/usr/bin/env bash
# TIFF, BMP and ICO thumbnails: our release `thumbcache thumbnail` against vipsthumbnail (libvips 8.14) on the same
# files, in one run: best wall time of RUNS runs, least user+system CPU time, peak RSS (/usr/bin/time -f %M, max
# over runs) and their ratios;
# then the SSIM of each tool's thumbnail against a reference made by another library (Pillow: full decode, RGB,
# Image.resize LANCZOS to the same size; scripts/quality.py's SSIM on luma).
#
# The inputs are made here from one photo (default: the shared corpus's 5000x3750 unsplash JPEG, else
# Tests/ImageDecodeTests/Fixtures/rocket.jpg) with vips: striped LZW TIFF, tiled deflate TIFF, a tiled JPEG pyramid
# TIFF, a 24-bit BMP (vips magicksave), plus imgproxy's 256 px PNG icon (ICO) and its RLE8 BMP.
#
# usage: scripts/bench-tiff-bmp-ico.sh [PHOTO]      RUNS=3 SIZE=256 OURS=.build/release/thumbcache scripts/bench-tiff-bmp-ico.sh
# Timing, the binary and SSIM come from scripts/lib/bench-common.sh; the reference is made here.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-common.sh
size=${SIZE:-256}
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
photo=${1:-$corpus/jpeg/james-yarema-P2X7NDx_GP0-unsplash.jpg}
[ -f "$photo" ] || photo=Tests/ImageDecodeTests/Fixtures/rocket.jpg
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail not installed (apt-get install libvips-tools)" >&2; exit 1; }
bench_py=$(bench_python)
ours=$(bench_binary)
bench_settle_page_cache "$ours" "$(command -v vipsthumbnail)"  # both sides loaded by use (bench-common.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

vips copy "$photo" "$work/photo.v"
vips tiffsave "$work/photo.v" "$work/striped-lzw.tiff" --compression lzw --strip
vips tiffsave "$work/photo.v" "$work/tiled-deflate.tiff" --tile --tile-width 256 --tile-height 256 --compression deflate --strip
vips tiffsave "$work/photo.v" "$work/pyramid-jpeg.tiff" --tile --pyramid --compression jpeg --Q 90 --strip
vips magicksave "$work/photo.v" "$work/photo.bmp" --format bmp3 2>/dev/null || vips magicksave "$work/photo.v" "$work/photo.bmp"
python3 -c 'import gzip, shutil, sys; shutil.copyfileobj(gzip.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
    Conformance/imgproxy/images/test-images/bmp/8-bpp-rle.bmp.gz "$work/rle8.bmp"
cp Conformance/imgproxy/images/test-images/ico/png-256x256.ico "$work/icon.ico"
cp Tests/ImageDecodeTests/Fixtures/ico/multi-bmp.ico "$work/multi-bmp.ico"

echo "source: $photo ($(vipsheader "$photo" | cut -d: -f2)); $bench_runs runs, best time, max RSS; ${size} px PNG"
printf '| file | bytes | ours ms | vips ms | time ratio | CPU ratio | ours MiB | vips MiB | RSS ratio | SSIM ours | SSIM vips |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for input in striped-lzw.tiff tiled-deflate.tiff pyramid-jpeg.tiff photo.bmp rle8.bmp icon.ico multi-bmp.ico; do
    path=$work/$input
    read -r ot orss ocpu < <(bench_measure "$ours" thumbnail "$path" --size "$size" -o "$work/ours-$input.png")
    read -r vt vrss vcpu < <(bench_measure vipsthumbnail "$path" -s "$size" -o "$work/vips-$input.png")
    # The reference: Pillow's full decode resized to each thumbnail's own size.
    for tool in ours vips; do
        "$bench_py" - "$path" "$work/$tool-$input.png" "$work/reference-$tool.png" <<'EOF'
import sys
from PIL import Image
Image.MAX_IMAGE_PIXELS = None
source = Image.open(sys.argv[1])
if getattr(source, "n_frames", 1) > 1 and source.format == "TIFF":
    source.seek(0)  # the full-resolution page, not a pyramid level
if source.format == "ICO":
    source = source.ico.getimage(max(source.ico.sizes(), key=lambda s: s[0] * s[1]))
source.convert("RGBA").resize(Image.open(sys.argv[2]).size, Image.LANCZOS).save(sys.argv[3])
EOF
    done
    so=$(bench_ssim "$work/reference-ours.png" "$work/ours-$input.png")
    sv=$(bench_ssim "$work/reference-vips.png" "$work/vips-$input.png")
    printf '| %s | %s | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s |\n' "$input" "$(stat -c %s "$path")" \
        "$(echo "$ot * 1000" | bc -l)" "$(echo "$vt * 1000" | bc -l)" "$(bench_ratio "$ot" "$vt")" "$(bench_ratio "$ocpu" "$vcpu")" \
        "$(bench_mib "$orss")" "$(bench_mib "$vrss")" "$(bench_ratio "$orss" "$vrss")" "$so" "$sv"
done
