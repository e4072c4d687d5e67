# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034
# sandwall integration test library: topology, servers, probes, assertions.
#
# Sourced by run.sh. Everything happens inside network namespaces named
# "$SWT_PREFIX*" (swt<pid>-...). The root network namespace is never touched:
# every ip/nft/sysctl command runs through `ip -n NS` or `ip netns exec NS`.
#
# Topology built by topo_build PREFIX (names below for PREFIX=$SWT_PREFIX):
#
#   c1 172.17.0.2 fd00:17::2 ─┐ docker0 172.17.0.1/16 fd00:17::1/64
#   c3 172.17.0.3 fd00:17::3 ─┘        (host)
#   c2 172.18.0.2 ─────────── br-0a1b2c3d4e5f 172.18.0.1/16
#   host eth0 10.0.0.2/24 fd00:10::2/64 ── cloud eth0 10.0.0.1/24 (+10.0.0.50)
#                                                fd00:10::1/64 (+fd00:10::50)
#   cloud lo: 169.254.169.254 169.254.169.253 100.100.100.200 203.0.113.10
#             198.51.100.10 fd00:ec2::254 2001:db8::10 2001:db8:1::10
#   host: default via 10.0.0.1 / fd00:10::1, ip_forward, table ip testnat
#         (masquerade 172.16.0.0/12 out of eth0, empty dnat chain prerouting)
#   servers: cloud tcp :80 :53, udp :53 :54 (all addresses, v4+v6);
#            host tcp :8080 (all), 10.0.0.2:9090; c1 tcp :8000; c2, c3 tcp :80

SWT_DIR=${SWT_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
SWT_ROOT=${SWT_ROOT:-$(cd "$SWT_DIR/../.." && pwd)}
SANDWALL=${SANDWALL:-$SWT_ROOT/build/sandwall}
SWT_PREFIX=${SWT_PREFIX:-swt$$-}
if [ -x /usr/bin/python3 ]; then PY=${PY:-/usr/bin/python3}; else PY=${PY:-python3}; fi
SRV="$SWT_DIR/srv.py"
PROBE_TIMEOUT=${PROBE_TIMEOUT:-1}     # seconds a blocked probe waits
SW_TIMEOUT=${SW_TIMEOUT:-30}          # seconds a sandwall command may take

H=${SWT_PREFIX}host
CL=${SWT_PREFIX}cloud
C1=${SWT_PREFIX}c1
C2=${SWT_PREFIX}c2
C3=${SWT_PREFIX}c3

SWT_TMP=""
SWT_PIDS=()        # every server we started (pids), killed on cleanup
SWT_TEST_PIDS=()   # servers started by the current test, killed after it
SWT_ETC_NETNS_CREATED=0

log()  { printf '%s\n' "$*"; }
info() { printf '    .    %s\n' "$*"; }

# ---------------------------------------------------------------- assertions
T_FAILS=0
ok()  { printf '    ok   %s\n' "$*"; }
bad() { printf '    FAIL %s\n' "$*"; T_FAILS=$((T_FAILS + 1)); }
# print a file indented (for diagnostics), at most N lines
show() {
	local f=$1 n=${2:-20}
	if [ "$f" = - ]; then head -n "$n" | sed 's/^/         | /'
	elif [ -s "$f" ]; then head -n "$n" "$f" | sed 's/^/         | /'; fi
	return 0
}

# ---------------------------------------------------------------- namespaces
nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# new namespace, lo up, no IPv6 DAD (addresses usable at once)
_mk_ns() {
	ip netns add "$1" && ip -n "$1" link set lo up &&
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
}

# wait_path NS URL...: poll until every URL answers (topology settled), max ~5s
wait_path() {
	local ns=$1 u i; shift
	for u in "$@"; do
		for i in $(seq 1 50); do
			nsx "$ns" curl -s -o /dev/null --connect-timeout 0.2 -m 0.5 "$u" 2>/dev/null && break
			sleep 0.1
		done
	done
}

# topo_build PREFIX [noservers]
topo_build() {
	local p=$1 servers=${2:-servers}
	local h=${p}host cl=${p}cloud c1=${p}c1 c2=${p}c2 c3=${p}c3 ns
	local TOPO_ERR=0
	_topo_t() { "$@" || { echo "topology: failed: $*" >&2; TOPO_ERR=1; }; }
	for ns in "$h" "$cl" "$c1" "$c2" "$c3"; do _topo_t _mk_ns "$ns"; done
	# --- host <-> cloud uplink
	_topo_t ip -n "$h" link add eth0 type veth peer name eth0 netns "$cl"
	_topo_t ip -n "$h" addr add 10.0.0.2/24 dev eth0
	_topo_t ip -n "$h" addr add fd00:10::2/64 dev eth0 nodad
	_topo_t ip -n "$h" link set eth0 up
	_topo_t ip -n "$cl" addr add 10.0.0.1/24 dev eth0
	_topo_t ip -n "$cl" addr add 10.0.0.50/24 dev eth0
	_topo_t ip -n "$cl" addr add fd00:10::1/64 dev eth0 nodad
	_topo_t ip -n "$cl" addr add fd00:10::50/64 dev eth0 nodad
	_topo_t ip -n "$cl" link set eth0 up
	local a
	for a in 169.254.169.254/32 169.254.169.253/32 100.100.100.200/32 \
		 203.0.113.10/32 198.51.100.10/32; do
		_topo_t ip -n "$cl" addr add "$a" dev lo
	done
	for a in fd00:ec2::254/128 2001:db8::10/128 2001:db8:1::10/128; do
		_topo_t ip -n "$cl" addr add "$a" dev lo nodad
	done
	_topo_t ip -n "$cl" -6 route add fd00:17::/64 via fd00:10::2
	# --- host bridges
	_topo_t ip -n "$h" link add docker0 type bridge
	_topo_t ip -n "$h" addr add 172.17.0.1/16 dev docker0
	_topo_t ip -n "$h" addr add fd00:17::1/64 dev docker0 nodad
	_topo_t ip -n "$h" link set docker0 up
	_topo_t ip -n "$h" link add br-0a1b2c3d4e5f type bridge
	_topo_t ip -n "$h" addr add 172.18.0.1/16 dev br-0a1b2c3d4e5f
	_topo_t ip -n "$h" link set br-0a1b2c3d4e5f up
	# --- containers
	_topo_t _container "$h" "$c1" vethc1 docker0 172.17.0.2/16 172.17.0.1 fd00:17::2/64 fd00:17::1
	_topo_t _container "$h" "$c3" vethc3 docker0 172.17.0.3/16 172.17.0.1 fd00:17::3/64 fd00:17::1
	_topo_t _container "$h" "$c2" vethc2 br-0a1b2c3d4e5f 172.18.0.2/16 172.18.0.1 "" ""
	# --- host routing and NAT
	_topo_t nsx "$h" sysctl -qw net.ipv4.ip_forward=1
	_topo_t nsx "$h" sysctl -qw net.ipv6.conf.all.forwarding=1
	_topo_t ip -n "$h" route add default via 10.0.0.1
	_topo_t ip -n "$h" route add 169.254.169.254/32 via 10.0.0.1
	_topo_t ip -n "$h" route add 169.254.169.253/32 via 10.0.0.1
	_topo_t ip -n "$h" -6 route add default via fd00:10::1
	_topo_t testnat_restore "$h"
	[ "$TOPO_ERR" = 0 ] || return 1
	# --- the host's resolver (ip netns exec bind-mounts it over /etc/resolv.conf)
	if [ ! -d /etc/netns ]; then mkdir -p /etc/netns && SWT_ETC_NETNS_CREATED=1; fi
	mkdir -p "/etc/netns/$h" || return 1
	printf 'nameserver 169.254.169.253\n' >"/etc/netns/$h/resolv.conf" || return 1
	# --- servers
	if [ "$servers" = servers ]; then
		start_srv "$cl" tcp :: 80 53 || return 1
		start_srv "$cl" udp :: 53 54 || return 1
		start_srv "$h" tcp :: 8080 || return 1
		start_srv "$h" tcp 10.0.0.2 9090 || return 1
		start_srv "$c1" tcp :: 8000 || return 1
		start_srv "$c2" tcp :: 80 || return 1
		start_srv "$c3" tcp :: 80 || return 1
	fi
	return 0
}

# _container HOSTNS NS HOSTVETH BRIDGE ADDR4 GW4 ADDR6 GW6
_container() {
	local h=$1 ns=$2 hv=$3 br=$4 a4=$5 g4=$6 a6=$7 g6=$8
	ip -n "$h" link add "$hv" type veth peer name eth0 netns "$ns" &&
	ip -n "$h" link set "$hv" master "$br" &&
	ip -n "$h" link set "$hv" up &&
	ip -n "$ns" addr add "$a4" dev eth0 &&
	{ [ -z "$a6" ] || ip -n "$ns" addr add "$a6" dev eth0 nodad; } &&
	ip -n "$ns" link set eth0 up &&
	ip -n "$ns" route add default via "$g4" &&
	{ [ -z "$g6" ] || ip -n "$ns" -6 route add default via "$g6"; }
}

# topo_down PREFIX: kill what runs in our namespaces, delete them, drop /etc/netns entries
topo_down() {
	local p=$1 ns pid
	[ -n "$p" ] || return 0
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case "$ns" in "$p"*) ;; *) continue ;; esac
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill "$pid" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
		rm -rf "/etc/netns/${ns:?}"
	done
	return 0
}

topo_up() {
	topo_build "$SWT_PREFIX" servers || return 1
	wait_path "$C1" http://203.0.113.10/ "http://[2001:db8::10]/" "http://[fd00:10::1]/" http://172.18.0.2/
	return 0
}

# ---------------------------------------------------------------- servers
# start_srv NS tcp|udp ADDR PORT...   (waits until bound; pid recorded)
start_srv() {
	local ns=$1; shift
	local ready="$SWT_TMP/ready.$RANDOM.$RANDOM" i pid
	# not through the nsx function: a backgrounded function is a subshell,
	# and $! must be the server itself (ip netns exec execs it)
	ip netns exec "$ns" "$PY" "$SRV" "$@" --ready "$ready" >>"$SWT_TMP/srv.log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid")
	SWT_TEST_PIDS+=("$pid")
	for i in $(seq 1 100); do
		[ -s "$ready" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	log "start_srv $ns $*: server did not come up"; tail -n 5 "$SWT_TMP/srv.log"
	return 1
}

kill_pids() { local pid; for pid in "$@"; do kill "$pid" 2>/dev/null; done; for pid in "$@"; do wait "$pid" 2>/dev/null; done; return 0; }

# ---------------------------------------------------------------- probes
# tcp_probe NS URL -> curl exit code (0 reached, 28 timed out, 7 refused, ...)
tcp_probe() {
	nsx "$1" curl -s -o /dev/null --connect-timeout "$PROBE_TIMEOUT" -m $((PROBE_TIMEOUT + 2)) "$2" 2>/dev/null
}
# udp_probe NS HOST PORT -> 0 answered, 1 no answer
udp_probe() { nsx "$1" "$PY" "$SRV" udpc "$2" "$3" "$PROBE_TIMEOUT" 2>/dev/null; }

_nsname() { echo "${1#"$SWT_PREFIX"}"; }

reach() {
	local rc; tcp_probe "$1" "$2"; rc=$?
	if [ $rc -eq 0 ]; then ok "$(_nsname "$1") -> $2 reachable"
	else bad "$(_nsname "$1") -> $2: expected reachable, curl exit $rc"; fi
}
blocked() {
	local rc; tcp_probe "$1" "$2"; rc=$?
	case $rc in
	28) ok "$(_nsname "$1") -> $2 blocked" ;;
	0)  bad "$(_nsname "$1") -> $2: expected blocked, but it was REACHABLE" ;;
	7)  bad "$(_nsname "$1") -> $2: expected blocked (timeout), got connection refused (curl 7): the packet got through" ;;
	*)  bad "$(_nsname "$1") -> $2: expected blocked (curl 28 timeout), got curl exit $rc" ;;
	esac
}
udp_reach() {
	if udp_probe "$1" "$2" "$3"; then ok "$(_nsname "$1") -> udp $2:$3 answered"
	else bad "$(_nsname "$1") -> udp $2:$3: expected an answer, got none"; fi
}
udp_blocked() {
	if udp_probe "$1" "$2" "$3"; then bad "$(_nsname "$1") -> udp $2:$3: expected blocked, but it ANSWERED"
	else ok "$(_nsname "$1") -> udp $2:$3 blocked"; fi
}

# ---------------------------------------------------------------- sandwall
have_sandwall() { [ -x "$SANDWALL" ]; }

# sw [NS] -- ARGS...: run sandwall in a namespace (default host); sets SW_RC,
# stdout in $SW_OUT, stderr in $SW_ERR.
SW_OUT=""; SW_ERR=""; SW_RC=0
sw_in() {
	local ns=$1; shift
	SW_OUT="$SWT_TMP/sw.out"; SW_ERR="$SWT_TMP/sw.err"
	timeout "$SW_TIMEOUT" ip netns exec "$ns" "$SANDWALL" "$@" >"$SW_OUT" 2>"$SW_ERR"
	SW_RC=$?
	[ $SW_RC -eq 124 ] && echo "sandwall $* timed out after ${SW_TIMEOUT}s" >>"$SW_ERR"
	return $SW_RC
}
sw() { sw_in "$H" "$@"; }

# expect_sw RC DESC ARGS...: run sandwall in the host ns and assert its exit code
expect_sw() {
	local want=$1 desc=$2; shift 2
	sw "$@"
	if [ "$SW_RC" -eq "$want" ]; then ok "$desc (sandwall $* -> exit $SW_RC)"
	else
		bad "$desc: sandwall $* -> exit $SW_RC, expected $want"
		show "$SW_ERR"; show "$SW_OUT" 10
	fi
	[ "$SW_RC" -eq "$want" ]
}
apply_ok() { expect_sw 0 "apply $(basename "$1")" -c "$1" apply; }

# nft in the host namespace
hnft() { nsx "$H" nft "$@"; }
table_exists() { nsx "${2:-$H}" nft list table inet "${1:-sandwall}" >/dev/null 2>&1; }
# counter_packets NAME -> packets of named counter (empty if missing)
counter_packets() {
	hnft list counter inet sandwall "$1" 2>/dev/null | sed -n 's/.*packets \([0-9]*\).*/\1/p' | head -n1
}
# normalized listing: no handles, counters zeroed
nft_list_norm() {
	nsx "$1" nft list table inet "${2:-sandwall}" 2>&1 |
		sed -e 's/ # handle [0-9]*//' -e 's/packets [0-9]* bytes [0-9]*/packets 0 bytes 0/g'
}

# ---------------------------------------------------------------- configs
# mkconf NAME [section.key=value ...] -> prints path of a config file with the
# documented defaults (DESIGN.md; but private = no: the topology's LAN and
# "internet" tests were written against it, and round3 tests private = yes and the
# shipped config), overridden by the arguments. Keys whose
# value is empty are left out.
mkconf() {
	local name=$1; shift
	local f="$SWT_TMP/$name.conf" kv
	local -A v=(
		[guard.interfaces]="docker0 br-*"
		[block.metadata]=yes [block.link_local]=yes [block.host]=yes
		[block.gateways]=yes [block.lan]=yes [block.private]=no
		[block.destinations]=""
		[allow.dns]=auto [allow.host_ports]="" [allow.destinations]=""
		# the suites were written with c1 (docker0) <-> c2 (br-...) open:
		# [block] sandboxes (on) stays on, this pair is allowed
		# (round3_05 tests the default without it)
		[allow.between]="docker0:br-0a1b2c3d4e5f"
		[log.blocked]=yes
		[nft.table]=sandwall
		# the test topology's "internet": verify's canary must be open
		# (SWT_CANARY= leaves it out: for a build without [verify])
		[verify.canary]=${SWT_CANARY-203.0.113.10:80}
		# never the host's /run/sandwall: journal (and verify.json) per test
		[daemon.journal]="$SWT_TMP/$name.events.jsonl"
		# nor its /var/lib/sandwall: the receipt key of the run
		[daemon.receipt_key]="$SWT_TMP/receipt_ed25519"
	)
	for kv in "$@"; do v[${kv%%=*}]=${kv#*=}; done
	{
		local sec key
		for sec in guard block allow log daemon nft verify identity; do
			local out=""
			for key in "${!v[@]}"; do
				[ "${key%%.*}" = "$sec" ] || continue
				[ -n "${v[$key]}" ] || continue
				out+="${key#*.} = ${v[$key]}"$'\n'
			done
			[ -n "$out" ] || continue
			printf '[%s]\n%s' "$sec" "$(printf '%s' "$out" | sort)"
			printf '\n'
		done
	} >"$f"
	echo "$f"
}

# ---------------------------------------------------------------- per-test reset
# Back to the baseline: no sandwall table, no extra NAT rules, no test servers.
reset_state() {
	if [ ${#SWT_TEST_PIDS[@]} -gt 0 ]; then kill_pids "${SWT_TEST_PIDS[@]}"; fi
	SWT_TEST_PIDS=()
	nsx "$H" nft delete table inet sandwall 2>/dev/null
	nsx "$H" nft delete table netdev sandwall 2>/dev/null
	nsx "$H" nft delete table inet swother 2>/dev/null
	nsx "$H" nft delete table bridge sandwall 2>/dev/null
	nsx "$H" nft flush chain ip testnat prerouting 2>/dev/null
	printf 'nameserver 169.254.169.253\n' >"/etc/netns/$H/resolv.conf"
	return 0
}

# ---------------------------------------------------------------- suite plumbing
SWT_TESTS=()
declare -A SWT_DESC=()
register_test() { SWT_TESTS+=("$1"); SWT_DESC[$1]=$2; }
SKIP=77

need_sandwall() {
	if ! have_sandwall; then info "skip: $SANDWALL not built"; return 1; fi
	return 0
}

# Read-only fingerprint of the root network namespace (links, addresses,
# routes, nft ruleset): run.sh compares it before/after as a self-check.
root_fingerprint() {
	{ ip -o link show | sed 's/ state [A-Z]*//'; ip -o addr show; ip route show; ip -6 route show
	  nft list ruleset 2>/dev/null; } | grep -v 'link-netns\|link-netnsid' | md5sum | cut -d' ' -f1
}

swt_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ ${#SWT_PIDS[@]} -gt 0 ]; then kill_pids "${SWT_PIDS[@]}"; fi
	topo_down "$SWT_PREFIX"
	[ "$SWT_ETC_NETNS_CREATED" = 1 ] && rmdir /etc/netns 2>/dev/null
	[ -n "$SWT_TMP" ] && [ -d "$SWT_TMP" ] && [ -z "${SWT_KEEP_TMP:-}" ] && rm -rf "$SWT_TMP"
	exit $rc
}

# ---------------------------------------------------------------- additions (daemon suite)
# testnat_restore [NS]: re-create the host's "table ip testnat" exactly as
# topo_build made it, if it is gone (e.g. after `nft flush ruleset` in the
# host ns). A table that is still there is left alone.
testnat_restore() {
	local ns=${1:-$H}
	nsx "$ns" nft list table ip testnat >/dev/null 2>&1 && return 0
	nsx "$ns" nft -f - <<-'EOF2'
	table ip testnat {
		chain postrouting {
			type nat hook postrouting priority srcnat; policy accept;
			ip saddr 172.16.0.0/12 oifname "eth0" masquerade
		}
		chain prerouting {
			type nat hook prerouting priority dstnat; policy accept;
		}
	}
	EOF2
}

# ---------------------------------------------------------------- additions (attack suite)
# Receivers and state knobs for tests/integration/test_attacks.sh (attack.py).
ATK="$SWT_DIR/attack.py"
ATK_UNDO=()        # commands (eval'd, in reverse) that undo what an attack test changed

# atk_rx NS NAME: start a counting receiver (raw TCP/UDP/ICMPv6 sockets) in
# NS; every packet delivered to NS's stack is a line in $SWT_TMP/rx.NAME
atk_rx() {
	local ns=$1 name=$2 rdy="$SWT_TMP/rx.$2.ready" i pid
	rm -f "$rdy" "$SWT_TMP/rx.$name" "$SWT_TMP/rx.$name.stop"
	: >"$SWT_TMP/rx.$name"
	ip netns exec "$ns" "$PY" "$ATK" count --out "$SWT_TMP/rx.$name" --ready "$rdy" \
		--stop "$SWT_TMP/rx.$name.stop" >>"$SWT_TMP/srv.log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); SWT_TEST_PIDS+=("$pid")
	for i in $(seq 1 100); do [ -s "$rdy" ] && return 0; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	bad "receiver $name in $(_nsname "$ns") did not come up"; tail -n 5 "$SWT_TMP/srv.log" | show -
	return 1
}
# atk_rx_n NAME FIXED-STRING: lines of receiver NAME containing the string
atk_rx_n() { grep -cF -- "$2" "$SWT_TMP/rx.$1" 2>/dev/null || true; }

# atk_echo NS TAG PORT: a plain UDP echo bound to 0.0.0.0:PORT and [::]:PORT
# (answers "echo:TAG:..."); datagrams logged in $SWT_TMP/echo.TAG
atk_echo() {
	local ns=$1 tag=$2 port=$3 rdy="$SWT_TMP/echo.$2.ready" i pid
	rm -f "$rdy"; : >"$SWT_TMP/echo.$tag"
	ip netns exec "$ns" "$PY" "$ATK" echo --tag "$tag" --port "$port" --out "$SWT_TMP/echo.$tag" \
		--ready "$rdy" --stop "$SWT_TMP/echo.$tag.stop" >>"$SWT_TMP/srv.log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); SWT_TEST_PIDS+=("$pid")
	for i in $(seq 1 100); do [ -s "$rdy" ] && return 0; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	bad "udp echo $tag in $(_nsname "$ns") did not come up"; tail -n 5 "$SWT_TMP/srv.log" | show -
	return 1
}

# atk_sysctl NS KEY VALUE: set a sysctl inside NS (never the root namespace);
# the old value is restored by atk_undo
atk_sysctl() {
	local ns=$1 key=$2 val=$3 old
	[ -n "$ns" ] || return 1
	old=$(nsx "$ns" sysctl -n "$key" 2>/dev/null) || { bad "sysctl $key not readable in $(_nsname "$ns")"; return 1; }
	nsx "$ns" sysctl -qw "$key=$val" || { bad "sysctl -w $key=$val failed in $(_nsname "$ns")"; return 1; }
	ATK_UNDO+=("nsx $ns sysctl -qw $key=$old")
}

# atk_undo: run ATK_UNDO in reverse order, empty it
atk_undo() {
	local i
	for ((i = ${#ATK_UNDO[@]} - 1; i >= 0; i--)); do eval "${ATK_UNDO[i]}" >/dev/null 2>&1; done
	ATK_UNDO=()
}

# atk_observer_up: a table of the test's own in the host ns (table inet
# swtatk, prerouting after sandwall's chain) that records, per container
# source address and port, every TCP/UDP packet from a guarded bridge that
# the host's conntrack classes as the REPLY direction of a flow: the proof
# that a priming frame made the container's own connection a "reply".
atk_observer_up() {
	hnft -f - <<-'EOF2' || { bad "could not create the observer table inet swtatk"; return 1; }
	table inet swtatk {
		set p4 { type ipv4_addr . inet_service; flags dynamic; size 65535; }
		set p6 { type ipv6_addr . inet_service; flags dynamic; size 65535; }
		chain pre {
			type filter hook prerouting priority -140; policy accept;
			meta l4proto { tcp, udp } ct direction reply ip saddr 172.16.0.0/12 add @p4 { ip saddr . th sport }
			meta l4proto { tcp, udp } ct direction reply ip6 saddr { fd00:17::/64, fe80::/10 } add @p6 { ip6 saddr . th sport }
		}
	}
	EOF2
	ATK_UNDO+=("hnft delete table inet swtatk")
}
# atk_primed ADDR PORT: the observer saw ADDR:PORT as a reply-direction sender
atk_primed() {
	local set=p4
	case $1 in *:*) set=p6 ;; esac
	hnft get element inet swtatk $set "{ $1 . $2 }" >/dev/null 2>&1
}
