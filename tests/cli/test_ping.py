# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm ping: runs, options, exit codes, JSON keys, the histogram CSV.

Small counts and no timing assertions: the figures only have to be
consistent with each other (min <= P50 <= ... <= max, one way = half).
"""
import csv
import json
import subprocess

import pytest

from conftest import RFM, _environment, failed, ok, usage_error

SMALL = ("--count", "200", "--warmup", "20")
PCT_KEYS = ("min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")


def check_summary(obj):
    values = [obj[k] for k in PCT_KEYS]
    assert values == sorted(values), obj
    assert values[0] > 0
    assert obj["min_ns"] <= obj["mean_ns"] <= obj["max_ns"]


@pytest.mark.parametrize("mode", ["spin", "event", "ring"])
def test_local_json(rfm, net, mode):
    r = ok(rfm("-u", net.uri, "ping", "--local", "--mode", mode, "--json", *SMALL))
    obj = r.json()
    for key in ("mode", "count", "min_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns",
                "mean_ns", "p90_ns", "warmup", "size", "rate_hz", "late_sends", "one_way"):
        assert key in obj, key
    assert obj["mode"] == mode
    assert obj["count"] == 200
    assert obj["warmup"] == 20
    assert obj["size"] == 0
    assert obj["rate_hz"] == 0
    check_summary(obj)
    check_summary(obj["one_way"])
    for k in PCT_KEYS:
        assert obj["one_way"][k] == obj[k] // 2
    if mode == "event":
        assert obj["peer"] != obj["node"]
    # The forked echoer left: the network has no second node attached.
    assert net.exists()


def test_local_text_output(rfm, net):
    r = ok(rfm("-u", net.uri, "ping", "--local", *SMALL))
    lines = r.out.splitlines()
    assert lines[0].startswith("rfm ping: spin mode, 200 round trips, 0-byte payload, "
                               "back to back")
    assert lines[1].split()[:7] == ["min", "mean", "P50", "P90", "P99", "P99.9", "max"]
    assert lines[2].split()[:2] == ["round", "trip"]
    assert lines[3].split()[:2] == ["one", "way"]
    assert lines[4] == "round trips:"
    # The histogram: one line per power of two, counts adding up to --count.
    total = sum(int(line.split("|")[0].split()[-1]) for line in lines[5:])
    assert total == 200


def test_hist_csv(rfm, net, tmp_path):
    path = tmp_path / "hist.csv"
    obj = ok(rfm("-u", net.uri, "ping", "--local", "--mode", "event", "--json",
                 "--hist-csv", str(path), *SMALL)).json()
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["low_ns", "high_ns", "count", "cumulative"]
    body = [(int(a), int(b), int(c), float(d)) for a, b, c, d in rows[1:]]
    assert body
    assert sum(c for _, _, c, _ in body) == obj["count"]
    lows = [lo for lo, _, _, _ in body]
    assert lows == sorted(lows) and len(set(lows)) == len(lows)
    for lo, hi, count, _ in body:
        assert lo <= hi and count > 0
    cumulative = [c for _, _, _, c in body]
    assert cumulative == sorted(cumulative)
    assert cumulative[-1] == pytest.approx(1.0)
    assert body[0][0] <= obj["min_ns"] <= body[0][1]
    assert body[-1][0] <= obj["max_ns"] <= body[-1][1]


def test_rate_and_size(rfm, net):
    obj = ok(rfm("-u", net.uri, "ping", "--local", "--json", "--rate", "20000",
                 "--size", "1000", "--count", "100", "--warmup", "10")).json()
    assert obj["rate_hz"] == 20000
    assert obj["size"] == 1000
    assert obj["count"] == 100
    assert 0 <= obj["late_sends"] <= 100
    check_summary(obj)


def test_cpu_pinning(rfm, net):
    ok(rfm("-u", net.uri, "ping", "--local", "--cpu", "0", "--echo-cpu", "0", *SMALL))


def test_echo_on_another_node(rfm, net):
    """The echo side as its own process; the pinger starts second (spin) or first."""
    echo = subprocess.Popen([RFM, "-u", net.node(2), "ping", "--echo", "--mode", "event",
                             "--count", "60", "--timeout", "30000", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_environment())
    try:
        obj = ok(rfm("-u", net.node(1), "ping", "--mode", "event", "--peer", "2",
                     "--count", "50", "--warmup", "10", "--timeout", "30000",
                     "--json")).json()
        out, err = echo.communicate(timeout=60)
    finally:
        if echo.poll() is None:
            echo.kill()
            echo.wait()
    assert obj["peer"] == 2 and obj["node"] == 1 and obj["count"] == 50
    assert echo.returncode == 0, err
    assert json.loads(out) == {"mode": "event", "echoed": 60, "interrupted": False}


def test_no_echo_times_out(rfm, net):
    r = rfm("-u", net.node(1), "ping", "--count", "1", "--warmup", "0", "--timeout", "20")
    assert r.rc == 3, r
    assert "no echo within 20 ms" in r.err
    assert r.out == ""


def test_echo_without_requests_times_out(rfm, net):
    r = rfm("-u", net.node(2), "ping", "--echo", "--timeout", "20")
    assert r.rc == 3, r
    assert "no request within 20 ms" in r.err


def test_ring_local_count(rfm, net, tmp_path):
    """Ring mode with its default warmup, a payload, a rate and the CSV."""
    path = tmp_path / "ring.csv"
    obj = ok(rfm("-u", net.uri, "ping", "--local", "--mode", "ring", "--count", "200",
                 "--size", "1024", "--rate", "20000", "--offset", "4096", "--json",
                 "--hist-csv", str(path))).json()
    assert obj["mode"] == "ring" and obj["count"] == 200 and obj["warmup"] == 1000
    assert obj["size"] == 1024 and obj["rate_hz"] == 20000 and obj["offset"] == 4096
    assert "peer" not in obj
    check_summary(obj)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert sum(int(r[2]) for r in rows[1:]) == 200


def test_ring_text_output(rfm, net):
    r = ok(rfm("-u", net.uri, "ping", "--local", "--mode", "ring", "--size", "64", *SMALL))
    assert r.out.startswith("rfm ping: ring mode, 200 round trips, 64-byte payload, ")


@pytest.mark.parametrize("echo_first", [True, False])
def test_ring_echo_on_another_node(rfm, net, echo_first):
    """Two processes, either started first: the handshake finds the peer."""
    def start_echo():
        return subprocess.Popen([RFM, "-u", net.node(2), "ping", "--echo", "--mode", "ring",
                                 "--count", "60", "--timeout", "30000", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=_environment())
    ping_cmd = [RFM, "-u", net.node(1), "ping", "--mode", "ring", "--size", "100",
                "--count", "50", "--warmup", "10", "--timeout", "30000", "--json"]
    echo = start_echo() if echo_first else None
    pinger = subprocess.Popen(ping_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=_environment())
    try:
        if echo is None:
            echo = start_echo()
        out, err = pinger.communicate(timeout=60)
        assert pinger.returncode == 0, err
        obj = json.loads(out)
        eout, eerr = echo.communicate(timeout=60)
    finally:
        for proc in (pinger, echo):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    assert obj["mode"] == "ring" and obj["node"] == 1 and obj["count"] == 50
    check_summary(obj)
    # Handshakes are not counted: exactly warmup + count requests.
    assert echo.returncode == 0, eerr
    assert json.loads(eout) == {"mode": "ring", "echoed": 60, "interrupted": False}


def test_ring_no_echo_times_out(rfm, net):
    r = rfm("-u", net.node(1), "ping", "--mode", "ring", "--count", "1", "--timeout", "20")
    assert r.rc == 3, r
    assert "no echo ring at offset" in r.err and "within 20 ms" in r.err
    assert r.out == ""


def test_ring_echo_without_pinger_times_out(rfm, net):
    r = rfm("-u", net.node(2), "ping", "--echo", "--mode", "ring", "--timeout", "20")
    assert r.rc == 3, r
    assert "no request within 20 ms" in r.err


def test_ring_offset_outside_window(rfm, net):
    r = rfm("-u", net.uri, "ping", "--local", "--mode", "ring", "--offset",
            str(64 * 1024 - 64), *SMALL)
    failed(r, "lie outside the 65536-byte window")


def test_csv_unwritable(rfm, net, tmp_path):
    r = rfm("-u", net.uri, "ping", "--local", "--hist-csv", str(tmp_path / "no" / "x.csv"),
            *SMALL)
    failed(r, "cannot write")


def test_offset_outside_window(rfm, net):
    failed(rfm("-u", net.uri, "ping", "--local", "--offset", str(64 * 1024 - 64), *SMALL),
           "128 bytes at offset 0xffc0 lie outside the 65536-byte window")


@pytest.mark.parametrize("args,message", [
    (("--mode", "bogus"), "unknown mode 'bogus' (use spin, event or ring)"),
    (("--mode", "ring", "--offset", "8"), "ring mode: offset 8 is not a multiple of 64"),
    (("--mode", "ring", "--peer", "1"), "ring mode takes no --peer"),
    (("--mode", "ring", "--echo", "--local"), "exclude each other"),
    (("--mode", "ring", "--echo", "--hist-csv", "x"), "--echo takes only"),
    (("--count", "0"), "count must be at least 1"),
    (("--count", "-1"), "negative"),
    (("--count", "ten"), "count"),
    (("--size", "65537"), "size"),
    (("--offset", "3"), "not a multiple of 8"),
    (("--echo", "--local"), "exclude each other"),
    (("--echo", "--rate", "10"), "--echo takes only"),
    (("--mode", "event"), "needs --peer"),
    (("--peer", "256"), "peer node"),
    (("--cpu", "x"), "CPU"),
    (("--cpu", "0,"), "CPU"),
    (("--timeout",), "needs an argument"),
    (("--frobnicate",), "unknown option '--frobnicate'"),
    (("extra",), "argument"),
])
def test_bad_options(rfm, net, args, message):
    usage_error(rfm("-u", net.uri, "ping", *args), message, "ping")


def test_help(rfm):
    r = ok(rfm("ping", "--help"))
    for word in ("--mode", "--count", "--warmup", "--rate", "--size", "--cpu", "--peer",
                 "--timeout", "--hist-csv", "--echo", "--local", "p999_ns", "--rt-prio",
                 "--echo-cpu", "--lock-memory", "rt_prio"):
        assert word in r.out, word


PING_LAYOUT = """\
version: 1
name: pinglayout
window: 1M
regions:
  - name: control
    offset: 0
    size: 0x1000
    writer: 0
    variables:
      - { name: mode, type: u32, min: 0, max: 3 }
"""


@pytest.mark.parametrize("mode", ["spin", "event", "ring"])
def test_ping_keeps_off_other_nodes_regions(rfm, net, tmp_path, mode):
    """Under $RFM_LAYOUT, ping's slots never land in another node's region
    (the README's ping at offset 0 once overwrote region control)."""
    layout = tmp_path / "ping.yaml"
    layout.write_text(PING_LAYOUT)
    env = {"RFM_LAYOUT": str(layout)}
    ok(rfm("-u", f"{net.bare}?node=0&size=1M", "poke32", "0", "2", env=env))
    failed(rfm("-u", f"{net.bare}?node=1&size=1M", "ping", "--local", "--mode", mode,
               *SMALL, env=env),
           "refusing to write at 0x0: region 'control' belongs to node 0, this is node 1 "
           "(give --offset outside the other nodes' regions, or unset RFM_LAYOUT)")
    ok(rfm("-u", f"{net.bare}?node=1&size=1M", "ping", "--local", "--mode", mode,
           "--offset", "64K", *SMALL, env=env))
    assert ok(rfm("-u", f"{net.bare}?node=0&size=1M", "peek32", "0")).out.strip() == "0x00000002"
