# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Forged sources against policies and budgets keyed on a source address
# (issue 22, items 4 and 5). c1 (172.17.0.2) and c3 (172.17.0.3) sit on
# docker0 (172.17.0.0/16); the "internet" is 203.0.113.10 (tcp :80).

register_test portbind_01_budget_full "a budget whose per-source set is full drops new connections instead of passing them"

# _pb_conf NAME TEXT: the default config plus TEXT
_pb_conf() {
	local f
	f=$(mkconf "$1")
	printf '%s\n' "$2" >>"$f"
	echo "$f"
}

# _pb_connects NS N [SRC]: N TCP connects to 203.0.113.10:80 (0.5 s each at
# most), from SRC when given; prints how many were accepted
_pb_connects() {
	nsx "$1" "$PY" -c 'import socket, sys
n = 0
for i in range(int(sys.argv[1])):
    s = socket.socket()
    s.settimeout(0.5)
    try:
        if len(sys.argv) > 2:
            s.bind((sys.argv[2], 0))
        s.connect(("203.0.113.10", 80)); n += 1
    except OSError:
        pass
    s.close()
print(n)' "$2" ${3:+"$3"} 2>/dev/null || echo 0
}

_pb_unbound() { hnft list counter bridge sandwall unbound 2>/dev/null | sed -n 's/.*packets \([0-9]*\).*/\1/p' | head -n1; }
_pb_mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }

portbind_01_budget_full() {
	need_sandwall || return $?
	local conf n sent elems
	conf=$(_pb_conf budgetfull "[sandbox agents]
interfaces = docker0
budget = 5/minute
budget_sources = 256")
	# without the table: 12 of 12
	n=$(_pb_connects "$C1" 12)
	[ "$n" -eq 12 ] && ok "no table: 12 of 12 connections" || bad "no table: only $n of 12 connections"
	apply_ok "$conf" || return 1
	# fill the budget's set with forged in-subnet sources (to the metadata
	# server: blocked after the budget, so nothing answers them)
	sent=$(nsx "$C1" "$PY" "$ATK" spray --iface eth0 --dmac "$(_pb_mac "$H" docker0)" \
		--net 172.17.0.0/16 --dst 169.254.169.254 --dport 9 --n 400 \
		--skip 172.17.0.1,172.17.0.2,172.17.0.3)
	elems=$(hnft list set inet sandwall sbx_agents_budget4 2>/dev/null | grep -o '172\.17\.[0-9]*\.[0-9]*' | wc -l)
	info "spray: $sent; the budget set holds $elems sources"
	n=$(_pb_connects "$C1" 12)
	if [ "$n" -le 5 ]; then ok "budget 5/minute after the spray: $n of 12 connections through"
	else bad "budget 5/minute after the spray: $n of 12 connections through (the full set failed open)"; fi
	n=$(counter_packets budget_agents)
	[ "${n:-0}" -gt 0 ] && ok "budget_agents counted $n" || bad "budget_agents did not count"
	expect_sw 0 "check with a full budget set" -c "$conf" check
	return 0
}

register_test portbind_02_sources_forged "a forged in-subnet source does not escape a sources policy, from the first packet; the own address keeps its policy, IPv6 and the neighbours keep working"

# _pb_forged NS SRC DPORT TAG: one UDP datagram from the forged SRC to
# 203.0.113.10:DPORT, as a raw frame to docker0's MAC
_pb_forged() {
	nsx "$1" "$PY" "$ATK" rawudp --iface eth0 --dmac "$(_pb_mac "$H" docker0)" --src "$2" \
		--dst 203.0.113.10 --sport 4444 --dport "$3" --tag "$4" >/dev/null 2>&1
}

portbind_02_sources_forged() {
	need_sandwall || return $?
	local conf n rc
	conf=$(_pb_conf srcforged "[sandbox one]
sources = 172.17.0.2/32
egress = none")
	atk_rx "$CL" cloud || return 1
	# without the table: the forged source reaches the internet
	_pb_forged "$C1" 172.17.0.77 7001 pb-notable; sleep 0.3
	n=$(atk_rx_n cloud "dport=7001")      # masqueraded: counted by port
	[ "$n" -ge 1 ] && ok "no table: the datagram from the forged 172.17.0.77 arrived" ||
		bad "no table: the forged datagram did not arrive (the attack does not work)"
	apply_ok "$conf" || return 1
	for n in 77 78 79 200 254; do _pb_forged "$C1" 172.17.0.$n 7002 pb-table; done
	_pb_forged "$C1" 172.17.3.9 7002 pb-table
	sleep 0.3
	n=$(atk_rx_n cloud "dport=7002")
	[ "$n" -eq 0 ] && ok "6 forged in-subnet sources: 0 datagrams arrived" ||
		bad "forged in-subnet sources: $n datagrams escaped the sources policy"
	n=$(_pb_connects "$C1" 2 172.17.0.2)
	[ "$n" -eq 0 ] && ok "own 172.17.0.2 keeps egress none" || bad "own 172.17.0.2: $n connections under egress none"
	n=$(_pb_unbound)
	[ "${n:-0}" -ge 6 ] && ok "table bridge counted $n unbound frames" || bad "counter unbound: '${n}' (want >= 6)"
	reach "$C3" http://203.0.113.10/            # a neighbour with its own address
	reach "$C3" "http://[2001:db8::10]/"        # IPv6 keeps working (ND, link-local, DAD)
	nsx "$C3" ping -6 -c1 -W2 "fe80::1%eth0" >/dev/null 2>&1 || true
	nsx "$H" curl -s -o /dev/null --connect-timeout 2 -m 3 http://172.17.0.2:8000/; rc=$?
	[ $rc -eq 0 ] && ok "host -> c1:8000 answered" || bad "host -> c1:8000 failed (curl $rc)"
	nsx "$C3" curl -s -o /dev/null --connect-timeout 2 -m 3 http://172.17.0.2:8000/; rc=$?
	[ $rc -eq 0 ] && ok "c3 -> c1:8000 (same bridge) answered" || bad "c3 -> c1:8000 failed (curl $rc)"
	nsx "$C3" curl -s -o /dev/null --connect-timeout 2 -m 3 "http://[fd00:17::2]:8000/"; rc=$?
	[ $rc -eq 0 ] && ok "c3 -> [fd00:17::2]:8000 (same bridge, IPv6) answered" || bad "c3 -> [fd00:17::2]:8000 failed (curl $rc)"
	expect_sw 0 "check with the bridge table" -c "$conf" check
	expect_sw 0 "status with the bridge table" -c "$conf" status
	grep -q '^bridge:unbound  *yes  *[1-9]' "$SW_OUT" && ok "status counts bridge:unbound" ||
		{ bad "status does not count bridge:unbound"; show "$SW_OUT"; }
	return 0
}

register_test portbind_03_budget_rotation "a budget is not escaped by rotating forged sources: at most the budget passes"

portbind_03_budget_rotation() {
	need_sandwall || return $?
	local conf n i
	conf=$(_pb_conf budgetrot "[sandbox agents]
interfaces = docker0
budget = 5/minute")
	atk_rx "$CL" cloud || return 1
	# without the table: 12 new flows from 12 forged sources, 12 arrive
	for i in $(seq 100 111); do _pb_forged "$C1" 172.17.1.$i 7101 pb-rot0; done
	sleep 0.3
	n=$(atk_rx_n cloud "dport=7101")
	[ "$n" -eq 12 ] && ok "no table: 12 of 12 flows from rotated forged sources arrived" ||
		bad "no table: $n of 12 from rotated forged sources (the attack does not work)"
	apply_ok "$conf" || return 1
	for i in $(seq 100 111); do _pb_forged "$C1" 172.17.2.$i 7102 pb-rot1; done
	sleep 0.3
	n=$(atk_rx_n cloud "dport=7102")
	[ "$n" -le 5 ] && ok "budget 5/minute: $n of 12 flows from rotated forged sources arrived" ||
		bad "budget 5/minute: $n of 12 flows from rotated forged sources arrived (rotation escapes the budget)"
	# the own source: at most the budget
	n=$(_pb_connects "$C1" 12)
	[ "$n" -le 5 ] && [ "$n" -ge 1 ] && ok "own source: $n of 12 connections (budget 5)" ||
		bad "own source: $n of 12 connections (want 1..5)"
	return 0
}

register_test portbind_04_new_port "a container started after the daemon: forged frames drop from its first packet, its own addresses work once bound (v4, v6 with DAD)"

portbind_04_new_port() {
	need_sandwall || return $?
	local conf pid i n rc c4=${SWT_PREFIX}c4 t0 t1
	conf=$(_pb_conf newport "[sandbox one]
sources = 172.17.0.2/32
egress = none")
	apply_ok "$conf" || return 1
	atk_rx "$CL" cloud || return 1
	ip netns exec "$H" "$SWT_ROOT/build/sandwalld" -c "$conf" -f --control "$SWT_TMP/pb.ctl" \
		>"$SWT_TMP/pb-d.log" 2>&1 &
	pid=$!
	SWT_TEST_PIDS+=("$pid")
	for i in $(seq 1 50); do grep -q 'event=start' "$SWT_TMP/pb-d.log" && break; sleep 0.1; done
	# a new container: its port attached and up, no address yet; a
	# forged frame at once, then the runtime's address (DAD on for IPv6)
	ip netns add "$c4" || { bad "cannot make $c4"; return 1; }
	ip -n "$H" link add vethc4 type veth peer name eth0 netns "$c4" &&
	ip -n "$H" link set vethc4 master docker0 && ip -n "$H" link set vethc4 up &&
	ip -n "$c4" link set lo up && ip -n "$c4" link set eth0 up || { bad "cannot wire $c4"; ip netns del "$c4"; return 1; }
	_pb_forged "$c4" 172.17.0.88 7201 pb-new
	_pb_forged "$c4" 172.17.0.4 7201 pb-new        # its address-to-be, before it has it
	t0=$(date +%s%N)
	ip -n "$c4" addr add 172.17.0.4/16 dev eth0 && ip -n "$c4" addr add fd00:17::4/64 dev eth0 &&
	ip -n "$c4" route add default via 172.17.0.1 || { bad "cannot address $c4"; ip netns del "$c4"; return 1; }
	for i in $(seq 1 100); do
		hnft list set bridge sandwall bind4 2>/dev/null | grep -q '"vethc4" . 172.17.0.4' && break
		sleep 0.05
	done
	t1=$(date +%s%N)
	if hnft list set bridge sandwall bind4 2>/dev/null | grep -q '"vethc4" . 172.17.0.4'; then
		ok "vethc4 bound to 172.17.0.4 $(( (t1 - t0) / 1000000 )) ms after the address was added"
	else bad "vethc4 not bound to 172.17.0.4 within 5 s"; show "$SWT_TMP/pb-d.log"; fi
	sleep 0.2
	n=$(atk_rx_n cloud "dport=7201")
	[ "$n" -eq 0 ] && ok "the new port's first frames (forged, and before its address): 0 arrived" ||
		bad "the new port's first frames: $n arrived"
	reach "$c4" http://203.0.113.10/
	for i in $(seq 1 40); do
		ip -n "$c4" -6 addr show dev eth0 | grep -q 'fd00:17::4.*tentative' || break; sleep 0.1
	done
	ip -n "$c4" -6 route add default via fd00:17::1 2>/dev/null
	for i in $(seq 1 40); do
		hnft list set bridge sandwall bind6 2>/dev/null | grep -q '"vethc4" . fd00:17::4' && break; sleep 0.05
	done
	nsx "$c4" curl -s -o /dev/null --connect-timeout 3 -m 5 "http://[2001:db8::10]/"; rc=$?
	[ $rc -eq 0 ] && ok "c4 -> [2001:db8::10] (after DAD) reachable" || bad "c4 -> [2001:db8::10]: curl $rc"
	_pb_forged "$c4" 172.17.0.89 7202 pb-new
	sleep 0.3
	n=$(atk_rx_n cloud "dport=7202")
	[ "$n" -eq 0 ] && ok "bound c4 forging 172.17.0.89: 0 arrived" || bad "bound c4 forging: $n arrived"
	# never exempt on the way (a port read from a partial message as a
	# physical one would pass unbound)
	grep -q 'exempt element "vethc4"' "$SWT_TMP/pb-d.log" &&
		bad "vethc4 was exempted on the way: $(grep -m1 'exempt element "vethc4"' "$SWT_TMP/pb-d.log")" ||
		ok "vethc4 was never exempted"
	# a tamper with the bridge table is repaired
	hnft delete table bridge sandwall
	for i in $(seq 1 40); do hnft list set bridge sandwall bind4 >/dev/null 2>&1 && break; sleep 0.05; done
	if hnft list set bridge sandwall bind4 2>/dev/null | grep -q '"vethc4" . 172.17.0.4'; then
		ok "sandwalld restored the deleted table bridge with c4's binding"
	else bad "table bridge not restored after a delete"; show "$SWT_TMP/pb-d.log"; fi
	# the port goes: its binding goes with it
	ip netns del "$c4"
	for i in $(seq 1 60); do
		hnft list set bridge sandwall bind4 2>/dev/null | grep -q vethc4 || break; sleep 0.05
	done
	hnft list set bridge sandwall bind4 2>/dev/null | grep -q vethc4 &&
		bad "vethc4's binding outlived its port" || ok "vethc4's binding went with its port"
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	return 0
}

register_test portbind_05_routed_veth "a routed veth with a /32 route (Calico style): a forged source is dropped by the per-interface anti-spoofing; sources narrower than a routed veth's subnet are refused with FILE:LINE"

portbind_05_routed_veth() {
	need_sandwall || return $?
	local conf n c5=${SWT_PREFIX}c5
	ip netns add "$c5" || { bad "cannot make $c5"; return 1; }
	# host side: no address, a /32 route, proxy ARP; the container: its
	# /32 and a link-local gateway (as Calico wires a workload)
	if ! { ip -n "$H" link add vethr5 type veth peer name eth0 netns "$c5" &&
	       ip -n "$H" link set vethr5 up && nsx "$H" sysctl -qw net.ipv4.conf.vethr5.proxy_arp=1 &&
	       ip -n "$H" route add 172.29.0.5/32 dev vethr5 &&
	       ip -n "$c5" link set lo up && ip -n "$c5" link set eth0 up &&
	       ip -n "$c5" addr add 172.29.0.5/32 dev eth0 &&
	       ip -n "$c5" route add 169.254.1.1 dev eth0 &&
	       ip -n "$c5" route add default via 169.254.1.1; }; then
		bad "cannot wire $c5"; ip netns del "$c5"; return 1
	fi
	conf=$(mkconf routed "guard.interfaces=docker0 br-* vethr*")
	printf '[sandbox one]\nsources = 172.29.0.5/32\negress = none\n' >>"$conf"
	atk_rx "$CL" cloud || { ip netns del "$c5"; return 1; }
	_pb_routed() {
		nsx "$c5" "$PY" "$ATK" rawudp --iface eth0 --dmac "$(_pb_mac "$H" vethr5)" --src "$1" \
			--dst 203.0.113.10 --sport 4444 --dport "$2" --tag pb-routed >/dev/null 2>&1
	}
	# without the table: its own and a forged source both get out
	_pb_routed 172.29.0.5 7301; _pb_routed 172.29.0.6 7302; sleep 0.3
	n=$(( $(atk_rx_n cloud "dport=7301") + $(atk_rx_n cloud "dport=7302") ))
	[ "$n" -eq 2 ] && ok "no table: own and forged source both arrived" ||
		bad "no table: $n of 2 arrived (the attack does not work)"
	apply_ok "$conf" || { ip netns del "$c5"; return 1; }
	_pb_routed 172.29.0.5 7303; _pb_routed 172.29.0.6 7304; _pb_routed 172.29.1.9 7304; sleep 0.3
	n=$(atk_rx_n cloud "dport=7303")
	[ "$n" -eq 0 ] && ok "own 172.29.0.5 keeps egress none" || bad "own 172.29.0.5: $n arrived under egress none"
	n=$(atk_rx_n cloud "dport=7304")
	[ "$n" -eq 0 ] && ok "forged 172.29.0.6 and 172.29.1.9 from the routed veth: 0 arrived" ||
		bad "forged sources from the routed veth: $n arrived"
	# the same veth with a subnet: a /32 sources entry inside it is refused
	ip -n "$H" route add 172.29.0.0/24 dev vethr5
	conf=$(mkconf routed24 "guard.interfaces=docker0 br-* vethr*")
	printf '[sandbox one]\negress = none\nsources = 172.29.0.5/32\n' >>"$conf"
	expect_sw 2 "sources narrower than a routed veth's /24 refused" -c "$conf" apply
	cat "$SW_OUT" "$SW_ERR" | grep -q "routed24.conf:[0-9]*: \[sandbox one\] sources 172.29.0.5 is narrower than 172.29.0.0/24 of vethr5" &&
		ok "refused with FILE:LINE" || { bad "no FILE:LINE refusal"; show "$SW_ERR"; }
	ip netns del "$c5"
	return 0
}
