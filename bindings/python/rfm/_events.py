# SPDX-License-Identifier: LGPL-2.1-or-later
"""Network interrupts (<rfm/event.h>): the Node methods, defined here.

Receiving: enable types with ``node.enable_events()``, then take records in
one of three ways per node: ``wait_event()`` / ``fetch_events()`` /
``events()`` (blocking, the GIL released while they wait), the pollable
descriptor ``node.event_fd()`` (``node`` itself has ``fileno()``, so it
goes straight into select/selectors/asyncio) drained by ``poll_events()``,
or callbacks ``node.on_event(type, fn)`` run on the library's dispatcher
thread. A received record is an :class:`rfm.Event` (a named tuple).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, AsyncIterator, Callable, Iterator, List, NamedTuple, Optional
from typing import Tuple, Union

from . import _errors
from . import _waits
from . import _rfm_swig as _swig

if TYPE_CHECKING:
    from ._node import Node

Event = _swig.Event


class EventType(enum.IntEnum):
    """Event types (enum rfm_event_type): RESET, INTR1..INTR4, status types."""

    RESET = _swig.RFM_EVENT_RESET
    INTR1 = _swig.RFM_EVENT_INTR1
    INTR2 = _swig.RFM_EVENT_INTR2
    INTR3 = _swig.RFM_EVENT_INTR3
    INTR4 = _swig.RFM_EVENT_INTR4
    OVERFLOW = _swig.RFM_EVENT_OVERFLOW
    NODE_UP = _swig.RFM_EVENT_NODE_UP
    NODE_DOWN = _swig.RFM_EVENT_NODE_DOWN
    LINK = _swig.RFM_EVENT_LINK


EventType.__module__ = "rfm"

#: What names an event type: an :class:`EventType`, its int, or its name ("intr1").
EventTypeLike = Union[EventType, int, str]

#: Target of a broadcast: every other attached node.
NODE_ALL = 0xFFFF
#: The types that can be sent (RESET, INTR1..INTR4).
NETWORK_TYPES = (EventType.RESET, EventType.INTR1, EventType.INTR2, EventType.INTR3,
                 EventType.INTR4)
# RFM_EVENT_MASK_NETWORK (a UINT32_C macro SWIG does not evaluate).
_MASK_NETWORK = sum(1 << t for t in NETWORK_TYPES)
#: rfm.Event.flags: the node sent the record to itself (loopback).
EVENT_F_LOOPBACK = 0x1



class EventStats(NamedTuple):
    """Counters of a receiving node (rfm_event_get_stats()):
    depth: queue capacity (0: not receiving); delivered: records returned (the
    last seq); dropped: records lost to a full queue; overflows: OVERFLOW
    records returned; queued: waiting now; unhandled: taken by the dispatcher
    without a callback."""

    depth: int
    delivered: int
    dropped: int
    overflows: int
    queued: int
    unhandled: int


_send = _swig.rfm_event_send
_wait = _swig.rfm_event_wait
_fetch = _swig.rfm_event_fetch


def event_type(value: EventTypeLike) -> int:
    """An event type from an :class:`EventType`, an int or a name ("intr1")."""
    if isinstance(value, str):
        return _swig.rfm_event_type_parse(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"event type must be an int, rfm.EventType or name, not "
                        f"{type(value).__name__}")
    return int(value)


def _data_word(data: int) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise TypeError(f"event data must be an int, not {type(data).__name__}")
    if not 0 <= data <= 0xFFFFFFFF:
        raise ValueError(f"event data {data!r} does not fit in 32 bits (0..4294967295)")
    return data


_timeout_ns = _waits.timeout_ns


def _mask(types: Tuple[EventTypeLike, ...]) -> int:
    mask = 0
    for t in types:
        mask |= 1 << event_type(t)
    return mask


def _types_of(mask: int) -> List[Union[EventType, int]]:
    return [EventType(t) if t in EventType._value2member_map_ else t
            for t in range(32) if mask >> t & 1]


def send_event(self: Node, node_id: int, type: EventTypeLike,  # noqa: A002 - the C name
               data: int = 0) -> int:
    """Send event ``type`` with the 32-bit ``data`` to node ``node_id``
    (:data:`rfm.NODE_ALL`: every other node). Returns how many receiving
    handles queued it (0 when none has the type enabled)."""
    return _send(self._h, node_id, event_type(type), _data_word(data))


def broadcast_event(self: Node, type: EventTypeLike, data: int = 0) -> int:  # noqa: A002
    """Send event ``type`` to every other attached node; returns receivers reached."""
    return _send(self._h, NODE_ALL, event_type(type), _data_word(data))


def publish(self: Node, offset: int, data: _waits.Buffer, seq_offset: int, node_id: int,
            type: EventTypeLike) -> Tuple[int, int]:  # noqa: A002
    """Write ``data`` at ``offset``, bump the 32-bit sequence word at
    ``seq_offset`` (release order), then send ``type`` with the new
    sequence as data: rfm_event_publish(). Returns (receivers, sequence)."""
    receivers, seq = _swig.rfm_event_publish(self._h, offset, data, seq_offset, node_id,
                                             event_type(type))
    return receivers, seq


def enable_events(self: Node, *types: EventTypeLike) -> None:
    """Start receiving ``types`` (default: every network type)."""
    mask = _mask(types) if types else _MASK_NETWORK
    _swig.rfm_event_enable(self._h, mask)


def disable_events(self: Node, *types: EventTypeLike) -> None:
    """Stop queueing ``types`` (default: all); queued records stay."""
    mask = _mask(types) if types else _MASK_NETWORK
    _swig.rfm_event_disable(self._h, mask)


def enabled_events(self: Node) -> List[Union[EventType, int]]:
    """The enabled types, as a list of :class:`EventType`."""
    return _types_of(_swig.rfm_event_get_enabled(self._h))


def wait_event(self: Node, timeout: Optional[float] = None) -> Event:
    """Take one :class:`rfm.Event`, waiting up to ``timeout`` seconds
    (None: forever; 0: do not wait). Raises :class:`rfm.Timeout` when the
    time passes, :class:`rfm.WouldBlock` for timeout 0 with nothing queued,
    :class:`rfm.Canceled` after :meth:`cancel_wait`. Other Python threads
    run while it waits."""
    return _wait(self._h, _timeout_ns(timeout))


def fetch_events(self: Node, max: int = 64,  # noqa: A002 - as in C
                 timeout: Optional[float] = None) -> List[Event]:
    """Take up to ``max`` records at once, waiting up to ``timeout`` for the first."""
    return _fetch(self._h, max, _timeout_ns(timeout))


def poll_events(self: Node, max: int = 64) -> List[Event]:  # noqa: A002 - as in C
    """Take the records queued now (up to ``max``), without waiting: [] if none.
    What a select/asyncio loop calls when :meth:`event_fd` is readable."""
    try:
        return _fetch(self._h, max, 0)
    except _errors.WouldBlock:
        return []


def events(self: Node, timeout: Optional[float] = None, batch: int = 64, *,
           total: Optional[float] = None) -> Iterator[Event]:
    """Iterate over incoming events until one of two limits:

    ``timeout``, the idle timeout: none arrives within that many seconds
    (None: never; 0: only the events queued now); ``total``, the total
    deadline: that many seconds after the call, however many arrive (None:
    none). Reaching either ends the loop; neither raises. Records are taken
    ``batch`` at a time, and a batch taken is yielded whole."""
    idle = _timeout_ns(timeout)
    deadline = _waits.Deadline(total)
    return _events_until(self._h, idle, deadline, batch)


def _events_until(handle: _swig.NodeHandle, idle: Optional[int], deadline: _waits.Deadline,
                  batch: int) -> Iterator[Event]:
    while True:
        ns = deadline.wait_ns(idle)
        if ns == -1:
            return
        try:
            batch_of = _fetch(handle, batch, ns)
        except (_errors.Timeout, _errors.WouldBlock):
            return
        yield from batch_of


def _timed_out(self: Node, timeout: Optional[float]) -> _errors.Error:
    return _errors._make(_swig.RFM_ETIMEDOUT, f"{self.uri}: no event within {timeout} s")


async def wait_event_async(self: Node, timeout: Optional[float] = None) -> Event:
    """:meth:`wait_event` for asyncio: awaits the node's pollable descriptor
    (no thread), so the event loop runs on while it waits. Raises as
    :meth:`wait_event` does (:class:`rfm.Timeout`, also a TimeoutError,
    when ``timeout`` seconds pass). Cancelling it takes nothing."""
    deadline = _waits.Deadline(None if _timeout_ns(timeout) is None else timeout)
    while True:
        try:
            return _wait(self._h, 0)
        except _errors.WouldBlock:
            pass
        left = deadline.remaining_ns()
        if left == 0 or not await _waits.readable(self.event_fd(), left):
            try:
                return _wait(self._h, 0)   # one that came with the deadline
            except _errors.WouldBlock:
                raise _timed_out(self, timeout) from None


async def events_async(self: Node, timeout: Optional[float] = None, batch: int = 64, *,
                       total: Optional[float] = None) -> AsyncIterator[Event]:
    """:meth:`events` for asyncio (``async for ev in node.events_async(...)``):
    the same idle ``timeout`` and ``total`` deadline, awaited on the node's
    pollable descriptor."""
    idle = _timeout_ns(timeout)
    deadline = _waits.Deadline(total)
    while True:
        ready = poll_events(self, batch)
        if ready:
            for ev in ready:
                yield ev
            continue
        ns = deadline.wait_ns(idle)
        if ns == -1 or ns == 0:
            return
        if not await _waits.readable(self.event_fd(), ns):
            for ev in poll_events(self, batch):   # what came with the limit
                yield ev
            return


def cancel_wait(self: Node) -> None:
    """Wake every thread waiting on this node: its wait raises :class:`rfm.Canceled`
    (the next wait does, if none is waiting now)."""
    _swig.rfm_event_cancel(self._h)


def event_fd(self: Node) -> int:
    """A descriptor readable while records are queued (owned by the node)."""
    return _swig.rfm_event_fd(self._h)


def on_event(self: Node, type: EventTypeLike,  # noqa: A002
             callback: Callable[[Event], object]) -> None:
    """Call ``callback(event)`` for every record of ``type`` (or OVERFLOW),
    on the library's dispatcher thread, one call at a time. Enable the type
    too. While any callback is registered, waits on the node raise
    :class:`rfm.Busy`. An exception in a callback goes to
    ``sys.unraisablehook`` and is counted in :attr:`callback_errors`. A
    callback may remove itself (or others) and may close the node."""
    t = event_type(type)
    _swig.rfm_event_callback_register(self._h, t, callback)
    self._callbacks[t] = callback


def remove_callback(self: Node, type: EventTypeLike) -> None:  # noqa: A002
    """Remove the callback of ``type``; outside a callback it returns once a
    running call of it has finished. Safe inside any callback."""
    t = event_type(type)
    _swig.rfm_event_callback_unregister(self._h, t)
    self._callbacks.pop(t, None)


def callback_errors(self: Node) -> int:
    """How many exceptions callbacks on this node raised."""
    return _swig._callback_errors(self._h)


def event_stats(self: Node) -> EventStats:
    """This node's receive counters, as :class:`rfm.EventStats`."""
    s = _swig.rfm_event_get_stats(self._h)
    return EventStats(s.depth, s.delivered, s.dropped, s.overflows, s.queued, s.unhandled)


def get_loopback(self: Node) -> bool:
    """Whether sends to the own node id are allowed (URI ``loopback=1``)."""
    return bool(_swig.rfm_node_get_loopback(self._h))


def set_loopback(self: Node, enable: bool) -> None:
    _swig.rfm_node_set_loopback(self._h, 1 if enable else 0)


def set_spin(self: Node, spin_ns: int) -> None:
    """How long blocking waits spin before they sleep (ns; -1: never sleep)."""
    _swig.rfm_event_set_spin(self._h, spin_ns)


def now_ns() -> int:
    """CLOCK_MONOTONIC in ns, the clock of :attr:`rfm.Event.sent_ns`."""
    return _swig.rfm_event_now_ns()
