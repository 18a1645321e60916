#!/usr/bin/env bash
# Memory hits of `thumbcache serve`, for A/B runs of builds: each binary given serves one 256 px thumbnail of a
# corpus photo (else the test fixture) from its memory cache to wrk -t2 -c64, the binaries alternating for
# ROUNDS rounds; then /healthz (Hummingbird's floor) and nginx serving the same bytes as a static file.
# Prints req/s, p99 and the server's CPU per request (user + system from /proc over the run, divided by the
# requests): wrk shares the cores, so CPU per request is the steadier figure. Loopback only.
# Usage: scripts/bench-serve-hits.sh [BINARY ...]   (default: the release build)
#        DURATION=6 ROUNDS=2
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || { swift build -c release --product thumbcache >/dev/null; set -- "$PWD/.build/release/thumbcache"; }
duration=${DURATION:-6}; rounds=${ROUNDS:-2}
for tool in wrk nginx curl; do command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] || { echo "needs $tool" >&2; exit 2; }; done
work=$(mktemp -d); chmod 755 "$work"; mkdir -p "$work/www" "$work/static" "$work/logs"
photo=$(awk -F'\t' 'NR>1 && $1 ~ /\.jpe?g$/ && $3*$4>=4000000 {print $1; exit}' ../shared/corpus/MANIFEST.tsv 2>/dev/null || true)
if [ -n "$photo" ]; then cp "../shared/corpus/$photo" "$work/www/p0.jpg"
else echo "note: ../shared/corpus absent; the thumbnail comes from the test fixture" >&2; cp Tests/ImageDecodeTests/Fixtures/testorig.jpg "$work/www/p0.jpg"; fi
chmod -R o+rX "$work"
origin_port=$((20000 + RANDOM % 10000)); static_port=$((origin_port + 1)); serve_port=$((origin_port + 2))
source scripts/bench-nginx.sh; start_bench_nginx "$origin_port" "$static_port"
serve_pid=""
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; sleep 0.3; rm -rf "$work"; }
trap cleanup EXIT
cpu_ticks() { local total=0; for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done; echo $total; }
measure() {  # URL PIDS... -> "req/s p99 CPU/request"
  local url=$1; shift
  local before; before=$(cpu_ticks "$@")
  wrk -t2 -c64 -d"${duration}s" --latency "$url" > "$work/wrk.txt"
  local ticks=$(( $(cpu_ticks "$@") - before ))
  awk -v ticks=$ticks -v hz="$(getconf CLK_TCK)" -v d="$duration" '/Requests\/sec/ {r=$2} / 99%/ {p=$2}
    END {printf "%9.0f req/s  p99 %-8s  server CPU %5.1f us/request\n", r, p, ticks * 1e6 / hz / (r * d)}' "$work/wrk.txt"
}
start_serve() {  # BINARY -> path of the hit
  "$1" serve --port "$serve_port" --allow-loopback-sources --cache-dir "$work/cache-$RANDOM" 2>"$work/serve.log" >/dev/null &
  serve_pid=$!
  for _ in $(seq 100); do grep -q "serving on" "$work/serve.log" && break; sleep 0.1; done
  hit=$("$1" sign "http://127.0.0.1:$origin_port/p0.jpg" --size 256)
  curl -sf -o "$work/static/thumb.jpg" "http://127.0.0.1:$serve_port$hit"; chmod o+r "$work/static/thumb.jpg"
  curl -sf -o /dev/null "http://127.0.0.1:$serve_port$hit"
}
stop_serve() { kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""; }
echo "memory hit of a 256 px thumbnail, wrk -t2 -c64 -d${duration}s, $rounds round(s), load: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for bin in "$@"; do
    start_serve "$bin"
    echo "round $round $(basename "$bin"): $(measure "http://127.0.0.1:$serve_port$hit" "$serve_pid")"
    stop_serve
  done
done
start_serve "$1"
echo "/healthz ($(basename "$1")): $(measure "http://127.0.0.1:$serve_port/healthz" "$serve_pid")"
stop_serve
echo "nginx static file ($(stat -c %s "$work/static/thumb.jpg") bytes): $(measure "http://127.0.0.1:$static_port/thumb.jpg" $(pgrep -P "$(cat "$work/nginx.pid")"))"
