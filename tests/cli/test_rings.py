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
    r = ok(rfm("-u", net.node(1), "--json", "nodes"))
    nodes = r.json()["nodes"]
    ids = [n["id"] for n in nodes]
    assert ids == [1, 5]
    me = nodes[0]
    assert me["self"] is True
    assert me["attached"] is True
    assert me["age_ns"] is None
    assert nodes[1]["pid"] > 0
    r = ok(rfm("-u", net.node(1), "nodes"))
    lines = r.out.splitlines()
    assert lines[0].split()[:3] == ["NODE", "ATTACHED", "ALIVE"]
    assert lines[1].split()[0] == "1*"
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
