# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Proof suite (issue 4): `sandwall verify` probes from the container side
# (throwaway namespace on each guarded bridge, --pid, --netns) and exits 0
# only when every must-block target is blocked and every --expect-open
# canary is open; sandwalld logs blocked attempts with the exact fields;
# status --json counters rise; the receipt's verdict flips after an
# unrepaired drift and its digests follow the config; the Prometheus
# textfile parses and tracks up/drifts.
#
# Every config points [daemon] journal and metrics into a per-test
# directory ($V_DIR), so verify's record ($V_DIR/verify.json), the journal
# and the metrics file never land outside the suite's temp dir. Daemons run
# in the host namespace with their own control socket and are stopped by pid;
# everything a test changes is undone (V_UNDO), also when it fails.

register_test verify_01_rules        "verify exits 0 with the rules, 1 without (FAIL lines name the targets)"
register_test verify_02_host_no      "with only host = no, verify exits 1 and every FAIL is a host target"
register_test verify_03_pid_netns    "verify --pid (a process in c1) and --netns /run/netns/c1 probe from c1"
register_test verify_04_expect_open  "--expect-open 203.0.113.10:80 passes while the host is up, fails when it is gone"
register_test verify_05_blocked_log  "event=blocked lines with the exact fields; status --json counters rise per attempt"
register_test verify_06_receipt      "receipt: held with daemon+rules+verify; not held after an unrepaired drift; digests follow the config"
register_test verify_07_metrics      "metrics textfile parses; sandwall_up 1/0; drift_events_total counts a tamper"
register_test verify_08_ll_gateway   "a link-local IPv6 default gateway does not make verify fail (or error)"
register_test verify_09_many_runs    "verify keeps finding a free probe address run after run (70 runs)"
register_test verify_10_attacks      "verify's attacks (priming v4/v6, ND payload, broadcast canary): blocked with the table, FAIL when its rule is removed"
register_test verify_11_sbx_none     "a sandbox with egress none: its unlisted destination blocked and counted, canaries become must-block; FAIL without the policy and with its rule deleted"
register_test verify_12_sbx_allow    "an allowlist sandbox: listed addresses reported open/unreachable, --expect-open of a listed one passes; FAIL when the sink is added to its set or the policy is missing"
register_test verify_13_sbx_sources  "a sandbox chosen by source: verify probes from inside its source prefix on the bridge"
register_test verify_14_routed_tap   "interfaces = auto: verify probes through a throwaway routed veth and tap, lists each guarded link with why; FAIL without the table and when the kind rules that guard taps and veths are broken"
register_test verify_15_sbx_budget   "a sandbox budget: one connection over it is counted by budget_NAME; FAIL with the budget rules deleted"
register_test verify_16_sbx_conns    "a sandbox max_connections: one connection over it is counted by connections_NAME, the probe's quarantine and count are undone (alone and through sandwalld); FAIL with the conns rules deleted"
register_test verify_17_sbx_cutoff   "a max_connections its own probes use up must not turn broken rules into blocked targets: with the host and gateways rules deleted, docker0's run is NOT HELD (its targets reached, in batches the count allows); with max_connections = 1 the probe is cut off and verify says so"

V_SANDWALLD=${SANDWALLD:-$SWT_ROOT/build/sandwalld}
V_TIMEOUT=${V_TIMEOUT:-400}  # ms a verify probe waits (blocked targets time out)

V_DIR=""        # per-test directory: configs' journal, metrics, verify.json, control socket
V_DPID=""       # the running sandwalld (pid of the daemon itself: ip netns exec execs it)
V_DLOG=""       # its stderr (-f)
V_CTL=""        # its control socket
V_UNDO=()       # commands (eval'd in reverse) that undo what the test changed

# ---------------------------------------------------------------- helpers
v_now_ms() { echo $(($(date +%s%N) / 1000000)); }

# v_conf NAME [section.key=value ...]: mkconf with journal, metrics and the
# receipt key in $V_DIR
v_conf() {
	local name=$1; shift
	mkconf "v-$name" "daemon.journal=$V_DIR/events.jsonl" "daemon.metrics=$V_DIR/sandwall.prom" \
		"daemon.receipt_key=$V_DIR/receipt_ed25519" "$@"
}

# v_sw ARGS...: sandwall in the host ns, talking to this test's control socket
v_sw() { sw --control "${V_CTL:-$V_DIR/ctl}" "$@"; }

# v_keep NAME: keep a copy of the last sandwall stdout as $V_DIR/NAME
v_keep() { cp "$SW_OUT" "$V_DIR/$1"; }

# v_py FILE EXPR: evaluate a Python expression with d = the JSON in FILE
v_py() {
	"$PY" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("<no json: %s>" % e); sys.exit(0)
r = eval(sys.argv[2])
print(r if isinstance(r, str) else json.dumps(r))' "$1" "$2"
}

# v_verify DESC RC ARGS...: sandwall verify (fast probes); assert the exit code
v_verify() {
	local desc=$1 want=$2; shift 2
	v_sw -c "$V_CONF" verify --timeout "$V_TIMEOUT" "$@"
	if [ "$SW_RC" -eq "$want" ]; then ok "$desc: verify $* -> exit $SW_RC"
	else
		bad "$desc: verify $* -> exit $SW_RC, expected $want"
		show "$SW_ERR" 5; show "$SW_OUT" 40
	fi
	[ "$SW_RC" -eq "$want" ]
}

# v_fail_lines FILE: the FAIL rows of a verify table ("category target")
v_fail_lines() { awk '$3 == "FAIL" { print $1, $2 }' "$1"; }

# v_start CONF: sandwalld in the host ns (-f, own control socket); wait 5 s
# for its event=start line and its socket
v_start() {
	local conf=$1 i n0
	V_CTL="$V_DIR/ctl"
	V_DLOG="$V_DIR/daemon.log"
	# the log is appended to across restarts: wait for a new start line
	n0=$(grep -c 'event=start' "$V_DLOG" 2>/dev/null)
	ip netns exec "$H" "$V_SANDWALLD" -c "$conf" -f --control "$V_CTL" >>"$V_DLOG" 2>&1 &
	V_DPID=$!
	SWT_PIDS+=("$V_DPID")
	for i in $(seq 1 100); do
		if [ "$(grep -c 'event=start' "$V_DLOG")" -gt "${n0:-0}" ] && [ -S "$V_CTL" ]; then
			ok "sandwalld up (pid $V_DPID): $(grep 'event=start' "$V_DLOG" | tail -n1 | sed -e 's/^sandwalld: //' -e "s|$SWT_TMP/||g")"
			return 0
		fi
		[ -d "/proc/$V_DPID" ] || break
		sleep 0.05
	done
	bad "sandwalld did not start within 5 s"; show "$V_DLOG"
	v_stop KILL
	return 1
}

# v_stop [SIG]: signal the daemon, wait (5 s, then KILL), reap it
v_stop() {
	local sig=${1:-TERM} pid=$V_DPID i p keep=()
	[ -n "$pid" ] || return 0
	kill -"$sig" "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		{ [ ! -d "/proc/$pid" ] || grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; } && break
		sleep 0.05
	done
	if [ -d "/proc/$pid" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; then
		bad "sandwalld (pid $pid) still running 5 s after SIG$sig; killing it"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	for p in "${SWT_PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
	SWT_PIDS=("${keep[@]}")
	V_DPID=""
	return 0
}

# v_run BODY: fresh $V_DIR; run BODY; then always stop the daemon, undo
# V_UNDO (reverse), drop the table and $V_DIR (kept with -k)
v_run() {
	local body=$1 rc i
	need_sandwall || return $SKIP
	V_DIR="$SWT_TMP/verify.$body"
	rm -rf "$V_DIR" && mkdir -p "$V_DIR" || return 1
	V_UNDO=(); V_CTL=""; V_DLOG=""; V_CONF=""
	"$body"
	rc=$?
	v_stop TERM
	for ((i = ${#V_UNDO[@]} - 1; i >= 0; i--)); do eval "${V_UNDO[i]}" >/dev/null 2>&1; done
	V_UNDO=()
	nsx "$H" nft delete table inet sandwall 2>/dev/null
	if [ "$T_FAILS" -gt 0 ] && [ -s "${V_DLOG:-/nonexistent}" ]; then
		info "daemon log (last 20 lines):"; tail -n 20 "$V_DLOG" | sed "s|$SWT_TMP/||g" | show - 20
	fi
	[ -n "${SWT_KEEP_TMP:-}" ] || rm -rf "$V_DIR"
	return $rc
}

# v_metric NAME[{labels}] FILE: the value of one sample (empty if absent)
v_metric() { awk -v n="$1" '$1 == n { print $2; exit }' "$2"; }

# v_wait_metric NAME FILE VALUE MS: poll until the sample == VALUE
v_wait_metric() {
	local t0; t0=$(v_now_ms)
	while :; do
		[ "$(v_metric "$1" "$2" 2>/dev/null)" = "$3" ] && return 0
		[ $(($(v_now_ms) - t0)) -ge "$4" ] && return 1
		sleep 0.05
	done
}

# v_status_pkts CAT: packets of a category from `status --json` (empty on error)
v_status_pkts() {
	v_sw -c "$V_CONF" status --json >/dev/null
	v_py "$SW_OUT" "d['categories']['$1']['packets']"
}

# ---------------------------------------------------------------- 1
verify_01_rules() { v_run _verify_01; }
_verify_01() {
	local out fails
	V_CONF=$(v_conf rules)
	apply_ok "$V_CONF" || return 1
	v_verify "rules in place" 0 || return 1
	v_keep held.txt
	out="$V_DIR/held.txt"
	# one run per guarded bridge that is up, each HELD, no FAIL row
	if grep -q '^probing from bridge docker0 as 172\.17\.' "$out" &&
	   grep -q '^probing from bridge br-0a1b2c3d4e5f as 172\.18\.' "$out"; then
		ok "probed from both guarded bridges ($(grep -c '^probing from' "$out") runs)"
	else bad "expected one run per guarded bridge (docker0, br-0a1b2c3d4e5f)"; show "$out" 5; fi
	# (a run alone is no HELD: the one verdict line is, with a canary open)
	[ "$(grep -c ': every target blocked, every canary open$' "$out")" = 2 ] && ok "both runs: every target blocked, every canary open" ||
		{ bad "not every run held"; grep 'HELD\|every target' "$out" | show -; }
	grep -qE '^verdict at [0-9T:-]+Z: HELD \(every target blocked, every canary open\)$' "$out" && ok "$(grep '^verdict at' "$out")" ||
		{ bad "no verdict line"; show "$out" 5; }
	[ -z "$(v_fail_lines "$out")" ] && ok "no FAIL rows" || { bad "FAIL rows with the rules in place:"; v_fail_lines "$out" | show -; }
	# the targets include metadata, the gateway, every host address x listening port
	local t
	for t in "metadata 169.254.169.254:80" "metadata 100.100.100.200:80" "gateways 10.0.0.1:80" \
		 "host 10.0.0.2:8080" "host 10.0.0.2:9090" "host 172.17.0.1:8080" "host 172.18.0.1:9090"; do
		if awk -v c="${t% *}" -v a="${t#* }" '$1 == c && $2 == a && $3 == "blocked" { f = 1 } END { exit !f }' "$out"
		then ok "target $t blocked"; else bad "target $t: not listed as blocked"; grep -F -- "${t#* }" "$out" | show - 3; fi
	done
	# the result is recorded next to the journal, for receipts
	if [ "$(v_py "$V_DIR/verify.json" "d['passed']")" = true ]; then ok "verify.json recorded (passed true)"
	else bad "verify.json not recorded with passed true"; show "$V_DIR/verify.json" 3; fi
	# --json: the same verdict, machine-readable
	v_verify "rules in place, --json" 0 --json
	[ "$(v_py "$SW_OUT" "[r['passed'] for r in d['runs']] + [d['passed']]")" = "[true, true, true]" ] &&
		ok "--json: both runs and the total passed" || { bad "--json verdicts wrong"; show "$SW_OUT" 3; }

	# without the rules: exit 1, the failures named
	expect_sw 0 "remove" -c "$V_CONF" remove || return 1
	v_verify "rules removed" 1
	v_keep notheld.txt
	out="$V_DIR/notheld.txt"
	fails=$(v_fail_lines "$out")
	grep -q 'NOT HELD (see FAIL lines)' "$out" && ok "summary says NOT HELD" || bad "no NOT HELD summary"
	for t in "metadata 169.254.169.254:80" "metadata 100.100.100.200:80" "gateways 10.0.0.1:80" \
		 "host 10.0.0.2:8080" "host 172.17.0.1:8080" "host 172.17.0.1:9090" "host 172.18.0.1:8080"; do
		if grep -qxF -- "$t" <<<"$fails"; then ok "FAIL names $t"
		else bad "no FAIL row for $t"; fi
	done
	info "$(wc -l <<<"$fails") FAIL rows per $(grep -c '^probing from' "$out") runs"
	[ "$(v_py "$V_DIR/verify.json" "d['passed']")" = false ] && ok "verify.json now says passed false" ||
		bad "verify.json not updated to passed false"
	v_verify "rules removed, --json" 1 --json
	[ "$(v_py "$SW_OUT" "d['passed']")" = false ] && ok "--json: passed false" || bad "--json: passed is not false"
	return 0
}

# ---------------------------------------------------------------- 2
verify_02_host_no() { v_run _verify_02; }
_verify_02() {
	local out fails cats i
	V_CONF=$(v_conf hostno block.host=no)
	apply_ok "$V_CONF" || return 1
	v_verify "host = no" 1 --json || return 1
	v_keep hostno.json
	out="$V_DIR/hostno.json"
	# (with host = no there is no input chain: the broadcast canary hears
	# the probe, and verify's broadcast attack fails too)
	cats=$(v_py "$out" "sorted(set(t['category'] for r in d['runs'] for t in r['targets'] if t['verdict'] == 'FAIL'))")
	if [ "$cats" = '["broadcast", "host"]' ]; then ok "every FAIL target is a host target or a broadcast to the host"
	else bad "FAIL categories: $cats, expected only broadcast and host"; fi
	fails=$(v_py "$out" "sorted(set('%s:%d' % (t['address'], t['port']) for r in d['runs'] for t in r['targets'] if t['verdict'] == 'FAIL'))")
	info "host targets that FAIL: $fails"
	# the bridge addresses are host-only (own subnets are never lan): reachable
	[[ $fails == *'"172.17.0.1:8080"'* && $fails == *'"172.18.0.1:8080"'* ]] &&
		ok "the bridges' host addresses are named" || bad "172.17.0.1:8080 / 172.18.0.1:8080 not among the failures"
	# and nothing else failed: metadata and gateway still blocked
	# (v6 targets read "skipped": the throwaway namespace has no IPv6 route)
	# ([verify] canary, expect-open, stays open: not a blocked target)
	i=$(v_py "$out" "sorted(set(t['verdict'] for r in d['runs'] for t in r['targets'] if t['category'] not in ('host', 'broadcast', 'expect-open')))")
	[ "$i" = '["blocked", "skipped"]' ] && ok "every other target still blocked (v6 skipped): $i" ||
		bad "verdicts of the non-host targets: $i, expected [blocked, skipped]"
	# the table output names them on FAIL rows too
	v_verify "host = no, table" 1
	v_keep hostno.txt
	fails=$(v_fail_lines "$V_DIR/hostno.txt")
	if [ -n "$fails" ] && ! grep -qvE '^(host|broadcast) ' <<<"$fails"; then ok "FAIL rows: $(tr '\n' ' ' <<<"$fails")"
	else bad "FAIL rows are not all host or broadcast rows"; show - <<<"$fails"; fi
	return 0
}

# ---------------------------------------------------------------- 3
verify_03_pid_netns() { v_run _verify_03; }
_verify_03() {
	local spid v6
	V_CONF=$(v_conf pid)
	apply_ok "$V_CONF" || return 1
	ip netns exec "$C1" sleep 30 &
	spid=$!
	SWT_TEST_PIDS+=("$spid")
	V_UNDO+=("kill $spid; wait $spid")
	sleep 0.1
	if [ "$(readlink "/proc/$spid/ns/net")" = "$(ip netns exec "$C1" readlink /proc/self/ns/net)" ]; then
		ok "sleep (pid $spid) runs in c1's namespace"
	else bad "pid $spid is not in c1's namespace"; return 1; fi

	v_verify "--pid of a process in c1" 0 --pid "$spid"
	v_keep pid.txt
	grep -q "^probing from pid $spid\$" "$V_DIR/pid.txt" && ok "probing from pid $spid" ||
		{ bad "no 'probing from pid $spid' line"; show "$V_DIR/pid.txt" 3; }
	[ "$(grep -c '^probing from' "$V_DIR/pid.txt")" = 1 ] && ok "exactly one run" || bad "more than one run for --pid"
	# c1 has IPv6: the v6 metadata endpoint is really probed (not skipped for lack of a route)
	v6=$(awk '$2 == "[fd00:ec2::254]:80" { print $3, $4 }' "$V_DIR/pid.txt")
	[[ $v6 == blocked\ * && $v6 != *no-route* ]] && ok "[fd00:ec2::254]:80 probed from c1: $v6" ||
		bad "[fd00:ec2::254]:80 from c1: '$v6', expected blocked (timeout/prohibited)"

	v_verify "--netns /run/netns/c1" 0 --netns "/run/netns/$C1"
	grep -q "^probing from netns /run/netns/$C1\$" "$SW_OUT" && ok "probing from netns /run/netns/$(_nsname "$C1")" ||
		{ bad "no 'probing from netns' line"; show "$SW_OUT" 3; }

	# from c1 without rules it fails, and the v6 endpoint is among the failures
	expect_sw 0 "remove" -c "$V_CONF" remove
	v_verify "--pid without rules" 1 --pid "$spid"
	v_fail_lines "$SW_OUT" | grep -qxF "metadata [fd00:ec2::254]:80" &&
		ok "FAIL names metadata [fd00:ec2::254]:80 (seen only from inside c1)" ||
		{ bad "no FAIL row for [fd00:ec2::254]:80 from c1"; v_fail_lines "$SW_OUT" | show -; }

	# bad namespaces are errors (2), not passes
	v_verify "--pid of no process" 2 --pid 999999999
	v_verify "--netns of no file" 2 --netns "$V_DIR/nonexistent"
	v_verify "--pid and --netns together" 2 --pid "$spid" --netns "/run/netns/$C1"
	return 0
}

# ---------------------------------------------------------------- 4
verify_04_expect_open() { v_run _verify_04; }
_verify_04() {
	local row
	V_CONF=$(v_conf canary)
	apply_ok "$V_CONF" || return 1
	v_verify "canary up" 0 --netns "/run/netns/$C1" --expect-open 203.0.113.10:80
	row=$(awk '$1 == "expect-open" { print $2, $3, $4 }' "$SW_OUT")
	[ "$row" = "203.0.113.10:80 open open" ] && ok "expect-open row: $row" || { bad "expect-open row: '$row'"; show "$SW_OUT" 40; }
	# default mode (throwaway namespaces on the bridges) too, v6 canary included only from c1
	v_verify "canary up (bridges)" 0 --expect-open 203.0.113.10:80
	v_verify "v6 canary up (c1)" 0 --netns "/run/netns/$C1" --expect-open "[2001:db8::10]:80"
	# a closed port answers RST: reachable, so the canary still holds
	v_verify "canary on a closed port (RST = reachable)" 0 --netns "/run/netns/$C1" --expect-open 203.0.113.10:81
	# a canary that the rules block (metadata on another port) fails
	v_verify "canary that the rules block" 1 --netns "/run/netns/$C1" --expect-open 169.254.169.254:81
	# a canary that is also a must-block target can never hold: refused up front
	v_verify "canary that is a must-block target" 2 --netns "/run/netns/$C1" --expect-open 169.254.169.254:80
	# the internet host goes away (its address leaves the cloud): the canary times out
	ip -n "$CL" addr del 203.0.113.10/32 dev lo || { bad "could not take 203.0.113.10 away"; return 1; }
	V_UNDO+=("ip -n '$CL' addr add 203.0.113.10/32 dev lo")
	v_verify "canary down" 1 --netns "/run/netns/$C1" --expect-open 203.0.113.10:80
	row=$(awk '$1 == "expect-open" { print $2, $3, $4 }' "$SW_OUT")
	[ "$row" = "203.0.113.10:80 FAIL timeout" ] && ok "expect-open row: $row" || bad "expect-open row: '$row', expected FAIL timeout"
	[ "$(v_fail_lines "$SW_OUT")" = "expect-open 203.0.113.10:80" ] && ok "the canary is the only FAIL" ||
		{ bad "FAIL rows other than the canary:"; v_fail_lines "$SW_OUT" | show -; }
	v_verify "canary down (bridges)" 1 --expect-open 203.0.113.10:80
	ip -n "$CL" addr add 203.0.113.10/32 dev lo && ok "203.0.113.10 back" || bad "could not restore 203.0.113.10"
	unset 'V_UNDO[-1]'
	wait_path "$C1" http://203.0.113.10/
	v_verify "canary back" 0 --netns "/run/netns/$C1" --expect-open 203.0.113.10:80
	# bad canaries are usage errors
	v_verify "bad --expect-open" 2 --expect-open 203.0.113.10
	grep -q "bad --expect-open '203.0.113.10'" "$SW_ERR" && ok "error names the bad canary" || { bad "no error naming the canary"; show "$SW_ERR"; }
	v_verify "bad --expect-open port" 2 --expect-open 203.0.113.10:0
	return 0
}

# ---------------------------------------------------------------- 5
verify_05_blocked_log() { v_run _verify_05; }
_verify_05() {
	local want want6 p0 p1 p2 p3 i t0 l0 found
	V_CONF=$(v_conf blocked daemon.owner=no log.blocked=yes)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	v_start "$V_CONF" || return 1
	want='event=blocked category=metadata src=172.17.0.2 dst=169.254.169.254 proto=tcp dport=80 iif=docker0'
	want6='event=blocked category=metadata src=fd00:17::2 dst=fd00:ec2::254 proto=tcp dport=80 iif=docker0'
	p0=$(v_status_pkts metadata)
	[[ $p0 =~ ^[0-9]+$ ]] || { bad "status --json: no metadata packet counter ($p0)"; show "$SW_OUT" 3; return 1; }
	l0=$(wc -l <"$V_DLOG")
	blocked "$C1" http://169.254.169.254/
	p1=$(v_status_pkts metadata)
	# the log line: exactly these fields, in this order, at the end of the line
	t0=$(v_now_ms); found=""
	while [ $(($(v_now_ms) - t0)) -lt 2000 ]; do
		found=$(tail -n +"$((l0 + 1))" "$V_DLOG" | grep -m1 -E -- "(^|[ :])${want//./\\.}\$")
		[ -n "$found" ] && break
		sleep 0.05
	done
	if [ -n "$found" ]; then ok "daemon log: ${found#sandwalld: }"
	else
		bad "no line ending in '$want' in the daemon log"
		tail -n +"$((l0 + 1))" "$V_DLOG" | grep 'event=blocked' | show - 5
	fi
	[ "$p1" -gt "$p0" ] 2>/dev/null && ok "status --json metadata packets $p0 -> $p1 after attempt 1" ||
		bad "metadata packets did not rise after attempt 1 ($p0 -> $p1)"
	blocked "$C1" http://169.254.169.254/
	p2=$(v_status_pkts metadata)
	[ "$p2" -gt "$p1" ] 2>/dev/null && ok "metadata packets $p1 -> $p2 after attempt 2" ||
		bad "metadata packets did not rise after attempt 2 ($p1 -> $p2)"
	blocked "$C1" "http://[fd00:ec2::254]/"
	p3=$(v_status_pkts metadata)
	[ "$p3" -gt "$p2" ] 2>/dev/null && ok "metadata packets $p2 -> $p3 after attempt 3 (v6)" ||
		bad "metadata packets did not rise after attempt 3 ($p2 -> $p3)"
	found=""
	for i in $(seq 1 40); do
		found=$(grep -m1 -E -- "(^|[ :])${want6//./\\.}\$" "$V_DLOG") && break
		sleep 0.05
	done
	[ -n "$found" ] && ok "daemon log: ${found#sandwalld: }" || { bad "no line ending in '$want6'"; grep 'event=blocked' "$V_DLOG" | show - 5; }
	# the daemon's own count of logged attempts, in status --json
	v_sw -c "$V_CONF" status --json
	i=$(v_py "$SW_OUT" "int(d['daemon']['blocked_logged'])")
	[ "$i" -ge 2 ] 2>/dev/null && ok "status --json daemon.blocked_logged = $i" || { bad "daemon.blocked_logged = $i, expected >= 2"; show "$SW_OUT" 3; }
	# another category: the host (c1 -> 172.17.0.1:8080), its own counter and line
	p0=$(v_status_pkts host)
	blocked "$C1" http://172.17.0.1:8080/
	p1=$(v_status_pkts host)
	[ "$p1" -gt "$p0" ] 2>/dev/null && ok "host packets $p0 -> $p1" || bad "host packets did not rise ($p0 -> $p1)"
	found=""
	for i in $(seq 1 40); do
		found=$(grep -m1 -E -- '(^|[ :])event=blocked category=host src=172\.17\.0\.2 dst=172\.17\.0\.1 proto=tcp dport=8080 iif=docker0$' "$V_DLOG") && break
		sleep 0.05
	done
	[ -n "$found" ] && ok "daemon log: ${found#sandwalld: }" || { bad "no event=blocked category=host line"; grep 'event=blocked' "$V_DLOG" | show - 8; }
	return 0
}

# ---------------------------------------------------------------- 6
verify_06_receipt() { v_run _verify_06; }
_verify_06() {
	local r cfg_sha rules_sha conf2 since
	V_CONF=$(v_conf receipt)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	v_start "$V_CONF" || return 1
	v_verify "daemon running" 0 || return 1
	v_sw -c "$V_CONF" receipt
	[ "$SW_RC" -eq 0 ] && ok "receipt -> exit 0" || { bad "receipt -> exit $SW_RC, expected 0"; show "$SW_ERR"; show "$SW_OUT" 20; }
	grep -qE '^verdict +HELD$' "$SW_OUT" && ok "receipt: verdict HELD" || { bad "receipt text has no 'verdict HELD'"; show "$SW_OUT" 20; }
	v_sw -c "$V_CONF" receipt --json
	[ "$SW_RC" -eq 0 ] && ok "receipt --json -> exit 0" || bad "receipt --json -> exit $SW_RC"
	v_keep r1.json; r="$V_DIR/r1.json"
	[ "$(v_py "$r" "d['verdict']")" = held ] && ok "verdict \"held\"" || { bad "verdict $(v_py "$r" "d['verdict']"), expected held"; show "$r" 3; }
	[ "$(v_py "$r" "[d['ruleset']['present'], d['ruleset']['kernel_matches'], d['daemon'], d['verify']['passed'], d['journal']['unrepaired']]")" = "[true, true, true, true, 0]" ] &&
		ok "present, matching, daemon running, last verify passed, nothing unrepaired" ||
		{ bad "receipt fields: $(v_py "$r" "[d['ruleset'], d['daemon'], d['verify'], d['journal']['unrepaired']]")"; }
	[ "$(v_py "$r" "d['journal']['lines'][0]['event']")" = start ] && ok "journal starts with the daemon's start event" ||
		bad "journal lines: $(v_py "$r" "d['journal']")"
	cfg_sha=$(v_py "$r" "d['config']['sha256']")
	rules_sha=$(v_py "$r" "d['ruleset']['sha256']")
	[ "$cfg_sha" = "$(sha256sum "$V_CONF" | cut -d' ' -f1)" ] && ok "config sha256 = sha256sum of the file" ||
		bad "config sha256 $cfg_sha != sha256sum $(sha256sum "$V_CONF" | cut -d' ' -f1)"
	[[ $rules_sha =~ ^[0-9a-f]{64}$ ]] && ok "ruleset sha256 $rules_sha" || bad "ruleset sha256 '$rules_sha'"
	[ "$rules_sha" = "$(nsx "$H" "$SANDWALL" -c "$V_CONF" export | sha256sum | cut -d' ' -f1)" ] &&
		ok "ruleset sha256 = sha256 of export" || info "ruleset sha256 differs from sha256(export) (digest of another rendering)"

	# an unrepaired drift: the daemon stops (rules stay), then the table goes
	v_stop TERM
	table_exists && ok "daemon stopped, rules left in place" || bad "the table left with the daemon"
	hnft delete table inet sandwall && ok "table deleted with nft (no daemon to repair it)" || bad "nft delete table failed"
	v_sw -c "$V_CONF" receipt --json
	[ "$SW_RC" -eq 1 ] && ok "receipt -> exit 1" || bad "receipt -> exit $SW_RC, expected 1"
	v_keep r2.json; r="$V_DIR/r2.json"
	[ "$(v_py "$r" "d['verdict']")" = "not held" ] && ok "verdict \"not held\"" || bad "verdict $(v_py "$r" "d['verdict']"), expected not held"
	[ "$(v_py "$r" "[d['ruleset']['present'], d['ruleset']['kernel_matches'], d['daemon']]")" = "[false, false, false]" ] &&
		ok "ruleset present false, daemon false" || bad "receipt: $(v_py "$r" "[d['ruleset'], d['daemon']]")"
	[ "$(v_py "$r" "d['journal']['lines'][-1]['event']")" = stop ] && ok "journal ends with the stop event" ||
		bad "last journal event: $(v_py "$r" "d['journal']['lines'][-1]")"
	v_sw -c "$V_CONF" receipt
	grep -qE '^verdict +NOT HELD$' "$SW_OUT" && grep -q 'TABLE ABSENT' "$SW_OUT" && ok "receipt text: TABLE ABSENT, NOT HELD" ||
		{ bad "receipt text lacks TABLE ABSENT / NOT HELD"; show "$SW_OUT" 20; }

	# a failed verify also keeps the verdict at "not held", even with the rules back
	v_verify "no rules" 1
	apply_ok "$V_CONF"
	v_sw -c "$V_CONF" receipt --json
	[ "$SW_RC" -eq 1 ] && [ "$(v_py "$SW_OUT" "[d['verdict'], d['verify']['passed']]")" = '["not held", false]' ] &&
		ok "rules back but the last verify failed: not held" || bad "receipt after a failed verify: exit $SW_RC, $(v_py "$SW_OUT" "[d['verdict'], d['verify']]")"
	v_verify "rules back" 0
	# the window still holds the time without the daemon and without the
	# table: not held, naming it (the receipt is a timeline, issue 23)
	v_sw -c "$V_CONF" receipt --json
	[ "$SW_RC" -eq 1 ] && [ "$(v_py "$SW_OUT" "[d['verdict'], sorted(set(g['kind'] for g in d['timeline']['gaps']))]")" = '["not held", ["daemon not running", "verify failed"]]' ] &&
		ok "passing verify again, but the window holds the daemon's stop: not held" ||
		bad "receipt after a passing verify: exit $SW_RC, $(v_py "$SW_OUT" "[d['verdict'], d['reasons']]")"
	# a window after the daemon is back: held
	v_start "$V_CONF" || return 1
	sleep 1
	since=$(date +%s)               # a whole second after the start
	v_verify "daemon back" 0
	v_sw -c "$V_CONF" receipt --json --since "$since"
	[ "$SW_RC" -eq 0 ] && [ "$(v_py "$SW_OUT" "d['verdict']")" = held ] && ok "receipt --since the restart: held" ||
		bad "receipt --since the restart: exit $SW_RC, $(v_py "$SW_OUT" "[d['verdict'], d['reasons']]")"
	[ "$(v_py "$SW_OUT" "[d['config']['sha256'], d['ruleset']['sha256']]")" = "[\"$cfg_sha\", \"$rules_sha\"]" ] &&
		ok "same config, same digests" || bad "digests changed without a config change"

	# a changed config (lan = no): both digests change
	conf2=$(v_conf receipt block.lan=no)
	[ "$conf2" = "$V_CONF" ] || { bad "v_conf wrote another file"; return 1; }
	v_sw -c "$V_CONF" receipt --json
	v_keep r3.json; r="$V_DIR/r3.json"
	[ "$(v_py "$r" "d['config']['sha256']")" != "$cfg_sha" ] && [ "$(v_py "$r" "d['config']['sha256']")" = "$(sha256sum "$V_CONF" | cut -d' ' -f1)" ] &&
		ok "lan = no: config sha256 changed ($(v_py "$r" "d['config']['sha256']" | cut -c1-12)...)" ||
		bad "config sha256 did not follow the config: $(v_py "$r" "d['config']['sha256']")"
	[ "$(v_py "$r" "d['ruleset']['sha256']")" != "$rules_sha" ] && ok "lan = no: ruleset sha256 changed" ||
		bad "ruleset sha256 unchanged after lan = no"
	[ "$(v_py "$r" "[d['verdict'], d['ruleset']['kernel_matches']]")" = '["not held", false]' ] &&
		ok "the kernel no longer matches the changed config: not held" || bad "receipt after the config change: $(v_py "$r" "[d['verdict'], d['ruleset']]")"
	return 0
}

# ---------------------------------------------------------------- 7
verify_07_metrics() { v_run _verify_07; }
_verify_07() {
	local m d0 r0 bad_lines p
	V_CONF=$(v_conf metrics daemon.owner=no)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	m="$V_DIR/sandwall.prom"
	v_start "$V_CONF" || return 1
	[ -s "$m" ] && ok "metrics file written: $(wc -l <"$m") lines" || { bad "no metrics file at $m"; return 1; }
	# Prometheus text format: comments (# HELP/# TYPE) or name{labels} value
	bad_lines=$(grep -vE '^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* ' "$m" |
		grep -vE '^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*")*\})? [-+]?([0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|NaN|[-+]?Inf)$')
	[ -z "$bad_lines" ] && ok "every line is a comment or 'name{labels} value'" || { bad "lines that are not Prometheus text:"; show - <<<"$bad_lines"; }
	# every sample has a TYPE
	p=$(awk '/^# TYPE/ { t[$3] = 1; next } /^#/ { next } { n = $1; sub(/\{.*/, "", n); if (!(n in t)) print n }' "$m")
	[ -z "$p" ] && ok "every sample has a # TYPE line" || bad "samples without # TYPE: $p"
	"$PY" - "$m" <<-'EOF'
	import sys
	try:
	    from prometheus_client.parser import text_string_to_metric_families as p
	except ImportError:
	    sys.exit(3)
	list(p(open(sys.argv[1]).read()))
	EOF
	case $? in
	0) ok "prometheus_client parses it" ;;
	3) info "prometheus_client not installed: format checked by the patterns above only" ;;
	*) bad "prometheus_client cannot parse the file" ;;
	esac
	for p in sandwall_up sandwall_drift_events_total sandwall_repairs_total sandwall_repair_latency_seconds \
		 'sandwall_blocked_packets_total{category="metadata"}'; do
		[ -n "$(v_metric "$p" "$m")" ] && ok "$p $(v_metric "$p" "$m")" || bad "no sample $p"
	done
	[ "$(v_metric sandwall_up "$m")" = 1 ] && ok "sandwall_up 1 while running" || bad "sandwall_up $(v_metric sandwall_up "$m") while running"
	# a tamper in watch mode: repaired, counted
	d0=$(v_metric sandwall_drift_events_total "$m")
	r0=$(v_metric sandwall_repairs_total "$m")
	hnft delete table inet sandwall || bad "tamper (nft delete table) failed"
	if v_wait_metric sandwall_drift_events_total "$m" $((d0 + 1)) 3000; then ok "sandwall_drift_events_total $d0 -> $((d0 + 1)) after the tamper"
	else bad "sandwall_drift_events_total $(v_metric sandwall_drift_events_total "$m"), expected $((d0 + 1))"; fi
	[ "$(v_metric sandwall_repairs_total "$m")" -gt "$r0" ] 2>/dev/null && ok "sandwall_repairs_total $r0 -> $(v_metric sandwall_repairs_total "$m")" ||
		bad "sandwall_repairs_total did not rise ($r0 -> $(v_metric sandwall_repairs_total "$m"))"
	[ "$(v_metric sandwall_last_drift_timestamp_seconds "$m")" -gt 0 ] 2>/dev/null && ok "last drift timestamp set" || bad "sandwall_last_drift_timestamp_seconds not set"
	[ "$(v_metric sandwall_up "$m")" = 1 ] && ok "sandwall_up 1 after the repair" || bad "sandwall_up $(v_metric sandwall_up "$m") after the repair"
	grep -q '"event":"drift"' "$V_DIR/events.jsonl" && ok "the journal has the drift" || bad "no drift in the journal"
	# blocked packets reach the metrics with the next write (stop writes one)
	blocked "$C1" http://169.254.169.254/
	v_stop TERM
	[ "$(v_metric sandwall_up "$m")" = 0 ] && ok "sandwall_up 0 after stop" || bad "sandwall_up $(v_metric sandwall_up "$m") after stop"
	p=$(v_status_pkts metadata)
	[ "$(v_metric 'sandwall_blocked_packets_total{category="metadata"}' "$m")" = "$p" ] && [ "$p" -gt 0 ] 2>/dev/null &&
		ok "blocked_packets_total{metadata} = $p = status --json" ||
		bad "metrics metadata packets $(v_metric 'sandwall_blocked_packets_total{category="metadata"}' "$m") != status $p"
	p=$(find "$V_DIR" -name 'sandwall.prom?*' | wc -l)
	[ "$p" = 0 ] && ok "no temporary metrics files left" || bad "$p temporary metrics files left in $V_DIR"
	return 0
}

# ---------------------------------------------------------------- 8
# Most IPv6 hosts have a link-local default gateway (fe80::... from router
# advertisements). It is in fe80::/10 (link_local) and out of the
# containers' scope; verify must not demand a probe of it that cannot be
# made (a connect() to fe80:: without a scope id fails: "error" -> FAIL).
verify_08_ll_gateway() { v_run _verify_08; }
_verify_08() {
	local ll rows
	V_CONF=$(v_conf llgw)
	ll=$(ip -n "$CL" -6 -o addr show dev eth0 scope link | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
	[ -n "$ll" ] || { bad "the cloud's eth0 has no link-local address"; return 1; }
	ip -n "$H" -6 route replace default via "$ll" dev eth0 || { bad "could not route v6 via $ll"; return 1; }
	V_UNDO+=("ip -n '$H' -6 route replace default via fd00:10::1")
	ok "host ns: IPv6 default via $ll dev eth0 (link-local gateway)"
	apply_ok "$V_CONF" || return 1
	reach "$C1" "http://[2001:db8::10]/"
	blocked "$C1" "http://[fd00:ec2::254]/"
	v_verify "link-local v6 gateway, from c1" 0 --netns "/run/netns/$C1"
	rows=$(grep -F -- "$ll" "$SW_OUT")
	[ -z "$rows" ] || info "rows for $ll: $(tr -s ' ' <<<"$rows")"
	v_verify "link-local v6 gateway, from the bridges" 0
	rows=$(grep -F -- "$ll" "$SW_OUT" | sort -u)
	[ -z "$rows" ] || info "rows for $ll: $(tr -s ' ' <<<"$rows")"
	return 0
}

# ---------------------------------------------------------------- 9
# Each default-mode run takes a free address on the bridge (top down, at
# most 64 candidates, skipping addresses in the bridge's neighbour table).
# The host learns each probe address from its ARP request; a regression
# guard that leftover entries never exhaust the candidates over many runs
# (today the entries do not pile up: two alternate).
verify_09_many_runs() { v_run _verify_09; }
_verify_09() {
	local i rc errs=0 first="" last=""
	V_CONF=$(v_conf many guard.interfaces=docker0)
	V_UNDO+=("ip -n '$H' neigh flush dev docker0")
	apply_ok "$V_CONF" || return 1
	for i in $(seq 1 70); do
		# (TCP probes only: the attacks add their evidence waits to each run)
		v_sw -c "$V_CONF" verify --timeout 10 --no-attacks
		rc=$SW_RC
		last=$(sed -n 's/^probing from bridge docker0 as //p' "$SW_OUT")
		[ -n "$first" ] || first=$last
		if [ $rc -eq 2 ]; then
			errs=$((errs + 1))
			[ $errs = 1 ] && { bad "run $i: verify exit 2"; show "$SW_ERR" 3; }
		fi
	done
	[ $errs = 0 ] && ok "70 runs, none failed to set up (probe address $first ... $last)" ||
		bad "$errs of 70 runs could not probe (first address $first, last $last)"
	info "docker0 neighbour entries now: $(ip -n "$H" neigh show dev docker0 | wc -l)"
	return 0
}

# ---------------------------------------------------------------- 10
# verify runs the attacks of docs/threat-model.md that a throwaway namespace
# can run: priming with forged frames (counted as spoofed, nothing reached
# from the primed port), an NS with a payload to the metadata v6 address
# (counted as metadata), UDP to broadcast/multicast heard by a canary on the
# host (with the host's datagram to itself as the control). With each rule
# that stops them removed from the table, verify fails and names them.
verify_10_attacks() { v_run _verify_10; }

# _v10_cats FILE: the categories of the FAIL targets of a verify --json
_v10_cats() { v_py "$1" "sorted(set(t['category'] for r in d['runs'] for t in r['targets'] if t['verdict'] == 'FAIL'))"; }
# _v10_rule_handle CHAIN TAG: the handle of our rule with comment sandwall:TAG
_v10_rule_handle() { hnft -a list chain inet sandwall "$1" | sed -n "s/.*comment \"sandwall:$2\" # handle \([0-9]*\).*/\1/p"; }

_verify_10() {
	local out j t h n s0 s1
	V_CONF=$(v_conf attacks)
	apply_ok "$V_CONF" || return 1
	s0=$(counter_packets spoofed)
	v_verify "default table, with attacks" 0 || return 1
	v_keep held.txt
	out="$V_DIR/held.txt"
	s1=$(counter_packets spoofed)
	# the attack rows, each blocked (docker0 has IPv6: v6 priming and ND too)
	# (the host target is the first of the uplink address's listening ports)
	for t in "spoofed 169.254.169.254:80" "spoofed 10.0.0.1:80" "spoofed 10.0.0.2:" \
		 "spoofed [fd00:ec2::254]:80" "spoofed [fd00:10::1]:80" "spoofed [fd00:10::2]:" \
		 "nd [fd00:ec2::254]:0"; do
		n=$(awk -v c="${t% *}" -v a="${t#* }" '$1 == c && index($2, a) == 1 && $3 == "blocked" && $4 == "counted" { n++ } END { print n + 0 }' "$out")
		[ "$n" -ge 1 ] && ok "$t: $n rows blocked (counted)" || { bad "$t: no blocked row"; grep -F -- "${t#* }" "$out" | show - 6; }
	done
	n=$(awk '$1 == "spoofed" && $2 == "169.254.169.254:80" && $3 == "blocked"' "$out" | grep -c 'ff:ff:ff:ff:ff:ff')
	[ "$n" = 4 ] && ok "169.254.169.254:80 primed through ff:ff:ff:ff:ff:ff too (tcp+udp, 2 bridges)" ||
		bad "expected 4 broadcast-MAC priming rows for 169.254.169.254:80, got $n"
	for t in 172.17.255.255 172.18.255.255 255.255.255.255 224.0.0.1 "[ff02::1]"; do
		n=$(awk -v a="$t" '$1 == "broadcast" && index($2, a ":") == 1 && $3 == "blocked" && $4 == "silent"' "$out" | wc -l)
		[ "$n" = 2 ] && ok "broadcast to $t: silent at the canary (both runs)" || { bad "broadcast to $t: $n silent rows, expected 2"; grep -F -- "$t" "$out" | show - 4; }
	done
	n=$(awk '$1 == "broadcast" && $3 == "open" && $4 == "heard"' "$out" | wc -l)
	[ "$n" = 4 ] && ok "the canary's control (127.0.0.1, ::1) heard in both runs" || bad "canary control rows heard: $n, expected 4"
	[ -n "$s0" ] && [ -n "$s1" ] && [ "$s1" -ge $((s0 + 30)) ] && ok "counter spoofed $s0 -> $s1" ||
		bad "counter spoofed $s0 -> $s1: expected at least 30 more (the forged frames)"
	v_verify "default table, --json" 0 --json
	j="$V_DIR/held.json"; cp "$SW_OUT" "$j"
	n=$(v_py "$j" "len([t for r in d['runs'] for t in r['targets'] if t.get('attack') in ('prime-tcp', 'prime-udp', 'nd-payload') and not t['counted'] >= 1])")
	[ "$n" = 0 ] && ok "--json: every priming/ND attack has counted >= 1" || bad "--json: $n priming/ND attacks not counted"
	n=$(v_py "$j" "[d['attacks'], len([t for r in d['runs'] for t in r['targets'] if 'attack' in t])]")
	[[ $n == '[true, '* ]] && ok "--json: attacks true, attack targets: $n" || bad "--json attacks: $n"

	# 1. without the anti-spoofing rule: every priming row fails, nothing else
	h=$(_v10_rule_handle guard spoofed)
	[ -n "$h" ] || { bad "no rule sandwall:spoofed in chain guard"; return 1; }
	hnft delete rule inet sandwall guard handle "$h" || { bad "could not delete the spoofed rule"; return 1; }
	ok "deleted rule sandwall:spoofed (handle $h)"
	# table netdev on the uplink (macvlan_parents = auto) would still drop
	# the routed (not NATed) IPv6 flow at eth0's egress: out of the way, so
	# that the hole is the missing rule's alone
	hnft delete table netdev sandwall 2>/dev/null
	v_verify "without the anti-spoofing rule" 1 --json
	cp "$SW_OUT" "$V_DIR/nospoof.json"
	n=$(_v10_cats "$V_DIR/nospoof.json")
	[ "$n" = '["spoofed"]' ] && ok "FAIL categories: $n" || bad "FAIL categories without the spoofed rule: $n, expected [spoofed]"
	n=$(v_py "$V_DIR/nospoof.json" "len([t for r in d['runs'] for t in r['targets'] if t['category'] == 'spoofed' and t['verdict'] != 'FAIL'])")
	[ "$n" = 0 ] && ok "every priming row FAILs" || bad "$n priming rows did not FAIL"
	# IPv6 has no rp_filter: the primed flow really reaches the metadata server
	n=$(v_py "$V_DIR/nospoof.json" "sorted(set(t['result'] for r in d['runs'] for t in r['targets'] if t['category'] == 'spoofed' and t['address'] == 'fd00:ec2::254' and t['attack'] == 'prime-tcp'))")
	[ "$n" = '["reached"]' ] && ok "[fd00:ec2::254]:80 primed and reached from the primed port: $n" ||
		bad "[fd00:ec2::254]:80 priming result $n, expected reached"
	v_verify "without the anti-spoofing rule (table)" 1
	grep -q 'NOT HELD' "$SW_OUT" && v_fail_lines "$SW_OUT" | grep -q '^spoofed 169.254.169.254:80$' &&
		ok "the text names FAIL spoofed 169.254.169.254:80" || { bad "no FAIL row for spoofed 169.254.169.254:80"; show "$SW_OUT" 60; }
	v_verify "without the anti-spoofing rule, --no-attacks" 0 --no-attacks
	grep -q '^attacks: not run (--no-attacks)' "$SW_OUT" && ! grep -q '^spoofed ' "$SW_OUT" &&
		ok "--no-attacks: TCP probes only, and it says so" || bad "--no-attacks output"
	apply_ok "$V_CONF" || return 1

	# 2. without the input chain's rules: the canary hears the broadcasts
	hnft flush chain inet sandwall guard_input || { bad "could not flush guard_input"; return 1; }
	v_verify "guard_input flushed" 1 --json
	cp "$SW_OUT" "$V_DIR/noinput.json"
	n=$(_v10_cats "$V_DIR/noinput.json")
	[ "$n" = '["broadcast"]' ] && ok "FAIL categories: $n" || bad "FAIL categories without guard_input: $n, expected [broadcast]"
	n=$(v_py "$V_DIR/noinput.json" "sorted(set(t['address'] for r in d['runs'] for t in r['targets'] if t['verdict'] == 'FAIL' and t['result'] == 'heard'))")
	[ "$n" = '["172.17.255.255", "172.18.255.255", "224.0.0.1", "255.255.255.255", "ff02::1"]' ] &&
		ok "the canary heard: $n" || bad "heard by the canary: $n"
	apply_ok "$V_CONF" || return 1

	# 3. ND accepted whatever its destination (the ruleset before issue 9)
	hnft insert rule inet sandwall guard icmpv6 type nd-neighbor-solicit accept || { bad "could not insert the ND rule"; return 1; }
	v_verify "NS accepted everywhere" 1 --json
	cp "$SW_OUT" "$V_DIR/nd.json"
	n=$(v_py "$V_DIR/nd.json" "sorted(set((t['category'], t['address'], t['result']) for r in d['runs'] for t in r['targets'] if t['verdict'] == 'FAIL'))")
	[ "$n" = '[["nd", "fd00:ec2::254", "uncounted"]]' ] && ok "FAIL: $n" || bad "FAIL rows with ND accepted: $n"
	apply_ok "$V_CONF" || return 1
	v_verify "repaired" 0
	return 0
}

# ---------------------------------------------------------------- 11..14
# Sandbox policies ([sandbox NAME], issue 14) and guarded kinds (issue 13).
# verify's sink is a throwaway namespace holding one address of
# 192.0.2.0/24 behind a routed veth of the host; nothing listens there, so a
# connection that gets through is answered with a reset ("reached").

# v_sbx_conf NAME TEXT [KEY=VALUE ...]: v_conf plus sandbox sections
v_sbx_conf() {
	local name=$1 text=$2 f; shift 2
	f=$(v_conf "$name" "$@")
	printf '%s\n' "$text" >>"$f"
	echo "$f"
}

# v_sbx FILE NAME KEY: a key of sandbox NAME in a verify --json document
v_sbx() { v_py "$1" "[s['$3'] for s in d['sandboxes'] if s['name'] == '$2'][0]"; }

# v_rows FILE PYCOND: the (category, address:port, verdict, result) of the targets matching
v_rows() { v_py "$1" "sorted(set((t['category'], '%s:%d' % (t['address'], t['port']), t['verdict'], t['result']) for r in d['runs'] for t in r['targets'] if $2))"; }

# v_rule_handle CHAIN TAG: the handle of our rule with comment sandwall:TAG
v_rule_handle() { hnft -a list chain inet sandwall "$1" | sed -n "s/.*comment \"sandwall:$2\" # handle \([0-9]*\).*/\1/p"; }

verify_11_sbx_none() { v_run _verify_11; }
_verify_11() {
	local conf0 j n sink h
	V_CONF=$(v_sbx_conf sbxnone "[sandbox agents]
interfaces = docker0
egress = none")
	conf0=$(v_conf sbxnone0)
	# 1. the table of a config without the policy: the unlisted
	#    destination is reached from docker0 (the check can fail)
	apply_ok "$conf0" || return 1
	v_verify "table without the sandbox policy" 1 --json
	j="$V_DIR/nopolicy.json"; cp "$SW_OUT" "$j"
	n=$(v_rows "$j" "t['verdict'] == 'FAIL'")
	sink=$(v_sbx "$j" agents unlisted)
	[[ $sink == 192.0.2.* ]] && ok "the sink: $sink" || bad "no sink address in the sandbox record: '$sink'"
	# ([verify] canary 203.0.113.10:80 is must-block for agents: reached too)
	[ "$n" = "[[\"egress\", \"$sink:80\", \"FAIL\", \"reached\"], [\"egress\", \"203.0.113.10:80\", \"FAIL\", \"open\"]]" ] &&
		ok "the only FAILs: egress $sink:80 reached, the canary open under egress none" ||
		bad "FAIL rows without the policy: $n"
	[ "$(v_sbx "$j" agents verdict)" = "not held" ] && ok "sandbox agents: not held" || bad "sandbox agents: $(v_sbx "$j" agents verdict)"
	v_verify "table without the sandbox policy (text)" 1
	v_fail_lines "$SW_OUT" | grep -qxF "egress $sink:80" && ok "the text names FAIL egress $sink:80" ||
		{ bad "no FAIL row egress $sink:80"; show "$SW_OUT" 60; }
	grep -qE '^  agents +egress none +NOT HELD' "$SW_OUT" && ok "text: sandbox agents NOT HELD" ||
		{ bad "no 'agents ... NOT HELD' line"; grep -A3 '^sandboxes:' "$SW_OUT" | show -; }

	# 2. the right table: held, counted by egress_agents, from docker0 only
	apply_ok "$V_CONF" || return 1
	v_verify "egress none" 0 --json --expect-open 203.0.113.10:80
	j="$V_DIR/held.json"; cp "$SW_OUT" "$j"
	n=$(v_py "$j" "[(r['link'], sorted(set(t.get('sandbox', '-') for t in r['targets']))) for r in d['runs']]")
	[ "$n" = '[["docker0", ["-", "agents"]], ["br-0a1b2c3d4e5f", ["-"]]]' ] &&
		ok "agents rows only in the docker0 run: $n" || bad "sandbox rows per run: $n"
	n=$(v_rows "$j" "t.get('sandbox') == 'agents'")
	[ "$n" = "[[\"egress\", \"$sink:80\", \"blocked\", \"counted\"], [\"egress\", \"203.0.113.10:80\", \"blocked\", \"timeout\"]]" ] &&
		ok "docker0: the canary is must-block under egress none, the sink blocked and counted: $n" || bad "agents rows: $n"
	n=$(v_rows "$j" "t['category'] == 'expect-open'")
	[ "$n" = '[["expect-open", "203.0.113.10:80", "open", "open"]]' ] && ok "br-0a1b2c3d4e5f: the canary open" || bad "canary rows: $n"
	n=$(v_py "$j" "[t['counter'] for r in d['runs'] for t in r['targets'] if t.get('attack') == 'egress']")
	[ "$n" = '["egress_agents"]' ] && ok "counted by egress_agents" || bad "egress counters: $n"
	[ "$(v_sbx "$j" agents verdict)" = held ] && [ "$(v_sbx "$j" agents unlisted_blocked)" = 1 ] &&
		ok "sandbox agents: held (unlisted blocked 1)" || bad "sandbox agents: $(v_py "$j" "d['sandboxes']")"
	[ "$(v_py "$V_DIR/verify.json" "[s['verdict'] for s in d['sandboxes']]")" = '["held"]' ] &&
		ok "verify.json records the sandbox verdict" || bad "verify.json sandboxes: $(v_py "$V_DIR/verify.json" "d.get('sandboxes')")"
	v_verify "egress none (text)" 0
	grep -qE '^  agents +egress none +held \(1 run' "$SW_OUT" && ok "text: $(grep -E '^  agents ' "$SW_OUT" | tr -s ' ')" ||
		{ bad "no 'agents ... held' line"; grep -A3 '^sandboxes:' "$SW_OUT" | show -; }
	# the receipt reads the per-sandbox verdicts back (strict reader)
	v_sw -c "$V_CONF" receipt --json
	n=$(v_py "$SW_OUT" "[(s['name'], s['egress'], s['verdict'], s['unlisted_blocked']) for s in d['verify']['sandboxes']]")
	[ "$n" = '[["agents", "none", "held", 1]]' ] && ok "receipt --json: verify.sandboxes $n" || bad "receipt sandboxes: $n"
	n=$(v_py "$SW_OUT" "[(g['name'], g['why']) for g in d['guarded']['links']]")
	[ "$n" = '[["docker0", "pattern"], ["br-0a1b2c3d4e5f", "pattern"]]' ] && ok "receipt --json: guarded links with why $n" || bad "receipt guarded links: $n"
	v_sw -c "$V_CONF" receipt
	grep -qx '  sandbox         agents (egress none): held' "$SW_OUT" && ok "receipt: sandbox agents (egress none): held" ||
		{ bad "receipt text has no sandbox line"; show "$SW_OUT" 30; }

	# 3. the policy's last rule (goto block_egress_agents) deleted
	h=$(v_rule_handle sbx_agents sbx-agents-egress)
	[ -n "$h" ] || { bad "no rule sandwall:sbx-agents-egress"; hnft list chain inet sandwall sbx_agents | show - 20; return 1; }
	hnft delete rule inet sandwall sbx_agents handle "$h" || { bad "could not delete the rule"; return 1; }
	ok "deleted rule sandwall:sbx-agents-egress (handle $h)"
	v_verify "the egress rule deleted" 1 --json
	n=$(v_rows "$SW_OUT" "t['verdict'] == 'FAIL'")
	[ "$n" = "[[\"egress\", \"$sink:80\", \"FAIL\", \"reached\"], [\"egress\", \"203.0.113.10:80\", \"FAIL\", \"open\"]]" ] &&
		ok "FAIL: egress $sink:80 reached, the canary open" || bad "FAIL rows: $n"
	v_sw -c "$V_CONF" receipt
	grep -qx '  sandbox         agents (egress none): NOT HELD' "$SW_OUT" && ok "receipt: sandbox agents NOT HELD" ||
		{ bad "receipt text: no NOT HELD sandbox line"; show "$SW_OUT" 30; }
	apply_ok "$V_CONF" || return 1
	v_verify "repaired" 0
	# the sink and the throwaway links are gone
	n=$(ip -n "$H" -o link show | grep -c 'swv' || true)
	[ "$n" = 0 ] && ok "no swv* link left in the host namespace" || bad "$n swv* links left"
	return 0
}

verify_12_sbx_allow() { v_run _verify_12; }
_verify_12() {
	local j n sink
	V_CONF=$(v_sbx_conf sbxallow "[sandbox web]
interfaces = br-*
egress = allowlist
allow = 203.0.113.10 tcp/80, 192.0.2.200 tcp/80, 169.254.169.254 tcp/80")
	apply_ok "$V_CONF" || return 1
	# a policy never opens a global block: the listed metadata stays a must-block target
	v_verify "allowlist" 0 --json --expect-open 203.0.113.10:80 --expect-open 198.51.100.10:80
	j="$V_DIR/held.json"; cp "$SW_OUT" "$j"
	sink=$(v_sbx "$j" web unlisted)
	n=$(v_rows "$j" "t.get('sandbox') == 'web'")
	[ "$n" = "[[\"allowed\", \"192.0.2.200:80\", \"unreachable\", \"timeout\"], [\"egress\", \"$sink:80\", \"blocked\", \"counted\"], [\"egress\", \"198.51.100.10:80\", \"blocked\", \"timeout\"]]" ] &&
		ok "web: unlisted blocked and counted, an unlisted canary blocked, a listed but dead address reported unreachable" || bad "web rows: $n"
	n=$(v_py "$j" "sorted(set((r['link'], t['address'], t['verdict']) for r in d['runs'] for t in r['targets'] if t['category'] == 'expect-open'))")
	[ "$n" = '[["br-0a1b2c3d4e5f", "203.0.113.10", "open"], ["docker0", "198.51.100.10", "open"], ["docker0", "203.0.113.10", "open"]]' ] &&
		ok "--expect-open of the listed 203.0.113.10:80 passes from the sandbox; both from docker0" || bad "canary rows: $n"
	n=$(v_py "$j" "sorted(set(t['verdict'] for r in d['runs'] for t in r['targets'] if t['address'] == '169.254.169.254' and t['port'] == 80 and 'attack' not in t))")
	[ "$n" = '["blocked"]' ] && ok "169.254.169.254:80 listed by the policy, still blocked" || bad "listed metadata: $n"
	[ "$(v_py "$j" "[(s['verdict'], s['allowed_unreachable']) for s in d['sandboxes']]")" = '[["held", 1]]' ] &&
		ok "sandbox web: held, 1 listed address unreachable (a report, not a failure)" || bad "sandboxes: $(v_py "$j" "d['sandboxes']")"
	# a listed address that answers is reported open
	v_sbx_conf sbxallow2 "[sandbox web]
interfaces = br-*
egress = allowlist
allow = 198.51.100.10 tcp/80" >/dev/null
	V_CONF="$SWT_TMP/v-sbxallow2.conf"
	apply_ok "$V_CONF" || return 1
	v_verify "allowlist, a live listed address" 0 --json
	n=$(v_rows "$SW_OUT" "t['category'] == 'allowed'")
	[ "$n" = '[["allowed", "198.51.100.10:80", "open", "open"]]' ] && ok "198.51.100.10:80 listed and reported open" || bad "allowed rows: $n"
	[ "$(v_sbx "$SW_OUT" web allowed_open)" = 1 ] && ok "allowed_open 1" || bad "allowed_open $(v_sbx "$SW_OUT" web allowed_open)"
	# the sink added to the policy's set: it gets through, verify names it
	hnft add element inet sandwall sbx_web_allow4 "{ $sink . tcp . 80 }" || { bad "could not add $sink to sbx_web_allow4"; return 1; }
	ok "tamper: $sink . tcp . 80 added to sbx_web_allow4"
	v_verify "the sink allowed by tampering" 1 --json
	n=$(v_rows "$SW_OUT" "t['verdict'] == 'FAIL'")
	[ "$n" = "[[\"egress\", \"$sink:80\", \"FAIL\", \"reached\"]]" ] && ok "FAIL: egress $sink:80 reached" || bad "FAIL rows: $n"
	[ "$(v_sbx "$SW_OUT" web verdict)" = "not held" ] && ok "sandbox web: not held" || bad "sandbox web: $(v_sbx "$SW_OUT" web verdict)"
	# a table from a config without the policy
	apply_ok "$(v_conf sbxallow0)" || return 1
	v_verify "table without the allowlist policy" 1 --json
	n=$(v_rows "$SW_OUT" "t['verdict'] == 'FAIL'")
	[ "$n" = "[[\"egress\", \"$sink:80\", \"FAIL\", \"reached\"], [\"egress\", \"203.0.113.10:80\", \"FAIL\", \"open\"]]" ] &&
		ok "FAIL: egress $sink:80 reached, the unlisted canary open" || bad "FAIL rows: $n"
	return 0
}

verify_13_sbx_sources() { v_run _verify_13; }
_verify_13() {
	local j n
	V_CONF=$(v_sbx_conf sbxsrc "[sandbox one]
sources = 172.17.3.0/24
egress = none")
	apply_ok "$V_CONF" || return 1
	v_verify "a sandbox by source" 0 --json
	j="$V_DIR/held.json"; cp "$SW_OUT" "$j"
	n=$(v_py "$j" "[(r['link'], r['from'].split(' as ')[1].split('/')[0].startswith('172.17.3.'), r['passed']) for r in d['runs'] if any(t.get('sandbox') == 'one' for t in r['targets'])]")
	[ "$n" = '[["docker0", true, true]]' ] && ok "one extra docker0 run from inside 172.17.3.0/24" || bad "runs of sandbox one: $n"
	[ "$(v_sbx "$j" one verdict)" = held ] && ok "sandbox one: held" || bad "sandbox one: $(v_py "$j" "d['sandboxes']")"
	apply_ok "$(v_conf sbxsrc0)" || return 1
	v_verify "table without the source policy" 1 --json
	[ "$(v_sbx "$SW_OUT" one verdict)" = "not held" ] && ok "sandbox one: not held without its policy" || bad "sandbox one: $(v_sbx "$SW_OUT" one verdict)"
	return 0
}

# a Calico-style routed veth (rveth0, 172.29.0.5/32) and a micro-VM tap
# (mvm3, 172.30.0.1/30): both guarded by auto
verify_14_routed_tap() { v_run _verify_14; }
_verify_14() {
	local j n ns=${SWT_PREFIX}v14 h
	ip netns add "$ns" && V_UNDO+=("ip netns del '$ns'") &&
	ip -n "$H" link add rveth0 type veth peer name eth0 netns "$ns" && V_UNDO+=("ip -n '$H' link del rveth0") &&
	ip -n "$H" link set rveth0 up && ip -n "$ns" link set eth0 up && ip -n "$ns" addr add 172.29.0.5/32 dev eth0 &&
	ip -n "$H" route add 172.29.0.5/32 dev rveth0 &&
	ip -n "$H" tuntap add dev mvm3 mode tap && V_UNDO+=("ip -n '$H' link del mvm3") &&
	ip -n "$H" addr add 172.30.0.1/30 dev mvm3 && ip -n "$H" link set mvm3 up ||
		{ bad "could not build rveth0 / mvm3"; return 1; }
	V_CONF=$(v_conf auto guard.interfaces=auto)
	# without the table: every throwaway run reaches what it must not
	v_verify "no table" 1 --json
	j="$V_DIR/none.json"; cp "$SW_OUT" "$j"
	n=$(v_py "$j" "sorted((r['kind'], r['passed']) for r in d['runs'])")
	[ "$n" = '[["bridge", false], ["bridge", false], ["routed veth", false], ["tap", false]]' ] &&
		ok "runs without the table: $n" || bad "runs without the table: $n"
	n=$(v_py "$j" "sorted(set(t['category'] for r in d['runs'] if r['kind'] in ('routed veth', 'tap') for t in r['targets'] if t['verdict'] == 'FAIL'))")
	[[ $n == *'"metadata"'* && $n == *'"gateways"'* && $n == *'"host"'* ]] &&
		ok "through the throwaway routed veth and tap: metadata, gateways, host reached without the table" ||
		bad "FAIL categories of the routed/tap runs: $n"
	apply_ok "$V_CONF" || return 1
	v_verify "interfaces = auto" 0 --json
	j="$V_DIR/held.json"; cp "$SW_OUT" "$j"
	n=$(v_py "$j" "sorted((r['kind'], r['why'], r['passed']) for r in d['runs'])")
	[ "$n" = '[["bridge", "bridge", true], ["bridge", "bridge", true], ["routed veth", "routed veth", true], ["tap", "tap", true]]' ] &&
		ok "runs: $n" || bad "runs: $n"
	n=$(v_py "$j" "sorted((g['name'], g['kind'], g['why'], g['run'] is not None) for g in d['guarded'])")
	[ "$n" = '[["br-0a1b2c3d4e5f", "bridge", "bridge", true], ["docker0", "bridge", "bridge", true], ["mvm3", "tap", "tap", true], ["rveth0", "veth", "routed veth", true]]' ] &&
		ok "guarded links with why, each probed: $n" || bad "guarded: $n"
	# one numbering: runs[].run counts from 1, and guarded[].run names a run by it
	n=$(v_py "$j" "[[r['run'] for r in d['runs']] == list(range(1, len(d['runs']) + 1)), sorted((g['name'], [r['kind'] for r in d['runs'] if r['run'] == g['run']]) for g in d['guarded'])]")
	[ "$n" = '[true, [["br-0a1b2c3d4e5f", ["bridge"]], ["docker0", ["bridge"]], ["mvm3", ["tap"]], ["rveth0", ["routed veth"]]]]' ] &&
		ok "runs numbered from 1; each guarded link names the run that probed it: $n" || bad "run numbers: $n"
	n=$(v_py "$j" "[r['from'] for r in d['runs'] if r['kind'] != 'bridge']")
	info "routed runs: $n"
	[[ $n == *'172.29.0.'* && $n == *'172.30.0.'* ]] && ok "the throwaway probes sit next to rveth0's and mvm3's addresses" || bad "probe addresses: $n"
	n=$(v_py "$j" "sorted(set(t['verdict'] for r in d['runs'] if r['kind'] != 'bridge' for t in r['targets'] if t['category'] == 'spoofed'))")
	[ "$n" = '["blocked"]' ] && ok "priming through the routed veth and the tap: blocked (counted)" || bad "spoofed verdicts of routed runs: $n"
	v_verify "interfaces = auto (text)" 0
	grep -qE '^  rveth0 +veth +routed veth +probed \(run [0-9]+\)' "$SW_OUT" && grep -qE '^  mvm3 +tap +tap +probed' "$SW_OUT" &&
		ok "text lists rveth0 (routed veth) and mvm3 (tap) as probed" || { bad "guarded links text"; grep -A6 '^guarded links:' "$SW_OUT" | show -; }
	# verify's throwaway links take the path of the host's real ones: a
	# neutral name (no runtime pattern), guarded by kind from the first
	# packet; breaking one kind's classification fails that run only
	n=$(v_py "$j" "sorted(r['link'] for r in d['runs'] if r['kind'] != 'bridge')")
	[[ $n =~ ^\[\"swv[0-9]+\",\ \"swv[0-9]+\"\]$ ]] && ok "the throwaway links have neutral names: $n" ||
		{ bad "throwaway names: $n"; return 1; }
	h=$(hnft -a list chain inet sandwall prerouting | sed -n 's/.*comment "sandwall:[a-z]*-tap" # handle \([0-9]*\).*/\1/p' | head -n1)
	[ -n "$h" ] && hnft delete rule inet sandwall prerouting handle "$h" ||
		{ bad "no tap kind rule in prerouting"; hnft -a list chain inet sandwall prerouting | show - 20; return 1; }
	ok "tamper: the tap kind rule (meta iifkind \"tun\" meta iiftype ether) deleted"
	v_verify "taps' kind unguarded" 1 --json
	n=$(v_py "$SW_OUT" "sorted((r['kind'], r['passed']) for r in d['runs'])")
	[ "$n" = '[["bridge", true], ["bridge", true], ["routed veth", true], ["tap", false]]' ] && ok "only the tap run fails: $n" || bad "runs: $n"
	hnft flush set inet sandwall guard_kinds || { bad "could not flush guard_kinds"; return 1; }
	ok "tamper: guard_kinds emptied too"
	v_verify "the veth kind unguarded too" 1 --json
	n=$(v_py "$SW_OUT" "sorted((r['kind'], r['passed']) for r in d['runs'])")
	[ "$n" = '[["bridge", true], ["bridge", true], ["routed veth", false], ["tap", false]]' ] && ok "the routed veth and tap runs fail: $n" || bad "runs: $n"
	apply_ok "$V_CONF" || return 1
	n=$(ip -n "$H" -o link show | grep -c 'swv' || true)
	[ "$n" = 0 ] && ok "no throwaway link left" || bad "$n throwaway links left"
	return 0
}

verify_15_sbx_budget() { v_run _verify_15; }
_verify_15() {
	local j n h v6
	V_CONF=$(v_sbx_conf sbxbudget "[sandbox agents]
interfaces = docker0
egress = none
budget = 3/minute")
	apply_ok "$V_CONF" || return 1
	v_verify "budget 3/minute" 0 --json
	j="$V_DIR/held.json"; cp "$SW_OUT" "$j"
	n=$(v_py "$j" "[(t['category'], t['verdict'], t['result'], t['counter'], t['counted'] >= 1) for r in d['runs'] for t in r['targets'] if t.get('attack') == 'budget']")
	[ "$n" = '[["budget", "blocked", "counted", "budget_agents", true]]' ] && ok "4 connections at once: counted by budget_agents" || bad "budget rows: $n"
	n=$(v_py "$j" "[(s['verdict'], s['budget_counted'], s['budget_failed']) for s in d['sandboxes']]")
	[ "$n" = '[["held", 1, 0]]' ] && ok "sandbox agents: held, budget counted" || bad "sandboxes: $n"
	v_verify "budget (text)" 0
	grep -qE '^  agents .*budget 3: one over it counted 1, FAIL 0' "$SW_OUT" && ok "text: $(grep -E '^  agents ' "$SW_OUT" | tr -s ' ')" ||
		{ bad "no budget in the sandbox line"; grep -A2 '^sandboxes:' "$SW_OUT" | show -; }
	# the budget's jump deleted: nothing counts the connection over it
	h=$(v_rule_handle sbx_agents "sbx-agents-budget")
	[ -n "$h" ] || { bad "no rule sandwall:sbx-agents-budget"; hnft list chain inet sandwall sbx_agents | show - 20; return 1; }
	hnft delete rule inet sandwall sbx_agents handle "$h" || { bad "could not delete the budget rule"; return 1; }
	ok "deleted rule sandwall:sbx-agents-budget (the jump to chain sbx_agents_budget)"
	v_verify "budget rules deleted" 1 --json
	n=$(v_rows "$SW_OUT" "t['verdict'] == 'FAIL'")
	[ "$n" = '[["budget", "192.0.2.77:80", "FAIL", "uncounted"]]' ] && ok "FAIL: budget 192.0.2.77:80 uncounted" || bad "FAIL rows: $n"
	[ "$(v_sbx "$SW_OUT" agents verdict)" = "not held" ] && ok "sandbox agents: not held" || bad "sandbox agents: $(v_sbx "$SW_OUT" agents verdict)"
	return 0
}

# v_probe_left SET: the elements of set SET that are the last verify --json's
# probe addresses (its runs' sources), one a line
v_probe_left() {
	local src
	for src in $(v_py "$SW_OUT" "' '.join(s.split('/')[0] for r in d['runs'] for s in r['sources'])"); do
		hnft list set inet sandwall "$1" 2>/dev/null | grep -oF -- "$src" | sed "s/^/$1: /"
	done
}

verify_16_sbx_conns() { v_run _verify_16; }
_verify_16() {
	local j n h left i r
	V_CONF=$(v_sbx_conf sbxconns "[sandbox agents]
interfaces = docker0
egress = none
max_connections = 8")
	apply_ok "$V_CONF" || return 1
	v_verify "max_connections 8" 0 --json
	j="$V_DIR/held.json"; cp "$SW_OUT" "$j"
	n=$(v_py "$j" "[(t['category'], t['verdict'], t['result'], t['counter'], t['counted'] >= 1) for r in d['runs'] for t in r['targets'] if t.get('attack') == 'max_connections']")
	[ "$n" = '[["max_connections", "blocked", "counted", "connections_agents", true]]' ] &&
		ok "9 connections at once: counted by connections_agents" || bad "max_connections rows: $n"
	n=$(v_py "$j" "[(s['verdict'], s['max_connections_counted'], s['max_connections_failed']) for s in d['sandboxes']]")
	[ "$n" = '[["held", 1, 0]]' ] && ok "sandbox agents: held, max_connections counted" || bad "sandboxes: $n"
	# the probe tripped the quarantine: verify undid it and the count
	left=$(v_probe_left sbx_agents_q4; v_probe_left sbx_agents_conns4)
	[ -z "$left" ] && ok "no quarantine and no conns element of the probe's address left" ||
		{ bad "left behind: $(echo $left)"; hnft list set inet sandwall sbx_agents_q4 | show - 10; }
	v_verify "max_connections (text)" 0
	grep -qE '^  agents .*max_connections 8: one over it counted 1, FAIL 0' "$SW_OUT" &&
		ok "text: $(grep -E '^  agents ' "$SW_OUT" | tr -s ' ')" ||
		{ bad "no max_connections in the sandbox line"; grep -A2 '^sandboxes:' "$SW_OUT" | show -; }
	# through sandwalld (the releases go through its control socket)
	v_start "$V_CONF" || return 1
	v_verify "max_connections, sandwalld up" 0 --json
	left=$(v_probe_left sbx_agents_q4; v_probe_left sbx_agents_conns4)
	[ -z "$left" ] && ok "sandwalld up: nothing of the probe's address left" || bad "left behind: $(echo $left)"
	# the connection over the cap to the sink tripped it (sandwalld's
	# line; the run receipt leaves verify's own quarantines out)
	for i in $(seq 1 40); do grep -q 'event=quarantine sandbox=agents .* dst=192\.0\.2\.77 .*on=connections' "$V_DLOG" && break; sleep 0.05; done
	grep -q 'event=quarantine sandbox=agents .* dst=192\.0\.2\.77 .*on=connections' "$V_DLOG" &&
		ok "sandwalld saw the probe trip it: $(grep 'event=quarantine.*dst=192\.0\.2\.77' "$V_DLOG" | tail -n1 | sed 's/^sandwalld: //')" ||
		{ bad "no event=quarantine dst=192.0.2.77 on=connections"; show "$V_DLOG" 20; }
	# a run: its preflight and postflight verify trip it too; its receipt
	# does not list those quarantines as the sandbox's
	r="$V_DIR/run.json"
	v_sw --timeout "$V_TIMEOUT" -c "$V_CONF" run --label vconns --receipt "$r" -- true
	# (its verdict is not this test's: that verify's sink makes no gap of
	# the window is run_07_sink's, in test_run.sh)
	[ -s "$r" ] && ok "run -> exit $SW_RC, receipt written" || { bad "run -> exit $SW_RC, no receipt"; tail -n 25 "$SW_ERR" | show - 25; }
	n=$(grep -c '"event":"quarantine".*"dst":"192.0.2.77"' "$V_DIR/events.jsonl")
	[ "${n:-0}" -ge 3 ] && ok "journal: $n quarantine lines of verify's probes" || bad "journal: $n quarantine lines to 192.0.2.77"
	[ "$(v_py "$r" "d['quarantines']")" = '[]' ] && ! grep -q QUARANTINED "$r.txt" &&
		ok "the run's receipt lists no quarantine" || bad "receipt quarantines: $(v_py "$r" "d.get('quarantines')")"
	v_stop TERM
	# the conns jump deleted: nothing counts the connection over it
	h=$(v_rule_handle sbx_agents "sbx-agents-conns")
	[ -n "$h" ] || { bad "no rule sandwall:sbx-agents-conns"; hnft list chain inet sandwall sbx_agents | show - 20; return 1; }
	hnft delete rule inet sandwall sbx_agents handle "$h" || { bad "could not delete the conns rule"; return 1; }
	ok "deleted rule sandwall:sbx-agents-conns (the jump to chain sbx_agents_conns)"
	v_verify "conns rules deleted" 1 --json
	n=$(v_rows "$SW_OUT" "t['verdict'] == 'FAIL'")
	[ "$n" = '[["max_connections", "192.0.2.77:80", "FAIL", "uncounted"]]' ] && ok "FAIL: max_connections 192.0.2.77:80 uncounted" || bad "FAIL rows: $n"
	[ "$(v_sbx "$SW_OUT" agents verdict)" = "not held" ] && ok "sandbox agents: not held" || bad "sandbox agents: $(v_sbx "$SW_OUT" agents verdict)"
	v_verify "conns rules deleted (text)" 1
	grep -qE '^max_connections +192\.0\.2\.77:80 +FAIL' "$SW_OUT" && ok "text: a FAIL row names max_connections" ||
		{ bad "no max_connections FAIL row"; show "$SW_OUT" 40; }
	return 0
}

# ---------------------------------------------------------------- 17
# A sandbox's max_connections counts verify's own probes too. When the
# canaries have used up the count, the probes of the targets that must be
# blocked would be cut off by the count and the quarantine, time out, and
# pass for blocked although their rules are gone: verify starts the count
# again before them and fails the run when what cuts the probe off grew.
verify_17_sbx_cutoff() { v_run _verify_17; }
_verify_17() {
	local n h c
	V_CONF=$(v_sbx_conf sbxcut "[sandbox agents]
interfaces = docker0
max_connections = 3")
	apply_ok "$V_CONF" || return 1
	v_verify "max_connections 3, egress open, every rule there" 0 --json
	[ "$(v_py "$SW_OUT" "[r.get('probe_cut_off_by') for r in d['runs']]")" = '[null, null]' ] &&
		ok "no run's probe was cut off" || bad "cut off: $(v_py "$SW_OUT" "[r.get('probe_cut_off_by') for r in d['runs']]")"
	# the host and gateways rules deleted, everywhere
	for c in guard guard_input guard_nat; do
		for h in $(hnft -a list chain inet sandwall "$c" 2>/dev/null |
			sed -n 's/.*comment "sandwall:\(host\|gateways4\)" # handle \([0-9]*\).*/\2/p'); do
			hnft delete rule inet sandwall "$c" handle "$h"
		done
	done
	hnft list table inet sandwall | grep -qE 'comment "sandwall:(host|gateways4)"' &&
		{ bad "a host or gateways rule is left"; return 1; }
	ok "deleted every sandwall:host and sandwall:gateways4 rule"
	v_verify "host and gateways rules deleted" 1 --json
	n=$(v_py "$SW_OUT" "[(r['link'], r['passed']) for r in d['runs']]")
	[ "$n" = '[["docker0", false], ["br-0a1b2c3d4e5f", false]]' ] &&
		ok "both runs NOT HELD, docker0's too: $n" || bad "runs: $n"
	n=$(v_py "$SW_OUT" "[r.get('probe_cut_off_by') or len([t for t in r['targets'] if t['verdict'] == 'FAIL']) for r in d['runs'] if r['link'] == 'docker0']")
	[ "$n" != '[0]' ] && ok "docker0's run: cut off or FAIL rows: $n" || bad "docker0's run shows nothing: $n"
	# max_connections = 1: a follow-up takes two connections at once (the
	# primed port's and its control's), so the probe is cut off whatever
	# the batches: verify says so and does not hold
	V_CONF=$(v_sbx_conf sbxcut1 "[sandbox agents]
interfaces = docker0
max_connections = 1")
	apply_ok "$V_CONF" >/dev/null || return 1
	v_verify "max_connections 1" 1 --json
	n=$(v_py "$SW_OUT" "[(r['link'], r['passed'], r.get('probe_cut_off_by')) for r in d['runs']]")
	[ "$n" = '[["docker0", false, "connections_agents"], ["br-0a1b2c3d4e5f", true, null]]' ] &&
		ok "docker0's run not held, its probe cut off by connections_agents: $n" || bad "runs: $n"
	v_verify "max_connections 1 (text)" 1
	grep -q "^bridge docker0 .*: the probe's own address was cut off (connections_agents)" "$SW_OUT" &&
		ok "text: $(grep -m1 "the probe's own address was cut off" "$SW_OUT" | cut -c1-120)" ||
		{ bad "text does not say the probe was cut off"; show "$SW_OUT" 60; }
	return 0
}
