#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A tiny DNS responder for the tests (UDP, A and AAAA only).

    dns.py ADDR ZONEFILE [LOG]

ZONEFILE is JSON, read again whenever it changes, so a test changes the
answers while the responder runs:

    {"pypi.test": {"A": [["198.51.100.10", 2]], "AAAA": []},
     "alias.test": {"CNAME": ["pypi.test", 5]},
     "down.test": {"drop": true},           # no answer at all (timeout)
     "bad.test": {"rcode": 2}}              # SERVFAIL

"*": {"drop": true} makes the whole server silent. Unknown names get
NXDOMAIN. Each query is appended to LOG as "<unix time> <name> <type>".
"""
import json
import os
import socket
import struct
import sys
import time

TYPES = {1: "A", 28: "AAAA", 5: "CNAME"}


def read_name(msg, off):
    labels = []
    while True:
        n = msg[off]
        if n == 0:
            return ".".join(labels).lower(), off + 1
        if n & 0xC0:
            raise ValueError("compressed question")
        labels.append(msg[off + 1:off + 1 + n].decode("ascii", "replace"))
        off += 1 + n


def wire_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def rr(owner, qtype, ttl, rdata):
    return wire_name(owner) + struct.pack("!HHIH", qtype, 1, ttl, len(rdata)) + rdata


def answer(zone, msg):
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    name, off = read_name(msg, 12)
    qtype, qclass = struct.unpack("!HH", msg[off:off + 4])
    question = msg[12:off + 4]
    entry = zone.get("*") or zone.get(name)
    if entry is not None and entry.get("drop"):
        return None, name, qtype
    rcode, records, owner = 0, [], name
    hops = 0
    while entry is not None and "CNAME" in entry and hops < 8:
        target, ttl = entry["CNAME"]
        records.append(rr(owner, 5, ttl, wire_name(target)))
        owner, entry, hops = target, zone.get(target), hops + 1
    if entry is None:
        rcode = 3 if not records else 0
    else:
        rcode = entry.get("rcode", 0)
        fam = socket.AF_INET if qtype == 1 else socket.AF_INET6
        for addr, ttl in entry.get(TYPES.get(qtype, "?"), []):
            records.append(rr(owner, qtype, ttl, socket.inet_pton(fam, addr)))
    if rcode not in (0, 3):
        records = []
    hdr = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1, len(records), 0, 0)
    return hdr + question + b"".join(records), name, qtype


def main():
    addr, zonefile = sys.argv[1], sys.argv[2]
    log = open(sys.argv[3], "a", buffering=1) if len(sys.argv) > 3 else None
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    # beside a wildcard :53 (the topology's cloud srv.py): the more
    # specific address gets the queries
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 53))
    zone, mtime = {}, None
    while True:
        msg, peer = s.recvfrom(4096)
        try:
            st = os.stat(zonefile).st_mtime_ns
            if st != mtime:
                with open(zonefile) as f:
                    zone = json.load(f)
                mtime = st
            reply, name, qtype = answer(zone, msg)
        except (ValueError, IndexError, struct.error, OSError, json.JSONDecodeError):
            continue
        if log:
            log.write("%.6f %s %s\n" % (time.time(), name, TYPES.get(qtype, qtype)))
        if reply is not None:
            s.sendto(reply, peer)


if __name__ == "__main__":
    main()
