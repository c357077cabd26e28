# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm selftest --system (the machine's real-time checks) and rfm jitter."""
import os

from conftest import ok, usage_error

CHECK_KEYS = {
    "kernel_preempt", "isolcpus", "nohz_full", "cpu_governor", "cpu_idle", "irqbalance", "irq_affinity",
    "transparent_hugepages", "swap", "timer_slack", "rt_throttling", "rt_permission",
    "memlock_limit", "hugepages",
}
STATUSES = {"ok", "warn", "fail", "unknown"}


def allowed_cpus():
    return sorted(os.sched_getaffinity(0))


def check_report(result, cpus):
    """Every check present with its fields; the exit code says whether one failed."""
    assert result.rc in (0, 1), result
    report = result.json()
    assert set(report["checks"]) == CHECK_KEYS, report
    for key, check in report["checks"].items():
        assert check["status"] in STATUSES, (key, check)
        assert isinstance(check["finding"], str) and check["finding"], (key, check)
        assert isinstance(check["fix"], str), (key, check)
        if check["status"] in ("warn", "fail"):
            assert check["fix"], (key, check)
    failed = sum(c["status"] == "fail" for c in report["checks"].values())
    warned = sum(c["status"] == "warn" for c in report["checks"].values())
    assert report["failed"] == failed
    assert report["warnings"] == warned
    assert report["passed"] == (failed == 0)
    assert result.rc == (1 if failed else 0), result
    assert report["cpus"] == cpus
    return report


def test_system_json_every_check(rfm):
    report = check_report(rfm("selftest", "--system", "--json"), report_list(allowed_cpus()))
    assert report["cpus_chosen"] is False
    # Without --cpu nothing is chosen, so CPU-specific problems are only warnings.
    for key in ("isolcpus", "cpu_governor", "cpu_idle"):
        assert report["checks"][key]["status"] != "fail", report


def report_list(cpus):
    """The kernel's compact CPU list ("0-1,3") of a sorted list of ids."""
    parts, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            parts.append(f"{start}-{c}" if c > start else f"{c}")
            start = None
    return ",".join(parts)


def test_system_chosen_cpu_matches_isolation(rfm):
    cpu = allowed_cpus()[-1]
    report = check_report(rfm("selftest", "--system", "--cpu", str(cpu), "--json"), str(cpu))
    assert report["cpus_chosen"] is True
    with open("/sys/devices/system/cpu/isolated") as f:
        isolated = f.read().strip()
    isolated_cpus = set()
    for part in filter(None, isolated.split(",")):
        lo, _, hi = part.partition("-")
        isolated_cpus.update(range(int(lo), int(hi or lo) + 1))
    expect = "ok" if cpu in isolated_cpus else "fail"
    assert report["checks"]["isolcpus"]["status"] == expect, report


def test_system_text_lists_fixes(rfm):
    result = rfm("selftest", "--system")
    assert result.rc in (0, 1), result
    assert "System check for a real-time loop on CPUs" in result.out
    assert "RT throttling" in result.out and "memory lock limit" in result.out
    last = result.out.splitlines()[-1]
    assert ("FAILED" in last) == (result.rc == 1), result


def test_system_bad_cpu_list(rfm):
    usage_error(rfm("selftest", "--system", "--cpu", "1-"), "--cpu '1-' is not a CPU list",
                "selftest")


def test_jitter_timer_json(rfm):
    report = ok(rfm("jitter", "--rate", "2000", "--count", "200", "--json")).json()
    assert report["mode"] == "timer"
    assert report["count"] == 200
    assert report["rate_hz"] == 2000
    assert report["min_ns"] <= report["p50_ns"] <= report["p99_ns"] <= report["p999_ns"]
    assert report["p999_ns"] <= report["max_ns"]


def test_jitter_event_round_trip_locked_fifo(rfm, net, tmp_path):
    cpu = allowed_cpus()[-1]
    csv = tmp_path / "jitter.csv"
    report = ok(rfm("-u", net.uri, "jitter", "--mode", "event", "--rate", "1000",
                    "--count", "200", "--rt-prio", "10", "--cpu", str(cpu), "--lock-memory",
                    "--hist-csv", str(csv), "--json")).json()
    assert report["mode"] == "event"
    assert report["count"] == 200
    assert report["rt_prio"] == 10
    assert report["cpus"] == str(cpu)
    assert report["lock_memory"] is True
    rows = csv.read_text().splitlines()
    assert rows[0] == "low_ns,high_ns,count,cumulative"
    assert sum(int(r.split(",")[2]) for r in rows[1:]) == 200
    assert float(rows[-1].split(",")[3]) == 1.0


def test_jitter_bad_options(rfm):
    usage_error(rfm("jitter", "--mode", "spin"), "--mode must be timer or event", "jitter")
    usage_error(rfm("jitter", "--rt-prio", "0"), "--rt-prio must be 1..99", "jitter")
    usage_error(rfm("jitter", "--cpu", "x"), "--cpu 'x' is not a CPU list", "jitter")
