#!/usr/bin/env bash
# Disk hits of `thumbcache serve`, for A/B runs of builds: HITS thumbnails (256 px of the corpus JPEGs of 4 to
# 24 MP under HITS names, as in scripts/bench-serve.sh; with OPTIONS='rs:fill:300:200/g:sm', processed images of
# those options, stored as variants) are rendered once into one cache directory by the first
# binary; then each binary given serves that directory with a 1 MiB memory cache to wrk -t2 -c64 rotating over
# the HITS paths, the binaries alternating for ROUNDS rounds. nginx then serves the same bytes as static files,
# rotating over the same HITS files, and one of them alone (bench-serve.sh's "nginx static file").
# The last line is the first binary's median round over nginx rotating (scripts/bench-processing.sh reads it).
# Prints req/s, p99 and the server's CPU per request (user + system from /proc over the run, divided by the
# requests): wrk shares the cores, so CPU per request is the steadier figure. Loopback only.
# PERF=file.data: `perf record -g` of the last binary's server during its last round.
# Usage: scripts/bench-serve-disk-hits.sh [BINARY ...]   (default: the release build)
#        DURATION=6 ROUNDS=2 HITS=200 OPTIONS= KEEP_LOG=file (the last server's log)
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || { swift build -c release --product thumbcache >/dev/null; set -- "$PWD/.build/release/thumbcache"; }
duration=${DURATION:-6}; rounds=${ROUNDS:-2}; hits=${HITS:-200}
for tool in wrk nginx curl python3; do command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] || { echo "needs $tool" >&2; exit 2; }; done
work=$(mktemp -d); chmod 755 "$work"; mkdir -p "$work/www/photos" "$work/static" "$work/logs"
mapfile -t photos < <(awk -F'\t' 'NR>1 && $3*$4>=4000000 && $3*$4<=24000000 && $1 ~ /\.jpe?g$/ {print $1}' ../shared/corpus/MANIFEST.tsv 2>/dev/null || true)
if ((${#photos[@]} == 0)); then
  echo "note: ../shared/corpus absent; the thumbnails come from the test fixture" >&2
  cp Tests/ImageDecodeTests/Fixtures/testorig.jpg "$work/www/p0.jpg"; photos=(fixture)
else
  for i in "${!photos[@]}"; do cp "../shared/corpus/${photos[$i]}" "$work/www/p$i.jpg"; done
fi
for n in $(seq 0 $((hits - 1))); do ln -s "../p$((n % ${#photos[@]})).jpg" "$work/www/photos/$n.jpg"; done
chmod -R o+rX "$work"
origin_port=$((20000 + RANDOM % 10000)); static_port=$((origin_port + 1)); serve_port=$((origin_port + 2))
source scripts/bench-nginx.sh; start_bench_nginx "$origin_port" "$static_port"
serve_pid=""; perf_pid=""
cleanup() {
  [ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null
  kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; sleep 0.3; rm -rf "$work"
}
trap cleanup EXIT
cpu_ticks() { local total=0; for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done; echo $total; }
measure() {  # URL LUA_SCRIPT PIDS... -> "req/s p99 CPU/request"
  local url=$1 script=$2; shift 2
  local before; before=$(cpu_ticks "$@")
  wrk -t2 -c64 -d"${duration}s" --latency -s "$script" "$url" > "$work/wrk.txt"
  local ticks=$(( $(cpu_ticks "$@") - before ))
  awk -v ticks=$ticks -v hz="$(getconf CLK_TCK)" -v d="$duration" '/Requests\/sec/ {r=$2} / 99%/ {p=$2} /Non-2xx/ {e=" non-2xx " $5}
    END {printf "%9.0f req/s  p99 %-8s  server CPU %5.1f us/request%s\n", r, p, ticks * 1e6 / hz / (r * d), e}' "$work/wrk.txt"
}
start_serve() {  # BINARY [MEMORY_CACHE_SIZE]
  "$1" serve --port "$serve_port" --allow-loopback-sources --cache-dir "$work/cache" --timeout 120 --queue 512 \
    ${2:+--memory-cache-size "$2"} 2>"$work/serve.log" >/dev/null &
  serve_pid=$!
  for _ in $(seq 100); do grep -q "serving on" "$work/serve.log" && break; sleep 0.1; done
}
stop_serve() { kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""; [ -n "${KEEP_LOG:-}" ] && cp "$work/serve.log" "$KEEP_LOG"; true; }

# Render the thumbnails once (8 at a time), keeping each as a static file for nginx too.
for n in $(seq 0 $((hits - 1))); do
  if [ -n "${OPTIONS:-}" ]; then "$1" sign "http://127.0.0.1:$origin_port/photos/$n.jpg" --options "$OPTIONS"
  else "$1" sign "http://127.0.0.1:$origin_port/photos/$n.jpg" --size 256; fi
done > "$work/paths.txt"
start_serve "$1"
awk -v port="$serve_port" -v dir="$work/static" '{printf "url = \"http://127.0.0.1:%s%s\"\noutput = \"%s/%d.jpg\"\n", port, $0, dir, NR - 1}' \
  "$work/paths.txt" > "$work/render.cfg"
curl -s --no-progress-meter --parallel --parallel-max 8 -K "$work/render.cfg" -w "%{http_code}\n" | sort | uniq -c | sed 's/^ */rendered: /'
stop_serve
chmod -R o+rX "$work/static"
rotation "$work/paths.txt" > "$work/serve.lua"
seq 0 $((hits - 1)) | sed 's|.*|/&.jpg|' > "$work/static-paths.txt"; rotation "$work/static-paths.txt" > "$work/static.lua"
echo "/0.jpg" > "$work/one-path.txt"; rotation "$work/one-path.txt" > "$work/one.lua"
echo "disk hits of $hits ${OPTIONS:+$OPTIONS }thumbnails ($(du -sb "$work/static" | cut -f1) bytes), memory cache 1 MiB, wrk -t2 -c64 -d${duration}s," \
  "$rounds round(s), load: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for bin in "$@"; do
    start_serve "$bin" 1MiB
    curl -s -o /dev/null "http://127.0.0.1:$serve_port$(head -n 1 "$work/paths.txt")"
    if [ -n "${PERF:-}" ] && [ "$round" = "$rounds" ] && [ "$bin" = "${!#}" ]; then
      perf record -g -o "$PERF" -p "$serve_pid" >/dev/null 2>&1 & perf_pid=$!
    fi
    figures=$(measure "http://127.0.0.1:$serve_port/" "$work/serve.lua" "$serve_pid")
    [ "$bin" = "$1" ] && echo "$figures" >> "$work/first.txt"
    echo "round $round $(basename "$bin"): $figures" \
      "($(grep -c ' disk ' "$work/serve.log" 2>/dev/null || true) answers logged as from disk)"
    if [ -n "$perf_pid" ]; then kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true; perf_pid=""; fi
    stop_serve
  done
done
nginx_workers=$(pgrep -P "$(cat "$work/nginx.pid")" | tr '\n' ' ')
# shellcheck disable=SC2086
rotating=$(measure "http://127.0.0.1:$static_port/" "$work/static.lua" $nginx_workers)
echo "nginx static files, the same $hits rotating: $rotating"
# shellcheck disable=SC2086
echo "nginx static file, one:                $(measure "http://127.0.0.1:$static_port/" "$work/one.lua" $nginx_workers)"
median=$(sort -n "$work/first.txt" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
awk -v a="$median" -v b="$(echo "$rotating" | awk '{print $1}')" 'BEGIN {printf "ratio: %.2fx nginx rotating (%s, median of its rounds)\n", a / b, "'"$(basename "$1")"'"}'
