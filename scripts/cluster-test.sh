#!/usr/bin/env bash
# A 3-node cluster on 127.0.0.1: three `thumbcache serve` nodes of this tree, nginx in front with the
# configuration printed by deploy/nginx-conf.sh (ACCESS_LOG on), and an origin (python3 http.server) that
# serves the corpus's JPEG photos (../shared/corpus; without it the committed test fixtures) under N distinct
# source URLs. Checks, in order:
#   1. `thumbcache warm --server` through nginx fills the cluster (N sources at 2 sizes, no failure);
#   2. nginx's placement matches scripts/simulate-cluster.py's ketama model for every logged request;
#   3. after the nodes are stopped, each node's cache (`disklru list`, the DiskLru inspector) holds exactly the sources nginx
#      sent it: every source on exactly one node (the split is printed);
#   4. hits through nginx: p50/p99 latency of one request per source (keep-alive, sequential);
#   5. kill -9 of one node: all its sources still answer 200 (from the next node on the ring), every other
#      source is a hit on its owner;
#   6. the node restarted on the same cache: after FAIL_TIMEOUT its own sources are hits on it again;
#   7. POST /admin/purge/<source> through nginx removes the source from its owner's cache only.
# Loopback only; about 3 requests per source plus the warm (2 per source). Prints a summary table and ends
# with "cluster tests: N passed, N failed".
#
# Environment: CLUSTER_SOURCES (500), CLUSTER_SIZES (256,64), CONFIG (debug or release: which build of this
# tree to run; built here if missing) or BIN_DIR (a directory with thumbcache and disklru built elsewhere),
# CLUSTER_CONCURRENCY (8, warm), CLUSTER_MAX_PHOTO_BYTES (1000000: corpus JPEGs up to this size),
# CLUSTER_KEEP=1 keeps the work directory (kept after a failure too). The cluster itself is scripts/cluster.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - <<'PY'
import json, os, subprocess, sys, time

sys.path.insert(0, "scripts")
from cluster import HOST, TOKEN, KEY, SALT, Checks, Cluster, photos_or_skip, tools  # noqa: E402
NGINX, BIN, CONFIG = tools()
SOURCES = int(os.environ.get("CLUSTER_SOURCES", "500"))
SIZES = [int(s) for s in os.environ.get("CLUSTER_SIZES", "256,64").split(",")]
CONCURRENCY = os.environ.get("CLUSTER_CONCURRENCY", "8")
FAIL_TIMEOUT = 3  # seconds nginx skips a failed node (short, so that the restart check waits little)
summary = []  # (what, figure) rows of the final table
check = Checks()
photos = photos_or_skip("cluster test")

cluster = Cluster(NGINX, BIN, photos, SOURCES, fail_timeout=FAIL_TIMEOUT)
sources, encoded, source_of, nodes, names = cluster.sources, cluster.encoded, cluster.source_of, cluster.nodes, cluster.names
access_log, lb_port, stop, signed, log_lines = cluster.access_log, cluster.lb_port, cluster.stop, cluster.signed, cluster.log_lines
work, stored_sources, start_node = cluster.work, cluster.stored_sources, cluster.start_node
try:
    check(cluster.start_origin(), f"origin (python http.server) on {HOST}:{cluster.origin_port}")
    check(all(start_node(n) for n in nodes), f"3 thumbcache serve nodes ({CONFIG}) on {', '.join(nodes)}")
    up, version = cluster.start_nginx()
    check(up, f"nginx ({version}) on {HOST}:{lb_port}")

    # --- 1. warm through nginx ----------------------------------------------------------------------------
    urls_file, report_file = os.path.join(work, "urls.txt"), os.path.join(work, "warm.json")
    with open(urls_file, "w") as f:
        f.write("\n".join(sources) + "\n")
    t0 = time.monotonic()
    warm = subprocess.run([cluster.thumbcache, "warm", urls_file, "--server", f"http://{HOST}:{lb_port}",
                           "--sizes", ",".join(map(str, SIZES)), "--concurrency", CONCURRENCY, "--key", KEY, "--salt", SALT,
                           "--json", report_file, "--progress-interval", "15"], capture_output=True, text=True)
    warm_seconds = time.monotonic() - t0
    report = json.load(open(report_file))
    print(warm.stderr.strip())
    check(warm.returncode == 0 and report["fetched"] == SOURCES and report["failedCount"] == 0,
          f"warm --server through nginx: {report['fetched']} of {SOURCES} sources fetched at sizes {SIZES}, "
          f"{report['failedCount']} failed, {warm_seconds:.1f} s")
    summary.append(("warm through nginx", f"{SOURCES} sources x {len(SIZES)} sizes in {warm_seconds:.1f} s "
                    f"({SOURCES / warm_seconds:.1f} sources/s, concurrency {CONCURRENCY})"))
    rows, offset = log_lines(0)
    owner = {}
    for row in rows:
        source = source_of.get(row["key"])
        if source is not None and row["status"] == "200":
            owner.setdefault(source, set()).add(row["upstream"])
    check(len(owner) == SOURCES and all(len(o) == 1 for o in owner.values()),
          "the access log: every size of every source went to one node")
    owner = {s: next(iter(o)) for s, o in owner.items()}

    # --- 2. the ketama model ------------------------------------------------------------------------------
    model = subprocess.run([sys.executable, "scripts/simulate-cluster.py", "check", "--nodes", ",".join(nodes), access_log],
                           capture_output=True, text=True)
    print(model.stdout.strip() or model.stderr.strip())
    check(model.returncode == 0, "simulate-cluster.py check on nginx's access log: placement matches the model 100%")
    summary.append(("placement vs simulate-cluster.py", (model.stdout.strip().splitlines() or ["?"])[-1]))

    # --- 3. each node's cache, read with the node stopped ---------------------------------------------------
    for node in nodes:
        stop(node)
    held = {n: stored_sources(n) for n in nodes}
    counts = {}
    for n in nodes:
        for s in held[n]:
            counts[s] = counts.get(s, 0) + 1
    check(len(counts) == SOURCES and set(counts.values()) == {1},
          f"every source is stored on exactly one node ({sum(1 for c in counts.values() if c == 1)} of {SOURCES}; "
          f"{sum(1 for c in counts.values() if c > 1)} on several)")
    check(all(held[n] == {s for s, o in owner.items() if o == n} for n in nodes),
          "each node holds exactly the sources nginx sent it")
    split = ", ".join(f"{names[n]} {len(held[n])} ({100 * len(held[n]) / SOURCES:.1f}%)" for n in nodes)
    print(f"split: {split}")
    summary.append(("sources per node (from each cache)", split))
    check(all(start_node(n) for n in nodes), "the nodes restarted on their caches")

    # --- 4. hit latency through nginx ---------------------------------------------------------------------
    client = cluster.client()
    size = SIZES[0]
    # One request per source; the first round after the restart reads each node's disk, the second its memory.
    for label in ("disk", "memory"):
        answers = [client.request("GET", signed(s, size)) for s in sources]
        times = sorted(a[2] * 1000 for a in answers)
        hits = sum(1 for a in answers if a[0] == 200 and a[1] in ("memory", "disk"))
        check(hits == SOURCES, f"hits through nginx after the restart ({label} round): {hits} of {SOURCES}")
        p50, p99 = times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]
        summary.append((f"hit latency through nginx, {label} round (ms)",
                        f"p50 {p50:.2f}, p99 {p99:.2f}, max {times[-1]:.2f} ({SOURCES} sequential GETs of {size} px, keep-alive)"))
    _, offset = log_lines(offset)

    # --- 5. kill -9 one node --------------------------------------------------------------------------------
    victim = max(nodes, key=lambda n: len(held[n]))
    orphans = [s for s in sources if owner[s] == victim]
    others = [s for s in sources if owner[s] != victim]
    cluster.children.pop(victim).kill()
    t0 = time.monotonic()
    answers = {s: client.request("GET", signed(s, size)) for s in sources}
    rows, offset = cluster.log_lines_until(offset, lambda rows: len(rows) >= len(sources))
    ok_orphans = sum(1 for s in orphans if answers[s][0] == 200)
    check(ok_orphans == len(orphans), f"{names[victim]} killed (-9): {ok_orphans} of its {len(orphans)} sources still answer 200")
    served_by = {}
    for row in rows:
        s = source_of.get(row["key"])
        if s is not None:
            served_by[s] = row["upstream"].split(", ")[-1]
    model_down = subprocess.run([sys.executable, "scripts/simulate-cluster.py", "place", "--nodes", ",".join(nodes), "--down", victim],
                                input="\n".join(encoded[s] for s in orphans) + "\n", capture_output=True, text=True)
    predicted = dict(line.split("\t")[:2] for line in model_down.stdout.splitlines() if "\t" in line)
    moved_as_predicted = sum(1 for s in orphans if predicted.get(encoded[s]) == served_by.get(s))
    check(moved_as_predicted == len(orphans),
          f"each of them went to the next node on the ring, as the model predicts ({moved_as_predicted} of {len(orphans)})")
    other_hits = sum(1 for s in others if answers[s][0] == 200 and answers[s][1] in ("memory", "disk") and served_by.get(s) == owner[s])
    check(other_hits == len(others), f"the other nodes' sources are hits on their owners: {other_hits} of {len(others)}")
    summary.append((f"{names[victim]} killed: its sources", f"{ok_orphans}/{len(orphans)} answered 200 from the next node "
                    f"({moved_as_predicted} where the model said)"))
    summary.append((f"{names[victim]} killed: others' hit ratio", f"{100 * other_hits / max(1, len(others)):.1f}% ({other_hits}/{len(others)})"))

    # --- 6. restart it ---------------------------------------------------------------------------------------
    check(start_node(victim), f"{names[victim]} restarted on its cache directory")
    # nginx lets a failed node back with the first request after `now - checked > fail_timeout` in whole
    # seconds (up to FAIL_TIMEOUT + 1 s after its last failure): probe with one of its sources until that
    # request lands on it (bounded), then a request or two of the first round may still meet a stale
    # keep-alive connection to the killed process: the second round counts.
    # The deadline only guards against a hang: the probing ends when a probe lands on the node, however busy
    # the machine (a short one let a slow probe give up early, and the rounds below met the stale connections).
    time.sleep(FAIL_TIMEOUT)
    deadline = time.monotonic() + 120
    # One request at a time, and each read waits for the lines of exactly the requests just sent (nginx writes
    # a line after its answer): a late line would otherwise be counted in the next round.
    while time.monotonic() < deadline:
        client.request("GET", signed(orphans[0], size))
        rows, offset = cluster.log_lines_until(offset, lambda rows: len(rows) >= 1)
        if rows and rows[-1]["upstream"].split(", ")[-1] == victim:
            break
        time.sleep(0.25)
    first = {s: client.request("GET", signed(s, size)) for s in orphans}
    rows, offset = cluster.log_lines_until(offset, lambda rows: len(rows) >= len(orphans))
    early = sum(1 for row in rows if source_of.get(row["key"]) in first and row["upstream"] == victim and row["served"] in ("memory", "disk"))
    print(f"first round after the restart: {early} of {len(orphans)} on {names[victim]} as hits")
    answers = {s: client.request("GET", signed(s, size)) for s in orphans}
    rows, offset = cluster.log_lines_until(offset, lambda rows: len(rows) >= len(orphans))
    back = sum(1 for row in rows if source_of.get(row["key"]) in answers and row["upstream"].split(", ")[-1] == victim
               and row["served"] in ("memory", "disk"))
    check(back == len(orphans), f"after FAIL_TIMEOUT ({FAIL_TIMEOUT} s), {back} of its {len(orphans)} sources are hits on it again")
    summary.append((f"{names[victim]} restarted", f"{back}/{len(orphans)} of its sources hits on it (nothing lost on its disk)"))

    # --- 7. purge through nginx ------------------------------------------------------------------------------
    target = others[0]
    status, _, _, body = client.request("POST", f"/admin/purge/{encoded[target]}", {"Authorization": f"Bearer {TOKEN}"})
    rows, offset = cluster.log_lines_until(offset, lambda rows: any(row["method"] == "POST" for row in rows))
    rows = [row for row in rows if row["method"] == "POST"]
    check(status == 200 and rows and rows[-1]["upstream"] == owner[target],
          f"POST /admin/purge through nginx: {status} from {names.get(rows[-1]['upstream'] if rows else '', '?')} "
          f"(owner {names[owner[target]]}) {body[:80]!r}")
    for node in nodes:
        stop(node)
    after = {n: stored_sources(n) for n in nodes}
    check(target not in after[owner[target]] and all(target not in after[n] for n in nodes),
          "the purged source is in no node's cache afterwards")
    check(all(s in after[owner[s]] for s in sources if s != target),
          "every other source is still in its owner's cache")
    summary.append(("purge through nginx", f"removed from {names[owner[target]]}, in no cache afterwards"))
finally:
    cluster.cleanup(keep=os.environ.get("CLUSTER_KEEP") == "1" or check.failed > 0)

total = check.elapsed()
print()
print(f"cluster test summary ({time.strftime('%Y-%m-%d %H:%M')} UTC, {CONFIG}, {SOURCES} sources, {len(photos)} photos, {total:.0f} s)")
width = max((len(w) for w, _ in summary), default=10)
for what, figure in summary:
    print(f"  {what.ljust(width)}  {figure}")
print(f"cluster tests: {check.passed} passed, {check.failed} failed")
sys.exit(1 if check.failed else 0)
PY
