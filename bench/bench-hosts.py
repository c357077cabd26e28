#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The dds: backend against Cyclone DDS's own ddsperf and raw UDP, side by side.

Two network namespaces joined by veth pairs (tests/hosts/netns-lab.sh),
node 1 in the first, node 2 in the second; every contestant runs across
the same veth link, one after the other, in one run:

  round trip, PAYLOAD bytes each way (P50, P99, P99.9), in two pairs:
    raw UDP        bench/udp-pingpong (blocking recvfrom, no library)
    ddsperf        ddsperf ping size PAYLOAD / ddsperf pong: its default,
                   answering from a listener (Cyclone's receive thread)
    dds:           bench/bench-event-rtt ping-cb/echo-cb with callbacks=receive:
                   rfm_mem_write of the payload and rfm_event_send from an
                   INTR1 callback on the receive thread, rfm_mem_read there
                   too, each way (the pair the target names)
    ddsperf        ... waitset: a thread woken by a waitset takes the samples
    dds:           bench/bench-event-rtt ping/echo: the same with
                   rfm_event_wait on the program's thread, once as it comes
                   (the waiters sleep) and once with spin=-1 (they spin: the
                   cost of waking them shows as the gap)
  throughput, 4 KiB samples/writes per second, reliable:
    ddsperf        ddsperf pub size 4096 / ddsperf sub
    dds:           bench/bench-repl-write (rfm_mem_write, checked at the end)

ddsperf prints P50, P90 and P99 once a second, no P99.9: its figures are
medians of those per-second values (the first second, discovery, left out).
Its ping/pong figures are half the round trip (its pinger keeps
(now - ping's source timestamp) / 2: ddsperf.c, process_pong), so they are
doubled here to compare round trip with round trip; the report checks the
doubling: ddsperf's pings per second times its mean round trip must fill
the second (one ping is in flight at a time), printed as "ddsperf busy".
Prints a table and the ratios: round trip P50, callbacks on the receive
thread against ddsperf's listener <= 1.3x (the target) and rfm_event_wait
against ddsperf's waitset (for comparison); throughput >= 0.7x ddsperf.
Timing is never a failure.

The two round-trip pairs run ROUNDS times, each pair back to back (ddsperf,
then librfm): on a virtual machine the same code's round trip moves with
where the scheduler puts the woken threads (three runs of one build on
an idle VM: 51, 91 and 120 us against ddsperf's steady 130), so a single
pair can show 0.4x or 0.9x. The table gives each
contender's median figures over the rounds; a ratio is the median of the
rounds' ratios, each round's shown after it.

    bench-hosts.py --build BUILDDIR [--seconds S] [--count N] [--payload B]
                   [--rounds R] [--scheme dds|shm] [--markdown] [--skip-ok]

Needs root (namespaces) and ddsperf (Debian: cyclonedds-tools); exits 77
with the reason otherwise (0 with --skip-ok). --scheme shm runs the rfm
contestants on shm: instead (one shared copy; checks the pipeline).
"""
import argparse
import json
import os
import platform
import re
import select
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.join(HERE, "..", "tests", "hosts", "netns-lab.sh")
PORT = 7410
DDSPERF_PING = re.compile(r"size (\d+) mean ([\d.]+)us min [\d.]+us 50% ([\d.]+)us "
                          r"90% [\d.]+us 99% ([\d.]+)us max [\d.]+us cnt (\d+)")
DDSPERF_SUB = re.compile(r"size (\d+) total \d+ lost \d+ delta (\d+) lost (\d+) "
                         r"rate ([\d.]+) kS/s")


# The round-trip contenders run in paired rounds (see the docstring).
PAIRED = ("ddsperf_rt", "rfm_rt_cb", "ddsperf_rt_ws", "rfm_rt")


class Skip(Exception):
    pass


class Lab:
    """A two-node namespace lab; removed by close() whatever happened."""

    def __init__(self):
        env = dict(os.environ)
        env.pop("RFM_LAB", None)
        proc = subprocess.run([LAB, "up", "2"], capture_output=True, text=True, env=env)
        if proc.returncode == 77:
            raise Skip(proc.stderr.strip())
        if proc.returncode != 0:
            sys.exit(f"bench-hosts: netns-lab.sh up 2 failed: {proc.stderr.strip()}")
        self.name = proc.stdout.strip()
        self.env = dict(os.environ, RFM_LAB=self.name)
        self.procs = []

    def cmd(self, node, *argv):
        return [LAB, "exec", str(node), *argv]

    def run(self, node, *argv, timeout=120, env=None):
        return subprocess.run(self.cmd(node, *argv), capture_output=True, text=True,
                              env=env or self.env, timeout=timeout)

    def start(self, node, *argv, ready=None, timeout=20, env=None):
        """Starts argv in node; with ready, waits for that line on its stdout."""
        proc = subprocess.Popen(self.cmd(node, *argv), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env or self.env)
        self.procs.append(proc)
        if ready is not None:
            end = time.monotonic() + timeout
            while True:
                left = end - time.monotonic()
                if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
                    self.stop(proc)
                    sys.exit(f"bench-hosts: {' '.join(argv)}: no '{ready}' in {timeout} s")
                line = proc.stdout.readline()
                if not line:
                    err = proc.stderr.read()
                    sys.exit(f"bench-hosts: {' '.join(argv)} exited: {err.strip()}")
                if line.strip() == ready:
                    break
        return proc

    def stop(self, proc):
        """Stops a started process by its PID; returns (stdout, stderr)."""
        if proc.poll() is None:
            proc.terminate()
            try:
                return proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        return proc.communicate()

    def finish(self, proc, timeout=60):
        """Waits for a started process that ends by itself (returns (stdout,
        stderr)); stopped by its PID only if it has not ended in timeout s."""
        try:
            return proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            sys.stderr.write(f"bench-hosts: pid {proc.pid} still running after {timeout} s\n")
            return self.stop(proc)

    def close(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        subprocess.run([LAB, "down"], env=self.env)


def must(proc, what):
    if proc.returncode != 0:
        sys.exit(f"bench-hosts: {what} failed ({proc.returncode}): "
                 f"{proc.stderr.strip() or proc.stdout.strip()}")
    return proc


def last_json(text):
    return json.loads(text.strip().splitlines()[-1])


def udp_round_trip(lab, build, args):
    pong = lab.start(2, f"{build}/bench/udp-pingpong", "pong", str(PORT), ready="ready")
    res = must(lab.run(1, f"{build}/bench/udp-pingpong", "ping", "10.77.0.2", str(PORT),
                       str(args.payload), str(args.count)), "udp-pingpong ping")
    lab.stop(pong)
    r = last_json(res.stdout)
    return {"p50": r["p50_ns"] / 1e3, "p99": r["p99_ns"] / 1e3, "p999": r["p999_ns"] / 1e3}


def ddsperf_round_trip(lab, args, mode="listener"):
    # ddsperf has no ready line: the pinger waits for the ponger (minmatch).
    pong = lab.start(2, "ddsperf", "-D", str(args.seconds + 20), "pong", mode)
    res = must(lab.run(1, "ddsperf", "-Qminmatch:1", "-Qinitwait:15", "-D", str(args.seconds),
                       "ping", "size", str(args.payload), mode), f"ddsperf ping ({mode})")
    lab.stop(pong)
    seconds = [m for m in DDSPERF_PING.finditer(res.stdout) if int(m.group(5)) > 0]
    if len(seconds) < 2:
        sys.exit(f"bench-hosts: ddsperf ping printed no figures:\n{res.stdout}")
    seconds = seconds[1:]
    # ddsperf's ping/pong figures are HALF the round trip: its pinger keeps
    # (now - the ping's source timestamp) / 2, a one-way estimate
    # (ddsperf.c, process_pong). Doubled here, and checked: with one ping in
    # flight, a second's count times the mean round trip fills that second.
    busy = statistics.median(int(m.group(5)) * 2 * float(m.group(2)) / 1e6 for m in seconds)
    return {"p50": 2 * statistics.median(float(m.group(3)) for m in seconds),
            "p99": 2 * statistics.median(float(m.group(4)) for m in seconds),
            "p999": None, "busy": busy}


def uri(args, node, extra=""):
    if args.scheme == "shm":
        return f"shm:{args.net}?node={node}&size=1M{extra}"
    return f"dds:{args.net}?node={node}&size=1M&domain={args.domain}{extra}"


def rfm_round_trip(lab, build, args, extra="", callbacks=False):
    """extra "&spin=-1": both waiters spin instead of sleeping; callbacks: the
    -cb modes, answering from INTR1 callbacks."""
    prog = f"{build}/bench/bench-event-rtt"
    cb = "-cb" if callbacks else ""
    # Cyclone as it comes, as for ddsperf: callbacks=receive needs no
    # WhcHigh of its own since its writes queue rather than wait.
    echo = lab.start(2, prog, "echo" + cb, uri(args, 2, extra), str(args.payload),
                     ready="ready")
    res = must(lab.run(1, prog, "ping" + cb, uri(args, 1, extra), "2", str(args.payload),
                       str(args.count)), f"bench-event-rtt ping{cb}")
    lab.stop(echo)
    r = last_json(res.stdout)
    return {"p50": r["p50_ns"] / 1e3, "p99": r["p99_ns"] / 1e3, "p999": r["p999_ns"] / 1e3}


def ddsperf_throughput(lab, args):
    sub = lab.start(2, "ddsperf", "-D", str(args.seconds + 20), "sub")
    must(lab.run(1, "ddsperf", "-Qminmatch:1", "-Qinitwait:15", "-D", str(args.seconds),
                 "pub", "size", "4096"), "ddsperf pub")
    out, _ = lab.stop(sub)
    seconds = [m for m in DDSPERF_SUB.finditer(out) if int(m.group(2)) > 0]
    if len(seconds) < 3:
        sys.exit(f"bench-hosts: ddsperf sub printed too few figures:\n{out}")
    # The first and the last second are partial (start, end of the publisher).
    lost = sum(int(m.group(3)) for m in seconds)
    return {"rate": statistics.median(float(m.group(4)) * 1e3 for m in seconds[1:-1]),
            "lost": lost}


def rfm_throughput(lab, build, args):
    prog = f"{build}/bench/bench-repl-write"
    reader = lab.start(2, prog, "read", uri(args, 2), ready="ready")
    res = must(lab.run(1, prog, "write", uri(args, 1), "2", str(args.writes)),
               "bench-repl-write write")
    # The reader answers the last write, then closes its node and exits:
    # wait for that rather than stop it (it may still be closing).
    out, err = lab.finish(reader)
    if reader.returncode != 0:
        sys.exit(f"bench-hosts: the reading node failed ({reader.returncode}): {err.strip()}")
    return {"rate": last_json(res.stdout)["writes_per_s"], "lost": 0}


def have_dds(build):
    try:
        with open(os.path.join(build, "config.h")) as f:
            return any(line.startswith("#define HAVE_DDS 1") for line in f)
    except OSError:
        return False


def machine():
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (f"{os.cpu_count()} CPUs ({model}), Linux {platform.release()}, "
            f"load average {os.getloadavg()[0]:.2f} at start")


def median_figures(runs):
    """One contender over the rounds: the median of each figure."""
    return {k: None if runs[0][k] is None else statistics.median(r[k] for r in runs)
            for k in runs[0]}


def paired_ratio(runs, base):
    """The median of the rounds' P50 ratios, and the rounds' own."""
    each = [r["p50"] / b["p50"] for r, b in zip(runs, base)]
    return statistics.median(each), each


def fmt(v):
    return "n/a" if v is None else f"{v:.1f}"


def report(res, args):
    md = args.markdown
    rfm_name = f"rfm events + {args.payload} B writes ({args.scheme}:)"
    paired = {k: median_figures(res[k]) for k in PAIRED}
    rows = [("raw UDP ping-pong", res["udp"]),
            ("ddsperf ping/pong, listener", paired["ddsperf_rt"]),
            (f"{rfm_name}, callbacks=receive", paired["rfm_rt_cb"]),
            ("ddsperf ping/pong, waitset", paired["ddsperf_rt_ws"]),
            (f"{rfm_name}, rfm_event_wait", paired["rfm_rt"]),
            ("  the same, waiters spin (spin=-1)", res["rfm_rt_spin"])]
    print(f"bench-hosts: node 1 and node 2 in two network namespaces, veth + bridge; "
          f"{machine()}")
    print(f"round trip, {args.payload} B each way, {args.count} round trips "
          f"(ddsperf: {args.seconds} s, medians of its per-second figures, doubled: "
          f"it prints half round trips); the pairs: medians of {args.rounds} rounds")
    if md:
        print("\n| round trip (µs) | P50 | P99 | P99.9 |\n|---|---:|---:|---:|")
    else:
        print(f"  {'':56} {'P50 us':>9} {'P99 us':>9} {'P99.9 us':>9}")
    for name, r in rows:
        if md:
            print(f"| {name} | {fmt(r['p50'])} | {fmt(r['p99'])} | {fmt(r['p999'])} |")
        else:
            print(f"  {name:56} {fmt(r['p50']):>9} {fmt(r['p99']):>9} {fmt(r['p999']):>9}")
    tp = [("ddsperf pub/sub, 4 KiB", res["ddsperf_tp"]),
          (f"rfm_mem_write 4 KiB ({args.scheme}:)", res["rfm_tp"])]
    print(f"\nthroughput, reliable 4 KiB samples/writes (ddsperf: {args.seconds} s, "
          f"median per second; rfm: {args.writes} writes, all checked at the reader)")
    if md:
        print("\n| throughput | writes/s | MiB/s |\n|---|---:|---:|")
    for name, r in tp:
        mib = r["rate"] * 4096 / 1048576
        if md:
            print(f"| {name} | {r['rate']:.0f} | {mib:.0f} |")
        else:
            print(f"  {name:56} {r['rate']:>9.0f}/s {mib:>7.0f} MiB/s")
    busy = [r["busy"] for k in ("ddsperf_rt", "ddsperf_rt_ws") for r in res[k]]
    print(f"\nddsperf busy: pings per second x doubled mean = "
          f"{' '.join(f'{b:.2f}' for b in busy)} s per s (1.00: its figures are half "
          f"round trips{'' if all(0.9 <= b <= 1.05 for b in busy) else '; NOT SO HERE'})")
    rt, rt_each = paired_ratio(res["rfm_rt_cb"], res["ddsperf_rt"])
    rt_wait, wait_each = paired_ratio(res["rfm_rt"], res["ddsperf_rt_ws"])
    th = res["rfm_tp"]["rate"] / res["ddsperf_tp"]["rate"]
    rounds = lambda each: " ".join(f"{x:.2f}" for x in each)
    print()
    print(f"round trip P50, {args.scheme}: callbacks=receive / ddsperf listener: {rt:.2f}x "
          f"[{rounds(rt_each)}] (target <= 1.3x: {'met' if rt <= 1.3 else 'MISSED'})")
    print(f"round trip P50, {args.scheme}: rfm_event_wait / ddsperf waitset:    {rt_wait:.2f}x "
          f"[{rounds(wait_each)}] (no target)")
    print(f"throughput,     {args.scheme}: / ddsperf: {th:.2f}x (target >= 0.7x: "
          f"{'met' if th >= 0.7 else 'MISSED'})")
    if args.json:
        print(json.dumps(dict(res, **{f"{k}_median": v for k, v in paired.items()},
                              ratio_rt_p50=rt, ratio_rt_p50_rounds=rt_each,
                              ratio_rt_p50_wait=rt_wait, ratio_rt_p50_wait_rounds=wait_each,
                              ratio_throughput=th)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--seconds", type=int, default=5, help="each ddsperf run (default 5)")
    ap.add_argument("--count", type=int, default=20000, help="round trips (default 20000)")
    ap.add_argument("--writes", type=int, default=100000, help="4 KiB writes (default 100000)")
    ap.add_argument("--payload", type=int, default=64, help="round-trip payload (default 64)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds of the two round-trip pairs (default 3)")
    ap.add_argument("--scheme", choices=("dds", "shm"), default="dds")
    ap.add_argument("--domain", type=int, default=0, help="DDS domain (default 0)")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    ap.add_argument("--skip-ok", action="store_true", help="exit 0, not 77, when skipped")
    args = ap.parse_args()
    if (args.seconds < 3 or args.count < 1 or args.writes < 1 or args.rounds < 1 or
            not 12 <= args.payload <= 65000):
        ap.error("--seconds >= 3, --count, --writes and --rounds >= 1, --payload 12..65000")
    args.net = f"benchhosts{os.getpid()}"
    build = os.path.abspath(args.build)
    try:
        if not shutil.which("ddsperf"):
            raise Skip("ddsperf is not installed (Debian: cyclonedds-tools)")
        if args.scheme == "dds" and not have_dds(build):
            raise Skip("this build has no dds: backend (configure found no Cyclone DDS: "
                       "Debian cyclonedds-dev cyclonedds-tools)")
        for prog in ("bench/udp-pingpong", "bench/bench-event-rtt", "bench/bench-repl-write"):
            if not os.access(os.path.join(build, prog), os.X_OK):
                raise Skip(f"{build}/{prog} is not built")
        lab = Lab()
    except Skip as e:
        print(f"bench-hosts: skipped: {e}")
        return 0 if args.skip_ok else 77
    try:
        cb = "&callbacks=receive" if args.scheme == "dds" else ""
        res = {"udp": udp_round_trip(lab, build, args)}
        for _ in range(args.rounds):
            # Each pair back to back, so both see the machine as it is then.
            for key, run in (("ddsperf_rt", lambda: ddsperf_round_trip(lab, args)),
                             ("rfm_rt_cb", lambda: rfm_round_trip(lab, build, args, cb,
                                                                  callbacks=True)),
                             ("ddsperf_rt_ws", lambda: ddsperf_round_trip(lab, args, "waitset")),
                             ("rfm_rt", lambda: rfm_round_trip(lab, build, args))):
                res.setdefault(key, []).append(run())
        res.update({"rfm_rt_spin": rfm_round_trip(lab, build, args, "&spin=-1"),
                    "ddsperf_tp": ddsperf_throughput(lab, args),
                    "rfm_tp": rfm_throughput(lab, build, args)})
    finally:
        lab.close()
        if args.scheme == "shm":
            for name in (f"rfm-{args.net}", f"rfmlock-{args.net}"):
                try:
                    os.unlink(f"/dev/shm/{name}")
                except OSError:
                    pass
    report(res, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
