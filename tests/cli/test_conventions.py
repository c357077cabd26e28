# SPDX-License-Identifier: LGPL-2.1-or-later
"""Conventions of libgpiod/libiio/util-linux tools: -V, did-you-mean, the
health and overflow event types, --time, and no PID 0 for a departed node."""
import json
import re
import signal
import subprocess

import pytest

from conftest import RFM, _environment, ok, usage_error


def send_until_queued(rfm, receiver, uri, *args):
    """Send until the receiver queued the event (its ready signal); fail
    at once if the receiver has exited (an option it does not know)."""
    while receiver.poll() is None:
        r = rfm("-u", uri, "send", "--json", *args)
        if r.rc == 0 and r.json()["receivers"] == 1:
            return
        assert r.rc == 0 or "not attached" in r.err, r
    raise AssertionError(f"the receiver exited: {receiver.communicate()}")

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def test_short_version(rfm):
    text = ok(rfm("--version")).out
    assert ok(rfm("-V")).out == text
    assert ok(rfm("peek32", "-V")).out == text


@pytest.mark.parametrize("typo,meant", [("pek32", "peek32"), ("peak32", "peek32"),
                                        ("lisen", "listen"), ("nodse", "nodes")])
def test_did_you_mean_a_command(rfm, typo, meant):
    usage_error(rfm(typo, "0"), f"unknown command '{typo}'; did you mean '{meant}'?")
    usage_error(rfm("help", typo), f"did you mean '{meant}'?", "help")


def test_no_guess_for_a_far_command(rfm):
    r = usage_error(rfm("frobnicate"), "unknown command 'frobnicate'")
    assert "did you mean" not in r.err


def test_did_you_mean_an_option(rfm, net):
    usage_error(rfm("-u", net.uri, "ping", "--conut", "3"),
                "unknown option '--conut'; did you mean '--count'?", "ping")
    usage_error(rfm("-u", net.uri, "peek32", "0", "--jsno"), "did you mean '--json'?",
                "peek32")


def test_did_you_mean_an_event_type_and_clock(rfm, net):
    usage_error(rfm("-u", net.uri, "listen", "--event", "nod_up"),
                "unknown event type 'nod_up'", "listen")
    usage_error(rfm("-u", net.uri, "wait", "--event", "intr11"), "did you mean 'intr1'?",
                "wait")
    usage_error(rfm("-u", net.uri, "listen", "--time", "realtme"),
                "did you mean 'realtime'?", "listen")


def spawn(*args):
    return subprocess.Popen([RFM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_environment(), text=True)


def stop(proc):
    if proc.poll() is None:
        proc.kill()
    return proc.communicate(timeout=60)


def wait_until_beating(rfm, net, node_id, watcher_alive):
    """The ready signal of a health monitor: its node's beats in the table
    (or its exit: a tool that does not know the types stops at once)."""
    while watcher_alive():
        nodes = ok(rfm("-u", net.uri, "nodes", "--json")).json()["nodes"]
        if any(n["id"] == node_id and n["beats"] > 0 for n in nodes):
            return
    raise AssertionError(f"node {node_id} never beat")


def test_listen_node_up_then_departed_node_has_no_pid(rfm, net):
    watcher = spawn("-u", net.node(4), "listen", "--event", "node_up,node_down",
                    "--count", "1", "--json")
    newcomer = None
    try:
        wait_until_beating(rfm, net, 4, lambda: watcher.poll() is None)
        # Its own monitor makes node 5 beat: node 4 sees it come up.
        newcomer = spawn("-u", net.node(5), "listen", "--event", "node_up")
        out, err = watcher.communicate(timeout=60)
        # listen leaves cleanly on SIGTERM: node 5 detaches.
        newcomer.send_signal(signal.SIGTERM)
        newcomer.communicate(timeout=60)
    finally:
        stop(watcher)
        if newcomer:
            stop(newcomer)
    assert watcher.returncode == 0, err
    assert newcomer.returncode == 0
    event = json.loads(out)
    assert (event["type"], event["sender"]) == ("node_up", 5)
    assert ISO.fullmatch(event["time"])
    # Both left: the table remembers them, but not a process id of 0.
    nodes = {n["id"]: n for n in ok(rfm("-u", net.uri, "nodes", "--json")).json()["nodes"]}
    assert not nodes[5]["attached"] and nodes[5]["pid"] is None
    # It closed on SIGTERM: it left, it did not crash.
    assert nodes[5]["state"] == "left"
    assert ISO.fullmatch(nodes[5]["last_beat"])
    mono = {n["id"]: n for n in ok(rfm("-u", net.uri, "nodes", "--json", "--time",
                                       "monotonic")).json()["nodes"]}
    assert isinstance(mono[5]["last_beat"], float)
    row = [line for line in ok(rfm("-u", net.uri, "nodes")).out.splitlines()
           if line.split()[0] == "5"][0]
    # ... PERIOD, PID, HOST: the PID column says '-', not 0.
    assert row.split()[-2] == "-", row


def test_wait_for_overflow_skips_other_events(rfm, net):
    """overflow is accepted; the interrupts that fill the queue are not shown."""
    waiter = spawn("-u", net.node(2), "wait", "--event", "overflow", "--timeout", "300")
    try:
        send_until_queued(rfm, waiter, net.node(1), "--to", "2", "--event", "intr1")
        out, err = waiter.communicate(timeout=60)
    finally:
        stop(waiter)
    assert waiter.returncode == 3, err
    assert out == ""
    assert err == "rfm: no overflow event within 300 ms\n"


def test_listen_time_clocks(rfm, net):
    listener = spawn("-u", net.node(2), "listen", "--count", "1", "--time", "monotonic")
    try:
        send_until_queued(rfm, listener, net.node(1), "--to", "2", "--event", "intr2",
                          "--data", "9")
        out, err = listener.communicate(timeout=60)
    finally:
        stop(listener)
    assert listener.returncode == 0, err
    assert re.fullmatch(r"seq 1: intr2 from node 1, data 9 \(0x00000009\), latency \d+ ns, "
                        r"at \d+\.\d{9}\n", out), out


def test_stats_counts_what_it_took(rfm, net):
    stats = spawn("-u", net.node(2), "stats", "--duration", "600000", "--json")
    try:
        send_until_queued(rfm, stats, net.node(1), "--to", "2", "--event", "intr1")
        for _ in range(3):
            r = ok(rfm("-u", net.node(1), "send", "--to", "2", "--event", "intr3", "--json"))
            assert r.json()["receivers"] == 1
        stats.send_signal(signal.SIGINT)
        out, err = stats.communicate(timeout=60)
    finally:
        stop(stats)
    assert stats.returncode == 130, err
    obj = json.loads(out)
    assert obj["interrupted"] is True
    assert obj["taken"]["intr3"] == 3 and obj["taken"]["intr1"] >= 1
    assert obj["delivered"] == obj["events_received"] == sum(obj["taken"].values())
    assert (obj["dropped"], obj["overflows"], obj["queued"], obj["refused"],
            obj["forged"]) == (0, 0, 0, 0, 0)
    assert obj["queue_depth"] > 0


def test_stats_text(rfm, net):
    out = ok(rfm("-u", net.node(2), "stats", "--duration", "0")).out.splitlines()
    assert out[0] == "rfm stats: node 2, 0 ms"
    assert out[1] == "  taken by type: none"
    assert out[2].startswith("  queue: depth ")
    assert [line.split()[0] for line in out[3:]] == [
        "refused", "forged", "events_sent", "events_received", "events_dropped", "ring_lost",
        "record_retries",
        "node_ups", "node_downs"]
