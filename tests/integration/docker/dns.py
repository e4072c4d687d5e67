#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# dns.py ADDR ANSWER4 [--ready FILE]: a tiny DNS responder for the Docker
# suite (UDP port 53 on ADDR). Every A query for a name under ".test" gets
# ANSWER4; everything else gets NXDOMAIN. Runs inside a network namespace
# (ip netns exec NS python3 dns.py ...); it never sends a query itself.

import socket
import struct
import sys


def answer(q, ip4):
    if len(q) < 12:
        return None
    qid, flags, qd = struct.unpack("!HHH", q[:6])
    if flags & 0x8000 or qd != 1:
        return None
    # the question: labels, then type and class
    i, labels = 12, []
    while i < len(q) and q[i] != 0:
        n = q[i]
        labels.append(q[i + 1:i + 1 + n].decode("ascii", "replace").lower())
        i += 1 + n
    i += 1
    if i + 4 > len(q):
        return None
    qtype, qclass = struct.unpack("!HH", q[i:i + 4])
    question = q[12:i + 4]
    rd = flags & 0x0100
    if labels and labels[-1] == "test" and qtype == 1 and qclass == 1:
        hdr = struct.pack("!HHHHHH", qid, 0x8400 | rd | 0x0080, 1, 1, 0, 0)
        rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton(ip4)
        return hdr + question + rr
    if labels and labels[-1] == "test":      # other types: no data
        return struct.pack("!HHHHHH", qid, 0x8400 | rd | 0x0080, 1, 0, 0, 0) + question
    return struct.pack("!HHHHHH", qid, 0x8403 | rd | 0x0080, 1, 0, 0, 0) + question


def main():
    args = sys.argv[1:]
    ready = None
    if "--ready" in args:
        k = args.index("--ready")
        ready = args[k + 1]
        del args[k:k + 2]
    addr, ip4 = args[0], args[1]
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 53))
    if ready:
        with open(ready, "w") as f:
            f.write("ready\n")
    while True:
        q, peer = s.recvfrom(4096)
        r = answer(q, ip4)
        if r:
            s.sendto(r, peer)


if __name__ == "__main__":
    main()
