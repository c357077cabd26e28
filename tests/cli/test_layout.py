# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm layout check|header, get, set, watch: variables by name."""
import json
import re
import os
import subprocess

import pytest

from conftest import failed, ok, stale, usage_error

EXAMPLES = os.path.join(os.environ.get("RFM_SRCDIR", ""), "examples", "layouts")

LAYOUT = """\
version: 1
name: cli
window: 64K
regions:
  - name: ctl
    offset: 0
    size: 0x100
    writer: 1
    variables:
      - { name: mode, type: u32, min: 0, max: 3 }
      - { name: gains, type: f64, count: 3, unit: V }
      - { name: label, type: string, length: 8 }
  - name: vme
    offset: 0x100
    size: 0x100
    writer: 2
    byte_order: big
    variables:
      - { name: word, type: u32 }
    records:
      - name: rec
        variables:
          - { name: n, type: u16 }
          - { name: t, type: f32 }
"""


@pytest.fixture
def layout(tmp_path):
    path = tmp_path / "cli.yaml"
    path.write_text(LAYOUT)
    return str(path)


def test_check_valid_text_and_json(rfm, layout):
    r = ok(rfm("layout", "check", layout))
    assert r.out == f"{layout}: valid: 2 regions, 1 records, 6 variables in a 65536-byte window\n"
    obj = ok(rfm("layout", "check", layout, "--json")).json()
    assert obj == {"file": layout, "valid": True, "name": "cli", "window": 65536,
                   "regions": 2, "records": 1, "variables": 6}
    listing = ok(rfm("layout", "check", "--list", layout)).out.splitlines()
    assert "0x00000008       24    f64[3]     ctl.gains V" in listing
    assert "0x00000100        4    u32        vme.word (big-endian)" in listing


def test_check_reports_every_problem_with_positions(rfm, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nwindow: 4K\nregions:\n"
                   "  - { name: a, offset: 0, size: 0x100, writer: 0, colour: red }\n"
                   "  - { name: b, offset: 0x80, size: 0x100, writer: 300 }\n")
    r = rfm("layout", "check", str(bad))
    assert r.rc == 1 and r.out == ""
    lines = r.err.splitlines()
    assert lines == [
        f"rfm: {bad}:4:51: unknown key 'colour' in a region (expected name, offset, size, "
        "writer, description, byte_order, variables, records, ring)",
        f"rfm: {bad}:5:5: region 'b' [0x80, 0x180) overlaps region 'a' [0x0, 0x100)",
        f"rfm: {bad}:5:51: region 'b': writer node 300 is out of range 0..255",
    ]
    r = rfm("layout", "check", str(bad), "--json")
    assert r.rc == 1
    obj = r.json()
    assert obj["valid"] is False
    assert [(p["line"], p["column"]) for p in obj["problems"]] == [(4, 51), (5, 5), (5, 51)]


def test_check_missing_file(rfm):
    failed(rfm("layout", "check", "/nonexistent.yaml"), "/nonexistent.yaml")


def test_header_to_stdout_and_file_compiles(rfm, layout, tmp_path):
    text = ok(rfm("layout", "header", layout)).out
    assert "#define CLI_CTL_GAINS_OFFSET UINT64_C(0x8)" in text
    assert "_Static_assert(sizeof(struct cli_vme) == CLI_VME_SIZE" in text
    out = tmp_path / "cli.h"
    assert ok(rfm("layout", "header", layout, "-o", str(out), "--prefix", "x")).out == ""
    header = out.read_text()
    assert "struct x_ctl {" in header
    src = tmp_path / "use.c"
    src.write_text('#include "cli.h"\nint main(void) { return (int)X_CTL_MODE_OFFSET; }\n')
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-c", str(src), "-o",
                    str(tmp_path / "use.o")], check=True)


def test_header_failure_leaves_no_file(rfm, layout, tmp_path):
    out = tmp_path / "x.h"
    failed(rfm("layout", "header", layout, "-o", str(out), "--prefix", "9x"), "prefix")
    assert not out.exists()


def test_layout_usage_errors(rfm, layout):
    usage_error(rfm("layout", "lint", layout), "unknown action 'lint'", "layout")
    usage_error(rfm("layout", "check"), "", "layout")
    usage_error(rfm("layout", "check", layout, "-o", "x.h"), "--output", "layout")


def test_set_then_get_across_nodes(rfm, net, layout):
    assert ok(rfm("-u", net.node(1), "set", "--layout", layout, "ctl.gains", "1, 2.5, -3")).out == ""
    # Node 1 wrote them and exited: the values are there, marked stale (exit 4).
    assert stale(rfm("-u", net.node(3), "get", "ctl.gains", "--layout", layout),
                 1).out == "[1, 2.5, -3]\n"
    ok(rfm("-u", net.node(1), "set", "ctl.gains[1]", "7", "--layout", layout))
    ok(rfm("-u", net.node(1), "set", "ctl.label", "pump", "--layout", layout))
    r = stale(rfm("-u", net.uri, "get", "ctl.gains", "ctl.label", "ctl.mode", "--layout",
                  layout), 1)
    gone = "  [stale: writer node 1 is not on the network]"
    assert r.out == (f'ctl.gains = [1, 7, -3] V{gone}\nctl.label = "pump"{gone}\n'
                     f'ctl.mode = 0{gone}\n')
    lines = stale(rfm("-u", net.uri, "--json", "get", "ctl.gains", "ctl.label",
                      "--layout", layout), 1).out.splitlines()
    why = {"state": "stale", "stale_reason": "writer node 1 is not on the network"}
    assert [json.loads(x) for x in lines] == [
        {"name": "ctl.gains", "type": "f64", "unit": "V", "value": [1.0, 7.0, -3.0], **why},
        {"name": "ctl.label", "type": "string", "value": "pump", **why},
    ]


def test_layout_from_environment(rfm, net, layout):
    env = {"RFM_LAYOUT": layout}
    ok(rfm("-u", net.node(2), "set", "vme.word", "0x01020304", env=env))
    assert stale(rfm("-u", net.uri, "get", "vme.word", env=env), 2).out == "16909060\n"
    # Big-endian in the window.
    assert ok(rfm("-u", net.uri, "peek8", "0x100")).out == "0x01\n"
    usage_error(rfm("-u", net.uri, "get", "vme.word"), "no layout", "get")


def test_set_refusals(rfm, net, layout):
    failed(rfm("-u", net.node(2), "set", "ctl.mode", "1", "--layout", layout),
           "region ctl is written by node 1 only")
    failed(rfm("-u", net.node(1), "set", "ctl.mode", "7", "--layout", layout),
           "7 is outside its range 0..3")
    failed(rfm("-u", net.node(1), "set", "ctl.mode", "two", "--layout", layout),
           "'two' is not an integer")
    failed(rfm("-u", net.node(1), "set", "ctl.nope", "1", "--layout", layout),
           "no variable named 'ctl.nope'")
    failed(rfm("-u", net.node(1), "set", "ctl.label", "much too long", "--layout", layout),
           "do not fit")
    assert stale(rfm("-u", net.uri, "get", "ctl.mode", "--layout", layout), 1).out == "0\n"
    # --force writes into another node's region.
    ok(rfm("-u", net.node(2), "set", "ctl.mode", "3", "--force", "--layout", layout))
    assert stale(rfm("-u", net.uri, "get", "ctl.mode", "--layout", layout), 1).out == "3\n"


def test_record_members(rfm, net, layout):
    obj = ok(rfm("-u", net.node(2), "--json", "set", "vme.rec.t", "1.5",
                 "--layout", layout)).json()
    assert obj == {"name": "vme.rec.t", "type": "f32", "value": 1.5}
    # One publish: the sequence word (big-endian) went from 0 to 2.
    assert ok(rfm("-u", net.uri, "peek32", "0x108")).out == "0x02000000\n"
    assert stale(rfm("-u", net.uri, "get", "vme.rec.t", "--layout", layout), 2).out == "1.5\n"


def test_watch_marks_changes(rfm, net, layout):
    ok(rfm("-u", net.node(1), "set", "ctl.mode", "1", "--layout", layout))
    r = ok(rfm("-u", net.uri, "watch", "ctl", "--count", "2", "--interval", "1",
               "--layout", layout))
    blocks = r.out.split("\n\n")
    assert len(blocks) == 2
    gone = "  [stale: writer node 1 is not on the network]"
    assert "  ctl.mode = 1" + gone in blocks[0].splitlines()
    assert blocks[0].splitlines()[1] == "  ctl.gains = [0, 0, 0] V" + gone
    lines = ok(rfm("-u", net.uri, "--json", "watch", "ctl.mode", "vme.rec",
                   "--count", "2", "--interval", "1", "--layout", layout)).out.splitlines()
    first = json.loads(lines[0])
    # Wall-clock time of the refresh, UTC, ISO 8601.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", first.pop("time"))
    assert first == {"refresh": 1, "values": {"ctl.mode": 1, "vme.rec.n": 0, "vme.rec.t": 0.0},
                     "changed": [], "state": {"ctl.mode": "stale", "vme.rec.n": "stale",
                                              "vme.rec.t": "stale"}}
    assert json.loads(lines[1])["refresh"] == 2


def test_watch_sees_a_change_made_meanwhile(rfm, net, layout):
    """A watcher started first, a set, and the next refresh marks the change."""
    import sys
    env = dict(os.environ, RFM_LAYOUT=layout)
    env.pop("RFM_URI", None)
    proc = subprocess.Popen([os.environ["RFM_TOOL"], "-u", net.uri, "--json", "watch",
                             "ctl.mode", "--interval", "5"], stdout=subprocess.PIPE,
                            env=env, text=True)
    try:
        first = json.loads(proc.stdout.readline())     # the watcher is running
        assert first["values"] == {"ctl.mode": 0}
        ok(rfm("-u", net.node(1), "set", "ctl.mode", "2", "--layout", layout))
        while True:
            line = json.loads(proc.stdout.readline())
            if line["values"]["ctl.mode"] == 2:
                assert line["changed"] == ["ctl.mode"]
                break
            assert line["changed"] == []
    finally:
        proc.kill()
        proc.wait()
    assert sys is not None


def test_watch_usage(rfm, layout):
    usage_error(rfm("watch", "ctl.mode", "--count", "x", "--layout", layout), "--count", "watch")
    usage_error(rfm("watch", "--layout", layout), "", "watch")


def test_examples_are_valid(rfm):
    if not os.path.isdir(EXAMPLES):
        pytest.skip("RFM_SRCDIR not set")
    for name in sorted(os.listdir(EXAMPLES)):
        ok(rfm("layout", "check", os.path.join(EXAMPLES, name)))
