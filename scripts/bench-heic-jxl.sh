#!/usr/bin/env bash
# HEIC and JPEG XL thumbnails (issue 32): our release build against vipsthumbnail 8.14 on the same files, in one run.
#
# Per file and tool: best wall time of RUNS runs (bash's EPOCHREALTIME around the process) and peak RSS
# (`/usr/bin/time -f %M`, max over the runs) and the ratio of user+system CPU times (least of the runs), SIZE px longest side, JPEG q80 out; then SSIM (scripts/quality.py's:
# BT.601 luma, Gaussian window 1.5, on white) of each tool's PNG thumbnail against a reference made by other tools: the
# format's own decoder (heif-convert, djxl) at full size, converted to sRGB and resized with Pillow's LANCZOS.
# Inputs: imgproxy's heif/8-bpp.heif (1920x1080, from a test-images clone: TEST_IMAGES), our fixtures, and a
# 12 MP corpus photo made into HEIC (heif-enc -q 80, with and without a 320 px thumbnail) and JPEG XL (cjxl's
# defaults: distance 1, effort 7) here.
#
# usage: scripts/bench-heic-jxl.sh    (RUNS=3 SIZE=256 OURS=.build/release/thumbcache PILLOW_PYTHON=python3
#                                      ONLY=heic or ONLY=jxl: that format's files alone)
# Timing, the binary and SSIM come from scripts/lib/bench-common.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-common.sh
size=${SIZE:-256}
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
test_images=${TEST_IMAGES:-/work/.mirror/imgproxy+test-images/repo}
bench_py=$(bench_python)
pillow=${PILLOW_PYTHON:-$bench_py}
for tool in vipsthumbnail heif-enc heif-convert cjxl djxl vips; do
    command -v $tool >/dev/null || { echo "$tool not installed (libvips-tools, libheif-examples, libjxl-tools)" >&2; exit 1; }
done
ours=$(bench_binary)
bench_settle_page_cache "$ours" "$(command -v vipsthumbnail)"  # both sides loaded by use (bench-common.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

inputs=()
if git -C "$test_images" rev-parse HEAD >/dev/null 2>&1; then
    git -C "$test_images" show HEAD:heif/8-bpp.heif > "$work/8-bpp.heif" && inputs+=("$work/8-bpp.heif")
fi
inputs+=(Tests/ImageDecodeTests/Fixtures/heic/heif.heif)
photo=$corpus/jpeg/42_IndexError.jpg  # 4032x3024, 2.9 MB
if [ -f "$photo" ]; then
    if [ "${ONLY:-heic}" = heic ]; then
        heif-enc -q 80 -o "$work/photo-12mp.heic" "$photo" >/dev/null
        heif-enc -q 80 -t 320 -o "$work/photo-12mp-thumb320.heic" "$photo" >/dev/null
        inputs+=("$work/photo-12mp.heic" "$work/photo-12mp-thumb320.heic")
    fi
    if [ "${ONLY:-jxl}" = jxl ]; then
        vips copy "$photo" "$work/photo.png"
        cjxl "$work/photo.png" "$work/photo-12mp.jxl" >/dev/null 2>&1
        inputs+=("$work/photo-12mp.jxl")
    fi
fi
inputs+=(Tests/ImageDecodeTests/Fixtures/jxl/8-bpp.jxl Tests/ImageDecodeTests/Fixtures/jxl/16-bpp.jxl
         Tests/ImageDecodeTests/Fixtures/jxl/16-bpp-grayscale.jxl)
case ${ONLY:-} in  # keep one format's files
heic) for i in "${!inputs[@]}"; do [[ ${inputs[$i]} == *.jxl ]] && unset "inputs[$i]"; done ;;
jxl) for i in "${!inputs[@]}"; do [[ ${inputs[$i]} == *.jxl ]] || unset "inputs[$i]"; done ;;
esac

reference() {  # input -> full-size PNG by the format's own tool
    case $1 in
    *.jxl) djxl "$1" "$work/ref-full.png" >/dev/null 2>&1 ;;
    *) heif-convert "$1" "$work/ref-full.png" >/dev/null 2>&1 ;;
    esac
}

resized_reference() {  # width height -> $work/ref.png (Pillow LANCZOS, ICC converted to sRGB)
    "$pillow" - "$work/ref-full.png" "$1" "$2" "$work/ref.png" <<'PY'
import io, sys
from PIL import Image, ImageCms
image = Image.open(sys.argv[1])
icc = image.info.get("icc_profile")
if icc:
    image = ImageCms.profileToProfile(image, ImageCms.ImageCmsProfile(io.BytesIO(icc)), ImageCms.createProfile("sRGB"),
                                      renderingIntent=1, outputMode="RGB")
image.convert("RGB").resize((int(sys.argv[2]), int(sys.argv[3])), Image.LANCZOS).save(sys.argv[4])
PY
}

echo "HEIC and JPEG XL thumbnails, ${size} px, JPEG q80, best of $bench_runs; peak RSS; SSIM vs the format's own decoder + Pillow LANCZOS"
echo "ours: $ours ($(git rev-parse --short HEAD)); vipsthumbnail $(vips --version | head -1)"
echo
echo "| file | size | ours ms | vips ms | time ratio | CPU ratio | ours MiB | vips MiB | memory ratio | SSIM ours | SSIM vips |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for input in "${inputs[@]}"; do
    read -r ours_s ours_k ours_cpu <<<"$(bench_measure "$ours" thumbnail "$input" --size "$size" -o "$work/ours.jpg")"
    read -r vips_s vips_k vips_cpu <<<"$(bench_measure vipsthumbnail "$input" -s "$size" -o "$work/vips.jpg[Q=80]")"
    dims=$(vipsheader "$input" | sed -n 's/.*: \([0-9]*x[0-9]*\) .*/\1/p')
    "$ours" thumbnail "$input" --size "$size" -o "$work/ours.png" >/dev/null
    vipsthumbnail "$input" -s "$size" -o "$work/vips.png" >/dev/null
    reference "$input"
    read -r w h <<<"$(vipsheader "$work/ours.png" | sed -n 's/.*: \([0-9]*\)x\([0-9]*\) .*/\1 \2/p')"
    resized_reference "$w" "$h"
    ssim_ours=$(bench_ssim "$work/ref.png" "$work/ours.png")
    read -r vw vh <<<"$(vipsheader "$work/vips.png" | sed -n 's/.*: \([0-9]*\)x\([0-9]*\) .*/\1 \2/p')"
    [ "$vw $vh" != "$w $h" ] && resized_reference "$vw" "$vh"
    ssim_vips=$(bench_ssim "$work/ref.png" "$work/vips.png")
    printf "| %s | %s | %.1f | %.1f | %.2fx | %sx | %.1f | %.1f | %.2fx | %s | %s |\n" "$(basename "$input")" "$dims" \
        "$(echo "$ours_s * 1000" | bc -l)" "$(echo "$vips_s * 1000" | bc -l)" "$(echo "$ours_s / $vips_s" | bc -l)" \
        "$(bench_ratio "$ours_cpu" "$vips_cpu")" \
        "$(echo "$ours_k / 1024" | bc -l)" "$(echo "$vips_k / 1024" | bc -l)" "$(echo "$ours_k / $vips_k" | bc -l)" \
        "$ssim_ours" "$ssim_vips"
done
