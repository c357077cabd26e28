# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Node class: one open attachment to a reflective-memory network."""

from __future__ import annotations

import atexit
import os
import warnings
import weakref
from types import TracebackType
from typing import Callable, Dict, List, NamedTuple, Optional, Type

from . import _errors
from . import _events
from . import _layout
from . import _rings
from . import _waits
from . import _rfm_swig as _swig

# Bound once: the hot methods are one attribute load and one C call.
_peek8 = _swig.rfm_mem_peek8
_peek16 = _swig.rfm_mem_peek16
_peek32 = _swig.rfm_mem_peek32
_peek64 = _swig.rfm_mem_peek64
_poke8 = _swig.rfm_mem_poke8
_poke16 = _swig.rfm_mem_poke16
_poke32 = _swig.rfm_mem_poke32
_poke64 = _swig.rfm_mem_poke64
_read = _swig.rfm_mem_read
_write = _swig.rfm_mem_write
_flush = _swig.rfm_mem_flush

# Open nodes of this process: a fork()ed child closes its copies at once
# (librfm leaves the parent's node ids to the parent) and opens its own.
_live: "weakref.WeakSet[Node]" = weakref.WeakSet()


def _forget_after_fork() -> None:
    for node in list(_live):
        _swig._forget(node._h)


os.register_at_fork(after_in_child=_forget_after_fork)


def _drop_callbacks_at_exit() -> None:
    # A dispatcher thread must not wait for the GIL of a finalizing
    # interpreter: stop every callback while Python still runs.
    for node in list(_live):
        for event_type in list(node._callbacks):
            try:
                _swig.rfm_event_callback_unregister(node._h, event_type)
            except Exception:  # noqa: BLE001 - closed meanwhile
                pass
        node._callbacks.clear()


atexit.register(_drop_callbacks_at_exit)



class NodeInfo(NamedTuple):
    """Facts about a node (rfm_node_get_info()).

    node_id: this node's id; size: window size in bytes; max_nodes: node ids on
    the network; nodes_attached: nodes attached now, this one included (0 if the
    backend cannot tell); backend: "shm", "dev", "rfm2g" or "dds"; uri: the canonical
    URI; incarnation: how many times this node id has been attached."""

    node_id: int
    size: int
    max_nodes: int
    nodes_attached: int
    backend: str
    uri: str
    incarnation: int



class Node:
    """A node on a reflective-memory network, opened by :func:`rfm.open`.

    Use it as a context manager, or call :meth:`close`. After close every
    method raises :class:`rfm.ClosedError`.

    Offsets are byte offsets into the window. peek/poke are single-copy
    atomic and must be naturally aligned (:class:`rfm.AlignmentError`);
    anything outside the window raises :class:`rfm.RangeError`.

    Thread-safety: a node may be shared by Python threads. Calls hold the
    GIL, so :meth:`close` in one thread never frees the node under a call
    in another; that call raises :class:`rfm.ClosedError` instead.
    A node does not survive fork() and cannot be pickled: in a forked child
    it is closed and raises :class:`rfm.ClosedError` (the parent's node
    stays attached); open the network again there.
    """

    __slots__ = ("_h", "_size", "_views", "_callbacks", "__weakref__")
    _h: _swig.NodeHandle
    _size: int
    _views: List["weakref.ReferenceType[memoryview]"]
    _callbacks: Dict[int, Callable[[_events.Event], object]]

    def __init__(self, handle: _swig.NodeHandle) -> None:
        if not isinstance(handle, _swig.NodeHandle):
            raise TypeError("rfm.Node is created by rfm.open(), not directly")
        self._h = handle
        self._size = _swig.rfm_node_size(handle)
        self._views = []
        self._callbacks = {}
        _live.add(self)

    # ---- facts ----

    @property
    def node_id(self) -> int:
        """This node's id on the network (0..255)."""
        return _swig.rfm_node_id(self._h)

    @property
    def size(self) -> int:
        """Size of the reflective window in bytes."""
        return _swig.rfm_node_size(self._h)

    @property
    def backend(self) -> str:
        """Name of the backend: "shm", "dev", "rfm2g" or "dds"."""
        return _swig.rfm_node_backend(self._h)

    @property
    def uri(self) -> str:
        """The canonical URI of this node, with the node id it received."""
        return _swig.rfm_node_uri(self._h)

    def info(self) -> NodeInfo:
        """All facts about the node at once, as a :class:`rfm.NodeInfo`."""
        raw = _swig.rfm_node_get_info(self._h)
        return NodeInfo(raw.node_id, raw.size, raw.max_nodes, raw.nodes_attached,
                        raw.backend, raw.uri, raw.incarnation)

    # ---- peek and poke: naturally aligned, single-copy atomic ----

    def peek8(self, offset: int) -> int:
        """The byte at ``offset``."""
        return _peek8(self._h, offset)

    def peek16(self, offset: int) -> int:
        """The 16-bit word at ``offset`` (host byte order; offset even)."""
        return _peek16(self._h, offset)

    def peek32(self, offset: int) -> int:
        """The 32-bit word at ``offset`` (host byte order; offset a multiple of 4)."""
        return _peek32(self._h, offset)

    def peek64(self, offset: int) -> int:
        """The 64-bit word at ``offset`` (host byte order; offset a multiple of 8)."""
        return _peek64(self._h, offset)

    def poke8(self, offset: int, value: int) -> None:
        """Store the byte ``value`` (0..255) at ``offset``."""
        _poke8(self._h, offset, value)

    def poke16(self, offset: int, value: int) -> None:
        """Store the 16-bit ``value`` at ``offset`` (host byte order)."""
        _poke16(self._h, offset, value)

    def poke32(self, offset: int, value: int) -> None:
        """Store the 32-bit ``value`` at ``offset`` (host byte order)."""
        _poke32(self._h, offset, value)

    def poke64(self, offset: int, value: int) -> None:
        """Store the 64-bit ``value`` at ``offset`` (host byte order)."""
        _poke64(self._h, offset, value)

    # ---- bulk access ----

    def read(self, offset: int, length: int) -> bytes:
        """Copy ``length`` bytes at ``offset`` of the window into new bytes."""
        if type(length) is int and length > self._size:
            # Refuse before allocating the result, with the library's code.
            raise _errors._make(
                _swig.RFM_ERANGE,
                f"rfm_mem_read: {length} bytes lie outside the {self._size}-byte window")
        return _read(self._h, offset, length)

    def write(self, offset: int, data: _waits.Buffer) -> None:
        """Copy ``data`` (any C-contiguous bytes-like object) to ``offset``."""
        _write(self._h, offset, data)

    def flush(self, offset: int = 0, length: Optional[int] = None) -> None:
        """Send what was stored through :attr:`memory` in ``[offset,
        offset+length)`` (default: to the end of the window) to the other
        nodes, in order with what the node sends next. Needed on ``dds:``,
        where each node holds its own copy; a memory fence elsewhere."""
        if length is None:
            length = max(self._size - offset, 0)
        _flush(self._h, offset, length)

    @property
    def memory(self) -> memoryview:
        """A zero-copy, writable memoryview of the whole window (format 'B').

        Writes through it are posted to the network like any other write (on
        ``dds:``, where each node holds its own copy, once :meth:`flush`
        sends them), but are plain copies: use peek/poke where single-copy atomicity matters,
        and rfm.fence_release()/fence_acquire() to order a publication.

        :meth:`close` releases every view obtained here (using one afterwards
        raises ValueError). Views derived from them (slices, casts, numpy
        arrays) cannot be released from outside: they keep the window mapped,
        and the node attached, until they are themselves released.
        """
        # The handle exports the buffer protocol (a SWIG type mypy 1.0 cannot say so of).
        view = memoryview(self._h)  # type: ignore[arg-type]
        views = self._views
        if len(views) >= 64:
            views[:] = [ref for ref in views if ref() is not None]
        views.append(weakref.ref(view))
        return view

    # ---- network interrupts (rfm._events) ----

    send_event = _events.send_event
    broadcast_event = _events.broadcast_event
    publish = _events.publish
    enable_events = _events.enable_events
    disable_events = _events.disable_events
    enabled_events = property(_events.enabled_events)
    wait_event = _events.wait_event
    fetch_events = _events.fetch_events
    poll_events = _events.poll_events
    events = _events.events
    wait_event_async = _events.wait_event_async
    events_async = _events.events_async
    cancel_wait = _events.cancel_wait
    event_fd = _events.event_fd
    fileno = _events.event_fd
    on_event = _events.on_event
    remove_callback = _events.remove_callback
    callback_errors = property(_events.callback_errors)
    event_stats = _events.event_stats
    loopback = property(_events.get_loopback, _events.set_loopback)
    set_spin = _events.set_spin

    # ---- typed-variable tables (rfm._layout) ----

    def attach_layout(self, layout: _layout.Layout) -> _layout.Table:
        """A :class:`rfm.Table`: ``layout`` resolved on this node (``table["region.var"]``)."""
        return _layout.Table(layout, self)

    # ---- rings and node health (rfm._rings) ----

    ring_create = _rings.ring_create
    ring_attach = _rings.ring_attach
    ring_consumer = _rings.ring_consumer
    ring_inspect = _rings.ring_inspect
    health_start = _rings.health_start
    health_stop = _rings.health_stop
    health_beat = _rings.health_beat
    nodes = _rings.nodes
    health_counters = _rings.health_counters
    selftest = _rings.selftest

    # ---- lifetime ----

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return not _swig._handle_state(self._h)[0]

    def close(self) -> None:
        """Detach from the network. Closing twice is harmless.

        Views from :attr:`memory` are released. If buffers derived from them
        are still alive, the node stays attached until they are released, and
        a ResourceWarning says so.
        """
        for ref in self._views:
            view = ref()
            if view is not None:
                try:
                    view.release()
                except BufferError:
                    pass  # exported further (e.g. numpy): it defers the detach
        self._views.clear()
        self._callbacks.clear()
        if _swig.rfm_close(self._h):
            warnings.warn(
                "rfm.Node.close(): buffers derived from Node.memory are still alive; "
                "the node stays attached until they are released",
                ResourceWarning, stacklevel=2)

    def __enter__(self) -> Node:
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()

    def __del__(self) -> None:
        # The handle detaches by itself once no view needs it; only tell.
        try:
            still_open = _swig._handle_state(self._h)[0]
        except Exception:  # noqa: BLE001 - half-built, or interpreter shutdown
            return
        if still_open:
            warnings.warn(f"unclosed {self!r}", ResourceWarning, source=self)

    def __repr__(self) -> str:
        if _swig._handle_state(self._h)[0]:
            return f"<rfm.Node {_swig.rfm_node_uri(self._h)}>"
        return "<rfm.Node closed>"

    def __reduce__(self) -> str:
        raise TypeError("an rfm.Node cannot be pickled or sent to another process: "
                        "open the network there with rfm.open()")
