#!/usr/bin/env bash
# Misses of `thumbcache serve`, for A/B runs of builds: each binary given starts on an empty cache and renders
# the miss mix of scripts/bench-serve.sh (the corpus JPEGs of 4 to 24 MP under MISSES names, 256 px) for one
# `curl --parallel` at 8; the binaries alternate for ROUNDS rounds. Prints images/s, p99 and the server's CPU
# per miss (user and system from /proc over the run, divided by the misses): curl shares the cores, so CPU
# per miss is the steadier figure. Loopback only; without ../shared/corpus the test fixture stands in.
# Usage: scripts/bench-serve-misses.sh [BINARY ...]   (default: the release build)
#        MISSES=200 ROUNDS=2
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || { swift build -c release --product thumbcache >/dev/null; set -- "$PWD/.build/release/thumbcache"; }
misses=${MISSES:-200}; rounds=${ROUNDS:-2}
for tool in nginx curl; do command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] || { echo "needs $tool" >&2; exit 2; }; done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
work=$(mktemp -d); chmod 755 "$work"; mkdir -p "$work/www/photos" "$work/logs"
mapfile -t photos < <(awk -F'\t' 'NR>1 && $3*$4>=4000000 && $3*$4<=24000000 && $1 ~ /\.jpe?g$/ {print $1}' ../shared/corpus/MANIFEST.tsv 2>/dev/null || true)
if ((${#photos[@]} == 0)); then
  echo "note: ../shared/corpus absent; the misses use the small test fixture" >&2
  cp Tests/ImageDecodeTests/Fixtures/testorig.jpg "$work/www/p0.jpg"; photos=(fixture)
else
  for i in "${!photos[@]}"; do cp "../shared/corpus/${photos[$i]}" "$work/www/p$i.jpg"; done
fi
for n in $(seq 0 $((misses - 1))); do ln -s "../p$((n % ${#photos[@]})).jpg" "$work/www/photos/$n.jpg"; done
chmod -R o+rX "$work"
origin_port=$((20000 + RANDOM % 10000)); serve_port=$((origin_port + 1))
cat > "$work/nginx.conf" <<CONF
worker_processes 1; pid $work/nginx.pid; error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http { access_log off; sendfile on; types { image/jpeg jpg; }
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;
  server { listen 127.0.0.1:$origin_port; root $work/www; location / { expires 1h; } } }
CONF
"$nginx_bin" -c "$work/nginx.conf"
serve_pid=""
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; sleep 0.3; rm -rf "$work"; }
trap cleanup EXIT
cpu_ticks() { awk '{print $14, $15}' "/proc/$1/stat"; }  # user, system
echo "misses: ${#photos[@]} photos under $misses names at 256 px, curl --parallel at 8, $rounds round(s), load: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for bin in "$@"; do
    "$bin" serve --port "$serve_port" --allow-loopback-sources --cache-dir "$work/cache-$round-$RANDOM" \
      --timeout 120 --queue 512 2>"$work/serve.log" >/dev/null &
    serve_pid=$!
    for _ in $(seq 100); do grep -q "serving on" "$work/serve.log" && break; sleep 0.1; done
    for n in $(seq 0 $((misses - 1))); do
      printf 'url = "http://127.0.0.1:%s%s"\noutput = "/dev/null"\n' "$serve_port" \
        "$("$bin" sign "http://127.0.0.1:$origin_port/photos/$n.jpg" --size 256)"
    done > "$work/misses.cfg"
    read -r user0 system0 < <(cpu_ticks "$serve_pid"); start=$(date +%s.%N)
    curl -s --no-progress-meter --parallel --parallel-max 8 -K "$work/misses.cfg" -w "%{http_code} %{time_total}\n" > "$work/misses.txt"
    end=$(date +%s.%N); read -r user1 system1 < <(cpu_ticks "$serve_pid")
    python3 - "$work/misses.txt" "$start" "$end" "$((user1 - user0))" "$((system1 - system0))" "$(getconf CLK_TCK)" \
      "round $round $(basename "$bin")" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
times = sorted(float(t) * 1000 for _, t in rows)
failures = sum(1 for code, _ in rows if code != "200")
elapsed = float(sys.argv[3]) - float(sys.argv[2])
user, system = (int(ticks) * 1000 / int(sys.argv[6]) / len(rows) for ticks in sys.argv[4:6])
print(f"{sys.argv[7]}: {len(rows) / elapsed:6.1f} images/s  p99 {times[int(0.99 * (len(times) - 1))]:5.0f} ms  "
      f"server CPU {user + system:5.1f} ms/miss (user {user:.1f}, system {system:.1f})  failures={failures}")
PY
    kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""
  done
done
