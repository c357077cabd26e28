# SPDX-License-Identifier: LGPL-2.1-or-later
"""The rfm tool's commands doing their job: output, JSON, exit status."""
import os
import re
import sys

import pytest

from conftest import MANPAGE, WINDOW, failed, ok

COMMANDS = ["info", "peek8", "peek16", "peek32", "peek64", "poke8", "poke16", "poke32",
            "poke64", "read", "write", "dump", "fill", "verify", "send", "wait", "listen",
            "stats", "destroy", "list", "layout", "get", "set", "watch", "record", "replay", "plot", "ping", "jitter", "bench", "ring", "nodes", "serve",
            "selftest", "help"]


def listed_commands(help_text):
    section = help_text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in section.splitlines()]


# ---- help, version, man page ----

def test_help_lists_every_command_with_a_summary(rfm):
    r = ok(rfm("--help"))
    assert r.out.startswith("Usage: rfm [OPTIONS] COMMAND")
    assert listed_commands(r.out) == COMMANDS
    for line in r.out.split("Commands:\n", 1)[1].split("\n\n", 1)[0].splitlines():
        assert len(line.split(None, 1)) == 2, f"no summary in {line!r}"
    for option in ("-u, --uri URI", "--json", "-h, --help", "--version"):
        assert option in r.out
    for code in ("0  success", "1  the operation failed", "2  usage error",
                 "3  verify found mismatches"):
        assert code in r.out
    assert ok(rfm("-h")).out == r.out
    assert ok(rfm("help")).out == r.out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(rfm, command):
    r = ok(rfm(command, "--help"))
    assert r.out.startswith(f"Usage: rfm [OPTIONS] {command}")
    assert "Exit status:" in r.out
    # The same text however it is asked for.
    assert ok(rfm("--help", command)).out == r.out
    assert ok(rfm(command, "-h")).out == r.out
    assert ok(rfm("help", command)).out == r.out


def test_version(rfm):
    text = ok(rfm("--version")).out
    m = re.fullmatch(r"rfm (\d+\.\d+\.\d+) \(librfm (\d+\.\d+\.\d+)\)\n", text)
    assert m, text
    obj = ok(rfm("--version", "--json")).json()
    assert obj == {"tool": m.group(1), "library": m.group(2)}
    assert ok(rfm("--json", "--version")).json() == obj
    # After a command too, without running it.
    assert ok(rfm("info", "--version")).out == text


def test_man_page_documents_every_command_and_exit_status():
    with open(MANPAGE, encoding="utf-8") as f:
        man = f.read()
    assert man.startswith(".\\\" SPDX-License-Identifier:")
    assert ".TH RFM 1" in man
    # The words as a reader sees them: without font changes, "\-" as "-".
    text = re.sub(r"\\f[BIRP]", "", man).replace("\\-", "-")
    for command in COMMANDS:
        assert re.search(rf"\b{command}\b", text), f"{command} missing from rfm.1"
    for option in ("--uri", "--json", "--help", "--version", "--dec", "--output", "--input",
                   "--hex", "--string", "--all", "--pattern", "--seed", "--force", "RFM_URI"):
        assert option in text, f"{option} missing from rfm.1"
    exit_section = man.split(".SH EXIT STATUS", 1)[1].split(".SH", 1)[0]
    assert re.findall(r"^\.B (\d)$", exit_section, re.M) == ["0", "1", "2", "3", "4"]
    for pattern in ("zero", "ones", "incr", "addr", "random"):
        assert f".B {pattern}\n" in man


# ---- peek and poke ----

def test_poke_then_peek_from_another_run(rfm, net):
    """The brief's example: what one run pokes, a later run peeks."""
    assert ok(rfm("-u", net.uri, "poke32", "0x10", "0xdeadbeef")).out == ""
    assert ok(rfm("-u", net.bare, "peek32", "0x10")).out == "0xdeadbeef\n"


def test_poke_from_one_node_peek_from_another(rfm, net):
    ok(rfm("-u", net.node(1), "poke64", "0x100", "0x0123456789abcdef"))
    assert ok(rfm("-u", net.node(2), "peek64", "0x100")).out == "0x0123456789abcdef\n"


@pytest.mark.parametrize("bits,offset,value,text", [
    (8, 0x21, 0x7, "0x07"),
    (16, 0x22, 0xab, "0x00ab"),
    (32, 0x24, 0x2a, "0x0000002a"),
    (64, 0x28, 0xfedcba9876543210, "0xfedcba9876543210"),
])
def test_peek_prints_zero_padded_hex_or_decimal(rfm, net, bits, offset, value, text):
    ok(rfm("-u", net.uri, f"poke{bits}", hex(offset), str(value)))
    assert ok(rfm("-u", net.uri, f"peek{bits}", hex(offset))).out == text + "\n"
    assert ok(rfm("-u", net.uri, f"peek{bits}", hex(offset), "--dec")).out == f"{value}\n"
    obj = ok(rfm("-u", net.uri, "--json", f"peek{bits}", hex(offset))).json()
    assert obj == {"offset": offset, "width": bits, "value": value, "hex": text}


def test_poke_json_echoes_the_access(rfm, net):
    obj = ok(rfm("-u", net.uri, "poke16", "0x40", "0xbeef", "--json")).json()
    assert obj == {"offset": 0x40, "width": 16, "value": 0xbeef, "hex": "0xbeef"}


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_poke_accepts_the_widest_value(rfm, net, bits):
    top = (1 << bits) - 1
    ok(rfm("-u", net.uri, f"poke{bits}", "0", hex(top)))
    assert ok(rfm("-u", net.uri, f"peek{bits}", "0", "--dec")).out == f"{top}\n"


def test_numbers_in_c_notation(rfm, net):
    ok(rfm("-u", net.uri, "poke32", "16", "305419896"))        # decimal
    for offset in ("16", "0x10", "0X10", "020"):                # decimal, hex, octal
        assert ok(rfm("-u", net.uri, "peek32", offset)).out == "0x12345678\n"
    ok(rfm("-u", net.uri, "poke8", "0", "0377"))                # octal value
    assert ok(rfm("-u", net.uri, "peek8", "0")).out == "0xff\n"


def test_values_are_in_host_byte_order(rfm, net):
    ok(rfm("-u", net.uri, "poke32", "0", "0x11223344"))
    first = "0x44" if sys.byteorder == "little" else "0x11"
    assert ok(rfm("-u", net.uri, "peek8", "0")).out == first + "\n"


# ---- info ----

def test_info_json(rfm, net, hold_node):
    version = ok(rfm("--version", "--json")).json()["library"]
    hold_node(net.node(5))
    # rfm info only looks: an observer, whatever node the URI names.
    obj = ok(rfm("-u", net.node(5), "info", "--json")).json()
    assert (obj["node_id"], obj["attach"]) == (-1, "observer")
    assert obj["size"] == WINDOW
    assert obj["backend"] == "shm"
    assert obj["uri"] == f"{net.bare}?observe=1&size={WINDOW}"
    assert obj["max_nodes"] == 256
    assert obj["nodes_attached"] == 1
    assert obj["incarnation"] == 0
    assert obj["version"] == version
    assert obj["link"] is None      # shm: has no card
    assert set(obj) == {"link", "node_id", "attach", "size", "backend", "uri", "max_nodes",
                        "nodes_attached", "incarnation", "version", "footprint"}


def test_info_text(rfm, net):
    out = ok(rfm("-u", net.node(9), "info")).out
    assert "node id:        none (an observer: rfm info only looks)\n" in out
    assert "window size:    65536 bytes (64 KiB)\n" in out
    assert "backend:        shm\n" in out
    assert f"uri:            {net.bare}?observe=1&size=65536\n" in out
    assert "nodes attached: 0 of 256" in out


def test_info_counts_nodes_held_by_other_processes(rfm, net, hold_node):
    a = hold_node(net.node(3))
    b = hold_node(net.bare)
    assert (a.node_id, b.node_id) == (3, 0)     # omitted node = first free id
    obj = ok(rfm("-u", net.bare, "info", "--json")).json()
    assert obj["node_id"] == -1                 # rfm info holds none
    assert obj["nodes_attached"] == 2


def test_incarnation_counts_attaches_of_a_node_id(rfm, net, hold_node):
    def incarnation():
        rows = ok(rfm("-u", net.uri, "nodes", "--json")).json()["nodes"]
        return [r["incarnation"] for r in rows if r["id"] == 7][0]
    first = hold_node(net.node(7))
    before = incarnation()
    assert first.release() == 0
    hold_node(net.node(7))
    assert incarnation() == before + 1


def test_uri_comes_from_the_environment(rfm, net):
    obj = ok(rfm("info", "--json", env={"RFM_URI": net.node(4)})).json()
    assert obj["uri"] == f"{net.bare}?observe=1&size={WINDOW}"
    # -u wins over $RFM_URI.
    obj = ok(rfm("-u", net.node(6), "info", "--json", env={"RFM_URI": "shm:elsewhere"})).json()
    assert obj["uri"] == f"{net.bare}?observe=1&size={WINDOW}"


def test_common_options_before_and_after_the_command(rfm, net):
    ok(rfm("-u", net.uri, "poke32", "8", "0x55aa55aa"))
    expected = {"offset": 8, "width": 32, "value": 0x55aa55aa, "hex": "0x55aa55aa"}
    assert ok(rfm("--json", "-u", net.uri, "peek32", "8")).json() == expected
    assert ok(rfm("peek32", "8", "-u", net.uri, "--json")).json() == expected
    assert ok(rfm("peek32", "--json", "8", f"--uri={net.uri}")).json() == expected
    assert ok(rfm(f"--uri={net.uri}", "peek32", "--json", "8")).json() == expected


# ---- read and write ----

def test_write_hex_then_read_raw(rfm, net):
    ok(rfm("-u", net.uri, "write", "0x20", "--hex", "de ad:be ef00"))
    r = ok(rfm("-u", net.uri, "read", "0x1f", "7", binary=True))
    assert r.raw == bytes([0, 0xde, 0xad, 0xbe, 0xef, 0, 0])
    obj = ok(rfm("-u", net.uri, "read", "0x20", "4", "--json")).json()
    assert obj == {"offset": 0x20, "length": 4, "hex": "deadbeef"}


def test_write_from_stdin_file_and_string(rfm, net, tmp_path):
    data = bytes(range(256)) * 3
    ok(rfm("-u", net.uri, "write", "1000", input=data))
    assert ok(rfm("-u", net.uri, "read", "1000", str(len(data)), binary=True)).raw == data

    source = tmp_path / "in.bin"
    source.write_bytes(b"\x01\x02\x03")
    obj = ok(rfm("-u", net.uri, "write", "2000", "-i", str(source), "--json")).json()
    assert obj == {"offset": 2000, "length": 3}
    assert ok(rfm("-u", net.uri, "read", "2000", "3", binary=True)).raw == b"\x01\x02\x03"

    ok(rfm("-u", net.uri, "write", "3000", "--string", "hello"))
    # No terminating NUL is written: the byte after stays as it was (0).
    ok(rfm("-u", net.uri, "poke8", "3005", "0x21"))
    assert ok(rfm("-u", net.uri, "read", "3000", "6", binary=True)).raw == b"hello!"


def test_write_exactly_to_the_end_of_the_window(rfm, net):
    ok(rfm("-u", net.uri, "write", str(WINDOW - 4), "--hex", "01020304"))
    assert ok(rfm("-u", net.uri, "peek8", str(WINDOW - 1))).out == "0x04\n"


def test_read_to_a_file(rfm, net, tmp_path):
    ok(rfm("-u", net.uri, "write", "0", "--string", "abcdef"))
    out = tmp_path / "out.bin"
    obj = ok(rfm("-u", net.uri, "read", "1", "4", "-o", str(out), "--json")).json()
    assert obj == {"offset": 1, "length": 4, "file": str(out)}
    assert out.read_bytes() == b"bcde"
    assert ok(rfm("-u", net.uri, "read", "0", "2", "--output", str(out))).out == ""
    assert out.read_bytes() == b"ab"


def test_read_whole_window(rfm, net):
    ok(rfm("-u", net.uri, "fill", "0", str(WINDOW), "--pattern", "incr"))
    r = ok(rfm("-u", net.uri, "read", "0", str(WINDOW), binary=True))
    assert r.raw == bytes(i & 0xff for i in range(WINDOW))


# ---- dump ----

def hexdump_c(data, start):
    """What hexdump -C prints for @data at window offset @start."""
    lines, prev, folding = [], None, False
    for i in range(0, len(data), 16):
        chunk = data[i:i + 16]
        if len(chunk) == 16 and chunk == prev:
            if not folding:
                lines.append("*")
            folding = True
            continue
        folding = False
        prev = chunk if len(chunk) == 16 else None
        hexes = [f"{b:02x}" for b in chunk] + ["  "] * (16 - len(chunk))
        text = "".join(chr(b) if 0x20 <= b < 0x7f else "." for b in chunk)
        lines.append(f"{start + i:08x}  {' '.join(hexes[:8])}  {' '.join(hexes[8:])}  |{text}|")
    lines.append(f"{start + len(data):08x}")
    return "\n".join(lines) + "\n"


def test_dump_is_hexdump_c_with_window_offsets(rfm, net):
    ok(rfm("-u", net.uri, "write", "0x103", "--string", "Reflective memory, ~fast~!"))
    r = ok(rfm("-u", net.uri, "dump", "0x100", "0x63"))
    data = ok(rfm("-u", net.uri, "read", "0x100", "0x63", binary=True)).raw
    assert r.out == hexdump_c(data, 0x100)
    assert r.out.startswith("00000100  00 00 00 52 65 66 6c 65  63 74 69 76 65 20 6d 65  "
                            "|...Reflective me|\n")
    assert "\n*\n" in r.out                      # the zeros fold
    assert r.out.endswith("\n00000163\n")


def test_dump_unaligned_start_and_all_lines(rfm, net):
    ok(rfm("-u", net.uri, "fill", "0", "256", "--pattern", "incr"))
    r = ok(rfm("-u", net.uri, "dump", "0x13", "40"))
    assert r.out == hexdump_c(bytes(range(0x13, 0x13 + 40)), 0x13)
    zeros = ok(rfm("-u", net.uri, "dump", "0x1000", "64", "-v")).out
    assert zeros.count("00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00") == 4
    assert "*" not in zeros
    assert ok(rfm("-u", net.uri, "dump", "0x1000", "64")).out == (
        "00001000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n"
        "*\n"
        "00001040\n")


def test_dump_json(rfm, net):
    ok(rfm("-u", net.uri, "write", "8", "--hex", "0a0b0c"))
    obj = ok(rfm("-u", net.uri, "--json", "dump", "7", "5")).json()
    assert obj == {"offset": 7, "length": 5, "hex": "000a0b0c00"}


# ---- destroy ----

def test_destroy_removes_the_network(rfm, net):
    ok(rfm("-u", net.uri, "poke32", "0", "0x12345678"))
    assert net.exists()
    assert ok(rfm("-u", net.bare, "destroy")).out == ""
    assert not net.exists()
    failed(rfm("-u", net.bare, "destroy"), "No such file")
    # Reading commands do not bring it back; a writing one makes a new
    # network of the same name, which starts from zeros.
    failed(rfm("-u", net.bare, "peek32", "0"), "no network")
    assert not net.exists()
    ok(rfm("-u", net.uri, "poke32", "4", "0"))
    assert ok(rfm("-u", net.uri, "peek32", "0")).out == "0x00000000\n"


def test_destroy_json_and_uri_from_environment(rfm, net):
    ok(rfm("-u", net.uri, "info"))
    obj = ok(rfm("destroy", "--json", env={"RFM_URI": net.node(2)})).json()
    assert obj == {"uri": net.node(2), "destroyed": True, "forced": False}
    assert not net.exists()


def test_destroy_refuses_a_network_with_live_nodes_unless_forced(rfm, net, hold_node):
    held = hold_node(net.node(2))
    ok(rfm("-u", net.uri, "poke32", "4", "0xcafe"))
    failed(rfm("-u", net.bare, "destroy"), "still attached")
    # Refused means untouched: the data and the held node are still there.
    assert ok(rfm("-u", net.bare, "peek32", "4")).out == "0x0000cafe\n"
    assert ok(rfm("-u", net.bare, "info", "--json")).json()["nodes_attached"] == 1
    obj = ok(rfm("-u", net.bare, "destroy", "--force", "--json")).json()
    assert obj["forced"] is True
    assert not net.exists()
    assert held.release() == 0


def test_destroy_does_not_create_a_network(rfm, net):
    failed(rfm("-u", net.uri, "destroy"), "No such file")
    assert not net.exists()
