#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mkimage.sh OUT.tar: a root filesystem tarball for `docker import`, made
# from the host's busybox-static (no registry): /bin/busybox with its applet
# links, /www/index.html for `httpd -h /www`, minimal /etc.
set -eu
out=$1
bb=$(command -v busybox) || { echo "mkimage.sh: busybox not installed (apt-get install busybox-static)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/swt-rootfs.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/sbin" "$dir/usr/bin" "$dir/usr/sbin" "$dir/etc" "$dir/www" "$dir/tmp" "$dir/proc" "$dir/sys" "$dir/dev"
cp "$bb" "$dir/bin/busybox"
chmod 0755 "$dir/bin/busybox"
# runs inside the new root: fails if busybox is not the static build
chroot "$dir" /bin/busybox --install -s || { echo "mkimage.sh: $bb does not run in an empty root (not busybox-static?)" >&2; exit 2; }
[ -e "$dir/bin/sh" ] || ln -s busybox "$dir/bin/sh"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$dir/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$dir/etc/group"
echo "swt-published-ok" >"$dir/www/index.html"
chmod 1777 "$dir/tmp"
tar -C "$dir" --numeric-owner -cf "$out" .
