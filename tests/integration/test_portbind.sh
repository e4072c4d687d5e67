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
