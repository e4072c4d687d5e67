#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the Debian package without touching the checkout:
#
#   packaging/debian/build-deb.sh [OUTDIR] [-- dpkg-buildpackage options]
#
# Copies the tree (tracked and untracked files, not build/ or ignored files)
# to a temporary directory, puts packaging/debian there as ./debian (this
# script left out), runs `dpkg-buildpackage -us -uc -b`, and moves the
# .deb, .ddeb, .changes and .buildinfo files to OUTDIR (default: build/deb).
# DEB_BUILD_OPTIONS=nocheck skips the unit tests. Needs debhelper and the
# build dependencies in packaging/debian/control (`dpkg-checkbuilddeps`).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/deb}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift

version=$(sed -n 's/^VERSION *:*= *//p' "$root/Makefile")
clver=$(dpkg-parsechangelog -l "$here/changelog" -S Version)
if [ "$version" != "$clver" ]; then
	echo "build-deb: Makefile VERSION $version != debian/changelog $clver" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sandwall-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src="$tmp/sandwall-$version"
mkdir "$src"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# tracked + untracked, minus ignored (build/, *.o) and deleted files
	(cd "$root" && git ls-files -z -c -o --exclude-standard |
		while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done |
		tar --null -T - -cf -) | tar -xf - -C "$src"
else
	(cd "$root" && tar --exclude=./build --exclude=./build-asan --exclude=./.git \
		--exclude=./debian -cf - .) | tar -xf - -C "$src"
fi
rm -rf "$src/debian" "$src/build" "$src/build-asan"
cp -a "$here" "$src/debian"
rm -f "$src/debian/build-deb.sh"

(cd "$src" && dpkg-buildpackage -us -uc -b "$@")

mkdir -p "$out"
for f in "$tmp"/*.deb "$tmp"/*.ddeb "$tmp"/*.changes "$tmp"/*.buildinfo; do
	[ -e "$f" ] && mv -f "$f" "$out/"
done
ls "$out"/sandwall_"$version"_*.deb
