#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A scripted hardware-in-the-loop bench on an emulated reflective-memory network.

    python3 test_bench.py [--network NAME] [--deadline-ms MS] [--samples N]

Starts a simulated plant as a separate process (node 1), which publishes
its state record (hil-bench.yaml: plant.state) at 1 kHz. The bench (node 0)
then runs its checks against it and prints a pass/fail report:

  1. the plant is alive: its cycle counter advances;
  2. every snapshot of the record is consistent (no torn reads);
  3. an injected interrupt (INTR1, "go to safe mode N") is answered by an
     acknowledgement interrupt (INTR2) and the published state shows the
     new mode with the valve closed, within the deadline;
  4. the bench's setpoint reaches the plant through the window;
  5. the plant stops on a shutdown interrupt (INTR4) and exits cleanly.

Exit status 0 when every check passes. The plant is plant.py beside this
file (this file run with --plant runs it too). test_hil_plant.py is the same
bench written as pytest tests with the rfm plugin's fixtures.
"""

import argparse
import os
import subprocess
import sys
import time

import rfm
from plant import ACK, CMD_SAFE_MODE, LAYOUT, SHUTDOWN, plant


class Report:
    def __init__(self):
        self.rows = []

    def check(self, name, ok, detail):
        self.rows.append((name, bool(ok), detail))
        return ok

    def print(self):
        width = max(len(r[0]) for r in self.rows)
        print("HIL bench report")
        for name, ok, detail in self.rows:
            print(f"  {'PASS' if ok else 'FAIL'}  {name:<{width}}  {detail}")
        failed = sum(1 for r in self.rows if not r[1])
        print(f"{len(self.rows) - failed}/{len(self.rows)} checks passed"
              + ("" if not failed else f", {failed} FAILED"))
        return failed == 0


def wait_for_cycle(state, target, deadline_ns):
    while rfm.now_ns() < deadline_ns:
        snap = state.read()
        if snap["cycle"] >= target:
            return snap
        time.sleep(0.0002)  # polling the window is the protocol here
    return state.read()


def bench(network, deadline_ms, samples):
    uri = f"shm:{network}?size=64K"
    report = Report()
    layout = rfm.Layout.load(LAYOUT)
    deadline_ns = int(deadline_ms * 1e6)
    with rfm.open(uri + "&node=0") as node:
        node.enable_events(ACK)
        table = node.attach_layout(layout)
        state = table.record("plant.state")
        table["bench.setpoint"] = 80.0
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--plant",
                                 uri + "&node=1"], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        try:
            ready = proc.stdout.readline().split()
            if ready[:1] != ["ready"]:
                report.check("plant starts", False, f"plant said {ready!r}")
                return report.print()
            plant_id = int(ready[1])
            report.check("plant starts", True, f"node {plant_id}, pid {proc.pid}")

            # 1. Alive: the cycle advances (1 kHz nominal: 20 cycles take ~20 ms).
            start = state.read()
            t0 = rfm.now_ns()
            later = wait_for_cycle(state, start["cycle"] + 20, t0 + 50 * deadline_ns)
            took = (rfm.now_ns() - t0) / 1e6
            rate = (later["cycle"] - start["cycle"]) / max(took / 1e3, 1e-9)
            report.check("plant publishes", later["cycle"] >= start["cycle"] + 20,
                         f"{later['cycle'] - start['cycle']} cycles in {took:.1f} ms "
                         f"(~{rate:.0f} Hz)")

            # 2. Consistency: every snapshot's check field matches its cycle.
            torn = 0
            for _ in range(samples):
                snap = state.read()
                torn += snap["check"] != snap["cycle"] * 0.25
            report.check("snapshots consistent", torn == 0,
                         f"{samples} reads, {torn} inconsistent")

            # 3. Inject an interrupt; the plant must answer within the deadline.
            sent = rfm.now_ns()
            node.send_event(plant_id, CMD_SAFE_MODE, 3)
            try:
                ack = node.wait_event(timeout=deadline_ms / 1e3)
                latency_us = (rfm.now_ns() - sent) / 1e3
                snap = state.read()
                ok = (ack.type == ACK and ack.sender == plant_id and ack.data == 3
                      and snap["mode"] == 3 and not snap["valve_open"]
                      and latency_us <= deadline_ms * 1e3)
                report.check("interrupt answered in time", ok,
                             f"ack after {latency_us:.0f} us (deadline {deadline_ms} ms), "
                             f"mode={snap['mode']} valve_open={snap['valve_open']}")
            except rfm.Timeout:
                report.check("interrupt answered in time", False,
                             f"no acknowledgement within {deadline_ms} ms")

            # 4. The setpoint reaches the plant: its temperature rises towards it.
            before = state.read()
            after = wait_for_cycle(state, before["cycle"] + 20, rfm.now_ns() + 50 * deadline_ns)
            report.check("plant follows the setpoint",
                         after["temperature"] > before["temperature"],
                         f"{before['temperature']:.2f} -> {after['temperature']:.2f} degC "
                         f"(setpoint {table['bench.setpoint']:.1f})")

            # 5. Shutdown.
            node.send_event(plant_id, SHUTDOWN, 0)
            try:
                status = proc.wait(timeout=max(10, deadline_ms / 1e3))
            except subprocess.TimeoutExpired:
                status = None
            report.check("plant shuts down", status == 0, f"exit status {status}")
        finally:
            if proc.poll() is None:
                proc.kill()  # by the PID we started
                proc.wait()
            proc.stdout.close()
    return report.print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--network", default=f"hilbench-{os.getpid()}")
    parser.add_argument("--deadline-ms", type=float, default=5.0,
                        help="response deadline of the interrupt check (default 5 ms)")
    parser.add_argument("--samples", type=int, default=2000,
                        help="snapshots read by the consistency check")
    parser.add_argument("--plant", metavar="URI", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.plant:
        return plant(args.plant)
    try:
        return 0 if bench(args.network, args.deadline_ms, args.samples) else 1
    finally:
        try:
            rfm.destroy(f"shm:{args.network}", force=True)
        except rfm.NotFound:
            pass


if __name__ == "__main__":
    sys.exit(main())
