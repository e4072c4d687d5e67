/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for ruleset: desired = f(config, host). Set names, their
 * nft text, the raw interval encoding, the category switches, the
 * ordered rules of chain guard and golden canonical strings. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>
#include <linux/netfilter/nf_tables.h>

#include "core/endpoints.h"
#include "fake_kernel.h"
#include "testutil.h"

static const char *const golden_sets[] = {
	"guard_ifaces", "guard_links", "guard_except", "guard_kinds", "metadata4", "metadata6", "link_local4", "link_local6",
	"gateways4", "gateways6", "destinations4", "destinations6", "sandboxes4", "sandboxes6",
	"own4", "own6",
	"lan4", "lan6", "private4", "private6",
	"gate4_a", "gate4_b", "gate6_a", "gate6_b", "gate_a", "gate_b",
	"nd6", "between", "allow4", "allow6", "allow4_exact", "allow6_exact", "host_ports",
};

static const char *const golden_guard_tags[] = {
	"sandwall:spoofed",
	"sandwall:unblocked4a", "sandwall:unblocked6a",
	"sandwall:unblocked4b", "sandwall:unblocked6b",
	"sandwall:replies", "sandwall:nd",
	"sandwall:allow4_exact", "sandwall:allow6_exact",
	"sandwall:allow4", "sandwall:allow6", "sandwall:host_ports",
	"sandwall:metadata4", "sandwall:metadata6",
	"sandwall:link_local4", "sandwall:link_local6",
	"sandwall:host",
	"sandwall:gateways4", "sandwall:gateways6",
	"sandwall:destinations4", "sandwall:destinations6",
	"sandwall:lan4", "sandwall:lan6",
	"sandwall:private4", "sandwall:private6",
	"sandwall:gated4a", "sandwall:gated6a",
	"sandwall:gated4b", "sandwall:gated6b",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The set's nft text is exactly want[0..n). */
static void assert_text(const struct sw_model *m, const char *name, const char *const *want,
			size_t n)
{
	const struct sw_set *s = tu_set(m, name);
	char t[128];

	if (sw_set_n_entries(s) != n) {
		for (size_t i = 0; i < sw_set_n_entries(s); i++)
			if (!sw_set_entry_text(s, i, t, sizeof(t)))
				print_message("  %s text[%zu] = %s\n", name, i, t);
		fail_msg("set %s: %zu text entries, want %zu", name, sw_set_n_entries(s), n);
	}
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sw_set_entry_text(s, i, t, sizeof(t)), 0);
		assert_string_equal(t, want[i]);
	}
}

static bool has_text(const struct sw_set *s, const char *want)
{
	char t[128];

	for (size_t i = 0; i < sw_set_n_entries(s); i++)
		if (!sw_set_entry_text(s, i, t, sizeof(t)) && !strcmp(t, want))
			return true;
	return false;
}

/* The raw elements, formatted, are exactly want[0..n). */
static void assert_elems(const struct sw_model *m, const char *name, const char *const *want,
			 size_t n)
{
	const struct sw_set *s = tu_set(m, name);
	char buf[256];

	if (s->n_elems != n) {
		for (size_t i = 0; i < s->n_elems; i++) {
			sw_elem_format(s, &s->elems[i], buf, sizeof(buf));
			print_message("  %s elem[%zu] = %s\n", name, i, buf);
		}
		fail_msg("set %s: %zu elements, want %zu", name, s->n_elems, n);
	}
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sw_elem_format(s, &s->elems[i], buf, sizeof(buf)), 0);
		assert_string_equal(buf, want[i]);
	}
}

/* ---- defaults -------------------------------------------------------------- */

static void test_set_names(void **state)
{
	struct sw_model m;

	(void)state;
	tk_build("", &m);
	assert_true(m.has_table);
	assert_string_equal(m.table, "sandwall");
	assert_int_equal(m.n_sets, N(golden_sets));
	for (size_t i = 0; i < N(golden_sets); i++)
		assert_string_equal(m.sets[i].name, golden_sets[i]);
	/* key types, lengths and flags of a few */
	assert_int_equal(tu_set(&m, "guard_ifaces")->key_type, SW_TYPE_IFNAME);
	assert_int_equal(tu_set(&m, "guard_ifaces")->key_len, 16);
	assert_int_equal(tu_set(&m, "guard_ifaces")->flags, NFT_SET_INTERVAL);
	assert_int_equal(tu_set(&m, "lan4")->key_type, SW_TYPE_IPADDR);
	assert_int_equal(tu_set(&m, "lan4")->key_len, 4);
	assert_int_equal(tu_set(&m, "lan6")->key_type, SW_TYPE_IP6ADDR);
	assert_int_equal(tu_set(&m, "lan6")->key_len, 16);
	assert_int_equal(tu_set(&m, "allow4")->key_len, 12);
	assert_int_equal(tu_set(&m, "allow4")->flags, NFT_SET_INTERVAL | NFT_SET_CONCAT);
	assert_int_equal(tu_set(&m, "allow4")->key_type, (7u << 12) | (12u << 6) | 13u);
	assert_int_equal(tu_set(&m, "allow6")->key_len, 24);
	assert_int_equal(tu_set(&m, "host_ports")->key_len, 8);
	assert_int_equal(tu_set(&m, "host_ports")->flags, 0);
	assert_string_equal(tu_set(&m, "allow4")->type_text, "ipv4_addr . inet_proto . inet_service");
	/* the exact entries' sets: the same type, a hash (no interval flag) */
	assert_int_equal(tu_set(&m, "allow4_exact")->key_len, 12);
	assert_int_equal(tu_set(&m, "allow4_exact")->flags, 0);
	assert_int_equal(tu_set(&m, "allow4_exact")->key_type, (7u << 12) | (12u << 6) | 13u);
	assert_int_equal(tu_set(&m, "allow4_exact")->n_concat, 3);
	assert_int_equal(tu_set(&m, "allow6_exact")->key_len, 24);
	assert_int_equal(tu_set(&m, "allow6_exact")->flags, 0);
	assert_string_equal(tu_set(&m, "allow6_exact")->type_text,
			    "ipv6_addr . inet_proto . inet_service");
	sw_model_free(&m);
}

static void test_set_texts_defaults(void **state)
{
	struct sw_model m;
	static const char *const lan4[] = { "10.0.0.0/24" };
	static const char *const lan6[] = { "fd00:10::/64" };
	/* 172.17.0.0/16 and 172.18.0.0/16 are adjacent: merged into one range,
	 * as nft's auto-merge would print it */
	static const char *const own4[] = { "172.17.0.0-172.18.255.255" };
	static const char *const gw4[] = { "10.0.0.1" };
	static const char *const gw6[] = { "fd00:10::1" };
	/* auto: the runtime names (cni-podman* is in cni*, lxcbr* in lxc*);
	 * docker0 and br-0a1b2c3d4e5f, bridges, are in them */
	static const char *const ifs[] = {
		"\"br-*\"", "\"cali*\"", "\"cilium_*\"", "\"cni*\"", "\"docker0\"", "\"fc-*\"",
		"\"flannel*\"", "\"incusbr*\"", "\"lxc*\"", "\"lxdbr*\"", "\"nerdctl*\"",
		"\"podman*\"", "\"tap*\"", "\"virbr*\"", "\"vnet*\"",
	};
	static const char *const ll4[] = { "169.254.0.0/16" };
	static const char *const ll6[] = { "fe80::/10" };
	static const char *const allow4[] = { "169.254.169.253 . tcp . 53",
					      "169.254.169.253 . udp . 53" };

	(void)state;
	tk_build("", &m);
	assert_text(&m, "lan4", lan4, N(lan4));
	assert_text(&m, "lan6", lan6, N(lan6));
	assert_text(&m, "own4", own4, N(own4));
	assert_text(&m, "own6", NULL, 0);
	assert_text(&m, "gateways4", gw4, N(gw4));
	assert_text(&m, "gateways6", gw6, N(gw6));
	assert_text(&m, "guard_ifaces", ifs, N(ifs));
	assert_text(&m, "link_local4", ll4, N(ll4));
	assert_text(&m, "link_local6", ll6, N(ll6));
	/* private is on by default (the VPC, peered networks, VPN routes) */
	assert_true(has_text(tu_set(&m, "private4"), "10.0.0.0/8"));
	assert_true(has_text(tu_set(&m, "private6"), "fc00::/7"));
	assert_text(&m, "destinations4", NULL, 0);
	assert_text(&m, "allow4_exact", allow4, N(allow4));
	assert_text(&m, "allow4", NULL, 0);
	assert_text(&m, "allow6", NULL, 0);
	assert_text(&m, "allow6_exact", NULL, 0);
	assert_text(&m, "host_ports", NULL, 0);
	/* the loopback and the guarded bridges are no lan */
	assert_false(has_text(tu_set(&m, "lan4"), "127.0.0.0/8"));
	assert_false(has_text(tu_set(&m, "lan4"), "172.17.0.0/16"));
	sw_model_free(&m);
}

static void test_metadata_list(void **state)
{
	struct sw_prefix p[128];
	struct sw_model m;
	size_t n = 0;
	unsigned bad = 0;
	char buf[SW_ADDR_STRLEN];

	(void)state;
	tk_build("", &m);
	assert_true(has_text(tu_set(&m, "metadata4"), "169.254.169.254"));
	assert_true(has_text(tu_set(&m, "metadata6"), "fd00:ec2::254"));
	assert_int_equal(sw_endpoints_parse(sw_metadata_list, p, 128, &n, &bad), 0);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sw_prefix_format(&p[i], buf, sizeof(buf)), 0);
		if (!has_text(tu_set(&m, p[i].family == AF_INET ? "metadata4" : "metadata6"), buf))
			fail_msg("metadata endpoint %s is not in the set", buf);
	}
	/* every entry in the text came from the list (no more, no less) */
	assert_int_equal(tu_set(&m, "metadata4")->n_text + tu_set(&m, "metadata6")->n_text, n);
	sw_model_free(&m);

	/* metadata = no empties both sets but keeps them (the rules refer to them) */
	tk_build("[block]\nmetadata = no\n", &m);
	assert_text(&m, "metadata4", NULL, 0);
	assert_text(&m, "metadata6", NULL, 0);
	assert_int_equal(tu_set(&m, "metadata4")->n_elems, 0);
	assert_non_null(tu_rule(&m, "sandwall:metadata4"));
	sw_model_free(&m);
}

/* nft's encoding of an interval set: leading zero key flagged END, then
 * start and end+1 (flagged END) per range. */
static void test_raw_intervals(void **state)
{
	struct sw_model m;
	static const char *const ll4[] = { "0.0.0.0 [end]", "169.254.0.0", "169.255.0.0 [end]" };
	static const char *const ll6[] = { ":: [end]", "fe80::", "fec0:: [end]" };
	static const char *const lan4[] = { "0.0.0.0 [end]", "10.0.0.0", "10.0.1.0 [end]" };
	static const char *const own4[] = { "0.0.0.0 [end]", "172.17.0.0", "172.19.0.0 [end]" };
	static const char *const gw4[] = { "0.0.0.0 [end]", "10.0.0.1", "10.0.0.2 [end]" };
	static const char *const ifs[] = { "\"\" [end]", "\"br-\"", "\"br.\" [end]",
					   "\"docker0\"", "\"docker0\" [end]" };
	static const char *const allow4[] = {
		"169.254.169.253 . 6 . 53",
		"169.254.169.253 . 17 . 53",
	};
	const struct sw_set *s;
	static const uint8_t docker0_end[16] = { 'd', 'o', 'c', 'k', 'e', 'r', '0', 0, 0, 0, 0, 0,
						 0, 0, 0, 1 };
	static const uint8_t allow_key[12] = { 169, 254, 169, 253, 6, 0, 0, 0, 0, 53, 0, 0 };

	(void)state;
	tk_build(TK_LEGACY_GUARD, &m);
	assert_elems(&m, "link_local4", ll4, N(ll4));
	s = tu_set(&m, "link_local4");
	assert_int_equal(s->elems[0].flags, NFT_SET_ELEM_INTERVAL_END);
	assert_int_equal(s->elems[1].flags, 0);
	assert_int_equal(s->elems[2].flags, NFT_SET_ELEM_INTERVAL_END);
	assert_false(s->elems[1].has_key_end);
	assert_elems(&m, "link_local6", ll6, N(ll6));
	assert_elems(&m, "lan4", lan4, N(lan4));
	assert_elems(&m, "own4", own4, N(own4));
	assert_elems(&m, "gateways4", gw4, N(gw4));
	assert_elems(&m, "guard_ifaces", ifs, N(ifs));
	/* "docker0" is the range docker0..docker0: the end is the key + 1 */
	s = tu_set(&m, "guard_ifaces");
	assert_memory_equal(s->elems[4].key, docker0_end, 16);
	/* concatenations: fields padded to 32 bits, no flags; a host entry
	 * is one key in the hash set allow4_exact, no key_end */
	assert_elems(&m, "allow4_exact", allow4, N(allow4));
	assert_int_equal(tu_set(&m, "allow4")->n_elems, 0);
	s = tu_set(&m, "allow4_exact");
	assert_false(s->elems[0].has_key_end);
	assert_int_equal(s->elems[0].flags, 0);
	assert_memory_equal(s->elems[0].key, allow_key, 12);
	assert_int_equal(tu_set(&m, "destinations4")->n_elems, 0);
	sw_model_free(&m);
}

/* ---- switches ---------------------------------------------------------------- */

static void test_dns_none(void **state)
{
	struct sw_model m;

	(void)state;
	tk_build("[allow]\ndns = none\n", &m);
	assert_text(&m, "allow4", NULL, 0);
	assert_int_equal(tu_set(&m, "allow4")->n_elems, 0);
	assert_int_equal(tu_set(&m, "allow4_exact")->n_elems, 0);
	assert_non_null(tu_rule(&m, "sandwall:allow4"));
	assert_non_null(tu_rule(&m, "sandwall:allow4_exact"));
	sw_model_free(&m);
}

static void test_private(void **state)
{
	struct sw_model m;
	static const char *const p4[] = { "10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12",
					  "192.168.0.0/16" };
	static const char *const p6[] = { "fc00::/7" };

	(void)state;
	tk_build("[block]\nprivate = no\n", &m);
	assert_text(&m, "private4", NULL, 0);
	assert_int_equal(tu_set(&m, "private4")->n_elems, 0);
	sw_model_free(&m);
	tk_build("[block]\nprivate = yes\n", &m);
	assert_text(&m, "private4", p4, N(p4));
	assert_text(&m, "private6", p6, N(p6));
	sw_model_free(&m);
	/* the default is on */
	tk_build("", &m);
	assert_text(&m, "private4", p4, N(p4));
	sw_model_free(&m);
}

/* sandboxes: the guarded subnets (not [allow] networks), never in the
 * gate (judged in the forward hook); [block] sandboxes = no empties them;
 * between holds both directions of each pair. */
static void test_sandboxes(void **state)
{
	struct sw_model m;
	static const char *const sbx4[] = { "172.17.0.0-172.18.255.255" };
	static const char *const pairs[] = { "\"docker0\" . \"br-x\"", "\"br-x\" . \"docker0\"" };

	(void)state;
	tk_build("[allow]\nnetworks = 10.244.0.0/16\nbetween = docker0:br-x\n", &m);
	assert_text(&m, "sandboxes4", sbx4, N(sbx4));
	assert_false(has_text(tu_set(&m, "gate4_a"), "172.17.0.0-172.18.255.255"));
	assert_text(&m, "between", pairs, N(pairs));
	assert_int_equal(tu_set(&m, "between")->key_len, 32);
	assert_non_null(sw_model_find_chain(&m, "block_sandboxes"));
	assert_true(sw_model_find_counter(&m, "sandboxes") >= 0);
	/* only in guard_fwd (in guard the gate's fast path would skip own
	 * destinations before it) */
	{
		size_t k = 0;

		for (size_t i = 0; i < m.n_rules; i++)
			if (!strcmp(m.rules[i].tag, "sandwall:sandboxes4")) {
				assert_string_equal(m.rules[i].chain, "guard_fwd");
				k++;
			}
		assert_int_equal(k, 1);
	}
	sw_model_free(&m);
	tk_build("[block]\nsandboxes = no\n", &m);
	assert_int_equal(tu_set(&m, "sandboxes4")->n_elems, 0);
	assert_non_null(tu_rule(&m, "sandwall:sandboxes4"));
	sw_model_free(&m);
}

/* [allow] networks go into own: lan and private leave them open (out of
 * the gate), the categories before own do not. */
static void test_allow_networks(void **state)
{
	struct sw_model m;
	static const char *const own4[] = { "10.96.0.0/12", "10.244.0.0/16",
					    "172.17.0.0-172.18.255.255" };

	(void)state;
	tk_build("[allow]\nnetworks = 10.244.0.0/16 10.96.0.0/12 10.244.0.0/16\n", &m);
	assert_text(&m, "own4", own4, N(own4));
	assert_false(has_text(tu_set(&m, "gate4_a"), "10.0.0.0/8"));
	assert_true(has_text(tu_set(&m, "gate4_a"), "169.254.0.0/16"));
	assert_true(has_text(tu_set(&m, "private4"), "10.0.0.0/8"));
	sw_model_free(&m);
}

/* The gate (gate4_a/gate6_a, the fast path's buffer selected when
 * built): every address a category's set blocks, less the own subnets
 * where only lan and private would block (a destination inside own,
 * listed before own, stays in); gate4_b/gate6_b empty, gate_a selects. */
static void test_gate(void **state)
{
	struct sw_model m;
	static const char *const g4[] = {
		"8.8.8.0/24", "10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/16", "172.17.5.5",
		"172.19.0.0-172.31.255.255", "192.168.0.0/16",
	};
	static const char *const g6[] = { "fc00::/7" };
	static const char *const sel[] = { "ipv4", "ipv6" };

	(void)state;
	tk_build("[block]\nmetadata = no\nlink_local = no\ngateways = no\nlan = no\n"
		 "private = yes\ndestinations = 172.17.5.5 8.8.8.0/24\n", &m);
	assert_text(&m, "gate4_a", g4, N(g4));
	assert_text(&m, "gate6_a", g6, N(g6));
	assert_int_equal(tu_set(&m, "gate4_b")->n_elems, 0);
	assert_int_equal(tu_set(&m, "gate6_b")->n_elems, 0);
	assert_text(&m, "gate_a", sel, N(sel));
	assert_int_equal(tu_set(&m, "gate_b")->n_elems, 0);
	assert_int_equal(tu_set(&m, "gate_a")->key_len, 1);
	sw_model_free(&m);
	/* the default: every category's entries are in it (the LAN's
	 * 10.0.0.0/24 inside private's 10.0.0.0/8) */
	tk_build("", &m);
	assert_true(has_text(tu_set(&m, "gate4_a"), "169.254.0.0/16"));
	assert_true(has_text(tu_set(&m, "gate4_a"), "10.0.0.0/8"));
	sw_model_free(&m);
	tk_build("[block]\nprivate = no\n", &m);
	assert_true(has_text(tu_set(&m, "gate4_a"), "10.0.0.0/24"));
	assert_true(has_text(tu_set(&m, "gate6_a"), "fe80::/10"));
	sw_model_free(&m);
}

/* Switching a category changes its own sets and the gate's elements,
 * never a rule: what the packet path reads while a category changes is
 * the gate buffer selected, which a change never edits (test_gate_settle
 * in test_gate.c; check-kernels' core_11 floods while private toggles). */
static void test_toggle_changes_sets_only(void **state)
{
	static struct sw_model a, b;

	(void)state;
	tk_build("", &a);
	tk_build("[block]\nprivate = no\n", &b);
	for (size_t i = 0; i < a.n_sets; i++) {
		const struct sw_set *x = &a.sets[i], *y = tu_set(&b, x->name);
		bool same = x->n_elems == y->n_elems;

		for (size_t j = 0; same && j < x->n_elems; j++)
			same = sw_elem_same(&x->elems[j], &y->elems[j], x->key_len);
		if (!strncmp(x->name, "private", 7) || !strcmp(x->name, "gate4_a") ||
		    !strcmp(x->name, "gate6_a"))
			assert_false(same);
		else
			assert_true(same);
	}
	assert_int_equal(a.n_rules, b.n_rules);
	for (size_t i = 0; i < a.n_rules; i++)
		assert_true(sw_rule_same(&a.rules[i], &b.rules[i]));
	sw_model_free(&a);
	sw_model_free(&b);
}

static void test_host_no(void **state)
{
	struct sw_model m;

	(void)state;
	tk_build("", &m);
	assert_non_null(tu_rule(&m, "sandwall:host"));
	assert_non_null(sw_model_find_chain(&m, "input"));
	assert_int_equal(m.n_rules, 114);
	sw_model_free(&m);
	tk_build("[block]\nhost = no\n", &m);
	assert_null(tu_rule(&m, "sandwall:host"));
	/* no host block: no input chain for broadcast/multicast either */
	assert_null(sw_model_find_chain(&m, "input"));
	assert_null(sw_model_find_chain(&m, "guard_input"));
	assert_null(tu_rule(&m, "sandwall:input-host"));
	/* after NAT still: forward and guard_nat, without the host rule */
	assert_non_null(sw_model_find_chain(&m, "guard_nat"));
	assert_int_equal(m.n_rules, 97);
	/* no host block: the fast path needs no fib */
	{
		const struct sw_rule *r = tu_rule(&m, "sandwall:unblocked4a");

		assert_non_null(r);
		if (r)
			assert_string_equal(r->text, "meta nfproto @gate_a ip daddr != @gate4_a return "
					    "comment \"sandwall:unblocked4a\"");
	}
	sw_model_free(&m);
}

static void test_lan_no(void **state)
{
	struct sw_model m;

	(void)state;
	tk_build("[block]\nlan = no\n", &m);
	assert_text(&m, "lan4", NULL, 0);
	assert_text(&m, "lan6", NULL, 0);
	assert_int_equal(tu_set(&m, "lan4")->n_elems, 0);
	sw_model_free(&m);
	tk_build("[block]\ngateways = no\nlink_local = no\n", &m);
	assert_text(&m, "gateways4", NULL, 0);
	assert_text(&m, "gateways6", NULL, 0);
	assert_text(&m, "link_local4", NULL, 0);
	sw_model_free(&m);
}

static void test_all_bridges(void **state)
{
	static struct sw_host h;
	struct sw_model m;
	static const char *const ifs_no[] = { "\"br-*\"", "\"docker0\"" };
	static const char *const ifs_yes[] = { "\"br-*\"", "\"docker0\"", "\"mybr\"" };
	static const char *const own_yes[] = { "172.17.0.0-172.18.255.255", "192.168.77.0/24" };
	static const char *const lan_no[] = { "10.0.0.0/24", "192.168.77.0/24" };
	static const char *const lan_yes[] = { "10.0.0.0/24" };
	struct sw_link l = { .ifindex = 7, .name = "mybr", .is_bridge = true, .up = true };
	struct sw_config cfg;
	char err[SW_ERRLEN];

	(void)state;
	tk_host(&h);
	tk_link(&h, 7, "mybr", true);
	tk_addr(&h, 7, "192.168.77.1/24");

	tk_build_host(TK_LEGACY_GUARD, &h, &m);
	assert_text(&m, "guard_ifaces", ifs_no, N(ifs_no));
	assert_text(&m, "lan4", lan_no, N(lan_no));
	sw_model_free(&m);

	tk_build_host(TK_LEGACY_GUARD "all_bridges = yes\n", &h, &m);
	assert_text(&m, "guard_ifaces", ifs_yes, N(ifs_yes));
	assert_text(&m, "own4", own_yes, N(own_yes));
	assert_text(&m, "lan4", lan_yes, N(lan_yes));
	sw_model_free(&m);

	assert_int_equal(sw_config_parse_string(TK_LEGACY_GUARD "all_bridges = yes\n", "t", &cfg, err,
						sizeof(err)), 0);
	assert_true(sw_ruleset_guarded(&cfg, &l));
	assert_int_equal(sw_ruleset_guard_why(&cfg, &l), SW_GUARD_ALL_BRIDGES);
	assert_int_equal(sw_config_parse_string(TK_LEGACY_GUARD, "t", &cfg, err, sizeof(err)), 0);
	assert_false(sw_ruleset_guarded(&cfg, &l));
	snprintf(l.name, sizeof(l.name), "br-xyz");
	l.is_bridge = false;
	assert_true(sw_ruleset_guarded(&cfg, &l));
	sw_host_free(&h);
}

/* Two patterns whose ranges touch ("a*" ends right before "b*" starts)
 * must both stay in the nft text: the text is what `export` prints. */
static int model_setup(void **state)
{
	struct sw_model *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	*state = m;
	return 0;
}

/* frees the model even when the test failed half-way */
static int model_teardown(void **state)
{
	sw_model_free(*state);
	free(*state);
	return 0;
}

static void test_adjacent_patterns_text(void **state)
{
	struct sw_model *m = *state;
	static const char *const ifs[] = { "\"a*\"", "\"b*\"" };
	static const char *const raw[] = { "\"\" [end]", "\"a\"", "\"b\" [end]", "\"b\"",
					   "\"c\" [end]" };

	tk_build("[guard]\ninterfaces = a* b*\n", m);
	/* touching name ranges stay apart, as nft 1.0.6 sends them (an END
	 * and a start with the same key; the kernel takes both) ... */
	assert_elems(m, "guard_ifaces", raw, N(raw));
	/* ... but the text must still name both patterns */
	assert_text(m, "guard_ifaces", ifs, N(ifs));
}

static void test_log_no(void **state)
{
	struct sw_model m;
	size_t logs = 0;

	(void)state;
	tk_build("", &m);
	for (size_t i = 0; i < m.n_rules; i++)
		logs += strstr(m.rules[i].tag, "-log") != NULL;
	assert_int_equal(logs, SW_CAT_COUNT);   /* one per category */
	sw_model_free(&m);
	tk_build("[log]\nblocked = no\n", &m);
	for (size_t i = 0; i < m.n_rules; i++)
		assert_null(strstr(m.rules[i].tag, "-log"));
	assert_int_equal(m.n_rules, 105);     /* the names rules stay: [log] flows */
	sw_model_free(&m);
	/* the network log off: no names rules; their group is [log] names_group */
	tk_build("[log]\nflows = no\n", &m);
	assert_null(tu_rule(&m, "sandwall:dns-names"));
	assert_null(tu_rule(&m, "sandwall:dns-names-tcp"));
	assert_int_equal(m.n_rules, 112);
	sw_model_free(&m);
	tk_build("[log]\nnames_group = 77\n", &m);
	for (int i = 0; i < 2; i++) {
		const struct sw_rule *r = tu_rule(&m, i ? "sandwall:dns-names-tcp" : "sandwall:dns-names");

		assert_non_null(r);
		assert_non_null(strstr(r ? r->text : "", "group 77 "));
	}
	sw_model_free(&m);
}

static void test_allow_and_host_ports(void **state)
{
	struct sw_model m;
	static const char *const a4[] = { "10.0.0.5 . tcp . 3128", "10.0.0.6 . udp . 65535",
					  "10.0.0.7 . tcp . 1", "169.254.169.253 . tcp . 53",
					  "169.254.169.253 . udp . 53" };
	static const char *const a6[] = { "fd00::/8 . udp . 53" };
	static const char *const a6x[] = { "fd00::1 . tcp . 443" };
	static const char *const a6e[] = {
		"fd00:: . 17 . 53 - fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff . 17 . 53" };
	static const char *const hp[] = { "6 . 53", "17 . 53" };
	static const char *const d4[] = { "10.9.0.0/16" };

	(void)state;
	tk_build("[allow]\nhost_ports = udp/53 tcp/53\n"
		 "destinations = 10.0.0.5 tcp/3128 reopen, fd00::/8 udp/53 reopen, "
		 "fd00::1 tcp/443 reopen, 10.0.0.6 udp/65535 reopen, 10.0.0.7 tcp/1 reopen\n"
		 "[block]\ndestinations = 10.9.0.0/16\n", &m);
	/* one address, one protocol, one port: the hash sets; a prefix: the
	 * interval sets */
	assert_text(&m, "allow4_exact", a4, N(a4));
	assert_text(&m, "allow4", NULL, 0);
	assert_text(&m, "allow6", a6, N(a6));
	assert_text(&m, "allow6_exact", a6x, N(a6x));
	assert_elems(&m, "allow6", a6e, N(a6e));
	assert_elems(&m, "host_ports", hp, N(hp));
	assert_text(&m, "destinations4", d4, N(d4));
	sw_model_free(&m);
}

/* ---- chains and rules ------------------------------------------------------------ */

static void test_chains_and_counters(void **state)
{
	static const char *const chains[] = {
		"prerouting", "guard", "guard_nd", "input", "guard_input", "forward", "guard_fwd",
		"guard_nat", "block_spoofed",
		"block_metadata", "block_link_local", "block_host",
		"block_gateways", "block_lan", "block_private", "block_destinations", "block_sandboxes",
	};
	static const char *const counters[] = {
		"spoofed", "metadata", "link_local", "host", "gateways", "lan", "private",
		"destinations", "sandboxes",
	};
	struct sw_model m;
	const struct sw_chain *c;

	(void)state;
	tk_build("", &m);
	assert_int_equal(m.n_chains, N(chains));
	for (size_t i = 0; i < N(chains); i++)
		assert_string_equal(m.chains[i].name, chains[i]);
	c = sw_model_find_chain(&m, "prerouting");
	assert_true(c->base);
	assert_int_equal(c->hook, 0 /* NF_INET_PRE_ROUTING */);
	assert_int_equal(c->prio, -150);
	assert_int_equal(c->policy, 1 /* NF_ACCEPT */);
	assert_string_equal(c->type, "filter");
	assert_false(sw_model_find_chain(&m, "guard")->base);
	c = sw_model_find_chain(&m, "input");
	assert_true(c->base);
	assert_int_equal(c->hook, 1 /* NF_INET_LOCAL_IN */);
	assert_int_equal(c->prio, -150);
	assert_int_equal(c->policy, 1 /* NF_ACCEPT */);
	assert_false(sw_model_find_chain(&m, "guard_input")->base);
	assert_int_equal(m.n_counters, N(counters));
	for (size_t i = 0; i < N(counters); i++)
		assert_string_equal(m.counters[i], counters[i]);
	sw_model_free(&m);
}

/* [guard] users and cgroups: the output hook and guard_output, with the
 * same categories as guard; nothing of it without the keys */
static void test_output_path(void **state)
{
	static struct sw_host h;
	const char *tags[64];
	const struct sw_chain *c;
	const struct sw_set *s;
	struct sw_model m;
	uint64_t id;
	uint32_t uid;
	size_t n, ng;
	const char *gtags[64];

	(void)state;
	tk_build("", &m);
	assert_null(sw_model_find_chain(&m, "output"));
	assert_null(sw_model_find_chain(&m, "guard_output"));
	assert_null(sw_model_find_set(&m, "guard_uids"));
	sw_model_free(&m);

	tk_host(&h);
	assert_int_equal(sw_host_room_cgroups(&h, 3), 0);
	h.cgroups[0] = (struct sw_cgroup){ .id = 4400, .level = 2, .path = "system.slice/docker-b.scope" };
	h.cgroups[1] = (struct sw_cgroup){ .id = 77, .level = 2, .path = "system.slice/docker-a.scope" };
	h.cgroups[2] = (struct sw_cgroup){ .id = 9, .level = 1, .path = "other" };
	h.n_cgroups = 3;
	tk_build_host("[guard]\ninterfaces = auto\nusers = 42001\ncgroups = system.slice/docker-*.scope\n",
		      &h, &m);
	c = sw_model_find_chain(&m, "output");
	assert_non_null(c);
	assert_true(c->base);
	assert_int_equal(c->hook, 3 /* NF_INET_LOCAL_OUT */);
	assert_int_equal(c->prio, -150);
	n = tu_chain_rules(&m, "output", tags, 64);
	assert_int_equal(n, 2);
	assert_string_equal(tags[0], "sandwall:output-users");
	assert_string_equal(tags[1], "sandwall:output-cg2");
	s = tu_set(&m, "guard_uids");
	assert_int_equal(s->n_elems, 1);
	memcpy(&uid, s->elems[0].key, sizeof(uid));
	assert_int_equal(uid, 42001);
	/* only level 2: guard_cg2 with the two level-2 ids (in key order) */
	assert_null(sw_model_find_set(&m, "guard_cg1"));
	s = tu_set(&m, "guard_cg2");
	assert_int_equal(s->n_elems, 2);
	{
		uint64_t sum = 0;

		for (size_t i = 0; i < 2; i++) {
			memcpy(&id, s->elems[i].key, sizeof(id));
			assert_true(id == 77 || id == 4400);
			sum += id;
		}
		assert_int_equal(sum, 77 + 4400);
	}
	/* guard_output: its own head, then exactly guard's categories (what
	 * follows host_ports in each) */
	n = tu_chain_rules(&m, "guard_output", tags, 64);
	assert_string_equal(tags[0], "sandwall:out-spoofed");
	assert_string_equal(tags[1], "sandwall:out-replies");
	assert_string_equal(tags[2], "sandwall:out-unblocked4a");
	assert_string_equal(tags[3], "sandwall:out-unblocked6a");
	assert_string_equal(tags[4], "sandwall:out-unblocked4b");
	assert_string_equal(tags[5], "sandwall:out-unblocked6b");
	assert_string_equal(tags[6], "sandwall:out-allow4_exact");
	assert_string_equal(tags[7], "sandwall:out-allow6_exact");
	assert_string_equal(tags[8], "sandwall:out-allow4");
	assert_string_equal(tags[9], "sandwall:out-allow6");
	assert_string_equal(tags[10], "sandwall:out-host_ports");
	ng = tu_chain_rules(&m, "guard", gtags, 64);
	{
		size_t g = 0;

		while (g < ng && strcmp(gtags[g], "sandwall:host_ports"))
			g++;
		assert_true(g < ng);
		assert_int_equal(n - 11, ng - g - 1);
		for (size_t i = 11; i < n; i++)
			assert_string_equal(tags[i], gtags[g + 1 + i - 11]);
	}
	sw_model_free(&m);
	sw_host_free(&h);
}

static void test_guard_order(void **state)
{
	const char *tags[64];
	struct sw_model m;
	size_t n;

	(void)state;
	tk_build("", &m);
	n = tu_chain_rules(&m, "guard", tags, 64);
	assert_int_equal(n, N(golden_guard_tags));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(tags[i], golden_guard_tags[i]);
	n = tu_chain_rules(&m, "prerouting", tags, 64);
	assert_int_equal(n, 4);
	assert_string_equal(tags[0], "sandwall:guard-links");
	assert_string_equal(tags[1], "sandwall:guard");
	/* auto: by kind from the first packet, lo and the uplinks excepted */
	assert_string_equal(tags[2], "sandwall:guard-kinds");
	assert_string_equal(tags[3], "sandwall:guard-tap");
	/* neighbour discovery behind one compare */
	n = tu_chain_rules(&m, "guard_nd", tags, 64);
	assert_int_equal(n, 4);
	assert_string_equal(tags[0], "sandwall:nd-solicit");
	assert_string_equal(tags[1], "sandwall:nd-advert");
	assert_string_equal(tags[2], "sandwall:nd-solicit-host");
	assert_string_equal(tags[3], "sandwall:nd-advert-host");
	n = tu_chain_rules(&m, "block_lan", tags, 64);
	assert_int_equal(n, 3);
	assert_string_equal(tags[0], "sandwall:lan-count");
	assert_string_equal(tags[1], "sandwall:lan-log");
	assert_string_equal(tags[2], "sandwall:lan-drop");
	/* the input hook: unicast was judged in guard; ND and host_ports
	 * return; every other broadcast/multicast to the host is blocked */
	n = tu_chain_rules(&m, "input", tags, 64);
	assert_int_equal(n, 8);
	assert_string_equal(tags[0], "sandwall:input-nat-links");
	assert_string_equal(tags[1], "sandwall:input-nat");
	assert_string_equal(tags[3], "sandwall:input-nat-tap");
	assert_string_equal(tags[4], "sandwall:guard-input-links");
	assert_string_equal(tags[5], "sandwall:guard-input");
	assert_string_equal(tags[6], "sandwall:guard-input-kinds");
	assert_string_equal(tags[7], "sandwall:guard-input-tap");
	n = tu_chain_rules(&m, "guard_input", tags, 64);
	assert_int_equal(n, 7);
	assert_string_equal(tags[0], "sandwall:input-local");
	assert_string_equal(tags[1], "sandwall:input-nd-solicit");
	assert_string_equal(tags[2], "sandwall:input-nd-advert");
	assert_string_equal(tags[3], "sandwall:input-host-ports");
	assert_string_equal(tags[4], "sandwall:input-rs");
	assert_string_equal(tags[5], "sandwall:input-mld");
	assert_string_equal(tags[6], "sandwall:input-host");
	/* every rule carries its object for the encoder */
	for (size_t i = 0; i < m.n_rules; i++)
		assert_non_null(m.rules[i].nl);
	sw_model_free(&m);

	/* with a sandbox, its dispatch comes after replies and ND, before allow;
	 * the fast path after its dispatch (a policy judges allowed
	 * destinations too) */
	tk_build("[sandbox agents]\ninterfaces = br-agents*\negress = none\n", &m);
	n = tu_chain_rules(&m, "guard", tags, 64);
	assert_true(n >= 9);
	assert_string_equal(tags[0], "sandwall:spoofed");
	assert_string_equal(tags[1], "sandwall:replies");
	assert_string_equal(tags[2], "sandwall:nd");
	assert_string_equal(tags[3], "sandwall:sbx-agents-ifaces");
	assert_string_equal(tags[4], "sandwall:unblocked4a");
	assert_string_equal(tags[7], "sandwall:unblocked6b");
	assert_string_equal(tags[8], "sandwall:allow4_exact");
	sw_model_free(&m);
}

static void assert_rule(const struct sw_model *m, const char *tag, const char *chain,
			const char *canon, const char *text)
{
	const struct sw_rule *r = tu_rule(m, tag);

	if (!r) {
		fail_msg("no rule %s", tag);
		return;
	}
	assert_string_equal(r->chain, chain);
	assert_string_equal(r->canon, canon);
	assert_string_equal(r->text, text);
}

/* After NAT (issue 22): forward and input send a guarded interface's
 * translated packets (direction original, ct status dnat) to guard_nat,
 * which judges the new destination as guard does: the fast path, allow,
 * host_ports, the categories, the fallback. */
static void test_after_nat(void **state)
{
	const char *tags[64];
	struct sw_model m;
	const struct sw_chain *c;
	size_t n;

	(void)state;
	tk_build("", &m);
	if (!(c = sw_model_find_chain(&m, "forward")))
		fail_msg("no chain forward");
	assert_true(c->base);
	assert_int_equal(c->hook, 2 /* NF_INET_FORWARD */);
	assert_int_equal(c->prio, -150);
	if (!(c = sw_model_find_chain(&m, "guard_nat")))
		fail_msg("no chain guard_nat");
	assert_false(c->base);
	/* forward: the side that opened the connection, to guard_fwd: the
	 * routed categories (sandboxes), then a translated destination */
	n = tu_chain_rules(&m, "forward", tags, 64);
	assert_int_equal(n, 6);
	assert_string_equal(tags[2], "sandwall:fwd-kinds");
	assert_string_equal(tags[3], "sandwall:fwd-tap");
	/* last, the network log's names: a log, no verdict, for DNS over
	 * UDP and over TCP */
	assert_string_equal(tags[4], "sandwall:dns-names");
	assert_string_equal(tags[5], "sandwall:dns-names-tcp");
	assert_rule(&m, "sandwall:dns-names", "forward",
		    "[ ct load direction => reg 1 ] [ cmp eq reg 1 0x00000001 ] "
		    "[ meta load l4proto => reg 1 ] [ cmp eq reg 1 0x00000011 ] "
		    "[ payload load 2b @ transport header + 0 => reg 1 ] [ cmp eq reg 1 0x00003500 ] "
		    "[ log prefix sandwall:dns  group 3211 snaplen 0 qthreshold 0 ]",
		    "ct direction reply meta l4proto udp th sport 53 "
		    "log prefix \"sandwall:dns \" group 3211 comment \"sandwall:dns-names\"");
	assert_rule(&m, "sandwall:dns-names-tcp", "forward",
		    "[ ct load direction => reg 1 ] [ cmp eq reg 1 0x00000001 ] "
		    "[ meta load l4proto => reg 1 ] [ cmp eq reg 1 0x00000006 ] "
		    "[ payload load 2b @ transport header + 0 => reg 1 ] [ cmp eq reg 1 0x00003500 ] "
		    "[ log prefix sandwall:dns  group 3211 snaplen 0 qthreshold 0 ]",
		    "ct direction reply meta l4proto tcp th sport 53 "
		    "log prefix \"sandwall:dns \" group 3211 comment \"sandwall:dns-names-tcp\"");
	assert_rule(&m, "sandwall:fwd", "forward",
		    "[ ct load direction => reg 1 ] [ cmp eq reg 1 0x00000000 ] "
		    "[ meta load iifname => reg 1 ] "
		    "[ lookup reg 1 set guard_ifaces 0x0 ] [ immediate reg 0 goto -> guard_fwd ]",
		    "ct direction original iifname @guard_ifaces goto guard_fwd "
		    "comment \"sandwall:fwd\"");
	n = tu_chain_rules(&m, "guard_fwd", tags, 64);
	assert_int_equal(n, 3);
	assert_rule(&m, "sandwall:sandboxes4", "guard_fwd",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ payload load 4b @ network header + 16 => reg 1 ] [ lookup reg 1 set sandboxes4 0x0 ] "
		    "[ fib daddr . iif oif present => reg 1 ] [ cmp eq reg 1 0x00000000 ] "
		    "[ meta load iifname => reg 1 ] [ meta load oifname => reg 2 ] "
		    "[ lookup reg 1 set between 0x1 ] [ immediate reg 0 goto -> block_sandboxes ]",
		    "ip daddr @sandboxes4 fib daddr . iif oif missing iifname . oifname != @between "
		    "goto block_sandboxes comment \"sandwall:sandboxes4\"");
	assert_rule(&m, "sandwall:fwd-nat", "guard_fwd",
		    "[ ct load status => reg 1 ] [ bitwise reg 1 = ( reg 1 & 0x00000020 ) ^ 0x00000000 ] "
		    "[ cmp neq reg 1 0x00000000 ] [ immediate reg 0 goto -> guard_nat ]",
		    "ct status dnat goto guard_nat comment \"sandwall:fwd-nat\"");
	/* the input hook's translated packets */
	assert_rule(&m, "sandwall:input-nat", "input",
		    "[ ct load direction => reg 1 ] [ cmp eq reg 1 0x00000000 ] "
		    "[ ct load status => reg 1 ] [ bitwise reg 1 = ( reg 1 & 0x00000020 ) ^ 0x00000000 ] "
		    "[ cmp neq reg 1 0x00000000 ] [ meta load iifname => reg 1 ] "
		    "[ lookup reg 1 set guard_ifaces 0x0 ] [ immediate reg 0 goto -> guard_nat ]",
		    "ct direction original ct status dnat iifname @guard_ifaces goto guard_nat "
		    "comment \"sandwall:input-nat\"");
	n = tu_chain_rules(&m, "guard_nat", tags, 64);
	assert_int_equal(n, 26);
	assert_string_equal(tags[0], "sandwall:unblocked4a");
	assert_string_equal(tags[4], "sandwall:allow4_exact");
	assert_string_equal(tags[8], "sandwall:host_ports");
	assert_string_equal(tags[9], "sandwall:metadata4");
	assert_string_equal(tags[13], "sandwall:host");
	assert_string_equal(tags[21], "sandwall:private6");
	assert_string_equal(tags[25], "sandwall:gated6b");
	/* the same rule as guard's, in guard_nat */
	for (size_t i = 0; i < m.n_rules; i++)
		if (!strcmp(m.rules[i].chain, "guard_nat")) {
			const struct sw_rule *g = NULL;

			for (size_t j = 0; j < m.n_rules && !g; j++)
				if (!strcmp(m.rules[j].chain, "guard") && !strcmp(m.rules[j].tag, m.rules[i].tag))
					g = &m.rules[j];
			if (!g)
				fail_msg("%s: not in guard", m.rules[i].tag);
			assert_string_equal(g->canon, m.rules[i].canon);
		}
	sw_model_free(&m);
}

static void test_canon_golden(void **state)
{
	struct sw_model m;

	(void)state;
	tk_build("", &m);
	assert_rule(&m, "sandwall:guard-links", "prerouting",
		    "[ meta load iifname => reg 1 ] [ lookup reg 1 set guard_links 0x0 ] "
		    "[ immediate reg 0 goto -> guard ]",
		    "iifname @guard_links goto guard comment \"sandwall:guard-links\"");
	assert_rule(&m, "sandwall:guard", "prerouting",
		    "[ meta load iifname => reg 1 ] [ lookup reg 1 set guard_ifaces 0x0 ] "
		    "[ immediate reg 0 goto -> guard ]",
		    "iifname @guard_ifaces goto guard comment \"sandwall:guard\"");
	assert_rule(&m, "sandwall:guard-kinds", "prerouting",
		    "[ meta load iifkind => reg 1 ] [ lookup reg 1 set guard_kinds 0x0 ] "
		    "[ meta load iifname => reg 1 ] [ lookup reg 1 set guard_except 0x1 ] "
		    "[ immediate reg 0 goto -> guard ]",
		    "meta iifkind @guard_kinds iifname != @guard_except goto guard "
		    "comment \"sandwall:guard-kinds\"");
	assert_rule(&m, "sandwall:guard-tap", "prerouting",
		    "[ meta load iifkind => reg 1 ] [ cmp eq reg 1 0x006e7574 0x00000000 0x00000000 0x00000000 ] "
		    "[ meta load iiftype => reg 1 ] [ cmp eq reg 1 0x00000001 ] "
		    "[ meta load iifname => reg 1 ] [ lookup reg 1 set guard_except 0x1 ] "
		    "[ immediate reg 0 goto -> guard ]",
		    "meta iifkind \"tun\" meta iiftype ether iifname != @guard_except goto guard "
		    "comment \"sandwall:guard-tap\"");
	assert_rule(&m, "sandwall:spoofed", "guard",
		    "[ fib saddr . iif oif present => reg 1 ] [ cmp eq reg 1 0x00000000 ] "
		    "[ immediate reg 0 goto -> block_spoofed ]",
		    "fib saddr . iif oif missing goto block_spoofed comment \"sandwall:spoofed\"");
	assert_rule(&m, "sandwall:replies", "guard",
		    "[ ct load state => reg 1 ] "
		    "[ bitwise reg 1 = ( reg 1 & 0x00000002 ) ^ 0x00000000 ] "
		    "[ cmp neq reg 1 0x00000000 ] "
		    "[ ct load direction => reg 1 ] [ cmp eq reg 1 0x00000001 ] "
		    "[ immediate reg 0 accept ]",
		    "ct state established ct direction reply accept comment \"sandwall:replies\"");
	assert_rule(&m, "sandwall:nd", "guard",
		    "[ meta load l4proto => reg 1 ] [ cmp eq reg 1 0x0000003a ] "
		    "[ immediate reg 0 jump -> guard_nd ]",
		    "meta l4proto ipv6-icmp jump guard_nd comment \"sandwall:nd\"");
	assert_rule(&m, "sandwall:nd-solicit", "guard_nd",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x0000000a ] "
		    "[ meta load l4proto => reg 1 ] [ cmp eq reg 1 0x0000003a ] "
		    "[ payload load 1b @ transport header + 0 => reg 1 ] [ cmp eq reg 1 0x00000087 ] "
		    "[ payload load 1b @ network header + 7 => reg 1 ] [ cmp eq reg 1 0x000000ff ] "
		    "[ payload load 16b @ network header + 24 => reg 1 ] "
		    "[ lookup reg 1 set nd6 0x0 ] [ immediate reg 0 accept ]",
		    "icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 ip6 daddr @nd6 accept "
		    "comment \"sandwall:nd-solicit\"");
	assert_rule(&m, "sandwall:nd-advert-host", "guard_nd",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x0000000a ] "
		    "[ meta load l4proto => reg 1 ] [ cmp eq reg 1 0x0000003a ] "
		    "[ payload load 1b @ transport header + 0 => reg 1 ] [ cmp eq reg 1 0x00000088 ] "
		    "[ payload load 1b @ network header + 7 => reg 1 ] [ cmp eq reg 1 0x000000ff ] "
		    "[ fib daddr type => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ immediate reg 0 accept ]",
		    "icmpv6 type nd-neighbor-advert ip6 hoplimit 255 fib daddr type local accept "
		    "comment \"sandwall:nd-advert-host\"");
	assert_rule(&m, "sandwall:input-host-ports", "guard_input",
		    "[ meta load l4proto => reg 1 ] "
		    "[ payload load 2b @ transport header + 2 => reg 9 ] "
		    "[ lookup reg 1 set host_ports 0x0 ] [ immediate reg 0 return ]",
		    "meta l4proto . th dport @host_ports return comment \"sandwall:input-host-ports\"");
	assert_rule(&m, "sandwall:metadata4", "guard",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ payload load 4b @ network header + 16 => reg 1 ] "
		    "[ lookup reg 1 set metadata4 0x0 ] [ immediate reg 0 goto -> block_metadata ]",
		    "ip daddr @metadata4 goto block_metadata comment \"sandwall:metadata4\"");
	assert_rule(&m, "sandwall:lan6", "guard",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x0000000a ] "
		    "[ payload load 16b @ network header + 24 => reg 1 ] "
		    "[ lookup reg 1 set lan6 0x0 ] [ immediate reg 0 goto -> block_lan ]",
		    "ip6 daddr @lan6 goto block_lan comment \"sandwall:lan6\"");
	assert_null(tu_rule(&m, "sandwall:own4"));         /* behind the gate: not needed */
	assert_rule(&m, "sandwall:unblocked4a", "guard",
		    "[ meta load nfproto => reg 1 ] [ lookup reg 1 set gate_a 0x0 ] "
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ payload load 4b @ network header + 16 => reg 1 ] "
		    "[ lookup reg 1 set gate4_a 0x1 ] "
		    "[ fib daddr type => reg 1 ] [ cmp neq reg 1 0x00000002 ] "
		    "[ immediate reg 0 return ]",
		    "meta nfproto @gate_a ip daddr != @gate4_a fib daddr type != local return "
		    "comment \"sandwall:unblocked4a\"");
	assert_rule(&m, "sandwall:unblocked6b", "guard",
		    "[ meta load nfproto => reg 1 ] [ lookup reg 1 set gate_b 0x0 ] "
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x0000000a ] "
		    "[ payload load 16b @ network header + 24 => reg 1 ] "
		    "[ lookup reg 1 set gate6_b 0x1 ] "
		    "[ fib daddr type => reg 1 ] [ cmp neq reg 1 0x00000002 ] "
		    "[ immediate reg 0 return ]",
		    "meta nfproto @gate_b ip6 daddr != @gate6_b fib daddr type != local return "
		    "comment \"sandwall:unblocked6b\"");
	assert_rule(&m, "sandwall:gated4b", "guard",
		    "[ meta load nfproto => reg 1 ] [ lookup reg 1 set gate_b 0x0 ] "
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ payload load 4b @ network header + 16 => reg 1 ] "
		    "[ lookup reg 1 set gate4_b 0x0 ] [ immediate reg 0 drop ]",
		    "meta nfproto @gate_b ip daddr @gate4_b drop comment \"sandwall:gated4b\"");
	assert_rule(&m, "sandwall:host", "guard",
		    "[ fib daddr type => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ immediate reg 0 goto -> block_host ]",
		    "fib daddr type local goto block_host comment \"sandwall:host\"");
	assert_rule(&m, "sandwall:allow4", "guard",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ payload load 4b @ network header + 16 => reg 1 ] "
		    "[ payload load 1b @ network header + 9 => reg 9 ] "
		    "[ payload load 2b @ transport header + 2 => reg 10 ] "
		    "[ lookup reg 1 set allow4 0x0 ] [ immediate reg 0 accept ]",
		    "ip daddr . ip protocol . th dport @allow4 accept comment \"sandwall:allow4\"");
	assert_rule(&m, "sandwall:allow6", "guard",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x0000000a ] "
		    "[ payload load 16b @ network header + 24 => reg 1 ] "
		    "[ payload load 1b @ network header + 6 => reg 2 ] "
		    "[ payload load 2b @ transport header + 2 => reg 13 ] "
		    "[ lookup reg 1 set allow6 0x0 ] [ immediate reg 0 accept ]",
		    "ip6 daddr . ip6 nexthdr . th dport @allow6 accept comment \"sandwall:allow6\"");
	assert_rule(&m, "sandwall:allow4_exact", "guard",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ payload load 4b @ network header + 16 => reg 1 ] "
		    "[ payload load 1b @ network header + 9 => reg 9 ] "
		    "[ payload load 2b @ transport header + 2 => reg 10 ] "
		    "[ lookup reg 1 set allow4_exact 0x0 ] [ immediate reg 0 accept ]",
		    "ip daddr . ip protocol . th dport @allow4_exact accept "
		    "comment \"sandwall:allow4_exact\"");
	assert_rule(&m, "sandwall:allow6_exact", "guard",
		    "[ meta load nfproto => reg 1 ] [ cmp eq reg 1 0x0000000a ] "
		    "[ payload load 16b @ network header + 24 => reg 1 ] "
		    "[ payload load 1b @ network header + 6 => reg 2 ] "
		    "[ payload load 2b @ transport header + 2 => reg 13 ] "
		    "[ lookup reg 1 set allow6_exact 0x0 ] [ immediate reg 0 accept ]",
		    "ip6 daddr . ip6 nexthdr . th dport @allow6_exact accept "
		    "comment \"sandwall:allow6_exact\"");
	assert_rule(&m, "sandwall:host_ports", "guard",
		    "[ fib daddr type => reg 1 ] [ cmp eq reg 1 0x00000002 ] "
		    "[ meta load l4proto => reg 1 ] [ payload load 2b @ transport header + 2 => reg 9 ] "
		    "[ lookup reg 1 set host_ports 0x0 ] [ immediate reg 0 accept ]",
		    "fib daddr type local meta l4proto . th dport @host_ports accept "
		    "comment \"sandwall:host_ports\"");
	assert_rule(&m, "sandwall:metadata-count", "block_metadata",
		    "[ objref type 1 name metadata ]",
		    "counter name \"metadata\" comment \"sandwall:metadata-count\"");
	assert_rule(&m, "sandwall:metadata-log", "block_metadata",
		    "[ limit rate 10/second burst 20 type packets flags 0x0 ] "
		    "[ log prefix sandwall:metadata  group 3210 snaplen 0 qthreshold 0 ]",
		    "limit rate 10/second burst 20 packets log prefix \"sandwall:metadata \" "
		    "group 3210 comment \"sandwall:metadata-log\"");
	assert_rule(&m, "sandwall:metadata-drop", "block_metadata",
		    "[ immediate reg 0 drop ]", "drop comment \"sandwall:metadata-drop\"");
	/* the tag is also in the rule object's userdata */
	{
		char tag[SW_NAME_MAX];
		const struct sw_rule *r = tu_rule(&m, "sandwall:guard");

		assert_non_null(r);
		if (r)
			sw_rule_tag(r->nl, tag, sizeof(tag));
		assert_string_equal(tag, "sandwall:guard");
	}
	sw_model_free(&m);
}

static void test_table_name_and_determinism(void **state)
{
	struct sw_model a, b;

	(void)state;
	tk_build("[nft]\ntable = sw_test\n", &a);
	assert_string_equal(a.table, "sw_test");
	sw_model_free(&a);
	tk_build("", &a);
	tk_build("", &b);
	assert_int_equal(a.n_rules, b.n_rules);
	for (size_t i = 0; i < a.n_rules; i++)
		assert_string_equal(a.rules[i].canon, b.rules[i].canon);
	for (size_t i = 0; i < a.n_sets; i++) {
		assert_int_equal(a.sets[i].n_elems, b.sets[i].n_elems);
		for (size_t j = 0; j < a.sets[i].n_elems; j++) {
			assert_memory_equal(a.sets[i].elems[j].key, b.sets[i].elems[j].key, SW_KEY_MAX);
			assert_memory_equal(a.sets[i].elems[j].key_end, b.sets[i].elems[j].key_end,
					    SW_KEY_MAX);
			assert_int_equal(a.sets[i].elems[j].flags, b.sets[i].elems[j].flags);
		}
	}
	sw_model_free(&a);
	sw_model_free(&b);
}

/* ---- [guard] interfaces = auto ------------------------------------------------ */

static struct sw_link *kl(struct sw_host *h, int idx, const char *name, enum sw_link_kind k)
{
	tk_link(h, idx, name, k == SW_LINK_BRIDGE);
	h->links[h->n_links - 1].kind = k;
	return &h->links[h->n_links - 1];
}

/* A host with one of each: what auto guards, and what it leaves out. */
static void auto_host(struct sw_host *h)
{
	sw_host_clear(h);
	kl(h, 1, "lo", SW_LINK_OTHER)->loopback = true;
	kl(h, 2, "eth0", SW_LINK_VETH)->peer_netns = true;      /* uplink, a veth to the VM's host */
	kl(h, 3, "docker0", SW_LINK_BRIDGE);
	kl(h, 5, "vethc1", SW_LINK_VETH)->peer_netns = true;
	h->links[h->n_links - 1].master = 3;                     /* a docker0 port */
	kl(h, 6, "cali123", SW_LINK_VETH)->peer_netns = true;   /* routed, no address */
	kl(h, 7, "vm0", SW_LINK_TAP);                             /* a micro-VM's tap, any name */
	kl(h, 8, "tun0", SW_LINK_TUN);                            /* a VPN client */
	kl(h, 9, "virbr0", SW_LINK_BRIDGE);                       /* holds `default dev virbr0` */
	kl(h, 10, "lxcbr0", SW_LINK_BRIDGE);
	kl(h, 11, "pair-a", SW_LINK_VETH);                        /* both ends here */
	kl(h, 12, "podman1", SW_LINK_OTHER);                      /* kind unknown yet: by name */
	kl(h, 13, "virbr1-nic", SW_LINK_TAP);                     /* libvirt's dummy tap */
	kl(h, 14, "ens5", SW_LINK_OTHER);
	tk_addr(h, 1, "127.0.0.1/8");
	tk_addr(h, 2, "10.0.0.2/24");
	tk_addr(h, 3, "172.17.0.1/16");
	tk_addr(h, 7, "172.30.0.1/30");
	tk_addr(h, 8, "10.8.0.2/24");
	tk_addr(h, 9, "192.168.122.1/24");
	tk_addr(h, 14, "192.168.1.5/24");
	tk_gateway(h, "10.0.0.1", 2);
	h->uplinks[h->n_uplinks++] = 9;
	/* 172.29.0.5 dev cali123 (a routed container), 192.168.50.0/24 dev ens5,
	 * fe80::/64 dev cali123 */
	assert_int_equal(sw_prefix_parse("172.29.0.5/32", &tk_new_route(h)->dst, NULL), 0);
	h->routes[0].oif = 6;
	assert_int_equal(sw_prefix_parse("192.168.50.0/24", &tk_new_route(h)->dst, NULL), 0);
	h->routes[1].oif = 14;
	assert_int_equal(sw_prefix_parse("fe80::/64", &tk_new_route(h)->dst, NULL), 0);
	h->routes[2].oif = 6;
	sw_host_classify(h);
}

static void test_auto_selection(void **state)
{
	static struct sw_host h;
	static const struct { const char *name; enum sw_guard_why why; } want[] = {
		{ "lo", SW_GUARD_NO }, { "eth0", SW_GUARD_EX_UPLINK }, { "docker0", SW_GUARD_BRIDGE },
		{ "vethc1", SW_GUARD_NO }, { "cali123", SW_GUARD_ROUTED_VETH }, { "vm0", SW_GUARD_TAP },
		{ "tun0", SW_GUARD_NO }, { "virbr0", SW_GUARD_EX_UPLINK }, { "lxcbr0", SW_GUARD_BRIDGE },
		/* a veth whose peer is here: guarded by kind (it may be moved
		 * into a container at any time: issue 22) */
		{ "pair-a", SW_GUARD_KIND }, { "podman1", SW_GUARD_RUNTIME_NAME },
		{ "virbr1-nic", SW_GUARD_TAP }, { "ens5", SW_GUARD_NO },
	};
	/* virbr* matches virbr0, which carries a default route: no pattern,
	 * the names it matches one by one (virbr1-nic); vm0 by kind */
	static const char *const ifs[] = {
		"\"br-*\"", "\"cali*\"", "\"cilium_*\"", "\"cni*\"", "\"docker0\"", "\"fc-*\"",
		"\"flannel*\"", "\"incusbr*\"", "\"lxc*\"", "\"lxdbr*\"", "\"nerdctl*\"",
		"\"pair-a\"", "\"podman*\"", "\"tap*\"", "\"virbr1-nic\"", "\"vm0\"", "\"vnet*\"",
	};
	/* never guarded by kind: lo and the uplinks (virbr0 holds a default route) */
	static const char *const except[] = { "\"lo\"", "\"eth0\"", "\"virbr0\"" };
	/* the routed container's /32 is own; a route via an unguarded
	 * interface is neither own nor lan (lan is built from addresses) */
	static const char *const own4[] = { "172.17.0.0/16", "172.29.0.5", "172.30.0.0/30" };
	static const char *const lan4[] = { "10.0.0.0/24", "10.8.0.0/24", "192.168.1.0/24",
					    "192.168.122.0/24" };
	static const char *const ifs_legacy[] = { "\"br-*\"", "\"docker0\"" };
	struct sw_config cfg;
	char err[SW_ERRLEN];
	struct sw_model m;

	(void)state;
	auto_host(&h);
	assert_int_equal(sw_config_parse_string("", "t", &cfg, err, sizeof(err)), 0);
	assert_int_equal(h.n_links, N(want));
	for (size_t i = 0; i < N(want); i++) {
		enum sw_guard_why why = sw_ruleset_guard_why(&cfg, &h.links[i]);

		if (why != want[i].why)
			fail_msg("%s: %s, want %s", h.links[i].name, sw_guard_why_name(why),
				 sw_guard_why_name(want[i].why));
		assert_int_equal(sw_ruleset_guarded(&cfg, &h.links[i]), want[i].why >= SW_GUARD_PATTERN);
	}
	tk_build_host("", &h, &m);
	assert_text(&m, "guard_ifaces", ifs, N(ifs));
	assert_text(&m, SW_SET_GUARD_EXCEPT, except, N(except));
	assert_true(has_text(tu_set(&m, SW_SET_GUARD_KINDS), "\"veth\""));
	assert_true(has_text(tu_set(&m, SW_SET_GUARD_KINDS), "\"macvlan\""));
	assert_text(&m, "own4", own4, N(own4));
	assert_text(&m, "own6", NULL, 0);       /* fe80::/64 is never own */
	assert_text(&m, "lan4", lan4, N(lan4));
	sw_model_free(&m);

	/* [guard] except: never guarded by auto (pair-a, a veth here), in
	 * guard_except before the first packet, also when absent (br-lan);
	 * a runtime pattern it matches goes in name by name */
	assert_int_equal(sw_config_parse_string("[guard]\nexcept = pair-a br-lan\n", "t", &cfg, err,
						sizeof(err)), 0);
	assert_int_equal(sw_ruleset_guard_why(&cfg, &h.links[9]), SW_GUARD_EX_CONFIG);
	assert_false(sw_ruleset_guarded(&cfg, &h.links[9]));
	tk_build_host("[guard]\nexcept = pair-a br-lan\n", &h, &m);
	assert_true(has_text(tu_set(&m, SW_SET_GUARD_EXCEPT), "\"pair-a\""));
	assert_true(has_text(tu_set(&m, SW_SET_GUARD_EXCEPT), "\"br-lan\""));
	assert_true(has_text(tu_set(&m, SW_SET_GUARD_EXCEPT), "\"lo\""));
	assert_false(has_text(tu_set(&m, "guard_ifaces"), "\"br-*\""));
	assert_false(has_text(tu_set(&m, "guard_ifaces"), "\"pair-a\""));
	sw_model_free(&m);
	assert_int_equal(sw_config_parse_string("", "t", &cfg, err, sizeof(err)), 0);

	/* explicit names only: nothing detected, nothing guarded by kind */
	tk_build_host(TK_LEGACY_GUARD, &h, &m);
	assert_text(&m, "guard_ifaces", ifs_legacy, N(ifs_legacy));
	assert_null(sw_model_find_set(&m, SW_SET_GUARD_EXCEPT));
	assert_null(sw_model_find_set(&m, SW_SET_GUARD_KINDS));
	assert_null(tu_rule(&m, "sandwall:guard-kinds"));
	assert_null(tu_rule(&m, "sandwall:fwd-kinds"));
	sw_model_free(&m);

	/* auto with names: a name wins as the reason */
	assert_int_equal(sw_config_parse_string("[guard]\ninterfaces = auto vm*\n", "t", &cfg, err,
						sizeof(err)), 0);
	assert_int_equal(sw_ruleset_guard_why(&cfg, &h.links[5]), SW_GUARD_PATTERN);
	assert_int_equal(sw_ruleset_guard_why(&cfg, &h.links[2]), SW_GUARD_BRIDGE);
	/* all_bridges names the uplink bridge: guarded (sw_config_check_host refuses it) */
	assert_int_equal(sw_config_parse_string("[guard]\ninterfaces = auto\nall_bridges = yes\n", "t",
						&cfg, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_guard_why(&cfg, &h.links[7]), SW_GUARD_ALL_BRIDGES);
	/* no host (export without one): the runtime names */
	assert_int_equal(sw_config_parse_string("", "t", &cfg, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_build(&cfg, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(tu_set(&m, "guard_ifaces")->n_text, sw_n_runtime_names - 2);
	sw_model_free(&m);
	assert_string_equal(sw_guard_why_name(SW_GUARD_ROUTED_VETH), "routed veth");
	assert_string_equal(sw_guard_why_name(SW_GUARD_EX_UPLINK), "default route");
	assert_string_equal(sw_guard_why_name(SW_GUARD_WHY_COUNT), "unknown");
	sw_host_free(&h);
}

/* br-* hits an uplink bridge named br-lan: the other br-* bridges go in by
 * name, br-lan does not, and it stays out of own. */
static void test_auto_uplink_bridge(void **state)
{
	static struct sw_host h;
	static const char *const own4[] = { "172.18.0.0/16" };
	static const char *const lan4[] = { "192.168.1.0/24" };
	struct sw_model m;
	const struct sw_set *s;

	(void)state;
	memset(&h, 0, sizeof(h));
	kl(&h, 1, "lo", SW_LINK_OTHER)->loopback = true;
	kl(&h, 2, "eth0", SW_LINK_OTHER)->master = 4;
	kl(&h, 4, "br-lan", SW_LINK_BRIDGE);
	kl(&h, 5, "br-0a1b2c3d4e5f", SW_LINK_BRIDGE);
	tk_addr(&h, 4, "192.168.1.5/24");
	tk_addr(&h, 5, "172.18.0.1/16");
	tk_gateway(&h, "192.168.1.1", 4);
	sw_host_classify(&h);
	tk_build_host("", &h, &m);
	s = tu_set(&m, "guard_ifaces");
	assert_false(has_text(s, "\"br-*\""));
	assert_false(has_text(s, "\"br-lan\""));
	assert_true(has_text(s, "\"br-0a1b2c3d4e5f\""));
	assert_true(has_text(s, "\"docker0\""));
	assert_text(&m, "own4", own4, N(own4));
	assert_text(&m, "lan4", lan4, N(lan4));
	sw_model_free(&m);
	sw_host_free(&h);
}

/* The entry texts of the allow sets come from their elements (export asks
 * for them): every prefix length of both families prints as written. */
static void test_allow_entry_texts_every_length(void **state)
{
	static char conf[64 * 1024];
	struct sw_model m;
	char want[96];
	size_t off;

	(void)state;
	off = (size_t)snprintf(conf, sizeof(conf), "[allow]\ndestinations = ");
	for (unsigned len = 0; len <= 32; len++)
		off += (size_t)snprintf(conf + off, sizeof(conf) - off, "0.0.0.0/%u tcp/%u reopen,\n    ",
					len, 1000 + len);
	for (unsigned len = 0; len <= 128; len++)
		off += (size_t)snprintf(conf + off, sizeof(conf) - off, "::/%u udp/%u reopen%s",
					len, 2000 + len, len < 128 ? ",\n    " : "\n");
	assert_true(off < sizeof(conf) - 1);
	tk_build(conf, &m);
	for (unsigned len = 0; len <= 32; len++) {
		if (len < 32)
			snprintf(want, sizeof(want), "0.0.0.0/%u . tcp . %u", len, 1000 + len);
		else
			snprintf(want, sizeof(want), "0.0.0.0 . tcp . %u", 1000 + len);
		if (!has_text(tu_set(&m, len < 32 ? "allow4" : "allow4_exact"), want))
			fail_msg("no entry text '%s'", want);
	}
	for (unsigned len = 0; len <= 128; len++) {
		if (len < 128)
			snprintf(want, sizeof(want), ":: /%u . udp . %u", len, 2000 + len);
		else
			snprintf(want, sizeof(want), ":: . udp . %u", 2000 + len);
		if (len < 128)      /* "::/len" */
			memmove(want + 2, want + 3, strlen(want + 3) + 1);
		if (!has_text(tu_set(&m, len < 128 ? "allow6" : "allow6_exact"), want))
			fail_msg("no entry text '%s'", want);
	}
	/* one text per element, none for a set of another kind */
	assert_int_equal(sw_set_n_entries(tu_set(&m, "allow4")), tu_set(&m, "allow4")->n_elems);
	assert_int_equal(sw_set_entry_text(tu_set(&m, "allow4"), tu_set(&m, "allow4")->n_elems, want,
					   sizeof(want)), -EINVAL);
	assert_int_equal(sw_set_entry_text(tu_set(&m, "allow4"), 0, want, 8), -ENOSPC);
	sw_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_names),
		cmocka_unit_test(test_set_texts_defaults),
		cmocka_unit_test(test_metadata_list),
		cmocka_unit_test(test_raw_intervals),
		cmocka_unit_test(test_dns_none),
		cmocka_unit_test(test_private),
		cmocka_unit_test(test_allow_networks),
		cmocka_unit_test(test_sandboxes),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_toggle_changes_sets_only),
		cmocka_unit_test(test_host_no),
		cmocka_unit_test(test_lan_no),
		cmocka_unit_test(test_all_bridges),
		cmocka_unit_test(test_auto_selection),
		cmocka_unit_test(test_auto_uplink_bridge),
		cmocka_unit_test_setup_teardown(test_adjacent_patterns_text, model_setup, model_teardown),
		cmocka_unit_test(test_log_no),
		cmocka_unit_test(test_allow_and_host_ports),
		cmocka_unit_test(test_allow_entry_texts_every_length),
		cmocka_unit_test(test_chains_and_counters),
		cmocka_unit_test(test_guard_order),
		cmocka_unit_test(test_output_path),
		cmocka_unit_test(test_after_nat),
		cmocka_unit_test(test_canon_golden),
		cmocka_unit_test(test_table_name_and_determinism),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
