# SPDX-License-Identifier: LGPL-2.1-or-later
"""The fault lab's test driver, shared by tests/hosts/test-faults-*.py.

netns-lab.sh `up N switch` makes N network namespaces joined by
tests/hosts/lab-switch, a userspace switch told over its control socket to
drop, duplicate, delay, reorder and partition frames; one
tests/hosts/fault-node (dds:) runs in each namespace, driven line by line:
every step waits for the node's answer (a ready signal), and every wait in
a node has a deadline that is only a hang guard. The switch's counters
prove that a fault really happened (a count, not a time).

Root, `ip netns`, /dev/net/tun and the dds: backend are needed: otherwise
exit 77 with the reason. The switch and the nodes are stopped by their
pids and the namespaces removed on every way out.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.join(HERE, "netns-lab.sh")
BUILD = os.path.abspath(".")
# Either may be replaced (a sanitizer build of it, say) through the environment.
NODE = os.environ.get("RFM_FAULT_NODE", os.path.join(BUILD, "tests", "hosts", "fault-node"))
SWITCH = os.environ.get("RFM_LAB_SWITCH", os.path.join(BUILD, "tests", "hosts", "lab-switch"))
GUARD_MS = 60000  # hang guard of each wait, not a timing assertion

INTR1, NODE_UP, NODE_DOWN, LINK = 1, 17, 18, 19
# The word no region owns (fault-node.h FN_CONTESTED): `contest` writes it.
CONTESTED = 0xF000
FIELDS = ("events", "skipped", "bad", "link_lost", "links", "ups", "downs",
          "rec_reads", "torn", "rec_back", "taken", "gap", "lost", "ring_bad")


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def check_prerequisites():
    if os.geteuid() != 0:
        skip("network namespaces need root")
    if not shutil.which("ip"):
        skip("no ip command (Debian: iproute2)")
    if not os.path.exists("/dev/net/tun"):
        skip("no /dev/net/tun: the fault lab's switch needs TAP devices")
    try:
        with open("config.h") as f:
            has_dds = "#define HAVE_DDS 1" in f.read()
    except OSError:
        has_dds = False
    if not has_dds:
        skip("librfm was built without Cyclone DDS (Debian: cyclonedds-dev cyclonedds-tools)")
    for prog in (NODE, SWITCH):
        if not os.path.exists(prog):
            skip(f"{prog} is not built")


class Node:
    """A fault-node in namespace K, node id K."""

    def __init__(self, lab, k, uri):
        self.k = k
        self.proc = subprocess.Popen([LAB, "exec", str(k), NODE, uri, str(lab.n)],
                                     env=lab.env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.proc.stdout.readline().strip()
        if line != f"ready {k}":
            raise AssertionError(f"node {k} did not start: {line!r}")

    def ask(self, cmd, quiet=False):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if not quiet:
            print(f"  node {self.k}: {cmd} -> {answer}")
        return answer

    def ok(self, cmd):
        answer = self.ask(cmd)
        assert answer == "ok", f"node {self.k}: {cmd}: {answer}"

    def count(self, etype, sender):
        parts = self.ask(f"count {etype} {sender}").split()
        assert parts[0] == "count", parts
        return int(parts[1])

    def wait(self, etype, sender, n):
        self.ok(f"wait {etype} {sender} {n} {GUARD_MS}")

    def report(self):
        """{sender: {field: value}}, and the node's own event stats."""
        parts = self.ask("report").split()
        assert parts[0] == "report", parts
        peers, stats = {}, None
        for p in parts[1:]:
            key, values = p.split(":")
            values = [int(v) for v in values.split(",")]
            if key == "stats":
                stats = dict(zip(("dropped", "refused", "forged"), values))
            else:
                peers[int(key)] = dict(zip(FIELDS, values))
        return peers, stats

    def kill(self):
        if self.proc.poll() is None:
            # The node is ip netns exec's child: exec replaces it, same pid.
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.ask("quit", quiet=True)
                self.proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.kill()


class Lab:
    """N namespaces on the switch, a Cyclone configuration, the nodes."""

    def __init__(self, n, general=""):
        """@general: more of Cyclone's <General> settings (XML)."""
        self.n = n
        self.nodes = {}
        self.tmp = tempfile.mkdtemp(prefix="rfm-faultlab-")
        env = dict(os.environ, RFM_LAB_SWITCH=SWITCH, RFM_LAB="")
        env["LD_LIBRARY_PATH"] = os.path.join(BUILD, "src", ".libs")
        up = subprocess.run([LAB, "up", str(n), "switch"], capture_output=True, text=True,
                            env=env)
        if up.returncode == 77:
            shutil.rmtree(self.tmp, ignore_errors=True)
            skip(up.stderr.strip())
        assert up.returncode == 0, up.stderr
        env["RFM_LAB"] = up.stdout.strip()
        self.env = env
        print(f"lab {env['RFM_LAB']}: {n} nodes on the switch, {self.ctl('seed')[0]}")
        # Discovery by multicast (the switch floods it to every port), data
        # by unicast, so every pair's rule applies to its own frames. A 2 s
        # participant lease: a partition of 5 s outlasts it.
        conf = os.path.join(self.tmp, "cyclone.xml")
        with open(conf, "w") as f:
            f.write('<CycloneDDS><Domain Id="any"><General><Interfaces>'
                    '<NetworkInterface name="eth0"/></Interfaces>'
                    '<AllowMulticast>spdp</AllowMulticast>' + general + '</General>'
                    '<Discovery><ParticipantIndex>auto</ParticipantIndex>'
                    '<MaxAutoParticipantIndex>20</MaxAutoParticipantIndex>'
                    '<LeaseDuration>2s</LeaseDuration></Discovery>'
                    '</Domain></CycloneDDS>')
        self.env["CYCLONEDDS_URI"] = "file://" + conf
        # A domain per test process, as the other dds: tests choose one.
        self.domain = 20 + os.getpid() % 200

    def ctl(self, *cmd):
        out = subprocess.run([LAB, "ctl", *cmd], env=self.env, capture_output=True, text=True)
        assert out.returncode == 0, f"switch: {' '.join(cmd)}: {out.stderr.strip()}"
        return out.stdout.splitlines()

    def stats(self):
        """{port: {counter: value}} and the switch's clock in ms."""
        ports, clock = {}, None
        for line in self.ctl("stats"):
            parts = line.split()
            if parts[0] == "port":
                ports[int(parts[1])] = {parts[i]: int(parts[i + 1])
                                        for i in range(2, len(parts), 2)}
            elif parts[0] == "clock":
                clock = int(parts[1])
        return ports, clock

    def start(self, k, lease_ms=2000):
        uri = (f"dds:faults?node={k}&size=512K&domain={self.domain}&lease={lease_ms}"
               f"&join=1000&depth=16384")
        self.nodes[k] = Node(self, k, uri)
        return self.nodes[k]

    def all(self, cmd, only=None):
        """Send @cmd to every node (or those in @only) first, then read every answer:
        they run at once."""
        nodes = {k: n for k, n in self.nodes.items() if only is None or k in only}
        for node in nodes.values():
            node.proc.stdin.write(cmd + "\n")
            node.proc.stdin.flush()
        answers = {}
        for k, node in nodes.items():
            answers[k] = node.proc.stdout.readline().strip()
            print(f"  node {k}: {cmd} -> {answers[k]}")
        return answers

    def all_ok(self, cmd, only=None):
        answers = self.all(cmd, only)
        failed = {k: a for k, a in answers.items() if a != "ok"}
        if failed:
            self.trace()
        for k, answer in failed.items():
            assert answer == "ok", f"node {k}: {cmd}: {answer}"

    def trace(self):
        """After a failed step: every node's accounts of every other (LINK reports,
        records reported lost), its event stats and the switch's counters, so that a
        failure in a loaded CI run says what each node saw."""
        for k, node in self.nodes.items():
            if node.proc.poll() is None:
                print(f"  trace: node {k}: {node.ask('report', quiet=True)}")
        for line in self.ctl("stats"):
            print(f"  trace: switch: {line}")

    def close(self):
        for node in self.nodes.values():
            node.stop()
        subprocess.run([LAB, "down"], env=self.env)
        shutil.rmtree(self.tmp, ignore_errors=True)

    # The steps every fault test takes.

    def boot(self, health_ms=200, misses=10, lease_ms=2000, before_last=None):
        """Every node up, its ring made and every other ring consumed, beating.
        @before_last, if given, runs before the last node opens (it joins a running
        network: its copy of the window, the others' rings in it, is a snapshot)."""
        for k in range(1, self.n):
            self.start(k, lease_ms)
        self.all_ok("ring-create")
        if before_last:
            before_last()
        self.start(self.n, lease_ms)
        self.all_ok("ring-create", only={self.n})
        self.all_ok(f"rings-open {GUARD_MS}")
        self.all_ok(f"health {health_ms} {misses}")
        for k, node in self.nodes.items():
            for s in self.nodes:
                if s != k:
                    node.wait(NODE_UP, s, 1)

    def traffic(self, first, count, pace_us):
        self.all_ok(f"traffic-start {first} {count} {pace_us}")
        for k, answer in self.all(f"traffic-wait {GUARD_MS}").items():
            assert answer == f"sent {count}", f"node {k}: traffic: {answer}"

    def settle(self, last):
        """Every node has every other's events and ring messages up to @last, or their loss
        reported."""
        for k, node in self.nodes.items():
            for s in self.nodes:
                if s != k:
                    node.ok(f"settle {s} {last} {GUARD_MS}")

    def converge(self, last, beats=True):
        """Every copy of the window the same, byte for byte, and each region holding what
        its one writer wrote last. With @beats, the beats are stopped first and compared
        too; without, the heartbeat table is left out (it moves while nodes beat)."""
        if beats:
            self.all_ok("health-stop")
        # Each node's last beat (its slot marked stopped) is one more write
        # on its stream: wait for the copies to agree, bounded by the guard.
        end = time.monotonic() + GUARD_MS / 1000
        cmd = "digest" if beats else "digest nobeats"
        while True:
            digests = {k: n.ask(cmd, quiet=True) for k, n in self.nodes.items()}
            if len(set(digests.values())) == 1 or time.monotonic() > end:
                break
            time.sleep(0.1)  # polls the copies for an eventual state, with the guard above
        print(f"  digests: {digests}")
        if len(set(digests.values())) != 1:
            # Which writer's words a copy lacks, and what each node counted.
            for k, node in self.nodes.items():
                for s in self.nodes:
                    if s != k:
                        node.ask(f"vars {s}")
                node.ask("report")
        assert len(set(digests.values())) == 1, f"copies differ: {digests}"
        assert digests[1].startswith("digest "), digests[1]
        for k, node in self.nodes.items():
            for s in self.nodes:
                if s != k:
                    want = f"vars {last} {last * 0.5:.1f} {last}"
                    got = node.ask(f"vars {s}")
                    assert got == want, f"node {k}: node {s}'s variables: {got}, not {want}"

    def account(self, sent):
        """Events, rings and records at every node, from every other node: nothing lost
        without a report, nothing twice, nothing out of order, nothing torn."""
        for k, node in self.nodes.items():
            peers, stats = node.report()
            assert stats["dropped"] == 0, f"node {k}: its event queue overflowed: {stats}"
            # Loss, disorder and partitions are no takeover (dds-digest.c).
            assert stats["forged"] == 0, f"node {k}: a stream seen taken over: {stats}"
            for s, p in peers.items():
                what = f"node {k} from node {s}: {p}"
                # Events: each one sent is here or covered by a LINK report.
                assert p["events"] + p["link_lost"] >= sent, "events lost unreported: " + what
                assert p["skipped"] <= p["link_lost"], "a gap no LINK covers: " + what
                assert p["bad"] == 0, "an event twice or out of order: " + what
                # Rings: in order, every gap one the loss counter reports.
                assert p["ring_bad"] == 0, "a ring message bad or out of order: " + what
                assert p["gap"] == p["lost"], "ring gap unlike the loss counter: " + what
                assert p["taken"] + p["lost"] == sent, "ring messages unaccounted: " + what
                # Records: read while written, never torn, never going back.
                assert p["rec_reads"] > 0, "its record never read: " + what
                assert p["torn"] == 0 and p["rec_back"] == 0, "a torn or older record: " + what
        return {k: n.report()[0] for k, n in self.nodes.items()}


def run(test):
    """Run @test(lab-maker) with prerequisites checked; 0 passes, 1 fails."""
    check_prerequisites()
    labs = []

    def terminated(signum, frame):
        raise SystemExit(f"killed by signal {signum}")  # the finally below cleans up

    signal.signal(signal.SIGTERM, terminated)
    signal.signal(signal.SIGHUP, terminated)

    def make(n, general=""):
        lab = Lab(n, general)
        labs.append(lab)
        return lab

    try:
        test(make)
        return 0
    finally:
        for lab in labs:
            lab.close()
