#!/usr/bin/env bash
# `thumbcache serve` under load, side by side with nginx and thumbor, in one run on 127.0.0.1 (release build).
# wrk shares the machine's cores with the servers, so absolute numbers are rough: compare the ratios.
#   hits:      one 256 px thumbnail from thumbcache's memory cache, wrk -t2 -c64 -d10s
#              vs nginx serving the same bytes as a static file (the ceiling here), without and with its
#              access log (thumbcache serve logs every request)
#              vs nginx proxy_cache hits in front of image_filter (libnginx-mod-http-image-filter)
#              vs thumbor 7.8 result-storage hits (file result storage, the same thumbor with 2 processes)
#   disk hits: 200 thumbnails stored on disk with a memory cache too small to hold them
#   misses:    200 distinct sources (the corpus photos of 4 to 24 MP, each under several names) at 256 px,
#              8 at a time (one curl process, --parallel): images/s and p99, thumbcache vs nginx image_filter (2 workers) and thumbor
#              (2 processes), all from the same origin; then thumbcache / the better peer
#   peak RSS (VmHWM) of each server.
# thumbor 7.8.x comes from PyPI into a venv made on first use: .build/thumbor-venv, or THUMBOR_VENV=path
# (python3.11, else python3 >= 3.10). Without it (no PyPI, pip fails) thumbor is skipped with one line saying why.
# thumbor's conf is written to the temp dir: HTTP loader restricted to the host 127.0.0.1, file storage for
# originals, file result storage (unsafe URLs stored too), JPEG quality 80, EXIF orientation applied.
# Usage: scripts/bench-serve.sh [DURATION_SECONDS]   (BENCH_MISSES=N: distinct sources in the miss run, default 200;
# THUMBCACHE_BIN=path skips the release build and uses that binary.)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
misses=${BENCH_MISSES:-200}  # distinct sources in the miss run
last=$((misses - 1))
for tool in wrk nginx curl python3; do
  command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] || { echo "needs $tool: apt-get install -y wrk nginx libnginx-mod-http-image-filter curl" >&2; exit 2; }
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -f /usr/lib/nginx/modules/ngx_http_image_filter_module.so ] || { echo "needs libnginx-mod-http-image-filter" >&2; exit 2; }
if [ -z "${THUMBCACHE_BIN:-}" ]; then  # THUMBCACHE_BIN: an already built release binary
  swift build -c release --product thumbcache >/dev/null
fi
bin=${THUMBCACHE_BIN:-$PWD/.build/release/thumbcache}

# thumbor 7.8.x from PyPI, in a venv made once (pip quiet); any failure skips thumbor, not the bench.
thumbor_venv=${THUMBOR_VENV:-$PWD/.build/thumbor-venv}
thumbor_skip=""  # why thumbor is not run, empty when it is
thumbor_pid=""; thumbor_children=()
thumbor_version() { "$thumbor_venv/bin/python" -c 'import thumbor; print(thumbor.__version__)' 2>/dev/null; }
if [[ "$(thumbor_version)" != 7.8.* ]]; then
  thumbor_python=$(command -v python3.11 || command -v python3)
  if ! "$thumbor_python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    thumbor_skip="thumbor 7.8 needs Python >= 3.10, $thumbor_python is $("$thumbor_python" -V 2>&1)"
  elif ! pip_out=$( { "$thumbor_python" -m venv "$thumbor_venv" &&
        "$thumbor_venv/bin/pip" install -q --disable-pip-version-check --timeout 30 'thumbor>=7.8,<7.9'; } 2>&1 ); then
    thumbor_skip="could not make its venv at $thumbor_venv: $(printf '%s\n' "$pip_out" | grep -v '^\s*$' | tail -n 1)"
  elif [[ "$(thumbor_version)" != 7.8.* ]]; then
    thumbor_skip="$thumbor_venv holds thumbor '$(thumbor_version)', not 7.8.x"
  fi
fi
[ -n "$thumbor_skip" ] && echo "thumbor skipped: $thumbor_skip"
work=$(mktemp -d); chmod 755 "$work"
origin_port=$((20000 + RANDOM % 10000)); serve_port=$((origin_port + 1)); filter_port=$((origin_port + 2)); static_port=$((origin_port + 3))
thumbor_port=$((origin_port + 4)); logged_port=$((origin_port + 5))
pids=()
cleanup() {  # pids in start order: thumbor's parent before its children, else it would restart them
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/nginx/nginx.pid" ] && kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
  sleep 0.5; rm -rf "$work"
}
trap cleanup EXIT

# The origin's photos: corpus JPEGs of 4 to 24 MP, 200 names in all (else the test fixture).
mkdir -p "$work/www/photos" "$work/nginx/logs" "$work/nginx/tmp" "$work/nginx/cache"
mapfile -t photos < <(awk -F'\t' 'NR>1 && $3*$4>=4000000 && $3*$4<=24000000 && $1 ~ /\.jpe?g$/ {print $1}' ../shared/corpus/MANIFEST.tsv 2>/dev/null || true)
if ((${#photos[@]} == 0)); then
  echo "note: ../shared/corpus absent; misses use the small test fixture" >&2
  photos=(../../Tests/ImageDecodeTests/Fixtures/testorig.jpg); corpus=$PWD/Tests/ImageDecodeTests/Fixtures
  cp Tests/ImageDecodeTests/Fixtures/testorig.jpg "$work/www/p0.jpg"
else
  for i in "${!photos[@]}"; do cp "../shared/corpus/${photos[$i]}" "$work/www/p$i.jpg"; done
fi
for n in $(seq 0 $last); do ln -s "../p$((n % ${#photos[@]})).jpg" "$work/www/photos/$n.jpg"; done
chmod -R o+rX "$work/www"
echo "photos: ${#photos[@]} distinct files under $misses names"

cat > "$work/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_image_filter_module.so;
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/nginx/tmp; proxy_temp_path $work/nginx/tmp; fastcgi_temp_path $work/nginx/tmp;
  uwsgi_temp_path $work/nginx/tmp; scgi_temp_path $work/nginx/tmp;
  sendfile on; keepalive_requests 1000000;
  types { image/jpeg jpg jpeg; image/png png; }
  proxy_cache_path $work/nginx/cache levels=1:2 keys_zone=thumbs:10m max_size=1g;
  # the origin
  server { listen 127.0.0.1:$origin_port; root $work/www; location / { expires 1h; } }
  # static file: the thumbnail bytes thumbcache serves
  server { listen 127.0.0.1:$static_port; root $work/static; location / { expires 1h; } }
  # the same, logging each request as nginx does by default (thumbcache serve logs each request too)
  server { listen 127.0.0.1:$logged_port; root $work/static; access_log $work/nginx/logs/static-access.log; location / { expires 1h; } }
  # image_filter behind proxy_cache (the classic nginx thumbnail setup)
  server {
    listen 127.0.0.1:$filter_port;
    location /cached/ { proxy_pass http://127.0.0.1:$filter_port/resize/; proxy_cache thumbs; proxy_cache_valid 200 1h; proxy_cache_lock on; }
    location /resize/ { proxy_pass http://127.0.0.1:$origin_port/; image_filter resize 256 256; image_filter_buffer 64M; image_filter_jpeg_quality 80; }
  }
}
CONF
mkdir -p "$work/static"
"$nginx_bin" -c "$work/nginx/nginx.conf"
sleep 0.5

"$bin" serve --port "$serve_port" --allow-loopback-sources --cache-dir "$work/cache" --timeout 120 --queue 512 2>"$work/serve.log" &
serve_pid=$!; pids+=("$serve_pid")
for _ in $(seq 1 100); do grep -q "serving on" "$work/serve.log" && break; sleep 0.1; done

# thumbor: one parent that forks 2 serving processes (tornado), the conf in the temp dir.
# STORAGE is thumbor's default file storage: it keeps each original, as thumbcache's cache entry does.
# ALLOWED_SOURCES matches hostnames literally; thumbor has no private or loopback address block, so this
# is what keeps its loader on 127.0.0.1. Unsafe URLs are result-stored only with RESULT_STORAGE_STORES_UNSAFE.
if [ -z "$thumbor_skip" ]; then
  mkdir -p "$work/thumbor"
  cat > "$work/thumbor/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.http_loader'
ALLOWED_SOURCES = ['127.0.0.1']
STORAGE = 'thumbor.storages.file_storage'
FILE_STORAGE_ROOT_PATH = '$work/thumbor/storage'
RESULT_STORAGE = 'thumbor.result_storages.file_storage'
RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '$work/thumbor/result'
RESULT_STORAGE_STORES_UNSAFE = True
ALLOW_UNSAFE_URL = True
QUALITY = 80
RESPECT_ORIENTATION = True
CONF
  "$thumbor_venv/bin/thumbor" -i 127.0.0.1 -p "$thumbor_port" -c "$work/thumbor/thumbor.conf" -l warning \
    --processes 2 >"$work/thumbor/thumbor.log" 2>&1 &
  thumbor_pid=$!; pids+=("$thumbor_pid")
  for _ in $(seq 1 150); do
    curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$thumbor_port/healthcheck" && break; sleep 0.2
  done
  if curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$thumbor_port/healthcheck"; then
    sleep 0.2; mapfile -t thumbor_children < <(pgrep -P "$thumbor_pid"); pids+=("${thumbor_children[@]}")
    echo "thumbor $(thumbor_version): $((${#thumbor_children[@]})) processes on 127.0.0.1:$thumbor_port"
  else
    thumbor_skip="it did not answer on 127.0.0.1:$thumbor_port within 30 s ($(tail -n 1 "$work/thumbor/thumbor.log"))"
    echo "thumbor skipped: $thumbor_skip"
  fi
fi
thumbor_url() { echo "http://127.0.0.1:$thumbor_port/unsafe/fit-in/256x256/$1"; }  # longest side 256, like --size 256

path() { "$bin" sign "$1" --size 256; }
hwm() { awk '/VmHWM/ {printf "%.1f MiB", $2/1024}' "/proc/$1/status"; }
thumbor_hwm() {  # the serving processes, then the parent that only forks and waits
  local pid out=""
  for pid in "${thumbor_children[@]}"; do out+="$(hwm "$pid") and "; done
  echo "${out% and } per process, parent $(hwm "$thumbor_pid")"
}
ms() { python3 -c 'import sys; print(f"{float(sys.argv[1]) * 1000:.1f} ms")' "$1"; }
identify() {  # IMAGE_FILE -> "JPEG 256x171" (Pillow from the thumbor venv, else file(1))
  if [ -x "$thumbor_venv/bin/python" ] && "$thumbor_venv/bin/python" -c 'import PIL' 2>/dev/null; then
    "$thumbor_venv/bin/python" -c 'import sys; from PIL import Image; i = Image.open(sys.argv[1]); print(i.format, f"{i.width}x{i.height}")' "$1"
  else
    file -b "$1" | sed -E 's/^(JPEG|PNG) image data.*[ ,]([0-9]+) ?x ?([0-9]+),.*$/\1 \2x\3/'
  fi
}
wrk_run() {  # URL [SCRIPT] -> "req/s p99_ms"
  local script=()
  [ -n "${2:-}" ] && script=(-s "$2")
  wrk -t2 -c64 -d"${duration}s" --latency "${script[@]}" "$1" > "$work/wrk.txt" 2>&1
  python3 - "$work/wrk.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1))
p99 = re.search(r"99%\s+([0-9.]+)(us|ms|s)\b", text)
factor = {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"{rps:.0f} {float(p99.group(1)) * factor:.2f}" + (f" non2xx={errors.group(1)}" if errors else ""))
PY
}
miss_run() {  # URL_FILE -> "images/s p99_ms failures"
  # One curl process, 8 transfers at a time: a curl process per request cost ~10 ms of CPU each on the
  # same 2 cores, as much as a fifth of a fast server's work.
  local start end
  sed 's/.*/url = "&"\noutput = "\/dev\/null"/' "$1" > "$work/miss.cfg"
  start=$(date +%s.%N)
  curl -s --no-progress-meter --parallel --parallel-max 8 -K "$work/miss.cfg" \
    -w "%{http_code} %{time_total}\n" > "$work/miss.txt"
  end=$(date +%s.%N)
  python3 - "$work/miss.txt" "$start" "$end" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
times = sorted(float(t) * 1000 for code, t in rows)
ok = sum(1 for code, _ in rows if code == "200")
elapsed = float(sys.argv[3]) - float(sys.argv[2])
print(f"{len(rows) / elapsed:.1f} {times[int(0.99 * (len(times) - 1))]:.0f} failures={len(rows) - ok}")
PY
}

echo
echo "== misses: $misses distinct sources at 256 px, 8 concurrent =="
for n in $(seq 0 $last); do echo "http://127.0.0.1:$serve_port$(path "http://127.0.0.1:$origin_port/photos/$n.jpg")"; done > "$work/serve-miss.txt"
for n in $(seq 0 $last); do echo "http://127.0.0.1:$filter_port/resize/photos/$n.jpg"; done > "$work/filter-miss.txt"
thumbcache_miss=$(miss_run "$work/serve-miss.txt")
filter_miss=$(miss_run "$work/filter-miss.txt")
if [ -z "$thumbor_skip" ]; then
  for n in $(seq 0 $last); do thumbor_url "http://127.0.0.1:$origin_port/photos/$n.jpg"; done > "$work/thumbor-miss.txt"
  thumbor_miss=$(miss_run "$work/thumbor-miss.txt")
fi
echo "thumbcache serve:     $thumbcache_miss   (images/s, p99 ms)"
echo "nginx image_filter:   $filter_miss"
echo "thumbor (2 procs):    ${thumbor_miss:-skipped}"
python3 - "$thumbcache_miss" "nginx image_filter=$filter_miss" ${thumbor_miss:+"thumbor=$thumbor_miss"} <<'PY'
import sys
ours = float(sys.argv[1].split()[0])
name, rate = max(((p.split("=", 1)[0], float(p.split("=", 1)[1].split()[0])) for p in sys.argv[2:]), key=lambda p: p[1])
print(f"thumbcache / better peer ({name}): {ours / rate:.2f}x")
PY
echo "thumbcache serve peak RSS after the misses: $(hwm "$serve_pid")"
[ -z "$thumbor_skip" ] && echo "thumbor peak RSS after the misses: $(thumbor_hwm)"

echo
echo "== disk hits: the same $misses thumbnails, memory cache 1 MiB =="
kill -TERM "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
"$bin" serve --port "$serve_port" --allow-loopback-sources --cache-dir "$work/cache" --memory-cache-size 1MiB --queue 512 2>"$work/serve2.log" &
serve_pid=$!; pids+=("$serve_pid")
for _ in $(seq 1 100); do grep -q "serving on" "$work/serve2.log" && break; sleep 0.1; done
python3 - "$work/serve-miss.txt" "$serve_port" > "$work/rotate.lua" <<'PY'
import sys
paths = [line.strip().split(f":{sys.argv[2]}", 1)[1] for line in open(sys.argv[1])]
print("local paths = {" + ",".join(f'"{p}"' for p in paths) + "}")
print("local i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format('GET', paths[i])\nend")
PY
echo "thumbcache serve:     $(wrk_run "http://127.0.0.1:$serve_port/" "$work/rotate.lua")   (req/s, p99 ms)"

echo
echo "== hits: one 256 px thumbnail, wrk -t2 -c64 -d${duration}s =="
hit=$(path "http://127.0.0.1:$origin_port/p0.jpg")
curl -s -o "$work/static/thumb.jpg" "http://127.0.0.1:$serve_port$hit"
curl -s -o /dev/null "http://127.0.0.1:$serve_port$hit"
curl -s -o /dev/null "http://127.0.0.1:$filter_port/cached/p0.jpg"
echo "thumbnail: $(stat -c %s "$work/static/thumb.jpg") bytes, $(identify "$work/static/thumb.jpg")"
if [ -z "$thumbor_skip" ]; then
  # The first request renders and stores the result (after answering); the next ones read the result storage.
  # If the warm-up render was stored, every render is, so no file written during wrk means no render during wrk.
  thumbor_hit_url=$(thumbor_url "http://127.0.0.1:$origin_port/p0.jpg")
  touch "$work/thumbor/before-render"; sleep 0.1
  first=$(curl -s -o "$work/thumbor-thumb.jpg" -w '%{http_code} %{time_total}' "$thumbor_hit_url"); sleep 0.5
  stored=$(find "$work/thumbor/result" -type f -newer "$work/thumbor/before-render" 2>/dev/null | wc -l || true)
  second=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$thumbor_hit_url")
  echo "thumbor thumbnail: $(stat -c %s "$work/thumbor-thumb.jpg") bytes, $(identify "$work/thumbor-thumb.jpg")," \
    "first request HTTP ${first%% *} in $(ms "${first#* }"), second HTTP ${second%% *} in $(ms "${second#* }")"
  touch "$work/thumbor/before-hits"; sleep 0.1
fi
thumbcache_hit=$(wrk_run "http://127.0.0.1:$serve_port$hit")
static_hit=$(wrk_run "http://127.0.0.1:$static_port/thumb.jpg")
logged_hit=$(wrk_run "http://127.0.0.1:$logged_port/thumb.jpg")
filter_hit=$(wrk_run "http://127.0.0.1:$filter_port/cached/p0.jpg")
if [ -z "$thumbor_skip" ]; then
  thumbor_hit=$(wrk_run "$thumbor_hit_url")
  rewritten=$(find "$work/thumbor/result" -type f -newer "$work/thumbor/before-hits" 2>/dev/null | wc -l || true)
fi
echo "thumbcache serve (memory hit):     $thumbcache_hit   (req/s, p99 ms)"
echo "nginx static file:                 $static_hit"
echo "nginx static file, access log on:  $logged_hit   (nginx's default logging, one line per request)"
echo "nginx proxy_cache + image_filter:  $filter_hit"
if [ -z "$thumbor_skip" ]; then
  if [ "$stored" = 0 ]; then verdict="the warm-up render was not stored: NOT result-storage hits"
  elif [ "$rewritten" = 0 ]; then verdict="no result written during the run: all read from the result storage"
  else verdict="$rewritten results written during the run: NOT all result-storage hits"; fi
  echo "thumbor result storage (2 procs):  $thumbor_hit   ($verdict)"
else
  echo "thumbor result storage:            skipped"
fi
python3 -c "import sys; a, b, c = map(float, sys.argv[1:]); print(f'thumbcache / nginx static: {a/b:.2f}x (with its access log on: {a/c:.2f}x)')" \
  "${thumbcache_hit%% *}" "${static_hit%% *}" "${logged_hit%% *}"

echo
echo "== peak RSS (VmHWM) =="
echo "thumbcache serve (disk-hit and hit runs): $(hwm "$serve_pid")"
for pid in $(pgrep -P "$(cat "$work/nginx/nginx.pid")"); do echo "nginx worker $pid: $(hwm "$pid")"; done
[ -z "$thumbor_skip" ] && echo "thumbor (misses and hits): $(thumbor_hwm)"
exit 0
