# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086,SC2016
# Identity suite (issue 26): every blocked attempt names its sandbox, as it
# was when the attempt happened, also after a --rm container is gone. A
# real dockerd, started by test_docker.sh's dk_need exactly as the Docker
# suite starts it (its namespaces, its sandwalld, whose config names the
# engine's socket $DK_SOCK in [identity] docker_socket); these tests only
# add containers and read what sandwalld recorded beside its journal:
# attempts.json, identities.jsonl, the log and the receipt.
#
# identity_01: `docker run --rm --name agent-7` tries the metadata address
#   and exits; afterwards attempts.json, identities.jsonl, the blocked line
#   and the receipt name agent-7 with its image and full id.
# identity_02: agent-8 and agent-9 one after the other on docker0 get the
#   same address (Docker hands out the lowest free one): each attempt names
#   its own container, not the one that had the address before (a cache by
#   address that is not refreshed when a veth appears names the old one:
#   the flake of an earlier attempt at identity_01 after the Docker suite).
#   Why an earlier attempt was flaky after the Docker suite (agent-7 not
#   named within 6 s), reproduced by breaking this one on purpose: (1)
#   sandwalld asked /var/run/docker.sock, while this engine listens on
#   $DK_SOCK: only the fallback answered (runtime cgroup, no name); (2) a
#   cache by address, refreshed only on a miss and at most once per few
#   seconds per address, kept the container that had 172.17.0.x before
#   (docker0 hands the lowest free address out again): the attempt hit the
#   stale entry, no lookup ran, and the record named the old container (or
#   none while the rate limit held). Now the lookup runs when the veth's
#   peer moves into the container's namespace (then 0.2, 0.5, 1, 2, 4 s
#   later), a runtime's full list sweeps who is gone, a new link resets the
#   miss limit, and an attempt record keeps the sandbox it was made for.
# identity_04: real rootful Podman in the main topology's host namespace
#   (runtimes_05's mount namespace and helpers: pm, pm_down), with
#   `podman system service` on a socket of this run, and a sandwalld of
#   its own there ([identity] podman_socket): a --rm container is named.
# identity_03: no API (the socket set to a path where none listens): the
#   kernel's view names the container by its cgroup (its full id) and its
#   addresses from the veth's peer namespace.
# identity_07: `sandwall run -- podman run --rm --name agent-p2` on
#   identity_04's engine (a sandwalld of its own): the signed run receipt
#   names agent-p2 (runtime podman, its image, attribution label), its
#   allowed flow with bytes and its blocked attempt. CNI masquerades each
#   container's own address only, so verify's probe on cni-podman0 finds
#   no way to the canary: the test masquerades podman's subnet as
#   netavark does (id_pm_nat).
# identity_08: `sandwall run -- CMD` where CMD boots identity_05's stand-in
#   micro-VM (a tap held by a python process) and stops it before the
#   postflight: the receipt lists the guest 10.77.0.2 via swtvm0 with the
#   micro-VM identity (tap, pid, comm) and its blocked attempt; the text
#   names its process and pid.

register_test identity_01_rm  "docker run --rm agent-7 tries 169.254.169.254 and exits: attempts.json, identities.jsonl, the log and the receipt name it"
register_test identity_02_reuse      "two --rm containers on the same address one after the other: each attempt names its own container"
register_test identity_03_fallback   "no runtime API: the veth's peer namespace, a process in it and its cgroup name the container"
register_test identity_04_podman     "real rootful Podman (as runtimes_05 runs it) and its API service: a --rm container's attempt names it (runtime podman)"
register_test identity_05_microvm    "a tap held by a process (a micro-VM's monitor): identities.jsonl names it (runtime microvm, pid, comm) and its guest's blocked attempt carries it"
register_test identity_06_run       "sandwall run --label t1 -- docker run --rm --name agent-7: the signed run receipt names agent-7 and its image, its internet flow allowed with bytes, its metadata attempt blocked, contained; ssh-keygen accepts it and refuses one changed byte; two overlapping runs each hold only their own container"
register_test identity_07_run_podman "sandwall run -- podman run --rm --name agent-p2 (rootful, as identity_04): without the table it reaches metadata; the signed run receipt names agent-p2 (runtime podman, its image, attribution label), its internet flow allowed with bytes, its metadata attempt blocked, contained; ssh-keygen accepts it"
register_test identity_08_run_microvm "sandwall run -- CMD starting a micro-VM (identity_05's tap holder): the run receipt lists the guest's address with the micro-VM identity (runtime microvm, tap, pid, comm) and its blocked metadata attempt, contained"
register_test identity_99_cleanup    "after the suite: the engine stopped, nothing left (docker_99_cleanup's checks)"

ID_WAIT=${ID_WAIT:-6}      # seconds the records may take to name a container

# id_py DOC SCRIPT ARGS...: python3 on a JSON document or JSON lines file
id_py() { local f=$1; shift; "$PY" - "$f" "$@"; }

# id_attempt_names FILE DST: "name id image" of each attempt at DST with an identity
id_attempt_names() {
	id_py "$1" "$2" <<-'EOF' 2>/dev/null
	import json, sys
	try:
	    doc = json.load(open(sys.argv[1]))
	except Exception:
	    sys.exit(0)
	for a in doc.get("attempts", []):
	    i = a.get("identity")
	    if a.get("dst") == sys.argv[2] and i:
	        print(i.get("name", "-"), i.get("id", "-"), i.get("image", "-"), i.get("runtime", "-"),
	              a.get("src", "-"), (i.get("labels") or {}).get("sandwall.run", "-"))
	EOF
}

# id_jsonl_find FILE NAME: "id image runtime addresses run-label" of NAME's lines
id_jsonl_find() {
	id_py "$1" "$2" <<-'EOF' 2>/dev/null
	import json, sys
	try:
	    lines = open(sys.argv[1]).read().splitlines()
	except Exception:
	    sys.exit(0)
	for l in lines:
	    try:
	        r = json.loads(l)
	    except Exception:
	        continue
	    if r.get("event") == "identity" and r.get("name") == sys.argv[2]:
	        print(r.get("id", "-"), r.get("image", "-"), r.get("runtime", "-"),
	              ",".join(r.get("addresses", [])) or "-", (r.get("labels") or {}).get("sandwall.run", "-"),
	              r.get("time", "-"), r.get("unix", "-"))
	EOF
}

# id_wait_attempt NAME DST: poll attempts.json until an attempt at DST names NAME
id_wait_attempt() {
	local i n=$((ID_WAIT * 10))
	for ((i = 0; i < n; i++)); do
		id_attempt_names "$DK_DIR/attempts.json" "$2" | grep -q "^$1 " && return 0
		sleep 0.1
	done
	return 1
}

# id_run NAME CIDFILE ARGS...: a --rm container that waits a second, tries
# the metadata address once and exits
id_run() {
	local name=$1 cid=$2; shift 2
	rm -f "$cid"
	dk rm -f "$name" >/dev/null 2>&1
	dk run --rm --name "$name" --cidfile "$cid" "$@" "$DK_IMG" sh -c \
		'ip -4 -o addr show eth0 | awk "{print \$4}"; sleep 1; timeout 1 wget -q -O /dev/null http://169.254.169.254/; echo "meta=$?"' \
		>"$DK_DIR/$name.out" 2>&1
}

identity_01_rm() {
	local rc cid got line n0 t0 ln
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	n0=$(wc -l <"$DKD_LOG")
	t0=$(date +%s)
	id_run agent-7 "$DK_DIR/agent-7.cid" --label sandwall.run=it-7
	cid=$(cat "$DK_DIR/agent-7.cid" 2>/dev/null)
	if grep -q '^meta=143' "$DK_DIR/agent-7.out"; then ok "agent-7 ($(head -n 1 "$DK_DIR/agent-7.out")) tried 169.254.169.254: blocked (timed out), then exited"
	else bad "agent-7 did not time out on the metadata address: $(tr '\n' ' ' <"$DK_DIR/agent-7.out")"; fi
	if dk inspect agent-7 >/dev/null 2>&1; then bad "agent-7 still exists after --rm"; else ok "agent-7 is gone (--rm)"; fi
	[[ $cid =~ ^[0-9a-f]{64}$ ]] || { bad "no container id from --cidfile: '$cid'"; return 1; }
	if id_wait_attempt agent-7 169.254.169.254; then
		got=$(id_attempt_names "$DK_DIR/attempts.json" 169.254.169.254 | grep -m1 '^agent-7 ')
		ok "attempts.json names the attempt's sandbox after it is gone: $got"
		[ "$(echo "$got" | awk '{print $2}')" = "$cid" ] && ok "its id is the container's full id" ||
			bad "attempts.json id $(echo "$got" | awk '{print $2}') is not the container's $cid"
		[ "$(echo "$got" | awk '{print $3}')" = "$DK_IMG" ] && ok "its image is $DK_IMG" ||
			bad "attempts.json image '$(echo "$got" | awk '{print $3}')', expected $DK_IMG"
		[ "$(echo "$got" | awk '{print $6}')" = it-7 ] && ok "its label sandwall.run is it-7" ||
			bad "attempts.json label sandwall.run '$(echo "$got" | awk '{print $6}')', expected it-7"
	else
		bad "attempts.json names no agent-7 at 169.254.169.254 within ${ID_WAIT} s: $(id_attempt_names "$DK_DIR/attempts.json" 169.254.169.254 | tr '\n' ';')"
		show "$DK_DIR/attempts.json" 5
	fi
	line=$(id_jsonl_find "$DK_DIR/identities.jsonl" agent-7 | tail -n 1)
	if [ -n "$line" ] && [ "$(echo "$line" | awk '{print $1}')" = "$cid" ] && [ "$(echo "$line" | awk '{print $2}')" = "$DK_IMG" ] &&
		[ "$(echo "$line" | awk '{print $4}')" != - ]; then
		ok "identities.jsonl: agent-7 id ${cid:0:12} image $DK_IMG runtime $(echo "$line" | awk '{print $3}') addresses $(echo "$line" | awk '{print $4}') at $(echo "$line" | awk '{print $6}')"
	else bad "identities.jsonl has no agent-7 with id $cid and image $DK_IMG: '${line}'"; show "$DK_DIR/identities.jsonl" 5; fi
	ln=$(tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -m1 'event=identity .*sandbox_name=agent-7')
	if [ -n "$ln" ]; then ok "sandwalld named it while it ran: ${ln#*event=identity }"
	else bad "no event=identity line for agent-7"; fi
	ln=$(tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -m1 'event=blocked category=metadata.*sandbox_name=agent-7')
	if [ -n "$ln" ] && [[ $ln == *"runtime=docker container=${cid:0:12} image=$DK_IMG"* ]]; then ok "the blocked line names it: ${ln#*event=blocked }"
	else bad "no event=blocked line with sandbox_name=agent-7 runtime=docker container=${cid:0:12} image=$DK_IMG: $(tail -n +"$((n0 + 1))" "$DKD_LOG" | grep -m2 'event=blocked' | tr '\n' ' ')"; fi
	# the receipt, text and JSON, names it too
	if dk_sw receipt --since "$t0" || [ "$SW_RC" = 1 ]; then
		if grep -q 'agent-7' "$SW_OUT"; then ok "sandwall receipt names agent-7: $(grep -m1 'agent-7' "$SW_OUT" | tr -s ' ')"
		else bad "the receipt does not name agent-7"; show "$SW_OUT" 40; fi
		if grep -q "^sandboxes seen .*agent-7" "$SW_OUT" || grep -A20 '^sandboxes seen' "$SW_OUT" | grep -q agent-7; then ok "the receipt lists agent-7 among the sandboxes seen in the window"
		else bad "the receipt's sandboxes seen lack agent-7"; grep -A5 '^sandboxes' "$SW_OUT" | show - 6; fi
	else bad "sandwall receipt -> $SW_RC"; show "$SW_ERR" 5; fi
	if dk_sw receipt --json --since "$t0" || [ "$SW_RC" = 1 ]; then
		if id_py "$SW_OUT" "$cid" <<-'EOF'
		import json, sys
		d = json.load(open(sys.argv[1]))
		ok = any((a.get("identity") or {}).get("id") == sys.argv[2] for a in d.get("attempted_by_sandboxes", []))
		ok = ok and any(s.get("id") == sys.argv[2] and s.get("name") == "agent-7" for s in d.get("sandboxes_seen", []))
		sys.exit(0 if ok else 1)
		EOF
		then ok "receipt --json: attempted_by_sandboxes[].identity and sandboxes_seen[] name agent-7 ($cid)"
		else bad "receipt --json does not name agent-7 in attempted_by_sandboxes and sandboxes_seen"; fi
	else bad "sandwall receipt --json -> $SW_RC"; show "$SW_ERR" 5; fi
	dk_end
}

identity_02_reuse() {
	local rc a8 a9 c8 c9 got
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	id_run agent-8 "$DK_DIR/agent-8.cid"
	id_run agent-9 "$DK_DIR/agent-9.cid"
	a8=$(head -n 1 "$DK_DIR/agent-8.out"); a9=$(head -n 1 "$DK_DIR/agent-9.out")
	c8=$(cat "$DK_DIR/agent-8.cid" 2>/dev/null); c9=$(cat "$DK_DIR/agent-9.cid" 2>/dev/null)
	if [ -n "$a8" ] && [ "$a8" = "$a9" ]; then ok "agent-8 and agent-9 had the same address one after the other: $a8"
	else info "agent-8 had $a8, agent-9 $a9 (not the same: the test still checks each names its own)"; fi
	for n in agent-8 agent-9; do
		if id_wait_attempt "$n" 169.254.169.254; then ok "attempts.json names $n at 169.254.169.254"
		else bad "attempts.json names no $n at 169.254.169.254 within ${ID_WAIT} s"; fi
	done
	got=$(id_attempt_names "$DK_DIR/attempts.json" 169.254.169.254)
	if echo "$got" | grep -q "^agent-9 $c9 " && echo "$got" | grep -q "^agent-8 $c8 "; then
		ok "two records, each with its own container's id (${c8:0:12}, ${c9:0:12})"
	else bad "the attempts do not each name their own container: $(echo "$got" | tr '\n' ';')"; fi
	dk_end
}

identity_03_fallback() {
	local rc cid line a
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	dk_reload yes "identity.docker_socket=$DK_DIR/no-api.sock" || return 1
	id_run agent-fb "$DK_DIR/agent-fb.cid" --network swtnet 2>/dev/null ||
		{ dk_q network create swtnet; id_run agent-fb "$DK_DIR/agent-fb.cid" --network swtnet; }
	cid=$(cat "$DK_DIR/agent-fb.cid" 2>/dev/null)
	a=$(head -n 1 "$DK_DIR/agent-fb.out"); a=${a%/*}
	line=""
	for i in $(seq 1 $((ID_WAIT * 10))); do
		line=$(id_py "$DK_DIR/identities.jsonl" "$cid" <<-'EOF' 2>/dev/null
		import json, sys
		for l in open(sys.argv[1]).read().splitlines():
		    try:
		        r = json.loads(l)
		    except Exception:
		        continue
		    if r.get("id") == sys.argv[2]:
		        print(r.get("runtime"), ",".join(r.get("addresses", [])), r.get("iif", "-"), r.get("pid", "-"))
		EOF
		)
		[ -n "$line" ] && break
		sleep 0.1
	done
	if [ -n "$line" ] && [[ " ${line} " == *"$a"* ]]; then ok "no API: identities.jsonl names container ${cid:0:12} from its cgroup: runtime/addresses/iif/pid $line"
	else bad "no API: identities.jsonl has no record of $cid with address $a: '$line'"; tail -n 3 "$DK_DIR/identities.jsonl" | show - 3; fi
	if id_wait_attempt - 169.254.169.254 || id_attempt_names "$DK_DIR/attempts.json" 169.254.169.254 | grep -q " $cid "; then
		ok "attempts.json: the attempt from $a carries that identity"
	else bad "attempts.json: no attempt with id $cid"; id_attempt_names "$DK_DIR/attempts.json" 169.254.169.254 | show - 5; fi
	grep -q "identity: docker API" "$DKD_LOG" && info "$(grep -m1 'identity: docker API' "$DKD_LOG")"
	dk_reload yes
	dk_end
}

# id_pm_up: runtimes_05's podman setup (holder, containers.conf, image) and
# the API service; 0, $SKIP with the reason, or 1
id_pm_up() {
	local rdy i
	command -v podman >/dev/null || { info "SKIP: podman is not installed"; return $SKIP; }
	[ -x /usr/lib/cni/bridge ] || { info "SKIP: the CNI plugins are not installed"; return $SKIP; }
	command -v busybox >/dev/null || { info "SKIP: busybox-static is not installed"; return $SKIP; }
	PM_DIR="$SWT_TMP/idpodman"
	mkdir -p "$PM_DIR"
	RT_UNDO+=(pm_down)
	cat >"$PM_DIR/containers.conf" <<-EOF
	[engine]
	cgroup_manager = "cgroupfs"
	events_logger = "file"
	events_logfile_path = "$PM_DIR/events.log"
	runtime = "runc"
	[network]
	network_backend = "cni"
	network_config_dir = "$PM_DIR/cni"
	cni_plugin_dirs = ["/usr/lib/cni"]
	EOF
	cat >"$PM_DIR/hold.sh" <<-'EOF'
	mount --make-rslave / 2>/dev/null
	if ! mountpoint -q /sys/fs/cgroup; then
		while read -r dev mp type opts _; do
			case $mp in /sys/fs/cgroup|/sys/fs/cgroup/*) ;; *) continue ;; esac
			case $type in
			tmpfs)   mount -t tmpfs -o "$opts" cgroup_root "$mp" || exit 2 ;;
			cgroup)  mkdir -p "$mp" 2>/dev/null; mount -t cgroup -o "$opts" "$dev" "$mp" || exit 2 ;;
			cgroup2) mkdir -p "$mp" 2>/dev/null; mount -t cgroup2 -o "$opts" "$dev" "$mp" || exit 2 ;;
			esac
		done </proc/1/mounts
	fi
	mount -t tmpfs -o mode=0755 swt-run /run || exit 2
	mount -t tmpfs -o mode=0755 swt-varlib /var/lib || exit 2
	mkdir -p /var/lib/cni || exit 2
	echo $$ >"$1"
	exec sleep infinity
	EOF
	rdy="$PM_DIR/holder"
	ip netns exec "$H" unshare -m --propagation private bash "$PM_DIR/hold.sh" "$rdy" >"$PM_DIR/hold.log" 2>&1 &
	PM_HOLDER=$!
	for i in $(seq 1 100); do [ -s "$rdy" ] && break; kill -0 "$PM_HOLDER" 2>/dev/null || break; sleep 0.05; done
	[ -s "$rdy" ] || { info "SKIP: could not set up podman's mount namespace: $(tr '\n' ' ' <"$PM_DIR/hold.log")"; return $SKIP; }
	bash "$SWT_DIR/docker/mkimage.sh" "$PM_DIR/bb.tar" >"$PM_DIR/mkimage.log" 2>&1 ||
		{ info "SKIP: no busybox image"; return $SKIP; }
	pm import "$PM_DIR/bb.tar" swt-pm:1 >"$PM_DIR/import.log" 2>&1 ||
		{ info "SKIP: podman import failed: $(tail -n 2 "$PM_DIR/import.log" | tr '\n' ' ')"; return $SKIP; }
	# the API (Docker-compatible endpoints too), on a socket of this run;
	# $! is podman itself (nsenter execs it)
	nsenter -t "$PM_HOLDER" -m -n env CONTAINERS_CONF="$PM_DIR/containers.conf" \
		podman --root "$PM_DIR/storage" --runroot /run/swt-podman --tmpdir /run/swt-podman-tmp \
		--storage-driver vfs system service --time=0 "unix://$PM_DIR/podman.sock" >"$PM_DIR/service.log" 2>&1 &
	ID_PM_SVC=$!
	SWT_PIDS+=("$ID_PM_SVC")
	RT_UNDO+=("kill $ID_PM_SVC")
	for i in $(seq 1 100); do [ -S "$PM_DIR/podman.sock" ] && break; kill -0 "$ID_PM_SVC" 2>/dev/null || break; sleep 0.1; done
	[ -S "$PM_DIR/podman.sock" ] || { info "SKIP: podman system service did not start: $(tail -n 2 "$PM_DIR/service.log" | tr '\n' ' ')"; return $SKIP; }
	return 0
}

identity_04_podman() { rt_run _identity_04; }
_identity_04() {
	local rc conf cid got
	id_pm_up; rc=$?; [ $rc -eq 0 ] || return $rc
	ok "podman $(podman --version | awk '{print $3}') and its API at \$TMP/idpodman/podman.sock"
	conf=$(mkconf idpodman guard.interfaces=auto "identity.podman_socket=$PM_DIR/podman.sock" \
		"identity.docker_socket=$PM_DIR/no-docker.sock" "daemon.journal=$PM_DIR/state/journal.jsonl")
	d_start "$conf" || return 1
	pm rm -f agent-p >/dev/null 2>&1
	pm run --rm --name agent-p --label sandwall.run=pm-1 --cgroup-parent="/$PM_CG" \
		--ulimit nofile=1024:1024 --ulimit nproc=4096:4096 swt-pm:1 sh -c \
		'ip -4 -o addr show eth0 | awk "{print \$4}"; sleep 1; timeout 1 wget -q -O /dev/null http://169.254.169.254/; echo "meta=$?"; cat /proc/self/cgroup | head -n 1' \
		>"$PM_DIR/agent-p.out" 2>&1
	if grep -q '^meta=143' "$PM_DIR/agent-p.out"; then ok "agent-p ($(head -n 1 "$PM_DIR/agent-p.out")) tried 169.254.169.254: blocked, then exited"
	else bad "agent-p: $(tr '\n' ' ' <"$PM_DIR/agent-p.out" | cut -c1-300)"; return 1; fi
	got=""
	for i in $(seq 1 $((ID_WAIT * 10))); do
		got=$(id_attempt_names "$PM_DIR/state/attempts.json" 169.254.169.254 | grep -m1 '^agent-p ')
		[ -n "$got" ] && break
		sleep 0.1
	done
	if [ -n "$got" ] && [ "$(echo "$got" | awk '{print $4}')" = podman ] && [ "$(echo "$got" | awk '{print $6}')" = pm-1 ]; then
		ok "attempts.json names it after it is gone: $got"
	else bad "attempts.json does not name agent-p (runtime podman, run pm-1): '$got' $(id_attempt_names "$PM_DIR/state/attempts.json" 169.254.169.254 | tr '\n' ';')"; tail -n 5 "$D_LOG" | show - 5; fi
	if id_jsonl_find "$PM_DIR/state/identities.jsonl" agent-p | grep -q ' podman '; then
		ok "identities.jsonl: $(id_jsonl_find "$PM_DIR/state/identities.jsonl" agent-p | head -n 1)"
	else bad "identities.jsonl has no podman agent-p"; fi
	grep -m1 'event=identity.*sandbox_name=agent-p' "$D_LOG" | sed 's/^sandwalld: /    .    /'
	return 0
}

identity_05_microvm() { rt_run _identity_05; }
_identity_05() {
	local conf dir="$SWT_TMP/idvm" pid mac line i got
	mkdir -p "$dir/state"
	conf=$(mkconf idvm guard.interfaces=auto "identity.docker_socket=$dir/none.sock" \
		"identity.podman_socket=$dir/none.sock" "daemon.journal=$dir/state/journal.jsonl")
	d_start "$conf" || return 1
	ip netns exec "$H" "$PY" "$SWT_DIR/identity/tapvm.py" swtvm0 10.77.0.2 169.254.169.254 \
		"$dir/ready" "$dir/go" >"$dir/tapvm.log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); RT_UNDO+=("kill $pid" "ip -n $H link del swtvm0")
	for i in $(seq 1 100); do [ -s "$dir/ready" ] && break; sleep 0.05; done
	[ -s "$dir/ready" ] || { bad "the stand-in VM did not open its tap: $(cat "$dir/tapvm.log")"; return 1; }
	ip -n "$H" addr add 10.77.0.1/24 dev swtvm0 && ip -n "$H" link set swtvm0 up || { bad "tap setup"; return 1; }
	line=""
	for i in $(seq 1 $((ID_WAIT * 10))); do
		line=$(id_py "$dir/state/identities.jsonl" <<-'EOF' 2>/dev/null
		import json, sys
		for l in open(sys.argv[1]).read().splitlines():
		    r = json.loads(l)
		    if r.get("runtime") == "microvm":
		        print(r.get("iif"), r.get("pid"), r.get("comm"), ",".join(r.get("addresses", [])) or "-")
		EOF
		)
		[ -n "$line" ] && break
		sleep 0.1
	done
	if [ "$(echo "$line" | head -n 1 | awk '{print $1, $2}')" = "swtvm0 $pid" ]; then ok "identities.jsonl: the tap's process names the micro-VM: iif/pid/comm $(echo "$line" | head -n 1)"
	else bad "identities.jsonl has no microvm record for swtvm0 held by pid $pid: '$line'"; tail -n 5 "$D_LOG" | show - 5; fi
	mac=$(ip -n "$H" -o link show swtvm0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
	echo "$mac" >"$dir/go"
	got=""
	for i in $(seq 1 $((ID_WAIT * 10))); do
		got=$(id_py "$dir/state/attempts.json" <<-'EOF' 2>/dev/null
		import json, sys
		for a in json.load(open(sys.argv[1])).get("attempts", []):
		    i = a.get("identity") or {}
		    if a.get("dst") == "169.254.169.254" and i.get("runtime") == "microvm":
		        print(a.get("src"), a.get("iif"), i.get("iif"), i.get("pid"), i.get("comm"))
		EOF
		)
		[ -n "$got" ] && break
		sleep 0.1
	done
	if [ "$(echo "$got" | awk '{print $1, $2, $4}')" = "10.77.0.2 swtvm0 $pid" ]; then ok "the guest's attempt at 169.254.169.254 names it: src/iif/tap/pid/comm $got"
	else bad "attempts.json: no microvm identity on the guest's attempt: '$got'"; show "$dir/state/attempts.json" 3; fi
	if grep -q 'event=blocked category=metadata src=10.77.0.2 .*sandbox_name=python3 runtime=microvm' "$D_LOG"; then ok "the blocked line names it: $(grep -m1 'event=blocked category=metadata src=10.77.0.2' "$D_LOG" | sed 's/.*event=blocked //')"
	else bad "no blocked line naming the micro-VM: $(grep -m1 'event=blocked' "$D_LOG")"; fi
	return 0
}

# id_agent NAME: the docker command line of a --rm container labelled for
# the run it is in ($SANDWALL_RUN, expanded by the run's shell) that
# fetches from the internet, tries the metadata address, and exits
id_agent() {
	printf '%s' "DOCKER_CONFIG=$DK_DIR/cli $DK_DOCKER -H unix://$DK_SOCK run --rm --name $1 --label sandwall.run=\$SANDWALL_RUN $DK_IMG sh -c 'wget -q -O /dev/null http://203.0.113.10/; echo web=\$?; timeout 1 wget -q -O /dev/null http://169.254.169.254/; echo meta=\$?'"
}

identity_06_run() {
	local rc r="$DK_DIR/run-t1.json" allowed="$DK_DIR/allowed" who ra="$DK_DIR/run-a.json" rb="$DK_DIR/run-b.json" pa
	dk_need; rc=$?; [ $rc -eq 0 ] || return $rc
	dk_sw key --allowed-signers && cp "$SW_OUT" "$allowed" || { bad "key --allowed-signers -> $SW_RC"; show "$SW_ERR"; return 1; }
	who=$(cut -d' ' -f1 "$allowed")
	dk_sw --timeout 400 -c "$DK_CONF" run --label t1 --receipt "$r" -- sh -c "$(id_agent agent-7) >$DK_DIR/agent-7.run.out 2>&1"
	[ "$SW_RC" -eq 0 ] && ok "run --label t1 -- docker run --rm --name agent-7: exit 0 (contained, CMD 0)" ||
		{ bad "run -> exit $SW_RC"; show "$SW_ERR" 30; show "$DK_DIR/agent-7.run.out"; return 1; }
	grep -q '^web=0' "$DK_DIR/agent-7.run.out" && grep -q '^meta=143' "$DK_DIR/agent-7.run.out" &&
		ok "agent-7 fetched from the internet (web=0) and timed out on the metadata address (meta=143)" ||
		bad "agent-7: $(tr '\n' ' ' <"$DK_DIR/agent-7.run.out")"
	if id_py "$r" "$DK_IMG" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	sb = [s for s in d["sandboxes"] if (s.get("identity") or {}).get("name") == "agent-7"]
	assert len(sb) == 1, [(s["src"], s.get("identity")) for s in d["sandboxes"]]
	s = sb[0]
	assert s["identity"]["image"] == sys.argv[2], s["identity"]
	assert s["attribution"] == "label", s["attribution"]
	web = [f for f in s["flows"] if f["dst"] == "203.0.113.10" and f["dport"] == 80]
	assert web and web[0]["verdict"] == "allowed" and web[0]["reply_bytes"] > 0, s["flows"]
	meta = [a for a in s["attempts"] if a["dst"] == "169.254.169.254"]
	assert meta and meta[0]["category"] == "metadata", s["attempts"]
	assert d["verdict"] == "contained", d["reasons"]
	print("agent-7 %s: web %d bytes back, metadata blocked %d packet(s)" % (s["src"], web[0]["reply_bytes"], meta[0]["count"]))
	EOF
	then ok "the run receipt names agent-7 ($DK_IMG), its internet flow allowed with bytes, its metadata attempt blocked, contained"
	else bad "the run receipt: $(id_py "$r" <<<'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"], [(s["src"], s.get("identity"), len(s["flows"]), len(s["attempts"])) for s in d["sandboxes"]])')"; fi
	grep -q '= docker agent-7 (swt-busybox:1)' "$r.txt" && ok "the text receipt names agent-7: $(grep -m1 '= docker agent-7' "$r.txt" | sed 's/^ *//')" || { bad "the text receipt does not name agent-7"; show "$r.txt" 40; }
	if ssh-keygen -Y verify -f "$allowed" -I "$who" -n sandwall-receipt -s "$r.sig" <"$r" >/dev/null 2>&1; then
		ok "ssh-keygen -Y verify accepts the run receipt"
	else bad "ssh-keygen -Y verify refused the run receipt"; fi
	cp "$r" "$DK_DIR/changed.json"
	sed -i '0,/agent-7/s//agent-8/' "$DK_DIR/changed.json"
	if ssh-keygen -Y verify -f "$allowed" -I "$who" -n sandwall-receipt -s "$r.sig" <"$DK_DIR/changed.json" >/dev/null 2>&1; then
		bad "ssh-keygen -Y verify accepted a changed receipt"
	else ok "ssh-keygen -Y verify refuses the receipt with agent-7 changed to agent-8"; fi
	# two overlapping runs: each receipt holds its own container only
	dk_sw --timeout 400 -c "$DK_CONF" run --label ra --receipt "$ra" -- sh -c "sleep 4; $(id_agent agent-a) >/dev/null 2>&1" &
	pa=$!
	sleep 1
	( SW_OUT="$DK_DIR/rb.out"; SW_ERR="$DK_DIR/rb.err"
	  timeout "$SW_TIMEOUT" ip netns exec "$DK" "$SANDWALL" --control "$DK_CTL" -c "$DK_CONF" --timeout 400 run --label rb --receipt "$rb" -- \
		sh -c "$(id_agent agent-b) >/dev/null 2>&1" >"$DK_DIR/rb.out" 2>"$DK_DIR/rb.err" )
	wait "$pa"
	if id_py "$ra" <<-'EOF' && id_py "$rb" <<-'EOF2'
	import json, sys
	d = json.load(open(sys.argv[1]))
	names = sorted((s.get("identity") or {}).get("name", "?") for s in d["sandboxes"])
	assert names == ["agent-a"], names
	EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	names = sorted((s.get("identity") or {}).get("name", "?") for s in d["sandboxes"])
	assert names == ["agent-b"], names
	EOF2
	then ok "overlapping runs ra and rb: each receipt holds only its own container (agent-a, agent-b)"
	else
		bad "overlapping runs: ra $(id_py "$ra" <<<'import json,sys; print([(s["src"], s["iif"], (s.get("identity") or {}).get("name"), len(s["attempts"]), len(s["flows"])) for s in json.load(open(sys.argv[1]))["sandboxes"]])') rb $(id_py "$rb" <<<'import json,sys; print([(s["src"], s["iif"], (s.get("identity") or {}).get("name"), len(s["attempts"]), len(s["flows"])) for s in json.load(open(sys.argv[1]))["sandboxes"]])')"
		id_py "$ra" <<<'import json,sys; [print(json.dumps(s)) for s in json.load(open(sys.argv[1]))["sandboxes"] if not (s.get("identity") or {}).get("name")]' | show - 20
		show "$DK_DIR/rb.err" 10
		mkdir -p /tmp/id06-dbg && cp -r "$DK_DIR"/runs "$DK_DIR"/*.json* /tmp/id06-dbg/ 2>/dev/null
	fi
	dk_end
}

identity_99_cleanup() { docker_99_cleanup; }

# id_pm_agent NAME: the podman command line (id_pm_up's engine, as pm runs
# it) of a --rm container labelled for the run it is in ($SANDWALL_RUN,
# expanded by the run's shell) that fetches from the internet, tries the
# metadata address, and exits
id_pm_agent() {
	printf '%s' "nsenter -t $PM_HOLDER -m -n env CONTAINERS_CONF=$PM_DIR/containers.conf timeout 60 podman --root $PM_DIR/storage --runroot /run/swt-podman --tmpdir /run/swt-podman-tmp --storage-driver vfs run --rm --name $1 --label sandwall.run=\$SANDWALL_RUN --cgroup-parent=/$PM_CG --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 swt-pm:1 sh -c 'wget -q -O /dev/null http://203.0.113.10/; echo web=\$?; timeout 1 wget -q -O /dev/null http://169.254.169.254/; echo meta=\$?'"
}

# id_sbx_json RECEIPT NAME|SRC: what a run receipt says of a sandbox (by its
# identity's name or its src) and of all of them, as one JSON line (for the
# messages of failed asserts)
id_sbx_json() {
	id_py "$1" "$2" <<-'EOF' 2>/dev/null
	import json, sys
	d = json.load(open(sys.argv[1]))
	sb = [s for s in d["sandboxes"] if (s.get("identity") or {}).get("name") == sys.argv[2] or s["src"] == sys.argv[2]]
	print(json.dumps({"n": len(sb), "verdict": d["verdict"], "reasons": d.get("reasons"),
	                  "all": [(s["src"], s["iif"], (s.get("identity") or {}).get("name")) for s in d["sandboxes"]],
	                  "s": sb[0] if sb else None}))
	EOF
}

# id_pm_nat: masquerade podman's whole subnet 10.88.0.0/16 out of eth0 in
# the test's host namespace (a table of its own, dropped by RT_UNDO), as
# the harness's testnat does for 172.16.0.0/12 and as netavark does per
# network. CNI's bridge plugin masquerades each container's own address
# only, so verify's probe address on cni-podman0 (10.88.255.253) has no way
# out and the canary 203.0.113.10:80 times out: the preflight is NOT HELD
# and `sandwall run` does not start the command (seen without this).
id_pm_nat() {
	RT_UNDO+=("hnft delete table ip swtidnat")
	hnft -f - <<-'EOF2'
	table ip swtidnat {
		chain postrouting {
			type nat hook postrouting priority srcnat; policy accept;
			ip saddr 10.88.0.0/16 oifname "eth0" masquerade
		}
	}
	EOF2
}

identity_07_run_podman() { rt_run _identity_07; }
_identity_07() {
	local rc conf r allowed who
	id_pm_up; rc=$?; [ $rc -eq 0 ] || return $rc
	r="$PM_DIR/run-p2.json" allowed="$PM_DIR/allowed"
	# the attack works without the table: a podman container reaches the metadata service
	pm run --rm --name agent-p2-open --cgroup-parent="/$PM_CG" --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
		swt-pm:1 sh -c 'timeout 2 wget -q -O /dev/null http://169.254.169.254/; echo meta=$?' >"$PM_DIR/open.out" 2>&1
	if grep -q '^meta=0' "$PM_DIR/open.out"; then ok "without the table a podman container reaches 169.254.169.254 (meta=0)"
	else bad "without the table the podman container did not reach 169.254.169.254: $(tr '\n' ' ' <"$PM_DIR/open.out" | cut -c1-300)"; return 1; fi
	id_pm_nat || { bad "could not add the masquerade for 10.88.0.0/16 in the test namespace"; return 1; }
	conf=$(mkconf idpodman7 guard.interfaces=auto "identity.podman_socket=$PM_DIR/podman.sock" \
		"identity.docker_socket=$PM_DIR/no-docker.sock" "daemon.journal=$PM_DIR/state7/journal.jsonl")
	mkdir -p "$PM_DIR/state7"
	d_start "$conf" || return 1
	sw -c "$conf" key --allowed-signers && cp "$SW_OUT" "$allowed" || { bad "key --allowed-signers -> $SW_RC"; show "$SW_ERR"; return 1; }
	who=$(cut -d' ' -f1 "$allowed")
	sw --control "$D_CTL" -c "$conf" --timeout 400 run --label p2 --receipt "$r" -- \
		sh -c "$(id_pm_agent agent-p2) >$PM_DIR/agent-p2.run.out 2>&1"
	[ "$SW_RC" -eq 0 ] && ok "run --label p2 -- podman run --rm --name agent-p2: exit 0 (contained, CMD 0)" ||
		{ bad "run -> exit $SW_RC"; show "$SW_ERR" 30; show "$PM_DIR/agent-p2.run.out"; return 1; }
	grep -q '^web=0' "$PM_DIR/agent-p2.run.out" && grep -q '^meta=143' "$PM_DIR/agent-p2.run.out" &&
		ok "agent-p2 fetched from the internet (web=0) and timed out on the metadata address (meta=143)" ||
		bad "agent-p2: $(tr '\n' ' ' <"$PM_DIR/agent-p2.run.out" | cut -c1-300)"
	if id_py "$r" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	sb = [s for s in d["sandboxes"] if (s.get("identity") or {}).get("name") == "agent-p2"]
	assert len(sb) == 1, [(s["src"], s["iif"], s.get("identity")) for s in d["sandboxes"]]
	s = sb[0]
	i = s["identity"]
	assert i["runtime"] == "podman" and i["image"] == "localhost/swt-pm:1", i
	assert len(i.get("id", "")) == 64, i
	assert (i.get("labels") or {}).get("sandwall.run") == d["run"]["id"], (i.get("labels"), d["run"]["id"])
	assert s["attribution"] == "label", s["attribution"]
	web = [f for f in s["flows"] if f["dst"] == "203.0.113.10" and f["dport"] == 80]
	assert web and web[0]["verdict"] == "allowed" and web[0]["reply_bytes"] > 0, s["flows"]
	meta = [a for a in s["attempts"] if a["dst"] == "169.254.169.254"]
	assert meta and meta[0]["category"] == "metadata", s["attempts"]
	assert d["verdict"] == "contained", d["reasons"]
	print("agent-p2 %s: web %d bytes back, metadata blocked %d packet(s)" % (s["src"], web[0]["reply_bytes"], meta[0]["count"]))
	EOF
	then ok "the run receipt names agent-p2 (runtime podman, localhost/swt-pm:1, attribution label), its internet flow allowed with bytes, its metadata attempt blocked, contained"
	else bad "the run receipt: $(id_sbx_json "$r" agent-p2)"; tail -n 5 "$D_LOG" | show - 5; fi
	grep -q '= podman agent-p2 (localhost/swt-pm:1)' "$r.txt" && ok "the text receipt names agent-p2: $(grep -m1 '= podman agent-p2' "$r.txt" | sed 's/^ *//')" ||
		{ bad "the text receipt does not name agent-p2"; show "$r.txt" 40; }
	if ssh-keygen -Y verify -f "$allowed" -I "$who" -n sandwall-receipt -s "$r.sig" <"$r" >/dev/null 2>&1 &&
	   ssh-keygen -Y verify -f "$allowed" -I "$who" -n sandwall-receipt -s "$r.txt.sig" <"$r.txt" >/dev/null 2>&1; then
		ok "ssh-keygen -Y verify accepts the run receipt and its text"
	else bad "ssh-keygen -Y verify refused the run receipt (or no .sig)"; ls -l "$PM_DIR" | show - 20; fi
	return 0
}

identity_08_run_microvm() { rt_run _identity_08; }
_identity_08() {
	local conf dir="$SWT_TMP/idvmrun" r pid
	mkdir -p "$dir/state"
	r="$dir/run-vm.json"
	conf=$(mkconf idvmrun guard.interfaces=auto "identity.docker_socket=$dir/none.sock" \
		"identity.podman_socket=$dir/none.sock" "daemon.journal=$dir/state/journal.jsonl")
	d_start "$conf" || return 1
	# the run's command boots a stand-in micro-VM (identity_05's tap holder):
	# its tap swtvm0 with the host's side 10.77.0.1/24, a second to boot,
	# then its guest 10.77.0.2 tries the metadata address for 3 s; the VM
	# stops (the tap goes with it) before the run's postflight
	RT_UNDO+=("ip -n $H link del swtvm0" "kill \$(cat $dir/ready 2>/dev/null) 2>/dev/null")
	cat >"$dir/vm.sh" <<-EOF
	"$PY" "$SWT_DIR/identity/tapvm.py" swtvm0 10.77.0.2 169.254.169.254 "$dir/ready" "$dir/go" >"$dir/tapvm.log" 2>&1 &
	vm=\$!
	for i in \$(seq 1 100); do [ -s "$dir/ready" ] && break; sleep 0.05; done
	[ -s "$dir/ready" ] || { echo "no tap: \$(cat "$dir/tapvm.log")"; exit 1; }
	ip addr add 10.77.0.1/24 dev swtvm0 && ip link set swtvm0 up || exit 1
	sleep 1
	ip -o link show swtvm0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p' >"$dir/go"
	sleep 3.5
	kill \$vm; wait \$vm
	ip link show swtvm0 >/dev/null 2>&1 && { echo "swtvm0 still there after the VM stopped"; exit 1; }
	echo "vm=\$vm done"
	EOF
	sw --control "$D_CTL" -c "$conf" --timeout 400 run --label vm1 --receipt "$r" -- bash "$dir/vm.sh"
	pid=$(tr -d ' \n' <"$dir/ready" 2>/dev/null)
	[ "$SW_RC" -eq 0 ] && ok "run --label vm1 -- a micro-VM (pid $pid) on tap swtvm0: exit 0 (contained, CMD 0)" ||
		{ bad "run -> exit $SW_RC"; show "$SW_ERR" 30; show "$dir/tapvm.log"; return 1; }
	if id_py "$r" "$pid" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	sb = [s for s in d["sandboxes"] if s["src"] == "10.77.0.2"]
	assert len(sb) == 1, [(s["src"], s["iif"], s.get("identity")) for s in d["sandboxes"]]
	s = sb[0]
	i = s["identity"] or {}
	assert s["iif"] == "swtvm0", s["iif"]
	assert i.get("runtime") == "microvm" and i.get("iif") == "swtvm0", i
	assert str(i.get("pid")) == sys.argv[2] and i.get("comm") == "python3", (i, sys.argv[2])
	assert s["attribution"] == "window", s["attribution"]
	meta = [a for a in s["attempts"] if a["dst"] == "169.254.169.254"]
	assert meta and meta[0]["category"] == "metadata" and meta[0]["count"] > 0, s["attempts"]
	assert d["verdict"] == "contained", d["reasons"]
	print("10.77.0.2 via %s: microvm pid %s comm %s, metadata blocked %d packet(s)" % (s["iif"], i["pid"], i["comm"], meta[0]["count"]))
	EOF
	then ok "the run receipt lists the guest 10.77.0.2 with the micro-VM identity (runtime microvm, tap swtvm0, pid $pid, python3), its metadata attempt blocked, contained"
	else bad "the run receipt: $(id_sbx_json "$r" 10.77.0.2)"; tail -n 5 "$D_LOG" | show - 5; fi
	grep -q "^  10.77.0.2 via swtvm0 = microvm python3 pid $pid\$" "$r.txt" && ok "the text receipt names it (its process and pid): $(grep -m1 '10.77.0.2 via swtvm0' "$r.txt" | sed 's/^ *//')" ||
		{ bad "the text receipt does not name the micro-VM"; show "$r.txt" 40; }
	return 0
}
