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
#            them, against nginx serving the same bytes as static files (rotating) and one of them alone
#            (scripts/bench-serve-disk-hits.sh with OPTIONS). Target: >= 0.3x nginx static.
# wrk shares the cores with the servers: compare the ratios. Usage: scripts/bench-processing.sh
#   (PHOTOS=20 HITS=200 DURATION=8 ROUNDS=1; THUMBCACHE_BIN=path skips the release build)
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
cleanup() { rm -rf "$work"; }
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
# The disk-hit benchmark of the short grammar, on processed URLs (the same render-once set-up, wrk and nginx).
OPTIONS='rs:fill:300:200/g:sm' HITS=$hits DURATION=$duration ROUNDS=${ROUNDS:-1} scripts/bench-serve-disk-hits.sh "$bin" \
  | sed 's/^/  /'
echo "  (target for the ratio: >= 0.3x)"
