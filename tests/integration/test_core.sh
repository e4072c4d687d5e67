# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Core suite: the ruleset blocks what DESIGN.md says and nothing else, check
# sees drift, export round-trips, bad configs change nothing, apply is atomic.
# Each test starts from the baseline topology with no sandwall table
# (run.sh calls reset_state after every test).

register_test core_01_baseline       "without sandwall the topology lets every probe through"
register_test core_02_default_blocks "default config blocks metadata, host, gateways, LAN; internet open"
register_test core_03_categories_off "switching a category off opens exactly that category"
register_test core_04_private        "private = yes blocks RFC1918 but never the guarded bridges' subnets"
register_test core_05_destinations   "[block] destinations blocks extra CIDRs (v4 and v6)"
register_test core_06_replies        "replies to connections opened from outside (host, DNAT) stay open"
register_test core_07_allow          "[allow] dns, host_ports and destinations open exactly what they name"
register_test core_08_check_drift    "check: 0 after apply, 1 after every kind of tamper, 0 after re-apply"
register_test core_09_export         "export is nft -f text that rebuilds the same table"
register_test core_10_bad_config     "a bad config exits 2 with FILE:LINE: and changes nothing"
register_test core_11_atomic         "apply is idempotent and never opens a gap while traffic flows"
register_test core_12_status         "status and the documented default config file"
register_test core_13_gate_fallback  "a category set emptied behind sandwall's back: the gate's fallback drop still blocks metadata and lan (and without it they open)"

# Probe targets (URLs)
U_META=http://169.254.169.254/
U_META2=http://100.100.100.200/
U_META6="http://[fd00:ec2::254]/"
U_GW=http://10.0.0.1/
U_GW6="http://[fd00:10::1]/"
U_LAN=http://10.0.0.50/
U_LAN6="http://[fd00:10::50]/"
U_HOST_BR=http://172.17.0.1:8080/
U_HOST_BR6="http://[fd00:17::1]:8080/"
U_HOST_BR2=http://172.18.0.1:8080/
U_HOST_UP=http://10.0.0.2:9090/
U_HOST_UP8080=http://10.0.0.2:8080/
U_HOST_UP6="http://[fd00:10::2]:8080/"
U_NET=http://203.0.113.10/
U_NET_B=http://198.51.100.10/
U_NET6="http://[2001:db8::10]/"
U_NET6_B="http://[2001:db8:1::10]/"
U_C2=http://172.18.0.2/
U_C3=http://172.17.0.3/
U_C3_6="http://[fd00:17::3]/"
DNS_IP=169.254.169.253

core_01_baseline() {
	local ns
	for ns in "$C1" "$C2"; do
		reach "$ns" $U_META
		reach "$ns" $U_META2
		reach "$ns" $U_GW
		reach "$ns" $U_LAN
		reach "$ns" $U_HOST_BR
		reach "$ns" $U_HOST_UP
		reach "$ns" $U_HOST_UP8080
		reach "$ns" $U_NET
		reach "$ns" $U_NET_B
		udp_reach "$ns" $DNS_IP 53
		udp_reach "$ns" $DNS_IP 54
	done
	reach "$C1" $U_HOST_BR2
	reach "$C1" $U_C2
	reach "$C1" $U_C3
	reach "$C2" "http://172.17.0.2:8000/"
	reach "$C1" "http://$DNS_IP:53/"
	# IPv6 (c1 only: c2's bridge has no v6)
	reach "$C1" "$U_META6"
	reach "$C1" "$U_GW6"
	reach "$C1" "$U_LAN6"
	reach "$C1" "$U_HOST_BR6"
	reach "$C1" "$U_HOST_UP6"
	reach "$C1" "$U_NET6"
	reach "$C1" "$U_NET6_B"
	reach "$C1" "$U_C3_6"
	# the other directions used by core_06
	reach "$H" http://172.17.0.2:8000/
	reach "$H" "http://[fd00:17::2]:8000/"
	reach "$H" $U_META
	# the flood detector of core_11 sees traffic when nothing blocks it
	local out
	out=$(nsx "$C1" "$PY" "$SRV" flood 169.254.169.254 80 54 0.3)
	if [ $? -eq 1 ]; then ok "flood detector sees open traffic ($out)"
	else bad "flood detector saw nothing on an open path ($out)"; fi
	# the host's resolv.conf as sandwall will see it
	if nsx "$H" grep -q "nameserver $DNS_IP" /etc/resolv.conf; then ok "host ns resolv.conf names $DNS_IP"
	else bad "host ns /etc/resolv.conf does not name $DNS_IP"; fi
	# no sandwall table yet
	if table_exists; then bad "table inet sandwall exists before any apply"; else ok "no table inet sandwall yet"; fi
	return 0
}

core_02_default_blocks() {
	need_sandwall || return $SKIP
	local conf ns
	conf=$(mkconf default)
	apply_ok "$conf" || return 1
	if table_exists; then ok "table inet sandwall exists"; else bad "no table inet sandwall after apply"; fi
	for ns in "$C1" "$C2"; do
		blocked "$ns" $U_META
		blocked "$ns" $U_META2
		blocked "$ns" $U_GW
		blocked "$ns" $U_LAN
		blocked "$ns" $U_HOST_BR
		blocked "$ns" $U_HOST_UP
		blocked "$ns" $U_HOST_UP8080
		reach "$ns" $U_NET
		reach "$ns" $U_NET_B
	done
	blocked "$C1" $U_HOST_BR2
	blocked "$C1" "$U_META6"
	blocked "$C1" "$U_GW6"
	blocked "$C1" "$U_LAN6"
	blocked "$C1" "$U_HOST_BR6"
	blocked "$C1" "$U_HOST_UP6"
	reach "$C1" "$U_NET6"
	reach "$C1" "$U_NET6_B"
	# link-local UDP (no allow for port 54)
	udp_blocked "$C1" $DNS_IP 54
	# container to container stays open
	reach "$C1" $U_C2
	reach "$C1" $U_C3
	reach "$C1" "$U_C3_6"
	# the host itself is not guarded
	reach "$H" $U_META
	reach "$H" "$U_META6"
	reach "$H" $U_LAN
	# the drops are sandwall's: the category counters moved
	local c n
	for c in metadata host gateways lan; do
		n=$(counter_packets $c)
		if [ -n "$n" ] && [ "$n" -gt 0 ]; then ok "counter $c = $n packets"
		else bad "counter $c: expected > 0 packets, got '${n:-missing}'"; fi
	done
	return 0
}

core_03_categories_off() {
	need_sandwall || return $SKIP
	local conf
	info "metadata = no, link_local = no"
	conf=$(mkconf meta_ll_off block.metadata=no block.link_local=no)
	apply_ok "$conf" || return 1
	reach "$C1" $U_META
	reach "$C1" $U_META2
	reach "$C1" "$U_META6"
	reach "$C2" $U_META
	blocked "$C1" $U_GW
	blocked "$C1" $U_HOST_BR

	info "metadata = no (link_local = yes): 169.254.169.254 stays blocked as link-local"
	conf=$(mkconf meta_off block.metadata=no)
	apply_ok "$conf" || return 1
	blocked "$C1" $U_META
	reach "$C1" $U_META2
	reach "$C1" "$U_META6"

	info "link_local = no (metadata = yes): other link-local opens, metadata stays blocked"
	conf=$(mkconf ll_off block.link_local=no)
	apply_ok "$conf" || return 1
	blocked "$C1" $U_META
	blocked "$C1" $U_META2
	udp_reach "$C1" $DNS_IP 54

	info "gateways = no, lan = no"
	conf=$(mkconf gw_lan_off block.gateways=no block.lan=no)
	apply_ok "$conf" || return 1
	reach "$C1" $U_GW
	reach "$C1" "$U_GW6"
	reach "$C1" $U_LAN
	blocked "$C1" $U_META
	blocked "$C1" $U_HOST_UP

	info "gateways = no (lan = yes): the gateway is still in the LAN"
	conf=$(mkconf gw_off block.gateways=no)
	apply_ok "$conf" || return 1
	blocked "$C1" $U_GW

	info "lan = no: LAN peer open, gateways still blocked"
	conf=$(mkconf lan_off block.lan=no)
	apply_ok "$conf" || return 1
	reach "$C1" $U_LAN
	reach "$C1" "$U_LAN6"
	blocked "$C1" $U_GW
	blocked "$C1" "$U_GW6"
	blocked "$C1" $U_HOST_UP

	info "host = no: host services on the bridges open; uplink address still in the LAN"
	conf=$(mkconf host_off block.host=no)
	apply_ok "$conf" || return 1
	reach "$C1" $U_HOST_BR
	reach "$C1" "$U_HOST_BR6"
	reach "$C2" $U_HOST_BR2
	blocked "$C1" $U_HOST_UP
	blocked "$C1" $U_META

	info "host = no, lan = no: uplink address open too"
	conf=$(mkconf host_lan_off block.host=no block.lan=no)
	apply_ok "$conf" || return 1
	reach "$C1" $U_HOST_UP
	reach "$C1" "$U_HOST_UP6"
	blocked "$C1" $U_GW
	return 0
}

core_04_private() {
	need_sandwall || return $SKIP
	local conf
	conf=$(mkconf private block.private=yes block.lan=no)
	apply_ok "$conf" || return 1
	blocked "$C1" $U_LAN
	blocked "$C1" "$U_LAN6"
	blocked "$C1" $U_META2          # 100.64.0.0/10 (and metadata)
	reach "$C1" $U_NET
	reach "$C1" "$U_NET6"
	# the guarded bridges' own subnets are never blocked by private
	reach "$C1" $U_C3
	reach "$C1" "$U_C3_6"
	reach "$C1" $U_C2
	reach "$C2" "http://172.17.0.2:8000/"

	# the gate (the fast path's union) leaves own subnets out only where
	# lan and private are what would block them: a [block] destinations
	# entry inside an own subnet stays blocked (C2 was reachable just above)
	info "a destinations entry inside an own subnet is blocked, the rest of the subnet open"
	conf=$(mkconf private_dest block.private=yes block.lan=no "block.destinations=172.18.0.2")
	apply_ok "$conf" || return 1
	blocked "$C1" $U_C2
	reach "$C1" $U_C3

	info "private = yes with metadata/gateways/host/lan/link_local all off: still blocks 10/8"
	conf=$(mkconf private_only block.private=yes block.lan=no block.metadata=no \
		block.link_local=no block.gateways=no block.host=no)
	apply_ok "$conf" || return 1
	blocked "$C1" $U_LAN
	blocked "$C1" $U_GW
	blocked "$C1" $U_HOST_UP
	reach "$C1" $U_META             # 169.254/16 is not private
	reach "$C1" $U_C2
	return 0
}

core_05_destinations() {
	need_sandwall || return $SKIP
	local conf
	conf=$(mkconf dest "block.destinations=203.0.113.0/24")
	apply_ok "$conf" || return 1
	blocked "$C1" $U_NET
	blocked "$C2" $U_NET
	reach "$C1" $U_NET_B
	reach "$C1" "$U_NET6"

	conf=$(mkconf dest46 "block.destinations=203.0.113.0/24 2001:db8::/48")
	apply_ok "$conf" || return 1
	blocked "$C1" $U_NET
	blocked "$C1" "$U_NET6"
	reach "$C1" "$U_NET6_B"
	reach "$C1" $U_NET_B
	local n
	n=$(counter_packets destinations)
	if [ -n "$n" ] && [ "$n" -gt 0 ]; then ok "counter destinations = $n packets"
	else bad "counter destinations: expected > 0 packets, got '${n:-missing}'"; fi
	return 0
}

core_06_replies() {
	need_sandwall || return $SKIP
	local conf
	hnft add rule ip testnat prerouting iifname eth0 tcp dport 8000 dnat to 172.17.0.2:8000 ||
		{ bad "could not add the DNAT rule"; return 1; }
	reach "$CL" http://10.0.0.2:8000/           # sanity before apply
	conf=$(mkconf default)
	apply_ok "$conf" || return 1
	# the host opens connections to a container: replies go to a host address
	reach "$H" http://172.17.0.2:8000/
	reach "$H" "http://[fd00:17::2]:8000/"
	# published port: an outside client (the gateway itself) via DNAT
	reach "$CL" http://10.0.0.2:8000/
	# ...while the same container cannot open connections there
	blocked "$C1" $U_GW
	blocked "$C1" $U_HOST_BR
	return 0
}

core_07_allow() {
	need_sandwall || return $SKIP
	local conf
	info "dns = auto, host resolv.conf: nameserver $DNS_IP"
	conf=$(mkconf dns_auto allow.dns=auto)
	apply_ok "$conf" || return 1
	udp_reach "$C1" $DNS_IP 53
	udp_reach "$C2" $DNS_IP 53
	reach "$C1" "http://$DNS_IP:53/"        # tcp/53
	udp_blocked "$C1" $DNS_IP 54
	blocked "$C1" "http://$DNS_IP:80/"
	blocked "$C1" $U_META

	info "dns = none"
	conf=$(mkconf dns_none allow.dns=none)
	apply_ok "$conf" || return 1
	udp_blocked "$C1" $DNS_IP 53
	blocked "$C1" "http://$DNS_IP:53/"

	info "dns = auto follows the host's resolv.conf (nameserver 10.0.0.1)"
	printf 'nameserver 10.0.0.1\n' >"/etc/netns/$H/resolv.conf"
	conf=$(mkconf dns_auto2 allow.dns=auto)
	apply_ok "$conf" || return 1
	udp_blocked "$C1" $DNS_IP 53
	udp_reach "$C1" 10.0.0.1 53
	udp_blocked "$C1" 10.0.0.1 54
	blocked "$C1" $U_GW
	printf 'nameserver %s\n' $DNS_IP >"/etc/netns/$H/resolv.conf"

	info "host_ports = tcp/8080"
	conf=$(mkconf host_ports allow.host_ports=tcp/8080)
	apply_ok "$conf" || return 1
	reach "$C1" $U_HOST_BR
	reach "$C1" "$U_HOST_BR6"
	blocked "$C1" $U_HOST_UP
	blocked "$C1" $U_GW

	info "allow destinations = $DNS_IP/32 udp/54 (dns = none)"
	conf=$(mkconf allow_dest allow.dns=none "allow.destinations=$DNS_IP/32 udp/54 reopen, 10.0.0.50 tcp/80 reopen")
	apply_ok "$conf" || return 1
	udp_reach "$C1" $DNS_IP 54
	udp_blocked "$C1" $DNS_IP 53
	reach "$C1" $U_LAN
	blocked "$C1" $U_GW
	blocked "$C1" $U_META
	return 0
}

# tamper DESC NFT-ARGS...: apply, tamper with nft, expect check 1, re-apply, expect check 0
_tamper() {
	local conf=$1 desc=$2; shift 2
	sw -c "$conf" apply
	if [ "$SW_RC" -ne 0 ]; then bad "[$desc] apply before tamper: exit $SW_RC"; show "$SW_ERR"; return 1; fi
	if ! hnft "$@" 2>"$SWT_TMP/nft.err"; then
		bad "[$desc] the tamper itself failed: nft $*"; show "$SWT_TMP/nft.err"; return 1
	fi
	sw -c "$conf" check
	if [ "$SW_RC" -eq 1 ]; then
		if [ -s "$SW_OUT" ] || [ -s "$SW_ERR" ]; then ok "[$desc] check -> 1 (drift): $(head -c 150 "$SW_OUT" | tr '\n' ' ')"
		else bad "[$desc] check -> 1 but printed no diff"; fi
	else
		bad "[$desc] check after tamper: exit $SW_RC, expected 1 (drift)"; show "$SW_OUT"; show "$SW_ERR"
	fi
	sw -c "$conf" apply
	[ "$SW_RC" -eq 0 ] || { bad "[$desc] re-apply: exit $SW_RC"; show "$SW_ERR"; }
	sw -c "$conf" check
	if [ "$SW_RC" -eq 0 ]; then ok "[$desc] re-apply -> check 0"
	else bad "[$desc] check after re-apply: exit $SW_RC, expected 0"; show "$SW_OUT"; show "$SW_ERR"; fi
}

core_08_check_drift() {
	need_sandwall || return $SKIP
	local conf h
	conf=$(mkconf default)
	info "no table yet: check reports drift"
	expect_sw 1 "check before any apply" -c "$conf" check
	apply_ok "$conf" || return 1
	expect_sw 0 "check right after apply" -c "$conf" check
	# traffic moves counters: that is not drift
	tcp_probe "$C1" $U_META >/dev/null
	tcp_probe "$C1" $U_GW >/dev/null
	expect_sw 0 "check after blocked traffic bumped the counters" -c "$conf" check
	# a config that differs from what is installed is drift too
	expect_sw 1 "check with a different config (private = yes)" -c "$(mkconf private block.private=yes)" check

	_tamper "$conf" "delete table" delete table inet sandwall
	_tamper "$conf" "flush chain guard" flush chain inet sandwall guard
	h=$(hnft -a list chain inet sandwall guard 2>/dev/null | grep -E '@metadata4|metadata' | grep -o 'handle [0-9]*' | head -n1 | cut -d' ' -f2)
	[ -n "$h" ] || h=$(hnft -a list chain inet sandwall guard 2>/dev/null | grep -o 'handle [0-9]*' | tail -n1 | cut -d' ' -f2)
	if [ -n "$h" ]; then
		_tamper "$conf" "delete rule handle $h" delete rule inet sandwall guard handle "$h"
	else
		bad "no rule handle found in chain guard"; hnft -a list chain inet sandwall guard | show -
	fi
	_tamper "$conf" "insert accept in guard" insert rule inet sandwall guard accept
	_tamper "$conf" "append accept in guard" add rule inet sandwall guard accept
	_tamper "$conf" "insert accept in prerouting" insert rule inet sandwall prerouting accept
	_tamper "$conf" "delete element metadata4" delete element inet sandwall metadata4 '{ 169.254.169.254 }'
	_tamper "$conf" "add element allow4" add element inet sandwall allow4 '{ 1.2.3.4 . tcp . 80 }'
	_tamper "$conf" "add element guard_ifaces" add element inet sandwall guard_ifaces '{ "zz0" }'
	_tamper "$conf" "delete element guard_ifaces" delete element inet sandwall guard_ifaces '{ "docker0" }'
	_tamper "$conf" "flush set lan4" flush set inet sandwall lan4
	_tamper "$conf" "flush chain block_metadata" flush chain inet sandwall block_metadata
	_tamper "$conf" "policy drop on prerouting" add chain inet sandwall prerouting \
		'{ type filter hook prerouting priority -150; policy drop; }'
	_tamper "$conf" "extra chain" add chain inet sandwall zz_extra
	_tamper "$conf" "extra set" add set inet sandwall zz_extra '{ type ipv4_addr; }'
	# after the re-applies, the ruleset still works
	blocked "$C1" $U_META
	reach "$C1" $U_NET

	info "remove"
	expect_sw 0 "remove" -c "$conf" remove
	if table_exists; then bad "table inet sandwall still there after remove"; else ok "table gone after remove"; fi
	expect_sw 1 "check after remove" -c "$conf" check
	reach "$C1" $U_META
	expect_sw 0 "remove again (nothing to remove) is not an error" -c "$conf" remove
	return 0
}

core_09_export() {
	need_sandwall || return $SKIP
	local conf f="$SWT_TMP/export.nft" px=${SWT_PREFIX}x- py=${SWT_PREFIX}y-
	# export prints table inet only: no table netdev for check to miss
	conf=$(mkconf default guard.macvlan_parents=none)
	expect_sw 0 "export" -c "$conf" export || return 1
	cp "$SW_OUT" "$f"
	if [ -s "$f" ]; then ok "export printed $(wc -l <"$f") lines"; else bad "export printed nothing"; return 1; fi
	if table_exists; then bad "export changed the kernel (table exists)"; else ok "export did not touch the kernel"; fi
	if hnft -c -f "$f" 2>"$SWT_TMP/nftc.err"; then ok "nft -c -f accepts the export"
	else bad "nft -c -f rejects the export"; show "$SWT_TMP/nftc.err"; fi

	# two fresh host-like namespaces (same addresses, routes, resolv.conf)
	if ! topo_build "$px" noservers >"$SWT_TMP/topo-x.log" 2>&1 ||
	   ! topo_build "$py" noservers >"$SWT_TMP/topo-y.log" 2>&1; then
		bad "could not build the fresh namespaces"; show "$SWT_TMP/topo-x.log"; show "$SWT_TMP/topo-y.log"
		topo_down "$px"; topo_down "$py"; return 1
	fi
	if nsx "${px}host" nft -f "$f" 2>"$SWT_TMP/nftf.err"; then ok "nft -f loads the export in a fresh namespace"
	else bad "nft -f of the export failed in a fresh namespace"; show "$SWT_TMP/nftf.err"; fi
	sw_in "${py}host" -c "$conf" apply
	if [ "$SW_RC" -eq 0 ]; then ok "sandwall apply in a second fresh namespace"
	else bad "sandwall apply in the second fresh namespace: exit $SW_RC"; show "$SW_ERR"; fi

	nft_list_norm "${px}host" >"$SWT_TMP/list-nft.txt"
	nft_list_norm "${py}host" >"$SWT_TMP/list-sw.txt"
	if diff -u "$SWT_TMP/list-nft.txt" "$SWT_TMP/list-sw.txt" >"$SWT_TMP/list.diff"; then
		ok "nft list table: nft -f of the export == sandwall apply ($(wc -l <"$SWT_TMP/list-sw.txt") lines)"
	else
		bad "nft list table differs between nft -f export (-) and sandwall apply (+)"
		show "$SWT_TMP/list.diff" 60
	fi
	sw_in "${px}host" -c "$conf" check
	if [ "$SW_RC" -eq 0 ]; then ok "sandwall check accepts the nft-loaded export (exit 0)"
	else bad "sandwall check on the nft-loaded export: exit $SW_RC, expected 0"; show "$SW_OUT" 30; show "$SW_ERR"; fi
	# the export also works as the real thing: traffic from the fresh c1 is blocked
	sw_in "${py}host" -c "$conf" check
	if [ "$SW_RC" -eq 0 ]; then ok "sandwall check after sandwall apply (fresh ns) exit 0"
	else bad "sandwall check after sandwall apply in fresh ns: exit $SW_RC"; show "$SW_OUT"; fi
	# the main host: apply there too and compare with the export-loaded listing
	apply_ok "$conf"
	nft_list_norm "$H" >"$SWT_TMP/list-main.txt"
	if diff -u "$SWT_TMP/list-nft.txt" "$SWT_TMP/list-main.txt" >"$SWT_TMP/list2.diff"; then
		ok "main host listing == export-loaded listing"
	else
		bad "main host listing differs from the export-loaded one"; show "$SWT_TMP/list2.diff" 30
	fi
	topo_down "$px"; topo_down "$py"
	return 0
}

# _bad_conf NAME LINE CONTENT: write, expect exit 2 + "FILE:LINE:" + nothing changed
_bad_conf() {
	local name=$1 line=$2 content=$3 f="$SWT_TMP/$1.conf" before="$SWT_TMP/before.txt" after="$SWT_TMP/after.txt"
	printf '%s\n' "$content" >"$f"
	hnft list table inet sandwall >"$before" 2>&1
	sw -c "$f" apply
	hnft list table inet sandwall >"$after" 2>&1
	if [ "$SW_RC" -eq 2 ]; then ok "[$name] apply -> exit 2"
	else bad "[$name] apply: exit $SW_RC, expected 2"; show "$SW_ERR"; fi
	if grep -qF "$f:$line:" "$SW_ERR"; then ok "[$name] stderr: $(grep -F "$f:$line:" "$SW_ERR" | head -n1 | sed "s|$SWT_TMP/||")"
	else bad "[$name] stderr lacks '$f:$line:'"; show "$SW_ERR"; fi
	if cmp -s "$before" "$after"; then ok "[$name] ruleset byte-identical"
	else bad "[$name] ruleset changed"; diff -u "$before" "$after" | show - 20; fi
	for cmd in check export; do
		sw -c "$f" $cmd
		if [ "$SW_RC" -eq 2 ]; then ok "[$name] $cmd -> exit 2"
		else bad "[$name] $cmd: exit $SW_RC, expected 2"; fi
	done
}

core_10_bad_config() {
	need_sandwall || return $SKIP
	local conf
	conf=$(mkconf default)
	apply_ok "$conf" || return 1
	_bad_conf bad_bool 4 $'[guard]\ninterfaces = docker0 br-*\n[block]\nmetadata = maybe'
	_bad_conf bad_cidr 3 $'[block]\nmetadata = yes\ndestinations = 10.0.0.0/33'
	_bad_conf bad_cidr6 2 $'[block]\ndestinations = 2001:db8::/129'
	_bad_conf bad_addr 2 $'[block]\ndestinations = 300.1.2.3/32'
	_bad_conf unknown_key 3 $'[block]\nmetadata = yes\nfoo = bar'
	_bad_conf unknown_section 2 $'; comment\n[bogus]\nx = 1'
	_bad_conf bad_port 2 $'[allow]\nhost_ports = tcp/99999'
	_bad_conf bad_proto 2 $'[allow]\nhost_ports = icmp/53'
	_bad_conf bad_allow_dest 2 $'[allow]\ndestinations = 169.254.169.253/32 udp/70000'
	_bad_conf bad_dns 2 $'[allow]\ndns = sometimes'
	_bad_conf bad_ini 3 $'[block]\nmetadata = yes\nthis is not ini'
	blocked "$C1" $U_META
	blocked "$C1" $U_HOST_BR
	expect_sw 0 "check with the good config still 0" -c "$conf" check

	info "missing config file"
	expect_sw 2 "apply -c /nonexistent" -c "$SWT_TMP/does-not-exist.conf" apply
	info "bad config when no table is installed creates nothing"
	hnft delete table inet sandwall
	sw -c "$SWT_TMP/bad_cidr.conf" apply
	if [ "$SW_RC" -eq 2 ] && ! table_exists; then ok "no table after a bad apply (exit 2)"
	else bad "bad apply on empty kernel: exit $SW_RC, table exists: $(table_exists && echo yes || echo no)"; fi
	info "usage errors"
	expect_sw 2 "unknown command" -c "$conf" frobnicate
	return 0
}

# _flood_during DESC APPLY-ARGS-A APPLY-ARGS-B: metadata floods (v4, v6) from c1
# while 20 applies alternate between the two argument strings
_flood_during() {
	local desc=$1 argsa=$2 argsb=$3 i fails=0 stop="$SWT_TMP/flood.stop" p4 p6 r4 r6
	local f4="$SWT_TMP/flood4.out" f6="$SWT_TMP/flood6.out" args
	rm -f "$stop"
	nsx "$C1" "$PY" "$SRV" flood 169.254.169.254 80 54 60 "$stop" >"$f4" 2>&1 &
	p4=$!
	nsx "$C1" "$PY" "$SRV" flood fd00:ec2::254 80 54 60 "$stop" >"$f6" 2>&1 &
	p6=$!
	sleep 0.3
	for i in $(seq 1 20); do
		if [ $((i % 2)) = 1 ]; then args=$argsa; else args=$argsb; fi
		# shellcheck disable=SC2086
		sw $args || { fails=$((fails + 1)); show "$SW_ERR" 3; }
	done
	sleep 0.3
	touch "$stop"
	wait $p4; r4=$?
	wait $p6; r6=$?
	if [ $fails -eq 0 ]; then ok "[$desc] 20 applies under traffic all exit 0"; else bad "[$desc] $fails of 20 applies failed"; fi
	if [ $r4 -eq 0 ]; then ok "[$desc] v4 metadata flood: nothing got through ($(cat "$f4"))"
	else bad "[$desc] v4 metadata flood: traffic got through (exit $r4: $(cat "$f4"))"; fi
	if [ $r6 -eq 0 ]; then ok "[$desc] v6 metadata flood: nothing got through ($(cat "$f6"))"
	else bad "[$desc] v6 metadata flood: traffic got through (exit $r6: $(cat "$f6"))"; fi
}

core_11_atomic() {
	need_sandwall || return $SKIP
	local conf c_dest c_priv c_host l1 l2
	conf=$(mkconf default)
	c_dest=$(mkconf dest_other "block.destinations=198.51.100.0/24")
	c_priv=$(mkconf private block.private=yes)
	c_host=$(mkconf host_off block.host=no)
	apply_ok "$conf" || return 1
	apply_ok "$conf" || return 1
	expect_sw 0 "check after applying twice" -c "$conf" check
	l1=$(nft_list_norm "$H"); apply_ok "$conf"; l2=$(nft_list_norm "$H")
	if [ "$l1" = "$l2" ]; then ok "listing identical after a third apply"; else bad "listing changed by re-apply"; fi

	# plain re-apply of the same config (may be a no-op when the kernel matches)
	_flood_during "same config" "-c $conf apply" "-c $conf apply"
	# every chain rewritten every time (apply --force flushes and refills them all)
	_flood_during "apply --force" "-c $conf --force apply" "-c $conf --force apply"
	# set contents change every time (destinations4 differs; private fills private4)
	_flood_during "set elements change" "-c $c_dest apply" "-c $conf apply"
	_flood_during "private on and off" "-c $c_priv apply" "-c $conf apply"
	# rules and chains change every time: block.host = no drops the fib
	# local rule and the input chain, the default puts them back
	_flood_during "rules and chains change" "-c $c_host apply" "-c $conf apply"
	expect_sw 0 "check after the re-applies" -c "$conf" check
	return 0
}

core_12_status() {
	need_sandwall || return $SKIP
	local conf f="$SWT_TMP/documented.conf"
	# the documented default config, verbatim from DESIGN.md (empty values, comments, [daemon])
	cat >"$f" <<-'EOF'
	[guard]
	interfaces   = docker0 br-*       ; patterns, space separated
	all_bridges  = no                 ; also every bridge device, tracked live
	[block]
	metadata = yes
	link_local = yes
	host = yes
	gateways = yes
	lan = yes
	private = no
	destinations =                    ; extra CIDRs, v4/v6, space separated
	[allow]
	dns          = auto               ; udp/tcp 53 to the host's resolvers (cloud resolvers sit in blocked ranges)
	host_ports   =                    ; e.g. udp/53 tcp/53  (to the host)
	destinations =                    ; e.g. 169.254.169.253/32 udp/53, 10.0.0.5 tcp/3128
	[log]
	blocked = yes                     ; log blocked attempts, rate-limited
	facility = daemon
	[daemon]
	resync_interval = 30              ; seconds between full compares
	owner = auto                      ; take kernel ownership of the table
	[nft]
	table = sandwall                  ; table inet <name>
	EOF
	expect_sw 0 "apply the config documented in DESIGN.md" -c "$f" apply
	expect_sw 0 "check it" -c "$f" check
	blocked "$C1" $U_META
	expect_sw 0 "status" -c "$f" status
	if grep -qi metadata "$SW_OUT"; then ok "status mentions metadata"; else bad "status output lacks 'metadata'"; show "$SW_OUT"; fi
	if [ -f "$SWT_ROOT/rules/sandwall.conf" ]; then
		expect_sw 0 "rules/sandwall.conf is valid (export)" -c "$SWT_ROOT/rules/sandwall.conf" export
	else
		info "rules/sandwall.conf not present yet"
	fi
	info "[nft] table = other"
	conf=$(mkconf other nft.table=swother)
	apply_ok "$conf"
	if table_exists swother; then ok "table inet swother installed"; else bad "table inet swother missing"; fi
	expect_sw 0 "check table swother" -c "$conf" check
	expect_sw 0 "remove table swother" -c "$conf" remove
	if table_exists swother; then bad "table inet swother still there"; else ok "table swother removed"; fi
	return 0
}

# The gate (docs/ruleset.md rule 12): the union of the blocked addresses in
# a set of its own, with a drop after the categories. Empty a category's
# sets by hand (what a root process on the host could do between two
# repairs): the packet no longer matches its category, and the fallback
# drop is what stops it. Then delete the fallback rules as well: the same
# packet gets through, so it was the fallback that held.
core_13_gate_fallback() {
	need_sandwall || return $SKIP
	local conf set h
	# the attack works without the table
	hnft delete table inet sandwall 2>/dev/null
	reach "$C1" $U_META
	reach "$C1" $U_LAN
	conf=$(mkconf gate_fallback)
	apply_ok "$conf" || return 1
	blocked "$C1" $U_META
	blocked "$C1" $U_LAN
	info "metadata4, link_local4 and lan4 flushed behind sandwall's back"
	for set in metadata4 link_local4 lan4; do
		hnft flush set inet sandwall "$set" || bad "nft flush set $set failed"
	done
	expect_sw 1 "check reports the flushed sets" -c "$conf" check
	blocked "$C1" $U_META
	blocked "$C1" $U_LAN
	info "the fallback rules deleted as well"
	for h in $(hnft -a list chain inet sandwall guard | grep -E 'comment "sandwall:gated4[ab]"' |
		   grep -o 'handle [0-9]*' | cut -d' ' -f2); do
		hnft delete rule inet sandwall guard handle "$h" || bad "nft delete rule handle $h failed"
	done
	if hnft list chain inet sandwall guard | grep -q 'sandwall:gated4'; then
		bad "a gated4 rule is still there"; hnft list chain inet sandwall guard | show -
	fi
	reach "$C1" $U_META
	reach "$C1" $U_LAN
	apply_ok "$conf" || return 1
	expect_sw 0 "check after the re-apply" -c "$conf" check
	blocked "$C1" $U_META
	blocked "$C1" $U_LAN
	return 0
}
