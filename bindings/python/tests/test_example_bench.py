# SPDX-License-Identifier: LGPL-2.1-or-later
"""examples/python/test_bench.py runs and passes (short, with a generous
deadline: this checks the example works, not how fast the machine is)."""

import os
import subprocess
import sys

from conftest import SOURCE_ROOT, network_name

EXAMPLE = os.path.join(SOURCE_ROOT, "examples", "python", "test_bench.py")


def test_hil_bench_example_passes():
    net = network_name("hil")
    result = subprocess.run(
        [sys.executable, EXAMPLE, "--network", net, "--deadline-ms", "2000", "--samples", "200"],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "HIL bench report"
    assert sum(1 for line in lines if line.strip().startswith("PASS")) == 6
    assert lines[-1] == "6/6 checks passed"
    assert not os.path.exists(f"/dev/shm/rfm-{net}")  # the example removed its network
