#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plot rfm ping and rfm jitter histograms (--hist-csv files) as one PNG.

    plot-latency.py -o OUT.png [--title TEXT] [--quantity TEXT] LABEL=FILE.csv [LABEL=FILE.csv ...]

Left: how many round trips fell in each bucket (log latency axis). Right:
the percentile spectrum (latency against 1 - quantile on a log axis), the
view that shows the tail: P99, P99.9 and the maximum. Needs Debian's
python3-matplotlib.
"""
import argparse
import csv
import sys


def load(path):
    """Rows of (low_ns, high_ns, count, cumulative), checked."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        if next(reader, None) != ["low_ns", "high_ns", "count", "cumulative"]:
            sys.exit(f"plot-latency: {path}: not an rfm ping/jitter --hist-csv file")
        for rec in reader:
            rows.append((int(rec[0]), int(rec[1]), int(rec[2]), float(rec[3])))
    if not rows:
        sys.exit(f"plot-latency: {path}: no buckets")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default="rfm ping round trips")
    # rfm jitter: "wake-up latency" (timer mode) or "event round trip" (event mode).
    ap.add_argument("--quantity", default="round trip",
                    help="what the histograms measure, for the axis labels")
    ap.add_argument("series", nargs="+", metavar="LABEL=FILE")
    args = ap.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (hist, spectrum) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=80)
    for item in args.series:
        label, sep, path = item.partition("=")
        if not sep:
            ap.error(f"'{item}' is not LABEL=FILE")
        rows = load(path)
        mids = [(lo + hi) / 2 / 1000 for lo, hi, _, _ in rows]
        counts = [c for _, _, c, _ in rows]
        # Points, not lines: empty buckets are not listed and must not be drawn over.
        hist.plot(mids, counts, marker=".", linestyle="none", markersize=4, label=label)
        # Spectrum: each bucket's upper edge at the fraction of samples above it.
        xs, ys = [], []
        for lo, hi, _, cum in rows:
            above = 1 - cum
            xs.append(1 / above if above > 0 else None)
            ys.append(hi / 1000)
        pts = [(x, y) for x, y in zip(xs, ys) if x is not None]
        pts.append((pts[-1][0] * 10 if pts else 10, ys[-1]))  # the maximum
        spectrum.step([p[0] for p in pts], [p[1] for p in pts], where="post", label=label)

    hist.set_xscale("log")
    hist.set_yscale("log")
    hist.set_xlabel(f"{args.quantity} (µs)")
    hist.set_ylabel("samples per bucket")
    hist.grid(True, which="major", alpha=0.3)
    hist.legend()
    spectrum.set_xscale("log")
    spectrum.set_yscale("log")
    spectrum.set_xticks([1, 2, 10, 100, 1000, 10000, 100000])
    spectrum.set_xticklabels(["0", "50", "90", "99", "99.9", "99.99", "99.999"])
    spectrum.set_xlim(1, None)
    spectrum.set_xlabel("percentile")
    spectrum.set_ylabel(f"{args.quantity} (µs)")
    spectrum.grid(True, which="major", alpha=0.3)
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
