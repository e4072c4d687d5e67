/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for [sandbox NAME] policies: parsing, refusals, and the sets,
 * chains and rules they add (the default ruleset stays as it was). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "fake_kernel.h"

static void parse_ok(const char *text, struct sw_config *cfg)
{
	char err[SW_ERRLEN] = "";

	if (sw_config_parse_string(text, "t.conf", cfg, err, sizeof(err)))
		fail_msg("refused: %s", err);
}

static void parse_bad(const char *text, const char *want)
{
	static struct sw_config cfg;
	char err[SW_ERRLEN] = "";

	if (!sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
	assert_int_equal(cfg.n_sandboxes, 0);   /* defaults on failure */
}

static void test_parse(void **state)
{
	static struct sw_config cfg;

	(void)state;
	parse_ok("[sandbox agents]\ninterfaces = br-agents* docker0\negress = none\n"
		 "[sandbox web]\nsources = 172.30.0.0/24, fd00:30::/64\negress = allowlist\n"
		 "allow = 140.82.112.0/20 tcp/443,\n  10.9.0.5 udp/53\ndns = none\n", &cfg);
	assert_int_equal(cfg.n_sandboxes, 2);
	assert_string_equal(cfg.sandboxes[0].name, "agents");
	assert_int_equal(cfg.sandboxes[0].egress, SW_EGRESS_NONE);
	assert_int_equal(cfg.sandboxes[0].dns, SW_DNS_AUTO);
	assert_int_equal(cfg.sandboxes[0].n_patterns, 2);
	assert_string_equal(cfg.sandboxes[0].patterns[0], "br-agents*");
	assert_int_equal(cfg.sandboxes[0].line, 1);
	assert_string_equal(cfg.sandboxes[1].name, "web");
	assert_int_equal(cfg.sandboxes[1].egress, SW_EGRESS_ALLOWLIST);
	assert_int_equal(cfg.sandboxes[1].dns, SW_DNS_NONE);
	assert_int_equal(cfg.sandboxes[1].n_sources, 2);
	assert_int_equal(cfg.sandboxes[1].n_allows, 2);
	assert_int_equal(cfg.sandboxes[1].allows[1].port.port, 53);
	assert_string_equal(sw_egress_name(SW_EGRESS_ALLOWLIST), "allowlist");
	assert_string_equal(sw_egress_name(SW_EGRESS_COUNT), "unknown");
	/* blanks around the name are fine */
	parse_ok("[sandbox   x_1 ]\ninterfaces = tap*\n", &cfg);
	assert_string_equal(cfg.sandboxes[0].name, "x_1");
	assert_int_equal(cfg.sandboxes[0].egress, SW_EGRESS_OPEN);
}

static void test_refusals(void **state)
{
	(void)state;
	parse_bad("[sandbox]\ninterfaces = x\n", "t.conf:1: unknown section [sandbox]");
	parse_bad("[sandbox a-b]\ninterfaces = x\n", "t.conf:1: bad sandbox name 'a-b'");
	parse_bad("[sandbox abcdefghijklmnopq]\ninterfaces = x\n", "bad sandbox name");
	parse_bad("[sandbox a]\ninterfaces = x\n[sandbox a]\ninterfaces = y\n",
		  "t.conf:3: section [sandbox a] repeated (first at line 1)");
	parse_bad("[sandbox a]\negress = none\n", "t.conf:1: [sandbox a] names no interfaces and no sources");
	parse_bad("[sandbox a]\ninterfaces = x\nallow = 1.2.3.4 tcp/80\n",
		  "t.conf:1: [sandbox a] lists allow entries but egress is open");
	parse_bad("[sandbox a]\ninterfaces = x\negress = some\n",
		  "t.conf:3: bad value 'some' for [sandbox a] egress");
	parse_bad("[sandbox a]\ninterfaces = x\ndns = maybe\n", "t.conf:3: bad value 'maybe' for [sandbox a] dns");
	parse_bad("[sandbox a]\ninterfaces = x\ncolour = red\n", "t.conf:3: unknown key 'colour' in [sandbox a]");
	parse_bad("[sandbox a]\ninterfaces = x\negress = none\negress = open\n",
		  "t.conf:4: duplicate key 'egress' in [sandbox a]");
	parse_bad("[sandbox a]\ninterfaces = x\negress = allowlist\nallow = 1.2.3.4 tcp/80 reopen\n",
		  "there is no reopen");
	parse_bad("[sandbox a]\ninterfaces = x\negress = allowlist\nallow = 1.2.3.4/40 tcp/80\n",
		  "bad CIDR '1.2.3.4/40'");
	parse_bad("[sandbox a]\ninterfaces = x\negress = allowlist\nallow = 1.2.3.4 sctp/80\n",
		  "bad port 'sctp/80'");
	parse_bad("[sandbox a]\nsources = ::ffff:10.0.0.1\n", "IPv4-mapped");
	parse_bad("[sandbox a]\ninterfaces = b*r\n", "bad interface pattern 'b*r'");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = 10\n", "t.conf:3: bad value '10' for [sandbox a] budget");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = 0/minute\n", "bad value '0/minute'");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = 5/day\n", "bad value '5/day'");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = 1000001/second\n", "bad value");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = -5/second\n", "bad value");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = 5/second\nbudget_sources = 15\n",
		  "t.conf:4: bad value '15' for [sandbox a] budget_sources");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = 5/second\nbudget_sources = 2000000\n",
		  "bad value '2000000'");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget = 5/second\nbudget_sources = 1e3\n",
		  "bad value '1e3'");
	parse_bad("[sandbox a]\ninterfaces = x\nbudget_sources = 100\n",
		  "t.conf:1: [sandbox a] sets budget_sources but no budget");
}

static const struct sw_rule *rule(const struct sw_model *m, const char *tag)
{
	for (size_t i = 0; i < m->n_rules; i++)
		if (!strcmp(m->rules[i].tag, tag))
			return &m->rules[i];
	return NULL;
}

/* the rule's nft text and canonical expressions (fails when it is missing) */
static const char *text_of(const struct sw_model *m, const char *tag, bool canon)
{
	const struct sw_rule *r = rule(m, tag);

	if (!r) {
		fail_msg("no rule %s", tag);
		return "";
	}
	return canon ? r->canon : r->text;
}

static void test_ruleset(void **state)
{
	struct sw_model m, d;
	size_t first_dispatch = 0, first_allow = 0;

	(void)state;
	tk_build("", &d);
	tk_build("[sandbox agents]\ninterfaces = docker0\negress = none\n"
		 "[sandbox web]\nsources = 172.30.0.0/24\negress = allowlist\n"
		 "allow = 203.0.113.10 tcp/80\ndns = none\n", &m);
	/* the default ruleset has none of it */
	assert_null(sw_model_find_set(&d, "resolvers4"));
	assert_null(rule(&d, "sandwall:sbx-agents-ifaces"));
	/* sets, chains, counters */
	assert_non_null(sw_model_find_set(&m, "resolvers4"));
	assert_int_equal(sw_set_n_entries(sw_model_find_set(&m, "resolvers4")), 2);   /* udp and tcp 53 */
	assert_non_null(sw_model_find_set(&m, "sbx_agents_ifaces"));
	assert_non_null(sw_model_find_set(&m, "sbx_web_src4"));
	/* one address, one protocol, one port: the hash set */
	assert_int_equal(sw_set_n_entries(sw_model_find_set(&m, "sbx_web_allow4_exact")), 1);
	assert_int_equal(sw_set_n_entries(sw_model_find_set(&m, "sbx_web_allow4")), 0);
	assert_null(sw_model_find_set(&m, "sbx_agents_allow4"));
	assert_null(sw_model_find_set(&m, "sbx_agents_allow4_exact"));
	assert_string_equal(text_of(&m, "sandwall:sbx-web-allow4_exact", false),
			    "ip daddr . ip protocol . th dport @sbx_web_allow4_exact return "
			    "comment \"sandwall:sbx-web-allow4_exact\"");
	assert_non_null(rule(&m, "sandwall:sbx-web-allow6"));
	assert_non_null(sw_model_find_chain(&m, "sbx_agents"));
	assert_non_null(sw_model_find_chain(&m, "block_egress_web"));
	assert_true(sw_model_find_counter(&m, "egress_agents") >= 0);
	/* the policies run before the first accept of a new flow */
	for (size_t i = 0; i < m.n_rules; i++) {
		if (!first_dispatch && !strcmp(m.rules[i].tag, "sandwall:sbx-agents-ifaces"))
			first_dispatch = i;
		if (!first_allow && !strcmp(m.rules[i].tag, "sandwall:allow4"))
			first_allow = i;
	}
	assert_true(first_dispatch > 0 && first_dispatch < first_allow);
	/* egress none with dns auto: DNS returns, the rest goes to its block */
	assert_non_null(rule(&m, "sandwall:sbx-agents-dns4"));
	assert_string_equal(text_of(&m, "sandwall:sbx-agents-egress", false),
			    "goto block_egress_agents comment \"sandwall:sbx-agents-egress\"");
	/* dns none: DNS to the resolvers is dropped first */
	assert_string_equal(text_of(&m, "sandwall:sbx-web-nodns4", false),
			    "ip daddr . ip protocol . th dport @resolvers4 goto block_egress_web "
			    "comment \"sandwall:sbx-web-nodns4\"");
	assert_null(rule(&m, "sandwall:sbx-web-dns4"));
	assert_string_equal(text_of(&m, "sandwall:sbx-web-src4", false),
			    "ip saddr @sbx_web_src4 jump sbx_web comment \"sandwall:sbx-web-src4\"");
	assert_string_equal(text_of(&m, "sandwall:sbx-web-src4", true),
			    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
			    "[ payload load 4b @ network header + 12 => reg 1 ] "
			    "[ lookup reg 1 set sbx_web_src4 0x0 ] [ immediate reg 0 jump -> sbx_web ]");
	/* no budget, no budget set */
	assert_null(sw_model_find_set(&m, "sbx_agents_budget4"));
	/* logged as egress:<name> */
	assert_non_null(strstr(text_of(&m, "sandwall:egress_web-log", false), "\"sandwall:egress:web \""));
	sw_model_free(&m);
	sw_model_free(&d);
}

/* The config takes 16 sandboxes: 16 with every feature must build (no
 * fixed model limit may refuse what the config accepted). */
static void test_sixteen_full(void **state)
{
	static char conf[16384];
	struct sw_model m;
	size_t off = 0;

	(void)state;
	for (int i = 0; i < SW_MAX_SANDBOXES; i++)
		off += (size_t)snprintf(conf + off, sizeof(conf) - off,
					"[sandbox s%d]\ninterfaces = br-s%d*\nsources = 10.%d.0.0/24 fd00:%d::/64\n"
					"egress = allowlist\nallow = 140.82.112.0/20 tcp/443, pypi.org tcp/443\n"
					"budget = 30/minute\n", i, i, 100 + i, i + 1);
	assert_true(off < sizeof(conf));
	tk_build(conf, &m);
	for (int i = 0; i < SW_MAX_SANDBOXES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "sbx_s%d", i);
		assert_non_null(sw_model_find_chain(&m, name));
		snprintf(name, sizeof(name), "sbx_s%d_hosts6", i);
		assert_non_null(sw_model_find_set(&m, name));
	}
	sw_model_free(&m);
}

static void test_budget(void **state)
{
	static struct sw_config cfg;
	const struct sw_set *s;
	struct sw_model m;

	(void)state;
	parse_ok("[sandbox a]\ninterfaces = x\nbudget = 30/Minute\n", &cfg);
	assert_int_equal(cfg.sandboxes[0].budget, 30);
	assert_int_equal(cfg.sandboxes[0].budget_unit, 60);
	tk_build("[sandbox a]\ninterfaces = docker0\nbudget = 30/minute\n", &m);
	s = sw_model_find_set(&m, "sbx_a_budget4");
	assert_non_null(s);
	assert_true(sw_set_dynamic(s));
	assert_int_equal(s->timeout_ms, 60000);
	assert_int_equal(s->size, 65535);
	assert_int_equal(s->n_elems, 0);
	assert_non_null(sw_model_find_set(&m, "sbx_a_budget6"));
	sw_model_free(&m);
	/* budget_sources sizes both sets */
	tk_build("[sandbox a]\ninterfaces = docker0\nbudget = 30/minute\nbudget_sources = 256\n", &m);
	assert_int_equal(sw_model_find_set(&m, "sbx_a_budget4")->size, 256);
	assert_int_equal(sw_model_find_set(&m, "sbx_a_budget6")->size, 256);
	sw_model_free(&m);
	tk_build("[sandbox a]\ninterfaces = docker0\nbudget = 30/minute\n", &m);
	/* the policy jumps to the budget's own chain on a new flow ... */
	assert_string_equal(text_of(&m, "sandwall:sbx-a-budget", false),
			    "ct state new jump sbx_a_budget comment \"sandwall:sbx-a-budget\"");
	assert_non_null(sw_model_find_chain(&m, "sbx_a_budget"));
	/* ... where only a successful, in-budget update returns */
	assert_string_equal(text_of(&m, "sandwall:sbx-a-budget4", false),
			    "update @sbx_a_budget4 { ip saddr limit rate 30/minute "
			    "burst 30 packets } return comment \"sandwall:sbx-a-budget4\"");
	assert_string_equal(text_of(&m, "sandwall:sbx-a-budget4", true),
			    "[ meta load nfproto => reg 1 ] "
			    "[ cmp eq reg 1 0x00000002 ] [ payload load 4b @ network header + 12 => reg 1 ] "
			    "[ dynset update reg_key 1 set sbx_a_budget4 expr "
			    "[ limit rate 30/minute burst 30 type packets flags 0x0 ] ] "
			    "[ immediate reg 0 return ]");
	assert_string_equal(text_of(&m, "sandwall:sbx-a-budget6", false),
			    "update @sbx_a_budget6 { ip6 saddr limit rate 30/minute "
			    "burst 30 packets } return comment \"sandwall:sbx-a-budget6\"");
	/* and everything else (over budget, set full, update failed) drops */
	assert_string_equal(text_of(&m, "sandwall:sbx-a-budget-drop", false),
			    "goto block_budget_a comment \"sandwall:sbx-a-budget-drop\"");
	{
		/* in that order: the drop is the chain's last rule */
		const char *seen[3] = { 0 };
		size_t k = 0;

		for (size_t i = 0; i < m.n_rules; i++)
			if (!strcmp(m.rules[i].chain, "sbx_a_budget") && k < 3)
				seen[k++] = m.rules[i].tag;
		assert_int_equal(k, 3);
		assert_string_equal(seen[0], "sandwall:sbx-a-budget4");
		assert_string_equal(seen[1], "sandwall:sbx-a-budget6");
		assert_string_equal(seen[2], "sandwall:sbx-a-budget-drop");
	}
	assert_true(sw_model_find_counter(&m, "budget_a") >= 0);
	assert_non_null(sw_model_find_chain(&m, "block_budget_a"));
	/* the budget comes first in the policy: it counts every new flow */
	for (size_t i = 0; i < m.n_rules; i++)
		if (!strcmp(m.rules[i].chain, "sbx_a")) {
			assert_string_equal(m.rules[i].tag, "sandwall:sbx-a-budget");
			break;
		}
	sw_model_free(&m);
}

/* max_connections = N: parsed with its bounds, it brings the quarantine;
 * the policy jumps (after the quarantine's drops, before the budget) to
 * its own chain, where a bucket of N that refills one a week returns and
 * everything else goes to its block, which trips the quarantine */
static void test_max_connections(void **state)
{
	static struct sw_config cfg;
	const char *seen[8] = { 0 };
	const struct sw_set *s;
	struct sw_model m;
	size_t k = 0;

	(void)state;
	parse_ok("[sandbox a]\ninterfaces = x\nmax_connections = 3\n", &cfg);
	assert_int_equal(cfg.sandboxes[0].max_conns, 3);
	assert_true(cfg.sandboxes[0].quarantine_on & SW_Q_CONNS);
	parse_ok("[sandbox a]\ninterfaces = x\nmax_connections = 30000\n", &cfg);
	assert_int_equal(cfg.sandboxes[0].max_conns, 30000);
	parse_bad("[sandbox a]\ninterfaces = x\nmax_connections = 0\n",
		  "t.conf:3: bad value '0' for [sandbox a] max_connections");
	parse_bad("[sandbox a]\ninterfaces = x\nmax_connections = 30001\n", "bad value '30001'");
	parse_bad("[sandbox a]\ninterfaces = x\nmax_connections = 5/minute\n", "bad value '5/minute'");
	parse_bad("[sandbox a]\ninterfaces = x\nmax_connections = -1\n", "bad value '-1'");
	parse_bad("[sandbox a]\ninterfaces = x\nmax_connections = 3\nmax_connections = 4\n",
		  "duplicate key 'max_connections'");

	tk_build("[sandbox a]\ninterfaces = docker0\nbudget = 30/minute\nmax_connections = 3\n", &m);
	for (int v6 = 0; v6 < 2; v6++) {
		s = sw_model_find_set(&m, v6 ? "sbx_a_conns6" : "sbx_a_conns4");
		assert_non_null(s);
		assert_true(sw_set_dynamic(s));
		assert_int_equal(s->timeout_ms, 604800000ULL);
		assert_int_equal(s->size, 65535);
		assert_int_equal(s->n_elems, 0);
	}
	/* the quarantine exists although quarantine_on was not given */
	assert_non_null(sw_model_find_set(&m, "sbx_a_q4"));
	assert_string_equal(text_of(&m, "sandwall:sbx-a-conns", false),
			    "ct state new jump sbx_a_conns comment \"sandwall:sbx-a-conns\"");
	assert_string_equal(text_of(&m, "sandwall:sbx-a-conns4", false),
			    "update @sbx_a_conns4 { ip saddr limit rate 1/week burst 3 packets } "
			    "return comment \"sandwall:sbx-a-conns4\"");
	assert_string_equal(text_of(&m, "sandwall:sbx-a-conns4", true),
			    "[ meta load nfproto => reg 1 ] "
			    "[ cmp eq reg 1 0x00000002 ] [ payload load 4b @ network header + 12 => reg 1 ] "
			    "[ dynset update reg_key 1 set sbx_a_conns4 expr "
			    "[ limit rate 1/week burst 3 type packets flags 0x0 ] ] "
			    "[ immediate reg 0 return ]");
	assert_string_equal(text_of(&m, "sandwall:sbx-a-conns6", false),
			    "update @sbx_a_conns6 { ip6 saddr limit rate 1/week burst 3 packets } "
			    "return comment \"sandwall:sbx-a-conns6\"");
	assert_string_equal(text_of(&m, "sandwall:sbx-a-conns-drop", false),
			    "goto block_connections_a comment \"sandwall:sbx-a-conns-drop\"");
	for (size_t i = 0; i < m.n_rules; i++)
		if (!strcmp(m.rules[i].chain, "sbx_a_conns") && k < 8)
			seen[k++] = m.rules[i].tag;
	assert_int_equal(k, 3);
	assert_string_equal(seen[0], "sandwall:sbx-a-conns4");
	assert_string_equal(seen[1], "sandwall:sbx-a-conns6");
	assert_string_equal(seen[2], "sandwall:sbx-a-conns-drop");
	/* in the policy: the quarantine's drops, then the count, then the budget */
	k = 0;
	for (size_t i = 0; i < m.n_rules; i++)
		if (!strcmp(m.rules[i].chain, "sbx_a") && k < 8)
			seen[k++] = m.rules[i].tag;
	assert_true(k >= 5);
	assert_string_equal(seen[0], "sandwall:sbx-a-q4");
	assert_string_equal(seen[3], "sandwall:sbx-a-conns");
	assert_string_equal(seen[4], "sandwall:sbx-a-budget");
	/* its block: counted, and it trips the quarantine */
	assert_true(sw_model_find_counter(&m, "connections_a") >= 0);
	assert_non_null(sw_model_find_chain(&m, "block_connections_a"));
	assert_string_equal(text_of(&m, "sandwall:block_connections_a-trip", false),
			    "jump sbx_a_trip comment \"sandwall:block_connections_a-trip\"");
	/* the budget's block does not trip (quarantine_on does not name it) */
	assert_null(rule(&m, "sandwall:block_budget_a-trip"));
	sw_model_free(&m);
	/* without it: none of it */
	tk_build("[sandbox a]\ninterfaces = docker0\n", &m);
	assert_null(sw_model_find_set(&m, "sbx_a_conns4"));
	assert_null(sw_model_find_chain(&m, "sbx_a_conns"));
	assert_null(sw_model_find_chain(&m, "block_connections_a"));
	sw_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_ruleset),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_max_connections),
		cmocka_unit_test(test_sixteen_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
