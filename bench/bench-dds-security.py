#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What DDS Security costs a dds: network: plain against signed against
encrypted, in one run, on loopback (two processes, one node each).

  round trip   bench/bench-event-rtt ping/echo: PAYLOAD bytes written and
               an INTR1 each way (P50, P99)
  throughput   bench/bench-repl-write: 4 KiB rfm_mem_write calls per second
               that the other node's copy then holds

The files come from docs/security.md's commands (tests/backends/dds/
security/make-files.sh): a site whose governance says SIGN, one that says
ENCRYPT. The three networks run ROUNDS times, interleaved (plain, signed,
encrypted, plain, ...), so the machine's drift falls on all three; the
table gives each one's median over the rounds, and the ratios against
plain are medians of each round's ratio. Timing is never a failure.

    bench-dds-security.py --build BUILDDIR [--rounds R] [--count N]
                          [--writes N] [--payload B] [--markdown]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.join(HERE, "..")
MAKE_FILES = os.path.join(SRCDIR, "tests", "backends", "dds", "security", "make-files.sh")
DOC = os.path.join(SRCDIR, "docs", "security.md")
LOOPBACK = ('<CycloneDDS><Domain Id="any"><General><Interfaces>'
            '<NetworkInterface name="lo"/></Interfaces>'
            '<AllowMulticast>false</AllowMulticast></General>'
            '<Discovery><ParticipantIndex>auto</ParticipantIndex>'
            '<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>'
            '<Peers><Peer Address="127.0.0.1"/></Peers></Discovery>'
            '</Domain></CycloneDDS>')
MODES = ("plain", "sign", "encrypt")


def pair(env, server, client):
    """Start server (prints "ready"), run client, return its JSON."""
    srv = subprocess.Popen(server, env=env, stdout=subprocess.PIPE, text=True)
    try:
        line = srv.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"{server[0]}: {line!r}")
        out = subprocess.run(client, env=env, capture_output=True, text=True, timeout=600)
        if out.returncode:
            raise RuntimeError(f"{client[0]}: {out.stderr.strip()}")
        srv.wait(timeout=60)
        return json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--count", type=int, default=5000, help="round trips per run")
    ap.add_argument("--writes", type=int, default=20000, help="4 KiB writes per run")
    ap.add_argument("--payload", type=int, default=64)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    rtt = os.path.join(args.build, "bench", "bench-event-rtt")
    repl = os.path.join(args.build, "bench", "bench-repl-write")
    for prog in (rtt, repl):
        if not os.path.exists(prog):
            print(f"bench-dds-security: {prog} is not built")
            return 1
    if not shutil.which("openssl"):
        print("bench-dds-security: SKIP: no openssl (Debian: openssl)")
        return 0
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(args.build, "src", ".libs"))
    env.setdefault("CYCLONEDDS_URI", LOOPBACK)
    domain = 20 + os.getpid() % 200
    tmp = tempfile.mkdtemp(prefix="rfm-bench-ddssec-")
    try:
        for mode in MODES[1:]:
            subprocess.run([MAKE_FILES, DOC, os.path.join(tmp, mode), mode.upper(), "1", "2"],
                           check=True)

        def uri(mode, k, name):
            sec = "" if mode == "plain" else f"&security={tmp}/{mode}/node{k}"
            return f"dds:{name}?node={k}&size=1M&domain={domain}{sec}"

        results = {m: [] for m in MODES}
        for r in range(args.rounds):
            for mode in MODES:
                name = f"bsec{os.getpid()}r{r}{mode}"
                lat = pair(env, [rtt, "echo", uri(mode, 2, name + "l"), str(args.payload)],
                           [rtt, "ping", uri(mode, 1, name + "l"), "2", str(args.payload),
                            str(args.count)])
                thr = pair(env, [repl, "read", uri(mode, 2, name + "t")],
                           [repl, "write", uri(mode, 1, name + "t"), "2", str(args.writes)])
                results[mode].append((lat["p50_ns"] / 1000, lat["p99_ns"] / 1000,
                                      thr["writes_per_s"]))
                print(f"round {r + 1} {mode:8s} P50 {lat['p50_ns'] / 1000:7.1f} us  "
                      f"P99 {lat['p99_ns'] / 1000:7.1f} us  {thr['writes_per_s']:9.0f} writes/s",
                      flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def med(mode, i):
        return statistics.median(x[i] for x in results[mode])

    def ratio(mode, i):
        return statistics.median(results[mode][r][i] / results["plain"][r][i]
                                 for r in range(args.rounds))

    print()
    print(f"dds: on loopback, {args.payload}-byte round trips, 4 KiB writes, "
          f"medians of {args.rounds} rounds")
    if args.markdown:
        print("| network | RTT P50 | RTT P99 | 4 KiB writes/s | P50 / plain | P99 / plain "
              "| writes/s / plain |")
        print("|---|---|---|---|---|---|---|")
    for mode in MODES:
        row = (mode, f"{med(mode, 0):.1f} us", f"{med(mode, 1):.1f} us", f"{med(mode, 2):.0f}",
               f"{ratio(mode, 0):.2f}x", f"{ratio(mode, 1):.2f}x", f"{ratio(mode, 2):.2f}x")
        if args.markdown:
            print("| " + " | ".join(row) + " |")
        else:
            print("{:8s} RTT P50 {:>9s}  P99 {:>9s}  {:>7s} writes/s   ratios to plain: "
                  "P50 {}  P99 {}  writes/s {}".format(*row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
