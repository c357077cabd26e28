#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A reachability probe for the namespace lab (no ping needed).

  udp-probe.py listen ADDR PORT   join ADDR if it is a multicast group, print
                                  "ready", answer the first datagram, exit 0
  udp-probe.py send ADDR PORT [SECONDS]
                                  send until an answer comes (exit 0) or
                                  SECONDS (default 3) pass (exit 1)
  udp-probe.py count PORT [ALL]   print "ready", count the datagrams "d SEQ" that
                                  come until an "end" (and, given ALL, until
                                  ALL distinct ones came: frames held back may
                                  arrive after it), answer it, print
                                  "count TOTAL distinct D reordered R"
  udp-probe.py burst ADDR PORT N  send "d 1".."d N", then "end" until answered;
                                  print the answer

The lab-switch test counts what its faults did with count/burst: the end
is repeated until it gets through, so no timeout decides when a burst is over.
"""
import ipaddress
import socket
import struct
import sys
import time


def listen(addr, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    group = ipaddress.ip_address(addr).is_multicast
    sock.bind((addr if group else "0.0.0.0", port))
    if group:
        mreq = struct.pack("4s4s", socket.inet_aton(addr), socket.inet_aton("0.0.0.0"))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    print("ready", flush=True)
    sock.settimeout(30)
    try:
        data, peer = sock.recvfrom(256)
    except socket.timeout:
        print("no datagram in 30 s", file=sys.stderr)
        return 1
    sock.sendto(b"answer:" + data, peer)
    print("got %r from %s" % (data, peer[0]), flush=True)
    return 0


def send(addr, port, seconds):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            sock.sendto(b"probe", (addr, port))
        except OSError as e:  # no route / host unreachable: keep trying
            print("send: %s" % e, file=sys.stderr)
        sock.settimeout(0.2)
        try:
            data, peer = sock.recvfrom(256)
        except (socket.timeout, ConnectionRefusedError):
            continue
        print("answer from %s" % peer[0], flush=True)
        return 0
    print("no answer from %s:%d in %g s" % (addr, port, seconds), flush=True)
    return 1


def count(port, want):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Root may exceed rmem_max: a burst must not overflow the socket.
    sock.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
    sock.bind(("0.0.0.0", port))
    print("ready", flush=True)
    sock.settimeout(60)
    total, seen, reordered, top = 0, set(), 0, 0
    while True:
        try:
            data, peer = sock.recvfrom(256)
        except socket.timeout:
            print("no end in 60 s", file=sys.stderr)
            return 1
        if data == b"end" and len(seen) >= want:
            result = "count %d distinct %d reordered %d" % (total, len(seen), reordered)
            sock.sendto(result.encode(), peer)
            print(result, flush=True)
            return 0
        if data == b"end":
            continue
        seq = int(data.split()[1])
        total += 1
        if seq < top:
            reordered += 1
        top = max(top, seq)
        seen.add(seq)


def burst(addr, port, n):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(1, n + 1):
        sock.sendto(b"d %d" % i, (addr, port))
        if i % 50 == 0:
            time.sleep(0.002)  # a rate: the TAP's queue holds 500 frames
    sock.settimeout(0.05)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        sock.sendto(b"end", (addr, port))
        try:
            data, peer = sock.recvfrom(256)
        except (socket.timeout, ConnectionRefusedError):
            continue
        print(data.decode(), flush=True)
        return 0
    print("no answer to the end in 30 s", flush=True)
    return 1


def main(argv):
    if len(argv) in (3, 4) and argv[1] == "count":
        return count(int(argv[2]), int(argv[3]) if len(argv) == 4 else 0)
    if len(argv) == 5 and argv[1] == "burst":
        return burst(argv[2], int(argv[3]), int(argv[4]))
    if len(argv) >= 4 and argv[1] == "listen":
        return listen(argv[2], int(argv[3]))
    if len(argv) >= 4 and argv[1] == "send":
        return send(argv[2], int(argv[3]), float(argv[4]) if len(argv) > 4 else 3.0)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
