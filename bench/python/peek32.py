# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-call cost of peek32 from Python against the same call from C, in one run.

    python3 peek32.py [--c-bench PATH/bench-mem] [--uri URI] [--json]

Python variants, each timed in the same loop over offsets in one 4 KiB page:
  loop          the loop alone (subtracted to get the net figures)
  swig          rfm._rfm_swig.rfm_mem_peek32(handle, off): the generated wrapper
  node          Node.peek32(off): the Pythonic layer, what scripts call
  view          Node.memory.cast("I")[i]: zero-copy view, no librfm call
The C figures come from bench-mem --json, run by this script in the same run:
its raw load through the mapping and its exported rfm_mem_peek32().
Medians of ROUNDS rounds, interleaved so that noise hits all variants alike.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import rfm
from rfm import _rfm_swig

CALLS = 200_000
ROUNDS = 9
SPAN = 4096


def time_loop(offsets):
    start = time.perf_counter_ns()
    for off in offsets:
        pass
    return (time.perf_counter_ns() - start) / len(offsets)


def time_swig(handle, offsets):
    peek = _rfm_swig.rfm_mem_peek32
    start = time.perf_counter_ns()
    for off in offsets:
        peek(handle, off)
    return (time.perf_counter_ns() - start) / len(offsets)


def time_node(node, offsets):
    peek = node.peek32
    start = time.perf_counter_ns()
    for off in offsets:
        peek(off)
    return (time.perf_counter_ns() - start) / len(offsets)


def time_view(words, indices):
    start = time.perf_counter_ns()
    for i in indices:
        words[i]
    return (time.perf_counter_ns() - start) / len(indices)


def c_figures(path):
    """bench-mem's medians for raw and exported peek32, or None."""
    if not path:
        return None
    out = subprocess.run([path, "--json"], check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    return {"raw": data["peek32_raw_ns"], "exported": data["peek32_exported_ns"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c-bench", help="path of bench-mem, for the C figures")
    parser.add_argument("--uri", help="network to use (default: a private shm: one)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    args = parser.parse_args()

    own = args.uri is None
    uri = args.uri or f"shm:bench-python-{os.getpid()}?size=64K"
    offsets = [(i * 4) % SPAN for i in range(CALLS)]
    indices = [off // 4 for off in offsets]
    names = ("loop", "swig", "node", "view")
    samples = {name: [] for name in names}

    node = rfm.open(uri)
    try:
        with node.memory as view, view.cast("I") as words:
            for _ in range(ROUNDS):
                samples["loop"].append(time_loop(offsets))
                samples["swig"].append(time_swig(node._h, offsets))
                samples["node"].append(time_node(node, offsets))
                samples["view"].append(time_view(words, indices))
    finally:
        node.close()
        if own:
            rfm.destroy(uri, force=True)

    median = {name: statistics.median(values) for name, values in samples.items()}
    c = c_figures(args.c_bench)

    if args.json:
        result = {"bench": "python-peek32", "calls": CALLS, "rounds": ROUNDS}
        result.update({f"peek32_python_{k}_ns": round(v, 3) for k, v in median.items()})
        if c:
            result.update({f"peek32_c_{k}_ns": v for k, v in c.items()})
            result["node_vs_c_exported"] = round(median["node"] / c["exported"], 1)
        print(json.dumps(result))
        return 0

    print(f"bench-python: peek32 per call, median of {ROUNDS} rounds x {CALLS} calls "
          f"(ns; net = minus the loop)")
    print(f"  {'variant':<34} {'ns/call':>9} {'net':>9} {'net vs C exported':>18}")
    if c:
        print(f"  {'C raw load (bench-mem)':<34} {c['raw']:>9.2f}")
        print(f"  {'C rfm_mem_peek32 (bench-mem)':<34} {c['exported']:>9.2f}")
    labels = {
        "loop": "Python loop alone",
        "swig": "_rfm_swig.rfm_mem_peek32(h, off)",
        "node": "Node.peek32(off)",
        "view": "memory.cast('I')[i]",
    }
    for name in names:
        net = median[name] - median["loop"]
        ratio = f"{net / c['exported']:>17.1f}x" if c and name != "loop" else ""
        shown = f"{net:>9.2f}" if name != "loop" else ""
        print(f"  {labels[name]:<34} {median[name]:>9.2f} {shown:>9} {ratio:>18}")
    if c:
        print(f"  Node.peek32 costs {median['node'] / c['exported']:.0f}x the C call "
              f"({median['node'] - c['exported']:+.1f} ns a call, loop included)")
    else:
        print("  C figures: not measured (pass --c-bench bench/bench-mem)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
