// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dns_resolver: the hostname entries of [sandbox] allow (parsing,
 * refusals with FILE:LINE), the [daemon] dns_* keys, and the resolver's
 * bookkeeping on a fake clock: TTLs clamped, refresh before expiry, a
 * changed answer followed, the last good addresses kept through failures
 * until they expire, and the elements a repair puts into the host sets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "core/config_check.h"
#include "lib/log.h"
#include "host/resolver.h"
#include "core/ruleset.h"
#include "fake_nft.h"
#include "sync/reconcile.h"

static struct sw_config cfg;

static void parse_ok(const char *text)
{
	char err[SW_ERRLEN] = "";

	if (sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("refused: %s", err);
}

static void parse_bad(const char *text, const char *want)
{
	char err[SW_ERRLEN] = "";

	if (!sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
}

#define SBX "[sandbox agents]\ninterfaces = br-agents*\negress = allowlist\n"

static void test_parse_hostnames(void **state)
{
	(void)state;
	parse_ok(SBX "allow = 140.82.112.0/20 tcp/443, PyPI.org tcp/443, files.pythonhosted.org tcp/443,\n"
		 "  pypi.org tcp/443, pypi.org udp/443\n"
		 "[sandbox web]\ninterfaces = br-web*\negress = allowlist\nallow = pypi.org tcp/443\n");
	assert_int_equal(cfg.sandboxes[0].n_allows, 1);
	assert_int_equal(cfg.sandboxes[0].n_names, 3);          /* the repeated one once */
	assert_string_equal(cfg.sandboxes[0].names[0].name, "pypi.org");   /* lower case */
	assert_int_equal(cfg.sandboxes[0].names[0].port.port, 443);
	assert_int_equal(cfg.sandboxes[0].names[0].line, 4);
	assert_int_equal(cfg.sandboxes[0].names[2].port.proto, 17);
	assert_int_equal(cfg.dns_min_ttl, SW_DNS_MIN_TTL);
	assert_int_equal(cfg.dns_max_ttl, SW_DNS_MAX_TTL);
	assert_int_equal(cfg.n_dns_servers, 0);
	parse_ok("[daemon]\ndns_min_ttl = 5\ndns_max_ttl = 60\nresolvers = 127.0.0.1 2001:db8::53\n");
	assert_int_equal(cfg.dns_min_ttl, 5);
	assert_int_equal(cfg.dns_max_ttl, 60);
	assert_int_equal(cfg.n_dns_servers, 2);
}

static void test_parse_refusals(void **state)
{
	(void)state;
	parse_bad(SBX "allow = pypi_org.com tcp/443\n", "t.conf:4: bad hostname 'pypi_org.com'");
	parse_bad(SBX "allow = -pypi.org tcp/443\n", "t.conf:4: bad hostname '-pypi.org'");
	parse_bad(SBX "allow = pypi.org. tcp/443\n", "no trailing dot");
	parse_bad(SBX "allow = localhost tcp/443\n", "two labels");
	parse_bad(SBX "allow = pypi.123 tcp/443\n", "all digits");
	parse_bad(SBX "allow = 10.0.0.300 tcp/443\n", "bad CIDR '10.0.0.300'");
	parse_bad(SBX "allow = pypi.org tcp/0\n", "bad port 'tcp/0'");
	parse_bad(SBX "allow = pypi.org\n", "HOSTNAME PROTO/PORT");
	parse_bad("[sandbox agents]\ninterfaces = br-agents*\negress = none\nallow = pypi.org tcp/443\n",
		  "t.conf:1: [sandbox agents] lists allow entries but egress is none");
	parse_bad("[daemon]\ndns_min_ttl = 0\n", "t.conf:2: bad TTL bound '0'");
	parse_bad("[daemon]\ndns_max_ttl = 604801\n", "bad TTL bound");
	parse_bad("[daemon]\ndns_min_ttl = 600\ndns_max_ttl = 60\n",
		  "t.conf:3: [daemon] dns_min_ttl (600) is above dns_max_ttl (60)");
	parse_bad("[daemon]\nresolvers = 10.0.0.0/8\n", "t.conf:2: bad address '10.0.0.0/8'");
	parse_bad("[daemon]\nresolvers = ns.example.com\n", "bad address");
	parse_bad("[daemon]\nresolvers = 1.1.1.1 1.0.0.1 8.8.8.8 8.8.4.4 9.9.9.9\n", "too many");
	{
		char text[8192];
		size_t n = (size_t)snprintf(text, sizeof(text), SBX "allow = ");

		for (int i = 0; i <= SW_MAX_SBX_NAMES; i++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%sh%d.example tcp/443",
					      i ? ",\n  " : "", i);
		snprintf(text + n, sizeof(text) - n, "\n");
		parse_bad(text, "too many hostnames in [sandbox agents] allow (max 64)");
	}
}

/* ---- the resolver on a fake clock --------------------------------------- */

static struct sw_resolver r;

static void setup_resolver(unsigned min, unsigned max)
{
	char text[512];

	snprintf(text, sizeof(text), "[daemon]\ndns_min_ttl = %u\ndns_max_ttl = %u\nresolvers = 127.0.0.1\n"
		 SBX "allow = pypi.org tcp/443, files.pythonhosted.org tcp/443, 192.0.2.1 tcp/22\n"
		 "[sandbox web]\ninterfaces = br-web*\negress = allowlist\nallow = pypi.org tcp/80\n",
		 min, max);
	parse_ok(text);
	assert_int_equal(sw_resolver_init(&r, &cfg, NULL, NULL), 0);
}

static void answer(size_t i, uint16_t qtype, const char *addr, uint32_t ttl, int64_t now)
{
	struct sw_dns_answer a = { .qtype = qtype };

	if (addr) {
		assert_int_equal(inet_pton(qtype == SW_DNS_A ? AF_INET : AF_INET6, addr, a.a[0].addr), 1);
		a.a[0].ttl = ttl;
		a.n = 1;
	}
	sw_resolver_answer(&r, i, &a, now);
}

static const struct sw_resolver_addr *find(size_t i, const char *addr)
{
	uint8_t b[16] = { 0 };
	int fam = strchr(addr, ':') ? AF_INET6 : AF_INET;

	inet_pton(fam, addr, b);
	for (size_t k = 0; k < r.names[i].n_addrs; k++)
		if (r.names[i].addrs[k].family == fam && !memcmp(r.names[i].addrs[k].addr, b, fam == AF_INET ? 4 : 16))
			return &r.names[i].addrs[k];
	return NULL;
}

static void test_init(void **state)
{
	(void)state;
	setup_resolver(30, 3600);
	assert_int_equal(r.n_names, 2);         /* pypi.org once for both sandboxes */
	assert_int_equal(r.n_uses, 3);
	assert_string_equal(r.names[0].name, "pypi.org");
	assert_string_equal(r.uses[0].set, "sbx_agents_hosts");
	assert_string_equal(r.uses[2].set, "sbx_web_hosts");
	assert_int_equal(r.uses[2].name, 0);
	assert_int_equal(r.uses[2].port.port, 80);
	assert_int_equal(r.n_servers, 1);
	assert_int_equal(sw_resolver_clamp(&r, 0), 30);
	assert_int_equal(sw_resolver_clamp(&r, 300), 300);
	assert_int_equal(sw_resolver_clamp(&r, 86400), 3600);
	/* nothing known yet: the first round is due at once */
	assert_int_equal(sw_resolver_deadline(&r), 0);
	sw_resolver_free(&r);
}

static void test_ttl_and_refresh(void **state)
{
	const int64_t t0 = 1000000;

	(void)state;
	setup_resolver(30, 3600);
	r.names[0].sent_ms = t0;
	answer(0, SW_DNS_A, "151.101.0.223", 5, t0);            /* 5 s: clamped up to 30 */
	answer(0, SW_DNS_AAAA, "2a04:4e42::223", 86400, t0);    /* a day: clamped to an hour */
	sw_resolver_round_end(&r, 0, t0);
	assert_int_equal(find(0, "151.101.0.223")->expires_ms, t0 + 30000);
	assert_int_equal(find(0, "2a04:4e42::223")->expires_ms, t0 + 3600000);
	/* the next round: 3/4 of the shortest lifetime (22.5 s), well before it ends */
	assert_int_equal(r.names[0].next_ms, t0 + 22500);
	assert_true(r.dirty);
	/* a short lifetime leaves room for two query timeouts: 5 s -> at 1 s */
	sw_resolver_free(&r);
	setup_resolver(1, 3600);
	answer(0, SW_DNS_A, "151.101.0.223", 5, t0);
	answer(0, SW_DNS_AAAA, NULL, 0, t0);
	sw_resolver_round_end(&r, 0, t0);
	assert_int_equal(r.names[0].next_ms, t0 + 5000 - 2 * SW_RESOLVER_TIMEOUT_MS);
	/* and never more often than every 500 ms */
	answer(0, SW_DNS_A, "151.101.0.223", 1, t0);
	answer(0, SW_DNS_AAAA, NULL, 0, t0);
	sw_resolver_round_end(&r, 0, t0);
	assert_int_equal(r.names[0].next_ms, t0 + 500);
	sw_resolver_free(&r);
}

static void test_changed_answer(void **state)
{
	const int64_t t0 = 5000;

	(void)state;
	setup_resolver(10, 60);
	answer(0, SW_DNS_A, "203.0.113.10", 60, t0);
	/* 40 s later the name points elsewhere */
	answer(0, SW_DNS_A, "198.51.100.10", 60, t0 + 40000);
	assert_non_null(find(0, "203.0.113.10"));
	assert_non_null(find(0, "198.51.100.10"));
	/* the old address is not refreshed: it goes when its TTL ends */
	assert_int_equal(sw_resolver_expire(&r, t0 + 59999), 0);
	assert_int_equal(sw_resolver_expire(&r, t0 + 60000), 1);
	assert_null(find(0, "203.0.113.10"));
	assert_non_null(find(0, "198.51.100.10"));
	/* a lifetime is extended, never shortened by a lower TTL */
	answer(0, SW_DNS_A, "198.51.100.10", 10, t0 + 41000);
	assert_int_equal(find(0, "198.51.100.10")->expires_ms, t0 + 100000);
	answer(0, SW_DNS_A, "198.51.100.10", 60, t0 + 50000);
	assert_int_equal(find(0, "198.51.100.10")->expires_ms, t0 + 110000);
	sw_resolver_free(&r);
}

static void test_failure_keeps_last_good(void **state)
{
	const int64_t t0 = 100000;
	int64_t t = t0;

	(void)state;
	setup_resolver(30, 3600);
	answer(0, SW_DNS_A, "203.0.113.10", 120, t0);
	answer(0, SW_DNS_AAAA, NULL, 0, t0);
	sw_resolver_round_end(&r, 0, t0);
	assert_int_equal(r.names[0].next_ms, t0 + 90000);
	/* from now on every round times out: back-off 1, 2, 4, 8, 16, 30, 30 s */
	static const int64_t backoff[] = { 1000, 2000, 4000, 8000, 16000, 30000, 30000 };
	t = t0 + 90000;
	for (size_t k = 0; k < sizeof(backoff) / sizeof(*backoff); k++) {
		sw_resolver_failed(&r, 0, 0, "timeout", t);
		sw_resolver_failed(&r, 0, 1, "timeout", t);
		sw_resolver_round_end(&r, 0, t);
		assert_int_equal(r.names[0].fails, k + 1);
		assert_int_equal(r.names[0].next_ms, t + backoff[k]);
		/* logged once, at the first failure of the streak */
		assert_int_equal(r.names[0].logged_ms, t0 + 90000);
		if (t < t0 + 120000)
			assert_int_equal(sw_resolver_expire(&r, t), 0);
		t += backoff[k];
	}
	/* kept until its expiry at t0 + 120 s, whatever the failures */
	assert_int_equal(sw_resolver_expire(&r, t0 + 119999), 0);
	assert_non_null(find(0, "203.0.113.10"));
	r.names[1].next_ms = INT64_MAX;         /* the other name is not due */
	assert_int_equal(sw_resolver_deadline(&r), t0 + 120000 < r.names[0].next_ms ?
			 t0 + 120000 : r.names[0].next_ms);
	assert_int_equal(sw_resolver_expire(&r, t0 + 120000), 1);
	assert_int_equal(r.names[0].n_addrs, 0);
	/* a streak that lasts is logged again after SW_RESOLVER_LOG_MS */
	t = t0 + 90000 + SW_RESOLVER_LOG_MS;
	sw_resolver_failed(&r, 0, 0, "timeout", t);
	sw_resolver_round_end(&r, 0, t);
	assert_int_equal(r.names[0].logged_ms, t);
	/* success ends the streak */
	answer(0, SW_DNS_A, "203.0.113.10", 120, t + 1000);
	answer(0, SW_DNS_AAAA, NULL, 0, t + 1000);
	sw_resolver_round_end(&r, 0, t + 1000);
	assert_int_equal(r.names[0].fails, 0);
	assert_int_equal(r.names[0].logged_ms, 0);
	sw_resolver_free(&r);
}

/* the model's sbx_*_hosts sets get the live addresses with their
 * remaining lifetimes: what a repair or a re-created table sends */
static void test_fill(void **state)
{
	static struct sw_model m;
	char err[SW_ERRLEN];
	struct sw_set *s4, *s6, *w4;
	const int64_t t0 = 7000;

	(void)state;
	setup_resolver(30, 3600);
	assert_int_equal(sw_ruleset_build(&cfg, NULL, &m, err, sizeof(err)), 0);
	s4 = sw_model_find_set(&m, "sbx_agents_hosts4");
	s6 = sw_model_find_set(&m, "sbx_agents_hosts6");
	w4 = sw_model_find_set(&m, "sbx_web_hosts4");
	assert_non_null(s4);
	assert_non_null(s6);
	assert_non_null(w4);
	assert_true(sw_set_dynamic(s4));        /* the compare leaves its elements alone */
	assert_int_equal(s4->key_len, 12);
	assert_int_equal(s6->key_len, 24);
	assert_int_equal(s4->n_elems, 0);
	answer(0, SW_DNS_A, "151.101.0.223", 300, t0);
	answer(0, SW_DNS_AAAA, "2a04:4e42::223", 300, t0);
	answer(1, SW_DNS_A, "151.101.1.63", 60, t0);
	assert_int_equal(sw_resolver_fill(&r, &m, t0 + 10000), 0);
	assert_int_equal(s4->n_elems, 2);
	assert_int_equal(s6->n_elems, 1);
	assert_int_equal(w4->n_elems, 1);
	/* 151.101.0.223 . tcp . 443, 290 s left */
	assert_memory_equal(s4->elems[0].key, ((uint8_t[]){ 151, 101, 0, 223, 6, 0, 0, 0, 1, 187, 0, 0 }), 12);
	assert_int_equal(s4->elems[0].timeout_ms, 290000);
	assert_int_equal(s4->elems[1].timeout_ms, 50000);
	assert_memory_equal(w4->elems[0].key, ((uint8_t[]){ 151, 101, 0, 223, 6, 0, 0, 0, 0, 80, 0, 0 }), 12);
	assert_int_equal(s6->elems[0].key[16], 6);
	/* later: the expired one is left out, the others carry less time */
	assert_int_equal(sw_resolver_fill(&r, &m, t0 + 60000), 0);
	assert_int_equal(s4->n_elems, 1);
	assert_int_equal(s4->elems[0].timeout_ms, 240000);
	sw_model_free(&m);
	sw_resolver_free(&r);
}

static void test_reload_keeps(void **state)
{
	struct sw_resolver old;

	(void)state;
	setup_resolver(30, 3600);
	answer(0, SW_DNS_A, "151.101.0.223", 300, 1000);
	old = r;
	/* the new config drops files.pythonhosted.org and keeps pypi.org */
	parse_ok("[daemon]\nresolvers = 127.0.0.1\n[sandbox x]\ninterfaces = br-x*\negress = allowlist\n"
		 "allow = example.com tcp/443, pypi.org tcp/443\n");
	assert_int_equal(sw_resolver_init(&r, &cfg, NULL, &old), 0);
	assert_int_equal(r.n_names, 2);
	assert_string_equal(r.names[1].name, "pypi.org");
	assert_int_equal(r.names[1].n_addrs, 1);
	assert_int_equal(r.names[1].addrs[0].expires_ms, 301000);
	assert_int_equal(r.names[1].addrs[0].kernel_ms, 0);     /* the new sets need it */
	assert_int_equal(r.names[0].n_addrs, 0);
	sw_resolver_free(&old);
	sw_resolver_free(&r);
}

/* two names with one address, on one sandbox and port: one element,
 * living as long as the longer of the two */
static void test_fill_merges(void **state)
{
	static struct sw_model m;
	char err[SW_ERRLEN];
	struct sw_set *s4;

	(void)state;
	parse_ok("[daemon]\nresolvers = 127.0.0.1\n" SBX
		 "allow = pypi.org tcp/443, files.pythonhosted.org tcp/443\n");
	assert_int_equal(sw_resolver_init(&r, &cfg, NULL, NULL), 0);
	assert_int_equal(sw_ruleset_build(&cfg, NULL, &m, err, sizeof(err)), 0);
	answer(0, SW_DNS_A, "151.101.0.223", 60, 0);
	answer(1, SW_DNS_A, "151.101.0.223", 300, 0);
	assert_int_equal(sw_resolver_fill(&r, &m, 0), 0);
	s4 = sw_model_find_set(&m, "sbx_agents_hosts4");
	assert_int_equal(s4->n_elems, 1);
	assert_int_equal(s4->elems[0].timeout_ms, 300000);
	sw_model_free(&m);
	sw_resolver_free(&r);
}

/* the daemon's batches against the fake kernel: a new address is added;
 * an extended lifetime is a delete and an add; an element that went
 * meanwhile (its delete refused, ENOENT) is added again, and the batch
 * goes through */
static void test_push(void **state)
{
	static struct sw_model m;
	static struct fn k;
	const char *t = "sandwall";
	char err[SW_ERRLEN];
	struct sw_nl nl;
	struct fn_set *fs;

	(void)state;
	setup_resolver(30, 3600);
	fn_init(&k);
	assert_int_equal(sw_nl_open_ops(&nl, &fn_ops, &k), 0);
	assert_int_equal(sw_ruleset_build(&cfg, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(sw_apply(&nl, &m, err, sizeof(err)), 0);
	fs = fn_st(k.s, t, "sbx_agents_hosts4");
	assert_int_equal(fn_n_elems(k.s, fs), 0);
	answer(0, SW_DNS_A, "151.101.0.223", 60, 1000);
	answer(1, SW_DNS_A, "151.101.1.63", 60, 1000);
	assert_int_equal(sw_resolver_push(&r, &nl, &t, 1, 1000), 0);
	assert_false(r.dirty);
	fs = fn_st(k.s, t, "sbx_agents_hosts4");
	assert_int_equal(fn_n_elems(k.s, fs), 2);
	assert_int_equal(fn_n_elems(k.s, fn_st(k.s, t, "sbx_web_hosts4")), 1);
	/* nothing new: nothing sent */
	size_t batches = k.n_batches;
	assert_int_equal(sw_resolver_push(&r, &nl, &t, 1, 2000), 0);
	assert_int_equal(k.n_batches, batches);
	/* pypi.org answers again 40 s later: its elements are deleted and
	 * added (two sets), files.pythonhosted.org's are not touched */
	answer(0, SW_DNS_A, "151.101.0.223", 60, 41000);
	assert_true(r.dirty);
	assert_int_equal(sw_resolver_push(&r, &nl, &t, 1, 41000), 0);
	assert_int_equal(k.n_batches, batches + 1);
	assert_int_equal(k.n_log, 4);
	assert_int_equal(k.log[0].type, NFT_MSG_DELSETELEM);
	assert_int_equal(k.log[3].type, NFT_MSG_NEWSETELEM);
	assert_int_equal(fn_n_elems(k.s, fn_st(k.s, t, "sbx_agents_hosts4")), 2);
	/* someone empties the set: the next extension's deletes are refused
	 * one by one, and the adds still go in */
	fn_flush_elems(k.s, fn_st(k.s, t, "sbx_agents_hosts4")->sid);
	answer(0, SW_DNS_A, "151.101.0.223", 60, 81000);
	answer(1, SW_DNS_A, "151.101.1.63", 60, 81000);
	assert_int_equal(sw_resolver_push(&r, &nl, &t, 1, 81000), 0);
	assert_int_equal(fn_n_elems(k.s, fn_st(k.s, t, "sbx_agents_hosts4")), 2);
	assert_int_equal(fn_n_elems(k.s, fn_st(k.s, t, "sbx_web_hosts4")), 1);
	sw_nl_close(&nl);
	fn_free(&k);
	sw_model_free(&m);
	sw_resolver_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_hostnames),
		cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_ttl_and_refresh),
		cmocka_unit_test(test_changed_answer),
		cmocka_unit_test(test_failure_keeps_last_good),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_reload_keeps),
		cmocka_unit_test(test_fill_merges),
		cmocka_unit_test(test_push),
	};

	sw_log_init("test_dns_resolver", false, false, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
