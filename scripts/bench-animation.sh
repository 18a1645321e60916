#!/usr/bin/env bash
# Issue 32 benchmark: animated GIF and WebP thumbnails (200 px, every frame) against vipsthumbnail 8.14 with all
# pages (`'in.gif[n=-1]' -s 200`) and, for GIF, thumbor 7.8's animated-GIF path (its gifsicle engine), side by side
# in one run: wall time (best of $RUNS), user+system CPU time (least; ours/vips), peak RSS (/usr/bin/time, largest of the runs), output bytes and frames.
# Ours: `thumbcache thumbnail --options rs:fit:200:200 --max-animation-frames 1000 --max-pixels 100000000` (so a long
# GIF is not cut at our default 256 frames, nor refused by the pixel limit counting every frame, where vips takes all:
# gifplayer-muybridge.gif is 380 frames of 472x298, 53 MP). The WebP inputs are made here from the GIFs with gif2webp -lossy
# (apt-get install webp). Release build. Markdown on stdout.
#
# thumbor: from $THUMBOR_VENV (default .build/thumbor-venv: python3 -m venv DIR && DIR/bin/pip install
# 'thumbor==7.8.*'; needs gifsicle: apt-get install gifsicle), skipped with one line saying why when absent. One
# thumbor process per GIF on 127.0.0.1, file loader, no storage, USE_GIFSICLE_ENGINE; after one warm-up request its
# time is the best curl time_total of $RUNS requests for /unsafe/fit-in/200x200/FILE (the HTTP round trip on
# loopback is included, process start is not), its memory the thumbor process's VmHWM plus gifsicle's largest peak
# RSS (each gifsicle run through /usr/bin/time). thumbor 7.8 keeps only the first frame of an animated WebP (its
# PIL engine animates GIF only), so WebP rows have no thumbor figures.
#
# usage: scripts/bench-animation.sh [FILE.gif|FILE.webp ...]   (default: the corpus's animated GIFs and imgproxy's gif.gif)
# Timing and the binary come from scripts/lib/bench-common.sh (OURS=, RUNS=).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-common.sh
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
thumbor_venv=${THUMBOR_VENV:-$PWD/.build/thumbor-venv}
work=$(mktemp -d)
thumbor_pid=""
cleanup() { [ -n "$thumbor_pid" ] && kill "$thumbor_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
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
ours=$(bench_binary)
bench_settle_page_cache "$ours" "$(command -v vipsthumbnail)"  # both sides loaded by use (bench-common.sh)

thumbor_skip=""
if [ ! -x "$thumbor_venv/bin/thumbor" ]; then
    thumbor_skip="no thumbor at $thumbor_venv (python3 -m venv $thumbor_venv && $thumbor_venv/bin/pip install 'thumbor==7.8.*')"
elif ! command -v gifsicle >/dev/null; then
    thumbor_skip="gifsicle not installed (apt-get install gifsicle)"
fi
if [ -z "$thumbor_skip" ]; then
    # gifsicle as thumbor finds it in PATH, each run's peak RSS appended to a log.
    mkdir -p "$work/bin" "$work/thumbor"
    printf '#!/bin/sh\nexec /usr/bin/time -f %%M -a -o %s %s "$@"\n' "$work/gifsicle.rss" "$(command -v gifsicle)" > "$work/bin/gifsicle"
    chmod +x "$work/bin/gifsicle"
    cat > "$work/thumbor/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = '$work/thumbor/root'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
USE_GIFSICLE_ENGINE = True
ALLOW_ANIMATED_GIFS = True
MAX_AGE = 0
CONF
fi
thumbor_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# thumbor GIF -> "best_seconds peak_kib bytes frames" (thumbor started for this file alone, then stopped)
thumbor_measure() {
    local name; name=$(basename "$1")
    rm -rf "$work/thumbor/root"; mkdir -p "$work/thumbor/root"; cp "$1" "$work/thumbor/root/$name"
    : > "$work/gifsicle.rss"
    PATH="$work/bin:$PATH" "$thumbor_venv/bin/thumbor" -i 127.0.0.1 -p "$thumbor_port" -c "$work/thumbor/thumbor.conf" \
        -l warning >"$work/thumbor/log" 2>&1 &
    thumbor_pid=$!
    for _ in $(seq 100); do curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$thumbor_port/healthcheck" && break; sleep 0.1; done
    local url="http://127.0.0.1:$thumbor_port/unsafe/fit-in/200x200/$name" best="" t i
    curl -sf -o "$work/thumbor.gif" "$url"
    for ((i = 0; i < bench_runs; i++)); do
        t=$(curl -sf -o "$work/thumbor.gif" -w '%{time_total}' "$url")
        if [ -z "$best" ] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
    done
    local hwm gifsicle
    hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$thumbor_pid/status")
    gifsicle=$(sort -n "$work/gifsicle.rss" | tail -1)
    kill "$thumbor_pid"; wait "$thumbor_pid" 2>/dev/null || true; thumbor_pid=""
    echo "$best $((hwm + ${gifsicle:-0})) $(stat -c %s "$work/thumbor.gif") $(frames "$work/thumbor.gif")"
}
frames() { identify "$1" 2>/dev/null | wc -l; }

echo "Animated thumbnails, fit 200x200, every frame; best of $bench_runs; ours: $ours ($(git rev-parse --short HEAD));" \
     "$(vips --version | head -1); thumbor ${thumbor_skip:+skipped: $thumbor_skip}$( [ -z "$thumbor_skip" ] && "$thumbor_venv/bin/python" -c 'import thumbor; print(thumbor.__version__)') with $(gifsicle --version 2>/dev/null | head -1)"
echo
echo "| file | frames in | ours s | vips s | time ratio | CPU ratio | ours MiB | vips MiB | memory ratio | ours bytes | vips bytes | frames out (ours/vips) | thumbor s | thumbor MiB | thumbor bytes | vs thumbor (time / memory / bytes) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for file in "${files[@]}"; do
    name=$(basename "$file"); ext=${name##*.}
    a="$work/ours.$ext"; b="$work/vips.$ext"
    read -r ts tk tc < <(bench_measure "$ours" thumbnail "$file" --options rs:fit:200:200 --max-animation-frames 1000 --max-pixels 100000000 -o "$a")
    read -r vs vk vc < <(bench_measure vipsthumbnail "$file[n=-1]" -s 200 -o "$b")
    thumbor_cells="– | – | – | –"
    if [ -z "$thumbor_skip" ] && [ "$ext" = gif ]; then
        read -r hs hk hb hf < <(thumbor_measure "$file")
        thumbor_cells="$(printf '%.3f' "$hs") | $(bench_mib "$hk") | $hb ($hf frames) | $(bench_ratio "$ts" "$hs") / $(bench_ratio "$tk" "$hk") / $(bench_ratio "$(stat -c %s "$a")" "$hb")"
    fi
    printf "| %s | %s | %.3f | %.3f | %s | %s | %s | %s | %s | %d | %d | %s/%s | %s |\n" "$name" "$(frames "$file")" \
        "$ts" "$vs" "$(bench_ratio "$ts" "$vs")" "$(bench_ratio "$tc" "$vc")" "$(bench_mib "$tk")" "$(bench_mib "$vk")" \
        "$(bench_ratio "$tk" "$vk")" "$(stat -c %s "$a")" "$(stat -c %s "$b")" "$(frames "$a")" "$(frames "$b")" "$thumbor_cells"
done
