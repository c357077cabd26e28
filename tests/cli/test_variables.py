# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm get, set and watch as an operator uses them: a mistyped variable name
gets a did-you-mean, a layout named by a relative $RFM_LAYOUT is looked for
in the directory rfm runs in (and a missing one is named with the path
tried), and a value whose writer node is down is marked stale: a marker in
the text, a "state" key in the JSON and exit status 4 from get, by the
library's rule (rfm_var_stale(), which Python's Table.stale() and the page
of rfm serve use too)."""
import json
import os
import signal
import subprocess

from conftest import RFM, _environment, ok, run_rfm

LAYOUT = """\
version: 1
name: cell
window: 64K
regions:
  - name: sim
    offset: 0
    size: 0x100
    writer: 1
    variables:
      - { name: heartbeat, type: u64 }
    records:
      - name: state
        variables:
          - { name: speed, type: f64, unit: rpm }
          - { name: temperatures, type: f32, count: 4, unit: degC }
  - name: ctl
    offset: 0x100
    size: 0x100
    writer: 0
    variables:
      - { name: mode, type: u32 }
"""


def layout_file(tmp_path):
    path = tmp_path / "cell.yaml"
    path.write_text(LAYOUT)
    return str(path)


# ---- did you mean ----

def test_get_set_watch_suggest_the_variable_meant(net, tmp_path):
    layout = layout_file(tmp_path)
    for args, wrong, meant in [
            (["get"], "sim.state.sped", "sim.state.speed"),
            (["get"], "sim.stat", "sim.state"),
            (["set"], "ctl.mod", "ctl.mode"),
            (["watch", "--count", "1"], "sim.hartbeat", "sim.heartbeat"),
            (["get"], "sim.state.temperatrues[2]", "sim.state.temperatures[2]")]:
        extra = ["1"] if args == ["set"] else []
        r = run_rfm("-u", net.node(0), *args, "--layout", layout, wrong, *extra)
        assert r.rc == 1, r
        assert f"no variable named '{wrong.split('[')[0]}'" in r.err, r
        assert f"did you mean '{meant}'?" in r.err, r
        assert r.out == "", r


def test_a_name_far_from_every_variable_gets_no_guess(net, tmp_path):
    r = run_rfm("-u", net.node(0), "get", "--layout", layout_file(tmp_path), "pressure")
    assert r.rc == 1 and "no variable named 'pressure'" in r.err, r
    assert "did you mean" not in r.err, r


# ---- $RFM_LAYOUT relative to where rfm runs ----

def run_in(cwd, *args, env=None):
    return subprocess.run([RFM, *args], cwd=cwd, capture_output=True, text=True,
                          env=_environment(env), timeout=60)


def test_relative_rfm_layout_is_read_from_the_working_directory(net, tmp_path):
    work = tmp_path / "rig"
    (work / "layouts").mkdir(parents=True)
    (work / "layouts" / "cell.yaml").write_text(LAYOUT)
    ok(run_rfm("-u", net.node(0), "set", "--layout", str(work / "layouts" / "cell.yaml"),
               "ctl.mode", "2"))
    r = run_in(work, "-u", net.uri, "get", "ctl.mode", env={"RFM_LAYOUT": "layouts/cell.yaml"})
    # Node 0 set it and left: stale (exit 4), but read from the file named.
    assert (r.returncode, r.stdout) == (4, "2\n"), r


def test_a_missing_layout_names_the_path_tried(net, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = run_in(elsewhere, "-u", net.uri, "get", "ctl.mode",
               env={"RFM_LAYOUT": "layouts/cell.yaml"})
    assert r.returncode == 1, r
    tried = os.path.join(str(elsewhere), "layouts", "cell.yaml")
    assert f"'{tried}'" in r.stderr, r
    assert "RFM_LAYOUT" in r.stderr and str(elsewhere) in r.stderr, r
    # --layout names its file the same way.
    r = run_in(elsewhere, "-u", net.uri, "get", "--layout", "nope.yaml", "ctl.mode")
    assert r.returncode == 1 and f"'{elsewhere}/nope.yaml'" in r.stderr, r


# ---- stale values ----

def beating_writer(net, node):
    """A node that beats (rfm listen runs a health monitor) until it is killed;
    ready once `rfm nodes` shows it alive."""
    proc = subprocess.Popen([RFM, "-u", net.node(node), "listen", "--event", "node_up"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=_environment())
    wait_for(net, lambda rows: any(r["id"] == node and r["alive"] for r in rows))
    return proc


def wait_for(net, cond, tries=2000):
    """Look at the node table until @cond holds (each look is one rfm run)."""
    for _ in range(tries):
        rows = run_rfm("-u", net.uri, "nodes", "--json").json()["nodes"]
        if cond(rows):
            return rows
    raise AssertionError(f"the node table never got there: {rows}")


def while_writer_beats(run, fresh, tries=50):
    """Run @run until @fresh(result) holds: the writer's value is current.

    A beating writer is alive while its last beat is at most three periods
    (300 ms) old. On a starved host (CI's two cores, wine) its beat thread
    can wait longer than that, and then its values are stale, truly: the
    rule is not timing-free, so one stale look is tried again. A value that
    is never current fails.
    """
    for _ in range(tries):
        r = run()
        if fresh(r):
            return r
    raise AssertionError(f"the beating writer's value never read as current: {r!r}")


def test_get_marks_a_value_whose_writer_died(net, tmp_path):
    layout = layout_file(tmp_path)
    writer = beating_writer(net, 1)
    try:
        ok(run_rfm("-u", net.node(1) + "&shared=1", "set", "--layout", layout,
                   "sim.heartbeat", "42"))
        r = while_writer_beats(
            lambda: run_rfm("-u", net.uri, "get", "--layout", layout, "sim.heartbeat"),
            lambda r: r.rc == 0)
        assert (r.out, r.err) == ("42\n", ""), r
        fresh = while_writer_beats(
            lambda: ok(run_rfm("-u", net.uri, "--json", "get", "--layout", layout,
                               "sim.heartbeat")).json(),
            lambda got: got["state"] == "fresh")
        assert (fresh["value"], fresh["state"]) == (42, "fresh"), fresh
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    wait_for(net, lambda rows: not any(r["id"] == 1 and r["alive"] for r in rows))
    # The last value is still printed, but said to be stale, and get exits 4.
    r = run_rfm("-u", net.uri, "get", "--layout", layout, "sim.heartbeat")
    assert (r.rc, r.out) == (4, "42\n"), r
    assert "sim.heartbeat is stale: its writer, node 1," in r.err, r
    r = run_rfm("-u", net.uri, "get", "--layout", layout, "sim.heartbeat", "ctl.mode")
    assert r.rc == 4, r
    assert r.out.splitlines()[0].startswith("sim.heartbeat = 42  [stale: writer node 1 "), r
    # Node 0 never was: its value is stale too (the get holds no id 0 of its own).
    assert r.out.splitlines()[1] == "ctl.mode = 0  [stale: writer node 0 is not on the network]", r
    r = run_rfm("-u", net.uri, "--json", "get", "--layout", layout, "sim.heartbeat")
    assert r.rc == 4, r
    got = r.json()
    assert (got["value"], got["state"]) == (42, "stale"), got
    assert got["stale_reason"].startswith("writer node 1 "), got


def test_get_of_a_writer_never_seen_is_stale(net, tmp_path):
    # Node 1 never attached: nothing it writes can be current.
    r = run_rfm("-u", net.uri, "--json", "get", "--layout", layout_file(tmp_path),
                "sim.state.speed")
    assert r.rc == 4, r
    assert r.json()["state"] == "stale"
    assert r.json()["stale_reason"] == "writer node 1 is not on the network"


def test_watch_marks_stale_values(net, tmp_path):
    layout = layout_file(tmp_path)
    writer = beating_writer(net, 0)
    try:
        r = while_writer_beats(
            lambda: ok(run_rfm("-u", net.node(5), "watch", "--layout", layout,
                               "--count", "1", "ctl.mode", "sim.heartbeat")),
            lambda r: r.out.splitlines()[0] == "  ctl.mode = 0")
        lines = r.out.splitlines()
        assert lines[1].startswith("  sim.heartbeat = 0  [stale: writer node 1 "), r
        got = while_writer_beats(
            lambda: ok(run_rfm("-u", net.node(5), "--json", "watch", "--layout", layout,
                               "--count", "1", "ctl.mode", "sim.heartbeat")).json(),
            lambda got: got["state"]["ctl.mode"] == "fresh")
        assert got["state"] == {"ctl.mode": "fresh", "sim.heartbeat": "stale"}, got
    finally:
        writer.terminate()
        writer.wait()
