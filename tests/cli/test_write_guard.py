# SPDX-License-Identifier: LGPL-2.1-or-later
"""With $RFM_LAYOUT set, raw writes (poke, write, fill) stay inside the caller's regions."""
import pytest

from conftest import failed, ok

LAYOUT = """\
version: 1
window: 64K
regions:
  - { name: mine, offset: 0x000, size: 0x100, writer: 1 }
  - { name: theirs, offset: 0x100, size: 0x100, writer: 2 }
  - { name: also_mine, offset: 0x200, size: 0x100, writer: 1 }
"""


@pytest.fixture
def guarded(tmp_path):
    path = tmp_path / "guard.yaml"
    path.write_text(LAYOUT)
    return {"RFM_LAYOUT": str(path)}


def test_writes_inside_own_regions_pass(rfm, net, guarded):
    node = net.node(1)
    ok(rfm("-u", node, "poke32", "0x10", "0x1234", env=guarded))
    ok(rfm("-u", node, "write", "0xf0", "--hex", "00" * 16, env=guarded))
    ok(rfm("-u", node, "fill", "0x200", "0x100", "--pattern", "incr", env=guarded))
    assert ok(rfm("-u", node, "peek32", "0x10")).out.strip() == "0x00001234"


def test_poke_into_another_nodes_region_is_refused(rfm, net, guarded):
    node = net.node(1)
    failed(rfm("-u", node, "poke32", "0x100", "1", env=guarded),
           "region 'theirs' belongs to node 2, this is node 1")
    # Nothing was written.
    assert ok(rfm("-u", node, "peek32", "0x100")).out.strip() == "0x00000000"


def test_write_spanning_into_another_region_is_refused_whole(rfm, net, guarded):
    node = net.node(1)
    failed(rfm("-u", node, "write", "0xf8", "--hex", "ff" * 16, env=guarded),
           "refusing to write at 0x100")
    assert ok(rfm("-u", node, "peek64", "0xf8")).out.strip() == "0x0000000000000000"


def test_fill_over_unmapped_space_is_refused(rfm, net, guarded):
    failed(rfm("-u", net.node(1), "fill", "0x200", "0x200", "--pattern", "ones", env=guarded),
           "no region of")


def test_without_a_layout_raw_writes_are_free(rfm, net):
    ok(rfm("-u", net.node(1), "poke32", "0x100", "7"))
    assert ok(rfm("-u", net.node(1), "peek32", "0x100")).out.strip() == "0x00000007"
