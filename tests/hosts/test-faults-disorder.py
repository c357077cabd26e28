#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: with duplicated, reordered and delayed frames (tests/hosts/faultlab.py).

Four nodes on the fault lab's switch, which duplicates 5% of the frames
of every pair, holds 10% up to 20 ms more so that later ones overtake
them, and delays every frame 1 ms plus up to 4 ms of jitter. The switch's
counters must show each fault on every port. Meanwhile every node writes,
sends events and publishes its ring, 300 rounds; then: no event delivered
twice or out of its sender's order, rings in order, windows converge byte
for byte, nothing torn, nothing lost unreported.

Skipped (77) without root, namespaces, /dev/net/tun or the dds: backend.
"""
import sys

import faultlab

ROUNDS = 300


def test(make):
    lab = make(4)
    lab.boot()
    lab.ctl("zero")
    lab.ctl("set", "dup=0.05", "reorder=0.1", "reorder_ms=20", "delay=1", "jitter=4")
    lab.traffic(1, ROUNDS, 2000)
    ports, _ = lab.stats()
    lab.ctl("clear")
    for k, p in ports.items():
        print(f"  switch port {k}: {p}")
        for counter in ("duplicated", "reordered", "delayed"):
            assert p[counter] > 0, f"port {k}: no frame {counter}: {p}"
    lab.settle(ROUNDS)
    lab.converge(ROUNDS)
    lab.account(ROUNDS)
    print("PASS: duplicates, reordering, delay jitter: no event twice, order kept, "
          "windows converge")


if __name__ == "__main__":
    sys.exit(faultlab.run(test))
