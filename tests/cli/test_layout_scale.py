# SPDX-License-Identifier: LGPL-2.1-or-later
"""A layout of 10 MB: checked, listed, turned into a header and read by region.

What this guards against is an algorithm that visits every variable once
per region (or record): `rfm layout check --list` did, and took 5 s for
8,000 regions and minutes for a 10 MB file, while plain `check` took a
fraction of a second.

How, without a timing assertion: the test measures the CPU time of the
linear baseline, `rfm layout check FILE` (reading, parsing, validating
and placing every item), in this run, on this build. Each other command
then runs under a CPU-time limit (RLIMIT_CPU) of 25 times that baseline
(10 s at least): they read the same file and do linear work on top of it,
so they use 1-3 times the baseline (on a loaded machine too: CPU time is
what a process used, not what the clock showed, and a sanitizer build
slows the baseline as much as the rest). A quadratic path at this size
needs 50-500 times the baseline, and the kernel stops it (SIGXCPU): the
test fails naming the command. Wide margins on both sides, so a failure
says "not linear", never "a slow machine".

The outputs are checked too: every region followed by its variables, the
header's last definitions, every variable of the wide region read.
"""
import resource
import subprocess

import pytest

from conftest import RFM, _environment

REGIONS = 20000  # each: two variables and a record of two (the 10 MB)
WIDE = 40000  # variables in one more region: reading it by name opens each
BUDGET_FACTOR = 25
BUDGET_MIN_S = 10


def write_layout(path):
    out = ["version: 1", "name: big", "window: 8M", "regions:"]
    for i in range(REGIONS):
        out.append(f"  - name: r{i}\n    offset: {i * 0x100:#x}\n    size: 0x100\n"
                   f"    writer: {i % 256}\n"
                   f"    description: region {i} of a layout made large on purpose\n"
                   f"    variables:\n"
                   f"      - {{ name: volts, type: f64, unit: V, description: supply {i} }}\n"
                   f"      - {{ name: state, type: u32, description: state word of region {i} }}\n"
                   f"    records:\n"
                   f"      - name: frame\n"
                   f"        variables:\n"
                   f"          - {{ name: cycle, type: u64 }}\n"
                   f"          - {{ name: pos, type: f32, count: 2, unit: mm }}")
    out.append(f"  - name: wide\n    offset: {REGIONS * 0x100:#x}\n    size: {WIDE * 4:#x}\n"
               f"    writer: 1\n    variables:")
    out.extend(f"      - {{ name: w{k}, type: u32 }}" for k in range(WIDE))
    text = "\n".join(out) + "\n"
    path.write_text(text)
    return len(text)


def cpu_run(args, limit_s=None):
    """Run rfm with @args (under RLIMIT_CPU @limit_s); (process, CPU seconds used)."""
    def limit():
        if limit_s:
            resource.setrlimit(resource.RLIMIT_CPU, (limit_s, limit_s + 5))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([RFM, *args], capture_output=True, env=_environment(),
                          preexec_fn=limit, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, used


def within(args, budget, what):
    proc, used = cpu_run(args, budget)
    assert proc.returncode >= 0, (
        f"{what}: stopped by signal {-proc.returncode} after {used:.1f} s of CPU, over "
        f"{budget} s ({BUDGET_FACTOR}x the plain check): a path that is not linear")
    assert proc.returncode == 0 and proc.stderr == b"", (what, proc.returncode, proc.stderr)
    print(f"{what}: {used:.2f} s CPU (budget {budget} s)")
    return proc.stdout.decode()


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("scale") / "big.yaml"
    size = write_layout(path)
    assert 10_000_000 < size < 12_500_000, size
    return str(path)


@pytest.fixture(scope="module")
def budget(big):
    proc, used = cpu_run(["layout", "check", big])
    assert proc.returncode == 0, proc.stderr
    variables = REGIONS * 4 + WIDE
    assert proc.stdout.decode() == (f"{big}: valid: {REGIONS + 1} regions, {REGIONS} records, "
                                    f"{variables} variables in a 8388608-byte window\n")
    budget = max(BUDGET_MIN_S, int(used * BUDGET_FACTOR) + 1)
    print(f"plain check: {used:.2f} s CPU; each command below may use {budget} s")
    return budget


def test_list_is_linear(big, budget):
    lines = within(["layout", "check", "--list", big], budget, "layout check --list").splitlines()
    assert len(lines) == (REGIONS + 1) + (REGIONS * 4 + WIDE) + 1
    # Each region, then its variables, records' members included, in order.
    assert lines[0] == "0x00000000      256  region r0 (writer 0): region 0 of a layout made large on purpose"
    assert lines[1] == "0x00000000        8    f64        r0.volts V"
    assert lines[2] == "0x00000008        4    u32        r0.state"
    assert lines[3].endswith("u64        r0.frame.cycle")
    assert lines[4].endswith("f32[2]     r0.frame.pos mm")
    assert lines[5].startswith("0x00000100      256  region r1 (writer 1)")
    last = REGIONS * 5
    assert lines[last].endswith("region wide (writer 1)")
    assert lines[last + WIDE].endswith(f"u32        wide.w{WIDE - 1}")


def test_header_is_linear(big, budget):
    text = within(["layout", "header", big], budget, "layout header")
    assert f"#define BIG_R{REGIONS - 1}_FRAME_POS_OFFSET" in text
    assert f"#define BIG_WIDE_W{WIDE - 1}_OFFSET UINT64_C(0x{REGIONS * 0x100 + (WIDE - 1) * 4:x})" in text
    assert text.rstrip().endswith("#endif /* BIG_LAYOUT_H */")


def test_reading_a_region_by_name_is_linear(big, budget, net):
    uri = f"{net.bare}?node=1&size=8M"
    out = within(["-u", uri, "get", "--layout", big, "wide"], budget, "get wide").splitlines()
    assert len(out) == WIDE
    assert out[0] == "wide.w0 = 0" and out[-1] == f"wide.w{WIDE - 1} = 0"
