# SPDX-License-Identifier: LGPL-2.1-or-later
"""The exceptions librfm raises in Python: one class per family of error codes.

Every failure of the C library arrives as an instance of a subclass of
:class:`Error` carrying the code (``.code``, an :class:`ErrorCode`) and the
library's detailed message (``.message``, from ``rfm_last_error()``).

Where a family has an obvious built-in counterpart, the class derives from
it too, so ``except ValueError`` also catches :class:`RangeError` and
friends. Arguments of the wrong Python type raise plain :class:`TypeError`;
values that are not representable at all (a negative length, a value too
wide for a poke) raise plain :class:`ValueError`.
"""

import enum

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
        return (_make, (int(self.code), self.message))


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


class PermissionDenied(Error):
    """RFM_EPERM: the operating system refused access."""


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


class Timeout(Error):
    """RFM_ETIMEDOUT: a wait timed out."""


class Canceled(Error):
    """RFM_ECANCELED: a wait was cancelled."""


class ClosedError(Error):
    """RFM_ECLOSED: the node (or peer) is closed."""


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


def _make(code, message):
    """Build the exception for a code; the C wrapper calls this to raise."""
    return error_class(code)(code, _python_terms(message))


_swig._set_error_factory(_make)
