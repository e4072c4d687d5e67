# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Flows opened before a block (issue 28): a container opens a TCP connection
# and a UDP flow (echoed, so conntrack holds it as established) while the
# destination is open, keeps sending on the same sockets, and the boundary
# then closes the destination: by an apply, by the repair of a deleted table
# (watch mode), by a reload that adds a [block] destinations entry, and by a
# sandbox hostname's answer expiring. From then on 0 bytes and 0 datagrams
# reach the receivers (counted there, tests/integration/flow.py). Only the
# replies rule's "ct direction reply" cuts these flows (sandwall keeps the
# conntrack entries of flows the sandboxes opened themselves): with
# "ct state established accept" every test here fails.
#
# Uses the daemon helpers of test_daemon.sh (d_run, d_start, d_wait_log) and
# the resolver helpers of test_sandbox.sh (_dns_zone, _dns_up, _dns_conf).

register_test flows_01_apply "flows to metadata and the LAN opened with no table are cut by apply (0 bytes/datagrams after)"
register_test flows_02_repair "flows opened while the table was deleted are cut by the watch-mode repair"
register_test flows_03_reload "a flow to an open address is cut by a reload that adds it to [block] destinations"
register_test flows_04_dns_expiry "a flow to a sandbox hostname's address is cut when the answer expires"
register_test flows_05_output_users "[guard] users: flows a uid opened in the host namespace with no table are cut by apply (output path)"

FL_PORT=7001
FL_SETTLE=${FL_SETTLE:-0.5}   # seconds after the block before counting
FL_WINDOW=${FL_WINDOW:-2}     # seconds in which nothing may arrive

# fl_recv TARGET...: flow.py recv in the cloud namespace (counts in $SWT_TMP/fl.rx)
fl_recv() {
	local rdy="$SWT_TMP/fl.rx.ready" pid
	rm -f "$rdy" "$SWT_TMP/fl.rx"
	ip netns exec "$CL" "$PY" "$SWT_DIR/flow.py" recv --out "$SWT_TMP/fl.rx" --ready "$rdy" "$@" \
		>>"$SWT_TMP/srv.log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); SWT_TEST_PIDS+=("$pid")
	for _ in $(seq 1 100); do [ -s "$rdy" ] && return 0; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	bad "flow receiver did not come up"; tail -n 5 "$SWT_TMP/srv.log" | show -
	return 1
}

# fl_send TARGET...: flow.py send in $FL_NS (default c1), run through
# $FL_AS (e.g. setpriv ...); one TCP connection and one UDP socket per
# target, kept open; sent counts in $FL_DIR/fl.tx (default $SWT_TMP)
FL_NS=""; FL_AS=""; FL_DIR=""
fl_send() {
	local d=${FL_DIR:-$SWT_TMP} rdy pid
	rdy="$d/fl.tx.ready"
	rm -f "$rdy" "$d/fl.tx" "$d/fl.stop"
	# shellcheck disable=SC2086
	ip netns exec "${FL_NS:-$C1}" $FL_AS "$PY" "$SWT_DIR/flow.py" send --out "$d/fl.tx" --ready "$rdy" \
		--stop "$d/fl.stop" "$@" >>"$SWT_TMP/srv.log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); SWT_TEST_PIDS+=("$pid")
	for _ in $(seq 1 100); do [ -s "$rdy" ] && return 0; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	bad "flow sender in $(_nsname "${FL_NS:-$C1}") did not connect to $*"; tail -n 5 "$SWT_TMP/srv.log" | show -
	return 1
}

# fl_rx KIND TARGET / fl_tx KIND TARGET: bytes|datagrams received, sends made
fl_rx() { awk -v k="$1 $2" '$1 " " $2 == k { print $3 }' "$SWT_TMP/fl.rx" 2>/dev/null; }
fl_tx() { awk -v k="$1 $2" '$2 " " $3 == k { print $4 }' "${FL_DIR:-$SWT_TMP}/fl.tx" 2>/dev/null; }

# fl_flowing WHAT TARGET...: every flow delivers within 1 s (the proof that
# the flows work before the block)
fl_flowing() {
	local what=$1 t k a b; shift
	declare -A a0=()
	for t in "$@"; do for k in tcp udp; do a0[$k $t]=$(fl_rx $k "$t"); done; done
	sleep 1
	for t in "$@"; do
		for k in tcp udp; do
			a=${a0[$k $t]:-0}; b=$(fl_rx $k "$t")
			if [ "${b:-0}" -gt "$a" ]; then ok "$what: $k flow to $t delivers ($((b - a)) $( [ $k = tcp ] && echo bytes || echo datagrams)/s)"
			else bad "$what: $k flow to $t delivers nothing (receiver count $a -> ${b:-?})"; fi
		done
	done
}

# fl_cut WHAT TARGET...: after FL_SETTLE s, nothing arrives for FL_WINDOW s
# on any flow, while the sender keeps sending on the same sockets
fl_cut() {
	local what=$1 t k a b s0 s1; shift
	declare -A a0=() t0=()
	sleep "$FL_SETTLE"
	for t in "$@"; do for k in tcp udp; do a0[$k $t]=$(fl_rx $k "$t"); t0[$k $t]=$(fl_tx $k "$t"); done; done
	sleep "$FL_WINDOW"
	for t in "$@"; do
		for k in tcp udp; do
			a=${a0[$k $t]:-0}; b=$(fl_rx $k "$t")
			s0=${t0[$k $t]:-0}; s1=$(fl_tx $k "$t")
			if [ "${s1:-0}" -le "$s0" ]; then
				bad "$what: the sender stopped sending on its $k socket to $t ($s0 -> ${s1:-?})"
			elif [ "${b:-0}" -eq "$a" ]; then
				ok "$what: $k flow to $t cut (0 received in ${FL_WINDOW}s; sender made $((${s1:-0} - s0)) sends)"
			else
				bad "$what: $k flow to $t still delivers: $((b - a)) $( [ $k = tcp ] && echo bytes || echo datagrams) in ${FL_WINDOW}s after the block"
			fi
		done
	done
}

fl_stop() { : >"${FL_DIR:-$SWT_TMP}/fl.stop"; }

flows_01_apply() {
	need_sandwall || return $?
	local targets=("169.254.169.254:$FL_PORT" "10.0.0.50:$FL_PORT") conf
	fl_recv "${targets[@]}" || return 1
	fl_send "${targets[@]}" || return 1
	fl_flowing "no table" "${targets[@]}"
	conf=$(mkconf flows_apply)
	apply_ok "$conf" || { fl_stop; return 1; }
	fl_cut "after apply" "${targets[@]}"
	# a new connection is blocked too (the categories hold)
	blocked "$C1" http://169.254.169.254/
	blocked "$C1" http://10.0.0.50/
	fl_stop
	return 0
}

flows_02_repair() { d_run _flows_02; }
_flows_02() {
	local targets=("169.254.169.254:$FL_PORT" "10.0.0.50:$FL_PORT") conf n0 line
	conf=$(mkconf flows_watch daemon.owner=no)
	d_start "$conf" || return 1
	grep -q 'event=start.*mode=watch' "$D_LOG" || bad "owner = no: start line lacks mode=watch"
	fl_recv "${targets[@]}" || return 1
	# hold the daemon so the gap lasts: the table is deleted, the flows
	# open through the gap, then the daemon sees the deletion and repairs
	kill -STOP "$D_PID"
	D_UNDO+=("kill -CONT $D_PID")
	n0=$(d_log_lines)
	hnft delete table inet sandwall || bad "could not delete the table"
	if fl_send "${targets[@]}"; then
		fl_flowing "table deleted (daemon held)" "${targets[@]}"
	fi
	kill -CONT "$D_PID"
	if line=$(d_wait_log "$n0" 'event=drift' 3000); then ok "repair: $line"
	else bad "no event=drift within 3 s of the deletion"; fi
	if d_wait_sync "$conf" 3000; then ok "check 0 after the repair (${D_WAITED} ms)"
	else bad "the table was not repaired"; show "$SW_OUT"; fi
	fl_cut "after the repair" "${targets[@]}"
	fl_stop
	return 0
}

flows_03_reload() { d_run _flows_03; }
_flows_03() {
	local target=203.0.113.10:$FL_PORT conf="$SWT_TMP/flows_reload.conf" n0 line
	cp "$(mkconf flows_reload_open)" "$conf"
	d_start "$conf" || return 1
	fl_recv "$target" || return 1
	fl_send "$target" || return 1
	fl_flowing "table in force, 203.0.113.10 open" "$target"
	cp "$(mkconf flows_reload_closed block.destinations=203.0.113.10/32)" "$conf"
	n0=$(d_log_lines)
	kill -HUP "$D_PID"
	if line=$(d_wait_log "$n0" 'event=reload .*result=ok' 3000); then ok "reload: ${line//$SWT_TMP\//}"
	else bad "no 'event=reload ... result=ok' within 3 s"; tail -n +"$((n0 + 1))" "$D_LOG" | show - 8; fi
	if d_wait_sync "$SWT_TMP/flows_reload_closed.conf" 3000; then ok "kernel matches the new config (${D_WAITED} ms)"
	else bad "kernel does not match the new config"; show "$SW_OUT" 8; fi
	fl_cut "after the reload" "$target"
	blocked "$C1" http://203.0.113.10/
	fl_stop
	return 0
}

flows_04_dns_expiry() { d_run _flows_04; }
_flows_04() {
	local target=203.0.113.10:$FL_PORT conf
	_dns_zone '{"pypi.test": {"A": [["203.0.113.10", 2]]}}'
	_dns_up || return 1
	conf=$(_dns_conf flows_dns "[sandbox agents]
interfaces = docker0
egress = allowlist
allow = pypi.test tcp/$FL_PORT, pypi.test udp/$FL_PORT" daemon.dns_min_ttl=1 daemon.dns_max_ttl=3)
	d_start "$conf" || return 1
	if _wait_until 3 _fl_has_host 203.0.113.10; then ok "pypi.test resolved: 203.0.113.10 in sbx_agents_hosts4"
	else bad "203.0.113.10 never appeared in sbx_agents_hosts4"; hnft list set inet sandwall sbx_agents_hosts4 | show -; return 1; fi
	fl_recv "$target" || return 1
	fl_send "$target" || return 1
	fl_flowing "pypi.test resolves to 203.0.113.10" "$target"
	# the answer moves; the old address goes when its last TTL ends
	_dns_zone '{"pypi.test": {"A": [["198.51.100.10", 2]]}}'
	if _wait_until 8 _fl_no_host 203.0.113.10; then ok "203.0.113.10 expired from sbx_agents_hosts4"
	else bad "203.0.113.10 still in sbx_agents_hosts4 8 s after the answer changed"; fi
	fl_cut "after the expiry" "$target"
	fl_stop
	return 0
}
_fl_has_host() { _host_elems agents 4 | grep -q "^$1 \. "; }
_fl_no_host() { ! _fl_has_host "$1"; }

# The output path ([guard] users): the same cut for a process of the
# guarded uid in the host namespace (a rootless runtime's helper, a
# host-network container). Its files live in a directory of its own.
flows_05_output_users() { rt_run _flows_05; }
_flows_05() {
	local targets=("169.254.169.254:$FL_PORT" "10.0.0.50:$FL_PORT") conf
	ou_uids_free || return "$SKIP"
	RT_UNDO+=(ou_kill_uid)
	FL_DIR=$(mktemp -d /tmp/sandwall-flows.XXXXXX) || return 1
	RT_UNDO+=("rm -rf ${FL_DIR:?}" "FL_NS='' FL_AS='' FL_DIR=''")
	chown "$OU_UID:$OU_UID" "$FL_DIR"
	FL_NS=$H FL_AS="setpriv --reuid $OU_UID --regid $OU_UID --clear-groups"
	fl_recv "${targets[@]}" || return 1
	fl_send "${targets[@]}" || return 1
	fl_flowing "no table, uid $OU_UID" "${targets[@]}"
	conf=$(mkconf flows_users guard.interfaces=auto guard.users="$OU_UID")
	apply_ok "$conf" || { fl_stop; return 1; }
	fl_cut "after apply, uid $OU_UID" "${targets[@]}"
	fl_stop
	return 0
}
