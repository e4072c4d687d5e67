# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Hostile-input suite (issue 10): sandwall never changes or deletes a table
# it did not create, and every config that would open the boundary, guard
# the wrong interface or write outside its directories exits 2 with
# FILE:LINE and changes nothing in the kernel.
#
# The foreign table is `table inet filter` as another tool would leave it:
# a base chain input with policy drop and an ssh allow, and a set. It is
# made in the host namespace by each test and deleted at its end.

register_test hostile_01_foreign_apply   "[nft] table = filter (another tool's): apply, apply --force, check exit 2; the table is byte-identical"
register_test hostile_02_foreign_remove  "remove never deletes another tool's table, nor an empty one it did not create"
register_test hostile_03_foreign_daemon  "sandwalld does not clobber another tool's table: at start, nor when one replaces ours"
register_test hostile_04_marker          "our table carries comment \"sandwall/1\"; export keeps it; a missing marker is drift; an empty table is adopted"
register_test hostile_05_refused_configs "each refused config exits 2 with FILE:LINE and changes nothing"
register_test hostile_06_reopen          "an [allow] entry that says reopen is applied and opens exactly that"

HS_FOREIGN='table inet filter {
	set trusted {
		type ipv4_addr
		elements = { 10.0.0.1 }
	}

	chain input {
		type filter hook input priority filter; policy drop;
		tcp dport 22 accept
		ip saddr @trusted accept
	}
}'

# _hs_foreign [NAME]: make table inet NAME (default filter) with the foreign content
_hs_foreign() {
	local name=${1:-filter}
	hnft delete table inet "$name" 2>/dev/null
	printf '%s\n' "${HS_FOREIGN/table inet filter/table inet $name}" | hnft -f - ||
		{ bad "cannot create the foreign table inet $name"; return 1; }
	hnft list table inet "$name" >"$SWT_TMP/hs.$name.before" 2>&1
}

# _hs_same NAME DESC: the foreign table inet NAME is byte-identical to when it was made
_hs_same() {
	local name=$1 desc=$2
	hnft list table inet "$name" >"$SWT_TMP/hs.$name.after" 2>&1
	if cmp -s "$SWT_TMP/hs.$name.before" "$SWT_TMP/hs.$name.after"; then
		ok "$desc: table inet $name byte-identical"
	else
		bad "$desc: table inet $name changed"
		diff -u "$SWT_TMP/hs.$name.before" "$SWT_TMP/hs.$name.after" | show - 30
	fi
}

_hs_done() { hnft delete table inet filter 2>/dev/null; return 0; }

# _hs_expect_key CONF DESC: stderr points at CONF:LINE: [nft] table = filter
_hs_expect_key() {
	if grep -qE "^sandwall: $1:[0-9]+: \[nft\] table = filter: table inet filter was not created" "$SW_ERR"
	then ok "$2 names $(basename "$1"):LINE: [nft] table = filter"
	else bad "$2: stderr lacks '$1:LINE: [nft] table = filter: ...'"; show "$SW_ERR"; fi
}

# _hs_expect_err PATTERN DESC: stderr of the last sw names it
_hs_expect_err() {
	if grep -qF -- "$1" "$SW_ERR"; then ok "$2: $(head -n1 "$SW_ERR" | cut -c1-160)"
	else bad "$2: stderr lacks '$1'"; show "$SW_ERR"; fi
}

hostile_01_foreign_apply() {
	need_sandwall || return $SKIP
	local conf
	_hs_foreign || return 1
	conf=$(mkconf foreign nft.table=filter)
	expect_sw 2 "apply into another tool's table" -c "$conf" apply
	_hs_expect_err "table inet filter was not created by sandwall" "apply refused"
	_hs_expect_key "$conf" "apply"
	_hs_expect_err "nft delete table inet filter" "the message says how to fix it"
	_hs_same filter "after apply"
	expect_sw 2 "apply --force into another tool's table" -c "$conf" apply --force
	_hs_same filter "after apply --force"
	expect_sw 2 "check against another tool's table" -c "$conf" check
	_hs_expect_err "table inet filter was not created by sandwall" "check refused"
	_hs_expect_key "$conf" "check"
	_hs_same filter "after check"
	# the foreign table still does its job: ssh open, the rest dropped
	# (its input chain on the host), and our own table lives beside it
	apply_ok "$(mkconf beside)"
	_hs_same filter "after applying table inet sandwall beside it"
	blocked "$C1" $U_META
	_hs_done
}

hostile_02_foreign_remove() {
	need_sandwall || return $SKIP
	local conf
	_hs_foreign || return 1
	conf=$(mkconf foreign_rm nft.table=filter)
	expect_sw 2 "remove another tool's table" -c "$conf" remove
	_hs_expect_err "sandwall never changes or deletes a table it did not create" "remove refused"
	_hs_expect_key "$conf" "remove"
	_hs_same filter "after remove"
	# an empty table that is not ours is left alone, too
	hnft add table inet empty
	expect_sw 2 "remove an empty table sandwall did not create" -c "$(mkconf empty_rm nft.table=empty)" remove
	_hs_expect_err "table inet empty is empty and was not created by sandwall" "remove refused"
	if nsx "$H" nft list table inet empty >/dev/null 2>&1; then ok "table inet empty still there"
	else bad "table inet empty was deleted"; fi
	hnft delete table inet empty 2>/dev/null
	# our own table is removed
	conf=$(mkconf own_rm)
	apply_ok "$conf" || return 1
	expect_sw 0 "remove our own table" -c "$conf" remove
	if table_exists; then bad "table inet sandwall still there after remove"; else ok "table inet sandwall removed"; fi
	_hs_same filter "after removing our own table"
	_hs_done
}

hostile_03_foreign_daemon() {
	need_sandwall || return $SKIP
	local sandwalld=${SANDWALLD:-$SWT_ROOT/build/sandwalld} conf log="$SWT_TMP/hs.daemon.log" pid i
	if [ ! -x "$sandwalld" ]; then info "skip: $sandwalld not built"; return $SKIP; fi
	_hs_foreign || return 1
	conf=$(mkconf foreign_d nft.table=filter daemon.owner=no)
	ip netns exec "$H" "$sandwalld" -c "$conf" -f --control "$SWT_TMP/hs.ctl" >"$log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid")
	for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	if kill -0 "$pid" 2>/dev/null; then
		info "sandwalld still running after 2 s"
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	else
		wait "$pid"; ok "sandwalld gave up (exit $?): $(grep -m1 'not created by sandwall' "$log" | cut -c1-140)"
	fi
	if grep -q "table inet filter was not created by sandwall" "$log"; then ok "sandwalld says why"
	else bad "sandwalld log lacks the refusal"; show "$log"; fi
	_hs_same filter "after sandwalld started on it"

	# a daemon on its own table, which someone deletes and replaces with
	# theirs in one transaction: it must not pour its chains into theirs
	conf=$(mkconf own_d daemon.owner=no)
	ip netns exec "$H" "$sandwalld" -c "$conf" -f --control "$SWT_TMP/hs.ctl2" >"$log.2" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid")
	for i in $(seq 1 100); do grep -q 'event=start' "$log.2" && break; sleep 0.05; done
	if ! grep -q 'event=start' "$log.2"; then bad "sandwalld did not start"; show "$log.2"; kill "$pid"; _hs_done; return 1; fi
	printf 'delete table inet sandwall\n%s\n' "${HS_FOREIGN/table inet filter/table inet sandwall}" | hnft -f - ||
		bad "cannot replace table inet sandwall"
	hnft list table inet sandwall >"$SWT_TMP/hs.sandwall.before" 2>&1
	printf '%s\n' "${HS_FOREIGN/table inet filter/table inet sandwall}" >"$SWT_TMP/hs.want"
	sleep 1.5
	_hs_same sandwall "1.5 s after the swap, with sandwalld running"
	if grep -q "comment \"sandwall/1\"" "$SWT_TMP/hs.sandwall.after"; then bad "the foreign table got our marker"; fi
	if grep -q "not created by sandwall" "$log.2"; then ok "sandwalld reports: $(grep -m1 'not created by sandwall' "$log.2" | cut -c1-140)"
	else bad "sandwalld does not say it refused"; show "$log.2"; fi
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	_hs_same sandwall "after sandwalld stopped"
	hnft delete table inet sandwall 2>/dev/null
	_hs_done
}

hostile_04_marker() {
	need_sandwall || return $SKIP
	local conf exp="$SWT_TMP/hs.export.nft"
	conf=$(mkconf marker)
	apply_ok "$conf" || return 1
	if hnft list table inet sandwall | grep -qx $'\tcomment "sandwall/1"'; then ok "nft shows comment \"sandwall/1\""
	else bad "no comment \"sandwall/1\" on table inet sandwall"; hnft list table inet sandwall | show - 5; fi
	# export carries the same bytes: nft -f of it is in sync
	sw -c "$conf" export; cp "$SW_OUT" "$exp"
	grep -qx $'\tcomment "sandwall/1"' "$exp" && ok "export has the comment" || bad "export lacks the comment"
	hnft -f "$exp" || bad "nft -f export failed"
	expect_sw 0 "check after nft -f export" -c "$conf" check
	# the same table without the marker (an older sandwall's): drift, repaired
	sed '/comment "sandwall\/1"/d' "$exp" | hnft -f - || bad "nft -f export without comment failed"
	expect_sw 1 "check: missing marker is drift" -c "$conf" check
	grep -q 'no comment "sandwall/1"' "$SW_OUT" && ok "drift names the marker" || { bad "drift output"; show "$SW_OUT"; }
	expect_sw 0 "apply marks it again" -c "$conf" apply
	expect_sw 0 "check after apply" -c "$conf" check
	# an empty table of that name is adopted
	hnft delete table inet sandwall
	hnft add table inet sandwall
	expect_sw 0 "apply adopts an empty table" -c "$conf" apply
	expect_sw 0 "check after adopting" -c "$conf" check
	blocked "$C1" $U_META
}

# _hs_refused NAME LINE CONTENT [WHY]: the config is refused by apply,
# check and export (exit 2, FILE:LINE:), and the kernel is unchanged
_hs_refused() {
	local name=$1 line=$2 content=$3 why=${4:-} f="$SWT_TMP/hs-$1.conf" cmd
	local before="$SWT_TMP/hs.ruleset.before" after="$SWT_TMP/hs.ruleset.after"
	printf '%s\n' "$content" >"$f"
	nsx "$H" nft list ruleset >"$before" 2>&1
	for cmd in apply check export remove; do
		sw -c "$f" $cmd
		if [ "$SW_RC" -ne 2 ]; then bad "[$name] $cmd: exit $SW_RC, expected 2"; show "$SW_ERR"; continue; fi
		if ! grep -qF "$f:$line:" "$SW_ERR"; then bad "[$name] $cmd: stderr lacks '$f:$line:'"; show "$SW_ERR"; continue; fi
		if [ -n "$why" ] && ! grep -qF -- "$why" "$SW_ERR"; then bad "[$name] $cmd: stderr lacks '$why'"; show "$SW_ERR"; continue; fi
		[ $cmd = apply ] && ok "[$name] $(sed "s|$SWT_TMP/||" "$SW_ERR" | head -n1 | cut -c1-170)"
	done
	nsx "$H" nft list ruleset >"$after" 2>&1
	if cmp -s "$before" "$after"; then ok "[$name] ruleset byte-identical (apply, check, export, remove: exit 2)"
	else bad "[$name] ruleset changed"; diff -u "$before" "$after" | show - 20; fi
}

hostile_05_refused_configs() {
	need_sandwall || return $SKIP
	local conf big="$SWT_TMP/hs-big.conf" before="$SWT_TMP/hs.ruleset.before" after="$SWT_TMP/hs.ruleset.after"
	_hs_foreign || return 1
	conf=$(mkconf refused_base)
	apply_ok "$conf" || return 1
	_hs_refused any_v4 3 $'[allow]\n\ndestinations = 0.0.0.0/0 tcp/443' "reopens metadata"
	_hs_refused any_v6 2 $'[allow]\ndestinations = ::/0 udp/53' "say so: '::/0 udp/53 reopen'"
	_hs_refused metadata 2 $'[allow]\ndestinations = 169.254.169.254 tcp/80' "reopens metadata (169.254.169.254)"
	# private (on by default) is checked without the host, so it speaks first
	_hs_refused private 2 $'[allow]\ndestinations = 10.0.5.9 tcp/443' "reopens private (10.0.0.0/8)"
	# host-dependent (private off, so that the host's categories speak):
	# 10.0.0.0/24 is the LAN of the host's eth0
	_hs_refused lan 5 $'[block]\nprivate = no\n[allow]\ndestinations = 203.0.113.10 tcp/80,\n  10.0.0.50 tcp/80' "reopens lan (10.0.0.0/24 on this host)"
	_hs_refused gateway 5 $'[block]\nlan = no\nprivate = no\n[allow]\ndestinations = 10.0.0.1 tcp/80' "reopens gateways"
	_hs_refused host_addr 4 $'[block]\nprivate = no\n[allow]\ndestinations = 172.17.0.1 tcp/9090' "reopens host"
	_hs_refused no_iface 2 $'[guard]\ninterfaces =' "nothing would be guarded"
	_hs_refused lo 2 $'[guard]\ninterfaces = docker0 lo' "matches the loopback interface lo"
	_hs_refused default_route 2 $'[guard]\ninterfaces = docker0\n  eth0' "guards eth0, which carries the default route"
	_hs_refused default_route_pattern 2 $'[guard]\ninterfaces = docker0 e*' "guards eth0, which carries the default route"
	_hs_refused v4_mapped 2 $'[block]\ndestinations = ::ffff:169.254.169.254' "v4-mapped"
	_hs_refused v4_mapped_allow 2 $'[allow]\ndestinations = ::ffff:203.0.113.10 tcp/80 reopen' "v4-mapped"
	_hs_refused journal_shadow 2 $'[daemon]\njournal = /etc/shadow' "outside /run/sandwall"
	_hs_refused journal_dotdot 2 $'[daemon]\njournal = /run/sandwall/..' "'..' component"
	_hs_refused metrics_etc 2 $'[daemon]\nmetrics = /etc/cron.d/sandwall' "outside the sandwall state"
	_hs_refused repeated 4 $'[guard]\ninterfaces = docker0\n[block]\n[guard]\nall_bridges = yes' "section [guard] repeated"
	_hs_refused table_filter_reopen 4 $'[nft]\ntable = filter\n[allow]\ndestinations = 169.254.169.254 tcp/80' "reopens metadata"
	# above the size limit: FILE: without a line
	{ printf '[nft]\ntable = sandwall\n'; head -c 2100000 /dev/zero | tr '\0' '\n'; } >"$big"
	nsx "$H" nft list ruleset >"$before" 2>&1
	expect_sw 2 "a config above 2 MiB" -c "$big" apply
	_hs_expect_err "$big: larger than 2097152 bytes" "size limit"
	nsx "$H" nft list ruleset >"$after" 2>&1
	cmp -s "$before" "$after" && ok "[big] ruleset byte-identical" || bad "[big] ruleset changed"
	expect_sw 0 "check with the good config still 0" -c "$conf" check
	_hs_same filter "after every refused config"
	blocked "$C1" $U_META
	_hs_done
}

hostile_06_reopen() {
	need_sandwall || return $SKIP
	local conf
	conf=$(mkconf reopen "allow.destinations=10.0.0.50 tcp/80 reopen")
	apply_ok "$conf" || return 1
	reach "$C1" $U_LAN
	blocked "$C1" $U_GW
	blocked "$C1" $U_META
	expect_sw 0 "check" -c "$conf" check
}
