# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reading a recording of ``rfm record`` (or :class:`rfm.Recorder`) into numpy and pandas.

    import rfm.recording
    run = rfm.recording.load("run.h5")
    run.frames                      # pandas DataFrame: t, t_mono_ns, ..., one column per value
    run.records["ctl.state"]        # DataFrame per on-change record: t, seq, missed, fields
    run.events                      # DataFrame: t, type, sender, data, seq
    run.array("sim.pos")            # numpy array of one recorded dataset
    run.attrs["uri"], run.complete  # the recording's facts

It needs h5py and numpy (Debian: python3-h5py, python3-numpy); the
DataFrames need pandas (python3-pandas). A file left by a killed recorder
is read as HDF5's single-writer/multiple-reader readers read it, every
stream cut to its shortest dataset (a crash can leave one ahead).
The file's layout is docs/recording.md.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

__all__ = ["Recording", "load", "open_file"]

_STAMPS = ("t", "t_mono_ns", "t_real_ns")
# The columns rows carry beside their values, in the order DataFrames show them.
_HEADER_ORDER = _STAMPS + ("tick", "lag_ns", "event_type", "event_sender", "event_data", "seq",
                           "missed", "lost", "len", "type", "sender", "data", "sent_ns")


def _need(module: str, debian: str) -> Any:
    try:
        return __import__(module)
    except ImportError as e:
        raise ImportError(f"rfm.recording needs {module} (Debian: {debian})") from e


def open_file(path: str, swmr: bool = False) -> Any:
    """The recording as an ``h5py.File``, read-only. A file still being
    written (or left by a killed recorder) is opened in SWMR mode."""
    h5py = _need("h5py", "python3-h5py")
    if swmr:
        return h5py.File(path, "r", swmr=True)
    try:
        return h5py.File(path, "r")
    except OSError as e:
        if "already open for write" in str(e) or "SWMR" in str(e):
            return h5py.File(path, "r", swmr=True)
        raise


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


class Recording:
    """A recording held open for reading; close it (or use ``with``)."""

    def __init__(self, path: str, swmr: bool = False) -> None:
        self.path = path
        self.file = open_file(path, swmr)
        if "rfm_recording" not in self.file.attrs:
            self.file.close()
            raise ValueError(f"{path} is an HDF5 file, but not a recording of rfm record")
        #: The file's attributes (uri, node_id, start_time, layout, counters...).
        self.attrs: Dict[str, Any] = {k: _text(v) for k, v in self.file.attrs.items()}
        #: False when the recorder did not end cleanly (a crash, a kill, a full disk).
        self.complete: bool = bool(self.attrs.get("complete", 0))

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> "Recording":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- what is in it ----

    def streams(self) -> List[str]:
        """Every stream's group: "frames", "records/R", "rings/N", "events"."""
        out = []
        for top in ("frames", "events"):
            if top in self.file:
                out.append(top)
        for top in ("records", "rings"):
            if top in self.file:
                out += [f"{top}/{name}" for name in self.file[top]]
        return out

    def rows(self, stream: str) -> int:
        """Rows every dataset of @stream holds (the shortest one's)."""
        g = self.file[stream]
        return min(g[name].shape[0] for name in g)

    def names(self) -> List[str]:
        """The recorded values of the frames (variables, records, regions, ranges)."""
        if "frames" not in self.file:
            return []
        g = self.file["frames"]
        return [n for n in g if _text(g[n].attrs.get("kind", "")) not in ("stamp", "sequence")]

    def _find(self, name: str) -> Tuple[Any, Optional[str]]:
        if "frames" in self.file and name in self.file["frames"]:
            return self.file["frames"][name], "frames"
        for top in ("records", "rings"):
            if top in self.file and name in self.file[top]:
                return self.file[top][name]["data"], f"{top}/{name}"
        if name in self.file:
            return self.file[name], None
        raise KeyError(f"{self.path} holds nothing named {name!r} (frames: "
                       f"{', '.join(self.names()) or 'none'}; streams: {', '.join(self.streams())})")

    def array(self, name: str) -> Any:
        """The dataset @name (a frame value, or a record or ring stream's data)
        as a numpy array, cut to its stream's rows."""
        dset, stream = self._find(name)
        n = self.rows(stream) if stream else dset.shape[0]
        return dset[:n]

    def time(self, stream: str = "frames") -> Any:
        """Seconds from the start (or the trigger) of each row of @stream."""
        return self.file[stream]["t"][: self.rows(stream)]

    # ---- pandas ----

    def dataframe(self, stream: str = "frames") -> Any:
        """@stream as a pandas DataFrame, a column per stamp and value: arrays
        as ``name[i]``, records' fields as ``record.field``, strings decoded,
        bytes as ``bytes``."""
        pd = _need("pandas", "python3-pandas")
        np = _need("numpy", "python3-numpy")
        g = self.file[stream]
        n = self.rows(stream)
        cols: Dict[str, Any] = {}
        stamps = [k for k in g if _text(g[k].attrs.get("kind", "")) == "stamp"]
        order = sorted(stamps, key=lambda k: (_HEADER_ORDER.index(k)
                                              if k in _HEADER_ORDER else len(_HEADER_ORDER), k))
        for name in order + sorted(k for k in g if k not in stamps):
            d = g[name]
            if _text(d.attrs.get("kind", "")) == "bytes" or d.dtype == np.uint8 and d.ndim == 2:
                cols[name] = [bytes(row) for row in d[:n]]
                continue
            data = d[:n]
            prefix = "" if stream != "frames" and name == "data" else name
            self._columns(cols, prefix, data, np, _text(d.attrs.get("rfm_type", "")))
        frame = pd.DataFrame(cols)
        return frame

    @staticmethod
    def _columns(cols: Dict[str, Any], name: str, data: Any, np: Any, rfm_type: str) -> None:
        if data.dtype.names:
            for field in data.dtype.names:
                sub = f"{name}.{field}" if name else field
                Recording._columns(cols, sub, data[field], np, "")
            return
        if data.dtype.kind == "S":
            cols[name] = [v.split(b"\0", 1)[0].decode(errors="replace") for v in data]
            return
        if data.ndim == 2:
            for i in range(data.shape[1]):
                cols[f"{name}[{i}]"] = data[:, i]
            return
        cols[name] = data.astype(bool) if rfm_type == "bool" else data

    @property
    def frames(self) -> Any:
        """The frames as a DataFrame (see :meth:`dataframe`)."""
        return self.dataframe("frames")

    @property
    def events(self) -> Any:
        """The recorded events as a DataFrame: t, type, sender, data, seq, sent_ns."""
        return self.dataframe("events")

    @property
    def records(self) -> Dict[str, Any]:
        """Each on-change record's rows as a DataFrame, by record name."""
        if "records" not in self.file:
            return {}
        return {name: self.dataframe(f"records/{name}") for name in self.file["records"]}

    @property
    def rings(self) -> Dict[str, Any]:
        """Each ring's messages as a DataFrame: t, seq, lost, len, data (bytes)."""
        if "rings" not in self.file:
            return {}
        return {name: self.dataframe(f"rings/{name}") for name in self.file["rings"]}


def load(path: str, swmr: bool = False) -> Recording:
    """Open the recording at @path (see :class:`Recording`)."""
    return Recording(path, swmr)
