#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A tiny DNS responder for the tests (UDP, A and AAAA only; TCP too).

    dns.py ADDR ZONEFILE [LOG] [--tcp]

ZONEFILE is JSON, read again whenever it changes, so a test changes the
answers while the responder runs:

    {"pypi.test": {"A": [["198.51.100.10", 2]], "AAAA": []},
     "alias.test": {"CNAME": ["pypi.test", 5]},
     "down.test": {"drop": true},           # no answer at all (timeout)
     "bad.test": {"rcode": 2}}              # SERVFAIL

"*": {"drop": true} makes the whole server silent. Unknown names get
NXDOMAIN. Each query is appended to LOG as "<unix time> <name> <type>".

--tcp also answers DNS over TCP on ADDR port 53 (RFC 1035 4.2.2: each
message behind its 2-byte length). The queries a connection has sent by
the time it is read are answered in one write, so that queries sent
together (pipelined) come back together, in one segment; LOG then says
"<unix time> tcp <n> replies in one write". The listener binds with
SO_REUSEPORT beside the topology's wildcard TCP :53 (srv.py sets it too):
the more specific address gets the connections.
"""
import json
import os
import socket
import struct
import sys
import threading
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


class Zone:
    """The zone file, read again whenever it changes (UDP and TCP share it)."""

    def __init__(self, path):
        self.path, self.zone, self.mtime = path, {}, None
        self.lock = threading.Lock()

    def get(self):
        with self.lock:
            st = os.stat(self.path).st_mtime_ns
            if st != self.mtime:
                with open(self.path) as f:
                    self.zone = json.load(f)
                self.mtime = st
            return self.zone


class Log:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def write(self, line):
        if self.f:
            with self.lock:
                self.f.write("%.6f %s\n" % (time.time(), line))


def reply_to(zone, log, msg):
    try:
        reply, name, qtype = answer(zone.get(), msg)
    except (ValueError, IndexError, struct.error, OSError, json.JSONDecodeError):
        return None
    log.write("%s %s" % (name, TYPES.get(qtype, qtype)))
    return reply


def tcp_conn(c, zone, log):
    buf = b""
    try:
        c.settimeout(5)
        while True:
            data = c.recv(65535)
            if not data:
                return
            buf += data
            out, n = b"", 0
            while len(buf) >= 2 and len(buf) >= 2 + struct.unpack("!H", buf[:2])[0]:
                mlen = struct.unpack("!H", buf[:2])[0]
                msg, buf = buf[2:2 + mlen], buf[2 + mlen:]
                reply = reply_to(zone, log, msg)
                if reply is not None:
                    out += struct.pack("!H", len(reply)) + reply
                    n += 1
            if out:
                if n > 1:
                    log.write("tcp %d replies in one write" % n)
                c.sendall(out)
    except OSError:
        pass
    finally:
        c.close()


def tcp_serve(lst, zone, log):
    while True:
        c, _peer = lst.accept()
        threading.Thread(target=tcp_conn, args=(c, zone, log), daemon=True).start()


def main():
    args = [a for a in sys.argv[1:] if a != "--tcp"]
    addr, zone = args[0], Zone(args[1])
    log = Log(args[2] if len(args) > 2 else None)
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    # beside a wildcard :53 (the topology's cloud srv.py): the more
    # specific address gets the queries
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 53))
    if "--tcp" in sys.argv[1:]:
        lst = socket.socket(fam, socket.SOCK_STREAM)
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        lst.bind((addr, 53))
        lst.listen(16)
        threading.Thread(target=tcp_serve, args=(lst, zone, log), daemon=True).start()
    while True:
        msg, peer = s.recvfrom(4096)
        reply = reply_to(zone, log, msg)
        if reply is not None:
            s.sendto(reply, peer)


if __name__ == "__main__":
    main()
