#!/usr/bin/env bash
# SVG thumbnails: our release `thumbcache thumbnail` against vipsthumbnail (libvips' svgload: the same librsvg) on the
# same files, in one run. Per file and tool: best wall time of RUNS runs, least user+system CPU time and peak RSS
# (`/usr/bin/time -f %M`), the ratios ours / vips, and the SSIM of each output against a reference made with other tools: rsvg-convert draws the
# SVG at four times the thumbnail's size and ImageMagick (`convert -filter Lanczos -resize`) reduces it; both are
# composited on white and compared on luma (scripts/quality.py's SSIM: Gaussian window 1.5).
# Inputs: imgproxy's test SVGs and W3C test-suite files committed in the repository, the demo's sample, and three
# made here: a 4000x3000 drawing of 20000 shapes, the same with blurs, and a 100000x100000 canvas (vector
# shrink-on-load: drawn at the thumbnail's size).
# Needs: vipsthumbnail (libvips-tools), rsvg-convert (librsvg2-bin), ImageMagick, python3-numpy, -scipy, -pil.
#
# usage: scripts/bench-svg.sh            RUNS=5 SIZE=256 scripts/bench-svg.sh    OURS=.build/debug/thumbcache scripts/bench-svg.sh
# Timing, the binary and SSIM come from scripts/lib/bench-common.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-common.sh
size=${SIZE:-256}
for tool in vipsthumbnail rsvg-convert /usr/bin/convert; do
    command -v $tool >/dev/null || { echo "$tool not installed (apt-get install libvips-tools librsvg2-bin imagemagick)" >&2; exit 1; }
done
py=$(bench_python)
bench_py=$py
ours=$(bench_binary)
bench_settle_page_cache "$ours" "$(command -v vipsthumbnail)"  # both sides loaded by use (bench-common.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

$py - "$work" <<'EOF'
import random, sys
work = sys.argv[1]
random.seed(1)
shapes = []
for i in range(20000):
    x, y, r = random.uniform(0, 4000), random.uniform(0, 3000), random.uniform(2, 60)
    colour = "#%06x" % random.randrange(1 << 24)
    shapes.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{r:.1f}' fill='{colour}' fill-opacity='0.7'/>")
body = "".join(shapes)
open(f"{work}/shapes-4000x3000.svg", "w").write(
    f"<svg xmlns='http://www.w3.org/2000/svg' width='4000' height='3000'><rect width='4000' height='3000' fill='#fff'/>{body}</svg>")
blurred = "".join(f"<g filter='url(#b)'>{''.join(shapes[i:i + 500])}</g>" for i in range(0, 4000, 500))
open(f"{work}/blurs-4000x3000.svg", "w").write(
    "<svg xmlns='http://www.w3.org/2000/svg' width='4000' height='3000'><filter id='b'><feGaussianBlur stdDeviation='8'/></filter>"
    f"<rect width='4000' height='3000' fill='#fff'/>{blurred}</svg>")
open(f"{work}/canvas-100000.svg", "w").write(
    "<svg xmlns='http://www.w3.org/2000/svg' width='100000' height='100000' viewBox='0 0 100 100'>"
    "<rect width='100' height='100' fill='#fff'/><circle cx='50' cy='50' r='40' fill='#2b6cb0'/>"
    "<path d='M10 90 L50 20 L90 90 Z' fill='#fbd38d' stroke='#000' stroke-width='0.5'/></svg>")
EOF

files=(Conformance/imgproxy/images/test-images/svg/svg.svg Conformance/imgproxy/images/test1.svg
       Sources/ThumbcacheServer/Samples/logo.svg Tests/ImageDecodeTests/Fixtures/svg/shapes-rect-01-t.svg
       Tests/ImageDecodeTests/Fixtures/svg/filters-gauss-01-b.svg
       "$work/shapes-4000x3000.svg" "$work/blurs-4000x3000.svg" "$work/canvas-100000.svg")

echo "# SVG thumbnail benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# $size px longest side, PNG out, best of $bench_runs runs; time in s, peak RSS in MiB; ratio = ours / vipsthumbnail (< 1 is better)"
echo "# $(vipsthumbnail --vips-version); librsvg $(pkg-config --modversion librsvg-2.0); $(rsvg-convert --version); $(/usr/bin/convert -version | head -1 | cut -d' ' -f2,3)"
echo
echo "| file | ours s | ours MiB | vips s | vips MiB | time ratio | CPU ratio | RSS ratio | ours WxH | SSIM ours | SSIM vips | SSIM ours vs vips |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
    name=$(basename "$f" .svg)
    ours_png=$work/$name.ours.png vips_png=$work/$name.vips.png
    read -r ours_s ours_k ours_cpu < <(bench_measure "$ours" thumbnail "$f" --size "$size" --format png -o "$ours_png")
    read -r vips_s vips_k vips_cpu < <(bench_measure vipsthumbnail "$f" -s "$size" -o "$vips_png")
    read -r w h < <($py -c 'import sys; from PIL import Image; print(*Image.open(sys.argv[1]).size)' "$ours_png")
    read -r vw vh < <($py -c 'import sys; from PIL import Image; print(*Image.open(sys.argv[1]).size)' "$vips_png")
    rsvg-convert -w $((4 * w)) -h $((4 * h)) -o "$work/reference-big.png" "$f"
    /usr/bin/convert "$work/reference-big.png" -filter Lanczos -resize "${w}x${h}!" "$work/reference.png"
    read -r ssim_ours ssim_vips < <(bench_ssim "$work/reference.png" "$ours_png" "$vips_png")
    if [ "$vw $vh" = "$w $h" ]; then note="" both=$(bench_ssim "$vips_png" "$ours_png"); else note=" (vips ${vw}x$vh)" ssim_vips=nan both=nan; fi
    printf '| %s | %.3f | %s | %.3f | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$ours_s" "$(bench_mib "$ours_k")" \
        "$vips_s" "$(bench_mib "$vips_k")" "$(bench_ratio "$ours_s" "$vips_s")" "$(bench_ratio "$ours_cpu" "$vips_cpu")" "$(bench_ratio "$ours_k" "$vips_k")" \
        "${w}x$h$note" "$ssim_ours" "$ssim_vips" "$both"
done
