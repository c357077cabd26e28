# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm selftest --system (the machine's real-time checks) and rfm jitter."""
import json
import os
import resource
import shutil
import subprocess

import pytest

import conftest
from conftest import ok, usage_error

CHECK_KEYS = {
    "kernel_preempt", "isolcpus", "nohz_full", "cpu_governor", "cpu_idle", "irqbalance", "irq_affinity",
    "irq_thread",
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


def test_system_bad_rt_prio(rfm):
    for bad in ("0", "100", "x", "5x"):
        usage_error(rfm("selftest", "--system", "--rt-prio", bad), "--rt-prio must be 1..99",
                    "selftest")


FAKE_IRQ_THREAD = "irq/9-rfm-fake"


@pytest.fixture
def fake_irq_thread():
    """A process named as a card's interrupt thread is (the check goes by name), at
    SCHED_OTHER; it says ready once renamed and leaves when its stdin closes."""
    code = ("import ctypes, sys; ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0); "
            "print('ready', flush=True); sys.stdin.read()")
    proc = subprocess.Popen(["/usr/bin/python3", "-c", code, FAKE_IRQ_THREAD],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    yield proc
    proc.stdin.close()
    proc.wait(timeout=30)


def test_system_irq_thread_below_the_loop_fails(rfm, fake_irq_thread):
    report = check_report(rfm("selftest", "--system", "--rt-prio", "60", "--json"),
                          report_list(allowed_cpus()))
    assert report["rt_prio"] == 60
    check = report["checks"]["irq_thread"]
    assert check["status"] == "fail", check
    assert f"(pid {fake_irq_thread.pid}) not real-time 0" in check["finding"], check
    assert "not above the loop's 60" in check["finding"], check
    assert "irq_prio=61" in check["fix"] and f"chrt -f -p 61 " in check["fix"], check
    # Without the loop's priority: only a warning (not real-time at all).
    report = check_report(rfm("selftest", "--system", "--json"), report_list(allowed_cpus()))
    assert report["rt_prio"] == 0
    assert report["checks"]["irq_thread"]["status"] == "warn", report


def test_system_irq_thread_above_the_loop(rfm, fake_irq_thread):
    if os.geteuid() != 0 and resource.getrlimit(resource.RLIMIT_RTPRIO)[0] < 70:
        pytest.skip("SCHED_FIFO 70 needs root or RLIMIT_RTPRIO >= 70")
    os.sched_setscheduler(fake_irq_thread.pid, os.SCHED_FIFO, os.sched_param(70))
    cpus = allowed_cpus()
    check = check_report(rfm("selftest", "--system", "--rt-prio", "60", "--json"),
                         report_list(cpus))["checks"]["irq_thread"]
    assert check["status"] == "ok", check
    assert f"{FAKE_IRQ_THREAD} (pid {fake_irq_thread.pid}) SCHED_FIFO 70" in check["finding"]
    assert check_report(rfm("selftest", "--system", "--rt-prio", "70", "--json"),
                        report_list(cpus))["checks"]["irq_thread"]["status"] == "fail"
    if len(cpus) > 1:
        # Allowed on every CPU, the loop on one: it may land on either side.
        check = check_report(rfm("selftest", "--system", "--rt-prio", "60", "--cpu",
                                 str(cpus[-1]), "--json"), str(cpus[-1]))["checks"]["irq_thread"]
        assert check["status"] == "warn", check
        assert "smp_affinity_list" in check["fix"], check
        os.sched_setaffinity(fake_irq_thread.pid, {cpus[0]})
        check = check_report(rfm("selftest", "--system", "--rt-prio", "60", "--cpu",
                                 str(cpus[-1]), "--json"), str(cpus[-1]))["checks"]["irq_thread"]
        assert check["status"] == "ok", check


def test_jitter_timer_json(rfm):
    report = ok(rfm("jitter", "--rate", "2000", "--count", "200", "--json")).json()
    assert report["mode"] == "timer"
    assert report["count"] == 200
    assert report["rate_hz"] == 2000
    assert report["min_ns"] <= report["p50_ns"] <= report["p99_ns"] <= report["p999_ns"]
    assert report["p999_ns"] <= report["max_ns"]


def test_jitter_event_round_trip_locked_fifo(rfm, net, tmp_path):
    if os.geteuid() != 0 and resource.getrlimit(resource.RLIMIT_RTPRIO)[0] < 10:
        pytest.skip("SCHED_FIFO needs root or RLIMIT_RTPRIO >= 10")
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


def as_nobody(*args):
    """Run rfm as uid 65534 without capabilities (setpriv, util-linux)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        pytest.skip("needs root and setpriv to drop privileges")
    proc = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                           "--inh-caps=-all", "--bounding-set=-all", conftest.RFM, *args],
                          capture_output=True, text=True, timeout=60)
    return proc, resource.getrlimit(resource.RLIMIT_RTPRIO)[0]


def test_system_without_privilege_fails(rfm):
    proc, rtprio = as_nobody("selftest", "--system", "--json")
    report = json.loads(proc.stdout)
    if rtprio == 0:
        assert report["checks"]["rt_permission"]["status"] == "fail", report
        assert "CAP_SYS_NICE" in report["checks"]["rt_permission"]["finding"]
        assert "rtprio" in report["checks"]["rt_permission"]["fix"]
    failed = sum(c["status"] == "fail" for c in report["checks"].values())
    assert proc.returncode == (1 if failed else 0), proc


def test_jitter_without_privilege_says_why(rfm):
    proc, rtprio = as_nobody("jitter", "--count", "10", "--rt-prio", "10")
    if rtprio >= 10:
        pytest.skip("RLIMIT_RTPRIO allows priority 10 without privilege here")
    assert proc.returncode == 1, proc
    assert "SCHED_FIFO priority 10 refused" in proc.stderr
    assert "CAP_SYS_NICE" in proc.stderr and "RLIMIT_RTPRIO is 0" in proc.stderr
    assert proc.stdout == ""


# ---- rfm ping's real-time options (--rt-prio, --cpu, --echo-cpu, --lock-memory) ----

def need_fifo():
    if os.geteuid() != 0 and resource.getrlimit(resource.RLIMIT_RTPRIO)[0] < 10:
        pytest.skip("SCHED_FIFO needs root or RLIMIT_RTPRIO >= 10")


def test_ping_local_fifo_locked(rfm, net):
    """The pinger (and its --local echoer) SCHED_FIFO on a chosen CPU with memory locked."""
    need_fifo()
    cpu = allowed_cpus()[-1]
    obj = ok(rfm("-u", net.uri, "ping", "--local", "--mode", "event", "--count", "100",
                 "--warmup", "10", "--rt-prio", "10", "--cpu", str(cpu),
                 "--echo-cpu", str(allowed_cpus()[0]), "--lock-memory", "--json")).json()
    assert obj["count"] == 100
    assert obj["rt_prio"] == 10
    assert obj["cpus"] == str(cpu)
    assert obj["lock_memory"] is True


def test_ping_defaults_report_no_rt(rfm, net):
    obj = ok(rfm("-u", net.uri, "ping", "--local", "--count", "20", "--warmup", "0",
                 "--json")).json()
    assert (obj["rt_prio"], obj["cpus"], obj["lock_memory"]) == (0, "", False)
    text = ok(rfm("-u", net.uri, "ping", "--local", "--count", "20", "--warmup", "0",
                  "--cpu", str(allowed_cpus()[0]))).out
    assert f"default policy, CPUs {allowed_cpus()[0]}, memory not locked" in text


def test_ping_echo_runs_fifo(rfm, net):
    """--echo --rt-prio: the echo process itself is SCHED_FIFO at that priority."""
    need_fifo()
    echo = subprocess.Popen([conftest.RFM, "-u", net.node(2), "ping", "--echo", "--mode",
                             "event", "--count", "1000", "--timeout", "30000",
                             "--rt-prio", "7", "--lock-memory"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=conftest._environment())
    try:
        # Answered requests prove the echoer has set itself up; it then waits for more.
        ok(rfm("-u", net.node(1), "ping", "--mode", "event", "--peer", "2", "--count", "10",
               "--warmup", "0", "--timeout", "30000"))
        assert echo.poll() is None, echo.communicate()
        assert os.sched_getscheduler(echo.pid) == os.SCHED_FIFO
        assert os.sched_getparam(echo.pid).sched_priority == 7
    finally:
        echo.kill()
        echo.wait()


def test_ping_without_privilege_says_why(rfm):
    proc, rtprio = as_nobody("-u", "shm:nobody-may-not-open", "ping", "--local", "--count",
                             "10", "--rt-prio", "10")
    if rtprio >= 10:
        pytest.skip("RLIMIT_RTPRIO allows priority 10 without privilege here")
    assert proc.returncode == 1, proc
    assert "SCHED_FIFO priority 10 refused" in proc.stderr
    assert "CAP_SYS_NICE" in proc.stderr and "RLIMIT_RTPRIO is 0" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("args, message", [
    (("--rt-prio", "0"), "--rt-prio must be 1..99"),
    (("--rt-prio", "100"), "--rt-prio"),
    (("--cpu", "x"), "--cpu 'x' is not a CPU list"),
    (("--local", "--echo-cpu", "1-"), "--echo-cpu '1-' is not a CPU list"),
    (("--echo-cpu", "0"), "--echo-cpu places the --local echoer"),
])
def test_ping_bad_rt_options(rfm, net, args, message):
    usage_error(rfm("-u", net.uri, "ping", *args), message, "ping")


# ---- CPU lists naming a CPU the process may not run on ----

def cpu_list(cpus):
    """@cpus as the kernel writes a CPU list: "0-3,6"."""
    parts, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)


def unusable_cpu():
    """The lowest CPU not online or outside this process's affinity."""
    allowed = set(os.sched_getaffinity(0))
    return next(c for c in range(1024) if c not in allowed)


@pytest.mark.parametrize("command, args", [
    ("ping", ("--local", "--count", "3", "--cpu", "{first},{bad}")),
    ("ping", ("--local", "--count", "3", "--echo-cpu", "{bad}")),
    ("jitter", ("--count", "3", "--cpu", "{first},{bad}")),
])
def test_cpu_not_usable(rfm, net, command, args):
    """Refused before anything runs, naming the CPUs that may be used (as taskset)."""
    first, bad = allowed_cpus()[0], unusable_cpu()
    args = [a.format(first=first, bad=bad) for a in args]
    prefix = ("-u", net.uri) if command == "ping" else ()
    result = usage_error(rfm(*prefix, command, *args),
                         f"CPU {bad} is not online or not allowed to this process", command)
    assert f"it may use CPUs {cpu_list(os.sched_getaffinity(0))}" in result.err, result


def test_cpus_uri_not_usable(rfm, net):
    """The cpus= URI option: the library refuses the open, naming both lists."""
    first, bad = allowed_cpus()[0], unusable_cpu()
    result = conftest.failed(rfm("-u", f"{net.uri}&cpus={first},{bad}", "info"),
                             f"cpus names CPU {bad}, not online or not allowed")
    assert f"it may run on CPUs {cpu_list(os.sched_getaffinity(0))}" in result.err, result
    ok(rfm("-u", f"{net.uri}&cpus={first}", "info"))


def test_selftest_cpu_not_online(rfm):
    """selftest --system --cpu may check CPUs outside the affinity, not absent ones."""
    online = open("/sys/devices/system/cpu/online").read().strip()
    cpus = set()
    for part in online.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    absent = next(c for c in range(1024) if c not in cpus)
    usage_error(rfm("selftest", "--system", "--cpu", f"{min(cpus)},{absent}"),
                f"CPU {absent} is not online; the online CPUs are {online}", "selftest")
