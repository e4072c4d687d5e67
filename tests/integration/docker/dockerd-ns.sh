#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dockerd-ns.sh: the mount namespace dockerd runs in, for the integration tests.
#
#   ip netns exec NS dockerd-ns.sh hold READYFILE
#       set the namespace up, write READYFILE, then sleep (exec) for ever: the
#       sleeping process keeps the mount namespace; start dockerd in it, and
#       again after a restart, with `nsenter -t PID -m -n dockerd ...`, so a
#       restarted dockerd finds the container network namespaces and shims
#       that --live-restore kept (their bind mounts live in this namespace).
#   ip netns exec NS dockerd-ns.sh [--] DOCKERD-ARGS...
#       set the namespace up and exec dockerd (one-shot).
#
# `ip netns exec` gives a private mount namespace whose /sys is a fresh sysfs
# without the cgroup mounts. This script mounts the cgroup hierarchies again,
# exactly as the host has them (tmpfs + v1 controllers + cgroup2, or a pure
# cgroup2 mount), so that dockerd and runc find them, and puts a private /run
# in place. Nothing is mounted in the host's mount namespace: the script
# refuses to run there (or in the host's network namespace).
#
# SWT_HOST_PID: a process in the host's namespaces (the test runner; default
# 1). Its mount and network namespaces are the ones never to touch, and its
# /proc/PID/mounts tells how the cgroup hierarchies are mounted.
# SWT_RUN_DIR: see /run below.
set -u

die() { echo "dockerd-ns.sh: $*" >&2; exit 2; }

hp=${SWT_HOST_PID:-1}
for t in mnt net; do
	self=$(readlink "/proc/self/ns/$t") || die "cannot read /proc/self/ns/$t"
	host=$(readlink "/proc/$hp/ns/$t") || die "cannot read /proc/$hp/ns/$t (set SWT_HOST_PID)"
	[ "$self" != "$host" ] || die "refusing to run in the host's $t namespace (start it with ip netns exec)"
done

# Mounts must not propagate anywhere (ip netns exec makes / a slave already).
mount --make-rslave / 2>/dev/null

# /sys/fs/cgroup as the host sees it (fields: dev mountpoint type options).
if ! mountpoint -q /sys/fs/cgroup; then
	while read -r dev mp type opts _; do
		case $mp in /sys/fs/cgroup|/sys/fs/cgroup/*) ;; *) continue ;; esac
		case $type in
		tmpfs)   mount -t tmpfs -o "$opts" cgroup_root "$mp" || die "mount tmpfs $mp" ;;
		cgroup)  mkdir -p "$mp" 2>/dev/null; mount -t cgroup -o "$opts" "$dev" "$mp" || die "mount cgroup $mp ($opts)" ;;
		cgroup2) mkdir -p "$mp" 2>/dev/null; mount -t cgroup2 -o "$opts" "$dev" "$mp" || die "mount cgroup2 $mp" ;;
		esac
	done <"/proc/$hp/mounts"
fi

# A private /run: dockerd and containerd create /run/docker/plugins and
# /run/containerd/s (the shims' sockets) whatever --exec-root says. With
# SWT_RUN_DIR (a directory of the test) that directory is bind-mounted on
# /run, so the test can look at it; without it, a tmpfs.
if [ -n "${SWT_RUN_DIR:-}" ]; then
	[ -d "$SWT_RUN_DIR" ] || die "SWT_RUN_DIR $SWT_RUN_DIR is not a directory"
	mount --bind "$SWT_RUN_DIR" /run || die "mount --bind $SWT_RUN_DIR /run"
else
	mount -t tmpfs -o mode=0755,nosuid,nodev swt-run /run || die "mount tmpfs /run"
fi

if [ "${1:-}" = hold ]; then
	[ -n "${2:-}" ] || die "usage: dockerd-ns.sh hold READYFILE"
	echo "$$" >"$2" || die "cannot write $2"
	exec sleep infinity
fi
[ "${1:-}" = -- ] && shift
exec dockerd "$@"
