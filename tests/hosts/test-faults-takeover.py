#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: a node's stream taken over at the RTPS level (tests/hosts/faultlab.py).

Three nodes on the fault lab's switch, no DDS Security, and a fourth
namespace with a stranger in it. Node 1 writes REAL into a word; the
switch records what node 1 sends meanwhile and saves it as a pcap file;
the stranger (tests/hosts/rtps_forge.py, the Python standard library
only) reads node 1's GUID prefix, its stream writer's entity id, its RTPS
and librfm sequence numbers and the readers' addresses from it, and sends
three RTPS DATA as node 1's stream writer with the next numbers, each
writing EVIL into that word. Nodes 2 and 3 take them as node 1's (the
binding of node ids to participants cannot see it: the GUID is node 1's),
and drop node 1's next three real samples as duplicates.

Asserted:
- the forged writes land at nodes 2 and 3 (EVIL): the attack is real;
- once node 1 writes on, nodes 2 and 3 find the takeover by the digest
  node 1's stream carries (src/backends/dds/dds-digest.c): each counts it
  (`forged` in rfm_event_stats), reports node 1's displaced samples lost
  (RFM_EVENT_LINK), and resyncs node 1's words, so the word holds REAL
  again although node 1 never wrote it again.

Skipped (77) without root, namespaces, /dev/net/tun or the dds: backend.
"""
import os
import subprocess
import sys
import time

import faultlab
from faultlab import LINK

FORGER = os.path.join(faultlab.HERE, "rtps_forge.py")
VICTIMS = (2, 3)


def contested_at(lab, k, want):
    """Wait (the guard) until node k's copy of the contested word reads @want."""
    end = time.monotonic() + faultlab.GUARD_MS / 1000
    while True:
        got = lab.nodes[k].ask("contested", quiet=True).split()[1]
        if got == want or time.monotonic() > end:
            break
        lab.ctl("hold", "20")  # a pause on the switch's clock between two looks
    assert got == want, f"node {k}: the contested word holds {got}, not {want}"


def test(make):
    lab = make(4)
    for k in (1, 2, 3):
        lab.start(k)
    lab.nodes[1].ok("contest REAL")
    for k in VICTIMS:
        contested_at(lab, k, "REAL")

    # What node 1 sends while it writes once more (and its digest follows).
    lab.ctl("record", "1")
    lab.nodes[1].ok("contest REAL")
    lab.ctl("hold", "600")
    print(f"recorded node 1: {lab.ctl('record', 'stop')[0]}")
    pcap = os.path.join(lab.tmp, "node1.pcap")
    lab.ctl("save", pcap)
    links = {k: lab.nodes[k].count(LINK, 1) for k in VICTIMS}

    forger = subprocess.run(
        [faultlab.LAB, "exec", "4", "/usr/bin/python3", FORGER, pcap, "1",
         str(faultlab.CONTESTED), "EVIL", "3"],
        env=lab.env, capture_output=True, text=True, timeout=60)
    print(f"stranger: {forger.stdout.strip()} {forger.stderr.strip()}")
    assert forger.returncode == 0, forger.stderr
    for k in VICTIMS:
        contested_at(lab, k, "EVIL")

    # Node 1 writes on: its first three samples are dropped as duplicates,
    # the rest and its digest come through.
    lab.nodes[1].ok("traffic-start 1 20 10000")
    assert lab.nodes[1].ask(f"traffic-wait {faultlab.GUARD_MS}") == "sent 20"
    for k in VICTIMS:
        contested_at(lab, k, "REAL")
        lab.nodes[k].wait(LINK, 1, links[k] + 1)
        _, stats = lab.nodes[k].report()
        assert stats["forged"] >= 1, f"node {k}: the takeover was not counted: {stats}"
    print("PASS: an RTPS-level takeover of node 1's stream: found by its digest at nodes 2 "
          "and 3, reported (LINK, forged) and undone by a resync")


if __name__ == "__main__":
    sys.exit(faultlab.run(test))
