# SPDX-License-Identifier: LGPL-2.1-or-later
"""Looking never disturbs the rig, and leaving is not dying (issue 40), on
shm: as an operator meets them:

- the commands that only look (watch, get, nodes, info, dump, peek, ring
  tail and stat) and rfm serve hold no node id: with `rfm watch` running,
  the simulator still opens node 0 (it used to be refused: "node id 0 is in
  use by a live node (pid N); add shared=1"); after a crash, an operator's
  watch no longer takes the id the simulator restarts on;
- commands that need an id (listen, wait, send...) take the one named, else
  one of 240..255; a node refused an id such a tool holds is told so;
- a node that closes cleanly has left, one killed (SIGKILL, or SIGINT to a
  program without a handler) has crashed; an rfm command stopped by SIGINT
  or SIGTERM closes and leaves; rfm nodes, rfm info, /api/nodes and
  /metrics say the same, and no dead process reads as attached.
"""
import json
import os
import signal
import subprocess

from conftest import HOLD_NODE, RFM, _environment, failed, ok, run_rfm
from serve_helpers import Server, parse_metrics, sample, serve_built


def spawn(*args, stdout=subprocess.DEVNULL):
    return subprocess.Popen([RFM, *args], stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=subprocess.PIPE, env=_environment(), text=True)


def nodes(net):
    return {n["id"]: n for n in ok(run_rfm("-u", net.uri, "nodes", "--json")).json()["nodes"]}


def wait_nodes(net, cond, tries=3000):
    """Look at the node table (one rfm run a look) until @cond holds."""
    for _ in range(tries):
        rows = nodes(net)
        if cond(rows):
            return rows
    raise AssertionError(f"the node table never got there: {rows}")


def held(net, uri):
    """tests/cli/hold-node on @uri: attached until its stdin closes."""
    proc = subprocess.Popen([HOLD_NODE, uri], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_environment(), text=True)
    line = proc.stdout.readline()
    assert line.startswith("ready "), proc.stderr.read()
    return proc, int(line.split()[1])


def release(proc):
    proc.stdin.close()
    rc = proc.wait(timeout=30)
    proc.stdout.close()
    proc.stderr.close()
    return rc


def test_watch_takes_no_id_the_simulator_needs(net, tmp_path):
    layout = tmp_path / "l.yaml"
    layout.write_text("version: 1\nwindow: 64K\nregions:\n"
                      "  - { name: sim, offset: 0, size: 0x100, writer: 0, variables: "
                      "[{ name: speed, type: f64 }] }\n")
    ok(run_rfm("-u", net.uri, "info"))        # the network exists
    watch = spawn("-u", net.uri, "watch", "--layout", str(layout), "sim.speed",
                  stdout=subprocess.PIPE)
    try:
        assert watch.stdout.readline().startswith("  sim.speed = 0"), "watch did not start"
        # The simulator opens node 0 beside the running watch.
        sim, sim_id = held(net, net.node(0))
        assert sim_id == 0
        # Read-only commands named with node= still only look.
        for args in (["nodes"], ["info"], ["get", "--layout", str(layout), "sim.speed"],
                     ["peek32", "0"], ["dump", "0", "16"]):
            ok(run_rfm("-u", net.node(0), *args))
        info = ok(run_rfm("-u", net.uri, "--json", "info")).json()
        assert info["node_id"] == -1 and info["nodes_attached"] == 1, info
        assert list(nodes(net)) == [0]
        # After a crash of the simulator, the watch does not take its id.
        sim.kill()
        sim.wait()
        wait_nodes(net, lambda rows: rows[0]["state"] == "crashed")
        restarted, rid = held(net, net.node(0))
        assert rid == 0
        assert release(restarted) == 0
    finally:
        watch.send_signal(signal.SIGINT)
        watch.wait(timeout=30)
        watch.stdout.close()
        watch.stderr.close()
    assert watch.returncode == 0


def test_tools_take_ids_of_the_tool_range(net):
    ok(run_rfm("-u", net.uri, "info"))
    listen = spawn("-u", net.uri, "listen", "--event", "intr1")
    try:
        rows = wait_nodes(net, lambda r: 240 in r)
        assert rows[240]["attached"] and rows[240]["state"] == "attached"
        # A real node that asks for no id takes 0, as before.
        sim, sim_id = held(net, net.uri)
        assert sim_id == 0
        assert release(sim) == 0
        # One that asks for 240 is told a tool holds it, and how to fix that.
        r = run_rfm("-u", net.node(240), "info")   # an observer: fine
        ok(r)
        proc = subprocess.run([HOLD_NODE, net.node(240)], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, env=_environment(), timeout=60)
        assert proc.returncode == 1
        assert "held by a tool" in proc.stderr and f"pid {listen.pid}" in proc.stderr, \
            proc.stderr
        assert "240..255" in proc.stderr and "shared=1" not in proc.stderr, proc.stderr
    finally:
        listen.send_signal(signal.SIGTERM)
        listen.wait(timeout=30)
        listen.stderr.close()
    assert listen.returncode == 0


def test_a_named_tool_id_is_reported_to_the_node_that_wanted_it(net):
    listen = spawn("-u", net.node(0), "listen", "--event", "intr1")
    try:
        wait_nodes(net, lambda r: 0 in r)
        proc = subprocess.run([HOLD_NODE, net.node(0)], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, env=_environment(), timeout=60)
        assert proc.returncode == 1
        assert "node id 0 is held by a tool" in proc.stderr, proc.stderr
        assert "add shared=1" not in proc.stderr, proc.stderr
    finally:
        listen.send_signal(signal.SIGINT)
        listen.wait(timeout=30)
        listen.stderr.close()


def beating(net, n):
    """A node that beats (rfm listen runs a health monitor)."""
    proc = spawn("-u", net.node(n), "listen", "--event", "node_up")
    wait_nodes(net, lambda r: n in r and r[n]["state"] == "up")
    return proc


def test_clean_exit_sigint_and_sigkill_are_what_they_are(net):
    """rfm listen closes on SIGINT and SIGTERM (left); a node killed has
    crashed; rfm nodes, rfm info, /api/nodes and /metrics agree."""
    ok(run_rfm("-u", net.uri, "info"))
    s = Server(net.uri, "--rate", "50") if serve_built() else None
    try:
        by_int = beating(net, 3)
        by_term = beating(net, 4)
        killed = beating(net, 5)
        by_int.send_signal(signal.SIGINT)
        by_term.send_signal(signal.SIGTERM)
        killed.kill()
        for p in (by_int, by_term, killed):
            p.wait(timeout=30)
            p.stderr.close()
        assert (by_int.returncode, by_term.returncode) == (0, 0)
        rows = wait_nodes(net, lambda r: [r[i]["state"] for i in (3, 4, 5)] ==
                          ["left", "left", "crashed"])
        assert not any(rows[i]["attached"] for i in (3, 4, 5))
        assert rows[5]["pid"] == killed.pid and rows[3]["pid"] is None
        info = ok(run_rfm("-u", net.uri, "--json", "info")).json()
        assert info["nodes_attached"] == sum(r["attached"] for r in rows.values()) == 0
        if s:
            api = {n["id"]: n for n in s.get_json("/api/nodes")["nodes"]}
            assert [api[i]["state"] for i in (3, 4, 5)] == ["left", "left", "crashed"]
            assert [api[i]["down"] for i in (3, 4, 5)] == [False, False, True]
            fams = parse_metrics(s.request("GET", "/metrics")[2].decode())
            for i, st in ((3, "left"), (4, "left"), (5, "crashed")):
                assert sample(fams, "rfm_node_state", node=str(i), state=st) == 1
                assert sample(fams, "rfm_node_state", node=str(i), state="up") == 0
            assert s.get_json("/api/server")["node"] is None
    finally:
        if s:
            rc, err = s.stop()
            assert rc == 0, err


def test_a_program_killed_by_sigint_is_crashed_not_attached(net):
    """The issue's ghost: a node stopped by SIGINT (no handler) stayed
    "attached" with a dead pid while rfm info counted it out."""
    proc, nid = held(net, net.node(3))
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    for f in (proc.stdin, proc.stdout, proc.stderr):
        f.close()
    assert proc.returncode == -signal.SIGINT
    row = nodes(net)[3]
    assert (row["state"], row["attached"], row["pid"]) == ("crashed", False, proc.pid)
    assert ok(run_rfm("-u", net.uri, "--json", "info")).json()["nodes_attached"] == 0


def test_serve_holds_an_id_only_when_named(net):
    if not serve_built():
        import pytest
        pytest.skip("rfm serve is not built: configure found no libmicrohttpd")
    ok(run_rfm("-u", net.uri, "info"))
    s = Server(net.uri)
    try:
        assert s.ready["node"] is None
        # Node 0 opens beside the server.
        sim, sim_id = held(net, net.node(0))
        assert sim_id == 0
        assert release(sim) == 0
        stats = s.get_json("/api/stats")
        assert stats["observer"] is True and stats["node"] is None
    finally:
        rc, err = s.stop()
        assert rc == 0, err
    # Named, it is that node and beats; stopped by SIGTERM, it left.
    s = Server(net.node(7))
    try:
        assert s.ready["node"] == 7
        wait_nodes(net, lambda r: 7 in r and r[7]["state"] == "up")
    finally:
        rc, err = s.stop()
        assert rc == 0, err
    assert nodes(net)[7]["state"] == "left"
