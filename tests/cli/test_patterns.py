# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm fill and rfm verify: the patterns' bytes, verification and mismatch reports."""
import struct
import sys

import pytest

from conftest import WINDOW, failed, ok, usage_error

ORDER = "<" if sys.byteorder == "little" else ">"


def window_bytes(rfm, net, offset, length):
    return ok(rfm("-u", net.uri, "read", str(offset), str(length), binary=True)).raw


@pytest.mark.parametrize("pattern,expected", [
    ("zero", lambda x: 0),
    ("ones", lambda x: 0xff),
    ("incr", lambda x: x & 0xff),
])
def test_byte_patterns(rfm, net, pattern, expected):
    ok(rfm("-u", net.uri, "fill", "0", "512", "--pattern", "ones"))
    assert ok(rfm("-u", net.uri, "fill", "0x81", "300", "--pattern", pattern)).out == ""
    data = window_bytes(rfm, net, 0x80, 302)
    assert data[0] == 0xff and data[-1] == 0xff              # nothing outside the range
    assert data[1:-1] == bytes(expected(x) for x in range(0x81, 0x81 + 300))
    assert ok(rfm("-u", net.uri, "verify", "0x81", "300", "-p", pattern)).out == (
        f"ok: 300 bytes at 0x81 match pattern {pattern}\n")


def test_addr_pattern_holds_each_words_offset(rfm, net):
    ok(rfm("-u", net.uri, "fill", "0x400", "0x100", "--pattern", "addr"))
    for offset in (0x400, 0x404, 0x4fc):
        assert ok(rfm("-u", net.uri, "peek32", hex(offset))).out == f"0x{offset:08x}\n"
    data = window_bytes(rfm, net, 0x400, 0x100)
    assert data == b"".join(struct.pack(ORDER + "I", x) for x in range(0x400, 0x500, 4))
    ok(rfm("-u", net.uri, "verify", "0x400", "0x100", "--pattern", "addr"))


def test_value_pattern_repeats_a_32_bit_word(rfm, net):
    ok(rfm("-u", net.uri, "fill", "64", "32", "--pattern", "0xdeadbeef"))
    for offset in range(64, 96, 4):
        assert ok(rfm("-u", net.uri, "peek32", str(offset))).out == "0xdeadbeef\n"
    ok(rfm("-u", net.uri, "fill", "128", "8", "--pattern", "7"))
    assert window_bytes(rfm, net, 128, 8) == struct.pack(ORDER + "II", 7, 7)
    obj = ok(rfm("-u", net.uri, "verify", "64", "32", "-p", "0xdeadbeef", "--json")).json()
    assert obj["pattern"] == "0xdeadbeef" and obj["ok"] is True


def test_random_pattern_is_reproducible_and_seeded(rfm, net):
    ok(rfm("-u", net.uri, "fill", "0", "4096", "--pattern", "random", "--seed", "7"))
    first = window_bytes(rfm, net, 0, 4096)
    ok(rfm("-u", net.uri, "fill", "0", "4096", "--pattern", "zero"))
    ok(rfm("-u", net.uri, "fill", "0", "4096", "--pattern", "random", "--seed", "7"))
    assert window_bytes(rfm, net, 0, 4096) == first
    assert len(set(first)) > 200                        # it is not a constant
    ok(rfm("-u", net.uri, "fill", "0", "4096", "--pattern", "random", "--seed", "8"))
    other = window_bytes(rfm, net, 0, 4096)
    assert other != first
    # The default seed is 1, and is reported.
    ok(rfm("-u", net.uri, "fill", "0", "4096", "--pattern", "random"))
    obj = ok(rfm("-u", net.uri, "verify", "0", "4096", "-p", "random", "-s", "1",
                 "--json")).json()
    assert obj["ok"] is True and obj["seed"] == 1


def test_any_sub_range_verifies_from_any_node(rfm, net):
    ok(rfm("-u", net.node(1), "fill", "0", str(WINDOW), "--pattern", "random", "--seed", "99"))
    for offset, length in ((0, WINDOW), (3, 5), (1001, 7777), (WINDOW - 1, 1)):
        r = ok(rfm("-u", net.node(2), "verify", str(offset), str(length),
                   "--pattern", "random", "--seed", "99"))
        assert r.out.startswith("ok: ")
    ok(rfm("-u", net.node(3), "fill", "10", "100", "-p", "incr"))
    ok(rfm("-u", net.node(4), "verify", "50", "20", "-p", "incr"))


def test_verify_reports_mismatches(rfm, net):
    ok(rfm("-u", net.uri, "fill", "0", "1024", "--pattern", "incr"))
    ok(rfm("-u", net.uri, "poke8", "0x123", "0x00"))    # expected 0x23
    ok(rfm("-u", net.uri, "poke8", "0x200", "0x55"))    # expected 0x00
    ok(rfm("-u", net.uri, "poke8", "0x3ff", "0xff"))    # expected 0xff: still a match
    r = rfm("-u", net.uri, "verify", "0", "1024", "--pattern", "incr")
    assert r.rc == 3, r
    assert r.err == ""
    assert r.out == ("MISMATCH: 2 of 1024 bytes at 0x0 differ from pattern incr; "
                     "first at 0x123: expected 0x23, found 0x00\n")

    r = rfm("-u", net.uri, "verify", "0", "1024", "--pattern", "incr", "--json")
    assert r.rc == 3, r
    assert r.json() == {"offset": 0, "length": 1024, "pattern": "incr", "ok": False,
                        "mismatches": 2,
                        "first_mismatch": {"offset": 0x123, "expected": 0x23, "actual": 0}}
    # Outside the damaged bytes, the range still verifies.
    obj = ok(rfm("-u", net.uri, "verify", "0x124", "0xdc", "-p", "incr", "--json")).json()
    assert obj["ok"] is True and obj["mismatches"] == 0 and obj["first_mismatch"] is None


def test_verify_counts_every_mismatched_byte(rfm, net):
    ok(rfm("-u", net.uri, "fill", "0", "256", "--pattern", "ones"))
    r = rfm("-u", net.uri, "verify", "0", "512", "--pattern", "ones", "--json")
    assert r.rc == 3
    assert r.json()["mismatches"] == 256
    assert r.json()["first_mismatch"] == {"offset": 256, "expected": 255, "actual": 0}


def test_fill_json(rfm, net):
    obj = ok(rfm("-u", net.uri, "fill", "16", "32", "-p", "random", "-s", "5", "--json")).json()
    assert obj == {"offset": 16, "length": 32, "pattern": "random", "seed": 5}
    obj = ok(rfm("-u", net.uri, "--json", "fill", "16", "32", "-p", "zero")).json()
    assert obj == {"offset": 16, "length": 32, "pattern": "zero"}


@pytest.mark.parametrize("command", ["fill", "verify"])
def test_range_outside_the_window_touches_nothing(rfm, net, command):
    ok(rfm("-u", net.uri, "info"))
    failed(rfm("-u", net.uri, command, str(WINDOW - 16), "17", "-p", "ones"),
           "outside the 65536-byte window")
    failed(rfm("-u", net.uri, command, "0", "99999999999", "-p", "ones"),
           "outside the 65536-byte window")
    ok(rfm("-u", net.uri, "verify", "0", str(WINDOW), "-p", "zero"))


@pytest.mark.parametrize("args,message", [
    ([], "--pattern is required"),
    (["-p", "stripes"], "unknown pattern 'stripes'"),
    (["-p", "0x100000000"], "too large"),
    (["-p", "12z"], "is not a number"),
    (["-p", "incr", "--seed", "3"], "--seed applies only to --pattern random"),
    (["-p", "random", "--seed", "-3"], "negative"),
    (["-p", "random", "--seed", "x"], "is not a number"),
])
@pytest.mark.parametrize("command", ["fill", "verify"])
def test_bad_pattern_arguments(rfm, net, command, args, message):
    usage_error(rfm("-u", net.uri, command, "0", "16", *args), message, command)
    assert not net.exists()
