# SPDX-License-Identifier: LGPL-2.1-or-later
"""pytest fixtures for test benches on reflective-memory networks.

Installed with the package (entry point ``pytest11``: ``rfm``), so a test
file uses them without a conftest.py::

    import pytest

    pytestmark = pytest.mark.rfm_layout("rig.yaml")      # relative to the test file

    def test_plant_answers(rfm_network, rfm_table, rfm_peer):
        plant = rfm_peer.python("plant.py", node=1)      # waits for its "ready" line
        rfm_table["control.mode"] = 2
        ...

Every test gets a **private network** (``rfm_network``): a name no other
test, run or user shares, on ``shm:`` unless asked otherwise, removed after
the test whatever its outcome, together with the nodes opened through it
and the peer processes started for it. Fixtures:

``rfm_network``
    the :class:`Network`: ``.uri(node=None, **params)``, ``.open(node=None,
    **params)`` (nodes closed after the test), ``.backend``, ``.name``,
    ``.size``.
``rfm_uri``
    the network's URI without a node id (the first free one).
``rfm_node``
    a node on it (the first free id), closed after the test.
``rfm_layout``
    the :class:`rfm.Layout` of the ``rfm_layout`` marker (a file name,
    relative to the test's file, or the layout's text) or of the
    ``rfm_layout`` ini option (relative to the rootdir). With a layout the
    network's window is the layout's.
``rfm_table``
    ``rfm_node.attach_layout(rfm_layout)``.
``rfm_peer``
    starts another process on the network (the plant, a simulator), see
    :class:`PeerStarter`: ``rfm_peer(["prog", ...], node=1)`` or
    ``rfm_peer.python("plant.py", node=1)``. It runs with ``RFM_URI`` set
    to the network's URI (with ``node=`` when given), so a program that
    opens ``rfm.open()`` / ``rfm_open(NULL)`` joins the private network.
    The fixture returns once the peer printed its ready line (a line whose
    first word is ``ready``, on stdout) and stops it by its PID after the
    test (SIGTERM, then SIGKILL).
``rfm_backend``
    the backend name.

The backend: ``shm`` by default; ``--rfm-backend=dds`` (or
``RFM_TEST_BACKEND=dds``, or the ``rfm_backend`` ini option) for the whole
run, ``@pytest.mark.rfm_backend("dds")`` for a test or module. ``dds:``
needs a librfm built with Cyclone DDS (tests skip, saying so, elsewhere);
its private network is a partition of its own in a DDS domain of this
process's own, on the loopback interface unless ``CYCLONEDDS_URI`` is set.
``dev:`` and ``rfm2g:`` are cards: a card network is one for the whole
machine and cannot be made private, so a test asking for them is skipped;
open their URIs yourself.
"""

from __future__ import annotations

import itertools
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from typing import IO, Any, Iterator, List, Mapping, Optional, Sequence, Union

import pytest

import rfm

#: Backends on which the plugin makes private networks.
BACKENDS = ("shm", "dds")
#: Window of a network without a layout (or a ``rfm_window`` marker or option).
DEFAULT_WINDOW = 1 << 20
#: How long a peer may take to say it is ready, or to stop, before it fails the test.
PEER_GUARD = 60.0

# Cyclone on the loopback interface only, unicast, for the dds: networks of
# tests (unless the user configured Cyclone): traffic stays on this machine.
_DDS_LOOPBACK = ('<CycloneDDS><Domain Id="any"><General><Interfaces>'
                 '<NetworkInterface name="lo"/></Interfaces>'
                 '<AllowMulticast>false</AllowMulticast></General>'
                 '<Discovery><ParticipantIndex>auto</ParticipantIndex>'
                 '<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>'
                 '<Peers><Peer Address="127.0.0.1"/></Peers></Discovery>'
                 '</Domain></CycloneDDS>')

_serial = itertools.count()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rfm", "reflective-memory networks (rfm)")
    group.addoption("--rfm-backend", metavar="NAME", default=None,
                    help="backend of the private networks: shm (default) or dds "
                         "(also RFM_TEST_BACKEND)")
    parser.addini("rfm_backend", "backend of the private networks (shm, dds)", default="")
    parser.addini("rfm_layout", "layout file of the rfm_layout fixture (relative to the rootdir)",
                  default="")
    parser.addini("rfm_window", "window size of networks without a layout, e.g. 1M",
                  default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "rfm_backend(name): the backend of this test's private network (shm, dds)")
    config.addinivalue_line(
        "markers", "rfm_layout(path_or_text): the layout of rfm_layout/rfm_table "
        "(a path relative to the test file, or YAML text)")
    config.addinivalue_line(
        "markers", "rfm_window(size): the window of this test's network, e.g. 65536 or '64K'")


def _marker_arg(request: pytest.FixtureRequest, name: str) -> Any:
    marker = request.node.get_closest_marker(name)
    if marker is None:
        return None
    if len(marker.args) != 1:
        raise pytest.UsageError(f"@pytest.mark.{name} takes one argument")
    return marker.args[0]


def _unavailable(backend: str) -> Optional[str]:
    """Why the plugin cannot make a private network on ``backend`` here (None: it can)."""
    if backend == "shm":
        return None
    if backend == "dds":
        try:
            rfm.destroy("dds:rfm-pytest-probe")
        except rfm.URIError:
            return ("librfm was built without Cyclone DDS (Debian: cyclonedds-dev "
                    "cyclonedds-tools, then configure again)")
        except rfm.Error:
            pass
        return None
    if backend in ("dev", "rfm2g"):
        return (f"{backend}: networks are cards, one for the whole machine: the rfm plugin "
                "makes private networks on shm: and dds: only")
    return f"unknown backend {backend!r} (the rfm plugin knows {', '.join(BACKENDS)})"


class Network:
    """A private network for one test (the ``rfm_network`` fixture).

    Nodes opened with :meth:`open` are closed, and the network removed,
    when the test ends, passed or failed.
    """

    def __init__(self, backend: str, size: int, tag: str = "t") -> None:
        self.backend = backend
        self.size = size
        self.name = f"pytest-{os.getpid()}-{tag}-{next(_serial)}"
        self._nodes: List[rfm.Node] = []
        self._suffix = ""
        if backend == "dds":
            # Read by Cyclone when the process opens its first dds: node.
            os.environ.setdefault("CYCLONEDDS_URI", _DDS_LOOPBACK)
            self._suffix = f"&domain={20 + os.getpid() % 200}"

    def uri(self, node: Optional[int] = None, **params: object) -> str:
        """The network's URI, with ``node=`` and any other URI parameter given."""
        uri = f"{self.backend}:{self.name}?size={self.size}{self._suffix}"
        if node is not None:
            uri += f"&node={int(node)}"
        for key, value in params.items():
            uri += f"&{key}={value}"
        return uri

    def open(self, node: Optional[int] = None, **params: object) -> rfm.Node:
        """Open a node (``rfm.open(self.uri(node, **params))``), closed after the test."""
        handle = rfm.open(self.uri(node, **params))
        self._nodes.append(handle)
        return handle

    def close(self) -> None:
        """Close the nodes :meth:`open` made and remove the network."""
        nodes, self._nodes = self._nodes, []
        for handle in nodes:
            handle.close()
        if self.backend == "shm":
            try:
                rfm.destroy(f"shm:{self.name}", force=True)
            except rfm.NotFound:
                pass

    def __repr__(self) -> str:
        return f"<rfm pytest Network {self.uri()}>"


class Peer:
    """A process started by ``rfm_peer``: ``.proc`` (its subprocess.Popen),
    ``.pid``, ``.ready`` (the words of its ready line after ``ready``),
    ``.uri`` (its ``RFM_URI``)."""

    def __init__(self, args: Sequence[str], uri: str, ready_word: str,
                 env: Optional[Mapping[str, str]], cwd: Optional[str], guard: float) -> None:
        self.args = list(args)
        self.uri = uri
        child_env = dict(os.environ if env is None else env)
        child_env["RFM_URI"] = uri
        child_env.setdefault("PYTHONUNBUFFERED", "1")
        # stderr is the test's (pytest shows it with a failure); stdout is
        # read by the test (ready line, readline()): a peer that prints a
        # lot there must be read, or it blocks once the pipe is full.
        self.proc: subprocess.Popen[bytes] = subprocess.Popen(
            self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env, cwd=cwd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin: IO[bytes] = self.proc.stdin
        self._stdout: IO[bytes] = self.proc.stdout
        self.pid = self.proc.pid
        self._lines: queue.Queue[Optional[str]] = queue.Queue()
        self._ended = False
        self._reader = threading.Thread(target=self._read_lines, daemon=True,
                                        name=f"rfm-peer-{self.pid}")
        self._reader.start()
        self.ready: Optional[List[str]] = None
        try:
            self.ready = self._wait_ready(ready_word, guard)
        except BaseException:
            self.stop()
            raise

    def _read_lines(self) -> None:
        """The reader thread: every line of the peer's stdout into the queue,
        then None at its end. A thread, not select(): pipes are not
        selectable on every system, and a buffered reader hides lines from
        select() besides."""
        try:
            for raw in self._stdout:
                self._lines.put(raw.rstrip(b"\n").decode(errors="replace"))
        except (OSError, ValueError):
            pass  # stop() closed the pipe under a peer's child that kept it open
        self._lines.put(None)

    def _line(self, timeout: float) -> Optional[str]:
        """The next line of stdout (without its newline), None at its end;
        TimeoutError when none comes within ``timeout`` seconds."""
        if self._ended:
            return None
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"peer {self.pid} printed no whole line within "
                               f"{timeout:g} s") from None
        if line is None:
            self._ended = True
        return line

    def _wait_ready(self, word: str, guard: float) -> List[str]:
        end = time.monotonic() + guard
        seen: List[str] = []
        while True:
            try:
                line = self._line(max(0.0, end - time.monotonic()))
            except TimeoutError:
                raise RuntimeError(f"peer {self._show()} (pid {self.pid}) said no "
                                   f"'{word}' line within {guard:g} s; it printed: "
                                   f"{seen!r}") from None
            if line is None:
                status = self.proc.wait(timeout=guard)
                raise RuntimeError(f"peer {self._show()} exited with status {status} before "
                                   f"it was ready; it printed {seen!r} (its stderr: below)")
            words = line.split()
            if words[:1] == [word]:
                return words[1:]
            seen.append(line)

    def _show(self) -> str:
        return " ".join(shlex.quote(a) for a in self.args)

    def readline(self, timeout: float = PEER_GUARD) -> str:
        """The peer's next line on stdout (without the newline); raises
        TimeoutError when none comes within ``timeout`` s, EOFError at its end."""
        line = self._line(timeout)
        if line is None:
            raise EOFError(f"peer {self.pid} closed its output")
        return line

    def send(self, line: str) -> None:
        """Write ``line`` (and a newline) to the peer's stdin."""
        self._stdin.write(line.encode() + b"\n")
        self._stdin.flush()

    def wait(self, timeout: float = PEER_GUARD) -> int:
        """Wait for the peer to exit by itself and return its status."""
        return self.proc.wait(timeout=timeout)

    def stop(self, timeout: float = 10.0) -> Optional[int]:
        """Stop the peer by its PID (SIGTERM, then SIGKILL after ``timeout`` s;
        on Windows TerminateProcess),
        reap it and close its pipes; returns its exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        try:
            self._stdin.close()
        except BrokenPipeError:
            pass
        self._reader.join(timeout)   # ends with the peer's output (its last writer is gone)
        self._stdout.close()
        return self.proc.returncode


class PeerStarter:
    """The ``rfm_peer`` fixture: starts peers on the test's network and stops
    every one still running when the test ends."""

    def __init__(self, network: Network, base: str) -> None:
        self._network = network
        self._base = base
        self._peers: List[Peer] = []

    def __call__(self, args: Sequence[str], node: Optional[int] = None, ready: str = "ready",
                 env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None,
                 guard: float = PEER_GUARD, **params: object) -> Peer:
        """Start ``args`` (a list, as for subprocess) with ``RFM_URI`` set to
        the network's URI (``node=`` and other URI parameters added) and
        return its :class:`Peer` once it printed a line starting with
        ``ready``. Relative paths in ``args`` and ``cwd`` are relative to
        the test file's directory."""
        peer = Peer(args, self._network.uri(node, **params), ready, env,
                    cwd if cwd is not None else self._base, guard)
        self._peers.append(peer)
        return peer

    def python(self, script: Union[str, "os.PathLike[str]"], *args: object,
               **kwargs: Any) -> Peer:
        """Start the Python program ``script`` (relative to the test file)
        with this interpreter: ``rfm_peer.python("plant.py", node=1)``."""
        return self([sys.executable, os.path.join(self._base, os.fspath(script)),
                     *map(str, args)], **kwargs)

    def stop_all(self) -> None:
        peers, self._peers = self._peers, []
        for peer in peers:
            peer.stop()


def _size(value: Union[int, str]) -> int:
    if isinstance(value, int):
        return value
    text = str(value).strip()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale != 1 else text, 0) * scale


@pytest.fixture
def rfm_backend(request: pytest.FixtureRequest) -> str:
    """The backend of this test's private network (skips when the machine lacks it)."""
    backend = (_marker_arg(request, "rfm_backend")
               or request.config.getoption("rfm_backend")
               or os.environ.get("RFM_TEST_BACKEND")
               or request.config.getini("rfm_backend")
               or "shm")
    why = _unavailable(backend)
    if why:
        pytest.skip(why)
    return backend


def _layout_source(request: pytest.FixtureRequest) -> Optional[rfm.Layout]:
    source = _marker_arg(request, "rfm_layout")
    if source is not None:
        text = os.fspath(source)
        if "\n" in text:
            return rfm.Layout.from_string(text, f"{request.node.name} layout")
        return rfm.Layout.load(os.path.join(os.path.dirname(str(request.node.fspath)), text))
    path = request.config.getini("rfm_layout")
    if path:
        return rfm.Layout.load(os.path.join(str(request.config.rootpath), path))
    return None


@pytest.fixture
def rfm_layout(request: pytest.FixtureRequest) -> rfm.Layout:
    """The test's layout (``@pytest.mark.rfm_layout`` or the ``rfm_layout`` ini option)."""
    layout = _layout_source(request)
    if layout is None:
        raise pytest.UsageError(
            "rfm_layout: give the test a layout with @pytest.mark.rfm_layout('file.yaml') "
            "or the rfm_layout ini option")
    return layout


@pytest.fixture
def rfm_network(request: pytest.FixtureRequest, rfm_backend: str) -> Iterator[Network]:
    """A private network, removed (with its nodes) after the test."""
    window = _marker_arg(request, "rfm_window") or request.config.getini("rfm_window")
    if window:
        size = _size(window)
    elif "rfm_layout" in request.fixturenames or request.node.get_closest_marker("rfm_layout"):
        size = request.getfixturevalue("rfm_layout").window_size
    else:
        size = DEFAULT_WINDOW
    network = Network(rfm_backend, size)
    yield network
    network.close()


@pytest.fixture
def rfm_uri(rfm_network: Network) -> str:
    """The private network's URI (no node id: the first free one)."""
    return rfm_network.uri()


@pytest.fixture
def rfm_node(rfm_network: Network) -> rfm.Node:
    """A node on the private network, closed after the test."""
    return rfm_network.open()


@pytest.fixture
def rfm_table(rfm_node: rfm.Node, rfm_layout: rfm.Layout) -> Iterator[rfm.Table]:
    """The layout on ``rfm_node`` (``rfm_table["region.var"]``)."""
    with rfm_node.attach_layout(rfm_layout) as table:
        yield table


@pytest.fixture
def rfm_peer(request: pytest.FixtureRequest, rfm_network: Network) -> Iterator[PeerStarter]:
    """Starts peer processes on the network; each is stopped after the test."""
    starter = PeerStarter(rfm_network, os.path.dirname(str(request.node.fspath)))
    # Torn down before rfm_network (it depends on it): peers stop before the network goes.
    yield starter
    starter.stop_all()
