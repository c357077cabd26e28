# SPDX-License-Identifier: LGPL-2.1-or-later
"""librfm.so through ctypes alone: no header, no compiler, no SWIG.

What a binding in Rust, Go, Julia or .NET needs is what this module uses:
the exported functions, C integers and pointers, one 32-byte struct
(rfm_event) and the numeric constants of the headers, written out here as
any FFI author would. Each constant is checked against the header text, so
drift in either is caught. The inline accessors of access.h are reached
through their exported twins (src/ffi.c).
"""
import ctypes
import os
import re
import threading

import pytest

LIBRARY = os.environ.get("RFM_LIBRARY", "librfm.so.1")
INCLUDE = os.environ.get("RFM_INCLUDE_DIR")

# The constants an FFI author copies from the headers.
RFM_EINVAL, RFM_ESCHEME, RFM_ERANGE, RFM_EALIGN = -1, -5, -16, -17
RFM_ETIMEDOUT, RFM_ESELF = -19, -24
RFM_EVENT_INTR1 = 1
RFM_NODE_ALL = 0xFFFF
RFM_DESTROY_FORCE = 1


def event_bit(event_type):
    """RFM_EVENT_BIT(): a macro in C, a shift here."""
    return 1 << event_type


class Event(ctypes.Structure):
    """struct rfm_event: fixed layout, 32 bytes (event.h)."""
    _fields_ = [("type", ctypes.c_uint32), ("sender", ctypes.c_uint32),
                ("data", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("seq", ctypes.c_uint64), ("sent_ns", ctypes.c_uint64)]


node_p = ctypes.c_void_p
u32, u64, i64 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int64

SIGNATURES = {
    # name: (result, arguments)
    "rfm_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(node_p)]),
    "rfm_close": (None, [node_p]),
    "rfm_node_id": (ctypes.c_int, [node_p]),
    "rfm_node_size": (u64, [node_p]),
    "rfm_network_destroy": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint]),
    "rfm_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "rfm_last_error": (ctypes.c_char_p, []),
    "rfm_version_string": (ctypes.c_char_p, []),
    "rfm_mem_map": (ctypes.c_int, [node_p, ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(u64)]),
    "rfm_mem_read": (ctypes.c_int, [node_p, u64, ctypes.c_void_p, ctypes.c_size_t]),
    "rfm_mem_write": (ctypes.c_int, [node_p, u64, ctypes.c_void_p, ctypes.c_size_t]),
    "rfm_mem_peek32": (ctypes.c_int, [node_p, u64, ctypes.POINTER(u32)]),
    "rfm_mem_poke32": (ctypes.c_int, [node_p, u64, u32]),
    "rfm_mem_peek64": (ctypes.c_int, [node_p, u64, ctypes.POINTER(u64)]),
    "rfm_mem_poke64": (ctypes.c_int, [node_p, u64, u64]),
    "rfm_event_enable": (ctypes.c_int, [node_p, u32]),
    "rfm_event_send": (ctypes.c_int, [node_p, ctypes.c_uint, ctypes.c_uint, u32]),
    "rfm_event_wait": (ctypes.c_int, [node_p, ctypes.POINTER(Event), i64]),
    # Exported twins of access.h's inline accessors (src/ffi.c).
    "rfm_load32_acquire": (u32, [ctypes.c_void_p, u64]),
    "rfm_store32_release": (None, [ctypes.c_void_p, u64, u32]),
    "rfm_load64": (u64, [ctypes.c_void_p, u64]),
    "rfm_store64": (None, [ctypes.c_void_p, u64, u64]),
    "rfm_fence_full": (None, []),
}


@pytest.fixture(scope="module")
def lib():
    lib = ctypes.CDLL(LIBRARY)
    for name, (res, args) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


@pytest.fixture
def network(request, lib):
    name = f"ffi-{os.getpid()}-{request.node.name}"[:60]
    yield f"shm:{name}"
    lib.rfm_network_destroy(f"shm:{name}".encode(), RFM_DESTROY_FORCE)


def open_node(lib, uri):
    node = node_p()
    rc = lib.rfm_open(uri.encode(), ctypes.byref(node))
    assert rc == 0, lib.rfm_last_error().decode()
    assert node.value
    return node


def test_open_peek_poke(lib, network):
    node = open_node(lib, f"{network}?node=3&size=64K")
    try:
        assert lib.rfm_node_id(node) == 3
        assert lib.rfm_node_size(node) == 65536
        assert lib.rfm_mem_poke32(node, 0x100, 0xDEADBEEF) == 0
        value = u32()
        assert lib.rfm_mem_peek32(node, 0x100, ctypes.byref(value)) == 0
        assert value.value == 0xDEADBEEF
        assert lib.rfm_mem_poke64(node, 0x108, 2**64 - 2) == 0
        wide = u64()
        assert lib.rfm_mem_peek64(node, 0x108, ctypes.byref(wide)) == 0
        assert wide.value == 2**64 - 2
        data = ctypes.create_string_buffer(b"bytes through ctypes")
        assert lib.rfm_mem_write(node, 0x200, data, len(data)) == 0
        back = ctypes.create_string_buffer(len(data))
        assert lib.rfm_mem_read(node, 0x200, back, len(back)) == 0
        assert back.raw == data.raw
    finally:
        lib.rfm_close(node)


def test_second_handle_sees_the_window(lib, network):
    a = open_node(lib, f"{network}?node=0&size=64K")
    b = open_node(lib, f"{network}?node=1&size=64K")
    try:
        assert lib.rfm_mem_poke32(a, 0x40, 1234) == 0
        value = u32()
        assert lib.rfm_mem_peek32(b, 0x40, ctypes.byref(value)) == 0
        assert value.value == 1234
    finally:
        lib.rfm_close(b)
        lib.rfm_close(a)


def test_error_codes_and_messages(lib, network):
    node = node_p()
    assert lib.rfm_open(b"nope:x", ctypes.byref(node)) == RFM_ESCHEME
    assert node.value is None  # left untouched on failure
    assert b"nope:x" in lib.rfm_last_error()
    assert lib.rfm_strerror(RFM_ESCHEME)

    node = open_node(lib, f"{network}?node=0&size=64K")
    try:
        value = u32()
        assert lib.rfm_mem_peek32(node, 65536, ctypes.byref(value)) == RFM_ERANGE
        assert b"window" in lib.rfm_last_error()
        assert lib.rfm_mem_poke32(node, 0x102, 1) == RFM_EALIGN
        assert lib.rfm_mem_peek32(None, 0, ctypes.byref(value)) == RFM_EINVAL
        assert lib.rfm_event_send(node, 0, RFM_EVENT_INTR1, 1) == RFM_ESELF
    finally:
        lib.rfm_close(node)
    lib.rfm_close(None)  # NULL is ignored


def test_event_between_two_handles(lib, network):
    sender = open_node(lib, f"{network}?node=0&size=64K")
    receiver = open_node(lib, f"{network}?node=1&size=64K")
    try:
        assert ctypes.sizeof(Event) == 32
        assert lib.rfm_event_enable(receiver, event_bit(RFM_EVENT_INTR1)) == 0
        ev = Event()
        assert lib.rfm_event_wait(receiver, ctypes.byref(ev), 1000) == RFM_ETIMEDOUT

        # A wait that blocks in C while another thread sends (ctypes
        # releases the GIL around foreign calls).
        got = {}

        def wait():
            got["rc"] = lib.rfm_event_wait(receiver, ctypes.byref(ev), 30 * 10**9)

        waiter = threading.Thread(target=wait)
        waiter.start()
        assert lib.rfm_event_send(sender, RFM_NODE_ALL, RFM_EVENT_INTR1, 0xC0FFEE) == 1
        waiter.join(60)
        assert not waiter.is_alive()
        assert got["rc"] == 0
        assert (ev.type, ev.sender, ev.data, ev.seq) == (RFM_EVENT_INTR1, 0, 0xC0FFEE, 1)
    finally:
        lib.rfm_close(receiver)
        lib.rfm_close(sender)


def test_inline_accessors_have_exported_twins(lib, network):
    node = open_node(lib, f"{network}?node=0&size=64K")
    try:
        base, size = ctypes.c_void_p(), u64()
        assert lib.rfm_mem_map(node, ctypes.byref(base), ctypes.byref(size)) == 0
        assert size.value == 65536
        lib.rfm_store32_release(base, 0x80, 77)
        lib.rfm_store64(base, 0x88, 2**40)
        lib.rfm_fence_full()
        assert lib.rfm_load32_acquire(base, 0x80) == 77
        assert lib.rfm_load64(base, 0x88) == 2**40
        value = u32()
        assert lib.rfm_mem_peek32(node, 0x80, ctypes.byref(value)) == 0
        assert value.value == 77
    finally:
        lib.rfm_close(node)


def header(name):
    if not INCLUDE:
        pytest.skip("RFM_INCLUDE_DIR not set")
    with open(os.path.join(INCLUDE, "rfm", name), encoding="utf-8") as f:
        return f.read()


def test_constants_match_the_headers(lib):
    errors = dict((m.group(1), int(m.group(2))) for m in
                  re.finditer(r"^\s*(RFM_E[A-Z]+|RFM_OK)\s*=\s*(-?\d+),", header("error.h"), re.M))
    assert errors["RFM_EINVAL"] == RFM_EINVAL and errors["RFM_ESCHEME"] == RFM_ESCHEME
    assert errors["RFM_ERANGE"] == RFM_ERANGE and errors["RFM_EALIGN"] == RFM_EALIGN
    assert errors["RFM_ETIMEDOUT"] == RFM_ETIMEDOUT and errors["RFM_ESELF"] == RFM_ESELF
    # Every code has its own sentence.
    sentences = {lib.rfm_strerror(code) for code in errors.values() if code}
    assert len(sentences) == len(errors) - 1
    event = header("event.h")
    assert re.search(r"RFM_EVENT_INTR1 = 1,", event)
    assert re.search(r"#define RFM_NODE_ALL 0xffffu", event)
    assert re.search(r"#define RFM_EVENT_BIT\(type\) \(UINT32_C\(1\) << \(type\)\)", event)
    assert re.search(r"#define RFM_DESTROY_FORCE 0x1u", header("node.h"))
    # struct rfm_event as declared: six fields, in this order.
    body = re.search(r"struct rfm_event \{(.*?)\};", event, re.S).group(1)
    fields = re.findall(r"(uint\d+)_t (\w+);", body)
    assert [(t, n) for t, n in fields] == [
        ("uint32", "type"), ("uint32", "sender"), ("uint32", "data"),
        ("uint32", "flags"), ("uint64", "seq"), ("uint64", "sent_ns")]
