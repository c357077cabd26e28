# SPDX-License-Identifier: LGPL-2.1-or-later
"""The pytest plugin (rfm.pytest_plugin): its fixtures, run by pytest itself
(pytester) on test files written as a user would, and what they leave
behind: nothing, whether the tests pass or fail."""

import os

import pytest

import rfm

pytest_plugins = ["pytester"]

# The plugin as the installed package's entry point would load it (the
# build tree has no entry point; -p no:rfm keeps an installed one out).
PLUGIN_ARGS = ("-p", "no:rfm", "-p", "rfm.pytest_plugin", "-p", "no:cacheprovider")


def run(pytester, *args):
    # In this process (its peers are processes of their own): a pytest
    # session per case costs a second of CPU otherwise.
    return pytester.runpytest_inprocess(*PLUGIN_ARGS, *args)


def network_exists(name):
    try:
        rfm.open(f"shm:{name}?create=0").close()
    except rfm.NotFound:
        return False
    return True


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is not alive: its parent (the inner pytest) has exited, so
    # init reaps it; /proc tells the two apart meanwhile.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


PEER = """\
import os, sys, rfm
node = rfm.open()                     # RFM_URI, set by the fixture
node.poke32(0x40, 0xBEEF)
print("starting up")                  # lines before the ready line are skipped
print("ready", node.node_id, os.getpid(), flush=True)
for line in sys.stdin:
    print("echo", line.strip(), flush=True)
"""


def test_fixtures_give_a_private_network_nodes_and_a_ready_peer(pytester):
    pytester.makefile(".py", peer=PEER)
    record = pytester.path / "record.txt"
    pytester.makepyfile(test_inner_bench=f"""
        import rfm

        def test_network(rfm_network, rfm_uri, rfm_node, rfm_backend, rfm_peer):
            assert rfm_backend == "shm"
            assert rfm_uri == rfm_network.uri() and rfm_uri.startswith("shm:pytest-")
            assert rfm_node.uri.startswith("shm:" + rfm_network.name + "?")
            peer = rfm_peer.python("peer.py", node=7)
            node_id, pid = map(int, peer.ready)
            assert node_id == 7 and pid == peer.pid
            assert rfm_node.peek32(0x40) == 0xBEEF      # the peer's write
            peer.send("hello")
            assert peer.readline() == "echo hello"
            other = rfm_network.open(node=3)
            assert other.node_id == 3
            with open({str(record)!r}, "w") as f:
                f.write(rfm_network.name + " " + str(peer.pid))
    """)
    result = run(pytester)
    result.assert_outcomes(passed=1)
    name, pid = record.read_text().split()
    assert not network_exists(name)
    assert not pid_alive(int(pid))


def test_a_failing_test_leaves_nothing_behind(pytester):
    pytester.makefile(".py", peer=PEER)
    record = pytester.path / "record.txt"
    pytester.makepyfile(test_inner_fails=f"""
        def test_fails(rfm_network, rfm_node, rfm_peer):
            peer = rfm_peer.python("peer.py")
            rfm_network.open()
            with open({str(record)!r}, "w") as f:
                f.write(rfm_network.name + " " + str(peer.pid))
            assert False, "the bench found a fault"
    """)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the bench found a fault*"])
    name, pid = record.read_text().split()
    assert not network_exists(name)
    assert not pid_alive(int(pid))


def test_each_test_has_its_own_network(pytester):
    record = pytester.path / "names.txt"
    pytester.makepyfile(test_inner_two=f"""
        import pytest

        @pytest.mark.parametrize("i", range(3))
        def test_one(rfm_node, rfm_network, i):
            assert rfm_node.peek32(0) == 0          # nothing from the test before
            rfm_node.poke32(0, 1)
            with open({str(record)!r}, "a") as f:
                f.write(rfm_network.name + "\\n")
    """)
    run(pytester).assert_outcomes(passed=3)
    names = record.read_text().split()
    assert len(set(names)) == 3


def test_a_peer_that_exits_before_ready_fails_with_what_it_said(pytester):
    pytester.makefile(".py", bad="import sys\nprint('no card here')\n"
                                 "print('bad luck', file=sys.stderr)\nsys.exit(3)\n")
    pytester.makepyfile(test_inner_bad="""
        def test_bad(rfm_peer):
            rfm_peer.python("bad.py")
    """)
    result = run(pytester)
    result.assert_outcomes(errors=0, failed=1)
    result.stdout.fnmatch_lines(["*exited with status 3 before it was ready*no card here*",
                                 "*bad luck*"])


def test_a_peer_that_never_says_ready_fails_after_its_guard(pytester):
    # The guard is the feature under test: 2 s, however slow the machine
    # (the peer's lines before it, if any, are in the message).
    pytester.makefile(".py", mute="import sys\nprint('thinking', flush=True)\nsys.stdin.read()\n")
    pytester.makepyfile(test_inner_mute="""
        def test_mute(rfm_peer):
            rfm_peer.python("mute.py", guard=2)
    """)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*mute.py (pid *) said no 'ready' line within 2 s; it printed:*"])


def test_layout_marker_sets_the_table_and_the_window(pytester):
    pytester.makefile(".yaml", rig="""\
version: 1
window: 128K
regions:
  - name: control
    offset: 0
    size: 0x100
    writer: 0
    variables:
      - { name: mode, type: u32 }
""")
    pytester.makepyfile(test_inner_layout='''
        import pytest

        pytestmark = pytest.mark.rfm_layout("rig.yaml")

        def test_table(rfm_table, rfm_network, rfm_layout):
            assert rfm_network.size == 128 * 1024 == rfm_layout.window_size
            rfm_table["control.mode"] = 4
            assert rfm_table["control.mode"] == 4
            assert "control.mode" in rfm_table

        @pytest.mark.rfm_layout("""
        version: 1
        window: 8K
        regions:
          - { name: r, offset: 0, size: 64, writer: 0, variables: [ { name: v, type: u8 } ] }
        """)
        def test_text(rfm_table, rfm_network):
            assert rfm_network.size == 8192
            rfm_table["r.v"] = 1

        @pytest.mark.rfm_window("64K")
        def test_window(rfm_node):
            assert rfm_node.size == 65536
    ''')
    result = run(pytester)
    result.assert_outcomes(passed=3)


def test_a_layout_without_a_marker_is_a_usage_error(pytester):
    pytester.makepyfile(test_inner_nolayout="""
        def test_table(rfm_table):
            pass
    """)
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.rfm_layout*"])


def test_card_and_unknown_backends_are_skipped_saying_why(pytester):
    pytester.makepyfile(test_inner_backends="""
        import pytest

        @pytest.mark.rfm_backend("dev")
        def test_dev(rfm_node):
            pass

        @pytest.mark.rfm_backend("nonesuch")
        def test_unknown(rfm_node):
            pass
    """)
    result = run(pytester, "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*cards, one for the whole machine*",
                                 "*unknown backend 'nonesuch'*"])


def test_dds_on_request(pytester):
    pytester.makefile(".py", peer=PEER)
    pytester.makepyfile(test_inner_dds="""
        import time
        import pytest

        @pytest.mark.rfm_backend("dds")
        def test_dds(rfm_network, rfm_peer):
            assert rfm_network.backend == "dds"
            peer = rfm_peer.python("peer.py", node=2)
            node = rfm_network.open(node=1)
            assert node.backend == "dds"
            # Each node has its own copy: the peer's write arrives with the
            # joiner's snapshot, or later if discovery was slow (bounded).
            deadline = time.monotonic() + 30
            while node.peek32(0x40) != 0xBEEF and time.monotonic() < deadline:
                time.sleep(0.005)   # polling the window is the protocol here
            assert node.peek32(0x40) == 0xBEEF
    """)
    result = run(pytester, "-rs")
    outcomes = result.parseoutcomes()
    if outcomes.get("skipped"):
        result.stdout.fnmatch_lines(["*built without Cyclone DDS*"])
        pytest.skip("this librfm has no dds: backend")
    result.assert_outcomes(passed=1)


def test_the_command_line_chooses_the_backend(pytester):
    pytester.makepyfile(test_inner_cli="""
        def test_backend(rfm_backend, rfm_node):
            assert rfm_node.backend == rfm_backend
    """)
    run(pytester, "--rfm-backend=shm").assert_outcomes(passed=1)
    result = run(pytester, "--rfm-backend=rfm2g", "-rs")
    result.assert_outcomes(skipped=1)


def test_the_example_bench_passes_with_the_plugin_only(pytester):
    bench = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "python",
                         "test_hil_plant.py")
    result = pytester.runpytest_inprocess(*PLUGIN_ARGS, "-q", os.path.abspath(bench))
    result.assert_outcomes(passed=8)
