"""A thumbcache cluster on 127.0.0.1, shared by scripts/cluster-test.sh and scripts/cluster-evict-check.sh:
an origin (python's http.server) serving photos under synthetic source URLs, `thumbcache serve` nodes of this
tree, and nginx in front with the configuration deploy/nginx-conf.sh prints (ACCESS_LOG on). Loopback only;
every request is bounded by a timeout.

The binaries: BIN_DIR (a directory holding thumbcache and disklru, e.g. another worktree's .build/debug), else
.build/$CONFIG of this tree (CONFIG debug or release, default debug), built there if missing."""
import base64
import hashlib
import hmac
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from loopback import HOST, free_ports, wait_for

KEY, SALT, TOKEN = "6b6579" * 8, "73616c74", "cluster-test-token"


def tools():
    """(nginx, bin_dir, label): exits 2 without nginx, 64 on a bad CONFIG; builds this tree's binaries if missing."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(nginx, os.X_OK):
        print("needs nginx: apt-get install -y nginx", file=sys.stderr)
        sys.exit(2)
    if os.environ.get("BIN_DIR"):
        bin_dir = os.path.abspath(os.environ["BIN_DIR"])
        if not all(os.access(os.path.join(bin_dir, b), os.X_OK) for b in ("thumbcache", "disklru")):
            print(f"BIN_DIR={bin_dir} has no thumbcache and disklru", file=sys.stderr)
            sys.exit(2)
        return nginx, bin_dir, f"binaries of {bin_dir}"
    config = os.environ.get("CONFIG", "debug")
    if config not in ("debug", "release"):
        print("CONFIG must be debug or release", file=sys.stderr)
        sys.exit(64)
    bin_dir = os.path.join(os.getcwd(), ".build", config)
    for product in ("thumbcache", "disklru"):
        if not os.access(os.path.join(bin_dir, product), os.X_OK):
            subprocess.run(["swift", "build", "-c", config, "--product", product], stdout=sys.stderr, check=True)
    return nginx, bin_dir, f"{config} build"


def corpus_photos(max_bytes):
    """JPEG photos of 0.5 MP or more up to max_bytes from ../shared/corpus, else the committed fixtures; and a
    sentence saying which."""
    corpus = os.path.normpath(os.path.join(os.getcwd(), "..", "shared", "corpus"))
    photos = []
    if os.path.exists(os.path.join(corpus, "MANIFEST.tsv")):
        with open(os.path.join(corpus, "MANIFEST.tsv")) as manifest:
            next(manifest)
            for line in manifest:
                f = line.rstrip("\n").split("\t")
                if f[0].lower().endswith(".jpg") and f[7] == "decodes" and int(f[1]) <= max_bytes \
                        and int(f[2]) * int(f[3]) >= 500_000:
                    photos.append(os.path.join(corpus, f[0]))
        return photos, f"{len(photos)} corpus JPEG photos of 0.5 MP or more, up to {max_bytes} bytes ({corpus})"
    fixtures = "Tests/ImageDecodeTests/Fixtures"
    photos = [os.path.join(fixtures, n) for n in ("rocket.jpg", "testorig.jpg", "testimgint.jpg", "pil_sample_cmyk.jpg", "jpg-cmyk-2.jpg")
              if os.path.exists(os.path.join(fixtures, n))]
    return photos, f"the corpus is absent ({corpus}): {len(photos)} committed fixtures from {fixtures}"


def photos_or_skip(what):
    """corpus_photos(CLUSTER_MAX_PHOTO_BYTES, default 1000000), said; exits 0 ("skipped") with fewer than 3."""
    photos, description = corpus_photos(int(os.environ.get("CLUSTER_MAX_PHOTO_BYTES", "1000000")))
    print(f"photos: {description}")
    if len(photos) < 3:
        print(f"{what} skipped: fewer than 3 photos to serve (no corpus, no fixtures)")
        sys.exit(0)
    return photos


class Checks:
    """check(ok, text) prints "ok" or "FAIL", the text and the seconds since the start, and counts them."""

    def __init__(self):
        self.started = time.monotonic()
        self.passed = self.failed = 0

    def __call__(self, ok, text):
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)
        print(f"{'ok  ' if ok else 'FAIL'} {text} [{self.elapsed():.1f}s]", flush=True)

    def elapsed(self):
        return time.monotonic() - self.started


# python's http.server, one path per source: /p/<n>.jpg is photo n mod the number of photos. Each body sent
# is logged as "path<TAB>bytes" (what the origin really served, for the origin bytes of a run).
ORIGIN = r'''
import os, sys, threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
port, log_path, photos = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
log, lock = open(log_path, "a"), threading.Lock()
class Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def translate_path(self, path):
        name = path.split("?")[0].rsplit("/", 1)[-1]
        if path.startswith("/p/") and name.endswith(".jpg") and name[:-4].isdigit():
            return photos[int(name[:-4]) % len(photos)]
        return "/nonexistent"
    def end_headers(self):
        self.send_header("Cache-Control", "public, max-age=86400")
        super().end_headers()
    def do_GET(self):
        f = self.send_head()
        if f:
            try:
                self.copyfile(f, self.wfile)
                with lock:
                    log.write(f"{self.path}\t{os.fstat(f.fileno()).st_size}\n")
                    log.flush()
            finally:
                f.close()
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''


class Client:
    """One keep-alive connection; every request bounded by a 60 s timeout, retried once on a new connection."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)

    def request(self, method, path, headers={}):
        """(status, X-Thumbcache, seconds, body)."""
        for attempt in (1, 2):
            try:
                t0 = time.perf_counter()
                self.conn.request(method, path, headers=headers)
                r = self.conn.getresponse()
                body = r.read()
                return r.status, r.getheader("X-Thumbcache"), time.perf_counter() - t0, body
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
                if attempt == 2:
                    raise


class Cluster:
    """The origin, `node_count` nodes and nginx, in a temporary work directory. Start the parts with
    start_origin(), start_node() for each of nodes, start_nginx(); end with cleanup()."""

    def __init__(self, nginx, bin_dir, photos, source_count, node_count=3, node_options=("--max-disk-size", "4GB"),
                 fail_timeout=3, prefix="cluster-test.", node_env=None):
        self.nginx, self.photos, self.node_options, self.fail_timeout = nginx, photos, list(node_options), fail_timeout
        self.node_env = dict(os.environ, **(node_env or {}))
        self.thumbcache, self.inspect = os.path.join(bin_dir, "thumbcache"), os.path.join(bin_dir, "disklru")
        self.work = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.work, 0o755)  # nginx workers started by root run as nobody
        self.children = {}
        self.origin_port, self.lb_port, *node_ports = free_ports(2 + node_count)
        self.origin_log = os.path.join(self.work, "origin.log")
        self.sources = [f"http://{HOST}:{self.origin_port}/p/{i:05d}.jpg" for i in range(source_count)]
        self.key_of = {hashlib.sha256(s.encode()).hexdigest(): s for s in self.sources}  # a source's DiskLru key
        self.encoded = {s: base64.urlsafe_b64encode(s.encode()).decode().rstrip("=") for s in self.sources}
        self.source_of = {e: s for s, e in self.encoded.items()}
        self.nodes = [f"{HOST}:{p}" for p in node_ports]
        self.cache_dirs = {n: os.path.join(self.work, f"node{i + 1}") for i, n in enumerate(self.nodes)}
        self.names = {n: f"node{i + 1}" for i, n in enumerate(self.nodes)}
        self.prefix = os.path.join(self.work, "nginx")
        self.access_log = os.path.join(self.prefix, "logs", "access.log")

    def original_bytes(self, source):
        """The size of the photo the origin serves for `source`."""
        return os.path.getsize(self.photos[int(source.rsplit("/", 1)[-1][:-4]) % len(self.photos)])

    def start_origin(self):
        self.children["origin"] = subprocess.Popen([sys.executable, "-c", ORIGIN, str(self.origin_port), self.origin_log, *self.photos])
        return wait_for(self.origin_port)

    def start_node(self, node):
        log = open(os.path.join(self.work, self.names[node] + ".log"), "a")
        self.children[node] = subprocess.Popen(
            [self.thumbcache, "serve", "--host", HOST, "--port", node.rsplit(":", 1)[1], "--cache-dir", self.cache_dirs[node],
             *self.node_options, "--key", KEY, "--salt", SALT, "--admin-token", TOKEN,
             "--allow-loopback-sources", "--timeout", "60", "--queue", "256"],
            stdout=log, stderr=log, env=self.node_env)
        return wait_for(int(node.rsplit(":", 1)[1]))

    def start_nginx(self):
        """Whether nginx listens, with its version."""
        for d in ("logs", "tmp"):
            os.makedirs(os.path.join(self.prefix, d), exist_ok=True)
        conf = os.path.join(self.prefix, "nginx.conf")
        env = dict(os.environ, LISTEN=f"{HOST}:{self.lb_port}", WORKER_PROCESSES="2", ACCESS_LOG="logs/access.log",
                   FAIL_TIMEOUT=f"{self.fail_timeout}s", READ_TIMEOUT="90s")
        with open(conf, "w") as out:
            subprocess.run(["deploy/nginx-conf.sh", *self.nodes], env=env, stdout=out, check=True)
        self.children["nginx"] = subprocess.Popen(
            [self.nginx, "-p", self.prefix, "-e", "logs/error.log", "-c", conf, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        version = subprocess.run([self.nginx, "-v"], capture_output=True, text=True).stderr.strip()
        return wait_for(self.lb_port), version

    def stop(self, name, sig=signal.SIGTERM, wait=30):
        child = self.children.pop(name, None)
        if child is None:
            return
        if child.poll() is None:
            child.send_signal(sig)
        try:
            child.wait(wait)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()

    def cleanup(self, keep=False):
        # nginx first, with QUIT: a killed master leaves its workers running (holding ports and our stdout).
        self.stop("nginx", signal.SIGQUIT, 10)
        for name in list(self.children):
            self.stop(name, signal.SIGKILL, 5)
        if keep:
            print(f"kept {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)

    def client(self):
        return Client(self.lb_port)

    def signed(self, source, size):
        part = f"/{size}/contain/{self.encoded[source]}"
        mac = hmac.new(bytes.fromhex(KEY), bytes.fromhex(SALT) + part.encode(), hashlib.sha256).digest()
        return "/" + base64.urlsafe_b64encode(mac).decode().rstrip("=") + part

    def log_lines(self, offset):
        """Access log lines after byte `offset`, as dicts, and the new offset."""
        with open(self.access_log) as f:
            f.seek(offset)
            text = f.read()
            end = f.tell()
        rows = []
        for line in text.splitlines():
            c = line.split("\t")
            rows.append({"status": c[1], "method": c[2], "uri": c[3], "key": c[4], "upstream": c[5],
                         "upstream_status": c[6], "served": c[7], "time": float(c[9])})
        return rows, end

    def log_lines_until(self, offset, done, timeout=120.0):
        """`log_lines`, read again until `done(rows)` or `timeout` seconds: nginx writes a request's line after it
        has sent the response, so the client can be faster than the log. The timeout only guards against a hang
        (it returns as soon as `done`): a short one made a busy machine's late line a failed check."""
        deadline = time.monotonic() + timeout
        while True:
            rows, end = self.log_lines(offset)
            if done(rows) or time.monotonic() > deadline:
                return rows, end
            time.sleep(0.05)

    def listing(self, node):
        """`disklru list` of a stopped node's entries: [(source, [value lengths])], least recently used first."""
        listing = subprocess.run([self.inspect, "list", os.path.join(self.cache_dirs[node], "entries")],
                                 capture_output=True, text=True)
        if listing.returncode != 0:
            print(listing.stderr.strip())
        rows = []
        for line in listing.stdout.splitlines():
            words = line.split()
            if words and words[0] in self.key_of:
                rows.append((self.key_of[words[0]], [int(w) for w in words[1:-1]]))
        return rows

    def stored_sources(self, node):
        return {source for source, _ in self.listing(node)}
