# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Scale: capacity must never turn into an open boundary. 0.1.0 refused to
# build any table on a host with more than 512 links (every container veth is
# one), so a busy host had no filter at all.

register_test scale_01_many_bridges "1,000 bridges (all_bridges): apply, check, export and the daemon work; the last bridge is guarded"

SCALE_N=${SCALE_N:-1000}

_scale_down() {
	local i
	for i in $(seq 1 "$SCALE_N"); do echo "link del sbx$i"; done >"$SWT_TMP/scale-del.txt"
	ip -n "$H" -force -b "$SWT_TMP/scale-del.txt" >/dev/null 2>&1
	ip -n "$H" link del vethc9 2>/dev/null
	ip netns del "${SWT_PREFIX}c9" 2>/dev/null
	return 0
}

scale_01_many_bridges() {
	need_sandwall || return $?
	local i conf links c9=${SWT_PREFIX}c9 last=sbx$SCALE_N pid
	# bridges sbx1..N (names no pattern covers), each with its own /24 in
	# 10.64.0.0/10, brought up; the last one in 172.30.0.0/24, which the
	# topology's masquerade (172.16.0.0/12) takes to the internet
	for i in $(seq 1 "$SCALE_N"); do
		echo "link add sbx$i type bridge"
		if [ "$i" -lt "$SCALE_N" ]; then
			echo "addr add 10.$((64 + i / 250)).$((i % 250)).1/24 dev sbx$i"
		else
			echo "addr add 172.30.0.1/24 dev sbx$i"
		fi
		echo "link set sbx$i up"
	done >"$SWT_TMP/scale-add.txt"
	if ! ip -n "$H" -b "$SWT_TMP/scale-add.txt"; then
		bad "could not create $SCALE_N bridges in the host namespace"; _scale_down; return 1
	fi
	links=$(ip -n "$H" -o link show | wc -l)
	info "host namespace has $links links"
	[ "$links" -gt 512 ] && ok "more than 512 links ($links)" || bad "only $links links"
	# a container on the last bridge
	_mk_ns "$c9" && _container "$H" "$c9" vethc9 "$last" 172.30.0.2/24 172.30.0.1 "" "" ||
		{ bad "container on $last"; _scale_down; return 1; }
	reach "$c9" http://203.0.113.10/
	reach "$c9" http://169.254.169.254/

	conf=$(mkconf scale guard.all_bridges=yes)
	apply_ok "$conf" || { show "$SW_ERR"; _scale_down; return 1; }
	expect_sw 0 "check with $links links" -c "$conf" check
	expect_sw 0 "export with $links links" -c "$conf" export
	if nsx "$H" nft -c -f "$SW_OUT" >/dev/null 2>"$SWT_TMP/scale-nftc.err"; then
		ok "nft -c accepts the export"
	else
		bad "nft -c refuses the export"; show "$SWT_TMP/scale-nftc.err"
	fi
	if hnft list set inet sandwall guard_ifaces | grep -q "\"$last\""; then
		ok "guard_ifaces holds $last"
	else
		bad "guard_ifaces lacks $last"
	fi
	blocked "$c9" http://169.254.169.254/
	blocked "$c9" http://10.0.0.1/
	reach "$c9" http://203.0.113.10/

	# the daemon starts on this host and keeps the table
	ip netns exec "$H" timeout 20 "$SWT_ROOT/build/sandwalld" -c "$conf" -f >"$SWT_TMP/scale-d.log" 2>&1 &
	pid=$!
	SWT_TEST_PIDS+=("$pid")   # killed by reset_state if this test stops early
	for i in $(seq 1 100); do
		grep -q 'event=start' "$SWT_TMP/scale-d.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if grep -q 'event=start' "$SWT_TMP/scale-d.log"; then
		ok "sandwalld started with $links links"
	else
		bad "sandwalld did not start"; show "$SWT_TMP/scale-d.log"
	fi
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	blocked "$c9" http://169.254.169.254/
	_scale_down
	return 0
}

register_test scale_02_incremental "sandwalld on 1,000 bridges follows the host by deltas: a new bridge is guarded by its own elements at once, a container on it cannot reach the metadata endpoint, 200 deletions are followed without a resync, check is clean after"

_scale02_down() {
	local i
	for i in $(seq 1 "$SCALE_N"); do echo "link del sby$i"; done >"$SWT_TMP/scale2-del.txt"
	ip -n "$H" -force -b "$SWT_TMP/scale2-del.txt" >/dev/null 2>&1
	ip -n "$H" link del sbnew 2>/dev/null
	ip -n "$H" link del vethc8 2>/dev/null
	ip netns del "${SWT_PREFIX}c8" 2>/dev/null
	return 0
}

scale_02_incremental() { d_run _scale_02; }
_scale_02() {
	local i conf c8=${SWT_PREFIX}c8 n del=200 lines
	D_UNDO+=("_scale02_down")
	for i in $(seq 1 "$SCALE_N"); do
		echo "link add sby$i type bridge"
		echo "addr add 10.$((128 + i / 250)).$((i % 250)).1/24 dev sby$i"
		echo "link set sby$i up"
	done >"$SWT_TMP/scale2-add.txt"
	ip -n "$H" -b "$SWT_TMP/scale2-add.txt" || { bad "could not create $SCALE_N bridges"; return 1; }
	# the attack first works without a table: a container on bridge sbnew
	# (172.31.0.0/24, masqueraded by the topology) reaches the endpoint
	ip -n "$H" link add sbnew type bridge && ip -n "$H" addr add 172.31.0.1/24 dev sbnew &&
		ip -n "$H" link set sbnew up && _mk_ns "$c8" &&
		_container "$H" "$c8" vethc8 sbnew 172.31.0.2/24 172.31.0.1 "" "" ||
		{ bad "container on sbnew"; return 1; }
	reach "$c8" http://169.254.169.254/
	# the bridge goes (its port stays, unattached) and the daemon starts
	ip -n "$H" link del sbnew
	conf=$(mkconf scale2 guard.all_bridges=yes log.blocked=no)
	d_start "$conf" || return 1
	# (check exits 1 meanwhile: vethc8, unattached with its peer in c8, is
	# a container-facing link no guard covers; the table itself is in sync)
	for i in $(seq 1 100); do
		sw -c "$conf" check --json
		grep -q '"in_sync":true' "$SW_OUT" && break
		sleep 0.05
	done
	grep -q '"in_sync":true' "$SW_OUT" || bad "not in sync after start"
	grep -q '"name":"vethc8"' "$SW_OUT" && ok "check names the unattached vethc8 as unguarded" ||
		bad "check does not name vethc8: $(head -c 300 "$SW_OUT")"
	# a new bridge: guarded before a container is on it
	lines=$(d_log_lines)
	ip -n "$H" link add sbnew type bridge
	if d_wait_set guard_ifaces sbnew yes 2000; then
		ok "sbnew in guard_ifaces ${D_WAITED} ms after ip link add ($SCALE_N other bridges)"
	else
		bad "sbnew not guarded within 2 s"
	fi
	# its guard_ifaces range (2 elements) and its name in guard_links
	if tail -n +"$((lines + 1))" "$D_LOG" | grep -q 'first="3 element(s) for 1 new link(s)"'; then
		ok "guarded by its own elements (the fast path): $(tail -n +"$((lines + 1))" "$D_LOG" | grep -m1 -o 'event=sets-updated.*')"
	else
		bad "no fast-path line for sbnew"; show "$D_LOG" 20
	fi
	ip -n "$H" addr add 172.31.0.1/24 dev sbnew && ip -n "$H" link set sbnew up &&
		ip -n "$H" link set vethc8 master sbnew || bad "could not attach the container to sbnew"
	blocked "$c8" http://169.254.169.254/
	reach "$c8" http://203.0.113.10/
	# 200 bridges go at once: followed by deltas, no full compare
	for i in $(seq 1 "$del"); do echo "link del sby$i"; done >"$SWT_TMP/scale2-del200.txt"
	ip -n "$H" -b "$SWT_TMP/scale2-del200.txt" || bad "could not delete $del bridges"
	if d_wait_set guard_ifaces "sby$del" no 10000; then
		ok "sby1..sby$del left guard_ifaces (${D_WAITED} ms after the last deletion)"
	else
		bad "sby$del still in guard_ifaces after 10 s"
	fi
	n=$(set_elems guard_ifaces | grep -c '^sby' || true)
	[ "$n" -eq $((SCALE_N - del)) ] && ok "guard_ifaces holds the $n remaining bridges" ||
		bad "guard_ifaces holds $n sby bridges, expected $((SCALE_N - del))"
	d_wait_sync "$conf" 5000 && ok "check: the table matches the host ($(ip -n "$H" -o link | wc -l) links)" ||
		{ bad "check still differs"; show "$SW_OUT"; }
	for e in resync drift repair-failed enobufs; do
		if grep -q "event=$e" "$D_LOG"; then bad "the daemon logged event=$e"; show "$D_LOG" 10
		else ok "no event=$e line"; fi
	done
	blocked "$c8" http://169.254.169.254/
	return 0
}
