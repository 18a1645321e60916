#!/usr/bin/env bash
# Checks scripts/simulate-cluster.py against a real 3-node run whose disks evict (issue 13 §4: "check the
# simulator against one real 3-node run at a small scale"). The cluster of scripts/cluster.py (origin,
# three `thumbcache serve` nodes, nginx from deploy/nginx-conf.sh) runs with a small --max-disk-size, so
# DiskLru evicts, and a seeded Zipf workload goes through nginx: each node's requests in workload order, one
# at a time (the nodes in parallel: a node's LRU depends only on its own requests). Then nginx's access log is
# replayed through the model (`simulate-cluster.py replay`, with the same budget and memory cache) and compared:
#   - per request: the node (ketama), hit or miss (X-Thumbcache network = miss), memory/disk/network;
#   - the hit ratio and the origin bytes, real (as the origin logged them) and modelled;
#   - each node's cache at the end (`disklru list` with the node stopped) against the model's: the entries,
#     their LRU order and their bytes (the metadata value's size is fitted from the caches: an input, like the
#     originals' sizes).
# The nodes run with THUMBCACHE_INLINE_TRIM=1: DiskLru trims inside the commit (DiskLruOptions.Cleanup.inline)
# rather than on its background queue, as the model does, so every hit and miss must agree (one at a time per
# node) whatever the machine's load. With the background queue a busy machine ran the trim after the node's
# next lookup, or later still, and the check failed on a race rather than on the model.
# Loopback only; EVICT_REQUESTS requests plus one listing per node. Ends with
# "evict check: N passed, N failed" (exit 1 on a failure).
#
# Environment (default in brackets): EVICT_SOURCES [300], EVICT_REQUESTS [2000], EVICT_SIZES [256,64],
# EVICT_MIX [7,3] (request shares of the sizes), EVICT_ZIPF [1.0], EVICT_SEED [13], EVICT_DISK [a third of a
# node's share of the requested originals] (--max-disk-size of each node), EVICT_MEMORY [1B]
# (--memory-cache-size of each node; 1B keeps nothing, so every request reaches the disk), EVICT_CONCURRENCY [1]
# (requests in flight per node; above 1 the agreement is measured, not checked),
# CLUSTER_MAX_PHOTO_BYTES [1000000], CONFIG or BIN_DIR (the binaries, see scripts/cluster.py), CLUSTER_KEEP=1
# keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - <<'PY'
import collections, os, random, re, statistics, subprocess, sys, threading, time

sys.path.insert(0, "scripts")
from cluster import Checks, Cluster, photos_or_skip, tools  # noqa: E402


def setting(name, default):
    return os.environ.get("EVICT_" + name) or default


SOURCES, REQUESTS = int(setting("SOURCES", "300")), int(setting("REQUESTS", "2000"))
SIZES = [int(s) for s in setting("SIZES", "256,64").split(",")]
MIX = [float(s) for s in setting("MIX", "7,3").split(",")]
ZIPF, SEED, MEMORY = float(setting("ZIPF", "1.0")), int(setting("SEED", "13")), setting("MEMORY", "1B")
CONCURRENCY = int(setting("CONCURRENCY", "1"))
NGINX, BIN, LABEL = tools()
SIMULATOR = [sys.executable, "scripts/simulate-cluster.py"]
check = Checks()
photos = photos_or_skip("evict check")

# --- the workload: Zipf over the sources (popularity independent of the photo), sizes by EVICT_MIX --------
rng = random.Random(SEED)
rank_of = list(range(SOURCES))
rng.shuffle(rank_of)
ranks = rng.choices(range(SOURCES), weights=[(r + 1) ** -ZIPF for r in range(SOURCES)], k=REQUESTS)
workload = [(rank_of[r], rng.choices(SIZES, weights=MIX)[0]) for r in ranks]

cluster = Cluster(NGINX, BIN, photos, SOURCES, node_options=(), prefix="cluster-evict-check.",
                  node_env={"THUMBCACHE_INLINE_TRIM": "1"})
sources, nodes, names = cluster.sources, cluster.nodes, cluster.names
requested = sorted({i for i, _ in workload})
share = sum(cluster.original_bytes(sources[i]) for i in requested) / len(nodes)
DISK = setting("DISK", f"{int(share / 3)}B")
# no memory-pressure watch: a memory cache shrunk by the machine's other load would not be the one modelled
cluster.node_options = ["--max-disk-size", DISK, "--variant-disk-size", "0", "--memory-cache-size", MEMORY, "--memory-pressure-file", ""]
print(f"workload: {REQUESTS} requests, Zipf s={ZIPF} over {SOURCES} sources ({len(requested)} requested), sizes {SIZES} "
      f"{':'.join(f'{m:g}' for m in MIX)}, seed {SEED}; a node's share of the requested originals {share / 1e6:.1f} MB, "
      f"--max-disk-size {DISK}, --memory-cache-size {MEMORY}, {CONCURRENCY} request(s) at a time per node ({LABEL})")
keep = os.environ.get("CLUSTER_KEEP") == "1"
try:
    check(cluster.start_origin(), f"origin on {cluster.origin_port}")
    check(all(cluster.start_node(n) for n in nodes), f"3 nodes on {', '.join(nodes)}")
    up, version = cluster.start_nginx()
    check(up, f"nginx ({version}) on {cluster.lb_port}")

    # --- the run: each node's requests in workload order, the nodes in parallel -----------------------------
    placed = subprocess.run(SIMULATOR + ["place", "--nodes", ",".join(nodes)], check=True, capture_output=True, text=True,
                            input="\n".join(cluster.encoded[s] for s in sources) + "\n").stdout
    node_of = dict(line.split("\t") for line in placed.splitlines())
    queues = collections.defaultdict(list)
    for i, size in workload:
        queues[node_of[cluster.encoded[sources[i]]]].append(cluster.signed(sources[i], size))
    results = {n: [] for n in nodes}
    pending = {n: iter(queues[n]) for n in nodes}
    lock = threading.Lock()

    def send(node):
        """Takes the node's next request until none is left; with EVICT_CONCURRENCY > 1 several of these share
        a node, so its requests start in order but may finish (and be logged) out of order."""
        client = cluster.client()
        while True:
            with lock:
                path = next(pending[node], None)
            if path is None:
                return
            answer = client.request("GET", path)[:2]  # (status, X-Thumbcache)
            with lock:
                results[node].append(answer)

    t0 = time.monotonic()
    threads = [threading.Thread(target=send, args=(n,)) for n in nodes for _ in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run_seconds = time.monotonic() - t0
    answers = collections.Counter(answer for node in nodes for answer in results[node])
    ok = sum(n for (status, _), n in answers.items() if status == 200)
    check(ok == REQUESTS, f"{ok} of {REQUESTS} requests answered 200 in {run_seconds:.1f} s "
          f"({', '.join(f'{s} {n}' for (_, s), n in sorted(answers.items(), key=str))})")

    # --- the caches at the end, with the nodes stopped ---------------------------------------------------------
    for node in nodes:
        cluster.stop(node)
    listings = {n: cluster.listing(n) for n in nodes}

    # --- the replay ---------------------------------------------------------------------------------------------
    # The metadata value (URL, the origin's headers, a part per thumbnail) is an input like the originals' sizes:
    # fitted from the caches (base + per thumbnail stored), so the model's entry bytes are the real ones.
    points = [(sum(1 for n in lengths[2:] if n), lengths[0]) for node in nodes for _, lengths in listings[node]]
    mean_k, mean_m = statistics.mean(k for k, _ in points), statistics.mean(m for _, m in points)
    spread = sum((k - mean_k) ** 2 for k, _ in points)
    per_thumb = round(sum((k - mean_k) * (m - mean_m) for k, m in points) / spread) if spread else 0
    metadata = (round(mean_m - per_thumb * mean_k), per_thumb)
    print(f"metadata value: {metadata[0]} bytes + {metadata[1]} per thumbnail stored (fitted over {len(points)} entries)")
    sizes_file = os.path.join(cluster.work, "originals.tsv")
    with open(sizes_file, "w") as out:
        out.writelines(f"{s}\t{cluster.original_bytes(s)}\n" for s in sources)

    def replay(*options):
        """The replay's figures (node, agree, total, real and model hit ratio and origin bytes) and its state file."""
        state = os.path.join(cluster.work, f"model-state{len(options)}.tsv")
        run = subprocess.run(SIMULATOR + ["replay", "--nodes", ",".join(nodes), "--budget", DISK, "--memory-cache", MEMORY,
                                          "--original-sizes", sizes_file, "--metadata-bytes", f"{metadata[0]},{metadata[1]}",
                                          "--dump-state", state, "--show", str(REQUESTS), *options, cluster.access_log],
                             capture_output=True, text=True)
        text = run.stdout
        differ = {int(m[1]) for m in re.finditer(r"^  request (\d+):", text, re.M)}
        shown = [line for line in text.splitlines() if not line.startswith("  request ")]
        shown += [line for line in text.splitlines() if line.startswith("  request ")][:10]
        print("\n".join(shown) + (f"\n  … {len(differ) - 10} more" if len(differ) > 10 else "") + run.stderr.rstrip())
        node = re.search(r"node: +(\d+)/(\d+)", text)
        outcome = re.search(r"hit/miss: (\d+)/(\d+) agree .*hit ratio real ([\d.]+)%, model ([\d.]+)%", text)
        origin = re.search(r"origin bytes: real ([\d,]+), model ([\d,]+)", text)
        if run.returncode or not (node and outcome and origin):
            return None, state
        return {"differ": differ, "node": int(node[1]), "agree": int(outcome[1]), "total": int(outcome[2]), "real_hits": float(outcome[3]),
                "model_hits": float(outcome[4]), "real_origin": int(origin[1].replace(",", "")),
                "model_origin": int(origin[2].replace(",", ""))}, state

    figures, state_file = replay()
    check(figures is not None and figures["node"] == figures["total"] == REQUESTS,
          "every request on the node the ketama model predicts")
    agree = figures["agree"] / figures["total"] if figures else 0
    with open(cluster.origin_log) as log:
        fetches = [int(line.split("\t")[1]) for line in log if "\t" in line]
    origin_bytes = sum(fetches)
    # The replay's "real" origin bytes come from X-Thumbcache (network = a fetch). One request at a time, the
    # origin's own log must agree; with several, requests that shared one download each say network.
    text = (f"the origin served {origin_bytes:,} bytes in {len(fetches)} fetches; the misses in the access log say "
            f"{figures['real_origin'] if figures else 0:,}")
    if CONCURRENCY == 1:
        check(figures is not None and origin_bytes == figures["real_origin"], text)
    else:
        print(text)
    # The nodes trim inside each commit, as the model does, so with one request at a time per node every hit and
    # miss is the model's. With concurrent requests a node's order is no longer the log's, and coalesced requests
    # for one new source are all misses: the disagreements are then measured, not checked.
    if CONCURRENCY == 1:
        check(figures is not None and figures["agree"] == REQUESTS,
              f"every hit and miss as modelled ({figures['agree'] if figures else '?'} of {REQUESTS}; "
              f"disagreeing requests: {sorted(figures['differ'])[:10] if figures else '?'})")

    # --- the caches against the model's ------------------------------------------------------------------------
    model = collections.defaultdict(list)
    with open(state_file) as f:
        for line in f:
            node, key, nbytes = line.rstrip("\n").split("\t")
            model[node].append((cluster.source_of[key], int(nbytes)))
    same_sets = same_order = 0
    byte_error = []
    for node in nodes:
        real = listings[node]
        real_sources, model_sources = [s for s, _ in real], [s for s, _ in model[node]]
        same_sets += set(real_sources) == set(model_sources)
        same_order += real_sources == model_sources
        modelled = dict(model[node])
        for source, lengths in real:
            if source in modelled:
                byte_error.append(sum(lengths) - modelled[source])
        only_real, only_model = set(real_sources) - set(model_sources), set(model_sources) - set(real_sources)
        print(f"{names[node]}: {len(real)} entries, {sum(sum(l) for _, l in real):,} bytes on disk; model {len(model[node])} entries, "
              f"{sum(modelled.values()):,} bytes; only on disk {len(only_real)}, only in the model {len(only_model)}")
    print(f"caches as modelled: {same_sets} of {len(nodes)} nodes hold the model's sources, {same_order} in its LRU order")
    if CONCURRENCY == 1:
        check(same_sets == len(nodes), f"each node's cache holds the sources the model holds ({same_sets} of {len(nodes)} nodes)")
        check(same_order == len(nodes), f"... in the model's LRU order ({same_order} of {len(nodes)} nodes)")
    by_thumbs = collections.defaultdict(list)
    for thumbs, nbytes in points:
        by_thumbs[thumbs].append(nbytes)
    print("metadata value (bytes) by thumbnails stored: " + "; ".join(
        f"{t}: mean {statistics.mean(v):.0f}, {min(v)}-{max(v)} ({len(v)} entries)" for t, v in sorted(by_thumbs.items())))
    if byte_error:
        print(f"entry bytes on disk minus modelled: mean {statistics.mean(byte_error):+.0f}, "
              f"{min(byte_error):+d} to {max(byte_error):+d} ({len(byte_error)} entries)")
    if figures:
        summary = (f"{REQUESTS} requests ({CONCURRENCY} at a time per node), {DISK} disk and {MEMORY} memory per node: node {figures['node']}/{REQUESTS}, "
                   f"hit/miss {figures['agree']}/{REQUESTS} ({agree:.1%}); hit ratio real {figures['real_hits']}%, "
                   f"model {figures['model_hits']}%; origin bytes real {origin_bytes:,} (the origin's log), model {figures['model_origin']:,} "
                   f"({figures['model_origin'] / max(1, origin_bytes) - 1:+.2%})")
        print("summary: " + summary)
finally:
    cluster.cleanup(keep=keep or check.failed > 0)

print(f"evict check: {check.passed} passed, {check.failed} failed ({check.elapsed():.0f} s)")
sys.exit(1 if check.failed else 0)
PY
