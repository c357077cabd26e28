# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm serve scraped by a real Prometheus (Debian's prometheus): a
generated config in a temporary directory, a loopback port of its own,
a scrape every second. Its query API must show node_up, heartbeat age,
variable values and event rates, and a killed node down within two
scrape intervals of its heartbeat stopping. promtool checks /metrics and
the shipped alerting rules (examples/prometheus/)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import RFM, _environment, ok
from serve_helpers import NOT_BUILT, serve  # noqa: F401 (fixture)

pytestmark = NOT_BUILT

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
SRCDIR = os.environ.get("RFM_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
RULES = os.path.join(SRCDIR, "examples", "prometheus")
need_prometheus = pytest.mark.skipif(not PROMETHEUS or not PROMTOOL,
                                     reason="prometheus is not installed (Debian: prometheus)")
LIMIT_S = 60        # a bound on each wait: Prometheus never seeing it fails the test
SCRAPE_S = 1


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Prometheus:
    def __init__(self, work, target):
        self.port = free_port()
        config = work / "prometheus.yml"
        config.write_text(f"""\
global:
  scrape_interval: {SCRAPE_S}s
  evaluation_interval: {SCRAPE_S}s
rule_files:
  - {RULES}/rfm-alerts.yml
scrape_configs:
  - job_name: rfm
    static_configs:
      - targets: ['{target}']
""")
        self.log = open(work / "prometheus.log", "w")
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={work / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.until(lambda: self.get("/-/ready") is not None, "ready")

    def get(self, path):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as r:
                return r.read()
        except OSError:
            assert self.proc.poll() is None, "prometheus exited"
            return None

    def query(self, expr):
        body = self.get("/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        if body is None:
            return None
        got = json.loads(body)
        assert got["status"] == "success", got
        return got["data"]["result"]

    def until(self, check, what):
        give_up = time.monotonic() + LIMIT_S
        while True:
            got = check()
            if got:
                return got
            assert time.monotonic() < give_up, f"prometheus: never {what} in {LIMIT_S} s"
            time.sleep(0.2)     # polling Prometheus's own API; it has no push signal

    def value(self, expr):
        """The single sample of @expr once Prometheus has it."""
        result = self.until(lambda: self.query(expr), f"had {expr}")
        assert len(result) == 1, result
        return float(result[0]["value"][1])

    def stop(self):
        os.kill(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=30)
        self.log.close()


@need_prometheus
def test_promtool_checks_metrics_and_rules(serve):
    s = serve()
    _, _, body = s.request("GET", "/metrics")
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True,
                       timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not r.stdout.strip() and not r.stderr.strip(), r.stdout + r.stderr
    r = subprocess.run([PROMTOOL, "check", "rules", os.path.join(RULES, "rfm-alerts.yml")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "SUCCESS: 6 rules found" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([PROMTOOL, "test", "rules", "rfm-alerts-test.yml"], cwd=RULES,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout + r.stderr


@need_prometheus
def test_promtool_checks_node_change_counters(serve, net):
    """rfm_node_down_total and rfm_node_up_total after a peer was killed
    and started again: counted once each, and promtool passes them."""
    from test_serve import next_snapshot, node_is
    from test_serve_stale import beating_node
    s = serve("--rate", "50")
    peer = beating_node(net, 4)
    try:
        next_snapshot(s, node_is(4, change="up", up_count=1))
        os.kill(peer.pid, signal.SIGKILL)
        peer.wait()
        next_snapshot(s, node_is(4, change="down", down_count=1))
        peer = beating_node(net, 4)
        next_snapshot(s, node_is(4, change="up", up_count=2))
        _, _, body = s.request("GET", "/metrics")
    finally:
        if peer.poll() is None:
            os.kill(peer.pid, signal.SIGKILL)
            peer.wait()
    text = body.decode()
    assert 'rfm_node_down_total{node="4"} 1\n' in text, text
    assert 'rfm_node_up_total{node="4"} 2\n' in text, text
    assert "# TYPE rfm_node_down_total counter\n" in text
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True,
                       timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not r.stdout.strip() and not r.stderr.strip(), r.stdout + r.stderr


@need_prometheus
def test_prometheus_scrapes_serve(serve, rfm, net, tmp_path):
    s = serve("--rate", "20")
    beater = subprocess.Popen([RFM, "-u", net.node(4), "listen", "--event", "node_up"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=_environment())
    prom = Prometheus(tmp_path, f"127.0.0.1:{s.port}")
    try:
        ok(rfm("-u", net.node(2), "set", "--force", "--layout", s.layout, "ctl.temp", "42.25"))
        assert prom.value('up{job="rfm"}') == 1
        assert prom.value('rfm_var_value{name="ctl.temp"}') == 42.25
        assert prom.value('rfm_node_up{node="1"}') == 1
        prom.until(lambda: prom.query('rfm_node_up{node="4"} == 1'), "saw node 4 up")
        age = prom.value('rfm_heartbeat_age_seconds{node="4"}')
        assert 0 <= age < 5
        assert prom.value('rfm_heartbeat_period_seconds{node="4"}') == pytest.approx(0.1)
        # Event rates: node 2 sends intr2 records to the server's node.
        for _ in range(5):
            ok(rfm("-u", net.node(2), "send", "--to", "1", "--event", "intr2", "--data", "7"))
        prom.until(lambda: prom.query(
            'rfm_events_received_by_node_total{node="2",type="intr2"} == 5'), "counted 5 intr2")
        prom.until(lambda: prom.query(
            'rate(rfm_events_received_total{type="intr2"}[10s]) > 0'), "saw an intr2 rate")
        assert prom.value('rfm_var_stale{name="ctl.temp"}') == 0

        # Killed: its heartbeat stops; node_up drops within two scrapes of that.
        os.kill(beater.pid, signal.SIGKILL)
        beater.wait()
        killed = time.time()
        prom.until(lambda: prom.query('rfm_node_up{node="4"} == 0'), "saw node 4 down")
        # Counted in scrapes, from the stored samples: at most two after the
        # kill still said up (its misses take 0.3 s; a scrape asks the table).
        result = prom.query(f'rfm_node_up{{node="4"}}[{int(time.time() - killed) + 5}s]')
        samples = [(float(t), float(v)) for t, v in result[0]["values"]]
        after = [v for t, v in samples if t > killed]
        assert 0 in after
        assert after.index(0) <= 2, (killed, samples)
        assert all(v == 0 for v in after[after.index(0):]), samples
        rules = json.loads(prom.get("/api/v1/rules"))["data"]["groups"][0]["rules"]
        assert {r["name"] for r in rules} >= {"RfmNodeDown", "RfmValueStale"}
        assert all(r["health"] == "ok" for r in rules), rules
    finally:
        if beater.poll() is None:
            os.kill(beater.pid, signal.SIGKILL)
            beater.wait()
        prom.stop()
