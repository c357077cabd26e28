# SPDX-License-Identifier: LGPL-2.1-or-later
"""Callbacks on the C dispatcher thread: GIL, exceptions, load, unregister, close."""

import gc
import os
import sys
import threading

import pytest

import rfm
from conftest import sanitized


@pytest.fixture
def pair(uri):
    with rfm.open(uri) as a, rfm.open(uri) as b:
        b.enable_events()
        yield a, b


def test_callbacks_run_on_the_dispatcher_thread(pair):
    a, b = pair
    got, threads, done = [], set(), threading.Event()

    def on_intr1(ev):
        got.append(ev)
        threads.add(threading.get_ident())
        if len(got) == 3:
            done.set()

    b.on_event(rfm.EventType.INTR1, on_intr1)
    for i in range(3):
        a.send_event(b.node_id, 1, i)
    assert done.wait(30)
    assert [(e.type, e.sender, e.data) for e in got] == [(1, a.node_id, i) for i in range(3)]
    assert threads and threading.get_ident() not in threads
    b.remove_callback(1)


def test_waits_are_refused_while_callbacks_own_the_queue(pair):
    _, b = pair
    b.on_event(2, lambda ev: None)
    with pytest.raises(rfm.Busy):
        b.wait_event(timeout=0)
    with pytest.raises(rfm.Busy):
        b.on_event(2, lambda ev: None)
    b.remove_callback(2)
    with pytest.raises(rfm.NotFound):
        b.remove_callback(2)


def test_bad_callback_arguments(pair):
    _, b = pair
    with pytest.raises(TypeError, match="callable"):
        b.on_event(1, 42)
    with pytest.raises(rfm.InvalidArgument):
        b.on_event(40, print)
    with pytest.raises(rfm.InvalidArgument):
        b.on_event("nope", print)


def test_an_exception_is_reported_not_swallowed(pair, monkeypatch):
    a, b = pair
    reported, delivered, done = [], [], threading.Event()

    def hook(unraisable):
        reported.append((unraisable.exc_type, str(unraisable.exc_value)))

    def callback(ev):
        if ev.data == 0:
            raise ValueError("boom in a callback")
        delivered.append(ev.data)
        done.set()

    monkeypatch.setattr(sys, "unraisablehook", hook)
    b.on_event(1, callback)
    a.send_event(b.node_id, 1, 0)
    a.send_event(b.node_id, 1, 1)
    assert done.wait(30)
    b.remove_callback(1)  # returns after any running call: the hook has run
    assert reported == [(ValueError, "boom in a callback")]
    assert delivered == [1]  # the dispatcher goes on after an exception
    assert b.callback_errors == 1


def test_unregister_from_inside_the_callback(pair):
    a, b = pair
    calls, done = [], threading.Event()

    def once(ev):
        calls.append(ev.data)
        b.remove_callback(1)
        done.set()

    b.on_event(1, once)
    a.send_event(b.node_id, 1, 10)
    assert done.wait(30)
    a.send_event(b.node_id, 1, 11)
    # No callback now: the record waits in the queue for an ordinary wait.
    assert b.wait_event(timeout=30).data == 11
    assert calls == [10]


def test_close_from_inside_the_callback(uri):
    a = rfm.open(uri)
    b = rfm.open(uri)
    b.enable_events()
    done = threading.Event()
    seen = []

    def closer(ev):
        seen.append(ev.data)
        b.close()
        done.set()

    b.on_event(1, closer)
    a.send_event(b.node_id, 1, 5)
    assert done.wait(30)
    assert b.closed and seen == [5]
    with pytest.raises(rfm.ClosedError):
        b.send_event(a.node_id, 1, 0)
    a.close()


def test_close_while_callbacks_are_busy(uri):
    """close() waits for a running callback, which needs the GIL: no deadlock."""
    a = rfm.open(uri)
    b = rfm.open(uri)
    b.enable_events()
    count = [0]
    first = threading.Event()

    def slow(ev):
        count[0] += 1
        first.set()
        sum(range(2000))  # hold the GIL a while

    b.on_event(1, slow)
    for i in range(2000):
        a.send_event(b.node_id, 1, i)
    assert first.wait(30)
    b.close()
    frozen = count[0]
    assert frozen >= 1 and count[0] == frozen  # nothing runs after close
    a.close()


def load_round(a, b, n):
    """Send n events to b's Python callback; return (received, dropped)."""
    state = {"received": 0, "dropped": 0}
    done = threading.Event()

    def on_event(ev):
        state["received"] += 1
        if state["received"] + state["dropped"] >= n:
            done.set()

    def on_overflow(ev):
        state["dropped"] += ev.data
        if state["received"] + state["dropped"] >= n:
            done.set()

    b.on_event(rfm.EventType.INTR1, on_event)
    b.on_event(rfm.EventType.OVERFLOW, on_overflow)
    for i in range(n):
        a.send_event(b.node_id, 1, i)
    assert done.wait(120), state
    b.remove_callback(rfm.EventType.INTR1)
    b.remove_callback(rfm.EventType.OVERFLOW)
    return state["received"], state["dropped"]


def test_fifty_thousand_events_to_a_python_callback(pair):
    """Every record is either delivered or counted as dropped (never silent);
    a second round leaves descriptors and memory where the first left them."""
    a, b = pair
    n = 50_000
    received, dropped = load_round(a, b, n)
    assert received + dropped == n and received > 0
    assert b.event_stats().dropped == dropped
    gc.collect()
    fds = len(os.listdir("/proc/self/fd"))
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1])
    received2, dropped2 = load_round(a, b, n)
    assert received2 + dropped2 == n
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) == fds
    with open("/proc/self/statm") as f:
        grown = (int(f.read().split()[1]) - rss) * os.sysconf("SC_PAGESIZE")
    if not sanitized():
        assert grown < 4 << 20, f"RSS grew by {grown} bytes"


def test_register_unregister_cycles_do_not_leak(pair):
    _, b = pair

    class Marker:
        pass

    refs = []
    for _ in range(200):
        marker = Marker()
        b.on_event(3, lambda ev, m=marker: m)
        b.remove_callback(3)
        refs.append(sys.getrefcount(marker))
        del marker
    assert max(refs) == min(refs)  # the handle let go of each callback


EXIT_SCRIPT = """
import sys
import rfm
uri = sys.argv[1]
a, b = rfm.open(uri), rfm.open(uri)
b.enable_events()
b.on_event(1, lambda ev: sum(range(100)))
for i in range(20000):
    a.send_event(b.node_id, 1, i)
print("exiting with callbacks registered", flush=True)
"""


def test_interpreter_exit_with_callbacks_running(uri):
    """Nodes left open with a busy dispatcher: the process exits cleanly
    (callbacks are removed at exit, before the interpreter finalizes)."""
    import subprocess

    result = subprocess.run([sys.executable, "-W", "ignore", "-c", EXIT_SCRIPT, uri],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "exiting with callbacks registered\n"
