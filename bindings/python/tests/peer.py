# SPDX-License-Identifier: LGPL-2.1-or-later
"""A peer node in its own process, for the cross-process tests.

    python3 peer.py URI

Opens URI, prints "ready <node id>", then serves one request per line on
stdin with one reply per line on stdout:

    poke32 OFF VALUE        -> ok
    peek32 OFF              -> value N
    write OFF HEX           -> ok
    read OFF LENGTH         -> bytes HEX
    wait32 OFF VALUE SECS   -> ok | timeout   (polls until the word matches)
    enable                  -> ok             (receive every network event type)
    send TO TYPE DATA       -> count N        (a network interrupt; TO 65535: all)
    waitev SECS             -> event TYPE SENDER DATA SEQ FLAGS | timeout
    close                   -> closed, then exits
    any failure             -> error CODE MESSAGE

Also the target of the multiprocessing (spawn) test: spawn_child().
"""

import sys
import time

import rfm


def serve(node, line):
    words = line.split()
    command, args = words[0], [int(w, 0) if w.isdigit() else w for w in words[1:]]
    if command == "poke32":
        node.poke32(args[0], args[1])
        return "ok"
    if command == "peek32":
        return f"value {node.peek32(args[0])}"
    if command == "write":
        node.write(args[0], bytes.fromhex(words[2]))
        return "ok"
    if command == "read":
        return f"bytes {node.read(args[0], args[1]).hex()}"
    if command == "wait32":
        deadline = time.monotonic() + float(words[3])
        while node.peek32(args[0]) != args[1]:
            if time.monotonic() > deadline:
                return "timeout"
            time.sleep(0.0005)  # the protocol's own polling, not a wait for readiness
        rfm.fence_acquire()
        return "ok"
    if command == "enable":
        node.enable_events()
        return "ok"
    if command == "send":
        return f"count {node.send_event(args[0], args[1], args[2])}"
    if command == "waitev":
        try:
            ev = node.wait_event(timeout=float(words[1]))
        except rfm.Timeout:
            return "timeout"
        return f"event {ev.type} {ev.sender} {ev.data} {ev.seq} {ev.flags}"
    raise ValueError(f"unknown request {command!r}")


def main():
    try:
        node = rfm.open(sys.argv[1])
    except rfm.Error as e:
        print(f"error {int(e.code)} {e.message}", flush=True)
        return 1
    print(f"ready {node.node_id}", flush=True)
    for line in sys.stdin:
        if line.strip() == "close":
            node.close()
            print("closed", flush=True)
            return 0
        try:
            reply = serve(node, line)
        except rfm.Error as e:
            reply = f"error {int(e.code)} {e.message}"
        print(reply, flush=True)
    node.close()
    return 0


def spawn_child(uri, offset, ready, go, results):
    """multiprocessing target: open, say ready, wait for go, report what it reads."""
    with rfm.open(uri) as node:
        node.poke32(offset, 0xC0FFEE)
        ready.set()
        go.wait(timeout=10)
        results.put((node.node_id, node.peek32(offset + 4), node.read(offset + 8, 5)))


def spawn_event_child(uri, ready, results):
    """multiprocessing target: receive events, say ready, report the first two."""
    with rfm.open(uri) as node:
        node.enable_events(rfm.EventType.INTR3)
        ready.set()
        got = [tuple(node.wait_event(timeout=10)) for _ in range(2)]
        results.put((node.node_id, got))


if __name__ == "__main__":
    sys.exit(main())
