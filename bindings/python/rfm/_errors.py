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

import difflib
import enum
import errno as _errno

from . import _rfm_swig as _swig

# The codes come from <rfm/error.h> through SWIG, so they cannot drift.
ErrorCode = enum.IntEnum(
    "ErrorCode",
    {name[len("RFM_"):]: getattr(_swig, name)
     for name in dir(_swig)
     if name.startswith("RFM_E") and isinstance(getattr(_swig, name), int)
     and getattr(_swig, name) < 0},
    module=__name__,
)
ErrorCode.__doc__ = "The negative error codes of librfm (RFM_E* in <rfm/error.h>)."


def strerror(code):
    """The library's fixed sentence for an error code (the sign is ignored)."""
    return _swig.rfm_strerror(int(code))


class Error(Exception):
    """A librfm call failed.

    Attributes: ``code`` (an :class:`ErrorCode`, or the raw int for a code
    this version does not know), ``message`` (the library's detailed message)
    and ``strerror`` (the fixed sentence for the code).
    """

    def __init__(self, code, message):
        super().__init__(code, message)
        try:
            self.code = ErrorCode(code)
        except ValueError:
            self.code = code
        self.message = message

    @property
    def strerror(self):
        return strerror(self.code)

    def __str__(self):
        name = self.code.name if isinstance(self.code, ErrorCode) else str(self.code)
        return f"{self.message} [RFM_{name}]"

    def __reduce__(self):
        return (_rebuild, (type(self), int(self.code), self.message))


class _OSErrorFamily(Error):
    """An Error that is also an OSError: ``errno`` is the system's code for
    the condition (OSError's own constructor would take librfm's code)."""

    _errno = 0

    def __init__(self, code, message, filename=None):
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


class FileNotFound(_OSErrorFamily, NotFound, FileNotFoundError):
    """RFM_ENOENT for a file (a layout): also a FileNotFoundError, with
    ``errno`` ENOENT and ``filename``."""

    _errno = _errno.ENOENT


class PermissionDenied(_OSErrorFamily, PermissionError):
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


class Timeout(_OSErrorFamily, TimeoutError):
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
    """RFM_ELAYOUT: the layout is invalid."""


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


def error_class(code):
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


def _python_terms(message):
    for c_words, python_words in _PYTHON_TERMS:
        message = message.replace(c_words, python_words)
    return message


# The one ECLOSED that is not about a closed handle (src/event-wait.c).
_NOTHING_ENABLED = "no event type is enabled on this handle"


def _make(code, message):
    """Build the exception for a code; the C wrapper calls this to raise."""
    cls = error_class(code)
    if cls is ClosedError and _NOTHING_ENABLED in message:
        cls = NotEnabled
    return cls(code, _python_terms(message))


def _rebuild(cls, code, message):
    return cls(code, message)


def unknown_name(error, name, candidates):
    """An :class:`UnknownName` for the NotFound ``error`` a look-up of
    ``name`` raised, its message naming the closest of ``candidates``."""
    message = error.message
    if isinstance(name, str):
        close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.75)
        if close:
            message += " (did you mean " + " or ".join(repr(c) for c in close) + "?)"
    return UnknownName(int(error.code), message)


def file_not_found(error, filename):
    """A :class:`FileNotFound` for the ENOENT ``error`` about ``filename``."""
    return FileNotFound(int(error.code), error.message, filename)


_swig._set_error_factory(_make)
