# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Daemon suite: sandwalld keeps the boundary in place (issue 3). Watch mode
# repairs every tamper kind and names the culprit; new bridges, all_bridges
# and gateway changes are tracked live; TERM/KILL leave the rules and a
# restart adopts them; a bad reload keeps daemon and rules; owner+persist
# refuses tampering while a container floods the metadata address; the CLI
# goes through the control socket; an event burst does not lose sync.
#
# Each test starts from the baseline topology with no sandwall table and no
# daemon; the daemon it starts runs in the host namespace with a control
# socket of its own under $SWT_TMP, and is stopped (by pid) together with
# everything the test added (bridges, namespaces, routes, tables), also when
# the test fails. The daemon logs (-f, stderr) decide the alert assertions.

register_test daemon_01_watch_repair   "watch mode: every tamper kind restored (check 0 < 1 s), alert names pid/comm"
register_test daemon_02_new_bridge     "a new br-* bridge and its container are guarded at once; subnet in own4"
register_test daemon_03_all_bridges    "a non-matching bridge (lab0) is guarded with all_bridges = yes, not with no"
register_test daemon_04_gateway        "a default-gateway change is tracked in gateways4 within 1 s"
register_test daemon_05_term_kill      "SIGTERM and kill -9 leave the rules; a restart adopts the table"
register_test daemon_06_reload         "a bad SIGHUP reload keeps daemon and rules (FILE:LINE); a good one applies"
register_test daemon_07_owner_flood    "owner+persist: tampering gets EPERM; 0 flood packets through 200 attempts"
register_test daemon_08_cli_control    "the CLI's apply/remove/status go through the control socket"
register_test daemon_09_event_burst    "an nftables event burst (ENOBUFS or not) does not lose sync"

SANDWALLD=${SANDWALLD:-$SWT_ROOT/build/sandwalld}

D_META=http://169.254.169.254/
D_META2=http://100.100.100.200/     # only in metadata4 (not link-local): proves the metadata rule
D_NET=http://203.0.113.10/

D_PID=""       # the running daemon (pid of sandwalld itself: ip netns exec execs it)
D_CTL=""       # its control socket
D_LOG=""       # its stderr
D_CONF=""      # its config
D_N=0
D_RC=0         # exit status of the last daemon stopped
D_WAITED=0     # ms waited by the last d_wait_* helper
D_UNDO=()      # commands (eval'd, in reverse) that undo what a test added
D_LOGS=()      # daemon logs of the current test

need_daemon() {
	need_sandwall || return 1
	if [ ! -x "$SANDWALLD" ]; then info "skip: $SANDWALLD not built"; return 1; fi
	return 0
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ---------------------------------------------------------------- daemon control
_d_dead() { [ ! -d "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# d_start CONF: start sandwalld in the host ns, wait (max 5 s) for its
# event=start line and its control socket.
d_start() {
	local conf=$1 i
	if [ -n "$D_PID" ]; then bad "d_start: a daemon (pid $D_PID) is already running"; return 1; fi
	D_N=$((D_N + 1))
	D_CTL="$SWT_TMP/ctl.$D_N"
	D_LOG="$SWT_TMP/daemon.$D_N.log"
	D_CONF=$conf
	D_LOGS+=("$D_LOG")
	# D_ULIMIT: start it with that descriptor limit (ulimit -n)
	local pre=()
	[ -n "${D_ULIMIT:-}" ] && pre=(bash -c 'ulimit -n "$0" && exec "$@"' "$D_ULIMIT")
	ip netns exec "$H" "${pre[@]}" "$SANDWALLD" -c "$conf" -f --control "$D_CTL" >"$D_LOG" 2>&1 &
	D_PID=$!
	SWT_PIDS+=("$D_PID")
	for i in $(seq 1 100); do
		if grep -q 'event=start' "$D_LOG" && [ -S "$D_CTL" ]; then
			ok "sandwalld up (pid $D_PID): $(grep -m1 'event=start' "$D_LOG" | sed -e 's/^sandwalld: //' -e "s|$SWT_TMP/||")"
			return 0
		fi
		_d_dead "$D_PID" && break
		sleep 0.05
	done
	bad "sandwalld did not start within 5 s (config $(basename "$conf"))"
	show "$D_LOG"
	d_stop KILL
	return 1
}

# d_stop [SIG]: signal the daemon, wait for it (5 s, then KILL), reap it,
# remove its control socket. Exit status in D_RC.
d_stop() {
	local sig=${1:-TERM} pid=$D_PID i p keep=()
	[ -n "$pid" ] || return 0
	kill -"$sig" "$pid" 2>/dev/null
	for i in $(seq 1 100); do _d_dead "$pid" && break; sleep 0.05; done
	if ! _d_dead "$pid"; then
		bad "sandwalld (pid $pid) still running 5 s after SIG$sig; killing it"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	D_RC=$?
	for p in "${SWT_PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
	SWT_PIDS=("${keep[@]}")
	D_PID=""
	rm -f "$D_CTL"
	return 0
}

# d_run BODY: run a test body, then always stop the daemon, undo what the
# body registered in D_UNDO (reverse order) and drop the table.
d_run() {
	local body=$1 rc i l us
	need_daemon || return $SKIP
	D_UNDO=(); D_LOGS=()
	"$body"
	rc=$?
	d_stop TERM
	for ((i = ${#D_UNDO[@]} - 1; i >= 0; i--)); do eval "${D_UNDO[i]}" >/dev/null 2>&1; done
	D_UNDO=()
	nsx "$H" nft delete table inet sandwall 2>/dev/null
	us=""
	for l in "${D_LOGS[@]}"; do us+="$(grep -o 'restored_us=[0-9]*' "$l" | cut -d= -f2 | tr '\n' ' ')"; done
	[ -n "$us" ] && info "repairs logged (restored_us): $us"
	if [ "$T_FAILS" -gt 0 ]; then
		for l in "${D_LOGS[@]}"; do
			info "daemon log $(basename "$l") (last 25 lines):"
			tail -n 25 "$l" | sed "s|$SWT_TMP/||g" | show - 25
		done
	fi
	return $rc
}

# d_sw ARGS...: sandwall in the host ns, talking to the current daemon's socket
d_sw() { sw --control "${D_CTL:-$SWT_TMP/ctl.none}" "$@"; }

# d_wait_sync CONF MS: poll `sandwall check` until exit 0; D_WAITED = ms
d_wait_sync() {
	local conf=$1 max=$2 t0
	t0=$(now_ms)
	while :; do
		sw -c "$conf" check
		D_WAITED=$(($(now_ms) - t0))
		[ "$SW_RC" -eq 0 ] && return 0
		[ "$D_WAITED" -ge "$max" ] && return 1
		sleep 0.01
	done
}

# d_log_lines: current number of lines of the daemon log
d_log_lines() { wc -l <"$D_LOG"; }

# d_wait_log FROM REGEX MS: print the first line after line FROM matching
# REGEX (ERE), polling up to MS ms; empty if none
d_wait_log() {
	local from=$1 re=$2 max=$3 t0 line
	t0=$(now_ms)
	while :; do
		line=$(tail -n +"$((from + 1))" "$D_LOG" | grep -m1 -E -- "$re")
		D_WAITED=$(($(now_ms) - t0))
		if [ -n "$line" ]; then printf '%s\n' "${line#sandwalld: }"; return 0; fi
		[ "$D_WAITED" -ge "$max" ] && return 1
		sleep 0.02
	done
}

# set_elems SET [TABLE]: the elements of a set in the host ns, one a line
# (prefixes as a/len, ranges a-b, concatenations a . b . c)
set_elems() {
	hnft -j list set inet "${2:-sandwall}" "$1" 2>/dev/null | "$PY" -c '
import json, sys
def f(e):
    if isinstance(e, dict):
        if "prefix" in e: return "%s/%d" % (e["prefix"]["addr"], e["prefix"]["len"])
        if "range" in e: return "%s-%s" % (f(e["range"][0]), f(e["range"][1]))
        if "concat" in e: return " . ".join(f(x) for x in e["concat"])
        if "elem" in e: return f(e["elem"]["val"])
    return str(e)
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
for o in d.get("nftables", []):
    s = o.get("set")
    if s:
        for e in s.get("elem", []):
            print(f(e))
'
}
set_has() { set_elems "$1" | grep -qxF -- "$2"; }
# set_covers SET ADDR: ADDR falls in an element of SET (interval sets merge
# adjacent prefixes, e.g. 172.17.0.0-172.19.255.255, so ask the kernel)
set_covers() { hnft get element inet sandwall "$1" "{ $2 }" >/dev/null 2>&1; }

# d_wait_set SET ELEM yes|no MS [TEST]: poll until ELEM is (not) in SET;
# TEST is the membership helper (set_has, default; or set_covers)
d_wait_set() {
	local set=$1 elem=$2 want=$3 max=$4 test=${5:-set_has} t0
	t0=$(now_ms)
	while :; do
		if "$test" "$set" "$elem"; then [ "$want" = yes ] && break
		else [ "$want" = no ] && break; fi
		D_WAITED=$(($(now_ms) - t0))
		[ "$D_WAITED" -ge "$max" ] && return 1
		sleep 0.01
	done
	D_WAITED=$(($(now_ms) - t0))
	return 0
}

# jget KEY[.KEY...]: a value from the JSON in $SW_OUT (strings bare, else JSON)
jget() {
	"$PY" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("<no json>"); sys.exit(0)
for k in sys.argv[2].split("."):
    d = d.get(k) if isinstance(d, dict) else None
print(d if isinstance(d, str) else json.dumps(d))' "$SW_OUT" "$1"
}

# d_status_is CONF KEY VALUE: `sandwall status --json` has KEY == VALUE
d_status_is() {
	local conf=$1 key=$2 want=$3 got
	d_sw -c "$conf" status --json
	got=$(jget "$key")
	if [ "$got" = "$want" ]; then ok "status --json: $key = $want"
	else bad "status --json: $key = $got, expected $want"; show "$SW_OUT" 3; fi
}

# d_flood NS HOST SECONDS [STOPFILE]: the suite's flood helper (srv.py flood)
# against tcp/80 and udp/54; exit 0 if nothing got through. Output in FLOOD_OUT.
FLOOD_OUT=""
d_flood() {
	FLOOD_OUT=$(nsx "$1" "$PY" "$SRV" flood "$2" 80 54 "$3" ${4:+"$4"} 2>&1)
}

# d_tamper DESC CHANGE URL NFT-ARGS...: (daemon in watch mode) tamper with
# nft in the host ns; the daemon must restore it (check 0 within 1 s), log
# event=drift with change="CHANGE" (what, and which chain, rule, set or
# how many elements), the nft process's pid, uid and comm=nft; and
# URL (a metadata address) is blocked from c1 again. D_AFTER (a command) runs
# after the restore, before the probe.
d_tamper() {
	local desc=$1 want=$2 url=$3; shift 3
	local n0 p rc line
	n0=$(d_log_lines)
	# a simple background command: $! is the pid nft runs under (ip execs it)
	ip netns exec "$H" nft "$@" 2>"$SWT_TMP/nft.err" &
	p=$!
	wait $p
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "[$desc] the tamper itself failed: nft $* (exit $rc)"; show "$SWT_TMP/nft.err"; return 1
	fi
	if d_wait_sync "$D_CONF" 1000; then ok "[$desc] restored and read back: check 0 after ${D_WAITED} ms"
	else bad "[$desc] not restored: check still $SW_RC after ${D_WAITED} ms"; show "$SW_OUT" 8; fi
	if line=$(d_wait_log "$n0" 'event=drift' 1000); then
		if [[ $line =~ change=\"([^\"]+)\" ]] && [[ $line =~ pid=([0-9]+) ]] && [[ $line =~ comm=nft( |$) ]]; then
			ok "[$desc] alert: $line"
		else
			bad "[$desc] alert lacks change=\"...\" / pid=N / comm=nft: $line"
		fi
		# the change names its object (chain, rule tag, set, element count); a
		# trailing * in want: any ending
		if [[ $want == *'*' ]]; then
			[[ $line == *"change=\"${want%\*}"* ]] || bad "[$desc] alert says ${line#*change=}, expected change=\"$want\""
		else
			[[ $line == *"change=\"$want\""* ]] || bad "[$desc] alert says ${line#*change=}, expected change=\"$want\""
		fi
		# uid: read from /proc while the process lives (-1: it was gone first)
		[[ $line =~ differences=[0-9]+ ]] && [[ $line =~ \ uid=(0|-1)\  ]] || bad "[$desc] alert lacks differences=N or uid=: $line"
		[[ $line == *" pid=$p "* ]] || bad "[$desc] alert names ${line##*pid=}, expected pid=$p (the nft process)"
	else
		bad "[$desc] no event=drift line in the daemon log within 1 s"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 5
	fi
	if [ -n "${D_AFTER:-}" ]; then eval "$D_AFTER"; fi
	blocked "$C1" "$url"
}

# ---------------------------------------------------------------- 1
daemon_01_watch_repair() { d_run _daemon_01; }
_daemon_01() {
	local conf h f="$SWT_TMP/prio.nft"
	conf=$(mkconf watch daemon.owner=no)
	reach "$C1" $D_META2            # the probe path is open without sandwall
	d_start "$conf" || return 1
	if grep -q 'event=start.*mode=watch' "$D_LOG"; then ok "owner = no runs in mode=watch"
	else bad "owner = no: start line lacks mode=watch"; fi
	expect_sw 0 "check after start" -c "$conf" check
	blocked "$C1" $D_META2

	d_tamper "delete table" "delete table" $D_META2 delete table inet sandwall
	D_AFTER=testnat_restore d_tamper "flush ruleset" "delete table" $D_META2 flush ruleset
	hnft list table ip testnat >/dev/null 2>&1 || bad "testnat_restore did not bring table ip testnat back"
	# the kernel refuses `delete chain block_lan` (still referenced): flush it instead
	if hnft delete chain inet sandwall block_lan 2>/dev/null; then
		info "the kernel accepted delete chain block_lan (unexpected); checking the repair"
		d_wait_sync "$conf" 1000 || bad "delete chain block_lan: not restored"
	else
		ok "delete chain block_lan refused by the kernel (referenced)"
	fi
	d_tamper "flush chain guard" "delete rule in chain guard (sandwall:spoofed)" $D_META2 flush chain inet sandwall guard
	d_tamper "flush chain block_metadata" "delete rule in chain block_metadata (sandwall:metadata-count)" $D_META2 flush chain inet sandwall block_metadata
	h=$(hnft -a list chain inet sandwall guard 2>/dev/null | grep '@metadata4' | grep -o 'handle [0-9]*' | head -n1 | cut -d' ' -f2)
	if [ -n "$h" ]; then
		d_tamper "delete rule handle $h (@metadata4)" "delete rule in chain guard (sandwall:metadata4)" $D_META2 delete rule inet sandwall guard handle "$h"
	else
		bad "no @metadata4 rule handle found in chain guard"
	fi
	d_tamper "insert accept in guard" "add rule in chain guard (untagged)" $D_META2 insert rule inet sandwall guard accept
	d_tamper "policy drop on prerouting" "add or change chain prerouting" $D_META2 \
		add chain inet sandwall prerouting '{ type filter hook prerouting priority -150; policy drop; }'
	# a base chain's priority cannot be changed in place (EOPNOTSUPP): re-create it in one batch
	cat >"$f" <<-'EOF'
	delete chain inet sandwall prerouting
	add chain inet sandwall prerouting { type filter hook prerouting priority -100; policy accept; }
	add rule inet sandwall prerouting iifname @guard_ifaces jump guard
	EOF
	d_tamper "priority -150 -> -100 (chain re-created)" "delete chain prerouting" $D_META2 -f "$f"
	d_tamper "delete element metadata4" "delete element of set metadata4 (1 element)" $D_META2 \
		delete element inet sandwall metadata4 '{ 100.100.100.200 }'
	d_tamper "flush set metadata4" "delete element of set metadata4*" $D_META2 flush set inet sandwall metadata4
	d_tamper "add element allow4 (metadata tcp/80)" "add element of set allow4 (1 element)" $D_META2 \
		add element inet sandwall allow4 '{ 100.100.100.200 . tcp . 80 }'
	d_tamper "table dormant" "change table" $D_META2 add table inet sandwall '{ flags dormant; }'
	# after all that: the daemon is alive, counts the drifts, the ruleset works
	d_sw -c "$conf" status --json
	local drifts
	drifts=$(jget daemon.drifts)
	if [[ $drifts =~ ^[0-9]+$ ]] && [ "$drifts" -ge 11 ]; then ok "status --json: daemon.drifts = $drifts"
	else bad "status --json: daemon.drifts = $drifts, expected >= 11"; show "$SW_OUT" 3; fi
	info "a storm: 60 tampers back to back (some may find the table mid-repair)"
	local i n0 nok=0
	n0=$(d_log_lines)
	for i in $(seq 1 20); do
		hnft delete table inet sandwall 2>/dev/null && nok=$((nok + 1))
		hnft flush chain inet sandwall guard 2>/dev/null && nok=$((nok + 1))
		hnft add element inet sandwall allow4 '{ 100.100.100.200 . tcp . 80 }' 2>/dev/null && nok=$((nok + 1))
	done
	if d_wait_sync "$conf" 1000; then ok "in sync ${D_WAITED} ms after the storm ($nok of 60 tampers took effect)"
	else bad "not in sync 1 s after the storm (check $SW_RC)"; show "$SW_OUT" 8; fi
	if _d_dead "$D_PID"; then bad "sandwalld died during the storm"; D_PID=""; return 1; fi
	info "storm alerts: $(tail -n +"$((n0 + 1))" "$D_LOG" | grep -c 'event=drift') drift line(s), $(tail -n +"$((n0 + 1))" "$D_LOG" | grep 'event=suppressed' | tr '\n' ' ')"
	blocked "$C1" $D_META
	reach "$C1" $D_NET
	if grep -q 'event=repair-failed' "$D_LOG"; then bad "repair-failed in the log"; grep 'event=repair-failed' "$D_LOG" | show - 5
	else ok "no event=repair-failed"; fi
	return 0
}

# ---------------------------------------------------------------- 2
daemon_02_new_bridge() { d_run _daemon_02; }
_daemon_02() {
	local conf br=br-5eed00c0ffee c4=${SWT_PREFIX}c4 n0 line t0 rc fp
	conf=$(mkconf default)
	d_start "$conf" || return 1
	D_UNDO+=("ip -n $H link del $br" "ip netns del $c4")
	n0=$(d_log_lines)
	t0=$(now_ms)
	ip -n "$H" link add "$br" type bridge &&
	ip -n "$H" addr add 172.19.0.1/16 dev "$br" &&
	ip -n "$H" link set "$br" up &&
	_mk_ns "$c4" &&
	_container "$H" "$c4" vethc4 "$br" 172.19.0.2/16 172.19.0.1 "" "" ||
		{ bad "could not create $br and container c4"; return 1; }
	info "bridge $br + container c4 (172.19.0.2) attached $(($(now_ms) - t0)) ms after the bridge was created"
	# straight away: 1 s of metadata flood from the new container, nothing may
	# get through; meanwhile the bridge's subnet must show up in own4
	nsx "$c4" "$PY" "$SRV" flood 169.254.169.254 80 54 1.0 >"$SWT_TMP/c4flood.out" 2>&1 &
	fp=$!
	if d_wait_set own4 172.19.0.2 yes 1000 set_covers && set_covers own4 172.19.255.254; then
		ok "172.19.0.0/16 in set own4 $(($(now_ms) - t0)) ms after the bridge was created: $(set_elems own4 | tr '\n' ' ')"
	else bad "172.19.0.0/16 not in set own4 within 1 s: $(set_elems own4 | tr '\n' ' ')"; fi
	wait $fp; rc=$?
	if [ $rc -eq 0 ]; then ok "c4 metadata flood for 1 s right after attaching: nothing got through ($(cat "$SWT_TMP/c4flood.out"))"
	else bad "c4 metadata flood right after attaching: traffic got through (exit $rc: $(cat "$SWT_TMP/c4flood.out"))"; fi
	d_flood "$c4" 100.100.100.200 0.3; rc=$?
	if [ $rc -eq 0 ]; then ok "c4 -> 100.100.100.200 flood: nothing got through ($FLOOD_OUT)"
	else bad "c4 -> 100.100.100.200 flood: traffic got through ($FLOOD_OUT)"; fi
	if line=$(d_wait_log "$n0" "event=bridge action=add ifname=$br" 1000); then ok "log: $line"
	else bad "no 'event=bridge action=add ifname=$br' in the daemon log"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 8; fi
	blocked "$c4" $D_META
	blocked "$c4" http://172.19.0.1:8080/     # host services on the new bridge
	reach "$c4" $D_NET                        # the container is connected: internet works
	expect_sw 0 "check after the new bridge" -c "$conf" check
	info "bridge removed while the daemon runs"
	n0=$(d_log_lines)
	ip netns del "$c4"
	ip -n "$H" link del "$br"
	if d_wait_set own4 172.19.0.2 no 1000 set_covers; then ok "172.19.0.0/16 left set own4 (${D_WAITED} ms): $(set_elems own4 | tr '\n' ' ')"
	else bad "172.19.0.0/16 still in own4 after the bridge was deleted: $(set_elems own4 | tr '\n' ' ')"; fi
	set_covers own4 172.18.0.2 || bad "172.18.0.0/16 (br-0a1b2c3d4e5f) no longer in own4"
	if line=$(d_wait_log "$n0" "event=bridge action=del ifname=$br" 1000); then ok "log: $line"
	else bad "no 'event=bridge action=del ifname=$br' in the daemon log"; fi
	expect_sw 0 "check after the bridge left" -c "$conf" check
	return 0
}

# ---------------------------------------------------------------- 3
# _lab0: create bridge lab0 (172.20.0.1/16) and container c5 behind it
_lab0() {
	ip -n "$H" link add lab0 type bridge &&
	ip -n "$H" addr add 172.20.0.1/16 dev lab0 &&
	ip -n "$H" link set lab0 up &&
	_mk_ns "${SWT_PREFIX}c5" &&
	_container "$H" "${SWT_PREFIX}c5" vethc5 lab0 172.20.0.2/16 172.20.0.1 "" ""
}
_lab0_del() { ip netns del "${SWT_PREFIX}c5" 2>/dev/null; ip -n "$H" link del lab0 2>/dev/null; return 0; }

daemon_03_all_bridges() { d_run _daemon_03; }
_daemon_03() {
	local conf c5=${SWT_PREFIX}c5 n0 line rc
	D_UNDO+=(_lab0_del)
	info "all_bridges = no: lab0 is not guarded"
	conf=$(mkconf allbr_no guard.all_bridges=no)
	d_start "$conf" || return 1
	n0=$(d_log_lines)
	_lab0 || { bad "could not create lab0 + c5"; return 1; }
	reach "$c5" $D_META
	reach "$c5" $D_META2
	if set_has guard_ifaces lab0; then bad "lab0 in guard_ifaces with all_bridges = no"; else ok "lab0 not in guard_ifaces"; fi
	if tail -n +"$((n0 + 1))" "$D_LOG" | grep -q 'event=bridge action=add ifname=lab0'; then
		bad "event=bridge action=add ifname=lab0 logged with all_bridges = no"
	else ok "no bridge event for unguarded lab0"; fi
	d_stop TERM
	_lab0_del
	hnft delete table inet sandwall 2>/dev/null

	info "all_bridges = yes: lab0 is guarded as soon as it exists"
	conf=$(mkconf allbr_yes guard.all_bridges=yes)
	d_start "$conf" || return 1
	n0=$(d_log_lines)
	_lab0 || { bad "could not create lab0 + c5"; return 1; }
	d_flood "$c5" 169.254.169.254 1.0; rc=$?
	if [ $rc -eq 0 ]; then ok "c5 (behind lab0) metadata flood for 1 s right after attaching: nothing got through ($FLOOD_OUT)"
	else bad "c5 (behind lab0) metadata flood: traffic got through ($FLOOD_OUT)"; fi
	if set_has guard_ifaces lab0; then ok "lab0 in guard_ifaces"; else bad "lab0 not in guard_ifaces: $(set_elems guard_ifaces | tr '\n' ' ')"; fi
	if d_wait_set own4 172.20.0.2 yes 1000 set_covers; then ok "172.20.0.0/16 in own4: $(set_elems own4 | tr '\n' ' ')"
	else bad "172.20.0.0/16 not in own4: $(set_elems own4 | tr '\n' ' ')"; fi
	if line=$(d_wait_log "$n0" 'event=bridge action=add ifname=lab0' 1000); then ok "log: $line"
	else bad "no 'event=bridge action=add ifname=lab0' in the daemon log"; fi
	blocked "$c5" $D_META2
	blocked "$c5" http://172.20.0.1:8080/
	reach "$c5" $D_NET
	expect_sw 0 "check (all_bridges = yes, lab0 present)" -c "$conf" check
	n0=$(d_log_lines)
	_lab0_del
	if d_wait_set guard_ifaces lab0 no 1000; then ok "lab0 left guard_ifaces after deletion (${D_WAITED} ms)"
	else bad "lab0 still in guard_ifaces after deletion"; fi
	expect_sw 0 "check after lab0 left" -c "$conf" check
	return 0
}

# ---------------------------------------------------------------- 4
daemon_04_gateway() { d_run _daemon_04; }
_daemon_04() {
	local conf n0 line
	ip -n "$CL" addr add 10.0.0.254/24 dev eth0 || { bad "cannot add 10.0.0.254 on the cloud side"; return 1; }
	D_UNDO+=("ip -n $CL addr del 10.0.0.254/24 dev eth0" "ip -n $H route replace default via 10.0.0.1")
	# lan = no: 10.0.0.254 and 10.0.0.1 are blocked only while they are gateways
	conf=$(mkconf gw block.lan=no)
	d_start "$conf" || return 1
	if set_has gateways4 10.0.0.1; then ok "gateways4 = $(set_elems gateways4 | tr '\n' ' ')"
	else bad "gateways4 lacks 10.0.0.1: $(set_elems gateways4 | tr '\n' ' ')"; fi
	reach "$C1" http://10.0.0.254/
	blocked "$C1" http://10.0.0.1/
	n0=$(d_log_lines)
	ip -n "$H" route replace default via 10.0.0.254 || { bad "route replace failed"; return 1; }
	if d_wait_set gateways4 10.0.0.254 yes 1000 && d_wait_set gateways4 10.0.0.1 no 1000; then
		ok "gateways4 follows the new default route: $(set_elems gateways4 | tr '\n' ' ')"
	else
		bad "gateways4 after the route change: $(set_elems gateways4 | tr '\n' ' '), expected 10.0.0.254 only"
	fi
	if line=$(d_wait_log "$n0" 'event=gateway .*addr=10\.0\.0\.254' 1000); then ok "log: $line"
	else bad "no event=gateway line for 10.0.0.254"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 8; fi
	# the old gateway: its own del line, or old= on a change line
	if line=$(d_wait_log "$n0" 'event=gateway .*(addr|old)=10\.0\.0\.1( |$)' 1000); then ok "log names the old gateway: $line"
	else bad "no event=gateway line naming the old gateway 10.0.0.1"; fi
	blocked "$C1" http://10.0.0.254/
	reach "$C1" http://10.0.0.1/
	reach "$C1" $D_NET
	expect_sw 0 "check after the gateway change" -c "$conf" check
	info "route restored"
	ip -n "$H" route replace default via 10.0.0.1
	if d_wait_set gateways4 10.0.0.1 yes 1000 && d_wait_set gateways4 10.0.0.254 no 1000; then
		ok "gateways4 back to 10.0.0.1 (${D_WAITED} ms)"
	else bad "gateways4 after restoring the route: $(set_elems gateways4 | tr '\n' ' ')"; fi
	blocked "$C1" http://10.0.0.1/
	return 0
}

# ---------------------------------------------------------------- 5
# _d_persisted CONF WHAT: after the daemon died: rules in force, table left
# persist without owner, no daemon answers
_d_persisted() {
	local conf=$1 what=$2
	if table_exists; then ok "[$what] table inet sandwall still there"; else bad "[$what] table gone"; fi
	expect_sw 0 "[$what] rules unchanged" -c "$conf" check
	blocked "$C1" $D_META2
	d_sw -c "$conf" status --json
	if [ "$(jget persist)" = true ] && [ "$(jget owner)" = false ] && [ "$(jget daemon)" = null ]; then
		ok "[$what] status: persist, no owner, no daemon"
	else
		bad "[$what] status: owner=$(jget owner) persist=$(jget persist) daemon=$(jget daemon); expected false/true/null"
	fi
}

# _d_adopted CONF WHAT: a restarted daemon took the table back
_d_adopted() {
	local conf=$1 what=$2
	d_start "$conf" || return 1
	if grep -q 'adopted' "$D_LOG"; then ok "[$what] restart: $(grep -m1 adopted "$D_LOG" | sed 's/^sandwalld: //')"
	else info "[$what] restart re-applied (no 'adopted' line): $(head -n 3 "$D_LOG" | tr '\n' ' ' | sed "s|$SWT_TMP/||g")"; fi
	expect_sw 0 "[$what] check after the restart" -c "$conf" check
	d_status_is "$conf" owner true
	d_status_is "$conf" persist true
	blocked "$C1" $D_META2
}

daemon_05_term_kill() { d_run _daemon_05; }
_daemon_05() {
	local conf
	conf=$(mkconf persist)
	d_start "$conf" || return 1
	if grep -q 'event=start.*mode=owner+persist' "$D_LOG"; then ok "owner = auto on this kernel: mode=owner+persist"
	else bad "owner = auto: start line lacks mode=owner+persist (kernel $(uname -r))"; fi
	expect_sw 0 "check after start" -c "$conf" check
	d_status_is "$conf" owner true
	d_status_is "$conf" persist true

	d_stop TERM
	if [ "$D_RC" -eq 0 ]; then ok "SIGTERM: sandwalld exit 0"; else bad "SIGTERM: sandwalld exit $D_RC"; fi
	if grep -q 'event=stop.*rules=left-in-place' "$D_LOG"; then ok "log: $(grep -m1 'event=stop' "$D_LOG" | sed 's/^sandwalld: //')"
	else bad "no 'event=stop ... rules=left-in-place' line"; fi
	_d_persisted "$conf" SIGTERM
	_d_adopted "$conf" "after SIGTERM" || return 1

	d_stop KILL
	_d_persisted "$conf" "kill -9"
	_d_adopted "$conf" "after kill -9" || return 1

	info "restart with a different config (lan = no) over the orphaned table: re-applied, not appended"
	d_stop TERM
	conf=$(mkconf persist_lan_no block.lan=no)
	d_start "$conf" || return 1
	expect_sw 0 "check against the new config after the restart" -c "$conf" check
	d_status_is "$conf" owner true
	d_status_is "$conf" persist true
	reach "$C1" http://10.0.0.50/
	blocked "$C1" $D_META2
	if hnft delete table inet sandwall 2>/dev/null; then bad "the re-applied table is not owned (nft delete table worked)"
	else ok "the re-applied table is owned (nft delete table refused)"; fi
	return 0
}

# ---------------------------------------------------------------- 6
daemon_06_reload() { d_run _daemon_06; }
_daemon_06() {
	local conf="$SWT_TMP/reload.conf" good n0 line
	cp "$(mkconf reload_lan_yes block.lan=yes)" "$conf"
	d_start "$conf" || return 1
	blocked "$C1" http://10.0.0.50/
	printf '[guard]\ninterfaces = docker0 br-*\n[block]\nlan = yes\nmetadata = maybe\n' >"$conf"
	n0=$(d_log_lines)
	kill -HUP "$D_PID"
	if line=$(d_wait_log "$n0" 'event=reload-failed' 2000); then
		if [[ $line == *"$conf:5:"* ]]; then ok "log: ${line//$SWT_TMP\//}"
		else bad "reload-failed line lacks '$conf:5:': $line"; fi
		[[ $line == *action=kept-rules* ]] || bad "reload-failed line lacks action=kept-rules: $line"
	else
		bad "no event=reload-failed within 2 s of SIGHUP with a broken config"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 8
	fi
	sleep 0.2
	if _d_dead "$D_PID"; then bad "sandwalld died after the bad reload"; show "$D_LOG"; D_PID=""; return 1; fi
	ok "sandwalld still running after the bad reload"
	d_status_is "$SWT_TMP/reload_lan_yes.conf" daemon.mode owner+persist
	expect_sw 0 "rules still match the old config" -c "$SWT_TMP/reload_lan_yes.conf" check
	blocked "$C1" http://10.0.0.50/
	blocked "$C1" $D_META2

	info "good reload: lan = no"
	good=$(mkconf reload_lan_no block.lan=no)
	cp "$good" "$conf"
	n0=$(d_log_lines)
	kill -HUP "$D_PID"
	if line=$(d_wait_log "$n0" 'event=reload .*result=ok' 2000); then ok "log: ${line//$SWT_TMP\//}"
	else bad "no 'event=reload ... result=ok' within 2 s"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 8; fi
	if d_wait_sync "$good" 1000; then ok "kernel matches the new config (check 0 after ${D_WAITED} ms)"
	else bad "kernel does not match the new config after the reload"; show "$SW_OUT" 8; fi
	reach "$C1" http://10.0.0.50/
	blocked "$C1" $D_META2
	blocked "$C1" http://10.0.0.1/
	return 0
}

# ---------------------------------------------------------------- 7
daemon_07_owner_flood() { d_run _daemon_07; }
_daemon_07() {
	local conf i rc fails=0 eperm=0 stop="$SWT_TMP/dflood.stop" p4 p6 r4 r6
	local f4="$SWT_TMP/dflood4.out" f6="$SWT_TMP/dflood6.out" cmd
	conf=$(mkconf owner)
	d_flood "$C1" 169.254.169.254 0.3; rc=$?
	if [ $rc -eq 1 ]; then ok "without sandwall the flood detector sees traffic ($FLOOD_OUT)"
	else bad "flood detector saw nothing on the open path ($FLOOD_OUT): the 0-packet result below would prove nothing"; fi
	d_start "$conf" || return 1
	grep -q 'mode=owner+persist' "$D_LOG" || bad "not in mode owner+persist"
	local -a tampers=(
		"delete table inet sandwall"
		"flush table inet sandwall"
		"add rule inet sandwall guard accept"
		"delete element inet sandwall metadata4 { 169.254.169.254 }"
	)
	for cmd in "${tampers[@]}"; do
		# shellcheck disable=SC2086
		if hnft $cmd 2>"$SWT_TMP/nft.err"; then bad "nft $cmd succeeded on the owned table"
		elif grep -q 'Operation not permitted' "$SWT_TMP/nft.err"; then ok "nft $cmd -> Operation not permitted"
		else bad "nft $cmd failed, but not with EPERM: $(grep -m1 Error "$SWT_TMP/nft.err")"; fi
	done
	expect_sw 0 "check after the refused tampers" -c "$conf" check
	if hnft flush ruleset 2>"$SWT_TMP/nft.err"; then ok "nft flush ruleset exit 0"; else bad "nft flush ruleset failed"; show "$SWT_TMP/nft.err"; fi
	if table_exists; then ok "nft flush ruleset left table inet sandwall"; else bad "nft flush ruleset removed table inet sandwall"; fi
	expect_sw 0 "check after flush ruleset" -c "$conf" check
	testnat_restore || bad "could not restore table ip testnat"
	reach "$C1" $D_NET            # NAT back: the flood below has a return path

	info "metadata flood (v4 + v6) from c1 during 200 tamper attempts"
	rm -f "$stop"
	nsx "$C1" "$PY" "$SRV" flood 169.254.169.254 80 54 60 "$stop" >"$f4" 2>&1 &
	p4=$!
	nsx "$C1" "$PY" "$SRV" flood fd00:ec2::254 80 54 60 "$stop" >"$f6" 2>&1 &
	p6=$!
	sleep 0.2
	for i in $(seq 0 199); do
		cmd=${tampers[$((i % ${#tampers[@]}))]}
		# shellcheck disable=SC2086
		if hnft $cmd 2>"$SWT_TMP/nft.err"; then fails=$((fails + 1))
		elif grep -q 'Operation not permitted' "$SWT_TMP/nft.err"; then eperm=$((eperm + 1)); fi
	done
	sleep 0.2
	touch "$stop"
	wait $p4; r4=$?
	wait $p6; r6=$?
	if [ $fails -eq 0 ] && [ $eperm -eq 200 ]; then ok "200 tamper attempts: all refused with EPERM"
	else bad "200 tamper attempts: $fails succeeded, $eperm refused with EPERM"; fi
	if [ $r4 -eq 0 ]; then ok "v4 metadata flood: 0 packets through ($(cat "$f4"))"
	else bad "v4 metadata flood: traffic got through (exit $r4: $(cat "$f4"))"; fi
	if [ $r6 -eq 0 ]; then ok "v6 metadata flood: 0 packets through ($(cat "$f6"))"
	else bad "v6 metadata flood: traffic got through (exit $r6: $(cat "$f6"))"; fi
	expect_sw 0 "check after the tamper loop" -c "$conf" check
	d_status_is "$conf" daemon.drifts 0
	return 0
}

# ---------------------------------------------------------------- 8
daemon_08_cli_control() { d_run _daemon_08; }
_daemon_08() {
	local conf n0 i gone=1
	conf=$(mkconf cli)
	d_start "$conf" || return 1
	d_status_is "$conf" daemon.mode owner+persist
	d_status_is "$conf" daemon.pid "$D_PID"
	d_sw -c "$conf" apply
	if [ "$SW_RC" -eq 0 ] && grep -q '^sandwalld: ' "$SW_OUT"; then ok "apply via the daemon: $(head -n1 "$SW_OUT")"
	else bad "apply with the daemon running: exit $SW_RC, stdout: $(head -c 200 "$SW_OUT")"; show "$SW_ERR"; fi

	n0=$(d_log_lines)
	d_sw -c "$conf" remove
	if [ "$SW_RC" -eq 0 ] && grep -q '^sandwalld: ' "$SW_OUT"; then ok "remove via the daemon: $(head -n1 "$SW_OUT")"
	else bad "remove with the daemon running: exit $SW_RC, stdout: $(head -c 200 "$SW_OUT")"; show "$SW_ERR"; fi
	for i in $(seq 1 10); do table_exists && { gone=0; break; }; sleep 0.2; done
	if [ $gone = 1 ]; then ok "table stays absent for 2 s (the daemon paused)"
	else bad "table came back within 2 s of sandwall remove"; fi
	if tail -n +"$((n0 + 1))" "$D_LOG" | grep -qE 'event=(drift|applied)'; then
		bad "the daemon repaired after remove:"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 5
	else ok "no repair logged after remove"; fi
	d_status_is "$conf" daemon.paused yes
	reach "$C1" $D_META2

	d_sw -c "$conf" apply
	if [ "$SW_RC" -eq 0 ] && grep -q '^sandwalld: ' "$SW_OUT"; then ok "apply after remove, via the daemon: $(head -n1 "$SW_OUT")"
	else bad "apply after remove: exit $SW_RC, stdout: $(head -c 200 "$SW_OUT")"; show "$SW_ERR"; fi
	expect_sw 0 "check after apply" -c "$conf" check
	d_status_is "$conf" owner true
	d_status_is "$conf" persist true
	d_status_is "$conf" daemon.paused no
	blocked "$C1" $D_META2
	if hnft delete table inet sandwall 2>/dev/null; then bad "the re-applied table is not owned: nft delete table worked"
	else ok "the re-applied table is owned again (nft delete table refused)"; fi

	info "daemon stopped, persist table left: the CLI works directly"
	d_stop TERM
	d_status_is "$conf" daemon null
	d_sw -c "$conf" apply
	if [ "$SW_RC" -eq 0 ] && ! grep -q '^sandwalld: ' "$SW_OUT"; then ok "direct apply: $(head -n1 "$SW_OUT")"
	else bad "direct apply without daemon: exit $SW_RC, stdout: $(head -c 200 "$SW_OUT")"; show "$SW_ERR"; fi
	expect_sw 0 "check after the direct apply" -c "$conf" check
	blocked "$C1" $D_META2
	expect_sw 0 "direct remove" --control "$SWT_TMP/ctl.none" -c "$conf" remove
	if table_exists; then bad "table still there after a direct remove"; else ok "table removed directly"; fi
	return 0
}

# ---------------------------------------------------------------- 9
daemon_09_event_burst() { d_run _daemon_09; }
_daemon_09() {
	local conf f="$SWT_TMP/burst.nft" i bp n0 t0 enob
	conf=$(mkconf burst daemon.owner=no)
	D_UNDO+=("nsx $H nft delete table inet swburst")
	{
		echo "table inet swburst"
		echo "delete table inet swburst"
		echo "table inet swburst {"
		echo "	set s { type ipv4_addr; }"
		echo "	chain c {"
		for i in $(seq 1 2000); do echo "		ip daddr 10.99.$((i / 250)).$((i % 250 + 1)) tcp dport $((1000 + i)) counter"; done
		echo "	}"
		echo "}"
	} >"$f"
	d_start "$conf" || return 1
	n0=$(d_log_lines)
	# two writers, 4 batches of 2000 rules each (the delete emits 2000 more events)
	( for i in 1 2 3 4; do nsx "$H" nft -f "$f"; done ) >/dev/null 2>&1 &
	bp=$!
	( for i in 1 2 3 4; do nsx "$H" nft -f "$f"; done ) >/dev/null 2>&1 &
	local bp2=$!
	sleep 0.1
	hnft delete element inet sandwall metadata4 '{ 100.100.100.200 }' ||
		bad "the tamper during the burst failed"
	wait $bp; wait $bp2
	t0=$(now_ms)
	if d_wait_sync "$conf" 2000; then ok "in sync ${D_WAITED} ms after the burst ended"
	else bad "not in sync 2 s after the burst (check $SW_RC)"; show "$SW_OUT" 8; fi
	enob=$(tail -n +"$((n0 + 1))" "$D_LOG" | grep -c 'event=enobufs')
	if [ "$enob" -gt 0 ]; then
		info "the burst overflowed the event socket $enob time(s): $(grep -m1 'event=enobufs' "$D_LOG" | sed 's/^sandwalld: //')"
		if tail -n +"$((n0 + 1))" "$D_LOG" | grep -q 'event=drift'; then
			ok "drift repaired after ENOBUFS: $(tail -n +"$((n0 + 1))" "$D_LOG" | grep -m1 'event=drift' | sed 's/^sandwalld: //')"
		else info "no drift line (repair may have been logged as suppressed)"; fi
		d_sw -c "$conf" status --json
		info "daemon status: enobufs=$(jget daemon.enobufs) resyncs=$(jget daemon.resyncs) drifts=$(jget daemon.drifts)"
	else
		info "no ENOBUFS in this run (receive buffer large enough)"
		if tail -n +"$((n0 + 1))" "$D_LOG" | grep -q 'event=drift'; then
			ok "log: $(tail -n +"$((n0 + 1))" "$D_LOG" | grep -m1 'event=drift' | sed 's/^sandwalld: //')"
		else bad "the tamper during the burst was not logged as drift"; fi
	fi
	if _d_dead "$D_PID"; then bad "sandwalld died during the burst"; D_PID=""; return 1; fi
	blocked "$C1" $D_META2
	return 0
}

# A container that probes many destinations fills the event=blocked budget;
# a drift in the same second must still be reported (separate budgets).
register_test daemon_10_alert_budget "a burst of blocked attempts does not crowd out the drift alert"
daemon_10_alert_budget() { d_run _daemon_10; }
_daemon_10() {
	local conf n0 nb
	conf=$(mkconf budget daemon.owner=no)
	d_start "$conf" || return 1
	n0=$(d_log_lines)
	# 120 distinct blocked destinations (link-local, LAN, host ports) at once:
	# the kernel logs up to its burst of 20 per category, 60 lines in all
	nsx "$C1" "$PY" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(1, 41):
    s.sendto(b"x", ("169.254.1.%d" % i, 9))
    s.sendto(b"x", ("10.0.0.%d" % (100 + i), 9))
    s.sendto(b"x", ("172.17.0.1", 1000 + i))
' || bad "the probe burst could not be sent"
	hnft delete table inet sandwall || bad "the tamper failed"
	if d_wait_sync "$conf" 1000; then ok "repaired: in sync ${D_WAITED} ms after the tamper"
	else bad "not in sync 1 s after the tamper"; fi
	sleep 1.2          # let the suppressed counts be written
	nb=$(tail -n +"$((n0 + 1))" "$D_LOG" | grep -c 'event=blocked')
	if [ "$nb" -ge 20 ]; then ok "$nb event=blocked lines: the blocked budget (20/s) was used up"
	else info "only $nb event=blocked lines: the budget was not exhausted, the check below proves less"; fi
	if tail -n +"$((n0 + 1))" "$D_LOG" | grep -q 'event=drift.*change="delete table"'; then
		ok "the drift alert is there: $(tail -n +"$((n0 + 1))" "$D_LOG" | grep -m1 'event=drift' | sed 's/^sandwalld: //')"
	else
		bad "no event=drift line for the deleted table"
		tail -n +"$((n0 + 1))" "$D_LOG" | grep 'event=suppressed' | show - 5
	fi
	return 0
}

# ---------------------------------------------------------------- 11
register_test daemon_11_twin_flood "owner = twin: the owned twin holds through 50 tampers of the unowned table and a kill -9 + restart (0 flood packets); watch mode shows the gap it closes"

# _tf_start / _tf_stop: v4 + v6 metadata flood from c1 (the flood tool's
# exit: 0 = nothing came back); TF_R4/TF_R6 and TF_F4/TF_F6 (its words)
_tf_start() {
	TF_STOP="$SWT_TMP/tflood.stop"
	TF_F4="$SWT_TMP/tflood4.out"; TF_F6="$SWT_TMP/tflood6.out"
	rm -f "$TF_STOP"
	nsx "$C1" "$PY" "$SRV" flood 169.254.169.254 80 54 60 "$TF_STOP" >"$TF_F4" 2>&1 &
	TF_P4=$!
	nsx "$C1" "$PY" "$SRV" flood fd00:ec2::254 80 54 60 "$TF_STOP" >"$TF_F6" 2>&1 &
	TF_P6=$!
	sleep 0.2
}
_tf_stop() {
	sleep 0.3
	touch "$TF_STOP"
	wait "$TF_P4"; TF_R4=$?
	wait "$TF_P6"; TF_R6=$?
}

# _tamper_flood: the flood while the host tampers with the (unowned) table
# 10 times each way: delete table, flush ruleset, flush the guard chain, a
# rogue accept rule first in it, the metadata element deleted (NAT restored
# after each flush so that an answer can come back)
_tamper_flood() {
	local i
	_tf_start
	for i in $(seq 1 10); do
		hnft delete table inet sandwall 2>/dev/null
		sleep 0.05
		hnft flush ruleset 2>/dev/null
		testnat_restore
		sleep 0.05
		hnft flush chain inet sandwall guard 2>/dev/null
		sleep 0.05
		hnft insert rule inet sandwall guard accept 2>/dev/null
		sleep 0.05
		hnft delete element inet sandwall metadata4 '{ 169.254.169.254 }' 2>/dev/null
		hnft delete element inet sandwall metadata6 '{ fd00:ec2::254 }' 2>/dev/null
		sleep 0.05
	done
	_tf_stop
}

# _tf_result DESC: 0 packets through, v4 and v6
_tf_result() {
	if [ "$TF_R4" -eq 0 ]; then ok "$1: v4 metadata flood, 0 packets through ($(cat "$TF_F4"))"
	else bad "$1: v4 metadata flood got through (exit $TF_R4: $(cat "$TF_F4"))"; fi
	if [ "$TF_R6" -eq 0 ]; then ok "$1: v6 metadata flood, 0 packets through ($(cat "$TF_F6"))"
	else bad "$1: v6 metadata flood got through (exit $TF_R6: $(cat "$TF_F6"))"; fi
}

daemon_11_twin_flood() { d_run _daemon_11; }
_daemon_11() {
	local conf rc
	d_flood "$C1" 169.254.169.254 0.3; rc=$?
	if [ $rc -eq 1 ]; then ok "without sandwall the flood detector sees traffic ($FLOOD_OUT)"
	else bad "flood detector saw nothing on the open path ($FLOOD_OUT): the 0-packet result below would prove nothing"; fi

	# baseline in the same run: watch mode repairs after the fact
	conf=$(mkconf watch daemon.owner=no)
	apply_ok "$conf" || return 1
	d_start "$conf" || return 1
	_tamper_flood
	info "watch mode: v4 $(cat "$TF_F4"); v6 $(cat "$TF_F6")"
	d_stop TERM
	testnat_restore
	hnft delete table inet sandwall 2>/dev/null

	conf=$(mkconf twin daemon.owner=twin)
	apply_ok "$conf" || return 1
	d_start "$conf" || return 1
	grep -q 'mode=twin' "$D_LOG" && ok "mode twin" || bad "not in mode twin"
	if hnft list table inet sandwall_twin 2>/dev/null | grep -q 'flags owner'; then
		ok "table inet sandwall_twin is owned by sandwalld"
	else
		bad "no owned table inet sandwall_twin"; hnft list tables | show -
	fi
	if hnft delete table inet sandwall_twin 2>"$SWT_TMP/nft.err"; then bad "nft delete table inet sandwall_twin succeeded"
	elif grep -q 'Operation not permitted' "$SWT_TMP/nft.err"; then ok "nft delete table inet sandwall_twin -> Operation not permitted"
	else bad "deleting the twin failed, but not with EPERM"; show "$SWT_TMP/nft.err"; fi
	hnft list chain inet sandwall_twin prerouting | grep -q 'priority mangle + 10' &&
		ok "the twin hooks after the main table (priority -140)" || bad "twin priority is not -140"
	_tamper_flood
	_tf_result "twin, 50 tampers (delete, flush ruleset, flush chain, rogue accept, element)"
	d_wait_sync "$conf" 2000 && ok "main table restored (check 0)" || bad "main table not restored"
	# kill -9: the twin goes with the daemon, the unowned table holds; a
	# new daemon makes a new twin without a gap
	_tf_start
	d_stop KILL
	sleep 0.3
	d_start "$conf" || { _tf_stop; return 1; }
	sleep 0.3
	_tf_stop
	_tf_result "twin, kill -9 and restart"
	grep -q 'mode=twin' "$D_LOG" && ok "the restarted daemon is in mode twin" || bad "restart not in mode twin"
	d_stop TERM
	if hnft list table inet sandwall_twin >/dev/null 2>&1; then bad "the twin outlived the daemon"
	else ok "the twin went with the daemon"; fi
	table_exists && ok "the unowned table stays after the daemon (fail closed)" || bad "no table after the daemon stopped"
	return 0
}

# ---------------------------------------------------------------- 12
register_test daemon_12_apply_deltas "apply with the daemon's own config edited: an entry goes in as an element delta (real traffic decides), a bad edit is refused with FILE:LINE and changes nothing, a rule change takes the full path"
daemon_12_apply_deltas() { d_run _daemon_12; }
_daemon_12() {
	local conf="$SWT_TMP/apply12.conf" n0 line
	cp "$(mkconf apply12_base)" "$conf"
	d_start "$conf" || return 1
	blocked "$C1" http://10.0.0.50/

	info "one [allow] entry added to the daemon's config, then sandwall apply"
	cp "$(mkconf apply12_allow 'allow.destinations=10.0.0.50 tcp/80 reopen')" "$conf"
	n0=$(d_log_lines)
	d_sw -c "$conf" apply
	if [ "$SW_RC" -eq 0 ] && grep -q '^sandwalld: reloaded and in sync' "$SW_OUT"; then ok "apply via the daemon: $(head -n1 "$SW_OUT")"
	else bad "apply: exit $SW_RC, stdout: $(head -c 200 "$SW_OUT")"; show "$SW_ERR"; fi
	# the element delta names the element; the full path logs change="reload"
	if line=$(d_wait_log "$n0" 'event=applied .*allow4_exact element 10\.0\.0\.50' 1000); then
		ok "the reload sent an element delta: ${line//$SWT_TMP\//}"
	else bad "no element-delta line for the new entry"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 6; fi
	expect_sw 0 "check after the delta" -c "$conf" check
	reach "$C1" http://10.0.0.50/
	blocked "$C1" $D_META2

	info "another table's transaction in between (as docker's iptables-nft makes): still a delta"
	hnft add table inet other12 && hnft add chain inet other12 c || bad "nft add table inet other12 failed"
	D_UNDO+=("nsx $H nft delete table inet other12")
	cp "$(mkconf apply12_allow2 'allow.destinations=10.0.0.50 tcp/80 reopen, 10.0.0.50 tcp/81 reopen')" "$conf"
	n0=$(d_log_lines)
	d_sw -c "$conf" apply
	[ "$SW_RC" -eq 0 ] || { bad "apply: exit $SW_RC"; show "$SW_ERR"; }
	if line=$(d_wait_log "$n0" 'event=applied .*allow4_exact element 10\.0\.0\.50 \. 6 \. 81' 1000); then
		ok "an element delta after another table's commit: ${line//$SWT_TMP\//}"
	else bad "no element-delta line after another table's commit"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 6; fi
	expect_sw 0 "check after the delta" -c "$conf" check

	info "a broken edit: refused with FILE:LINE, the rules stay"
	cp "$conf" "$SWT_TMP/apply12.good"
	printf '[allow]\ndestinations = 10.0.0.50 tcp/80 reopen,\n    10.0.0.51 tcp/99999\n' >"$conf"
	d_sw -c "$conf" apply
	if [ "$SW_RC" -eq 2 ] && grep -q "$conf:3:" "$SW_ERR"; then ok "refused: $(head -n1 "$SW_ERR" | sed "s|$SWT_TMP/||g")"
	else bad "broken config: exit $SW_RC (want 2), stderr lacks '$conf:3:'"; show "$SW_ERR"; fi
	expect_sw 0 "the kernel still holds the last good config" -c "$SWT_TMP/apply12.good" check
	reach "$C1" http://10.0.0.50/

	info "a rule change (lan = no): not elements only, the full path"
	_d12_apply "$conf" "$(mkconf apply12_lan_no block.lan=no)" "lan = no"
	reach "$C1" http://10.0.0.50/
	blocked "$C1" $D_META2

	info "the entry removed again (lan = yes): the block is back"
	_d12_apply "$conf" "$(mkconf apply12_base2)" "entry removed"
	blocked "$C1" http://10.0.0.50/
	return 0
}

# _d12_apply CONF NEW WHAT: NEW becomes the daemon's CONF, sandwall apply
# asks the daemon, and check agrees afterwards
_d12_apply() {
	cp "$2" "$1"
	d_sw -c "$1" apply
	if [ "$SW_RC" -eq 0 ]; then ok "apply ($3): $(head -n1 "$SW_OUT")"
	else bad "apply ($3): exit $SW_RC"; show "$SW_ERR"; fi
	expect_sw 0 "check after the apply ($3)" -c "$1" check
}
