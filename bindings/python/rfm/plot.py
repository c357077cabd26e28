# SPDX-License-Identifier: LGPL-2.1-or-later
"""``rfm plot FILE NAMES... -o PNG`` (also ``python3 -m rfm.plot``): recorded
values against time, one panel per NAME, with matplotlib.

A NAME is a recorded variable or region of the frames, a record (each
number in it), an on-change record's stream, or one field of a record
(``region.record.field``). Times are seconds from the recording's start,
or from its trigger.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, List, Optional, Sequence, Tuple

from . import recording as _recording

EXIT_FAILED, EXIT_USAGE = 1, 2


def _series(run: "_recording.Recording", name: str) -> List[Tuple[str, Any, Any]]:
    """(label, t, values) for each number NAME stands for."""
    import numpy as np

    stream, data = None, None
    if "frames" in run.file and name in run.file["frames"]:
        stream, data = "frames", run.array(name)
    elif "records" in run.file and name in run.file["records"]:
        stream, data = f"records/{name}", run.array(name)
    else:
        # region.record.field: a field of a record, in the frames or a stream of its own.
        head, _, field = name.rpartition(".")
        for where in ("frames", "records"):
            if head and where in run.file and head in run.file[where]:
                stream = "frames" if where == "frames" else f"records/{head}"
                whole = run.array(head)
                if whole.dtype.names and field in whole.dtype.names:
                    data = whole[field]
                    break
        if data is None:
            raise KeyError(f"{run.path} holds no variable, record or field named {name!r} "
                           f"(frames: {', '.join(run.names()) or 'none'})")
    assert stream is not None  # each branch that found data named its stream
    t = run.time(stream)
    out: List[Tuple[str, Any, Any]] = []

    def add(label: str, values: Any) -> None:
        if values.dtype.names:
            for f in values.dtype.names:
                add(f"{label}.{f}", values[f])
        elif values.dtype.kind in "biuf":
            if values.ndim == 1:
                out.append((label, t, values.astype(float)))
            else:
                flat = values.reshape(values.shape[0], -1)
                for i in range(flat.shape[1]):
                    out.append((f"{label}[{i}]", t, flat[:, i].astype(float)))

    add(name, np.asarray(data))
    if not out:
        raise KeyError(f"{name} holds no numbers to plot (strings or bytes)")
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rfm plot", description="Plot recorded values against time into a PNG.")
    parser.add_argument("file", help="the HDF5 recording")
    parser.add_argument("names", nargs="+", metavar="NAME", help="variables, records, fields")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--from", dest="t_from", type=float, default=None,
                        help="start at S seconds")
    parser.add_argument("--to", dest="t_to", type=float, default=None, help="end at S seconds")
    parser.add_argument("--title", default=None, help="the figure's title")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else 0
    try:
        import matplotlib  # type: ignore[import]
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import]
    except ImportError:
        print("rfm: plot: matplotlib is missing (Debian: python3-matplotlib)", file=sys.stderr)
        return EXIT_FAILED
    try:
        run = _recording.load(args.file)
    except (OSError, ValueError, ImportError) as e:
        print(f"rfm: plot: {args.file}: {e}", file=sys.stderr)
        return EXIT_FAILED
    with run:
        try:
            panels = [(name, _series(run, name)) for name in args.names]
        except KeyError as e:
            print(f"rfm: plot: {e.args[0]}", file=sys.stderr)
            return EXIT_FAILED
        fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False,
                                 figsize=(10, 2.2 + 1.8 * len(panels)))
        for ax, (name, lines) in zip(axes[:, 0], panels):
            for label, t, values in lines:
                keep = (t >= (args.t_from if args.t_from is not None else -float("inf"))) & \
                       (t <= (args.t_to if args.t_to is not None else float("inf")))
                ax.plot(t[keep], values[keep], label=label, linewidth=0.9)
            unit = ""
            if "frames" in run.file and name in run.file["frames"]:
                unit = _recording._text(run.file["frames"][name].attrs.get("unit", ""))
            ax.set_ylabel(f"{name}" + (f" [{unit}]" if unit else ""))
            ax.grid(True, alpha=0.3)
            if len(lines) > 1 and len(lines) <= 12:
                ax.legend(fontsize="small", loc="best")
        axes[-1, 0].set_xlabel("t [s]")
        fig.suptitle(args.title or args.file + ("" if run.complete else " (incomplete)"))
        fig.tight_layout()
        try:
            fig.savefig(args.output, dpi=100)
        except OSError as e:
            print(f"rfm: plot: {args.output}: {e}", file=sys.stderr)
            return EXIT_FAILED
    print(f"{args.output}: {sum(len(l) for _, l in panels)} series of {len(panels)} "
          f"name{'s' if len(panels) != 1 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
