# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Eval runs (issue 26): `sandwall run` opens a run with a preflight verify,
# runs the command, closes with a postflight verify and writes the run's
# receipt (JSON and text) over its window. A run counts (contained) only
# when every fact of it holds: each test below breaks one and sees the
# verdict and the exit status follow.
#
# Uses the helpers of test_verify.sh (v_run, v_conf, v_start, v_stop, v_sw, v_py).

register_test run_01_contained   "run --label t1 -- CMD: preflight and postflight held, CMD ran with SANDWALL_RUN, c1's metadata attempt in the receipt, verdict contained, exit 0; CMD failing gives exit 4 and its status"
register_test run_02_preflight   "a run whose preflight does not hold (no table; no daemon) does not start CMD: exit 1, receipt not contained naming the preflight"
register_test run_03_removed     "the table deleted during a run (owner = no): not contained (exit 3), the gap named with who; with owner+persist the delete is refused and the run stays contained; the daemon killed mid-run: not contained; a timeout kills CMD (exit 4, timed_out)"
register_test run_05_quarantine  "quarantine_on = metadata: after c1's metadata attempt its internet fetch fails and c3 on the same bridge still works; a forged c3 source from c1 quarantines nobody; sandwalld says event=quarantine; release restores c1; the run's receipt lists the quarantine and the run's end releases it"
register_test run_06_max_conns   "max_connections = 3: without the table c1 opens 5; in a run c1's 4th new connection is dropped and quarantines c1 (event=max-connections, event=quarantine on=connections), c3 on the same bridge still works, release restores c1; the receipt says max_connections exceeded; the next run's start gives c1 its 3 again"
register_test run_07_sink        "an egress = none sandbox: verify's sink (a routed veth) is announced to sandwalld (event=verify-link): run -- true is contained with no gap and sandwalld logs no event=unguarded for verify's links; a routed veth named like verify's (swv123k) that no verify announced is reported unguarded and makes the run not contained"
register_test run_04_start_stop  "run start --label h1 / run stop h1: a receipt over the window; stop again refused; a bad label, a missing command, an unknown option refused (exit 2)"

# r_run ARGS...: sandwall run (verify's fast probes) in the host ns
r_run() { v_sw --timeout "$V_TIMEOUT" -c "$V_CONF" run "$@"; }

# ---------------------------------------------------------------- 1
run_01_contained() { v_run _run_01; }
_run_01() {
	local rc r="$V_DIR/t1.json" id
	V_CONF=$(v_conf run1)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	# the attack works without the table: c1 reaches the metadata service
	reach "$C1" http://169.254.169.254/
	apply_ok "$V_CONF" || return 1
	v_start "$V_CONF" || return 1
	r_run --label t1 --receipt "$r" -- sh -c "echo \"\$SANDWALL_RUN\" > $V_DIR/env; ip netns exec $C1 curl -s -m 1 http://169.254.169.254/ >/dev/null; ip netns exec $C1 curl -s -m 2 -o /dev/null http://203.0.113.10/; exit 0"
	[ "$SW_RC" -eq 0 ] && ok "run -> exit 0 (contained, CMD exited 0)" || { bad "run -> exit $SW_RC, expected 0"; show "$SW_ERR" 40; }
	[ -s "$r" ] && [ -s "$r.txt" ] && ok "receipt written: $(basename "$r") and .txt" || { bad "no receipt at $r"; return 1; }
	id=$(v_py "$r" "d['run']['id']")
	[ "$(cat "$V_DIR/env" 2>/dev/null)" = "$id" ] && ok "CMD saw SANDWALL_RUN=$id" || bad "CMD's SANDWALL_RUN '$(cat "$V_DIR/env" 2>/dev/null)' is not the run id '$id'"
	[ "$(v_py "$r" "[d['verdict'], d['contained'], d['preflight']['result'], d['postflight']['result'], d['run']['label'], d['run']['status']]")" = '["contained", true, "held", "held", "t1", 0]' ] &&
		ok "receipt: contained, preflight and postflight held, label t1, status 0" ||
		{ bad "receipt: $(v_py "$r" "[d['verdict'], d['reasons'], d['preflight']['result'], d['postflight']['result']]")"; }
	[ "$(v_py "$r" "sorted(set(a['category'] + ' ' + a['dst'] for s in d['sandboxes'] for a in s['attempts']))")" = '["metadata 169.254.169.254"]' ] &&
		ok "receipt: c1's metadata attempt listed (verify's own probes apart)" ||
		bad "receipt attempts: $(v_py "$r" "[(s['src'], [a['category'] + ' ' + a['dst'] for a in s['attempts']]) for s in d['sandboxes']]")"
	[ "$(v_py "$r" "sorted(set((f['dst'], f['dport'], f['verdict'], f['reply_bytes'] > 0) for s in d['sandboxes'] if s['src'] == '172.17.0.2' for f in s['flows']))")" = '[["203.0.113.10", 80, "allowed", true]]' ] &&
		ok "receipt: c1's internet flow allowed with bytes back ($(v_py "$r" "[f['reply_bytes'] for s in d['sandboxes'] for f in s['flows']]") bytes)" ||
		bad "receipt flows: $(v_py "$r" "[(s['src'], s['flows']) for s in d['sandboxes']]")"
	grep -q 'ALLOWED  203.0.113.10:80/tcp' "$r.txt" && ok "text: $(grep -m1 'ALLOWED' "$r.txt" | sed 's/^ *//')" || { bad "text lists no allowed flow"; show "$r.txt" 40; }
	[ "$(v_py "$r" "[len(d['config']['text']) > 0, len(d['ruleset']['text']) > 0, d['config']['sha256'] == __import__('hashlib').sha256(d['config']['text'].encode()).hexdigest(), d['ruleset']['sha256'] == __import__('hashlib').sha256(d['ruleset']['text'].encode()).hexdigest()]")" = '[true, true, true, true]' ] &&
		ok "receipt embeds the config and the ruleset, each with its sha256" || bad "config/ruleset not embedded with matching sha256"
	grep -q '^verdict           CONTAINED$' "$r.txt" && grep -q '^window            .*Z \.\. .*Z' "$r.txt" &&
		ok "text: $(grep '^window' "$r.txt")" || { bad "text receipt lacks the verdict or the window"; show "$r.txt" 30; }
	grep -q '"event":"run-start".*"run":"'"$id"'"' "$V_DIR/events.jsonl" && grep -q '"event":"run-stop".*"run":"'"$id"'"' "$V_DIR/events.jsonl" &&
		ok "journal: run-start and run-stop of $id" || bad "no run-start/run-stop lines in the journal"
	# signed: ssh-keygen -Y verify accepts the receipt and its text, and
	# refuses them after one changed byte; receipt --verify agrees
	local allowed="$V_DIR/allowed" who
	v_sw -c "$V_CONF" key --allowed-signers && cp "$SW_OUT" "$allowed"
	who=$(cut -d' ' -f1 "$allowed")
	if [ -s "$r.sig" ] && [ -s "$r.txt.sig" ] &&
	   ssh-keygen -Y verify -f "$allowed" -I "$who" -n sandwall-receipt -s "$r.sig" <"$r" >/dev/null 2>&1 &&
	   ssh-keygen -Y verify -f "$allowed" -I "$who" -n sandwall-receipt -s "$r.txt.sig" <"$r.txt" >/dev/null 2>&1; then
		ok "ssh-keygen -Y verify accepts the run receipt and its text ($who)"
	else
		bad "ssh-keygen -Y verify refused the run receipt (or no .sig)"; ls -l "$V_DIR" | show -
	fi
	v_sw -c "$V_CONF" receipt --verify "$r"
	[ "$SW_RC" -eq 0 ] && ok "receipt --verify: good" || { bad "receipt --verify -> exit $SW_RC"; show "$SW_ERR"; }
	cp "$r" "$V_DIR/changed.json"; cp "$r.sig" "$V_DIR/changed.json.sig"
	sed -i '0,/"contained"/s//"contained "/' "$V_DIR/changed.json"
	if ssh-keygen -Y verify -f "$allowed" -I "$who" -n sandwall-receipt -s "$V_DIR/changed.json.sig" <"$V_DIR/changed.json" >/dev/null 2>&1; then
		bad "ssh-keygen -Y verify accepted a changed receipt"
	else ok "ssh-keygen -Y verify refuses the receipt with one byte changed"; fi
	v_sw -c "$V_CONF" receipt --verify "$V_DIR/changed.json"
	[ "$SW_RC" -eq 1 ] && ok "receipt --verify: the changed receipt is bad (exit 1)" || bad "receipt --verify of a changed receipt -> exit $SW_RC"
	# CMD's own failure: still contained, exit 4, its status in the receipt
	r_run --label t1b --receipt "$V_DIR/t1b.json" -- sh -c 'exit 7'
	rc=$SW_RC
	[ "$rc" -eq 4 ] && [ "$(v_py "$V_DIR/t1b.json" "[d['verdict'], d['run']['status']]")" = '["contained", 7]' ] &&
		ok "CMD exit 7: run -> exit 4, receipt contained with status 7" ||
		{ bad "CMD exit 7: run -> exit $rc, receipt $(v_py "$V_DIR/t1b.json" "[d['verdict'], d['run']['status']]")"; show "$SW_ERR" 10; }
	return 0
}

# ---------------------------------------------------------------- 2
run_02_preflight() { v_run _run_02; }
_run_02() {
	local r="$V_DIR/p.json"
	V_CONF=$(v_conf run2)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	# 1. no daemon: nothing would repair the table: CMD is not started
	apply_ok "$V_CONF" || return 1
	r_run --receipt "$r" -- touch "$V_DIR/started"
	[ "$SW_RC" -eq 1 ] && ok "no daemon: run -> exit 1" || { bad "no daemon: run -> exit $SW_RC, expected 1"; show "$SW_ERR" 20; }
	[ ! -e "$V_DIR/started" ] && ok "no daemon: CMD not started" || bad "no daemon: CMD was started"
	v_py "$r" "d['reasons']" | grep -q 'sandwalld did not answer at the start' && [ "$(v_py "$r" "[d['verdict'], d['run']['started']]")" = '["not contained", false]' ] &&
		ok "receipt: not contained, not started, the daemon named" || bad "receipt: $(v_py "$r" "[d['verdict'], d['run']['started'], d['reasons']]")"
	# 2. the daemon runs a config with a typo: docker0 is not guarded, c1
	#    reaches the metadata service, the preflight says so
	V_CONF=$(v_conf run2typo "guard.interfaces=dokcer0 br-*")
	nsx "$H" nft delete table inet sandwall
	apply_ok "$V_CONF" >/dev/null
	v_start "$V_CONF" || return 1
	r_run --receipt "$r" -- touch "$V_DIR/started"
	[ "$SW_RC" -eq 1 ] && [ ! -e "$V_DIR/started" ] && ok "docker0 unguarded: run -> exit 1, CMD not started" ||
		{ bad "docker0 unguarded: run -> exit $SW_RC, started: $([ -e "$V_DIR/started" ] && echo yes || echo no)"; show "$SW_ERR" 20; }
	v_py "$r" "d['reasons']" | grep -q 'preflight verify did not hold (exit 1): the command was not started' &&
		ok "receipt names the preflight" || bad "receipt reasons: $(v_py "$r" "d['reasons']")"
	return 0
}

# ---------------------------------------------------------------- 3
run_03_removed() { v_run _run_03; }
_run_03() {
	local r="$V_DIR/rm.json" i
	V_CONF=$(v_conf run3 daemon.owner=no)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	apply_ok "$V_CONF" || return 1
	v_start "$V_CONF" || return 1
	# CMD deletes the table (nft, as root in the host ns); sandwalld repairs it
	r_run --receipt "$r" -- sh -c "nft delete table inet sandwall; sleep 1"
	[ "$SW_RC" -eq 3 ] && ok "table deleted mid-run: run -> exit 3" || { bad "table deleted mid-run: run -> exit $SW_RC, expected 3"; show "$SW_ERR" 30; }
	[ "$(v_py "$r" "d['verdict']")" = "not contained" ] && ok "receipt: not contained" || bad "receipt verdict: $(v_py "$r" "d['verdict']")"
	v_py "$r" "[g['kind'] + ' ' + g['what'] + ' ' + g['who'] for g in d['gaps']]" | grep -qE '(drift|table absent)' &&
		ok "the gap named: $(v_py "$r" "[g['kind'] + ': ' + g['what'] + ' (' + g['who'] + ')' for g in d['gaps']]")" ||
		bad "gaps: $(v_py "$r" "d['gaps']")"
	grep -q '^  because ' "$r.txt" && ok "text: $(grep -m1 '^  because' "$r.txt")" || { bad "text names no reason"; show "$r.txt" 30; }
	for i in $(seq 1 40); do table_exists && break; sleep 0.05; done
	v_stop TERM
	# owner+persist: the delete is refused, nothing changed, still contained
	V_CONF=$(v_conf run3own)
	apply_ok "$V_CONF" >/dev/null
	v_start "$V_CONF" || return 1
	r_run --receipt "$V_DIR/own.json" -- sh -c "nft delete table inet sandwall; exit 0"
	[ "$SW_RC" -eq 0 ] && [ "$(v_py "$V_DIR/own.json" "d['verdict']")" = "contained" ] && table_exists &&
		ok "owner+persist: the delete refused, the run contained" ||
		{ bad "owner+persist: run -> exit $SW_RC, $(v_py "$V_DIR/own.json" "[d['verdict'], d['reasons']]")"; }
	# the daemon killed mid-run: nothing watched: not contained, named
	r_run --receipt "$V_DIR/kill.json" -- sh -c "kill -9 $V_DPID; sleep 0.5"
	[ "$SW_RC" -eq 3 ] && v_py "$V_DIR/kill.json" "d['reasons']" | grep -q 'daemon not running\|did not answer at the end' &&
		ok "daemon killed mid-run: exit 3, $(v_py "$V_DIR/kill.json" "d['reasons'][0]")" ||
		{ bad "daemon killed mid-run: exit $SW_RC, $(v_py "$V_DIR/kill.json" "d['reasons']")"; show "$SW_ERR" 10; }
	V_DPID=""
	v_start "$V_CONF" || return 1
	# the timeout: SIGTERM to CMD, exit 4, timed_out in the receipt
	r_run --timeout 1s --receipt "$V_DIR/to.json" -- sleep 30
	[ "$SW_RC" -eq 4 ] && [ "$(v_py "$V_DIR/to.json" "[d['run']['timed_out'], d['run']['signal'], d['verdict']]")" = '[true, 15, "contained"]' ] &&
		ok "--timeout 1s: exit 4, killed by SIGTERM, timed_out, contained" ||
		{ bad "--timeout 1s: exit $SW_RC, $(v_py "$V_DIR/to.json" "[d['run']['timed_out'], d['run']['signal'], d['verdict'], d['reasons']]")"; show "$SW_ERR" 10; }
	return 0
}

# ---------------------------------------------------------------- 4
run_04_start_stop() { v_run _run_04; }
_run_04() {
	local r
	V_CONF=$(v_conf run4)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	apply_ok "$V_CONF" || return 1
	v_start "$V_CONF" || return 1
	r_run start --label h1
	[ "$SW_RC" -eq 0 ] && grep -q '^run .* label h1 open' "$SW_OUT" && ok "run start: $(head -n1 "$SW_OUT")" || { bad "run start -> exit $SW_RC"; show "$SW_OUT"; show "$SW_ERR" 20; return 1; }
	nsx "$C1" curl -s -m 1 -o /dev/null http://169.254.169.254/
	r_run stop h1
	[ "$SW_RC" -eq 0 ] && ok "run stop h1 -> exit 0" || { bad "run stop h1 -> exit $SW_RC"; show "$SW_ERR" 30; }
	r=$(ls "$V_DIR"/runs/*.receipt.json 2>/dev/null | head -n1)
	[ -n "$r" ] && [ "$(v_py "$r" "[d['verdict'], d['run']['label'], d['run']['wrapped']]")" = '["contained", "h1", false]' ] &&
		ok "receipt in the state directory: contained, label h1" || bad "receipt: ${r:-none}: $(v_py "${r:-/dev/null}" "d")"
	v_py "$r" "[a['dst'] for s in d['sandboxes'] for a in s['attempts']]" | grep -q 169.254.169.254 &&
		ok "the attempt between start and stop is in it" || bad "no attempt in the receipt"
	r_run stop h1
	[ "$SW_RC" -eq 2 ] && grep -q 'no open run' "$SW_ERR" && ok "stop again: exit 2 ($(head -n1 "$SW_ERR"))" || { bad "stop again -> exit $SW_RC"; show "$SW_ERR"; }
	r_run --label 'bad label' -- true
	[ "$SW_RC" -eq 2 ] && grep -q "bad --label" "$SW_ERR" && ok "bad label refused" || bad "bad label -> exit $SW_RC"
	r_run --label x
	[ "$SW_RC" -eq 2 ] && grep -q "no command" "$SW_ERR" && ok "missing command refused" || bad "missing command -> exit $SW_RC"
	r_run --frobnicate -- true
	[ "$SW_RC" -eq 2 ] && grep -q "unknown option" "$SW_ERR" && ok "unknown option refused" || bad "unknown option -> exit $SW_RC"
	return 0
}

# ---------------------------------------------------------------- 5
run_05_quarantine() { v_run _run_05; }
_run_05() {
	local n r="$V_DIR/q.json" i
	V_CONF=$(v_sbx_conf quarantine "[sandbox agents]
interfaces = docker0
quarantine_on = metadata")
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	# without the table: c1 reaches the metadata service and the internet
	reach "$C1" http://169.254.169.254/
	apply_ok "$V_CONF" || return 1
	v_start "$V_CONF" || return 1
	reach "$C1" http://203.0.113.10/
	reach "$C3" http://203.0.113.10/
	# c1 forges c3's address toward the metadata service: the port binding
	# drops it before it could trip anything: c3 is not cut off
	for i in 1 2 3; do _pb_forged_to "$C1" 172.17.0.3 169.254.169.254 80; done
	sleep 0.3
	reach "$C3" http://203.0.113.10/
	n=$(hnft list set inet sandwall sbx_agents_q4 | grep -c '172\.17\.0\.3')
	[ "$n" -eq 0 ] && ok "a forged 172.17.0.3 quarantined nobody" || bad "c3 was quarantined by c1's forged frames"
	# c1's own metadata attempt: blocked, and c1 is cut off
	blocked "$C1" http://169.254.169.254/
	blocked "$C1" http://203.0.113.10/
	reach "$C3" http://203.0.113.10/
	n=$(counter_packets quarantine_agents)
	[ "${n:-0}" -gt 0 ] && ok "quarantine_agents counted $n" || bad "quarantine_agents did not count"
	hnft list set inet sandwall sbx_agents_q4 | grep -q '172\.17\.0\.2' && ok "sbx_agents_q4 holds 172.17.0.2" ||
		bad "sbx_agents_q4: $(hnft list set inet sandwall sbx_agents_q4 | tr -d '\n\t')"
	for i in $(seq 1 40); do grep -q 'event=quarantine sandbox=agents' "$V_DLOG" && break; sleep 0.05; done
	grep -q 'event=quarantine sandbox=agents src=172.17.0.2 dst=169.254.169.254 .*iif=docker0' "$V_DLOG" &&
		ok "sandwalld: $(grep -m1 'event=quarantine' "$V_DLOG" | sed 's/^sandwalld: //')" ||
		{ bad "no event=quarantine line"; show "$V_DLOG"; }
	grep -q '"event":"quarantine".*"src":"172.17.0.2"' "$V_DIR/events.jsonl" && ok "journal: quarantine of 172.17.0.2" ||
		bad "journal has no quarantine line"
	# release: c1 works again
	v_sw -c "$V_CONF" release 172.17.0.2
	[ "$SW_RC" -eq 0 ] && grep -q '172.17.0.2 released' "$SW_OUT" && ok "release 172.17.0.2: $(cat "$SW_OUT")" ||
		{ bad "release -> exit $SW_RC"; show "$SW_OUT"; show "$SW_ERR"; }
	reach "$C1" http://203.0.113.10/
	grep -q '"event":"release".*"target":"172.17.0.2"' "$V_DIR/events.jsonl" && ok "journal: release with who" || bad "journal has no release line"
	v_sw -c "$V_CONF" release 172.17.0.2
	grep -q 'was not quarantined' "$SW_OUT" && ok "release again: not quarantined" || bad "release again: $(cat "$SW_OUT" "$SW_ERR")"
	# IPv6: the same, and released through the daemon
	blocked "$C1" "http://[fd00:ec2::254]/"
	blocked "$C1" "http://[2001:db8::10]/"
	v_sw -c "$V_CONF" release fd00:17::2
	[ "$SW_RC" -eq 0 ] && grep -q 'fd00:17::2 released' "$SW_OUT" && ok "release fd00:17::2" || { bad "release fd00:17::2 -> exit $SW_RC"; show "$SW_OUT"; show "$SW_ERR"; }
	reach "$C1" "http://[2001:db8::10]/"
	v_sw -c "$V_CONF" release 172.17.0.2 >/dev/null
	v_sw -c "$V_CONF" release 'not an address!'
	[ "$SW_RC" -eq 2 ] && ok "release of a bad target -> exit 2" || bad "release of a bad target -> exit $SW_RC"
	# inside a run: the receipt names the quarantine, the run's end releases it
	r_run --receipt "$r" -- sh -c "ip netns exec $C1 curl -s -m 1 -o /dev/null http://169.254.169.254/; exit 0"
	[ "$SW_RC" -eq 0 ] && ok "run with c1's metadata attempt: exit 0 (contained: a quarantine is the boundary working)" ||
		{ bad "run -> exit $SW_RC"; tail -n 30 "$SW_ERR" | show - 30; }
	[ "$(v_py "$r" "[q['src'] for q in d['quarantines']]")" = '["172.17.0.2"]' ] && ok "run receipt lists the quarantine of 172.17.0.2" ||
		bad "run receipt quarantines: $(v_py "$r" "d.get('quarantines')")"
	reach "$C1" http://203.0.113.10/
	return 0
}

# ---------------------------------------------------------------- 6
run_06_max_conns() { v_run _run_06; }
_run_06() {
	local i r1="$V_DIR/mc1.json" r2="$V_DIR/mc2.json"
	V_CONF=$(v_sbx_conf maxconns "[sandbox agents]
interfaces = docker0
max_connections = 3")
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	# without the table: c1 opens as many connections as it likes
	for i in 1 2 3 4 5; do reach "$C1" http://203.0.113.10/; done
	apply_ok "$V_CONF" || return 1
	v_start "$V_CONF" || return 1
	r_run start --label mc1 --receipt "$r1"
	[ "$SW_RC" -eq 0 ] && ok "run start mc1" || { bad "run start mc1 -> exit $SW_RC"; show "$SW_ERR" 30; return 1; }
	# c1 forges c3's address 5 times (new UDP flows): the port binding drops
	# them before they could use up c3's count; c3 stays free below
	for i in 1 2 3 4 5; do _pb_forged_to "$C1" 172.17.0.3 203.0.113.10 80; done
	# in the run: 3 new connections, the 4th is over and cuts c1 off
	for i in 1 2 3; do reach "$C1" http://203.0.113.10/; done
	blocked "$C1" http://203.0.113.10/
	blocked "$C1" http://203.0.113.10/
	reach "$C3" http://203.0.113.10/
	n=$(counter_packets connections_agents)
	[ "${n:-0}" -gt 0 ] && ok "connections_agents counted $n" || bad "connections_agents did not count"
	hnft list set inet sandwall sbx_agents_q4 | grep -q '172\.17\.0\.2' && ok "sbx_agents_q4 holds 172.17.0.2" ||
		bad "sbx_agents_q4: $(hnft list set inet sandwall sbx_agents_q4 | tr -d '\n\t')"
	hnft list set inet sandwall sbx_agents_q4 | grep -q '172\.17\.0\.3' && bad "c3 was quarantined too" ||
		ok "c3 is not quarantined"
	for i in $(seq 1 40); do grep -q 'event=quarantine sandbox=agents' "$V_DLOG" && break; sleep 0.05; done
	grep -q 'event=max-connections sandbox=agents src=172.17.0.2 ' "$V_DLOG" &&
		ok "sandwalld: $(grep -m1 'event=max-connections' "$V_DLOG" | cut -c1-160)" ||
		{ bad "no event=max-connections line"; show "$V_DLOG"; }
	grep -q 'event=quarantine sandbox=agents src=172.17.0.2 .*on=connections' "$V_DLOG" &&
		ok "sandwalld: event=quarantine ... on=connections" || { bad "no event=quarantine on=connections"; show "$V_DLOG"; }
	# release: c1 works again, with its count started again
	v_sw -c "$V_CONF" release 172.17.0.2
	[ "$SW_RC" -eq 0 ] && grep -q '172.17.0.2 released' "$SW_OUT" && ok "release 172.17.0.2" ||
		{ bad "release -> exit $SW_RC"; show "$SW_OUT"; show "$SW_ERR"; }
	for i in 1 2 3; do reach "$C1" http://203.0.113.10/; done
	blocked "$C1" http://203.0.113.10/
	r_run stop mc1
	[ "$SW_RC" -eq 0 ] && ok "run stop mc1 -> exit 0" || { bad "run stop mc1 -> exit $SW_RC"; show "$SW_ERR" 30; }
	[ "$(v_py "$r1" "sorted(set(q.get('on','') for q in d['quarantines']))")" = '["connections"]' ] &&
		ok "receipt: the quarantines say on=connections" || bad "receipt quarantines: $(v_py "$r1" "d.get('quarantines')")"
	grep -q 'QUARANTINED at .*(\[sandbox agents\] max_connections exceeded)' "$r1.txt" &&
		ok "receipt text: $(grep -m1 QUARANTINED "$r1.txt" | cut -c1-140)" || { bad "receipt text has no max_connections line"; show "$r1.txt" 60; }
	# the run's end released c1; its count goes on until the next run
	reach "$C1" http://203.0.113.10/
	reach "$C1" http://203.0.113.10/
	r_run start --label mc2 --receipt "$r2"
	[ "$SW_RC" -eq 0 ] && ok "run start mc2" || { bad "run start mc2 -> exit $SW_RC"; show "$SW_ERR" 30; return 1; }
	grep -q 'event=connections-reset' "$V_DLOG" && ok "sandwalld: event=connections-reset" || bad "no event=connections-reset"
	# a run's start gives every source its 3 again (2 were used)
	for i in 1 2 3; do reach "$C1" http://203.0.113.10/; done
	blocked "$C1" http://203.0.113.10/
	r_run stop mc2
	reach "$C1" http://203.0.113.10/
	[ "$(v_py "$r2" "d['run']['max_connections_counts']")" = "reset" ] && grep -q '^max_connections  *counts started again' "$r2.txt" &&
		ok "receipt mc2: the counts were started again" || bad "receipt mc2: counts $(v_py "$r2" "d['run'].get('max_connections_counts')")"
	_run_06_refused
	return 0
}

# sandwalld refuses to start the counts again (a stand-in control socket
# that answers everything but reset-connections as sandwalld would; the
# real one stopped, a fresh table whose counts verify's probes do not use
# up): the preflight held, yet the command is not started, and the receipt
# says why
_run_06_refused() {
	local r3="$V_DIR/mc3.json" fake="$V_DIR/refuse.ctl" fpid i
	v_stop TERM
	nsx "$H" nft delete table inet sandwall
	V_CONF=$(v_sbx_conf maxconns3 "[sandbox agents]
interfaces = docker0
max_connections = 1000")
	apply_ok "$V_CONF" >/dev/null || return 1
	nsx "$H" "$PY" - "$fake" <<-'EOF' &
	import socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	s.bind(sys.argv[1])
	s.listen(8)
	while True:
	    c, _ = s.accept()
	    verb = c.recv(4096).split(b"\n")[0]
	    c.send(b"error\nmessage=refused by the test\n" if verb == b"reset-connections" else b"ok\nmode=owner+persist\n")
	    c.close()
	EOF
	fpid=$!
	for i in $(seq 1 50); do [ -S "$fake" ] && break; sleep 0.05; done
	sw --control "$fake" --timeout "$V_TIMEOUT" -c "$V_CONF" run --label mc3 --receipt "$r3" -- touch "$V_DIR/mc3-started"
	kill "$fpid" 2>/dev/null; wait "$fpid" 2>/dev/null
	[ "$SW_RC" -eq 1 ] && [ ! -e "$V_DIR/mc3-started" ] && ok "counts refused: run -> exit 1, CMD not started" ||
		{ bad "counts refused: run -> exit $SW_RC, started: $([ -e "$V_DIR/mc3-started" ] && echo yes || echo no)"; show "$SW_ERR" 20; }
	[ "$(v_py "$r3" "[d['preflight']['result'], d['run']['max_connections_counts'], d['verdict']]")" = '["held", "failed", "not contained"]' ] &&
		v_py "$r3" "d['reasons']" | grep -q 'did not start the max_connections counts again' &&
		ok "receipt mc3: preflight held, counts failed, not contained, the reason named" ||
		bad "receipt mc3: $(v_py "$r3" "[d['preflight'].get('result'), d['run'].get('max_connections_counts'), d['reasons']]")"; show "$SW_ERR" 80
	grep -q '^max_connections  *counts NOT started again' "$r3.txt" && ok "receipt mc3 text: $(grep -m1 '^max_connections' "$r3.txt")" ||
		{ bad "receipt mc3 text has no max_connections line"; show "$r3.txt" 30; }
}

# _pb_forged_to NS SRC DST DPORT: one UDP datagram from the forged SRC, as a
# raw frame to docker0's MAC
_pb_forged_to() {
	nsx "$1" "$PY" "$ATK" rawudp --iface eth0 --dmac "$(ip -n "$H" -o link show docker0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')" \
		--src "$2" --dst "$3" --sport 4444 --dport "$4" --tag q-forged >/dev/null 2>&1
}

# ---------------------------------------------------------------- 7
run_07_sink() { v_run _run_07; }
_run_07() {
	local r="$V_DIR/s1.json" r2="$V_DIR/s2.json" ns="${SWT_PREFIX}s7" i n
	V_CONF=$(v_sbx_conf sink "[sandbox agents]
interfaces = docker0
egress = none")
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	apply_ok "$V_CONF" || return 1
	v_start "$V_CONF" || return 1
	# the preflight and the postflight each set up the sink (a routed veth
	# swv<pid>k of no guard) and announce it first
	r_run --label s1 --receipt "$r" -- true
	[ "$SW_RC" -eq 0 ] && ok "run -- true -> exit 0" || { bad "run -> exit $SW_RC, expected 0"; show "$SW_ERR" 30; }
	[ "$(v_py "$r" "[d['verdict'], d['gaps'], d['preflight']['result'], d['postflight']['result']]")" = '["contained", [], "held", "held"]' ] &&
		ok "receipt: contained, no gap, preflight and postflight held" ||
		bad "receipt: $(v_py "$r" "[d['verdict'], d['gaps'], d['reasons']]")"
	n=$(grep -c 'event=verify-link ifname=swv[0-9]*k pid=[0-9]* result=left-out-of-coverage' "$V_DLOG")
	[ "${n:-0}" -ge 2 ] && ok "sandwalld: $n sinks announced: $(grep -m1 'event=verify-link ifname=swv[0-9]*k' "$V_DLOG" | sed 's/^sandwalld: //')" ||
		{ bad "sandwalld: $n event=verify-link lines for a sink"; show "$V_DLOG" 30; }
	grep -q 'event=unguarded ifname=swv' "$V_DLOG" && { bad "sandwalld reported verify's own link: $(grep -m1 'event=unguarded ifname=swv' "$V_DLOG")"; } ||
		ok "sandwalld: no event=unguarded for verify's links"
	grep -q '"event":"unguarded"' "$V_DIR/events.jsonl" && bad "journal: $(grep -m1 '"event":"unguarded"' "$V_DIR/events.jsonl")" ||
		ok "journal: no unguarded line"
	# the control: a routed veth named like verify's sink that no verify
	# announced (the test's own, its peer in a test namespace, a route
	# behind it), while a run is open: reported, the run not contained
	r_run start --label s2 --receipt "$r2"
	[ "$SW_RC" -eq 0 ] && ok "run start s2" || { bad "run start s2 -> exit $SW_RC"; show "$SW_ERR" 30; return 1; }
	_mk_ns "$ns" || { bad "cannot create namespace $ns"; return 1; }
	V_UNDO+=("ip netns del $ns" "ip -n $H link del swv123k")
	ip -n "$H" link add swv123k type veth peer name eth0 netns "$ns" && ip -n "$H" link set swv123k up &&
		ip -n "$ns" link set eth0 up && ip -n "$H" route add 192.0.2.201/32 dev swv123k ||
		{ bad "cannot set up swv123k"; return 1; }
	for i in $(seq 1 60); do grep -q 'event=unguarded ifname=swv123k kind=veth' "$V_DLOG" && break; sleep 0.05; done
	grep -q 'event=unguarded ifname=swv123k kind=veth facing="routed veth" state=unguarded' "$V_DLOG" &&
		ok "sandwalld: $(grep -m1 'event=unguarded ifname=swv123k' "$V_DLOG" | sed 's/^sandwalld: //' | cut -c1-120)" ||
		{ bad "sandwalld did not report swv123k"; show "$V_DLOG" 30; }
	ip -n "$H" link del swv123k
	for i in $(seq 1 60); do grep -q 'event=unguarded ifname=swv123k state=gone' "$V_DLOG" && break; sleep 0.05; done
	r_run stop s2
	[ "$SW_RC" -eq 3 ] && ok "run stop s2 -> exit 3 (not contained)" || { bad "run stop s2 -> exit $SW_RC, expected 3"; show "$SW_ERR" 30; }
	v_py "$r2" "[g['kind'] + ': ' + g['what'] for g in d['gaps']]" | grep -q 'unguarded container-facing link: swv123k (routed veth)' &&
		ok "receipt s2: $(v_py "$r2" "[d['verdict']] + [g['kind'] + ': ' + g['what'] for g in d['gaps']]")" ||
		bad "receipt s2: $(v_py "$r2" "[d['verdict'], d['gaps']]")"
	return 0
}
