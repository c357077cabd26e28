# SPDX-License-Identifier: LGPL-2.1-or-later
"""Error mapping: every librfm code to its rfm.Error subclass, with code and message."""

import os
import pickle

import pytest

import rfm
from rfm import ErrorCode as C


def test_error_codes_come_from_the_header():
    assert C.EINVAL == -1
    assert C.ERANGE == -16
    assert C.EIO == -32
    assert len(C) == 32
    assert all(code < 0 for code in C)


def test_every_code_has_its_own_family_class():
    for code in C:
        cls = rfm.error_class(code)
        assert cls is not rfm.Error, f"{code!r} has no family class"
        assert issubclass(cls, rfm.Error)
        exc = cls(code, "detail")
        assert exc.code is code
        assert exc.message == "detail"
        assert exc.strerror == rfm.strerror(code)
        assert str(exc) == f"detail [RFM_{code.name}]"


@pytest.mark.parametrize("code, cls, builtin", [
    (C.EINVAL, rfm.InvalidArgument, ValueError),
    (C.ENOMEM, rfm.OutOfMemory, MemoryError),
    (C.EURI, rfm.URIError, ValueError),
    (C.ESCHEME, rfm.URIError, ValueError),
    (C.ENOENT, rfm.NotFound, LookupError),
    (C.ENOTFOUND, rfm.NotFound, LookupError),
    (C.EOWNER, rfm.OwnerError, None),
    (C.EPERM, rfm.PermissionDenied, None),
    (C.EINUSE, rfm.Busy, None),
    (C.EBUSY, rfm.Busy, None),
    (C.ENODEID, rfm.NodeError, None),
    (C.EFULL, rfm.NodeError, None),
    (C.ESIZE, rfm.SizeError, ValueError),
    (C.ECORRUPT, rfm.CorruptError, None),
    (C.EVERSION, rfm.CorruptError, None),
    (C.ERANGE, rfm.RangeError, ValueError),
    (C.EALIGN, rfm.AlignmentError, ValueError),
    (C.ETIMEDOUT, rfm.Timeout, None),
    (C.ECLOSED, rfm.ClosedError, None),
    (C.EAGAIN, rfm.WouldBlock, None),
    (C.EOVERFLOW, rfm.DataLoss, None),
    (C.ELAPPED, rfm.DataLoss, None),
    (C.ELAYOUT, rfm.LayoutError, ValueError),
    (C.EIO, rfm.DeviceError, None),
])
def test_family_classes(code, cls, builtin):
    assert rfm.error_class(code) is cls
    if builtin:
        assert issubclass(cls, builtin)
    assert issubclass(rfm.OwnerError, rfm.PermissionDenied)


def test_unknown_code_is_plain_error():
    exc = rfm._errors._make(-999, "from the future")
    assert type(exc) is rfm.Error
    assert exc.code == -999
    assert str(exc) == "from the future [RFM_-999]"


def test_errors_pickle_for_multiprocessing():
    exc = rfm.RangeError(C.ERANGE, "outside")
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is rfm.RangeError
    assert (back.code, back.message) == (C.ERANGE, "outside")


# ---- each code the foundation can produce, raised by the real library ----

def raised(call):
    with pytest.raises(rfm.Error) as caught:
        call()
    exc = caught.value
    assert exc.message  # the library's detailed message travelled with it
    return exc


def test_bad_uri(name):
    exc = raised(lambda: rfm.open("shm:"))
    assert (type(exc), exc.code) == (rfm.URIError, C.EURI)
    exc = raised(lambda: rfm.open("shm:bad/name"))
    assert exc.code == C.EURI
    assert "bad/name" in exc.message


def test_unknown_scheme():
    exc = raised(lambda: rfm.open("nosuch:thing"))
    assert (type(exc), exc.code) == (rfm.URIError, C.ESCHEME)
    assert "nosuch" in exc.message


def test_dev_missing_device():
    exc = raised(lambda: rfm.open("dev:/nonexistent-rfm-device"))
    assert (type(exc), exc.code) == (rfm.NotFound, C.ENOENT)
    assert "no device /nonexistent-rfm-device" in exc.message


def test_dev_not_an_rfm_device():
    exc = raised(lambda: rfm.open("dev:/dev/null"))
    assert (type(exc), exc.code) == (rfm.CorruptError, C.EVERSION)
    assert "not an rfm.ko device" in exc.message


def test_node_id_out_of_range(name):
    exc = raised(lambda: rfm.open(f"shm:{name}?node=256&size=64K"))
    assert (type(exc), exc.code) == (rfm.NodeError, C.ENODEID)


def test_node_id_in_use(name):
    uri = f"shm:{name}?node=4&size=64K"
    with rfm.open(uri):
        exc = raised(lambda: rfm.open(uri))
    assert (type(exc), exc.code) == (rfm.Busy, C.EINUSE)


def test_network_full(name):
    uri = f"shm:{name}?size=64K"
    nodes = [rfm.open(uri) for _ in range(rfm.MAX_NODES)]
    try:
        assert sorted(n.node_id for n in nodes) == list(range(256))
        exc = raised(lambda: rfm.open(uri))
        assert (type(exc), exc.code) == (rfm.NodeError, C.EFULL)
    finally:
        for n in nodes:
            n.close()


def test_size_mismatch(name):
    with rfm.open(f"shm:{name}?size=64K"):
        exc = raised(lambda: rfm.open(f"shm:{name}?size=128K"))
    assert (type(exc), exc.code) == (rfm.SizeError, C.ESIZE)
    exc = raised(lambda: rfm.open(f"shm:{name}x?size=1000"))
    assert exc.code == C.ESIZE


def test_range_and_alignment(node):
    exc = raised(lambda: node.peek32(node.size))
    assert (type(exc), exc.code) == (rfm.RangeError, C.ERANGE)
    assert "0x10000" in exc.message
    exc = raised(lambda: node.poke16(3, 1))
    assert (type(exc), exc.code) == (rfm.AlignmentError, C.EALIGN)
    exc = raised(lambda: node.write(node.size - 2, b"abc"))
    assert exc.code == C.ERANGE
    exc = raised(lambda: node.read(node.size - 2, 3))
    assert exc.code == C.ERANGE


def test_destroy_errors(name):
    exc = raised(lambda: rfm.destroy(f"shm:{name}"))
    assert (type(exc), exc.code) == (rfm.NotFound, C.ENOENT)
    with rfm.open(f"shm:{name}?size=64K"):
        exc = raised(lambda: rfm.destroy(f"shm:{name}"))
    assert (type(exc), exc.code) == (rfm.Busy, C.EBUSY)


def test_invalid_argument_from_the_library(name):
    # Unknown flag bits: only reachable through the generated module.
    exc = raised(lambda: rfm._rfm_swig.rfm_network_destroy(f"shm:{name}", 0x80))
    assert (type(exc), exc.code) == (rfm.InvalidArgument, C.EINVAL)


def test_closed_node(uri):
    node = rfm.open(uri)
    node.close()
    exc = raised(lambda: node.peek32(0))
    assert (type(exc), exc.code) == (rfm.ClosedError, C.ECLOSED)
    assert exc.message == "rfm_mem_peek32: the node is closed"


def test_corrupt_segment(name):
    uri = f"shm:{name}?size=64K"
    with rfm.open(uri):
        pass
    path = f"/dev/shm/rfm-{name}"
    with open(path, "r+b") as segment:
        segment.write(b"NOT-RFM!")  # a foreign magic number
    exc = raised(lambda: rfm.open(uri))
    assert (type(exc), exc.code) == (rfm.CorruptError, C.ECORRUPT)
    os.unlink(path)


# ---- hints name Python calls, not the C functions behind them ----

def test_wait_without_enabling_names_the_python_call(node):
    exc = raised(lambda: node.wait_event(timeout=0))
    assert type(exc) is rfm.NotEnabled and isinstance(exc, rfm.ClosedError)
    assert "node.enable_events()" in exc.message
    assert "rfm_event_enable" not in str(exc)


def test_loopback_hint_names_the_python_property(node):
    exc = raised(lambda: node.send_event(node.node_id, "intr1"))
    assert "node.loopback = True" in exc.message
    assert "rfm_" not in exc.message.split(":", 1)[1]


def test_owner_hint_names_the_python_property(name):
    from test_layout import TEXT
    layout = rfm.Layout.from_string(TEXT, "pyt.yaml")
    with rfm.open(f"shm:{name}?node=1&size=64K") as n1:
        t1 = n1.attach_layout(layout)
        exc = raised(lambda: t1.__setitem__("a.u8v", 1))
        assert type(exc) is rfm.OwnerError
        assert "owner_check = False" in exc.message
        assert "rfm_var_set_owner_check" not in exc.message
