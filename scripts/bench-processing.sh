#!/usr/bin/env bash
# Processing URLs (imgproxy's options), release build, side by side with libvips in one run, loopback only:
#   renders: each corpus JPEG of 4 to 24 MP (first PHOTOS of them, default 20) rendered from the original on disk,
#            as a miss whose original is already stored does (`thumbcache thumbnail FILE --options`: the same
#            parser, planner and renderer as serve), against vipsthumbnail 8.14 on the same file:
#              rs:fill:300:200/g:sm   vs  vipsthumbnail -s 300x200 --smartcrop attention
#              rs:fit:300:200/dpr:2   vs  vipsthumbnail -s 600x400
#            wall time summed over the photos, and peak RSS (median and max, /usr/bin/time's %M); one process per
#            image for both. Target: thumbcache <= 1.0x vipsthumbnail's time and memory.
#   variant hits from disk: HITS processed URLs (rs:fill:300:200/g:sm of the photos under HITS names) rendered
#            once into one cache directory, then served with a 1 MiB memory cache to wrk -t2 -c64 rotating over
#            them, against nginx serving the same bytes as static files (rotating) and one of them alone.
#            Target: >= 0.3x nginx static.
# wrk shares the cores with the servers: compare the ratios. Usage: scripts/bench-processing.sh
#   (PHOTOS=20 HITS=200 DURATION=8; THUMBCACHE_BIN=path skips the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
photos_max=${PHOTOS:-20}; hits=${HITS:-200}; duration=${DURATION:-8}
for tool in wrk nginx curl python3 vipsthumbnail; do
  command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] || { echo "needs $tool: apt-get install -y wrk nginx curl libvips-tools" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time: apt-get install -y time" >&2; exit 2; }
[ -n "${THUMBCACHE_BIN:-}" ] || swift build -c release --product thumbcache >/dev/null
bin=${THUMBCACHE_BIN:-$PWD/.build/release/thumbcache}
work=$(mktemp -d); chmod 755 "$work"; mkdir -p "$work/www/photos" "$work/static" "$work/logs" "$work/out"
mapfile -t photos < <(awk -F'\t' 'NR>1 && $3*$4>=4000000 && $3*$4<=24000000 && $1 ~ /\.jpe?g$/ {print $1}' ../shared/corpus/MANIFEST.tsv 2>/dev/null | head -n "$photos_max" || true)
if ((${#photos[@]} == 0)); then
  echo "note: ../shared/corpus absent; the test fixture stands in for the photos (figures mean little)" >&2
  cp Tests/ImageDecodeTests/Fixtures/rocket.jpg "$work/www/p0.jpg"; photos=(fixture)
else
  for i in "${!photos[@]}"; do cp "../shared/corpus/${photos[$i]}" "$work/www/p$i.jpg"; done
fi
serve_pid=""
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; sleep 0.3; rm -rf "$work"; }
trap cleanup EXIT

# --- renders ---------------------------------------------------------------------------------------------
timed() {  # LABEL COMMAND... -> appends "label seconds kib" to $work/times
  local label=$1; shift
  /usr/bin/time -f "$label %e %M" -a -o "$work/times" "$@" >/dev/null 2>&1 || echo "$label failed: $*" >&2
}
echo "renders: ${#photos[@]} photo(s) of 4-24 MP, one process per image, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!photos[@]}"; do
  in="$work/www/p$i.jpg"
  timed "tc-sm" "$bin" thumbnail "$in" --options 'rs:fill:300:200/g:sm' -o "$work/out/tc-sm-$i.jpg"
  timed "vips-sm" vipsthumbnail "$in" -s 300x200 --smartcrop attention -o "$work/out/vips-sm-$i.jpg"
  timed "tc-dpr" "$bin" thumbnail "$in" --options 'rs:fit:300:200/dpr:2' -o "$work/out/tc-dpr-$i.jpg"
  timed "vips-dpr" vipsthumbnail "$in" -s 600x400 -o "$work/out/vips-dpr-$i.jpg"
done
python3 - "$work/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3 and parts[1].replace('.', '', 1).isdigit():
        rows.setdefault(parts[0], []).append((float(parts[1]), int(parts[2])))
for ours, theirs, what in [("tc-sm", "vips-sm", "rs:fill:300:200/g:sm vs --smartcrop attention"),
                           ("tc-dpr", "vips-dpr", "rs:fit:300:200/dpr:2 vs -s 600x400")]:
    a, b = rows.get(ours, []), rows.get(theirs, [])
    if not a or not b:
        print(f"  {what}: missing runs"); continue
    ta, tb = sum(t for t, _ in a), sum(t for t, _ in b)
    ma, mb = statistics.median(m for _, m in a), statistics.median(m for _, m in b)
    print(f"  {what}: time {ta:.2f} s vs {tb:.2f} s ({ta / tb:.2f}x); peak RSS median {ma / 1024:.0f} vs {mb / 1024:.0f} MiB "
          f"({ma / mb:.2f}x), max {max(m for _, m in a) / 1024:.0f} vs {max(m for _, m in b) / 1024:.0f} MiB")
PY

# --- variant hits from disk --------------------------------------------------------------------------------
for n in $(seq 0 $((hits - 1))); do ln -s "../p$((n % ${#photos[@]})).jpg" "$work/www/photos/$n.jpg"; done
chmod -R o+rX "$work"
origin_port=$((20000 + RANDOM % 10000)); static_port=$((origin_port + 1)); serve_port=$((origin_port + 2))
source scripts/bench-nginx.sh; start_bench_nginx "$origin_port" "$static_port"
start_serve() {  # [MEMORY_CACHE_SIZE]
  "$bin" serve --port "$serve_port" --allow-loopback-sources --cache-dir "$work/cache" --timeout 120 --queue 512 \
    ${1:+--memory-cache-size "$1"} 2>"$work/serve.log" >/dev/null &
  serve_pid=$!
  for _ in $(seq 100); do grep -q "serving on" "$work/serve.log" && break; sleep 0.1; done
}
stop_serve() { kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""; }
measure() {  # URL LUA_SCRIPT -> "req/s p99"
  wrk -t2 -c64 -d"${duration}s" --latency -s "$2" "$1" > "$work/wrk.txt"
  awk '/Requests\/sec/ {r=$2} / 99%/ {p=$2} /Non-2xx/ {e=" non-2xx " $5} END {printf "%9.0f req/s  p99 %s%s", r, p, e}' "$work/wrk.txt"
}
for n in $(seq 0 $((hits - 1))); do "$bin" sign "http://127.0.0.1:$origin_port/photos/$n.jpg" --options 'rs:fill:300:200/g:sm'; done > "$work/paths.txt"
start_serve
awk -v port="$serve_port" -v dir="$work/static" '{printf "url = \"http://127.0.0.1:%s%s\"\noutput = \"%s/%d.jpg\"\n", port, $0, dir, NR - 1}' \
  "$work/paths.txt" > "$work/render.cfg"
curl -s --no-progress-meter --parallel --parallel-max 8 -K "$work/render.cfg" -w "%{http_code}\n" | sort | uniq -c | sed 's/^ */rendered: /'
stop_serve
chmod -R o+rX "$work/static"
rotation "$work/paths.txt" > "$work/serve.lua"
seq 0 $((hits - 1)) | sed 's|.*|/&.jpg|' > "$work/static-paths.txt"; rotation "$work/static-paths.txt" > "$work/static.lua"
echo "/0.jpg" > "$work/one-path.txt"; rotation "$work/one-path.txt" > "$work/one.lua"
start_serve 1MiB
curl -s -o /dev/null "http://127.0.0.1:$serve_port$(head -n 1 "$work/paths.txt")"
ours=$(measure "http://127.0.0.1:$serve_port/" "$work/serve.lua")
disk_answers=$(grep -c ' disk ' "$work/serve.log" 2>/dev/null || true)
stop_serve
rotating=$(measure "http://127.0.0.1:$static_port/" "$work/static.lua")
one=$(measure "http://127.0.0.1:$static_port/" "$work/one.lua")
echo "variant hits from disk, $hits variants ($(du -sb "$work/static" | cut -f1) bytes), memory cache 1 MiB, wrk -t2 -c64 -d${duration}s:"
echo "  thumbcache serve:             $ours ($disk_answers answers logged as from disk)"
echo "  nginx static files, rotating: $rotating"
echo "  nginx static file, one:       $one"
python3 - "$ours" "$rotating" "$one" <<'PY'
import sys
r = [float(x.split()[0]) for x in sys.argv[1:]]
print(f"  ratio: {r[0] / r[1]:.2f}x nginx rotating, {r[0] / r[2]:.2f}x nginx one file (target >= 0.3x)")
PY
