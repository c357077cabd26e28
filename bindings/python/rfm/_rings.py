# SPDX-License-Identifier: LGPL-2.1-or-later
"""Rings (<rfm/ring.h>) and node health (<rfm/health.h>): the Node methods, defined here.

    ring = node.ring_create(0x1000, 64 * 1024, slot_size=256, slot_count=64)
    with node.ring_consumer(0x1000) as consumer:
        ring.publish(b"hello")
        msg = consumer.consume(timeout=1.0)      # RingMessage(data, seq, lost)
"""

from __future__ import annotations

import collections
import threading
from types import TracebackType
from typing import (TYPE_CHECKING, Any, AsyncIterator, Deque, Dict, Iterator, List, NamedTuple,
                    Optional, Tuple, Type, TypeVar)

from . import _errors
from . import _events
from . import _waits
from . import _rfm_swig as _swig

if TYPE_CHECKING:
    from ._node import Node

_H = TypeVar("_H", bound="_Handle")


class RingMessage(NamedTuple):
    """A message taken from a ring: its payload, number, and messages lost right before it."""

    data: bytes
    seq: int
    lost: int


class RingConsumerView(NamedTuple):
    """A registered consumer as ``node.ring_inspect()`` sees it: node id, entry in
    its node's row, pid, cursor, lag (messages not taken), laps, and flags:
    ``backpressure``, ``holding`` (a lap behind: the producer waits),
    ``sleeping``, ``dead``."""

    node: int
    entry: int
    pid: int
    cursor: int
    lag: int
    laps: int
    backpressure: bool
    holding: bool
    sleeping: bool
    dead: bool


class NodeStatus(NamedTuple):
    """A row of the node table (``node.nodes()``); ``age`` and ``period`` in seconds
    (``age`` None: never beat)."""

    id: int
    attached: bool
    alive: bool
    incarnation: int
    age: Optional[float]
    beats: int
    period: float
    pid: int
    host: str


class SelftestResult(NamedTuple):
    """The result of ``node.selftest()``."""

    memory_ok: bool
    memory_errors: int
    event_ok: bool
    event_latency_ns: int


RING_F_NOTIFY = _swig.RFM_RING_F_NOTIFY
RING_F_BACKPRESSURE = _swig.RFM_RING_F_BACKPRESSURE

_U64_MAX = (1 << 64) - 1  # UINT64_MAX: "never beat", RFM_SELFTEST_NO_MEMORY


def _ring_info(raw: Any) -> Dict[str, int]:
    return {name: getattr(raw, name) for name in (
        "slot_size", "slot_count", "flags", "producer", "notify_type", "ring_id",
        "max_consumers", "offset", "footprint", "head")}


class _Handle:
    """A ring handle; closed with its node.

    The C handles are for one thread at a time (<rfm/ring.h>): publish and
    consume take the handle's lock, so threads sharing one take turns, and
    each message goes to exactly one of them. A thread waiting in consume()
    holds the lock; the others wait for it (signals still interrupt them).
    """

    @staticmethod
    def _close(handle: Any) -> None:
        raise NotImplementedError  # each kind of handle closes its own way

    def __init__(self, node: Node, handle: Any) -> None:
        self._node = node
        self._h = handle
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        """True once the handle (or its node) is closed."""
        return not _swig._handle_open(self._h)

    def close(self) -> None:
        """Close the handle (its node closes it too). Closing twice is harmless."""
        type(self)._close(self._h)

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()


class Ring(_Handle):
    """A producer's handle: made by ``node.ring_create()`` or ``node.ring_attach()``."""

    @staticmethod
    def _close(handle: Any) -> None:
        _swig.rfm_ring_close(handle)

    def publish(self, data: _waits.Buffer, timeout: Optional[float] = None) -> None:
        """Publish a copy of ``data`` (bytes-like) as the next message.

        ``timeout`` matters with back-pressure only: 0 raises rfm.DataLoss
        (RFM_EOVERRUN) at once when a registered consumer would be lapped;
        seconds wait for it (rfm.Timeout); None waits for ever.
        """
        with self._lock:
            _swig.rfm_ring_publish(self._h, data, _events._timeout_ns(timeout))

    def info(self) -> Dict[str, int]:
        """The ring's shape and ``head`` (messages published so far), as a dict."""
        return _ring_info(_swig.rfm_ring_get_info(self._h))

    def __repr__(self) -> str:
        return "<rfm.Ring closed>" if self.closed else f"<rfm.Ring at {self.info()['offset']:#x}>"


class Consumer(_Handle):
    """A consumer's handle: made by ``node.ring_consumer()``; iterate to take messages."""

    @staticmethod
    def _close(handle: Any) -> None:
        _swig.rfm_ring_consumer_close(handle)

    def __init__(self, node: Node, handle: Any) -> None:
        super().__init__(node, handle)
        # Messages a worker took for an await that was cancelled meanwhile:
        # the next take returns them first (appended by worker threads).
        self._kept: Deque[RingMessage] = collections.deque()

    def consume(self, timeout: Optional[float] = None) -> RingMessage:
        """The next :class:`RingMessage`.

        ``timeout``: 0 raises rfm.WouldBlock when nothing is new; seconds
        raise rfm.Timeout (also a TimeoutError) when they pass; None waits
        for ever. Waits release the GIL.
        """
        ns = _events._timeout_ns(timeout)
        if self._kept:
            try:
                return self._kept.popleft()
            except IndexError:
                pass  # another thread took it
        with self._lock:
            data, seq, lost = _swig.rfm_ring_consume(self._h, ns)
        return RingMessage(data, seq, lost)

    def messages(self, timeout: Optional[float] = None, *,
                 total: Optional[float] = None) -> Iterator[RingMessage]:
        """Iterate over messages until one of two limits: ``timeout``, the
        idle timeout (no message within that many seconds; None: never;
        0: only what is there now), or ``total``, the total deadline (that
        many seconds after the call, however busy the producer; None: none).
        Either ends the loop; neither raises."""
        idle = _events._timeout_ns(timeout)
        return self._messages_until(idle, _waits.Deadline(total))

    def _messages_until(self, idle: Optional[int],
                        deadline: _waits.Deadline) -> Iterator[RingMessage]:
        while True:
            ns = deadline.wait_ns(idle)
            if ns == -1:
                return
            try:
                yield self.consume(None if ns is None else ns / 1e9)
            except (_errors.Timeout, _errors.WouldBlock):
                return

    def __iter__(self) -> Iterator[RingMessage]:
        return self.messages()

    async def consume_async(self, timeout: Optional[float] = None) -> RingMessage:
        """:meth:`consume` for asyncio: the event loop runs on while it
        waits (a worker thread waits in the library; see rfm._waits).
        Cancelling it loses no message: one taken meanwhile is returned by
        the next take."""
        ns = _events._timeout_ns(timeout)
        if ns == 0:
            return self.consume(0)
        if self._kept:
            try:
                return self._kept.popleft()
            except IndexError:
                pass  # another thread took it
        return await _waits.sliced(lambda slice_ns: self.consume(slice_ns / 1e9), timeout,
                                   keep=self._kept.append)

    async def messages_async(self, timeout: Optional[float] = None, *,
                             total: Optional[float] = None) -> AsyncIterator[RingMessage]:
        """:meth:`messages` for asyncio (``async for msg in consumer.messages_async()``),
        with the same idle ``timeout`` and ``total`` deadline."""
        idle = _events._timeout_ns(timeout)
        deadline = _waits.Deadline(total)
        while True:
            ns = deadline.wait_ns(idle)
            if ns == -1:
                return
            try:
                yield await self.consume_async(None if ns is None else ns / 1e9)
            except (_errors.Timeout, _errors.WouldBlock):
                return

    def info(self) -> Dict[str, int]:
        """The ring's shape (as validated at open) and its ``head`` now, as a dict."""
        return _ring_info(_swig.rfm_ring_consumer_get_info(self._h))

    def stats(self) -> Dict[str, int]:
        """Counters: cursor, taken, lost, laps, sleeps (a dict)."""
        raw = _swig.rfm_ring_consumer_get_stats(self._h)
        return {name: getattr(raw, name) for name in ("cursor", "taken", "lost", "laps", "sleeps")}

    def __repr__(self) -> str:
        return "<rfm.Consumer closed>" if self.closed else "<rfm.Consumer>"


# ---- Node methods ----

def ring_create(self: Node, offset: int, size: int, slot_size: int, slot_count: int,
                notify: bool = False, backpressure: bool = False,
                notify_type: _events.EventTypeLike = 0, ring_id: int = 0,
                max_consumers: int = 0) -> Ring:
    """Create a ring at ``offset`` (64-byte aligned) in ``size`` bytes; a :class:`Ring`."""
    flags = (RING_F_NOTIFY if notify else 0) | (RING_F_BACKPRESSURE if backpressure else 0)
    if notify_type:
        notify_type = _events.event_type(notify_type)
    return Ring(self, _swig.rfm_ring_create(self._h, offset, size, slot_size, slot_count, flags,
                                            int(notify_type), ring_id, max_consumers))


def ring_attach(self: Node, offset: int) -> Ring:
    """Take over the ring at ``offset`` as its producer; a :class:`Ring`."""
    return Ring(self, _swig.rfm_ring_attach(self._h, offset))


def ring_consumer(self: Node, offset: int, newest: bool = False,
                  backpressure: bool = False) -> Consumer:
    """A :class:`Consumer` of the ring at ``offset``, from the oldest
    message (or the newest point)."""
    flags = ((_swig.RFM_RING_CONSUMER_NEWEST if newest else _swig.RFM_RING_CONSUMER_OLDEST) |
             (_swig.RFM_RING_CONSUMER_BACKPRESSURE if backpressure else 0))
    return Consumer(self, _swig.rfm_ring_consumer_open(self._h, offset, flags))


def ring_inspect(self: Node, offset: int) -> Tuple[Dict[str, int], List[RingConsumerView]]:
    """Look at the ring at ``offset`` read-only (rfm_ring_inspect()).

    Returns ``(info, consumers)``: the ring's shape and ``head`` as a dict,
    and a list of :class:`RingConsumerView` (consumers with a table entry).
    """
    fields, views = _swig.rfm_ring_inspect(self._h, offset)
    consumers = [RingConsumerView(
        node, entry, pid, cursor, lag, laps,
        bool(flags & _swig.RFM_RING_CONSUMER_BACKPRESSURE),
        bool(flags & _swig.RFM_RING_VIEW_HOLDING), bool(flags & _swig.RFM_RING_VIEW_SLEEPING),
        bool(flags & _swig.RFM_RING_VIEW_DEAD))
        for node, entry, pid, flags, cursor, lag, laps in views]
    info = dict(zip(("slot_size", "slot_count", "flags", "producer", "notify_type", "ring_id",
                     "max_consumers", "offset", "footprint", "head"), fields))
    return info, consumers


def health_start(self: Node, period: Optional[float] = None, misses: int = 0) -> None:
    """Beat every ``period`` seconds (None: 0.1) and watch the other nodes."""
    config = _swig.rfm_health_config()
    config.period_ns = 0 if period is None else int(period * 1e9)
    config.misses = misses
    _swig.rfm_health_start(self._h, config)


def health_stop(self: Node) -> None:
    """Stop beating and watching (closing the node also does)."""
    _swig.rfm_health_stop(self._h)


def health_beat(self: Node, period: Optional[float] = None) -> None:
    """Beat once now (programs that beat from their own loop)."""
    _swig.rfm_health_beat(self._h, 0 if period is None else int(period * 1e9))


def nodes(self: Node) -> List[NodeStatus]:
    """The node table: a :class:`NodeStatus` per node id that is attached or has beaten."""
    rows = []
    for (nid, attached, alive, incarnation, age_ns, beats, period_ns, pid,
         host) in _swig.rfm_health_nodes(self._h):
        rows.append(NodeStatus(nid, bool(attached), bool(alive), incarnation,
                               None if age_ns == _U64_MAX else age_ns / 1e9, beats,
                               period_ns / 1e9, pid, host))
    return rows


def health_counters(self: Node) -> Dict[str, int]:
    """Counters of this handle and process, as a dict."""
    raw = _swig.rfm_health_get_counters(self._h)
    return {name: getattr(raw, name) for name in (
        "events_sent", "events_received", "events_dropped", "ring_lost", "record_retries",
        "node_downs", "node_ups")}


def selftest(self: Node, offset: Optional[int] = None) -> SelftestResult:
    """Own-node test (write/readback at ``offset`` unless None, then a loopback event).

    Returns a :class:`SelftestResult`; a failed part raises rfm.DeviceError.
    Use a node handle of its own (the event part takes its records).
    """
    raw = _swig.rfm_selftest(self._h, _U64_MAX if offset is None else offset)
    return SelftestResult(bool(raw.memory_ok), raw.memory_errors, bool(raw.event_ok),
                          raw.event_latency_ns)
