# SPDX-License-Identifier: LGPL-2.1-or-later
"""Recording a run into HDF5 or CSV: :class:`Recorder` over librfm's recorder.

The sampling runs in C on threads of the library (no Python per sample):
Python only configures, starts, watches the counters and stops it::

    with rfm.Recorder(node, "run.h5", ["sim.pos", "ctl.state"],
                      layout=layout, rate=1000, duration=10) as rec:
        rec.wait()                  # until the duration has passed
    print(rec.stats.samples, rec.stats.lost)

Load the file with :func:`rfm.recording.load`.
"""

from __future__ import annotations

import dataclasses
import threading
from types import TracebackType
from typing import TYPE_CHECKING, Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _rfm_swig as _swig
from ._errors import Timeout

if TYPE_CHECKING:
    from ._layout import Layout
    from ._node import Node

_COMPARE = {">": _swig.RFM_REC_GT, ">=": _swig.RFM_REC_GE, "<": _swig.RFM_REC_LT,
            "<=": _swig.RFM_REC_LE, "==": _swig.RFM_REC_EQ, "!=": _swig.RFM_REC_NE}

_STATES = {_swig.RFM_REC_STATE_NEW: "new", _swig.RFM_REC_STATE_ARMED: "armed",
           _swig.RFM_REC_STATE_RECORDING: "recording", _swig.RFM_REC_STATE_ENDED: "ended"}


@dataclasses.dataclass(frozen=True)
class RecorderStats:
    """A recording's counters (``struct rfm_recorder_stats``)."""

    state: str                 #: "new", "armed", "recording" or "ended"
    samples: int               #: rows the sampler took
    rows_written: int          #: rows handed to the file
    queue_drops: int           #: rows lost: the writer fell a whole queue behind
    late_ticks: int            #: rate mode: ticks lost because the sampler woke late
    missed_updates: int        #: record publishes not seen (from their sequence)
    ring_lost: int             #: ring messages overwritten before they were read
    event_overflow: int        #: events dropped by the node's full event queue
    torn_reads: int            #: record reads torn by a publish in flight
    pre_lost: int              #: pre-trigger rows the hold buffer could not keep
    file_bytes: int            #: the file's size at its last flush
    lag_max_ns: int            #: rate mode: the latest wake after a tick
    triggered: bool            #: the trigger fired (or there is none and it started)
    error: int                 #: the rfm error code that ended it early, 0 if none

    @property
    def lost(self) -> int:
        """Every sample that is not in the file, whatever the cause."""
        return (self.queue_drops + self.late_ticks + self.missed_updates + self.ring_lost
                + self.event_overflow)


def _event_mask(types: Union[None, str, int, Iterable[Union[str, int]]]) -> int:
    if types is None:
        return 0
    if isinstance(types, (str, int)):
        types = [types]
    mask = 0
    for t in types:
        number = _swig.rfm_event_type_parse(t) if isinstance(t, str) else int(t)
        mask |= 1 << number
    return mask


def _event_type(name: Union[str, int]) -> int:
    return _swig.rfm_event_type_parse(name) if isinstance(name, str) else int(name)


class Recorder:
    """A recording of a node into ``path`` (HDF5, or CSV for a ``.csv`` name).

    ``names``: variables (``region.var``), records (``region.record``) and
    regions of ``layout``. When: ``rate`` (Hz, the default 1000),
    ``on_change=True`` (every publish of each record, each miss counted)
    or ``on_event="intr1"`` (a frame per event); ``on_change`` with
    ``rate`` or ``on_event``: records on change, the rest in frames. Also ``events`` (types
    recorded as they arrive), ``rings`` ({name: offset}), ``byte_ranges``
    ({name: (offset, length)}), ``trigger`` (an event type, or
    ``("region.var", ">", 100.0)``) with ``pre`` seconds kept before it,
    ``duration`` seconds, ``overwrite``, ``poll``/``flush`` seconds and
    ``queue_bytes``. Give it a node handle of its own when it takes
    events. As a context manager it starts on entry and stops on exit.
    """

    def __init__(self, node: "Node", path: str, names: Sequence[str] = (), *,
                 layout: Optional["Layout"] = None,
                 rate: Optional[float] = None, on_change: bool = False,
                 on_event: Union[None, str, int] = None, duration: Optional[float] = None,
                 events: Union[None, str, int, Iterable[Union[str, int]]] = None,
                 rings: Optional[Mapping[str, int]] = None,
                 byte_ranges: Optional[Mapping[str, Sequence[int]]] = None,
                 trigger: Union[None, str, int, Tuple[str, str, float]] = None, pre: float = 0.0, format: Optional[str] = None,
                 overwrite: bool = False, poll: Optional[float] = None,
                 flush: Optional[float] = None, queue_bytes: Optional[int] = None,
                 spin: bool = False) -> None:
        if rate is not None and on_event is not None:
            raise ValueError("choose rate or on_event (on_change may go with either)")
        config = _swig.rfm_recorder_config()
        config.format = {None: _swig.RFM_REC_FORMAT_AUTO, "hdf5": _swig.RFM_REC_FORMAT_HDF5,
                         "csv": _swig.RFM_REC_FORMAT_CSV}[format]
        if on_event is not None:
            config.mode = _swig.RFM_REC_ON_EVENT
            config.event_type = _event_type(on_event)
        elif on_change and rate is None:
            config.mode = _swig.RFM_REC_ON_CHANGE
        config.period_ns = max(1, round(1e9 / (rate if rate is not None else 1000.0)))
        config.poll_ns = round(poll * 1e9) if poll else 0
        config.duration_ns = round(duration * 1e9) if duration else 0
        config.flush_ns = round(flush * 1e9) if flush else 0
        config.queue_bytes = int(queue_bytes or 0)
        config.flags = ((_swig.RFM_REC_F_OVERWRITE if overwrite else 0)
                        | (_swig.RFM_REC_F_SPIN if spin else 0)
                        | (_swig.RFM_REC_F_RECORDS_ON_CHANGE
                           if on_change and config.mode != _swig.RFM_REC_ON_CHANGE else 0))
        self.path = path
        self._node = node
        self._lock = threading.Lock()
        self._h = _swig.rfm_recorder_new(node._h, layout._h if layout is not None else None,
                                         path, config)
        try:
            for name in names:
                _swig.rfm_recorder_add(self._h, name)
            for name, offset in (rings or {}).items():
                _swig.rfm_recorder_add_ring(self._h, name, offset)
            for name, (offset, length) in (byte_ranges or {}).items():
                _swig.rfm_recorder_add_bytes(self._h, name, offset, length)
            if events is not None:
                _swig.rfm_recorder_add_events(self._h, _event_mask(events))
            if trigger is not None:
                pre_ns = round(pre * 1e9)
                if isinstance(trigger, (str, int)):
                    _swig.rfm_recorder_set_trigger_event(self._h, _event_type(trigger), pre_ns)
                else:
                    var, op, value = trigger
                    _swig.rfm_recorder_set_trigger_var(self._h, var, _COMPARE[op], float(value),
                                                       pre_ns)
        except BaseException:
            self.close()
            raise

    def start(self) -> "Recorder":
        """Create the file and start sampling."""
        with self._lock:
            _swig.rfm_recorder_start(self._h)
        return self

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until the recording ends by itself (duration, error): True
        when it has, False when ``timeout`` seconds passed first."""
        ns = -1 if timeout is None else round(timeout * 1e9)
        try:
            _swig.rfm_recorder_wait(self._h, ns)
        except Timeout:
            return False
        except Exception as e:  # RFM_EAGAIN for timeout 0
            if getattr(e, "code", None) == _swig.RFM_EAGAIN:
                return False
            raise
        return True

    def stop(self) -> RecorderStats:
        """End the recording and close the file; raises the error that ended
        it early (a full disk: rfm.NoSpace). Returns the final counters."""
        with self._lock:
            _swig.rfm_recorder_stop(self._h)
        return self.stats

    @property
    def stats(self) -> RecorderStats:
        """The counters now (thread-safe while it runs)."""
        s = _swig.rfm_recorder_get_stats(self._h)
        return RecorderStats(
            state=_STATES.get(s.state, str(s.state)), samples=s.samples,
            rows_written=s.rows_written, queue_drops=s.queue_drops, late_ticks=s.late_ticks,
            missed_updates=s.missed_updates, ring_lost=s.ring_lost,
            event_overflow=s.event_overflow, torn_reads=s.torn_reads, pre_lost=s.pre_lost,
            file_bytes=s.file_bytes, lag_max_ns=s.lag_max_ns,
            triggered=bool(s.trigger_ns) or s.state == _swig.RFM_REC_STATE_RECORDING,
            error=s.error)

    def close(self) -> None:
        """Stop if running and free the recorder; a second close does nothing."""
        h, self._h = getattr(self, "_h", None), None
        if h is not None:
            _swig.rfm_recorder_free(h)

    def __enter__(self) -> "Recorder":
        return self.start()

    def __exit__(self, exc_type: Optional[type], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        try:
            self.stop()
        except Exception:
            if exc_type is None:
                raise  # the recording's own error (a full disk...)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
