# SPDX-License-Identifier: LGPL-2.1-or-later
"""Network interrupts between processes: a peer (subprocess) and a spawned child."""

import multiprocessing
import threading

import rfm


def test_peer_sends_to_us(uri, peers):
    with rfm.open(uri) as me:
        me.enable_events()
        peer = peers(uri)
        assert peer.call("send", me.node_id, 2, 1234) == ["count", "1"]
        ev = me.wait_event(timeout=30)
        assert (ev.type, ev.sender, ev.data, ev.seq) == (2, peer.node_id, 1234, 1)
        assert peer.close() == 0


def test_we_send_to_the_peer(uri, peers):
    with rfm.open(uri) as me:
        peer = peers(uri)
        assert peer.call("enable") == ["ok"]  # enabled once the reply is here
        assert me.send_event(peer.node_id, rfm.EventType.INTR4, 77) == 1
        words = " ".join(peer.call("waitev", 30)).split()
        assert words == ["event", "4", str(me.node_id), "77", "1", "0"]
        assert peer.close() == 0


def test_publish_data_follows_to_the_peer(uri, peers):
    with rfm.open(uri) as me:
        peer = peers(uri)
        peer.call("enable")
        receivers, seq = me.publish(0x200, b"\x01\x02\x03\x04", 0x1F0, peer.node_id,
                                    rfm.EventType.INTR1)
        assert (receivers, seq) == (1, 1)
        words = " ".join(peer.call("waitev", 30)).split()
        assert words[:4] == ["event", "1", str(me.node_id), "1"]
        assert peer.read(0x200, 4) == b"\x01\x02\x03\x04"  # the data came first
        assert peer.close() == 0


def test_callback_sees_a_peers_events(uri, peers):
    with rfm.open(uri) as me:
        me.enable_events()
        got, done = [], threading.Event()

        def on_intr3(ev):
            got.append((ev.sender, ev.data))
            if len(got) == 100:
                done.set()

        me.on_event(3, on_intr3)
        peer = peers(uri)
        for i in range(100):
            peer.call("send", me.node_id, 3, i)
        assert done.wait(30)
        assert got == [(peer.node_id, i) for i in range(100)]
        me.remove_callback(3)
        assert peer.close() == 0


def test_multiprocessing_spawn_receives(uri):
    import peer as peer_module

    ctx = multiprocessing.get_context("spawn")
    ready, results = ctx.Event(), ctx.Queue()
    with rfm.open(uri) as me:
        child = ctx.Process(target=peer_module.spawn_event_child, args=(uri, ready, results))
        child.start()
        try:
            assert ready.wait(timeout=60), "child never enabled its events"
            # The child's node id: the only other attached one that receives.
            sent = me.broadcast_event(rfm.EventType.INTR3, 31)
            assert sent == 1
            me.broadcast_event(rfm.EventType.INTR3, 32)
            child_id, got = results.get(timeout=60)
        finally:
            child.join(timeout=60)
            if child.is_alive():
                child.kill()
                child.join()
        assert child.exitcode == 0
        assert [(t, s, d, q) for t, s, d, q, _, _ in got] == [
            (3, me.node_id, 31, 1), (3, me.node_id, 32, 2)]
        assert child_id != me.node_id
