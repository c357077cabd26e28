# SPDX-License-Identifier: LGPL-2.1-or-later
"""librfm for Python: reflective-memory networks, real and emulated.

    import rfm

    with rfm.open("shm:lab?node=1&size=1M") as node:
        node.poke32(0x100, 42)          # posted to every node of "lab"
        print(node.peek32(0x100), node.read(0x100, 4))
        words = node.memory.cast("I")   # zero-copy view of the window

A URI of None means $RFM_URI, else "shm:default". The API, by object:

- :func:`open` gives a :class:`Node`: peek/poke, read/write, ``memory``,
  ``info()``; network interrupts (``enable_events``, ``send_event``,
  ``wait_event``, ``events``, ``on_event``, ``fileno()`` for selectors);
  ``attach_layout``; rings (``ring_create``, ``ring_consumer``) and health
  (``health_start``, ``nodes``).
- :class:`Layout` (``Layout.load(path)``) on a node is a :class:`Table`:
  ``table["region.var"]``, ``table.var()``, ``table.record()`` (a
  :class:`Record`: ``read``, ``write``, ``wait``, ``changes``).
- :class:`Ring` and :class:`Consumer` (``consume``, ``messages``).
- Waits: ``timeout=`` is an idle timeout, iterators also take a
  ``total=`` deadline; ``*_async`` variants for asyncio (rfm._waits).
- Errors: :class:`Error` subclasses with ``.code`` (:class:`ErrorCode`)
  and ``.message``, each also Python's built-in where there is one
  (:class:`Timeout` is a TimeoutError, :class:`UnknownName` a KeyError...).
- Test benches: the pytest plugin ``rfm.pytest_plugin`` (fixtures
  ``rfm_network``, ``rfm_node``, ``rfm_layout``, ``rfm_table``, ``rfm_peer``).

The C library does the work: this package is a thin, typed layer over the
SWIG-generated module ``rfm._rfm_swig`` (built from bindings/rfm.i), which
mirrors the C API function by function.
"""

# In a build tree the compiled module sits in the build directory's rfm/,
# the Python files in the source directory's: let both form the package.
__path__ = __import__("pkgutil").extend_path(__path__, __name__)

from typing import Optional, Tuple  # noqa: E402

from . import _rfm_swig as _swig  # noqa: E402
from ._errors import (  # noqa: E402,F401
    ErrorCode, Error, InvalidArgument, OutOfMemory, SystemCallError, URIError,
    NotSupported, NotFound, UnknownName, FileNotFound, PermissionDenied, OwnerError,
    NodeError, Busy, SizeError, CorruptError, NoSpace, RangeError, AlignmentError,
    Timeout, Canceled, ClosedError, NotEnabled, WouldBlock, DataLoss, LayoutError,
    DeviceError, error_class, strerror,
)
from ._node import Node, NodeInfo  # noqa: E402,F401
from ._events import (  # noqa: E402,F401
    Event, EventType, EventStats, NODE_ALL, NETWORK_TYPES, EVENT_F_LOOPBACK, now_ns,
)
from ._rings import (  # noqa: E402,F401
    Ring, Consumer, RingMessage, RingConsumerView, NodeStatus, SelftestResult, RING_F_NOTIFY,
    RING_F_BACKPRESSURE,
)
from ._layout import (  # noqa: E402,F401
    Layout, Table, Variable, Record, RecordChange, Diagnostic, RegionInfo, RecordInfo,
    VarInfo,
)
from ._recorder import Recorder, RecorderStats  # noqa: E402,F401

#: The run-time library's version, e.g. "0.1.0".
version: str = _swig.rfm_version_string()
__version__ = version
_encoded = _swig.rfm_version()
#: The run-time library's version as (major, minor, patch).
version_info: Tuple[int, int, int] = (_encoded >> 16, (_encoded >> 8) & 0xFF, _encoded & 0xFF)
del _encoded

#: The URI opened when none is given and $RFM_URI is unset.
DEFAULT_URI: str = _swig.RFM_DEFAULT_URI
#: Number of node ids on a network (ids are 0..NODE_ID_MAX).
MAX_NODES: int = _swig.RFM_MAX_NODES
NODE_ID_MAX: int = _swig.RFM_NODE_ID_MAX
#: Window size of a new emulated network when the URI gives none.
SHM_DEFAULT_SIZE: int = _swig.RFM_SHM_DEFAULT_SIZE


def open(uri: Optional[str] = None) -> Node:  # noqa: A001 - rfm.open, like gzip.open
    """Open a node by URI and return a :class:`Node`.

    ``shm:NAME?node=N&size=BYTES&mode=0600`` opens the emulated network NAME
    (created by the first opener); ``dev:/dev/rfm0`` and ``rfm2g:/dev/rfm2g0``
    name cards. None or "" means $RFM_URI, else "shm:default".
    """
    return Node(_swig.rfm_open(uri))


def destroy(uri: str, force: bool = False) -> None:
    """Remove the network named by ``uri`` (a ``shm:`` URI).

    By default a network with attached nodes is refused with :class:`Busy`;
    ``force=True`` removes it anyway (attached nodes keep their mapping but
    are cut off from nodes that open the name later).
    """
    _swig.rfm_network_destroy(uri, _swig.RFM_DESTROY_FORCE if force else 0)


def fence_acquire() -> None:
    """Acquire fence: no later access moves before it (read the flag, then this)."""
    _swig.rfm_fence_acquire()


def fence_release() -> None:
    """Release fence: no earlier access moves after it (write data, this, then the flag)."""
    _swig.rfm_fence_release()


def fence_full() -> None:
    """Full fence, for store-then-load protocols."""
    _swig.rfm_fence_full()


def last_error() -> str:
    """The detailed message of this thread's last librfm failure ("" if none)."""
    return _swig.rfm_last_error()


__all__ = [
    "open", "destroy", "Node", "NodeInfo", "version", "version_info",
    "DEFAULT_URI", "MAX_NODES", "NODE_ID_MAX", "SHM_DEFAULT_SIZE",
    "fence_acquire", "fence_release", "fence_full", "last_error",
    "ErrorCode", "Error", "InvalidArgument", "OutOfMemory", "SystemCallError",
    "URIError", "NotSupported", "NotFound", "UnknownName", "FileNotFound",
    "PermissionDenied", "OwnerError",
    "NodeError", "Busy", "SizeError", "CorruptError", "NoSpace", "RangeError",
    "AlignmentError", "Timeout", "Canceled", "ClosedError", "NotEnabled", "WouldBlock",
    "DataLoss", "LayoutError", "DeviceError", "error_class", "strerror",
    "Event", "EventType", "EventStats", "NODE_ALL", "NETWORK_TYPES", "EVENT_F_LOOPBACK",
    "now_ns", "Layout", "Table", "Variable", "Record", "RecordChange", "Diagnostic",
    "RegionInfo", "RecordInfo", "VarInfo",
    "Ring", "Consumer", "RingMessage", "RingConsumerView", "NodeStatus", "SelftestResult",
    "RING_F_NOTIFY", "RING_F_BACKPRESSURE",
]
