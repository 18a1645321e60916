#!/usr/bin/env bash
# HEIC out (issue 32): our encoder against libvips' heifsave (what imgproxy calls) on the same pixels, in one run.
#
# Per photo: vips makes a SIZE px PNG (the pixels both encoders get); `thumbcache thumbnail` writes it as HEIC at
# quality Q (SIZE is its longest side, so nothing is resampled) and `vips heifsave --Q Q --strip` writes it too
# (stripped as our default is: the PNG carries the photo's Exif). Both files are decoded by heif-convert (not our
# decoder) and compared with the PNG: SSIM on BT.601 luma (Gaussian window 1.5, as scripts/quality.py) and bytes;
# time is the wall time of the whole process, best of RUNS.
#
# usage: scripts/bench-heic-out.sh    (RUNS=1 SIZE=1024 Q=80 OURS=.build/debug/thumbcache THUMBCACHE_CORPUS=../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-1}
size=${SIZE:-1024}
quality=${Q:-80}
ours=${OURS:-.build/debug/thumbcache}
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
for tool in vips heif-convert python3; do
    command -v $tool >/dev/null || { echo "$tool not installed (libvips-tools, libheif-examples)" >&2; exit 1; }
done
[ -x "$ours" ] || { echo "$ours not built (swift build --product thumbcache)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ssim() {  # a.png b.png -> SSIM on luma
    python3 - "$1" "$2" <<'EOF'
import sys
import numpy as np
from PIL import Image
from scipy.ndimage import gaussian_filter
def luma(path):
    a = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    return 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]
def ssim(a, b, sigma=1.5, L=255.0):
    c1, c2 = (0.01 * L) ** 2, (0.03 * L) ** 2
    mu_a, mu_b = gaussian_filter(a, sigma), gaussian_filter(b, sigma)
    va = gaussian_filter(a * a, sigma) - mu_a ** 2
    vb = gaussian_filter(b * b, sigma) - mu_b ** 2
    cov = gaussian_filter(a * b, sigma) - mu_a * mu_b
    return float((((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (va + vb + c2))).mean())
a, b = luma(sys.argv[1]), luma(sys.argv[2])
print(f"{ssim(a, b):.4f}" if a.shape == b.shape else f"size {a.shape} vs {b.shape}")
EOF
}

best() {  # command... -> best wall time in ms over $runs runs
    local best_ms=""
    for _ in $(seq "$runs"); do
        local start=$EPOCHREALTIME
        "$@" >/dev/null 2>&1
        local ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
        [ -z "$best_ms" ] || [ "$ms" -lt "$best_ms" ] && best_ms=$ms
    done
    echo "$best_ms"
}

echo "| photo | size | ours bytes | vips bytes | bytes ratio | ours SSIM | vips SSIM | ours ms | vips ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in 42_IndexError.jpg dennis-buchner-WATeNJyEUkA-unsplash.jpg tower.jpg; do
    photo=$corpus/jpeg/$name
    [ -f "$photo" ] || { echo "skipped $name: not in $corpus" >&2; continue; }
    vips thumbnail "$photo" "$work/ref.png" "$size"
    width=$(vipsheader -f width "$work/ref.png")
    height=$(vipsheader -f height "$work/ref.png")
    longest=$(( width > height ? width : height ))
    ours_ms=$(best "$ours" thumbnail "$work/ref.png" --size "$longest" --quality "$quality" -o "$work/ours.heic")
    vips_ms=$(best vips heifsave "$work/ref.png" "$work/vips.heic" --Q "$quality" --strip)
    heif-convert "$work/ours.heic" "$work/ours.png" >/dev/null
    heif-convert "$work/vips.heic" "$work/vips.png" >/dev/null
    ours_bytes=$(stat -c %s "$work/ours.heic")
    vips_bytes=$(stat -c %s "$work/vips.heic")
    printf "| %s | %sx%s | %s | %s | %.3fx | %s | %s | %s | %s |\n" "$name" "$width" "$height" "$ours_bytes" "$vips_bytes" \
        "$(echo "$ours_bytes / $vips_bytes" | bc -l)" "$(ssim "$work/ours.png" "$work/ref.png")" \
        "$(ssim "$work/vips.png" "$work/ref.png")" "$ours_ms" "$vips_ms"
done
