#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The event round trip idle and under load, with and without SCHED_FIFO + locked memory.

    bench-jitter.py --build BUILDDIR [--count N] [--rate HZ] [--repeat R] [--plot OUT.png]

Runs `rfm jitter --mode event` (a periodic loop that sends an event to an
echo thread on another node and sleeps for the answer) idle and under a
CPU + memory load from Debian's stress-ng, each with the default policy
and with --rt-prio 80 --cpu C --lock-memory (C: the last CPU this process
may use), and `rfm jitter --mode timer` at that real-time setting (the
loop's timer wake-up alone). Each event run measures every cycle twice:
from the period's scheduled start to the echo's answer (the loop's view:
its own wake-up and the round trip) and the round trip alone (send to
answer). R rounds (default 3), default and real-time runs alternating
which goes first, since the machine's other load drifts between runs;
prints the medians of P50, P99, P99.9 and max, the CPU time the
hypervisor stole during each kind of run, and the ratios default /
real-time as the median of the rounds with each round's value. The
target: under load, SCHED_FIFO + locked memory cuts the P99.9 by at least
5x. The numbers are what this machine measured in this run; nothing is
asserted.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys

RT_PRIO = "80"


def jitter(rfm, uri, count, rate, rt, csv=None, mode="event"):
    args = [rfm, "-u", uri, "jitter", "--mode", mode, "--count", str(count),
            "--rate", str(rate), "--json"]
    if rt:
        args += ["--rt-prio", RT_PRIO, "--cpu", str(max(os.sched_getaffinity(0))),
                 "--lock-memory"]
    if csv:
        args += ["--hist-csv", csv]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"bench-jitter: {' '.join(args)} failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


class Stress:
    """stress-ng: four CPU hogs per CPU and two memory hogs, in a session of its own."""

    def __init__(self, stress_ng):
        ncpu = len(os.sched_getaffinity(0))
        self.proc = subprocess.Popen(
            [stress_ng, "--cpu", str(4 * ncpu), "--vm", "2", "--vm-bytes", "512M",
             "--timeout", "900s", "--quiet"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def stop(self):
        # stress-ng passes SIGTERM on to its workers; its session holds only them.
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def us(ns):
    return f"{ns / 1000:9.1f}"


def steal_ms():
    """CPU time the hypervisor took from this VM's vCPUs so far (/proc/stat), in ms."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) * 1000 // os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def measure(rfm, uri, args, load, rt, mode, rep, csvdir, results):
    """One run, appended to results[label] with the steal time it suffered."""
    label = f"{load} {'SCHED_FIFO+locked' if rt else 'default'}"
    if mode == "timer":
        label = f"{load} SCHED_FIFO wake-up alone"
    csv = os.path.join(csvdir, f"jitter-{load}-{'rt' if rt else 'default'}-{mode}.csv")
    before = steal_ms()
    r = jitter(rfm, uri, args.count, args.rate, rt, csv, mode)
    r["steal_ms"] = steal_ms() - before
    results.setdefault(label, []).append((r, csv))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the build directory (tools/rfm)")
    ap.add_argument("--count", type=int, default=20000, help="round trips per run")
    ap.add_argument("--rate", type=int, default=2000, help="round trips per second")
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds of every run; the ratios printed are their medians")
    ap.add_argument("--plot", help="also draw the histograms of the last round into this PNG")
    args = ap.parse_args()

    rfm = os.path.join(args.build, "tools", "rfm")
    name = f"bench-jitter-{os.getpid()}"
    uri = f"shm:{name}?size=1M"
    stress_ng = shutil.which("stress-ng")
    csvdir = os.path.join(args.build, "bench")
    results = {}
    loads = ["idle", "stress"]
    if not stress_ng:
        print("stress-ng is not installed (apt install stress-ng): "
              "the runs under load are skipped")
        loads = ["idle"]
    print(f"Event round trip, {args.count} at {args.rate} Hz (rfm jitter --mode event), "
          f"{args.repeat} rounds; real-time = --rt-prio {RT_PRIO} "
          f"--cpu {max(os.sched_getaffinity(0))} --lock-memory")
    try:
        for rep in range(args.repeat):
            for load in loads:
                stress = Stress(stress_ng) if load == "stress" else None
                try:
                    if stress:
                        # A short run lets the hogs get going before anything is measured.
                        jitter(rfm, uri, 200, args.rate, False)
                    # Default and real-time runs alternate which goes first, so a
                    # drift of the machine's other load does not favour one side.
                    for rt in ((False, True) if rep % 2 == 0 else (True, False)):
                        measure(rfm, uri, args, load, rt, "event", rep, csvdir, results)
                    # The loop's timer wake-up alone, at SCHED_FIFO: what of the
                    # cycle's tail is the kernel's and the VM's, not the event path's.
                    measure(rfm, uri, args, load, True, "timer", rep, csvdir, results)
                finally:
                    if stress:
                        stress.stop()
    finally:
        subprocess.run([rfm, "-u", f"shm:{name}", "destroy", "--force"],
                       capture_output=True)

    for title, prefix in (("cycle: period start to the echo's answer", ""),
                          ("round trip alone: send to answer", "rtt_")):
        print(f"\n{title} (medians of {args.repeat} rounds)")
        print(f"{'':34} {'P50 us':>9} {'P99 us':>9} {'P99.9 us':>9} {'max us':>9} "
              f"{'steal ms':>9}")
        for label, runs in results.items():
            if prefix + "p50_ns" not in runs[0][0]:
                continue
            q = {k: median([r[prefix + k] for r, _ in runs])
                 for k in ("p50_ns", "p99_ns", "p999_ns", "max_ns")}
            print(f"{label:34} {us(q['p50_ns'])} {us(q['p99_ns'])} {us(q['p999_ns'])} "
                  f"{us(q['max_ns'])} {median([r['steal_ms'] for r, _ in runs]):9.0f}")
    print("\nratio default / SCHED_FIFO+locked, median of the rounds [each round] "
          "(higher: real-time helps more)")
    for load in loads:
        d = results.get(f"{load} default")
        t = results.get(f"{load} SCHED_FIFO+locked")
        if not d or not t:
            continue
        for what, prefix in (("cycle", ""), ("round trip alone", "rtt_")):
            p999 = [a[prefix + "p999_ns"] / max(b[prefix + "p999_ns"], 1)
                    for (a, _), (b, _) in zip(d, t)]
            mx = [a[prefix + "max_ns"] / max(b[prefix + "max_ns"], 1)
                  for (a, _), (b, _) in zip(d, t)]
            line = (f"  {load:7} {what:17} P99.9 {median(p999):6.1f}x "
                    f"[{' '.join(f'{x:.1f}' for x in p999)}]   max {median(mx):6.1f}x")
            if load == "stress":
                line += f"   (target P99.9 >= 5x: {'met' if median(p999) >= 5 else 'NOT met'})"
            print(line)
    if args.plot and results:
        plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot-latency.py")
        series = [f"{label}={runs[-1][1]}" for label, runs in results.items()]
        subprocess.run([sys.executable, plot, "-o", args.plot, "--quantity", "period start to the echo's answer",
                        "--title", "rfm jitter: event round trip, idle and under stress-ng",
                        *series], check=True)
        print(f"\nplot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
