#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A reachability probe for the namespace lab (no ping needed).

  udp-probe.py listen ADDR PORT   join ADDR if it is a multicast group, print
                                  "ready", answer the first datagram, exit 0
  udp-probe.py send ADDR PORT [SECONDS]
                                  send until an answer comes (exit 0) or
                                  SECONDS (default 3) pass (exit 1)
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


def main(argv):
    if len(argv) >= 4 and argv[1] == "listen":
        return listen(argv[2], int(argv[3]))
    if len(argv) >= 4 and argv[1] == "send":
        return send(argv[2], int(argv[3]), float(argv[4]) if len(argv) > 4 else 3.0)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
