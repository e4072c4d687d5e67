# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Round three of the attacks (issue 22), the inet table's part: judged
# after NAT, guarded by kind from the first packet, sandboxes apart, the
# VPC blocked by default. As in test_attacks.sh, every attack first runs
# WITHOUT sandwall's table and must reach its target there (the proof),
# then WITH the table, where nothing gets through. docs/threat-model.md
# maps each test to the rule that stops it.

register_test round3_01_dnat      "DNAT by another table (kube-proxy style) to the LAN, the host's :8080, a redirect and metadata, v4 and v6, is judged after NAT; DNAT to the internet and to an own container stays open"
register_test round3_03_moved_veth "a veth made in the host, host side configured and up, peer moved into the container last, under a paced UDP flood: 0 datagrams at the metadata receiver with apply only and with sandwalld"
register_test round3_04_macvlan_shim "a bridge-mode macvlan child reaches the host's own shim macvlan on the same parent, the uplink address on it and docker0's address: blocked by kind"
register_test round3_05_sandboxes "one bridge's container cannot reach another bridge's container by routing ([block] sandboxes, counted), also after DNAT; the same bridge stays open (br_netfilter off and on); [allow] between opens a pair"
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
		# hairpin: c3's answer to c1 must come back through the host to be
		# un-NATed (without br_netfilter it is bridged straight to c1), as
		# Docker's own hairpin masquerade does
		chain post {
			type nat hook postrouting priority srcnat; policy accept;
			ct status dnat ip saddr 172.17.0.0/16 ip daddr 172.17.0.0/16 masquerade
			ct status dnat ip6 saddr fd00:17::/64 ip6 daddr fd00:17::/64 masquerade
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
	for a in 198.51.100.85 198.51.100.86; do reach "$C1" "http://$a/"; done
	for a in 2001:db8::85 2001:db8::86; do reach "$C1" "http://[$a]/"; done
	conf=$(mkconf r3dnat allow.between=)
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

# ------------------------------------------------------------------ a veth moved last
# _r3_moved NAME: a veth pair rv9/rv9p made in the host namespace, rv9
# configured (172.31.9.1/30) and up, then rv9p moved into the container
# namespace c9 and configured there, while a flood in c9 sends to
# 169.254.169.254:54 as soon as it has a route. Prints the datagrams the
# metadata receiver counted.
R3_C9=${SWT_PREFIX}c9
_r3_moved() {
	local tag=$1 n
	ip netns add "$R3_C9" 2>/dev/null; ip -n "$R3_C9" link set lo up
	atk_rx "$CL" "r3$tag" || return 1
	rm -f "$SWT_TMP/r3flood.stop"
	nsx "$R3_C9" "$PY" "$ATK" flood --dst 169.254.169.254 --port 54 --stop "$SWT_TMP/r3flood.stop" --max 30 \
		>"$SWT_TMP/r3flood.$tag.out" 2>&1 &
	local fp=$!
	SWT_TEST_PIDS+=("$fp")
	ip -n "$H" link add rv9 type veth peer name rv9p &&
	ip -n "$H" addr add 172.31.9.1/30 dev rv9 &&
	ip -n "$H" link set rv9 up &&
	ip -n "$H" link set rv9p netns "$R3_C9" &&
	# the container side in one process right after the move, as a runtime does
	printf '%s\n' "addr add 172.31.9.2/30 dev rv9p" "link set rv9p up" \
		"route add default via 172.31.9.1" | ip -n "$R3_C9" -batch - ||
		bad "$tag: could not build the moved veth"
	sleep 1.5
	touch "$SWT_TMP/r3flood.stop"; wait "$fp" 2>/dev/null
	sleep 0.2
	n=$(atk_rx_n "r3$tag" "dst=169.254.169.254 dport=54 ")
	touch "$SWT_TMP/rx.r3$tag.stop"
	info "$tag: flood $(cat "$SWT_TMP/r3flood.$tag.out"), $n at the receiver"
	R3_N=$n
}
_r3_moved_down() { ip -n "$H" link del rv9 2>/dev/null; ip netns del "$R3_C9" 2>/dev/null; sleep 0.2; }

round3_03_moved_veth() { r3_run _round3_03; }
_round3_03() {
	local conf
	R3_UNDO+=("_r3_moved_down")
	_r3_moved notable || return 1
	if [ "$R3_N" -gt 0 ]; then ok "no table: $R3_N datagrams reached 169.254.169.254 (the attack works)"
	else bad "no table: nothing reached the receiver: the test proves nothing"; fi
	_r3_moved_down
	conf=$(mkconf r3kind guard.interfaces=auto allow.between=)
	apply_ok "$conf" || return 1
	_r3_moved applyonly || return 1
	[ "$R3_N" -eq 0 ] && ok "apply only: 0 datagrams through" || bad "apply only: $R3_N datagrams reached the metadata receiver"
	reach "$R3_C9" http://203.0.113.10/
	blocked "$R3_C9" http://10.0.0.50/
	blocked "$R3_C9" http://172.31.9.1:8080/
	_r3_moved_down
	atk_d_start "$conf" || return 1
	R3_UNDO+=("atk_d_stop TERM")
	_r3_moved daemon || return 1
	[ "$R3_N" -eq 0 ] && ok "with sandwalld: 0 datagrams through" || bad "with sandwalld: $R3_N datagrams reached the metadata receiver"
	reach "$R3_C9" http://203.0.113.10/
	reach "$C1" http://203.0.113.10/
	reach "$H" http://172.17.0.2:8000/
	atk_d_stop TERM
	return 0
}

# ------------------------------------------------------------------ a macvlan shim
# mvp0 (a veth in the host, its peer mvp0p up too) is the parent; mvshim, a
# bridge-mode macvlan of it in the host (172.30.77.1/24), is the host's
# "shim"; mvc, another bridge-mode macvlan of it, is moved into c8
# (172.30.77.2/24, default via the shim).
R3_C8=${SWT_PREFIX}c8
_r3_shim_down() { ip -n "$H" link del mvp0 2>/dev/null; ip netns del "$R3_C8" 2>/dev/null; }
round3_04_macvlan_shim() { r3_run _round3_04; }
_round3_04() {
	local conf u
	R3_UNDO+=("_r3_shim_down")
	ip netns add "$R3_C8" && ip -n "$R3_C8" link set lo up &&
	ip -n "$H" link add mvp0 type veth peer name mvp0p &&
	ip -n "$H" link set mvp0 up && ip -n "$H" link set mvp0p up &&
	ip -n "$H" link add mvshim link mvp0 type macvlan mode bridge &&
	ip -n "$H" addr add 172.30.77.1/24 dev mvshim && ip -n "$H" link set mvshim up &&
	ip -n "$H" link add mvc link mvp0 type macvlan mode bridge &&
	ip -n "$H" link set mvc netns "$R3_C8" &&
	ip -n "$R3_C8" addr add 172.30.77.2/24 dev mvc && ip -n "$R3_C8" link set mvc up &&
	ip -n "$R3_C8" route add default via 172.30.77.1 || { bad "could not build the macvlan topology"; return 1; }
	sleep 0.3
	for u in http://172.30.77.1:8080/ http://10.0.0.2:8080/ http://172.17.0.1:8080/; do reach "$R3_C8" "$u"; done
	conf=$(mkconf r3shim guard.interfaces=auto allow.between=)
	apply_ok "$conf" || return 1
	for u in http://172.30.77.1:8080/ http://10.0.0.2:8080/ http://172.17.0.1:8080/ http://169.254.169.254/ http://10.0.0.50/; do
		blocked "$R3_C8" "$u"
	done
	reach "$R3_C8" http://203.0.113.10/
	reach "$C1" http://203.0.113.10/
	return 0
}

# ------------------------------------------------------------------ sandboxes apart
round3_05_sandboxes() { r3_run _round3_05; }
_round3_05() {
	local conf before brnf old
	_r3_dnat_table || { bad "could not add the dnat table"; return 1; }
	hnft add rule inet swother pre ip daddr 198.51.100.87 tcp dport 80 dnat ip to 172.18.0.2:80 ||
		{ bad "could not add the DNAT to c2"; return 1; }
	info "without sandwall's table: c1 (docker0) and c2 (br-...) reach each other"
	reach "$C1" http://172.18.0.2/
	reach "$C2" http://172.17.0.2:8000/
	reach "$C1" http://198.51.100.87/
	# the default: no [allow] between
	conf=$(mkconf r3sbx allow.between=)
	apply_ok "$conf" || return 1
	before=$(counter_packets sandboxes)
	blocked "$C1" http://172.18.0.2/
	blocked "$C2" http://172.17.0.2:8000/
	blocked "$C2" "http://172.17.0.3/"
	blocked "$C1" http://198.51.100.87/          # DNAT into the other sandbox
	[ "$(counter_packets sandboxes)" -gt "${before:-0}" ] && ok "counted as sandboxes" ||
		bad "sandboxes counter did not move (${before:-missing} -> $(counter_packets sandboxes))"
	for brnf in 0 1; do
		if [ "$brnf" = 1 ]; then
			if nsx "$H" test -e /proc/sys/net/bridge/bridge-nf-call-iptables || modprobe br_netfilter 2>/dev/null &&
			   nsx "$H" test -e /proc/sys/net/bridge/bridge-nf-call-iptables; then
				old=$(nsx "$H" sysctl -n net.bridge.bridge-nf-call-iptables)
				nsx "$H" sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1
				R3_UNDO+=("nsx $H sysctl -qw net.bridge.bridge-nf-call-iptables=$old net.bridge.bridge-nf-call-ip6tables=$old")
			else
				info "no br_netfilter here: the bridged path through the IP hooks is not tested"
				continue
			fi
		fi
		info "br_netfilter $brnf: the same bridge stays open"
		reach "$C1" http://172.17.0.3/
		reach "$C1" "http://[fd00:17::3]/"
		reach "$C3" http://172.17.0.2:8000/
	done
	reach "$C1" http://203.0.113.10/
	reach "$H" http://172.18.0.2/                   # host -> container
	info "[allow] between = docker0:br-0a1b2c3d4e5f opens that pair, both ways"
	conf=$(mkconf r3between "allow.between=docker0:br-0a1b2c3d4e5f")
	apply_ok "$conf" || return 1
	reach "$C1" http://172.18.0.2/
	reach "$C2" http://172.17.0.2:8000/
	expect_sw 0 "check: in sync" -c "$conf" check
	return 0
}
