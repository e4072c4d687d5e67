# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Isolation levels: [sandbox NAME] policies on top of the global blocks.
# c1 and c3 sit on docker0, c2 on br-0a1b2c3d4e5f (lib.sh topology); the
# "internet" is 203.0.113.10, 198.51.100.10 and 2001:db8::10 (tcp :80), the
# host's resolver 169.254.169.253 (udp/tcp :53, and udp :54 for a non-DNS
# port), the metadata server 169.254.169.254.

register_test sandbox_01_levels "egress none and allowlist on two bridges at once; a policy never reopens a global block"
register_test sandbox_02_dns_none "dns = none closes the DNS carve-out for that sandbox only"
register_test sandbox_03_sources "a policy chosen by source address; replies and host -> container stay open"
register_test sandbox_04_ruleset "the policies survive export/nft -f and check; the daemon logs category=egress sandbox=NAME"

# _sbx_conf NAME TEXT: the default config plus sandbox sections
_sbx_conf() {   # NAME TEXT [mkconf KEY=VALUE...]
	local f
	f=$(mkconf "$1" "${@:3}")
	printf '%s\n' "$2" >>"$f"
	echo "$f"
}

_sbx_counter() { counter_packets "egress_$1"; }

sandbox_01_levels() {
	need_sandwall || return $?
	local conf
	# without policies, everything below is open or blocked by the globals
	reach "$C1" http://203.0.113.10/
	reach "$C2" http://198.51.100.10/
	conf=$(_sbx_conf levels "[sandbox agents]
interfaces = docker0
egress = none
[sandbox web]
interfaces = br-*
egress = allowlist
allow = 203.0.113.10 tcp/80, 169.254.169.254 tcp/80, 10.0.0.1 tcp/80")
	apply_ok "$conf" || return 1
	# agents: nothing but DNS
	blocked "$C1" http://203.0.113.10/
	blocked "$C1" http://198.51.100.10/
	blocked "$C1" "http://[2001:db8::10]/"
	udp_reach "$C1" 169.254.169.253 53
	reach "$C1" http://169.254.169.253:53/
	udp_blocked "$C1" 169.254.169.253 54
	blocked "$C1" http://169.254.169.254/
	# web: exactly its list; what the globals block stays blocked even when listed
	reach "$C2" http://203.0.113.10/
	blocked "$C2" http://198.51.100.10/
	blocked "$C2" http://203.0.113.10:53/
	blocked "$C2" http://169.254.169.254/
	blocked "$C2" http://10.0.0.1/
	udp_reach "$C2" 169.254.169.253 53
	local a w
	a=$(_sbx_counter agents); w=$(_sbx_counter web)
	if [ "${a:-0}" -gt 0 ] && [ "${w:-0}" -gt 0 ]; then
		ok "egress counters moved (agents $a, web $w)"
	else
		bad "egress counters did not move (agents '${a}', web '${w}')"
	fi
	# the listed metadata and gateway were blocked by the global categories
	if [ "$(counter_packets metadata)" -gt 0 ] && [ "$(counter_packets gateways)" -gt 0 ]; then
		ok "metadata and gateways counted the listed-but-blocked attempts"
	else
		bad "metadata/gateways counters did not move"
	fi
	expect_sw 0 "check with two policies" -c "$conf" check
	expect_sw 0 "status with two policies" -c "$conf" status
	grep -q '^egress:agents  *none' "$SW_OUT" && ok "status lists egress:agents none" ||
		{ bad "status does not list the agents policy"; show "$SW_OUT"; }
	return 0
}

sandbox_02_dns_none() {
	need_sandwall || return $?
	local conf
	conf=$(_sbx_conf dnsnone "[sandbox quiet]
interfaces = docker0
dns = none")
	apply_ok "$conf" || return 1
	udp_blocked "$C1" 169.254.169.253 53
	blocked "$C1" http://169.254.169.253:53/
	reach "$C1" http://203.0.113.10/          # egress stays open
	udp_reach "$C2" 169.254.169.253 53        # another bridge keeps its DNS
	conf=$(_sbx_conf nonenone "[sandbox mute]
interfaces = docker0
egress = none
dns = none")
	apply_ok "$conf" || return 1
	udp_blocked "$C1" 169.254.169.253 53
	blocked "$C1" http://203.0.113.10/
	reach "$C2" http://203.0.113.10/
	return 0
}

sandbox_03_sources() {
	need_sandwall || return $?
	local conf rc
	conf=$(_sbx_conf sources "[sandbox one]
sources = 172.17.0.3/32
egress = none")
	apply_ok "$conf" || return 1
	blocked "$C3" http://203.0.113.10/
	reach "$C1" http://203.0.113.10/          # same bridge, other source
	# replies to a connection the host opens stay open under egress none
	nsx "$H" curl -s -o /dev/null --connect-timeout 2 -m 3 http://172.17.0.3:80/; rc=$?
	if [ $rc -eq 0 ]; then ok "host -> c3:80 answered under egress none"
	else bad "host -> c3:80 failed (curl $rc): replies must stay open"; fi
	return 0
}

sandbox_04_ruleset() {
	need_sandwall || return $?
	local conf pid i line
	# export prints table inet only: no table netdev (macvlan_parents = none)
	conf=$(_sbx_conf rs "[sandbox agents]
interfaces = docker0
egress = none
[sandbox web]
interfaces = br-*
sources = 172.30.0.0/24 fd00:30::/64
egress = allowlist
allow = 203.0.113.10 tcp/80, 2001:db8::10 tcp/80" guard.macvlan_parents=none)
	expect_sw 0 "export with policies" -c "$conf" export || return 1
	cp "$SW_OUT" "$SWT_TMP/sbx-export.nft"
	if hnft -f "$SWT_TMP/sbx-export.nft" 2>"$SWT_TMP/sbx-nft.err"; then ok "nft -f loads the export"
	else bad "nft -f refuses the export"; show "$SWT_TMP/sbx-nft.err"; return 1; fi
	expect_sw 0 "check accepts the nft-loaded policies" -c "$conf" check
	hnft delete rule inet sandwall sbx_agents handle \
		"$(hnft -a list chain inet sandwall sbx_agents | sed -n 's/.*goto block_egress_agents.*handle \([0-9]*\)$/\1/p')" ||
		bad "could not delete the policy's last rule"
	expect_sw 1 "check sees a policy rule gone" -c "$conf" check
	reach "$C1" http://203.0.113.10/          # the hole the tamper opened ...
	apply_ok "$conf"
	blocked "$C1" http://203.0.113.10/        # ... closed again
	# the daemon names the sandbox in the blocked-attempt line
	# not through nsx: a backgrounded function is a subshell, and $! must be
	# the daemon itself (ip netns exec execs it)
	ip netns exec "$H" "$SWT_ROOT/build/sandwalld" -c "$conf" -f --control "$SWT_TMP/sbx.ctl" \
		>"$SWT_TMP/sbx-d.log" 2>&1 &
	pid=$!
	SWT_TEST_PIDS+=("$pid")   # killed by reset_state if this test stops early
	for i in $(seq 1 50); do grep -q 'event=start' "$SWT_TMP/sbx-d.log" && break; sleep 0.1; done
	tcp_probe "$C1" http://198.51.100.10/ >/dev/null
	for i in $(seq 1 30); do
		line=$(grep -m1 'event=blocked category=egress sandbox=agents' "$SWT_TMP/sbx-d.log") && break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	if [ -n "$line" ]; then ok "daemon: ${line#sandwalld: }"
	else bad "no event=blocked category=egress sandbox=agents line"; show "$SWT_TMP/sbx-d.log"; fi
	return 0
}

register_test sandbox_05_budget "budget = N/second cuts a source after N new connections, counts and logs it, and recovers"

sandbox_05_budget() {
	need_sandwall || return $?
	local conf i ok1=0 cut=0 pid line n
	conf=$(_sbx_conf budget "[sandbox agents]
interfaces = docker0
budget = 3/second")
	# without the table, 8 connections in a row all get through
	for i in $(seq 1 8); do tcp_probe "$C1" http://203.0.113.10/ && ok1=$((ok1 + 1)); done
	[ $ok1 -eq 8 ] && ok "no table: 8 of 8 connections" || bad "no table: only $ok1 of 8 connections"
	apply_ok "$conf" || return 1
	# not through nsx: a backgrounded function is a subshell, and $! must be
	# the daemon itself (ip netns exec execs it)
	ip netns exec "$H" "$SWT_ROOT/build/sandwalld" -c "$conf" -f --control "$SWT_TMP/bud.ctl" \
		>"$SWT_TMP/bud-d.log" 2>&1 &
	pid=$!
	SWT_TEST_PIDS+=("$pid")   # killed by reset_state if this test stops early
	for i in $(seq 1 50); do grep -q 'event=start' "$SWT_TMP/bud-d.log" && break; sleep 0.1; done
	sleep 1.2                                 # a full bucket
	# 8 connects from one process, 0.1 s each at most: the bucket refills 3
	# a second, and a curl per connect takes longer than that on a slow CPU
	# (QEMU/TCG in check-kernels), so it would never see the cut
	ok1=$(nsx "$C1" "$PY" -c 'import socket
n = 0
for i in range(8):
    s = socket.socket()
    s.settimeout(0.1)
    try:
        s.connect(("203.0.113.10", 80)); n += 1
    except OSError:
        pass
    s.close()
print(n)')
	ok1=${ok1:-0}; cut=$((8 - ok1))
	if [ $ok1 -ge 3 ] && [ $ok1 -le 5 ] && [ $cut -ge 3 ]; then
		ok "budget 3/second: $ok1 of 8 connections through, $cut cut"
	else
		bad "budget 3/second: $ok1 of 8 through, $cut cut (want 3..5 through)"
	fi
	reach "$C3" http://203.0.113.10/           # another source has its own budget
	n=$(counter_packets budget_agents)
	[ "${n:-0}" -gt 0 ] && ok "budget_agents counted $n" || bad "budget_agents did not count"
	sleep 1.5                                 # the bucket refills
	reach "$C1" http://203.0.113.10/
	for i in $(seq 1 30); do
		line=$(grep -m1 'event=budget sandbox=agents src=172.17.0.2' "$SWT_TMP/bud-d.log") && break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	if [ -n "$line" ]; then ok "daemon: ${line#sandwalld: }"
	else bad "no event=budget sandbox=agents line"; show "$SWT_TMP/bud-d.log"; fi
	expect_sw 0 "check ignores the budget set's dynamic elements" -c "$conf" check
	return 0
}

register_test sandbox_06_attempted "the receipt lists what a sandbox tried to reach, per destination, from sandwalld's NFLOG stream"

sandbox_06_attempted() {
	need_sandwall || return $?
	local conf pid i dir
	conf=$(_sbx_conf attempted "[sandbox agents]
interfaces = docker0
egress = none")
	dir=$(dirname "$(sed -n 's/^journal = //p' "$conf")")
	apply_ok "$conf" || return 1
	# not through nsx: a backgrounded function is a subshell, and $! must be
	# the daemon itself (ip netns exec execs it)
	ip netns exec "$H" "$SWT_ROOT/build/sandwalld" -c "$conf" -f --control "$SWT_TMP/att.ctl" \
		>"$SWT_TMP/att-d.log" 2>&1 &
	pid=$!
	SWT_TEST_PIDS+=("$pid")   # killed by reset_state if this test stops early
	for i in $(seq 1 50); do grep -q 'event=start' "$SWT_TMP/att-d.log" && break; sleep 0.1; done
	tcp_probe "$C1" http://203.0.113.10/ >/dev/null
	tcp_probe "$C1" http://203.0.113.10/ >/dev/null
	tcp_probe "$C1" http://169.254.169.254/ >/dev/null
	tcp_probe "$C2" http://10.0.0.1/ >/dev/null
	# the daemon has read the last attempt when it has logged it
	for i in $(seq 1 50); do
		grep -q 'event=blocked category=gateways' "$SWT_TMP/att-d.log" && break
		sleep 0.1
	done
	# a quiet daemon still writes attempts.json within about a second (its
	# loop wakes for it; no further event needed)
	for i in $(seq 1 30); do grep -q '"10.0.0.1"' "$dir/attempts.json" 2>/dev/null && break; sleep 0.1; done
	if grep -q '"10.0.0.1"' "$dir/attempts.json" 2>/dev/null; then
		ok "attempts.json holds the last attempt while the daemon runs (no event needed)"
	else bad "attempts.json lacks the last attempt 3 s later"; fi
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null     # writes attempts.json at stop
	if [ -s "$dir/attempts.json" ]; then ok "sandwalld wrote $(basename "$dir")/attempts.json"
	else bad "no attempts.json beside the journal"; show "$SWT_TMP/att-d.log"; return 1; fi
	sw -c "$conf" receipt --json
	"$PY" - "$SW_OUT" <<'PYEOF' && ok "receipt --json lists the attempted destinations" || bad "receipt does not list them"
import json, sys
doc = json.load(open(sys.argv[1]))
att = doc["attempted"]["attempts"]
def has(cat, dst, port, sbx=None):
    return any(a["category"] == cat and a["dst"] == dst and a.get("dport") == port and
               a.get("sandbox") == sbx and a["count"] >= 1 for a in att)
# c1's policy (egress none) comes before the global blocks: its metadata
# attempt is an egress attempt of sandbox agents; c2 has no policy
ok = (has("egress", "203.0.113.10", 80, "agents") and has("egress", "169.254.169.254", 80, "agents") and
      has("gateways", "10.0.0.1", 80) and not any(a["dst"].startswith("ff02:") for a in att))
print(json.dumps(att, indent=1), file=sys.stderr)
sys.exit(0 if ok else 1)
PYEOF
	sw -c "$conf" receipt
	grep -q '^attempted  *[0-9]* distinct destination record(s) by the sandboxes' "$SW_OUT" && ok "the text receipt has an attempted section" ||
		{ bad "no attempted section in the text receipt"; show "$SW_OUT" 30; }
	return 0
}

# ---- hostname allowlists: sandwalld resolves, the sets follow the TTLs ----
# tests/integration/dns.py answers in the host namespace on 127.0.0.1:53
# from a JSON zone file the test rewrites while it runs. The names resolve
# to the lib.sh "internet" (203.0.113.10, 198.51.100.10, 2001:db8::10) or
# to places the global blocks close (169.254.169.254, 10.0.0.1).

register_test sandbox_07_hostnames "allow by hostname next to CIDRs: the listed name reachable, unlisted blocked and logged, check in sync"
register_test sandbox_08_dns_change "a changed DNS answer is followed within the TTL bounds: the new address opens, the old closes at expiry"
register_test sandbox_09_dns_fail "a failing resolver keeps the last good addresses until they expire, logged once"
register_test sandbox_10_dns_blocked "a hostname resolving to metadata, a gateway or the host stays blocked"
register_test sandbox_11_dns_repair "a deleted table comes back with the resolved addresses in the same repair"

# _dns_zone JSON: the answers dns.py gives from now on
_dns_zone() {
	printf '%s\n' "$1" >"$SWT_TMP/zone.json.tmp" && mv "$SWT_TMP/zone.json.tmp" "$SWT_TMP/zone.json"
}

# _dns_up: dns.py on 127.0.0.1:53 in the host namespace (killed after the test)
_dns_up() {
	local pid
	[ -s "$SWT_TMP/zone.json" ] || _dns_zone '{}'
	: >"$SWT_TMP/dns.log"
	ip netns exec "$H" "$PY" "$SWT_DIR/dns.py" 127.0.0.1 "$SWT_TMP/zone.json" "$SWT_TMP/dns.log" \
		>>"$SWT_TMP/dns.err" 2>&1 &
	pid=$!
	SWT_TEST_PIDS+=("$pid")
	for _ in $(seq 1 50); do
		nsx "$H" ss -Hlun 'sport = :53' 2>/dev/null | grep -q 127.0.0.1 && return 0
		sleep 0.1
	done
	bad "dns.py did not come up"; show "$SWT_TMP/dns.err"
	return 1
}

# _dns_conf NAME SANDBOX-TEXT [daemon.key=value ...]: resolver 127.0.0.1
_dns_conf() {
	local name=$1 text=$2 f; shift 2
	f=$(mkconf "$name" daemon.resolvers=127.0.0.1 "$@")
	printf '%s\n' "$text" >>"$f"
	echo "$f"
}

# _dns_daemon CONF TAG: sandwalld in the host namespace, log in $SWT_TMP/TAG-d.log
_dns_daemon() {
	# not through nsx: $! must be the daemon itself
	ip netns exec "$H" "$SWT_ROOT/build/sandwalld" -c "$1" -f --control "$SWT_TMP/$2.ctl" \
		>"$SWT_TMP/$2-d.log" 2>&1 &
	SWT_TEST_PIDS+=("$!")
	for _ in $(seq 1 50); do grep -q 'event=start' "$SWT_TMP/$2-d.log" && return 0; sleep 0.1; done
	bad "sandwalld did not start"; show "$SWT_TMP/$2-d.log"
	return 1
}

# _host_elems SBX FAMILY: the elements of sbx_SBX_hosts4/6, one per line
_host_elems() {
	hnft list set inet sandwall "sbx_$1_hosts$2" 2>/dev/null |
		tr -d '\n\t' | sed -n 's/.*elements = {\([^}]*\)}.*/\1/p' | tr ',' '\n' | sed 's/^ *//'
}

# _wait_until SECONDS CMD...: poll CMD every 0.1 s; 0 when it succeeded
_wait_until() {
	local t=$1; shift
	for _ in $(seq 1 $((t * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}
_reachable() { tcp_probe "$1" "$2" >/dev/null 2>&1; }
_unreachable() { ! tcp_probe "$1" "$2" >/dev/null 2>&1; }

sandbox_07_hostnames() {
	need_sandwall || return $?
	local conf line
	# without the table both addresses answer
	reach "$C1" http://203.0.113.10/
	reach "$C1" http://198.51.100.10/
	reach "$C1" "http://[2001:db8::10]/"
	_dns_zone '{"pypi.test": {"A": [["203.0.113.10", 300]], "AAAA": [["2001:db8::10", 300]]},
	            "files.pypi.test": {"CNAME": ["cdn.test", 300]},
	            "cdn.test": {"A": [["203.0.113.10", 120]]}}'
	_dns_up || return 1
	conf=$(_dns_conf hosts "[sandbox agents]
interfaces = docker0
egress = allowlist
allow = pypi.test tcp/80, files.pypi.test tcp/8080, 198.51.100.10 tcp/53")
	# apply without a daemon resolves once, at once
	apply_ok "$conf" || return 1
	_host_elems agents 4 | grep -q '^203.0.113.10 . tcp . 80 timeout' &&
		ok "apply put 203.0.113.10 . tcp . 80 into sbx_agents_hosts4 with a timeout" ||
		{ bad "sbx_agents_hosts4 lacks 203.0.113.10 . tcp . 80"; hnft list set inet sandwall sbx_agents_hosts4 | show -; }
	_host_elems agents 4 | tee "$SWT_TMP/h7" | grep -q "^203.0.113.10 . tcp . 8080" &&
		ok "the CNAME chain files.pypi.test -> cdn.test was followed" ||
		{ bad "no element for files.pypi.test (CNAME)"; show "$SWT_TMP/h7"; show "$SWT_TMP/dns.log"; }
	reach "$C1" http://203.0.113.10/
	reach "$C1" "http://[2001:db8::10]/"
	blocked "$C1" http://198.51.100.10/         # not listed (only tcp/53 is)
	reach "$C1" http://198.51.100.10:53/        # the CIDR entry next to the names
	expect_sw 0 "check ignores the resolved elements (dynamic)" -c "$conf" check
	_dns_daemon "$conf" hosts || return 1
	tcp_probe "$C1" http://198.51.100.10/ >/dev/null
	line=""
	for _ in $(seq 1 30); do
		line=$(grep -m1 'event=blocked category=egress sandbox=agents.*dst=198.51.100.10' "$SWT_TMP/hosts-d.log") && break
		sleep 0.1
	done
	[ -n "$line" ] && ok "daemon: ${line#sandwalld: }" ||
		{ bad "no event=blocked line for the unlisted 198.51.100.10"; show "$SWT_TMP/hosts-d.log"; }
	# the daemon asked the resolver itself (A and AAAA)
	_wait_until 3 grep -q 'pypi.test AAAA' "$SWT_TMP/dns.log" &&
		ok "sandwalld queried pypi.test (A and AAAA)" || { bad "no AAAA query in dns.log"; show "$SWT_TMP/dns.log"; }
	reach "$C1" http://203.0.113.10/
	expect_sw 0 "check with the daemon's elements" -c "$conf" check
	return 0
}

sandbox_08_dns_change() {
	need_sandwall || return $?
	local conf t0 t1 dt
	# without the table both addresses answer
	reach "$C1" http://203.0.113.10/
	reach "$C1" http://198.51.100.10/
	_dns_zone '{"pypi.test": {"A": [["203.0.113.10", 2]]}}'
	_dns_up || return 1
	conf=$(_dns_conf change "[sandbox agents]
interfaces = docker0
egress = allowlist
allow = pypi.test tcp/80" daemon.dns_min_ttl=1 daemon.dns_max_ttl=3)
	apply_ok "$conf" || return 1
	_dns_daemon "$conf" change || return 1
	reach "$C1" http://203.0.113.10/
	blocked "$C1" http://198.51.100.10/
	# the answer changes: the new address must open within the refresh
	# (3/4 of the 2 s TTL), the old one close when its last TTL ends
	_dns_zone '{"pypi.test": {"A": [["198.51.100.10", 2]]}}'
	t0=$(date +%s.%N)
	if _wait_until 5 _reachable "$C1" http://198.51.100.10/; then
		t1=$(date +%s.%N); dt=$(echo "$t1 - $t0" | bc)
		ok "the new address 198.51.100.10 opened ${dt}s after the change (TTL 2 s)"
	else
		bad "198.51.100.10 did not open within 5 s of the change"; show "$SWT_TMP/change-d.log"
	fi
	if _wait_until 6 _unreachable "$C1" http://203.0.113.10/; then
		t1=$(date +%s.%N); dt=$(echo "$t1 - $t0" | bc)
		ok "the old address 203.0.113.10 closed ${dt}s after the change (its TTL ran out)"
	else
		bad "203.0.113.10 still reachable 6 s after the answer changed"
		hnft list set inet sandwall sbx_agents_hosts4 | show -
	fi
	blocked "$C1" http://203.0.113.10/
	reach "$C1" http://198.51.100.10/
	return 0
}

sandbox_09_dns_fail() {
	need_sandwall || return $?
	local conf n
	reach "$C1" http://203.0.113.10/            # without the table
	_dns_zone '{"pypi.test": {"A": [["203.0.113.10", 8]]}}'
	_dns_up || return 1
	conf=$(_dns_conf fail "[sandbox agents]
interfaces = docker0
egress = allowlist
allow = pypi.test tcp/80" daemon.dns_min_ttl=1 daemon.dns_max_ttl=8)
	apply_ok "$conf" || return 1
	_dns_daemon "$conf" fail || return 1
	reach "$C1" http://203.0.113.10/
	# the resolver goes silent: every round times out from now on
	_dns_zone '{"*": {"drop": true}}'
	_wait_until 8 grep -q 'event=dns-failed name=pypi.test' "$SWT_TMP/fail-d.log" &&
		ok "the failure is logged: $(grep -m1 'event=dns-failed' "$SWT_TMP/fail-d.log" | sed 's/^sandwalld: //')" ||
		{ bad "no event=dns-failed line"; show "$SWT_TMP/fail-d.log"; }
	reach "$C1" http://203.0.113.10/            # the last good address is kept ...
	if _wait_until 10 _unreachable "$C1" http://203.0.113.10/; then
		ok "... until it expires (blocked after its 8 s TTL)"
	else
		bad "203.0.113.10 still reachable long after its TTL with a failing resolver"
	fi
	blocked "$C1" http://203.0.113.10/
	grep -q 'event=dns-expired name=pypi.test' "$SWT_TMP/fail-d.log" && ok "the expiry is logged" ||
		bad "no event=dns-expired line"
	sleep 2                                     # more failed rounds (back-off 1, 2, 4 s)
	n=$(grep -c 'event=dns-failed name=pypi.test' "$SWT_TMP/fail-d.log")
	[ "$n" -eq 1 ] && ok "logged once for the streak ($(grep -c 'pypi.test A$' "$SWT_TMP/dns.log") A queries went unanswered)" ||
		bad "event=dns-failed logged $n times for one streak"
	# the resolver comes back: the name opens again
	_dns_zone '{"pypi.test": {"A": [["203.0.113.10", 8]]}}'
	_wait_until 10 _reachable "$C1" http://203.0.113.10/ && ok "resolved again: reachable" ||
		bad "203.0.113.10 did not open again after the resolver came back"
	grep -q 'event=dns-recovered name=pypi.test' "$SWT_TMP/fail-d.log" && ok "the recovery is logged" ||
		bad "no event=dns-recovered line"
	return 0
}

sandbox_10_dns_blocked() {
	need_sandwall || return $?
	local conf m g
	# without the table c1 reaches each of them
	reach "$C1" http://169.254.169.254/
	reach "$C1" http://10.0.0.1/
	reach "$C1" http://172.17.0.1:8080/
	_dns_zone '{"meta.test": {"A": [["169.254.169.254", 300]]},
	            "gw.test": {"A": [["10.0.0.1", 300]]},
	            "self.test": {"A": [["172.17.0.1", 300]]},
	            "pypi.test": {"A": [["203.0.113.10", 300]]}}'
	_dns_up || return 1
	conf=$(_dns_conf blocked "[sandbox agents]
interfaces = docker0
egress = allowlist
allow = meta.test tcp/80, gw.test tcp/80, self.test tcp/8080, pypi.test tcp/80")
	apply_ok "$conf" || return 1
	_host_elems agents 4 | grep -q '^169.254.169.254 . tcp . 80' &&
		ok "the policy lists 169.254.169.254 . tcp . 80 (resolved from meta.test)" ||
		{ bad "meta.test did not resolve into the set"; return 1; }
	blocked "$C1" http://169.254.169.254/
	blocked "$C1" http://10.0.0.1/
	blocked "$C1" http://172.17.0.1:8080/
	reach "$C1" http://203.0.113.10/
	m=$(counter_packets metadata); g=$(counter_packets gateways)
	[ "${m:-0}" -gt 0 ] && [ "${g:-0}" -gt 0 ] &&
		ok "the global blocks counted them (metadata $m, gateways $g)" ||
		bad "metadata/gateways counters did not move (metadata '$m', gateways '$g')"
	return 0
}

sandbox_11_dns_repair() {
	need_sandwall || return $?
	local conf
	reach "$C1" http://198.51.100.10/           # without the table
	_dns_zone '{"pypi.test": {"A": [["203.0.113.10", 600]]}}'
	_dns_up || return 1
	conf=$(_dns_conf repair "[sandbox agents]
interfaces = docker0
egress = allowlist
allow = pypi.test tcp/80" daemon.owner=no)
	apply_ok "$conf" || return 1
	_dns_daemon "$conf" repair || return 1
	reach "$C1" http://203.0.113.10/
	# the resolver goes silent, so only the daemon's memory can refill the set
	_dns_zone '{"*": {"drop": true}}'
	hnft delete table inet sandwall
	_wait_until 5 table_exists && ok "the daemon re-created the table" ||
		{ bad "no table after the delete"; show "$SWT_TMP/repair-d.log"; return 1; }
	_host_elems agents 4 | grep -q '^203.0.113.10 . tcp . 80 timeout' &&
		ok "the re-created set holds 203.0.113.10 at once: $(_host_elems agents 4 | head -n1)" ||
		{ bad "the re-created sbx_agents_hosts4 is empty"; hnft list set inet sandwall sbx_agents_hosts4 | show -; }
	reach "$C1" http://203.0.113.10/
	blocked "$C1" http://198.51.100.10/
	return 0
}
