#!/usr/bin/env bash
# Two builds of thumbcache against each other and vipsthumbnail 8.14 on the same files: a before/after check of a
# change (speed, memory, and whether the output bytes stayed the same). The three are run interleaved RUNS times
# per file (base, new, vips, base, new, vips, ...), so a change in the machine's load falls on all three. Per tool:
# best wall time, least CPU (user+sys: steadier than wall time on a loaded machine; `/usr/bin/time` counts it in
# 10 ms steps) and largest peak RSS; then the ratios new/base and new/vips, and `cmp` of base's and new's output.
# JPEG out (thumbcache's default; vips at Q=80). Markdown on stdout.
#
# usage: scripts/bench-builds.sh BASE_BINARY NEW_BINARY FILE:SIZE...      (RUNS=5)
#   e.g. scripts/bench-builds.sh /tmp/old/thumbcache .build/release/thumbcache photo.tiff:256 photo.jpg:64
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,10p "$0" >&2; exit 2; }
base=$1 new=$2; shift 2
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ms() { printf '%.0f' "$(echo "$1 * 1000" | bc -l)"; }
mib() { printf '%.1f' "$(echo "$1 / 1024" | bc -l)"; }
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

echo "| file | size | wall ms base / new / vips | CPU ms base / new / vips | peak MiB base / new / vips | new/base wall, CPU, RSS | new/vips wall, CPU, RSS | output |"
echo "|---|---|---|---|---|---|---|---|"
for spec in "$@"; do
    file=${spec%:*} size=${spec##*:}
    declare -A wall=() cpu=() rss=()
    for ((i = 0; i < runs; i++)); do
        for tool in base new vips; do
            if [ $tool = vips ]; then
                command=(vipsthumbnail "$file" -s "$size" -o "$work/vips.jpg[Q=80]")
            else
                command=("${!tool}" thumbnail "$file" --size "$size" -o "$work/$tool.jpg")
            fi
            read -r w user system peak < <( { /usr/bin/time -f '%e %U %S %M' "${command[@]}" 2>&1 >/dev/null; } | tail -1)
            c=$(echo "$user + $system" | bc -l)
            if [ -z "${wall[$tool]:-}" ] || (( $(echo "$w < ${wall[$tool]}" | bc -l) )); then wall[$tool]=$w; fi
            if [ -z "${cpu[$tool]:-}" ] || (( $(echo "$c < ${cpu[$tool]}" | bc -l) )); then cpu[$tool]=$c; fi
            (( peak > ${rss[$tool]:-0} )) && rss[$tool]=$peak
        done
    done
    same=$(cmp -s "$work/base.jpg" "$work/new.jpg" && echo identical || echo DIFFERENT)
    echo "| $(basename "$file") | $size | $(ms "${wall[base]}") / $(ms "${wall[new]}") / $(ms "${wall[vips]}")" \
         "| $(ms "${cpu[base]}") / $(ms "${cpu[new]}") / $(ms "${cpu[vips]}")" \
         "| $(mib "${rss[base]}") / $(mib "${rss[new]}") / $(mib "${rss[vips]}")" \
         "| $(ratio "${wall[new]}" "${wall[base]}"), $(ratio "${cpu[new]}" "${cpu[base]}"), $(ratio "${rss[new]}" "${rss[base]}")" \
         "| $(ratio "${wall[new]}" "${wall[vips]}"), $(ratio "${cpu[new]}" "${cpu[vips]}"), $(ratio "${rss[new]}" "${rss[vips]}") | $same |"
    unset wall cpu rss
done
