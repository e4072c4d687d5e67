#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside a tests/kernels guest: start sandwalld with owner = auto in a
# network namespace of its own and assert the mode it selects on this kernel.
#
#   mode_probe.sh SANDWALLD EXPECTED-MODE   (owner+persist, owner, twin, watch)
#
# Prints PASS/FAIL lines in the format of tests/integration/run.sh and exits
# 0 only when the event=start line says mode=EXPECTED-MODE and `sandwall
# status --json` agrees (owner/persist). Like the integration suites, it
# never touches the root network namespace.
set -u
export LC_ALL=C
SANDWALLD=$1 want=$2
SANDWALL=${SANDWALLD%d}
# /tmp/sandwall-*: a directory sandwalld accepts for its journal
ns=swk-mode-$$ tmp=$(mktemp -d /tmp/sandwall-mode.XXXXXX) pid="" fails=0
ok()  { printf '    ok   %s\n' "$*"; }
bad() { printf '    FAIL %s\n' "$*"; fails=$((fails + 1)); }
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "--- kernel_mode_probe: sandwalld with owner = auto selects mode=$want on $(uname -r)"
t0=$SECONDS
cat >"$tmp/mode.conf" <<CONF
[guard]
interfaces = docker0 br-*
[daemon]
owner = auto
journal = $tmp/events.jsonl
[nft]
table = sandwall
CONF
if ! { ip netns add "$ns" && ip -n "$ns" link set lo up &&
	ip -n "$ns" link add docker0 type bridge && ip -n "$ns" link set docker0 up; }; then
	bad "namespace $ns could not be set up"
fi
ip netns exec "$ns" "$SANDWALLD" -c "$tmp/mode.conf" -f --control "$tmp/ctl" >"$tmp/d.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
	grep -q 'event=start' "$tmp/d.log" && [ -S "$tmp/ctl" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
line=$(grep -m1 'event=start' "$tmp/d.log")
if [ -z "$line" ]; then
	bad "sandwalld did not start within 10 s"; sed 's/^/         | /' "$tmp/d.log" | head -n 20
elif [[ $line == *" mode=$want "* ]]; then
	ok "${line#sandwalld: }"
else
	bad "expected mode=$want: ${line#sandwalld: }"
fi
grep -E 'refused|flags' "$tmp/d.log" | head -n 3 | sed 's/^/    .    /'
if [ -n "$line" ]; then
	ip netns exec "$ns" "$SANDWALL" -c "$tmp/mode.conf" --control "$tmp/ctl" --json status >"$tmp/st.json" 2>"$tmp/st.err"
	o=$(grep -o '"owner": *[a-z]*' "$tmp/st.json" | head -n1 | sed 's/.*: *//')
	p=$(grep -o '"persist": *[a-z]*' "$tmp/st.json" | head -n1 | sed 's/.*: *//')
	# twin: the main table is not owned; an owned twin holds the same blocks
	case $want in
	owner+persist) eo=true ep=true ;;
	owner)         eo=true ep=false ;;
	*)             eo=false ep=false ;;
	esac
	if [ "$o" = "$eo" ] && [ "$p" = "$ep" ]; then ok "status --json: owner=$o persist=$p"
	else bad "status --json: owner=$o persist=$p, expected owner=$eo persist=$ep"; fi
	twin=absent
	if ip netns exec "$ns" nft list table inet sandwall_twin >"$tmp/twin" 2>/dev/null; then
		if grep -q 'flags owner' "$tmp/twin"; then twin=owned; else twin=unowned; fi
	fi
	if [ "$want" = twin ]; then
		if [ $twin = owned ]; then ok "table inet sandwall_twin is there, owned"
		else bad "mode twin: table inet sandwall_twin is $twin"; fi
	elif [ $twin != absent ]; then
		bad "mode $want: there is a table inet sandwall_twin ($twin)"
	fi
	if ip netns exec "$ns" nft delete table inet sandwall 2>/dev/null; then deleted=true; else deleted=false; fi
	case $eo/$deleted in
	false/true) ok "nft delete table allowed (not owned: the daemon repairs)" ;;
	true/false) ok "nft delete table refused (owned)" ;;
	true/true)  bad "nft delete table worked on a table that should be owned" ;;
	*)          bad "nft delete table refused on a table that should not be owned" ;;
	esac
fi
if [ $fails -eq 0 ]; then echo "PASS kernel_mode_probe ($((SECONDS - t0))s)"
else echo "FAIL kernel_mode_probe ($((SECONDS - t0))s)"; fi
[ $fails -eq 0 ]
