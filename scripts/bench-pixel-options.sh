#!/usr/bin/env bash
# flip, trim and watermark (issue 31), release build, `thumbcache thumbnail FILE --options` (serve's parser, planner
# and renderer), one process per image, on the corpus JPEGs of 4 to 24 MP (first PHOTOS, default 6):
#   plain: the two plain renders of bench-processing.sh (rs:fill:300:200/g:sm, rs:fit:300:200/dpr:2) by BASE_BIN
#          (a build without the three options) and THUMBCACHE_BIN, alternating A B B A per photo and round (ROUNDS,
#          default 3), wall time summed: the cost the new code adds to a render that does not use it.
#   vs libvips 8.14, same inputs, hyperfine (RUNS, default 3, after a warm-up), time summed over the photos:
#     flip      fl:1:0/q:80                       vs  vips flip IN OUT[Q=80,strip] horizontal
#     flip+fit  rs:fit:1024:1024/fl:1:0/q:80      vs  vipsthumbnail -s 1024 -o T.v; vips flip T.v OUT[Q=80,strip] horizontal
#     wm        wm:0.5:soea:10:10/q:80            vs  vips composite2 IN WM50.png OUT[Q=80,strip] over --x X --y Y
#     wm+fit    rs:fit:1024:1024/wm:0.5:soea:10:10/q:80  vs  vipsthumbnail + vips composite2 (the same placement)
#     trim      t:10:ffffff/q:80                  vs  vips find_trim IN --background "255 255 255"; vips crop …
#     flip-oc, wm-oc: flip and wm again, libvips writing as imgproxy has it write (and as thumbcache writes):
#               OUT[Q=80,strip,optimize_coding] (Huffman tables fitted to the image: a second pass, a smaller file)
#   The watermark is imgproxy's testdata/geometry.png (200x100); WM50.png is it with alpha 127.5 for vips (opacity
#   0.5); the trim inputs are the photos on a 64-pixel white border (JPEG q90), made once with vips embed.
# Usage: scripts/bench-pixel-options.sh   (THUMBCACHE_BIN=path skips the release build; BASE_BIN=path of the build
#   before the change, required for "plain"; PHOTOS=6 ROUNDS=3 RUNS=3)
set -euo pipefail
cd "$(dirname "$0")/.."
photos_max=${PHOTOS:-6}; rounds=${ROUNDS:-3}; runs=${RUNS:-3}
for tool in hyperfine vips vipsthumbnail python3; do
  command -v $tool >/dev/null || { echo "needs $tool: apt-get install -y hyperfine libvips-tools python3" >&2; exit 2; }
done
[ -n "${THUMBCACHE_BIN:-}" ] || swift build -c release --product thumbcache >/dev/null
bin=${THUMBCACHE_BIN:-$PWD/.build/release/thumbcache}
base=${BASE_BIN:-}
work=$(mktemp -d)
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
mapfile -t photos < <(awk -F'\t' 'NR>1 && $3*$4>=4000000 && $3*$4<=24000000 && $1 ~ /\.jpe?g$/ {print $1}' ../shared/corpus/MANIFEST.tsv 2>/dev/null | head -n "$photos_max" || true)
((${#photos[@]} > 0)) || { echo "needs ../shared/corpus (the photos)" >&2; exit 2; }
for i in "${!photos[@]}"; do
  cp "../shared/corpus/${photos[$i]}" "$work/p$i.jpg"
  vips embed "$work/p$i.jpg" "$work/b$i.jpg[Q=90,strip]" 64 64 \
    $(( $(vipsheader -f width "$work/p$i.jpg") + 128 )) $(( $(vipsheader -f height "$work/p$i.jpg") + 128 )) \
    --extend background --background "255 255 255"
done
wm=Tests/ImageDecodeTests/Fixtures/imgproxy/geometry.png
vips bandjoin_const "$wm" "$work/wm50.png" 127.5
echo "photos: ${#photos[@]} of 4-24 MP; load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"

# --- plain renders: before and after, alternating ----------------------------------------------------------
if [ -n "$base" ]; then
  python3 - "$base" "$bin" "$work" "${#photos[@]}" "$rounds" <<'PY'
import subprocess, sys, time
base, new, work, count, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
totals = {}
def run(binary, label, options, photo):
    start = time.perf_counter()
    subprocess.run([binary, "thumbnail", f"{work}/p{photo}.jpg", "--options", options, "-o", f"{work}/plain.jpg"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    totals[(label, options)] = totals.get((label, options), 0) + time.perf_counter() - start
for r in range(rounds):
    for photo in range(count):
        for options in ("rs:fill:300:200/g:sm", "rs:fit:300:200/dpr:2"):
            order = [("base", base), ("new", new)] if (r + photo) % 2 == 0 else [("new", new), ("base", base)]
            for label, binary in order + order[::-1]:
                run(binary, label, options, photo)
for options in ("rs:fill:300:200/g:sm", "rs:fit:300:200/dpr:2"):
    a, b = totals[("new", options)], totals[("base", options)]
    print(f"  plain {options}: with the options {a:.2f} s, before {b:.2f} s ({a / b:.3f}x), "
          f"{rounds} rounds x {count} photos x 2 runs each")
PY
fi

# --- against libvips ---------------------------------------------------------------------------------------
# Where soea 10:10 puts the 200x100 watermark (x = W - 210, y = H - 110) on each photo and on its 1024 fit, worked
# out before timing so vips is given numbers.
declare -a wx wy fx fy
for i in "${!photos[@]}"; do
  wx[$i]=$(( $(vipsheader -f width "$work/p$i.jpg") - 210 )); wy[$i]=$(( $(vipsheader -f height "$work/p$i.jpg") - 110 ))
  vipsthumbnail "$work/p$i.jpg" -s 1024 -o "$work/fit-$i.v"
  fx[$i]=$(( $(vipsheader -f width "$work/fit-$i.v") - 210 )); fy[$i]=$(( $(vipsheader -f height "$work/fit-$i.v") - 110 ))
done
compare() {  # NAME OURS-TEMPLATE VIPS-TEMPLATE (in each, @ is the photo index, @WX @WY @FX @FY the placements)
  local name=$1 ours=$2 theirs=$3 i
  : > "$work/$name.times"
  for i in "${!photos[@]}"; do
    local t=${theirs//@WX/${wx[$i]}}; t=${t//@WY/${wy[$i]}}; t=${t//@FX/${fx[$i]}}; t=${t//@FY/${fy[$i]}}
    hyperfine --style none --warmup 1 --runs "$runs" --export-json "$work/$name-$i.json" \
      "${ours//@/$i}" "${t//@/$i}" >/dev/null
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(r[0]["mean"], r[1]["mean"], r[0]["user"] + r[0]["system"], r[1]["user"] + r[1]["system"])' \
      "$work/$name-$i.json" >> "$work/$name.times"
  done
  # Wall time, and CPU time (user + system, every thread): on a shared machine the second is the steadier.
  python3 - "$work/$name.times" "$name" <<'PY'
import sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
ours, theirs = sum(r[0] for r in rows), sum(r[1] for r in rows)
cpu_ours, cpu_theirs = sum(r[2] for r in rows), sum(r[3] for r in rows)
print(f"  {sys.argv[2]}: wall thumbcache {ours:.2f} s, libvips {theirs:.2f} s ({ours / theirs:.2f}x, per photo "
      f"{min(r[0] / r[1] for r in rows):.2f}-{max(r[0] / r[1] for r in rows):.2f}x); CPU {cpu_ours:.2f} s vs {cpu_theirs:.2f} s "
      f"({cpu_ours / cpu_theirs:.2f}x)")
PY
}
# Full-size renders of 20 MP photos need more than the default 256 MiB decode budget (the whole image is held).
tc="$bin thumbnail --max-decode-memory 1GiB $work/p@.jpg -o $work/tc-@.jpg"
compare flip "$tc --options fl:1:0/q:80" "vips flip $work/p@.jpg '$work/v-@.jpg[Q=80,strip]' horizontal"
compare flip-oc "$tc --options fl:1:0/q:80" "vips flip $work/p@.jpg '$work/v-@.jpg[Q=80,strip,optimize_coding]' horizontal"
compare flip+fit "$tc --options rs:fit:1024:1024/fl:1:0/q:80" \
  "vipsthumbnail $work/p@.jpg -s 1024 -o $work/t-@.v && vips flip $work/t-@.v '$work/v-@.jpg[Q=80,strip]' horizontal"
compare wm "$tc --watermark-path $wm --options wm:0.5:soea:10:10/q:80" \
  "vips composite2 $work/p@.jpg $work/wm50.png '$work/v-@.jpg[Q=80,strip]' over --x @WX --y @WY"
compare wm-oc "$tc --watermark-path $wm --options wm:0.5:soea:10:10/q:80" \
  "vips composite2 $work/p@.jpg $work/wm50.png '$work/v-@.jpg[Q=80,strip,optimize_coding]' over --x @WX --y @WY"
compare wm+fit "$tc --watermark-path $wm --options rs:fit:1024:1024/wm:0.5:soea:10:10/q:80" \
  "vipsthumbnail $work/p@.jpg -s 1024 -o $work/t-@.v && vips composite2 $work/t-@.v $work/wm50.png '$work/v-@.jpg[Q=80,strip]' over --x @FX --y @FY"
compare trim "$bin thumbnail --max-decode-memory 1GiB $work/b@.jpg -o $work/tc-@.jpg --options t:10:ffffff/q:80" \
  "set -- \$(vips find_trim $work/b@.jpg --threshold 10 --background '255 255 255') && vips crop $work/b@.jpg '$work/v-@.jpg[Q=80,strip]' \$1 \$2 \$3 \$4"
