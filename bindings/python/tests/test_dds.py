# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: URIs through rfm.open(): each node its own copy, Node.flush()."""

import os

import pytest

import rfm

LOOPBACK = ('<CycloneDDS><Domain Id="any"><General><Interfaces>'
            '<NetworkInterface name="lo"/></Interfaces>'
            '<AllowMulticast>false</AllowMulticast></General>'
            '<Discovery><ParticipantIndex>auto</ParticipantIndex>'
            '<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>'
            '<Peers><Peer Address="127.0.0.1"/></Peers></Discovery>'
            '</Domain></CycloneDDS>')


@pytest.fixture
def dds_uri():
    # Read by Cyclone when this process opens its first dds: node: loopback only.
    os.environ.setdefault("CYCLONEDDS_URI", LOOPBACK)
    domain = 20 + os.getpid() % 200
    name = f"py-{os.getpid()}"
    try:
        rfm.destroy(f"dds:{name}")
    except rfm.Error as e:
        pytest.skip(f"librfm was built without Cyclone DDS: {e}")
    return lambda node: f"dds:{name}?node={node}&size=64K&domain={domain}&join=50"


def test_own_copies_and_flush(dds_uri):
    with rfm.open(dds_uri(1)) as a, rfm.open(dds_uri(2)) as b:
        assert a.backend == "dds"
        view = a.memory
        view[0x40:0x45] = b"local"
        a.poke32(0x80, 5)  # a library write goes out by itself
        assert b.peek32(0x80) == 5
        assert b.read(0x40, 5) == b"\0" * 5  # the view's store is a's own
        a.flush(0x40, 5)
        assert b.read(0x40, 5) == b"local"
        view.release()
