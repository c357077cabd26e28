# SPDX-License-Identifier: LGPL-2.1-or-later
"""dds: URIs through rfm.open(): each node its own copy, Node.flush()."""

import pytest

import rfm

# The plugin's private dds: networks: a partition of this run's own in a DDS
# domain of its own, Cyclone on the loopback interface only.
pytestmark = pytest.mark.rfm_backend("dds")


@pytest.fixture
def dds_uri(rfm_network):
    return lambda node: rfm_network.uri(node)


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
