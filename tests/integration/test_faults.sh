# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Faults suite (issue 24): requests whose client gave up are never run, a
# config that loses protection is not applied on reload, the descriptor
# limit does not spin the daemon, one daemon per table and control socket.
# Uses the daemon suite's helpers (test_daemon.sh: d_start, d_stop, d_run).

register_test faults_01_stale_request "a SIGSTOPped daemon: remove and status give up within seconds (exit 2); after SIGCONT the table is still there, in sync, and the stale request is logged as not executed"
register_test faults_02_config_loss   "an empty config, one truncated at a line boundary, one without a section the running one had: refused on SIGHUP and via apply (FILE:LINE), traffic still blocked; --accept-loss applies it"
register_test faults_03_emfile        "at the descriptor limit a client is answered or refused, the daemon's CPU stays low, a tamper is repaired"
register_test faults_05_restart_window "kill -9 under a service manager with an fd store (emulated), nft delete table at once, restart: the table stays owned (owner+persist) or the twin holds (twin), 0 flood packets"
register_test faults_04_two_daemons   "a second sandwalld (watch, twin, owner+persist; same table or same control socket) exits 2 naming the first one's pid; the first keeps answering"

# f_cpu_ticks PID: utime+stime of a process (clock ticks)
f_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

# f_raw SOCKET VERB DEADLINE_MS WAIT_S: a raw control client in the host ns:
# sends VERB (with deadline=now+DEADLINE_MS unless 0), waits WAIT_S seconds
# for an answer (all messages printed), then closes
f_raw() {
	nsx "$H" "$PY" - "$@" <<'PYEOF'
import socket, sys, time, select
path, verb, dl, wait = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(path)
msg = verb if dl == 0 else "%s\ndeadline=%d\n" % (verb, int(time.time() * 1000) + dl)
s.send(msg.encode())
end = time.time() + wait
while True:
    left = end - time.time()
    if left <= 0:
        break
    r, _, _ = select.select([s], [], [], left)
    if not r:
        break
    m = s.recv(4096)
    if not m:
        break
    sys.stdout.write(m.decode(errors="replace"))
s.close()
PYEOF
}

# ---------------------------------------------------------------- 1
faults_01_stale_request() { d_run _faults_01; }
_faults_01() {
	local conf t0 dt n0 line
	conf=$(mkconf stale)
	d_start "$conf" || return 1
	blocked "$C1" $D_META2
	n0=$(d_log_lines)
	kill -STOP "$D_PID"
	D_UNDO+=("kill -CONT $D_PID")
	t0=$(now_ms)
	d_sw -c "$conf" remove
	dt=$(($(now_ms) - t0))
	if [ "$SW_RC" -eq 2 ] && [ "$dt" -lt 6000 ]; then ok "remove against a stopped daemon: exit 2 after $dt ms: $(head -c 160 "$SW_ERR")"
	else bad "remove against a stopped daemon: exit $SW_RC after $dt ms (want 2 within 6 s)"; show "$SW_ERR"; fi
	t0=$(now_ms)
	d_sw -c "$conf" status
	dt=$(($(now_ms) - t0))
	if [ "$SW_RC" -eq 2 ] && grep -q 'not answering' "$SW_OUT" "$SW_ERR" && [ "$dt" -lt 6000 ]; then
		ok "status against a stopped daemon: exit 2 after $dt ms, says 'not answering'"
	else bad "status against a stopped daemon: exit $SW_RC after $dt ms"; show "$SW_OUT" 3; show "$SW_ERR"; fi
	# the daemon's own check, without the CLI's probe in front: a remove
	# whose deadline passed while the client still waits, and an old-style
	# remove (no deadline) whose client hung up
	f_raw "$D_CTL" "remove" 1000 4 >"$SWT_TMP/raw1.out" 2>&1 &
	local raw1=$!
	f_raw "$D_CTL" "remove" 0 0.3 >"$SWT_TMP/raw2.out" 2>&1
	sleep 2
	kill -CONT "$D_PID"
	wait $raw1
	if grep -q 'expired' "$SWT_TMP/raw1.out"; then ok "a remove past its deadline (client still connected) is answered: $(tr '\n' ' ' <"$SWT_TMP/raw1.out")"
	else bad "a remove past its deadline: $(tr '\n' ' ' <"$SWT_TMP/raw1.out")"; fi
	line=$(d_wait_log "$n0" 'event=control-expired request=remove reason=deadline' 3000)
	if [ -n "$line" ]; then ok "logged, not run: $line"
	else bad "no event=control-expired reason=deadline for the remove"; fi
	line=$(d_wait_log "$n0" 'event=control-expired request=remove reason=client-gone' 3000)
	if [ -n "$line" ]; then ok "logged, not run: $line"
	else bad "no event=control-expired reason=client-gone for the old-style remove"; fi
	sleep 0.5
	if table_exists; then ok "the table is still there after SIGCONT"
	else bad "the stale remove ran after SIGCONT: the table is gone"; fi
	expect_sw 0 "in sync after SIGCONT" -c "$conf" check
	d_status_is "$conf" daemon.paused no
	blocked "$C1" $D_META2
	# and a request that is not stale still works
	d_sw -c "$conf" remove
	if [ "$SW_RC" -eq 0 ] && ! table_exists; then ok "a fresh remove through the daemon works: $(head -n1 "$SW_OUT")"
	else bad "fresh remove: exit $SW_RC"; show "$SW_ERR"; fi
	return 0
}

# ---------------------------------------------------------------- 2
faults_02_config_loss() { d_run _faults_02; }
_faults_02() {
	local conf="$SWT_TMP/loss.conf" orig n0 line n variant
	orig=$(mkconf loss-orig block.destinations=203.0.113.10/32)
	info "without sandwall: c1 reaches $D_NET (what [block] destinations stops)"
	reach "$C1" $D_NET
	cp "$orig" "$conf"
	d_start "$conf" || return 1
	blocked "$C1" $D_NET
	n=$(wc -l <"$orig")
	for variant in empty truncated no-block; do
		case $variant in
		empty) : >"$conf" ;;
		# cut at a line boundary: what follows [allow] is gone
		truncated) sed -n '1,/^\[allow\]/p' "$orig" >"$conf" ;;
		no-block) sed '/^\[block\]/,/^\[/{/^\[block\]/d;/^\[/!d}' "$orig" >"$conf" ;;
		esac
		info "$variant: $(wc -l <"$conf") of $n lines"
		n0=$(d_log_lines)
		kill -HUP "$D_PID"
		if line=$(d_wait_log "$n0" 'event=reload-failed' 2000); then
			if [[ $line == *"$conf:"[0-9]* ]] && [[ $line == *action=kept-rules* ]]; then ok "$variant, SIGHUP refused: ${line//$SWT_TMP\//}"
			else bad "$variant: reload-failed without FILE:LINE or kept-rules: $line"; fi
		else
			bad "$variant: SIGHUP applied it (no event=reload-failed)"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 6
		fi
		blocked "$C1" $D_NET
		expect_sw 0 "$variant: the kernel still holds the running config" -c "$orig" check
		d_sw -c "$conf" apply
		if [ "$SW_RC" -eq 2 ] && grep -q "$conf:[0-9]" "$SW_ERR" && grep -q -- '--accept-loss' "$SW_ERR"; then
			ok "$variant, apply refused: $(sed "s|$SWT_TMP/||g" "$SW_ERR" | head -c 240)"
		else bad "$variant: apply through the daemon: exit $SW_RC"; show "$SW_ERR"; show "$SW_OUT" 3; fi
		blocked "$C1" $D_NET
		if tail -n +"$((n0 + 1))" "$D_LOG" | grep -q 'event=state-path'; then bad "$variant: the daemon moved its state paths"
		else ok "$variant: journal and metrics paths unchanged"; fi
	done
	d_status_is "$orig" daemon.paused no
	info "asked explicitly: apply --accept-loss of the config without [block] destinations"
	d_sw -c "$conf" apply --accept-loss
	if [ "$SW_RC" -eq 0 ]; then ok "apply --accept-loss: $(head -n1 "$SW_OUT")"
	else bad "apply --accept-loss: exit $SW_RC"; show "$SW_ERR"; fi
	grep -q 'event=reload-loss-accepted' "$D_LOG" && ok "logged: $(grep -m1 'event=reload-loss-accepted' "$D_LOG" | sed "s|$SWT_TMP/||g")" || bad "no event=reload-loss-accepted"
	reach "$C1" $D_NET
	blocked "$C1" $D_META2
	d_stop TERM
	nsx "$H" nft delete table inet sandwall 2>/dev/null
	info "no daemon: the CLI's direct apply of an empty file"
	: >"$conf"
	expect_sw 2 "direct apply of an empty file is refused" --control "$SWT_TMP/ctl.none" -c "$conf" apply
	grep -q "$conf:1: the file is empty" "$SW_ERR" || bad "no FILE:1 message: $(cat "$SW_ERR")"
	if table_exists; then bad "the refused apply created the table"; else ok "nothing was installed"; fi
	expect_sw 0 "direct apply --accept-loss of an empty file applies the defaults" --control "$SWT_TMP/ctl.none" -c "$conf" apply --accept-loss
	blocked "$C1" $D_META2
	return 0
}

# ---------------------------------------------------------------- 3
# The daemon started at the lowest descriptor limit (ulimit -n) at which it
# starts at all: every slot below the limit is taken, so accept has no
# descriptor left (EMFILE) but the reserve, as under ulimit -n 16.
faults_03_emfile() { d_run _faults_03; }
_faults_03() {
	local conf c0 c1 ticks hz t0 dt n0 line lim pid
	conf=$(mkconf emfile daemon.owner=no)
	for lim in $(seq 12 40); do
		pid=$( (ip netns exec "$H" bash -c 'ulimit -n "$0" && exec "$@"' "$lim" "$SANDWALLD" \
			-c "$conf" -f --control "$SWT_TMP/ctl.probe" >"$SWT_TMP/emfile.probe" 2>&1 &
			echo $!) )
		sleep 0.3
		if ! _d_dead "$pid" && grep -q 'event=start' "$SWT_TMP/emfile.probe"; then
			kill "$pid"; for _ in $(seq 1 50); do _d_dead "$pid" && break; sleep 0.05; done
			break
		fi
		sleep 0.05
	done
	nsx "$H" nft delete table inet sandwall 2>/dev/null
	info "the lowest descriptor limit at which sandwalld starts: $lim"
	D_ULIMIT=$lim d_start "$conf" || return 1
	info "descriptors open: $(ls "/proc/$D_PID/fd" | sort -n | tr '\n' ' ')"
	hz=$(getconf CLK_TCK)
	t0=$(now_ms)
	d_sw -c "$conf" status
	dt=$(($(now_ms) - t0))
	if [ "$SW_RC" -eq 0 ] && grep -q "pid *$D_PID" "$SW_OUT"; then ok "status at the limit answered in $dt ms"
	elif [ "$SW_RC" -eq 2 ] && grep -q 'out of file descriptors' "$SW_ERR" "$SW_OUT"; then ok "status at the limit refused in $dt ms: $(head -c 160 "$SW_ERR")"
	else bad "status at the limit: exit $SW_RC after $dt ms"; show "$SW_OUT" 3; show "$SW_ERR"; fi
	if grep -q 'cannot accept a client' "$D_LOG"; then ok "the daemon hit the limit: $(grep -m1 'cannot accept a client' "$D_LOG" | sed "s|$SWT_TMP/||")"
	else bad "the daemon did not hit the descriptor limit (the test proves nothing)"; fi
	# clients one after the other and a raw one left connected: the
	# daemon must not spin on the readable listener
	f_raw "$D_CTL" status 5000 4 >"$SWT_TMP/emfile.raw" 2>&1 &
	local raw=$!
	sleep 0.5
	c0=$(f_cpu_ticks "$D_PID")
	sleep 3
	c1=$(f_cpu_ticks "$D_PID")
	ticks=$((c1 - c0))
	# 3 s at 100% would be 3 * CLK_TCK ticks; allow 10%
	if [ "$ticks" -le $((hz * 3 / 10)) ]; then ok "daemon CPU over 3 s at the limit: $ticks ticks (CLK_TCK $hz)"
	else bad "daemon CPU over 3 s at the limit: $ticks ticks of $((hz * 3)) (busy loop)"; fi
	wait $raw
	if grep -qE '^(ok|error)' "$SWT_TMP/emfile.raw"; then ok "the raw client was answered or refused: $(head -n2 "$SWT_TMP/emfile.raw" | tr '\n' ' ')"
	else bad "the raw client got nothing: $(head -c 200 "$SWT_TMP/emfile.raw")"; fi
	for _ in 1 2 3 4 5; do d_sw -c "$conf" status; done
	if [ "$SW_RC" -eq 0 ]; then ok "five more clients in a row: served"
	else bad "five more clients: the last got exit $SW_RC"; show "$SW_ERR"; fi
	n0=$(d_log_lines)
	hnft flush chain inet sandwall guard
	line=$(d_wait_log "$n0" 'event=drift' 3000)
	if [ -n "$line" ]; then ok "a tamper at the limit is repaired: $line"
	else bad "no repair of a tamper at the limit"; fi
	d_wait_sync "$conf" 3000 && ok "in sync again after $D_WAITED ms" || bad "not in sync 3 s after the tamper"
	blocked "$C1" $D_META2
	line=$(grep -c 'cannot accept a client' "$D_LOG")
	if [ "$line" -le 2 ]; then ok "the shortage is logged once per episode ($line line(s))"
	else bad "the shortage is logged $line times"; fi
	return 0
}

# ---------------------------------------------------------------- 4
# f_second CONF CTL: start a second sandwalld in the host ns, wait (5 s)
# for it to exit; its exit code in F_RC, its log in F_LOG
F_RC=0; F_LOG=""
f_second() {
	local conf=$1 ctl=$2 pid i
	F_LOG="$SWT_TMP/second.$RANDOM.log"
	ip netns exec "$H" "$SANDWALLD" -c "$conf" -f --control "$ctl" >"$F_LOG" 2>&1 &
	pid=$!
	for i in $(seq 1 100); do _d_dead "$pid" && break; sleep 0.05; done
	if ! _d_dead "$pid"; then kill -KILL "$pid"; wait "$pid"; F_RC=999; return; fi
	wait "$pid"; F_RC=$?
}

faults_04_two_daemons() { d_run _faults_04; }
_faults_04() {
	local mode owner conf other
	for owner in no twin auto; do
		case $owner in no) mode=watch ;; twin) mode=twin ;; auto) mode=owner+persist ;; esac
		info "mode $mode"
		conf=$(mkconf two-$owner daemon.owner=$owner)
		d_start "$conf" || return 1
		# owner = auto is twin before Linux 6.9 (no persist flag)
		[ $owner = auto ] && mode=$(grep -m1 -o 'event=start.* mode=[a-z+]*' "$D_LOG" | sed 's/.*mode=//')
		grep -q "mode=$mode" "$D_LOG" || bad "first daemon not in mode $mode"
		# same table, its own control socket
		f_second "$conf" "$SWT_TMP/ctl.second"
		if [ "$F_RC" -eq 2 ] && grep -q "pid $D_PID" "$F_LOG"; then ok "$mode: a second daemon for the same table exits 2: $(grep -m1 'another' "$F_LOG")"
		else bad "$mode: second daemon (same table): exit $F_RC"; show "$F_LOG" 5; fi
		[ -e "$SWT_TMP/ctl.second" ] && bad "$mode: the refused daemon created its control socket"
		# another table, the first one's control socket
		other=$(mkconf two-other-$owner daemon.owner=$owner nft.table=swother)
		f_second "$other" "$D_CTL"
		if [ "$F_RC" -eq 2 ] && grep -q "pid $D_PID" "$F_LOG"; then ok "$mode: a second daemon on the same control socket exits 2: $(grep -m1 'another' "$F_LOG")"
		else bad "$mode: second daemon (same control socket): exit $F_RC"; show "$F_LOG" 5; fi
		nsx "$H" nft delete table inet swother 2>/dev/null
		nsx "$H" nft delete table inet swother_twin 2>/dev/null
		if [ -S "$D_CTL" ]; then ok "$mode: the first daemon's control socket is still there"
		else bad "$mode: the first daemon's control socket was removed"; fi
		d_status_is "$conf" daemon.pid "$D_PID"
		expect_sw 0 "$mode: still in sync" -c "$conf" check
		d_stop TERM
		nsx "$H" nft delete table inet sandwall 2>/dev/null
		nsx "$H" nft delete table inet sandwall_twin 2>/dev/null
	done
	# an unprivileged squatter on the lock's abstract name does not keep
	# the daemon from starting (any user may bind an abstract name)
	nsx "$H" "$PY" -c '
import os, socket, sys, time
os.setgid(65534); os.setuid(65534)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind("\0sandwalld/inet/sandwall"); s.listen(1)
print("bound", flush=True)
time.sleep(30)' >"$SWT_TMP/squat.out" 2>&1 &
	local squat=$!
	D_UNDO+=("kill $squat")
	for _ in $(seq 1 40); do grep -q bound "$SWT_TMP/squat.out" && break; sleep 0.05; done
	conf=$(mkconf two-squat)
	if d_start "$conf"; then
		grep -q 'not a root process: going on without it' "$D_LOG" && ok "squatted lock name: started anyway: $(grep -m1 'not a root process' "$D_LOG" | sed 's/^sandwalld: //')" ||
			bad "squatted lock name: no warning logged"
		blocked "$C1" $D_META2
	fi
	kill "$squat" 2>/dev/null
	return 0
}

# ---------------------------------------------------------------- 5
# The unit's fd store, emulated (fdstore.py): the host's systemd is not
# touched. RestartSec=1 as in packaging/systemd/sandwalld.service.
F_MGR=""; F_EV=""
f_mgr_start() {
	local conf=$1 i
	D_N=$((D_N + 1))
	D_CTL="$SWT_TMP/ctl.$D_N"; D_LOG="$SWT_TMP/daemon.$D_N.log"; D_CONF=$conf
	D_LOGS+=("$D_LOG")
	F_EV="$SWT_TMP/fdstore.$D_N.events"
	: >"$F_EV"
	ip netns exec "$H" "$PY" "$SWT_DIR/fdstore.py" "$SWT_TMP/notify.$D_N" 1 "$F_EV" -- \
		"$SANDWALLD" -c "$conf" -f --control "$D_CTL" >"$D_LOG" 2>&1 &
	F_MGR=$!
	SWT_PIDS+=("$F_MGR")
	D_UNDO+=("f_mgr_stop")
	for i in $(seq 1 100); do
		grep -q 'event=start' "$D_LOG" && [ -S "$D_CTL" ] && break
		sleep 0.05
	done
	grep -q 'event=start' "$D_LOG" || { bad "sandwalld under fdstore.py did not start"; show "$D_LOG"; return 1; }
	ok "sandwalld up under the emulated service manager: $(grep -m1 'event=start' "$D_LOG" | sed -e 's/^sandwalld: //' -e "s|$SWT_TMP/||")"
}
f_mgr_stop() {
	[ -n "$F_MGR" ] || return 0
	kill -TERM "$F_MGR" 2>/dev/null
	wait "$F_MGR" 2>/dev/null
	F_MGR=""
}
# the pid of the last daemon the manager started
f_mgr_pid() { grep -o '^start pid=[0-9]*' "$F_EV" | tail -n1 | cut -d= -f2; }

faults_05_restart_window() { d_run _faults_05; }
_faults_05() {
	local owner mode conf rc pid npid i del eperm t0 tables t
	d_flood "$C1" 169.254.169.254 0.3; rc=$?
	if [ $rc -eq 1 ]; then ok "without sandwall the flood detector sees traffic ($FLOOD_OUT)"
	else bad "flood detector saw nothing on the open path ($FLOOD_OUT): the 0-packet result below would prove nothing"; fi
	for owner in auto twin; do
		case $owner in auto) mode=owner+persist; tables="sandwall" ;; twin) mode=twin; tables="sandwall_twin" ;; esac
		info "mode $mode"
		conf=$(mkconf window-$owner daemon.owner=$owner)
		f_mgr_start "$conf" || return 1
		# owner = auto is twin before Linux 6.9 (no persist flag)
		if [ $owner = auto ] && grep -q 'event=start.*mode=twin' "$D_LOG"; then
			mode=twin; tables="sandwall_twin"; info "owner = auto is mode twin on this kernel"
		fi
		grep -q "mode=$mode" "$D_LOG" || bad "not in mode $mode"
		for i in $(seq 1 40); do grep -q '^stored nft-owner' "$F_EV" && break; sleep 0.05; done
		if grep -q '^stored nft-owner' "$F_EV"; then ok "the owning socket is in the fd store (FDSTORE=1 FDNAME=nft-owner)"
		else bad "the daemon stored no socket in the fd store"; fi
		pid=$(f_mgr_pid)
		_tf_start
		kill -KILL "$pid"
		# the window: until the manager restarts it (1 s), anyone may try
		del=0; eperm=0
		t0=$(now_ms)
		while [ $(($(now_ms) - t0)) -lt 900 ]; do
			for t in $tables; do
				if hnft delete table inet "$t" 2>"$SWT_TMP/del.err"; then del=$((del + 1))
				elif grep -q 'Operation not permitted' "$SWT_TMP/del.err"; then eperm=$((eperm + 1)); fi
			done
			[ $owner = twin ] && hnft delete table inet sandwall 2>/dev/null
			sleep 0.02
		done
		if [ $del -eq 0 ] && [ $eperm -gt 0 ]; then ok "$mode: after kill -9, $eperm deletes of inet $tables refused (EPERM), none succeeded"
		else bad "$mode: after kill -9, $del deletes of inet $tables succeeded ($eperm refused)"; fi
		for i in $(seq 1 60); do
			npid=$(f_mgr_pid)
			[ "$npid" != "$pid" ] && grep -q "event=start.*mode=$mode" <(tail -n +2 "$D_LOG" | grep 'event=start' | tail -n1) && break
			sleep 0.05
		done
		sleep 0.5
		_tf_stop
		_tf_result "$mode, kill -9 + nft delete table during the restart"
		if grep -q 'adopted the nf_tables socket of the previous run' "$D_LOG"; then ok "$mode: the restarted daemon (pid $npid) took the socket back: $(grep -m1 'adopted the nf_tables socket' "$D_LOG" | sed 's/^sandwalld: //')"
		else bad "$mode: the restarted daemon did not adopt the stored socket"; tail -n 8 "$D_LOG" | show - 8; fi
		d_wait_sync "$conf" 3000 && ok "$mode: in sync after the restart" || bad "$mode: not in sync 3 s after the restart"
		d_status_is "$conf" daemon.pid "$npid"
		if hnft delete table inet "${tables%% *}" 2>/dev/null; then bad "$mode: inet ${tables%% *} is not owned after the restart"
		else ok "$mode: inet ${tables%% *} still owned after the restart"; fi
		f_mgr_stop
		testnat_restore
		hnft delete table inet sandwall 2>/dev/null
	done
	return 0
}
