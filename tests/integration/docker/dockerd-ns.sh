#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dockerd-ns.sh DOCKERD-ARGS...: start dockerd for the integration tests.
#
# Run it through `ip netns exec NS`: that gives a private mount namespace
# whose /sys is a fresh sysfs without the cgroup mounts. This wrapper mounts
# the cgroup hierarchies again, exactly as the host has them (tmpfs + v1
# controllers + cgroup2, or a pure cgroup2 mount), so that dockerd and runc
# find them, and puts a private /run in place; then it execs dockerd.
# Nothing is mounted in the host's mount namespace: the wrapper refuses to
# run there (or in the host's network namespace).
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
# SWT_RUN_DIR (a directory of the test), that directory is bind-mounted on
# /run, so that a restarted dockerd (a new mount namespace) finds the shims
# of the containers that --live-restore kept; without it, a tmpfs.
if [ -n "${SWT_RUN_DIR:-}" ]; then
	[ -d "$SWT_RUN_DIR" ] || die "SWT_RUN_DIR $SWT_RUN_DIR is not a directory"
	mount --bind "$SWT_RUN_DIR" /run || die "mount --bind $SWT_RUN_DIR /run"
else
	mount -t tmpfs -o mode=0755,nosuid,nodev swt-run /run || die "mount tmpfs /run"
fi

exec dockerd "$@"
