#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what sandwall needs to build and test (Debian/Ubuntu), for
# `make deps`. Installing packages must not change this machine's network:
# services the packages ship (docker.io's dockerd) are not started
# (policy-rc.d answers 101 while apt runs), and Docker is only installed
# from Debian when no other Docker engine package is installed (docker-ce,
# moby-engine and containerd.io would conflict with docker.io).
#
#   install-deps.sh [--list] [run|check]
#     run    what building and running sandwall need (`make run`, `make
#            install`): the compiler, pkg-config and the libraries' -dev
#            packages; nothing else is installed on the user's machine
#     check  (default) also the test lab of `make check`: clang, nftables,
#            QEMU and Debian's cloud kernels' tools, Docker, Podman, LXC,
#            the packaging tools
#     --list print the packages, one per line, and install nothing
set -eu

list=0
what=check
for a in "$@"; do
	case $a in
	--list) list=1 ;;
	run|check) what=$a ;;
	*) echo "usage: install-deps.sh [--list] [run|check]" >&2; exit 2 ;;
	esac
done

BUILD="build-essential pkg-config libnftnl-dev libmnl-dev libinih-dev libsodium-dev libcurl4-openssl-dev"
UNIT="libcmocka-dev"
# make fuzz: clang, and the libFuzzer runtime (a Recommends of clang that
# --no-install-recommends would skip)
FUZZ="clang libclang-rt-dev"
TEST="nftables iproute2 curl python3 procps kmod openssh-client conntrack"   # ssh-keygen: test_sign.sh checks the receipts' signatures; conntrack: the network log's suites flush what earlier suites left
PACKAGING="debhelper dpkg-dev fakeroot lintian mandoc bsdextrautils python3-yaml rpm bash-completion"
DOCKER="busybox-static iptables"
# other runtimes for tests/integration/test_runtimes.sh: rootful Podman with
# its CNI bridge (Debian 12's podman 4.3 uses CNI); no service is started
RUNTIMES="podman containernetworking-plugins lxc"
# the output-path guard's tests: rootless networking as an unprivileged
# uid (slirp4netns, pasta from passt; newuidmap for rootless podman)
RUNTIMES="$RUNTIMES slirp4netns passt uidmap"
# make check-kernels: boots Debian's cloud kernels (fetched at test time with
# apt-get download) under TCG; the guest's userland is copied from this host
KERNELS="qemu-system-x86 kmod busybox-static bc"   # bc: copied into the guests (tests/kernels/run.sh)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
if ! installed docker-ce && ! installed moby-engine && ! installed containerd.io; then
	DOCKER="$DOCKER docker.io"
fi
if [ "$what" = run ]; then
	UNIT="" FUZZ="" TEST="" PACKAGING="" DOCKER="" KERNELS="" RUNTIMES=""
fi

if [ "$list" = 1 ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $BUILD $UNIT $FUZZ $TEST $PACKAGING $DOCKER $KERNELS $RUNTIMES
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "make deps: run as root (sudo make ...)" >&2
	exit 2
fi
if [ "$what" = check ]; then
	echo "make deps: installing the test lab of make check (clang, nftables, QEMU," \
	     "Docker, Podman, LXC, packaging tools); make check then runs unit tests," \
	     "integration tests in network namespaces (about 17 minutes) and boots" \
	     "Debian's cloud kernels under QEMU (about 14 minutes)"
fi

policy=/usr/sbin/policy-rc.d
ours=""
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# sandwall make deps: start no service while installing\nexit 101\n' >"$policy"
	chmod 0755 "$policy"
	ours=1
fi
cleanup() { if [ -n "$ours" ]; then rm -f "$policy"; fi; }
trap cleanup EXIT INT TERM

export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $BUILD $UNIT $FUZZ $TEST $PACKAGING $DOCKER $KERNELS $RUNTIMES
