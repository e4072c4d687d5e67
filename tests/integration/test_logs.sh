# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# Log lines an SRE can act on (issue 27): sandwalld -f stamps every stderr
# line with its UTC time; where journald's socket is, the system log is
# its native protocol with SANDWALL_EVENT=, PRIORITY and SYSLOG_IDENTIFIER
# (a socket of this test stands in for journald's).
#
# Uses the helpers of test_verify.sh (v_run, v_conf, v_start, v_stop).

register_test logs_01_stamp_journald "sandwalld -f: every stderr line starts with time=ISO8601Z and is key=value (free text as level= msg=\"...\"); with a journald socket each entry has PRIORITY, SYSLOG_IDENTIFIER=sandwalld and SANDWALL_EVENT (start, drift, stop)"

logs_01_stamp_journald() { v_run _logs_01; }
_logs_01() {
	local sock got i
	V_CONF=$(v_conf logs daemon.owner=no)
	[ -x "$V_SANDWALLD" ] || { info "skip: $V_SANDWALLD not built"; return $SKIP; }
	sock="$V_DIR/journal.sock"
	got="$V_DIR/journal.got"
	"$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "ab", buffering=0) as f:
    while True:
        d = s.recv(65536)
        f.write(d + b"\x1e\n")' "$sock" "$got" &
	SWT_PIDS+=($!)
	for i in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.02; done
	apply_ok "$V_CONF" || return 1
	# DOCKER_HOST=tcp://...: a free-text warning at start ("only unix:// sockets
	# are asked"), which must come out key=value too
	DOCKER_HOST=tcp://127.0.0.1:2375 SANDWALL_JOURNAL_SOCKET=$sock v_start "$V_CONF" || return 1
	nsx "$H" nft delete table inet sandwall
	for i in $(seq 1 40); do grep -q 'SANDWALL_EVENT=drift' "$got" 2>/dev/null && break; sleep 0.05; done
	v_stop TERM
	for i in $(seq 1 40); do grep -q 'SANDWALL_EVENT=stop' "$got" 2>/dev/null && break; sleep 0.05; done
	# stderr: every line of the daemon stamped
	if [ -s "$V_DLOG" ] && ! grep -vqE '^sandwalld: time=20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z ' "$V_DLOG"; then
		ok "every stderr line is stamped: $(grep -m1 'event=start' "$V_DLOG" | cut -c1-90)..."
	else bad "stderr lines without time=: $(grep -vE '^sandwalld: time=' "$V_DLOG" | head -n 2)"; show "$V_DLOG" 5; fi
	# and every one key=value: free text goes as level=... msg="..." (the
	# table flags line is one; on main it was "table flags: owner no ...")
	if [ -s "$V_DLOG" ] && ! grep -vqE '^sandwalld: time=[^ ]+ [a-z0-9_.-]+=' "$V_DLOG"; then
		ok "every stderr line is key=value: $(grep -m1 'msg="' "$V_DLOG" | sed 's/^sandwalld: time=[^ ]* //' | cut -c1-90)"
	else bad "stderr lines that are not key=value: $(grep -vE '^sandwalld: time=[^ ]+ [a-z0-9_.-]+=' "$V_DLOG" | head -n 2)"; fi
	grep -q 'level=[a-z]* msg="' "$V_DLOG" && ok "a free-text line is quoted with its level" ||
		bad "no level=... msg=\"...\" line: the free-text path was not exercised"
	# journald: the entries and their fields
	"$PY" - "$got" <<-'PYEOF' >"$V_DIR/journal.check" 2>&1
	import sys
	raw = open(sys.argv[1], "rb").read().split(b"\x1e\n")
	ents = [dict(l.split("=", 1) for l in e.decode().strip("\n").split("\n")) for e in raw if e.strip()]
	evs = [e.get("SANDWALL_EVENT") for e in ents]
	for want in ("start", "drift", "stop"):
	    assert want in evs, (want, evs)
	for e in ents:
	    assert e["SYSLOG_IDENTIFIER"] == "sandwalld" and e["PRIORITY"].isdigit() and e["MESSAGE"], e
	    k = e["MESSAGE"].split("=", 1)[0]
	    assert k and all(c in "abcdefghijklmnopqrstuvwxyz0123456789_.-" for c in k), ("not key=value", e["MESSAGE"])
	d = [e for e in ents if e.get("SANDWALL_EVENT") == "drift"][0]
	assert d["PRIORITY"] == "4" and "delete table" in d["MESSAGE"], d
	print("%d entries, events %s; drift at PRIORITY 4: %s" % (len(ents), sorted(set(x for x in evs if x)), d["MESSAGE"][:70]))
	PYEOF
	if [ $? -eq 0 ]; then ok "journald entries: $(cat "$V_DIR/journal.check")"
	else bad "journald entries: $(tail -n 3 "$V_DIR/journal.check")"; show "$got" 10; fi
	return 0
}
