# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm serve tells stale data from fresh: each variable and record names
its writer node (its region's writer) and is stale while that writer is
down (its heartbeat stopped) or not on the network; nodes that run no
health monitor are "no_heartbeat", not "up"."""
import os
import signal
import subprocess

import pytest

from conftest import RFM, _environment
from serve_helpers import NOT_BUILT, Server, parse_metrics, sample

pytestmark = NOT_BUILT

LAYOUT = """\
version: 1
name: stale
window: 64K
regions:
  - name: ctl
    offset: 0
    size: 0x100
    writer: 1
    variables:
      - { name: mode, type: u32 }
  - name: plant
    offset: 0x100
    size: 0x100
    writer: 4
    variables:
      - { name: flow, type: f64, unit: l/s }
    records:
      - name: frame
        variables:
          - { name: n, type: u32 }
  - name: far
    offset: 0x200
    size: 0x100
    writer: 7
    variables:
      - { name: x, type: f64 }
"""


def beating_node(net, node):
    """rfm listen runs a health monitor: the node beats until it is killed."""
    return subprocess.Popen([RFM, "-u", net.node(node), "listen", "--event", "node_up"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=_environment())


def by_name(items):
    return {v["name"]: v for v in items}


def stale_metrics(s):
    fams = parse_metrics(s.request("GET", "/metrics")[2].decode())
    return {labels["name"]: (labels["writer"], value)
            for labels, value in fams["rfm_var_stale"]["samples"]}


def test_stale_when_writer_is_down(net, tmp_path):
    from test_serve import next_snapshot
    layout = tmp_path / "stale.yaml"
    layout.write_text(LAYOUT)
    s = Server(net.node(1), "--layout", str(layout), "--rate", "50")
    writer = beating_node(net, 4)
    try:
        snap = next_snapshot(s, lambda sn: any(n["id"] == 4 and n["state"] == "up"
                                               for n in sn["nodes"]))
        nodes = {n["id"]: n for n in snap["nodes"]}
        # The server's own node runs no health monitor.
        assert nodes[1]["state"] == "no_heartbeat" and nodes[1]["up"] is True
        assert 7 not in nodes
        vars_ = by_name(s.get_json("/api/vars")["vars"])
        assert {n: (v["writer"], v["state"]) for n, v in vars_.items()} == {
            "ctl.mode": (1, "fresh"), "plant.flow": (4, "fresh"),
            "plant.frame.n": (4, "fresh"), "far.x": (7, "stale")}
        assert by_name(snap["vars"])["far.x"]["state"] == "stale"
        records = by_name(s.get_json("/api/stats")["records"])
        assert (records["plant.frame"]["writer"], records["plant.frame"]["state"]) == \
            (4, "fresh")
        assert stale_metrics(s) == {"ctl.mode": ("1", 0), "plant.flow": ("4", 0),
                                    "plant.frame.n": ("4", 0), "far.x": ("7", 1)}
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    try:
        # Its beats stop: what it wrote is stale, everywhere.
        snap = next_snapshot(s, lambda sn: by_name(sn["vars"])["plant.flow"]["state"] == "stale")
        nodes = {n["id"]: n for n in snap["nodes"]}
        assert 4 not in nodes or nodes[4]["state"] == "down"
        assert by_name(snap["vars"])["ctl.mode"]["state"] == "fresh"
        assert by_name(s.get_json("/api/stats")["records"])["plant.frame"]["state"] == "stale"
        got = stale_metrics(s)
        assert got["plant.flow"] == ("4", 1) and got["plant.frame.n"] == ("4", 1)
        assert got["ctl.mode"] == ("1", 0)
    finally:
        rc, err = s.stop()
        assert rc == 0, err
