#!/usr/bin/env bash
# `thumbcache serve` under a long mixed load (issue 11 §5: "resident memory stays flat under a 10-minute mixed
# load"), on 127.0.0.1. Release build. Prints VmRSS every 30 s, the peak during the first minute, the peak and
# the RSS at the end, the memory cache's size from /metrics, and the answers by status and by how they were served.
#
# The load (wrk -t1 -c16 with a Lua script, seeded): over SOAK_SOURCES names (default 300) of the corpus's
# JPEG, PNG, WebP, AVIF and GIF photos and a few files it refuses, served by nginx as the origin:
#   55% a hot set (the first 20 sources, 256 px, Accept of a browser that takes WebP)
#   25% any source at one of 6 sizes, contain or cover, with an Accept that picks AVIF, WebP or JPEG
#    8% conditional requests with the ETag of an earlier answer (304s)
#    5% an explicit .jpeg (no negotiation; wrk cannot read HEAD answers),  7% errors (403 bad signature, 400 bad size, 404 at the origin, 422 not an image).
# The memory cache is 64 MiB (the default without a cgroup limit), smaller than what the load renders, so it
# fills and evicts during the run. Usage: scripts/soak-serve.sh [MINUTES] (default 10).
# THUMBCACHE_BIN=path skips the release build. Needs wrk, nginx, curl, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
sources=${SOAK_SOURCES:-300}
for tool in wrk curl python3; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
if [ -z "${THUMBCACHE_BIN:-}" ]; then swift build -c release --product thumbcache >/dev/null; fi
bin=${THUMBCACHE_BIN:-$PWD/.build/release/thumbcache}
work=$(mktemp -d); chmod 755 "$work"
origin_port=$((20000 + RANDOM % 10000)); serve_port=$((origin_port + 1))
serve_pid=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  scripts/serve-nginx.sh stop "$work/nginx"
  sleep 0.5; rm -rf "$work"
}
trap cleanup EXIT

# The origin's files: photos that decode, and a few the manifest says are refused (422s).
mkdir -p "$work/www/s"
python3 - "$work/www" "$sources" <<'PY'
import csv, os, shutil, sys
www, count = sys.argv[1], int(sys.argv[2])
corpus = "../shared/corpus"
good, bad = [], []
if os.path.exists(f"{corpus}/MANIFEST.tsv"):
    for row in csv.DictReader(open(f"{corpus}/MANIFEST.tsv"), delimiter="\t"):
        name, pixels = row["file"], int(row["width"] or 0) * int(row["height"] or 0)
        if row["expected_outcome"] == "decodes" and pixels >= 500_000 and name.split("/")[0] in ("jpeg", "png", "webp", "avif", "gif"):
            good.append(name)
        elif row["expected_outcome"] != "decodes" and name.split("/")[0] in ("webp", "gif", "avif") and len(bad) < 4:
            bad.append(name)
else:
    print("note: ../shared/corpus absent; the load uses the committed test fixtures", file=sys.stderr)
    fixtures = "Tests/ImageDecodeTests/Fixtures"
    good = [os.path.relpath(os.path.join(fixtures, f), corpus) for f in sorted(os.listdir(fixtures)) if f.endswith((".jpg", ".png"))][:8]
for i in range(count):
    name = good[i % len(good)]
    shutil.copyfile(os.path.join(corpus, name), f"{www}/s/{i}{os.path.splitext(name)[1]}")
for i, name in enumerate(bad):
    shutil.copyfile(os.path.join(corpus, name), f"{www}/s/bad{i}{os.path.splitext(name)[1]}")
print(f"origin: {count} sources over {len(good)} distinct photos, {len(bad)} refused files", file=sys.stderr)
PY
chmod -R o+rX "$work/www"
scripts/serve-nginx.sh start "$work/www" "$origin_port" "$work/nginx"

"$bin" serve --port "$serve_port" --allow-loopback-sources --cache-dir "$work/cache" --memory-cache-size 64MiB \
  2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 1 100); do grep -q "serving on" "$work/serve.log" && break; sleep 0.1; done
grep -q "serving on" "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }

# The request mix as a wrk Lua script (paths precomputed: unsigned, base64url sources).
python3 - "$work" "$origin_port" "$sources" > "$work/mix.lua" <<'PY'
import base64, os, sys
work, port, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
def b64(url): return base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")
names = sorted(os.listdir(f"{work}/www/s"), key=lambda n: (not n[0].isdigit(), n))
good = [b64(f"http://127.0.0.1:{port}/s/{n}") for n in names if n[0].isdigit()]
bad = [b64(f"http://127.0.0.1:{port}/s/{n}") for n in names if n.startswith("bad")] + [b64(f"http://127.0.0.1:{port}/s/missing.jpg")]
print("local good = {" + ",".join(f'"{s}"' for s in good) + "}")
print("local bad = {" + ",".join(f'"{s}"' for s in bad) + "}")
print(r'''
local sizes = {96, 160, 256, 400, 640, 1024}
local accepts = {"image/avif,image/webp,*/*", "image/webp,*/*", "image/jpeg,*/*;q=0.5"}
local etags = {}
local last = nil
math.randomseed(12345)
request = function()
  local r = math.random(100)
  last = nil
  if r <= 55 then
    last = math.random(20)
    return wrk.format("GET", "/unsafe/256/contain/" .. good[last], {Accept = "image/webp,image/apng,*/*;q=0.8"})
  elseif r <= 80 then
    local fit = math.random(2) == 1 and "contain" or "cover"
    return wrk.format("GET", "/unsafe/" .. sizes[math.random(#sizes)] .. "/" .. fit .. "/" .. good[math.random(#good)],
                      {Accept = accepts[math.random(#accepts)]})
  elseif r <= 88 then
    local i = math.random(20)
    return wrk.format("GET", "/unsafe/256/contain/" .. good[i],
                      {Accept = "image/webp,image/apng,*/*;q=0.8", ["If-None-Match"] = etags[i] or '"none"'})
  elseif r <= 93 then
    return wrk.format("GET", "/unsafe/256/contain/" .. good[math.random(#good)] .. ".jpeg")
  elseif r <= 95 then
    return wrk.format("GET", "/wrongsig/256/contain/" .. good[1])
  elseif r <= 97 then
    return wrk.format("GET", "/unsafe/0/contain/" .. good[1])
  else
    return wrk.format("GET", "/unsafe/256/contain/" .. bad[math.random(#bad)])
  end
end
response = function(status, headers, body)
  local tag = headers["ETag"] or headers["etag"]
  if last ~= nil and status == 200 and tag then etags[last] = tag end
end
''')
PY

rss() { awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status"; }
echo "soak: ${minutes} min, wrk -t1 -c16, $sources sources; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
wrk -t1 -c16 -d"${minutes}m" --timeout 30s --latency -s "$work/mix.lua" "http://127.0.0.1:$serve_port" > "$work/wrk.txt" 2>&1 &
wrk_pid=$!
: > "$work/rss.txt"
started=$(date +%s)
while kill -0 "$wrk_pid" 2>/dev/null; do
  now=$(( $(date +%s) - started ))
  echo "$now $(rss)" >> "$work/rss.txt"
  (( now % 30 == 0 )) && echo "  ${now}s: VmRSS $(( $(rss) / 1024 )) MiB"
  sleep 1
done
wait "$wrk_pid" || true
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")
metrics=$(curl -s "http://127.0.0.1:$serve_port/metrics")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E "Requests/sec|Non-2xx|Socket errors|    99%|Latency  " "$work/wrk.txt" | sed 's/^/wrk: /'
python3 - "$work/rss.txt" "$hwm" <<'PY'
import sys
rows = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if len(line.split()) == 2]
first = max(kib for t, kib in rows if t <= 60)
later = [kib for t, kib in rows if t > 60]
mib = lambda kib: f"{kib / 1024:.1f} MiB"
print(f"VmRSS peak in minute 1: {mib(first)}; peak after minute 1: {mib(max(later) if later else first)}; "
      f"at the end: {mib(rows[-1][1])}; VmHWM: {mib(int(sys.argv[2]))}")
if later:
    print(f"growth of the peak after minute 1 over minute 1: {100 * (max(later) - first) / first:+.1f}%")
PY
echo "$metrics" | grep -E "^thumbcache_(cache_entries|cache_bytes|memory_cache_hit_ratio) " | sed 's/^/metrics: /'
echo "$metrics" | python3 -c '
import re, sys, collections
by_status, by_served = collections.Counter(), collections.Counter()
for line in sys.stdin:
    m = re.match(r"thumbcache_requests_total\{(.*)\} ([0-9.e+]+)", line)
    if m:
        labels = dict(re.findall(r"(\w+)=\"([^\"]*)\"", m.group(1)))
        by_status[labels["status"]] += float(m.group(2)); by_served[labels["served"]] += float(m.group(2))
print("answers by status: " + ", ".join(f"{k} {int(v)}" for k, v in sorted(by_status.items())))
print("answers by how served: " + ", ".join(f"{k} {int(v)}" for k, v in sorted(by_served.items())))'
