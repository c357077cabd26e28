# SPDX-License-Identifier: LGPL-2.1-or-later
"""Output files (-o, --hist-csv): written beside the target and renamed over
it when complete; a failure leaves the old file as it was, and what is not a
regular file the tool created (a device, a FIFO) is never removed.
"""
import os
import stat

import pytest

from conftest import failed, ok
from test_layout import LAYOUT


@pytest.fixture
def layout(tmp_path):
    path = tmp_path / "cli.yaml"
    path.write_text(LAYOUT)
    return str(path)


def leftovers(directory):
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


def test_bad_prefix_keeps_the_existing_file(rfm, layout, tmp_path):
    out = tmp_path / "x.h"
    out.write_text("/* the old header */\n")
    failed(rfm("layout", "header", layout, "-o", str(out), "--prefix", "9x"), "prefix")
    assert out.read_text() == "/* the old header */\n"
    assert leftovers(tmp_path) == []


def test_header_replaces_a_file_keeping_its_mode(rfm, layout, tmp_path):
    out = tmp_path / "x.h"
    out.write_text("old\n")
    os.chmod(out, 0o640)
    ok(rfm("layout", "header", layout, "-o", str(out)))
    assert "#define" in out.read_text()
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_header_through_a_symlink_keeps_the_link(rfm, layout, tmp_path):
    target = tmp_path / "real.h"
    target.write_text("old\n")
    link = tmp_path / "link.h"
    link.symlink_to(target)
    ok(rfm("layout", "header", layout, "-o", str(link)))
    assert link.is_symlink()
    assert "#define" in target.read_text()


def test_failure_into_a_fifo_leaves_the_fifo(rfm, layout, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # A reader, so that opening the writing end does not wait.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        failed(rfm("layout", "header", layout, "-o", str(fifo), "--prefix", "9x"), "prefix")
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_full_device_is_not_removed(rfm, layout, tmp_path):
    """`layout header -o /dev/full` as root used to unlink /dev/full; a
    private node of the same device stands in for it here."""
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    r = rfm("layout", "header", layout, "-o", str(full))
    assert r.rc == 1, r
    assert stat.S_ISCHR(os.lstat(full).st_mode)


def test_read_output_replaced_only_when_complete(rfm, net, tmp_path):
    out = tmp_path / "dump.bin"
    ok(rfm("-u", net.uri, "poke32", "0", "0x04030201"))
    ok(rfm("-u", net.uri, "read", "0", "4", "-o", str(out)))
    assert out.read_bytes() == b"\x01\x02\x03\x04"
    assert leftovers(tmp_path) == []


def test_failed_ping_keeps_the_old_histogram(rfm, net, tmp_path):
    csv = tmp_path / "event.csv"
    csv.write_text("low_ns,high_ns,count,cumulative\n")
    r = rfm("-u", net.node(1), "ping", "--count", "1", "--warmup", "0", "--timeout", "20",
            "--hist-csv", str(csv))
    assert r.rc == 3, r
    assert csv.read_text() == "low_ns,high_ns,count,cumulative\n"
    assert leftovers(tmp_path) == []
