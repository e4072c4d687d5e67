# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# The network log (issue 26): sandwalld records every flow a sandbox opened
# that the boundary allowed (conntrack's NEW and DESTROY events) in
# flows.jsonl beside the journal, with the bytes each way (conntrack
# accounting, turned on in the daemon's namespace); blocked attempts are
# not flows (they are in attempts.json); a full table is counted, never
# silent. The daemon runs in the test's host namespace (d_run, d_start of
# test_daemon.sh); the "internet" is the cloud namespace's 203.0.113.10.

register_test flowlog_01_fetch "a sandbox fetches N bytes: flows.jsonl has the flow, reply bytes >= N, verdict allowed; the receipt lists it"
register_test flowlog_02_blocked "a metadata attempt is in attempts.json, not in flows.jsonl"
register_test flowlog_03_bound "max_flows = 2 and 5 parallel long-lived flows: dropped > 0, said in flows.jsonl, flows-open.json and the metrics"
register_test flowlog_05_reload "a reload with [log] flows = no writes the open flows out and stops the log; flows = yes again starts it"
register_test flowlog_06_no_events "net.netfilter.nf_conntrack_events = 0: the start line says flow_events=off, and the dumps still find the open flows"
register_test flowlog_07_names "c1 resolves a name through a DNS server in the cloud (198.51.100.10) and fetches the answer 203.0.113.10: its flow record says name; c3's flow to the same address (not its answer) does not; flows = no: no names rule"
register_test flowlog_08_names_tcp "DNS over TCP: c1 resolves a name over TCP through 198.51.100.10 and its flow to the answer says the name; c3 sends two queries on one connection, answered in one segment, and its flow to the second answer says the second name; both names rules (udp, tcp) in the forward chain"
register_test flowlog_04_lost "events lost while the daemon is held (ENOBUFS): a flows-lost line, the metric, and a dump finds the open flows again"

FLG_N=300000
FLG_PORT=8088

# flg_conf NAME [KEY=VALUE...]: the suite's config with the network log on,
# a dump every second and the metrics beside the journal
flg_conf() {
	local name=$1; shift
	mkconf "$name" log.flows=yes log.flow_interval=1 daemon.metrics="$SWT_TMP/$name.prom" "$@"
}

# flg_lines FILE PYEXPR: the JSON lines of FILE for which PYEXPR (on r) holds
flg_lines() {
	"$PY" -c '
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if eval(sys.argv[2]):
        print(line.rstrip())' "$1" "$2" 2>/dev/null
}

# flg_wait SECONDS FILE PYEXPR: until a line of FILE matches (prints it)
flg_wait() {
	local max=$1 f=$2 expr=$3 line
	for _ in $(seq 1 $((max * 10))); do
		line=$(flg_lines "$f" "$expr" | head -n 1)
		[ -n "$line" ] && { printf '%s\n' "$line"; return 0; }
		sleep 0.1
	done
	return 1
}

# flg_http: python http.server in the cloud namespace on 203.0.113.10:FLG_PORT
# serving $SWT_TMP/www/blob (FLG_N bytes)
flg_http() {
	local pid
	mkdir -p "$SWT_TMP/www" && head -c "$FLG_N" /dev/urandom >"$SWT_TMP/www/blob" || return 1
	ip netns exec "$CL" "$PY" -m http.server "$FLG_PORT" --bind 203.0.113.10 \
		--directory "$SWT_TMP/www" >>"$SWT_TMP/srv.log" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); SWT_TEST_PIDS+=("$pid")
	for _ in $(seq 1 50); do
		nsx "$CL" curl -s -o /dev/null -m 1 "http://203.0.113.10:$FLG_PORT/" && return 0
		sleep 0.1
	done
	bad "http.server did not come up in the cloud namespace"
	return 1
}

# the host's conntrack lets a closed TCP flow go after 1 s (TIME_WAIT),
# so its DESTROY event comes within the test; restored by D_UNDO
flg_short_timewait() {
	local old
	old=$(nsx "$H" sysctl -n net.netfilter.nf_conntrack_tcp_timeout_time_wait 2>/dev/null) || return 0
	nsx "$H" sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_time_wait=1
	D_UNDO+=("nsx $H sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_time_wait=$old")
}

flowlog_01_fetch() { d_run _flowlog_01; }
_flowlog_01() {
	local conf dir="$SWT_TMP/flowlog_fetch" line got flows
	flg_http || return 1
	# a journal directory of its own and no earlier test's conntrack
	# entries (sandwalld logs the flows open when it starts): the
	# receipt's text lists a bounded number of flows
	mkdir -p "$dir"
	flows="$dir/flows.jsonl"
	nsx "$H" conntrack -F >/dev/null 2>&1 || { bad "conntrack -F failed (the conntrack tool: make deps)"; return 1; }
	conf=$(flg_conf flowlog_fetch "daemon.journal=$dir/journal.jsonl")
	d_start "$conf" || return 1
	flg_short_timewait
	if grep -q 'event=start.* flows=on flow_acct=\(on\|turned-on\)' "$D_LOG"; then
		ok "start line: $(grep -o 'flows=on[^ ]* flow_acct=[^ ]*' "$D_LOG" | head -n 1)"
	else bad "the start line does not say flows=on flow_acct=on|turned-on"; grep -m1 event=start "$D_LOG" | show -; fi
	if [ "$(nsx "$H" sysctl -n net.netfilter.nf_conntrack_acct)" = 1 ]; then ok "nf_conntrack_acct = 1 in the daemon's namespace"
	else bad "nf_conntrack_acct is not 1 in the daemon's namespace"; fi
	got=$(nsx "$C1" curl -s --local-port 40123 -o /dev/null -w '%{size_download}' -m 5 \
		"http://203.0.113.10:$FLG_PORT/blob")
	if [ "$got" = "$FLG_N" ]; then ok "c1 fetched $got bytes from 203.0.113.10:$FLG_PORT"
	else bad "c1 fetched ${got:-nothing}, expected $FLG_N bytes"; return 1; fi
	local match="r.get('event') == 'flow' and r.get('state') == 'closed' and r.get('src') == '172.17.0.2' and r.get('sport') == 40123 and r.get('dst') == '203.0.113.10' and r.get('dport') == $FLG_PORT and r.get('proto') == 'tcp'"
	if line=$(flg_wait 20 "$flows" "$match"); then ok "flows.jsonl: ${line:0:300}"
	else bad "no closed record of 172.17.0.2:40123 -> 203.0.113.10:$FLG_PORT in flows.jsonl within 20 s"; show "$flows" 10; return 1; fi
	if [ -n "$(flg_lines "$flows" "$match and r.get('verdict') == 'allowed' and r.get('counters') == 'kernel' and r.get('reply_bytes', 0) >= $FLG_N and r.get('orig_packets', 0) > 0 and r.get('iif') == 'docker0' and r.get('first') <= r.get('last')")" ]; then
		ok "the record: verdict allowed, counters kernel, reply_bytes >= $FLG_N, iif docker0"
	else bad "the record lacks verdict allowed / reply_bytes >= $FLG_N / iif docker0"; fi
	# the receipt lists it (JSON complete, text bounded)
	d_sw -c "$conf" receipt --json
	if "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["flows"]
assert f["count"] >= 1 and f["dropped"] == 0, f
assert any(x["src"] == "172.17.0.2" and x["dst"] == "203.0.113.10" and x["dport"] == int(sys.argv[2]) and x["reply_bytes"] >= int(sys.argv[3]) and x["verdict"] == "allowed" for x in f["list"]), f
' "$SW_OUT" "$FLG_PORT" "$FLG_N"; then ok "receipt --json: flows.count >= 1, the flow in flows.list"
	else bad "receipt --json has no flows section with the flow"; show "$SW_OUT" 5; fi
	d_sw -c "$conf" receipt
	if grep -q "172.17.0.2 -> 203.0.113.10:$FLG_PORT/tcp" "$SW_OUT"; then ok "receipt text: $(grep -m1 "203.0.113.10:$FLG_PORT/tcp" "$SW_OUT" | tr -s ' ')"
	else bad "receipt text does not list the flow"; grep -i -A5 'flows' "$SW_OUT" | show -; fi
	return 0
}

flowlog_02_blocked() { d_run _flowlog_02; }
_flowlog_02() {
	local conf flows="$SWT_TMP/flows.jsonl" att="$SWT_TMP/attempts.json"
	conf=$(flg_conf flowlog_blocked)
	# the flows earlier suites opened without a table (their "the attack
	# works" halves) are still in conntrack: gone first, so that only this
	# test's attempt can be in the log
	nsx "$H" conntrack -F >/dev/null 2>&1 || { bad "conntrack -F failed (the conntrack tool: make deps)"; return 1; }
	# and the log files earlier daemons of this run wrote beside the
	# journal (run_06's metadata probes were in them)
	rm -f "$flows" "$SWT_TMP/flows-open.json" "$att"
	d_start "$conf" || return 1
	blocked "$C1" http://169.254.169.254/
	reach "$C1" http://203.0.113.10/
	sleep 2.5       # attempts.json (1 s) and two dumps (flow_interval = 1)
	if grep -q '"169.254.169.254"' "$att" 2>/dev/null; then ok "attempts.json has the metadata attempt"
	else bad "attempts.json lacks 169.254.169.254"; show "$att" 5; fi
	if [ -n "$(flg_lines "$flows" "r.get('dst') == '169.254.169.254'")" ] ||
	   grep -q '"169.254.169.254"' "$SWT_TMP/flows-open.json" 2>/dev/null; then
		bad "the blocked metadata attempt is in the network log"; flg_lines "$flows" "r.get('dst') == '169.254.169.254'" | show -
	else ok "flows.jsonl and flows-open.json have no 169.254.169.254"; fi
	# the host's own addresses on the bridges are in the guarded subnets,
	# but what the host sends (IGMP reports, connections to containers) is
	# no sandbox's flow
	if grep -Eq '"src":"(172\.17\.0\.1|172\.18\.0\.1|fd00:17::1)"' "$flows" "$SWT_TMP/flows-open.json" 2>/dev/null; then
		bad "the host's own traffic is in the network log"; grep -hoE '"src":"(172\.17\.0\.1|172\.18\.0\.1)"[^}]*' "$flows" "$SWT_TMP/flows-open.json" | head -n 3 | show -
	else ok "no flow from the host's own addresses (172.17.0.1, 172.18.0.1, fd00:17::1)"; fi
	# the allowed one is there (open in the snapshot, or closed)
	if grep -q '"203.0.113.10"' "$SWT_TMP/flows-open.json" "$flows" 2>/dev/null; then ok "the allowed 203.0.113.10:80 flow is logged"
	else bad "the allowed flow to 203.0.113.10 is not logged"; show "$SWT_TMP/flows-open.json" 5; fi
	return 0
}

flowlog_03_bound() { d_run _flowlog_03; }
_flowlog_03() {
	local conf flows="$SWT_TMP/flows.jsonl" t targets=() line
	for t in 1 2 3 4 5; do targets+=("203.0.113.10:$((7100 + t))"); done
	conf=$(flg_conf flowlog_bound log.max_flows=2)
	d_start "$conf" || return 1
	grep -q 'max_flows=2' "$D_LOG" && ok "start line: max_flows=2"
	fl_recv "${targets[@]}" || return 1
	fl_send "${targets[@]}" || return 1
	if line=$(flg_wait 5 "$flows" "r.get('event') == 'flows-dropped' and r.get('total', 0) > 0 and r.get('max_flows') == 2"); then
		ok "flows.jsonl says it: $line"
	else bad "no flows-dropped line with total > 0 in flows.jsonl"; show "$flows" 10; fi
	sleep 1.5
	if "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["max_flows"] == 2 and d["open"] <= 2 and d["dropped"] > 0 and len(d["flows"]) == d["open"], d
print("open %d dropped %d untracked %d" % (d["open"], d["dropped"], d["untracked"]))' "$SWT_TMP/flows-open.json" >"$SWT_TMP/flg.out" 2>&1
	then ok "flows-open.json: $(cat "$SWT_TMP/flg.out")"
	else bad "flows-open.json does not say dropped > 0 with at most 2 open"; show "$SWT_TMP/flg.out" 5; fi
	if grep -Eq '^sandwall_flows_dropped_total [1-9]' "$SWT_TMP/flowlog_bound.prom"; then ok "metrics: $(grep '^sandwall_flows_dropped_total' "$SWT_TMP/flowlog_bound.prom")"
	else bad "metrics: sandwall_flows_dropped_total is not > 0"; grep flows "$SWT_TMP/flowlog_bound.prom" | show -; fi
	fl_stop
	return 0
}

flowlog_04_lost() { d_run _flowlog_04; }
_flowlog_04() {
	local conf flows="$SWT_TMP/flows.jsonl" line n=${FLG_FLOOD:-40000}
	conf=$(flg_conf flowlog_lost log.flow_interval=3600)
	d_start "$conf" || return 1
	# held: the NEW events of $n short UDP flows (one datagram each, to
	# distinct ports of an allowed address) overrun its receive buffer
	D_UNDO+=("nsx $H conntrack -F")     # also when the test fails
	kill -STOP "$D_PID"
	D_UNDO+=("kill -CONT $D_PID")
	nsx "$C1" "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n = int(sys.argv[1])
for p in range(20000, 20000 + n):
    try:
        s.sendto(b"x", ("203.0.113.10", p))
    except OSError:
        pass' "$n"
	info "c1 opened $n UDP flows while the daemon was stopped"
	kill -CONT "$D_PID"
	if line=$(flg_wait 10 "$flows" "r.get('event') == 'flows-lost' and r.get('count', 0) > 0"); then ok "flows.jsonl: $line"
	else bad "no flows-lost line within 10 s of the daemon going on"; show "$flows" 5; grep -c . "$flows" | show -; return 1; fi
	# the resync dump: the table full again (4096 kept), the rest untracked, said
	flg_wait 5 "$SWT_TMP/flows-open.json" "r.get('lost_events', 0) > 0" >/dev/null
	if "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["open"] == d["max_flows"] == 4096 and d["lost_events"] > 0 and d["dropped"] + d["untracked"] > 0, {k: v for k, v in d.items() if k != "flows"}
print("open %d lost_events %d dropped %d untracked %d; the dump: %d entries in %d us" % (d["open"], d["lost_events"], d["dropped"], d["untracked"], d["dumped"], d["dump_us"]))' \
		"$SWT_TMP/flows-open.json" >"$SWT_TMP/flg.out" 2>&1
	then ok "flows-open.json after the resync dump: $(cat "$SWT_TMP/flg.out")"
	else bad "flows-open.json after the loss: $(cat "$SWT_TMP/flg.out")"; fi
	# the metrics are written with each dump, the resync's too
	if grep -Eq '^sandwall_flows_lost_events_total [1-9]' "$SWT_TMP/flowlog_lost.prom"; then ok "metrics: $(grep '^sandwall_flows_lost_events_total' "$SWT_TMP/flowlog_lost.prom")"
	else bad "metrics: sandwall_flows_lost_events_total is not > 0"; grep flows "$SWT_TMP/flowlog_lost.prom" | show -; fi
	# and gone before the next test: the next suites' daemons must not find
	# a conntrack table still full of them
	nsx "$H" conntrack -F >/dev/null 2>&1
	local c
	c=$(nsx "$H" cat /proc/sys/net/netfilter/nf_conntrack_count)
	[ "$c" -lt 1000 ] && info "the flood's conntrack entries are gone ($c left)" ||
		bad "the flood's conntrack entries outlived the test ($c left)"
	return 0
}

flowlog_05_reload() { d_run _flowlog_05; }
_flowlog_05() {
	local conf="$SWT_TMP/flowlog_reload.conf" flows="$SWT_TMP/flows.jsonl" n0 line target=203.0.113.10:7201
	cp "$(flg_conf flowlog_reload_on)" "$conf"
	d_start "$conf" || return 1
	fl_recv "$target" || return 1
	fl_send "$target" || return 1
	if flg_wait 5 "$SWT_TMP/flows-open.json" "any(f['dport'] == 7201 for f in r.get('flows', []))" >/dev/null; then
		ok "flows-open.json has the open flows to $target"
	else bad "flows-open.json lacks the flows to $target"; fl_stop; return 1; fi
	cp "$(flg_conf flowlog_reload_off log.flows=no)" "$conf"
	n0=$(d_log_lines)
	kill -HUP "$D_PID"
	d_wait_log "$n0" 'event=reload .*result=ok' 3000 >/dev/null || bad "no reload within 3 s"
	if line=$(flg_wait 3 "$flows" "r.get('state') == 'open' and r.get('dport') == 7201"); then ok "flows = no: the open flow written out: ${line:0:160}"
	else bad "flows = no: no state=open line for the flow to $target"; show "$flows" 5; fi
	nsx "$C1" curl -s -o /dev/null --local-port 40555 -m 2 http://203.0.113.10/
	sleep 1.5
	if [ -n "$(flg_lines "$flows" "r.get('sport') == 40555")" ] || grep -q '"sport":40555,' "$SWT_TMP/flows-open.json"; then
		bad "flows = no: a new flow was logged"
	else ok "flows = no: a new flow (172.17.0.2:40555 -> 203.0.113.10:80) is not logged"; fi
	cp "$(flg_conf flowlog_reload_on)" "$conf"
	n0=$(d_log_lines)
	kill -HUP "$D_PID"
	d_wait_log "$n0" 'event=reload .*result=ok' 3000 >/dev/null || bad "no second reload within 3 s"
	if flg_wait 5 "$SWT_TMP/flows-open.json" "any(f['dport'] == 7201 for f in r.get('flows', []))" >/dev/null; then
		ok "flows = yes again: the log runs, the open flow found by the first dump"
	else bad "flows = yes again: the open flow is not in flows-open.json"; fi
	fl_stop
	return 0
}

flowlog_06_no_events() { d_run _flowlog_06; }
_flowlog_06() {
	local conf old target=203.0.113.10:7301
	old=$(nsx "$H" sysctl -n net.netfilter.nf_conntrack_events 2>/dev/null) || { info "skip: no nf_conntrack_events"; return "$SKIP"; }
	nsx "$H" sysctl -qw net.netfilter.nf_conntrack_events=0 || return 1
	D_UNDO+=("nsx $H sysctl -qw net.netfilter.nf_conntrack_events=$old")
	conf=$(flg_conf flowlog_noev)
	d_start "$conf" || return 1
	if grep -q 'event=start.* flow_events=off' "$D_LOG" && grep -q 'conntrack events are off' "$D_LOG"; then
		ok "the start line says flow_events=off, and a warning why"
	else bad "no flow_events=off in the start line / no warning"; grep -m1 event=start "$D_LOG" | show -; fi
	fl_recv "$target" || return 1
	fl_send "$target" || return 1
	if flg_wait 5 "$SWT_TMP/flows-open.json" "any(f['dport'] == 7301 and f['proto'] == 'tcp' for f in r.get('flows', []))" >/dev/null; then
		ok "without events, the dump (flow_interval = 1) found the open flow to $target"
	else bad "the open flow to $target is not in flows-open.json"; fi
	fl_stop
	return 0
}

# flg_resolve NS SERVER udp|tcp NAME...: A queries from NS (raw, python),
# one line per NAME with its answer's addresses. Over TCP (RFC 1035 4.2.2,
# each message behind its 2-byte length) all the queries go in one write
# on one connection (pipelined), and the replies are read off it in turn.
flg_resolve() {
	nsx "$1" "$PY" -c '
import socket, struct, sys
server, proto, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def query(i, name):
    q = struct.pack(">HHHHHH", 0x5a5a + i, 0x0100, 1, 0, 0, 0)
    return q + b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
def addrs(q, r):
    an = struct.unpack(">H", r[6:8])[0]
    off, out = len(q), []
    for _ in range(an):
        while r[off] and r[off] < 0xc0:
            off += 1 + r[off]
        off += 2 if r[off] >= 0xc0 else 1
        t, _c, _ttl, l = struct.unpack(">HHIH", r[off:off + 10])
        off += 10
        if t == 1:
            out.append(socket.inet_ntoa(r[off:off + 4]))
        off += l
    return " ".join(out)
qs = [query(i, n) for i, n in enumerate(names)]
if proto == "tcp":
    s = socket.create_connection((server, 53), timeout=2)
    s.sendall(b"".join(struct.pack(">H", len(q)) + q for q in qs))
    buf = b""
    for q in qs:
        while len(buf) < 2 or len(buf) < 2 + struct.unpack(">H", buf[:2])[0]:
            d = s.recv(65535)
            if not d:
                sys.exit("the connection closed before the replies")
            buf += d
        n = struct.unpack(">H", buf[:2])[0]
        print(addrs(q, buf[2:2 + n]))
        buf = buf[2 + n:]
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    for q in qs:
        s.sendto(q, (server, 53))
        print(addrs(q, s.recv(4096)))' "$2" "$3" "${@:4}"
}

flowlog_07_names() { d_run _flowlog_07; }
_flowlog_07() {
	local conf flows="$SWT_TMP/flows.jsonl" line got pid name=files.flowlog.test
	flg_http || return 1
	printf '{"%s": {"A": [["203.0.113.10", 60]]}}\n' "$name" >"$SWT_TMP/names-zone.json"
	ip netns exec "$CL" "$PY" "$SWT_DIR/dns.py" 198.51.100.10 "$SWT_TMP/names-zone.json" \
		"$SWT_TMP/names-dns.log" >>"$SWT_TMP/dns.err" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); SWT_TEST_PIDS+=("$pid")
	conf=$(flg_conf flowlog_names)
	d_start "$conf" || return 1
	flg_short_timewait
	if nsx "$H" nft list chain inet sandwall forward 2>/dev/null | grep -q 'sport 53 log prefix "sandwall:dns " group 3211'; then
		ok "the forward chain logs the DNS replies to group 3211"
	else bad "no names rule in the forward chain"; nsx "$H" nft list chain inet sandwall forward | show -; fi
	got=""
	for _ in $(seq 1 30); do
		got=$(flg_resolve "$C1" 198.51.100.10 udp "$name" 2>"$SWT_TMP/resolve.err") && [ -n "$got" ] && break
		sleep 0.1
	done
	if [ "$got" = 203.0.113.10 ]; then ok "c1 resolved $name through 198.51.100.10: $got"
	else bad "c1 could not resolve $name (got '${got}')"; show "$SWT_TMP/resolve.err" 5; show "$SWT_TMP/dns.err" 5; return 1; fi
	nsx "$C1" curl -s --local-port 40701 -o /dev/null -m 5 "http://203.0.113.10:$FLG_PORT/blob"
	nsx "$C3" curl -s --local-port 40702 -o /dev/null -m 5 "http://203.0.113.10:$FLG_PORT/blob"
	local base="r.get('event') == 'flow' and r.get('state') == 'closed' and r.get('dst') == '203.0.113.10' and r.get('dport') == $FLG_PORT"
	if line=$(flg_wait 20 "$flows" "$base and r.get('sport') == 40701"); then
		if [ -n "$(flg_lines "$flows" "$base and r.get('sport') == 40701 and r.get('src') == '172.17.0.2' and r.get('name') == '$name'")" ]; then
			ok "c1's flow says the name it resolved: ${line:0:300}"
		else bad "c1's flow has no name $name: $line"; fi
	else bad "no closed record of c1's flow to 203.0.113.10:$FLG_PORT"; show "$flows" 10; return 1; fi
	if line=$(flg_wait 20 "$flows" "$base and r.get('sport') == 40702"); then
		if [ -z "$(flg_lines "$flows" "$base and r.get('sport') == 40702 and 'name' in r")" ]; then
			ok "c3's flow to the same address has no name (the answer was c1's): ${line:0:200}"
		else bad "c3's flow took c1's name: $line"; fi
	else bad "no closed record of c3's flow to 203.0.113.10:$FLG_PORT"; show "$flows" 10; fi
	d_sw -c "$conf" receipt
	if grep -q "203.0.113.10:$FLG_PORT/tcp ($name)" "$SW_OUT"; then ok "receipt text: $(grep -m1 "($name)" "$SW_OUT" | tr -s ' ')"
	else bad "the receipt text does not name the flow"; grep -A8 '^flows' "$SW_OUT" | show -; fi
	d_stop
	# the network log off: no names rule
	conf=$(flg_conf flowlog_names_off log.flows=no)
	d_start "$conf" || return 1
	if nsx "$H" nft list chain inet sandwall forward 2>/dev/null | grep -q 'sandwall:dns'; then
		bad "flows = no: the names rule is still in the forward chain"
	else ok "flows = no: no names rule in the forward chain"; fi
	return 0
}

# DNS over TCP: what a sandbox resolves over TCP (dig +tcp, or after a
# truncated UDP answer) names its flows as over UDP. dns.py answers TCP on
# 198.51.100.10:53 too (--tcp); the only queries of the test go over TCP.
flowlog_08_names_tcp() { d_run _flowlog_08; }
_flowlog_08() {
	local conf flows="$SWT_TMP/flows.jsonl" line got pid name=files.tcp.flowlog.test other=other.tcp.flowlog.test
	flg_http || return 1
	printf '{"%s": {"A": [["203.0.113.10", 60]]}, "%s": {"A": [["198.51.100.99", 60]]}}\n' \
		"$name" "$other" >"$SWT_TMP/names-tcp-zone.json"
	: >"$SWT_TMP/names-tcp-dns.log"
	ip netns exec "$CL" "$PY" "$SWT_DIR/dns.py" 198.51.100.10 "$SWT_TMP/names-tcp-zone.json" \
		"$SWT_TMP/names-tcp-dns.log" --tcp >>"$SWT_TMP/dns.err" 2>&1 &
	pid=$!
	SWT_PIDS+=("$pid"); SWT_TEST_PIDS+=("$pid")
	conf=$(flg_conf flowlog_names_tcp)
	d_start "$conf" || return 1
	flg_short_timewait
	local p
	# (nft lists "meta l4proto tcp th sport 53" as "tcp sport 53")
	for p in udp tcp; do
		if nsx "$H" nft list chain inet sandwall forward 2>/dev/null |
			grep -Eq "ct direction reply (meta l4proto $p th|$p) sport 53 log prefix \"sandwall:dns \" group 3211"; then
			ok "the forward chain logs the DNS replies over $p to group 3211"
		else bad "no names rule for $p in the forward chain"; nsx "$H" nft list chain inet sandwall forward | show -; fi
	done
	# c1: one query over TCP, its reply in a segment of its own
	got=""
	for _ in $(seq 1 30); do
		got=$(flg_resolve "$C1" 198.51.100.10 tcp "$name" 2>"$SWT_TMP/resolve.err") && [ -n "$got" ] && break
		sleep 0.1
	done
	if [ "$got" = 203.0.113.10 ]; then ok "c1 resolved $name over TCP through 198.51.100.10: $got"
	else bad "c1 could not resolve $name over TCP (got '${got}')"; show "$SWT_TMP/resolve.err" 5; show "$SWT_TMP/dns.err" 5; return 1; fi
	# c3: two queries in one write, both replies in one write (one segment):
	# the second message of the segment names the flow
	got=$(flg_resolve "$C3" 198.51.100.10 tcp "$other" "$name" 2>"$SWT_TMP/resolve.err" | tr '\n' ' ')
	if [ "$got" = "198.51.100.99 203.0.113.10 " ]; then ok "c3 resolved $other and $name on one TCP connection: $got"
	else bad "c3 could not resolve $other and $name over TCP (got '${got}')"; show "$SWT_TMP/resolve.err" 5; return 1; fi
	if grep -q "tcp 2 replies in one write" "$SWT_TMP/names-tcp-dns.log"; then ok "dns.py answered c3's two queries in one write"
	else bad "dns.py did not answer c3's two queries together"; show "$SWT_TMP/names-tcp-dns.log" 10; fi
	nsx "$C1" curl -s --local-port 40801 -o /dev/null -m 5 "http://203.0.113.10:$FLG_PORT/blob"
	nsx "$C3" curl -s --local-port 40802 -o /dev/null -m 5 "http://203.0.113.10:$FLG_PORT/blob"
	local base="r.get('event') == 'flow' and r.get('state') == 'closed' and r.get('dst') == '203.0.113.10' and r.get('dport') == $FLG_PORT"
	local who src sport
	for who in c1:172.17.0.2:40801 c3:172.17.0.3:40802; do
		IFS=: read -r who src sport <<<"$who"
		if line=$(flg_wait 20 "$flows" "$base and r.get('sport') == $sport"); then
			if [ -n "$(flg_lines "$flows" "$base and r.get('sport') == $sport and r.get('src') == '$src' and r.get('name') == '$name'")" ]; then
				ok "$who's flow says the name it resolved over TCP: ${line:0:300}"
			else bad "$who's flow has no name $name (resolved over TCP): $line"; fi
		else bad "no closed record of $who's flow to 203.0.113.10:$FLG_PORT"; show "$flows" 10; fi
	done
	return 0
}
