# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm ring create/pub/tail, rfm nodes and rfm selftest."""
import json
import signal
import subprocess
import time

from conftest import RFM, _environment, failed, ok, usage_error

OFF = "0x1000"


def test_ring_create_pub_tail(rfm, net):
    r = ok(rfm("-u", net.node(1), "--json", "ring", "create", OFF, "--slots", "8",
               "--slot-size", "32"))
    info = r.json()
    assert info["offset"] == 0x1000
    assert info["slots"] == 8
    assert info["slot_size"] == 32
    assert info["producer"] == 1
    assert info["notify"] is False
    ok(rfm("-u", net.node(1), "ring", "pub", OFF, "hello", "world"))
    r = ok(rfm("-u", net.node(2), "ring", "tail", OFF, "--timeout", "0"))
    assert r.out == "0: hello\n1: world\n"
    r = ok(rfm("-u", net.node(3), "--json", "ring", "tail", OFF, "--count", "1"))
    assert json.loads(r.out) == {"seq": 0, "lost": 0, "len": 5, "hex": "68656c6c6f",
                                 "text": "hello"}
    ok(rfm("-u", net.node(1), "ring", "pub", "--hex", OFF, "00ff10"))
    r = ok(rfm("-u", net.node(2), "ring", "tail", OFF, "--hex", "--timeout", "0"))
    assert r.out.splitlines()[-1] == "2: 00 ff 10"


def test_ring_tail_starts_at_oldest_valid(rfm, net):
    ok(rfm("-u", net.node(1), "ring", "create", OFF, "--slots", "4", "--slot-size", "8"))
    ok(rfm("-u", net.node(1), "ring", "pub", OFF, *[str(i) for i in range(10)]))
    r = ok(rfm("-u", net.node(2), "--json", "ring", "tail", OFF, "--timeout", "0"))
    msgs = [json.loads(line) for line in r.out.splitlines()]
    assert [m["seq"] for m in msgs] == [6, 7, 8, 9]
    # A new consumer lost nothing: it starts at the oldest message still there.
    assert [m["lost"] for m in msgs] == [0, 0, 0, 0]


def test_ring_errors(rfm, net):
    failed(rfm("-u", net.node(1), "ring", "create", OFF, "--slots", "6"), "power of two")
    failed(rfm("-u", net.node(1), "ring", "create", "0x1001"), "aligned")
    failed(rfm("-u", net.node(2), "ring", "tail", "0x8000", "--timeout", "0"), "no ring")
    ok(rfm("-u", net.node(1), "ring", "create", OFF, "--slot-size", "4"))
    failed(rfm("-u", net.node(2), "ring", "pub", OFF, "x"), "producer is node 1")
    failed(rfm("-u", net.node(1), "ring", "pub", OFF, "too long"), "slot size")
    usage_error(rfm("-u", net.node(1), "ring", "spin", OFF), "unknown action", "ring")
    usage_error(rfm("-u", net.node(1), "ring", "pub", OFF), "MESSAGE", "ring")
    usage_error(rfm("-u", net.node(1), "ring", "tail", OFF, "--hex", "--text"), "exclude",
                "ring")


def _catches_sigterm(pid):
    """True once the process has a SIGTERM handler (its SigCgt mask in /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


def _tail(net, *args):
    proc = subprocess.Popen([RFM, "-u", net.node(2), "ring", "tail", OFF, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_environment(), text=True)
    while not _catches_sigterm(proc.pid):     # ready: the loop is about to run
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.001)
    return proc


def test_ring_tail_on_0xff_slots_ends_and_hears_sigterm(rfm, net):
    # A dead producer's slots read 0xff: tail must still end by --timeout and
    # on SIGTERM (it once spun at 100% CPU, past both).
    ok(rfm("-u", net.node(1), "ring", "create", OFF, "--slots", "8", "--slot-size", "8"))
    ok(rfm("-u", net.node(1), "ring", "pub", OFF, "a", "b", "c"))
    ok(rfm("-u", net.node(1), "write", "0x1080", "--hex", "ff" * 8 * 64))
    proc = _tail(net, "--timeout", "1000")
    out, err = proc.communicate(timeout=30)     # hang guard only
    assert proc.returncode == 0, err
    assert out == ""
    proc = _tail(net)                           # no timeout: until a signal
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


def test_ring_backpressure_pub(rfm, net):
    ok(rfm("-u", net.node(1), "ring", "create", OFF, "--slots", "2", "--backpressure"))
    ok(rfm("-u", net.node(1), "ring", "pub", OFF, "a", "b", "c"))


def test_ring_stat(rfm, net):
    ok(rfm("-u", net.node(1), "ring", "create", OFF, "--slots", "4", "--slot-size", "8",
           "--notify"))
    r = ok(rfm("-u", net.node(5), "--json", "ring", "stat", OFF))
    assert r.json() == {"offset": 0x1000, "producer": 1, "head": 0, "slots": 4, "slot_size": 8,
                        "notify": True, "backpressure": False, "consumer_count": 0,
                        "consumer_nodes": 256,
                        "consumers": []}
    proc = subprocess.Popen([RFM, "-u", net.node(2), "ring", "tail", OFF, "--count", "100"],
                            stdout=subprocess.PIPE, text=True, env=_environment())
    try:
        ok(rfm("-u", net.node(1), "ring", "pub", OFF, "a", "b"))
        assert proc.stdout.readline() == "0: a\n"
        assert proc.stdout.readline() == "1: b\n"
        # The cursor reaches the table once the consumer has nothing new.
        give_up = time.monotonic() + 30
        while True:
            st = ok(rfm("-u", net.node(5), "--json", "ring", "stat", OFF)).json()
            if st["consumers"] and st["consumers"][0]["lag"] == 0:
                break
            assert time.monotonic() < give_up, st
        assert st["head"] == 2 and st["consumer_count"] == 1
        c = st["consumers"][0]
        assert c.pop("state") in ("running", "sleeping")
        assert c == {"node": 2, "entry": 0, "pid": proc.pid, "cursor": 2, "lag": 0, "laps": 0,
                     "backpressure": False, "holding": False}
        lines = ok(rfm("-u", net.node(5), "ring", "stat", OFF)).out.splitlines()
        assert lines[0] == ("ring at 0x1000: producer node 1, head 2, 4 slots of 8 bytes, "
                            "1 consumer registered")
        assert lines[1].split() == ["node", "entry", "pid", "cursor", "lag", "laps",
                                    "back-pressure", "state"]
        assert lines[2].split()[:7] == ["2", "0", str(proc.pid), "2", "0", "0", "no"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()
    failed(rfm("-u", net.node(5), "ring", "stat", "0x8000"), "no ring there")
    usage_error(rfm("-u", net.node(5), "ring", "stat"), "missing argument", "ring")


def test_nodes(rfm, net, hold_node):
    hold_node(net.node(5))
    hold_node(net.node(1))
    # rfm nodes only looks: it holds no id, so it has no row of its own.
    r = ok(rfm("-u", net.node(1), "--json", "nodes"))
    nodes = r.json()["nodes"]
    ids = [n["id"] for n in nodes]
    assert ids == [1, 5]
    # Both are held without a heartbeat.
    assert [n["state"] for n in nodes] == ["attached", "attached"]
    assert [n["self"] for n in nodes] == [False, False]
    assert nodes[0]["attached"] is True
    assert nodes[0]["age_ns"] is None
    assert nodes[1]["pid"] > 0
    r = ok(rfm("-u", net.node(1), "nodes"))
    lines = r.out.splitlines()
    assert lines[0].split()[:4] == ["NODE", "STATE", "ATTACHED", "ALIVE"]
    assert lines[1].split()[0] == "1"
    assert lines[2].split()[0] == "5"


def test_selftest(rfm, net):
    r = ok(rfm("-u", net.node(1), "--json", "selftest", "--offset", "0x100"))
    res = r.json()
    assert res["passed"] is True
    assert res["memory_ok"] is True
    assert res["memory_errors"] == 0
    assert res["event_ok"] is True
    r = ok(rfm("-u", net.node(1), "selftest"))
    assert r.out.endswith("self-test passed\n")
    failed(rfm("-u", net.node(1), "selftest", "--offset", "0xffffffff"), "outside the window")
    # The largest offset is a range error, not "skip the memory test"
    usage_error(rfm("-u", net.node(1), "selftest", "--offset", "18446744073709551615"),
                "too large", "selftest")


# ---- rings under a layout: the one-writer rule, and rings the layout declares ----

RIG_PLAIN = """\
version: 1
name: rig
window: 64K
nodes: 8
regions:
  - name: sim
    offset: 0x0000
    size: 0x2000
    writer: 1
    variables:
      - { name: speed, type: f64 }
  - name: daq
    offset: 0x2000
    size: 0x1000
    writer: 2
    variables:
      - { name: pressure, type: f32 }
"""
RIG = RIG_PLAIN + """\
  - name: log
    offset: 0x3000
    size: 0x1000
    writer: 1
    ring: { slots: 16, slot_size: 64, consumers: 1 }
"""


def rig_layout(tmp_path, text=RIG):
    path = tmp_path / "rig.yaml"
    path.write_text(text)
    return str(path)


def test_ring_create_refuses_another_nodes_region(rfm, net, tmp_path):
    """The issue's case: with RFM_LAYOUT set, fill refused region daq of node 2,
    but ring create wiped it."""
    env = {"RFM_LAYOUT": rig_layout(tmp_path, RIG_PLAIN)}
    ok(rfm("-u", net.node(2), "set", "daq.pressure", "3.5", env=env))
    failed(rfm("-u", net.node(1), "fill", "0x2000", "64", "--pattern", "ones", env=env),
           "region 'daq' belongs to node 2, this is node 1")
    failed(rfm("-u", net.node(1), "ring", "create", "0x2000", "--slots", "16",
               "--slot-size", "64", env=env),
           "region 'daq' belongs to node 2, this is node 1")
    # A ring that starts in node 1's region but runs into node 2's: refused too.
    failed(rfm("-u", net.node(1), "ring", "create", "0x1000", "--slots", "64", env=env),
           "region 'daq' belongs to node 2, this is node 1")
    assert ok(rfm("-u", net.node(2), "peek32", "0x2000")).out.strip() != "0x00000000"
    assert rfm("-u", net.node(3), "get", "daq.pressure", env=env).out == "3.5\n"
    # Where node 1 writes, it may.
    info = ok(rfm("-u", net.node(1), "--json", "ring", "create", "0x1000", "--slots", "4",
                  "--slot-size", "48", "--nodes", "8", env=env)).json()
    assert (info["footprint"], info["consumer_nodes"]) == (128 + 4 * 64 + 64 + 8 * 2 * 32, 8)


def test_ring_of_a_layout_region(rfm, net, tmp_path):
    layout = rig_layout(tmp_path)
    env = {"RFM_LAYOUT": layout}
    # By region name: the layout's shape, by the region's writer only.
    failed(rfm("-u", net.node(2), "ring", "create", "log", env=env),
           "region 'log' is written by node 1, this is node 2")
    info = ok(rfm("-u", net.node(1), "--json", "ring", "create", "log", env=env)).json()
    assert (info["offset"], info["slots"], info["slot_size"]) == (0x3000, 16, 64)
    assert info["footprint"] == 128 + 16 * 128 + 64 + 8 * 32
    assert info["consumer_nodes"] == 8
    ok(rfm("-u", net.node(1), "ring", "pub", "log", "one", "two", env=env))
    assert ok(rfm("-u", net.node(2), "ring", "tail", "log", "--timeout", "0",
                  env=env)).out == "0: one\n1: two\n"
    stat = ok(rfm("-u", net.node(2), "--json", "ring", "stat", "log", "--layout", layout)).json()
    assert (stat["offset"], stat["head"]) == (0x3000, 2)
    usage_error(rfm("-u", net.node(1), "ring", "create", "nolog", env=env),
                "'nolog' is neither an offset nor a region of", "ring")
    # The listing shows the ring and its bytes.
    listing = ok(rfm("layout", "check", "--list", layout)).out
    assert ("0x00003000     4096  region log (writer 1)\n"
            "0x00003000     2496    ring: 16 slots of 64 bytes, 1 consumer entry for each "
            "of node ids 0..7\n") in listing, listing
