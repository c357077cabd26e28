# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm ping across runs: an echoer serves until stopped, a request an aborted
run left behind trips no later echoer or pinger, Ctrl-C reports honestly, and
progress shows on a terminal only.
"""
import json
import os
import pty
import select
import signal
import subprocess

from conftest import RFM, _environment, ok


def start_echoer(net, *args):
    return subprocess.Popen([RFM, "-u", net.node(2), "ping", "--echo", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_environment())


def stop(proc):
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_echoer_runs_until_stopped(rfm, net):
    """The README's two-node ping: 1000 warm-up + 10000 requests, more than
    the 10000 the echoer used to stop after; Ctrl-C then ends the echoer."""
    echo = start_echoer(net, "--mode", "event", "--json")
    try:
        obj = ok(rfm("-u", net.node(1), "ping", "--mode", "event", "--peer", "2",
                     "--count", "10000", "--timeout", "30000", "--json")).json()
        assert obj["count"] == 10000 and obj["interrupted"] is False
        assert echo.poll() is None, echo.communicate()
        echo.send_signal(signal.SIGINT)
        out, err = echo.communicate(timeout=60)
    finally:
        stop(echo)
    assert echo.returncode == 130, err
    assert json.loads(out) == {"mode": "event", "echoed": 11000, "interrupted": True}


def abort_mid_session(rfm, net):
    """A pinger whose echoer leaves after 5 requests: the 6th stays behind."""
    echo = start_echoer(net, "--mode", "event", "--count", "5", "--timeout", "30000")
    try:
        r = rfm("-u", net.node(1), "ping", "--mode", "event", "--peer", "2",
                "--count", "10", "--warmup", "0", "--timeout", "300")
        echo.communicate(timeout=60)
    finally:
        stop(echo)
    # The 6th request finds the echoer gone, or leaving: either way it stays.
    assert r.rc == 3, r
    assert "within 300 ms" in r.err


def abort_before_echoer(rfm, net):
    """A pinger whose echoer never came: its opening request stays behind."""
    r = rfm("-u", net.node(1), "ping", "--mode", "event", "--peer", "2",
            "--count", "10", "--warmup", "0", "--timeout", "100")
    assert r.rc == 3, r
    assert "node 2 did not attach within 100 ms" in r.err


def test_new_echoer_ignores_request_left_mid_session(rfm, net):
    abort_mid_session(rfm, net)
    # It used to answer the old request and exit 1: "node 1 is not attached".
    r = rfm("-u", net.node(2), "ping", "--echo", "--mode", "event", "--timeout", "200")
    assert r.rc == 3, r
    assert r.err == "rfm: ping: no request within 200 ms\n", r


def test_new_echoer_survives_request_of_departed_pinger(rfm, net):
    abort_before_echoer(rfm, net)
    r = rfm("-u", net.node(2), "ping", "--echo", "--mode", "event", "--timeout", "200")
    assert r.rc == 3, r
    assert r.err == "rfm: ping: no request within 200 ms\n", r


def test_local_event_ping_after_aborted_run(rfm, net):
    """The --local echoer takes node 1, the id the stale request names as its
    sender: it used to fail with "node 1 is this node; enable loopback"."""
    abort_mid_session(rfm, net)
    obj = ok(rfm("-u", net.uri, "ping", "--local", "--mode", "event", "--count", "20",
                 "--warmup", "0", "--json")).json()
    assert obj["count"] == 20


def test_local_event_ping_after_pinger_without_echoer(rfm, net):
    abort_before_echoer(rfm, net)
    obj = ok(rfm("-u", net.uri, "ping", "--local", "--mode", "event", "--count", "20",
                 "--warmup", "0", "--json")).json()
    assert obj["count"] == 20


def test_two_node_ping_after_aborted_run(rfm, net):
    abort_mid_session(rfm, net)
    echo = start_echoer(net, "--mode", "event", "--count", "30", "--timeout", "30000",
                        "--json")
    try:
        obj = ok(rfm("-u", net.node(1), "ping", "--mode", "event", "--peer", "2",
                     "--count", "20", "--warmup", "10", "--timeout", "30000",
                     "--json")).json()
        out, err = echo.communicate(timeout=60)
    finally:
        stop(echo)
    assert obj["count"] == 20
    assert echo.returncode == 0, err
    assert json.loads(out)["echoed"] == 30


def read_until(fd, text, limit=60):
    """Read the terminal @fd until @text appears; return all that was read."""
    seen = b""
    while text.encode() not in seen:
        ready, _, _ = select.select([fd], [], [], limit)
        assert ready, f"no {text!r} on the terminal; got {seen!r}"
        seen += os.read(fd, 4096)
    return seen.decode()


def test_progress_on_a_terminal_and_ctrl_c(net):
    """At 1000 a second the run lasts over a second, so a progress report
    comes; Ctrl-C then prints the honest partial count and exits 130."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([RFM, "-u", net.uri, "ping", "--local", "--rate", "1000",
                             "--count", "1000000", "--warmup", "0", "--json"],
                            stdout=subprocess.PIPE, stderr=slave, env=_environment())
    os.close(slave)
    try:
        shown = read_until(master, "of 1000000 round trips")
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        stop(proc)
        os.close(master)
    assert "rfm ping: " in shown
    assert proc.returncode == 130
    obj = json.loads(out)
    assert obj["interrupted"] is True
    assert 0 < obj["count"] < 1000000


def test_no_progress_when_stderr_is_not_a_terminal(rfm, net):
    r = ok(rfm("-u", net.uri, "ping", "--local", "--rate", "1000", "--count", "1200",
               "--warmup", "0"))
    assert r.err == ""
