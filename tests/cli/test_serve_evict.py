# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm serve that one local process cannot silence.

The server binds 127.0.0.1 by default, so every browser and scraper on the
host shares one client address with any local process. When an address is
at its connection limit (--max-per-address), a new connection pushes out
that address's oldest connection that has not sent a complete request (a
slow head, an idle keep-alive, a body trickling in) or a stream that has
not read for seconds, instead of being refused; one address holds at most
half its limit in event streams, so requests always find room. Here the
attacker and the probe share 127.0.0.1, then use different addresses.

A probe is answered within PROBE_S or it counts as silenced (on a server
without eviction the probe is reset at once, long before that)."""
import http.client
import json
import socket
import time

import pytest

from serve_helpers import NOT_BUILT, parse_metrics, sample, serve  # noqa: F401
from test_serve_load import many_files, slow_head, stream_or_refused  # noqa: F401

pytestmark = NOT_BUILT

PROBE_S = 1.0
PROBES = 5


def probe(port, path="/api/nodes"):
    """The status of a GET by a new client from 127.0.0.1, or the error that ended it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_S)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return resp.status
    except (OSError, http.client.HTTPException) as e:
        return type(e).__name__
    finally:
        conn.close()


def probes(port):
    got = []
    for _ in range(PROBES):
        got.append(probe(port))
        got.append(probe(port, "/metrics"))
    return got


def evictions(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        fams = parse_metrics(conn.getresponse().read().decode())
    finally:
        conn.close()
    return {labels["reason"]: value
            for labels, value in fams["rfm_serve_evictions_total"]["samples"]}


def small_silent_stream(port):
    """A stream that never reads, with a small receive buffer (the client's
    choice): the server's sends to it stop in seconds."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    assert sock.recv(12) == b"HTTP/1.1 200"
    return sock


def close_all(socks):
    for sock in socks:
        if sock:
            sock.close()


@pytest.mark.parametrize("attacker", ["127.0.0.1", "127.0.6.1"])
def test_slow_heads_do_not_silence_the_probe(serve, attacker):
    s = serve()
    socks = []
    try:
        for _ in range(300):
            try:
                socks.append(slow_head(s.port, attacker))
            except ConnectionResetError:
                pass
        assert probes(s.port) == [200] * (2 * PROBES)
        # The attack goes on between probes: it pushes out only its own.
        for _ in range(100):
            socks.append(slow_head(s.port, attacker))
            if len(socks) % 20 == 0:
                assert probe(s.port) == 200
        # Every connection past the address's first 64 pushed out the oldest
        # one that had not sent its head: the attacker's own.
        assert evictions(s.port)["no_request"] > 0
    finally:
        close_all(socks)


@pytest.mark.parametrize("attacker", ["127.0.0.1", "127.0.6.2"])
def test_silent_streams_do_not_silence_the_probe(serve, attacker):
    s = serve()
    got = []
    try:
        got = [stream_or_refused(s.port, attacker) for _ in range(1000)]
        statuses = [status for _, status in got]
        # Half the address's 64 connections may be streams; the others get
        # 503 (and their connection is taken back), requests keep the rest.
        assert statuses[:32] == ["HTTP/1.1 200"] * 32, statuses[:40]
        assert "HTTP/1.1 200" not in statuses[32:100], statuses[32:100]
        assert probes(s.port) == [200] * (2 * PROBES)
    finally:
        close_all(sock for sock, _ in got)


def test_a_stalled_stream_makes_room_for_a_page(serve):
    """A stream that stopped reading is pushed out when a page of its address
    opens one; a stream that reads never is."""
    s = serve("--rate", "100", "--max-per-address", "4")
    reader = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    reader.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\n\r\n".encode())
    stalled = [small_silent_stream(s.port)]
    try:
        assert stalled[0] is not None
        # The address holds 2 streams (half of 4): a third is refused while
        # neither has stalled...
        sock, line = stream_or_refused(s.port, "127.0.0.1")
        close_all([sock])
        assert line == "HTTP/1.1 503", line
        # ...and taken once the silent one has not read for seconds (a small
        # receive buffer: its buffers fill in seconds). The reader keeps reading.
        give_up = time.monotonic() + 60
        while True:
            reader.setblocking(False)
            try:
                while reader.recv(65536):
                    pass     # what has come so far: the reader never stalls
            except BlockingIOError:
                pass
            sock, line = stream_or_refused(s.port, "127.0.0.1")
            if line == "HTTP/1.1 200":
                stalled.append(sock)
                break
            close_all([sock])
            assert time.monotonic() < give_up, "the stalled stream was never pushed out"
            time.sleep(0.1)     # a look every 100 ms (the condition is the server's)
        assert evictions(s.port)["stalled_stream"] == 1
        # The reader was never the one pushed out: it still gets snapshots.
        reader.settimeout(10)
        got = b""
        while got.count(b"event: snapshot") < 2:
            chunk = reader.recv(65536)
            assert chunk, "the reading stream was closed"
            got += chunk
    finally:
        close_all(stalled + [reader])


def test_the_global_limit_is_far_above_one_address(serve):
    s = serve()
    info = json.loads(s.request("GET", "/api/server")[2])
    assert info["limits"]["per_address"] == 64
    assert info["limits"]["streams_per_address"] == 32
    assert info["limits"]["connections"] >= 8 * info["limits"]["per_address"]
