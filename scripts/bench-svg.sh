#!/usr/bin/env bash
# SVG thumbnails: our release `thumbcache thumbnail` against vipsthumbnail (libvips' svgload: the same librsvg) on the
# same files, in one run. Per file and tool: best wall time of RUNS runs and peak RSS (`/usr/bin/time -f %M`), the
# ratios ours / vips, and the SSIM of each output against a reference made with other tools: rsvg-convert draws the
# SVG at four times the thumbnail's size and ImageMagick (`convert -filter Lanczos -resize`) reduces it; both are
# composited on white and compared on luma (scripts/quality.py's SSIM: Gaussian window 1.5).
# Inputs: imgproxy's test SVGs and W3C test-suite files committed in the repository, the demo's sample, and three
# made here: a 4000x3000 drawing of 20000 shapes, the same with blurs, and a 100000x100000 canvas (vector
# shrink-on-load: drawn at the thumbnail's size).
# Needs: vipsthumbnail (libvips-tools), rsvg-convert (librsvg2-bin), ImageMagick, python3-numpy, -scipy, -pil.
#
# usage: scripts/bench-svg.sh            RUNS=5 SIZE=256 scripts/bench-svg.sh    THUMBCACHE_BIN=.build/debug/thumbcache scripts/bench-svg.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
size=${SIZE:-256}
for tool in vipsthumbnail rsvg-convert /usr/bin/convert; do
    command -v $tool >/dev/null || { echo "$tool not installed (apt-get install libvips-tools librsvg2-bin imagemagick)" >&2; exit 1; }
done
# Debian's python3 has the packages; a python3 earlier in PATH (pyenv) may not.
py=python3
$py -c 'import numpy, scipy, PIL' 2>/dev/null || py=/usr/bin/python3
$py -c 'import numpy, scipy, PIL' 2>/dev/null || { echo "needs python3-numpy python3-scipy python3-pil" >&2; exit 1; }

# THUMBCACHE_BIN: another build to measure (a debug one gives the SSIM columns, not comparable times).
if [ -n "${THUMBCACHE_BIN:-}" ]; then
    ours=$THUMBCACHE_BIN
else
    swift build -c release --product thumbcache >/dev/null
    ours=$(swift build -c release --show-bin-path)/thumbcache
fi
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

run_tool() {  # tool input output
    case $1 in
    ours) "$ours" thumbnail "$2" --size "$size" --format png -o "$3" ;;
    vips) vipsthumbnail "$2" -s "$size" -o "$3" ;;
    esac
}

measure() {  # tool input output -> "seconds kib"
    local best="" peak=0
    for ((i = 0; i < runs; i++)); do
        local start=$EPOCHREALTIME rss
        rss=$( { /usr/bin/time -f '%M' bash -c "$(declare -f run_tool); ours=$ours size=$size run_tool \"\$@\"" _ "$1" "$2" "$3" 2>&1 >/dev/null; } | tail -1)
        local elapsed
        elapsed=$(echo "$EPOCHREALTIME - $start" | bc -l)
        if [ -z "$best" ] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
        (( rss > peak )) && peak=$rss
    done
    printf '%.3f %d\n' "$best" "$peak"
}

echo "# SVG thumbnail benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# $size px longest side, PNG out, best of $runs runs; time in s, peak RSS in MiB; ratio = ours / vipsthumbnail (< 1 is better)"
echo "# $(vipsthumbnail --vips-version); librsvg $(pkg-config --modversion librsvg-2.0); $(rsvg-convert --version); $(/usr/bin/convert -version | head -1 | cut -d' ' -f2,3)"
echo
echo "| file | ours s | ours MiB | vips s | vips MiB | time ratio | RSS ratio | ours WxH | SSIM ours | SSIM vips | SSIM ours vs vips |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
    name=$(basename "$f" .svg)
    read -r ours_s ours_k < <(measure ours "$f" "$work/$name.ours.png")
    read -r vips_s vips_k < <(measure vips "$f" "$work/$name.vips.png")
    quality=$($py - "$f" "$work/$name.ours.png" "$work/$name.vips.png" "$work" <<'EOF'
import subprocess, sys
sys.path.insert(0, "scripts")
import numpy as np
from PIL import Image
from quality import ssim
source, ours_path, vips_path, work = sys.argv[1:5]
def on_white(image):
    image = image.convert("RGBA")
    white = Image.new("RGBA", image.size, (255, 255, 255, 255))
    rgb = np.asarray(Image.alpha_composite(white, image).convert("RGB"), dtype=np.float64)
    return rgb @ np.array([0.299, 0.587, 0.114])
ours = Image.open(ours_path)
w, h = ours.size
big = f"{work}/reference-big.png"
reference = f"{work}/reference.png"
subprocess.run(["rsvg-convert", "-w", str(4 * w), "-h", str(4 * h), "-o", big, source], check=True)
subprocess.run(["/usr/bin/convert", big, "-filter", "Lanczos", "-resize", f"{w}x{h}!", reference], check=True)
ref = on_white(Image.open(reference))
vips = Image.open(vips_path)
vips_ssim = ssim(on_white(vips), ref) if vips.size == ours.size else float("nan")
both = ssim(on_white(ours), on_white(vips)) if vips.size == ours.size else float("nan")
note = "" if vips.size == ours.size else f" (vips {vips.size[0]}x{vips.size[1]})"
print(f"{w}x{h}{note} | {ssim(on_white(ours), ref):.4f} | {vips_ssim:.4f} | {both:.4f}")
EOF
)
    printf '| %s | %s | %.1f | %s | %.1f | %.2f | %.2f | %s |\n' "$name" "$ours_s" "$(echo "$ours_k / 1024" | bc -l)" \
        "$vips_s" "$(echo "$vips_k / 1024" | bc -l)" "$(echo "$ours_s / $vips_s" | bc -l)" "$(echo "$ours_k / $vips_k" | bc -l)" \
        "$(echo "$quality" | tail -1)"
done
