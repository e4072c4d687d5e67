/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for config.c: defaults, the shipped rules/sandwall.conf, every
 * key, and the corpus in tests/unit/config: good/NAME.conf must parse, each
 * bad/NAME.conf must fail with the exact "FILE:LINE: message" named by its
 * first line, "# expect: LINE: message". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>

#include "core/config_check.h"
#include "core/config_parse.h"
#include "testutil.h"

static struct sw_config cfg, def;       /* big: keep off the stack */
static char err[SW_ERRLEN];

static void assert_prefix(const struct sw_prefix *p, const char *want)
{
	char buf[SW_ADDR_STRLEN];

	assert_int_equal(sw_prefix_format(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

/* Field-by-field comparison, path excluded. */
static void assert_cfg_equal(const struct sw_config *a, const struct sw_config *b)
{
	assert_int_equal(a->n_patterns, b->n_patterns);
	for (size_t i = 0; i < a->n_patterns; i++)
		assert_string_equal(a->patterns[i], b->patterns[i]);
	assert_int_equal(a->auto_detect, b->auto_detect);
	assert_int_equal(a->all_bridges, b->all_bridges);
	for (int c = 0; c < SW_CAT_COUNT; c++)
		assert_int_equal(a->block[c], b->block[c]);
	assert_int_equal(a->n_destinations, b->n_destinations);
	for (size_t i = 0; i < a->n_destinations; i++)
		assert_true(sw_prefix_equal(&a->destinations[i], &b->destinations[i]));
	assert_int_equal(a->dns, b->dns);
	assert_int_equal(a->n_host_ports, b->n_host_ports);
	assert_memory_equal(a->host_ports, b->host_ports, a->n_host_ports * sizeof(a->host_ports[0]));
	assert_int_equal(a->n_allows, b->n_allows);
	for (size_t i = 0; i < a->n_allows; i++) {
		assert_true(sw_prefix_equal(&a->allows[i].dst, &b->allows[i].dst));
		assert_int_equal(a->allows[i].port.proto, b->allows[i].port.proto);
		assert_int_equal(a->allows[i].port.port, b->allows[i].port.port);
	}
	assert_int_equal(a->log_blocked, b->log_blocked);
	assert_int_equal(a->log_facility, b->log_facility);
	assert_int_equal(a->log_group, b->log_group);
	assert_int_equal(a->resync_interval, b->resync_interval);
	assert_int_equal(a->owner, b->owner);
	assert_string_equal(a->receipt_key, b->receipt_key);
	assert_string_equal(a->table, b->table);
}

/* Every field but the arrays, which the parser keeps and grows, set to
 * garbage: what the parser leaves unwritten shows. */
static void poison(void)
{
	sw_config_free(&cfg);
	memset(&cfg, 0x5a, sizeof(cfg));
	cfg.destinations = NULL;
	cfg.allows = NULL;
	cfg.sandboxes = NULL;
	cfg.cap_destinations = cfg.cap_allows = cfg.cap_sandboxes = 0;
}

static int parse(const char *text)
{
	poison();        /* must be fully rewritten */
	memset(err, 'x', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	return sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err));
}

/* text must fail with exactly "t.conf:" msg, and cfg be left at defaults. */
static void assert_bad(const char *text, const char *msg)
{
	char want[SW_ERRLEN];

	assert_int_equal(parse(text), -EINVAL);
	snprintf(want, sizeof(want), "t.conf:%s", msg);
	assert_string_equal(err, want);
	assert_cfg_equal(&cfg, &def);
}

static int setup(void **state)
{
	sw_config_defaults(&def);
	return 0;
}

/* [log] names_group: its default, its range, never the blocked group */
static void test_names_group(void **state)
{
	(void)state;
	assert_int_equal(def.log_names_group, 3211);
	assert_int_equal(parse("[log]\nnames_group = 77\n"), 0);
	assert_int_equal(cfg.log_names_group, 77);
	assert_int_equal(cfg.log_group, 3210);
	assert_bad("[log]\nnames_group = 65536\n",
		   "2: bad NFLOG group '65536' for [log] names_group (use 0..65535)");
	assert_bad("[log]\nnames_group = 3210\n",
		   "2: [log] names_group = 3210 is [log] group: give the network log's DNS replies a group of their own");
	/* without the network log the group is not used */
	assert_int_equal(parse("[log]\nflows = no\ngroup = 3211\n"), 0);
}

static void test_defaults(void **state)
{
	struct sw_config *d = &def;

	assert_int_equal(d->n_patterns, 0);
	assert_true(d->auto_detect);           /* [guard] interfaces = auto */
	assert_false(d->all_bridges);
	assert_true(d->block[SW_CAT_METADATA]);
	assert_true(d->block[SW_CAT_LINK_LOCAL]);
	assert_true(d->block[SW_CAT_HOST]);
	assert_true(d->block[SW_CAT_GATEWAYS]);
	assert_true(d->block[SW_CAT_LAN]);
	assert_true(d->block[SW_CAT_PRIVATE]);   /* the VPC (issue 22) */
	assert_false(d->block[SW_CAT_DESTINATIONS]);
	assert_int_equal(d->n_destinations, 0);
	assert_int_equal(d->dns, SW_DNS_AUTO);
	assert_int_equal(d->n_host_ports, 0);
	assert_int_equal(d->n_allows, 0);
	assert_true(d->log_blocked);
	assert_int_equal(d->log_facility, LOG_DAEMON);
	assert_int_equal(d->log_group, 3210);
	assert_true(d->log_flows);
	assert_int_equal(d->log_max_flows, 4096);
	assert_int_equal(d->log_flow_interval, 30);
	assert_int_equal(d->resync_interval, 30);
	assert_int_equal(d->owner, SW_OWNER_AUTO);
	assert_string_equal(d->table, "sandwall");
	assert_string_equal(d->path, "");
}

static void test_category_names(void **state)
{
	static const char *const want[] = { "spoofed", "metadata", "link_local", "host", "gateways",
					     "lan", "private", "destinations", "sandboxes" };

	assert_int_equal(sizeof(want) / sizeof(want[0]), SW_CAT_COUNT);
	for (int c = 0; c < SW_CAT_COUNT; c++)
		assert_string_equal(sw_category_name((enum sw_category)c), want[c]);
	assert_string_equal(sw_category_name(SW_CAT_COUNT), "unknown");
	assert_string_equal(sw_category_name((enum sw_category)-1), "unknown");
}

/* The category table drives the [block] keys: every BOOL entry is a key,
 * its default is the entry's, and a name round-trips. */
static void test_category_table(void **state)
{
	struct sw_config dflt, c2;
	char e2[SW_ERRLEN];

	sw_config_defaults(&dflt);
	assert_null(sw_category_info(SW_CAT_COUNT));
	assert_int_equal(sw_category_lookup("nosuch"), -ENOENT);
	for (int c = 0; c < SW_CAT_COUNT; c++) {
		const struct sw_category_info *ci = sw_category_info((enum sw_category)c);
		char text[128];

		assert_non_null(ci);
		assert_int_equal(sw_category_lookup(ci->name), c);
		assert_int_equal(dflt.block[c], ci->default_on);
		assert_true(ci->families & (SW_CAT_V4 | SW_CAT_V6));
		for (int d = 0; d < c; d++)
			assert_true(sw_categories[d].rank != ci->rank);
		if (ci->key != SW_CAT_KEY_BOOL)
			continue;
		snprintf(text, sizeof(text), "[block]\n%s = %s\n", ci->name,
			 ci->default_on ? "no" : "yes");
		assert_int_equal(sw_config_parse_string(text, "t", &c2, e2, sizeof(e2)), 0);
		assert_int_equal(c2.block[c], !ci->default_on);
		snprintf(text, sizeof(text), "[block]\n%s = yes\n%s = no\n", ci->name, ci->name);
		assert_int_equal(sw_config_parse_string(text, "t", &c2, e2, sizeof(e2)), -EINVAL);
		assert_non_null(strstr(e2, "duplicate key"));
		snprintf(text, sizeof(text), "[block]\n%s = maybe\n", ci->name);
		assert_int_equal(sw_config_parse_string(text, "t", &c2, e2, sizeof(e2)), -EINVAL);
		assert_non_null(strstr(e2, "bad boolean 'maybe'"));
	}
	/* spoofed has no key */
	assert_int_equal(sw_config_parse_string("[block]\nspoofed = no\n", "t", &c2, e2,
						sizeof(e2)), -EINVAL);
	assert_non_null(strstr(e2, "unknown key 'spoofed'"));
}

static void test_shipped(void **state)
{
	char path[4096];

	tu_path(path, "%s/../../../rules/sandwall.conf", tu_corpus_dir());
	poison();
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), 0);
	assert_cfg_equal(&cfg, &def);
	assert_string_equal(cfg.path, path);
}

/* Is "KEY =" (or "#   KEY =" for a commented sandbox key) a line of the
 * [SECTION] of text (section NULL: anywhere)? */
static bool has_key_line(const char *text, const char *section, const char *key, bool commented)
{
	char cur[64] = "";
	size_t kl = strlen(key);

	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		const char *p = l;

		if (*l == '[') {
			size_t n = strcspn(l + 1, "]\n");

			snprintf(cur, sizeof(cur), "%.*s", (int)n, l + 1);
			continue;
		}
		if (commented) {
			if (*p != '#')
				continue;
			p++;
			p += strspn(p, " ");
		}
		if (strncmp(p, key, kl) || (p[kl] != ' ' && p[kl] != '='))
			continue;
		p += kl + strspn(p + kl, " ");
		if (*p == '=' && (!section || !strcmp(cur, section)))
			return true;
	}
	return false;
}

static char *slurp(const char *rel)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	tu_path(path, "%s/../../../%s", tu_corpus_dir(), rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* The shipped file says "every key is listed": each key of the key tables
 * (global keys in their section, the [block] category switches, the
 * sandbox keys in the commented example) is there, and each has its entry
 * in sandwall.conf(5). A key added to a table without both fails here. */
static void test_shipped_lists_every_key(void **state)
{
	char *conf = slurp("rules/sandwall.conf"), *man = slurp("man/sandwall.conf.5");
	char want[96];

	for (size_t i = 0; i < sw_cfg_n_keys; i++) {
		const struct sw_cfg_key *k = &sw_cfg_keys[i];

		if (!has_key_line(conf, k->section, k->name, false))
			fail_msg("rules/sandwall.conf: no line [%s] %s =", k->section, k->name);
		snprintf(want, sizeof(want), "\n.It Cm %s ", k->name);
		if (!strstr(man, want))
			fail_msg("man/sandwall.conf.5: no entry for [%s] %s", k->section, k->name);
	}
	for (size_t i = 0; i < SW_CAT_COUNT; i++) {
		if (sw_categories[i].key != SW_CAT_KEY_BOOL)
			continue;
		if (!has_key_line(conf, "block", sw_categories[i].name, false))
			fail_msg("rules/sandwall.conf: no line [block] %s =", sw_categories[i].name);
		snprintf(want, sizeof(want), "\n.It Cm %s ", sw_categories[i].name);
		if (!strstr(man, want))
			fail_msg("man/sandwall.conf.5: no entry for [block] %s", sw_categories[i].name);
	}
	for (size_t i = 0; i < SBX_KEYS; i++) {
		if (!has_key_line(conf, NULL, sw_cfg_sbx_keys[i].name, true))
			fail_msg("rules/sandwall.conf: no commented line '#   %s =' for [sandbox NAME]",
				 sw_cfg_sbx_keys[i].name);
		snprintf(want, sizeof(want), "\n.It Cm %s ", sw_cfg_sbx_keys[i].name);
		if (!strstr(man, want))
			fail_msg("man/sandwall.conf.5: no entry for [sandbox NAME] %s", sw_cfg_sbx_keys[i].name);
	}
	free(conf);
	free(man);
}

/* One list syntax: commas and spaces separate the words of every list key
 * alike (a comma in [block] destinations was "bad CIDR '10.0.0.0/8,'"). */
static void test_list_commas(void **state)
{
	static const char *const keys[][2] = {
		{ "[block]\ndestinations = ", "10.0.0.0/8, 192.168.0.0/16,fd00::/8" },
		{ "[allow]\nnetworks = ", "10.244.0.0/16,10.96.0.0/12" },
		{ "[allow]\nhost_ports = ", "udp/53, tcp/53" },
		{ "[guard]\ninterfaces = ", "docker0, br-*" },
		{ "[guard]\nexcept = ", "br-lan,eth1" },
		{ "[daemon]\nresolvers = ", "10.0.0.2, 10.0.0.3" },
		{ "[sandbox a]\ninterfaces = ", "br-a*, br-b*" },
	};
	static struct sw_config spaced;
	char buf[256], spc[128];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t j = 0;

		for (const char *p = keys[i][1]; *p && j + 1 < sizeof(spc); p++)
			if (*p != ',')
				spc[j++] = *p;
			else if (p[1] != ' ')
				spc[j++] = ' ';
		spc[j] = '\0';
		snprintf(buf, sizeof(buf), "%s%s\n", keys[i][0], spc);
		assert_int_equal(sw_config_parse_string(buf, "t.conf", &spaced, err, sizeof(err)), 0);
		snprintf(buf, sizeof(buf), "%s%s\n", keys[i][0], keys[i][1]);
		if (sw_config_parse_string(buf, "t.conf", &cfg, err, sizeof(err)))
			fail_msg("%s: %s", buf, err);
		assert_cfg_equal(&cfg, &spaced);
	}
	assert_int_equal(cfg.n_sandboxes, 1);
}

static void test_empty(void **state)
{
	assert_int_equal(parse(""), 0);
	assert_cfg_equal(&cfg, &def);
	assert_string_equal(cfg.path, "t.conf");
	assert_int_equal(parse("\n\n# x\n[guard]\n[block]\n"), 0);
	assert_cfg_equal(&cfg, &def);
	assert_int_equal(sw_config_parse_string(NULL, NULL, &cfg, NULL, 0), 0);
	assert_string_equal(cfg.path, "(string)");
}

static void test_booleans(void **state)
{
	static const char *const t[] = { "yes", "YES", "Yes", "true", "True", "on", "ON", "1" };
	static const char *const f[] = { "no", "NO", "false", "FALSE", "off", "Off", "0" };
	char text[128];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(text, sizeof(text), "[block]\nprivate = %s\n[guard]\nall_bridges=%s\n", t[i], t[i]);
		assert_int_equal(parse(text), 0);
		assert_true(cfg.block[SW_CAT_PRIVATE]);
		assert_true(cfg.all_bridges);
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(text, sizeof(text), "[block]\nlan = %s\n[log]\nblocked=%s\n", f[i], f[i]);
		assert_int_equal(parse(text), 0);
		assert_false(cfg.block[SW_CAT_LAN]);
		assert_false(cfg.log_blocked);
	}
	assert_bad("[block]\nlan = y\n", "2: bad boolean 'y' for [block] lan (use yes or no)");
	assert_bad("[block]\nlan = yes please\n", "2: bad boolean 'yes please' for [block] lan (use yes or no)");
	assert_bad("[block]\nlan = 01\n", "2: bad boolean '01' for [block] lan (use yes or no)");
}

static void test_enums_numbers(void **state)
{
	static const struct { const char *name; int fac; } fac[] = {
		{ "daemon", LOG_DAEMON }, { "user", LOG_USER }, { "auth", LOG_AUTH },
		{ "authpriv", LOG_AUTHPRIV }, { "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 },
		{ "local2", LOG_LOCAL2 }, { "local3", LOG_LOCAL3 }, { "local4", LOG_LOCAL4 },
		{ "local5", LOG_LOCAL5 }, { "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 },
	};
	char text[128];

	for (size_t i = 0; i < sizeof(fac) / sizeof(fac[0]); i++) {
		snprintf(text, sizeof(text), "[log]\nfacility = %s\n", fac[i].name);
		assert_int_equal(parse(text), 0);
		assert_int_equal(cfg.log_facility, fac[i].fac);
	}
	assert_int_equal(parse("[log]\ngroup = 65535\n[daemon]\nresync_interval = 1\nowner = yes\n"), 0);
	assert_int_equal(cfg.log_group, 65535);
	assert_int_equal(cfg.resync_interval, 1);
	assert_int_equal(cfg.owner, SW_OWNER_YES);
	/* the network log's keys, and their bounds */
	assert_int_equal(parse("[log]\nflows = no\nmax_flows = 2\nflow_interval = 3600\n"), 0);
	assert_false(cfg.log_flows);
	assert_int_equal(cfg.log_max_flows, 2);
	assert_int_equal(cfg.log_flow_interval, 3600);
	assert_int_equal(parse("[log]\nmax_flows = 1048576\nflow_interval = 1\n"), 0);
	assert_int_equal(cfg.log_max_flows, 1048576);
	assert_int_equal(cfg.log_flow_interval, 1);
	assert_int_not_equal(parse("[log]\nmax_flows = 0\n"), 0);
	assert_int_not_equal(parse("[log]\nmax_flows = 1048577\n"), 0);
	assert_int_not_equal(parse("[log]\nflow_interval = 3601\n"), 0);
	assert_int_not_equal(parse("[log]\nflow_interval = 0\n"), 0);
	assert_int_not_equal(parse("[log]\nflows = maybe\n"), 0);
	assert_int_equal(parse("[daemon]\nowner = AUTO\n[allow]\ndns = NONE\n"), 0);
	assert_int_equal(cfg.owner, SW_OWNER_AUTO);
	assert_int_equal(cfg.dns, SW_DNS_NONE);
	assert_int_equal(parse("[allow]\ndns = auto\n[daemon]\nowner = off\n"), 0);
	assert_int_equal(cfg.dns, SW_DNS_AUTO);
	assert_int_equal(cfg.owner, SW_OWNER_NO);
	assert_int_equal(parse("[nft]\ntable = abcdefghijklmnopqrstuvwxyzabcdef\n"), 0);
	assert_string_equal(cfg.table, "abcdefghijklmnopqrstuvwxyzabcdef");
	assert_int_equal(parse("[nft]\ntable = a\n"), 0);
	assert_string_equal(cfg.table, "a");
	assert_bad("[log]\ngroup = 99999999999999999999999\n",
		   "2: bad NFLOG group '99999999999999999999999' for [log] group (use 0..65535)");
	assert_bad("[log]\ngroup = 0x10\n", "2: bad NFLOG group '0x10' for [log] group (use 0..65535)");
	assert_bad("[daemon]\nresync_interval =\n",
		   "2: bad interval '' for [daemon] resync_interval (use 1..86400 seconds)");
	assert_bad("[nft]\ntable = _x\n",
		   "2: bad table name '_x' for [nft] table (1..32 of A-Z a-z 0-9 _ -, starting with a letter)");
}

static void test_networks(void **state)
{
	(void)state;
	assert_int_equal(parse("[allow]\nnetworks = 10.244.0.0/16 10.96.0.0/12\n  fd00:42::/48 10.96.0.0/12\n"), 0);
	assert_int_equal(cfg.n_networks, 3);
	assert_prefix(&cfg.networks[0], "10.244.0.0/16");
	assert_int_equal(cfg.networks[0].len, 16);
	assert_int_equal(cfg.networks[2].family, AF_INET6);
	assert_int_not_equal(parse("[allow]\nnetworks = 10.244.0.1/16\n"), 0);
	assert_int_not_equal(parse("[allow]\nnetworks = ::ffff:10.0.0.0/104\n"), 0);
	assert_int_not_equal(parse("[allow]\nnetworks = nonsense\n"), 0);
}

static void test_between(void **state)
{
	(void)state;
	assert_int_equal(parse("[allow]\nbetween = docker0:br-x br-x:docker0 eth0.5:vlan:br-y\n"), 0);
	assert_int_equal(cfg.n_between, 2);     /* a pair is both ways */
	assert_string_equal(cfg.between[0][0], "docker0");
	assert_string_equal(cfg.between[0][1], "br-x");
	assert_string_equal(cfg.between[1][0], "eth0.5:vlan");    /* the last ':' splits */
	assert_string_equal(cfg.between[1][1], "br-y");
	assert_true(cfg.block[SW_CAT_SANDBOXES]);
	assert_int_not_equal(parse("[allow]\nbetween = docker0\n"), 0);
	assert_int_not_equal(parse("[allow]\nbetween = docker0:\n"), 0);
	assert_int_not_equal(parse("[allow]\nbetween = br-*:docker0\n"), 0);
	assert_int_not_equal(parse("[allow]\nbetween = docker0:abcdefghijklmnop\n"), 0);
	assert_int_equal(parse("[block]\nsandboxes = no\n"), 0);
	assert_false(cfg.block[SW_CAT_SANDBOXES]);
}

static void test_except(void **state)
{
	(void)state;
	assert_int_equal(parse("[guard]\nexcept = br-lan eth1 br-lan\n"), 0);
	assert_int_equal(cfg.n_except, 2);
	assert_string_equal(cfg.except[0], "br-lan");
	assert_string_equal(cfg.except[1], "eth1");
	assert_true(cfg.auto_detect);
	/* names only, and never one that [guard] interfaces guards */
	assert_int_not_equal(parse("[guard]\nexcept = br-*\n"), 0);
	assert_int_not_equal(parse("[guard]\ninterfaces = auto lab*\nexcept = lab0\n"), 0);
}

static void test_lists(void **state)
{
	assert_int_equal(parse("[guard]\ninterfaces = tap*\n"), 0);
	assert_int_equal(cfg.n_patterns, 1);            /* replaces the default */
	assert_string_equal(cfg.patterns[0], "tap*");
	assert_false(cfg.auto_detect);                  /* auto only when named */
	/* auto is a keyword, combined with names in any order, said once or twice */
	assert_int_equal(parse("[guard]\ninterfaces = docker0 auto br-* auto\n"), 0);
	assert_true(cfg.auto_detect);
	assert_int_equal(cfg.n_patterns, 2);
	assert_string_equal(cfg.patterns[0], "docker0");
	assert_string_equal(cfg.patterns[1], "br-*");
	assert_int_equal(parse("[guard]\ninterfaces = auto\n"), 0);
	assert_true(cfg.auto_detect);
	assert_int_equal(cfg.n_patterns, 0);
	/* auto alone is enough: all_bridges may be off */
	assert_int_equal(parse("[guard]\ninterfaces = auto\nall_bridges = no\n"), 0);
	/* "auto*" and "Auto" are patterns, not the keyword */
	assert_int_equal(parse("[guard]\ninterfaces = auto* Auto\n"), 0);
	assert_false(cfg.auto_detect);
	assert_int_equal(cfg.n_patterns, 2);
	assert_int_equal(parse("[guard]\ninterfaces = abcdefghijklmno x* x* \t y\n"), 0);
	assert_int_equal(cfg.n_patterns, 3);            /* 15 chars ok; duplicates dropped */
	assert_string_equal(cfg.patterns[0], "abcdefghijklmno");
	assert_string_equal(cfg.patterns[1], "x*");
	assert_string_equal(cfg.patterns[2], "y");

	assert_int_equal(parse("[block]\ndestinations = 10.0.0.0/8 fd00::/8 10.0.0.0/8 1.2.3.4\n"), 0);
	assert_true(cfg.block[SW_CAT_DESTINATIONS]);
	assert_int_equal(cfg.n_destinations, 3);
	/* sorted: family, address, length */
	assert_prefix(&cfg.destinations[0], "1.2.3.4");
	assert_int_equal(cfg.destinations[0].len, 32);
	assert_prefix(&cfg.destinations[1], "10.0.0.0/8");
	assert_prefix(&cfg.destinations[2], "fd00::/8");

	assert_int_equal(parse("[allow]\nhost_ports = udp/53 tcp/53 udp/53 tcp/65535 tcp/1\n"), 0);
	assert_int_equal(cfg.n_host_ports, 4);
	assert_int_equal(cfg.host_ports[0].proto, IPPROTO_UDP);
	assert_int_equal(cfg.host_ports[0].port, 53);
	assert_int_equal(cfg.host_ports[1].proto, IPPROTO_TCP);
	assert_int_equal(cfg.host_ports[1].port, 53);
	assert_int_equal(cfg.host_ports[2].port, 65535);
	assert_int_equal(cfg.host_ports[3].port, 1);

	assert_int_equal(parse("[allow]\ndestinations = 169.254.169.253/32 udp/53 reopen, 198.51.100.5 tcp/3128,"
			       "\n fd00:ec2::253 udp/53 Reopen,\n"), 0);
	assert_int_equal(cfg.n_allows, 3);
	assert_true(cfg.allows[0].reopen);
	assert_false(cfg.allows[1].reopen);
	assert_true(cfg.allows[2].reopen);
	assert_int_equal(cfg.allows[0].line, 2);
	assert_int_equal(cfg.allows[2].line, 3);
	assert_prefix(&cfg.allows[0].dst, "169.254.169.253");
	assert_int_equal(cfg.allows[0].port.proto, IPPROTO_UDP);
	assert_int_equal(cfg.allows[0].port.port, 53);
	assert_prefix(&cfg.allows[1].dst, "198.51.100.5");
	assert_int_equal(cfg.allows[1].dst.len, 32);
	assert_int_equal(cfg.allows[1].port.proto, IPPROTO_TCP);
	assert_int_equal(cfg.allows[1].port.port, 3128);
	assert_int_equal(cfg.allows[2].dst.family, AF_INET6);
	assert_int_equal(cfg.allows[2].dst.len, 128);
}

/* Exactly the maximum is fine; one more is refused (bad/too-many-* cover
 * the message). */
static void test_limits(void **state)
{
	size_t cap = 1 << 20, n = 0;
	char *text = malloc(cap), buf[160];

	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "[block]\ndestinations =");
	for (int i = 0; i < SW_MAX_DESTS; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s 10.%d.%d.0/24", i % 10 ? "" : "\n ",
				      i / 256, i % 256);
	n += (size_t)snprintf(text + n, cap - n, "\n[guard]\ninterfaces =");
	for (int i = 0; i < SW_MAX_PATTERNS; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s t%d*", i % 10 ? "" : "\n ", i);
	n += (size_t)snprintf(text + n, cap - n, "\n[allow]\nhost_ports =");
	for (int i = 0; i < SW_MAX_HOST_PORTS; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s udp/%d", i % 10 ? "" : "\n ", i + 1);
	n += (size_t)snprintf(text + n, cap - n, "\ndestinations =");
	for (int i = 0; i < SW_MAX_ALLOWS; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s 10.%d.%d.1 tcp/1 reopen,",
				      i % 5 ? "" : "\n ", i / 256, i % 256);
	assert_true(n < cap - 2 && n <= SW_CONFIG_MAX);
	strcat(text, "\n");
	assert_int_equal(parse(text), 0);
	assert_int_equal(cfg.n_destinations, SW_MAX_DESTS);
	assert_int_equal(cfg.n_patterns, SW_MAX_PATTERNS);
	assert_int_equal(cfg.n_host_ports, SW_MAX_HOST_PORTS);
	assert_int_equal(cfg.n_allows, SW_MAX_ALLOWS);
	assert_prefix(&cfg.destinations[255], "10.0.255.0/24");
	assert_prefix(&cfg.destinations[SW_MAX_DESTS - 1], "10.63.255.0/24");
	assert_string_equal(cfg.patterns[63], "t63*");
	/* one more of each long list is refused, on the line that overflows */
	for (int which = 0; which < 2; which++) {
		n = (size_t)snprintf(text, cap, which ? "[allow]\ndestinations =" : "[block]\ndestinations =");
		for (int i = 0; i <= (which ? SW_MAX_ALLOWS : SW_MAX_DESTS); i++)
			n += (size_t)snprintf(text + n, cap - n, which ? "\n 10.%d.%d.1 tcp/1 reopen," :
					      "\n 10.%d.%d.0/24", i / 256, i % 256);
		strcat(text, "\n");
		assert_int_equal(parse(text), -EINVAL);
		snprintf(buf, sizeof(buf), "t.conf:%d: too many entries in [%s] destinations (max %d)",
			 (which ? SW_MAX_ALLOWS : SW_MAX_DESTS) + 3, which ? "allow" : "block",
			 which ? SW_MAX_ALLOWS : SW_MAX_DESTS);
		assert_string_equal(err, buf);
	}
	free(text);
}

static void test_lines(void **state)
{
	char text[512];

	/* 197 characters is the longest line inih can take; 198 is refused */
	snprintf(text, sizeof(text), "[nft]\n;%0196d\r\ntable = x\n", 0);
	assert_int_equal(parse(text), 0);
	snprintf(text, sizeof(text), "[nft]\n;%0197d\ntable = x\n", 0);
	assert_bad(text, "2: line too long (max 197 characters)");
	/* the first error by line wins, whoever found it */
	assert_bad("[block]\nlan\nfoo = 1\n", "2: syntax error");
	assert_bad("[block]\nfoo = 1\nlan\n", "2: unknown key 'foo' in [block]");
	assert_bad("[nope]\nlan\n", "1: unknown section [nope]");
	assert_bad("[block\n", "1: syntax error");
	assert_bad("[ block ]\n", "1: unknown section [ block ] (did you mean [block]?)");
	/* an indented key before any other key is a key, not a continuation */
	assert_int_equal(parse("[block]\n  lan = no\n[guard]\n  all_bridges = yes\n"), 0);
	assert_false(cfg.block[SW_CAT_LAN]);
	assert_true(cfg.all_bridges);
	/* a section header ends a list; the indented line is then a new key */
	assert_bad("[guard]\ninterfaces = a\n[block]\n[guard]\n  interfaces = b\n",
		   "4: section [guard] repeated (first at line 1): give each section once");
	/* comments after section headers are fine */
	assert_int_equal(parse("[block] ; x\nlan = no ; y\n[guard] # z\n"), 0);
	assert_false(cfg.block[SW_CAT_LAN]);
}

static void test_guard_output(void **state)
{
	assert_int_equal(parse("[guard]\nusers = 42001 42001 4000000000\n"
			       "cgroups = system.slice/docker-*.scope machine.slice/libpod-*.scope a/b/c\n"), 0);
	assert_int_equal(cfg.n_users, 2);
	assert_int_equal(cfg.users[0].uid, 42001);
	assert_string_equal(cfg.users[0].name, "");
	assert_int_equal(cfg.users[1].uid, 4000000000u);
	assert_int_equal(cfg.n_cgroups, 3);
	assert_string_equal(cfg.cgroups[0], "system.slice/docker-*.scope");
	assert_int_equal(parse("[guard]\nusers = nobody\n"), 0);
	assert_int_equal(cfg.n_users, 1);
	assert_string_equal(cfg.users[0].name, "nobody");
	assert_bad("[guard]\nusers = 0\n", "2: user '0' in [guard] users is root: guarding it would "
		   "cut the host off from its own services");
	assert_bad("[guard]\nusers = root\n", "2: user 'root' in [guard] users is root: guarding it "
		   "would cut the host off from its own services");
	assert_bad("[guard]\nusers = no-such-user-xyz\n", "2: unknown user 'no-such-user-xyz' in "
		   "[guard] users (a name from the password database or a number)");
	assert_bad("[guard]\ncgroups = /system.slice/x\n", "2: bad cgroup pattern '/system.slice/x' "
		   "in [guard] cgroups: relative to the cgroup2 root, components separated by one '/'");
	assert_bad("[guard]\ncgroups = a//b\n", "2: bad cgroup pattern 'a//b' in [guard] cgroups: "
		   "relative to the cgroup2 root, components separated by one '/'");
	assert_bad("[guard]\ncgroups = a/../b\n", "2: bad cgroup pattern 'a/../b' in [guard] cgroups: "
		   "'.' and '..' are no cgroups");
	assert_bad("[guard]\ncgroups = *\n", "2: bad cgroup pattern '*' in [guard] cgroups: '*' alone "
		   "matches every top-level cgroup, the host's own included");
	assert_bad("[guard]\ncgroups = a/b/c/d/e/f/g/h/i\n", "2: bad cgroup pattern 'a/b/c/d/e/f/g/h/i' "
		   "in [guard] cgroups: more than 8 components");
}

static void test_missing_file(void **state)
{
	char path[4096];

	poison();
	assert_int_equal(sw_config_load("/nonexistent/sandwall.conf", &cfg, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/sandwall.conf: No such file or directory");
	assert_cfg_equal(&cfg, &def);
	tu_path(path, "%s", tu_corpus_dir());
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), -EISDIR);
	/* a tiny error buffer truncates and never overflows */
	char tiny[8];
	assert_int_equal(sw_config_load("/nonexistent/x", &cfg, tiny, sizeof(tiny)), -ENOENT);
	assert_string_equal(tiny, "/nonexi");
}

static void test_good_full(void **state)
{
	char path[4096];

	tu_path(path, "%s/good/full.conf", tu_corpus_dir());
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_patterns, 4);
	assert_string_equal(cfg.patterns[0], "tap*");
	assert_string_equal(cfg.patterns[1], "vnet0");
	assert_string_equal(cfg.patterns[2], "cni-podman0");
	assert_string_equal(cfg.patterns[3], "veth@x.1:a_b-c");
	assert_true(cfg.all_bridges);
	for (int c = SW_CAT_METADATA; c <= SW_CAT_LAN; c++)
		assert_false(cfg.block[c]);
	assert_true(cfg.block[SW_CAT_PRIVATE]);
	assert_true(cfg.block[SW_CAT_DESTINATIONS]);
	assert_int_equal(cfg.n_destinations, 3);
	assert_prefix(&cfg.destinations[0], "198.51.100.7");
	assert_prefix(&cfg.destinations[1], "203.0.113.0/24");
	assert_prefix(&cfg.destinations[2], "2001:db8::/32");
	assert_int_equal(cfg.dns, SW_DNS_NONE);
	assert_int_equal(cfg.n_host_ports, 3);
	assert_int_equal(cfg.host_ports[2].proto, IPPROTO_TCP);
	assert_int_equal(cfg.host_ports[2].port, 8080);
	assert_int_equal(cfg.n_allows, 3);
	assert_false(cfg.allows[0].reopen);
	assert_true(cfg.allows[1].reopen);
	assert_true(cfg.allows[2].reopen);
	assert_prefix(&cfg.allows[2].dst, "fd00::/8");
	assert_int_equal(cfg.allows[2].port.proto, IPPROTO_UDP);
	assert_int_equal(cfg.allows[2].port.port, 123);
	assert_false(cfg.log_blocked);
	assert_int_equal(cfg.log_facility, LOG_LOCAL3);
	assert_int_equal(cfg.log_group, 0);
	assert_int_equal(cfg.resync_interval, 86400);
	assert_int_equal(cfg.owner, SW_OWNER_NO);
	assert_string_equal(cfg.metrics_path, "/var/lib/prometheus/node-exporter/sandwall.prom");
	assert_string_equal(cfg.journal_path, "/var/log/sandwall/drift/events.jsonl");
	assert_string_equal(cfg.receipt_key, "/etc/sandwall/keys/receipt_ed25519");
	assert_string_equal(cfg.table, "Sand_wall-2");
}

static void test_good_multiline(void **state)
{
	char path[4096];

	tu_path(path, "%s/good/multiline.conf", tu_corpus_dir());
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_patterns, 3);
	assert_string_equal(cfg.patterns[0], "docker0");
	assert_string_equal(cfg.patterns[1], "br-*");
	assert_string_equal(cfg.patterns[2], "podman*");
	assert_true(cfg.all_bridges);
	assert_false(cfg.block[SW_CAT_LAN]);
	assert_true(cfg.block[SW_CAT_PRIVATE]);
	assert_int_equal(cfg.n_destinations, 2);
	assert_prefix(&cfg.destinations[0], "10.1.0.0/16");
	assert_prefix(&cfg.destinations[1], "10.2.0.0/16");
	assert_int_equal(cfg.n_allows, 2);
	assert_prefix(&cfg.allows[1].dst, "10.0.0.6");
	assert_int_equal(cfg.allows[1].port.proto, IPPROTO_UDP);
}

static void test_good_empty_lists(void **state)
{
	char path[4096];

	tu_path(path, "%s/good/empty-lists.conf", tu_corpus_dir());
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_patterns, 0);
	assert_true(cfg.all_bridges);           /* else nothing would be guarded */
	assert_int_equal(cfg.n_destinations, 0);
	assert_false(cfg.block[SW_CAT_DESTINATIONS]);
	assert_int_equal(cfg.n_host_ports, 0);
	assert_int_equal(cfg.n_allows, 0);
}

static int is_conf(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/* Every good/NAME.conf parses; every bad/NAME.conf fails exactly as it says. */
static void test_corpus(void **state)
{
	struct dirent **ents;
	char dir[1024], path[1280], first[SW_ERRLEN], want[2048];
	int n, bad = 0, good = 0;

	tu_path(dir, "%s/good", tu_corpus_dir());
	n = scandir(dir, &ents, is_conf, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++, good++) {
		tu_path(path, "%s/%s", dir, ents[i]->d_name);
		print_message("good: %s\n", path);
		if (sw_config_load(path, &cfg, err, sizeof(err)))
			fail_msg("%s", err);
		free(ents[i]);
	}
	free(ents);

	tu_path(dir, "%s/bad", tu_corpus_dir());
	n = scandir(dir, &ents, is_conf, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++, bad++) {
		FILE *f;
		char *nl;

		tu_path(path, "%s/%s", dir, ents[i]->d_name);
		free(ents[i]);
		assert_non_null(f = fopen(path, "r"));
		assert_non_null(fgets(first, sizeof(first), f));
		fclose(f);
		if ((nl = strchr(first, '\n')))
			*nl = '\0';
		if (strncmp(first, "# expect: ", 10))
			fail_msg("%s: first line must be '# expect: LINE: message'", path);
		tu_path(want, "%s:%s", path, first + 10);
		poison();
		assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), -EINVAL);
		if (strcmp(err, want))
			fail_msg("\n got: %s\nwant: %s", err, want);
		assert_cfg_equal(&cfg, &def);
	}
	free(ents);
	print_message("corpus: %d good, %d bad\n", good, bad);
	assert_true(bad >= 50);
}


/* A reload must not fall back to defaults unasked (issue 24): an empty
 * file, one cut at a line boundary or in a line, one without a section,
 * a key or a [sandbox] the running one gave. */
static struct sw_config run_cfg, new_cfg;

static int loss_of(const char *running, const char *next, char *e, size_t elen)
{
	char e1[SW_ERRLEN];

	assert_int_equal(sw_config_parse_string(running, "run.conf", &run_cfg, e1, sizeof(e1)), 0);
	/* a cut that leaves an invalid file is refused by the parser already */
	if (sw_config_parse_string(next, "new.conf", &new_cfg, e, elen))
		return -EINVAL;
	return sw_config_loss(&run_cfg, &new_cfg, e, elen);
}

static void test_config_loss(void **state)
{
	static const char full[] =
		"[guard]\ninterfaces = docker0 br-*\n"
		"[block]\nprivate = no\ndestinations = 203.0.113.0/24\n  198.51.100.7\n"
		"[allow]\ndns = auto\n"
		"[daemon]\njournal = /run/sandwall/j.jsonl\n"
		"[nft]\ntable = sandwall\n"
		"[sandbox agents]\ninterfaces = br-agents\negress = none\n";
	char e[SW_ERRLEN], cut[sizeof(full)];
	size_t lines = 0, refused_by_loss = 0;

	(void)state;
	/* the same file, and one that only adds: nothing lost */
	assert_int_equal(loss_of(full, full, e, sizeof(e)), 0);
	snprintf(cut, sizeof(cut), "%s", full);
	assert_int_equal(sw_config_loss(&run_cfg, &run_cfg, e, sizeof(e)), 0);
	/* values may change: that is what an edit is */
	assert_int_equal(loss_of("[block]\nprivate = no\n", "[block]\nprivate = yes\n", e,
				 sizeof(e)), 0);

	/* the empty file, and a blank one */
	assert_int_equal(loss_of(full, "", e, sizeof(e)), -ENODATA);
	assert_non_null(strstr(e, "new.conf:1: the file is empty"));
	assert_non_null(strstr(e, "--accept-loss"));
	assert_int_equal(loss_of(full, "\n# nothing\n\n", e, sizeof(e)), -ENODATA);
	/* an empty running config loses nothing to an empty file */
	assert_int_equal(loss_of("", "", e, sizeof(e)), 0);

	/* cut at every line boundary: each is refused (each drops something) */
	for (const char *p = full; (p = strchr(p, '\n')); p++) {
		size_t n = (size_t)(p - full) + 1;

		if (n == sizeof(full) - 1)
			break;          /* the whole file */
		memcpy(cut, full, n);
		cut[n] = '\0';
		lines++;
		int rc = loss_of(full, cut, e, sizeof(e));

		if (rc != -ENODATA && rc != -EINVAL)
			fail_msg("cut after line %zu was not refused", lines);
		if (rc == -ENODATA)
			refused_by_loss++;
		assert_non_null(strstr(e, "new.conf:"));
	}
	assert_true(lines >= 10);
	assert_true(refused_by_loss >= lines - 2);
	/* cut inside the last line (no newline at the end) */
	/* (128.0.0.0/16 cut to 128.0.0.0/1 still parses: a quarter of the space) */
	assert_int_equal(loss_of("[block]\ndestinations = 10.0.0.0/8 128.0.0.0/16\n",
				 "[block]\ndestinations = 10.0.0.0/8 128.0.0.0/1", e, sizeof(e)),
			 -ENODATA);
	assert_non_null(strstr(e, "new.conf:2: the last line has no newline"));

	/* a section the running one had */
	assert_int_equal(loss_of("[guard]\ninterfaces = docker0\n[daemon]\nowner = no\n",
				 "[guard]\ninterfaces = docker0\n", e, sizeof(e)), -ENODATA);
	assert_string_equal(strstr(e, "new.conf:2:") ? "ok" : e, "ok");
	assert_non_null(strstr(e, "section [daemon] is missing (the running config has it at line 3)"));
	/* a key: the line is the section's in the new file */
	assert_int_equal(loss_of("[block]\nprivate = no\ndestinations = 10.9.0.0/16\n",
				 "\n[block]\nprivate = no\n", e, sizeof(e)), -ENODATA);
	assert_non_null(strstr(e, "new.conf:2: [block] destinations is missing"));
	/* a [block] switch */
	assert_int_equal(loss_of("[block]\nlan = no\nhost = yes\n", "[block]\nhost = yes\n", e,
				 sizeof(e)), -ENODATA);
	assert_non_null(strstr(e, "[block] lan is missing"));
	/* a sandbox */
	assert_int_equal(loss_of(full, "[guard]\ninterfaces = docker0 br-*\n"
				 "[block]\nprivate = no\ndestinations = 203.0.113.0/24\n  198.51.100.7\n"
				 "[allow]\ndns = auto\n[daemon]\njournal = /run/sandwall/j.jsonl\n"
				 "[nft]\ntable = sandwall\n", e, sizeof(e)), -ENODATA);
	assert_non_null(strstr(e, "[sandbox agents] is missing"));
	/* the journal key: its path would move back to the default */
	assert_int_equal(loss_of("[daemon]\njournal = /run/sandwall/j.jsonl\nowner = no\n",
				 "[daemon]\nowner = no\n", e, sizeof(e)), -ENODATA);
	assert_non_null(strstr(e, "[daemon] journal is missing"));
	/* allow lists may go: that only takes access away */
	assert_int_equal(loss_of("[block]\nlan = yes\n[allow]\ndestinations = 10.0.0.50 tcp/80 reopen\n"
				 "host_ports = udp/53\n", "[block]\nlan = yes\n", e, sizeof(e)), 0);
	assert_int_equal(loss_of("[allow]\ndns = none\ndestinations = 203.0.113.50 tcp/80\n",
				 "[allow]\ndestinations = 203.0.113.50 tcp/80\n", e, sizeof(e)), -ENODATA);
	assert_non_null(strstr(e, "[allow] dns is missing"));
	assert_int_equal(loss_of("[allow]\ndns = none\n", "", e, sizeof(e)), -ENODATA);
	/* sw_config_is_empty */
	assert_int_equal(parse(""), 0);
	assert_true(sw_config_is_empty(&cfg));
	assert_int_equal(parse("# only a comment\n"), 0);
	assert_true(sw_config_is_empty(&cfg));
	assert_int_equal(parse("[log]\n"), 0);
	assert_false(sw_config_is_empty(&cfg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_category_names),
		cmocka_unit_test(test_names_group),
		cmocka_unit_test(test_category_table),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_shipped_lists_every_key),
		cmocka_unit_test(test_list_commas),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_enums_numbers),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_networks),
		cmocka_unit_test(test_except),
		cmocka_unit_test(test_between),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_guard_output),
		cmocka_unit_test(test_good_full),
		cmocka_unit_test(test_good_multiline),
		cmocka_unit_test(test_good_empty_lists),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_config_loss),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
