#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: a dead node's traffic replayed (tests/hosts/faultlab.py).

Three nodes on the fault lab's switch, each writing its region,
variables and record, sending an event and publishing its ring 100 times
a second (a rig's loop), beating every 200 ms (a node is down after 15
missed beats, 3 s: a loaded CI host may hold a process back for more than
a second, and the stall this test is about lasted 4.85 s). The switch
records node 1's frames for 3 s, node 1 is killed (SIGKILL), and the
switch plays its recording back for 6 s as node 1's own. DDS has no replay protection (nor has DDS Security): the replay
keeps node 1's participant, its presence and its readers alive at nodes
2 and 3, and their reliable writers used to wait for acknowledgements
that node 1's reader never sends, until its lease ran out after the
replay stopped.

Asserted, at nodes 2 and 3:
- neither is reported down by the other (NODE_DOWN): their beats go out
  through the same writers as their data, so writes that waited for the
  dead node's reader (about 4.85 s of them before the fix) also silenced
  their beats for more than the 15 missed beats (3 s) that make a node
  down; and each reports node 1 down (its beats stopped: the replayed
  ones are old);
- between them nothing is lost: every event each sent is received, no
  LINK, their rings' messages taken or counted lost (a consumer lapped);
- the switch replayed frames (its counter).

The figures are printed, not asserted (no timing assertions in tests: a
loaded host's rates say nothing): rounds before and during, per node, and
their ratio (0.29x before the fix, about 1 on a quiet host after it).
Skipped (77) without root, namespaces, /dev/net/tun or the dds: backend.
"""
import sys

import faultlab
from faultlab import LINK, NODE_DOWN

PACE_US = 10000
BEFORE_MS = 3000
REPLAY_MS = 6000
HEALTHY = (2, 3)


def sent(lab, k):
    answer = lab.nodes[k].ask("sent", quiet=True).split()
    assert answer[0] == "sent", answer
    return int(answer[1])


def window(lab, ms):
    """Rounds each healthy node made in @ms ms of the switch's clock."""
    start = {k: sent(lab, k) for k in HEALTHY}
    lab.ctl("hold", str(ms))
    return {k: sent(lab, k) - start[k] for k in HEALTHY}


def test(make):
    lab = make(3)
    lab.boot(health_ms=200, misses=15, lease_ms=2000)
    downs = {(k, s): lab.nodes[k].count(NODE_DOWN, s) for k in HEALTHY for s in HEALTHY
             if k != s}
    lab.all_ok(f"traffic-start 1 1000000 {PACE_US}")

    lab.ctl("record", "1")
    before = window(lab, BEFORE_MS)
    print(f"recorded node 1: {lab.ctl('record', 'stop')[0]}")
    lab.nodes[1].kill()
    lab.ctl("replay", str(REPLAY_MS))
    during = window(lab, REPLAY_MS)
    ports, _ = lab.stats()
    assert ports[1]["replayed"] > 0, f"the switch replayed nothing: {ports[1]}"

    for k in HEALTHY:
        rate_before = before[k] * 1000 / BEFORE_MS
        rate_during = during[k] * 1000 / REPLAY_MS
        print(f"node {k}: {before[k]} rounds in {BEFORE_MS} ms before, {during[k]} in "
              f"{REPLAY_MS} ms of replay: {rate_during:.1f}/s against {rate_before:.1f}/s "
              f"({rate_during / rate_before:.2f}x)")
    final = {}
    for k in HEALTHY:
        answer = lab.nodes[k].ask("traffic-stop").split()
        assert answer[0] == "sent", f"node {k}: its traffic stopped: {answer}"
        final[k] = int(answer[1])
    for k in HEALTHY:
        lab.nodes[k].wait(NODE_DOWN, 1, 1)

    # Between the healthy nodes: every round's event and ring message,
    # nothing lost, neither seen down.
    for k in HEALTHY:
        for s in HEALTHY:
            if s != k:
                lab.nodes[k].ok(f"settle {s} {final[s]} {faultlab.GUARD_MS}")
    for k in HEALTHY:
        peers, stats = lab.nodes[k].report()
        assert stats["forged"] == 0, f"node {k}: a stream seen taken over: {stats}"
        for s in HEALTHY:
            if s == k:
                continue
            p = peers[s]
            what = f"node {k} about node {s}: {p}"
            assert p["downs"] == downs[k, s], "a healthy node was reported down: " + what
            assert p["links"] == 0 and p["events"] == final[s], "lost between them: " + what
            assert p["taken"] + p["lost"] == final[s] and p["gap"] == p["lost"], \
                "ring messages unaccounted: " + what
            assert lab.nodes[k].count(LINK, s) == 0, what
    print("PASS: a replayed dead node: the healthy nodes wrote on, none was "
          "reported down, nothing was lost between them")


if __name__ == "__main__":
    sys.exit(faultlab.run(test))
