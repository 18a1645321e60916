#!/usr/bin/env bash
# Thumbnail speed/memory benchmark: our release build vs vipsthumbnail (and Pillow and
# ImageMagick when installed), same files, same run, 256 px longest side, JPEG output.
#
# Per image and tool: best wall time of RUNS runs (measured with bash's EPOCHREALTIME around
# the process, ms resolution) and peak RSS from `/usr/bin/time -f '%e %M'` (max over runs).
# Then a whole-folder run: every file in ONE process per tool (thumbcache and vipsthumbnail
# both take many inputs), and the per-image sums.
#
# usage: scripts/bench-thumbnail.sh [DIR...]   (default: corpus jpeg/ and png/)
#        RUNS=3 SIZE=256 scripts/bench-thumbnail.sh
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
runs=${RUNS:-3}
size=${SIZE:-256}
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=("$corpus/jpeg" "$corpus/png")

swift build -c release --product thumbcache >/dev/null
ours=.build/release/thumbcache
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

tools=(ours vips)
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail not installed (apt-get install libvips-tools)" >&2; exit 1; }
python3 -c 'import PIL' 2>/dev/null && tools+=(pillow)
[ -x /usr/bin/convert ] && tools+=(magick)

run_tool() {  # tool input output
    case $1 in
    ours) "$ours" thumbnail "$2" --size "$size" -o "$3.jpg" ;;
    vips) vipsthumbnail "$2" -s "$size" -o "$3.jpg[Q=80]" ;;
    # Pillow's fast path: thumbnail() uses JPEG draft mode and reducing_gap=2.
    pillow) python3 -c 'import sys; from PIL import Image, ImageOps
im = ImageOps.exif_transpose(Image.open(sys.argv[1])); im.thumbnail((int(sys.argv[2]),) * 2, Image.LANCZOS)
im.convert("RGB").save(sys.argv[3], quality=80)' "$2" "$size" "$3.jpg" ;;
    # jpeg:size lets libjpeg shrink on load, as ImageMagick's docs recommend for thumbnails.
    magick) /usr/bin/convert -define jpeg:size=$((size * 2))x$((size * 2)) "$2" -auto-orient \
                -thumbnail "${size}x${size}" -quality 80 "$3.jpg" ;;
    esac
}

measure() {  # tool input... -> "seconds kib" (best time, max RSS over $runs runs)
    local tool=$1; shift
    local best="" peak=0
    for ((i = 0; i < runs; i++)); do
        local start=$EPOCHREALTIME
        local rss
        if [ "$tool" = ours-all ]; then
            rss=$( { /usr/bin/time -f '%e %M' "$ours" thumbnail "$@" --size "$size" --output-dir "$out" 2>&1 >/dev/null; } | tail -1 | cut -d' ' -f2)
        elif [ "$tool" = vips-all ]; then
            rss=$( { /usr/bin/time -f '%e %M' vipsthumbnail "$@" -s "$size" -o "$out/%s.jpg[Q=80]" 2>&1 >/dev/null; } | tail -1 | cut -d' ' -f2)
        else
            rss=$( { /usr/bin/time -f '%e %M' bash -c "$(declare -f run_tool); ours=$ours size=$size run_tool \"\$@\"" _ "$tool" "$1" "$out/$tool" 2>&1 >/dev/null; } | tail -1 | cut -d' ' -f2)
        fi
        local elapsed
        elapsed=$(echo "$EPOCHREALTIME - $start" | bc -l)
        if [ -z "$best" ] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
        (( rss > peak )) && peak=$rss
    done
    printf '%.3f %d\n' "$best" "$peak"
}

echo "# thumbnail benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# size $size, best of $runs runs; time in s, peak RSS in MiB; ratio = ours / vipsthumbnail (< 1 is better)"
echo "# $(vipsthumbnail --vips-version); $(python3 -c 'import PIL; print("Pillow", PIL.__version__)' 2>/dev/null || true); $(/usr/bin/convert -version 2>/dev/null | head -1 | cut -d' ' -f2,3 || true)"
header="| image | source |"
rule="|---|---|"
for t in "${tools[@]}"; do header+=" $t s | $t MiB |"; rule+="---|---|"; done
echo
echo "$header time ratio | RSS ratio |"
echo "$rule---|---|"

files=()
for d in "${dirs[@]}"; do for f in "$d"/*.jpg "$d"/*.png "$d"/*.webp "$d"/*.gif "$d"/*.avif; do [ -e "$f" ] && files+=("$f"); done; done
declare -A total_time total_rss
worst_time=0 worst_rss=0
for f in "${files[@]}"; do
    dims=$(python3 -c 'import sys; from PIL import Image; print("%dx%d" % Image.open(sys.argv[1]).size)' "$f" 2>/dev/null || echo "?")
    row="| $(basename "$(dirname "$f")")/$(basename "$f") | $dims |"
    declare -A t m
    for tool in "${tools[@]}"; do
        read -r secs kib < <(measure "$tool" "$f")
        t[$tool]=$secs; m[$tool]=$kib
        total_time[$tool]=$(echo "${total_time[$tool]:-0} + $secs" | bc -l)
        (( kib > ${total_rss[$tool]:-0} )) && total_rss[$tool]=$kib
        row+=" $secs | $(printf '%.1f' "$(echo "$kib / 1024" | bc -l)") |"
    done
    tr=$(printf '%.2f' "$(echo "${t[ours]} / ${t[vips]}" | bc -l)")
    mr=$(printf '%.2f' "$(echo "${m[ours]} / ${m[vips]}" | bc -l)")
    (( $(echo "$tr > $worst_time" | bc -l) )) && worst_time=$tr
    (( $(echo "$mr > $worst_rss" | bc -l) )) && worst_rss=$mr
    echo "$row $tr | $mr |"
done

echo
echo "Per-image sums over ${#files[@]} files (time: sum of best runs; RSS: largest single-image peak):"
for tool in "${tools[@]}"; do
    printf -- "- %s: %.3f s, peak %.1f MiB\n" "$tool" "${total_time[$tool]}" "$(echo "${total_rss[$tool]} / 1024" | bc -l)"
done
echo "- worst per-image ratio ours/vips: time $worst_time, RSS $worst_rss"
read -r ours_all ours_all_rss < <(measure ours-all "${files[@]}")
read -r vips_all vips_all_rss < <(measure vips-all "${files[@]}")
echo
echo "Whole folder in one process (${#files[@]} files):"
printf -- "- ours: %.3f s, peak %.1f MiB\n" "$ours_all" "$(echo "$ours_all_rss / 1024" | bc -l)"
printf -- "- vipsthumbnail: %.3f s, peak %.1f MiB\n" "$vips_all" "$(echo "$vips_all_rss / 1024" | bc -l)"
printf -- "- ratio ours/vips: time %.2f, RSS %.2f\n" "$(echo "$ours_all / $vips_all" | bc -l)" "$(echo "$ours_all_rss / $vips_all_rss" | bc -l)"
