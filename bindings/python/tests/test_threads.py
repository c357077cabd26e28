# SPDX-License-Identifier: LGPL-2.1-or-later
"""Python threads sharing a node: closing under running calls is safe."""

import threading

import rfm


def hammer(node, index, started, errors, counts):
    """Peek and poke until the node is closed; record anything unexpected."""
    offset = index * 8
    n = 0
    try:
        while True:
            node.poke32(offset, n & 0xFFFFFFFF)
            if node.peek32(offset) != n & 0xFFFFFFFF:
                errors.append(f"thread {index}: read back a wrong value")
            node.write(offset + 4, b"\x01")
            n += 1
            if n == 100:
                started.release()
    except rfm.ClosedError:
        counts[index] = n
    except Exception as e:  # noqa: BLE001 - the test reports it
        errors.append(f"thread {index}: {e!r}")


def test_close_while_threads_are_calling(uri):
    threads_count = 4
    node = rfm.open(uri)
    started = threading.Semaphore(0)
    errors: list = []
    counts: dict = {}
    threads = [threading.Thread(target=hammer, args=(node, i, started, errors, counts))
               for i in range(threads_count)]
    for t in threads:
        t.start()
    for _ in threads:  # each thread has made 100 round trips: all are running
        assert started.acquire(timeout=30)
    node.close()
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive()
    assert errors == []
    assert sorted(counts) == list(range(threads_count))  # every thread saw ClosedError
    assert all(n >= 100 for n in counts.values())


def test_threads_open_and_close_concurrently(name):
    uri = f"shm:{name}?size=64K"
    errors = []
    seen = []
    lock = threading.Lock()

    def worker():
        try:
            for _ in range(50):
                with rfm.open(uri) as node:
                    node.poke32(node.node_id * 4, node.node_id)
                    with lock:
                        seen.append(node.node_id)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert len(seen) == 200
    assert set(seen) <= set(range(4))  # at most 4 attached at once: ids 0..3 reused
