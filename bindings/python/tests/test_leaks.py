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
