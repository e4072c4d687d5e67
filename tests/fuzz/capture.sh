#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Refresh the kernel-message seeds (root): a throwaway network namespace
# with a bridge, a veth uplink, addresses and default routes; sandwall
# applies its table there, and capture.py records the nf_tables events of
# that apply and the dumps of the result. Nothing outside the namespace is
# touched; the namespace is removed on exit.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
ns=swfz$$
out=$(mktemp -d)
trap 'ip netns del $ns 2>/dev/null || true; rm -rf "$out"' EXIT INT TERM
ip netns add $ns
ip -n $ns link set lo up
ip -n $ns link add docker0 type bridge
ip -n $ns link add eth0 type veth peer name eth0p
ip -n $ns addr add 172.17.0.1/16 dev docker0
ip -n $ns addr add 10.0.0.2/24 dev eth0
ip -n $ns addr add fd00:10::2/64 dev eth0 nodad
for l in docker0 eth0 eth0p; do ip -n $ns link set $l up; done
ip -n $ns route add default via 10.0.0.1
ip -n $ns -6 route add default via fd00:10::1
conf=$out/sandwall.conf
sed 's|^journal = .*|journal =|' "$top/rules/sandwall.conf" > "$conf"
ip netns exec $ns python3 "$top/tests/fuzz/capture.py" events "$out/ev" \
	"$top/build/sandwall" -c "$conf" apply
ip netns exec $ns python3 "$top/tests/fuzz/capture.py" dump "$out/dump"
c=$top/tests/fuzz/corpus
mkdir -p "$c/fuzz_nft" "$c/fuzz_rtnl"
cp "$out"/ev/nft-* "$out"/dump/nft-* "$c/fuzz_nft/"
cp "$out"/dump/rt-* "$c/fuzz_rtnl/"
ls -l "$c/fuzz_nft" "$c/fuzz_rtnl"
