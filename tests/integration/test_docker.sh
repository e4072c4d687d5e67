# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086,SC2016
# Docker suite (issue 5): sandwalld guarding a real Docker engine, with real
# traffic from real containers. Namespaces that look like Docker are not
# Docker: Docker rewrites its own iptables-nft rules, restarts, creates and
# deletes bridges, and publishes ports through DNAT and docker-proxy.
#
# Topology (all in namespaces of this run; the root namespace is never used):
#
#   containers ── docker0 / br-<12 hex> / lab0 ──┐
#                      namespace DK ($DK): sandwalld, then dockerd
#                      eth0 10.0.0.2/24 fd00:10::2/64, host service tcp :9090
#                                 │ (veth)
#   namespace DKC ($DKC): eth0 10.0.0.1 (gateway) 10.0.0.50 (LAN peer)
#                         fd00:10::1 fd00:10::50; lo 169.254.169.254
#                         100.100.100.200 fd00:ec2::254 (metadata),
#                         203.0.113.10 2001:db8::10 (internet); tcp :80 on all
#
# dockerd runs inside DK through docker/dockerd-ns.sh (cgroup mounts and a
# private /run in its own mount namespace) with its own --data-root,
# --exec-root, --pidfile, unix socket and --cgroup-parent, all under
# $SWT_TMP/docker. The image is busybox-static imported from a tarball
# (docker/mkimage.sh): no registry. The engine is started once, by the first
# docker_* test that runs, and stopped by docker_99_cleanup, which verifies
# that nothing is left; run.sh's exit cleanup also stops it (chained below),
# so a failed or interrupted run leaves nothing either.
#
# If Docker cannot run on this machine at all (not installed, dockerd or a
# container does not start) the tests SKIP with the reason.

register_test docker_01_engine       "sandwalld first, then a real dockerd in its namespace; baseline opens, rules restore"
register_test docker_02_bridges      "default bridge and a user network: metadata, gateway, LAN, host blocked; internet open"
register_test docker_03_new_networks "networks created while sandwalld runs are guarded at once; lab0 with all_bridges"
register_test docker_04_published    "published ports stay reachable from outside and from the Docker host"
register_test docker_05_churn        "dockerd restart and 10 network rm/create cycles: protection never lapses"
register_test docker_06_ipv6         "an IPv6 network: fd00:ec2::254, v6 gateway/LAN/host blocked; v6 internet open"
register_test docker_07_verify       "sandwall verify (throwaway probes on Docker's bridges, and --pid of a container) and receipt hold"
register_test docker_99_cleanup      "after the suite: no dockerd/containerd, mounts, namespaces, cgroups, sockets"

DK_SANDWALLD=${SANDWALLD:-$SWT_ROOT/build/sandwalld}
DK_HELPERS="$SWT_DIR/docker"
DK_PT=${DK_PROBE_TIMEOUT:-2}       # seconds an in-container probe (busybox wget) may take
DK_IMG=swt-busybox:1

DK=${SWT_PREFIX}dk                 # the Docker host namespace
DKC=${SWT_PREFIX}dkc               # gateway / LAN / metadata / internet
DK_CG=${SWT_PREFIX}docker          # --cgroup-parent (a directory in every hierarchy)

DK_STATE=none                      # none | up | skip | fail | down
DK_REASON=""
DK_DIR=""                          # $SWT_TMP/docker
DK_SOCK=""
DK_CONF=""
DK_CTL=""
DKD_PID=""                         # sandwalld
DKD_LOG=""
DOCKERD_PID=""
DK_HOLDER=""                       # holds dockerd's mount namespace (docker/dockerd-ns.sh hold)
DOCKERD_N=0
DOCKERD_LOG=""
DK_SRV_PIDS=()                     # suite-level servers (not killed by reset_state)
DK_RUN_PRE=""                      # which of /run/docker, /run/containerd existed before
DK_DOCKER=""                       # the docker CLI

# URLs
K_META=http://169.254.169.254/
K_META2=http://100.100.100.200/
K_META6="http://[fd00:ec2::254]/"
K_GW=http://10.0.0.1/
K_GW6="http://[fd00:10::1]/"
K_LAN=http://10.0.0.50/
K_LAN6="http://[fd00:10::50]/"
K_HOST_UP=http://10.0.0.2:9090/
K_HOST_UP6="http://[fd00:10::2]:9090/"
K_NET=http://203.0.113.10/
K_NET6="http://[2001:db8::10]/"

# ---------------------------------------------------------------- docker CLI
dk() {
	DOCKER_CONFIG="$DK_DIR/cli" timeout "${DK_CLI_TIMEOUT:-60}" "$DK_DOCKER" -H "unix://$DK_SOCK" "$@"
}
# dk_q ARGS: docker, output and errors to $DK_DIR/cli.out (shown on failure by the caller)
dk_q() { dk "$@" >"$DK_DIR/cli.out" 2>&1; }
dk_ip() { dk inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$1" 2>/dev/null | awk '{print $1}'; }
dk_ip6() { dk inspect -f '{{range .NetworkSettings.Networks}}{{.GlobalIPv6Address}} {{end}}' "$1" 2>/dev/null | awk '{print $1}'; }
dk_bridge_of() { # NETWORK -> its bridge device name
	local id name
	name=$(dk network inspect -f '{{index .Options "com.docker.network.bridge.name"}}' "$1" 2>/dev/null)
	if [ -n "$name" ] && [ "$name" != "<no value>" ]; then echo "$name"; return; fi
	id=$(dk network inspect -f '{{.Id}}' "$1" 2>/dev/null) || return 1
	echo "br-${id:0:12}"
}

# dk_box NAME [DOCKER-RUN-ARGS...]: a long-running container (sleep), unless
# it is already running
dk_box() {
	local name=$1; shift
	[ "$(dk inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" = true ] && return 0
	dk rm -f "$name" >/dev/null 2>&1
	if dk_q run -d --init --name "$name" "$@" "$DK_IMG" sleep 1000000; then return 0; fi
	bad "docker run $name $*: failed"; show "$DK_DIR/cli.out" 5
	return 1
}

# dk_probe CONTAINER WANT:URL...: one docker exec runs every probe in
# parallel inside the container (busybox wget under timeout $DK_PT s);
# WANT is block (the probe must time out: the packet was dropped) or reach.
# exit codes in the container: 0 answered, 143 timed out, else an error
# (1: refused/reset/unreachable, i.e. not silently dropped).
dk_probe() {
	local c=$1 s want u rc out; shift
	local urls=()
	for s in "$@"; do urls+=("${s#*:}"); done
	out=$(dk exec "$c" sh -c '
		t=$1; shift
		for u in "$@"; do
			(timeout "$t" wget -q -O /dev/null "$u" >/dev/null 2>&1; echo "$? $u") &
		done
		wait' sh "$DK_PT" "${urls[@]}" 2>&1)
	for s in "$@"; do
		want=${s%%:*}; u=${s#*:}
		rc=$(printf '%s\n' "$out" | awk -v u="$u" '$2 == u { print $1; exit }')
		case $want:$rc in
		block:143|block:124) ok "$c -> $u blocked" ;;
		block:0)  bad "$c -> $u: expected blocked, but it was REACHABLE" ;;
		block:)   bad "$c -> $u: no result from docker exec: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')" ;;
		block:*)  bad "$c -> $u: expected blocked (timeout), got wget exit $rc: the packet got through or was rejected" ;;
		reach:0)  ok "$c -> $u reachable" ;;
		reach:)   bad "$c -> $u: no result from docker exec: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')" ;;
		reach:*)  bad "$c -> $u: expected reachable, wget exit $rc" ;;
		*)        bad "dk_probe: bad spec $s" ;;
		esac
	done
}

# dk_dns CONTAINER LABEL: busybox nslookup (its own resolver) of a *.test name
# through the container's resolv.conf must give 203.0.113.10
dk_dns() {
	local c=$1 label=$2 out ns
	ns=$(dk exec "$c" sh -c 'sed -n "s/^nameserver //p" /etc/resolv.conf | head -n 1' 2>/dev/null)
	out=$(dk exec "$c" timeout 5 nslookup -type=a internet.test 2>&1)
	if printf '%s\n' "$out" | grep -q 'Address:* *203\.0\.113\.10'; then ok "[$label] $c resolves internet.test via $ns"
	else bad "[$label] $c: nslookup internet.test via $ns failed: $(printf '%s' "$out" | tr '\n' ' ' | cut -c1-200)"; fi
}

# dk_first_second NETWORK LABEL: a fresh container on NETWORK probes metadata
# (and the host/gateway) from its first instant, a new attempt every 0.1 s for
# 1 s, and the internet on the same schedule (the control: the network works
# in that first second). Nothing of the forbidden may answer.
dk_first_second() {
	local net=$1 label=$2 out got ctl
	out=$(dk run --rm --init --network "$net" "$DK_IMG" sh -c '
		i=0
		while [ $i -lt 10 ]; do
			(timeout 1 wget -q -O /dev/null http://169.254.169.254/ >/dev/null 2>&1 && echo "GOT meta $i") &
			(timeout 1 wget -q -O /dev/null http://10.0.0.1/ >/dev/null 2>&1 && echo "GOT gw $i") &
			(timeout 1 wget -q -O /dev/null http://10.0.0.2:9090/ >/dev/null 2>&1 && echo "GOT host $i") &
			(timeout 1 wget -q -O /dev/null http://203.0.113.10/ >/dev/null 2>&1 && echo "NET $i") &
			i=$((i + 1)); sleep 0.1
		done
		wait' 2>&1)
	got=$(printf '%s\n' "$out" | grep -c '^GOT')
	ctl=$(printf '%s\n' "$out" | grep -c '^NET')
	if [ "$got" -eq 0 ]; then ok "[$label] first second: 30 attempts at metadata/gateway/host, none answered"
	else bad "[$label] first second: $got forbidden probe(s) ANSWERED: $(printf '%s\n' "$out" | grep '^GOT' | head -n 5 | tr '\n' ' ')"; fi
	if [ "$ctl" -ge 5 ]; then ok "[$label] control: the internet answered $ctl of 10 times in that second"
	else bad "[$label] control: the internet answered only $ctl of 10 times (the network was not up; output: $(printf '%s' "$out" | grep -v '^GOT' | head -n 3 | tr '\n' ' '))"; fi
}

# ---------------------------------------------------------------- sandwalld in DK
dk_sw() { sw_in "$DK" --control "$DK_CTL" -c "$DK_CONF" "$@"; }

dk_conf() { # all_bridges yes|no [section.key=value ...]
	local ab=$1; shift
	# the engine's API is at $DK_SOCK, not /var/run/docker.sock: sandwalld
	# names the containers through it ([identity], test_identity.sh)
	DK_CONF=$(mkconf docker "guard.all_bridges=$ab" "daemon.journal=$DK_DIR/journal.jsonl" \
		"daemon.metrics=$DK_DIR/metrics.prom" "identity.docker_socket=$DK_SOCK" "$@")
}

dk_sandwalld_alive() { [ -n "$DKD_PID" ] && [ -d "/proc/$DKD_PID" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$DKD_PID/status" 2>/dev/null; }

# dk_wait_check MS: poll `sandwall check` until 0
dk_wait_check() {
	local i n=$(($1 / 50))
	for ((i = 0; i <= n; i++)); do
		dk_sw check && return 0
		sleep 0.05
	done
	return 1
}

# dk_reload all_bridges: rewrite the config, SIGHUP, wait for event=reload
dk_reload() {
	local n0 i
	dk_conf "$@"
	n0=$(wc -l <"$DKD_LOG")
	kill -HUP "$DKD_PID" 2>/dev/null || { bad "SIGHUP to sandwalld (pid $DKD_PID) failed"; return 1; }
	for i in $(seq 1 100); do
		if tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -q 'event=reload'; then
			ok "sandwalld reloaded (all_bridges = $1): $(tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -m1 'event=reload' | sed 's/^sandwalld: //')"
			return 0
		fi
		sleep 0.05
	done
	bad "no event=reload within 5 s of SIGHUP"; tail -n +"$((n0 + 1))" "$DKD_LOG" | show - 5
	return 1
}

# ---------------------------------------------------------------- dockerd
dockerd_start() {
	local i
	DOCKERD_N=$((DOCKERD_N + 1))
	DOCKERD_LOG="$DK_DIR/dockerd.$DOCKERD_N.log"
	rm -f "$DK_DIR/dockerd.pid"
	# nsenter execs dockerd in the holder's network and mount namespaces: $! is dockerd
	nsenter -t "$DK_HOLDER" -m -n -- dockerd \
		--data-root "$DK_DIR/data" --exec-root "$DK_DIR/exec" --pidfile "$DK_DIR/dockerd.pid" \
		-H "unix://$DK_SOCK" --cgroup-parent "/$DK_CG" --config-file "$DK_DIR/daemon.json" \
		--iptables=true --live-restore --storage-driver overlay2 >"$DOCKERD_LOG" 2>&1 &
	DOCKERD_PID=$!
	for i in $(seq 1 200); do    # 20 s
		if [ -S "$DK_SOCK" ] && DK_CLI_TIMEOUT=5 dk version >/dev/null 2>&1; then return 0; fi
		kill -0 "$DOCKERD_PID" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# dockerd_stop: TERM (containers keep running: --live-restore), wait, KILL after 15 s
dockerd_stop() {
	local i pid=$DOCKERD_PID
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		echo "dockerd (pid $pid) still running 15 s after TERM: KILL"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	DOCKERD_PID=""
	return 0
}

# ---------------------------------------------------------------- setup
_dk_skip() { DK_STATE=skip; DK_REASON=$1; }

# dk_need: bring the whole thing up once; 0 up, $SKIP (reason printed) or 1
dk_need() {
	case $DK_STATE in
	up) return 0 ;;
	skip) info "skip: $DK_REASON"; return $SKIP ;;
	fail) bad "docker setup: $DK_REASON"; return 1 ;;
	down) info "the engine was stopped by an earlier cleanup: starting it again"; DK_STATE=none ;;
	esac
	need_sandwall || { _dk_skip "$SANDWALL not built"; return $SKIP; }
	[ -x "$DK_SANDWALLD" ] || { _dk_skip "$DK_SANDWALLD not built"; info "skip: $DK_REASON"; return $SKIP; }
	local t missing=""
	for t in dockerd containerd runc busybox iptables findmnt; do command -v "$t" >/dev/null 2>&1 || missing+=" $t"; done
	if [ -x /usr/bin/docker ]; then DK_DOCKER=/usr/bin/docker    # the CLI of the same package as dockerd
	else DK_DOCKER=$(command -v docker) || missing+=" docker"; fi
	if [ -n "$missing" ]; then
		_dk_skip "missing:$missing (apt-get install docker.io busybox-static iptables; make deps does)"
		info "skip: $DK_REASON"; return $SKIP
	fi
	DK_DIR="$SWT_TMP/docker"
	DK_SOCK="$DK_DIR/docker.sock"
	DK_CTL="$DK_DIR/ctl"
	DKD_LOG="$DK_DIR/sandwalld.log"
	DK_RUN_PRE="$([ -e /run/docker ] && echo docker) $([ -e /run/containerd ] && echo containerd)"
	if ! _dk_up >"$SWT_TMP/docker-setup.log" 2>&1; then
		[ "$DK_STATE" = skip ] || { DK_STATE=fail; DK_REASON=${DK_REASON:-"setup failed"}; }
		if [ "$DK_STATE" = skip ]; then
			info "skip: $DK_REASON"
			show "$SWT_TMP/docker-setup.log" 30
			return $SKIP
		fi
		bad "docker setup: $DK_REASON"; show "$SWT_TMP/docker-setup.log" 40
		return 1
	fi
	DK_STATE=up
	sed 's/^/    .    /' "$SWT_TMP/docker-setup.log"
	return 0
}

_dk_up() {
	local TOPO_ERR=0 a i saved
	_dk_t() { "$@" || { echo "docker setup: failed: $*" >&2; TOPO_ERR=1; }; }
	mkdir -p "$DK_DIR/data" "$DK_DIR/exec" "$DK_DIR/cli" || return 1
	echo '{}' >"$DK_DIR/daemon.json"
	# --- namespaces and the uplink
	_dk_t _mk_ns "$DK"; _dk_t _mk_ns "$DKC"
	_dk_t ip -n "$DK" link add eth0 type veth peer name eth0 netns "$DKC"
	_dk_t ip -n "$DK" addr add 10.0.0.2/24 dev eth0
	_dk_t ip -n "$DK" addr add fd00:10::2/64 dev eth0 nodad
	_dk_t ip -n "$DK" link set eth0 up
	for a in 10.0.0.1/24 10.0.0.50/24; do _dk_t ip -n "$DKC" addr add $a dev eth0; done
	for a in fd00:10::1/64 fd00:10::50/64; do _dk_t ip -n "$DKC" addr add $a dev eth0 nodad; done
	_dk_t ip -n "$DKC" link set eth0 up
	for a in 169.254.169.254/32 100.100.100.200/32 203.0.113.10/32; do _dk_t ip -n "$DKC" addr add $a dev lo; done
	for a in fd00:ec2::254/128 2001:db8::10/128; do _dk_t ip -n "$DKC" addr add $a dev lo nodad; done
	_dk_t ip -n "$DKC" -6 route add fd00:d0c::/64 via fd00:10::2     # docker_06's network
	_dk_t ip -n "$DK" route add default via 10.0.0.1
	_dk_t ip -n "$DK" -6 route add default via fd00:10::1
	# IPv6 forwarding for docker_06 (Docker 20.10 leaves it alone without --ipv6);
	# IPv4 forwarding is left to Docker, as on a fresh host.
	_dk_t nsx "$DK" sysctl -qw net.ipv6.conf.all.forwarding=1
	[ "$TOPO_ERR" = 0 ] || { DK_REASON="namespace setup failed"; return 1; }
	# the Docker host's resolver (ip netns exec bind-mounts it over /etc/resolv.conf;
	# dockerd copies it into containers): an address of this topology only
	mkdir -p "/etc/netns/$DK" && printf 'nameserver 10.0.0.1\n' >"/etc/netns/$DK/resolv.conf" || return 1
	# --- servers: every address of DKC on :80, the Docker host on :9090
	saved=("${SWT_TEST_PIDS[@]}")
	start_srv "$DKC" tcp :: 80 53 || { DK_REASON="server in $DKC did not start"; return 1; }
	start_srv "$DK" tcp :: 9090 || { DK_REASON="server in $DK did not start"; return 1; }
	for a in "${SWT_TEST_PIDS[@]}"; do
		[[ " ${saved[*]} " == *" $a "* ]] || DK_SRV_PIDS+=("$a")
	done
	SWT_TEST_PIDS=("${saved[@]}")     # suite-level: reset_state must not kill them
	# the resolver named in the Docker host's resolv.conf: *.test -> the internet host
	nsx "$DKC" "$PY" "$DK_HELPERS/dns.py" 10.0.0.1 203.0.113.10 --ready "$DK_DIR/dns.ready" >>"$SWT_TMP/srv.log" 2>&1 &
	DK_SRV_PIDS+=("$!"); SWT_PIDS+=("$!")
	for i in $(seq 1 100); do [ -s "$DK_DIR/dns.ready" ] && break; sleep 0.05; done
	[ -s "$DK_DIR/dns.ready" ] || { DK_REASON="the DNS responder in $DKC did not start"; tail -n 5 "$SWT_TMP/srv.log"; return 1; }
	nsx "$DK" curl -s -o /dev/null -m 2 "$K_META" || { DK_REASON="the Docker namespace cannot reach $K_META"; return 1; }
	# --- sandwalld first (boot order: the guard is up before the runtime)
	dk_conf yes
	ip netns exec "$DK" "$DK_SANDWALLD" -c "$DK_CONF" -f --control "$DK_CTL" >"$DKD_LOG" 2>&1 &
	DKD_PID=$!
	SWT_PIDS+=("$DKD_PID")
	for i in $(seq 1 100); do
		grep -q 'event=start' "$DKD_LOG" && [ -S "$DK_CTL" ] && break
		dk_sandwalld_alive || break
		sleep 0.05
	done
	if ! grep -q 'event=start' "$DKD_LOG" || [ ! -S "$DK_CTL" ]; then
		DK_REASON="sandwalld did not start in $DK"; cat "$DKD_LOG"; return 1
	fi
	echo "sandwalld (pid $DKD_PID): $(grep -m1 'event=start' "$DKD_LOG" | sed -e 's/^sandwalld: //' -e "s|$SWT_TMP/||")"
	# --- the mount namespace dockerd runs in (kept by a sleeping holder, so that
	# a restarted dockerd finds what --live-restore kept)
	SWT_HOST_PID=$$ ip netns exec "$DK" "$DK_HELPERS/dockerd-ns.sh" hold "$DK_DIR/holder.pid" \
		>"$DK_DIR/holder.log" 2>&1 &
	DK_HOLDER=$!
	for i in $(seq 1 100); do
		[ -s "$DK_DIR/holder.pid" ] && break
		kill -0 "$DK_HOLDER" 2>/dev/null || break
		sleep 0.05
	done
	if [ ! -s "$DK_DIR/holder.pid" ]; then
		_dk_skip "cannot prepare a mount namespace for dockerd (cgroup mounts): $(head -c 300 "$DK_DIR/holder.log" | tr '\n' ' ')"
		return 1
	fi
	echo "mount namespace for dockerd held by pid $DK_HOLDER ($(nsenter -t "$DK_HOLDER" -m findmnt -rn -o FSTYPE /sys/fs/cgroup) on /sys/fs/cgroup, $(nsenter -t "$DK_HOLDER" -m findmnt -rn -o FSTYPE -R /sys/fs/cgroup | grep -c cgroup) cgroup hierarchies)"
	# --- dockerd
	if ! dockerd_start; then
		_dk_skip "dockerd ($(dockerd --version 2>/dev/null)) does not start in a network namespace here; its log: $(grep -E 'level=(error|fatal)|failed' "$DOCKERD_LOG" | tail -n 2 | tr '\n' ' ')"
		tail -n 15 "$DOCKERD_LOG"
		return 1
	fi
	echo "dockerd up (pid $DOCKERD_PID, $(dk version -f 'server {{.Server.Version}}, client {{.Client.Version}}' 2>/dev/null)), data root $DK_DIR/data"
	# --- the image, and one container as a smoke test
	if ! "$DK_HELPERS/mkimage.sh" "$DK_DIR/rootfs.tar"; then _dk_skip "cannot build the busybox image (docker/mkimage.sh)"; return 1; fi
	if ! dk import "$DK_DIR/rootfs.tar" "$DK_IMG" >"$DK_DIR/import.out" 2>&1; then
		_dk_skip "docker import failed: $(head -c 300 "$DK_DIR/import.out" | tr '\n' ' ')"; return 1
	fi
	rm -f "$DK_DIR/rootfs.tar"
	if ! dk run --rm --init "$DK_IMG" true >"$DK_DIR/smoke.out" 2>&1; then
		_dk_skip "a container does not start here: $(head -c 400 "$DK_DIR/smoke.out" | tr '\n' ' ')"
		tail -n 10 "$DOCKERD_LOG"
		return 1
	fi
	echo "image $DK_IMG imported; docker run works"
	return 0
}

# ---------------------------------------------------------------- teardown
# pids to end: dockerd, its containerd, the shims and anything else that names
# our directory, whatever runs in our cgroups (the containers) or in DK.
_dk_pids() {
	local p f mp
	[ -n "$DOCKERD_PID" ] && echo "$DOCKERD_PID"
	[ -n "$DK_HOLDER" ] && echo "$DK_HOLDER"
	[ -s "$DK_DIR/dockerd.pid" ] && cat "$DK_DIR/dockerd.pid"
	[ -s "$DK_DIR/exec/containerd/containerd.pid" ] && cat "$DK_DIR/exec/containerd/containerd.pid"
	for f in /proc/[0-9]*/cmdline; do
		p=${f#/proc/}; p=${p%/cmdline}
		[ "$p" = $$ ] && continue
		{ tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF -- "$DK_DIR/" && echo "$p"
	done
	for mp in $(_dk_cgroup_mounts); do
		[ -d "$mp/$DK_CG" ] && find "$mp/$DK_CG" -name cgroup.procs -exec cat {} + 2>/dev/null
	done
	for p in "$DK" "$DKC"; do ip netns pids "$p" 2>/dev/null; done
}
_dk_cgroup_mounts() { awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts; }
_dk_alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# dk_down: stop and remove everything; prints what it did; returns 0
dk_down() {
	local pids p i mp m
	[ -n "$DK_DIR" ] || return 0
	if [ -n "$DOCKERD_PID" ] && [ -S "$DK_SOCK" ]; then
		# containers first (--live-restore would keep them past dockerd)
		local ids
		ids=$(DK_CLI_TIMEOUT=20 dk ps -aq 2>/dev/null)
		[ -n "$ids" ] && DK_CLI_TIMEOUT=30 dk rm -f $ids >/dev/null 2>&1
		echo "removed $(echo $ids | wc -w) container(s)"
	fi
	dockerd_stop
	if [ -n "$DK_HOLDER" ]; then kill -TERM "$DK_HOLDER" 2>/dev/null; wait "$DK_HOLDER" 2>/dev/null; fi
	if dk_sandwalld_alive; then kill -TERM "$DKD_PID" 2>/dev/null; fi
	for i in $(seq 1 50); do dk_sandwalld_alive || break; sleep 0.05; done
	[ -n "$DKD_PID" ] && wait "$DKD_PID" 2>/dev/null
	if [ ${#DK_SRV_PIDS[@]} -gt 0 ]; then kill_pids "${DK_SRV_PIDS[@]}"; fi
	DK_SRV_PIDS=()
	# whatever is left (containerd, shims, containers, docker-proxy): by pid
	for sig in TERM KILL; do
		pids=$(_dk_pids | sort -un)
		for p in $pids; do _dk_alive "$p" && [ "$p" != $$ ] && { echo "SIG$sig pid $p ($({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | cut -c1-100))"; kill -"$sig" "$p" 2>/dev/null; }; done
		for i in $(seq 1 40); do
			m=0; for p in $pids; do _dk_alive "$p" && m=1; done
			[ $m = 0 ] && break; sleep 0.05
		done
	done
	# mounts under our directories (dockerd mounts in its own namespace: none expected here)
	for m in $(findmnt -rn -o TARGET | grep -F -- "$DK_DIR" | sort -r); do
		echo "umount -R -l $m"; umount -R -l "$m" 2>/dev/null
	done
	# cgroup directories under --cgroup-parent, deepest first
	for mp in $(_dk_cgroup_mounts); do
		[ -d "$mp/$DK_CG" ] || continue
		find "$mp/$DK_CG" -depth -type d -exec rmdir {} \; 2>/dev/null
		[ -d "$mp/$DK_CG" ] && echo "cgroup directory $mp/$DK_CG could not be removed"
	done
	# namespaces
	for p in "$DK" "$DKC"; do
		ip netns del "$p" 2>/dev/null
		rm -rf "/etc/netns/${p:?}"
	done
	# /run/docker and /run/containerd: dockerd-ns.sh keeps them private; if this
	# run created them anyway, remove them (only if empty of anything but dirs)
	for m in docker containerd; do
		[[ " $DK_RUN_PRE " == *" $m "* ]] && continue
		[ -d "/run/$m" ] && { echo "/run/$m was created by this run: removing"; find "/run/$m" -depth -type d -empty -delete; }
	done
	findmnt -rn -o TARGET | grep -qF -- "$DK_DIR" || rm -rf "${DK_DIR:?}"
	DK_STATE=down; DK_REASON="the engine was stopped (docker_99_cleanup ran)"
	return 0
}

# run.sh's exit cleanup (also on failure, INT, TERM): stop the engine first.
if declare -f swt_cleanup >/dev/null && ! declare -f _dk_prev_swt_cleanup >/dev/null; then
	eval "_dk_prev_swt_cleanup() $(declare -f swt_cleanup | tail -n +2)"
	swt_cleanup() {
		local rc=$?
		if [ "$DK_STATE" != none ] && [ "$DK_STATE" != down ]; then dk_down >/dev/null 2>&1; fi
		(exit $rc)
		_dk_prev_swt_cleanup
	}
fi

# dk_end: end-of-test checks common to every docker test
dk_end() {
	if ! dk_sandwalld_alive; then bad "sandwalld (pid $DKD_PID) is no longer running"; tail -n 15 "$DKD_LOG" | show - 15; DK_STATE=fail; DK_REASON="sandwalld died"; fi
	if grep -q 'event=repair-failed' "$DKD_LOG"; then bad "sandwalld logged repair-failed"; grep 'event=repair-failed' "$DKD_LOG" | show - 3; fi
	if [ "$T_FAILS" -gt 0 ]; then
		info "sandwalld log (last 15 lines):"; tail -n 15 "$DKD_LOG" | sed "s|$SWT_TMP/||g" | show - 15
	fi
	return 0
}

# ---------------------------------------------------------------- 1
docker_01_engine() {
	local rc
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	if nsx "$DK" ip link show docker0 >/dev/null 2>&1; then ok "docker0 exists in the Docker namespace"
	else bad "no docker0 in the Docker namespace"; fi
	if ip link show docker0 >/dev/null 2>&1; then bad "a docker0 exists in the ROOT namespace"; else ok "no docker0 in the root namespace"; fi
	if nsx "$DK" iptables -t nat -S 2>/dev/null | grep -q -- '-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE'; then
		ok "Docker's own NAT rules (iptables-nft) are in the Docker namespace"
	else bad "Docker's MASQUERADE rule for 172.17.0.0/16 is missing"; nsx "$DK" iptables -t nat -S 2>&1 | show - 10; fi
	if dk_sw check; then ok "sandwall check 0 with Docker's rules and docker0 in place"
	else bad "sandwall check $SW_RC after dockerd started"; show "$SW_OUT" 10; show "$SW_ERR" 5; fi
	if grep -q 'event=start.*mode=owner' "$DKD_LOG"; then info "sandwalld owns the table (owner+persist)"; fi
	if grep -qx 'sandwall_up 1' "$DK_DIR/metrics.prom" 2>/dev/null; then ok "metrics textfile in \$TMP: sandwall_up 1"
	else bad "no 'sandwall_up 1' in $DK_DIR/metrics.prom"; fi
	dk_box swt-c0 || return 1
	info "baseline: the table removed through the daemon, a container reaches everything"
	if dk_sw remove; then ok "sandwall remove (through the daemon) -> 0"
	else bad "sandwall remove -> $SW_RC"; show "$SW_ERR" 5; fi
	dk_probe swt-c0 reach:$K_META reach:$K_META2 reach:$K_GW reach:$K_LAN reach:http://172.17.0.1:9090/ \
		reach:$K_HOST_UP reach:$K_NET
	dk_reload yes
	if dk_wait_check 2000; then ok "table back after the reload (check 0)"
	else bad "check still $SW_RC 2 s after the reload"; show "$SW_OUT" 10; fi
	dk_probe swt-c0 block:$K_META reach:$K_NET
	dk_end
}

# ---------------------------------------------------------------- 2
docker_02_bridges() {
	local rc br c0 c1 gw1 n0 peer
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	n0=$(wc -l <"$DKD_LOG")
	dk network inspect swtnet >/dev/null 2>&1 || dk_q network create swtnet || { bad "docker network create swtnet"; show "$DK_DIR/cli.out"; return 1; }
	br=$(dk_bridge_of swtnet)
	if [[ $br =~ ^br-[0-9a-f]{12}$ ]] && nsx "$DK" ip link show "$br" >/dev/null 2>&1; then ok "user network swtnet -> bridge $br"
	else bad "user network swtnet: bridge '$br' not found"; fi
	gw1=$(dk network inspect -f '{{range .IPAM.Config}}{{.Gateway}}{{end}}' swtnet)
	dk_box swt-c0 || return 1
	dk_box swt-c1 --network swtnet || return 1
	c0=$(dk_ip swt-c0); c1=$(dk_ip swt-c1)
	info "swt-c0 $c0 on docker0, swt-c1 $c1 on $br (gateway $gw1)"
	dk_box swt-peer || return 1
	dk exec -d swt-peer httpd -p 80 -h /www >/dev/null 2>&1
	peer=$(dk_ip swt-peer)
	dk_probe swt-c0 block:$K_META block:$K_META2 block:$K_GW block:$K_LAN block:http://172.17.0.1:9090/ \
		block:http://$gw1:9090/ block:$K_HOST_UP reach:$K_NET reach:"http://$peer/"
	dk_probe swt-c1 block:$K_META block:$K_META2 block:$K_GW block:$K_LAN block:http://$gw1:9090/ \
		block:http://172.17.0.1:9090/ block:$K_HOST_UP reach:$K_NET
	# DNS keeps working ([allow] dns = auto: the Docker host's resolver 10.0.0.1,
	# a blocked gateway otherwise): directly from the default bridge, and through
	# Docker's embedded DNS (127.0.0.11, forwarded from the container's
	# namespace) on the user network; tcp/53 to it is open, tcp/80 is not
	dk_dns swt-c0 "docker0, resolv.conf 10.0.0.1"
	dk_dns swt-c1 "$br, embedded DNS 127.0.0.11"
	dk_probe swt-c0 reach:http://10.0.0.1:53/ block:http://10.0.0.1/
	# the daemon saw the packets (NFLOG) and says which container tried
	sleep 0.3
	local l
	for l in "category=metadata src=$c0 dst=169.254.169.254" "category=metadata src=$c1 dst=169.254.169.254"; do
		if tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -q "event=blocked $l"; then ok "sandwalld logged event=blocked $l"
		else bad "no 'event=blocked $l' in the sandwalld log"; fi
	done
	if dk_sw check; then ok "sandwall check 0"; else bad "sandwall check $SW_RC"; show "$SW_OUT" 10; fi
	dk_end
}

# ---------------------------------------------------------------- 3
docker_03_new_networks() {
	local rc br n0 line
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	dk rm -f swt-lab >/dev/null 2>&1
	dk network rm swtnew swtlab >/dev/null 2>&1
	# a br-* network created while sandwalld runs: guarded from the first packet
	n0=$(wc -l <"$DKD_LOG")
	dk_q network create swtnew || { bad "docker network create swtnew"; show "$DK_DIR/cli.out"; return 1; }
	br=$(dk_bridge_of swtnew)
	info "swtnew -> $br; a container starts on it at once"
	dk_first_second swtnew "$br"
	# a custom bridge name, guarded only through all_bridges = yes (the boot config)
	dk_q network create -o com.docker.network.bridge.name=lab0 swtlab || { bad "docker network create (lab0)"; show "$DK_DIR/cli.out"; return 1; }
	if nsx "$DK" ip link show lab0 >/dev/null 2>&1; then ok "network swtlab -> bridge lab0"; else bad "no bridge lab0"; fi
	dk_first_second swtlab "lab0, all_bridges = yes"
	if line=$(tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -m1 'event=bridge action=add ifname=lab0'); then ok "sandwalld: ${line#sandwalld: }"
	else bad "sandwalld logged no event=bridge action=add ifname=lab0"; fi
	if dk_sw check; then ok "sandwall check 0 with $br and lab0"; else bad "sandwall check $SW_RC"; show "$SW_OUT" 10; fi
	# all_bridges = no: lab0 does not match docker0/br-*: not guarded (by design)
	dk_box swt-lab --network swtlab || return 1
	dk_reload no && dk_wait_check 2000
	dk_probe swt-lab reach:$K_META reach:$K_NET
	dk_reload yes && dk_wait_check 2000
	dk_probe swt-lab block:$K_META block:$K_GW block:$K_HOST_UP reach:$K_NET
	dk rm -f swt-lab >/dev/null 2>&1
	if dk_q network rm swtnew swtlab; then ok "networks removed"; else bad "docker network rm"; show "$DK_DIR/cli.out"; fi
	if dk_wait_check 2000; then ok "sandwall check 0 after the bridges went away"; else bad "sandwall check $SW_RC"; show "$SW_OUT" 10; fi
	dk_end
}

# ---------------------------------------------------------------- 4
# dk_web: busybox httpd published on 8080 (docker0) and 8081 (swtnet)
dk_web() {
	dk network inspect swtnet >/dev/null 2>&1 || dk_q network create swtnet || return 1
	if [ "$(dk inspect -f '{{.State.Running}}' swt-web 2>/dev/null)" != true ]; then
		dk rm -f swt-web >/dev/null 2>&1
		dk_q run -d --init --name swt-web -p 8080:80 "$DK_IMG" httpd -f -p 80 -h /www ||
			{ bad "docker run swt-web"; show "$DK_DIR/cli.out"; return 1; }
	fi
	if [ "$(dk inspect -f '{{.State.Running}}' swt-web1 2>/dev/null)" != true ]; then
		dk rm -f swt-web1 >/dev/null 2>&1
		dk_q run -d --init --name swt-web1 --network swtnet -p 8081:80 "$DK_IMG" httpd -f -p 80 -h /www ||
			{ bad "docker run swt-web1"; show "$DK_DIR/cli.out"; return 1; }
	fi
	return 0
}
# published NS URL: the page of the container answers (retries 2 s: httpd starting)
published() {
	local ns=$1 url=$2 i body=""
	for i in $(seq 1 20); do
		body=$(nsx "$ns" curl -s --connect-timeout 1 -m 2 "$url" 2>/dev/null) && [ "$body" = swt-published-ok ] && break
		sleep 0.1
	done
	if [ "$body" = swt-published-ok ]; then ok "$(_nsname "$ns") -> $url: the published container answers"
	else bad "$(_nsname "$ns") -> $url: published port not reachable (got '${body:0:60}')"; fi
}
dk_published_all() {
	published "$DKC" http://10.0.0.2:8080/
	published "$DKC" http://10.0.0.2:8081/
	published "$DK" http://127.0.0.1:8080/
	published "$DK" http://10.0.0.2:8080/
	published "$DK" http://127.0.0.1:8081/
	published "$DK" http://10.0.0.2:8081/
}
docker_04_published() {
	local rc
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	dk_web || return 1
	dk_published_all
	# a container reaching the published port through the host's address: host category
	dk_box swt-c0 || return 1
	dk_probe swt-c0 block:http://10.0.0.2:8080/ block:http://172.17.0.1:8080/ reach:$K_NET
	if dk_sw check; then ok "sandwall check 0"; else bad "sandwall check $SW_RC"; show "$SW_OUT" 10; fi
	dk_end
}

# ---------------------------------------------------------------- 5
# the probe loop: a new attempt every 0.1 s at each forbidden target and the
# internet; successes counted in /tmp (kept across the dockerd restart:
# --live-restore keeps the container running)
DK_LOOP='
rm -f /tmp/stop /tmp/got /tmp/net /tmp/n
n=0
while [ ! -e /tmp/stop ]; do
	(timeout 1 wget -q -O /dev/null http://169.254.169.254/ >/dev/null 2>&1 && echo "meta $n" >>/tmp/got) &
	(timeout 1 wget -q -O /dev/null http://10.0.0.2:9090/ >/dev/null 2>&1 && echo "host $n" >>/tmp/got) &
	(timeout 1 wget -q -O /dev/null http://10.0.0.50/ >/dev/null 2>&1 && echo "lan $n" >>/tmp/got) &
	(timeout 1 wget -q -O /dev/null http://203.0.113.10/ >/dev/null 2>&1 && echo "$n" >>/tmp/net) &
	n=$((n + 1)); echo $n >/tmp/n
	sleep 0.1
done
wait
echo done >/tmp/done'

# dk_loop_result CONTAINER LABEL: stop the loop, assert nothing forbidden answered
dk_loop_result() {
	local c=$1 label=$2 n got net gaps
	if ! dk_q exec "$c" touch /tmp/stop; then
		bad "[$label] docker exec $c failed after the restart: $(head -c 300 "$DK_DIR/cli.out" | tr '\n' ' ')"
		grep -iE 'level=(error|warn)' "$DOCKERD_LOG" | tail -n 5 | cut -c1-300 | show - 5
		return
	fi
	sleep 1.2
	n=$(dk exec "$c" cat /tmp/n 2>/dev/null)
	got=$(dk exec "$c" sh -c 'cat /tmp/got 2>/dev/null' 2>/dev/null | wc -l)
	net=$(dk exec "$c" sh -c 'cat /tmp/net 2>/dev/null' 2>/dev/null | wc -l)
	# the longest run of rounds in which the internet never answered
	gaps=$(dk exec "$c" sh -c 'sort -n /tmp/net 2>/dev/null' 2>/dev/null | awk 'NR > 1 && $1 - p > m { m = $1 - p } { p = $1 } END { print m + 0 }')
	if [ "${n:-0}" -lt 20 ]; then bad "[$label] the probe loop ran only ${n:-0} rounds"; return; fi
	if [ "$got" -eq 0 ]; then ok "[$label] $((n * 3)) attempts at metadata/host/LAN during the churn and restart: none answered"
	else bad "[$label] $got forbidden attempt(s) ANSWERED: $(dk exec "$c" head -n 5 /tmp/got | tr '\n' ' ')"; fi
	if [ "$net" -ge $((n / 2)) ]; then ok "[$label] control: the internet answered $net of $n rounds (longest gap $gaps rounds)"
	else bad "[$label] control: the internet answered only $net of $n rounds: the container lost its network"; fi
}

docker_05_churn() {
	local rc i net br out n0 fails=0 t0 restarts
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	dk_web || return 1
	dk_box swt-c0 || return 1
	dk_box swt-c1 --network swtnet || return 1
	dk exec -d swt-c0 sh -c "$DK_LOOP" >/dev/null || bad "cannot start the probe loop in swt-c0"
	dk exec -d swt-c1 sh -c "$DK_LOOP" >/dev/null || bad "cannot start the probe loop in swt-c1"
	n0=$(wc -l <"$DKD_LOG")
	t0=$SECONDS
	info "10 cycles: network create (br-* or the custom name swtchn), a container probes from it, network rm"
	for i in $(seq 1 10); do
		net=swtchurn$i
		# even cycles: the same custom name each time (a new ifindex for an old name)
		if [ $((i % 2)) = 0 ]; then dk_q network create -o com.docker.network.bridge.name=swtchn "$net"
		else dk_q network create "$net"; fi || { bad "cycle $i: network create failed"; show "$DK_DIR/cli.out" 3; fails=$((fails + 1)); continue; }
		br=$(dk_bridge_of "$net")
		out=$(dk run --rm --init --network "$net" "$DK_IMG" sh -c '
			timeout 1 wget -q -O /dev/null http://169.254.169.254/ >/dev/null 2>&1; m=$?
			timeout 2 wget -q -O /dev/null http://203.0.113.10/ >/dev/null 2>&1; echo "meta=$m net=$?"' 2>&1)
		case $out in
		"meta=143 net=0") ;;
		*) bad "cycle $i ($br): expected meta=143 (timed out) net=0, got: $out"; fails=$((fails + 1)) ;;
		esac
		dk_q network rm "$net" || { bad "cycle $i: network rm failed"; show "$DK_DIR/cli.out" 3; fails=$((fails + 1)); }
	done
	[ $fails = 0 ] && ok "10 cycles in $((SECONDS - t0)) s: each new bridge blocked metadata and passed the internet"
	info "restart dockerd (TERM, --live-restore keeps the containers)"
	t0=$SECONDS
	local c pids_before=() pid_after
	for c in swt-c0 swt-c1 swt-web swt-web1; do pids_before+=("$(dk inspect -f '{{.State.Pid}}' "$c" 2>/dev/null)"); done
	dockerd_stop
	if dockerd_start; then ok "dockerd restarted in $((SECONDS - t0)) s (pid $DOCKERD_PID)"
	else bad "dockerd did not come back"; tail -n 15 "$DOCKERD_LOG" | show - 15; DK_STATE=fail; DK_REASON="dockerd did not restart"; return 1; fi
	i=0
	for c in swt-c0 swt-c1 swt-web swt-web1; do
		pid_after=$(dk inspect -f '{{if .State.Running}}{{.State.Pid}}{{end}}' "$c" 2>/dev/null)
		if [ -n "$pid_after" ] && [ "$pid_after" = "${pids_before[i]}" ]; then ok "$c kept running through the restart (pid $pid_after)"
		else bad "$c did not survive the restart (pid ${pids_before[i]} before, '${pid_after}' after); dockerd log: $(grep -iE 'level=(error|warning)' "$DOCKERD_LOG" | tail -n 2 | tr '\n' ' ' | cut -c1-300)"; fi
		i=$((i + 1))
	done
	sleep 1    # the loops keep probing after the restart too
	dk_loop_result swt-c0 docker0
	dk_loop_result swt-c1 "$(dk_bridge_of swtnet)"
	restarts=$(tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -c 'event=bridge action=add')
	info "sandwalld: $restarts bridge add event(s), $(tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -c 'event=drift') drift event(s) during the churn"
	if dk_sw check; then ok "sandwall check 0 after the churn and the restart"
	else bad "sandwall check $SW_RC after the churn and the restart"; show "$SW_OUT" 10; fi
	# Docker's own rules work after the restart
	dk_published_all
	dk_first_second swtnet "swtnet after the restart"
	dk_end
}

# ---------------------------------------------------------------- 6
docker_06_ipv6() {
	local rc br c6 i
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	dk rm -f swt-v6 >/dev/null 2>&1
	dk network rm swtv6 >/dev/null 2>&1
	if ! dk_q network create --ipv6 --subnet 172.30.0.0/16 --subnet fd00:d0c::/64 swtv6; then
		info "skip: Docker cannot create an IPv6 network here: $(head -c 300 "$DK_DIR/cli.out" | tr '\n' ' ')"
		return $SKIP
	fi
	br=$(dk_bridge_of swtv6)
	dk_box swt-v6 --network swtv6 || return 1
	c6=$(dk_ip6 swt-v6)
	if [ -z "$c6" ]; then
		info "skip: the container on the IPv6 network got no IPv6 address"
		dk rm -f swt-v6 >/dev/null 2>&1; dk network rm swtv6 >/dev/null 2>&1
		return $SKIP
	fi
	info "swt-v6: $c6 on $br"
	# the container's address may be tentative (DAD) for a moment
	for i in $(seq 1 30); do
		dk exec swt-v6 sh -c "timeout 1 wget -q -O /dev/null '$K_NET6'" >/dev/null 2>&1 && break
		sleep 0.1
	done
	dk_probe swt-v6 block:$K_META6 block:$K_GW6 block:$K_LAN6 block:$K_HOST_UP6 \
		block:"http://[fd00:d0c::1]:9090/" reach:$K_NET6 block:$K_META reach:$K_NET
	if dk_sw check; then ok "sandwall check 0"; else bad "sandwall check $SW_RC"; show "$SW_OUT" 10; fi
	# sandwall verify from this container's namespace: the IPv6 targets too
	local pid
	pid=$(dk inspect -f '{{.State.Pid}}' swt-v6)
	if dk_sw verify --pid "$pid" --expect-open "[2001:db8::10]:80" --expect-open 203.0.113.10:80 --timeout 1500; then
		ok "sandwall verify --pid (swt-v6) -> 0"
	else bad "sandwall verify --pid $pid (swt-v6) -> $SW_RC"; show "$SW_OUT" 40; show "$SW_ERR" 5; fi
	if grep -qE '^metadata +\[fd00:ec2::254\]:80 +blocked' "$SW_OUT"; then ok "verify --pid probed [fd00:ec2::254]:80: blocked"
	else bad "verify --pid did not report [fd00:ec2::254]:80 blocked: $(grep 'fd00:ec2::254' "$SW_OUT" | tr -s ' ')"; fi
	if grep -qE '^host +\[fd00:10::2\]:9090 +blocked' "$SW_OUT"; then ok "verify --pid probed [fd00:10::2]:9090: blocked"
	else bad "verify --pid did not report [fd00:10::2]:9090 blocked: $(grep 'fd00:10::2\]' "$SW_OUT" | tr -s ' ' | tr '\n' ' ')"; fi
	dk rm -f swt-v6 >/dev/null 2>&1
	dk_q network rm swtv6 || bad "docker network rm swtv6"
	dk_end
}

# ---------------------------------------------------------------- 7
docker_07_verify() {
	local rc pid t0
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	dk_web || return 1
	# the receipt's window: from here (earlier tests leave gaps on purpose:
	# a sandwall remove, lab0 unguarded with all_bridges = no)
	sleep 1
	t0=$(date +%s)
	dk_box swt-c0 || return 1
	dk_box swt-c1 --network swtnet || return 1
	# from a throwaway namespace on every guarded bridge (docker0, br-*) with
	# Docker's FORWARD/NAT rules and docker-proxy listening on 8080/8081
	if dk_sw verify --expect-open 203.0.113.10:80 --timeout 1500; then ok "sandwall verify (throwaway namespaces on Docker's bridges) -> 0"
	else bad "sandwall verify -> $SW_RC"; show "$SW_OUT" 30; show "$SW_ERR" 5; fi
	grep -E '^probing from|HELD|NOT HELD|FAIL|reachable' "$SW_OUT" | show - 12
	# from a real container's namespace
	pid=$(dk inspect -f '{{.State.Pid}}' swt-c1)
	if dk_sw verify --pid "$pid" --expect-open 203.0.113.10:80 --timeout 1500; then ok "sandwall verify --pid (swt-c1, pid $pid) -> 0"
	else bad "sandwall verify --pid $pid (swt-c1) -> $SW_RC"; show "$SW_OUT" 30; show "$SW_ERR" 5; fi
	if [ -s "$DK_DIR/verify.json" ]; then ok "verify.json recorded beside the journal in \$TMP"
	else bad "no $DK_DIR/verify.json"; fi
	if dk_sw receipt --since "$t0"; then ok "sandwall receipt --since this test -> 0 ($(grep -m1 -i 'verdict' "$SW_OUT" | tr -s ' '))"
	else bad "sandwall receipt --since $t0 -> $SW_RC"; show "$SW_OUT" 40; show "$SW_ERR" 5; fi
	# over the whole run, the gaps the earlier tests made (if they ran) are named
	if dk_sw receipt; then info "sandwall receipt over the whole run -> HELD (no earlier gap)"
	elif grep -q '^  because ' "$SW_OUT"; then
		ok "sandwall receipt over the whole run -> NOT HELD: $(grep -c '^  because ' "$SW_OUT") reason(s), e.g. $(grep -m1 '^  because ' "$SW_OUT" | sed 's/^ *because //' | cut -c1-120)"
	else bad "sandwall receipt over the whole run -> $SW_RC without a reason"; show "$SW_OUT" 40; fi
	dk_end
}

# ---------------------------------------------------------------- 99
docker_99_cleanup() {
	case $DK_STATE in
	none) info "skip: no docker test ran in this run"; return $SKIP ;;
	down) info "skip: already cleaned up"; return $SKIP ;;
	skip) [ -n "$DK_DIR" ] || { info "skip: $DK_REASON"; return $SKIP; }
	      info "the engine was skipped ($DK_REASON); verifying the cleanup of what setup started" ;;
	esac
	local cpid p left mp m d=$DK_DIR
	cpid=$(cat "$DK_DIR/exec/containerd/containerd.pid" 2>/dev/null)
	local before
	before=$(_dk_pids | sort -un | tr '\n' ' ')
	info "stopping: containers, dockerd (pid $DOCKERD_PID), containerd (pid ${cpid:-?}), mount-namespace holder (pid $DK_HOLDER), sandwalld (pid $DKD_PID), servers"
	dk_down | show - 20
	# (the pipe ran dk_down in a subshell: its state change is said here)
	DK_STATE=down; DK_REASON="the engine was stopped (docker_99_cleanup ran)"
	left=""
	for p in $before $cpid; do _dk_alive "$p" && left+=" $p($({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | cut -c1-60))"; done
	if [ -z "$left" ]; then ok "no process of the engine left (dockerd, containerd, shims, containers, sandwalld)"
	else bad "processes left:$left"; fi
	for p in $(pidof dockerd containerd 2>/dev/null); do
		{ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF -- "$d/" && bad "a dockerd/containerd of this run is still running: pid $p"
	done
	if ! findmnt -rn -o TARGET | grep -qF -- "$d"; then ok "no mounts under $d"
	else bad "mounts left under $d: $(findmnt -rn -o TARGET | grep -F -- "$d" | tr '\n' ' ')"; fi
	if [ ! -e "$d" ]; then ok "data root, exec root and socket removed ($d)"; else bad "$d still exists"; fi
	if ip netns list | awk '{print $1}' | grep -qxE -- "$DK|$DKC"; then bad "namespaces left: $DK $DKC"
	else ok "namespaces $(_nsname "$DK") and $(_nsname "$DKC") deleted"; fi
	m=""
	for mp in $(_dk_cgroup_mounts); do [ -d "$mp/$DK_CG" ] && m+=" $mp/$DK_CG"; done
	if [ -z "$m" ]; then ok "no cgroup directory /$DK_CG left in any hierarchy"; else bad "cgroup directories left:$m"; fi
	for m in docker containerd; do
		[[ " $DK_RUN_PRE " == *" $m "* ]] && continue
		if [ -e "/run/$m" ]; then bad "/run/$m exists in the host (created by this run)"; else ok "no /run/$m in the host"; fi
	done
	if ip link show docker0 >/dev/null 2>&1; then bad "docker0 in the root namespace"; else ok "no docker0 in the root namespace"; fi
	return 0
}
