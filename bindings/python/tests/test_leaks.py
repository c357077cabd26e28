# SPDX-License-Identifier: LGPL-2.1-or-later
"""No leaks: thousands of opens, views, reads and failures leave fds and memory flat."""

import os

import pytest

import rfm
from conftest import sanitized

PAGE = os.sysconf("SC_PAGESIZE")
# Generous next to what a leak of these loops would cost (10k x a mapping,
# a segment fd, an exception or a bytes object), tight next to normal jitter.
RSS_SLACK = 4 << 20


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def flat(loop, count=10_000):
    """Run loop() count times after a warm-up; return (fd growth, RSS growth)."""
    for _ in range(count // 10):
        loop()
    fds, mem = open_fds(), rss()
    for _ in range(count):
        loop()
    return open_fds() - fds, rss() - mem


def check(fd_growth, rss_growth):
    assert fd_growth == 0
    if not sanitized():  # ASan's quarantine holds freed memory on purpose
        assert rss_growth < RSS_SLACK, f"RSS grew by {rss_growth} bytes"


def test_open_close(uri):
    def loop():
        with rfm.open(uri) as node:
            node.poke32(0, 1)

    check(*flat(loop))


def test_views(node):
    def loop():
        with node.memory as view:
            view[0] = 1
        node.memory  # dropped without release: the weakref list is pruned

    check(*flat(loop))
    assert rfm._rfm_swig._handle_state(node._h)[2] == 0


def test_reads_writes_and_info(node):
    data = bytes(4096)

    def loop():
        node.write(0, data)
        node.read(0, 4096)
        node.info()

    check(*flat(loop))


def test_failures(uri, node):
    def loop():
        for call in (lambda: node.peek32(2), lambda: node.peek32(-1),
                     lambda: node.poke8(0, 999), lambda: rfm.open("nosuch:x")):
            try:
                call()
            except (rfm.Error, ValueError):
                pass
            else:
                pytest.fail("no error")

    check(*flat(loop))


def test_failed_open_leaves_nothing(name):
    uri = f"shm:{name}?node=1&size=64K"
    with rfm.open(uri):
        def loop():
            try:
                rfm.open(uri)
            except rfm.Busy:
                pass

        check(*flat(loop, count=2000))


def test_events_send_wait_fetch_and_failures(uri):
    with rfm.open(uri) as a, rfm.open(uri) as b:
        b.enable_events()

        def loop():
            a.send_event(b.node_id, 1, 5)
            a.send_event(b.node_id, 2, 6)
            b.wait_event(timeout=5)
            b.fetch_events(8, timeout=5)
            try:
                b.wait_event(timeout=0)
            except rfm.WouldBlock:
                pass
            b.event_stats()

        check(*flat(loop))


def test_tables_open_get_set_records_and_layout_errors(uri):
    text = ("version: 1\nwindow: 64K\nregions:\n  - name: r\n    offset: 0\n    size: 256\n"
            "    writer: 0\n    variables: [ { name: x, type: u32, max: 10 }, "
            "{ name: s, type: string, length: 8 } ]\n"
            "    records: [ { name: rec, variables: [ { name: a, type: f64, count: 4 } ] } ]\n")
    layout = rfm.Layout.from_string(text)
    with rfm.open(uri + "&node=0") as node:
        def loop():
            with node.attach_layout(layout) as table:
                table["r.x"] = 3
                table["r.s"] = "abc"
                table["r.rec"] = {"a": [1.0, 2.0, 3.0, 4.0]}
                assert table["r.rec"]["a"][3] == 4.0 and table["r.s"] == "abc"
                try:
                    table["r.x"] = 11
                except rfm.RangeError:
                    pass
            try:
                rfm.Layout.from_string("version: 1\nwindow: 1\n")
            except rfm.LayoutError:
                pass

        check(*flat(loop, count=3000))
