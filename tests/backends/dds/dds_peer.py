# SPDX-License-Identifier: LGPL-2.1-or-later
"""Driving tests/backends/dds/dds-peer, one node in a process of its own,
line by line: every step waits for the peer's answer (its ready signal),
and every wait inside the peer has a deadline that is only a hang guard.

Used by test-dds-hosts.py (a peer per network namespace) and
security/test-dds-security.py (a peer per node on loopback).
"""
import os
import signal
import subprocess

GUARD_MS = 20000  # hang guard of each wait, not a timing assertion


class Peer:
    """A dds-peer started as @argv (its last argument the node's URI), node id @k."""

    def __init__(self, argv, env, k, label="peer"):
        self.k = k
        self.label = label
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.proc.stdout.readline().strip()
        if line != f"ready {k}":
            self.proc.wait()
            raise AssertionError(f"{label} {k} did not start: {line!r}")

    def ask(self, cmd):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        print(f"  {self.label} {self.k}: {cmd} -> {answer}")
        return answer

    def ok(self, cmd):
        answer = self.ask(cmd)
        assert answer == "ok", f"{self.label} {self.k}: {cmd}: {answer}"

    def event(self, etype, sender):
        """The data of the next event @etype from @sender (within the guard)."""
        answer = self.ask(f"wait {etype} {sender} {GUARD_MS}")
        parts = answer.split()
        assert parts[:3] == ["event", str(etype), str(sender)], \
            f"{self.label} {self.k}: no event {etype} from {sender}: {answer}"
        return int(parts[3])

    def kill(self):
        if self.proc.poll() is None:
            # Under ip netns exec the peer is its child: exec keeps the pid.
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.ask("quit")
                self.proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.kill()
