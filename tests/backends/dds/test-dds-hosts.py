#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The dds: backend across "hosts": network namespaces of one machine.

tests/hosts/netns-lab.sh makes three namespaces on a private bridge
(10.77.0.0/24, nothing in this namespace); one tests/backends/dds/dds-peer runs in
each, driven line by line: every step waits for the peer's answer (a ready
signal), and every wait in a peer has a deadline that is only a hang guard.
Cyclone is told to use eth0 of the namespace, unicast to the three
addresses, with a 1 s participant lease; nodes announce a 10 s presence
lease, so a node seen down was dropped by DDS discovery itself (its
writers forget it, and what they send meanwhile is lost to it).

Cases: memory, events, records and a ring across two namespaces; a write
and the event after it go out as one packet (coalescing), in order, and a
write no event follows still arrives; a late joiner
sees the window; kill -9 of a node -> NODE_DOWN; the link pulled and
plugged again -> NODE_DOWN on both sides, NODE_UP, the gap counted
(RFM_EVENT_LINK) and the lost write back after the resync; a node of
another window size met when its link comes up -> RFM_EVENT_LINK, data 0,
on both sides.

Root and `ip netns` are needed: otherwise exit 77 with the reason.
Namespaces and peers are removed on every way out.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get("srcdir", os.path.join(HERE, "..", ".."))
LAB = os.path.join(SRCDIR, "tests", "hosts", "netns-lab.sh")
PEER = os.path.abspath(os.environ.get("RFM_DDS_PEER", "tests/backends/dds/dds-peer"))

sys.path.insert(0, HERE)
import dds_peer  # noqa: E402
from dds_peer import GUARD_MS  # noqa: E402

INTR1, INTR2, NODE_UP, NODE_DOWN, LINK = 1, 2, 17, 18, 19


def skip(why):
    print(f"test-dds-hosts: SKIP: {why}")
    sys.exit(77)


class Peer(dds_peer.Peer):
    """A dds-peer in namespace K, node id K."""

    def __init__(self, lab_env, k, uri, libpath):
        env = dict(lab_env)
        env["LD_LIBRARY_PATH"] = libpath
        super().__init__([LAB, "exec", str(k), PEER, uri], env, k)


def main():
    if os.geteuid() != 0:
        skip("network namespaces need root")
    if not shutil.which("ip"):
        skip("no ip command (Debian: iproute2)")
    try:
        with open("config.h") as f:
            has_dds = "#define HAVE_DDS 1" in f.read()
    except OSError:
        has_dds = False
    if not has_dds:
        skip("librfm was built without Cyclone DDS (Debian: cyclonedds-dev cyclonedds-tools)")
    if not os.path.exists(PEER):
        skip("tests/backends/dds/dds-peer is not built")
    libpath = os.path.abspath("src/.libs")
    up = subprocess.run([LAB, "up", "3"], capture_output=True, text=True)
    if up.returncode == 77:
        skip(up.stderr.strip())
    assert up.returncode == 0, up.stderr
    lab_env = dict(os.environ, RFM_LAB=up.stdout.strip())
    peers = []
    tmp = tempfile.mkdtemp(prefix="rfm-dds-hosts-")
    try:
        conf = os.path.join(tmp, "cyclone.xml")
        with open(conf, "w") as f:
            f.write('<CycloneDDS><Domain Id="any"><General><Interfaces>'
                    '<NetworkInterface name="eth0"/></Interfaces>'
                    '<AllowMulticast>false</AllowMulticast></General>'
                    '<Discovery><ParticipantIndex>auto</ParticipantIndex>'
                    '<MaxAutoParticipantIndex>10</MaxAutoParticipantIndex>'
                    '<LeaseDuration>1s</LeaseDuration><Peers>'
                    '<Peer Address="10.77.0.1"/><Peer Address="10.77.0.2"/>'
                    '<Peer Address="10.77.0.3"/></Peers></Discovery>'
                    '</Domain></CycloneDDS>')
        lab_env["CYCLONEDDS_URI"] = "file://" + conf
        domain = 20 + os.getpid() % 200

        def uri(k, size="64K"):
            return f"dds:hosts?node={k}&size={size}&domain={domain}&lease=10000&join=1500"

        def start(k, size="64K"):
            p = Peer(lab_env, k, uri(k, size), libpath)
            peers.append(p)
            return p

        print("memory, events, records across two namespaces")
        p1, p2 = start(1), start(2)
        p2.ok(f"enable {1 << INTR1 | 1 << INTR2:x}")
        p1.ok("write 0x100 hello")
        p1.ok("send 2 1 7")
        assert p2.event(INTR1, 1) == 7
        assert p2.ask("read 0x100 5") == "data hello"
        p1.ok("rwrite 42")
        p2.event(INTR2, 1)
        assert p2.ask("rread") == "record 42"
        # A ring made on host 1, consumed on host 2: the event after the
        # create says the ring is in node 2's copy.
        p1.ok("ring-create")
        p1.ok("send 2 1 8")
        assert p2.event(INTR1, 1) == 8
        p2.ok("ring-open")
        for word in ("one", "two", "three"):
            p1.ok(f"ring-pub {word}")
        for word in ("one", "two", "three"):
            assert p2.ask(f"ring-take {GUARD_MS}") == f"msg {word}"

        print("a write and its event: one sample, one packet; order kept")
        burst = 300

        def tx_packets():
            out = subprocess.run([LAB, "exec", "1", "cat", "/sys/class/net/eth0/statistics/tx_packets"],
                                 env=lab_env, capture_output=True, text=True, check=True)
            return int(out.stdout)

        before = tx_packets()
        p1.ok(f"burst {burst} 0x300 2 {INTR1}")
        assert p2.ask(f"check {burst} 0x300 1 {INTR1} {GUARD_MS}") == "ok"
        sent = tx_packets() - before
        print(f"node 1 sent {sent} packets for {burst} writes and their events")
        # One each, and some slack for Cyclone's own traffic; two samples
        # each (a write, then the event) would be 2 * burst at least.
        assert sent < burst * 3 // 2, sent
        p1.ok("write 0x400 alone")  # no event after it: held, then sent anyway
        assert p2.ask(f"until 0x400 alone {GUARD_MS}") == "ok"

        print("a late joiner sees the window")
        p3 = start(3)
        assert p3.ask("read 0x100 5") == "data hello"
        assert p3.ask("rread") == "record 42"

        print("kill -9 of a node: NODE_DOWN")
        health = 1 << NODE_UP | 1 << NODE_DOWN | 1 << LINK
        for p in (p1, p2, p3):
            p.ok(f"enable {health:x}")
            # Beats every 200 ms, down after 20 missed: discovery's 1 s
            # lease says "down" first, when DDS has dropped the node.
            p.ok("health 200 20")
        p1.event(NODE_UP, 3)
        p1.event(NODE_UP, 2)
        p2.event(NODE_UP, 1)
        p3.kill()
        peers.remove(p3)
        p1.event(NODE_DOWN, 3)

        print("link down and up: NODE_DOWN both sides, NODE_UP, gap counted, resync")
        subprocess.run([LAB, "link", "2", "down"], env=lab_env, check=True)
        p1.event(NODE_DOWN, 2)
        p2.event(NODE_DOWN, 1)
        # Written while node 2 is cut off and forgotten: lost to it.
        p1.ok("write 0x200 during")
        subprocess.run([LAB, "link", "2", "up"], env=lab_env, check=True)
        p1.event(NODE_UP, 2)
        p2.event(NODE_UP, 1)
        missed = p2.event(LINK, 1)
        assert missed >= 1, missed
        assert p2.ask(f"until 0x200 during {GUARD_MS}") == "ok"
        print(f"node 2 counted {missed} record(s) of node 1 missed, and resynced")

        print("a node with another window size, met when its link comes up: reported")
        subprocess.run([LAB, "link", "3", "down"], env=lab_env, check=True)
        p3 = start(3, "128K")  # alone: nobody to disagree with
        p3.ok(f"enable {1 << LINK:x}")
        subprocess.run([LAB, "link", "3", "up"], env=lab_env, check=True)
        assert p1.event(LINK, 3) == 0
        assert p3.event(LINK, 1) == 0
        return 0
    finally:
        for p in peers:
            p.stop()
        subprocess.run([LAB, "down"], env=lab_env)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
