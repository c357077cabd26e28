# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared fixtures: a private network per test, nodes on it, and peer processes."""

import itertools
import os
import subprocess
import sys
from typing import IO

import pytest

import rfm

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
WINDOW = 64 * 1024

_serial = itertools.count()

#: A layout with one record, plant.state (cycle: u32), written by node 0.
RECORD_LAYOUT = """\
version: 1
window: 64K
regions:
  - name: plant
    offset: 0x0
    size: 0x100
    writer: 0
    records:
      - name: state
        variables:
          - { name: cycle, type: u32 }
"""


def network_name(tag="t"):
    """A network name no other test (or test run) uses."""
    return f"pytest-{os.getpid()}-{tag}-{next(_serial)}"


@pytest.fixture
def name():
    """A private network name; the network is destroyed after the test."""
    net = network_name()
    yield net
    try:
        rfm.destroy(f"shm:{net}", force=True)
    except rfm.NotFound:
        pass


@pytest.fixture
def uri(name):
    """URI of a private 64 KiB network (no node id: the first free one)."""
    return f"shm:{name}?size={WINDOW}"


@pytest.fixture
def node(uri):
    """A node on the private network, closed after the test."""
    with rfm.open(uri) as n:
        yield n


class Peer:
    """Another process on the network, driven line by line (see peer.py).

    Every exchange is a request and its reply, so the test always knows what
    the peer has done; the peer is stopped by the PID recorded at start.
    """

    def __init__(self, uri):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "peer.py"), uri],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[str] = self.proc.stdin
        self.stdout: IO[str] = self.proc.stdout
        self.pid = self.proc.pid
        reply = self._reply()
        if reply[0] != "ready":
            self.stop()
            raise RuntimeError(f"peer failed to open {uri}: {' '.join(reply)}")
        self.node_id = int(reply[1])

    def _reply(self):
        line = self.stdout.readline()
        if not line:
            raise RuntimeError(f"peer {self.pid} exited with {self.proc.wait()}")
        return line.split(maxsplit=2)

    def call(self, *words):
        self.stdin.write(" ".join(str(w) for w in words) + "\n")
        self.stdin.flush()
        reply = self._reply()
        if reply[0] == "error":
            raise rfm.error_class(int(reply[1]))(int(reply[1]), reply[2].rstrip("\n"))
        return reply

    def poke32(self, offset, value):
        self.call("poke32", offset, value)

    def peek32(self, offset):
        return int(self.call("peek32", offset)[1])

    def write(self, offset, data):
        self.call("write", offset, data.hex())

    def read(self, offset, length):
        reply = self.call("read", offset, length)
        return bytes.fromhex(reply[1]) if len(reply) > 1 else b""

    def wait32(self, offset, value, timeout=10.0):
        """Have the peer wait until the word at offset equals value."""
        return self.call("wait32", offset, value, timeout)[0] == "ok"

    def close(self):
        """Close the node, let the process exit, and return its status."""
        self.call("close")
        self.stdin.close()
        status = self.proc.wait(timeout=10)
        self.stdout.close()
        return status

    def kill(self):
        """Kill the process (SIGKILL) as a crash would, and reap it."""
        self.proc.kill()
        self.proc.wait(timeout=10)
        self.stdin.close()
        self.stdout.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for stream in (self.stdin, self.stdout):
            if not stream.closed:
                stream.close()


@pytest.fixture
def peers():
    """Factory of Peer processes; any still running at the end are killed."""
    started = []

    def start(uri):
        peer = Peer(uri)
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.stop()


def sanitized():
    """True under AddressSanitizer, where RSS says nothing about leaks."""
    return os.environ.get("RFM_TEST_SANITIZED") == "1"
