# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Round three of the attacks (issue 22), the inet table's part: judged
# after NAT, guarded by kind from the first packet, sandboxes apart, the
# VPC blocked by default. As in test_attacks.sh, every attack first runs
# WITHOUT sandwall's table and must reach its target there (the proof),
# then WITH the table, where nothing gets through. docs/threat-model.md
# maps each test to the rule that stops it.

register_test round3_01_dnat      "DNAT by another table (kube-proxy style) to the LAN, the host's :8080, a redirect and metadata, v4 and v6, is judged after NAT; DNAT to the internet and to an own container stays open"
register_test round3_02_vpc       "the shipped config blocks the VPC behind the gateway (10.0.5.9, a peered 192.168.50.20); an [allow] networks CIDR and an allowed private mirror stay open"

SANDWALLD=${SANDWALLD:-$SWT_ROOT/build/sandwalld}
R3_UNDO=()

r3_run() {
	local body=$1 rc i old_ctl=${SANDWALL_CONTROL-}
	need_sandwall || return $SKIP
	R3_UNDO=()
	export SANDWALL_CONTROL="$SWT_TMP/ctl.none"
	"$body"
	rc=$?
	for ((i = ${#R3_UNDO[@]} - 1; i >= 0; i--)); do eval "${R3_UNDO[i]}" >/dev/null 2>&1; done
	R3_UNDO=()
	if [ -n "$old_ctl" ]; then export SANDWALL_CONTROL=$old_ctl; else unset SANDWALL_CONTROL; fi
	return $rc
}

# ------------------------------------------------------------------ DNAT in another table
# table inet swother (removed by reset_state): a kube-proxy-like dstnat
# chain that maps "service" addresses the sandbox may reach to
#   198.51.100.81 / 2001:db8::81   -> a LAN host (10.0.0.50, fd00:10::50)
#   198.51.100.82 / 2001:db8::82   -> the metadata server
#   198.51.100.83 / 2001:db8::83   -> the host's own 10.0.0.2:8080 / [fd00:10::2]:8080
#   198.51.100.84 / 2001:db8::84   -> redirect to the host's :8080
#   198.51.100.85 / 2001:db8::85   -> the internet (203.0.113.10, 2001:db8::10): stays open
#   198.51.100.86 / 2001:db8::86   -> c3, a container on the same bridge: stays open
_r3_dnat_table() {
	nsx "$H" nft -f - <<-'EOF'
	table inet swother {
		chain pre {
			type nat hook prerouting priority dstnat; policy accept;
			ip daddr 198.51.100.81 tcp dport 80 dnat ip to 10.0.0.50:80
			ip daddr 198.51.100.82 tcp dport 80 dnat ip to 169.254.169.254:80
			ip daddr 198.51.100.83 tcp dport 80 dnat ip to 10.0.0.2:8080
			ip daddr 198.51.100.84 tcp dport 80 redirect to :8080
			ip daddr 198.51.100.85 tcp dport 80 dnat ip to 203.0.113.10:80
			ip daddr 198.51.100.86 tcp dport 80 dnat ip to 172.17.0.3:80
			ip6 daddr 2001:db8::81 tcp dport 80 dnat ip6 to [fd00:10::50]:80
			ip6 daddr 2001:db8::82 tcp dport 80 dnat ip6 to [fd00:ec2::254]:80
			ip6 daddr 2001:db8::83 tcp dport 80 dnat ip6 to [fd00:10::2]:8080
			ip6 daddr 2001:db8::84 tcp dport 80 redirect to :8080
			ip6 daddr 2001:db8::85 tcp dport 80 dnat ip6 to [2001:db8::10]:80
			ip6 daddr 2001:db8::86 tcp dport 80 dnat ip6 to [fd00:17::3]:80
		}
	}
	EOF
}
R3_DNAT_BLOCKED4="198.51.100.81 198.51.100.82 198.51.100.83 198.51.100.84"
R3_DNAT_BLOCKED6="2001:db8::81 2001:db8::82 2001:db8::83 2001:db8::84"

round3_01_dnat() { r3_run _round3_01; }
_round3_01() {
	local a conf before_lan before_meta before_host
	_r3_dnat_table || { bad "could not add the dnat table"; return 1; }
	# a published port of c1 reached from outside (Docker's DNAT)
	hnft add rule ip testnat prerouting iifname eth0 tcp dport 8000 dnat to 172.17.0.2:8000 ||
		{ bad "could not add the published-port DNAT"; return 1; }
	info "without sandwall's table: every translated destination answers (the attack works)"
	for a in $R3_DNAT_BLOCKED4; do reach "$C1" "http://$a/"; done
	for a in $R3_DNAT_BLOCKED6; do reach "$C1" "http://[$a]/"; done
	conf=$(mkconf r3dnat)
	apply_ok "$conf" || return 1
	before_lan=$(counter_packets lan); before_meta=$(counter_packets metadata); before_host=$(counter_packets host)
	info "with the table: judged again after NAT"
	for a in $R3_DNAT_BLOCKED4; do blocked "$C1" "http://$a/"; done
	for a in $R3_DNAT_BLOCKED6; do blocked "$C1" "http://[$a]/"; done
	blocked "$C2" http://198.51.100.82/
	[ "$(counter_packets lan)" -gt "$before_lan" ] && ok "counted as lan" || bad "lan counter did not move"
	[ "$(counter_packets metadata)" -gt "$before_meta" ] && ok "counted as metadata" || bad "metadata counter did not move"
	[ "$(counter_packets host)" -gt "$before_host" ] && ok "counted as host" || bad "host counter did not move"
	info "legitimate traffic in the same run"
	reach "$C1" http://198.51.100.85/              # DNAT to the internet
	reach "$C1" "http://[2001:db8::85]/"
	reach "$C1" http://198.51.100.86/              # DNAT to an own container
	reach "$C1" "http://[2001:db8::86]/"
	reach "$C1" http://203.0.113.10/
	reach "$C1" "http://[2001:db8::10]/"
	reach "$CL" http://10.0.0.2:8000/              # published port from outside
	reach "$H" http://172.17.0.2:8000/             # host -> container
	reach "$C1" http://172.17.0.3/                 # same bridge
	udp_reach "$C1" 169.254.169.253 53             # DNS carve-out
	expect_sw 0 "check: in sync" -c "$conf" check
	return 0
}

# ------------------------------------------------------------------ the VPC behind the gateway
# The cloud namespace routes the VPC's other subnets: 10.0.5.9 and a peered
# 192.168.50.20 (addresses on its lo, behind the gateway 10.0.0.1), and an
# internal mirror 10.0.7.7 that the config allows.
round3_02_vpc() { r3_run _round3_02; }
_round3_02() {
	local conf a
	for a in 10.0.5.9/32 192.168.50.20/32 10.0.7.7/32 10.244.3.3/32; do
		ip -n "$CL" addr add "$a" dev lo || { bad "cloud: addr $a"; return 1; }
		R3_UNDO+=("ip -n $CL addr del $a dev lo")
	done
	for a in 10.0.5.9 192.168.50.20 10.0.7.7 10.244.3.3; do reach "$C1" "http://$a/"; done
	# the shipped config, with the test's interfaces, journal and an allowed mirror
	conf="$SWT_TMP/r3vpc.conf"
	sed -e "s|^journal = .*|journal = $SWT_TMP/r3vpc.events.jsonl|" \
	    -e 's|^destinations =$|destinations =|' \
	    -e 's|^networks =$|networks = 10.244.0.0/16|' "$SWT_ROOT/rules/sandwall.conf" >"$conf"
	# [allow] destinations (the second "destinations =" is [allow]'s)
	awk '/^\[allow\]/{a=1} a && /^destinations =$/ && !d {print "destinations = 10.0.7.7 tcp/80 reopen"; d=1; next} {print}' \
		"$conf" >"$conf.new" && mv "$conf.new" "$conf"
	grep -q '^private = yes' "$conf" && ok "the shipped config says private = yes" || bad "the shipped config does not block private"
	apply_ok "$conf" || return 1
	blocked "$C1" http://10.0.5.9/
	blocked "$C1" http://192.168.50.20/
	blocked "$C2" http://10.0.5.9/
	reach "$C1" http://10.0.7.7/                   # the allowed mirror
	reach "$C1" http://10.244.3.3/                 # [allow] networks
	reach "$C1" http://203.0.113.10/
	reach "$C1" "http://[2001:db8::10]/"
	reach "$C1" http://172.17.0.3/                 # own subnet
	udp_reach "$C1" 169.254.169.253 53
	return 0
}
