# SPDX-License-Identifier: LGPL-2.1-or-later
"""The exceptions librfm raises in Python: one class per family of error codes.

Every failure of the C library arrives as an instance of a subclass of
:class:`Error` carrying the code (``.code``, an :class:`ErrorCode`) and the
library's detailed message (``.message``, from ``rfm_last_error()``).

Where a family has a built-in counterpart, the class derives from it too,
so code written for Python's own exceptions catches librfm's:

- :class:`Timeout` is a :class:`TimeoutError` (``pytest.raises(TimeoutError)``);
- :class:`UnknownName` (a name a layout does not have) is a :class:`KeyError`
  whose message suggests the closest names of the layout;
- :class:`FileNotFound` (a layout file that is not there) is a
  :class:`FileNotFoundError` with ``errno`` and ``filename``;
- :class:`PermissionDenied` and :class:`OwnerError` are :class:`PermissionError`;
- :class:`NotEnabled` (waiting for events with no type enabled) is a
  :class:`RuntimeError`;
- :class:`RangeError`, :class:`AlignmentError`, :class:`InvalidArgument` and
  friends are :class:`ValueError`.

The library's code stays in ``.code``, and each new class derives from the
one raised before it (``except rfm.NotFound`` still catches an unknown name,
``except rfm.ClosedError`` a wait with nothing enabled). Arguments of the
wrong Python type raise plain :class:`TypeError`; values that are not
representable at all (a negative length, a value too wide for a poke) raise
plain :class:`ValueError`.
"""

from __future__ import annotations

import difflib
import enum
import errno as _errno
from typing import Any, Iterable, List, Optional, Type, Union

from . import _rfm_swig as _swig


class ErrorCode(enum.IntEnum):
    """The negative error codes of librfm (RFM_E* in <rfm/error.h>).

    The values come from the header through SWIG; test_errors.py checks
    that every RFM_E* code of the header is here."""

    EINVAL = _swig.RFM_EINVAL
    ENOMEM = _swig.RFM_ENOMEM
    ESYS = _swig.RFM_ESYS
    EURI = _swig.RFM_EURI
    ESCHEME = _swig.RFM_ESCHEME
    ENOTSUP = _swig.RFM_ENOTSUP
    ENOENT = _swig.RFM_ENOENT
    EPERM = _swig.RFM_EPERM
    ENODEID = _swig.RFM_ENODEID
    EINUSE = _swig.RFM_EINUSE
    EFULL = _swig.RFM_EFULL
    ESIZE = _swig.RFM_ESIZE
    ECORRUPT = _swig.RFM_ECORRUPT
    EVERSION = _swig.RFM_EVERSION
    ENOSPC = _swig.RFM_ENOSPC
    ERANGE = _swig.RFM_ERANGE
    EALIGN = _swig.RFM_EALIGN
    EBUSY = _swig.RFM_EBUSY
    ETIMEDOUT = _swig.RFM_ETIMEDOUT
    ECANCELED = _swig.RFM_ECANCELED
    ECLOSED = _swig.RFM_ECLOSED
    EAGAIN = _swig.RFM_EAGAIN
    EOVERFLOW = _swig.RFM_EOVERFLOW
    ESELF = _swig.RFM_ESELF
    ENODE = _swig.RFM_ENODE
    EOWNER = _swig.RFM_EOWNER
    ELAYOUT = _swig.RFM_ELAYOUT
    ENOTFOUND = _swig.RFM_ENOTFOUND
    ETORN = _swig.RFM_ETORN
    EOVERRUN = _swig.RFM_EOVERRUN
    ELAPPED = _swig.RFM_ELAPPED
    EIO = _swig.RFM_EIO


ErrorCode.__module__ = "rfm"

#: An error code as the package takes it: an :class:`ErrorCode` or its int.
CodeLike = Union[ErrorCode, int]


def strerror(code: CodeLike) -> str:
    """The library's fixed sentence for an error code (the sign is ignored)."""
    return _swig.rfm_strerror(int(code))


class Error(Exception):
    """A librfm call failed.

    Attributes: ``code`` (an :class:`ErrorCode`, or the raw int for a code
    this version does not know), ``message`` (the library's detailed message)
    and ``strerror`` (the fixed sentence for the code).
    """

    code: Union[ErrorCode, int]
    message: str

    def __init__(self, code: CodeLike, message: str) -> None:
        super().__init__(code, message)
        try:
            self.code = ErrorCode(code)
        except ValueError:
            self.code = code
        self.message = message

    @property
    def strerror(self) -> str:
        return strerror(self.code)

    def __str__(self) -> str:
        name = self.code.name if isinstance(self.code, ErrorCode) else str(self.code)
        return f"{self.message} [RFM_{name}]"

    def __reduce__(self) -> tuple:
        return (_rebuild, (type(self), int(self.code), self.message))


class _OSErrorFamily(Error):
    """An Error that is also an OSError: ``errno`` is the system's code for
    the condition (OSError's own constructor would take librfm's code).
    (mypy sees Error's ``strerror`` property meet OSError's attribute in
    the subclasses, both str: the "type: ignore[misc]" there.)"""

    _errno = 0

    def __init__(self, code: CodeLike, message: str, filename: Optional[str] = None) -> None:
        super().__init__(code, message)
        self.errno = self._errno
        self.filename = filename


class InvalidArgument(Error, ValueError):
    """RFM_EINVAL: an argument the library refused."""


class OutOfMemory(Error, MemoryError):
    """RFM_ENOMEM."""


class SystemCallError(Error):
    """RFM_ESYS: a system call failed (the message names it and errno's text)."""


class URIError(Error, ValueError):
    """RFM_EURI, RFM_ESCHEME: a malformed URI or an unknown scheme."""


class NotSupported(Error):
    """RFM_ENOTSUP: not supported by this backend or build."""


class NotFound(Error, LookupError):
    """RFM_ENOENT, RFM_ENOTFOUND: no such network, device or named object."""


class UnknownName(NotFound, KeyError):
    """RFM_ENOTFOUND from a look-up by name (``table["region.var"]``,
    ``table.record()``, a record's field): also a KeyError. The message
    suggests the layout's closest names ("did you mean ...?")."""


class FileNotFound(_OSErrorFamily, NotFound, FileNotFoundError):  # type: ignore[misc]
    """RFM_ENOENT for a file (a layout): also a FileNotFoundError, with
    ``errno`` ENOENT and ``filename``."""

    _errno = _errno.ENOENT


class PermissionDenied(_OSErrorFamily, PermissionError):  # type: ignore[misc]
    """RFM_EPERM: the operating system refused access (also a PermissionError)."""

    _errno = _errno.EACCES


class OwnerError(PermissionDenied):
    """RFM_EOWNER: the region belongs to another writer node."""


class NodeError(Error):
    """RFM_ENODEID, RFM_EFULL, RFM_ENODE, RFM_ESELF: about node ids and targets."""


class Busy(Error):
    """RFM_EINUSE, RFM_EBUSY: the node id or network is in use."""


class SizeError(Error, ValueError):
    """RFM_ESIZE: a window size that is invalid or differs from the network's."""


class CorruptError(Error):
    """RFM_ECORRUPT, RFM_EVERSION: shared state failed validation."""


class NoSpace(Error):
    """RFM_ENOSPC: no room to create the network."""


class RangeError(Error, ValueError):
    """RFM_ERANGE: an offset or length outside the window."""


class AlignmentError(Error, ValueError):
    """RFM_EALIGN: an access not naturally aligned to its width."""


class Timeout(_OSErrorFamily, TimeoutError):  # type: ignore[misc]
    """RFM_ETIMEDOUT: a wait timed out (also a TimeoutError)."""

    _errno = _errno.ETIMEDOUT


class Canceled(Error):
    """RFM_ECANCELED: a wait was cancelled."""


class ClosedError(Error):
    """RFM_ECLOSED: the node (or peer) is closed."""


class NotEnabled(ClosedError, RuntimeError):
    """RFM_ECLOSED from a wait for events on a node with no event type
    enabled and nothing queued: the node is open, the call is out of order
    (call ``node.enable_events()`` first). Also a RuntimeError."""


class WouldBlock(Error):
    """RFM_EAGAIN: nothing is available now."""


class DataLoss(Error):
    """RFM_EOVERFLOW, RFM_ETORN, RFM_EOVERRUN, RFM_ELAPPED: data was dropped or torn."""


class LayoutError(Error, ValueError):
    """RFM_ELAYOUT: the layout is invalid; ``diagnostics`` lists every problem
    (:class:`rfm.Diagnostic`: file, line, column, code, message, text)."""

    diagnostics: List[Any]


class DeviceError(Error):
    """RFM_EIO: the device or driver reported an I/O error."""


_CLASS_BY_NAME = {
    "EINVAL": InvalidArgument,
    "ENOMEM": OutOfMemory,
    "ESYS": SystemCallError,
    "EURI": URIError,
    "ESCHEME": URIError,
    "ENOTSUP": NotSupported,
    "ENOENT": NotFound,
    "ENOTFOUND": NotFound,
    "EPERM": PermissionDenied,
    "EOWNER": OwnerError,
    "ENODEID": NodeError,
    "EFULL": NodeError,
    "ENODE": NodeError,
    "ESELF": NodeError,
    "EINUSE": Busy,
    "EBUSY": Busy,
    "ESIZE": SizeError,
    "ECORRUPT": CorruptError,
    "EVERSION": CorruptError,
    "ENOSPC": NoSpace,
    "ERANGE": RangeError,
    "EALIGN": AlignmentError,
    "ETIMEDOUT": Timeout,
    "ECANCELED": Canceled,
    "ECLOSED": ClosedError,
    "EAGAIN": WouldBlock,
    "EOVERFLOW": DataLoss,
    "ETORN": DataLoss,
    "EOVERRUN": DataLoss,
    "ELAPPED": DataLoss,
    "ELAYOUT": LayoutError,
    "EIO": DeviceError,
}

_CLASS_BY_CODE = {int(getattr(ErrorCode, name)): cls
                  for name, cls in _CLASS_BY_NAME.items()
                  if name in ErrorCode.__members__}


def error_class(code: CodeLike) -> Type[Error]:
    """The exception class raised for an error code (:class:`Error` if unknown)."""
    return _CLASS_BY_CODE.get(int(code), Error)


# The library words its hints for C programmers; Python users get the Python
# call that does the same. rfm_last_error() itself keeps the C names.
_PYTHON_TERMS = (
    ("(rfm_event_enable)", "(call node.enable_events() first)"),
    ("(relax with rfm_var_set_owner_check())", "(relax with variable.owner_check = False)"),
    ("(relax with rfm_record_set_owner_check())", "(relax with record.owner_check = False)"),
    ("open it with rfm_record_open()", "open it with table.record()"),
    (" raise rfm_record_set_max_tries()", ""),
    ("enable loopback to send to it",
     "set node.loopback = True (or loopback=1 in the URI) to send to it"),
)


def _python_terms(message: str) -> str:
    for c_words, python_words in _PYTHON_TERMS:
        message = message.replace(c_words, python_words)
    return message


# The one ECLOSED that is not about a closed handle (src/event-wait.c).
_NOTHING_ENABLED = "no event type is enabled on this handle"


def _make(code: CodeLike, message: str) -> Error:
    """Build the exception for a code; the C wrapper calls this to raise."""
    cls: Type[Error] = error_class(code)
    if cls is ClosedError and _NOTHING_ENABLED in message:
        cls = NotEnabled
    return cls(code, _python_terms(message))


def _rebuild(cls: Type[Error], code: int, message: str) -> Error:
    return cls(code, message)


def unknown_name(error: Error, name: object, candidates: Iterable[str]) -> UnknownName:
    """An :class:`UnknownName` for the NotFound ``error`` a look-up of
    ``name`` raised, its message naming the closest of ``candidates``."""
    message = error.message
    if isinstance(name, str):
        close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.75)
        if close:
            message += " (did you mean " + " or ".join(repr(c) for c in close) + "?)"
    return UnknownName(int(error.code), message)


def file_not_found(error: Error, filename: str) -> FileNotFound:
    """A :class:`FileNotFound` for the ENOENT ``error`` about ``filename``."""
    return FileNotFound(int(error.code), error.message, filename)


_swig._set_error_factory(_make)
