// SPDX-License-Identifier: GPL-2.0-or-later
/* table netdev NAME: [guard] macvlan_parents, the parents' model built from
 * the inet one, and the compare of a chain's hook device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "fake_kernel.h"
#include <linux/netfilter.h>
#include <libnftnl/rule.h>
#include "core/diff.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct sw_config cfg;
static struct sw_host host;
static char err[SW_ERRLEN];

static const unsigned char mac_eth0[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static void conf(const char *text)
{
	if (sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("config: %s", err);
}

static void host_with_macs(void)
{
	tk_host(&host);
	memcpy(host.links[1].mac, mac_eth0, 6);        /* eth0 */
	host.links[1].has_mac = true;
	host.links[2].mac[5] = 3;                       /* docker0 */
	host.links[2].has_mac = true;
}

static void test_config_key(void **state)
{
	(void)state;
	assert_int_equal(sw_config_parse_string("[guard]\nmacvlan_parents = eth1\nmacvlan_parents = eth2\n",
						"t.conf", &cfg, err, sizeof(err)), -EINVAL);
	conf("[guard]\nmacvlan_parents = eth1 ens* eth1\n");
	assert_int_equal(cfg.n_parents, 2);
	conf("");
	assert_int_equal(cfg.n_parents, 0);
	assert_int_equal(sw_config_parse_string("[guard]\nmacvlan_parents = l*\n", "t.conf", &cfg,
						err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "matches the loopback interface lo"));
	assert_int_equal(sw_config_parse_string("[guard]\nmacvlan_parents = e*h\n", "t.conf", &cfg,
						err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'*' only at the end"));
}

static void test_build(void **state)
{
	static struct sw_model inet, nd;
	const struct sw_chain *c;
	const struct sw_set *s, *si;

	(void)state;
	host_with_macs();
	conf("[guard]\ninterfaces = auto\nmacvlan_parents = eth* lo0\n");
	assert_int_equal(sw_ruleset_build(&cfg, &host, &inet, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &inet, &nd, err, sizeof(err)), 0);
	assert_int_equal(sw_model_family(&nd), NFPROTO_NETDEV);
	assert_int_equal(sw_model_family(&inet), NFPROTO_INET);
	assert_string_equal(nd.table, "sandwall");
	assert_true(sw_ruleset_macvlan_parent(&cfg, &host.links[1]));
	assert_false(sw_ruleset_macvlan_parent(&cfg, &host.links[0]));
	assert_int_equal(sw_ruleset_n_parents(&cfg, &host), 1);
	/* one egress and one ingress chain on eth0, with the device */
	assert_non_null(c = sw_model_find_chain(&nd, "egress_eth0"));
	assert_true(c->base);
	assert_int_equal(c->hook, 1 /* NF_NETDEV_EGRESS */);
	assert_string_equal(c->dev, "eth0");
	assert_non_null(c = sw_model_find_chain(&nd, "ingress_eth0"));
	assert_int_equal(c->hook, NF_NETDEV_INGRESS);
	assert_string_equal(c->dev, "eth0");
	assert_non_null(c = sw_model_find_chain(&nd, "parent_guard"));
	assert_false(c->base);
	assert_non_null(sw_model_find_chain(&nd, "block_metadata"));
	/* 2 base chains + parent_guard + one block chain per category */
	assert_int_equal(nd.n_chains, 3 + SW_CAT_COUNT);
	/* the parent's MAC, and the category sets copied from table inet */
	assert_non_null(s = sw_model_find_set(&nd, "parent_macs"));
	assert_int_equal(s->n_elems, 1);
	assert_memory_equal(s->elems[0].key, mac_eth0, 6);
	assert_string_equal(s->text[0], "02:00:00:00:00:02");
	for (size_t i = 0; i < inet.n_sets; i++) {
		si = &inet.sets[i];
		if (!(s = sw_model_find_set(&nd, si->name)))
			continue;
		assert_int_equal(s->n_elems, si->n_elems);
		assert_int_equal(s->key_len, si->key_len);
		if (s->n_elems)
			assert_memory_equal(s->elems[0].key, si->elems[0].key, si->key_len);
	}
	assert_non_null(sw_model_find_set(&nd, "metadata4"));
	assert_non_null(sw_model_find_set(&nd, "lan6"));
	/* the allow sets, exact ones included, and their rules (exact first) */
	assert_non_null(s = sw_model_find_set(&nd, "allow4_exact"));
	assert_int_equal(s->n_elems, sw_model_find_set(&inet, "allow4_exact")->n_elems);
	assert_true(s->n_elems > 0);            /* the resolver's udp and tcp 53 */
	assert_int_equal(s->flags, 0);
	assert_non_null(sw_model_find_set(&nd, "allow6_exact"));
	assert_non_null(sw_model_find_set(&nd, "allow4"));
	{
		size_t ex = SIZE_MAX, iv = SIZE_MAX;

		for (size_t i = 0; i < nd.n_rules; i++) {
			if (!strcmp(nd.rules[i].tag, "sandwall:allow4_exact"))
				ex = i;
			if (!strcmp(nd.rules[i].tag, "sandwall:allow4"))
				iv = i;
		}
		assert_true(ex != SIZE_MAX && iv != SIZE_MAX && ex < iv);
		assert_string_equal(nd.rules[ex].chain, "parent_guard");
	}
	/* every rule is tagged and carries the netdev family */
	for (size_t i = 0; i < nd.n_rules; i++) {
		assert_int_equal(strncmp(nd.rules[i].tag, SW_TAG_PREFIX, strlen(SW_TAG_PREFIX)), 0);
		assert_int_equal(nftnl_rule_get_u32(nd.rules[i].nl, NFTNL_RULE_FAMILY), NFPROTO_NETDEV);
	}
	sw_model_free(&nd);
	/* no matching link: the table, no base chain */
	conf("[guard]\nmacvlan_parents = ens9\n");
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &inet, &nd, err, sizeof(err)), 0);
	assert_int_equal(nd.n_chains, 1 + SW_CAT_COUNT);
	assert_int_equal(sw_model_find_set(&nd, "parent_macs")->n_elems, 0);
	sw_model_free(&nd);
	/* a link without an Ethernet address is no parent */
	host.links[1].has_mac = false;
	conf("[guard]\nmacvlan_parents = eth0\n");
	assert_false(sw_ruleset_macvlan_parent(&cfg, &host.links[1]));
	sw_model_free(&inet);
}

static bool has_tag(const struct sw_model *m, const char *tag)
{
	for (size_t i = 0; i < m->n_rules; i++)
		if (!strcmp(m->rules[i].tag, tag))
			return true;
	return false;
}

/* table inet's input chain drops foreign sources on lo (an ipvlan l3
 * child's way to the host's address on its parent), only with parents */
static void test_lo_foreign(void **state)
{
	static struct sw_model m;

	(void)state;
	host_with_macs();
	conf("[guard]\nmacvlan_parents = eth0\n");
	assert_int_equal(sw_ruleset_build(&cfg, &host, &m, err, sizeof(err)), 0);
	assert_true(has_tag(&m, "sandwall:input-lo-foreign"));
	sw_model_free(&m);
	/* not with auto's uplinks alone (the default), nor with none */
	conf("");
	assert_int_equal(sw_ruleset_build(&cfg, &host, &m, err, sizeof(err)), 0);
	assert_false(has_tag(&m, "sandwall:input-lo-foreign"));
	sw_model_free(&m);
	conf("[guard]\nmacvlan_parents = none\n");
	assert_int_equal(sw_ruleset_build(&cfg, &host, &m, err, sizeof(err)), 0);
	assert_false(has_tag(&m, "sandwall:input-lo-foreign"));
	sw_model_free(&m);
	conf("[guard]\nmacvlan_parents = eth0\n[block]\nhost = no\n");
	assert_int_equal(sw_ruleset_build(&cfg, &host, &m, err, sizeof(err)), 0);
	assert_false(has_tag(&m, "sandwall:input-lo-foreign"));
	sw_model_free(&m);
}

static void test_too_many(void **state)
{
	static struct sw_model inet, nd;
	/* as many parents as the model's chains allow, then one more */
	const int max = (SW_MAX_CHAINS - SW_CAT_COUNT - 1) / 2;
	char name[16], want[32];

	(void)state;
	host_with_macs();
	for (int i = 0; i < max + 1; i++) {
		snprintf(name, sizeof(name), "mv%d", i);
		tk_link(&host, 100 + i, name, false);
		host.links[host.n_links - 1].has_mac = true;
	}
	conf("[guard]\nmacvlan_parents = mv*\n");
	assert_int_equal(sw_ruleset_build(&cfg, &host, &inet, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &inet, &nd, err, sizeof(err)), -ENOSPC);
	snprintf(want, sizeof(want), "names %d devices", max + 1);
	assert_non_null(strstr(err, want));
	host.n_links--;
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &inet, &nd, err, sizeof(err)), 0);
	assert_int_equal(nd.n_chains, 1 + SW_CAT_COUNT + 2 * max);
	sw_model_free(&nd);
	sw_model_free(&inet);
}

/* [guard] users: egress chains on the uplinks and lo drop the users'
 * frames that the IP stack did not route (packet sockets); the golden is
 * every rule's chain and text, in order */
static void test_packet_users(void **state)
{
	static struct sw_model inet, nd;
	static const char *const golden[][2] = {
		{ "packet_guard", "meta rtclassid >= 0 return comment \"sandwall:packet-stack\"" },
		{ "packet_guard", "goto block_spoofed comment \"sandwall:packet-socket\"" },
		{ "block_spoofed", "counter name \"spoofed\" comment \"sandwall:spoofed-count\"" },
		{ "block_spoofed", "drop comment \"sandwall:spoofed-drop\"" },
		{ "egress_lo", "meta skuid @guard_uids jump packet_guard comment \"sandwall:packet-users\"" },
		{ "egress_eth0", "meta skuid @guard_uids jump packet_guard comment \"sandwall:packet-users\"" },
	};
	const struct sw_chain *c;
	const struct sw_set *s;
	size_t at = SIZE_MAX;

	(void)state;
	host_with_macs();
	host.links[1].uplink = true;                    /* eth0 */
	host.links[0].loopback = true;                  /* lo */
	conf("[guard]\nusers = 40001 40002\nmacvlan_parents = none\n");
	assert_true(sw_ruleset_netdev_wanted(&cfg));
	assert_true(sw_ruleset_netdev_device(&cfg, &host.links[0]));
	assert_true(sw_ruleset_netdev_device(&cfg, &host.links[1]));
	assert_false(sw_ruleset_netdev_device(&cfg, &host.links[2]));   /* docker0 */
	assert_int_equal(sw_ruleset_build(&cfg, &host, &inet, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &inet, &nd, err, sizeof(err)), 0);
	assert_int_equal(nd.n_rules, N(golden));
	for (size_t i = 0; i < N(golden); i++) {
		assert_string_equal(nd.rules[i].chain, golden[i][0]);
		assert_string_equal(nd.rules[i].text, golden[i][1]);
		assert_int_equal(nftnl_rule_get_u32(nd.rules[i].nl, NFTNL_RULE_FAMILY), NFPROTO_NETDEV);
	}
	/* egress only, no ingress; no parent_guard, one block chain */
	assert_non_null(c = sw_model_find_chain(&nd, "egress_lo"));
	assert_true(c->base);
	assert_int_equal(c->hook, 1 /* NF_NETDEV_EGRESS */);
	assert_string_equal(c->dev, "lo");
	assert_null(sw_model_find_chain(&nd, "ingress_eth0"));
	assert_null(sw_model_find_chain(&nd, "parent_guard"));
	assert_int_equal(nd.n_chains, 4);
	assert_non_null(s = sw_model_find_set(&nd, "guard_uids"));
	assert_int_equal(s->n_elems, 2);
	assert_null(sw_model_find_set(&nd, "metadata4"));
	sw_model_free(&nd);
	/* with a parent on the uplink too: the users' rule comes first (the
	 * frames carry the host's MAC and address: parent_guard returns them) */
	conf("[guard]\nusers = 40001\nmacvlan_parents = eth0\n");
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &inet, &nd, err, sizeof(err)), 0);
	for (size_t i = 0; i < nd.n_rules; i++)
		if (!strcmp(nd.rules[i].chain, "egress_eth0")) {
			assert_string_equal(nd.rules[i].tag, "sandwall:packet-users");
			assert_string_equal(nd.rules[i + 1].tag, "sandwall:parent-egress");
			at = i;
			break;
		}
	assert_true(at != SIZE_MAX);
	assert_non_null(sw_model_find_chain(&nd, "ingress_eth0"));
	assert_null(sw_model_find_chain(&nd, "ingress_lo"));
	sw_model_free(&nd);
	/* cgroups alone: no table netdev (the kernel has no cgroup match there) */
	conf("[guard]\ncgroups = system.slice/docker-*\nmacvlan_parents = none\n");
	assert_false(sw_ruleset_netdev_wanted(&cfg));
	sw_model_free(&inet);
}

/* macvlan_parents: auto (the default) makes every uplink with an Ethernet
 * address a parent; names add to it; none (or empty) turns it off */
static void test_auto_parents(void **state)
{
	static struct sw_model inet, nd;

	(void)state;
	host_with_macs();
	host.links[1].uplink = true;                    /* eth0 */
	conf("");
	assert_true(cfg.parents_auto);
	assert_true(sw_ruleset_parents_on(&cfg));
	assert_true(sw_ruleset_macvlan_parent(&cfg, &host.links[1]));
	assert_false(sw_ruleset_macvlan_parent(&cfg, &host.links[2]));  /* docker0: no uplink */
	assert_false(sw_ruleset_macvlan_parent(&cfg, &host.links[0]));  /* lo */
	assert_int_equal(sw_ruleset_build(&cfg, &host, &inet, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &inet, &nd, err, sizeof(err)), 0);
	assert_non_null(sw_model_find_chain(&nd, "egress_eth0"));
	assert_non_null(sw_model_find_chain(&nd, "ingress_eth0"));
	assert_true(has_tag(&nd, "sandwall:tcp-no-syn"));
	assert_int_equal(sw_model_find_set(&nd, "parent_macs")->n_elems, 1);
	sw_model_free(&nd);
	conf("[guard]\nmacvlan_parents = auto docker0\n");
	assert_true(cfg.parents_auto);
	assert_int_equal(cfg.n_parents, 1);
	assert_int_equal(sw_ruleset_n_parents(&cfg, &host), 2);
	conf("[guard]\nmacvlan_parents = docker0\n");
	assert_false(cfg.parents_auto);
	assert_false(sw_ruleset_macvlan_parent(&cfg, &host.links[1]));
	conf("[guard]\nmacvlan_parents = none\n");
	assert_false(sw_ruleset_parents_on(&cfg));
	assert_false(sw_ruleset_netdev_wanted(&cfg));
	conf("[guard]\nmacvlan_parents =\n");
	assert_false(sw_ruleset_parents_on(&cfg));
	assert_int_equal(sw_config_parse_string("[guard]\nmacvlan_parents = none eth0\n", "t.conf", &cfg,
						err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2:"));
	assert_non_null(strstr(err, "'none' stands alone"));
	assert_int_equal(sw_config_parse_string("[guard]\nmacvlan_parents = auto none\n", "t.conf", &cfg,
						err, sizeof(err)), -EINVAL);
	/* an uplink without an Ethernet address (wg0, a tun) is no parent */
	conf("");
	host.links[1].has_mac = false;
	assert_false(sw_ruleset_macvlan_parent(&cfg, &host.links[1]));
	sw_model_free(&inet);
}

/* a base chain on another device is drift */
static void test_diff_dev(void **state)
{
	static struct sw_model a, b;
	struct sw_diff d;

	(void)state;
	host_with_macs();
	conf("[guard]\nmacvlan_parents = eth0\n");
	assert_int_equal(sw_ruleset_build(&cfg, &host, &a, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &a, &b, err, sizeof(err)), 0);
	sw_model_free(&a);
	assert_int_equal(sw_ruleset_build(&cfg, &host, &a, err, sizeof(err)), 0);
	{
		static struct sw_model c;

		assert_int_equal(sw_ruleset_build_netdev(&cfg, &host, &a, &c, err, sizeof(err)), 0);
		assert_int_equal(sw_diff(&b, &c, &d), 0);
		assert_int_equal(d.n, 0);
		sw_diff_free(&d);
		snprintf(sw_model_find_chain(&c, "egress_eth0")->dev, 16, "eth1");
		assert_int_equal(sw_diff(&b, &c, &d), 0);
		assert_int_equal(d.n, 1);
		assert_int_equal(d.items[0].kind, SW_DIFF_CHANGED);
		sw_diff_free(&d);
		sw_model_free(&c);
	}
	sw_model_free(&a);
	sw_model_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_lo_foreign),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_packet_users),
		cmocka_unit_test(test_auto_parents),
		cmocka_unit_test(test_diff_dev),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
