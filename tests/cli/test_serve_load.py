# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm serve under hostile load: slow heads (slowloris), streams that are
never read, one address opening many connections, too many streams, two
Host headers and an oversized head. New clients must still be answered.

The attackers connect from their own loopback addresses (127.0.0.0/8 is
all loopback on Linux), so the per-address limit, which is there to stop
one host from taking every connection, does not refuse the test's own
client on 127.0.0.1. Deadlines below are the test's bound on a hang, not
a measure of speed."""
import http.client
import json
import resource
import socket
import time

import pytest

from serve_helpers import NOT_BUILT, serve  # noqa: F401

pytestmark = NOT_BUILT

ANSWER_LIMIT_S = 20     # a new client answered within this, or the server is deaf


@pytest.fixture(autouse=True)
def many_files():
    """1300 sockets need more than the default 1024 descriptors."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 8192) if hard != resource.RLIM_INFINITY else 8192
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def connect(port, source):
    sock = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_LIMIT_S,
                                    source_address=(source, 0))
    return sock


def slow_head(port, source):
    """A connection that sends half a request head and then nothing."""
    sock = connect(port, source)
    sock.sendall(f"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
    return sock


def silent_stream(port, source):
    """A connection that asks for /api/events, reads the status line, then never reads."""
    sock = connect(port, source)
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    got = b""
    while len(got) < 12:
        chunk = sock.recv(12 - len(got))
        assert chunk, f"stream from {source} closed before its status line"
        got += chunk
    return sock, got.decode()


def answered(port, path):
    """(status, body) of a GET from 127.0.0.1 by a new client."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=ANSWER_LIMIT_S)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def closed_by_server(sock, wait_s):
    """Whether the server closes @sock within @wait_s (it answers nothing first)."""
    sock.settimeout(wait_s)
    try:
        return sock.recv(4096) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def raw(port, head):
    """The status code the server answers a raw request head with (None: closed)."""
    sock = connect(port, "127.0.0.1")
    try:
        sock.sendall(head)
        got = b""
        while b"\r\n" not in got:
            chunk = sock.recv(4096)
            if not chunk:
                break
            got += chunk
    except (ConnectionResetError, BrokenPipeError):
        return None
    finally:
        sock.close()
    return int(got.split(b" ")[1]) if got.startswith(b"HTTP/1.1 ") else None


def test_new_clients_answered_under_slowloris_and_silent_streams(serve):
    s = serve()
    socks = []
    try:
        # 300 slow heads from 30 addresses, 1000 silent streams from 40 others:
        # each address stays under the per-address limits (64 connections,
        # 32 of them streams).
        for i in range(300):
            socks.append(slow_head(s.port, f"127.0.2.{1 + i % 30}"))
        for i in range(1000):
            sock, status = silent_stream(s.port, f"127.0.3.{1 + i % 40}")
            socks.append(sock)
            assert status == "HTTP/1.1 200", (i, status)
        status, body = answered(s.port, "/metrics")
        assert status == 200 and b"rfm_node_up{" in body
        status, body = answered(s.port, "/api/nodes")
        assert status == 200 and json.loads(body)["nodes"][0]["id"] == 1
        # A page's reload: the page and its stream.
        status, _ = answered(s.port, "/")
        assert status == 200
    finally:
        for sock in socks:
            sock.close()


def stream_or_refused(port, source):
    """(socket, status line) of a stream, or (None, None) when the server closed it unanswered."""
    try:
        return silent_stream(port, source)
    except (AssertionError, ConnectionResetError):
        return None, None


def test_one_address_cannot_take_every_connection(serve):
    s = serve()
    got = [stream_or_refused(s.port, "127.0.4.1") for _ in range(100)]
    try:
        # The server holds 32 streams of one address (half --max-per-address)
        # and answers the rest 503; those connections, idle after their
        # answer, are the ones later connections of the address push out.
        assert [status for _, status in got[:32]] == ["HTTP/1.1 200"] * 32
        assert [status for _, status in got[32:]] == ["HTTP/1.1 503"] * 68
        status, _ = answered(s.port, "/metrics")
        assert status == 200
    finally:
        for sock, _ in got:
            if sock:
                sock.close()
    s2 = serve("--max-per-address", "2", node=3)
    got = [stream_or_refused(s2.port, "127.0.4.2") for _ in range(3)]
    try:
        assert [status for _, status in got] == ["HTTP/1.1 200", "HTTP/1.1 503",
                                                 "HTTP/1.1 503"]
    finally:
        for sock, _ in got:
            if sock:
                sock.close()


def test_slow_heads_are_dropped_in_seconds(serve):
    """A head that never ends holds its connection for seconds, not 30."""
    s = serve()
    socks = [slow_head(s.port, "127.0.4.3") for _ in range(10)]
    try:
        give_up = time.monotonic() + 15
        for sock in socks:
            assert closed_by_server(sock, max(0.1, give_up - time.monotonic())), \
                "a slow head was still held after 15 s"
    finally:
        for sock in socks:
            sock.close()


def test_stream_cap_answers_503(serve):
    s = serve("--max-streams", "3")
    streams = [silent_stream(s.port, "127.0.0.1") for _ in range(3)]
    try:
        assert [status for _, status in streams] == ["HTTP/1.1 200"] * 3
        status, body = answered(s.port, "/api/events")
        assert status == 503
        assert "streams" in json.loads(body)["error"]
        # Requests that are not streams are still served.
        assert answered(s.port, "/metrics")[0] == 200
        # A stream that ends frees its place.
        streams.pop()[0].close()
        give_up = time.monotonic() + ANSWER_LIMIT_S
        while True:
            sock, status = silent_stream(s.port, "127.0.0.1")
            streams.append((sock, status))
            if status == "HTTP/1.1 200":
                break
            assert time.monotonic() < give_up, "the ended stream's place was never freed"
            streams.pop()[0].close()
    finally:
        for sock, _ in streams:
            sock.close()


def test_two_host_headers_are_400(serve):
    s = serve()
    good = f"127.0.0.1:{s.port}"
    for hosts in ((good, "evil.example"), ("evil.example", good), (good, good)):
        head = "GET /api/nodes HTTP/1.1\r\n" + "".join(f"Host: {h}\r\n" for h in hosts) + "\r\n"
        assert raw(s.port, head.encode()) == 400, hosts
    assert raw(s.port, f"GET /api/nodes HTTP/1.1\r\nHost: {good}\r\n\r\n".encode()) == 200


def test_oversized_head_is_431(serve):
    s = serve()
    good = f"127.0.0.1:{s.port}"
    for size in (9000, 30000, 200000):
        head = f"GET /api/nodes HTTP/1.1\r\nHost: {good}\r\nX-Big: {'a' * size}\r\n\r\n"
        assert raw(s.port, head.encode()) == 431, size
    # Under the 8 KiB limit: answered (a 7.8 KB head was once closed unanswered).
    for size in (3000, 7800):
        head = f"GET /api/nodes HTTP/1.1\r\nHost: {good}\r\nX-Big: {'a' * size}\r\n\r\n"
        assert raw(s.port, head.encode()) == 200, size
