# SPDX-License-Identifier: LGPL-2.1-or-later
"""A table get and an event round trip from Python against the same from C, in one run.

    python3 tables_events.py [--layout-bench PATH] [--events-bench PATH] [--json]

Table get (f64 scalar, ns per call, medians of ROUNDS rounds):
  loop          the Python loop alone (subtracted for the net figures)
  swig          _rfm_swig.rfm_var_get_f64(handle, 0): the generated wrapper
  variable      Variable.get(): the Pythonic handle
  table         table["r.x"]: lookup by name, what quick scripts write
C: layout-bench's P50 of rfm_var_get_f64 (exported call) and of a raw load.

Event round trip between two processes (ping-pong; this process and an
echo child running this file with --echo), min/P50/P99/max in us:
  py-spin       wait_event() with spin -1 (never sleeps), both sides
  py-block      wait_event() with spin 0 (always sleeps), both sides
C: bench-events --json (rfm-spin and rfm-block), run by this script now.
Ratios compare P50s. The machine is shared: run it a few times.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import rfm
from rfm import _rfm_swig

CALLS = 100_000
ROUNDS = 7
TRIPS = 4000

LAYOUT = """\
version: 1
window: 64K
regions:
  - { name: r, offset: 0, size: 0x100, writer: 0, variables: [ { name: x, type: f64 } ] }
"""


def percentiles(values):
    values = sorted(values)
    n = len(values)
    return {"min": values[0], "p50": values[n // 2], "p99": values[int(n * 0.99)],
            "max": values[-1]}


# ---- table get ----

def time_loop(n):
    start = time.perf_counter_ns()
    for _ in range(n):
        pass
    return (time.perf_counter_ns() - start) / n


def time_swig(handle, n):
    get = _rfm_swig.rfm_var_get_f64
    start = time.perf_counter_ns()
    for _ in range(n):
        get(handle, 0)
    return (time.perf_counter_ns() - start) / n


def time_variable(var, n):
    get = var.get
    start = time.perf_counter_ns()
    for _ in range(n):
        get()
    return (time.perf_counter_ns() - start) / n


def time_table(table, n):
    start = time.perf_counter_ns()
    for _ in range(n):
        table["r.x"]
    return (time.perf_counter_ns() - start) / n


def table_python(uri):
    layout = rfm.Layout.from_string(LAYOUT)
    samples = {k: [] for k in ("loop", "swig", "variable", "table")}
    with rfm.open(uri + "&node=0") as node:
        table = node.attach_layout(layout)
        table["r.x"] = 1.25
        var = table.var("r.x")
        for _ in range(ROUNDS):
            samples["loop"].append(time_loop(CALLS))
            samples["swig"].append(time_swig(var._h, CALLS))
            samples["variable"].append(time_variable(var, CALLS))
            samples["table"].append(time_table(table, CALLS))
    return {k: statistics.median(v) for k, v in samples.items()}


def table_c(path):
    """layout-bench's P50s (its table output: case, min, P50, ...)."""
    if not path:
        return None
    out = subprocess.run([path, "0.1"], check=True, capture_output=True, text=True).stdout
    found = {}
    for key, case in (("exported", "rfm_var_get_f64 (exported call)"),
                      ("inline", "rfm_view_get_f64 (inline)"),
                      ("raw", "raw load f64 (pointer)")):
        m = re.search(re.escape(case) + r"\s+([\d.]+)\s+([\d.]+)", out)
        if m:
            found[key] = float(m.group(2))
    return found or None


# ---- event round trip ----

def echo(uri, spin):
    """The child: answer every INTR1 with an INTR2 carrying the same data."""
    with rfm.open(uri) as node:
        node.set_spin(spin)
        node.enable_events(rfm.EventType.INTR1, rfm.EventType.INTR4)
        print("ready", node.node_id, flush=True)
        while True:
            ev = node.wait_event()
            if ev.type == rfm.EventType.INTR4:
                return 0
            node.send_event(ev.sender, rfm.EventType.INTR2, ev.data)


def round_trips(uri, spin):
    with rfm.open(uri) as node:
        node.set_spin(spin)
        node.enable_events(rfm.EventType.INTR2)
        child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--echo", uri,
                                  "--spin", str(spin)], stdout=subprocess.PIPE, text=True)
        try:
            peer = int(child.stdout.readline().split()[1])
            send, wait, now = node.send_event, node.wait_event, time.perf_counter_ns
            for i in range(200):  # warm-up
                send(peer, 1, i)
                wait(10)
            times = []
            for i in range(TRIPS):
                t0 = now()
                send(peer, 1, i)
                ev = wait(10)
                times.append(now() - t0)
                assert ev.data == i
            send(peer, rfm.EventType.INTR4, 0)
            child.wait(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
    return {k: v / 1000 for k, v in percentiles(times).items()}


def events_c(path):
    if not path:
        return None
    out = subprocess.run([path, "--iterations", "20000", "--json"], check=True,
                         capture_output=True, text=True).stdout
    data = json.loads(out)
    return {mode: {k: data[mode][k] / 1000 for k in ("min", "p50", "p99", "max")}
            for mode in ("rfm-spin", "rfm-block")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout-bench", help="path of bench/layout-bench")
    parser.add_argument("--events-bench", help="path of bench/bench-events")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--echo", metavar="URI", help=argparse.SUPPRESS)
    parser.add_argument("--spin", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo:
        return echo(args.echo, args.spin)

    uri = f"shm:bench-python2-{os.getpid()}?size=64K"
    try:
        table = table_python(uri)
        py_events = {"py-spin": round_trips(uri, -1), "py-block": round_trips(uri, 0)}
    finally:
        rfm.destroy(uri, force=True)
    c_table = table_c(args.layout_bench)
    c_events = events_c(args.events_bench)

    if args.json:
        print(json.dumps({"bench": "python-tables-events", "table_get_ns": table,
                          "table_get_c_ns": c_table, "round_trip_us": py_events,
                          "round_trip_c_us": c_events}))
        return 0

    print(f"bench-python: table get (f64), median of {ROUNDS} rounds x {CALLS} calls (ns)")
    print(f"  {'variant':<36} {'ns/call':>9} {'net':>9} {'net vs C call':>14}")
    if c_table:
        for key, label in (("raw", "C raw load (layout-bench P50)"),
                           ("inline", "C rfm_view_get_f64 inline"),
                           ("exported", "C rfm_var_get_f64 exported")):
            if key in c_table:
                print(f"  {label:<36} {c_table[key]:>9.2f}")
    labels = {"loop": "Python loop alone", "swig": "_rfm_swig.rfm_var_get_f64(h, 0)",
              "variable": "Variable.get()", "table": 'table["r.x"]'}
    for key, label in labels.items():
        net = table[key] - table["loop"]
        ratio = (f"{net / c_table['exported']:>13.0f}x"
                 if c_table and "exported" in c_table and key != "loop" else "")
        shown = f"{net:>9.2f}" if key != "loop" else ""
        print(f"  {label:<36} {table[key]:>9.2f} {shown:>9} {ratio:>14}")

    print(f"\nbench-python: event round trip between two processes, {TRIPS} trips (us)")
    print(f"  {'mode':<36} {'min':>8} {'P50':>8} {'P99':>8} {'max':>9} {'P50 vs C':>9}")
    pairs = (("rfm-spin", "py-spin"), ("rfm-block", "py-block"))
    for c_mode, py_mode in pairs:
        if c_events:
            c = c_events[c_mode]
            print(f"  {'C ' + c_mode + ' (bench-events)':<36} {c['min']:>8.1f} {c['p50']:>8.1f} "
                  f"{c['p99']:>8.1f} {c['max']:>9.1f}")
        p = py_events[py_mode]
        ratio = f"{p['p50'] / c_events[c_mode]['p50']:>8.1f}x" if c_events else ""
        print(f"  {'Python ' + py_mode + ' (wait_event)':<36} {p['min']:>8.1f} {p['p50']:>8.1f} "
              f"{p['p99']:>8.1f} {p['max']:>9.1f} {ratio:>9}")
    if not c_events or not c_table:
        print("  C figures: pass --layout-bench bench/layout-bench --events-bench bench/bench-events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
