# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# A proof that never says HELD when it did not hold (issue 23, issue 24
# item 5): a [guard] typo leaves docker0 unguarded and check, status,
# verify and sandwalld say so; the receipt is a timeline over a window
# with every gap (remove + re-apply, a daemon stop) and who; verify needs
# a canary and names what is wrong at the root first; apply with another
# file than the daemon's is refused; a full journal filesystem is one
# WARNING, a metric, a status field and a hole in the receipt.
#
# Uses the helpers of test_verify.sh (v_run, v_conf, v_start, v_stop, v_sw).

register_test proof_01_typo_unguarded  "[guard] interfaces = dokcer0 with a container on docker0: apply warns, check/status/verify exit 1 naming docker0, sandwalld logs event=unguarded and covered after the fix"
register_test proof_02_receipt_gaps    "receipt over a window with remove + re-apply: NOT HELD with the gap's start, end and who; --since after it: HELD; a daemon stop, and a kill -9, inside the window: NOT HELD naming it; verify's probes apart from c1's attempts"
register_test proof_03_verify_root     "verify: a LAN peer probed (FAIL with lan = no); no canary -> not HELD; table removed -> the first line names it; not root -> nothing claimed, and every kernel command says root is needed; no default config -> how to point at one; one verdict line with the UTC time"
register_test proof_04_apply_other     "apply with another config than the running daemon's: exit 2; apply --force through the daemon: refused (exit 2)"
register_test proof_05_full_journal    "a full journal filesystem (tmpfs in a private mount namespace): one WARNING, a metric, a status field, the receipt says the record has a hole"

# p_iso: now as ISO 8601 UTC
p_iso() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# ---------------------------------------------------------------- 1
proof_01_typo_unguarded() { v_run _proof_01; }
_proof_01() {
	local fixed i
	V_CONF=$(v_conf typo "guard.interfaces=dokcer0 br-*")
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	# the attack works without sandwall: c1 on docker0 reaches the metadata
	reach "$C1" http://169.254.169.254/
	expect_sw 0 "apply with the typo" -c "$V_CONF" apply
	grep -q 'warning: docker0 (bridge with ports) faces containers' "$SW_ERR" &&
		ok "apply warns: $(grep -m1 docker0 "$SW_ERR")" || { bad "apply printed no warning naming docker0"; show "$SW_ERR"; }
	grep -q 'pattern "dokcer0" matches no interface' "$SW_ERR" && ok "apply names the pattern that matches nothing" ||
		{ bad "apply did not name dokcer0"; show "$SW_ERR"; }
	# the danger is real: with the table in place, c1 still reaches it
	reach "$C1" http://169.254.169.254/
	expect_sw 1 "check names the hole" -c "$V_CONF" check
	grep -q '^docker0 (bridge with ports) faces containers and no \[guard\] entry covers it: UNGUARDED' "$SW_OUT" &&
		ok "check: $(grep -m1 docker0 "$SW_OUT")" || { bad "check output does not name docker0"; show "$SW_OUT"; }
	expect_sw 1 "check --json" -c "$V_CONF" check --json
	[ "$(v_py "$SW_OUT" "[d['covered'], [u['name'] for u in d['unguarded']], d['unmatched_patterns']]")" = '[false, ["docker0"], ["dokcer0"]]' ] &&
		ok "check --json: covered false, unguarded [docker0], unmatched [dokcer0]" ||
		bad "check --json: $(v_py "$SW_OUT" "[d.get('covered'), d.get('unguarded'), d.get('unmatched_patterns')]")"
	expect_sw 1 "status names the hole" -c "$V_CONF" status
	grep -q '^docker0 (bridge with ports).*UNGUARDED' "$SW_OUT" && ok "status: docker0 UNGUARDED" || { bad "status does not name docker0"; show "$SW_OUT" 30; }
	v_verify "typo" 1
	head -n1 "$SW_OUT" | grep -q '^NOT HELD: docker0 (bridge with ports) faces containers' &&
		ok "verify's first line: $(head -n1 "$SW_OUT")" || { bad "verify's first line: $(head -n1 "$SW_OUT")"; show "$SW_OUT" 10; show "$SW_ERR" 5; }
	grep -q '^verdict at [0-9T:-]*Z: NOT HELD$' "$SW_OUT" && ok "verify: one verdict line with the UTC time" ||
		{ bad "no 'verdict at TIME: NOT HELD' line"; show "$SW_OUT" 40; }
	# the daemon says so, at WARNING, and when it is covered again
	nsx "$H" nft delete table inet sandwall
	v_start "$V_CONF" || return 1
	for i in $(seq 1 60); do grep -q 'event=unguarded ifname=docker0 kind=bridge' "$V_DLOG" && break; sleep 0.05; done
	grep -q 'event=unguarded ifname=docker0 kind=bridge facing="bridge with ports" state=unguarded' "$V_DLOG" &&
		ok "sandwalld: $(grep -m1 'event=unguarded' "$V_DLOG" | sed 's/^sandwalld: //')" ||
		{ bad "no event=unguarded for docker0 in the daemon log"; show "$V_DLOG"; }
	grep -q '"event":"unguarded".*"ifname":"docker0"' "$V_DIR/events.jsonl" && ok "journal: unguarded docker0" ||
		{ bad "journal has no unguarded line"; show "$V_DIR/events.jsonl"; }
	fixed=$(v_conf typo "guard.interfaces=docker0 br-*")
	kill -HUP "$V_DPID"
	for i in $(seq 1 60); do grep -q 'event=unguarded ifname=docker0 state=covered' "$V_DLOG" && break; sleep 0.05; done
	grep -q 'event=unguarded ifname=docker0 state=covered' "$V_DLOG" && ok "sandwalld after the fix: event=unguarded ifname=docker0 state=covered" ||
		{ bad "no covered line after the fix"; show "$V_DLOG"; }
	grep -q 'event=reload .*result=ok .*unguarded=0' "$V_DLOG" && ok "reload line says unguarded=0" || bad "reload line: $(grep 'event=reload' "$V_DLOG" | tail -n1)"
	v_sw -c "$fixed" check
	[ "$SW_RC" -eq 0 ] && ok "check after the fix -> 0" || { bad "check after the fix -> $SW_RC"; show "$SW_OUT"; }
	blocked "$C1" http://169.254.169.254/
	return 0
}

# ---------------------------------------------------------------- 2
proof_02_receipt_gaps() { v_run _proof_02; }
_proof_02() {
	local t_gap t_after r s e
	V_CONF=$(v_conf gaps)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	v_start "$V_CONF" || return 1
	v_verify "daemon running" 0 || return 1
	v_sw -c "$V_CONF" receipt
	[ "$SW_RC" -eq 0 ] && grep -qE '^verdict +HELD$' "$SW_OUT" && ok "receipt before any gap: HELD" ||
		{ bad "receipt before any gap -> $SW_RC"; show "$SW_OUT" 40; }
	grep -qE '^host +.* \(machine-id .*, kernel .*\)$' "$SW_OUT" && ok "host identity: $(grep -m1 '^host' "$SW_OUT" | tr -s ' ')" ||
		bad "no host identity line"
	grep -qE '^window +[0-9-]+T[0-9:]+Z \.\. [0-9-]+T[0-9:]+Z$' "$SW_OUT" && ok "window in ISO 8601 UTC" || bad "window: $(grep '^window' "$SW_OUT")"
	sleep 1
	t_gap=$(date +%s)
	v_sw -c "$V_CONF" remove
	[ "$SW_RC" -eq 0 ] && ok "remove (through the daemon)" || { bad "remove -> $SW_RC"; show "$SW_ERR"; }
	# the gap is real: the container reaches the metadata
	reach "$C1" http://169.254.169.254/
	sleep 1
	v_sw -c "$V_CONF" apply
	[ "$SW_RC" -eq 0 ] && ok "re-apply (daemon reload)" || { bad "apply -> $SW_RC"; show "$SW_ERR"; }
	blocked "$C1" http://169.254.169.254/
	sleep 1
	t_after=$(date +%s)
	v_verify "rules back" 0
	v_sw -c "$V_CONF" receipt --json
	v_keep r.json; r="$V_DIR/r.json"
	[ "$SW_RC" -eq 1 ] && [ "$(v_py "$r" "d['verdict']")" = "not held" ] && ok "receipt over the window: NOT HELD" ||
		{ bad "receipt over the gap -> $SW_RC $(v_py "$r" "d['verdict']")"; show "$r" 5; }
	s=$(v_py "$r" "[g['start_unix'] for g in d['timeline']['gaps'] if g['kind'] == 'table absent'][0]")
	e=$(v_py "$r" "[g['end_unix'] for g in d['timeline']['gaps'] if g['kind'] == 'table absent'][0]")
	[ "$s" -ge "$t_gap" ] 2>/dev/null && [ "$e" -gt "$s" ] && [ "$e" -le "$t_after" ] &&
		ok "the gap: table absent from $s to $e (remove at >= $t_gap, re-apply before $t_after)" ||
		bad "gap start/end: $s $e (expected >= $t_gap and <= $t_after): $(v_py "$r" "d['timeline']['gaps']")"
	v_py "$r" "[g['who'] for g in d['timeline']['gaps'] if g['kind'] == 'table absent'][0]" | grep -qE '^sandwall remove, uid 0 pid [0-9]+$' &&
		ok "who removed it: $(v_py "$r" "[g['who'] for g in d['timeline']['gaps'] if g['kind'] == 'table absent'][0]")" ||
		bad "who: $(v_py "$r" "d['timeline']['gaps']")"
	v_py "$r" "[g['ended_by'] for g in d['timeline']['gaps'] if g['kind'] == 'table absent'][0]" | grep -qE 'uid 0 pid [0-9]+' &&
		ok "who put it back: $(v_py "$r" "[g['ended_by'] for g in d['timeline']['gaps'] if g['kind'] == 'table absent'][0]")" ||
		bad "ended_by: $(v_py "$r" "d['timeline']['gaps']")"
	# what was attempted: the container's own apart from verify's probes
	[ "$(v_py "$r" "sorted(set((a['src'], a.get('iif')) for a in d['attempted_by_sandboxes']))")" = '[["172.17.0.2", "docker0"]]' ] &&
		ok "attempted by the sandboxes: only c1's, with source and interface ($(v_py "$r" "[(a['category'], a['dst'], a['count']) for a in d['attempted_by_sandboxes']]"))" ||
		bad "attempted_by_sandboxes: $(v_py "$r" "d.get('attempted_by_sandboxes')")"
	[ "$(v_py "$r" "len(d['attempted_by_verify']) > 0 and all(a['src'] != '172.17.0.2' for a in d['attempted_by_verify'])")" = true ] &&
		ok "verify's own probes kept apart: $(v_py "$r" "len(d['attempted_by_verify'])") record(s)" ||
		bad "attempted_by_verify: $(v_py "$r" "d.get('attempted_by_verify')" | head -c 300)"
	v_sw -c "$V_CONF" receipt
	grep -qE "^verify's probes +[1-9][0-9]* record\(s\)" "$SW_OUT" && grep -qE '^ +metadata +169\.254\.169\.254 +tcp/80 from 172\.17\.0\.2 on docker0 x[0-9]+$' "$SW_OUT" &&
		ok "text: c1's attempt listed with source and interface; $(grep "^verify's probes" "$SW_OUT" | tr -s ' ')" ||
		{ bad "the receipt's attempts"; grep -A12 '^attempted' "$SW_OUT" | show - 14; }
	grep -qE '^  because table absent from [0-9T:-]+Z to [0-9T:-]+Z \(.*\): removed; by sandwall remove, uid 0 pid [0-9]+; ended by ' "$SW_OUT" &&
		ok "text: $(grep -m1 'because table absent' "$SW_OUT" | sed 's/^ *//')" || { bad "the text verdict does not name the gap"; show "$SW_OUT" 50; }
	v_sw -c "$V_CONF" receipt --since "$(date -u -d @"$t_after" +%Y-%m-%dT%H:%M:%SZ)"
	[ "$SW_RC" -eq 0 ] && grep -qE '^verdict +HELD$' "$SW_OUT" && ok "receipt --since after the gap: HELD" ||
		{ bad "receipt --since after the gap -> $SW_RC"; show "$SW_OUT" 50; }
	# a daemon stop inside the window
	v_stop TERM
	sleep 1
	v_start "$V_CONF" || return 1
	v_verify "after the restart" 0
	v_sw -c "$V_CONF" receipt --since "$t_after"
	[ "$SW_RC" -eq 1 ] && grep -qE '^  because daemon not running from .*: sandwalld stopped; by uid 0 pid [0-9]+' "$SW_OUT" &&
		ok "a daemon stop in the window: $(grep -m1 'because daemon not running' "$SW_OUT" | sed 's/^ *//')" ||
		{ bad "receipt with a daemon stop -> $SW_RC"; show "$SW_OUT" 50; }
	# a crash (kill -9) and a restart: the start says so, the receipt names it
	sleep 1
	t_after=$(date +%s)
	v_stop KILL
	v_start "$V_CONF" || return 1
	grep -q 'event=start .* previous=crashed last_seen=' "$V_DLOG" && ok "restart after kill -9: $(grep -m1 'previous=crashed' "$V_DLOG" | sed -e 's/^sandwalld: //' -e "s|$SWT_TMP/||g")" ||
		{ bad "no previous=crashed on the restart"; grep 'event=start' "$V_DLOG" | show - 5; }
	v_verify "after the crash" 0
	v_sw -c "$V_CONF" receipt --since "$t_after"
	[ "$SW_RC" -eq 1 ] && grep -qE '^  because daemon not running from .*crashed' "$SW_OUT" &&
		ok "the crash in the window: $(grep -m1 'because daemon not running' "$SW_OUT" | sed 's/^ *//')" ||
		{ bad "receipt with a crash -> $SW_RC"; show "$SW_OUT" 50; }
	return 0
}

# ---------------------------------------------------------------- 3
proof_03_verify_root() { v_run _proof_03; }
_proof_03() {
	local conf0
	V_CONF=$(v_conf root)
	# a LAN peer the host knows (its neighbour table): reachable without
	# the table, so a lan row can fail
	nsx "$H" ping -c1 -W1 10.0.0.50 >/dev/null 2>&1
	reach "$C1" http://10.0.0.50/
	apply_ok "$V_CONF" || return 1
	v_verify "with a canary" 0
	grep -q '^verdict at [0-9T:-]*Z: HELD (every target blocked, every canary open)$' "$SW_OUT" &&
		ok "one verdict line with the time: $(grep '^verdict at' "$SW_OUT")" || { bad "no verdict line"; show "$SW_OUT" 40; }
	grep -qE '^expect-open +203\.0\.113\.10:80 +open' "$SW_OUT" && ok "[verify] canary 203.0.113.10:80 probed: open" ||
		{ bad "the configured canary was not probed"; show "$SW_OUT" 40; }
	grep -qE '^lan +10\.0\.0\.50:80 +blocked' "$SW_OUT" && ok "a LAN peer probed: $(grep -m1 -E '^lan +10\.0\.0\.50' "$SW_OUT" | tr -s ' ')" ||
		{ bad "no lan row for the LAN peer 10.0.0.50"; grep -E '^(lan|gateways) ' "$SW_OUT" | show - 5; }
	apply_ok "$(v_conf root-nolan block.lan=no)" || return 1
	v_verify "lan = no" 1
	v_fail_lines "$SW_OUT" | grep -qx 'lan 10.0.0.50:80' && ok "lan = no: FAIL lan 10.0.0.50:80" ||
		{ bad "lan = no: no FAIL row for 10.0.0.50"; v_fail_lines "$SW_OUT" | show - 10; }
	apply_ok "$V_CONF" || return 1
	conf0=$(v_conf root verify.canary=none)
	v_verify "no canary" 1
	grep -q 'no canary configured' "$SW_OUT" && ! grep -q 'HELD (' "$SW_OUT" && ok "no canary: not HELD, and it says why" ||
		{ bad "no canary: the output"; show "$SW_OUT" 40; }
	V_CONF=$(v_conf root)
	nsx "$H" nft delete table inet sandwall
	v_verify "table removed" 1
	head -n1 "$SW_OUT" | grep -q '^NOT HELD: table inet sandwall is ABSENT' && ok "first line: $(head -n1 "$SW_OUT")" ||
		{ bad "first line: $(head -n1 "$SW_OUT")"; show "$SW_OUT" 5; }
	grep -q '^note: sandwalld is not running' "$SW_OUT" && ok "and: $(grep -m1 '^note: sandwalld' "$SW_OUT" | sed "s|$SWT_TMP/||")" ||
		bad "no note that the daemon is not running"
	# as non-root nothing is probed, and nothing is claimed
	# (a copy of the config that user can read, without the test's paths)
	SW_OUT="$SWT_TMP/sw.out"; SW_ERR="$SWT_TMP/sw.err"
	conf0=$(mktemp /tmp/swt-proof-XXXXXX.conf)
	grep -vE '^(journal|metrics) =' "$V_CONF" >"$conf0"; chmod 644 "$conf0"
	timeout "$SW_TIMEOUT" ip netns exec "$H" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SANDWALL" -c "$conf0" verify >"$SW_OUT.nr" 2>"$SW_ERR.nr"
	SW_RC=$?
	mv "$SW_OUT.nr" "$SW_OUT"; mv "$SW_ERR.nr" "$SW_ERR"
	[ "$SW_RC" -eq 2 ] && head -n1 "$SW_OUT" | grep -q '^NOT HELD: not run as root' && ! grep -qE 'probing from|probed \(run|: HELD' "$SW_OUT" &&
		ok "non-root: exit 2, '$(head -n1 "$SW_OUT")'" || { bad "non-root verify -> $SW_RC"; show "$SW_OUT"; show "$SW_ERR"; }
	# the other kernel commands as non-root, with the table in place: exit
	# 2, they say root is needed, and the table stays
	apply_ok "$V_CONF" || return 1
	for verb in apply check status remove receipt; do
		timeout "$SW_TIMEOUT" ip netns exec "$H" setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$SANDWALL" -c "$conf0" "$verb" >"$SW_OUT.nr" 2>"$SW_ERR.nr"
		SW_RC=$?
		mv "$SW_OUT.nr" "$SW_OUT"; mv "$SW_ERR.nr" "$SW_ERR"
		[ "$SW_RC" -eq 2 ] && grep -q 'sandwall needs root, or CAP_NET_ADMIN: run it with sudo' "$SW_ERR" &&
			ok "non-root $verb: exit 2, $(head -n1 "$SW_ERR")" || { bad "non-root $verb -> $SW_RC"; show "$SW_OUT"; show "$SW_ERR"; }
	done
	rm -f "$conf0"
	nsx "$H" nft list table inet sandwall >/dev/null 2>&1 && ok "the table is still there" ||
		bad "a non-root command removed the table"
	# no config at the default path: the error says how to point at one
	# (a private mount namespace hides a real /etc/sandwall)
	if [ -e /etc/sandwall ]; then
		unshare -m sh -c 'mount -t tmpfs swtetc /etc/sandwall && exec "$0" status' "$SANDWALL" >"$SW_OUT" 2>"$SW_ERR"
	else
		"$SANDWALL" status >"$SW_OUT" 2>"$SW_ERR"
	fi
	SW_RC=$?
	[ "$SW_RC" -eq 2 ] && grep -q 'sandwall.conf: No such file or directory' "$SW_ERR" &&
		grep -q 'no config at the default path: point at one with -c FILE' "$SW_ERR" &&
		ok "no default config: exit 2, $(tail -n1 "$SW_ERR" | cut -c1-90)..." || { bad "no default config -> $SW_RC"; show "$SW_ERR"; }
	"$SANDWALL" -c "$SWT_TMP/none.conf" status >"$SW_OUT" 2>"$SW_ERR"
	SW_RC=$?
	[ "$SW_RC" -eq 2 ] && grep -q 'none.conf: No such file or directory' "$SW_ERR" && ! grep -q 'default path' "$SW_ERR" &&
		ok "-c FILE missing: exit 2, no hint about the default path" || { bad "-c missing -> $SW_RC"; show "$SW_ERR"; }
	return 0
}

# ---------------------------------------------------------------- 4
proof_04_apply_other() { v_run _proof_04; }
_proof_04() {
	local other
	V_CONF=$(v_conf mine)
	other=$(v_conf other block.lan=no)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	v_start "$V_CONF" || return 1
	v_sw -c "$other" apply
	[ "$SW_RC" -eq 2 ] && grep -q "apply refused: sandwalld (pid $V_DPID) enforces .*v-mine.conf, not .*v-other.conf" "$SW_ERR" &&
		ok "apply with another file -> 2: $(sed "s|$SWT_TMP/||g" "$SW_ERR" | head -c 160)" || { bad "apply -c other -> $SW_RC"; show "$SW_ERR"; show "$SW_OUT"; }
	v_sw -c "$V_CONF" apply --force
	[ "$SW_RC" -eq 2 ] && grep -q 'apply --force refused' "$SW_ERR" && ok "apply --force through the daemon: refused (exit 2)" ||
		{ bad "apply --force -> $SW_RC"; show "$SW_ERR"; show "$SW_OUT"; }
	v_sw -c "$V_CONF" apply
	[ "$SW_RC" -eq 0 ] && ok "apply with the daemon's own file -> 0" || { bad "apply -> $SW_RC"; show "$SW_ERR"; }
	return 0
}

# ---------------------------------------------------------------- 5
# The daemon and the CLI run inside one private mount namespace (unshare
# -m) where a 64 KiB tmpfs holds the journal: the host's filesystems are
# never filled.
proof_05_full_journal() { v_run _proof_05; }
_proof_05() {
	local jd out rc n
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	command -v unshare >/dev/null || { info "skip: no unshare"; return $SKIP; }
	jd="$V_DIR/j"
	mkdir -p "$jd" && chmod 700 "$jd"
	# only the journal on the full filesystem: the network log and the
	# identities (files beside the journal) off, so that what fails and
	# what fits is the journal's alone
	V_CONF=$(mkconf v-full "daemon.journal=$jd/events.jsonl" "daemon.metrics=$V_DIR/sandwall.prom" daemon.owner=no \
		log.flows=no identity.enabled=no)
	out="$V_DIR/full.out"
	unshare -m --propagation private -- bash -c '
		set -u
		H=$1 SW=$2 SWD=$3 CONF=$4 JD=$5 DIR=$6
		say() { printf "%s\n" "$*"; }
		mount -t tmpfs -o size=64k,mode=0700 swtjournal "$JD" || { say "FAIL mount"; exit 1; }
		ip netns exec "$H" "$SWD" -c "$CONF" -f --control "$DIR/ctl" >"$DIR/daemon.log" 2>&1 &
		dpid=$!
		for i in $(seq 1 100); do [ -S "$DIR/ctl" ] && grep -q event=start "$DIR/daemon.log" && break; sleep 0.05; done
		dd if=/dev/zero of="$JD/fill" bs=4k 2>/dev/null
		sync
		# drifts until the journal file'"'"'s last page is full and a write
		# fails, then two more: three writes that fail, one WARNING
		drift() {
			ip netns exec "$H" nft delete table inet sandwall
			for i in $(seq 1 60); do ip netns exec "$H" nft list table inet sandwall >/dev/null 2>&1 && break; sleep 0.05; done
			sleep 0.1
		}
		for n in $(seq 1 60); do
			drift
			grep -q "event=record-failed file=journal" "$DIR/daemon.log" && break
		done
		drift; drift
		say "WARNINGS $(grep -c "event=record-failed file=journal" "$DIR/daemon.log")"
		grep -m1 "event=record-failed" "$DIR/daemon.log" | sed "s/^/LINE /"
		ip netns exec "$H" "$SW" -c "$CONF" --control "$DIR/ctl" status >"$DIR/status.out" 2>&1
		say "STATUS $(grep -E "^daemon journal_(errors|error) " "$DIR/status.out" | tr -s " " | tr "\n" ";")"
		ip netns exec "$H" "$SW" -c "$CONF" --control "$DIR/ctl" receipt >"$DIR/receipt1.out" 2>&1
		say "RECEIPT1 rc=$? $(grep -c "the record has a hole" "$DIR/receipt1.out")"
		# room again: the next event first writes what is missing
		rm -f "$JD/fill"
		ip netns exec "$H" nft delete table inet sandwall
		for i in $(seq 1 60); do grep -q "\"event\":\"hole\"" "$JD/events.jsonl" 2>/dev/null && break; sleep 0.05; done
		say "HOLELINE $(grep -c "\"event\":\"hole\"" "$JD/events.jsonl") $(grep -o "\"lost\":[0-9]*" "$JD/events.jsonl" | cut -d: -f2 | paste -sd+ | bc)"
		ip netns exec "$H" "$SW" -c "$CONF" --control "$DIR/ctl" receipt >"$DIR/receipt2.out" 2>&1
		say "RECEIPT2 rc=$? $(grep -c "because hole in the record" "$DIR/receipt2.out")"
		kill -TERM $dpid; wait $dpid
		umount "$JD"
	' proof05 "$H" "$SANDWALL" "$V_SANDWALLD" "$V_CONF" "$jd" "$V_DIR" >"$out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { bad "the mount namespace part failed ($rc)"; show "$out"; return 1; }
	grep -q '^WARNINGS 1$' "$out" && ok "one WARNING: $(sed -n 's/^LINE sandwalld: //p' "$out" | sed "s|$SWT_TMP/||g")" ||
		{ bad "WARNING lines: $(grep WARNINGS "$out")"; show "$V_DIR/daemon.log"; }
	v_metric 'sandwall_record_write_errors_total{file="journal"}' "$V_DIR/sandwall.prom" | grep -qE '^[1-9][0-9]*$' &&
		ok "metric sandwall_record_write_errors_total{file=\"journal\"} $(v_metric 'sandwall_record_write_errors_total{file="journal"}' "$V_DIR/sandwall.prom")" ||
		{ bad "metric: $(grep record_write "$V_DIR/sandwall.prom")"; }
	grep -qE '^STATUS daemon journal_errors [1-9][0-9]*;daemon journal_error No space left on device;$' "$out" &&
		ok "status: $(sed -n 's/^STATUS //p' "$out")" || { bad "status: $(grep STATUS "$out")"; show "$V_DIR/status.out" 30; }
	grep -qE '^RECEIPT1 rc=1 [1-9]' "$out" && ok "receipt while it fails: NOT HELD, the record has a hole" ||
		{ bad "receipt while failing: $(grep RECEIPT1 "$out")"; show "$V_DIR/receipt1.out" 40; }
	# (a "hole" line is written as soon as it fits: the lines it counts
	# add up to every failed write)
	n=$(v_metric 'sandwall_record_write_errors_total{file="journal"}' "$V_DIR/sandwall.prom")
	grep -qE "^HOLELINE [1-9][0-9]* $n\$" "$out" && ok "room again: \"hole\" line(s) in the journal count the $n lost events" ||
		bad "hole lines: $(grep HOLELINE "$out"), failed writes $n"
	grep -qE '^RECEIPT2 rc=1 [1-9]' "$out" && ok "receipt after: NOT HELD, $(grep -m1 'because hole in the record' "$V_DIR/receipt2.out" | sed 's/^ *because //')" ||
		{ bad "receipt after: $(grep RECEIPT2 "$out")"; show "$V_DIR/receipt2.out" 40; }
	return 0
}
