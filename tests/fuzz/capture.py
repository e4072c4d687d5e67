#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Capture real kernel netlink datagrams as fuzz seeds.

Run inside a network namespace that holds a sandwall table (see
tests/fuzz/capture.sh, which builds one and calls this):
  capture.py dump OUTDIR     nf_tables dumps of table inet sandwall -> fuzz_nft
                             rtnetlink link/addr/route dumps        -> fuzz_rtnl
  capture.py events OUTDIR CMD...   nf_tables events while CMD runs -> fuzz_nft
Each datagram is written to its own file, as recv() returned it."""
import os
import select
import socket
import struct
import subprocess
import sys

NETLINK_NETFILTER = 12
NFNL_SUBSYS_NFTABLES = 10
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_DONE, NLMSG_ERROR = 3, 2
NFPROTO_INET = 1
GET = {"table": 1, "chain": 4, "rule": 7, "set": 10, "setelem": 13, "obj": 19}


def attr(t, data):
    n = 4 + len(data)
    return struct.pack("HH", n, t) + data + b"\0" * ((4 - n % 4) % 4)


def nlmsg(typ, flags, seq, payload):
    return struct.pack("IHHII", 16 + len(payload), typ, flags, seq, 0) + payload


def dump(sock, typ, flags, payload, out, tag):
    seq = dump.seq = getattr(dump, "seq", 100) + 1
    sock.send(nlmsg(typ, NLM_F_REQUEST | flags, seq, payload))
    i = 0
    while True:
        r, _, _ = select.select([sock], [], [], 2)
        if not r:
            return
        d = sock.recv(65536)
        with open(os.path.join(out, "%s-%02d" % (tag, i)), "wb") as f:
            f.write(d)
        i += 1
        off = 0
        while off + 16 <= len(d):
            ln, t = struct.unpack_from("IH", d, off)
            if t in (NLMSG_DONE, NLMSG_ERROR) or ln < 16:
                return
            off += (ln + 3) & ~3


def set_names(out):
    names = []
    for fn in sorted(os.listdir(out)):
        if not fn.startswith("nft-set-"):
            continue
        d = open(os.path.join(out, fn), "rb").read()
        off = 0
        while off + 20 <= len(d):
            ln, t = struct.unpack_from("IH", d, off)
            if ln < 16:
                break
            a = off + 20
            while a + 4 <= off + ln:
                al, at = struct.unpack_from("HH", d, a)
                if al < 4:
                    break
                if at & 0x3fff == 2:    # NFTA_SET_NAME
                    names.append(d[a + 4:a + al].rstrip(b"\0"))
                a += (al + 3) & ~3
            off += (ln + 3) & ~3
    return names


def main():
    mode, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    nf = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    nf.bind((0, 0))
    gen = struct.pack("BBH", NFPROTO_INET, 0, 0)
    if mode == "dump":
        tbl = attr(1, b"sandwall\0")
        dump(nf, NFNL_SUBSYS_NFTABLES << 8 | GET["table"], NLM_F_ACK, gen + tbl, out, "nft-table")
        for what in ("chain", "set", "obj", "rule"):
            dump(nf, NFNL_SUBSYS_NFTABLES << 8 | GET[what], NLM_F_DUMP, gen + tbl, out,
                 "nft-" + what)
        for i, name in enumerate(set_names(out)):
            dump(nf, NFNL_SUBSYS_NFTABLES << 8 | GET["setelem"], NLM_F_DUMP,
                 gen + tbl + attr(2, name + b"\0"), out, "nft-setelem%02d" % i)
        rt = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        rt.bind((0, 0))
        for typ, hdr, tag in ((18, struct.pack("BxHiII", 0, 0, 0, 0, 0), "rt-link"),
                              (22, struct.pack("BBBBI", 0, 0, 0, 0, 0), "rt-addr"),
                              (26, struct.pack("BBBBBBBBI", 2, 0, 0, 0, 0, 0, 0, 0, 0), "rt-route4"),
                              (26, struct.pack("BBBBBBBBI", 10, 0, 0, 0, 0, 0, 0, 0, 0), "rt-route6")):
            dump(rt, typ, NLM_F_DUMP, hdr, out, tag)
    elif mode == "events":
        nf.setsockopt(270, 1, 7)        # NETLINK_ADD_MEMBERSHIP NFNLGRP_NFTABLES
        p = subprocess.Popen(sys.argv[3:])
        i = 0
        while True:
            r, _, _ = select.select([nf], [], [], 1)
            if not r:
                if p.poll() is not None:
                    break
                continue
            d = nf.recv(65536)
            with open(os.path.join(out, "nft-event-%03d" % i), "wb") as f:
                f.write(d)
            i += 1
    else:
        sys.exit("usage: capture.py dump|events OUTDIR [CMD...]")


main()
