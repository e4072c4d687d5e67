# SPDX-License-Identifier: GPL-2.0-or-later
"""The mutants of `make mutate` (tests/mutate/mutate.py, docs/testing.md).

Each mutant is one deliberate break of the rule-building or repair code:
a list of (file, search, replace) edits, each of which must match its file
exactly once (or the run stops with exit 2: the list cannot rot silently
when the code moves), and the tests expected to kill it:

    unit         unit binaries (build/tests/NAME) to run; a failing cmocka
                 test counts unless it is listed in GOLDEN
    integration  integration test names (tests/integration/run.sh -l), run
                 one at a time in this order until one fails

A kill by an integration test counts only if that test passes on the
unmutated copy (checked once per test, on demand).
"""

# cmocka tests that compare the canonical listing (they fail on any change
# of the rules, harmless or not): never counted as a kill. test_ruleset is
# the golden file as a whole (its goldens are regenerated with every
# ruleset change); its behaviour assertions live in test_ruleset_props.
GOLDEN = {
    "test_ruleset": "*",
    "test_encode": {"test_sets_parse_back"},   # "golden counts" of set elements
    "test_metrics": {"test_metrics_golden"},
}

MUTANTS = [
    {
        "name": "no-antispoof",
        "what": "no anti-spoofing rule (guard's fib saddr . iif oif missing goto block_spoofed left out)",
        "edits": [("src/core/rs_chains.c",
                   '''	RULE(m, b, SW_CHAIN_GUARD, "spoofed", {
		e_fib_oif_missing(b, true);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
''', "")],
        "unit": ["test_ruleset_props"],
        "integration": ["attacks_01_prime_routed", "runtimes_03_routed_veth"],
    },
    {
        "name": "nd-type-only",
        "what": "neighbour discovery accepted by ICMPv6 type only (no hop limit 255, no nd6/local destination)",
        "edits": [("src/core/rs_chains.c",
                   '''			e_nd(b, nd[i].type);
			if (nd[i].local) {
				e_fib_local(b, false, NFT_CMP_EQ);
			} else {
				e_payload(b, NX_IP6_DADDR, NFT_REG_1);
				e_lookup(b, NFT_REG_1, "nd6");
			}
''', '''			e_icmpv6_type(b, nd[i].type);
''')],
        "unit": ["test_ruleset_props"],
        "integration": ["attacks_03_nd_tunnel"],
    },
    {
        "name": "no-bcast-drop",
        "what": "broadcast/multicast towards the host not dropped (guard_input's last rule returns)",
        "edits": [("src/core/rs_chains.c",
                   '''	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-host", e_verdict(b, NFT_GOTO, "block_host"));''',
                   '''	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-host", e_verdict(b, NFT_RETURN, NULL));''')],
        "unit": ["test_ruleset_props"],
        "integration": ["attacks_04_bcast_host"],
    },
    {
        "name": "host-skipped",
        "what": "the host category skipped (no fib daddr type local goto block_host in guard)",
        "edits": [("src/core/rs_chains.c",
                   '''		case SW_CAT_MATCH_LOCAL:
			if (!cfg->block[next])
				break;''',
                   '''		case SW_CAT_MATCH_LOCAL:
			if (cfg->block[next] || !cfg->block[next])
				break;''')],
        "unit": ["test_ruleset_props"],
        "integration": ["core_02_default_blocks"],
    },
    {
        "name": "taps-unguarded",
        "what": "taps left out of guard_ifaces and guard_links (while status still calls them guarded)",
        "edits": [("src/core/rs_sets.c",
                   '''		if (sw_ruleset_guarded(cfg, &host->links[i]) &&
		    (err = ivals_add_ifname(iv, host->links[i].name)))''',
                   '''		if (sw_ruleset_guarded(cfg, &host->links[i]) && host->links[i].kind != SW_LINK_TAP &&
		    (err = ivals_add_ifname(iv, host->links[i].name)))'''),
                  ("src/core/rs_sets.c",
                   '''		if (!l || !sw_ruleset_guarded(cfg, &host->links[i]))
			continue;''',
                   '''		if (!l || !sw_ruleset_guarded(cfg, &host->links[i]) || host->links[i].kind == SW_LINK_TAP)
			continue;''')],
        "unit": ["test_ruleset_props"],
        "integration": ["runtimes_02_tap_vm", "runtimes_04_daemon_live"],
    },
    {
        "name": "tap-kind-unguarded",
        "what": "auto's tap rule (meta iifkind \"tun\" meta iiftype ether) matches no tap: a tap no name pattern covers is open from its first packet",
        "edits": [("src/core/rs_chains.c",
                   '''		char tun[SW_IFNAMSIZ] = "tun";''',
                   '''		char tun[SW_IFNAMSIZ] = "tux";''')],
        "unit": [],
        "integration": ["verify_14_routed_tap"],
    },
    {
        "name": "any-without-reopen",
        "what": "an [allow] destinations entry 0.0.0.0/0 (or ::/0) accepted without reopen",
        "edits": [("src/core/config_check.c",
                   "if (a->reopen || !sw_allow_holes(cfg, NULL, a, h, 1))",
                   "if (a->reopen || a->dst.len == 0 || !sw_allow_holes(cfg, NULL, a, h, 1))")],
        "unit": ["test_config", "test_holes", "test_ruleset_props"],
        "integration": ["hostile_05_refused_configs"],
    },
    {
        "name": "delta-no-readd",
        "what": "the delta path never re-adds a deleted element (sw_encode_set_delta only deletes)",
        "edits": [("src/kernel/encode.c",
                   '''		if (c < 0)
			add[na++] = want->elems[i++];''',
                   '''		if (c < 0)
			i++;''')],
        "unit": ["test_encode", "test_reconcile"],
        "integration": ["daemon_01_watch_repair", "daemon_12_apply_deltas"],
    },
    {
        "name": "gate-continue",
        "what": "the gate's fallback drop turned into continue",
        "edits": [("src/core/rs_chains.c",
                   "e_verdict(b, fallback ? NF_DROP : NFT_RETURN, NULL);",
                   "e_verdict(b, fallback ? NFT_CONTINUE : NFT_RETURN, NULL);")],
        "unit": ["test_ruleset_props", "test_gate"],
        "integration": ["core_13_gate_fallback"],
    },
    {
        "name": "replies-both-directions",
        "what": "the replies rule accepts ct state established without ct direction reply",
        "edits": [("src/core/rs_chains.c",
                   '''		e_ct_established(b);
		e_ct_direction(b, 1 /* IP_CT_DIR_REPLY */);
		e_verdict(b, NF_ACCEPT, NULL);
	});
	/* meta l4proto ipv6-icmp jump guard_nd''',
                   '''		e_ct_established(b);
		e_verdict(b, NF_ACCEPT, NULL);
	});
	/* meta l4proto ipv6-icmp jump guard_nd''')],
        "unit": ["test_ruleset_props"],
        "integration": ["flows_01_apply", "flows_02_repair", "flows_03_reload", "flows_04_dns_expiry"],
    },
    {
        "name": "out-replies-both-directions",
        "what": "the output path's replies rule ([guard] users, cgroups) accepts ct state established without ct direction reply",
        "edits": [("src/core/rs_output.c",
                   '''		e_ct_established(b);
		e_ct_direction(b, 1 /* IP_CT_DIR_REPLY */);
		e_verdict(b, NF_ACCEPT, NULL);''',
                   '''		e_ct_established(b);
		e_verdict(b, NF_ACCEPT, NULL);''')],
        "unit": ["test_ruleset_props"],
        "integration": ["flows_05_output_users"],
    },
    {
        "name": "no-out-antispoof",
        "what": "no anti-spoofing rule on the output path (guard_output's fib saddr type != local goto block_spoofed left out)",
        "edits": [("src/core/rs_output.c",
                   '''	RULE(m, b, SW_CHAIN_GUARD_OUTPUT, "out-spoofed", {''',
                   '''	if (0) RULE(m, b, SW_CHAIN_GUARD_OUTPUT, "out-spoofed", {''')],
        "unit": ["test_ruleset_props"],
        "integration": ["runtimes_16_cgroups"],
    },
    {
        "name": "fast-path-host",
        "what": "the gate's fast path returns without fib daddr type != local (the host's addresses take it)",
        "edits": [("src/core/rs_chains.c",
                   "bool fib = !fallback && cfg->block[SW_CAT_HOST];",
                   "bool fib = false && cfg->block[SW_CAT_HOST];")],
        "unit": ["test_ruleset_props"],
        "integration": ["core_02_default_blocks"],
    },
    {
        "name": "quarantine-no-drop",
        "what": "a quarantined source is not dropped (sbx_NAME's first rules return instead of goto block_quarantine_NAME)",
        "edits": [("src/core/rs_sandbox.c",
                   "e_verdict(b, pass ? NFT_RETURN : NFT_GOTO, pass ? NULL : block);",
                   "e_verdict(b, NFT_RETURN, NULL);")],
        "unit": ["test_ruleset_props"],
        "integration": ["run_05_quarantine"],
    },
    {
        "name": "quarantine-no-trip",
        "what": "the block chains of quarantine_on categories do not jump to the trip chain",
        "edits": [("src/core/rs_chains.c",
                   "if (trip_bit && (err = rs_sandbox_trips(m, b, cfg, chain, trip_bit, own)))",
                   "if (0 && trip_bit && (err = rs_sandbox_trips(m, b, cfg, chain, trip_bit, own)))")],
        "unit": ["test_ruleset_props"],
        "integration": ["run_05_quarantine"],
    },
    {
        "name": "conns-uncounted",
        "what": "max_connections counts nothing (the jump to sbx_NAME_conns left out): a source opens as many connections as it likes and is never quarantined for it",
        "edits": [("src/core/rs_sandbox.c",
                   "if (x->max_conns && (err = bucket_rules(",
                   "if (0 && x->max_conns && (err = bucket_rules(")],
        "unit": ["test_sandbox"],
        "integration": ["run_06_max_conns"],
    },
    {
        "name": "verify-cut-off-ignored",
        "what": "a verify run whose probe its own max_connections or quarantine cut off passes anyway: its silences pass for blocked targets",
        "edits": [("src/cli/verify_report.c",
                   "	if (v->cut_off)\n		return false;\n",
                   "")],
        "unit": ["test_verify"],
        "integration": ["verify_17_sbx_cutoff"],
    },
    {
        "name": "quarantine-whole-bridge",
        "what": "the trip chain cuts off the link of a bridged source (iifkind == bridge), not its address: every neighbour goes with it",
        "edits": [("src/core/rs_sandbox.c",
                   "e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, bridge, sizeof(bridge), \"\\\"bridge\\\"\");",
                   "e_cmp(b, NFT_REG_1, NFT_CMP_EQ, bridge, sizeof(bridge), \"\\\"bridge\\\"\");")],
        "unit": ["test_ruleset_props"],
        "integration": ["run_05_quarantine"],
    },
]
