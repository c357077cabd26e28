# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm send, wait and listen: network interrupts from the shell.

A receiving command only sees events sent after it started listening; the
tests use send's "receivers" count as the ready signal: they send until the
receiver has queued one, never sleeping.
"""
import json
import signal
import subprocess

from conftest import RFM, _environment, failed, ok, usage_error


def spawn(*args):
    return subprocess.Popen([RFM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_environment(), text=True)


def send_until_queued(rfm, uri, *args):
    """Send until one receiver queued the event; return send's JSON."""
    for _ in range(100000):
        r = rfm("-u", uri, "send", "--json", *args)
        if r.rc == 0 and r.json()["receivers"] == 1:
            return r.json()
        # Before the receiver opens its node: not attached; before it enables: 0.
        assert r.rc == 0 or "not attached" in r.err, r
    raise AssertionError("the receiver never started listening")


def finish(proc):
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_send_then_wait_json(rfm, net):
    waiter = spawn("-u", net.node(2), "wait", "--event", "intr1,intr3", "--timeout", "60000",
                   "--json")
    sent = send_until_queued(rfm, net.node(1), "--to", "2", "--event", "intr3",
                             "--data", "0x2a")
    assert sent == {"to": 2, "type": "intr3", "data": 42, "sender": 1, "receivers": 1}
    rc, out, err = finish(waiter)
    assert rc == 0, err
    lines = out.splitlines()
    assert len(lines) == 1
    ev = json.loads(lines[0])
    assert ev["type"] == "intr3"
    assert ev["sender"] == 1
    assert ev["data"] == 42
    assert ev["seq"] == 1
    assert 0 < ev["sent_ns"] <= ev["received_ns"]


def test_wait_text_output(rfm, net):
    waiter = spawn("-u", net.node(3), "wait", "--event", "reset")
    send_until_queued(rfm, net.node(1), "--to", "3", "--event", "reset", "--data", "7")
    rc, out, err = finish(waiter)
    assert rc == 0, err
    assert out.startswith("seq 1: reset from node 1, data 7 (0x00000007), latency ")


def test_wait_times_out_with_status_3(rfm, net):
    r = rfm("-u", net.node(2), "wait", "--event", "intr2", "--timeout", "20")
    assert r.rc == 3, r
    assert r.err == "rfm: no intr2 event within 20 ms\n"
    assert r.out == ""
    r = rfm("-u", net.node(2), "wait", "--event", "intr2", "--timeout", "0")
    assert r.rc == 3, r


def test_wait_for_card_status_changes(rfm, net):
    """link records come from the health monitor; shm: has no card, so none."""
    r = rfm("-u", net.node(2), "wait", "--event", "link,node_down", "--timeout", "20")
    assert r.rc == 3, r
    assert r.err.startswith("rfm: no ") and r.err.endswith(" event within 20 ms\n")


def test_listen_counts_and_orders(rfm, net):
    listener = spawn("-u", net.node(4), "listen", "--count", "3", "--json")
    send_until_queued(rfm, net.node(1), "--to", "4", "--event", "intr1", "--data", "100")
    ok(rfm("-u", net.node(1), "send", "--to", "4", "--event", "intr2", "--data", "101"))
    # A broadcast reaches the listener too.
    r = ok(rfm("-u", net.node(5), "send", "--to", "all", "--event", "intr4", "--data", "102",
               "--json"))
    assert r.json()["to"] == "all"
    assert r.json()["receivers"] == 1
    rc, out, err = finish(listener)
    assert rc == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert [e["type"] for e in events] == ["intr1", "intr2", "intr4"]
    assert [e["data"] for e in events] == [100, 101, 102]
    assert [e["sender"] for e in events] == [1, 1, 5]
    for e in events:
        assert {"type", "sender", "data", "seq", "sent_ns"} <= set(e)


def test_listen_stops_on_sigterm(rfm, net):
    listener = spawn("-u", net.node(6), "listen", "--event", "intr1")
    send_until_queued(rfm, net.node(1), "--to", "6", "--event", "intr1")
    # The first line proves the listener is inside its loop.
    line = listener.stdout.readline()
    assert line.startswith("seq 1: intr1 from node 1")
    listener.send_signal(signal.SIGTERM)
    rc, out, err = finish(listener)
    assert rc == 0, err
    assert out == ""


def test_listen_idle_timeout_ends_quietly(rfm, net):
    r = ok(rfm("-u", net.node(2), "listen", "--timeout", "10"))
    assert r.out == ""


def test_send_errors(rfm, net):
    ok(rfm("-u", net.node(1), "info"))  # create the network
    failed(rfm("-u", net.node(1), "send", "--to", "1", "--event", "intr1"), "loopback")
    failed(rfm("-u", net.node(1), "send", "--to", "9", "--event", "intr1"),
           "node 9 is not attached")
    r = ok(rfm("-u", net.node(1), "send", "--to", "1", "--event", "intr1", "--loopback",
               "--json"))
    assert r.json()["receivers"] == 0
    usage_error(rfm("-u", net.node(1), "send", "--to", "256", "--event", "intr1"),
                "too large", "send")
    usage_error(rfm("-u", net.node(1), "send", "--to", "2", "--event", "intr5"),
                "unknown event type 'intr5'", "send")
    usage_error(rfm("-u", net.node(1), "send", "--to", "2", "--event", "overflow"),
                "send takes intr1, intr2, intr3, intr4 or reset, not 'overflow'", "send")
    usage_error(rfm("-u", net.node(1), "send", "--to", "2", "--event", "intr1,intr2"),
                "one event type", "send")
    usage_error(rfm("-u", net.node(1), "send", "--event", "intr1"), "--to", "send")
    usage_error(rfm("-u", net.node(1), "send", "--to", "2"), "--event", "send")
    usage_error(rfm("-u", net.node(1), "send", "--to", "2", "--event", "intr1",
                    "--data", "0x100000000"), "too large", "send")
    usage_error(rfm("-u", net.node(1), "wait"), "--event", "wait")
    usage_error(rfm("-u", net.node(1), "wait", "--event", "intr1", "--timeout", "-5"),
                "timeout", "wait")
    usage_error(rfm("-u", net.node(1), "listen", "--event", "bogus"),
                "unknown event type 'bogus'", "listen")
    # A stray comma is a usage error, not a shorter list
    for types in ("intr1,", ",intr1", "intr1,,intr2"):
        usage_error(rfm("-u", net.node(1), "wait", "--event", types, "--timeout", "0"),
                    "empty item", "wait")
