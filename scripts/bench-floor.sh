#!/usr/bin/env bash
# The process memory floor: peak RSS of `thumbcache thumbnail` on small committed images, where the decode and
# resize cost little and the figure is mostly what the process maps and touches (code, relocations, libraries),
# side by side with vipsthumbnail on the same files, in one run. Median of RUNS runs each (default 9), ours and the
# peer interleaved, after both sides' files are dropped from the page cache once (bench_settle_page_cache).
#
#   scripts/bench-floor.sh              the release build (built when absent)
#   OURS=path BASE=path scripts/...     also a second binary of ours (e.g. before a link change), beside the first
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-common.sh
ours=$(bench_binary)
base=${BASE:-}
runs=${RUNS:-9}
fixtures=Tests/ImageDecodeTests/Fixtures
files=("$fixtures/testorig.jpg" "$fixtures/testorig.png" "$fixtures/heic/alpha-adobergb.heic" "$fixtures/webp/"*.webp)
files=("${files[@]:0:4}")
bench_settle_page_cache "$ours" ${base:+"$base"} "$(command -v vipsthumbnail)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-28s %10s %10s %10s %8s\n' input ours_MiB "base_MiB" vips_MiB ours/vips
for f in "${files[@]}"; do
    o="" b="" v=""
    for ((i = 0; i < runs; i++)); do
        o+="$(/usr/bin/time -f '%M' "$ours" thumbnail "$f" --size 100 -o "$work/o.jpg" 2>&1 >/dev/null | tail -1) "
        [ -n "$base" ] && b+="$(/usr/bin/time -f '%M' "$base" thumbnail "$f" --size 100 -o "$work/b.jpg" 2>&1 >/dev/null | tail -1) "
        v+="$(/usr/bin/time -f '%M' vipsthumbnail "$f" -s 100 -o "$work/v.jpg" 2>&1 >/dev/null | tail -1) "
    done
    om=$(echo "$o" | median) vm=$(echo "$v" | median)
    bm=$([ -n "$base" ] && bench_mib "$(echo "$b" | median)" || echo "–")
    printf '%-28s %10s %10s %10s %8s\n' "$(basename "$f")" "$(bench_mib "$om")" "$bm" "$(bench_mib "$vm")" "$(bench_ratio "$om" "$vm")"
done
o="" v=""
for ((i = 0; i < runs; i++)); do
    o+="$(/usr/bin/time -f '%M' "$ours" --help 2>&1 >/dev/null | tail -1) "
    v+="$(/usr/bin/time -f '%M' vipsthumbnail --help 2>&1 >/dev/null | tail -1) "
done
printf '%-28s %10s %10s %10s %8s\n' "--help (start-up only)" "$(bench_mib "$(echo "$o" | median)")" "–" \
    "$(bench_mib "$(echo "$v" | median)")" "$(bench_ratio "$(echo "$o" | median)" "$(echo "$v" | median)")"
