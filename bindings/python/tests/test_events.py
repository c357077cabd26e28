# SPDX-License-Identifier: LGPL-2.1-or-later
"""Network interrupts from Python: send, wait, batches, the fd, cancel, close, the GIL."""

import asyncio
import selectors
import threading

import pytest

import rfm


@pytest.fixture
def pair(uri):
    """Two nodes of one network: (sender, receiver with every network type enabled)."""
    with rfm.open(uri) as a, rfm.open(uri) as b:
        b.enable_events()
        yield a, b


def test_send_and_wait_carry_every_field(pair):
    a, b = pair
    before = rfm.now_ns()
    assert a.send_event(b.node_id, rfm.EventType.INTR2, 0xDEADBEEF) == 1
    ev = b.wait_event(timeout=5)
    assert isinstance(ev, rfm.Event)
    assert (ev.type, ev.sender, ev.data, ev.seq, ev.flags) == (2, a.node_id, 0xDEADBEEF, 1, 0)
    assert before <= ev.sent_ns <= rfm.now_ns()
    assert ev == (ev.type, ev.sender, ev.data, ev.seq, ev.sent_ns, ev.flags)  # a tuple
    assert rfm.EventType(ev.type) is rfm.EventType.INTR2


def test_order_and_sequence_numbers(pair):
    a, b = pair
    for i in range(10):
        a.send_event(b.node_id, "intr1", i)
    got = [b.wait_event(timeout=5) for _ in range(10)]
    assert [e.data for e in got] == list(range(10))
    assert [e.seq for e in got] == list(range(1, 11))


def test_fetch_takes_batches(pair):
    a, b = pair
    for i in range(10):
        a.send_event(b.node_id, 3, i)
    first = b.fetch_events(4, timeout=5)
    assert [e.data for e in first] == [0, 1, 2, 3]
    rest = b.fetch_events(100, timeout=5)
    assert [e.data for e in rest] == list(range(4, 10))
    assert b.poll_events() == []


def test_iteration_stops_after_the_timeout(pair):
    a, b = pair
    for i in range(5):
        a.send_event(b.node_id, 4, i)
    assert [e.data for e in b.events(timeout=0.05)] == [0, 1, 2, 3, 4]


def test_timeouts_and_polls(pair):
    _, b = pair
    with pytest.raises(rfm.Timeout):
        b.wait_event(timeout=0.01)
    with pytest.raises(rfm.WouldBlock):
        b.wait_event(timeout=0)
    assert b.poll_events() == []


def test_broadcast_reaches_every_other_node(uri):
    with rfm.open(uri) as a, rfm.open(uri) as b, rfm.open(uri) as c:
        b.enable_events()
        c.enable_events()
        a.enable_events()
        assert a.broadcast_event(rfm.EventType.INTR1, 5) == 2
        assert b.wait_event(timeout=5).data == 5
        assert c.wait_event(timeout=5).data == 5
        assert a.poll_events() == []  # not to itself
        assert a.send_event(rfm.NODE_ALL, 1, 6) == 2


def test_loopback_and_self_sends(uri):
    with rfm.open(uri) as a, rfm.open(uri) as b:
        a.enable_events()
        with pytest.raises(rfm.NodeError) as caught:
            a.send_event(a.node_id, 1, 0)
        assert caught.value.code == rfm.ErrorCode.ESELF
        assert a.loopback is False
        a.loopback = True
        assert a.send_event(a.node_id, 1, 9) == 1
        ev = a.wait_event(timeout=5)
        assert (ev.data, ev.flags) == (9, rfm.EVENT_F_LOOPBACK)
        assert b.send_event(a.node_id, 1, 1) == 1  # b's events are not loopback
        assert a.wait_event(timeout=5).flags == 0


def test_enable_disable_and_stats(pair):
    a, b = pair
    assert b.enabled_events == list(rfm.NETWORK_TYPES)
    with pytest.raises(rfm.Busy):
        b.enable_events(rfm.EventType.INTR1)
    b.disable_events(rfm.EventType.INTR1)
    assert rfm.EventType.INTR1 not in b.enabled_events
    assert a.send_event(b.node_id, 1, 0) == 0  # not enabled: nobody queued it
    assert a.send_event(b.node_id, 2, 0) == 1
    stats = b.event_stats()
    assert stats.depth >= 1024 and stats.queued == 1 and stats.delivered == 0
    b.wait_event(timeout=5)
    assert b.event_stats().delivered == 1


def test_publish_writes_then_signals(pair):
    a, b = pair
    receivers, seq = a.publish(0x100, b"payload!", 0x80, b.node_id, rfm.EventType.INTR1)
    assert (receivers, seq) == (1, 1)
    ev = b.wait_event(timeout=5)
    assert ev.data == 1 and b.peek32(0x80) == 1
    assert b.read(0x100, 8) == b"payload!"
    with pytest.raises(rfm.AlignmentError):
        a.publish(0x100, b"x", 0x81, b.node_id, 1)


def test_bad_input(pair):
    a, b = pair
    with pytest.raises(rfm.InvalidArgument):
        a.send_event(b.node_id, "bogus", 0)
    with pytest.raises(rfm.InvalidArgument):
        a.send_event(b.node_id, rfm.EventType.OVERFLOW, 0)  # status types are not sent
    with pytest.raises(rfm.NodeError):
        a.send_event(300, 1, 0)
    with pytest.raises(rfm.NodeError) as caught:
        a.send_event(200, 1, 0)  # nobody attached there
    assert caught.value.code == rfm.ErrorCode.ENODE
    with pytest.raises(ValueError, match="32 bits"):
        a.send_event(b.node_id, 1, -1)
    with pytest.raises(ValueError):
        a.send_event(b.node_id, 1, 1 << 32)
    with pytest.raises(TypeError):
        a.send_event(b.node_id, 1, "1")
    with pytest.raises(TypeError):
        a.send_event(b.node_id, 1.0, 1)
    with pytest.raises(TypeError):
        b.wait_event(timeout="1")
    with pytest.raises(rfm.InvalidArgument):
        b.fetch_events(0)
    with pytest.raises(ValueError):
        b.fetch_events(-1)


def test_closed_node_raises(uri):
    node = rfm.open(uri)
    node.close()
    for call in (lambda: node.send_event(0, 1, 0), lambda: node.wait_event(timeout=0),
                 lambda: node.enable_events(), lambda: node.event_fd(),
                 lambda: node.on_event(1, print), lambda: node.fetch_events(1, 0)):
        with pytest.raises(rfm.ClosedError):
            call()


def test_selectors_see_the_descriptor(pair):
    a, b = pair
    fd = b.event_fd()
    assert fd >= 0 and b.fileno() == fd
    with selectors.DefaultSelector() as sel:
        sel.register(b, selectors.EVENT_READ)  # the node itself: it has fileno()
        for i in range(3):
            a.send_event(b.node_id, 1, i)
        ready = sel.select(timeout=10)
        assert [key.fileobj for key, _ in ready] == [b]
        got: list = []
        while len(got) < 3:
            got += b.poll_events()
            if len(got) < 3:
                sel.select(timeout=10)
        assert [e.data for e in got] == [0, 1, 2]


def test_asyncio_reader(pair):
    a, b = pair

    async def main():
        loop = asyncio.get_running_loop()
        got = []
        done = loop.create_future()

        def readable():
            got.extend(b.poll_events())
            if len(got) >= 5 and not done.done():
                done.set_result(None)

        loop.add_reader(b.event_fd(), readable)
        try:
            for i in range(5):
                a.send_event(b.node_id, 2, i)
            await asyncio.wait_for(done, 10)
        finally:
            loop.remove_reader(b.event_fd())
        return [e.data for e in got]

    assert asyncio.run(main()) == [0, 1, 2, 3, 4]


def test_cancel_wakes_a_waiter(pair):
    _, b = pair
    outcome = []
    started = threading.Event()

    def waiter():
        started.set()
        try:
            b.wait_event(timeout=None)
        except rfm.Canceled as e:
            outcome.append(e)

    t = threading.Thread(target=waiter)
    t.start()
    started.wait()
    b.cancel_wait()  # never lost: a wait that has not started yet returns at once
    t.join(timeout=30)
    assert not t.is_alive() and len(outcome) == 1


def test_close_wakes_a_waiter_in_another_thread(uri):
    node = rfm.open(uri)
    node.enable_events()
    outcome = []
    started = threading.Event()

    def waiter():
        started.set()
        try:
            node.wait_event(timeout=None)
        except rfm.ClosedError as e:
            outcome.append(e)

    t = threading.Thread(target=waiter)
    t.start()
    started.wait()
    node.close()
    t.join(timeout=30)
    assert not t.is_alive() and len(outcome) == 1
    assert "closed" in str(outcome[0])


def test_a_blocked_wait_lets_other_threads_run(pair):
    """The GIL is released while waiting: this thread computes and sends
    while the waiter is blocked; a wait holding the GIL would time out."""
    a, b = pair
    result = []
    entering = threading.Event()

    def waiter():
        entering.set()
        try:
            result.append(b.wait_event(timeout=30))
        except rfm.Timeout as e:
            result.append(e)

    t = threading.Thread(target=waiter)
    t.start()
    entering.wait()
    total = 0
    for i in range(200_000):  # Python work, only possible with the GIL free
        total += i & 0xFF
    assert result == []  # the waiter is still blocked while we ran
    a.send_event(b.node_id, 1, total & 0xFFFFFFFF)
    t.join(timeout=60)
    assert isinstance(result[0], rfm.Event) and result[0].data == total & 0xFFFFFFFF
