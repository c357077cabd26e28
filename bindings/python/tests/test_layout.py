# SPDX-License-Identifier: LGPL-2.1-or-later
"""Typed-variable tables from Python: layouts, diagnostics, typed get/set, records."""

import math
import os
import struct

import pytest

import rfm
from conftest import SOURCE_ROOT
from rfm import _rfm_swig as swig

WINDOW = 64 * 1024

TEXT = """\
version: 1
name: pyt
window: 64K
regions:
  - name: a
    offset: 0x0
    size: 0x400
    writer: 0
    variables:
      - { name: u8v, type: u8 }
      - { name: i16v, type: i16 }
      - { name: u32v, type: u32, min: 10, max: 1000 }
      - { name: u64v, type: u64 }
      - { name: i64v, type: i64 }
      - { name: f32v, type: f32 }
      - { name: f64v, type: f64, unit: m }
      - { name: flag, type: bool }
      - { name: text, type: string, length: 16 }
      - { name: raw, type: bytes, length: 4 }
      - { name: arr, type: i32, count: 4 }
      - { name: big, type: u32, byte_order: big }
    records:
      - name: state
        variables:
          - { name: cycle, type: u64 }
          - { name: pos, type: f64, count: 3 }
          - { name: ok, type: bool }
          - { name: speed, type: f32, min: 0, max: 100 }
  - name: b
    offset: 0x400
    size: 0x100
    writer: 1
    variables:
      - { name: ack, type: u32 }
"""


@pytest.fixture
def layout():
    return rfm.Layout.from_string(TEXT, "pyt.yaml")


@pytest.fixture
def tables(name, layout):
    """Tables of nodes 0 (writer of a) and 1 (writer of b) on one network."""
    with rfm.open(f"shm:{name}?node=0&size={WINDOW}") as n0, \
            rfm.open(f"shm:{name}?node=1&size={WINDOW}") as n1:
        yield n0.attach_layout(layout), n1.attach_layout(layout)


def test_layout_describes_itself(layout):
    assert (layout.name, layout.window_size) == ("pyt", WINDOW)
    assert [(r.name, r.offset, r.size, r.writer) for r in layout.regions] == [
        ("a", 0, 0x400, 0), ("b", 0x400, 0x100, 1)]
    assert [r.name for r in layout.records] == ["a.state"]
    names = [v.name for v in layout.variables]
    assert "a.u32v" in names and "a.state.pos" in names
    info = {v.name: v for v in layout.variables}
    assert (info["a.u32v"].type, info["a.u32v"].min, info["a.u32v"].max) == ("u32", 10, 1000)
    assert info["a.f64v"].unit == "m" and info["a.f64v"].min is None
    assert info["a.state.pos"].record == "a.state" and info["a.state.pos"].count == 3
    assert info["a.big"].byte_order == "big"
    assert "#define" in layout.header() or "struct" in layout.header()


def test_load_a_file():
    layout = rfm.Layout.load(os.path.join(SOURCE_ROOT, "examples", "layouts", "hil-sim.yaml"))
    assert layout.name == "hil" and len(layout.regions) == 7


def test_load_errors_carry_every_diagnostic():
    bad = "version: 1\nwindow: 64K\nregions:\n" \
          "  - { name: a, offset: 0, size: 16, writer: 0 }\n" \
          "  - { name: b, offset: 8, size: 16, writer: 1 }\n" \
          "  - { name: c, offset: 0x100, size: 16, writer: 2, bogus: 1 }\n"
    with pytest.raises(rfm.LayoutError) as caught:
        rfm.Layout.from_string(bad, "bad.yaml")
    e = caught.value
    assert isinstance(e, rfm.Error) and e.code == rfm.ErrorCode.ELAYOUT
    diags = e.diagnostics
    assert len(diags) >= 2 and all(isinstance(d, rfm.Diagnostic) for d in diags)
    assert [d.line for d in diags] == sorted(d.line for d in diags)
    assert diags[0].file == "bad.yaml" and diags[0].line == 5 and diags[0].column > 0
    assert "overlaps" in diags[0].message
    assert any("bogus" in d.message and d.line == 6 for d in diags)
    assert str(diags[0]) == diags[0].text.rstrip() or diags[0].text.startswith("bad.yaml:5:")


def test_load_failures_of_the_file():
    with pytest.raises(rfm.NotFound):
        rfm.Layout.load("/nonexistent/layout.yaml")
    with pytest.raises(TypeError):
        rfm.Layout.from_string(42)  # type: ignore[arg-type]  # the point of the test
    with pytest.raises(TypeError):
        rfm.Layout(object())


def test_scalars_round_trip_as_python_types(tables):
    t0, t1 = tables
    values = {"a.u8v": 255, "a.i16v": -32768, "a.u32v": 500, "a.u64v": (1 << 64) - 1,
              "a.i64v": -(1 << 63), "a.f32v": 1.5, "a.f64v": math.pi, "a.flag": True,
              "a.text": "hello", "a.raw": b"\x00\x01\xfe\xff", "a.arr": [1, -2, 3, -4],
              "a.big": 0x01020304}
    for key, value in values.items():
        t0[key] = value
    for key, value in values.items():
        got = t1[key]  # the other node reads what node 0 wrote
        assert got == value and type(got) is type(value), key
    assert t1.node.read(t1.var("a.big").info.offset, 4) == b"\x01\x02\x03\x04"
    assert t1["a.arr[2]"] == 3
    t0["a.arr[1]"] = 20
    assert t1["a.arr"] == [1, 20, 3, -4]
    t0["a.raw"] = b"\x09"  # shorter: NUL-padded
    assert t1["a.raw"] == b"\x09\x00\x00\x00"


def test_limits_and_type_ranges_raise_range_error(tables):
    t0, _ = tables
    t0["a.u32v"] = 10
    with pytest.raises(rfm.RangeError, match="range 10..1000"):
        t0["a.u32v"] = 1001
    with pytest.raises(rfm.RangeError):
        t0["a.u8v"] = 256
    with pytest.raises(rfm.RangeError):
        t0["a.i16v"] = -32769
    with pytest.raises(rfm.RangeError):
        t0["a.f32v"] = 1e300
    with pytest.raises(rfm.RangeError):
        t0["a.text"] = "x" * 17
    with pytest.raises(rfm.RangeError):
        t0["a.raw"] = b"12345"
    with pytest.raises(rfm.RangeError):
        t0["a.arr"] = [0, 0, 0, 1 << 40]
    assert t0["a.u32v"] == 10  # nothing written by a refused set
    assert issubclass(rfm.RangeError, ValueError)


def test_wrong_python_types(tables):
    t0, _ = tables
    for key, value in (("a.u32v", "12"), ("a.u32v", 12.0), ("a.u32v", True), ("a.f64v", "1"),
                       ("a.flag", 2), ("a.text", b"bytes"), ("a.raw", "str"),
                       ("a.arr", [1, 2, 3, "4"])):
        with pytest.raises(TypeError):
            t0[key] = value
    with pytest.raises(ValueError, match="4 elements"):
        t0["a.arr"] = [1, 2]
    with pytest.raises(TypeError):
        t0["a.state"] = [1, 2]


def test_ownership_refusal(tables):
    t0, t1 = tables
    with pytest.raises(rfm.OwnerError) as caught:
        t1["a.u8v"] = 1
    assert isinstance(caught.value, rfm.Error) and caught.value.code == rfm.ErrorCode.EOWNER
    with pytest.raises(rfm.OwnerError):
        t0["b.ack"] = 1
    with pytest.raises(rfm.OwnerError):
        t1["a.state"] = {"cycle": 1}
    var = t1.var("a.u8v")
    var.owner_check = False  # a test tool may relax it for one handle
    var.set(7)
    assert t0["a.u8v"] == 7


def test_unknown_names(tables):
    t0, _ = tables
    with pytest.raises(rfm.NotFound):
        t0["a.nothing"]
    with pytest.raises(rfm.NotFound):
        t0["a.arr[4]"]
    with pytest.raises(TypeError):
        t0[3]


def test_records_are_dicts(tables):
    t0, t1 = tables
    assert t1["a.state"] == {"cycle": 0, "pos": [0.0, 0.0, 0.0], "ok": False, "speed": 0.0}
    t0["a.state"] = {"cycle": 7, "pos": [1.0, 2.0, 3.0], "ok": True, "speed": 50.0}
    assert t1["a.state"] == {"cycle": 7, "pos": [1.0, 2.0, 3.0], "ok": True, "speed": 50.0}
    t0["a.state"] = {"cycle": 8}  # the other fields keep their values
    assert t1["a.state"] == {"cycle": 8, "pos": [1.0, 2.0, 3.0], "ok": True, "speed": 50.0}
    rec = t1.record("a.state")
    assert rec.fields == ["cycle", "pos", "ok", "speed"]
    assert rec.sequence % 2 == 0 and rec.sequence > 0
    before = rec.sequence
    with pytest.raises(rfm.RangeError):
        t0["a.state"] = {"cycle": 9, "speed": 101.0}
    assert rec.sequence == before and t1["a.state"]["cycle"] == 8  # nothing published
    with pytest.raises(KeyError, match="nope"):
        t0["a.state"] = {"nope": 1}
    # The record's fields read one at a time are consistent with the whole.
    assert t1["a.state.cycle"] == 8
    raw = t1.node.read(t1.layout.records[0].data_offset, 8)
    assert struct.unpack("<Q", raw)[0] == 8


def test_closing_the_node_closes_its_handles(name, layout):
    node = rfm.open(f"shm:{name}?node=0&size={WINDOW}")
    table = node.attach_layout(layout)
    var = table.var("a.u32v")
    rec = table.record("a.state")
    handles = [var._h, rec._h] + [f._h for f in rec._fields.values()]
    assert all(swig._handle_open(h) for h in handles)
    node.close()
    assert not any(swig._handle_open(h) for h in handles)
    with pytest.raises(rfm.ClosedError):
        var.get()
    with pytest.raises(rfm.ClosedError):
        rec.read()
    with pytest.raises(rfm.ClosedError):
        table["a.u8v"]


def test_table_close_and_lowlevel_frees(tables, layout):
    t0, _ = tables
    var = t0.var("a.u8v")
    t0.close()
    with pytest.raises(rfm.ClosedError):
        var.get()
    assert t0["a.u8v"] == 0  # a fresh handle
    h = swig.rfm_layout_load_string(TEXT, None)
    assert swig.rfm_layout_free(h) is None
    assert swig.rfm_layout_free(h) is None  # twice: harmless
    with pytest.raises(rfm.ClosedError):
        swig.rfm_layout_name(h)
    with pytest.raises(TypeError, match="variable Handle, not layout"):
        swig.rfm_var_get_u8(h, 0)
    with pytest.raises(TypeError):
        swig.rfm_var_open(layout._h, "not a node", "a.u8v")


def test_text_access_and_layouts_built_in_code(tables):
    t0, t1 = tables
    var = t0.var("a.arr")
    swig.rfm_var_set_text(var._h, "[5, 6, 7, 8]")
    assert swig.rfm_var_get_text(t1.var("a.arr")._h, 64) == "[5, 6, 7, 8]"
    with pytest.raises(rfm.RangeError):
        swig.rfm_var_get_text(t1.var("a.arr")._h, 4)
    built = swig.rfm_layout_new("code", WINDOW)
    spec = swig.rfm_region_spec()
    spec.name, spec.writer, spec.offset, spec.size = "r", 0, 0, 64
    swig.rfm_layout_add_region(built, spec)
    vspec = swig.rfm_var_spec()
    vspec.name, vspec.type, vspec.offset = "x", swig.RFM_TYPE_U16, swig.RFM_OFFSET_AUTO
    swig.rfm_layout_add_var(built, "r", vspec)
    swig.rfm_layout_finish(built)
    assert swig.rfm_layout_var_count(built) == 1
    swig.rfm_layout_free(built)


NOTIFY_TEXT = TEXT.replace("      - name: state\n", "      - name: state\n        notify: intr2\n")


@pytest.mark.parametrize("text", [TEXT, NOTIFY_TEXT], ids=["polling", "notify"])
def test_record_wait_releases_the_gil_and_returns_the_new_sequence(name, text):
    import threading

    layout = rfm.Layout.from_string(text)
    with rfm.open(f"shm:{name}?node=0&size={WINDOW}") as n0, \
            rfm.open(f"shm:{name}?node=1&size={WINDOW}") as n1:
        writer = n0.attach_layout(layout).record("a.state")
        reader = n1.attach_layout(layout).record("a.state")
        last = reader.sequence
        with pytest.raises(rfm.Timeout):
            reader.wait(last, timeout=0.01)
        got, entering = [], threading.Event()

        def waiter():
            entering.set()
            got.append(reader.wait(last, timeout=30))

        t = threading.Thread(target=waiter)
        t.start()
        entering.wait()
        writer.write({"cycle": 99})  # this thread runs while the other waits
        t.join(timeout=60)
        assert got == [reader.sequence] and got[0] > last
        assert reader.read()["cycle"] == 99


def test_closing_the_node_wakes_a_record_wait(name, layout):
    import threading

    node = rfm.open(f"shm:{name}?node=1&size={WINDOW}")
    rec = node.attach_layout(layout).record("a.state")
    outcome, entering = [], threading.Event()

    def waiter():
        entering.set()
        try:
            rec.wait(timeout=None)
        except rfm.ClosedError as e:
            outcome.append(e)

    t = threading.Thread(target=waiter)
    t.start()
    entering.wait()
    node.close()
    t.join(timeout=60)
    assert not t.is_alive() and len(outcome) == 1


def test_stale_follows_the_writer(name, layout):
    """Table.stale(): a variable is stale while its region's writer is away."""
    with rfm.open(f"shm:{name}?node=1&size={WINDOW}") as n1:
        t1 = n1.attach_layout(layout)
        assert t1.stale("b.ack") is False       # node 1 writes b: attached
        assert t1.stale("a.u32v") is True       # node 0 writes a: not attached
        with rfm.open(f"shm:{name}?node=0&size={WINDOW}"):
            assert t1.stale("a.u32v") is False
        assert t1.stale("a.u32v") is True
        with pytest.raises(rfm.NotFound):
            t1.stale("a.nope")
