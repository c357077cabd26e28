#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The benchmark suite: raw baselines, then ours, then one table of ratios.

Each run executes, in this order: bench-baselines (raw flag and futex
ping-pong, UDP loopback ping-pong, memcpy, a plain SPSC ring), then
`rfm ping --local` in spin and event mode and `rfm bench`, all on a private
emulated network. With several runs (the machine may be shared) every
figure is the median over the runs, and ratios are taken of the medians.

    run-suite.py --build BUILDDIR [--runs N] [--count N] [--markdown]
                 [--csv-dir DIR]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

LAT_KEYS = ("min_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns")


def run_json(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"run-suite: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr}")
    return json.loads(proc.stdout.splitlines()[-1])


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        gcc = subprocess.run(["gcc", "--version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        gcc = "?"
    return (f"{os.cpu_count()} CPUs ({model}), Linux {platform.release()}, {gcc}, "
            f"load average {os.getloadavg()[0]:.2f} at start")


def median_of(runs, *path):
    values = []
    for r in runs:
        v = r
        for key in path:
            v = v[key]
        values.append(v)
    return statistics.median(values)


def find_size(rows, size):
    return next(row for row in rows if row["size"] == size)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--duration", type=int, default=200, help="ms per rfm bench figure")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    ap.add_argument("--csv-dir", help="write the last run's ping histograms here")
    args = ap.parse_args()
    if args.runs < 1 or args.count < 1:
        ap.error("--runs and --count must be at least 1")

    rfm = os.path.join(args.build, "tools", "rfm")
    baselines = os.path.join(args.build, "bench", "bench-baselines")
    net = f"bench-suite-{os.getpid()}"
    uri = f"shm:{net}?size=1M"
    count = ["--count", str(args.count), "--warmup", str(max(args.count // 20, 100))]
    base_runs, spin_runs, event_runs, bench_runs = [], [], [], []
    # Spinning peers each get a CPU of their own, in the baseline (--pin) and
    # in ours; sleeping ones are left to the scheduler (a pinned sleeper
    # waits for its CPU to be free).
    allowed = sorted(os.sched_getaffinity(0))
    cpus = f"{allowed[0]},{allowed[1 % len(allowed)]}"
    try:
        for i in range(args.runs):
            last = i == args.runs - 1
            csv = {}
            if last and args.csv_dir:
                os.makedirs(args.csv_dir, exist_ok=True)
                for mode in ("spin", "event"):
                    csv[mode] = ["--hist-csv", os.path.join(args.csv_dir, f"ping-{mode}.csv")]
            base_runs.append(run_json([baselines, "--json", "--pin"] + count))
            spin_runs.append(run_json([rfm, "-u", uri, "ping", "--local", "--mode", "spin",
                                       "--json", "--cpu", cpus] + count + csv.get("spin", [])))
            event_runs.append(run_json([rfm, "-u", uri, "ping", "--local", "--mode", "event",
                                        "--json"] + count + csv.get("event", [])))
            bench_runs.append(run_json([rfm, "-u", uri, "bench", "--json",
                                        "--duration", str(args.duration)]))
    finally:
        subprocess.run([rfm, "-u", f"shm:{net}", "destroy", "--force"], capture_output=True)

    lat = [
        ("raw flag ping-pong", [r["flag"] for r in base_runs]),
        ("rfm ping --mode spin", spin_runs),
        ("raw futex ping-pong", [r["futex"] for r in base_runs]),
        ("rfm ping --mode event", event_runs),
        ("UDP loopback ping-pong", [r["udp"] for r in base_runs]),
    ]
    lat_rows = [(name, [median_of(runs, k) for k in LAT_KEYS]) for name, runs in lat]

    def bw(run, size, what):
        return find_size(run["bandwidth"], size)[what]["mb_per_s"]

    def lat(run_list, key):
        return [r[key] for r in run_list]

    # Each row: (figure, per-run ours, baseline name, per-run baseline, target, limit).
    # Ours and the baseline of one run ran back to back (rfm bench even
    # alternates its copies with the raw ones), so the ratio is the median
    # of the per-run ratios; the figures shown are medians over the runs.
    flag, futex, udp = ([r[k] for r in base_runs] for k in ("flag", "futex", "udp"))
    rows = [
        ("spin ping P50", lat(spin_runs, "p50_ns"), "raw flag P50", lat(flag, "p50_ns"),
         "<= 1.2x", 1.2),
        ("spin ping P99.9", lat(spin_runs, "p999_ns"), "raw flag P99.9", lat(flag, "p999_ns"),
         "<= 1.5x", 1.5),
        ("event ping P50", lat(event_runs, "p50_ns"), "raw futex P50", lat(futex, "p50_ns"),
         "<= 1.15x", 1.15),
        ("event ping P99.9", lat(event_runs, "p999_ns"), "raw futex P99.9",
         lat(futex, "p999_ns"), "<= 1.5x", 1.5),
        ("4 KiB write MB/s", [bw(r, 4096, "write") for r in bench_runs],
         "memcpy, same mapping", [bw(r, 4096, "raw_memcpy_write") for r in bench_runs],
         ">= 0.9x", -0.9),
        ("64 KiB write MB/s", [bw(r, 65536, "write") for r in bench_runs],
         "memcpy, same mapping", [bw(r, 65536, "raw_memcpy_write") for r in bench_runs],
         "", None),
        ("4 KiB read MB/s", [bw(r, 4096, "read") for r in bench_runs],
         "memcpy, same mapping", [bw(r, 4096, "raw_memcpy_read") for r in bench_runs],
         "", None),
        ("64 B write MB/s", [bw(r, 64, "write") for r in bench_runs],
         "memcpy, same mapping", [bw(r, 64, "raw_memcpy_write") for r in bench_runs],
         "", None),
        ("4 KiB write MB/s", [bw(r, 4096, "write") for r in bench_runs],
         "memcpy, private memory", [r["memcpy_4096_mb_per_s"] for r in base_runs], "", None),
        ("event ping P50", lat(event_runs, "p50_ns"), "UDP loopback P50", lat(udp, "p50_ns"),
         "", None),
    ]
    ratios = [(name, statistics.median(ours), bname, statistics.median(base), target, limit,
               statistics.median(o / b for o, b in zip(ours, base) if b))
              for name, ours, bname, base, target, limit in rows]

    md = args.markdown
    print(("Machine: " if md else "machine: ") + machine() + "  ")
    print(f"{args.runs} run(s) of {args.count} round trips per latency figure; "
          f"medians over the runs (ratios: median of the per-run ratios). "
          f"Spinning peers pinned to CPUs {cpus}.")
    print()
    head = ["round trip (ns)", "min", "P50", "P99", "P99.9", "max"]
    if md:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for name, vals in lat_rows:
            print(f"| {name} | " + " | ".join(f"{v:.0f}" for v in vals) + " |")
    else:
        print(f"  {head[0]:<24}" + "".join(f"{h:>10}" for h in head[1:]))
        for name, vals in lat_rows:
            print(f"  {name:<24}" + "".join(f"{v:>10.0f}" for v in vals))
    print()
    ring = median_of(base_runs, "ring_msgs_per_s")
    if md:
        print("| figure | ours | baseline | baseline figure | ratio | target | met |")
        print("|---|---|---|---|---|---|---|")
    else:
        print(f"  {'figure':<18}{'ours':>12}  {'baseline':<24}{'':>12}{'ratio':>8}  target")
    for name, ours, bname, base, target, limit, ratio in ratios:
        met = ""
        if limit is not None:
            met = "yes" if (ratio <= limit if limit > 0 else ratio >= -limit) else "NO"
        if md:
            print(f"| {name} | {ours:.0f} | {bname} | {base:.0f} | {ratio:.2f}x | {target} | "
                  f"{met} |")
        else:
            print(f"  {name:<18}{ours:>12.0f}  {bname:<24}{base:>12.0f}{ratio:>7.2f}x  "
                  f"{target} {met}")
    note = (f"plain SPSC ring (64-byte messages, two processes): {ring:.0f} msg/s; "
            f"rfm rings: not in this librfm yet")
    print()
    print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
