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
        # The server's own node beats (its health monitor).
        assert nodes[1]["state"] == "up" and nodes[1]["up"] is True
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
        # Killed: crashed (its process died holding the id), not left.
        assert nodes[4]["state"] == "crashed" and nodes[4]["down"] is True
        assert by_name(snap["vars"])["ctl.mode"]["state"] == "fresh"
        assert by_name(s.get_json("/api/stats")["records"])["plant.frame"]["state"] == "stale"
        got = stale_metrics(s)
        assert got["plant.flow"] == ("4", 1) and got["plant.frame.n"] == ("4", 1)
        assert got["ctl.mode"] == ("1", 0)
    finally:
        rc, err = s.stop()
        assert rc == 0, err


PERIOD_LAYOUT = """\
version: 1
name: period
window: 64K
regions:
  - name: ctl
    offset: 0
    size: 0x100
    writer: 1
    variables:
      - { name: count, type: u32, stale_after: 5s }
      - { name: mode, type: u32 }
    records:
      - name: frame
        stale_after: 5s
        variables:
          - { name: n, type: u32 }
"""


def test_stale_when_not_written_within_stale_after(net, tmp_path):
    """The layout's stale_after: a variable that has not changed, a record
    whose sequence has not advanced, for that long is stale with the reason;
    its writer (the server's own node) is up all along. Each snapshot says
    how long the server has seen no change (unchanged_s) when it judged, so
    the state is checked against the rule on every snapshot seen, however
    late the machine delivers them: stale exactly when unchanged_s passed
    stale_after (5 s, which no loaded machine takes to show a write)."""
    from test_serve import read_events
    layout = tmp_path / "period.yaml"
    layout.write_text(PERIOD_LAYOUT)
    s = Server(net.node(1), "--layout", str(layout), "--rate", "50", "--allow-write")

    def write(name, value):
        status, got = s.post("/api/vars", {"name": name, "value": value}, token=s.token)
        assert status == 200, got

    def watched(sn):
        got = by_name(sn["vars"])
        got.update(by_name(sn["stats"]["records"]))
        return {n: got[n] for n in ("ctl.count", "ctl.frame")}

    def by_the_rule(item):
        """Fresh while unchanged for at most 5 s, then stale, saying for how long."""
        assert item["unchanged_s"] is not None, item
        if item["unchanged_s"] <= 5.0:
            return item["state"] == "fresh" and item["stale_reason"] is None
        reason = item["stale_reason"] or ""
        assert reason.startswith("not written for ") and reason.endswith(" s"), item
        return item["state"] == "stale" and float(reason.split()[3]) >= 5.0

    seen = []

    def until(pred):
        """Every snapshot on the way obeys the rule; the first meeting @pred."""
        def check(sn):
            items = watched(sn)
            for item in items.values():
                assert by_the_rule(item), item
            seen.append({n: v["state"] for n, v in items.items()})
            return pred(sn, items)
        return read_events(s, 1, check)[0]

    try:
        vars_ = by_name(s.get_json("/api/vars")["vars"])
        assert vars_["ctl.count"]["stale_after_s"] == 5.0
        assert vars_["ctl.mode"]["stale_after_s"] is None
        assert by_name(s.get_json("/api/stats")["records"])["ctl.frame"]["stale_after_s"] == 5.0

        write("ctl.count", 1)
        write("ctl.frame.n", 1)
        until(lambda sn, it: by_name(sn["vars"])["ctl.count"]["value"] == 1 and
              all(v["state"] == "fresh" for v in it.values()))
        # Nothing new for the period: stale, saying why.
        snap = until(lambda sn, it: all(v["state"] == "stale" for v in it.values()))
        assert by_name(snap["vars"])["ctl.mode"]["state"] == "fresh"
        assert by_name(snap["vars"])["ctl.mode"]["unchanged_s"] is None
        vars_ = by_name(s.get_json("/api/vars")["vars"])
        assert vars_["ctl.count"]["state"] == "stale" and by_the_rule(vars_["ctl.count"])
        assert vars_["ctl.mode"]["stale_reason"] is None
        rec = by_name(s.get_json("/api/stats")["records"])["ctl.frame"]
        assert rec["state"] == "stale" and by_the_rule(rec)
        assert stale_metrics(s)["ctl.count"] == ("1", 1)
        assert stale_metrics(s)["ctl.mode"] == ("1", 0)

        # A new value: fresh again. The record is re-published with the same
        # data: its sequence advances, so it is fresh again too.
        write("ctl.count", 2)
        write("ctl.frame.n", 1)
        until(lambda sn, it: by_name(sn["vars"])["ctl.count"]["value"] == 2 and
              all(v["state"] == "fresh" for v in it.values()))
        # The transitions the server reported, in order, for each: fresh,
        # stale, fresh (stale first only if it took 5 s to show the server).
        for name in ("ctl.count", "ctl.frame"):
            order = []
            for st in seen:
                if not order or order[-1] != st[name]:
                    order.append(st[name])
            assert order in (["fresh", "stale", "fresh"],
                             ["stale", "fresh", "stale", "fresh"]), (name, order)
    finally:
        rc, err = s.stop()
        assert rc == 0, err


def test_writer_down_is_the_reason_first(net, tmp_path):
    """A writer that is not there is the reason, with or without a period."""
    from test_serve import next_snapshot
    layout = tmp_path / "period.yaml"
    layout.write_text(PERIOD_LAYOUT.replace("writer: 1", "writer: 5"))
    s = Server(net.node(1), "--layout", str(layout), "--rate", "50")
    try:
        snap = next_snapshot(s, lambda sn: True)
        got = by_name(snap["vars"])
        assert (got["ctl.count"]["state"], got["ctl.count"]["stale_reason"]) == \
            ("stale", "writer not on the network")
        assert (got["ctl.mode"]["state"], got["ctl.mode"]["stale_reason"]) == \
            ("stale", "writer not on the network")
        rec = by_name(snap["stats"]["records"])["ctl.frame"]
        assert (rec["state"], rec["stale_reason"]) == ("stale", "writer not on the network")
    finally:
        rc, err = s.stop()
        assert rc == 0, err


def test_malformed_stale_after_is_refused(net, tmp_path):
    layout = tmp_path / "bad.yaml"
    layout.write_text(PERIOD_LAYOUT.replace("stale_after: 5s }", "stale_after: 0s }"))
    r = subprocess.run([RFM, "-u", net.node(1), "serve", "--port", "0", "--layout", str(layout)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                       env=_environment())
    assert r.returncode != 0
    assert ":10:" in r.stderr and "stale_after '0s' must be 1ms to 24 hours" in r.stderr, r.stderr
