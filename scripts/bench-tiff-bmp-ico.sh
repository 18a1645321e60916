#!/usr/bin/env bash
# TIFF, BMP and ICO thumbnails: our release `thumbcache thumbnail` against vipsthumbnail (libvips 8.14) on the same
# files, in one run: best wall time of RUNS runs, peak RSS (/usr/bin/time -f %M, max over runs) and their ratios;
# then the SSIM of each tool's thumbnail against a reference made by another library (Pillow: full decode, RGB,
# Image.resize LANCZOS to the same size; scripts/quality.py's SSIM on luma).
#
# The inputs are made here from one photo (default: the shared corpus's 5000x3750 unsplash JPEG, else
# Tests/ImageDecodeTests/Fixtures/rocket.jpg) with vips: striped LZW TIFF, tiled deflate TIFF, a tiled JPEG pyramid
# TIFF, a 24-bit BMP (vips magicksave), plus imgproxy's 256 px PNG icon (ICO) and its RLE8 BMP.
#
# usage: scripts/bench-tiff-bmp-ico.sh [PHOTO]      RUNS=3 SIZE=256 scripts/bench-tiff-bmp-ico.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
size=${SIZE:-256}
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
photo=${1:-$corpus/jpeg/james-yarema-P2X7NDx_GP0-unsplash.jpg}
[ -f "$photo" ] || photo=Tests/ImageDecodeTests/Fixtures/rocket.jpg
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail not installed (apt-get install libvips-tools)" >&2; exit 1; }
python3 -c 'import PIL, numpy, scipy' 2>/dev/null || { echo "needs Pillow, numpy and scipy (pip install pillow numpy scipy)" >&2; exit 1; }

swift build -c release --product thumbcache >/dev/null
ours=$PWD/.build/release/thumbcache
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

measure() {  # label command... -> "seconds kib"
    local best="" peak=0
    for ((i = 0; i < runs; i++)); do
        local start=$EPOCHREALTIME rss elapsed
        rss=$( { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null; } | tail -1)
        elapsed=$(echo "$EPOCHREALTIME - $start" | bc -l)
        if [ -z "$best" ] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
        (( rss > peak )) && peak=$rss
    done
    echo "$best $peak"
}

echo "source: $photo ($(vipsheader "$photo" | cut -d: -f2)); $runs runs, best time, max RSS; ${size} px PNG"
printf '| file | bytes | ours ms | vips ms | time ratio | ours MiB | vips MiB | RSS ratio | SSIM ours | SSIM vips |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for input in striped-lzw.tiff tiled-deflate.tiff pyramid-jpeg.tiff photo.bmp rle8.bmp icon.ico multi-bmp.ico; do
    path=$work/$input
    read -r ot orss < <(measure "$ours" thumbnail "$path" --size "$size" -o "$work/ours-$input.png")
    read -r vt vrss < <(measure vipsthumbnail "$path" -s "$size" -o "$work/vips-$input.png")
    ssims=$(python3 - "$path" "$work/ours-$input.png" "$work/vips-$input.png" <<'EOF'
import sys
sys.path.insert(0, "scripts")
from PIL import Image
from quality import luma, ssim
Image.MAX_IMAGE_PIXELS = None
source = Image.open(sys.argv[1])
if getattr(source, "n_frames", 1) > 1 and source.format == "TIFF":
    source.seek(0)  # the full-resolution page, not a pyramid level
if source.format == "ICO":
    source = source.ico.getimage(max(source.ico.sizes(), key=lambda s: s[0] * s[1]))
def flat(image):  # onto white, so colours under transparent pixels do not count
    image = image.convert("RGBA")
    return Image.alpha_composite(Image.new("RGBA", image.size, "white"), image).convert("RGB")
source = source.convert("RGBA")
out = []
for thumb in sys.argv[2:]:
    ours = flat(Image.open(thumb))
    reference = flat(source.resize(ours.size, Image.LANCZOS))
    out.append("%.4f" % ssim(luma(ours), luma(reference)))
print(" ".join(out))
EOF
)
    read -r so sv <<<"$ssims"
    printf '| %s | %s | %.0f | %.0f | %.2f | %.1f | %.1f | %.2f | %s | %s |\n' "$input" "$(stat -c %s "$path")" \
        "$(echo "$ot * 1000" | bc -l)" "$(echo "$vt * 1000" | bc -l)" "$(echo "$ot / $vt" | bc -l)" \
        "$(echo "$orss / 1024" | bc -l)" "$(echo "$vrss / 1024" | bc -l)" "$(echo "$orss / $vrss" | bc -l)" "$so" "$sv"
done
