# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm serve: the JSON API, /metrics, the SSE stream, the write token and
bad requests. The server runs on a private network and a free
port; its ready line gives the port; it is stopped by PID."""
import http.client
import json
import os
import signal
import struct
import subprocess
import threading
import time

import pytest

from conftest import RFM, _environment, ok, usage_error
from serve_helpers import (NOT_BUILT, Server, parse_metrics, sample,  # noqa: F401
                           serve)

pytestmark = NOT_BUILT

STABLE_METRICS = {
    "rfm_node_up": "gauge",
    "rfm_node_incarnation": "gauge",
    "rfm_heartbeat_age_seconds": "gauge",
    "rfm_heartbeat_period_seconds": "gauge",
    "rfm_heartbeats_total": "counter",
    "rfm_events_received_total": "counter",
    "rfm_event_overflows_total": "counter",
    "rfm_events_dropped_total": "counter",
    "rfm_samples_refused_total": "counter",
    "rfm_streams_forged_total": "counter",
    "rfm_ring_lost_total": "counter",
    "rfm_record_retries_total": "counter",
    "rfm_var_value": "gauge",
    "rfm_var_out_of_range": "gauge",
    "rfm_var_stale": "gauge",
    "rfm_ring_head": "gauge",
    "rfm_ring_consumers": "gauge",
    "rfm_ring_consumer_lag": "gauge",
    "rfm_ring_consumer_laps_total": "counter",
    "rfm_ring_consumer_backpressure": "gauge",
    "rfm_ring_consumer_holding": "gauge",
    "rfm_serve_uptime_seconds": "gauge",
    "rfm_node_link_up": "gauge",
    "rfm_events_received_by_node_total": "counter",
    "rfm_events_received_by_node_rate": "gauge",
    "rfm_record_sequence": "gauge",
    "rfm_node_down_total": "counter",
    "rfm_node_up_total": "counter",
}


def poke_out_of_range(rfm, net, offset, value, fmt):
    """Write @value raw at @offset: the library's own writes refuse out-of-range values."""
    word = struct.unpack("<Q", struct.pack(fmt, value).ljust(8, b"\0"))[0]
    width = 64 if fmt == "<d" else 32
    ok(rfm("-u", net.node(2), f"poke{width}", hex(offset), hex(word)))


def var(server, name):
    return server.get_json(f"/api/vars?names={name}")["vars"][0]


def test_json_endpoints(serve, rfm, net):
    s = serve()
    assert s.ready["node"] == 1 and s.ready["token"] is None
    assert s.ready["url"] == f"http://127.0.0.1:{s.port}/"
    nodes = s.get_json("/api/nodes")["nodes"]
    me = [n for n in nodes if n["self"]]
    assert len(me) == 1 and me[0]["id"] == 1 and me[0]["up"] is True
    assert me[0]["incarnation"] >= 1 and me[0]["pid"] == s.proc.pid
    # It runs the health monitor: it beats at the default period.
    assert me[0]["heartbeat_period_s"] == pytest.approx(0.1)
    assert me[0]["state"] == "up"

    ok(rfm("-u", net.node(2), "set", "--force", "--layout", s.layout, "ctl.temp", "21.5"))
    poke_out_of_range(rfm, net, 0, 7, "<I")     # ctl.mode, 0..3
    got = s.get_json("/api/vars?names=ctl.temp,ctl.mode")["vars"]
    assert [v["name"] for v in got] == ["ctl.temp", "ctl.mode"]
    assert got[0] == {"name": "ctl.temp", "type": "f64", "unit": "degC", "value": 21.5,
                      "min": -10.0, "max": 80.0, "out_of_range": False, "writer": 1,
                      "state": "fresh", "stale_reason": None, "unchanged_s": None,
                      "stale_after_s": None, "digits": None}
    assert got[1]["value"] == 7 and got[1]["out_of_range"] is True
    everything = s.get_json("/api/vars")["vars"]
    assert [v["name"] for v in everything] == ["ctl.mode", "ctl.temp", "ctl.gains", "ctl.label"]
    assert everything[2]["value"] == [0.0, 0.0, 0.0] and everything[3]["value"] == ""

    snap = s.get_json("/api/snapshot")
    assert set(snap) == {"time_s", "nodes", "stats", "vars", "rings"}
    assert [v["value"] for v in snap["vars"]][:2] == [7, 21.5]
    # No ring in either region yet.
    assert s.get_json("/api/rings") == {"regions": [
        {"region": "ctl", "offset": 0, "size": 256, "writer": 1, "description": "set-points",
         "ring": None},
        {"region": "log", "offset": 0x4000, "size": 0x8000, "writer": 2,
         "description": "a ring", "ring": None}]}
    assert s.get_json("/api/hist") == {"bins": [
        {"low_ns": 1000, "high_ns": 1999, "count": 5},
        {"low_ns": 2000, "high_ns": 3999, "count": 40},
        {"low_ns": 4000, "high_ns": 7999, "count": 10}]}

    # Three events from another node are counted by type.
    for _ in range(3):
        ok(rfm("-u", net.node(2), "send", "--to", "1", "--event", "intr2", "--data", "9"))
    stats = s.get_json("/api/stats")
    assert stats["node"] == 1 and stats["queue_depth"] > 0
    # The sampler counts them; the next snapshot has them. Wait for it on the stream.
    snap = next_snapshot(s, lambda sn: sn["stats"]["received"]["intr2"] == 3)
    assert snap["stats"]["received"]["intr1"] == 0
    assert snap["stats"]["overflows"] == 0


# A stream whose snapshots never meet the condition fails the test, not hangs it.
STREAM_LIMIT_S = 30


def read_events(s, count, until=None):
    """The data of @count snapshot events of /api/events (or the first meeting @until)."""
    give_up = time.monotonic() + STREAM_LIMIT_S
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
    conn.request("GET", "/api/events")
    resp = conn.getresponse()
    assert resp.status == 200
    assert resp.getheader("Content-Type") == "text/event-stream"
    got, event, data = [], None, None
    try:
        while len(got) < count:
            if time.monotonic() > give_up:
                pytest.fail(f"no snapshot met the condition in {STREAM_LIMIT_S} s")
            # readline() of the response undoes the chunked transfer coding.
            line = resp.readline().decode()
            assert line, "the stream ended"
            line = line.rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and event:
                assert event in ("snapshot", "node"), event
                if event == "snapshot" and (until is None or until(data)):
                    got.append(data)
                event = None
    finally:
        conn.close()
    return got


class Stream:
    """An open /api/events: every event (type, data) in order, read on demand."""

    def __init__(self, s):
        self.conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
        self.conn.request("GET", "/api/events")
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200

    def until(self, want):
        """The events up to and including the first snapshot meeting @want."""
        give_up = time.monotonic() + STREAM_LIMIT_S
        got, event = [], None
        while True:
            if time.monotonic() > give_up:
                pytest.fail(f"no snapshot met the condition in {STREAM_LIMIT_S} s")
            line = self.resp.readline().decode()
            assert line, "the stream ended"
            line = line.rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                got.append((event, json.loads(line[6:])))
            elif line == "" and event:
                if event == "snapshot" and want(got[-1][1]):
                    return got
                event = None

    def close(self):
        self.conn.close()


def next_snapshot(s, until):
    """The first snapshot of the stream meeting @until.

    The stream starts with the sampler's latest snapshot, which can be up to
    a sampling period (1/--rate s) older than what the test just did: the
    state before it, e.g. a region with no ring yet ("ring": null). @until
    must be False for such older states, never raise."""
    return read_events(s, 1, until)[0]


def test_sse_sends_snapshots(serve):
    s = serve("--rate", "50")
    first, second = read_events(s, 2)
    for snap in (first, second):
        assert set(snap) == {"time_s", "nodes", "stats", "vars", "rings"}
        assert [v["name"] for v in snap["vars"]] == ["ctl.mode", "ctl.temp", "ctl.gains",
                                                     "ctl.label"]
        # What changes only: the rest is /api/vars's.
        assert snap["vars"][1] == {"name": "ctl.temp", "value": 0.0, "out_of_range": False,
                                   "state": "fresh", "stale_reason": None, "unchanged_s": None}
    assert second["time_s"] > first["time_s"]


def test_metrics_are_strict_exposition_format(serve, rfm, net):
    s = serve()
    poke_out_of_range(rfm, net, 8, 95.0, "<d")  # ctl.temp, -10..80
    status, headers, body = s.request("GET", "/metrics")
    assert status == 200
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    fams = parse_metrics(body.decode())
    for name, kind in STABLE_METRICS.items():
        assert name in fams, f"{name} missing"
        assert fams[name]["type"] == kind
    assert sample(fams, "rfm_node_up", node="1") == 1
    assert sample(fams, "rfm_samples_refused_total") == 0  # shm: the window is the only writer
    assert sample(fams, "rfm_streams_forged_total") == 0
    assert sample(fams, "rfm_var_value", name="ctl.temp", unit="degC") == 95
    assert sample(fams, "rfm_var_out_of_range", name="ctl.temp") == 1
    assert sample(fams, "rfm_var_out_of_range", name="ctl.mode") == 0
    # Arrays and strings are not values a gauge can hold.
    assert sample(fams, "rfm_var_value", name="ctl.gains") is None
    types = {labels["type"] for labels, _ in fams["rfm_events_received_total"]["samples"]}
    assert {"intr1", "intr2", "intr3", "intr4", "reset"} <= types


# A consumer's cursor reaches the table when it runs out of messages: a
# look that never shows it fails the test instead of hanging.
RING_LIMIT_S = 30


def test_rings_api_and_metrics(serve, rfm, net):
    """A ring in region log: its head and its consumer (node 3, a lapped
    one on node 4) in /api/rings, the snapshot and /metrics, read-only."""
    s = serve()
    ok(rfm("-u", net.node(2), "ring", "create", "0x4000", "--slots", "4", "--slot-size", "16",
           "--notify"))
    # Node 4's consumer registers, then is lapped (6 messages into 4 slots).
    lapped = subprocess.Popen([RFM, "-u", net.node(4), "ring", "tail", "0x4000", "--newest",
                               "--count", "100"], stdout=subprocess.PIPE, text=True,
                              env=_environment())
    tail = subprocess.Popen([RFM, "-u", net.node(3), "ring", "tail", "0x4000", "--count", "100"],
                            stdout=subprocess.PIPE, text=True, env=_environment())
    try:
        want = {3, 4}
        ring = wait_ring(s, lambda r: {c["node"] for c in r["consumers"]} == want)
        lapped.send_signal(signal.SIGSTOP)          # takes nothing while we publish
        # A lap at a time for node 3, which takes everything.
        ok(rfm("-u", net.node(2), "ring", "pub", "0x4000", "0", "1", "2", "3"))
        for i in range(4):
            assert tail.stdout.readline() == f"{i}: {i}\n"
        ok(rfm("-u", net.node(2), "ring", "pub", "0x4000", "4", "5"))
        for i in range(4, 6):
            assert tail.stdout.readline() == f"{i}: {i}\n"
        lapped.send_signal(signal.SIGCONT)
        assert lapped.stdout.readline() == "(2 message(s) lost: lapped)\n"
        assert lapped.stdout.readline() == "2: 2\n"  # 0 and 1 were overwritten
        ring = wait_ring(s, lambda r: all(c["lag"] == 0 for c in r["consumers"]))
        assert ring["producer"] == 2 and ring["head"] == 6 and ring["slot_count"] == 4
        assert ring["notify"] is True and ring["backpressure"] is False
        assert ring["consumer_count"] == 2
        by_node = {c["node"]: c for c in ring["consumers"]}
        assert by_node[3]["pid"] == tail.pid and by_node[4]["pid"] == lapped.pid
        assert by_node[3]["cursor"] == 6 and by_node[3]["laps"] == 0
        assert by_node[4]["cursor"] == 6 and by_node[4]["laps"] == 1
        assert not by_node[3]["backpressure"] and not by_node[3]["holding"]
        assert not by_node[3]["dead"]

        # The stream's first snapshot may be the one sampled before the ring
        # was created (null): wait past it.
        snap = next_snapshot(s, lambda sn: (sn["rings"][1]["ring"] or {}).get("head") == 6)
        assert snap["rings"][0]["ring"] is None

        status, _, body = s.request("GET", "/metrics")
        assert status == 200
        fams = parse_metrics(body.decode())
        assert sample(fams, "rfm_ring_head", region="log") == 6
        assert sample(fams, "rfm_ring_head", region="ctl") is None
        assert sample(fams, "rfm_ring_consumers", region="log") == 2
        assert sample(fams, "rfm_ring_consumer_lag", region="log", node="3", entry="0") == 0
        assert sample(fams, "rfm_ring_consumer_laps_total", region="log", node="4") == 1
        assert sample(fams, "rfm_ring_consumer_laps_total", region="log", node="3") == 0
        assert sample(fams, "rfm_ring_consumer_backpressure", region="log", node="3") == 0
        assert sample(fams, "rfm_ring_consumer_holding", region="log", node="3") == 0
    finally:
        for p in (tail, lapped):
            p.send_signal(signal.SIGCONT)
            p.terminate()
            p.wait(timeout=10)
            p.stdout.close()
    # The consumers are gone from the table.
    wait_ring(s, lambda r: r["consumer_count"] == 0)


def wait_ring(s, until):
    """The ring of region log from /api/rings, once @until holds (bounded)."""
    give_up = time.monotonic() + RING_LIMIT_S
    while True:
        ring = s.get_json("/api/rings")["regions"][1]["ring"]
        if ring is not None and until(ring):
            return ring
        if time.monotonic() > give_up:
            pytest.fail(f"the ring never met the condition: {ring}")
        time.sleep(0.01)


def test_metrics_checker_rejects_bad_text():
    good = "# HELP a_total x\n# TYPE a_total counter\na_total{t=\"1\"} 3\n"
    assert parse_metrics(good)["a_total"]["samples"] == [({"t": "1"}, 3.0)]
    for bad in ("a_total 3\n",                                    # no HELP/TYPE
                "# HELP a_total x\n# TYPE a_total counter\na_total{t=1} 3\n",
                "# HELP a x\n# TYPE a counter\na 3\n",            # counter without _total
                "# HELP a x\n# TYPE a gauge\na 3 x\n",
                "# HELP a x\n# TYPE a gauge\na 3",                # no final newline
                "# HELP a x\n# TYPE a gauge\na 1\na 2\n"):        # the same series twice
        with pytest.raises(AssertionError):
            parse_metrics(bad)


def test_write_token(serve):
    s = serve("--allow-write")
    token = s.token
    assert len(token) == 64 and int(token, 16) >= 0
    before = var(s, "ctl.temp")["value"]
    body = {"name": "ctl.temp", "value": 42.25}
    status, err = s.post("/api/vars", body)
    assert status == 401 and "Authorization" in err["error"]
    status, err = s.post("/api/vars", body, token="0" * 64)
    assert status == 403 and err == {"error": "wrong token"}
    status, err = s.post("/api/vars", body, token=token[:-1])
    assert status == 403
    assert var(s, "ctl.temp")["value"] == before
    status, got = s.post("/api/vars", body, token=token)
    assert status == 200 and got["var"]["value"] == 42.25
    assert var(s, "ctl.temp")["value"] == 42.25
    # The library checks the layout's range: nothing is written.
    status, err = s.post("/api/vars", {"name": "ctl.mode", "value": "99"}, token=token)
    assert status == 409, err
    assert var(s, "ctl.mode")["value"] == 0
    status, err = s.post("/api/vars", {"name": "ctl.nope", "value": 1}, token=token)
    assert status == 404
    status, sent = s.post("/api/send", {"to": 1, "type": "intr3", "data": 5}, token=token)
    assert status == 409 or sent == {"queued": 0} or sent["queued"] >= 0
    for bad in ({"to": 300, "type": "intr1"}, {"to": 1, "type": "bogus"},
                {"to": 1, "type": "intr1", "data": -1}, {"type": "intr1"}):
        status, err = s.post("/api/send", bad, token=token)
        assert status == 400, (bad, err)


def test_host_header_is_checked(serve):
    """DNS rebinding: a name an attacker's DNS can point here is refused."""
    s = serve("--allow-write")
    auth = {"Authorization": f"Bearer {s.token}", "Content-Type": "application/json"}
    for host in ("evil.example", f"evil.example:{s.port}", f"localhost.evil.example:{s.port}",
                 f"127.0.0.1:{s.port + 1 if s.port < 65535 else 1}", "localhost:", "[::1",
                 f"127.0.0.1:{s.port}x", "x" * 300):
        status, _, body = s.request("GET", "/api/nodes", headers={"Host": host})
        assert status == 403, host
        assert "Host" in json.loads(body)["error"]
        status, _, _ = s.request("GET", "/metrics", headers={"Host": host})
        assert status == 403, host
    # A write under a foreign name changes nothing, even with the token.
    body = json.dumps({"name": "ctl.temp", "value": 7.5})
    status, _, _ = s.request("POST", "/api/vars", body=body,
                             headers={**auth, "Host": f"evil.example:{s.port}"})
    assert status == 403
    assert var(s, "ctl.temp")["value"] == 0
    for host in (f"localhost:{s.port}", f"LOCALHOST:{s.port}", f"127.0.0.1:{s.port}",
                 "127.0.0.1", "localhost", f"[::1]:{s.port}"):
        status, _, _ = s.request("GET", "/api/nodes", headers={"Host": host})
        assert status == 200, host


RECORD_LAYOUT = """\
version: 1
name: rec
window: 64K
regions:
  - name: pub
    offset: 0x100
    size: 0x100
    writer: 2
    records:
      - name: frame
        variables:
          - { name: x, type: u32 }
"""


def test_counts_by_node_rates_and_records(rfm, net, tmp_path):
    """Records taken are counted by sender and type, with rates from the
    counters' deltas; the layout's records show their sequence words."""
    layout = tmp_path / "rec.yaml"
    layout.write_text(RECORD_LAYOUT)
    s = Server(net.node(1), "--layout", str(layout))
    try:
        for value in ("5", "6"):
            ok(rfm("-u", net.node(2), "set", "--layout", str(layout), "pub.frame.x", value))
        for _ in range(2):
            ok(rfm("-u", net.node(3), "send", "--to", "1", "--event", "intr3"))

        def counts(sn):
            return {(r["node"], r["type"]): r for r in sn["stats"]["by_node"]}

        # Node 2 sends until the server shows a rate for it; once it stops,
        # the rate falls to 0 after a second or so: a delta, not the total.
        sent, stop = [0], threading.Event()

        def sender():
            while not stop.is_set():
                ok(rfm("-u", net.node(2), "send", "--to", "1", "--event", "intr1"))
                sent[0] += 1
        t = threading.Thread(target=sender)
        t.start()
        try:
            next_snapshot(s, lambda sn: counts(sn).get((2, "intr1"), {}).get("rate_per_s", 0) > 0)
        finally:
            stop.set()
            t.join()
        snap = next_snapshot(s, lambda sn: counts(sn)[(2, "intr1")]["rate_per_s"] == 0 and
                             counts(sn)[(2, "intr1")]["count"] == sent[0])
        c = counts(snap)
        assert c[(3, "intr3")]["count"] == 2 and c[(3, "intr3")]["rate_per_s"] == 0
        assert set(c) == {(2, "intr1"), (3, "intr3")}
        # Two publishes: the sequence word went 0 -> 2 -> 4. Its writer, node 2,
        # has closed since: the record is stale.
        frame = {"name": "pub.frame", "seq": 4, "writer": 2, "state": "stale",
                 "stale_reason": "writer not on the network", "unchanged_s": None,
                 "stale_after_s": None}
        assert snap["stats"]["records"] == [frame]
        assert s.get_json("/api/stats")["records"] == [frame]
        # shm: has no card: no link status, for any node.
        assert all(n["link"] is None for n in snap["nodes"])

        status, _, body = s.request("GET", "/metrics")
        assert status == 200
        fams = parse_metrics(body.decode())
        assert sample(fams, "rfm_events_received_by_node_total", node="2",
                      type="intr1") == sent[0]
        assert sample(fams, "rfm_events_received_by_node_total", node="3", type="intr3") == 2
        assert sample(fams, "rfm_events_received_by_node_rate", node="2", type="intr1") == 0
        assert sample(fams, "rfm_record_sequence", record="pub.frame") == 4
        assert fams["rfm_node_link_up"]["samples"] == []
    finally:
        rc, err = s.stop()
        assert rc == 0, err


def test_read_only_server_refuses_writes(serve):
    s = serve()
    status, err = s.post("/api/vars", {"name": "ctl.temp", "value": 1}, token="x")
    assert status == 403 and "--allow-write" in err["error"]
    assert var(s, "ctl.temp")["value"] == 0


def test_bad_requests_change_nothing(serve):
    s = serve("--allow-write")
    auth = {"Authorization": f"Bearer {s.token}"}
    for path in ("/nope", "/api", "/api/nodes/1", "/index.html", "/metrics/x"):
        status, _, body = s.request("GET", path)
        assert status == 404, path
        assert json.loads(body) == {"error": "no such page"}
    for path in ("/../etc/passwd", "/api/../metrics", "/%2e%2e/etc/passwd", "//etc/passwd",
                 "/api\\nodes"):
        status, _, _ = s.request("GET", path)
        assert status == 400, path
    for path in ("/api/vars?names=ctl.zzz", "/api/vars?names=", "/api/vars?names=a,,b",
                 "/api/vars?other=1", "/api/vars?names=ctl.temp&names=ctl.mode",
                 "/api/nodes?x=1", "/metrics?x"):
        status, _, body = s.request("GET", path)
        assert status == 400, (path, body)
    status, _, _ = s.request("DELETE", "/api/vars", headers=auth)
    assert status == 405
    status, _, _ = s.request("GET", "/api/nodes", body="x=1")
    assert status == 400
    status, _, _ = s.request("GET", "/api/nodes", body="x" * 10000)
    assert status == 413
    status, _, _ = s.request("GET", "/api/nodes", headers={"X-Big": "a" * 20000})
    assert status == 431
    status, _, _ = s.request("POST", "/api/vars", body="{" * 10000,
                             headers={**auth, "Content-Type": "application/json"})
    assert status == 413
    for body in ("not json", "[1,2]", '{"name": "ctl.temp"}', '{"name": 1, "value": 2}',
                 '{"name": "ctl.temp", "value": {"a": 1}}'):
        status, _, _ = s.request("POST", "/api/vars", body=body, headers=auth)
        assert status == 400, body
    assert var(s, "ctl.temp")["value"] == 0
    # The server still answers after all that.
    assert s.get_json("/api/nodes")["nodes"]


def test_node_up_then_down(serve, hold_node, net):
    s = serve("--rate", "50")
    held = hold_node(net.node(3))
    assert held.node_id == 3
    up = next_snapshot(s, lambda sn: any(n["id"] == 3 and n["up"] for n in sn["nodes"]))
    row = [n for n in up["nodes"] if n["id"] == 3][0]
    assert row["attached"] is True and row["pid"] == held.proc.pid
    assert sample(parse_metrics(s.request("GET", "/metrics")[2].decode()),
                  "rfm_node_up", node="3") == 1
    assert held.release() == 0
    next_snapshot(s, lambda sn: not any(n["id"] == 3 and n["up"] for n in sn["nodes"]))
    rows = [n for n in s.get_json("/api/nodes")["nodes"] if n["id"] == 3]
    assert rows == [] or rows[0]["up"] is False
    assert sample(parse_metrics(s.request("GET", "/metrics")[2].decode()),
                  "rfm_node_up", node="3") in (None, 0)


def test_page_and_assets_are_built_in(serve):
    s = serve()
    status, headers, body = s.request("GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'<script src="/app.js">' in body and b"http" not in body.replace(b"http-equiv", b"")
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    for path, kind in (("/app.js", "text/javascript"), ("/style.css", "text/css")):
        status, headers, body = s.request("GET", path)
        assert status == 200 and headers["Content-Type"].startswith(kind) and body


def test_usage_errors(rfm, net):
    usage_error(rfm("-u", net.uri, "serve", "--rate", "0"), "--rate", "serve")
    usage_error(rfm("-u", net.uri, "serve", "--port", "70000"), "port", "serve")
    usage_error(rfm("-u", net.uri, "serve", "--bind", "localhost", "--port", "0"), "--bind",
                "serve")
    r = rfm("-u", net.uri, "serve", "--hist", "/nonexistent.csv")
    assert r.rc == 1 and "/nonexistent.csv" in r.err


def test_hist_from_ping(rfm, net, tmp_path):
    """serve --hist reads the file rfm ping --hist-csv writes (its cumulative column
    is a fraction), bin for bin."""
    path = tmp_path / "ping.csv"
    ok(rfm("-u", net.uri, "ping", "--local", "--mode", "event", "--count", "300",
           "--warmup", "20", "--hist-csv", str(path)))
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    assert rows and any(float(r[3]) < 1 for r in rows)
    s = Server(net.node(1), "--hist", str(path))
    try:
        bins = s.get_json("/api/hist")["bins"]
    finally:
        rc, err = s.stop()
        assert rc == 0, err
    assert [(b["low_ns"], b["high_ns"], b["count"]) for b in bins] == \
        [(int(r[0]), int(r[1]), int(r[2])) for r in rows]
    assert sum(b["count"] for b in bins) == 300


@pytest.mark.parametrize("text, line", [
    ("", 1),
    ("low,high\n", 1),
    ("low_ns,high_ns,count,cumulative\n10,20,5,0.5\n15,30,5,1.000000\n", 3),   # overlaps
    ("low_ns,high_ns,count,cumulative\n10,20,5,0.5\n30,40,5,0.4\n", 3),  # falls
    ("low_ns,high_ns,count,cumulative\n10,20,5,5\n", 2),     # a count, not a fraction
    ("low_ns,high_ns,count,cumulative\n20,10,5,1\n", 2),
    ("low_ns,high_ns,count,cumulative\n10,20,-5,1\n", 2),
    ("low_ns,high_ns,count,cumulative\n10,20,5,1,7\n", 2),
    ("low_ns,high_ns,count,cumulative\n10,20,5\n", 2),
])
def test_hist_bad_file(rfm, net, tmp_path, text, line):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    r = rfm("-u", net.uri, "serve", "--port", "0", "--hist", str(path))
    assert r.rc == 1 and f"{path}:{line}: not a line of rfm ping --hist-csv" in r.err, r.err


def test_beating_node_killed_goes_down(serve, net):
    """A node that beats (rfm listen --event node_up runs a health monitor)
    shows its period and beat age; killed, it stays attached (nobody
    detached it) but its beats stop, and it goes down."""
    s = serve("--rate", "50")
    proc = subprocess.Popen([RFM, "-u", net.node(4), "listen", "--event", "node_up"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=_environment())
    try:
        up = next_snapshot(s, lambda sn: any(n["id"] == 4 and n["up"] and n["beats"] > 0
                                             for n in sn["nodes"]))
        row = [n for n in up["nodes"] if n["id"] == 4][0]
        assert row["heartbeat_period_s"] == pytest.approx(0.1)
        assert row["heartbeat_age_s"] is not None and row["heartbeat_age_s"] >= 0
        assert row["alive"] is True and row["pid"] == proc.pid
        fams = parse_metrics(s.request("GET", "/metrics")[2].decode())
        assert sample(fams, "rfm_heartbeat_period_seconds", node="4") == pytest.approx(0.1)
        assert sample(fams, "rfm_heartbeats_total", node="4") >= 1
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    down = next_snapshot(s, lambda sn: any(n["id"] == 4 and not n["up"] for n in sn["nodes"])
                         or not any(n["id"] == 4 for n in sn["nodes"]))
    rows = [n for n in down["nodes"] if n["id"] == 4]
    assert rows == [] or (rows[0]["alive"] is False and rows[0]["up"] is False)


def node_row(snap, node):
    rows = [n for n in snap["nodes"] if n["id"] == node]
    return rows[0] if rows else None


def node_is(node, **want):
    """A snapshot condition: node @node's row has the fields of @want."""
    def check(snap):
        row = node_row(snap, node)
        return row is not None and all(row.get(k) == v for k, v in want.items())
    return check


def test_killed_peer_shown_down_then_up(serve, net):
    """The server's health monitor: a peer killed with SIGKILL (it sends
    nothing) is down, with its down count, the time since and a "node"
    event on the stream; started again, up with its up count. A second
    server that starts while the peer beats saw it up at its start, which
    counts no up."""
    from test_serve_stale import beating_node
    s = serve("--rate", "50")
    stream = Stream(s)
    peer = beating_node(net, 2)
    other = None
    try:
        before = time.time()
        events = stream.until(node_is(2, change="up"))
        row = node_row(events[-1][1], 2)
        assert (row["state"], row["up_count"], row["down_count"]) == ("up", 1, 0)
        assert row["since_start"] is False and row["change_incarnation"] == row["incarnation"]
        assert before - 1 <= row["since_s"] <= time.time()
        changes = [d for e, d in events if e == "node"]
        assert [(c["id"], c["change"], c["up_count"]) for c in changes] == [(2, "up", 1)]
        # A second server, started while node 2 beats: up since its start.
        other = Server(net.node(3), "--rate", "50")
        snap = next_snapshot(other, node_is(2, change="up"))
        row = node_row(snap, 2)
        assert (row["up_count"], row["down_count"], row["since_start"]) == (0, 0, True)

        os.kill(peer.pid, signal.SIGKILL)
        peer.wait()
        killed = time.time()
        events = stream.until(node_is(2, change="down"))
        row = node_row(events[-1][1], 2)
        # Killed: it crashed (it did not leave), and the change says why.
        assert (row["state"], row["down_count"], row["up_count"]) == ("crashed", 1, 1)
        assert (row["down"], row["change_reason"]) == (True, "crashed")
        assert killed - 1 <= row["since_s"] <= time.time()
        # (the second server beats too: its node 3 came up meanwhile)
        changes = [d for e, d in events if e == "node" and d["id"] == 2]
        assert [(c["id"], c["change"], c["down_count"]) for c in changes] == [(2, "down", 1)]
        stats = s.get_json("/api/stats")
        # In total: node 2's down and up, and node 3's up.
        assert (stats["monitor"], stats["node_downs"], stats["node_ups"]) == (True, 1, 2)
        api = [n for n in s.get_json("/api/nodes")["nodes"] if n["id"] == 2][0]
        assert (api["up"], api["change"], api["down_count"]) == (False, "down", 1)
        snap = next_snapshot(other, node_is(2, change="down"))
        assert (node_row(snap, 2)["down_count"], node_row(snap, 2)["up_count"]) == (1, 0)

        peer = beating_node(net, 2)
        events = stream.until(node_is(2, change="up", up_count=2))
        row = node_row(events[-1][1], 2)
        assert (row["state"], row["down_count"]) == ("up", 1)
        assert row["change_incarnation"] == row["incarnation"] == 2
        changes = [d for e, d in events if e == "node" and d["id"] == 2]
        assert [(c["id"], c["change"], c["up_count"]) for c in changes] == [(2, "up", 2)]
        fams = parse_metrics(s.request("GET", "/metrics")[2].decode())
        assert fams["rfm_node_down_total"]["type"] == "counter"
        assert sample(fams, "rfm_node_down_total", node="2") == 1
        assert sample(fams, "rfm_node_up_total", node="2") == 2
        stats = s.get_json("/api/stats")
        assert (stats["node_downs"], stats["node_ups"]) == (1, 3)
        snap = next_snapshot(other, node_is(2, change="up", up_count=1))
        assert node_row(snap, 2)["down_count"] == 1
    finally:
        stream.close()
        if peer.poll() is None:
            os.kill(peer.pid, signal.SIGKILL)
            peer.wait()
        if other:
            rc, err = other.stop()
            assert rc == 0, err


def test_no_monitor(serve, net):
    """--no-monitor: the server does not beat and reports no node changes
    (null, not 0: nothing would ever count them)."""
    from test_serve_stale import beating_node
    s = serve("--rate", "50", "--no-monitor")
    peer = beating_node(net, 2)
    try:
        snap = next_snapshot(s, node_is(2, state="up"))
        row = node_row(snap, 2)
        assert (row["down_count"], row["up_count"], row["change"], row["since_s"]) == \
            (None, None, None, None)
        assert node_row(snap, 1)["state"] == "no_heartbeat"
        stats = s.get_json("/api/stats")
        assert (stats["monitor"], stats["node_downs"], stats["node_ups"]) == (False, None, None)
        fams = parse_metrics(s.request("GET", "/metrics")[2].decode())
        assert "rfm_node_down_total" not in fams and "rfm_node_up_total" not in fams
    finally:
        os.kill(peer.pid, signal.SIGKILL)
        peer.wait()
