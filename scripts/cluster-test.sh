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
# tree to run; built here if missing), CLUSTER_CONCURRENCY (8, warm), CLUSTER_MAX_PHOTO_BYTES (1000000:
# corpus JPEGs up to this size), CLUSTER_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx_bin" ] || { echo "needs nginx: apt-get install -y nginx" >&2; exit 2; }
config=${CONFIG:-debug}
case "$config" in debug|release) ;; *) echo "CONFIG must be debug or release" >&2; exit 64 ;; esac
bin=$PWD/.build/$config
if [ ! -x "$bin/thumbcache" ] || [ ! -x "$bin/disklru" ]; then
  swift build -c "$config" --product thumbcache >&2
  swift build -c "$config" --product disklru >&2
fi
exec python3 - "$nginx_bin" "$bin" "$config" <<'PY'
import base64, hashlib, http.client, json, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

NGINX, BIN, CONFIG = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, "scripts")
from loopback import free_ports, wait_for  # noqa: E402
THUMBCACHE, INSPECT = os.path.join(BIN, "thumbcache"), os.path.join(BIN, "disklru")
HOST = "127.0.0.1"
SOURCES = int(os.environ.get("CLUSTER_SOURCES", "500"))
SIZES = [int(s) for s in os.environ.get("CLUSTER_SIZES", "256,64").split(",")]
CONCURRENCY = os.environ.get("CLUSTER_CONCURRENCY", "8")
MAX_PHOTO_BYTES = int(os.environ.get("CLUSTER_MAX_PHOTO_BYTES", "1000000"))
FAIL_TIMEOUT = 3  # seconds nginx skips a failed node (short, so that the restart check waits little)
KEY, SALT, TOKEN = "6b6579" * 8, "73616c74", "cluster-test-token"
started = time.monotonic()
passed, failed = 0, 0
summary = []  # (what, figure) rows of the final table

def check(ok, text):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(f"{'ok  ' if ok else 'FAIL'} {text} [{time.monotonic() - started:.1f}s]", flush=True)


# --- the photos -----------------------------------------------------------------------------------------
corpus = os.path.normpath(os.path.join(os.getcwd(), "..", "shared", "corpus"))
photos = []
if os.path.exists(os.path.join(corpus, "MANIFEST.tsv")):
    with open(os.path.join(corpus, "MANIFEST.tsv")) as manifest:
        next(manifest)
        for line in manifest:
            f = line.rstrip("\n").split("\t")
            if f[0].lower().endswith(".jpg") and f[7] == "decodes" and int(f[1]) <= MAX_PHOTO_BYTES \
                    and int(f[2]) * int(f[3]) >= 500_000:
                photos.append(os.path.join(corpus, f[0]))
    origin_of_photos = f"{len(photos)} corpus JPEG photos of 0.5 MP or more, up to {MAX_PHOTO_BYTES} bytes ({corpus})"
else:
    fixtures = "Tests/ImageDecodeTests/Fixtures"
    photos = [os.path.join(fixtures, n) for n in ("rocket.jpg", "testorig.jpg", "testimgint.jpg", "pil_sample_cmyk.jpg", "jpg-cmyk-2.jpg")
              if os.path.exists(os.path.join(fixtures, n))]
    origin_of_photos = f"the corpus is absent ({corpus}): {len(photos)} committed fixtures from {fixtures}"
print(f"photos: {origin_of_photos}")
if len(photos) < 3:
    print("cluster test skipped: fewer than 3 photos to serve (no corpus, no fixtures)")
    sys.exit(0)

work = tempfile.mkdtemp(prefix="cluster-test.")
os.chmod(work, 0o755)  # nginx workers started by root run as nobody
children = {}

def stop(name, sig=signal.SIGTERM, wait=30):
    child = children.pop(name, None)
    if child is None:
        return
    if child.poll() is None:
        child.send_signal(sig)
    try:
        child.wait(wait)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()

def cleanup():
    # nginx first, with QUIT: a killed master leaves its workers running (holding ports and our stdout).
    stop("nginx", signal.SIGQUIT, 10)
    for name in list(children):
        stop(name, signal.SIGKILL, 5)
    if os.environ.get("CLUSTER_KEEP") != "1":
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}")

try:
    origin_port, lb_port, *node_ports = free_ports(5)

    # --- the origin: python's http.server, one path per source, each a corpus photo ----------------------
    ORIGIN = r'''
import os, sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
photos, port = sys.argv[2:], int(sys.argv[1])
class Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def translate_path(self, path):  # /p/<n>.jpg is photo n mod the number of photos
        name = path.split("?")[0].rsplit("/", 1)[-1]
        if path.startswith("/p/") and name.endswith(".jpg") and name[:-4].isdigit():
            return photos[int(name[:-4]) % len(photos)]
        return "/nonexistent"
    def end_headers(self):
        self.send_header("Cache-Control", "public, max-age=86400")
        super().end_headers()
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''
    children["origin"] = subprocess.Popen([sys.executable, "-c", ORIGIN, str(origin_port), *photos])
    check(wait_for(origin_port, 30), f"origin (python http.server) on {HOST}:{origin_port}")
    sources = [f"http://{HOST}:{origin_port}/p/{i:05d}.jpg" for i in range(SOURCES)]
    key_of = {hashlib.sha256(s.encode()).hexdigest(): s for s in sources}  # a source's DiskLru key
    encoded = {s: base64.urlsafe_b64encode(s.encode()).decode().rstrip("=") for s in sources}
    source_of = {e: s for s, e in encoded.items()}

    # --- three nodes ------------------------------------------------------------------------------------
    nodes = [f"{HOST}:{p}" for p in node_ports]
    cache_dirs = {n: os.path.join(work, f"node{i + 1}") for i, n in enumerate(nodes)}
    names = {n: f"node{i + 1}" for i, n in enumerate(nodes)}

    def start_node(node):
        log = open(os.path.join(work, names[node] + ".log"), "a")
        children[node] = subprocess.Popen(
            [THUMBCACHE, "serve", "--host", HOST, "--port", node.rsplit(":", 1)[1], "--cache-dir", cache_dirs[node],
             "--max-disk-size", "4GB", "--key", KEY, "--salt", SALT, "--admin-token", TOKEN,
             "--allow-loopback-sources", "--timeout", "60", "--queue", "256"],
            stdout=log, stderr=log)
        return wait_for(int(node.rsplit(":", 1)[1]), 60)

    check(all(start_node(n) for n in nodes), f"3 thumbcache serve nodes ({CONFIG} build) on {', '.join(nodes)}")

    # --- nginx from deploy/nginx-conf.sh ---------------------------------------------------------------
    prefix = os.path.join(work, "nginx")
    for d in ("logs", "tmp"):
        os.makedirs(os.path.join(prefix, d))
    access_log = os.path.join(prefix, "logs", "access.log")
    conf = os.path.join(prefix, "nginx.conf")
    env = dict(os.environ, LISTEN=f"{HOST}:{lb_port}", WORKER_PROCESSES="2", ACCESS_LOG="logs/access.log",
               FAIL_TIMEOUT=f"{FAIL_TIMEOUT}s", READ_TIMEOUT="90s")
    with open(conf, "w") as out:
        subprocess.run(["deploy/nginx-conf.sh", *nodes], env=env, stdout=out, check=True)
    children["nginx"] = subprocess.Popen([NGINX, "-p", prefix, "-e", "logs/error.log", "-c", conf, "-g", "daemon off;"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    check(wait_for(lb_port, 30), f"nginx ({subprocess.run([NGINX, '-v'], capture_output=True, text=True).stderr.strip()}) on {HOST}:{lb_port}")

    def log_lines(offset):
        """Access log lines after byte `offset`, as dicts, and the new offset."""
        with open(access_log) as f:
            f.seek(offset)
            text = f.read()
            end = f.tell()
        rows = []
        for line in text.splitlines():
            c = line.split("\t")
            rows.append({"status": c[1], "method": c[2], "uri": c[3], "key": c[4], "upstream": c[5],
                         "upstream_status": c[6], "served": c[7], "time": float(c[9])})
        return rows, end

    def signed(source, size):
        import hmac
        part = f"/{size}/contain/{encoded[source]}"
        mac = hmac.new(bytes.fromhex(KEY), bytes.fromhex(SALT) + part.encode(), hashlib.sha256).digest()
        return "/" + base64.urlsafe_b64encode(mac).decode().rstrip("=") + part

    class Client:
        """One keep-alive connection to nginx; every request bounded by a 60 s timeout."""
        def __init__(self):
            self.conn = http.client.HTTPConnection(HOST, lb_port, timeout=60)
        def request(self, method, path, headers={}):
            for attempt in (1, 2):
                try:
                    t0 = time.perf_counter()
                    self.conn.request(method, path, headers=headers)
                    r = self.conn.getresponse()
                    body = r.read()
                    return r.status, r.getheader("X-Thumbcache"), time.perf_counter() - t0, body
                except (http.client.HTTPException, OSError):
                    self.conn.close()
                    self.conn = http.client.HTTPConnection(HOST, lb_port, timeout=60)
                    if attempt == 2:
                        raise

    # --- 1. warm through nginx ----------------------------------------------------------------------------
    urls_file, report_file = os.path.join(work, "urls.txt"), os.path.join(work, "warm.json")
    with open(urls_file, "w") as f:
        f.write("\n".join(sources) + "\n")
    t0 = time.monotonic()
    warm = subprocess.run([THUMBCACHE, "warm", urls_file, "--server", f"http://{HOST}:{lb_port}",
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
    def stored_sources(node):
        listing = subprocess.run([INSPECT, "list", os.path.join(cache_dirs[node], "entries")], capture_output=True, text=True)
        if listing.returncode != 0:
            print(listing.stderr.strip())
        words = {w for line in listing.stdout.splitlines() for w in line.split()}
        return {key_of[w] for w in words if w in key_of}

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
    client = Client()
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
    children.pop(victim).kill()
    children_victim_wait = time.monotonic()
    t0 = time.monotonic()
    answers = {s: client.request("GET", signed(s, size)) for s in sources}
    rows, offset = log_lines(offset)
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
    time.sleep(FAIL_TIMEOUT + 1)  # nginx tries a failed node again once FAIL_TIMEOUT has passed
    # Each nginx worker keeps its own failure state and lets the node back with its first request after
    # FAIL_TIMEOUT, so a request or two of the first round may still go to the next node: the second round counts.
    first = {s: client.request("GET", signed(s, size)) for s in orphans}
    rows, offset = log_lines(offset)
    early = sum(1 for row in rows if source_of.get(row["key"]) in first and row["upstream"] == victim and row["served"] in ("memory", "disk"))
    print(f"first round after the restart: {early} of {len(orphans)} on {names[victim]} as hits")
    answers = {s: client.request("GET", signed(s, size)) for s in orphans}
    rows, offset = log_lines(offset)
    back = sum(1 for row in rows if source_of.get(row["key"]) in answers and row["upstream"] == victim
               and row["served"] in ("memory", "disk"))
    check(back == len(orphans), f"after FAIL_TIMEOUT ({FAIL_TIMEOUT} s), {back} of its {len(orphans)} sources are hits on it again")
    summary.append((f"{names[victim]} restarted", f"{back}/{len(orphans)} of its sources hits on it (nothing lost on its disk)"))

    # --- 7. purge through nginx ------------------------------------------------------------------------------
    target = others[0]
    status, _, _, body = client.request("POST", f"/admin/purge/{encoded[target]}", {"Authorization": f"Bearer {TOKEN}"})
    rows, offset = log_lines(offset)
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
    cleanup()

total = time.monotonic() - started
print()
print(f"cluster test summary ({time.strftime('%Y-%m-%d %H:%M')} UTC, {CONFIG} build, {SOURCES} sources, {len(photos)} photos, {total:.0f} s)")
width = max((len(w) for w, _ in summary), default=10)
for what, figure in summary:
    print(f"  {what.ljust(width)}  {figure}")
print(f"cluster tests: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
