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
_sbx_conf() {
	local f
	f=$(mkconf "$1")
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
	conf=$(_sbx_conf rs "[sandbox agents]
interfaces = docker0
egress = none
[sandbox web]
interfaces = br-*
sources = 172.30.0.0/24 fd00:30::/64
egress = allowlist
allow = 203.0.113.10 tcp/80, 2001:db8::10 tcp/80")
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
	ok1=0
	for i in $(seq 1 8); do
		# a short wait: the bucket refills 3 a second
		if nsx "$C1" curl -s -o /dev/null --connect-timeout 0.05 -m 0.5 http://203.0.113.10/; then
			ok1=$((ok1 + 1))
		else
			cut=$((cut + 1))
		fi
	done
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
	grep -q '^attempted  *[0-9]* destination' "$SW_OUT" && ok "the text receipt has an attempted section" ||
		{ bad "no attempted section in the text receipt"; show "$SW_OUT" 30; }
	return 0
}
