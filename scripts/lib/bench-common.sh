# Shared by the format benchmarks (bench-heic-jxl.sh, bench-svg.sh, bench-animation.sh, bench-tiff-bmp-ico.sh):
# which binary and python to use, one way to time a command, and one SSIM (scripts/lib/bench_ssim.py over
# scripts/quality.py's). Source it from a script that has cd'd to the repository root.
#
#   OURS=path         the thumbcache binary measured (default .build/release/thumbcache, built when absent;
#                     THUMBCACHE_BIN is the older name and still works). A debug build gives SSIM, not times.
#   RUNS=n            runs per measure (default 3): best wall time, largest peak RSS.

bench_runs=${RUNS:-3}

# The binary to measure: $OURS, else $THUMBCACHE_BIN, else the release build (built once if missing).
bench_binary() {
    local binary=${OURS:-${THUMBCACHE_BIN:-.build/release/thumbcache}}
    if [ ! -x "$binary" ]; then
        swift build -c release --product thumbcache >/dev/null
        binary=$(swift build -c release --show-bin-path)/thumbcache
    fi
    case $binary in /*) echo "$binary" ;; *) echo "$PWD/$binary" ;; esac
}

# A python3 with numpy, scipy and Pillow: the first python3 in PATH, else Debian's.
bench_python() {
    local py
    for py in python3 /usr/bin/python3; do
        "$py" -c 'import numpy, scipy, PIL' 2>/dev/null && { echo "$py"; return; }
    done
    echo "needs python3-numpy python3-scipy python3-pil (or pip install numpy scipy pillow)" >&2
    return 1
}

# bench_measure COMMAND... -> "best_seconds peak_kib cpu_seconds" over $bench_runs runs: wall time from bash's
# EPOCHREALTIME around the process (best), peak RSS from `/usr/bin/time -f %M` (largest), and user+system CPU time
# (least; counted in 10 ms steps): on a machine shared with other work the CPU time moves much less than the wall
# time, but it counts every thread, so a tool that decodes on several threads shows more CPU than wall time. The
# command's output is discarded; one that fails stops the benchmark with its message (a refused input must not be
# timed as a fast one).
bench_measure() {
    local best="" peak=0 cpu="" i start elapsed line rss used
    for ((i = 0; i < bench_runs; i++)); do
        start=$EPOCHREALTIME
        if ! line=$( { /usr/bin/time -f '%M %U %S' "$@" 2>&1 >/dev/null; } | tail -1; exit "${PIPESTATUS[0]}"); then
            echo "bench_measure: failed: $*" >&2
            "$@" >/dev/null
            return 1
        fi
        elapsed=$(echo "$EPOCHREALTIME - $start" | bc -l)
        read -r rss used < <(echo "$line" | awk '{ print $1, $2 + $3 }')
        if [ -z "$best" ] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
        if [ -z "$cpu" ] || (( $(echo "$used < $cpu" | bc -l) )); then cpu=$used; fi
        (( rss > peak )) && peak=$rss
    done
    echo "$best $peak $cpu"
}

# bench_settle_page_cache BINARY... -> drops each binary, the libraries `ldd` lists for it and libvips' modules from
# the page cache (posix_fadvise DONTNEED; no root needed, other processes just read them again), so both sides
# start from files loaded by their own page faults. Peak RSS counts the file pages a process maps, and the kernel
# maps pages around each fault only if they are cached: a binary just written by the linker or `cp` is cached whole,
# in large pieces, and read up to 3.5 MiB more for a small thumbnail than the same binary loaded by use
# (docs/benchmarks.md, "Process memory floor"). Call it once, before the first measure.
bench_settle_page_cache() {
    python3 - "$@" /usr/lib/x86_64-linux-gnu/vips-modules-*/*.so <<'PY'
import os, subprocess, sys
files = set()
for binary in sys.argv[1:]:
    if not os.path.exists(binary):
        continue
    files.add(os.path.realpath(binary))
    listed = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        path = line.split("=>")[-1].split(" (")[0].strip()
        if path.startswith("/"):
            files.add(os.path.realpath(path))
for path in files:
    try:
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    except OSError:
        pass
PY
}

# bench_ratio A B -> A / B with 2 decimals ("–" when B is 0: a CPU time under 10 ms)
bench_ratio() { if (( $(echo "$2 == 0" | bc -l) )); then printf '–'; else printf '%.2f' "$(echo "$1 / $2" | bc -l)"; fi; }
# bench_mib KIB -> MiB with 1 decimal
bench_mib() { printf '%.1f' "$(echo "$1 / 1024" | bc -l)"; }

# bench_ssim REFERENCE IMAGE... -> one SSIM per IMAGE (4 decimals; "size:WxH" when the sizes differ): luma SSIM
# (scripts/quality.py) of each image against the reference, both composited on white first. Set
# bench_py=$(bench_python) once before.
bench_ssim() { "${bench_py:?set bench_py=\$(bench_python) first}" scripts/lib/bench_ssim.py "$@"; }
