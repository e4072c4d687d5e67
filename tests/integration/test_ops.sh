# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
# The operator's path (issue 27): `sandwall lint` on the test topology
# (the shipped config clean; each warning from a config that has it;
# --strict exit 1; apply prints the same warnings once), `status` listing
# every open door, and `check --preview NEW.conf` showing what applying it
# would change while the kernel's generation stays where it was.
#
# Uses the helpers of test_verify.sh (v_run, v_conf, v_sw, v_py). The
# cloud is faked with SANDWALL_DMI_DIR (a directory holding sys_vendor and
# product_name), never read from this machine's /sys.

register_test ops_01_lint            "lint: shipped config clean (on a cloud VM too); each warning (pattern, unguarded, private off on a cloud VM, reopen) with FILE:LINE and id, --json, --strict exit 1; apply prints each once; unknown key and hostname refusals say what to write"

# o_dmi NAME VENDOR: a fake DMI directory $V_DIR/dmi-NAME
o_dmi() {
	mkdir -p "$V_DIR/dmi-$1" && printf '%s\n' "$2" >"$V_DIR/dmi-$1/sys_vendor" &&
		printf 'x\n' >"$V_DIR/dmi-$1/product_name" && echo "$V_DIR/dmi-$1"
}

# o_lint DESC RC DMI ARGS...: sandwall lint with the fake DMI; assert the exit code
o_lint() {
	local desc=$1 want=$2 dmi=$3; shift 3
	SANDWALL_DMI_DIR=$dmi v_sw "$@"
	if [ "$SW_RC" -eq "$want" ]; then ok "$desc: sandwall $* -> exit $SW_RC"
	else bad "$desc: sandwall $* -> exit $SW_RC, expected $want"; show "$SW_ERR" 5; show "$SW_OUT" 10; fi
}

# o_has FILE REGEX DESC
o_has() {
	if grep -Eq -- "$2" "$1"; then ok "$3: $(grep -Em1 -- "$2" "$1" | sed "s|$SWT_TMP/||g")"
	else bad "$3: no line matching $2"; show "$1" 10; fi
}

# ---------------------------------------------------------------- 1
ops_01_lint() { v_run _ops_01; }
_ops_01() {
	local cloud qemu c n
	cloud=$(o_dmi ec2 "Amazon EC2") && qemu=$(o_dmi qemu "QEMU") || return 1
	# the shipped config, on this topology, on a cloud VM: no warning
	o_lint "shipped config" 0 "$cloud" -c "$SWT_ROOT/rules/sandwall.conf" lint --strict
	o_has "$SW_OUT" "no warnings$" "shipped config"
	o_lint "shipped config --json" 0 "$cloud" -c "$SWT_ROOT/rules/sandwall.conf" lint --json
	[ "$(v_py "$SW_OUT" "d['warnings']")" = "[]" ] && ok "shipped config --json: warnings []" ||
		bad "shipped config --json: $(v_py "$SW_OUT" "d.get('warnings')")"
	# a pattern that matches nothing
	c=$(v_conf lint1 "guard.interfaces=docker0 br-* dokcer9")
	n=$(grep -n '^interfaces' "$c" | cut -d: -f1)
	o_lint "pattern" 0 "$qemu" -c "$c" lint
	o_has "$SW_OUT" "^$c:$n: warning: \[guard\] interfaces pattern \"dokcer9\" matches no interface now .*\[guard-pattern-unmatched\]$" "pattern"
	[ "$(wc -l <"$SW_OUT")" -eq 1 ] && ok "pattern: one warning" || { bad "pattern: $(wc -l <"$SW_OUT") lines"; show "$SW_OUT"; }
	o_lint "pattern --strict" 1 "$qemu" -c "$c" lint --strict
	# a container-facing link that nothing guards (docker0: c1 and c3)
	c=$(v_conf lint2 "guard.interfaces=br-*")
	o_lint "unguarded" 0 "$qemu" -c "$c" lint
	o_has "$SW_OUT" "^$c:[0-9]+: warning: docker0 \(bridge with ports\) faces containers .*UNGUARDED.*\[guard-unguarded\]$" "unguarded"
	# private = no on a cloud VM (mkconf's default is private = no): not on QEMU
	c=$(v_conf lint3)
	n=$(grep -n '^private = no' "$c" | cut -d: -f1)
	o_lint "private off, QEMU" 0 "$qemu" -c "$c" lint --strict
	o_lint "private off, cloud" 1 "$cloud" -c "$c" lint --strict
	o_has "$SW_OUT" "^$c:$n: warning: \[block\] private = no on a cloud VM \(AWS\).*\[private-off-cloud\]$" "private off"
	# an [allow] entry marked reopen, and what it reopens
	c=$(v_conf lint4 "allow.destinations=169.254.169.254 tcp/80 reopen")
	n=$(grep -n '^destinations = 169' "$c" | cut -d: -f1)
	o_lint "reopen" 0 "$qemu" -c "$c" lint
	o_has "$SW_OUT" "^$c:$n: warning: \[allow\] destinations entry '169.254.169.254 tcp/80 reopen' reopens metadata \(169.254.169.254\), link_local \(169.254.0.0/16\).*\[allow-reopen\]$" "reopen"
	o_lint "reopen --json" 0 "$qemu" -c "$c" --json lint
	[ "$(v_py "$SW_OUT" "[(w['id'], w['line'], w['file'] == '$c') for w in d['warnings']]")" = "[[\"allow-reopen\", $n, true]]" ] &&
		ok "reopen --json: one allow-reopen at line $n" || bad "reopen --json: $(v_py "$SW_OUT" "d.get('warnings')")"
	# apply prints the warnings, each once
	c=$(v_conf lint5 "guard.interfaces=br-* dokcer9" "allow.destinations=169.254.169.254 tcp/80 reopen")
	SANDWALL_DMI_DIR=$qemu expect_sw 0 "apply with warnings" -c "$c" apply
	for w in guard-pattern-unmatched guard-unguarded allow-reopen; do
		[ "$(grep -c "^sandwall: .*: warning: .*\[$w\]$" "$SW_ERR")" -eq 1 ] && ok "apply: $w once" ||
			{ bad "apply: $w $(grep -c "\[$w\]" "$SW_ERR") times"; show "$SW_ERR"; }
	done
	nsx "$H" nft delete table inet sandwall 2>/dev/null
	# refusals (exit 2): an unknown key says what was meant, a hostname where it belongs
	c=$(v_conf lint6 "guard.interface=docker0")
	o_lint "unknown key" 2 "$qemu" -c "$c" lint
	o_has "$SW_ERR" "unknown key 'interface' in \[guard\] \(did you mean 'interfaces'\?\)" "unknown key"
	c=$(v_conf lint7 "allow.destinations=pypi.org tcp/443")
	o_lint "hostname" 2 "$qemu" -c "$c" lint
	o_has "$SW_ERR" "bad CIDR 'pypi.org' in \[allow\] destinations: .*hostnames go in a \[sandbox NAME\] allow list" "hostname"
	return 0
}

# ---------------------------------------------------------------- 2
register_test ops_02_status_doors    "status and status --json list every open door: the DNS carve-out and its resolver, [allow] entries (reopen with what it reopens), host_ports, networks, between, a sandbox's egress, allow list, hostnames and budget; the existing lines and fields stay"
ops_02_status_doors() { v_run _ops_02; }
_ops_02() {
	local c d
	c=$(v_conf doors "allow.destinations=203.0.113.10 tcp/80, 169.254.169.254 tcp/80 reopen" \
		"allow.host_ports=tcp/8080" "allow.networks=10.96.0.0/12")
	printf '[sandbox agents]\ninterfaces = br-0a1b2c3d4e5f\negress = allowlist\nallow = 198.51.100.10 tcp/443, pypi.org tcp/443\nbudget = 100/minute\n' >>"$c"
	expect_sw 0 "apply the doors config" -c "$c" apply || return 1
	expect_sw 0 "status" -c "$c" status
	o_has "$SW_OUT" "^table inet sandwall: present" "status keeps its first line"
	o_has "$SW_OUT" "^open doors:$" "doors section"
	o_has "$SW_OUT" "^  dns +udp/53 tcp/53 to the host's resolvers \(\[allow\] dns = auto\): 169.254.169.253$" "dns door"
	o_has "$SW_OUT" "^  allow +203.0.113.10 tcp/80 \(line [0-9]+\)$" "allow door"
	o_has "$SW_OUT" "^  allow +169.254.169.254 tcp/80 reopen \(line [0-9]+\): reopens metadata \(169.254.169.254\), link_local \(169.254.0.0/16\)$" "reopen door"
	o_has "$SW_OUT" "^  host_port +tcp/8080 to the host itself$" "host_port door"
	o_has "$SW_OUT" "^  network +10.96.0.0/12 " "network door"
	o_has "$SW_OUT" "^  between +docker0:br-0a1b2c3d4e5f " "between door"
	o_has "$SW_OUT" "^  sandbox +agents \(line [0-9]+\): egress allowlist, dns auto, interfaces br-0a1b2c3d4e5f, allow 198.51.100.10 tcp/443, pypi.org tcp/443, budget 100 new connections per source per minute$" "sandbox door"
	expect_sw 0 "status --json" -c "$c" status --json
	d=$(v_py "$SW_OUT" "sorted(set(x['kind'] for x in d['doors']))")
	[ "$d" = '["allow", "between", "dns", "host_port", "network", "sandbox"]' ] && ok "doors: every kind: $d" || bad "doors kinds: $d"
	d=$(v_py "$SW_OUT" "[x['resolvers'] for x in d['doors'] if x['kind'] == 'dns']")
	[ "$d" = '[["169.254.169.253"]]' ] && ok "dns door's resolvers: $d" || bad "dns door: $d"
	d=$(v_py "$SW_OUT" "[(x['entry'], x['reopen'], [r['category'] for r in x['reopens']]) for x in d['doors'] if x['kind'] == 'allow']")
	[ "$d" = '[["203.0.113.10 tcp/80", false, []], ["169.254.169.254 tcp/80", true, ["metadata", "link_local"]]]' ] &&
		ok "allow doors: $d" || bad "allow doors: $d"
	d=$(v_py "$SW_OUT" "[(x['name'], x['egress'], x['allow'], x['budget']) for x in d['doors'] if x['kind'] == 'sandbox']")
	[ "$d" = '[["agents", "allowlist", ["198.51.100.10 tcp/443", "pypi.org tcp/443"], {"connections": 100, "per": "minute", "sources": 65535}]]' ] &&
		ok "sandbox door: $d" || bad "sandbox door: $d"
	d=$(v_py "$SW_OUT" "[x['port'] for x in d['doors'] if x['kind'] == 'host_port'] + [x['cidr'] for x in d['doors'] if x['kind'] == 'network']")
	[ "$d" = '["tcp/8080", "10.96.0.0/12"]' ] && ok "host_port and network doors: $d" || bad "host_port/network doors: $d"
	d=$(v_py "$SW_OUT" "[k in d for k in ('table', 'present', 'generation', 'categories', 'guard', 'sandboxes')]")
	[ "$d" = '[true, true, true, true, true, true]' ] && ok "status --json keeps its fields" || bad "status --json fields: $d"
	return 0
}

# ---------------------------------------------------------------- 3
register_test ops_03_preview         "check --preview NEW.conf: 0 and 'would change nothing' for the config in force, 1 with the differences (text and --json) for another, 2 for a refused one; the kernel's generation and the table (with handles) unchanged by each"
# o_gen: the ruleset's generation in the host namespace, from status --json
o_gen() { sw -c "$1" status --json >/dev/null; v_py "$SW_OUT" "d['generation']"; }
ops_03_preview() { v_run _ops_03; }
_ops_03() {
	local a b bad g0 g1 before after
	a=$(v_conf prev-a)
	b=$(v_conf prev-b "block.private=yes" "allow.host_ports=tcp/8080")
	bad=$(v_conf prev-bad "guard.interface=docker0")
	expect_sw 0 "apply A" -c "$a" apply || return 1
	g0=$(o_gen "$a")
	before=$(hnft -a list table inet sandwall)
	[ -n "$g0" ] && [ -n "$before" ] && ok "generation $g0 before" || { bad "no generation or table"; return 1; }
	expect_sw 0 "preview of the config in force" -c "$a" check --preview "$a"
	o_has "$SW_OUT" "^applying .*prev-a.conf would change nothing" "preview A"
	expect_sw 1 "preview of B" -c "$a" check --preview "$b"
	o_has "$SW_OUT" "^applying .*prev-b.conf would change [0-9]+ objects" "preview B"
	o_has "$SW_OUT" "^table inet sandwall \([0-9]+\):$" "preview B names the table"
	o_has "$SW_OUT" "host_ports" "preview B shows the host_ports set"
	o_has "$SW_OUT" "private" "preview B shows the private block"
	expect_sw 1 "preview of B --json" -c "$a" check --preview "$b" --json
	[ "$(v_py "$SW_OUT" "[d['changes'], d['n_changes'] == len(d['inet']) + len(d['netdev']) + len(d['bridge']), d['n_changes'] > 0, d['preview'].endswith('prev-b.conf')]")" = '[true, true, true, true]' ] &&
		ok "preview --json: changes true, n_changes $(v_py "$SW_OUT" "d['n_changes']")" || { bad "preview --json"; show "$SW_OUT" 5; }
	expect_sw 2 "preview of a refused config" -c "$a" check --preview "$bad"
	o_has "$SW_ERR" "prev-bad.conf:2: unknown key 'interface' in .* \(nothing compared\)$" "preview refused"
	g1=$(o_gen "$a")
	after=$(hnft -a list table inet sandwall)
	[ "$g1" = "$g0" ] && ok "generation unchanged: $g0 -> $g1" || bad "generation moved: $g0 -> $g1"
	[ "$before" = "$after" ] && ok "table inet sandwall unchanged, handles included" ||
		{ bad "the table changed"; diff <(echo "$before") <(echo "$after") | show - 10; }
	# and B applied changes exactly what was previewed: the preview of B is then empty
	expect_sw 0 "apply B" -c "$b" apply
	expect_sw 0 "preview of B after applying it" -c "$b" check --preview "$b"
	return 0
}
