#!/usr/bin/env bash
# What blur and sharpen cost (issue 33 §2), release build, side by side with libvips in one run: the figures
# behind RenderLimits.defaultMaxEffectWork. One photo is first resized to WIDTH px (a PNG, so neither side pays for a
# JPEG decode that differs), then each side decodes that PNG, applies one filter at one sigma, and writes a PNG:
#   thumbcache thumbnail in.png --options bl:S     vs  vips gaussblur in.png out.png S      (min-ampl 0.2 both)
#   thumbcache thumbnail in.png --options sh:S     vs  vips sharpen in.png out.png --sigma S
# Prints, per case, the work RenderWork estimates (mask taps x channels x pixels x 2 passes, + 150 per pixel for
# sharpen), both wall times, their ratio, and our operations per second. Usage: scripts/bench-effects.sh
#   (WIDTH=1500 SIGMAS="10 30 100"; THUMBCACHE_BIN=path skips the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
width=${WIDTH:-1500}; sigmas=${SIGMAS:-10 30 100}
command -v vips >/dev/null || { echo "needs vips: apt-get install -y libvips-tools" >&2; exit 2; }
[ -n "${THUMBCACHE_BIN:-}" ] || swift build -c release --product thumbcache >/dev/null
bin=${THUMBCACHE_BIN:-$PWD/.build/release/thumbcache}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
photo=$(awk -F'\t' 'NR>1 && $3*$4>=4000000 && $1 ~ /\.jpe?g$/ {print $1; exit}' ../shared/corpus/MANIFEST.tsv 2>/dev/null || true)
if [ -n "$photo" ]; then src="../shared/corpus/$photo"; else
  echo "note: ../shared/corpus absent; the test fixture stands in (enlarged)" >&2; src=Tests/ImageDecodeTests/Fixtures/rocket.jpg
fi
"$bin" thumbnail "$src" --options "rs:fit:$width:$width/el:1" -o "$work/in.png" >/dev/null
read -r w h < <(python3 -c "import struct,sys; d=open('$work/in.png','rb').read(24); print(*struct.unpack('>II', d[16:24]))")
echo "input: $src resized to ${w}x${h} PNG ($(vips --version))"
# RenderWork's estimate: libvips's mask (vips_gaussmat) cut at min-ampl of its peak.
taps() { python3 -c "
import math; s=$1; a=$2; r=0
while r < 5000 and math.exp(-((r+1)**2)/(2*s*s)) >= a: r += 1
print(2*r+1)"; }
secs() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc; }
printf '%-10s %10s %10s %10s %8s %12s\n' case "Gops" thumbcache vips ratio "Gops/s ours"
for s in $sigmas; do
  t=$(taps "$s" 0.2); ops=$((w * h * 3 * t * 2))
  ours=$(secs "$bin" thumbnail "$work/in.png" --options "bl:$s" --max-effect-work 999999999999 -o "$work/o.png")
  peer=$(secs vips gaussblur "$work/in.png" "$work/v.png" "$s")
  printf '%-10s %10.2f %10.2f %10.2f %7.2fx %12.2f\n' "bl:$s" "$(echo "$ops/1000000000" | bc -l)" "$ours" "$peer" \
    "$(echo "$ours/$peer" | bc -l)" "$(echo "$ops/$ours/1000000000" | bc -l)"
  t=$(taps "$s" 0.1); ops=$((w * h * (t * 2 + 150)))
  ours=$(secs "$bin" thumbnail "$work/in.png" --options "sh:$s" --max-effect-work 999999999999 -o "$work/o.png")
  peer=$(secs vips sharpen "$work/in.png" "$work/v.png" --sigma "$s")
  printf '%-10s %10.2f %10.2f %10.2f %7.2fx %12.2f\n' "sh:$s" "$(echo "$ops/1000000000" | bc -l)" "$ours" "$peer" \
    "$(echo "$ours/$peer" | bc -l)" "$(echo "$ops/$ours/1000000000" | bc -l)"
done
