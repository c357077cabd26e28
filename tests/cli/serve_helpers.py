# SPDX-License-Identifier: LGPL-2.1-or-later
"""Starting rfm serve for a test, talking HTTP to it, checking /metrics.

Shared by test_serve.py (the API) and test_serve_browser.py (the page).
"""
import http.client
import json
import os
import re
import signal
import subprocess

import pytest

from conftest import RFM, WINDOWS, _environment

LAYOUT = """\
version: 1
name: srv
window: 64K
regions:
  - name: ctl
    offset: 0
    size: 0x100
    writer: 1
    description: set-points
    variables:
      - { name: mode, type: u32, min: 0, max: 3 }
      - { name: temp, type: f64, unit: degC, min: -10, max: 80 }
      - { name: gains, type: f64, count: 3, unit: V }
      - { name: label, type: string, length: 8 }
  - name: log
    offset: 0x4000
    size: 0x8000
    writer: 2
    description: a ring
"""

def serve_built():
    """Whether this rfm has serve (configure found libmicrohttpd)."""
    if RFM is None:
        return True     # the fixtures fail with the runner's message
    r = subprocess.run([RFM, "serve", "--help"], capture_output=True, text=True, timeout=60)
    return "built without libmicrohttpd" not in r.stdout


NOT_BUILT = pytest.mark.skipif(
    not serve_built(), reason="rfm serve is not built: configure found no libmicrohttpd")

# ping's --hist-csv output: low_ns,high_ns,count,cumulative (a fraction).
HIST = ("low_ns,high_ns,count,cumulative\n1000,1999,5,0.090909\n2000,3999,40,0.818182\n"
        "4000,7999,10,1.000000\n")


class Server:
    """rfm serve in its own process, on a free port, stopped by PID."""

    def __init__(self, uri, *args):
        self.proc = subprocess.Popen([RFM, "-u", uri, "serve", "--port", "0", "--json", *args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=_environment(), text=True)
        # The ready signal: one JSON line once the server listens.
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=30)
            pytest.fail(f"rfm serve did not start: {self.proc.stderr.read()}")
        self.ready = json.loads(line)
        self.port = self.ready["port"]
        self.token = self.ready["token"]
        self.url = f"http://127.0.0.1:{self.port}"

    def request(self, method, path, body=None, headers=None, timeout=10):
        """(status, headers, body bytes) of one request; @path is sent as it is."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read()
        finally:
            conn.close()

    def get_json(self, path):
        status, headers, body = self.request("GET", path)
        assert status == 200, (path, status, body)
        assert headers["Content-Type"] == "application/json"
        return json.loads(body)

    def post(self, path, obj, token=None):
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        status, _, body = self.request("POST", path, json.dumps(obj), headers)
        return status, json.loads(body)

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode, err


@pytest.fixture
def serve(net, tmp_path):
    """start(*args) -> Server on @net as node 1 with the test layout and histogram."""
    layout = tmp_path / "srv.yaml"
    layout.write_text(LAYOUT)
    hist = tmp_path / "hist.csv"
    hist.write_text(HIST)
    servers = []

    def start(*args, node=1):
        s = Server(net.node(node), "--layout", str(layout), "--hist", str(hist), *args)
        s.layout = str(layout)
        servers.append(s)
        return s

    yield start
    for s in servers:
        rc, err = s.stop()
        # The Windows tool under wine takes no SIGTERM (Windows has no
        # signals): the launcher dies of it, and the exit status says so.
        assert rc == 0 or (WINDOWS and rc == -signal.SIGTERM), err


# ---- a strict checker of the Prometheus text exposition format (0.0.4) ----

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:\\[\\"n]|[^"\\\n])*"'
VALUE = r"(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|NaN|[+-]Inf)"
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL})(?:,{LABEL})*)?\}})? ({VALUE})(?: -?\d+)?$")
HELP = re.compile(rf"^# HELP ({NAME}) (.*)$")
TYPE = re.compile(rf"^# TYPE ({NAME}) (counter|gauge|histogram|summary|untyped)$")
LABEL_PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\[\\"n]|[^"\\\n])*)"')


def parse_metrics(text):
    """{name: {"help", "type", "samples": [(labels dict, float)]}}; asserts the grammar."""
    assert text.endswith("\n"), "the exposition ends with a newline"
    families = {}
    current = None
    for n, line in enumerate(text[:-1].split("\n"), 1):
        assert line, f"line {n}: empty line"
        m = HELP.match(line)
        if m:
            name = m.group(1)
            assert name not in families, f"line {n}: {name} declared twice"
            assert m.group(2).strip(), f"line {n}: empty HELP"
            families[name] = {"help": m.group(2), "type": None, "samples": []}
            current = name
            continue
        m = TYPE.match(line)
        if m:
            assert m.group(1) == current and families[current]["type"] is None, \
                f"line {n}: TYPE must follow its HELP once"
            families[current]["type"] = m.group(2)
            continue
        assert not line.startswith("#"), f"line {n}: a stray comment {line!r}"
        m = SAMPLE.match(line)
        assert m, f"line {n}: not a sample line: {line!r}"
        name = m.group(1)
        assert name == current, f"line {n}: sample of {name} outside its family {current}"
        assert families[name]["type"], f"line {n}: {name} has no TYPE"
        labels = dict(LABEL_PAIR.findall(m.group(2) or ""))
        value = float(m.group(3).replace("Inf", "inf"))
        if families[name]["type"] == "counter":
            assert name.endswith("_total"), f"counter {name} must end in _total"
            assert value >= 0, f"line {n}: a negative counter"
        assert labels not in [s[0] for s in families[name]["samples"]], \
            f"line {n}: {name}{labels} twice"
        families[name]["samples"].append((labels, value))
    for name, fam in families.items():
        assert fam["type"], f"{name} has no TYPE"
    return families


def sample(families, metric, **labels):
    """The value of the sample of @metric whose labels include @labels, or None."""
    for got, value in families[metric]["samples"]:
        if all(got.get(k) == v for k, v in labels.items()):
            return value
    return None
