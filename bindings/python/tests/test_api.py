# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Pythonic API, function by function: values, not just "no exception"."""

import array
import struct
import sys

import pytest

import rfm
from conftest import WINDOW


def test_open_gives_first_free_node_ids(uri):
    with rfm.open(uri) as first, rfm.open(uri) as second:
        assert (first.node_id, second.node_id) == (0, 1)


def test_open_explicit_node_id(name):
    with rfm.open(f"shm:{name}?node=42&size=64K") as node:
        assert node.node_id == 42
        assert node.uri == f"shm:{name}?node=42&size={WINDOW}"


def test_properties(node, name):
    assert node.size == WINDOW
    assert node.backend == "shm"
    assert node.uri == f"shm:{name}?node=0&size={WINDOW}"
    assert repr(node) == f"<rfm.Node {node.uri}>"
    assert node.closed is False


def test_info(uri):
    with rfm.open(uri) as node, rfm.open(uri) as other:
        info = other.info()
        assert isinstance(info, rfm.NodeInfo)
        assert info.node_id == other.node_id == 1
        assert info.size == WINDOW
        assert info.max_nodes == rfm.MAX_NODES == 256
        assert info.nodes_attached == 2
        assert info.backend == "shm"
        assert info.uri == other.uri
        assert info.incarnation >= 1
        assert node.info().nodes_attached == 2


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_peek_poke_every_width(node, bits):
    poke = getattr(node, f"poke{bits}")
    peek = getattr(node, f"peek{bits}")
    top = (1 << bits) - 1
    offset = 256
    for value in (0, 1, top, 0xA5A5A5A5A5A5A5A5 & top):
        poke(offset, value)
        assert peek(offset) == value
    # The last aligned slot of the window works; host byte order throughout.
    last = WINDOW - bits // 8
    poke(last, top - 1)
    assert peek(last) == top - 1
    fmt = {8: "B", 16: "H", 32: "I", 64: "Q"}[bits]
    assert struct.unpack("=" + fmt, node.read(last, bits // 8))[0] == top - 1


def test_peek_poke_widths_overlap_in_host_order(node):
    node.poke64(0, 0x1122334455667788)
    if sys.byteorder == "little":
        assert node.peek32(0) == 0x55667788
        assert node.peek16(6) == 0x1122
        assert node.peek8(1) == 0x77
    else:
        assert node.peek32(0) == 0x11223344
    assert node.read(0, 8) == (0x1122334455667788).to_bytes(8, sys.byteorder)


def test_read_write(node):
    node.write(100, b"reflective")
    assert node.read(100, 10) == b"reflective"
    assert node.read(100, 0) == b""
    node.write(100, b"")
    assert node.read(WINDOW - 4, 4) == bytes(4)
    node.write(WINDOW - 3, b"end")
    assert node.read(WINDOW - 3, 3) == b"end"


@pytest.mark.parametrize("data", [
    bytearray(b"\x01\x02\x03\x04"),
    memoryview(b"\x01\x02\x03\x04"),
    array.array("B", [1, 2, 3, 4]),
    memoryview(b"xx\x01\x02\x03\x04")[2:],
])
def test_write_takes_any_bytes_like(node, data):
    node.write(8, data)
    assert node.read(8, 4) == b"\x01\x02\x03\x04"


def test_write_wider_items_by_bytes(node):
    words = array.array("I", [0xDEADBEEF, 7])
    node.write(16, words)
    assert node.peek32(16) == 0xDEADBEEF
    assert node.peek32(20) == 7


def test_read_returns_independent_bytes(node):
    node.poke32(0, 1)
    snapshot = node.read(0, 4)
    node.poke32(0, 2)
    assert snapshot == (1).to_bytes(4, sys.byteorder)


def test_two_nodes_see_each_other(uri):
    with rfm.open(uri) as a, rfm.open(uri) as b:
        a.poke32(0x40, 123456)
        assert b.peek32(0x40) == 123456
        b.write(0x80, b"reply")
        assert a.read(0x80, 5) == b"reply"


def test_default_uri_comes_from_environment(monkeypatch, name):
    monkeypatch.setenv("RFM_URI", f"shm:{name}?node=9&size=64K")
    with rfm.open() as node:
        assert node.node_id == 9
        assert node.uri.startswith(f"shm:{name}?")
    monkeypatch.setenv("RFM_URI", f"shm:{name}?node=10&size=64K")
    with rfm.open("") as node:
        assert node.node_id == 10


def test_context_manager_closes(uri):
    with rfm.open(uri) as node:
        pass
    assert node.closed
    assert repr(node) == "<rfm.Node closed>"
    node.close()  # twice is harmless
    assert node.closed


def test_close_frees_the_node_id(name):
    explicit = f"shm:{name}?node=3&size=64K"
    node = rfm.open(explicit)
    node.close()
    with rfm.open(explicit) as again:
        assert again.node_id == 3


def test_destroy(name):
    uri = f"shm:{name}?size=64K"
    with rfm.open(uri) as node:
        node.poke32(0, 99)
    rfm.destroy(uri)
    with pytest.raises(rfm.NotFound):
        rfm.destroy(uri)
    with rfm.open(uri) as node:  # a new network: zeroed
        assert node.peek32(0) == 0


def test_destroy_force(name):
    uri = f"shm:{name}?size=64K"
    with rfm.open(uri) as node:
        with pytest.raises(rfm.Busy):
            rfm.destroy(uri)
        rfm.destroy(uri, force=True)
        node.poke32(0, 5)  # the attached node keeps its mapping
        assert node.peek32(0) == 5


def test_version():
    assert rfm.version == rfm.__version__
    assert rfm.version == "%d.%d.%d" % rfm.version_info
    assert rfm.version == rfm._rfm_swig.RFM_VERSION_STRING  # library == headers


def test_constants():
    assert rfm.DEFAULT_URI == "shm:default"
    assert rfm.NODE_ID_MAX == 255
    assert rfm.SHM_DEFAULT_SIZE == 16 << 20


def test_fences_are_callable():
    rfm.fence_acquire()
    rfm.fence_release()
    rfm.fence_full()


def test_last_error_is_the_message_of_the_failure(node):
    with pytest.raises(rfm.AlignmentError) as caught:
        node.peek64(4)
    assert rfm.last_error() == caught.value.message
    assert "rfm_mem_peek64" in caught.value.message


def test_strerror():
    assert rfm.strerror(rfm.ErrorCode.ERANGE) == "offset or length outside the window"
    assert rfm.strerror(0) == "success"
