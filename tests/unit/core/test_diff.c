/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for diff: desired vs an "observed" copy tampered with in one
 * way at a time; every case asserts the exact items (kind, object, text),
 * plus the text/JSON printers and the one-line summary. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <libnftnl/rule.h>

#include "core/diff.h"
#include "lib/json.h"
#include "fake_kernel.h"

struct pair {
	struct sw_model want, have;
	struct sw_diff d;
};

static int setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	tk_build(TK_LEGACY_GUARD, &p->want);
	tk_build(TK_LEGACY_GUARD, &p->have);
	/* observed models carry no nft text and no objects */
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	sw_diff_free(&p->d);
	sw_model_free(&p->want);
	sw_model_free(&p->have);
	free(p);
	return 0;
}

static void run(struct pair *p)
{
	sw_diff_free(&p->d);
	assert_int_equal(sw_diff(&p->want, &p->have, &p->d), 0);
}

static void assert_item(const struct sw_diff *d, size_t i, enum sw_diff_kind k,
			const char *object, const char *desc)
{
	assert_true(i < d->n);
	assert_string_equal(sw_diff_kind_name(d->items[i].kind), sw_diff_kind_name(k));
	assert_string_equal(d->items[i].object, object);
	assert_string_equal(d->items[i].desc, desc);
}

static void dump(const struct sw_diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		print_message("  item %zu: %s %s: %s\n", i, sw_diff_kind_name(d->items[i].kind),
			      d->items[i].object, d->items[i].desc);
}

static void assert_n(const struct sw_diff *d, size_t n)
{
	if (d->n != n) {
		dump(d);
		fail_msg("%zu diff items, want %zu", d->n, n);
	}
}

static size_t rule_index(const struct sw_model *m, const char *tag)
{
	for (size_t i = 0; i < m->n_rules; i++)
		if (!strcmp(m->rules[i].tag, tag))
			return i;
	fail_msg("no rule %s", tag);
	return 0;
}

static void remove_rule(struct sw_model *m, size_t i)
{
	free(m->rules[i].canon);
	free(m->rules[i].text);
	if (m->rules[i].nl)
		nftnl_rule_free(m->rules[i].nl);
	memmove(&m->rules[i], &m->rules[i + 1], (m->n_rules - i - 1) * sizeof(m->rules[0]));
	m->n_rules--;
}

static void remove_elem(struct sw_set *s, size_t i)
{
	memmove(&s->elems[i], &s->elems[i + 1], (s->n_elems - i - 1) * sizeof(s->elems[0]));
	s->n_elems--;
}

/* ---- cases ---------------------------------------------------------------------- */

static void test_equal(void **state)
{
	struct pair *p = *state;

	run(p);
	assert_n(&p->d, 0);
	/* handles and counter values are not compared */
	p->have.rules[3].handle = 99;
	p->have.counter_pkts[0] = 5;
	p->have.genid = 7;
	run(p);
	assert_n(&p->d, 0);
}

static void test_table_missing(void **state)
{
	struct pair *p = *state;

	p->have.has_table = false;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "table", "table inet sandwall");
}

static void test_dormant(void **state)
{
	struct pair *p = *state;

	p->have.table_flags = NFT_TABLE_F_DORMANT;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_CHANGED, "table", "table inet sandwall (dormant flag)");
	/* other flags (owner, persist) are the daemon's business */
	p->have.table_flags = 0x2 /* NFT_TABLE_F_OWNER */;
	run(p);
	assert_n(&p->d, 0);
}

static void test_rule_missing(void **state)
{
	struct pair *p = *state;

	remove_rule(&p->have, rule_index(&p->have, "sandwall:metadata4"));
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "rule",
		    "rule in chain guard: ip daddr @metadata4 goto block_metadata "
		    "comment \"sandwall:metadata4\"");
}

static void test_rule_extra(void **state)
{
	struct pair *p = *state;

	assert_int_equal(sw_model_add_rule(&p->have, "guard", "", "[ immediate reg 0 accept ]",
					   NULL, NULL), 0);
	p->have.rules[p->have.n_rules - 1].handle = 17;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_EXTRA, "rule",
		    "rule in chain guard: [ immediate reg 0 accept ] handle 17");
	/* an inserted rule with someone's comment */
	assert_int_equal(sw_model_add_rule(&p->have, "prerouting", "evil",
					   "[ immediate reg 0 accept ]", NULL, NULL), 0);
	p->have.rules[p->have.n_rules - 1].handle = 18;
	run(p);
	assert_n(&p->d, 2);
	assert_item(&p->d, 0, SW_DIFF_EXTRA, "rule",
		    "rule in chain prerouting: [ immediate reg 0 accept ] (comment \"evil\") handle 18");
	assert_item(&p->d, 1, SW_DIFF_EXTRA, "rule",
		    "rule in chain guard: [ immediate reg 0 accept ] handle 17");
}

static void test_rule_changed(void **state)
{
	struct pair *p = *state;
	size_t i = rule_index(&p->have, "sandwall:lan4");

	/* same tag, other expressions: one missing + one extra */
	free(p->have.rules[i].text);
	p->have.rules[i].text = NULL;
	free(p->have.rules[i].canon);
	p->have.rules[i].canon = strdup("[ immediate reg 0 accept ]");
	assert_non_null(p->have.rules[i].canon);
	run(p);
	assert_n(&p->d, 2);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "rule",
		    "rule in chain guard: ip daddr @lan4 goto block_lan comment \"sandwall:lan4\"");
	assert_item(&p->d, 1, SW_DIFF_EXTRA, "rule",
		    "rule in chain guard: [ immediate reg 0 accept ] (comment \"sandwall:lan4\") handle 0");
}

static void test_rule_order(void **state)
{
	struct pair *p = *state;
	size_t a = rule_index(&p->have, "sandwall:metadata4");
	size_t b = rule_index(&p->have, "sandwall:link_local4");
	struct sw_rule t = p->have.rules[a];

	p->have.rules[a] = p->have.rules[b];
	p->have.rules[b] = t;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_CHANGED, "rule", "rule order in chain guard");
}

static void test_rule_moved_chain(void **state)
{
	struct pair *p = *state;
	size_t i = rule_index(&p->have, "sandwall:lan-drop");

	snprintf(p->have.rules[i].chain, sizeof(p->have.rules[i].chain), "block_private");
	run(p);
	assert_n(&p->d, 2);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "rule",
		    "rule in chain block_lan: drop comment \"sandwall:lan-drop\"");
	assert_item(&p->d, 1, SW_DIFF_EXTRA, "rule",
		    "rule in chain block_private: drop comment \"sandwall:lan-drop\"");
}

static void test_chain_policy(void **state)
{
	struct pair *p = *state;

	sw_model_find_chain(&p->have, "prerouting")->policy = NF_DROP;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_CHANGED, "chain",
		    "chain prerouting (hook 0 priority -150 policy drop, "
		    "want hook 0 priority -150 policy accept)");
	sw_model_find_chain(&p->have, "prerouting")->policy = NF_ACCEPT;
	sw_model_find_chain(&p->have, "prerouting")->prio = 0;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_CHANGED, "chain",
		    "chain prerouting (hook 0 priority 0 policy accept, "
		    "want hook 0 priority -150 policy accept)");
}

static void test_chain_extra_and_missing(void **state)
{
	struct pair *p = *state;

	assert_non_null(sw_model_add_chain(&p->have, "sneaky"));
	assert_int_equal(sw_model_add_rule(&p->have, "sneaky", "", "[ immediate reg 0 accept ]",
					   NULL, NULL), 0);
	run(p);
	/* rules in chains we do not have are reported with the extra chain */
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_EXTRA, "chain", "chain sneaky");

	/* drop "sneaky" and the last chain, block_sandboxes, from "have" */
	p->have.n_chains--;
	assert_string_equal(p->have.chains[p->have.n_chains - 1].name, "block_sandboxes");
	p->have.n_chains--;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "chain", "chain block_sandboxes");
}

static void test_counter(void **state)
{
	struct pair *p = *state;
	int i = sw_model_find_counter(&p->have, "sandboxes");

	assert_int_equal(i, (int)p->have.n_counters - 1);     /* the last one */
	p->have.n_counters--;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "counter", "counter sandboxes");
	assert_int_equal(sw_model_add_counter(&p->have, "sandboxes"), 0);
	assert_int_equal(sw_model_add_counter(&p->have, "other"), 0);
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_EXTRA, "counter", "counter other");
}

static void test_element_missing(void **state)
{
	struct pair *p = *state;
	struct sw_set *s = sw_model_find_set(&p->have, "metadata4");
	char buf[128];
	size_t i;

	assert_non_null(s);
	/* find the start element of 169.254.169.254 */
	for (i = 0; i < s->n_elems; i++) {
		sw_elem_format(s, &s->elems[i], buf, sizeof(buf));
		if (!strcmp(buf, "169.254.169.254"))
			break;
	}
	assert_true(i < s->n_elems);
	remove_elem(s, i);
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "element", "set metadata4 element 169.254.169.254");
}

static void test_element_extra(void **state)
{
	struct pair *p = *state;
	struct sw_set *s = sw_model_find_set(&p->have, "gateways4");
	struct sw_elem e;

	assert_non_null(s);
	memset(&e, 0, sizeof(e));
	e.key[0] = 10, e.key[3] = 9;
	assert_int_equal(sw_set_add_elem(s, &e), 0);
	e.key[3] = 10;
	e.flags = NFT_SET_ELEM_INTERVAL_END;
	assert_int_equal(sw_set_add_elem(s, &e), 0);
	sw_set_sort(s);
	run(p);
	assert_n(&p->d, 2);
	assert_item(&p->d, 0, SW_DIFF_EXTRA, "element", "set gateways4 element 10.0.0.9");
	assert_item(&p->d, 1, SW_DIFF_EXTRA, "element", "set gateways4 element 10.0.0.10 [end]");
}

static void test_element_ifname_and_concat(void **state)
{
	struct pair *p = *state;
	struct sw_set *s = sw_model_find_set(&p->have, "guard_ifaces");
	struct sw_set *a = sw_model_find_set(&p->have, "allow4_exact");

	assert_non_null(s);
	assert_non_null(a);
	/* elements: "" end, "br-", "br." end, "docker0", "docker0"+1 end */
	remove_elem(s, 3);
	remove_elem(a, 1);      /* 169.254.169.253 . udp . 53 */
	run(p);
	assert_n(&p->d, 2);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "element", "set guard_ifaces element \"docker0\"");
	assert_item(&p->d, 1, SW_DIFF_MISSING, "element",
		    "set allow4_exact element 169.254.169.253 . 17 . 53");
}

static void test_set_missing_changed_extra(void **state)
{
	struct pair *p = *state;
	struct sw_set *s = sw_model_find_set(&p->have, "lan6");

	s->flags = 0;
	assert_non_null(sw_model_add_set(&p->have, "stray"));
	run(p);
	assert_n(&p->d, 2);
	assert_item(&p->d, 0, SW_DIFF_CHANGED, "set", "set lan6 (type/flags differ)");
	assert_item(&p->d, 1, SW_DIFF_EXTRA, "set", "set stray");
	/* remove the last set (host_ports) */
	s->flags = NFT_SET_INTERVAL;
	p->have.n_sets--;               /* "stray" (no storage) */
	s = &p->have.sets[p->have.n_sets - 1];
	assert_string_equal(s->name, "host_ports");
	free(s->elems);
	free(s->text);
	memset(s, 0, sizeof(*s));
	p->have.n_sets--;
	run(p);
	assert_n(&p->d, 1);
	assert_item(&p->d, 0, SW_DIFF_MISSING, "set", "set host_ports");
}

/* ---- printers ------------------------------------------------------------------- */

static char *print(const struct sw_diff *d, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct sw_jw w;

	if (json) {
		sw_jw_init(&w);
		sw_diff_json(d, &w, NULL);
		assert_non_null(sw_jw_text(&w));
		buf = strdup(sw_jw_text(&w));
		sw_jw_free(&w);
		assert_non_null(buf);
		return buf;
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sw_diff_print(d, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_print_and_summary(void **state)
{
	struct pair *p = *state;
	char *out, sum[512];

	remove_rule(&p->have, rule_index(&p->have, "sandwall:replies"));
	assert_int_equal(sw_model_add_counter(&p->have, "x\"y"), 0);
	run(p);
	assert_n(&p->d, 2);
	out = print(&p->d, false);
	assert_string_equal(out, "extra counter x\"y\n"
			    "missing rule in chain guard: ct state established ct direction reply accept "
			    "comment \"sandwall:replies\"\n");
	free(out);
	out = print(&p->d, true);
	assert_string_equal(out,
			    "[{\"kind\":\"extra\",\"object\":\"counter\",\"what\":\"counter x\\\"y\"},"
			    "{\"kind\":\"missing\",\"object\":\"rule\",\"what\":\"rule in chain guard: "
			    "ct state established ct direction reply accept comment \\\"sandwall:replies\\\"\"}]");
	free(out);
	sw_diff_summary(&p->d, sum, sizeof(sum));
	assert_string_equal(sum, "1 missing, 1 extra, 0 changed; first: extra counter x\"y");

	p->have.has_table = false;
	run(p);
	sw_diff_summary(&p->d, sum, sizeof(sum));
	assert_string_equal(sum, "missing table inet sandwall");
	out = print(&p->d, true);
	assert_string_equal(out, "[{\"kind\":\"missing\",\"object\":\"table\","
			    "\"what\":\"table inet sandwall\"}]");
	free(out);

	/* empty */
	p->have.has_table = true;
	sw_diff_free(&p->d);
	out = print(&p->d, true);
	assert_string_equal(out, "[]");
	free(out);
	out = print(&p->d, false);
	assert_string_equal(out, "");
	free(out);
	/* truncation is safe */
	remove_rule(&p->have, rule_index(&p->have, "sandwall:guard"));
	run(p);
	sw_diff_summary(&p->d, sum, 8);
	assert_string_equal(sum, "2 missi");
}

static void test_json_str(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	sw_json_str(f, "a\"b\\c\nd\x01");
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "\"a\\\"b\\\\c\\u000ad\\u0001\"");
	free(buf);
	assert_string_equal(sw_diff_kind_name(SW_DIFF_MISSING), "missing");
	assert_string_equal(sw_diff_kind_name(SW_DIFF_EXTRA), "extra");
	assert_string_equal(sw_diff_kind_name(SW_DIFF_CHANGED), "changed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_equal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dormant, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_extra, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_moved_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_policy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_extra_and_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_element_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_element_extra, setup, teardown),
		cmocka_unit_test_setup_teardown(test_element_ifname_and_concat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_missing_changed_extra, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_and_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_str, NULL, NULL),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
