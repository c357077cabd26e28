# SPDX-License-Identifier: LGPL-2.1-or-later
"""Node.memory: a zero-copy, writable, bounded view that close() invalidates safely."""

import gc
import sys
import warnings

import pytest

import rfm
from conftest import WINDOW


def test_shape(node):
    with node.memory as view:
        assert len(view) == view.nbytes == WINDOW
        assert view.format == "B"
        assert view.itemsize == 1
        assert not view.readonly
        assert view.contiguous


def test_zero_copy_both_ways(uri):
    with rfm.open(uri) as node, rfm.open(uri) as other:
        view = node.memory
        other.poke32(0x100, 0xCAFEF00D)
        assert view[0x100:0x104].tobytes() == (0xCAFEF00D).to_bytes(4, sys.byteorder)
        view[0x200:0x205] = b"hello"
        assert other.read(0x200, 5) == b"hello"
        words = view.cast("I")
        assert len(words) == WINDOW // 4
        words[0x300 // 4] = 31337
        assert other.peek32(0x300) == 31337
        del words
        view.release()


def test_bounds(node):
    view = node.memory
    with pytest.raises(IndexError):
        view[WINDOW]
    with pytest.raises(IndexError):
        view[-WINDOW - 1] = 0
    assert view[-1] == 0
    assert len(view[WINDOW - 2:WINDOW + 100]) == 2  # slices are clipped to the window
    with pytest.raises(ValueError):
        view[0:4] = b"too long"  # the wrong size for the slice
    with pytest.raises(ValueError):
        view[0] = 256
    assert node.read(0, 8) == bytes(8)
    view.release()


def test_close_releases_views(uri):
    node = rfm.open(uri)
    first, second = node.memory, node.memory
    node.close()
    for view in (first, second):
        with pytest.raises(ValueError, match="released"):
            view[0]
        with pytest.raises(ValueError, match="released"):
            view[0] = 1
    with pytest.raises(rfm.ClosedError):
        node.memory
    with pytest.raises(rfm.ClosedError):
        memoryview(node._h)  # type: ignore[arg-type]  # a buffer, as far as SWIG goes


def test_with_block_releases_the_view(node):
    with node.memory as view:
        view[0] = 7
    assert rfm._rfm_swig._handle_state(node._h) == (True, True, 0)
    assert node.peek8(0) == 7


def test_derived_view_keeps_node_attached_until_released(name):
    explicit = f"shm:{name}?node=5&size=64K"
    node = rfm.open(explicit)
    words = node.memory.cast("I")
    with pytest.warns(ResourceWarning, match="stays attached"):
        node.close()
    # Closed for every call, yet the derived view is still safe to use...
    with pytest.raises(rfm.ClosedError):
        node.peek32(0)
    words[1] = 4242
    assert words[1] == 4242
    assert rfm._rfm_swig._handle_state(node._h) == (False, True, 1)
    # ...and the node id is still taken.
    with pytest.raises(rfm.Busy):
        rfm.open(explicit)
    del words
    gc.collect()
    assert rfm._rfm_swig._handle_state(node._h) == (False, False, 0)
    with rfm.open(explicit) as again:
        assert again.peek32(4) == 4242  # the data stayed on the network


def test_view_outlives_a_dropped_node(uri):
    """rfm.open(uri).memory: the view keeps the node alive, then detaches it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        view = rfm.open(uri).memory
        gc.collect()
    view[0:3] = b"abc"
    with rfm.open(uri) as other:
        assert other.node_id == 1  # node 0 is still attached through the view
        assert other.read(0, 3) == b"abc"
        view.release()
        gc.collect()
        with rfm.open(uri) as third:
            assert third.node_id == 0  # released: node 0 was detached


def test_unclosed_node_warns(uri):
    node = rfm.open(uri)
    with pytest.warns(ResourceWarning, match="unclosed"):
        del node
        gc.collect()


def test_many_views_are_tracked_without_growth(node):
    for _ in range(1000):
        node.memory.release()
    assert len(node._views) <= 64
    assert rfm._rfm_swig._handle_state(node._h)[2] == 0


def test_flush_checks_its_range(node):
    # shm: the memory replicates by itself; flush is a checked fence.
    view = node.memory
    view[0x10] = 7
    node.flush(0x10, 1)
    node.flush()
    with pytest.raises(rfm.RangeError):
        node.flush(WINDOW - 4, 8)
    view.release()
