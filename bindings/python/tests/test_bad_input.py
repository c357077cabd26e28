# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bad input gives a Python exception with a clear message, never a crash.

The mapping, as documented in rfm/_errors.py:
  wrong Python type (offset "8", value 1.5, data "text", uri b"shm:x") -> TypeError
  offset outside the window, negative or >= 2**64 included           -> rfm.RangeError
  length > window                                                    -> rfm.RangeError
  negative length; value too wide for the access                     -> ValueError
  misaligned peek/poke                                               -> rfm.AlignmentError
  any call on a closed node                                          -> rfm.ClosedError
"""

import array
import functools
import pickle
from typing import Callable, List, Tuple

import pytest

import rfm

METHODS_WITH_OFFSET = [
    ("peek8", ()), ("peek16", ()), ("peek32", ()), ("peek64", ()),
    ("poke8", (1,)), ("poke16", (1,)), ("poke32", (1,)), ("poke64", (1,)),
    ("read", (4,)), ("write", (b"data",)),
]


@pytest.mark.parametrize("method, rest", METHODS_WITH_OFFSET)
@pytest.mark.parametrize("offset", ["8", 8.0, None, b"8", [8]])
def test_offset_of_wrong_type(node, method, rest, offset):
    with pytest.raises(TypeError, match="offset must be an int, not"):
        getattr(node, method)(offset, *rest)


@pytest.mark.parametrize("method, rest", METHODS_WITH_OFFSET)
@pytest.mark.parametrize("offset", [-1, -8, 2**63, 2**64, 2**64 + 8, -(2**80)])
def test_offset_outside_every_window(node, method, rest, offset):
    with pytest.raises(rfm.RangeError) as caught:
        getattr(node, method)(offset, *rest)
    assert caught.value.code == rfm.ErrorCode.ERANGE
    assert "outside the" in caught.value.message


def test_offset_accepts_int_like(node):
    class Index:
        def __index__(self):
            return 8

    node.poke32(Index(), 77)
    assert node.peek32(8) == 77
    assert node.peek8(True) == 0  # bool is an int: offset 1


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("value", [-1, "too big", 1.0])
def test_value_that_does_not_fit(node, bits, value):
    poke = getattr(node, f"poke{bits}")
    error = TypeError if not isinstance(value, int) else ValueError
    with pytest.raises(error, match=f"rfm_mem_poke{bits}: value"):
        poke(0, value)


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_value_one_past_the_width(node, bits):
    poke = getattr(node, f"poke{bits}")
    with pytest.raises(ValueError, match=f"does not fit in {bits} bits"):
        poke(0, 1 << bits)
    assert getattr(node, f"peek{bits}")(0) == 0  # nothing was written


def test_length(node):
    with pytest.raises(ValueError, match="length -1 is negative"):
        node.read(0, -1)
    with pytest.raises(TypeError, match="length must be an int"):
        node.read(0, 4.0)
    with pytest.raises(rfm.RangeError):
        node.read(0, node.size + 1)
    with pytest.raises(rfm.RangeError):
        node.read(0, 2**70)


@pytest.mark.parametrize("data, message", [
    ("text", "not str"),
    (None, "not NoneType"),
    (12, "not int"),
    ([1, 2], "not list"),
])
def test_data_that_is_not_bytes_like(node, data, message):
    with pytest.raises(TypeError, match=f"data must be a bytes-like object, {message}"):
        node.write(0, data)


def test_data_not_contiguous(node):
    strided = memoryview(array.array("B", range(8)))[::2]
    with pytest.raises(BufferError):
        node.write(0, strided)
    assert node.read(0, 4) == bytes(4)


def test_data_longer_than_the_rest_of_the_window(node):
    with pytest.raises(rfm.RangeError):
        node.write(node.size - 4, b"12345")
    assert node.read(node.size - 4, 4) == bytes(4)  # nothing was written


@pytest.mark.parametrize("uri, error", [
    (b"shm:x", TypeError),
    (42, TypeError),
    ("shm:x\0y", ValueError),
])
def test_uri_of_wrong_type(uri, error):
    with pytest.raises(error, match="uri must"):
        rfm.open(uri)
    with pytest.raises(error, match="uri must"):
        rfm.destroy(uri)


def test_every_method_of_a_closed_node(uri):
    node = rfm.open(uri)
    node.close()
    calls: List[Tuple[str, Callable[[], object]]] = [
        (name, functools.partial(getattr(node, name), 0, *rest))
        for name, rest in METHODS_WITH_OFFSET]
    calls += [(attr, functools.partial(getattr, node, attr))
              for attr in ("node_id", "size", "backend", "uri", "memory")]
    calls += [("info", node.info)]
    for label, call in calls:
        with pytest.raises(rfm.ClosedError, match="closed"):
            call()
    assert node.closed


def test_node_is_made_by_open_only():
    with pytest.raises(TypeError, match="rfm.open"):
        rfm.Node(None)  # type: ignore[arg-type]  # the point of the test


def test_node_cannot_be_pickled(node):
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(node)


def test_lowlevel_rejects_foreign_handles():
    with pytest.raises(TypeError, match="expected a NodeHandle"):
        rfm._rfm_swig.rfm_mem_peek32(None, 0)
    with pytest.raises(TypeError, match="expected a NodeHandle"):
        rfm._rfm_swig.rfm_mem_peek32("node", 0)
    with pytest.raises(TypeError, match="expected a NodeHandle"):
        rfm._rfm_swig.rfm_close(object())
