/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Properties of the desired ruleset that show danger, not change (issue 28):
 * each test states what must hold for the boundary to be closed, and reads
 * the rules by what they do (their canonical expressions, their verdicts,
 * the sets they look up), not by their position or their tag, so a
 * harmless reordering or renaming passes and a door that opens fails.
 * The golden listing lives in test_ruleset.c; tests/mutate (make mutate)
 * checks that every mutant it lists is killed here or by an integration
 * test. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "fake_kernel.h"
#include "testutil.h"
#include "core/gate.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool has(const struct sw_rule *r, const char *frag)
{
	return r->canon && strstr(r->canon, frag);
}

/* the rule's verdict expression is exactly v ("accept", "drop", "return",
 * "goto -> block_host", ...): the canonical string's last expression */
static bool verdict_is(const struct sw_rule *r, const char *v)
{
	char want[96];
	size_t lw, lc;

	snprintf(want, sizeof(want), "[ immediate reg 0 %s ]", v);
	lw = strlen(want);
	lc = r->canon ? strlen(r->canon) : 0;
	return lc >= lw && !strcmp(r->canon + lc - lw, want);
}

static bool in_chain(const struct sw_rule *r, const char *chain)
{
	return !strcmp(r->chain, chain);
}

#define CT_ESTABLISHED "[ ct load state => reg 1 ] [ bitwise reg 1 = ( reg 1 & 0x00000002 )"
#define CT_REPLY       "[ ct load direction => reg 1 ] [ cmp eq reg 1 0x00000001 ]"
#define HOPLIMIT_255   "[ payload load 1b @ network header + 7 => reg 1 ] [ cmp eq reg 1 0x000000ff ]"
#define FIB_LOCAL      "[ fib daddr type => reg 1 ] [ cmp eq reg 1 0x00000002 ]"
#define FIB_SPOOFED    "[ fib saddr . iif oif present => reg 1 ] [ cmp eq reg 1 0x00000000 ]"
#define FIB_SADDR_NOT_LOCAL "[ fib saddr type => reg 1 ] [ cmp neq reg 1 0x00000002 ]"
#define FIB_NOT_LOCAL  "[ fib daddr type => reg 1 ] [ cmp neq reg 1 0x00000002 ]"

static const char *const configs[] = {
	"",
	TK_LEGACY_GUARD,
	"[sandbox agents]\ninterfaces = docker0\negress = none\n",
	"[sandbox web]\ninterfaces = br-*\negress = allowlist\nallow = 203.0.113.10 tcp/80\n",
	"[guard]\ninterfaces = auto\nusers = 4242\n",
};

/* Every rule that accepts on conntrack state "established" also requires
 * the reply direction: a flow the sandbox opened itself is never let
 * through as a "reply" (test_flows.sh, flows_01..04). */
static void test_replies_need_reply_direction(void **state)
{
	(void)state;
	for (size_t c = 0; c < N(configs); c++) {
		struct sw_model m;
		size_t n = 0;

		tk_build(configs[c], &m);
		for (size_t i = 0; i < m.n_rules; i++) {
			const struct sw_rule *r = &m.rules[i];

			if (!has(r, CT_ESTABLISHED) || !verdict_is(r, "accept"))
				continue;
			n++;
			if (!has(r, CT_REPLY))
				fail_msg("config %zu: %s (chain %s) accepts ct state established without "
					 "ct direction reply: %s", c, r->tag, r->chain, r->canon);
		}
		assert_true(n >= 1);    /* the replies rule is there at all */
		sw_model_free(&m);
	}
}

/* In chain guard the anti-spoofing drop (fib saddr . iif oif missing goto
 * block_spoofed) comes before every rule that accepts, returns or jumps
 * (so no forged source creates or uses conntrack state); in guard_output
 * ([guard] users, cgroups) likewise fib saddr type != local. */
static void test_antispoof_before_every_door(void **state)
{
	static const struct { const char *chain, *match; } spoof[] = {
		{ SW_CHAIN_GUARD, FIB_SPOOFED },
		{ SW_CHAIN_GUARD_OUTPUT, FIB_SADDR_NOT_LOCAL },
	};

	(void)state;
	for (size_t c = 0; c < N(configs); c++) {
		struct sw_model m;

		tk_build(configs[c], &m);
		for (size_t k = 0; k < N(spoof); k++) {
			bool seen = false;
			size_t n = 0;

			for (size_t i = 0; i < m.n_rules; i++) {
				const struct sw_rule *r = &m.rules[i];

				if (!in_chain(r, spoof[k].chain))
					continue;
				n++;
				if (has(r, spoof[k].match) && verdict_is(r, "goto -> block_spoofed")) {
					seen = true;
					continue;
				}
				if (!seen)
					fail_msg("config %zu: %s comes before the anti-spoofing rule in %s: %s",
						 c, r->tag, spoof[k].chain, r->canon);
			}
			/* guard always; guard_output where the output path is guarded */
			if (n && !seen)
				fail_msg("config %zu: no anti-spoofing rule in %s", c, spoof[k].chain);
			if (k == 0)
				assert_true(seen);
		}
		sw_model_free(&m);
	}
}

/* The fast path never lets the host through: with [block] host, every rule
 * of guard or guard_output that returns (ends the judgement with the
 * chain's accept policy) before the host rule also requires a destination
 * that is not local. */
static void test_fast_path_not_for_the_host(void **state)
{
	static const char *const chains[] = { SW_CHAIN_GUARD, SW_CHAIN_GUARD_OUTPUT };

	(void)state;
	for (size_t c = 0; c < N(configs); c++) {
		struct sw_model m;

		tk_build(configs[c], &m);
		for (size_t k = 0; k < N(chains); k++) {
			bool host = false;
			size_t returns = 0;

			for (size_t i = 0; i < m.n_rules && !host; i++) {
				const struct sw_rule *r = &m.rules[i];

				if (!in_chain(r, chains[k]))
					continue;
				if (verdict_is(r, "goto -> block_host")) {
					host = true;
					continue;
				}
				if (!verdict_is(r, "return"))
					continue;
				returns++;
				if (!has(r, FIB_NOT_LOCAL))
					fail_msg("config %zu: %s returns before the host rule in %s for any "
						 "destination type: %s", c, r->tag, chains[k], r->canon);
			}
			if (k == 0)
				assert_true(host && returns >= 4);   /* the gate's fast path, v4/v6 x a/b */
		}
		sw_model_free(&m);
	}
}

/* Every rule that accepts ICMPv6 neighbour discovery checks hop limit 255
 * (on-link only) and the destination (the nd6 set or the host itself):
 * never by type alone (attacks_03: an NS/NA carrying data to metadata). */
static void test_nd_accepts_need_hoplimit_and_destination(void **state)
{
	static const char *const types[] = {
		"[ payload load 1b @ transport header + 0 => reg 1 ] [ cmp eq reg 1 0x00000087 ]",
		"[ payload load 1b @ transport header + 0 => reg 1 ] [ cmp eq reg 1 0x00000088 ]",
	};
	struct sw_model m;
	size_t n = 0;

	(void)state;
	tk_build("", &m);
	for (size_t i = 0; i < m.n_rules; i++) {
		const struct sw_rule *r = &m.rules[i];

		if (!verdict_is(r, "accept") || (!has(r, types[0]) && !has(r, types[1])))
			continue;
		n++;
		if (!has(r, HOPLIMIT_255))
			fail_msg("%s accepts ND without hop limit 255: %s", r->tag, r->canon);
		if (!has(r, "[ lookup reg 1 set nd6 0x0 ]") && !has(r, FIB_LOCAL))
			fail_msg("%s accepts ND to any destination: %s", r->tag, r->canon);
	}
	assert_int_equal(n, 4);         /* solicit and advert, to nd6 and to the host */
	sw_model_free(&m);
}

/* With [block] host: broadcast and multicast that reach the host's input
 * hook from a guarded interface end in block_host: guard_input's last rule
 * is an unconditional goto block_host, and the input hook jumps (or goes)
 * there for the guarded interfaces (attacks_04). */
static void test_input_ends_in_block_host(void **state)
{
	struct sw_model m;
	const struct sw_rule *last = NULL;
	bool hook = false;

	(void)state;
	tk_build("", &m);
	for (size_t i = 0; i < m.n_rules; i++) {
		if (in_chain(&m.rules[i], SW_CHAIN_GUARD_INPUT))
			last = &m.rules[i];
		if (in_chain(&m.rules[i], SW_CHAIN_INPUT) &&
		    has(&m.rules[i], "[ lookup reg 1 set guard_ifaces 0x0 ]") &&
		    (verdict_is(&m.rules[i], "jump -> " SW_CHAIN_GUARD_INPUT) ||
		     verdict_is(&m.rules[i], "goto -> " SW_CHAIN_GUARD_INPUT)))
			hook = true;
	}
	assert_true(hook);
	if (!last)
		fail_msg("no chain %s", SW_CHAIN_GUARD_INPUT);
	else
		assert_string_equal(last->canon, "[ immediate reg 0 goto -> block_host ]");
	/* no rule of guard_input accepts: it only returns (judged elsewhere) or blocks */
	for (size_t i = 0; i < m.n_rules; i++)
		if (in_chain(&m.rules[i], SW_CHAIN_GUARD_INPUT) && verdict_is(&m.rules[i], "accept"))
			fail_msg("%s accepts in guard_input", m.rules[i].tag);
	sw_model_free(&m);
}

/* [block] host = yes: guard sends every destination of type local to
 * block_host; host = no: nothing does (the switch is the only way out). */
static void test_host_category_blocks_local(void **state)
{
	struct sw_model m;
	size_t n = 0;

	(void)state;
	tk_build("", &m);
	for (size_t i = 0; i < m.n_rules; i++)
		if (in_chain(&m.rules[i], SW_CHAIN_GUARD) &&
		    !strcmp(m.rules[i].canon, FIB_LOCAL " [ immediate reg 0 goto -> block_host ]"))
			n++;
	assert_int_equal(n, 1);
	sw_model_free(&m);
	tk_build("[block]\nhost = no\n", &m);
	for (size_t i = 0; i < m.n_rules; i++)
		if (verdict_is(&m.rules[i], "goto -> block_host"))
			fail_msg("host = no, yet %s goes to block_host", m.rules[i].tag);
	sw_model_free(&m);
}

/* The interface ifname sets: does set s hold this name (exact entry, or a
 * "prefix*" pattern entry)? By the set's nft text, which is what was built. */
static bool ifset_has(const struct sw_set *s, const char *name)
{
	char t[64];

	for (size_t i = 0; i < sw_set_n_entries(s); i++) {
		size_t l;

		if (sw_set_entry_text(s, i, t, sizeof(t)))
			continue;
		l = strlen(t);
		if (l < 2 || t[0] != '"' || t[l - 1] != '"')
			continue;
		t[--l] = '\0';
		if (l >= 2 && t[l - 1] == '*' ? !strncmp(t + 1, name, l - 2) : !strcmp(t + 1, name))
			return true;
	}
	return false;
}

/* Every link the classification calls guarded (what status and verify
 * report) is in both guard sets the prerouting hook looks up, whatever its
 * kind: bridge, routed veth, tap (any name), runtime name. */
static void test_every_guarded_link_in_guard_sets(void **state)
{
	static struct sw_host h;
	static const struct { int idx; const char *name; enum sw_link_kind kind; bool peer; } links[] = {
		{ 2, "eth0", SW_LINK_OTHER, false },
		{ 3, "docker0", SW_LINK_BRIDGE, false },
		{ 5, "cali9", SW_LINK_VETH, true },
		{ 6, "vm0", SW_LINK_TAP, false },
		{ 7, "fc-tap0", SW_LINK_TAP, false },
		{ 8, "qemu-net", SW_LINK_TAP, false },
		{ 9, "tun0", SW_LINK_TUN, false },
		{ 10, "podman3", SW_LINK_OTHER, false },
	};
	static const char *const confs[] = { "", "[guard]\ninterfaces = auto docker0\n" };
	static struct sw_config cfg;
	char err[SW_ERRLEN];
	size_t taps = 0;

	(void)state;
	memset(&h, 0, sizeof(h));
	tk_link(&h, 1, "lo", false);
	h.links[0].loopback = true;
	for (size_t i = 0; i < N(links); i++) {
		tk_link(&h, links[i].idx, links[i].name, links[i].kind == SW_LINK_BRIDGE);
		h.links[h.n_links - 1].kind = links[i].kind;
		h.links[h.n_links - 1].peer_netns = links[i].peer;
	}
	tk_addr(&h, 2, "10.0.0.2/24");
	tk_addr(&h, 3, "172.17.0.1/16");
	tk_gateway(&h, "10.0.0.1", 2);
	sw_host_classify(&h);
	for (size_t c = 0; c < N(confs); c++) {
		struct sw_model m;
		const struct sw_set *ifs, *exact;

		assert_int_equal(sw_config_parse_string(confs[c], "t", &cfg, err, sizeof(err)), 0);
		tk_build_host(confs[c], &h, &m);
		ifs = sw_model_find_set(&m, "guard_ifaces");
		exact = sw_model_find_set(&m, SW_SET_GUARD_LINKS);
		assert_non_null(ifs);
		assert_non_null(exact);
		for (size_t i = 0; i < h.n_links; i++) {
			const struct sw_link *l = &h.links[i];

			if (!sw_ruleset_guarded(&cfg, l)) {
				if (ifset_has(exact, l->name))
					fail_msg("%s is not guarded, yet in %s", l->name, SW_SET_GUARD_LINKS);
				continue;
			}
			taps += l->kind == SW_LINK_TAP;
			if (!ifset_has(ifs, l->name))
				fail_msg("config %zu: %s (%s) is guarded but not matched by guard_ifaces",
					 c, l->name, sw_guard_why_name(sw_ruleset_guard_why(&cfg, l)));
			if (!ifset_has(exact, l->name))
				fail_msg("config %zu: %s (%s) is guarded but not in %s", c, l->name,
					 sw_guard_why_name(sw_ruleset_guard_why(&cfg, l)), SW_SET_GUARD_LINKS);
		}
		sw_model_free(&m);
	}
	assert_int_equal(taps, 6);      /* the three taps, in both configs */
	assert_false(sw_ruleset_guarded(&cfg, &h.links[1]));   /* eth0: the uplink */
	sw_host_free(&h);
}

/* The gate's fallback: every rule that looks up a gate buffer set
 * (not inverted) drops, so a destination the gate holds is never let
 * through when the category sets miss it (core_13). */
static void test_gate_fallback_drops(void **state)
{
	struct sw_model m;
	size_t n = 0;

	(void)state;
	tk_build("", &m);
	for (size_t i = 0; i < m.n_rules; i++) {
		const struct sw_rule *r = &m.rules[i];
		char set[SW_NAME_MAX];
		const char *p = r->canon;

		while (p && (p = strstr(p, "[ lookup reg 1 set "))) {
			p += strlen("[ lookup reg 1 set ");
			if (sscanf(p, "%63s", set) != 1)
				break;
			if (!sw_gate_buffer(set) || strncmp(p + strlen(set), " 0x0 ]", 6))
				continue;
			n++;
			if (!verdict_is(r, "drop"))
				fail_msg("%s looks up the gate buffer %s and does not drop: %s",
					 r->tag, set, r->canon);
		}
	}
	assert_true(n >= 4);            /* v4 and v6, buffers a and b */
	sw_model_free(&m);
}

/* [allow] destinations that cover a blocked category need `reopen`:
 * everything (0.0.0.0/0, ::/0) and a metadata address are refused
 * without it, accepted with it (hostile_05, hostile_06). */
static void test_allow_reopen_required(void **state)
{
	static const char *const refused[] = {
		"[allow]\ndestinations = 0.0.0.0/0 tcp/443\n",
		"[allow]\ndestinations = ::/0 tcp/443\n",
		"[allow]\ndestinations = 169.254.169.254 tcp/80\n",
		"[allow]\ndestinations = 0.0.0.0/1 udp/53\n",
	};
	static const char *const accepted[] = {
		"[allow]\ndestinations = 0.0.0.0/0 tcp/443 reopen\n",
		"[allow]\ndestinations = ::/0 tcp/443 reopen\n",
		"[allow]\ndestinations = 203.0.113.10 tcp/443\n",
	};
	static struct sw_config cfg;
	char err[SW_ERRLEN];

	(void)state;
	for (size_t i = 0; i < N(refused); i++) {
		err[0] = '\0';
		if (!sw_config_parse_string(refused[i], "t.conf", &cfg, err, sizeof(err)))
			fail_msg("accepted without reopen: %s", refused[i]);
		assert_non_null(strstr(err, "reopen"));
		assert_non_null(strstr(err, "t.conf:2:"));
	}
	for (size_t i = 0; i < N(accepted); i++)
		if (sw_config_parse_string(accepted[i], "t.conf", &cfg, err, sizeof(err)))
			fail_msg("refused: %s: %s", accepted[i], err);
}

static const char *rule_text(const struct sw_model *m, const char *tag)
{
	const struct sw_rule *r = tu_rule(m, tag);

	if (!r || !r->text)
		fail_msg("no rule %s", tag);
	return r && r->text ? r->text : "";
}

/* [sandbox] quarantine_on: the quarantine sets (dynamic, sized, no
 * timeout), the three drops first in the sandbox's chain (before its
 * budget and its returns), the trip chain in its order, and a jump to it
 * after the counter of exactly the categories named */
static void test_quarantine(void **state)
{
	static const char *const sbx[] = {
		"sandwall:sbx-agents-q4", "sandwall:sbx-agents-q6", "sandwall:sbx-agents-qif",
		"sandwall:sbx-agents-budget",
	};
	static const char *const trip[] = {
		"sandwall:sbx-agents-in-q4", "sandwall:sbx-agents-in-q6", "sandwall:sbx-agents-in-qif",
		"sandwall:sbx-agents-trip-log", "sandwall:sbx-agents-trip-link",
		"sandwall:sbx-agents-trip-q4", "sandwall:sbx-agents-trip-q6",
		"sandwall:sbx-agents-trip-qif",
	};
	static const char *const meta[] = {
		"sandwall:metadata-count", "sandwall:block_metadata-trip-agents",
		"sandwall:metadata-log", "sandwall:metadata-drop",
	};
	const char *tags[16];
	struct sw_model m;
	size_t n;

	(void)state;
	tk_build("[sandbox agents]\ninterfaces = docker0\nbudget = 5/minute\n"
		 "quarantine_on = metadata, budget\n", &m);
	for (int i = 0; i < 3; i++) {
		const char *q[] = { "sbx_agents_q4", "sbx_agents_q6", "sbx_agents_qif" };

		assert_true(sw_set_dynamic(tu_set(&m, q[i])));
		assert_int_equal(tu_set(&m, q[i])->timeout_ms, 0);
		assert_int_equal(tu_set(&m, q[i])->size, i < 2 ? SW_QUARANTINE_ELEMS : 1024);
	}
	n = tu_chain_rules(&m, "sbx_agents", tags, N(tags));
	assert_true(n >= N(sbx));
	for (size_t i = 0; i < N(sbx); i++)
		assert_string_equal(tags[i], sbx[i]);
	assert_string_equal(rule_text(&m, "sandwall:sbx-agents-q4"),
			    "ip saddr @sbx_agents_q4 goto block_quarantine_agents comment "
			    "\"sandwall:sbx-agents-q4\"");
	n = tu_chain_rules(&m, "sbx_agents_trip", tags, N(tags));
	assert_int_equal(n, N(trip));
	for (size_t i = 0; i < N(trip); i++)
		assert_string_equal(tags[i], trip[i]);
	assert_string_equal(rule_text(&m, "sandwall:sbx-agents-trip-link"),
			    "meta iifkind != \"bridge\" add @sbx_agents_qif { iifname } return comment "
			    "\"sandwall:sbx-agents-trip-link\"");
	n = tu_chain_rules(&m, "block_metadata", tags, N(tags));
	assert_int_equal(n, N(meta));
	for (size_t i = 0; i < N(meta); i++)
		assert_string_equal(tags[i], meta[i]);
	assert_string_equal(rule_text(&m, "sandwall:block_metadata-trip-agents"),
			    "iifname @sbx_agents_ifaces jump sbx_agents_trip comment "
			    "\"sandwall:block_metadata-trip-agents\"");
	/* its own budget block jumps unconditionally; host and egress not named: no trip */
	assert_non_null(tu_rule(&m, "sandwall:block_budget_agents-trip"));
	assert_null(tu_rule(&m, "sandwall:block_host-trip-agents"));
	assert_null(tu_rule(&m, "sandwall:block_egress_agents-trip"));
	assert_non_null(sw_model_find_chain(&m, "block_quarantine_agents"));
	assert_true(sw_model_find_counter(&m, "quarantine_agents") >= 0);
	sw_model_free(&m);
	/* without quarantine_on: none of it */
	tk_build("[sandbox agents]\ninterfaces = docker0\n", &m);
	assert_null(sw_model_find_set(&m, "sbx_agents_q4"));
	assert_null(sw_model_find_chain(&m, "sbx_agents_trip"));
	assert_null(tu_rule(&m, "sandwall:block_metadata-trip-agents"));
	sw_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replies_need_reply_direction),
		cmocka_unit_test(test_antispoof_before_every_door),
		cmocka_unit_test(test_fast_path_not_for_the_host),
		cmocka_unit_test(test_nd_accepts_need_hoplimit_and_destination),
		cmocka_unit_test(test_input_ends_in_block_host),
		cmocka_unit_test(test_host_category_blocks_local),
		cmocka_unit_test(test_every_guarded_link_in_guard_sets),
		cmocka_unit_test(test_gate_fallback_drops),
		cmocka_unit_test(test_allow_reopen_required),
		cmocka_unit_test(test_quarantine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
