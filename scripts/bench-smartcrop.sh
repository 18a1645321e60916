#!/usr/bin/env bash
# Smart crop (issue 20, `g:sm`) against libvips: for the non-square photos of the shared corpus, the 256×256
# cover thumbnail cropped by our attention detector, by the centre (today's default) and by vipsthumbnail
# --smartcrop attention (and entropy, ours and vips's); per photo the SSIM of ours and of the centre crop to
# vips's, the offset of our window from vips's, the means, and the milliseconds attention adds. Markdown on
# stdout (docs/benchmarks.md, "Smart crop").
#
# The bench executable (scripts/smartcrop-bench/main.swift) is compiled here with swiftc against the release
# build of the ImageDecode target, so the package gains no product for it. Pillow/numpy/scipy come from a venv
# under .build/; libvips-tools from apt (Debian 12: libvips 8.14).
#
# usage: scripts/bench-smartcrop.sh [--size 256] [--runs 9]      (run it niced on a shared machine)
set -euo pipefail
cd "$(dirname "$0")/.."
size=256 runs=9
while [ $# -gt 0 ]; do
    case $1 in
    --size) size=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: $0 [--size N] [--runs N]" >&2; exit 64 ;;
    esac
done
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
[ -f "$corpus/MANIFEST.tsv" ] || { echo "shared corpus not found at $corpus (set THUMBCACHE_CORPUS or place it at ../shared/corpus); nothing measured" >&2; exit 1; }
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail not found: apt-get install libvips-tools" >&2; exit 1; }
venv=${BENCH_VENV:-.build/bench-venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pillow numpy scipy
fi

# Photos only, and only non-square ones (a square photo leaves a square crop nowhere to move): the Kodak set,
# the camera and Unsplash photos, and one upright-by-EXIF photo (the crop is chosen on the upright image).
photos=("$corpus"/png/kodim*.png "$corpus"/png/coffee.png "$corpus"/jpeg/rocket.jpg "$corpus"/jpeg/large_image.jpg
        "$corpus"/jpeg/canon_hdr_NO.jpg "$corpus"/jpeg/iphone_hdr_NO.jpg "$corpus"/jpeg/jolla.jpg
        "$corpus"/jpeg/28-hex_value.jpg "$corpus"/jpeg/42_IndexError.jpg "$corpus"/jpeg/HMD_Nokia_8.3_5G.jpg
        "$corpus"/jpeg/james-yarema-P2X7NDx_GP0-unsplash.jpg "$corpus"/jpeg/olena-ivanova-jKb0EfemiLk-unsplash.jpg
        "$corpus"/jpeg/rachel-hisko-rEM3cK8F1pk-unsplash.jpg "$corpus"/jpeg/dennis-buchner-WATeNJyEUkA-unsplash.jpg
        "$corpus"/exif-orientation/Landscape_6.jpg)

swift build -c release --target ImageDecode >/dev/null
release=.build/release
modulemaps=()
for module in CPNG CJPEG CLCMS2 CWebP CGIF CAVIF; do modulemaps+=(-Xcc "-fmodule-map-file=Sources/$module/module.modulemap"); done
includes=()
for flag in $(pkg-config --cflags-only-I libpng libjpeg lcms2 libwebpdemux libavif); do includes+=(-Xcc "$flag"); done
# shellcheck disable=SC2046  # pkg-config's words are separate linker flags
swiftc -O -swift-version 6 -I "$release/Modules" -Xcc -ISources/CJpegPngGlue/include \
    -Xcc "-fmodule-map-file=$release/CJpegPngGlue.build/module.modulemap" \
    -Xcc "-fmodule-map-file=$release/CWebpGifAvifGlue.build/module.modulemap" "${modulemaps[@]}" "${includes[@]}" \
    scripts/smartcrop-bench/main.swift "$release"/ImageDecode.build/*.o "$release"/CJpegPngGlue.build/*.o \
    "$release"/CWebpGifAvifGlue.build/*.o $(pkg-config --libs libpng libjpeg lcms2 libwebpdemux libavif) -lgif \
    -o "$release/smartcrop-bench"

out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$release/smartcrop-bench" "$out" --size "$size" --runs "$runs" "${photos[@]}" > "$out/bench.tsv"
echo "## Smart crop: ours against vipsthumbnail $(vipsthumbnail --vips-version | cut -d' ' -f2) (${size}×${size} cover)"
echo
"$venv/bin/python" scripts/smartcrop-compare.py "$out" --size "$size" "${photos[@]}" < "$out/bench.tsv"
