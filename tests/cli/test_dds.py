# SPDX-License-Identifier: LGPL-2.1-or-later
"""The rfm tool on dds: URIs, through the generic open path.

Each rfm run is a node of its own in its own process; tests/cli/hold-node
keeps a node alive beside them. Cyclone is kept on the loopback interface
and on a DDS domain of this run's own (CYCLONEDDS_URI, domain=), so no
traffic leaves the machine.
"""
import os

import pytest

from conftest import failed, ok, run_rfm

LOOPBACK = ('<CycloneDDS><Domain Id="any"><General><Interfaces>'
            '<NetworkInterface name="lo"/></Interfaces>'
            '<AllowMulticast>false</AllowMulticast></General>'
            '<Discovery><ParticipantIndex>auto</ParticipantIndex>'
            '<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>'
            '<Peers><Peer Address="127.0.0.1"/></Peers></Discovery>'
            '</Domain></CycloneDDS>')
DOMAIN = 20 + os.getpid() % 200


@pytest.fixture
def dds(monkeypatch, request):
    """A fresh dds: network name and its URIs, or a skip without Cyclone."""
    monkeypatch.setenv("CYCLONEDDS_URI", LOOPBACK)
    probe = run_rfm("-u", f"dds:probe?node=0&domain={DOMAIN}&join=0", "info")
    if "unknown scheme" in probe.err:
        pytest.skip("librfm was built without Cyclone DDS")
    name = f"cli-{os.getpid()}-{request.node.name}"[:60]

    def uri(query):
        return f"dds:{name}?{query}&domain={DOMAIN}&join=300"
    return uri


def test_info_names_the_backend(rfm, dds, hold_node):
    # rfm info only looks: it holds no id, and a network nobody holds
    # has nothing to read.
    failed(rfm("-u", dds("node=1&size=64K"), "info"),
           "an observer reads a network, it does not make one")
    hold_node(dds("node=1&size=64K"))
    out = ok(rfm("-u", dds("node=2"), "info")).out
    assert "backend:        dds" in out
    assert "node id:        none (an observer" in out
    assert "uri:            dds:" in out and "observe=1&size=65536" in out
    assert "nodes attached: 1 of 256" in out


def test_bad_domain_is_refused(rfm, dds):
    failed(rfm("-u", dds("node=1").replace(f"domain={DOMAIN}", "domain=231"), "info"),
           "must be a DDS domain id 0..230")


def test_a_node_in_another_process(rfm, dds, hold_node):
    held = hold_node(dds("node=1&size=64K"))
    assert held.node_id == 1
    # Seen attached (the observer rfm info is not counted); its id and its
    # window size are its own.
    assert "nodes attached: 1 of 256" in ok(rfm("-u", dds("node=2"), "info")).out
    failed(rfm("-u", dds("node=1"), "poke32", "0x40", "1"),
           f"node id 1 is in use by pid {held.proc.pid}")
    failed(rfm("-u", dds("node=3&size=128K"), "info"), "has a 65536-byte window")
    # A write from one short-lived node reaches the held node's copy; a
    # later node joins with that copy and reads it.
    ok(rfm("-u", dds("node=2"), "write", "0x40", "--string", "over dds"))
    out = ok(rfm("-u", dds("node=3"), "read", "0x40", "8")).out
    assert out == "over dds"
