#!/usr/bin/env bash
# `thumbcache get` speed, side by side with its peers, in one run (release build, same file, nginx on 127.0.0.1):
#   miss:     thumbcache get on an empty cache   vs  curl download + vipsthumbnail -s 256
#   disk hit: thumbcache get on a warm cache     vs  thumbcache --version + reading the thumbnail file
#   memory hit (in-process): p50/p99 of ThumbnailPipeline.thumbnail on a memory hit
#   miss peak RSS:  thumbcache get on an empty cache  vs  vipsthumbnail -s 256 on the downloaded file
# Usage: scripts/bench-get.sh [IMAGE]   (default: a 4032x3024 photo from ../shared/corpus, else a test fixture)
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-../shared/corpus/jpeg/42_IndexError.jpg}  # 4032x3024 baseline JPEG, 2.9 MB
if [ ! -f "$image" ]; then
  echo "note: $image not found (../shared/corpus absent?); using the small test fixture" >&2
  image=Tests/ImageDecodeTests/Fixtures/testorig.jpg
fi
for tool in hyperfine vipsthumbnail curl /usr/bin/time; do
  command -v $tool >/dev/null || { echo "needs $tool: apt-get install -y hyperfine libvips-tools curl nginx time" >&2; exit 2; }
done
swift build -c release --product thumbcache >/dev/null
swift build -c release --product pipeline-bench >/dev/null
bin=$PWD/.build/release
work=$(mktemp -d); chmod 755 "$work"; port=$((20000 + RANDOM % 20000))
trap 'scripts/serve-nginx.sh stop "$work/nginx"; rm -rf "$work"' EXIT
mkdir -p "$work/www" && cp "$image" "$work/www/photo.jpg"
scripts/serve-nginx.sh start "$work/www" "$port" "$work/nginx"
url="http://127.0.0.1:$port/photo.jpg"
echo "image: $image ($(stat -c %s "$image") bytes), served by nginx at $url"

hf() { hyperfine -N --style none --warmup 3 --runs "$1" --export-json "$work/$2.json" "${@:3}" >/dev/null 2>&1; \
       python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(' '.join(f\"{x['median']:.5f}\" for x in r))" "$work/$2.json"; }

# Miss: a fresh cache directory for every run.
read -r miss < <(hf 15 miss --prepare "rm -rf $work/cold" "$bin/thumbcache get $url --size 256 --cache-dir $work/cold -o $work/out.jpg")
read -r peer < <(hyperfine --style none --warmup 3 --runs 15 --export-json "$work/peer.json" \
  "curl -s -o $work/dl.jpg $url && vipsthumbnail $work/dl.jpg -s 256 -o $work/vips.jpg" >/dev/null 2>&1; \
  python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['results'][0]['median']:.5f}\")" "$work/peer.json")
read -r download < <(hf 15 dl "curl -s -o $work/dl.jpg $url")
read -r vips < <(hf 15 vips "vipsthumbnail $work/dl.jpg -s 256 -o $work/vips.jpg")

# Disk hit: the cache holds the 256 px thumbnail; nothing is decoded.
"$bin/thumbcache" get "$url" --size 256 --cache-dir "$work/warm" -o "$work/hit.jpg" 2>/dev/null
"$bin/thumbcache" get "$url" --size 256 --cache-dir "$work/warm" -o "$work/hit.jpg" 2>&1 | grep -q '\[disk\]' || { echo "expected a disk hit" >&2; exit 1; }
read -r hit < <(hf 30 hit "$bin/thumbcache get $url --size 256 --cache-dir $work/warm -o $work/hit.jpg")
read -r version < <(hf 30 version "$bin/thumbcache --version")
read -r readfile < <(hf 30 cat "cat $work/hit.jpg")

memory=$("$bin/pipeline-bench" "$work/www/photo.jpg" 100000)

# Peak RSS (KB) of a miss, the median of 5 runs each.
peak() { for _ in 1 2 3 4 5; do rm -rf "$work/cold"; /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1; cat "$work/rss"; done | sort -n | sed -n 3p; }
miss_rss=$(peak "$bin/thumbcache" get "$url" --size 256 --cache-dir "$work/cold" -o "$work/out.jpg")
vips_rss=$(peak vipsthumbnail "$work/dl.jpg" -s 256 -o "$work/vips.jpg")

python3 - "$miss" "$peer" "$download" "$vips" "$hit" "$version" "$readfile" "$miss_rss" "$vips_rss" "$memory" <<'PY'
import sys
miss, peer, download, vips, hit, version, readfile, miss_rss, vips_rss = map(float, sys.argv[1:10])
fields = sys.argv[10].split()[1:]
memory = dict(zip(fields[0::2], fields[1::2]))
print("| case | thumbcache | peer | ratio | target |")
print("|---|---|---|---|---|")
print(f"| miss (download + 256 px thumbnail + store) | {miss*1000:.1f} ms | curl + vipsthumbnail: {peer*1000:.1f} ms (download {download*1000:.1f} + vips {vips*1000:.1f}) | {miss/peer:.2f}x | ≤ 1.2x |")
print(f"| disk hit (no decode) | {hit*1000:.2f} ms | `--version` {version*1000:.2f} ms + `cat` {readfile*1000:.2f} ms = {(version+readfile)*1000:.2f} ms | {hit/(version+readfile):.2f}x | ≤ 1.5x |")
print(f"| miss peak RSS (download, decode, store) | {miss_rss/1024:.1f} MiB | vipsthumbnail on the downloaded file: {vips_rss/1024:.1f} MiB | {miss_rss/vips_rss:.2f}x | |")
print(f"| memory hit, in-process | p50 {float(memory['p50_us']):.2f} µs, p99 {float(memory['p99_us']):.2f} µs | | | p99 < 50 µs |")
PY
