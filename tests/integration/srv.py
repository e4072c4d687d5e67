#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Tiny servers and clients for the sandwall integration tests.
# Runs inside a network namespace (ip netns exec NS python3 srv.py ...).
#
#   srv.py tcp  ADDR PORT [PORT...] [--ready FILE]   HTTP/1.0 responder (body: "ADDR:PORT")
#   srv.py udp  ADDR PORT [PORT...] [--ready FILE]   UDP echo (reply: "echo:" + payload)
#   srv.py udpc HOST PORT [TIMEOUT]                 exit 0 if an answer came, 1 if not
#   srv.py flood HOST TCPPORT UDPPORT SECONDS [STOPFILE]
#        send a UDP datagram every ~1 ms and keep TCP connects in flight for
#        SECONDS (or until STOPFILE exists); print "tcp_ok=N udp_ok=N sent=N"; exit 0
#        if nothing got through, 1 if anything did.
# ADDR "::" listens dual-stack (v4 and v6).

import errno
import os
import select
import socket
import struct
import sys
import threading
import time


def parse_ready(args):
    ready = None
    if "--ready" in args:
        i = args.index("--ready")
        ready = args[i + 1]
        del args[i:i + 2]
    return args, ready


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def bind_sock(addr, port, kind):
    fam = family_of(addr)
    s = socket.socket(fam, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if kind == socket.SOCK_STREAM:
        # a test's own listener on one address of the port (dns.py --tcp
        # on 198.51.100.10:53) may bind beside this one, if it sets it too;
        # the more specific address gets its connections
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0 if addr == "::" else 1)
    s.bind((addr, port))
    return s


def tcp_conn(c):
    try:
        c.settimeout(2)
        try:
            c.recv(4096)
        except OSError:
            pass
        la = c.getsockname()
        body = ("%s:%d\n" % (la[0], la[1])).encode()
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                  + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    except OSError:
        pass
    finally:
        c.close()


def tcp_loop(s):
    s.listen(128)
    while True:
        try:
            c, _ = s.accept()
        except OSError:
            continue
        threading.Thread(target=tcp_conn, args=(c,), daemon=True).start()


IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)
IPV6_RECVPKTINFO = getattr(socket, "IPV6_RECVPKTINFO", 49)
IPV6_PKTINFO = getattr(socket, "IPV6_PKTINFO", 50)


def udp_loop(s):
    # reply from the address the datagram was sent to (pktinfo), so a
    # wildcard-bound server answers correctly for every local address
    if s.family == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVPKTINFO, 1)
    while True:
        try:
            data, anc, _flags, peer = s.recvmsg(65535, 256)
            cm = []
            for level, typ, cdata in anc:
                if level == socket.IPPROTO_IP and typ == IP_PKTINFO:
                    _ifi, _spec, dst = struct.unpack("i4s4s", cdata[:12])
                    cm = [(socket.IPPROTO_IP, IP_PKTINFO, struct.pack("i4s4s", 0, dst, bytes(4)))]
                elif level == socket.IPPROTO_IPV6 and typ == IPV6_PKTINFO:
                    dst = cdata[:16]
                    cm = [(socket.IPPROTO_IPV6, IPV6_PKTINFO, struct.pack("16sI", dst, 0))]
            s.sendmsg([b"echo:" + data], cm, 0, peer)
        except OSError:
            pass


def serve(kind, args):
    args, ready = parse_ready(args)
    addr = args[0]
    socks = []
    for p in args[1:]:
        if kind == "udp" and addr == "::":
            # separate v4 and v6 sockets: pktinfo is per family
            socks.append(bind_sock("0.0.0.0", int(p), socket.SOCK_DGRAM))
            s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s6.bind(("::", int(p)))
            socks.append(s6)
            continue
        socks.append(bind_sock(addr, int(p), socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM))
    for s in socks:
        threading.Thread(target=tcp_loop if kind == "tcp" else udp_loop, args=(s,), daemon=True).start()
    if ready:
        with open(ready, "w") as f:
            f.write("%d\n" % os.getpid())
    while True:
        time.sleep(3600)


def udpc(host, port, timeout=1.0):
    fam = family_of(host)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    try:
        s.sendto(b"probe", (host, port))
        data, _ = s.recvfrom(65535)
        return 0 if data.startswith(b"echo:") else 1
    except OSError:
        return 1


def flood(host, tport, uport, seconds, stopfile=None):
    fam = family_of(host)
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.setblocking(False)
    tcp_ok = udp_ok = sent = 0
    inflight = []  # (sock, started)
    end = time.monotonic() + seconds
    last_tcp = 0.0
    while time.monotonic() < end:
        if stopfile and os.path.exists(stopfile):
            break
        now = time.monotonic()
        try:
            u.sendto(b"flood", (host, uport))
            sent += 1
        except OSError:
            pass
        # a fresh TCP SYN every 5 ms; each socket gets 300 ms before being dropped
        if now - last_tcp >= 0.005:
            last_tcp = now
            t = socket.socket(fam, socket.SOCK_STREAM)
            t.setblocking(False)
            try:
                t.connect((host, tport))
            except BlockingIOError:
                pass
            except OSError:
                pass
            inflight.append((t, now))
        ws = [t for t, _ in inflight]
        r, w, _ = select.select([u], ws, [], 0.001)
        if u in r:
            try:
                while True:
                    data, _ = u.recvfrom(65535)
                    if data.startswith(b"echo:"):
                        udp_ok += 1
            except OSError:
                pass
        keep = []
        for t, st in inflight:
            if t in w:
                # connected or refused: either way the SYN got through
                if t.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) in (0, errno.ECONNREFUSED):
                    tcp_ok += 1
                t.close()
            elif now - st > 0.3:
                t.close()
            else:
                keep.append((t, st))
        inflight = keep
    for t, _ in inflight:
        t.close()
    print("tcp_ok=%d udp_ok=%d sent=%d" % (tcp_ok, udp_ok, sent))
    return 0 if tcp_ok == 0 and udp_ok == 0 else 1


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__ or "usage\n")
        return 2
    mode, args = sys.argv[1], sys.argv[2:]
    if mode in ("tcp", "udp"):
        serve(mode, args)
        return 0
    if mode == "udpc":
        return udpc(args[0], int(args[1]), float(args[2]) if len(args) > 2 else 1.0)
    if mode == "flood":
        return flood(args[0], int(args[1]), int(args[2]), float(args[3]),
                     args[4] if len(args) > 4 else None)
    sys.stderr.write("unknown mode %s\n" % mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
