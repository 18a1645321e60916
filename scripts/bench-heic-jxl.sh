#!/usr/bin/env bash
# HEIC and JPEG XL thumbnails (issue 32): our release build against vipsthumbnail 8.14 on the same files, in one run.
#
# Per file and tool: best wall time of RUNS runs (bash's EPOCHREALTIME around the process) and peak RSS
# (`/usr/bin/time -f %M`, max over the runs), SIZE px longest side, JPEG q80 out; then SSIM (scripts/quality.py's:
# BT.601 luma, Gaussian window 1.5) of each tool's PNG thumbnail against a reference made by other tools: the
# format's own decoder (heif-convert, djxl) at full size, converted to sRGB and resized with Pillow's LANCZOS.
# Inputs: imgproxy's heif/8-bpp.heif (1920x1080, from a test-images clone: TEST_IMAGES), our fixtures, and a
# 12 MP corpus photo made into HEIC (heif-enc -q 80, with and without a 320 px thumbnail) and JPEG XL (cjxl's
# defaults: distance 1, effort 7) here.
#
# usage: scripts/bench-heic-jxl.sh    (RUNS=3 SIZE=256 OURS=.build/release/thumbcache PILLOW_PYTHON=python3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
size=${SIZE:-256}
ours=${OURS:-.build/release/thumbcache}
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
test_images=${TEST_IMAGES:-/work/.mirror/imgproxy+test-images/repo}
pillow=${PILLOW_PYTHON:-$( [ -x .build/imgproxy-venv/bin/python ] && echo .build/imgproxy-venv/bin/python || echo python3)}
for tool in vipsthumbnail heif-enc heif-convert cjxl djxl vips; do
    command -v $tool >/dev/null || { echo "$tool not installed (libvips-tools, libheif-examples, libjxl-tools)" >&2; exit 1; }
done
[ -x "$ours" ] || swift build -c release --product thumbcache >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

inputs=()
if git -C "$test_images" rev-parse HEAD >/dev/null 2>&1; then
    git -C "$test_images" show HEAD:heif/8-bpp.heif > "$work/8-bpp.heif" && inputs+=("$work/8-bpp.heif")
fi
inputs+=(Tests/ImageDecodeTests/Fixtures/heic/heif.heif)
photo=$corpus/jpeg/42_IndexError.jpg  # 4032x3024, 2.9 MB
if [ -f "$photo" ]; then
    heif-enc -q 80 -o "$work/photo-12mp.heic" "$photo" >/dev/null
    heif-enc -q 80 -t 320 -o "$work/photo-12mp-thumb320.heic" "$photo" >/dev/null
    vips copy "$photo" "$work/photo.png"
    cjxl "$work/photo.png" "$work/photo-12mp.jxl" >/dev/null 2>&1
    inputs+=("$work/photo-12mp.heic" "$work/photo-12mp-thumb320.heic" "$work/photo-12mp.jxl")
fi
inputs+=(Tests/ImageDecodeTests/Fixtures/jxl/8-bpp.jxl Tests/ImageDecodeTests/Fixtures/jxl/16-bpp.jxl
         Tests/ImageDecodeTests/Fixtures/jxl/16-bpp-grayscale.jxl)

measure() {  # tool input -> "best_seconds peak_kib"
    local best="" peak=0
    for ((i = 0; i < runs; i++)); do
        local start=$EPOCHREALTIME rss
        case $1 in
        ours) rss=$( { /usr/bin/time -f '%M' "$ours" thumbnail "$2" --size "$size" -o "$work/ours.jpg" 2>&1 >/dev/null; } | tail -1) ;;
        vips) rss=$( { /usr/bin/time -f '%M' vipsthumbnail "$2" -s "$size" -o "$work/vips.jpg[Q=80]" 2>&1 >/dev/null; } | tail -1) ;;
        esac
        local elapsed
        elapsed=$(echo "$EPOCHREALTIME - $start" | bc -l)
        if [ -z "$best" ] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
        (( rss > peak )) && peak=$rss
    done
    echo "$best $peak"
}

reference() {  # input -> full-size PNG by the format's own tool
    case $1 in
    *.jxl) djxl "$1" "$work/ref-full.png" >/dev/null 2>&1 ;;
    *) heif-convert "$1" "$work/ref-full.png" >/dev/null 2>&1 ;;
    esac
}

ssim() {  # a.png b.png -> SSIM on luma (both converted to 8-bit PPM by vips: lossless)
    vips colourspace "$1" "$work/a.v" srgb >/dev/null && vips cast "$work/a.v" "$work/a.ppm" uchar
    vips colourspace "$2" "$work/b.v" srgb >/dev/null && vips cast "$work/b.v" "$work/b.ppm" uchar
    python3 - "$work/a.ppm" "$work/b.ppm" <<'PY'
import sys, numpy as np
sys.path.insert(0, "scripts")
from scipy.ndimage import gaussian_filter
def read(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace(): at += 1
        if data[at:at + 1] == b"#":
            at = data.index(b"\n", at)
            continue
        end = at
        while not data[end:end + 1].isspace(): end += 1
        fields.append(data[at:end]); at = end
    w, h = int(fields[1]), int(fields[2])
    pixels = np.frombuffer(data[at + 1:at + 1 + w * h * (3 if fields[0] == b"P6" else 1)], dtype=np.uint8)
    rgb = pixels.reshape(h, w, -1).astype(np.float64)
    return rgb @ np.array([0.299, 0.587, 0.114]) if rgb.shape[2] == 3 else rgb[:, :, 0]
def ssim(a, b, sigma=1.5, L=255.0):
    c1, c2 = (0.01 * L) ** 2, (0.03 * L) ** 2
    blur = lambda x: gaussian_filter(x, sigma, truncate=3.5)
    ma, mb = blur(a), blur(b)
    va, vb, cov = blur(a * a) - ma ** 2, blur(b * b) - mb ** 2, blur(a * b) - ma * mb
    return float((((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma ** 2 + mb ** 2 + c1) * (va + vb + c2))).mean())
a, b = read(sys.argv[1]), read(sys.argv[2])
print(f"{ssim(a, b):.4f}" if a.shape == b.shape else f"size {a.shape} vs {b.shape}")
PY
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

echo "HEIC and JPEG XL thumbnails, ${size} px, JPEG q80, best of $runs; peak RSS; SSIM vs the format's own decoder + Pillow LANCZOS"
echo "ours: $ours ($(git rev-parse --short HEAD)); vipsthumbnail $(vips --version | head -1)"
echo
echo "| file | size | ours ms | vips ms | time ratio | ours MiB | vips MiB | memory ratio | SSIM ours | SSIM vips |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for input in "${inputs[@]}"; do
    read -r ours_s ours_k <<<"$(measure ours "$input")"
    read -r vips_s vips_k <<<"$(measure vips "$input")"
    dims=$(vipsheader "$input" | sed -n 's/.*: \([0-9]*x[0-9]*\) .*/\1/p')
    "$ours" thumbnail "$input" --size "$size" -o "$work/ours.png" >/dev/null
    vipsthumbnail "$input" -s "$size" -o "$work/vips.png" >/dev/null
    reference "$input"
    read -r w h <<<"$(vipsheader "$work/ours.png" | sed -n 's/.*: \([0-9]*\)x\([0-9]*\) .*/\1 \2/p')"
    resized_reference "$w" "$h"
    ssim_ours=$(ssim "$work/ours.png" "$work/ref.png")
    read -r vw vh <<<"$(vipsheader "$work/vips.png" | sed -n 's/.*: \([0-9]*\)x\([0-9]*\) .*/\1 \2/p')"
    [ "$vw $vh" != "$w $h" ] && resized_reference "$vw" "$vh"
    ssim_vips=$(ssim "$work/vips.png" "$work/ref.png")
    printf "| %s | %s | %.1f | %.1f | %.2fx | %.1f | %.1f | %.2fx | %s | %s |\n" "$(basename "$input")" "$dims" \
        "$(echo "$ours_s * 1000" | bc -l)" "$(echo "$vips_s * 1000" | bc -l)" "$(echo "$ours_s / $vips_s" | bc -l)" \
        "$(echo "$ours_k / 1024" | bc -l)" "$(echo "$vips_k / 1024" | bc -l)" "$(echo "$ours_k / $vips_k" | bc -l)" \
        "$ssim_ours" "$ssim_vips"
done
