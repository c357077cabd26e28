# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm bench: runs, options, exit codes, JSON keys. No timing assertions."""
import pytest

from conftest import failed, ok, stale, usage_error

SIZES = [4, 64, 256, 4096, 65536]

LAYOUT = """\
version: 1
name: bench
window: 256K
regions:
  - name: mine
    offset: 0
    size: 0x100
    writer: 2
    variables:
      - { name: gain, type: f64 }
      - { name: mode, type: u32, min: 0, max: 3 }
    records:
      - name: state
        variables:
          - { name: n, type: u16 }
          - { name: t, type: f32 }
  - name: theirs
    offset: 0x100
    size: 0x100
    writer: 1
    variables:
      - { name: word, type: u32 }
"""


def big(net, node):
    """A window with room for the 64 KiB transfers beside the layout's regions."""
    return f"{net.bare}?node={node}&size=256K"


def rates(fig, bandwidth):
    assert fig["ops_per_s"] > 0 and fig["ns_per_op"] > 0
    assert ("mb_per_s" in fig) == bandwidth
    if bandwidth:
        assert fig["mb_per_s"] > 0


def test_json(rfm, net):
    obj = ok(rfm("-u", net.uri, "bench", "--duration", "1", "--json")).json()
    assert obj["backend"] == "shm"
    assert obj["duration_ms"] == 1
    assert [row["size"] for row in obj["bandwidth"]] == SIZES
    for row in obj["bandwidth"]:
        for key in ("write", "read", "raw_memcpy_write", "raw_memcpy_read"):
            rates(row[key], True)
        assert row["write"]["mb_per_s"] == pytest.approx(
            row["write"]["ops_per_s"] * row["size"] / 1e6)
    for key in ("peek32", "poke32", "peek64", "poke64"):
        rates(obj[key], False)
    assert "table" not in obj
    assert [row["size"] for row in obj["ring"]] == [64, 1024]
    for row in obj["ring"]:
        rates(row, True)
        assert row["mb_per_s"] == pytest.approx(row["ops_per_s"] * row["size"] / 1e6)


def test_ring_row_at_unaligned_offset(rfm, net):
    """The ring goes to the next 64-byte boundary; it fits after OFF as the transfers do."""
    obj = ok(rfm("-u", big(net, 0), "bench", "--duration", "1", "--offset",
                 str(256 * 1024 - 65536 - 8 * 3), "--json")).json()
    assert len(obj["ring"]) == 2


def test_text(rfm, net):
    # No node named: the first id of those kept for tools.
    lines = ok(rfm("-u", net.uri, "bench", "--duration", "1")).out.splitlines()
    assert lines[0] == "rfm bench: shm backend, node 240, 1 ms per figure"
    assert [int(line.split()[0]) for line in lines[2:7]] == SIZES
    assert [line.split()[0] for line in lines[7:11]] == ["peek32", "poke32", "peek64", "poke64"]
    assert [line.split()[:3] for line in lines[-2:]] == [["ring", "64", "B"],
                                                         ["ring", "1024", "B"]]
    assert all(line.endswith("MB/s (publish + consume)") for line in lines[-2:])


def test_table_path(rfm, net, tmp_path):
    layout = tmp_path / "bench.yaml"
    layout.write_text(LAYOUT)
    obj = ok(rfm("-u", big(net, 2), "bench", "--duration", "1", "--offset", "0x10000",
                 "--layout", str(layout), "--json")).json()
    assert sorted(obj["table"]) == ["record_read", "record_write", "var_get", "var_set"]
    for fig in obj["table"].values():
        rates(fig, False)
    # Named ones; and the values were written back unchanged.
    ok(rfm("-u", big(net, 2), "set", "--layout", str(layout), "mine.mode", "2"))
    ok(rfm("-u", big(net, 2), "bench", "--duration", "1", "--offset", "0x10000",
           "--layout", str(layout), "--var", "mine.mode", "--record", "mine.state"))
    got = stale(rfm("-u", big(net, 3), "get", "--layout", str(layout), "mine.mode", "--json"), 2)
    assert got.json()["value"] == 2


def test_table_path_needs_a_writable_variable(rfm, net, tmp_path):
    layout = tmp_path / "bench.yaml"
    layout.write_text(LAYOUT)
    failed(rfm("-u", big(net, 5), "bench", "--duration", "1", "--offset", "0x10000",
               "--layout", str(layout)), "no variable or record that node 5 writes")
    failed(rfm("-u", big(net, 2), "bench", "--duration", "1", "--offset", "0x10000",
               "--layout", str(layout), "--var", "nope"), "rfm: ")


def test_window_too_small(rfm, net):
    failed(rfm("-u", net.uri, "bench", "--duration", "1", "--offset", "0x8000"),
           "65536 bytes at offset 0x8000 lie outside the 65536-byte window")


@pytest.mark.parametrize("args,message", [
    (("--duration", "0"), "at least 1 ms"),
    (("--duration", "60001"), "duration"),
    (("--duration", "x"), "duration"),
    (("--offset", "4"), "not a multiple of 8"),
    (("--var", "a.b"), "need --layout"),
    (("--bogus",), "unknown option '--bogus'"),
    (("extra",), "argument"),
])
def test_bad_options(rfm, net, args, message):
    usage_error(rfm("-u", net.uri, "bench", *args), message, "bench")


def test_layout_keeps_other_nodes_regions(rfm, net, tmp_path):
    """The README's `bench --layout`: it used to write 64 KiB from offset 0,
    through the region of node 1. Now only node 2's own region, restored."""
    layout = tmp_path / "bench.yaml"
    layout.write_text(LAYOUT)
    ok(rfm("-u", big(net, 1), "set", "--layout", str(layout), "theirs.word", "1234"))
    ok(rfm("-u", big(net, 2), "set", "--layout", str(layout), "mine.gain", "2.5"))
    obj = ok(rfm("-u", big(net, 2), "bench", "--duration", "1", "--layout", str(layout),
                 "--json")).json()
    got = stale(rfm("-u", big(net, 3), "get", "--layout", str(layout), "theirs.word"), 1)
    assert got.out.strip() == "1234"
    got = stale(rfm("-u", big(net, 3), "get", "--layout", str(layout), "mine.gain"), 2)
    assert got.out.strip() == "2.5"
    assert (obj["offset"], obj["length"]) == (0, 0x100)
    assert [row["size"] for row in obj["bandwidth"]] == [4, 64, 256]
    assert obj["interrupted"] is False


@pytest.mark.parametrize("how", ["option", "environment"])
def test_refuses_other_nodes_region(rfm, net, tmp_path, how):
    layout = tmp_path / "bench.yaml"
    layout.write_text(LAYOUT)
    args = ["--layout", str(layout)] if how == "option" else []
    env = {"RFM_LAYOUT": str(layout)} if how == "environment" else None
    r = rfm("-u", big(net, 2), "bench", "--duration", "1", "--offset", "0",
            "--length", "0x200", *args, env=env)
    message = "refusing to write at 0x100: region 'theirs' belongs to node 1, this is node 2"
    failed(r, message)
    # fill words the same refusal.
    failed(rfm("-u", big(net, 2), "fill", "0x100", "8", "--pattern", "zero",
               env={"RFM_LAYOUT": str(layout)}),
           message)


def test_layout_without_own_region(rfm, net, tmp_path):
    layout = tmp_path / "bench.yaml"
    layout.write_text(LAYOUT)
    failed(rfm("-u", big(net, 5), "bench", "--duration", "1", "--layout", str(layout)),
           "the layout has no region that node 5 writes")


def test_length_limits_the_rows(rfm, net):
    obj = ok(rfm("-u", net.uri, "bench", "--duration", "1", "--offset", "0x100",
                 "--length", "4K", "--json")).json()
    assert [row["size"] for row in obj["bandwidth"]] == [4, 64, 256, 4096]
