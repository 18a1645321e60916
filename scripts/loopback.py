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
