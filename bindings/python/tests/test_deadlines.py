# SPDX-License-Identifier: LGPL-2.1-or-later
"""Iterators end by a total deadline as well as an idle timeout (issue 41).

``timeout`` is the idle timeout (the iteration ends when nothing arrives
for that long); ``total`` is the total deadline (it ends that long after it
began, however busy the source). A source that never pauses used to keep
an idle-only loop going for ever: each test's producer goes on far longer
than the deadline and the test asserts the loop ended while it still ran,
so a loop that ignores the deadline fails (when the producer stops) instead
of hanging, and nothing depends on how fast the machine is.
"""

import threading

import pytest

import rfm
from conftest import RECORD_LAYOUT

PRODUCER_GUARD = 3000   # messages at 5 ms: 15 s, far beyond every deadline below
PERIOD = 0.005


class Producer(threading.Thread):
    """Calls step(i) every PERIOD seconds until stopped or PRODUCER_GUARD steps."""

    def __init__(self, step):
        super().__init__(daemon=True)
        self.step = step
        self.halt = threading.Event()
        self.finished = threading.Event()
        self.steps = 0

    def run(self):
        try:
            for i in range(PRODUCER_GUARD):
                if self.halt.wait(PERIOD):
                    return
                self.step(i)
                self.steps += 1
        finally:
            self.finished.set()

    def stop(self):
        self.halt.set()
        self.join(30)


@pytest.fixture
def producers():
    started = []

    def start(step):
        p = Producer(step)
        started.append(p)
        p.start()
        return p

    yield start
    for p in started:
        p.stop()


def test_messages_end_by_the_total_deadline_under_a_steady_producer(uri, producers):
    with rfm.open(uri) as node:
        ring = node.ring_create(0x1000, 0x8000, slot_size=64, slot_count=64)
        with node.ring_consumer(0x1000) as consumer:
            producer = producers(lambda i: ring.publish(i.to_bytes(4, "little")))
            got = [int.from_bytes(m.data, "little") for m in
                   consumer.messages(timeout=5.0, total=0.2)]
            assert not producer.finished.is_set(), "the loop waited for the producer to stop"
            producer.stop()
    assert got, "no message within the deadline"
    assert got == list(range(got[0], got[0] + len(got)))   # in order, none skipped


def test_messages_still_end_by_the_idle_timeout(uri):
    with rfm.open(uri) as node:
        ring = node.ring_create(0x1000, 0x8000, slot_size=64, slot_count=64)
        with node.ring_consumer(0x1000) as consumer:
            for i in range(3):
                ring.publish(bytes([i]))
            assert [m.data for m in consumer.messages(timeout=0.05, total=30)] == \
                [b"\x00", b"\x01", b"\x02"]
            assert list(consumer.messages(timeout=0)) == []


def test_events_end_by_the_total_deadline_under_a_steady_sender(uri, producers):
    with rfm.open(uri) as rx, rfm.open(uri) as tx:
        rx.enable_events(rfm.EventType.INTR1)
        producer = producers(lambda i: tx.send_event(rx.node_id, rfm.EventType.INTR1, i))
        got = [ev.data for ev in rx.events(timeout=5.0, total=0.2)]
        assert not producer.finished.is_set(), "the loop waited for the sender to stop"
        producer.stop()
    assert got == list(range(got[0], got[0] + len(got)))


def test_record_changes_end_by_the_total_deadline(uri, producers):
    layout = rfm.Layout.from_string(RECORD_LAYOUT)
    with rfm.open(uri) as writer_node, rfm.open(uri) as reader_node:
        writer = writer_node.attach_layout(layout).record("plant.state")
        reader = reader_node.attach_layout(layout).record("plant.state")
        producer = producers(lambda i: writer.write({"cycle": i + 1}))
        changes = list(reader.changes(timeout=5.0, total=0.2))
        assert not producer.finished.is_set(), "the loop waited for the writer to stop"
        producer.stop()
    assert changes
    cycles = [c.values["cycle"] for c in changes]
    assert cycles == sorted(cycles) and len(set(cycles)) == len(cycles)   # each one new
    seqs = [c.seq for c in changes]
    assert all(s % 2 == 0 for s in seqs) and seqs == sorted(seqs)


def test_record_changes_end_by_the_idle_timeout(uri):
    layout = rfm.Layout.from_string("""\
version: 1
window: 64K
regions:
  - { name: r, offset: 0, size: 0x100, writer: 0,
      records: [ { name: s, variables: [ { name: v, type: u32 } ] } ] }
""")
    with rfm.open(uri) as node:
        rec = node.attach_layout(layout).record("r.s")
        assert list(rec.changes(timeout=0.02)) == []


@pytest.mark.parametrize("kwargs", [{"total": "1"}, {"total": -1}, {"timeout": "x"}])
def test_bad_deadlines_are_refused_at_once(node, kwargs):
    node.enable_events()
    with pytest.raises((TypeError, ValueError)):
        next(node.events(**kwargs))
