#!/usr/bin/env bash
# The demo page in a real browser: starts `thumbcache serve --demo` on a free loopback port with a temporary
# cache, and drives /demo in headless Chromium (scripts/demo-browser-test.py, selenium from PyPI in a venv
# under .build/). Needs chromium and chromium-driver (scripts/install-deps.sh).
# Ends with one plain line: "demo browser test: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/demo-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'selenium==4.*'
fi
swift build --product thumbcache >/dev/null
bin=$(swift build --show-bin-path)/thumbcache
cache=$(mktemp -d); log=$(mktemp)
"$bin" serve --demo --port 0 --cache-dir "$cache" 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$cache" "$log"' EXIT
# Until serve says its port or exits: a busy machine may take long to start it (a 10 s bound failed there);
# 600 s only guards against a hang.
port=""
for _ in $(seq 1 6000); do
  port=$(sed -n 's|.*serving on http://127.0.0.1:\([0-9]*\).*|\1|p' "$log" | head -1)
  [ -n "$port" ] && break
  kill -0 $server 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || { cat "$log"; echo "serve did not start"; exit 1; }
"$venv/bin/python" scripts/demo-browser-test.py "http://127.0.0.1:$port"
