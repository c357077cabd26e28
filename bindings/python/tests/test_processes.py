# SPDX-License-Identifier: LGPL-2.1-or-later
"""Nodes in separate processes: each writes its region, all verify each other.

Peers are driven request by reply (see peer.py), so every step waits on a
signal from the other side, never on a sleep; peers are stopped by PID.
"""

import multiprocessing
import os

import pytest

import rfm


def test_three_nodes_in_three_processes(uri, peers):
    a, b = peers(uri), peers(uri)
    with rfm.open(uri) as me:
        ids = {a.node_id, b.node_id, me.node_id}
        assert len(ids) == 3
        # Each node owns a 1 KiB region at node_id * 1024 and fills it.
        regions = {}
        for writer in (a, b, me):
            base = writer.node_id * 1024
            data = bytes((writer.node_id * 7 + i) & 0xFF for i in range(256))
            writer.write(base, data)
            regions[base] = data
        for base, data in regions.items():
            assert me.read(base, 256) == data
            assert a.read(base, 256) == data
            assert b.read(base, 256) == data
        # Words too: each peer sees the others' pokes.
        a.poke32(4000, 0xA)
        b.poke32(4004, 0xB)
        me.poke32(4008, 0xC)
        assert [me.peek32(4000), me.peek32(4004)] == [0xA, 0xB]
        assert [a.peek32(4004), a.peek32(4008)] == [0xB, 0xC]
        assert [b.peek32(4000), b.peek32(4008)] == [0xA, 0xC]
    assert a.close() == 0
    assert b.close() == 0


def test_publish_data_then_flag(uri, peers):
    reader = peers(uri)
    with rfm.open(uri) as writer:
        for seq in range(1, 21):
            payload = seq.to_bytes(4, "little") * 16
            writer.write(0x1000, payload)
            rfm.fence_release()
            writer.poke32(0x0FFC, seq)
            assert reader.wait32(0x0FFC, seq)  # the reader saw the flag...
            assert reader.read(0x1000, 64) == payload  # ...and the data before it


def test_node_id_of_a_killed_process_is_reclaimed(name, peers):
    explicit = f"shm:{name}?node=17&size=64K"
    victim = peers(explicit)
    assert victim.node_id == 17
    with pytest.raises(rfm.Busy):
        rfm.open(explicit)
    victim.kill()
    with rfm.open(explicit) as heir:
        assert heir.node_id == 17


def test_destroy_refused_while_a_peer_is_attached(name, peers):
    uri = f"shm:{name}?size=64K"
    peer = peers(uri)
    with pytest.raises(rfm.Busy):
        rfm.destroy(uri)
    assert peer.close() == 0
    rfm.destroy(uri)
    with pytest.raises(rfm.NotFound):
        rfm.destroy(uri)


def test_peer_reports_library_errors(uri, peers):
    peer = peers(uri)
    with pytest.raises(rfm.AlignmentError):
        peer.peek32(2)
    with pytest.raises(rfm.RangeError):
        peer.peek32(1 << 20)
    assert peer.close() == 0


def test_multiprocessing_spawn(uri):
    import peer as peer_module

    ctx = multiprocessing.get_context("spawn")
    ready, go, results = ctx.Event(), ctx.Event(), ctx.Queue()
    with rfm.open(uri) as me:
        child = ctx.Process(target=peer_module.spawn_child, args=(uri, 0x500, ready, go, results))
        child.start()
        try:
            assert ready.wait(timeout=30), "child never opened the network"
            assert me.peek32(0x500) == 0xC0FFEE
            me.poke32(0x504, 99)
            me.write(0x508, b"spawn")
            go.set()
            child_id, word, data = results.get(timeout=30)
        finally:
            child.join(timeout=30)
            if child.is_alive():
                child.kill()
                child.join()
        assert child.exitcode == 0
        assert child_id != me.node_id
        assert (word, data) == (99, b"spawn")


def test_forked_child_lets_go_of_the_parents_node(name):
    explicit = f"shm:{name}?node=21&size=64K"
    with rfm.open(explicit) as node:
        node.poke32(0, 1)
        pid = os.fork()
        if pid == 0:  # the child: report by exit status only
            status = 0
            try:
                node.peek32(0)
                status = 1
            except rfm.ClosedError as e:
                if "parent process" not in e.message:
                    status = 2
            node.close()  # harmless: already closed by the fork hook
            try:
                with rfm.open(explicit):
                    status = 3  # the id should still be the parent's
            except rfm.Busy:
                pass
            except BaseException:  # noqa: BLE001
                status = 4
            try:
                with rfm.open(f"shm:{name}?size=64K") as own:  # a node of its own
                    if own.node_id == 21 or own.peek32(0) != 1:
                        status = 5
            except BaseException:  # noqa: BLE001
                status = 6
            os._exit(status)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert node.peek32(0) == 1  # the parent's node is untouched
        with pytest.raises(rfm.Busy):
            rfm.open(explicit)
