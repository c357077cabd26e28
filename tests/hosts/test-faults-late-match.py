#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: a write made before a peer's reader matched the writer's stream
(tests/hosts/faultlab.py).

Cyclone delivers a volatile stream's samples only to the readers its
writer has matched when it sends them. Node 3 opens (its copy from node 1)
while every frame between it and node 2 is dropped, so node 2 does not
know it; node 3 creates its ring (the header is a write of its stream)
and then writes nothing more. The rule is cleared: node 2 discovers node
3 and their streams match. Node 2 must get that header anyway: the RFM
promise is that every write arrives, or the loss is reported with an
RFM_EVENT_LINK and a resync repairs the copy. Before the fix node 2 never
learnt that anything was missing (a gap was seen only when node 3's next
sample arrived, and there was none): its rings-open ran into the guard
with "no ring there (bad magic)", as in a loaded CI run of
test-faults-heavy-loss.py.

Then node 2 must have a LINK from node 3 (what it missed is reported)
and node 1 none (it missed nothing), and every copy of the window agrees.

Skipped (77) without root, namespaces, /dev/net/tun or the dds: backend.
"""
import sys

import faultlab


def test(make):
    lab = make(3)
    lab.start(1)
    lab.start(2)
    lab.all_ok("ring-create")
    # Nothing between 2 and 3, both ways, from before node 3 exists.
    lab.ctl("set", "from=2", "to=3", "drop=1")
    lab.ctl("set", "from=3", "to=2", "drop=1")
    lab.start(3)
    lab.all_ok("ring-create", only={3})
    lab.all_ok(f"rings-open {faultlab.GUARD_MS}", only={1, 3})
    # Node 3 announced itself and wrote: the switch dropped that on its way
    # to node 2, which so does not know node 3. Node 2 may have sent nothing
    # node 3's way meanwhile (its next discovery announcement can come after
    # node 3's ring-create: seen under TSan), so no count is asked of it.
    ports, _ = lab.stats()
    assert ports[3]["dropped"] > 0, ports
    lab.ctl("clear")
    # Node 3's header reaches node 2 (or node 2 is told it lost it and asks).
    lab.all_ok(f"rings-open {faultlab.GUARD_MS}", only={2})
    lab.nodes[2].wait(faultlab.LINK, 3, 1)
    assert lab.nodes[1].count(faultlab.LINK, 3) == 0, "node 1 missed nothing of node 3"
    digests = {k: n.ask("digest nobeats", quiet=True) for k, n in lab.nodes.items()}
    print(f"  digests: {digests}")
    assert len(set(digests.values())) == 1, f"copies differ: {digests}"
    print("PASS: a write made before a reader matched reaches it (LINK and resync)")


if __name__ == "__main__":
    sys.exit(faultlab.run(test))
