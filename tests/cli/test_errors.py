# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bad input: the library's failures exit 1, usage errors exit 2, and neither
changes anything on the network."""
import pytest

from conftest import WINDOW, failed, ok, usage_error

# ---- failures reported by the library: exit 1, "rfm: <rfm_last_error()>" ----


@pytest.mark.parametrize("uri,message", [
    ("nocolon", "is not a URI"),
    ("foo:bar", "unknown scheme 'foo:'"),
    ("shm:bad/name", "network name 'bad/name'"),
    ("shm:.hidden", "network name '.hidden'"),
    ("{net}?colour=red", "unknown parameter 'colour'"),
    ("{net}?size=1000", "size"),
    ("{net}?node=256", "node id 256 is outside 0..255"),
    ("{net}?node=abc", "node 'abc' is not a number"),
])
def test_bad_uri(rfm, net, uri, message):
    uri = uri.format(net=net.bare)
    # A command that holds an id; and one that only looks (node= is then
    # not used, so only the other errors are its).
    failed(rfm("-u", uri, "poke32", "0", "1"), message)
    if "node" not in uri:
        failed(rfm("-u", uri, "info"), message)
        failed(rfm("-u", uri, "peek32", "0", "--json"), message)
    assert not net.exists()


@pytest.mark.parametrize("uri,message", [
    ("dev:/nonexistent-rfm-device", "no device /nonexistent-rfm-device (is rfm.ko loaded?)"),
    ("dev:/dev/null", "not an rfm.ko device"),
    ("dev:rfm0", "must be absolute"),
])
def test_dev_without_a_card(rfm, uri, message):
    failed(rfm("-u", uri, "info"), message)
    failed(rfm("-u", uri, "peek32", "0"), message)


def test_bad_uri_from_environment(rfm):
    failed(rfm("info", env={"RFM_URI": "foo:bar"}), "unknown scheme")


def test_size_mismatch(rfm, net):
    ok(rfm("-u", net.uri, "poke32", "0", "1"))
    failed(rfm("-u", f"{net.bare}?size=128K", "info"),
           "the network's window is 65536 bytes, not the 131072 asked for")
    # The network is untouched.
    assert ok(rfm("-u", net.bare, "info", "--json")).json()["size"] == WINDOW
    assert ok(rfm("-u", net.bare, "peek32", "0")).out == "0x00000001\n"


def test_node_id_in_use_by_another_process(rfm, net, hold_node):
    held = hold_node(net.node(4))
    assert held.node_id == 4
    ok(rfm("-u", net.uri, "poke32", "0x20", "0x600d"))
    r = failed(rfm("-u", net.node(4), "poke32", "0x20", "0xbad"), "node id 4 is in use")
    assert f"pid {held.proc.pid}" in r.err
    # The hint names what it may be: a monitor (observe=1), a tool, another handle.
    assert "observe=1" in r.err and "shared=1" in r.err, r.err
    # The failed open left the network and the holder alone.
    obj = ok(rfm("-u", net.node(5), "info", "--json")).json()
    assert obj["nodes_attached"] == 1
    assert ok(rfm("-u", net.bare, "peek32", "0x20")).out == "0x0000600d\n"
    # Once the holder is gone, its id is free again.
    assert held.release() == 0
    ok(rfm("-u", net.node(4), "poke32", "0x20", "0x600d"))


def test_no_such_network_to_destroy(rfm, net):
    failed(rfm("-u", net.bare, "destroy", "--force"), "No such file or directory")


@pytest.mark.parametrize("args", [
    ["peek8", str(WINDOW)],
    ["peek32", str(WINDOW - 2)],
    ["peek64", "0xfffffffffffffff8"],
    ["poke16", str(WINDOW), "1"],
    ["poke64", str(WINDOW - 4), "1"],
    ["read", str(WINDOW - 8), "9"],
    ["read", "0", str(WINDOW + 1)],
    ["read", "0xffffffffffffffff", "2"],
    ["dump", str(WINDOW), "1"],
    ["dump", "0", "0xffffffffffffffff"],
    ["write", str(WINDOW - 1), "--hex", "0102"],
    ["write", str(WINDOW + 1), "--string", ""],
])
def test_offset_out_of_range(rfm, net, args):
    ok(rfm("-u", net.uri, "info"))
    failed(rfm("-u", net.uri, *args), "outside the 65536-byte window")
    ok(rfm("-u", net.uri, "verify", "0", str(WINDOW), "-p", "zero"))


def test_read_out_of_range_creates_no_file(rfm, net, tmp_path):
    out = tmp_path / "out.bin"
    failed(rfm("-u", net.uri, "read", str(WINDOW), "1", "-o", str(out)), "outside")
    assert not out.exists()


def test_write_input_longer_than_the_window(rfm, net):
    r = rfm("-u", net.uri, "write", "0", input=b"\x01" * (WINDOW + 1))
    assert r.rc == 1, r
    assert "longer than the 65536-byte window" in r.err
    ok(rfm("-u", net.uri, "verify", "0", str(WINDOW), "-p", "zero"))


def test_write_missing_input_file(rfm, net, tmp_path):
    r = rfm("-u", net.uri, "write", "0", "-i", str(tmp_path / "absent"))
    assert r.rc == 1, r
    assert "No such file or directory" in r.err


@pytest.mark.parametrize("command,offset,width", [
    ("peek16", "1", 2), ("peek32", "2", 4), ("peek64", "4", 8),
    ("poke16", "3", 2), ("poke32", "6", 4), ("poke64", "12", 8),
])
def test_misaligned_access(rfm, net, command, offset, width):
    args = [command, offset] + (["0x1"] if command.startswith("poke") else [])
    failed(rfm("-u", net.uri, *args), f"is not a multiple of {width}")
    ok(rfm("-u", net.uri, "verify", "0", "64", "-p", "zero"))


# ---- usage errors: exit 2, a message, a hint, and no network touched ----

@pytest.mark.parametrize("text,message", [
    ("", "OFFSET is empty"),
    ("abc", "is not a number"),
    ("12abc", "unexpected 'abc'"),
    ("0x", "is not a number"),
    ("0x1q", "unexpected 'q'"),
    ("1KB", "unexpected 'KB'"),
    ("16777216T", "unexpected 'T'"),
    ("0x400000000G", "too large for 64 bits"),
    ("08", "unexpected '8'"),
    ("1.5", "unexpected '.5'"),
    (" 5", "is not a number"),
    ("+5", "is not a number"),
    ("-1", "negative"),
    ("18446744073709551616", "too large for 64 bits"),
    ("99999999999999999999999", "too large for 64 bits"),
])
def test_malformed_offset(rfm, net, text, message):
    usage_error(rfm("-u", net.uri, "peek32", text), message, "peek32")
    usage_error(rfm("-u", net.uri, "dump", text, "16"), message, "dump")
    assert not net.exists()


def test_size_suffixes(rfm, net):
    """Offsets and sizes take K/M/G as URIs and layouts do (fill 0 64M)."""
    ok(rfm("-u", net.uri, "fill", "0", "64K", "--pattern", "ones"))
    ok(rfm("-u", net.uri, "poke32", "1K", "0x12345678"))
    assert ok(rfm("-u", net.uri, "peek32", "0x400")).out == "0x12345678\n"
    assert ok(rfm("-u", net.uri, "read", "1k", "4")).raw == b"\x78\x56\x34\x12"
    failed(rfm("-u", net.uri, "fill", "0", "64M", "--pattern", "zero"),
           "67108864 bytes at offset 0x0")


@pytest.mark.parametrize("command,value", [
    ("poke8", "0x100"), ("poke8", "256"), ("poke16", "65536"),
    ("poke32", "0x100000000"), ("poke64", "0x10000000000000000"),
])
def test_value_too_wide(rfm, net, command, value):
    usage_error(rfm("-u", net.uri, command, "0", value), "too large", command)
    assert not net.exists()


@pytest.mark.parametrize("args,message", [
    (["read", "0", "1x"], "LENGTH '1x' is not a number"),
    (["read", "0", "-5"], "negative"),
    (["poke32", "0", "-5"], "negative"),
    (["write", "0", "--hex", "0g"], "'g' at position 2 is not a hex digit"),
    (["write", "0", "--hex", "abc"], "byte 'c' at position 3 needs two hex digits"),
    (["write", "0", "--hex", "01", "--string", "x"], "at most one of"),
])
def test_malformed_arguments(rfm, net, args, message):
    usage_error(rfm("-u", net.uri, *args), message, args[0])
    assert not net.exists()


@pytest.mark.parametrize("args,message", [
    (["peek32"], "missing argument; usage: rfm peek32 OFFSET"),
    (["poke32", "0"], "missing argument"),
    (["read", "0"], "missing argument"),
    (["write"], "missing argument"),
    (["peek32", "0", "4"], "unexpected argument '4'"),
    (["info", "extra"], "unexpected argument 'extra'"),
    (["destroy", "now"], "unexpected argument 'now'"),
    (["info", "--bogus"], "unknown option '--bogus'"),
    (["dump", "0", "16", "-q"], "unknown option '-q'"),
    (["peek32", "0", "--dec=yes"], "option '--dec' takes no argument"),
    (["read", "0", "4", "-o"], "option '-o' needs an argument"),
    (["fill", "0", "4", "--pattern"], "option '--pattern' needs an argument"),
    (["peek32", "0", "-u"], "option '-u' needs an argument"),
    (["info", "--uri"], "option '--uri' needs an argument"),
])
def test_command_usage_errors(rfm, net, args, message):
    usage_error(rfm("-u", net.uri, *args), message, args[0])
    assert not net.exists()


@pytest.mark.parametrize("args,message", [
    ([], "no command given"),
    (["bogus"], "unknown command 'bogus'"),
    (["--bogus", "info"], "unknown option '--bogus'"),
    (["-x", "info"], "unknown option '-x'"),
    (["-u"], "option '-u' needs an argument"),
    (["--json"], "no command given"),
])
def test_global_usage_errors(rfm, args, message):
    usage_error(rfm(*args), message)


def test_help_for_an_unknown_command(rfm):
    usage_error(rfm("help", "bogus"), "unknown command 'bogus'", "help")


def test_json_failure_prints_nothing_on_stdout(rfm, net):
    failed(rfm("-u", net.uri, "--json", "peek32", "2"), "not a multiple of 4")
    usage_error(rfm("-u", net.uri, "--json", "peek32", "x"), "not a number", "peek32")
