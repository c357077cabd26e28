#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What rfm serve costs: its CPU time and the delay of its SSE stream.

    bench-serve.py --build BUILDDIR [--nodes N] [--vars N] [--clients N]
                   [--rate HZ] [--seconds S] [--silent N]

On a private shm: network: N nodes attached (default 256: the server and
255 handles this process opens through librfm), a layout of N f64
variables (default 1000) that the server watches, N page clients
(default 4) reading /api/events at HZ snapshots a second (default 10).
While it runs, this process changes one variable through librfm 10 times a
second and notes when the change arrives in each client's stream.
Prints the server's CPU time per second of wall time (a fraction of one
core: user + system from /proc) and the change-to-arrival delay, P50 and
P99 over every client. The targets: <= 0.05 of one core; P99 <=
150 ms at 10 Hz. Then it opens --silent SSE clients (default 1000, from
their own loopback addresses, 50 an address) that read their status line
and nothing more, and prints the server's CPU and resident memory with
them beside the same figures just before (the ratio is against that
baseline of this run). The numbers are what this machine measured in this
run; nothing is asserted.
"""
import argparse
import ctypes
import http.client
import json
import os
import resource
import socket
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time


def layout_text(nvars, window):
    lines = ["version: 1", "name: bench", f"window: {window}", "regions:",
             "  - name: v", "    offset: 0", f"    size: {8 * nvars}", "    writer: 1",
             "    variables:"]
    lines += [f"      - {{ name: x{i}, type: f64, offset: {8 * i}, min: 0, max: 1000000 }}"
              for i in range(nvars)]
    return "\n".join(lines) + "\n"


class Client(threading.Thread):
    """One page: reads snapshots, notes when each value of v.x0 first arrives."""

    def __init__(self, port, stop):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.arrivals = {}          # value -> monotonic time
        self.snapshots = 0

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/api/events")
        resp = conn.getresponse()
        while not self.stop.is_set():
            line = resp.readline()   # through the chunked coding
            if not line:
                break
            if line.startswith(b"data: "):
                now = time.monotonic()
                snap = json.loads(line[6:])
                self.snapshots += 1
                value = snap["vars"][0]["value"]
                self.arrivals.setdefault(value, now)
        conn.close()


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def silent_stream(port, source):
    """An /api/events client that reads its status line and then nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    got = b""
    while len(got) < 12:
        chunk = sock.recv(12 - len(got))
        if not chunk:
            sys.exit(f"bench-serve: a silent client from {source} was refused")
        got += chunk
    if got != b"HTTP/1.1 200":
        sys.exit(f"bench-serve: a silent client got {got!r}")
    return sock


def measure(pid, seconds):
    """(CPU fraction of one core, RSS KiB) of @pid over @seconds."""
    cpu0, wall0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0), rss_kib(pid)


def silent_phase(server, port, count, seconds):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, count + 1024)), hard))
    cpu0, rss0 = measure(server.pid, seconds)
    socks = [silent_stream(port, f"127.0.5.{1 + i // 50}") for i in range(count)]
    try:
        cpu1, rss1 = measure(server.pid, seconds)
        status = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        status.request("GET", "/metrics")
        answered = status.getresponse().status
        status.close()
    finally:
        for s in socks:
            s.close()
    print(f"  with {count} silent SSE clients (they never read), {seconds:.0f} s each:")
    print(f"    server CPU: {cpu0:.3f} -> {cpu1:.3f} of one core ({cpu1 / max(cpu0, 1e-6):.1f}x)")
    print(f"    server RSS: {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MiB ({rss1 / rss0:.2f}x, "
          f"{(rss1 - rss0) / count:.1f} KiB a client); /metrics then answered {answered}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--nodes", type=int, default=256)
    ap.add_argument("--vars", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--rate", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--silent", type=int, default=1000)
    args = ap.parse_args()

    lib = ctypes.CDLL(os.path.join(args.build, "src", ".libs", "librfm.so.1"))
    lib.rfm_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.rfm_mem_write.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p,
                                  ctypes.c_size_t]
    lib.rfm_close.argtypes = [ctypes.c_void_p]
    rfm = os.path.join(args.build, "tools", "rfm")
    name = f"benchserve-{os.getpid()}"
    window = 1 << 20
    uri = f"shm:{name}?size={window}"
    handles = []
    server = None
    work = tempfile.mkdtemp(prefix="bench-serve-")
    try:
        layout = os.path.join(work, "bench.yaml")
        with open(layout, "w") as f:
            f.write(layout_text(args.vars, window))
        # Node 1 writes the variables; nodes 2.. only attach; the server is node 0.
        for node in range(1, args.nodes):
            h = ctypes.c_void_p()
            if lib.rfm_open(f"{uri}&node={node}".encode(), ctypes.byref(h)):
                sys.exit(f"bench-serve: cannot open node {node}")
            handles.append(h)
        server = subprocess.Popen([rfm, "-u", f"{uri}&node=0", "serve", "--port", "0", "--json",
                                   "--layout", layout, "--rate", str(args.rate)],
                                  stdout=subprocess.PIPE, text=True)
        port = json.loads(server.stdout.readline())["port"]
        stop = threading.Event()
        clients = [Client(port, stop) for _ in range(args.clients)]
        for c in clients:
            c.start()
        deadline = time.monotonic() + 30
        while any(c.snapshots == 0 for c in clients):
            if time.monotonic() > deadline or not all(c.is_alive() for c in clients):
                sys.exit("bench-serve: a client got no snapshot")
            time.sleep(0.05)
        changes = {}
        cpu0, wall0 = cpu_seconds(server.pid), time.monotonic()
        value = 0.0
        while time.monotonic() - wall0 < args.seconds:
            value += 1
            changes[value] = time.monotonic()
            lib.rfm_mem_write(handles[0], 0, struct.pack("<d", value), 8)
            time.sleep(0.1)
        time.sleep(3 / args.rate)       # the last change reaches the clients
        cpu1, wall1 = cpu_seconds(server.pid), time.monotonic()
        stop.set()
        delays = [(c.arrivals[v] - t) * 1000 for c in clients for v, t in changes.items()
                  if v in c.arrivals]
        missing = len(changes) * len(clients) - len(delays)
        cpu = (cpu1 - cpu0) / (wall1 - wall0)
        print(f"rfm serve: {args.nodes} nodes, {args.vars} variables, {args.clients} SSE "
              f"clients at {args.rate} Hz, {wall1 - wall0:.1f} s")
        print(f"  server CPU: {cpu:.3f} of one core (target <= 0.05)")
        print(f"  change -> SSE client delay: P50 {percentile(delays, 50):.1f} ms, "
              f"P99 {percentile(delays, 99):.1f} ms (target P99 <= 150 ms), "
              f"{len(delays)} arrivals, {missing} not seen (changed again before the next snapshot)")
        if args.silent:
            silent_phase(server, port, args.silent, args.seconds)
    finally:
        if server and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        for h in handles:
            lib.rfm_close(h)
        subprocess.run([rfm, "-u", f"shm:{name}", "destroy", "--force"], capture_output=True)
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)


if __name__ == "__main__":
    main()
