# SPDX-License-Identifier: LGPL-2.1-or-later
"""Rings (<rfm/ring.h>) and node health (<rfm/health.h>) from Python."""

import os
import subprocess
import sys
import threading

from typing import List

import pytest

import rfm

RING = 0x1000          # 64-byte aligned, inside the 64 KiB test window
RING_BYTES = 0xE000     # the table alone is 17 KiB (a row per node id)


def make_ring(node, slot_count=8, **kw):
    return node.ring_create(RING, RING_BYTES, slot_size=64, slot_count=slot_count, **kw)


def test_publish_consume_order_and_content(node):
    ring = make_ring(node)
    with node.ring_consumer(RING) as consumer:
        for i in range(5):
            ring.publish(b"msg-%d" % i)
        ring.publish(bytearray(b"\x00\xff"))            # any bytes-like object
        ring.publish(memoryview(b"view"))
        got = [consumer.consume(timeout=0) for _ in range(7)]
        assert [m.data for m in got] == [b"msg-0", b"msg-1", b"msg-2", b"msg-3", b"msg-4",
                                         b"\x00\xff", b"view"]
        assert [m.seq for m in got] == list(range(7))
        assert all(m.lost == 0 for m in got) and isinstance(got[0], rfm.RingMessage)
        with pytest.raises(rfm.WouldBlock):
            consumer.consume(timeout=0)
        with pytest.raises(rfm.Timeout):
            consumer.consume(timeout=0.01)
        assert consumer.stats()["taken"] == 7
        assert ring.info()["head"] == 7 and consumer.info()["slot_count"] == 8
    ring.close()


def test_iteration_and_newest(node):
    ring = make_ring(node)
    ring.publish(b"old")
    with node.ring_consumer(RING, newest=True) as consumer:
        for i in range(3):
            ring.publish(bytes([i]) * (i + 1))
        assert [(m.data, m.seq) for m in consumer.messages(timeout=0)] == \
            [(b"\x00", 1), (b"\x01\x01", 2), (b"\x02\x02\x02", 3)]
        ring.publish(b"last")
        assert [m.data for m in consumer.messages(timeout=0)] == [b"last"]
    ring.close()


def test_lapped_consumer_counts_what_it_lost(node):
    ring = make_ring(node, slot_count=4)
    with node.ring_consumer(RING) as consumer:
        for i in range(10):                 # 10 messages into 4 slots: 0..5 are gone
            ring.publish(b"%d" % i)
        first = consumer.consume(timeout=0)
        assert (first.data, first.seq, first.lost) == (b"6", 6, 6)
        rest = list(consumer.messages(timeout=0))
        assert [(m.seq, m.lost) for m in rest] == [(7, 0), (8, 0), (9, 0)]
        assert consumer.stats()["lost"] == 6 and consumer.stats()["laps"] >= 1
    ring.close()


def test_backpressure_refuses_to_lap(node):
    ring = make_ring(node, slot_count=4, backpressure=True)
    with node.ring_consumer(RING, backpressure=True) as consumer:
        for i in range(4):
            ring.publish(b"%d" % i, timeout=0)
        with pytest.raises(rfm.DataLoss) as err:
            ring.publish(b"4", timeout=0)
        assert err.value.code == rfm.ErrorCode.EOVERRUN
        with pytest.raises(rfm.Timeout):
            ring.publish(b"4", timeout=0.01)
        assert consumer.consume(timeout=0).data == b"0"
        ring.publish(b"4", timeout=0)       # room again
        assert [m.data for m in consumer.messages(timeout=0)] == [b"1", b"2", b"3", b"4"]
    ring.publish(b"5", timeout=0)           # no registered consumer holds it back
    ring.close()


def test_inspect_shows_consumers_read_only(node):
    ring = make_ring(node, slot_count=4, notify=True, backpressure=True)
    info, views = node.ring_inspect(RING)
    assert info["head"] == 0 and info["slot_count"] == 4 and views == []
    with node.ring_consumer(RING, backpressure=True) as bp, node.ring_consumer(RING) as plain:
        for i in range(4):
            ring.publish(b"%d" % i, timeout=0)
        bp.consume(timeout=0)
        info, views = node.ring_inspect(RING)
        assert info["head"] == 4
        assert [(v.node, v.entry, v.pid, v.cursor, v.lag, v.laps) for v in views] == \
            [(node.info().node_id, 0, os.getpid(), 1, 3, 0),
             (node.info().node_id, 1, os.getpid(), 0, 4, 0)]
        assert views[0].backpressure and not views[0].holding and not views[1].backpressure
        assert isinstance(views[0], rfm.RingConsumerView)
    assert node.ring_inspect(RING)[1] == []
    with pytest.raises(rfm.Error):
        node.ring_inspect(0x8000)                   # no ring there
    ring.close()


def test_blocking_consume_wakes_for_another_thread(node):
    ring = make_ring(node)
    with node.ring_consumer(RING) as consumer:
        got = []
        thread = threading.Thread(target=lambda: got.append(consumer.consume(timeout=30)))
        thread.start()                      # waits without the GIL ...
        ring.publish(b"wake")               # ... so this thread runs
        thread.join()
        assert got[0].data == b"wake"
    ring.close()


def test_threads_sharing_a_consumer_take_each_message_once(node):
    # Two threads on one Consumer once got a message twice.
    # Four threads and spinning waits make it likely without the lock: a
    # race, so this catches a missing lock in about one run of three.
    total = 20000
    ring = make_ring(node, slot_count=128, backpressure=True)
    consumer = node.ring_consumer(RING, backpressure=True)
    # Waits that never sleep: both threads sit in the C call together,
    # which is when an unserialised handle hands one message to both.
    node.set_spin(-1)
    seqs: List[List[int]] = [[] for _ in range(4)]

    def take(mine):
        try:
            while True:
                mine.append(consumer.consume(timeout=1.0).seq)
        except rfm.Timeout:
            pass

    threads = [threading.Thread(target=take, args=(mine,)) for mine in seqs]
    for t in threads:
        t.start()
    for i in range(total):
        ring.publish(b"%d" % i, timeout=10)
    for t in threads:
        t.join()
    every = [seq for mine in seqs for seq in mine]
    assert len(every) == total, (len(every), len(set(every)))
    assert sorted(every) == list(range(total))
    # Each thread saw its messages in order.
    assert all(s == sorted(s) for s in seqs)
    consumer.close()
    ring.close()


def test_bad_input_and_closed_handles(node):
    with pytest.raises(rfm.InvalidArgument):
        node.ring_create(RING, RING_BYTES, slot_size=64, slot_count=3)   # not a power of two
    with pytest.raises(rfm.AlignmentError):
        node.ring_create(RING + 8, RING_BYTES, slot_size=64, slot_count=8)
    with pytest.raises(rfm.RangeError):
        node.ring_create(RING, 256, slot_size=64, slot_count=8)      # does not fit
    with pytest.raises(rfm.RangeError):
        node.ring_create(0xFFC0, RING_BYTES, slot_size=64, slot_count=8)  # past the window
    with pytest.raises(rfm.CorruptError):
        node.ring_consumer(0xA000)                                       # no ring there
    ring = make_ring(node)
    with pytest.raises(TypeError):
        ring.publish("text")
    with pytest.raises(rfm.InvalidArgument):
        ring.publish(b"x" * 65)                                          # > slot_size
    with pytest.raises(rfm.NotSupported):
        node.ring_consumer(RING, backpressure=True)                      # ring without it
    consumer = node.ring_consumer(RING)
    consumer.close()
    consumer.close()                                                     # twice is harmless
    assert consumer.closed
    with pytest.raises(rfm.ClosedError):
        consumer.consume(timeout=0)
    ring.close()
    with pytest.raises(rfm.ClosedError):
        ring.publish(b"x")


def test_closing_the_node_closes_its_rings(uri):
    node = rfm.open(uri)
    ring = make_ring(node)
    consumer = node.ring_consumer(RING)
    node.close()
    assert ring.closed and consumer.closed
    with pytest.raises(rfm.ClosedError):
        ring.publish(b"x")
    with pytest.raises(rfm.ClosedError):
        consumer.consume(timeout=0)


PRODUCER = r"""
import sys, rfm
with rfm.open(sys.argv[1]) as node:
    ring = node.ring_create(%d, %d, slot_size=64, slot_count=128)
    print(node.node_id, flush=True)             # ready: the ring exists
    assert sys.stdin.readline() == "go\n"
    for i in range(100):
        ring.publish(b"p%%03d" %% i)
    ring.close()
    print("done", flush=True)
    sys.stdin.readline()                        # stay attached until told
""" % (RING, RING_BYTES)


def test_cross_process_producer(uri):
    with subprocess.Popen([sys.executable, "-c", PRODUCER, uri], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, bufsize=1) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            producer_id = int(proc.stdout.readline())
            with rfm.open(uri) as me, me.ring_consumer(RING) as consumer:
                assert consumer.info()["producer"] == producer_id
                proc.stdin.write("go\n")
                msgs = [consumer.consume(timeout=30) for _ in range(100)]
                assert [m.data for m in msgs] == [b"p%03d" % i for i in range(100)]
                assert [m.seq for m in msgs] == list(range(100))
                assert sum(m.lost for m in msgs) == 0
                assert proc.stdout.readline() == "done\n"
            proc.stdin.write("\n")
            proc.stdin.close()
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, 9)
                proc.wait()


def test_health_node_table_shows_us(uri):
    with rfm.open(uri) as me, rfm.open(uri) as other:
        me.health_start(period=0.01)
        me.health_beat()
        rows = {row.id: row for row in me.nodes()}
        mine = rows[me.node_id]
        assert mine.attached and mine.alive and mine.pid == os.getpid()
        assert mine.incarnation >= 1 and mine.beats >= 1 and mine.age is not None
        assert rows[other.node_id].attached and isinstance(rows[other.node_id], rfm.NodeStatus)
        with pytest.raises(rfm.Busy):
            me.health_start()
        me.health_stop()
        assert set(me.health_counters()) >= {"events_sent", "ring_lost", "node_ups"}
    with pytest.raises(rfm.ClosedError):
        me.nodes()
    with pytest.raises(rfm.ClosedError):
        me.health_start()


def test_selftest(uri):
    with rfm.open(uri) as node:
        result = node.selftest(0x800)
        assert result.memory_ok and result.memory_errors == 0 and result.event_ok
        assert node.selftest().memory_ok is False       # memory part skipped
        with pytest.raises(rfm.RangeError):
            node.selftest(1 << 40)
