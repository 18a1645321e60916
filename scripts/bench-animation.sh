#!/usr/bin/env bash
# Issue 32 benchmark: animated GIF and WebP thumbnails (200 px, every frame) against vipsthumbnail 8.14 with all
# pages (`'in.gif[n=-1]' -s 200`), side by side in one run: wall time and peak RSS (/usr/bin/time, median of
# $RUNS runs), output bytes and frames. Ours: `thumbcache thumbnail --options rs:fit:200:200 --max-animation-frames
# 1000` (so a long GIF is not cut at our default 256 frames where vips takes all). The WebP inputs are made here from
# the GIFs with gif2webp -lossy (apt-get install webp). Release build. Markdown on stdout.
#
# usage: scripts/bench-animation.sh [FILE.gif|FILE.webp ...]   (default: the corpus's animated GIFs and imgproxy's gif.gif)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
RUNS=${RUNS:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    files=("$corpus/gif/pillow/chi.gif" "$corpus/gif/pillow/iss634.gif" "$corpus/gif/image-gif/gifplayer-muybridge.gif"
           "$corpus/gif/photos/rachel-hisko-rEM3cK8F1pk-unsplash_pan_30f_400x266.gif"
           "Conformance/imgproxy/images/test-images/gif/gif.gif")
    for gif in "${files[@]:0:4}"; do
        webp="$work/$(basename "${gif%.gif}").webp"
        gif2webp -quiet -lossy -q 80 "$gif" -o "$webp"
        files+=("$webp")
    done
fi
swift build -c release --product thumbcache >/dev/null
ours=.build/release/thumbcache

# median "seconds kilobytes" of $RUNS runs of the command
measure() {
    for _ in $(seq "$RUNS"); do /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; done |
        sort -n | awk -v n="$RUNS" 'NR == int((n + 1) / 2)'
}
frames() { identify "$1" 2>/dev/null | wc -l; }

echo "| file | frames in | ours s | vips s | time ratio | ours MiB | vips MiB | memory ratio | ours bytes | vips bytes | frames out (ours/vips) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for file in "${files[@]}"; do
    name=$(basename "$file"); ext=${name##*.}
    a="$work/ours.$ext"; b="$work/vips.$ext"
    read -r ts tk < <(measure "$ours" thumbnail "$file" --options rs:fit:200:200 --max-animation-frames 1000 -o "$a")
    read -r vs vk < <(measure vipsthumbnail "$file[n=-1]" -s 200 -o "$b")
    printf "| %s | %s | %.3f | %.3f | %.2f | %.1f | %.1f | %.2f | %d | %d | %s/%s |\n" "$name" "$(frames "$file")" \
        "$ts" "$vs" "$(echo "$ts / $vs" | bc -l)" "$(echo "$tk / 1024" | bc -l)" "$(echo "$vk / 1024" | bc -l)" \
        "$(echo "$tk / $vk" | bc -l)" "$(stat -c %s "$a")" "$(stat -c %s "$b")" "$(frames "$a")" "$(frames "$b")"
done
