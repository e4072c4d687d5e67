# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Attack suite (issue 9): a hostile root in a container with CAP_NET_RAW
# (Docker's default capabilities) attacks the boundary with raw sockets
# (tests/integration/attack.py). Every attack first runs WITHOUT sandwall's
# table and must reach its target there (the proof that the attack works in
# this topology; a variant where it cannot work is reported, not counted),
# then WITH the default config applied, where the receiver in the target
# namespace must count nothing. docs/threat-model.md maps each test to the
# rule that stops the attack.
#
# Each test starts from the baseline topology with no sandwall table; what a
# test changes (sysctls in the host ns, a route back in the cloud ns, the
# observer table inet swtatk, a daemon) is undone by atk_run, also on failure.

register_test attacks_01_prime_routed "conntrack reply priming through the host's MAC (rp_filter 0/1/2, br_netfilter on/off, v4/v6, tcp/udp/icmp echo)"
register_test attacks_02_prime_l2     "conntrack reply priming with broadcast/multicast/unknown-unicast MAC frames (br_netfilter on/off)"
register_test attacks_03_nd_tunnel    "ICMPv6 NS/NA with payload to metadata and a LAN host"
register_test attacks_04_bcast_host   "broadcast/multicast to a host UDP echo; container-to-container broadcast stays open"
register_test attacks_05_flood_ops    "UDP flood to metadata during apply --force, daemon takeover, reload, restart: 0 packets through"
register_test attacks_06_legit        "legitimate traffic with the table, after the attacks: internet v4/v6, host<->container, DNAT, DNS"
register_test attacks_07_rogue_ra     "a router advertisement from a container gives the host no default route via it"
register_test attacks_08_primed_before "a flow primed while no table existed is cut when the table is applied"

ATK_C4=172.17.0.2
ATK_C6=fd00:17::2
ATK_C1LL=""            # c1's fe80:: address on eth0 (set by attacks_02)
ATK_ECHO_PORT=5007
ATK_PORT=20000          # local ports of the priming attacks (unique in a run)
SANDWALLD=${SANDWALLD:-$SWT_ROOT/build/sandwalld}

# priming targets: proto:addr:port (cloud: metadata, gateway, LAN peer;
# host: a bridge address, the uplink address, a UDP echo)
ATK_T4="tcp:169.254.169.254:80 tcp:10.0.0.1:80 tcp:10.0.0.50:80 udp:169.254.169.254:54 tcp:172.17.0.1:8080 tcp:10.0.0.2:8080 udp:172.17.0.1:$ATK_ECHO_PORT"
ATK_T6="tcp:fd00:ec2::254:80 tcp:fd00:10::50:80 udp:fd00:ec2::254:54 tcp:fd00:17::1:8080 udp:fd00:17::1:$ATK_ECHO_PORT"
# a forged ICMP echo request "from" the target: the container's kernel itself
# sends the echo reply to the target (routed path only: a flooded frame is
# never delivered back to the port it came from)
ATK_I4="icmp:169.254.169.254:0 icmp:10.0.0.50:0"
ATK_I6="icmp:fd00:ec2::254:0 icmp:fd00:10::50:0 icmp:fd00:17::1:0"
# v4 priming with a forged source that is one of the host's own addresses is
# dropped by the host's routing as a martian source (accept_local = 0) when
# the frame is routed; only the bridged (br_netfilter) path can prime them
ATK_ROUTED_UNPRIMABLE="tcp:172.17.0.1:8080 tcp:10.0.0.2:8080 udp:172.17.0.1:$ATK_ECHO_PORT"

declare -A ATK_PROOF=()

# atk_run BODY: run a test body; always undo its changes afterwards
atk_run() {
	local body=$1 rc old_ctl=${SANDWALL_CONTROL-}
	need_sandwall || return $SKIP
	ATK_UNDO=(); ATK_PROOF=()
	# the CLI hands `apply` to any daemon answering on its control socket
	# (default /run/sandwall/control, whatever namespace that daemon guards):
	# pin it to a path of this run so a daemon of another run cannot take it
	export SANDWALL_CONTROL="$SWT_TMP/ctl.none"
	"$body"
	rc=$?
	atk_d_stop TERM
	atk_undo
	nsx "$H" nft delete table inet sandwall 2>/dev/null
	nsx "$H" nft delete table netdev sandwall 2>/dev/null
	if [ -n "$old_ctl" ]; then export SANDWALL_CONTROL=$old_ctl; else unset SANDWALL_CONTROL; fi
	return $rc
}

# atk_no_table: no sandwall table (nor a twin a daemon left) in the host ns
atk_no_table() {
	local t
	for t in $(hnft list tables 2>/dev/null | awk '$2 == "inet" && $3 ~ /^sandwall/ {print $3}'); do
		hnft delete table inet "$t" 2>/dev/null
	done
	# and table netdev (the uplink's macvlan/ipvlan guard, on by default)
	hnft delete table netdev sandwall 2>/dev/null
	t=$(hnft list tables 2>/dev/null | awk '$2 == "inet" && $3 ~ /^sandwall/ {print $3}')
	[ -z "$t" ] || bad "sandwall table(s) still there: $t"
	return 0
}

atk_hmac() { ip -n "$H" -br link show docker0 | awk '{print $3}'; }

# br_netfilter is there if its sysctls exist in the host ns (built in, or
# loaded); otherwise try to load it once
atk_have_brnf() {
	nsx "$H" test -e /proc/sys/net/bridge/bridge-nf-call-iptables && return 0
	modprobe br_netfilter 2>/dev/null
	nsx "$H" test -e /proc/sys/net/bridge/bridge-nf-call-iptables
}

# _atk_spec SPEC -> sets A_PROTO A_ADDR A_PORT
_atk_spec() { A_PROTO=${1%%:*}; local r=${1#*:}; A_ADDR=${r%:*}; A_PORT=${r##*:}; }

# _atk_prime_check LABEL MODE SRC OUTFILE: assertions for one attack.py prime run
#   MODE open:  record proofs (primed + reached from the container's own address)
#   MODE table: nothing may reach the target (receivers), no answer may come back
_atk_prime_check() {
	local label=$1 mode=$2 src=$3 out=$4 line spec lport res n nown primed key
	if ! grep -q '^target=' "$out"; then bad "[$label] attack.py prime printed nothing"; show "$out"; return 1; fi
	while read -r line; do
		spec=$(sed -n 's/^target=\([^ ]*\) .*/\1/p' <<<"$line")
		lport=$(sed -n 's/.* lport=\([0-9]*\) .*/\1/p' <<<"$line")
		res=${line##*result=}
		if [ -z "$spec" ] || [ -z "$lport" ]; then continue; fi
		_atk_spec "$spec"
		if [ "$A_PROTO" = icmp ]; then
			# the container kernel's echo reply (id = lport) at the target
			case $src in *:*) key="type=129 id=$lport " ;; *) key="type=0 id=$lport " ;; esac
			n=$(( $(atk_rx_n cloud "dst=$A_ADDR $key") + $(atk_rx_n host "dst=$A_ADDR $key") ))
			nown=$(( $(atk_rx_n cloud "src=$src dst=$A_ADDR $key") + $(atk_rx_n host "src=$src dst=$A_ADDR $key") ))
			# an echo reply is a reply-direction packet by construction
			if [ "$nown" -gt 0 ]; then primed=yes; else primed=no; fi
			[ "$mode" = open ] && [ "$nown" -gt 0 ] && res=echo-reply
			[ "$mode" = table ] && [ "$res" = sent ] && res=timeout
		else
			n=$(( $(atk_rx_n cloud "sport=$lport dst=$A_ADDR dport=$A_PORT ") + $(atk_rx_n host "sport=$lport dst=$A_ADDR dport=$A_PORT ") ))
			nown=$(( $(atk_rx_n cloud "src=$src sport=$lport dst=$A_ADDR dport=$A_PORT ") + $(atk_rx_n host "src=$src sport=$lport dst=$A_ADDR dport=$A_PORT ") ))
			if atk_primed "$src" "$lport"; then primed=yes; else primed=no; fi
		fi
		if [ "$mode" = open ]; then
			if [ $primed = yes ] && [ "$nown" -gt 0 ] && { [ "$res" = http200 ] || [ "$res" = echo ] || [ "$res" = echo-reply ]; }; then
				ok "[$label] no table: $spec primed (reply direction) and reached: $res, $nown packets at the target"
				ATK_PROOF[$spec]=$(( ${ATK_PROOF[$spec]:-0} + 1 ))
			else
				info "[$label] no table: $spec not primed here (reply direction: $primed, result $res, $n packets at the target): not a proof in this variant"
			fi
		else
			if [ "$n" -eq 0 ] && [ "$res" = timeout ]; then
				ok "[$label] table: $spec: 0 packets at the target, no answer"
			else
				bad "[$label] table: $spec GOT THROUGH: result $res, $n packets at the target ($nown from $src itself), reply direction at the host: $primed"
				nsx "$H" grep -E "(sport|dport)=$lport " /proc/net/nf_conntrack 2>/dev/null | sed 's/^/conntrack: /' | show - 4
			fi
		fi
	done <"$out"
}

# _atk_prime LABEL MODE MAC4 MAC6 SPECS4 SPECS6: one priming round from c1
# (v4 and v6 at once), then its assertions
_atk_prime() {
	local label=$1 mode=$2 mac4=$3 mac6=$4 s4=$5 s6=$6 sll=${7:-} p4 p6 pll pids=()
	local o4="$SWT_TMP/prime4.out" o6="$SWT_TMP/prime6.out" oll="$SWT_TMP/primell.out" n4 n6 nll
	: >"$o4"; : >"$o6"; : >"$oll"
	n4=$(wc -w <<<"$s4"); n6=$(wc -w <<<"$s6"); nll=$(wc -w <<<"$sll")
	p4=$ATK_PORT; p6=$((ATK_PORT + n4)); pll=$((p6 + n6)); ATK_PORT=$((pll + nll))
	if [ -n "$sll" ]; then
		# link-local: from c1's fe80:: address, in eth0's scope
		nsx "$C1" "$PY" "$ATK" prime --iface eth0 --dmac "$mac6" --src "$ATK_C1LL%eth0" --port $pll --timeout 1.0 $sll >"$oll" 2>&1 &
		pids+=($!)
	fi
	if [ -n "$s4" ]; then
		nsx "$C1" "$PY" "$ATK" prime --iface eth0 --dmac "$mac4" --src $ATK_C4 --port $p4 --timeout 1.0 $s4 >"$o4" 2>&1 &
		pids+=($!)
	fi
	if [ -n "$s6" ]; then
		nsx "$C1" "$PY" "$ATK" prime --iface eth0 --dmac "$mac6" --src $ATK_C6 --port $p6 --timeout 1.0 $s6 >"$o6" 2>&1 &
		pids+=($!)
	fi
	wait "${pids[@]}"
	sleep 0.1     # the receivers write what is still in flight
	[ -n "$s4" ] && _atk_prime_check "$label" "$mode" $ATK_C4 "$o4"
	[ -n "$s6" ] && _atk_prime_check "$label" "$mode" $ATK_C6 "$o6"
	[ -n "$sll" ] && _atk_prime_check "$label" "$mode" "$ATK_C1LL" "$oll"
	return 0
}

# _atk_variant LABEL RP BRNF MAC4 MAC6 SPECS4 SPECS6: set the host's
# rp_filter and br_netfilter, attack without the table, then with it
_atk_variant() {
	local label=$1 rp=$2 brnf=$3 mac4=$4 mac6=$5 s4=$6 s6=$7 sll=${8:-} k conf n before
	label="$label rp_filter=$rp br_netfilter=$brnf"
	info "variant: $label"
	for k in all docker0 default; do atk_sysctl "$H" net.ipv4.conf.$k.rp_filter "$rp" || return 1; done
	if [ -n "$brnf" ] && [ "$brnf" != - ]; then
		atk_sysctl "$H" net.bridge.bridge-nf-call-iptables "$brnf" || return 1
		atk_sysctl "$H" net.bridge.bridge-nf-call-ip6tables "$brnf" || return 1
	fi
	atk_no_table
	before=$(_atk_nproofs)
	_atk_prime "$label" open "$mac4" "$mac6" "$s4" "$s6" "$sll"
	conf=$(mkconf default)
	apply_ok "$conf" || return 1
	_atk_prime "$label" table "$mac4" "$mac6" "$s4" "$s6" "$sll"
	# the forged frames were dropped by sandwall, as spoofed
	n=$(counter_packets spoofed)
	if [ "$(_atk_nproofs)" -eq "$before" ]; then info "[$label] counter spoofed: ${n:-missing}"
	elif [ -n "$n" ] && [ "$n" -gt 0 ]; then ok "[$label] counter spoofed = $n packets"
	else bad "[$label] counter spoofed: expected > 0 packets, got '${n:-missing}'"; fi
	return 0
}

# _atk_nproofs: proofs recorded so far in this test
_atk_nproofs() { local k t=0; for k in "${!ATK_PROOF[@]}"; do t=$((t + ATK_PROOF[$k])); done; echo $t; }

# _atk_setup_prime: receivers, host echo, observer, a route back for the cloud
_atk_setup_prime() {
	atk_rx "$CL" cloud || return 1
	atk_rx "$H" host || return 1
	atk_echo "$H" host $ATK_ECHO_PORT || return 1
	atk_observer_up || return 1
	# the cloud answers the container's own address (a route back exists, as
	# for a LAN peer or a metadata service that routes the VPC's subnets)
	ip -n "$CL" route add 172.17.0.0/16 via 10.0.0.2 || { bad "could not add the cloud's route back"; return 1; }
	ATK_UNDO+=("ip -n $CL route del 172.17.0.0/16 via 10.0.0.2")
	return 0
}

# _atk_require_proofs SPEC...: each attack worked without the table at least once
_atk_require_proofs() {
	local s
	for s in "$@"; do
		if [ "${ATK_PROOF[$s]:-0}" -gt 0 ]; then ok "proof: $s reached its target without the table in ${ATK_PROOF[$s]} variant(s)"
		else bad "$s never reached its target without the table: this attack proves nothing here"; fi
	done
}

attacks_01_prime_routed() { atk_run _attacks_01; }
_attacks_01() {
	local hmac s need=()
	_atk_setup_prime || return 1
	hmac=$(atk_hmac)
	[ -n "$hmac" ] || { bad "no MAC for docker0"; return 1; }
	local brnf=1
	atk_have_brnf || { info "br_netfilter not available: its variants skipped"; brnf=-; }
	_atk_variant "routed" 0 $brnf "$hmac" "$hmac" "$ATK_T4 $ATK_I4" "$ATK_T6 $ATK_I6"
	_atk_variant "routed" 2 $brnf "$hmac" "$hmac" "$ATK_T4 $ATK_I4" ""
	_atk_variant "routed" 1 $brnf "$hmac" "$hmac" "$ATK_T4 $ATK_I4" ""
	[ "$brnf" = 1 ] && _atk_variant "routed" 0 0 "$hmac" "$hmac" "$ATK_T4 $ATK_I4" "$ATK_T6 $ATK_I6"
	for s in $ATK_T4 $ATK_T6 $ATK_I4 $ATK_I6; do
		[[ " $ATK_ROUTED_UNPRIMABLE " == *" $s "* ]] && continue
		need+=("$s")
	done
	info "routed v4 priming with the host's own address as source is dropped as a martian: not a proof here ($ATK_ROUTED_UNPRIMABLE)"
	_atk_require_proofs "${need[@]}"
	return 0
}

# _atk_ll NS DEV: the fe80:: address of DEV in NS
_atk_ll() { ip -n "$1" -6 -o addr show dev "$2" scope link | awk '{print $4}' | cut -d/ -f1 | head -n 1; }

attacks_02_prime_l2() { atk_run _attacks_02; }
_attacks_02() {
	local hll tll
	_atk_setup_prime || return 1
	# the host's own link-local address as the forged source (and target)
	hll=$(_atk_ll "$H" docker0); ATK_C1LL=$(_atk_ll "$C1" eth0)
	if [ -z "$hll" ] || [ -z "$ATK_C1LL" ]; then bad "no link-local address on docker0 / c1's eth0"; return 1; fi
	tll="tcp:$hll:8080 udp:$hll:$ATK_ECHO_PORT"
	if ! atk_have_brnf; then
		# without br_netfilter a frame the host does not route never meets conntrack
		info "br_netfilter not available: only the non-br_netfilter variant runs"
		_atk_variant "broadcast MAC" 0 - ff:ff:ff:ff:ff:ff ff:ff:ff:ff:ff:ff "$ATK_T4" "$ATK_T6"
		return 0
	fi
	_atk_variant "broadcast MAC" 1 1 ff:ff:ff:ff:ff:ff ff:ff:ff:ff:ff:ff "$ATK_T4" "$ATK_T6" "$tll"
	_atk_variant "multicast MAC" 1 1 01:00:5e:00:00:01 33:33:00:00:00:01 "$ATK_T4" "$ATK_T6" "$tll"
	_atk_variant "unknown unicast MAC" 1 1 02:00:5e:10:00:99 02:00:5e:10:00:99 "$ATK_T4" "$ATK_T6" "$tll"
	_atk_variant "broadcast MAC" 0 0 ff:ff:ff:ff:ff:ff ff:ff:ff:ff:ff:ff "$ATK_T4" "$ATK_T6" "$tll"
	# every target, host addresses included, is primable through the bridge
	# path (no routing, no rp_filter, no martian check)
	# shellcheck disable=SC2046
	_atk_require_proofs $ATK_T4 $ATK_T6 $tll
	return 0
}

# ------------------------------------------------------------------ ND tunnel
# _atk_nd MODE: NS and NA, hop limit 255 and 64, to metadata and the LAN peer
_atk_nd() {
	local mode=$1 hmac kind hl dst tag n out="$SWT_TMP/nd.out"
	hmac=$(atk_hmac)
	for kind in ns na; do
		for hl in 255 64; do
			for dst in fd00:ec2::254 fd00:10::50; do
				tag="nd-$kind-$hl-$dst-$mode"
				nsx "$C1" "$PY" "$ATK" nd --iface eth0 --dmac "$hmac" --src $ATK_C6 --type $kind --hlim $hl \
					--tag "$tag" "$dst" >"$out" 2>&1 || { bad "attack.py nd failed"; show "$out"; }
			done
		done
	done
	sleep 0.3
	for kind in ns na; do
		for hl in 255 64; do
			for dst in fd00:ec2::254 fd00:10::50; do
				tag="nd-$kind-$hl-$dst-$mode"
				n=$(atk_rx_n cloud "tag=$tag")
				if [ "$mode" = open ]; then
					if [ "$n" -gt 0 ]; then ok "no table: $kind (hop limit $hl) with payload delivered to $dst ($n)"
						ATK_PROOF[$kind]=$(( ${ATK_PROOF[$kind]:-0} + 1 ))
					else info "no table: $kind (hop limit $hl) to $dst did not arrive: not a proof"; fi
				else
					if [ "$n" -eq 0 ]; then ok "table: $kind (hop limit $hl) with payload to $dst: 0 at the target"
					else bad "table: $kind (hop limit $hl) with payload to $dst GOT THROUGH: $n message(s) at the target"; fi
				fi
			done
		done
	done
}

attacks_03_nd_tunnel() { atk_run _attacks_03; }
_attacks_03() {
	atk_rx "$CL" cloud || return 1
	atk_no_table
	_atk_nd open
	apply_ok "$(mkconf default)" || return 1
	_atk_nd table
	_atk_require_proofs ns na
	return 0
}

# ------------------------------------------------------------------ broadcast
ATK_BC_DSTS="172.17.255.255 255.255.255.255 224.0.0.1 ff02::1 172.18.255.255"

# _atk_bc MODE: one sender per destination (tag = destination + mode)
_atk_bc() {
	local mode=$1 d tag hp nh na nc pids=()
	for d in $ATK_BC_DSTS; do
		tag="bc-$d-$mode"
		case $d in *:*) hp="[$d]:$ATK_ECHO_PORT" ;; *) hp="$d:$ATK_ECHO_PORT" ;; esac
		nsx "$C1" "$PY" "$ATK" bcast --iface eth0 --tag "$tag" --timeout 0.8 "$hp" >"$SWT_TMP/bc.$d.out" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	for d in $ATK_BC_DSTS; do
		tag="bc-$d-$mode"
		nh=$(grep -cF -- "data=$tag" "$SWT_TMP/echo.host")
		na=$(grep -cF -- "data=echo:host:$tag" "$SWT_TMP/bc.$d.out")
		nc=$(grep -cF -- "data=echo:c3:$tag" "$SWT_TMP/bc.$d.out")
		if [ "$mode" = open ]; then
			if [ "$nh" -gt 0 ]; then ok "no table: c1 -> $d reached the host's UDP echo ($nh datagram(s), $na answer(s))"
				ATK_PROOF[$d]=1
			else info "no table: c1 -> $d did not reach the host's echo: not a proof"; show "$SWT_TMP/bc.$d.out" 5; fi
		else
			if [ "$nh" -eq 0 ] && [ "$na" -eq 0 ]; then ok "table: c1 -> $d: 0 datagrams at the host's echo, no answer"
			else bad "table: c1 -> $d GOT THROUGH: $nh datagram(s) at the host's echo, $na answer(s) from it"; fi
		fi
		[ "$d" = 172.17.255.255 ] || continue
		# the other container on the same bridge must keep hearing the broadcast
		if [ "$nc" -gt 0 ]; then ok "${mode/open/no table}: c1 -> $d answered by c3 (container-to-container broadcast open)"
		else bad "${mode/open/no table}: c1 -> $d: no answer from c3 (container-to-container broadcast must stay open)"; show "$SWT_TMP/bc.$d.out" 5; fi
	done
}

# _atk_bc_unspec MODE: the sources the anti-spoofing check lets through as
# the kernel does (DHCP: 0.0.0.0 -> 255.255.255.255; DAD-like: :: -> ff02::1),
# raw frames to the host's echo
_atk_bc_unspec() {
	local mode=$1 v src dst mac tag nh
	for v in 4 6; do
		if [ $v = 4 ]; then src=0.0.0.0 dst=255.255.255.255 mac=ff:ff:ff:ff:ff:ff
		else src=:: dst=ff02::1 mac=33:33:00:00:00:01; fi
		tag="unspec$v-$mode"
		nsx "$C1" "$PY" "$ATK" rawudp --iface eth0 --dmac $mac --src $src --dst $dst --sport 68 \
			--dport $ATK_ECHO_PORT --tag "$tag" >"$SWT_TMP/unspec.out" 2>&1 || { bad "attack.py rawudp failed"; show "$SWT_TMP/unspec.out"; }
	done
	sleep 0.3
	for v in 4 6; do
		tag="unspec$v-$mode"
		nh=$(grep -cF -- "data=$tag" "$SWT_TMP/echo.host")
		if [ "$mode" = open ]; then
			if [ "$nh" -gt 0 ]; then ok "no table: an unspecified-source datagram (IPv$v) reached the host's echo"; ATK_PROOF[unspec$v]=1
			else info "no table: the unspecified-source datagram (IPv$v) did not reach the host's echo: not a proof"; fi
		else
			if [ "$nh" -eq 0 ]; then ok "table: the unspecified-source datagram (IPv$v): 0 at the host's echo"
			else bad "table: the unspecified-source datagram (IPv$v) GOT THROUGH to the host's echo ($nh)"; fi
		fi
	done
}

attacks_04_bcast_host() { atk_run _attacks_04; }
_attacks_04() {
	local n
	atk_echo "$H" host $ATK_ECHO_PORT || return 1
	atk_echo "$C3" c3 $ATK_ECHO_PORT || return 1
	atk_no_table
	_atk_bc open
	_atk_bc_unspec open
	apply_ok "$(mkconf default)" || return 1
	_atk_bc table
	_atk_bc_unspec table
	n=$(counter_packets host)
	if [ -n "$n" ] && [ "$n" -gt 0 ]; then ok "counter host = $n packets"
	else bad "counter host: expected > 0 packets, got '${n:-missing}'"; fi
	# shellcheck disable=SC2046
	_atk_require_proofs $ATK_BC_DSTS unspec4 unspec6
	return 0
}

# ------------------------------------------------------------------ flood during operations
ATK_D_PID=""; ATK_D_CTL=""; ATK_D_LOG=""; ATK_D_N=0

# atk_d_start CONF: sandwalld -f in the host ns; wait for its start line and socket
atk_d_start() {
	local conf=$1 i
	ATK_D_N=$((ATK_D_N + 1))
	ATK_D_CTL="$SWT_TMP/atkctl.$ATK_D_N"; ATK_D_LOG="$SWT_TMP/atkd.$ATK_D_N.log"
	ip netns exec "$H" "$SANDWALLD" -c "$conf" -f --control "$ATK_D_CTL" >"$ATK_D_LOG" 2>&1 &
	ATK_D_PID=$!
	SWT_PIDS+=("$ATK_D_PID")
	for i in $(seq 1 100); do
		grep -qs 'event=start' "$ATK_D_LOG" && [ -S "$ATK_D_CTL" ] && return 0
		[ -d "/proc/$ATK_D_PID" ] || break
		sleep 0.05
	done
	bad "sandwalld did not start within 5 s"; show "$ATK_D_LOG"
	atk_d_stop KILL
	return 1
}
# atk_d_stop [SIG]: signal the daemon and reap it (KILL after 5 s)
atk_d_stop() {
	local sig=${1:-TERM} pid=$ATK_D_PID i
	[ -n "$pid" ] || return 0
	kill -"$sig" "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		{ [ ! -d "/proc/$pid" ] || grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; } && break
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	ATK_D_PID=""
	rm -f "$ATK_D_CTL"
}

# _atk_phase DESC: packets that reached the metadata receiver since the last phase
ATK_FLOOD_SEEN=0
_atk_flood_n() { echo $(( $(atk_rx_n cloud "dst=169.254.169.254 dport=54 ") + $(atk_rx_n cloud "dst=fd00:ec2::254 dport=54 ") )); }
_atk_phase() {
	local desc=$1 n
	sleep 0.2
	n=$(_atk_flood_n)
	if [ "$((n - ATK_FLOOD_SEEN))" -eq 0 ]; then ok "[$desc] 0 flood packets reached 169.254.169.254 / fd00:ec2::254"
	else bad "[$desc] $((n - ATK_FLOOD_SEEN)) flood packets reached the metadata receiver"; fi
	ATK_FLOOD_SEEN=$n
}

# _atk_hold up|down: a table of the test's own (inet swtatk_hold) that drops
# the flood's destinations from docker0 while sandwall's table is re-created
_atk_hold() {
	if [ "$1" = up ]; then
		hnft -f - <<-'EOF2' || { bad "could not create the hold table"; return 1; }
		table inet swtatk_hold {
			chain pre {
				type filter hook prerouting priority -300; policy accept;
				iifname "docker0" ip daddr 169.254.169.254 drop
				iifname "docker0" ip6 daddr fd00:ec2::254 drop
			}
		}
		EOF2
		ATK_UNDO+=("hnft delete table inet swtatk_hold")
	else
		hnft delete table inet swtatk_hold || { bad "could not delete the hold table"; return 1; }
	fi
}

_atk_flood_start() {
	rm -f "$SWT_TMP/flood.stop"
	nsx "$C1" "$PY" "$ATK" flood --dst 169.254.169.254 --port 54 --stop "$SWT_TMP/flood.stop" --max 120 >"$SWT_TMP/flood4.out" 2>&1 &
	ATK_F4=$!
	nsx "$C1" "$PY" "$ATK" flood --dst fd00:ec2::254 --port 54 --stop "$SWT_TMP/flood.stop" --max 120 >"$SWT_TMP/flood6.out" 2>&1 &
	ATK_F6=$!
	SWT_TEST_PIDS+=("$ATK_F4" "$ATK_F6")
	ATK_UNDO+=("touch $SWT_TMP/flood.stop")
	sleep 0.2
}
_atk_flood_stop() { touch "$SWT_TMP/flood.stop"; wait "$ATK_F4" "$ATK_F6" 2>/dev/null; }

attacks_05_flood_ops() { atk_run _attacks_05; }
_attacks_05() {
	local conf i n
	if [ ! -x "$SANDWALLD" ]; then info "skip: $SANDWALLD not built"; return $SKIP; fi
	atk_rx "$CL" cloud || return 1
	conf=$(mkconf flood)          # [daemon] owner = auto (the default)
	# baseline: the same flood without the table reaches the receiver
	atk_no_table
	_atk_flood_start
	# until the first packets arrive (python3 starts slowly on a slow CPU,
	# e.g. a kernel under TCG), at most 10 s, then half a second more
	for i in $(seq 1 100); do
		[ "$(_atk_flood_n)" -gt 0 ] && break
		sleep 0.1
	done
	sleep 0.5
	_atk_flood_stop
	sleep 0.2
	n=$(_atk_flood_n)
	if [ "$n" -gt 0 ]; then ok "no table: the flood reaches the metadata receiver ($n packets; $(cat "$SWT_TMP/flood4.out") $(cat "$SWT_TMP/flood6.out"))"
	else bad "no table: the flood did not reach the receiver: it proves nothing"; show "$SWT_TMP/flood4.out"; fi
	ATK_FLOOD_SEEN=$n

	apply_ok "$conf" || return 1
	_atk_flood_start
	_atk_phase "apply, flood running"
	for i in $(seq 1 10); do
		sw -c "$conf" --force apply || bad "apply --force #$i: exit $SW_RC"
	done
	_atk_phase "10 x apply --force"

	# takeover: a table created by `sandwall apply`, then sandwalld (owner =
	# auto) takes ownership of it. A table the daemon left behind (persist)
	# would only be adopted, so each round re-creates a CLI-made table; while
	# it is re-created (delete + apply), a table of the test's own holds the
	# metadata addresses (it is gone again before the daemon starts: only
	# sandwall's table stands during the takeover itself)
	for i in $(seq 1 8); do
		if [ "$i" -gt 1 ]; then
			_atk_hold up || return 1
			hnft delete table inet sandwall
			sw -c "$conf" apply || bad "apply before takeover #$i: exit $SW_RC"
			_atk_hold down || return 1
		fi
		atk_d_start "$conf" || return 1
		if grep -q adopted "$ATK_D_LOG"; then bad "takeover #$i: the daemon adopted the table instead of taking it over: $(head -n 1 "$ATK_D_LOG")"; fi
		sleep 0.1
		atk_d_stop TERM
	done
	_atk_phase "8 x takeover (table from sandwall apply, then sandwalld owner = auto)"

	atk_d_start "$conf" || return 1
	for i in 1 2 3 4 5; do
		kill -HUP "$ATK_D_PID"
		sleep 0.2
	done
	_atk_phase "5 x SIGHUP reload"
	# the CLI's apply while the daemon owns the table goes through its socket
	for i in 1 2 3; do
		sw --control "$ATK_D_CTL" -c "$conf" apply || bad "apply through the daemon #$i: exit $SW_RC"
	done
	_atk_phase "3 x sandwall apply through the daemon's control socket"

	for i in 1 2; do
		atk_d_stop TERM
		atk_d_start "$conf" || return 1
	done
	_atk_phase "2 x restart after SIGTERM (adoption)"
	atk_d_stop KILL
	atk_d_start "$conf" || return 1
	_atk_phase "restart after kill -9"
	if grep -q adopt "$ATK_D_LOG"; then info "last start: $(grep -m1 adopt "$ATK_D_LOG" | sed 's/^sandwalld: //')"; fi
	atk_d_stop TERM
	_atk_flood_stop
	info "flood: $(cat "$SWT_TMP/flood4.out") (v4) $(cat "$SWT_TMP/flood6.out") (v6)"
	grep -q 'sent=[1-9]' "$SWT_TMP/flood4.out" || bad "the v4 flood sent nothing"
	return 0
}

# ------------------------------------------------------------------ legitimate traffic
attacks_06_legit() { atk_run _attacks_06; }
_attacks_06() {
	local hmac
	hnft add rule ip testnat prerouting iifname eth0 tcp dport 8000 dnat to 172.17.0.2:8000 ||
		{ bad "could not add the DNAT rule"; return 1; }
	apply_ok "$(mkconf default)" || return 1
	# the same table has just stopped an attack round (broadcast-MAC priming)
	_atk_setup_prime || return 1
	hmac=$(atk_hmac)
	_atk_prime "legit run" table ff:ff:ff:ff:ff:ff "$hmac" "tcp:169.254.169.254:80 tcp:172.17.0.1:8080" "tcp:fd00:ec2::254:80"
	reach "$C1" http://203.0.113.10/
	reach "$C1" "http://[2001:db8::10]/"
	reach "$C2" http://203.0.113.10/
	reach "$H" http://172.17.0.2:8000/
	reach "$H" "http://[fd00:17::2]:8000/"
	reach "$C1" http://172.17.0.3/
	reach "$C1" "http://[fd00:17::3]/"
	reach "$C3" http://172.17.0.2:8000/
	reach "$C1" http://172.18.0.2/
	reach "$C2" http://172.17.0.2:8000/
	reach "$CL" http://10.0.0.2:8000/          # published port (host DNAT)
	udp_reach "$C1" 169.254.169.253 53         # DNS carve-out (dns = auto)
	udp_reach "$C2" 169.254.169.253 53
	reach "$C1" http://169.254.169.253:53/
	blocked "$C1" http://169.254.169.254/
	udp_blocked "$C1" 169.254.169.253 54
	return 0
}

# ------------------------------------------------------------------ rogue router advertisement
# With accept_ra = 2 on the bridge (RAs accepted although the host forwards),
# a container announcing itself as a router would become the host's default
# IPv6 router: the host's own traffic, and what it forwards, would go to the
# container.
attacks_07_rogue_ra() { atk_run _attacks_07; }
_atk_ra_routes() { ip -n "$H" -6 route show proto ra dev docker0 2>/dev/null | grep -c . ; }
_attacks_07() {
	local ll n
	ll=$(_atk_ll "$C1" eth0)
	[ -n "$ll" ] || { bad "no link-local address on c1's eth0"; return 1; }
	atk_sysctl "$H" net.ipv6.conf.docker0.accept_ra 2 || return 1
	ATK_UNDO+=("ip -n $H -6 route flush proto ra")
	atk_no_table
	nsx "$C1" "$PY" "$ATK" ra --iface eth0 --src "$ll" >"$SWT_TMP/ra.out" 2>&1 || { bad "attack.py ra failed"; show "$SWT_TMP/ra.out"; }
	sleep 0.3
	n=$(_atk_ra_routes)
	if [ "$n" -gt 0 ]; then ok "no table: the host took c1 as its router: $(ip -n "$H" -6 route show proto ra dev docker0 | head -n 1)"
	else bad "no table: the router advertisement had no effect: this attack proves nothing here"; fi
	ip -n "$H" -6 route flush proto ra
	apply_ok "$(mkconf default)" || return 1
	nsx "$C1" "$PY" "$ATK" ra --iface eth0 --src "$ll" >"$SWT_TMP/ra.out" 2>&1 || { bad "attack.py ra failed"; show "$SWT_TMP/ra.out"; }
	sleep 0.3
	n=$(_atk_ra_routes)
	if [ "$n" -eq 0 ]; then ok "table: no route via c1 learned from its router advertisement"
	else bad "table: the host took c1 as its router: $(ip -n "$H" -6 route show proto ra dev docker0 | head -n 1)"; fi
	info "counters: host $(counter_packets host), spoofed $(counter_packets spoofed)"
	return 0
}

# ------------------------------------------------------------------ primed before the table
# The anti-spoofing rule stops new priming. A flow primed while there was no
# sandwall table (sandwall installed on a running host, containers started
# before sandwalld, a `sandwall remove`) is already in the host's conntrack
# table: the container's packets on it are "established, reply direction".
# Applying the table must cut it. UDP flows (the conntrack entry lives on
# as long as traffic flows), routed and through the bridge.

# _atk_rx_port LPORT: packets at the receivers from local port LPORT
_atk_rx_port() { echo $(( $(atk_rx_n cloud "sport=$1 dst=") + $(atk_rx_n host "sport=$1 dst=") )); }

# _atk_before LABEL MAC SRC SPECS...: prime and talk without the table, hold
# the flows, apply, talk again on them
_atk_before() {
	local label=$1 mac=$2 src=$3; shift 3
	local specs=$* out="$SWT_TMP/before.$ATK_PORT.out" hold="$SWT_TMP/before.$ATK_PORT.hold" pid i n line spec lport res
	local -A n0=()
	local base=$ATK_PORT
	ATK_PORT=$((ATK_PORT + $#))
	atk_no_table
	nsx "$C1" "$PY" "$ATK" prime --iface eth0 --dmac "$mac" --src "$src" --port $base --timeout 1.0 \
		--hold "$hold" $specs >"$out" 2>&1 &
	pid=$!
	for i in $(seq 1 100); do
		[ "$(grep -c '^target=' "$out")" -ge $# ] && break
		sleep 0.05
	done
	sleep 0.1
	_atk_prime_check "$label" open "$src" "$out"
	for ((i = 0; i < $#; i++)); do n0[$((base + i))]=$(_atk_rx_port $((base + i))); done
	apply_ok "$(mkconf default)"
	touch "$hold"
	wait $pid
	sleep 0.1
	while read -r line; do
		[[ $line == later* ]] || continue
		spec=$(sed -n 's/^later target=\([^ ]*\) .*/\1/p' <<<"$line")
		lport=$(sed -n 's/.* lport=\([0-9]*\) .*/\1/p' <<<"$line")
		res=${line##*result=}
		n=$(( $(_atk_rx_port "$lport") - ${n0[$lport]:-0} ))
		if [ "$n" -eq 0 ] && [ "$res" = timeout ]; then
			ok "[$label] table applied: $spec on the flow primed before: 0 packets at the target, no answer"
		else
			bad "[$label] table applied: $spec on the flow primed BEFORE the table GOT THROUGH: result $res, $n packet(s) at the target after the apply"
			nsx "$H" grep -E "(sport|dport)=$lport " /proc/net/nf_conntrack 2>/dev/null | sed 's/^/conntrack: /' | show - 2
		fi
	done <"$out"
	grep -q '^later ' "$out" || { bad "[$label] the attacker printed no second phase"; show "$out"; }
}

attacks_08_primed_before() { atk_run _attacks_08; }
_attacks_08() {
	local hmac
	_atk_setup_prime || return 1
	hmac=$(atk_hmac)
	_atk_before "routed" "$hmac" $ATK_C4 udp:169.254.169.254:54 udp:10.0.0.50:54
	_atk_before "routed" "$hmac" $ATK_C6 udp:fd00:ec2::254:54
	if atk_have_brnf; then
		atk_sysctl "$H" net.bridge.bridge-nf-call-iptables 1 || return 1
		_atk_before "broadcast MAC" ff:ff:ff:ff:ff:ff $ATK_C4 "udp:172.17.0.1:$ATK_ECHO_PORT"
	fi
	_atk_require_proofs udp:169.254.169.254:54 udp:10.0.0.50:54 udp:fd00:ec2::254:54
	return 0
}
