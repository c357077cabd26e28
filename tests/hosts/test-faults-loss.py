#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: under 5% frame loss (tests/hosts/faultlab.py).

Five nodes, each in its namespace on the fault lab's switch, which drops
5% of the frames of every pair, both directions; the fifth joins (its
copy of the window a snapshot) under that loss. Then every node
writes its region (raw bytes, typed variables, a record), sends an event
to all and publishes its ring, 300 rounds. The switch's counters must show
the loss (dropped > 0, 3-7% of the copies offered: a count bound). Then
the faults are cleared and, at every node, for every other node:

- the windows converge byte for byte, each variable holding its writer's
  last value;
- every event sent was received or is covered by an RFM_EVENT_LINK report
  (received + reported lost >= sent), none twice, each sender's order kept;
- each ring's messages arrive in order, gaps only where its loss counter
  says (taken + lost = sent);
- no record read while being written was torn.

Skipped (77) without root, namespaces, /dev/net/tun or the dds: backend.
"""
import sys

import faultlab

ROUNDS = 300


def lossy_run(make, drop, general=""):
    """5 nodes, @drop of every pair's frames lost; the fifth joins under it."""
    lab = make(5, general)

    def lossy():
        lab.ctl("zero")
        lab.ctl("set", f"drop={drop}")

    # Node 5 joins under the loss: its snapshot of the window (the other
    # rings' headers in it) crosses the lossy switch too.
    lab.boot(before_last=lossy)
    lab.traffic(1, ROUNDS, 2000)
    ports, _ = lab.stats()
    lab.ctl("clear")
    offered = sum(p["offered"] for p in ports.values())
    dropped = sum(p["dropped"] for p in ports.values())
    print(f"switch: {dropped} of {offered} frame copies dropped ({100 * dropped / offered:.2f}%)")
    for k, p in ports.items():
        assert p["dropped"] > 0, f"port {k} lost nothing: {p}"
    # Of thousands of copies: a binomial far inside drop +- 40%.
    assert 0.6 * drop * offered < dropped < 1.4 * drop * offered, (dropped, offered)
    lab.settle(ROUNDS)
    lab.converge(ROUNDS)
    reports = lab.account(ROUNDS)
    return sum(p["links"] for r in reports.values() for p in r.values())


def test(make):
    links = lossy_run(make, 0.05)
    print(f"PASS: 5% loss: {links} LINK report(s); windows, events, rings, records accounted")


if __name__ == "__main__":
    sys.exit(faultlab.run(test))
