"""Ports and readiness on 127.0.0.1 for the scripts that start servers (deploy/test-nginx-conf.sh,
scripts/cluster-test.sh): loopback only."""
import socket
import time

HOST = "127.0.0.1"


def free_ports(n):
    """n ports that are free on 127.0.0.1 now (bound together, so they differ)."""
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind((HOST, 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def wait_for(port, deadline=120.0):
    """Whether something accepts connections on 127.0.0.1:port within `deadline` seconds. It returns as soon as
    one does: the deadline only guards against a hang, so it is generous (5 s failed on a busy machine)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def start_serve(binary, args, deadline=60.0):
    """`thumbcache serve --port 0 ARGS` on 127.0.0.1: (process, base URL) once it says where it listens. Its stderr
    is drained from then on. Raises RuntimeError if it exits (a refused configuration) or never says so."""
    import re
    import subprocess
    import threading
    proc = subprocess.Popen([binary, "serve", "--port", "0", *args], stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        line = proc.stderr.readline()
        found = re.search(r"serving on (http://[^\s]+)", line or "")
        if found:
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, found.group(1)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError(f"serve did not start: {binary} serve {' '.join(args)}")


def fetch(base, path, headers=None, timeout=60):
    """(status, headers, body) of a GET, error statuses included."""
    import urllib.error
    import urllib.request
    request = urllib.request.Request(base + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
