#!/usr/bin/env bash
# DiskLru vs OkHttp 3.13's DiskLruCache on the same workload (shared/bench/OkBench.java), in one run.
# Usage: scripts/bench-disklru.sh [N] [G] [ROUNDS]    (defaults: 20000 100000 3)
# Runs on each folder of BENCH_DIRS (default: /dev/shm, a tmpfs, and $TMPDIR or /tmp, the real disk): tmpfs
# shows the implementations' own cost; the disk adds the file system's (and, on a VM, its I/O throttling).
# Each round runs both, alternating which goes first, each after a `sync` so neither pays for the other's
# writeback; the median of each phase is reported, then one line with the three speed-ups of this run.
# A figure for the README needs a quiet machine (a loaded run gave 5.3x write where a quiet one gave 2.35x). The
# script measures it: the CPU time the whole machine spent busy during a folder's rounds (/proc/stat) minus the
# CPU time of this script's own children (/proc/$$/stat), i.e. what other processes used. Under 5% of a core is
# "quiet". (The load average cannot judge this: the JVM's own threads lift it above 0.5 in a 20-second run.)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}; g=${2:-100000}; rounds=${3:-3}
okbench=${OKBENCH:-../shared/bench/OkBench.java}
cp_jars=/usr/share/java/okhttp.jar:/usr/share/java/okio.jar
[ -f "$okbench" ] || { echo "OkBench.java not found at $okbench (set OKBENCH=path)" >&2; exit 2; }
[ -f /usr/share/java/okhttp.jar ] || { echo "needs: apt-get install -y default-jdk-headless libokhttp-java libokio-java" >&2; exit 2; }

# DISKLRU_BENCH=path runs that disklru-bench binary (e.g. one built from another commit) instead of this tree's.
if [ -z "${DISKLRU_BENCH:-}" ]; then swift build -c release --product disklru-bench >/dev/null; fi
bench=${DISKLRU_BENCH:-.build/release/disklru-bench}
work=$(mktemp -d); trap 'rm -rf "$work" "${caches[@]}"' EXIT
caches=()
mkdir -p "$work/java" && cp "$okbench" "$work/java/" && javac -d "$work/java" -cp "$cp_jars" "$work/java/OkBench.java"

run_swift() { rm -rf "$cache"; sync; "$bench" "$cache" "$n" "$g"; }
run_java() { rm -rf "$cache"; sync; java -cp "$cp_jars:$work/java" OkBench "$cache" "$n" "$g"; }
for base in ${BENCH_DIRS:-/dev/shm ${TMPDIR:-/tmp}}; do
cache=$(mktemp -d -p "$base" disklru-bench.XXXXXX); caches+=("$cache")
busy_jiffies() { awk '/^cpu / {print $2+$3+$4+$7+$8+$9}' /proc/stat; }
own_jiffies() { awk '{print $14+$15+$16+$17}' "/proc/$$/stat"; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
busy0=$(busy_jiffies); own0=$(own_jiffies); t0=$(date +%s.%N)
for r in $(seq 1 "$rounds"); do
  if ((r % 2)); then run_swift > "$work/s$r"; run_java > "$work/j$r"; else run_java > "$work/j$r"; run_swift > "$work/s$r"; fi
done
busy1=$(busy_jiffies); own1=$(own_jiffies); t1=$(date +%s.%N)
others=$(python3 -c "import os; hz=os.sysconf('SC_CLK_TCK'); print(f'{max(0,($busy1-$busy0)-($own1-$own0))/hz/($t1-$t0)*100:.1f}')")
rm -rf "$cache"
fs=$(df -T "$base" | awk 'NR==2 {print $2}')
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$work" "$rounds" "$n" "$g" "$base ($fs)" "$load_before" "$load_after" "$others" "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" <<'PY'
import sys, statistics, platform, os
work, rounds, n, g, where, before, after, others, commit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7], float(sys.argv[8]), sys.argv[9]
def load(prefix):
    phases = {}
    for r in range(1, rounds + 1):
        for line in open(f"{work}/{prefix}{r}"):
            parts = line.split()
            if parts[0] in ("write", "read", "reopen"):
                phases.setdefault(parts[0], []).append(float(parts[2]))
    return {k: statistics.median(v) for k, v in phases.items()}
s, j = load("s"), load("j")
ops = {"write": int(n), "read": int(g), "reopen": 1}
print(f"\nIn {where}: N={n} G={g}, median of {rounds} alternating rounds, {os.cpu_count()} cores, {platform.machine()}\n")
print("| phase | DiskLru ops/s | OkHttp 3.13 ops/s | DiskLru seconds | OkHttp seconds | speed-up |")
print("|---|---|---|---|---|---|")
for p in ("write", "read", "reopen"):
    print(f"| {p} | {ops[p]/s[p]:,.0f} | {ops[p]/j[p]:,.0f} | {s[p]:.3f} | {j[p]:.3f} | {j[p]/s[p]:.2f}x |")
quiet = others < 5.0
print(f"\nother processes used {others:.1f}% of a core during the rounds; load average (1, 5, 15 min) before {before}, after {after}: {'quiet' if quiet else 'LOADED: not a figure to publish'}")
print(f"speed-up in {where} at {commit}: " + ", ".join(f"{j[p] / s[p]:.2f}x {p}" for p in ("write", "read", "reopen")))
PY
done
