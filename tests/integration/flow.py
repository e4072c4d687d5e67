#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Long-lived flows for the sandwall integration tests (test_flows.sh).

    flow.py recv --out FILE --ready FILE ADDR:PORT...
        a TCP listener and a UDP socket on each ADDR:PORT; every byte of TCP
        and every UDP datagram that arrives is counted per protocol and local
        address; UDP datagrams are echoed (so the sender's conntrack entry is
        established in both directions). FILE is rewritten (atomically,
        every 50 ms) with one line per target: "tcp ADDR:PORT BYTES" and
        "udp ADDR:PORT DATAGRAMS".
    flow.py send --out FILE --ready FILE --stop FILE HOST:PORT...
        one TCP connection and one connected UDP socket per target, opened
        at once; then, every 20 ms until STOP exists, a few bytes on each
        socket (the same sockets: the flows were opened before whatever
        the test changes next). FILE is rewritten with "sent tcp HOST:PORT N"
        and "sent udp HOST:PORT N" (send calls made, taken by the kernel
        or refused).
        READY is written when every connection is up.
"""
import os
import socket
import sys
import time


def opt(args, name):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return v
    return None


def split(target):
    host, _, port = target.rpartition(":")
    return host.strip("[]"), int(port)


def fam(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def write(path, lines):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    os.rename(tmp, path)


def recv(args):
    out, ready = opt(args, "--out"), opt(args, "--ready")
    import selectors
    sel = selectors.DefaultSelector()
    counts = {}
    for t in args:
        host, port = split(t)
        key = "%s:%d" % (host, port)
        ls = socket.socket(fam(host), socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host, port))
        ls.listen(16)
        ls.setblocking(False)
        us = socket.socket(fam(host), socket.SOCK_DGRAM)
        us.bind((host, port))
        us.setblocking(False)
        counts["tcp " + key] = 0
        counts["udp " + key] = 0
        sel.register(ls, selectors.EVENT_READ, ("listen", key))
        sel.register(us, selectors.EVENT_READ, ("udp", key))
    write(out, ["%s %d" % kv for kv in sorted(counts.items())])
    if ready:
        with open(ready, "w") as f:
            f.write("%d\n" % os.getpid())
    last = 0.0
    while True:
        for k, _ in sel.select(0.05):
            what, key = k.data
            s = k.fileobj
            try:
                if what == "listen":
                    c, _ = s.accept()
                    c.setblocking(False)
                    sel.register(c, selectors.EVENT_READ, ("tcp", key))
                elif what == "udp":
                    while True:
                        data, peer = s.recvfrom(65535)
                        counts["udp " + key] += 1
                        s.sendto(b"echo:" + data, peer)
                else:
                    data = s.recv(65535)
                    if not data:
                        sel.unregister(s)
                        s.close()
                    else:
                        counts["tcp " + key] += len(data)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                if what == "tcp":
                    sel.unregister(s)
                    s.close()
        now = time.monotonic()
        if now - last >= 0.05:
            last = now
            write(out, ["%s %d" % kv for kv in sorted(counts.items())])


def send(args):
    out, ready, stop = opt(args, "--out"), opt(args, "--ready"), opt(args, "--stop")
    socks = []  # (label, sock, kind)
    for t in args:
        host, port = split(t)
        key = "%s:%d" % (host, port)
        ts = socket.create_connection((host, port), timeout=3)
        ts.setblocking(False)
        us = socket.socket(fam(host), socket.SOCK_DGRAM)
        us.connect((host, port))
        us.setblocking(False)
        socks.append(["tcp " + key, ts, 0])
        socks.append(["udp " + key, us, 0])
    if ready:
        with open(ready, "w") as f:
            f.write("%d\n" % os.getpid())
    n = 0
    while not (stop and os.path.exists(stop)):
        n += 1
        for s in socks:
            s[2] += 1
            try:
                s[1].send(b"flow %d\n" % n)
            except OSError:
                # a full buffer, an ICMP error on the UDP socket, EPERM
                # from a drop on the output path: keep trying
                pass
            if s[0].startswith("udp"):
                try:
                    while s[1].recv(65535):
                        pass
                except OSError:
                    pass
        write(out, ["sent %s %d" % (s[0], s[2]) for s in socks])
        time.sleep(0.02)
    return 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("recv", "send"):
        sys.stderr.write(__doc__)
        return 2
    return recv(sys.argv[2:]) if sys.argv[1] == "recv" else send(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
