#!/usr/bin/env bash
# `thumbcache warm` throughput and memory, side by side with vipsthumbnail, in one run (release build):
#   1. 200 photos from ../shared/corpus served by nginx on 127.0.0.1, sizes 128 and 256:
#      thumbcache warm (empty cache)  vs  vipsthumbnail with 2 parallel workers over the same local files
#   2. the same list again, everything fresh (URLs/s), and a 10,000-URL list again
#   3. peak RSS of warm over 1,000 and 10,000 distinct URLs (flat memory)
# Usage: scripts/bench-warm.sh [CONCURRENCY]   (default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
concurrency=${1:-4}
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "../shared/corpus is absent: this benchmark needs its photos" >&2; exit 2; }
for tool in vipsthumbnail curl; do command -v $tool >/dev/null || { echo "needs: apt-get install -y libvips-tools curl nginx" >&2; exit 2; }; done
swift build -c release --product thumbcache >/dev/null
bin=${THUMBCACHE_BIN:-$PWD/.build/release/thumbcache}  # THUMBCACHE_BIN: compare another build
work=$(mktemp -d); chmod 755 "$work"; port=$((20000 + RANDOM % 20000))
trap 'scripts/serve-nginx.sh stop "$work/nginx"; rm -rf "$work"' EXIT
mkdir -p "$work/www" "$work/vips"
# 200 photos: every photo of the corpus (jpeg/, png/, exif-orientation/), repeated under new names to reach 200.
mapfile -t photos < <(ls "$corpus"/jpeg/*.jpg "$corpus"/png/*.png "$corpus"/exif-orientation/*.jpg | sort)
for i in $(seq 0 199); do
  src=${photos[$((i % ${#photos[@]}))]}; ext=${src##*.}
  cp "$src" "$work/www/photo$i.$ext"
done
scripts/serve-nginx.sh start "$work/www" "$port" "$work/nginx"
ls "$work/www" | sed "s#^#http://127.0.0.1:$port/#" > "$work/urls.txt"
bytes=$(du -sb "$work/www" | cut -f1)
echo "200 photos (${#photos[@]} distinct, $((bytes / 1048576)) MiB), sizes 128 and 256, $(nproc) cores"

now() { date +%s.%N; }
sync
# Peer: vipsthumbnail, two workers, both sizes per file.
t0=$(now)
ls "$work/www" | xargs -P 2 -I{} sh -c "vipsthumbnail '$work/www/{}' -s 128 -o '$work/vips/%s-128.jpg' && vipsthumbnail '$work/www/{}' -s 256 -o '$work/vips/%s-256.jpg'"
t1=$(now)
sync
"$bin" warm "$work/urls.txt" --sizes 128,256 --concurrency "$concurrency" --cache-dir "$work/cache" --quiet --json "$work/cold.json" 2>/dev/null
t2=$(now)
"$bin" warm "$work/urls.txt" --sizes 128,256 --concurrency "$concurrency" --cache-dir "$work/cache" --quiet --json "$work/warm.json" 2>/dev/null
t3=$(now)

# Memory: distinct URLs of one small image (query strings make them distinct cache entries).
cp Tests/ImageDecodeTests/Fixtures/testorig.jpg "$work/www/small.jpg"
rss() {
  seq 1 "$1" | sed "s#^#http://127.0.0.1:$port/small.jpg?i=#" > "$work/u$1.txt"
  /usr/bin/time -f "%M %e" -o "$work/rss$1" "$bin" warm "$work/u$1.txt" --sizes 64,256 --concurrency "$concurrency" \
    --cache-dir "$work/mem$1" --quiet 2>/dev/null
  /usr/bin/time -f "%M %e" -o "$work/rerun$1" "$bin" warm "$work/u$1.txt" --sizes 64,256 --concurrency "$concurrency" \
    --cache-dir "$work/mem$1" --quiet 2>/dev/null
}
rss 1000; rss 10000

python3 - "$t0" "$t1" "$t2" "$t3" "$work" "$concurrency" <<'PY'
import sys, json
t0, t1, t2, t3 = map(float, sys.argv[1:5]); work, concurrency = sys.argv[5], sys.argv[6]
cold, warm = json.load(open(f"{work}/cold.json")), json.load(open(f"{work}/warm.json"))
assert cold["fetched"] == 200 and not cold["failed"], cold
assert warm["fresh"] == 200, warm
vips, ours, rerun = t1 - t0, t2 - t1, t3 - t2
def rss(n):
    kb, secs = open(f"{work}/rss{n}").read().split()
    kb2, secs2 = open(f"{work}/rerun{n}").read().split()
    return int(kb) / 1024, float(secs), int(kb2) / 1024, float(secs2)
print(f"| run | thumbcache warm (--concurrency {concurrency}) | vipsthumbnail, 2 workers | ratio |")
print("|---|---|---|---|")
print(f"| 200 photos, empty cache, sizes 128+256 | {ours:.2f} s = {200/ours:.1f} images/s (includes the HTTP download) | {vips:.2f} s = {200/vips:.1f} images/s (local files) | {vips/ours:.2f}x the peer's rate |")
print(f"| the same 200 again, all fresh | {rerun:.3f} s = {200/rerun:,.0f} URLs/s (with process start) | | |")
m1, s1, r1, rs1 = rss(1000); m2, s2, r2, rs2 = rss(10000)
print(f"| 10,000 URLs again, all fresh | {rs2:.2f} s = {10000/rs2:,.0f} URLs/s | | |")
print(f"| peak RSS, 1,000 distinct URLs | {m1:.1f} MiB ({1000/s1:.0f} URLs/s) | | |")
print(f"| peak RSS, 10,000 distinct URLs | {m2:.1f} MiB ({10000/s2:.0f} URLs/s) | | |")
PY
