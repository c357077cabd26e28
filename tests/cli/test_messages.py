# SPDX-License-Identifier: LGPL-2.1-or-later
"""Messages in the user's terms: options, URI parameters and commands, never
the C functions behind them (conftest checks every run's stderr for those;
these tests make the runs that used to show them)."""
from conftest import failed, ok, stale
from test_layout import LAYOUT

import pytest


@pytest.fixture
def layout(tmp_path):
    path = tmp_path / "cli.yaml"
    path.write_text(LAYOUT)
    return str(path)


def test_alignment_names_the_command(rfm, net):
    r = rfm("-u", net.uri, "peek32", "0x11")
    assert r.rc == 1, r
    assert r.err == "rfm: peek32: offset 0x11 is not a multiple of 4\n"


def test_owner_hint_names_force(rfm, net, layout):
    r = failed(rfm("-u", net.node(2), "set", "--layout", layout, "ctl.mode", "1"),
               "region ctl is written by node 1 only")
    assert "rfm set --force" in r.err
    ok(rfm("-u", net.node(2), "set", "--layout", layout, "ctl.mode", "1", "--force"))


def test_get_takes_a_record_name(rfm, net, layout):
    """`get vme.rec` used to fail: "open it with rfm_record_open()"."""
    ok(rfm("-u", net.node(2), "set", "--layout", layout, "vme.rec.n", "7"))
    # Node 2 wrote it and left: the values are stale (exit 4), and there.
    gone = "  [stale: writer node 2 is not on the network]"
    r = stale(rfm("-u", net.node(2), "get", "--layout", layout, "vme.rec"), 2)
    assert r.out == f"vme.rec.n = 7{gone}\nvme.rec.t = 0{gone}\n"
    lines = stale(rfm("-u", net.node(2), "get", "--layout", layout, "vme", "--json"), 2).out
    assert [line.split('"name":"')[1].split('"')[0] for line in lines.splitlines()] == \
        ["vme.word", "vme.rec.n", "vme.rec.t"]


def test_record_hint_names_commands(rfm, net, layout):
    r = failed(rfm("-u", net.node(2), "set", "--layout", layout, "vme.rec", "1"),
               "'vme.rec' is a record")
    assert "'rfm get'" in r.err


def test_loopback_hint_names_the_uri_parameter(rfm, net):
    r = failed(rfm("-u", net.node(3), "send", "--to", "3", "--event", "intr1"),
               "node 3 is this node")
    assert "loopback=1" in r.err
    ok(rfm("-u", net.node(3) + "&loopback=1", "send", "--to", "3", "--event", "intr1"))
