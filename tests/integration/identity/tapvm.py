#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in micro-VM for test_identity.sh: holds a tap (/dev/net/tun,
TUNSETIFF) as a VM monitor does, writes READY, then, once GO holds the
tap's MAC address, sends TCP SYNs from GUEST to DST:80 into the tap
(frames the host receives on it, as from the guest), every 0.2 s for 3 s.

    tapvm.py TAP GUEST DST READY GO
"""
import fcntl, os, socket, struct, sys, time

TUNSETIFF = 0x400454CA
IFF_TAP, IFF_NO_PI = 0x0002, 0x1000


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def syn(src, dst, sport):
    s, d = socket.inet_aton(src), socket.inet_aton(dst)
    tcp = struct.pack("!HHIIBBHHH", sport, 80, 1, 0, 5 << 4, 0x02, 64240, 0, 0)
    tcp = tcp[:16] + struct.pack("!H", csum(s + d + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, s, d)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + tcp


def main():
    tap, guest, dst, ready, go = sys.argv[1:6]
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", tap.encode(), IFF_TAP | IFF_NO_PI))
    with open(ready, "w") as f:
        f.write("%d\n" % os.getpid())
    for _ in range(300):
        if os.path.exists(go) and open(go).read().strip():
            break
        time.sleep(0.1)
    mac = bytes.fromhex(open(go).read().strip().replace(":", ""))
    me = bytes.fromhex("020000000002")
    for i in range(15):
        os.write(fd, mac + me + b"\x08\x00" + syn(guest, dst, 40000 + i))
        time.sleep(0.2)
    time.sleep(30)


main()
