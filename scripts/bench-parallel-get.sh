#!/usr/bin/env bash
# Parallel `thumbcache get`s on one cache (issue 14 B6): 4 gets of different URLs from a slow origin on
# 127.0.0.1 (each answer takes ~1 s), started at once with xargs -P4 on an empty cache; then a disk hit.
# Before the per-access lock the gets ran one after another (the directory lock was held across the download).
#   parallel: wall time of `xargs -P4 thumbcache get` over 4 URLs, fresh cache each run (median of 5)
#   disk hit: `thumbcache get` of a cached 256 px thumbnail (median of 30)
# Usage: scripts/bench-parallel-get.sh [OTHER_THUMBCACHE_BINARY]   (e.g. a release build of main, to compare)
#   THUMBCACHE_BIN=path measures that binary instead of building this tree's release build.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }
if [ -z "${THUMBCACHE_BIN:-}" ]; then swift build -c release --product thumbcache >/dev/null; fi
bins=("${THUMBCACHE_BIN:-$PWD/.build/release/thumbcache}")
[ $# -ge 1 ] && bins+=("$(realpath "$1")")
work=$(mktemp -d); port=$((20000 + RANDOM % 20000))
image=$PWD/Tests/ImageDecodeTests/Fixtures/testorig.jpg
# The slow origin: every answer waits 1 s, served concurrently; it stops by itself after 10 minutes.
python3 - "$port" "$image" <<'PY' &
import http.server, socketserver, sys, time, threading
port, body = int(sys.argv[1]), open(sys.argv[2], "rb").read()
class Slow(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(1.0)
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
server = Server(("127.0.0.1", port), Slow)
threading.Timer(600, server.shutdown).start()
server.serve_forever()
PY
origin=$!
trap 'kill $origin 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
for i in 0 1 2 3; do echo "http://127.0.0.1:$port/photo$i.jpg"; done > "$work/urls"
echo "origin: 127.0.0.1:$port, 1 s per answer; image $(stat -c %s "$image") bytes"

median() { python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['results'][0]['median']:.3f}\")" "$1"; }
echo "| binary | 4 parallel gets (xargs -P4), s | disk hit, ms |"
echo "|---|---|---|"
for bin in "${bins[@]}"; do
  hyperfine --style none --runs 5 --prepare "rm -rf $work/cache" --export-json "$work/par.json" \
    "xargs -P4 -I{} $bin get {} --size 256 --cache-dir $work/cache -o /dev/null < $work/urls" >/dev/null 2>&1
  "$bin" get "http://127.0.0.1:$port/photo0.jpg" --size 256 --cache-dir "$work/hit" -o /dev/null 2>/dev/null
  "$bin" get "http://127.0.0.1:$port/photo0.jpg" --size 256 --cache-dir "$work/hit" -o /dev/null 2>&1 | grep -q '\[disk\]' \
    || { echo "expected a disk hit from $bin" >&2; exit 1; }
  hyperfine -N --style none --warmup 3 --runs 30 --export-json "$work/hit.json" \
    "$bin get http://127.0.0.1:$port/photo0.jpg --size 256 --cache-dir $work/hit -o /dev/null" >/dev/null 2>&1
  rm -rf "$work/hit"
  echo "| $bin | $(median "$work/par.json") | $(python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['results'][0]['median']*1000:.2f}\")" "$work/hit.json") |"
done
