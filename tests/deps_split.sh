#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make run` installs what building and running need, and none of the test
# lab (issue 27): every package of `install-deps.sh --list run` is the
# compiler, pkg-config or a library's -dev package (not cmocka's), each is
# also in the full list, and `make -n run` asks for `install-deps.sh run`.
set -eu
cd "$(dirname "$0")/.."
fail=0
run=$(sh packaging/install-deps.sh --list run)
all=$(sh packaging/install-deps.sh --list check)
for p in $run; do
	case $p in
	build-essential|pkg-config) ;;
	libcmocka-dev) echo "deps-split: $p (unit tests) is installed by make run"; fail=1 ;;
	lib*-dev) ;;
	*) echo "deps-split: $p is not needed to build or run, but make run installs it"; fail=1 ;;
	esac
	printf '%s\n' $all | grep -qxF -- "$p" || { echo "deps-split: $p missing from the full list"; fail=1; }
done
[ -n "$run" ] || { echo "deps-split: the run list is empty"; fail=1; }
make -n run 2>/dev/null | grep -q 'install-deps.sh run' ||
	{ echo "deps-split: make -n run does not call install-deps.sh run"; fail=1; }
make -n run 2>/dev/null | grep -E 'install-deps.sh( |$)' | grep -vq 'install-deps.sh run' &&
	{ echo "deps-split: make -n run calls the full install-deps.sh"; fail=1; }
[ "$fail" = 0 ] && echo "deps-split: make run installs $(printf '%s\n' $run | wc -l) package(s), none of the test lab"
exit $fail
