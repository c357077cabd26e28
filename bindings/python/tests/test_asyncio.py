# SPDX-License-Identifier: LGPL-2.1-or-later
"""asyncio: events on the handle's pollable descriptor, ring messages and
record changes awaited without blocking the event loop (issue 41).

Each test proves the loop stays free: the thing awaited is produced by
another coroutine of the same loop, after the wait began, so a wait that
blocked the loop would never see it (the test then fails by its timeout).
"""

import asyncio

import pytest

import rfm
from conftest import RECORD_LAYOUT

def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def test_wait_event_async_leaves_the_loop_free(uri):
    async def main(rx, tx):
        rx.enable_events(rfm.EventType.INTR2)
        waiter = asyncio.create_task(rx.wait_event_async(timeout=20))
        await asyncio.sleep(0)          # the waiter is waiting now
        assert not waiter.done()
        tx.send_event(rx.node_id, rfm.EventType.INTR2, 77)
        ev = await waiter
        return ev.type, ev.sender, ev.data

    with rfm.open(uri) as rx, rfm.open(uri) as tx:
        assert run(main(rx, tx)) == (rfm.EventType.INTR2, tx.node_id, 77)


def test_async_events_iterate_until_the_total_deadline_or_idle(uri):
    async def main(rx, tx):
        rx.enable_events()
        for i in range(5):
            tx.send_event(rx.node_id, "intr1", i)
        got = [ev.data async for ev in rx.events_async(timeout=0.05)]
        more = [ev async for ev in rx.events_async(timeout=10, total=0.05)]
        return got, more

    with rfm.open(uri) as rx, rfm.open(uri) as tx:
        got, more = run(main(rx, tx))
    assert got == [0, 1, 2, 3, 4]
    assert more == []


def test_wait_event_async_times_out_as_timeout_error(node):
    async def main():
        node.enable_events()
        await node.wait_event_async(timeout=0.01)

    with pytest.raises(TimeoutError):
        run(main())


def test_cancelling_an_async_event_wait_leaves_the_node_usable(uri):
    async def main(rx, tx):
        rx.enable_events()
        waiter = asyncio.create_task(rx.wait_event_async())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        tx.send_event(rx.node_id, "intr1", 5)
        return (await rx.wait_event_async(timeout=20)).data

    with rfm.open(uri) as rx, rfm.open(uri) as tx:
        assert run(main(rx, tx)) == 5


def test_consume_async_leaves_the_loop_free(uri):
    async def main(node, ring, consumer):
        waiter = asyncio.create_task(consumer.consume_async(timeout=20))
        await asyncio.sleep(0.01)
        assert not waiter.done()
        ring.publish(b"late")
        msg = await waiter
        ring.publish(b"a")
        ring.publish(b"b")
        rest = [m.data async for m in consumer.messages_async(timeout=0.05)]
        return msg.data, rest

    with rfm.open(uri) as node:
        ring = node.ring_create(0x1000, 0x8000, slot_size=64, slot_count=64)
        with node.ring_consumer(0x1000) as consumer:
            assert run(main(node, ring, consumer)) == (b"late", [b"a", b"b"])


def test_cancelling_consume_async_loses_no_message(uri):
    async def main(ring, consumer):
        waiter = asyncio.create_task(consumer.consume_async())
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        ring.publish(b"kept")
        return (await consumer.consume_async(timeout=20)).data

    with rfm.open(uri) as node:
        ring = node.ring_create(0x1000, 0x8000, slot_size=64, slot_count=64)
        with node.ring_consumer(0x1000) as consumer:
            assert run(main(ring, consumer)) == b"kept"


def test_record_changes_async(uri):
    layout = rfm.Layout.from_string(RECORD_LAYOUT)

    async def main(writer, reader):
        waiter = asyncio.create_task(reader.wait_async(timeout=20))
        await asyncio.sleep(0.01)
        assert not waiter.done()
        writer.write({"cycle": 1})
        seq = await waiter
        writer.write({"cycle": 2})
        changes = [c async for c in reader.changes_async(last=seq, timeout=0.05)]
        return seq, changes

    with rfm.open(uri) as wn, rfm.open(uri) as rn:
        writer = wn.attach_layout(layout).record("plant.state")
        reader = rn.attach_layout(layout).record("plant.state")
        seq, changes = run(main(writer, reader))
    assert seq % 2 == 0 and seq > 0
    assert [c.values for c in changes] == [{"cycle": 2}]
    assert changes[0].seq > seq


def test_awaits_that_wait_long_do_not_starve_the_others(name):
    # More idle awaits than worker threads, started first: each holds a
    # worker only for a slice, so the await whose message comes still gets
    # a turn (it used to wait behind them for ever: the run's guard fails it).
    from rfm import _waits
    idle_count = _waits.WORKERS + 4

    async def main(live_ring, live, idle):
        idle_waits = [asyncio.create_task(c.consume_async()) for c in idle]
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(live.consume_async(timeout=20))
        live_ring.publish(b"mine")
        data = (await waiter).data
        for w in idle_waits:
            w.cancel()
        await asyncio.gather(*idle_waits, return_exceptions=True)
        return data

    with rfm.open(f"shm:{name}?size=1M") as node:
        rings = [node.ring_create(i * 0x8000, 0x8000, slot_size=64, slot_count=16)
                 for i in range(idle_count + 1)]
        consumers = [node.ring_consumer(i * 0x8000) for i in range(idle_count + 1)]
        try:
            assert run(main(rings[-1], consumers[-1], consumers[:-1])) == b"mine"
        finally:
            for c in consumers:
                c.close()
