# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the CLI tests: running rfm, private networks, held nodes.

run-cli-tests.sh exports the paths of the programs under test:
RFM_TOOL (rfm), RFM_HOLD_NODE (tests/cli/hold-node), RFM_MANPAGE (man/rfm.1).
"""
import itertools
import json
import os
import re
import signal
import subprocess
import tempfile

import pytest

RFM = os.environ.get("RFM_TOOL")
HOLD_NODE = os.environ.get("RFM_HOLD_NODE")
MANPAGE = os.environ.get("RFM_MANPAGE")

# Where the tool's shm: networks are, as a path of this (Linux) host: the
# Windows tool's segment directory under wine is another (run-cli-wine.sh).
SHM_DIR = os.environ.get("RFM_TEST_SHM_DIR", "/dev/shm")

# Every network a test makes is small: the emulated default would be 64 MiB.
WINDOW = 64 * 1024

_names = itertools.count()


def _environment(extra=None):
    env = {k: v for k, v in os.environ.items() if k != "RFM_URI"}
    if extra:
        env.update(extra)
    return env


# The Windows tool writes text with Windows' line ends (run-cli-wine.sh).
WINDOWS = os.environ.get("RFM_TOOL_OS") == "windows"


def _text(raw):
    text = raw.decode()
    return text.replace("\r\n", "\n") if WINDOWS else text


class Result:
    """The outcome of one rfm run: exit status, stdout, stderr."""

    def __init__(self, args, proc, binary):
        self.args = args
        self.rc = proc.returncode
        self.raw = proc.stdout
        self.out = proc.stdout if binary else _text(proc.stdout)
        self.err = _text(proc.stderr)

    def json(self):
        """stdout as JSON: exactly one object on one line."""
        lines = self.out.splitlines()
        assert len(lines) == 1, f"expected one JSON line, got {self.out!r}"
        obj = json.loads(lines[0])
        assert isinstance(obj, dict)
        return obj

    def __repr__(self):
        return f"rfm {' '.join(self.args)} -> {self.rc}\nstdout: {self.out!r}\nstderr: {self.err!r}"


def _run_windows_tool(argv, stdin, env):
    """Run the Windows tool under wine; a run wine never started is run again.

    wine now and then exits 1 or 127 with nothing said before it starts
    the launcher (build-aux/win-run.c), which marks its start in the file
    RFM_WIN_RUN_STARTED names: a run without that mark never reached rfm.exe
    (up to three tries; rfm's own failures are never run again).
    """
    for attempt in range(3):
        mark = os.path.join(tempfile.gettempdir(),
                            f"rfm-win-started-{os.getpid()}-{next(_names)}")
        env = dict(env, RFM_WIN_RUN_STARTED="Z:" + mark.replace("/", "\\"))
        proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, timeout=60)
        started = os.path.exists(mark)
        if started:
            os.unlink(mark)
        if started or proc.returncode == 0 or attempt == 2:
            return proc
        print(f"wine did not start {argv[1:]} (exit status {proc.returncode}): "
              "running it again")
    return proc


def run_rfm(*args, input=None, env=None, binary=False):
    """Run rfm with @args; @input is str or bytes for stdin."""
    if RFM is None:
        pytest.fail("RFM_TOOL is not set: run the suite through run-cli-tests.sh")
    if isinstance(input, str):
        input = input.encode()
    stdin = input if input is not None else b""
    if WINDOWS:
        proc = _run_windows_tool([RFM, *args], stdin, _environment(env))
    else:
        proc = subprocess.run([RFM, *args], input=stdin, capture_output=True,
                              env=_environment(env), timeout=60)
    result = Result(list(args), proc, binary)
    check_user_terms(result.err)
    return result


# A C function named in a message: the tool names its options and commands.
C_FUNCTION = re.compile(r"rfm_[a-z0-9_]+\(|^rfm: rfm_[a-z0-9_]+: ", re.MULTILINE)


def check_user_terms(stderr):
    """Every message of every run in the suite is checked: no C names."""
    found = C_FUNCTION.search(stderr)
    assert not found, f"a C function name in a message of the tool: {stderr!r}"


@pytest.fixture
def rfm():
    return run_rfm


def ok(result):
    """Assert a successful run with a quiet stderr; return the result."""
    assert result.rc == 0, result
    assert result.err == "", result
    return result


def stale(result, writer):
    """Assert rfm get's exit 4: it printed a value whose writer node @writer is
    gone (the test wrote it from a node that has exited since)."""
    assert result.rc == 4, result
    assert (f"its writer, node {writer}," in result.err
            or f"[stale: writer node {writer} " in result.out
            or f'"stale_reason":"writer node {writer} ' in result.out), result
    return result


def failed(result, message):
    """Assert exit 1 with the library's message on stderr and nothing on stdout."""
    assert result.rc == 1, result
    assert result.err.startswith("rfm: "), result
    assert message in result.err, result
    assert result.out in ("", b""), result
    return result


def usage_error(result, message, command=None):
    """Assert exit 2 with a message and the hint to the right --help."""
    assert result.rc == 2, result
    assert result.err.startswith("rfm: "), result
    assert message in result.err, result
    hint = f"Try 'rfm {command} --help'." if command else "Try 'rfm --help'."
    assert hint in result.err, result
    assert result.out in ("", b""), result
    return result


class Network:
    """A private emulated network, removed when the test ends."""

    def __init__(self, name):
        self.name = name
        self.bare = f"shm:{name}"
        # The size is always given, so whichever run creates it makes it small.
        self.uri = f"{self.bare}?size={WINDOW}"
        self.path = f"{SHM_DIR}/rfm-{name}"

    def node(self, node_id):
        return f"{self.bare}?node={node_id}&size={WINDOW}"

    def exists(self):
        return os.path.exists(self.path)

    def remove(self):
        if self.exists():
            run_rfm("-u", self.bare, "destroy", "--force")
        if self.exists():
            os.unlink(self.path)


@pytest.fixture
def net():
    network = Network(f"clitest-{os.getpid()}-{next(_names)}")
    yield network
    network.remove()


class HeldNode:
    """A node kept open by another process (tests/cli/hold-node).

    The helper prints "ready ID" once attached and holds the node until
    its stdin is closed: no sleeping, no polling.
    """

    def __init__(self, uri):
        if HOLD_NODE is None:
            pytest.fail("RFM_HOLD_NODE is not set: run the suite through run-cli-tests.sh")
        self.proc = subprocess.Popen([HOLD_NODE, uri], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=_environment(), text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("ready "):
            self.proc.wait(timeout=30)
            pytest.fail(f"hold-node {uri} did not start: {self.proc.stderr.read()}")
        self.node_id = int(line.split()[1])

    def release(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if not stream.closed:
                stream.close()
        return self.proc.returncode


@pytest.fixture
def hold_node():
    held = []

    def start(uri):
        node = HeldNode(uri)
        held.append(node)
        return node

    yield start
    for node in held:
        node.release()


def _skip_table(path):
    """(pattern, reason) pairs of a skip table: "PATTERN  REASON" per line,
    PATTERN an fnmatch pattern of test ids (test_cli.py::test_list*)."""
    table = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, _, reason = line.partition(" ")
            table.append((pattern, reason.strip()))
    return table


def pytest_collection_modifyitems(config, items):
    """With RFM_CLI_SKIPS (the Windows tool under wine: run-cli-wine.sh),
    skip the tests its table names, each with the table's reason."""
    import fnmatch

    path = os.environ.get("RFM_CLI_SKIPS")
    if not path:
        return
    table = _skip_table(path)
    for item in items:
        path, _, name = item.nodeid.partition("::")
        test_id = path.rsplit("/", 1)[-1] + "::" + name
        for pattern, reason in table:
            if fnmatch.fnmatchcase(test_id, pattern):
                item.add_marker(pytest.mark.skip(reason=f"Windows: {reason}"))
                break
