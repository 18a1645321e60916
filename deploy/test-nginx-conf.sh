#!/usr/bin/env bash
# Tests deploy/nginx-conf.sh with the real nginx: 3 tiny Python upstreams (each answers with its own name
# and logs what it got) and nginx from the generated config, all on 127.0.0.1. Checks that
#   1. every size, fit, format and signature of a source, and its purge, reach one upstream;
#   2. 300 distinct sources spread over all three (the split is printed), exactly as
#      scripts/simulate-cluster.py's ketama model predicts (nginx's placement, checked 300/300), and the
#      access log gives the same placement and replays through simulate-cluster.py replay;
#   3. with PROXY_CACHE=on, Accept is normalised into the cache key (avif|webp|other; "fixed" with a .format);
#   4. with one upstream killed, its sources go to the next node on the ring (as predicted) and no other
#      source moves; /healthz still answers; restarted, its sources come back to it.
# Loopback only, a bounded number of requests (about 1,250), 5-7 s. Needs nginx and python3.
# TEST_NODES=N TEST_SOURCES=M run the same checks with N upstreams and M sources.
# Ends with one line: "nginx-conf tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx_bin" ] || { echo "needs nginx: apt-get install -y nginx" >&2; exit 2; }
exec python3 - "$nginx_bin" <<'PY'
import base64, http.client, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, time

NGINX = sys.argv[1]
sys.path.insert(0, "scripts")
from loopback import free_ports, wait_for  # noqa: E402
# TEST_NODES / TEST_SOURCES widen the placement check for a one-off run (defaults 3 and 300).
NODE_COUNT = int(os.environ.get("TEST_NODES", "3"))
FAIL_TIMEOUT = 2  # seconds a failed upstream is skipped (short, so the restart check waits little)
SOURCE_COUNT = int(os.environ.get("TEST_SOURCES", "300"))
HOST = "127.0.0.1"
passed, failed = 0, 0

def check(ok, text):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {text} [{time.monotonic() - started:.1f}s]")
    else:
        failed += 1
        print(f"FAIL {text}")


UPSTREAM = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
name, port = sys.argv[1], int(sys.argv[2])
seen = []
connections = set()
stored = set()  # sources "cached" here: X-Thumbcache says network the first time, disk after
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid the 40 ms delayed-ACK stall
    def log_message(self, *args): pass
    def answer(self, body):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "public, max-age=300")
        self.send_header("Vary", "Accept")
        self.send_header("X-Accept-Seen", self.headers.get("Accept", ""))
        self.send_header("X-Upstream-Name", name)
        parts = self.path.split("/")
        if len(parts) == 5 and self.command in ("GET", "HEAD"):
            source = parts[4].split(".")[0]
            self.send_header("X-Thumbcache", "disk" if source in stored else "network")
            stored.add(source)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if self.path == "/__log":
            return self.answer(json.dumps({"requests": seen, "connections": len(connections)}))
        seen.append([self.command, self.path])
        connections.add(self.client_address)
        self.answer("ok" if self.path == "/healthz" else name)
    do_GET = do_HEAD = do_POST = handle_any
ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''

work = tempfile.mkdtemp(prefix="test-nginx-conf.")
os.chmod(work, 0o755)  # nginx workers started by root run as nobody and must reach the cache directory
started = time.monotonic()
children = {}

def start_upstream(name, port):
    children[name] = subprocess.Popen([sys.executable, "-c", UPSTREAM, name, str(port)])


def start_nginx(label, port, nodes, env):
    prefix = os.path.join(work, label)
    for d in ("logs", "tmp", "cache"):
        os.makedirs(os.path.join(prefix, d))
    env = dict(os.environ, LISTEN=f"{HOST}:{port}", WORKER_PROCESSES="2", CACHE_DIR=os.path.join(prefix, "cache"), **env)
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as out:
        subprocess.run(["deploy/nginx-conf.sh", *nodes], env=env, stdout=out, check=True)
    test = subprocess.run([NGINX, "-t", "-q", "-p", prefix, "-e", "logs/error.log", "-c", conf],
                          capture_output=True, text=True)
    check(test.returncode == 0, f"nginx -t accepts the generated config ({label}) {test.stderr.strip()}")
    children["nginx-" + label] = subprocess.Popen(
        [NGINX, "-p", prefix, "-e", "logs/error.log", "-c", conf, "-g", "daemon off;"])
    if not wait_for(port):
        sys.exit(f"nginx ({label}) did not start: see {prefix}/logs/error.log")

class Client:
    """One keep-alive connection; every request is bounded by a 60 s timeout (a hang guard: 5 s was a speed
    that a busy machine could miss)."""
    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)
    def request(self, method, path, headers=None):
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, headers=headers or {})
                r = self.conn.getresponse()
                return r.status, r.read().decode(), r
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
                if attempt:
                    raise

def upstream_log(port):
    status, body, _ = Client(port).request("GET", "/__log")
    return json.loads(body)  # {"requests": [[method, path], ...], "connections": count}

def source(i):
    url = f"https://origin.example/photos/{i:05d}.jpg"
    return base64.urlsafe_b64encode(url.encode()).rstrip(b"=").decode()

def predict(nodes, keys, down=()):
    args = ["scripts/simulate-cluster.py", "place", "--nodes", ",".join(nodes)]
    for d in down:
        args += ["--down", d]
    out = subprocess.run([sys.executable, *args], input="\n".join(keys) + "\n", capture_output=True, text=True, check=True)
    return dict(line.split("\t") for line in out.stdout.splitlines())

def generator_checks():
    bad = subprocess.run(["deploy/nginx-conf.sh", "127.0.0.1:8081", "a b"], capture_output=True, text=True)
    check(bad.returncode == 64 and "not HOST:PORT" in bad.stderr, "a malformed node is a usage error (exit 64)")
    prefix = os.path.join(work, "http-scope")
    os.makedirs(os.path.join(prefix, "logs"))
    with open(os.path.join(prefix, "thumbcache.conf"), "w") as out:
        subprocess.run(["deploy/nginx-conf.sh", "127.0.0.1:8081", "[::1]:8082", "unix:/run/thumbcache.sock"],
                       env=dict(os.environ, SCOPE="http", PROXY_CACHE="on", CACHE_DIR=os.path.join(prefix, "cache")),
                       stdout=out, check=True)
    with open(os.path.join(prefix, "nginx.conf"), "w") as out:  # how Debian's nginx.conf includes conf.d/
        out.write(f"pid nginx.pid; events {{}} http {{ include {prefix}/thumbcache.conf; }}\n")
    test = subprocess.run([NGINX, "-t", "-q", "-p", prefix, "-e", "logs/error.log", "-c", os.path.join(prefix, "nginx.conf")],
                          capture_output=True, text=True)
    check(test.returncode == 0, f"SCOPE=http with the cache, an IPv6 and a unix node passes nginx -t inside http {{}} {test.stderr.strip()}")

try:
    generator_checks()
    lb_port, cache_port, *up_ports = free_ports(2 + NODE_COUNT)
    names = [f"up{i + 1}" for i in range(NODE_COUNT)]
    nodes = [f"{HOST}:{p}" for p in up_ports]
    by_node = dict(zip(nodes, names))
    for name, port in zip(names, up_ports):
        start_upstream(name, port)
    for port in up_ports:
        assert wait_for(port), "an upstream did not start"
    start_nginx("plain", lb_port, nodes, {"ACCESS_LOG": "logs/access.log", "FAIL_TIMEOUT": f"{FAIL_TIMEOUT}s"})
    lb = Client(lb_port)

    # 1. All variants of a source, and its purge, reach one upstream.
    signature = base64.urlsafe_b64encode(random.Random(1).randbytes(32)).rstrip(b"=").decode()
    variant_sources = [source(90000 + i) for i in range(8)]
    owners = {}
    for src in variant_sources:
        got = set()
        for sig in ("unsafe", signature):
            for size in (64, 256, 1024):
                for fit in ("contain", "cover"):
                    for fmt in ("", ".jpeg", ".png", ".webp", ".avif"):
                        got.add(lb.request("GET", f"/{sig}/{size}/{fit}/{src}{fmt}")[1])
        got.add(lb.request("HEAD", f"/unsafe/256/contain/{src}.jpeg")[2].getheader("X-Upstream-Name"))
        # $uri is percent-decoded and slash-merged before the map sees it
        got.add(lb.request("GET", f"//unsafe//256/contain/%{ord(src[0]):02X}{src[1:]}")[1])
        got.add(lb.request("POST", f"/admin/purge/{src}", {"Authorization": "Bearer t", "Content-Length": "0"})[1])
        owners[src] = got.pop() if len(got) == 1 else None
    check(None not in owners.values(),
          f"{len(variant_sources)} sources x 63 requests (2 signatures, 3 sizes, 2 fits, 5 formats, HEAD, "
          f"%-encoded with //, purge): each source on one upstream "
          f"({', '.join(f'{n} {list(owners.values()).count(n)}' for n in names)})")
    logs = {by_node[n]: upstream_log(p) for n, p in zip(nodes, up_ports)}
    stray = sum(1 for name, log in logs.items() for method, path in log["requests"]
                for src in variant_sources if src in path and owners[src] != name)
    check(stray == 0, f"the upstreams' own logs agree: {stray} requests for those sources elsewhere")
    requests = sum(len(log["requests"]) for log in logs.values())
    connections = sum(log["connections"] for log in logs.values())
    check(connections * 10 <= requests, f"keep-alive to the upstreams: {requests} requests over {connections} connections")

    # 2. Distinct sources spread over all nodes, as ketama predicts.
    keys = [source(i) for i in range(SOURCE_COUNT)]
    observed = {k: lb.request("GET", f"/unsafe/256/contain/{k}")[1] for k in keys}
    split = {name: sum(1 for v in observed.values() if v == name) for name in names}
    check(all(split[name] > 0 for name in names) and sum(split.values()) == SOURCE_COUNT,
          f"{SOURCE_COUNT} sources over {NODE_COUNT} upstreams: " + ", ".join(f"{n} {split[n]}" for n in names))
    obs_file = os.path.join(work, "placement.tsv")
    with open(obs_file, "w") as out:
        for k, name in observed.items():
            out.write(f"{k}\t{name}\n")
    aliases = ",".join(f"{name}={node}" for name, node in zip(names, nodes))
    cmp = subprocess.run([sys.executable, "scripts/simulate-cluster.py", "check", "--nodes", aliases, obs_file],
                         capture_output=True, text=True)
    print("     " + cmp.stdout.strip().replace("\n", "\n     "))
    check(cmp.returncode == 0, f"nginx's placement of the {SOURCE_COUNT} sources matches scripts/simulate-cluster.py 100%")
    access_log = os.path.join(work, "plain", "logs", "access.log")
    cmp = subprocess.run([sys.executable, "scripts/simulate-cluster.py", "check", "--nodes", ",".join(nodes), access_log],
                         capture_output=True, text=True)
    print("     " + cmp.stdout.strip().replace("\n", "\n     "))
    check(cmp.returncode == 0, "the access log's key and node columns give the same placement (every request so far)")
    origin = os.path.join(work, "origin")  # the files the sources name, for the original sizes
    os.makedirs(os.path.join(origin, "photos"))
    for i in list(range(SOURCE_COUNT)) + list(range(90000, 90008)):
        with open(os.path.join(origin, "photos", f"{i:05d}.jpg"), "wb") as out:
            out.truncate(1000 + 37 * i % 5000)
    cmp = subprocess.run([sys.executable, "scripts/simulate-cluster.py", "replay", "--nodes", ",".join(nodes),
                          "--budget", "1GB", "--origin-root", origin, access_log], capture_output=True, text=True)
    print("     " + cmp.stdout.strip().replace("\n", "\n     ") + cmp.stderr.strip())
    check(cmp.returncode == 0 and cmp.stdout.count("(100.0%)") == 2,
          "replay of the access log: every request on the predicted node, every hit/miss as modelled")

    # 3. proxy_cache: Accept normalised into the key.
    start_nginx("cache", cache_port, nodes, {"PROXY_CACHE": "on"})
    cache = Client(cache_port)
    src = source(95000)
    def status(path, accept):
        _, _, r = cache.request("GET", path, {"Accept": accept})
        return r.getheader("X-Cache-Status"), r.getheader("X-Accept-Seen")
    neg = f"/unsafe/256/contain/{src}"
    fixed = f"/unsafe/256/contain/{src}.png"
    steps = [
        (neg, "image/webp,*/*", "MISS"),
        (neg, "image/webp,image/apng,image/*,*/*;q=0.8", "HIT"),      # another spelling, same class
        (neg, "image/avif,image/webp,*/*", "MISS"),
        (neg, "image/avif,image/webp,image/apng,*/*;q=0.8", "HIT"),
        (neg, "*/*", "MISS"),
        (neg, "text/html,*/*;q=0.8", "HIT"),                          # "other"
        (fixed, "image/avif,image/webp,*/*", "MISS"),
        (fixed, "*/*", "HIT"),                                        # a .format path does not negotiate
    ]
    results = [status(path, accept) for path, accept, _ in steps]
    check([r[0] for r in results] == [s[2] for s in steps],
          "proxy_cache keys on the Accept class: " + " ".join(r[0] or "-" for r in results))
    check(results[0][1] == "image/webp,image/*;q=0.8,*/*;q=0.5" and results[2][1].startswith("image/avif"),
          f"the node gets the class's canonical Accept ({results[0][1]!r})")
    children.pop("nginx-cache").send_signal(signal.SIGQUIT)

    # 4. Kill one upstream: its sources move to the next node on the ring, no other source moves.
    victim = max(names, key=lambda n: split[n])
    victim_node = nodes[names.index(victim)]
    children[victim].kill()
    children[victim].wait()
    after = {}
    errors = 0
    for k in keys:
        code, body, _ = lb.request("GET", f"/unsafe/256/contain/{k}")
        errors += code != 200
        after[k] = body
    moved_others = sum(1 for k in keys if observed[k] != victim and after[k] != observed[k])
    orphans = [k for k in keys if observed[k] == victim]
    check(errors == 0 and all(after[k] not in (victim, "") for k in orphans),
          f"{victim} killed: all {SOURCE_COUNT} requests succeed; its {len(orphans)} sources went to " +
          ", ".join(f"{n} {sum(1 for k in orphans if after[k] == n)}" for n in names if n != victim))
    check(moved_others == 0, f"sources of the live upstreams that moved: {moved_others} (of {SOURCE_COUNT - len(orphans)})")
    expected = predict(nodes, orphans, down=[victim_node])
    check(all(by_node[expected[k]] == after[k] for k in orphans),
          "each orphan went to the next live node on the ring, as the model with --down predicts")
    purge_to = lb.request("POST", f"/admin/purge/{orphans[0]}", {"Content-Length": "0"})[1]
    check(purge_to == after[orphans[0]], f"a purge of an orphan reaches the node now serving it ({purge_to})")
    code, body, _ = lb.request("GET", "/healthz")
    check(code == 200 and body == "ok", "/healthz passes through to a live node")

    # 5. Restarted, after FAIL_TIMEOUT its sources come back to it.
    start_upstream(victim, int(victim_node.rsplit(":", 1)[1]))
    assert wait_for(int(victim_node.rsplit(":", 1)[1]))
    # nginx skips a failed node while `now - checked <= fail_timeout` in whole seconds, so it comes back
    # between FAIL_TIMEOUT and FAIL_TIMEOUT + 1 s after its last failure (a fixed FAIL_TIMEOUT + 0.5 s sleep
    # raced that, and failed on a loaded CI machine). Probe with one orphan until it lands on the node; the
    # deadline only guards against a hang (5 s let a slow probe give up early on a busy machine).
    time.sleep(FAIL_TIMEOUT)
    deadline = time.monotonic() + 120
    while lb.request("GET", f"/unsafe/256/contain/{orphans[0]}")[1] != victim and time.monotonic() < deadline:
        time.sleep(0.2)
    back = sum(1 for k in orphans if lb.request("GET", f"/unsafe/256/contain/{k}")[1] == victim)
    check(back == len(orphans), f"{victim} restarted: after FAIL_TIMEOUT ({FAIL_TIMEOUT} s) {back} of its {len(orphans)} sources are back on it")
    check(lb.request("GET", "/metrics")[0] == 404, "/metrics is not served through the balancer")
finally:
    for name, child in children.items():
        if child.poll() is None:
            child.send_signal(signal.SIGQUIT if name.startswith("nginx") else signal.SIGTERM)
    for child in children.values():
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
    if failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work} (nginx logs under */logs)")

print(f"nginx-conf tests: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
