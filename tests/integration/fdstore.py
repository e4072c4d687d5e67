#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A tiny service manager for the restart-window test (test_faults.sh): what
systemd does for sandwalld.service with FileDescriptorStoreMax= and
Restart=always, without touching the host's systemd.

    fdstore.py NOTIFY_SOCKET RESTART_SEC EVENTS_LOG -- CMD ARGS...

Runs CMD with NOTIFY_SOCKET set, keeps every descriptor it sends with
FDSTORE=1 (FDNAME=name, SCM_RIGHTS; a duplicate of a stored one is dropped,
as systemd does), and when CMD exits starts it again after RESTART_SEC
seconds with the stored descriptors from fd 3 on and LISTEN_FDS,
LISTEN_FDNAMES, LISTEN_PID set (sd_listen_fds(3)). Lines in EVENTS_LOG:
"start pid=N fds=a:b", "stored NAME", "exit pid=N status=S". TERM: stop CMD
(TERM), close the store, exit."""
import array, os, select, signal, socket, sys, time

sock_path, restart_sec, events = sys.argv[1], float(sys.argv[2]), sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
store = []          # (name, fd)
stop = False


def log(line):
    with open(events, "a") as f:
        f.write(line + "\n")


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
try:
    os.unlink(sock_path)
except FileNotFoundError:
    pass
ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ns.bind(sock_path)


def start():
    names = ":".join(n for n, _ in store)
    fds = [fd for _, fd in store]
    env_extra = {"NOTIFY_SOCKET": sock_path}

    def child():
        # the stored descriptors at 3, 4, ... (via high numbers, so that
        # no dup2 overwrites one still to be moved)
        high = [os.dup2(fd, 200 + i) for i, fd in enumerate(fds)]
        for i, fd in enumerate(high):
            os.dup2(fd, 3 + i, inheritable=True)
            os.close(fd)
        for k, v in env_extra.items():
            os.environ[k] = v
        if fds:
            os.environ["LISTEN_FDS"] = str(len(fds))
            os.environ["LISTEN_FDNAMES"] = names
            os.environ["LISTEN_PID"] = str(os.getpid())
        else:
            for k in ("LISTEN_FDS", "LISTEN_FDNAMES", "LISTEN_PID"):
                os.environ.pop(k, None)

    pid = os.fork()
    if pid == 0:
        try:
            child()
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    log("start pid=%d fds=%s" % (pid, names))
    return pid


def same_file(a, b):
    sa, sb = os.fstat(a), os.fstat(b)
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def receive():
    fds = array.array("i")
    msg, anc, _, _ = ns.recvmsg(4096, socket.CMSG_SPACE(16 * fds.itemsize))
    got = []
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            a = array.array("i")
            a.frombytes(data[:len(data) - len(data) % a.itemsize])
            got.extend(a)
    kv = dict(l.split("=", 1) for l in msg.decode(errors="replace").split("\n") if "=" in l)
    if kv.get("FDSTORE") == "1" and got:
        name = kv.get("FDNAME", "stored")
        for fd in got:
            if any(same_file(fd, s) for _, s in store):
                os.close(fd)
                continue
            store.append((name, fd))
            log("stored %s" % name)
    else:
        for fd in got:
            os.close(fd)
    if "READY" in kv:
        log("ready")


pid = start()
restart_at = None
while True:
    if stop:
        if pid:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
        break
    try:
        r, _, _ = select.select([ns], [], [], 0.02)
    except InterruptedError:
        continue
    if r:
        receive()
    if pid:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            log("exit pid=%d status=%d" % (p, st))
            pid = 0
            restart_at = time.time() + restart_sec
    elif restart_at is not None and time.time() >= restart_at:
        pid = start()
        restart_at = None
for _, fd in store:
    os.close(fd)
os.unlink(sock_path)
