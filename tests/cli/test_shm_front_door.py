# SPDX-License-Identifier: LGPL-2.1-or-later
"""shm: networks from the shell: reading commands never create one, rfm
list shows them all, rfm info their footprint, and a closed stdout or
stderr never lets a tool write into a segment (docs/security.md)."""
import os
import subprocess

import pytest

from conftest import RFM, SHM_DIR, WINDOW, WINDOWS, _environment, failed, ok


def real_rfm():
    """The rfm program itself, and the environment it needs.

    In a build tree tools/rfm is libtool's wrapper script: the shell running
    it would take a closed descriptor first, and the test would prove
    nothing. Run the binary behind it instead.
    """
    tools = os.path.dirname(os.path.abspath(RFM))
    real = os.path.join(tools, ".libs", "rfm")
    if os.path.exists(real):
        libs = os.path.join(os.path.dirname(tools), "src", ".libs")
        return real, {"LD_LIBRARY_PATH": libs}
    return RFM, {}


def occupied(net):
    """The bytes @net's segment file takes: window plus five header pages
    (no receiver, so no event queue), the room the library reserves.

    Under wine the Windows library reserves none: wine does not answer
    FSCTL_QUERY_ALLOCATED_RANGES, which the reservation asks first
    (src/os/win/file.c), so the file takes only the pages written. There
    the tool must say what the file system says the file takes (wine's
    allocation size is the Linux file's blocks), never its length.
    """
    if WINDOWS:
        return os.stat(net.path).st_blocks * 512
    return WINDOW + 5 * 4096


def shell(command):
    """Run @command under sh with $RFM set to the real program."""
    binary, extra = real_rfm()
    return subprocess.run(["sh", "-c", command], capture_output=True, timeout=60,
                          env=_environment({"RFM": binary, **extra}))


def test_reading_commands_do_not_create_a_network(rfm, net):
    for args in (["peek32", "0x1000"], ["read", "0", "4"], ["dump", "0", "16"],
                 ["info"], ["nodes"], ["wait", "--event", "intr1", "--timeout", "0"],
                 ["ring", "tail", "0"]):
        r = failed(rfm("-u", net.bare, *args), f"no network '{net.name}'")
        assert not net.exists(), r
        assert not os.path.exists(f"{SHM_DIR}/rfmlock-{net.name}"), r
    # A writing command creates it, as before; then the reads work.
    ok(rfm("-u", net.uri, "poke32", "0x1000", "7"))
    assert ok(rfm("-u", net.bare, "peek32", "0x1000")).out == "0x00000007\n"


def test_a_typo_names_the_network_that_exists(rfm, net):
    ok(rfm("-u", net.uri + "&node=1", "poke32", "0", "1"))
    typo = net.name[:-2] + net.name[-1] + net.name[-2]
    if typo == net.name:
        typo = net.name + "x"
    r = failed(rfm("-u", f"shm:{typo}", "peek32", "0x1000"), f"no network '{typo}'")
    assert f"did you mean '{net.name}'?" in r.err, r
    assert not os.path.exists(f"{SHM_DIR}/rfm-{typo}")


def test_list_shows_every_network(rfm, net, hold_node):
    held = hold_node(net.node(3))
    ok(rfm("-u", net.uri, "poke32", "0", "1"))
    networks = ok(rfm("list", "--json")).json()["networks"]
    mine = [n for n in networks if n["name"] == net.name]
    assert len(mine) == 1, networks
    entry = mine[0]
    assert entry["state"] == "ok"
    assert entry["window_size"] == WINDOW
    assert entry["nodes_attached"] == 1
    if WINDOWS:
        # An access list, not mode bits; no uids: null, and the owner's name.
        assert (entry["mode"], entry["uid"]) == (None, None), entry
        assert entry["owner"], entry
        mode = "-"
    else:
        mode = "0600"
        assert entry["mode"] == mode
        assert entry["uid"] == os.geteuid()
    assert entry["bytes"] == occupied(net)
    text = ok(rfm("list")).out
    line = [ln for ln in text.splitlines() if ln.startswith(net.name + " ")]
    assert len(line) == 1, text
    assert "64 KiB" in line[0] and f" {mode} " in line[0] and line[0].endswith("ok"), line
    held.release()


def test_list_names_foreign_and_corrupt_segments(rfm, net):
    from conftest import Network
    other = Network(net.name + "-old")
    try:
        for n in (net, other):
            ok(rfm("-u", n.uri, "poke32", "0", "1"))
        with open(other.path, "r+b") as f:   # another librfm's format version
            f.seek(8)
            f.write((2).to_bytes(4, "little"))
        with open(net.path, "r+b") as f:     # not a network at all
            f.write(b"NOT-RFM!")
        entries = {n["name"]: n for n in ok(rfm("list", "--json")).json()["networks"]}
        assert entries[other.name]["state"] == "version 2"
        assert entries[other.name]["window_size"] == 0
        assert entries[other.name]["nodes_attached"] == -1
        assert entries[net.name]["state"] == "corrupt"
        text = ok(rfm("list")).out
        assert any(ln.startswith(other.name + " ") and ln.endswith("version 2")
                   for ln in text.splitlines()), text
    finally:
        other.remove()


def test_list_changes_nothing_it_looks_at(rfm, net, hold_node):
    """Looking takes no node id and writes nothing: the files stay as they
    were, byte for byte, and the held node's id is still refused to others."""
    from conftest import Network
    empty = Network(net.name + "-empty")
    try:
        held = hold_node(net.node(4))
        ok(rfm("-u", net.uri, "poke32", "0x40", "0x5a5a5a5a"))
        open(empty.path, "wb").close()
        files = [net.path, f"{SHM_DIR}/rfmlock-{net.name}", empty.path]

        def snapshot():
            out = []
            for path in files:
                st = os.stat(path)
                with open(path, "rb") as f:
                    out.append((path, st.st_size, st.st_mtime_ns, st.st_blocks, f.read()))
            return out

        before = snapshot()
        for _ in range(3):
            entries = {n["name"]: n for n in ok(rfm("list", "--json")).json()["networks"]}
            assert entries[net.name]["nodes_attached"] == 1, entries
            assert (entries[empty.name]["state"], entries[empty.name]["nodes_attached"],
                    entries[empty.name]["window_size"]) == ("empty", -1, 0), entries
            ok(rfm("list"))
        assert snapshot() == before
        assert not os.path.exists(f"{SHM_DIR}/rfmlock-{empty.name}")
        failed(rfm("-u", net.node(4), "poke32", "0", "1"), "node id 4 is in use")
        held.release()
        ok(rfm("-u", net.node(4), "poke32", "0", "1"))
    finally:
        empty.remove()


def test_list_never_makes_the_segment_directory(rfm):
    """Windows makes its segment directory on first use of a network: a
    list of one never made says there is none, and still makes nothing."""
    if not WINDOWS:
        pytest.skip("RFM_SHM_DIR is Windows' (Linux's segment directory is /dev/shm)")
    where = os.environ["RFM_SHM_DIR"] + "\\never-made"
    env = {"RFM_SHM_DIR": where}
    assert ok(rfm("list", env=env)).out == f"no networks in {where}\n"
    assert ok(rfm("list", "--json", env=env)).json() == {"networks": []}
    assert not os.path.exists(f"{SHM_DIR}/never-made")


def test_info_shows_the_footprint(rfm, net):
    obj = ok(rfm("-u", net.uri, "info", "--json")).json()
    assert obj["footprint"] == occupied(net)
    assert f"footprint:      {occupied(net)} bytes" in ok(rfm("-u", net.uri, "info")).out


def test_closed_stdout_or_stderr_never_reaches_the_segment(rfm, net):
    ok(rfm("-u", net.uri, "poke32", "0", "0x11223344"))
    u = f"'{net.uri}'"
    shell(f'"$RFM" -u {u} read 0 64 >&-')
    shell(f'"$RFM" -u {u} dump 0 64 >&-')
    shell(f'"$RFM" -u {u} peek32 0x12345678 2>&-')           # fails: out of range
    shell(f'"$RFM" -u {u} send --to 200 --event intr1 2>&-')  # fails: no node 200
    shell(f'"$RFM" -u {u} info >&- 2>&-')
    # The program really ran (and failed to print): not a wrapper's doing.
    assert b"Bad file descriptor" in shell(f'"$RFM" -u {u} read 0 64 >&-').stderr
    # The header is intact: another node opens, the data is still there.
    assert ok(rfm("-u", net.node(7), "peek32", "0")).out == "0x11223344\n"
    assert ok(rfm("list", "--json")).json()["networks"]
