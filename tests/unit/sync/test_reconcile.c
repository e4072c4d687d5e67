/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for reconcile and owner against a stateful fake kernel
 * (fake_nft.h): every repair path -- create, no-op, refill of one set,
 * flush and refill of one chain, missing and extra objects, a dormant
 * table, adoption of an orphan (counts kept), takeover through
 * <table>_handover without a gap, refusal of a foreign table, bounded
 * ERESTART, read-back mismatch -- checked by the batch the kernel saw and
 * by the state it holds afterwards (sw_check finds nothing). No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_kernel.h"
#include "fake_nft.h"
#include "core/diff.h"
#include "kernel/encode.h"
#include "kernel/observe.h"
#include "daemon/owner.h"
#include "sync/reconcile.h"

#define T "sandwall"

struct rc {
	struct fn k;
	struct sw_nl nl;
	struct sw_model want;
	struct sw_diff d;
	char err[SW_ERRLEN];
};

static int setup(void **state)
{
	struct rc *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	fn_init(&r->k);
	assert_int_equal(sw_nl_open_ops(&r->nl, &fn_ops, &r->k), 0);
	tk_build("", &r->want);
	assert_string_equal(r->want.table, T);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rc *r = *state;

	sw_diff_free(&r->d);
	sw_model_free(&r->want);
	sw_nl_close(&r->nl);
	fn_free(&r->k);
	free(r);
	return 0;
}

/* The kernel holds exactly the desired model. */
static void assert_in_sync(struct rc *r)
{
	struct sw_diff d;
	int rc = sw_check(&r->nl, &r->want, &d, r->err, sizeof(r->err));

	if (rc)
		fail_msg("check: %d %s", rc, r->err);
	if (d.n) {
		sw_diff_print(&d, stderr);
		fail_msg("%zu differences after the repair", d.n);
	}
	sw_diff_free(&d);
}

static void apply(struct rc *r)
{
	int rc = sw_apply(&r->nl, &r->want, r->err, sizeof(r->err));

	if (rc)
		fail_msg("apply: %d %s", rc, r->err);
	assert_in_sync(r);
}

static int reconcile(struct rc *r, bool *repaired)
{
	sw_diff_free(&r->d);
	return sw_reconcile(&r->nl, &r->want, &r->d, repaired, r->err, sizeof(r->err));
}

static void reconcile_ok(struct rc *r)
{
	bool repaired = false;
	int rc = reconcile(r, &repaired);

	if (rc)
		fail_msg("reconcile: %d %s", rc, r->err);
	assert_true(repaired);
	assert_true(r->d.n > 0);
	assert_in_sync(r);
}

/* A chain of the desired model with at least n rules (a regular one if
 * base is false). */
static const char *chain_with_rules(const struct sw_model *m, size_t n, bool base)
{
	for (size_t i = 0; i < m->n_chains; i++) {
		size_t c = 0;

		for (size_t j = 0; j < m->n_rules; j++)
			c += !strcmp(m->rules[j].chain, m->chains[i].name);
		if (c >= n && m->chains[i].base == base)
			return m->chains[i].name;
	}
	fail_msg("no chain with %zu rules", n);
	return "";
}

static size_t want_rules(const struct sw_model *m, const char *chain)
{
	size_t c = 0;

	for (size_t j = 0; j < m->n_rules; j++)
		c += !strcmp(m->rules[j].chain, chain);
	return c;
}

static const struct sw_set *set_with_elems(const struct sw_model *m, size_t n)
{
	for (size_t i = 0; i < m->n_sets; i++)
		if (m->sets[i].n_elems >= n)
			return &m->sets[i];
	static const struct sw_set none;

	fail_msg("no set with %zu elements", n);
	return &none;
}

/* Every message of the last batch is one of these types, naming `name`. */
static void assert_batch_only(const struct fn *k, const char *name, uint16_t t1, uint16_t t2)
{
	assert_true(k->n_log > 0);
	for (size_t i = 0; i < k->n_log; i++) {
		if (k->log[i].type != t1 && k->log[i].type != t2)
			fail_msg("message %zu of the batch has type %u", i, k->log[i].type);
		assert_string_equal(k->log[i].name, name);
	}
}

/* ---- the fake itself --------------------------------------------------------- */

/* What was applied comes back identical (rules, elements, chains, counters),
 * and the kernel's answers follow the kernel's rules. */
static void test_fake_roundtrip_and_errors(void **state)
{
	struct rc *r = *state;
	struct sw_batch b;
	uint32_t gen = r->k.genid;

	apply(r);
	assert_int_equal(r->k.genid, gen + 1);
	assert_int_equal(r->k.n_commits, 1);
	assert_int_equal(fn_n_rules(r->k.s, T, NULL), r->want.n_rules);
	/* a second create: EXCL -> EEXIST, on the first message, nothing changes */
	assert_int_equal(sw_batch_init(&b, &r->nl, SW_GEN_REQUIRE, r->k.genid), 0);
	assert_int_equal(sw_encode_create(&b, &r->nl, &r->want), 0);
	assert_int_equal(sw_batch_finish(&b, &r->nl), 0);
	assert_int_equal(sw_nl_send_batch(&r->nl, &b), -EEXIST);
	assert_int_equal(r->nl.err_index, 0);
	sw_batch_free(&b);
	assert_int_equal(r->k.n_commits, 1);
	/* a stale generation: ERESTART on BEGIN */
	assert_int_equal(sw_batch_init(&b, &r->nl, SW_GEN_REQUIRE, r->k.genid - 1), 0);
	assert_int_equal(sw_encode_delete(&b, &r->nl, T), 0);
	assert_int_equal(sw_batch_finish(&b, &r->nl), 0);
	assert_int_equal(sw_nl_send_batch(&r->nl, &b), -ERESTART);
	sw_batch_free(&b);
	assert_non_null(fn_table(r->k.s, T));
	/* deleting what is not there: ENOENT */
	assert_int_equal(sw_batch_init(&b, &r->nl, SW_GEN_REQUIRE, r->k.genid), 0);
	assert_int_equal(sw_encode_delete(&b, &r->nl, "nosuch"), 0);
	assert_int_equal(sw_batch_finish(&b, &r->nl), 0);
	assert_int_equal(sw_nl_send_batch(&r->nl, &b), -ENOENT);
	sw_batch_free(&b);
	assert_in_sync(r);
}

/* A plain replace of the only guarding table is a gap: the detector the
 * takeover test relies on can fail. */
static void test_fake_sees_gap(void **state)
{
	struct rc *r = *state;
	struct sw_batch b;

	apply(r);
	assert_int_equal(r->k.gaps, 0);
	assert_int_equal(sw_batch_init(&b, &r->nl, SW_GEN_REQUIRE, r->k.genid), 0);
	assert_int_equal(sw_encode_replace(&b, &r->nl, &r->want), 0);
	assert_int_equal(sw_batch_finish(&b, &r->nl), 0);
	assert_int_equal(sw_nl_send_batch(&r->nl, &b), 0);
	sw_batch_free(&b);
	assert_int_equal(r->k.gaps, 1);
	assert_in_sync(r);
}

/* ---- repair paths --------------------------------------------------------------- */

static void test_create_from_empty(void **state)
{
	struct rc *r = *state;

	reconcile_ok(r);
	assert_int_equal(r->k.n_batches, 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWTABLE, NULL), 1);
	assert_true(r->k.log[0].type == NFT_MSG_NEWTABLE && (r->k.log[0].flags & NLM_F_EXCL));
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELTABLE, NULL), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWCHAIN, NULL), r->want.n_chains);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWSET, NULL), r->want.n_sets);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWOBJ, NULL), r->want.n_counters);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWRULE, NULL), r->want.n_rules);
	assert_true(fn_tab(r->k.s, T)->has_ud);       /* marked */
	/* the flows primed while there was no table are looked for */
	assert_int_equal(r->k.n_ct_dumps, 1);
}

/* Created: the flows opened toward a sandbox while there was no table are
 * forgotten, the sandboxes' own flows stay; a refill forgets nothing. */
static void test_create_forgets_primed_flows(void **state)
{
	struct rc *r = *state;

	/* a flow toward a sandbox (published port, or primed by a forged packet) */
	fn_ct_add(&r->k, "10.0.0.9", "172.17.0.2", "172.17.0.2", "10.0.0.9");
	/* a flow the sandbox opened itself */
	fn_ct_add(&r->k, "172.17.0.3", "1.1.1.1", "1.1.1.1", "172.17.0.3");
	/* toward a sandbox over IPv6 link-local */
	fn_ct_add(&r->k, "fe80::9", "fe80::2", "fe80::2", "fe80::9");
	reconcile_ok(r);
	assert_int_equal(r->k.n_ct_dumps, 1);
	assert_int_equal(r->k.n_ct_deleted, 2);
	assert_int_equal(r->k.n_ct, 1);
	assert_int_equal(r->k.ct[0].family, AF_INET);
	assert_int_equal(r->k.ct[0].osrc[3], 3);
	/* a repair in place leaves conntrack alone */
	fn_ct_add(&r->k, "10.0.0.9", "172.17.0.2", "172.17.0.2", "10.0.0.9");
	fn_t_del_elem(&r->k, T, set_with_elems(&r->want, 1)->name, 0);
	reconcile_ok(r);
	assert_int_equal(r->k.n_ct_dumps, 1);
	assert_int_equal(r->k.n_ct, 2);
}

/* The daemon's hint defers the forgetting (a walk of the conntrack
 * table, ~11 ms, that the next tamper's repair would wait for): the
 * re-create says it is due and forgets nothing; sw_reconcile_forget
 * does it. */
static void test_create_defers_forget(void **state)
{
	struct rc *r = *state;
	struct sw_hint hint = { .defer_forget = true };
	bool repaired = false;

	fn_ct_add(&r->k, "10.0.0.9", "172.17.0.2", "172.17.0.2", "10.0.0.9");
	assert_int_equal(sw_reconcile_hint(&r->nl, &r->want, &hint, &r->d, &repaired, r->err,
					   sizeof(r->err)), 0);
	assert_true(repaired);
	assert_true(hint.forget_due);
	assert_int_equal(r->k.n_ct_dumps, 0);
	assert_int_equal(r->k.n_ct, 1);
	sw_reconcile_forget(&r->nl, &r->want);
	assert_int_equal(r->k.n_ct_dumps, 1);
	assert_int_equal(r->k.n_ct, 0);
	/* a repair in place: nothing due */
	hint.forget_due = false;
	fn_t_del_elem(&r->k, T, set_with_elems(&r->want, 1)->name, 0);
	sw_diff_free(&r->d);
	assert_int_equal(sw_reconcile_hint(&r->nl, &r->want, &hint, &r->d, &repaired, r->err,
					   sizeof(r->err)), 0);
	assert_true(repaired);
	assert_false(hint.forget_due);
}

static void test_noop_when_identical(void **state)
{
	struct rc *r = *state;
	bool repaired = true;
	size_t batches;

	apply(r);
	batches = r->k.n_batches;
	assert_int_equal(reconcile(r, &repaired), 0);
	assert_false(repaired);
	assert_int_equal(r->d.n, 0);
	assert_int_equal(r->k.n_batches, batches);
}

/* apply on an identical table rewrites in place: no table delete, the
 * counters keep their counts */
static void test_apply_again_keeps_counters(void **state)
{
	struct rc *r = *state;
	struct sw_model have;

	apply(r);
	fn_bump_counter(&r->k, T, r->want.counters[0], 5, 500);
	apply(r);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELTABLE, NULL), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELOBJ, NULL), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWOBJ, NULL), 0);
	assert_int_equal(sw_observe(&r->nl, T, &have), 0);
	assert_int_equal(have.counter_pkts[sw_model_find_counter(&have, r->want.counters[0])], 5);
	sw_model_free(&have);
	assert_int_equal(r->k.gaps, 0);
}

static void test_element_drift_refills_that_set(void **state)
{
	struct rc *r = *state;
	const struct sw_set *s = set_with_elems(&r->want, 2);

	apply(r);
	fn_t_del_elem(&r->k, T, s->name, 1);
	reconcile_ok(r);
	/* an element delta, of that set only: the missing element comes
	 * back, nothing is flushed */
	assert_batch_only(&r->k, s->name, NFT_MSG_DELSETELEM, NFT_MSG_NEWSETELEM);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELSETELEM, s->name), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWSETELEM, s->name), 1);
	assert_int_equal(fn_n_elems(r->k.s, fn_st(r->k.s, T, s->name)), s->n_elems);
}

/* The kernel refuses the delta (its elements were not what the dump said):
 * the repair falls back to a flush and refill of that set, and holds. */
static void test_refused_delta_falls_back(void **state)
{
	struct rc *r = *state;
	const struct sw_set *s = set_with_elems(&r->want, 2);
	size_t batches;

	apply(r);
	fn_t_del_elem(&r->k, T, s->name, 1);
	batches = r->k.n_batches;
	r->k.fail_index = 0;
	r->k.fail_err = -ENOENT;
	reconcile_ok(r);
	assert_int_equal(r->k.n_batches, batches + 2);  /* the delta, then the refill */
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELSETELEM, s->name), 1);     /* the flush */
	assert_int_equal(fn_n_elems(r->k.s, fn_st(r->k.s, T, s->name)), s->n_elems);
}

/* One rule changed (one deleted, another tool's added): only that chain is
 * flushed, and refilled. Breaking the refill in encode.c fails here. */
static void test_rule_changed_refills_that_chain(void **state)
{
	struct rc *r = *state;
	const char *c = chain_with_rules(&r->want, 2, false);

	apply(r);
	fn_t_del_rule(&r->k, T, c, 1);
	fn_t_add_rogue_rule(&r->k, T, c);
	reconcile_ok(r);
	assert_batch_only(&r->k, c, NFT_MSG_DELRULE, NFT_MSG_NEWRULE);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELRULE, c), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWRULE, c), want_rules(&r->want, c));
	assert_int_equal(fn_n_rules(r->k.s, T, c), want_rules(&r->want, c));
	assert_int_equal(fn_n_rules(r->k.s, T, NULL), r->want.n_rules);
	assert_int_equal(r->k.gaps, 0);
}

/* `nft flush chain` on a base chain: flushed and refilled, nothing else */
static void test_flushed_base_chain_refilled(void **state)
{
	struct rc *r = *state;
	const char *c = chain_with_rules(&r->want, 1, true);

	apply(r);
	fn_t_flush_chain(&r->k, T, c);
	assert_int_equal(fn_n_rules(r->k.s, T, c), 0);
	reconcile_ok(r);
	assert_batch_only(&r->k, c, NFT_MSG_DELRULE, NFT_MSG_NEWRULE);
	assert_int_equal(fn_n_rules(r->k.s, T, c), want_rules(&r->want, c));
}

static void test_missing_chain_set_counter(void **state)
{
	struct rc *r = *state;
	const char *c = chain_with_rules(&r->want, 1, false);
	const struct sw_set *s = set_with_elems(&r->want, 1);
	const char *o = r->want.counters[r->want.n_counters - 1];

	apply(r);
	fn_t_del_chain(&r->k, T, c);
	fn_t_del_set(&r->k, T, s->name);
	fn_t_del_obj(&r->k, T, o);
	reconcile_ok(r);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELTABLE, NULL), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWCHAIN, c), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWRULE, c), want_rules(&r->want, c));
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWSET, s->name), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWOBJ, o), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWOBJ, NULL), 1);
	assert_int_equal(r->k.gaps, 0);
}

static void test_extra_objects_deleted(void **state)
{
	struct rc *r = *state;

	apply(r);
	fn_t_add_chain(&r->k, T, "rogue");
	fn_t_add_rogue_rule(&r->k, T, "rogue");
	fn_t_add_set(&r->k, T, "rogue_set");
	fn_t_add_obj(&r->k, T, "rogue_ctr");
	reconcile_ok(r);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELTABLE, NULL), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELCHAIN, "rogue"), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELSET, "rogue_set"), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELOBJ, "rogue_ctr"), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWRULE, NULL), 0);
	assert_null(fn_chain(r->k.s, T, "rogue"));
	assert_null(fn_set(r->k.s, T, "rogue_set"));
	assert_null(fn_obj(r->k.s, T, "rogue_ctr"));
}

static void test_dormant_table_woken(void **state)
{
	struct rc *r = *state;

	apply(r);
	fn_t_flags(&r->k, T, NFT_TABLE_F_DORMANT);
	reconcile_ok(r);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWTABLE, NULL), 1);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELTABLE, NULL), 0);
	assert_int_equal(fn_tab(r->k.s, T)->flags, 0);
}

/* sandwalld died: its persistent table is an orphan. apply adopts it in
 * place (owner flag in the same batch), the counters keep their counts. */
static void test_adopt_orphan_keeps_counters(void **state)
{
	struct rc *r = *state;
	const char *o = r->want.counters[0];
	struct sw_model have;

	r->want.table_flags = NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST;
	apply(r);
	assert_int_equal(fn_tab(r->k.s, T)->owner, FN_PORTID);
	fn_bump_counter(&r->k, T, o, 7, 700);
	fn_close_portid(&r->k, FN_PORTID);
	assert_int_equal(fn_tab(r->k.s, T)->flags, NFT_TABLE_F_PERSIST);
	fn_t_del_elem(&r->k, T, set_with_elems(&r->want, 1)->name, 0);
	apply(r);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELTABLE, NULL), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELOBJ, NULL), 0);
	assert_int_equal(fn_count(&r->k, NFT_MSG_NEWOBJ, NULL), 0);
	assert_int_equal(r->k.log[0].type, NFT_MSG_NEWTABLE);
	assert_int_equal(fn_tab(r->k.s, T)->flags, NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST);
	assert_int_equal(fn_tab(r->k.s, T)->owner, FN_PORTID);
	assert_int_equal(sw_observe(&r->nl, T, &have), 0);
	assert_int_equal(have.counter_pkts[sw_model_find_counter(&have, o)], 7);
	assert_int_equal(have.counter_bytes[sw_model_find_counter(&have, o)], 700);
	sw_model_free(&have);
	assert_int_equal(r->k.gaps, 0);
}

/* commit log for the takeover: which tables each commit left */
struct seen {
	size_t commits;
	bool handover[8];
	bool main_[8];
};

static void record(struct fn *k, enum fn_when when, uint16_t type, void *arg)
{
	struct seen *s = arg;

	(void)type;
	if (when != FN_COMMIT || s->commits >= 8)
		return;
	s->handover[s->commits] = fn_table(k->s, T SW_HANDOVER_SUFFIX) != NULL;
	s->main_[s->commits] = fn_table(k->s, T) && fn_guarded(k->s, fn_tab(k->s, T));
	s->commits++;
}

static void assert_handover_probed(struct rc *r, const struct seen *s, size_t p)
{
	/* [flags probe: an empty <table>_handover in and out,] twin in, table
	 * replaced, twin out: three commits, no gap */
	assert_int_equal(s->commits, p + 3);
	for (size_t i = 0; i < p; i++)
		assert_true(s->main_[i]);               /* the probe never touches ours */
	assert_true(s->handover[p] && s->main_[p]);
	assert_true(s->handover[p + 1] && s->main_[p + 1]);
	assert_true(!s->handover[p + 2] && s->main_[p + 2]);
	assert_int_equal(r->k.gaps, 0);
	assert_null(fn_table(r->k.s, T SW_HANDOVER_SUFFIX));
	assert_true(fn_tab(r->k.s, T)->has_ud);
}

static void assert_handover(struct rc *r, const struct seen *s)
{
	assert_handover_probed(r, s, 0);
}

/* Our rules in a table without the marker: replaced through the handover
 * twin, never without a table holding the blocks. */
static void test_takeover_unmarked(void **state)
{
	struct rc *r = *state;
	struct seen s = { 0 };

	apply(r);
	fn_t_unmark(&r->k, T);
	r->k.hook = record;
	r->k.hook_arg = &s;
	reconcile_ok(r);
	r->k.hook = NULL;
	assert_handover(r, &s);
}

/* apply taking ownership of an unowned table: the same handover */

static void test_takeover_for_ownership(void **state)
{
	struct rc *r = *state;
	struct seen s = { 0 };

	apply(r);
	r->want.table_flags = NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST;
	r->k.hook = record;
	r->k.hook_arg = &s;
	apply(r);
	r->k.hook = NULL;
	assert_handover_probed(r, &s, 2);
	assert_int_equal(fn_tab(r->k.s, T)->flags, NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST);
	assert_int_equal(fn_tab(r->k.s, T)->owner, FN_PORTID);
}

/* someone commits between the handover's batches: once, at the second */
static void bump_at_second_batch(struct fn *k, enum fn_when when, uint16_t type, void *arg)
{
	int *n = arg;

	if (when == FN_BEFORE && type == NFNL_MSG_BATCH_BEGIN && ++*n == 2)
		k->genid++;
}

/* The replace is refused (ERESTART): the handover goes anyway, the whole
 * takeover is redone, and no commit leaves the blocks out. */
static void test_takeover_restarted(void **state)
{
	struct rc *r = *state;
	size_t batches;
	int n = 0;

	apply(r);
	fn_t_unmark(&r->k, T);
	batches = r->k.n_batches;
	r->k.hook = bump_at_second_batch;
	r->k.hook_arg = &n;
	reconcile_ok(r);
	r->k.hook = NULL;
	assert_int_equal(r->k.n_batches - batches, 6);  /* twin, (replace), drop; again */
	assert_int_equal(r->k.gaps, 0);
	assert_null(fn_table(r->k.s, T SW_HANDOVER_SUFFIX));
	assert_true(fn_tab(r->k.s, T)->has_ud);
}

/* Someone else's table named <table>_handover: EXCL fails the takeover,
 * that table is neither deleted nor filled, ours stays as it was. */
static void test_takeover_handover_name_taken(void **state)
{
	struct rc *r = *state;
	bool repaired;

	apply(r);
	fn_t_unmark(&r->k, T);
	fn_t_add_table(&r->k, T SW_HANDOVER_SUFFIX, 0, false);
	fn_t_add_chain(&r->k, T SW_HANDOVER_SUFFIX, "theirs");
	assert_int_equal(reconcile(r, &repaired), -EEXIST);
	assert_int_equal(fn_table_use(r->k.s, T SW_HANDOVER_SUFFIX), 1);
	assert_non_null(fn_chain(r->k.s, T SW_HANDOVER_SUFFIX, "theirs"));
	assert_false(fn_tab(r->k.s, T)->has_ud);
	assert_int_equal(fn_n_rules(r->k.s, T, NULL), r->want.n_rules);
}

/* Another tool's table of the same name: refused by every command, untouched. */
static void test_foreign_table_refused(void **state)
{
	struct rc *r = *state;
	bool repaired, absent;
	struct sw_diff d;

	fn_t_add_table(&r->k, T, 0, false);
	fn_t_add_chain(&r->k, T, "theirs");
	fn_t_add_rogue_rule(&r->k, T, "theirs");
	assert_int_equal(sw_apply(&r->nl, &r->want, r->err, sizeof(r->err)), -EEXIST);
	assert_non_null(strstr(r->err, "not created by sandwall"));
	assert_int_equal(reconcile(r, &repaired), -EEXIST);
	assert_false(repaired);
	assert_int_equal(sw_check(&r->nl, &r->want, &d, r->err, sizeof(r->err)), -EEXIST);
	sw_diff_free(&d);
	assert_int_equal(sw_remove(&r->nl, T, &absent, r->err, sizeof(r->err)), -EEXIST);
	assert_int_equal(r->k.n_batches, 0);
	assert_int_equal(fn_n_rules(r->k.s, T, "theirs"), 1);
	assert_int_equal(r->k.s->n_tables, 1);
}

/* An empty unmarked table: remove leaves it, apply adopts it (replace). */
static void test_empty_unmarked_adopted(void **state)
{
	struct rc *r = *state;
	bool absent;

	fn_t_add_table(&r->k, T, 0, false);
	assert_int_equal(sw_remove(&r->nl, T, &absent, r->err, sizeof(r->err)), -EEXIST);
	assert_non_null(fn_table(r->k.s, T));
	apply(r);
	assert_int_equal(fn_count(&r->k, NFT_MSG_DELTABLE, NULL), 1);
	assert_true(fn_tab(r->k.s, T)->has_ud);
	assert_int_equal(r->k.n_ct_dumps, 1);
}

/* another process commits before every batch: bounded retries, nothing applied */
static void bump_before_batch(struct fn *k, enum fn_when when, uint16_t type, void *arg)
{
	int *left = arg;

	if (when == FN_BEFORE && type == NFNL_MSG_BATCH_BEGIN && *left != 0) {
		k->genid++;
		if (*left > 0)
			(*left)--;
	}
}

static void test_restart_bounded(void **state)
{
	struct rc *r = *state;
	const struct sw_set *s = set_with_elems(&r->want, 1);
	int forever = -1, once = 1;
	bool repaired;
	size_t batches, commits;

	apply(r);
	fn_t_del_elem(&r->k, T, s->name, 0);
	batches = r->k.n_batches;
	commits = r->k.n_commits;
	r->k.hook = bump_before_batch;
	r->k.hook_arg = &forever;
	assert_int_equal(reconcile(r, &repaired), -ERESTART);
	assert_false(repaired);
	assert_int_equal(r->k.n_batches - batches, SW_APPLY_TRIES);
	assert_int_equal(r->k.n_commits, commits);
	assert_int_equal(fn_n_elems(r->k.s, fn_st(r->k.s, T, s->name)), s->n_elems - 1);
	/* moved once: observed again, then repaired */
	batches = r->k.n_batches;
	r->k.hook_arg = &once;
	reconcile_ok(r);
	r->k.hook = NULL;
	assert_int_equal(r->k.n_batches - batches, 2);
}

/* an element is gone right after our commit, at our own generation (the
 * kernel does not hold what it acknowledged): the read-back says so. (A
 * later commit by someone else is no failure: test_settle.c.) */
static void tamper_after_commit(struct fn *k, enum fn_when when, uint16_t type, void *arg)
{
	const char **set = arg;

	(void)type;
	if (when == FN_COMMIT && *set) {
		fn_t_del_elem(k, T, *set, 0);
		k->genid--;     /* no commit of its own */
		*set = NULL;
	}
}

static void test_readback_mismatch_is_eio(void **state)
{
	struct rc *r = *state;
	const struct sw_set *s = set_with_elems(&r->want, 2);
	const char *victim = s->name;
	bool repaired = false;

	apply(r);
	fn_t_del_elem(&r->k, T, s->name, 1);
	r->k.hook = tamper_after_commit;
	r->k.hook_arg = &victim;
	assert_int_equal(reconcile(r, &repaired), -EIO);
	r->k.hook = NULL;
	assert_true(repaired);
	assert_non_null(strstr(r->err, "does not hold"));
}

/* The event said the table was deleted at generation g: re-created without
 * a dump first; a stale g falls back to observing. */
static void test_hint_table_deleted(void **state)
{
	struct rc *r = *state;
	struct sw_hint hint = { .table_deleted = true };
	size_t gets, batches;
	bool repaired;

	apply(r);
	fn_t_del_table(&r->k, T);
	hint.genid = r->k.genid;
	gets = r->k.n_gets[NFT_MSG_GETTABLE];
	batches = r->k.n_batches;
	sw_diff_free(&r->d);
	assert_int_equal(sw_reconcile_hint(&r->nl, &r->want, &hint, &r->d, &repaired, r->err,
					   sizeof(r->err)), 0);
	assert_true(repaired);
	assert_int_equal(r->k.n_batches - batches, 1);
	assert_int_equal(r->k.n_gets[NFT_MSG_GETTABLE] - gets, 1);     /* the read-back only */
	assert_true(hint.committed_us > 0);
	assert_in_sync(r);

	fn_t_del_table(&r->k, T);
	hint.genid = r->k.genid - 1;
	batches = r->k.n_batches;
	sw_diff_free(&r->d);
	assert_int_equal(sw_reconcile_hint(&r->nl, &r->want, &hint, &r->d, &repaired, r->err,
					   sizeof(r->err)), 0);
	assert_int_equal(r->k.n_batches - batches, 2);  /* ERESTART, then create */
	assert_in_sync(r);
}

/* The table was deleted and another tool made one of that name before the
 * re-create: EXCL fails it, and the other table is refused, not filled. */
static void test_hint_foreign_table_in_between(void **state)
{
	struct rc *r = *state;
	struct sw_hint hint = { .table_deleted = true };
	bool repaired;

	apply(r);
	fn_t_del_table(&r->k, T);
	fn_t_add_table(&r->k, T, 0, false);
	fn_t_add_chain(&r->k, T, "theirs");
	hint.genid = r->k.genid;
	sw_diff_free(&r->d);
	assert_int_equal(sw_reconcile_hint(&r->nl, &r->want, &hint, &r->d, &repaired, r->err,
					   sizeof(r->err)), -EEXIST);
	assert_false(repaired);
	assert_int_equal(r->k.last_batch_err, -EEXIST);
	assert_int_equal(fn_table_use(r->k.s, T), 1);
	assert_int_equal(fn_n_rules(r->k.s, T, NULL), 0);
	assert_false(fn_tab(r->k.s, T)->has_ud);
}

static void test_remove(void **state)
{
	struct rc *r = *state;
	bool absent = true;
	size_t batches;

	apply(r);
	assert_int_equal(sw_remove(&r->nl, T, &absent, r->err, sizeof(r->err)), 0);
	assert_false(absent);
	assert_int_equal(r->k.n_log, 1);
	assert_int_equal(r->k.log[0].type, NFT_MSG_DELTABLE);
	assert_string_equal(r->k.log[0].table, T);
	assert_null(fn_table(r->k.s, T));
	batches = r->k.n_batches;
	assert_int_equal(sw_remove(&r->nl, T, &absent, r->err, sizeof(r->err)), 0);
	assert_true(absent);
	assert_int_equal(r->k.n_batches, batches);
}

/* A table owned by another socket: the kernel says EPERM, nothing changes. */
static void test_owned_by_another(void **state)
{
	struct rc *r = *state;
	bool repaired, absent;

	r->k.portid = 999;
	r->want.table_flags = NFT_TABLE_F_OWNER;
	apply(r);
	r->k.portid = FN_PORTID;
	r->want.table_flags = 0;
	fn_t_flush_chain(&r->k, T, chain_with_rules(&r->want, 1, true));
	assert_int_equal(reconcile(r, &repaired), -EPERM);
	assert_int_equal(sw_remove(&r->nl, T, &absent, r->err, sizeof(r->err)), -EPERM);
	assert_non_null(fn_table(r->k.s, T));
	assert_int_equal(fn_tab(r->k.s, T)->owner, 999);
}

/* A message of the batch fails: the batch is all or nothing. */
static void test_failed_batch_changes_nothing(void **state)
{
	struct rc *r = *state;
	struct fn_state *before = malloc(sizeof(*before));
	const char *c = chain_with_rules(&r->want, 2, false);
	uint32_t gen;
	bool repaired;

	assert_non_null(before);
	apply(r);
	fn_t_del_rule(&r->k, T, c, 0);
	memcpy(before, r->k.s, sizeof(*before));
	gen = r->k.genid;
	r->k.fail_index = 2;
	r->k.fail_err = -ENOMEM;
	assert_int_equal(reconcile(r, &repaired), -ENOMEM);
	assert_non_null(strstr(r->err, "message 2 of the batch"));
	fprintf(stderr, "refused: %s\n", r->err);
	/* the refused message is named: in-place repair flushes the chain and adds its rules */
	assert_non_null(strstr(r->err, "message 2 of the batch: "));
	assert_non_null(strstr(r->err, c));
	assert_int_equal(r->k.genid, gen);
	assert_int_equal(memcmp(before, r->k.s, sizeof(*before)), 0);
	free(before);
	reconcile_ok(r);        /* the fault was one-shot */
}

/* ENOBUFS and a lost answer: the error comes back, the next call works
 * (late answers are not mistaken for new ones). */
static void test_enobufs_and_lost_answer(void **state)
{
	struct rc *r = *state;
	struct sw_diff d;

	apply(r);
	r->k.enobufs_recv = r->k.n_recvs + 3;
	assert_int_equal(sw_check(&r->nl, &r->want, &d, r->err, sizeof(r->err)), -ENOBUFS);
	sw_diff_free(&d);
	assert_in_sync(r);
	r->k.drop_send = r->k.n_sends + 2;
	assert_int_equal(sw_check(&r->nl, &r->want, &d, r->err, sizeof(r->err)), -ETIMEDOUT);
	sw_diff_free(&d);
	assert_in_sync(r);
}

/* ---- owner.c ------------------------------------------------------------------ */

struct dmn {
	struct fn k;
	struct sw_daemon d;
};

static int setup_daemon(void **state)
{
	struct dmn *x = calloc(1, sizeof(*x));
	char err[SW_ERRLEN];

	assert_non_null(x);
	fn_init(&x->k);
	if (sw_config_parse_string("", "test.conf", &x->d.cfg, err, sizeof(err)))
		fail_msg("config: %s", err);
	tk_host(&x->d.host);
	if (sw_ruleset_build(&x->d.cfg, &x->d.host, &x->d.want, err, sizeof(err)))
		fail_msg("build: %s", err);
	assert_int_equal(sw_nl_open_ops(&x->d.nl, &fn_ops, &x->k), 0);
	sw_alert_init(&x->d.alert, 100, "events");
	*state = x;
	return 0;
}

static int teardown_daemon(void **state)
{
	struct dmn *x = *state;

	sw_model_free(&x->d.want);
	sw_host_free(&x->d.host);
	sw_nl_close(&x->d.nl);
	fn_free(&x->k);
	free(x);
	return 0;
}

/* Take from empty, die, take again: the identical orphan is adopted with
 * one message, its counts kept; ensure takes a table that lost its owner. */
static void test_owner_take_and_adopt(void **state)
{
	struct dmn *x = *state;
	const uint32_t own = NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST;
	const char *o = x->d.want.counters[0];

	x->d.cfg.owner = SW_OWNER_AUTO;
	assert_int_equal(sw_owner_take(&x->d), 0);
	assert_string_equal(x->d.mode, "owner+persist");
	assert_int_equal(fn_tab(x->k.s, T)->flags, own);
	assert_int_equal(fn_tab(x->k.s, T)->owner, FN_PORTID);

	fn_bump_counter(&x->k, T, o, 3, 300);
	fn_close_portid(&x->k, FN_PORTID);
	assert_int_equal(sw_owner_take(&x->d), 0);
	assert_int_equal(x->k.n_log, 1);
	assert_int_equal(x->k.log[0].type, NFT_MSG_NEWTABLE);
	assert_int_equal(fn_tab(x->k.s, T)->flags, own);
	assert_int_equal(fn_ob(x->k.s, T, o)->pkts, 3);

	/* lost its owner again: ensure takes it back */
	fn_close_portid(&x->k, FN_PORTID);
	sw_owner_ensure(&x->d);
	assert_int_equal(fn_tab(x->k.s, T)->flags, own);
	assert_int_equal(fn_ob(x->k.s, T, o)->pkts, 3);
	/* owned: ensure sends nothing */
	x->k.n_log = 0;
	sw_owner_ensure(&x->d);
	assert_int_equal(x->k.n_log, 0);
}

/* Mode twin: the main table unowned, <table>_twin owned with the blocks. */
static void test_owner_twin(void **state)
{
	struct dmn *x = *state;

	x->d.cfg.owner = SW_OWNER_TWIN;
	assert_int_equal(sw_owner_take(&x->d), 0);
	assert_string_equal(x->d.mode, "twin");
	assert_true(x->d.twin);
	assert_int_equal(fn_tab(x->k.s, T)->flags, 0);
	assert_non_null(fn_table(x->k.s, T SW_TWIN_SUFFIX));
	assert_int_equal(fn_tab(x->k.s, T SW_TWIN_SUFFIX)->flags, NFT_TABLE_F_OWNER);
	assert_true(fn_guarded(x->k.s, fn_tab(x->k.s, T SW_TWIN_SUFFIX)));
	sw_owner_twin_remove(&x->d, T);
	assert_null(fn_table(x->k.s, T SW_TWIN_SUFFIX));
}

/* The mode comes from the kernel's flags, asked with an empty table made
 * and deleted in one batch: no persist (6.1) -> twin, no owner either ->
 * watch; the probe leaves no table behind. */
static void test_owner_flags_probe(void **state)
{
	struct dmn *x = *state;

	x->d.cfg.owner = SW_OWNER_AUTO;
	x->k.no_table_flags = NFT_TABLE_F_PERSIST;
	assert_int_equal(sw_owner_take(&x->d), 0);
	assert_string_equal(x->d.mode, "twin");
	assert_int_equal(fn_tab(x->k.s, T)->flags, 0);
	assert_int_equal(fn_tab(x->k.s, T SW_TWIN_SUFFIX)->flags, NFT_TABLE_F_OWNER);
	assert_null(fn_table(x->k.s, T SW_PROBE_SUFFIX));
	sw_owner_twin_remove(&x->d, T);

	x->k.no_table_flags = NFT_TABLE_F_PERSIST | NFT_TABLE_F_OWNER;
	x->d.twin = false;
	assert_int_equal(sw_owner_take(&x->d), 0);
	assert_string_equal(x->d.mode, "watch");
	assert_false(x->d.twin);
	assert_null(fn_table(x->k.s, T SW_PROBE_SUFFIX));
	/* owner = yes without the flag: refused, never a silent watch */
	x->d.cfg.owner = SW_OWNER_YES;
	assert_int_equal(sw_owner_take(&x->d), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fake_roundtrip_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_sees_gap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_from_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_forgets_primed_flows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_defers_forget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noop_when_identical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_again_keeps_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_element_drift_refills_that_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_delta_falls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_changed_refills_that_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flushed_base_chain_refilled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_chain_set_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extra_objects_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dormant_table_woken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_orphan_keeps_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takeover_unmarked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takeover_for_ownership, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takeover_restarted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takeover_handover_name_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_table_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_unmarked_adopted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readback_mismatch_is_eio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_table_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_foreign_table_in_between, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owned_by_another, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_batch_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enobufs_and_lost_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_take_and_adopt, setup_daemon, teardown_daemon),
		cmocka_unit_test_setup_teardown(test_owner_twin, setup_daemon, teardown_daemon),
		cmocka_unit_test_setup_teardown(test_owner_flags_probe, setup_daemon, teardown_daemon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
