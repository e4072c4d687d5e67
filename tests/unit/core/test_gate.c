/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the gate's two buffers (include/core/gate.h, src/core/gate.c and
 * sync/gatefill.c, phase 1): the buffer the packet path reads is never
 * edited. Against the stateful fake kernel (fake_nft.h), a hook after
 * every commit checks each batch: a batch that changes the elements of
 * gate4_X or gate6_X must leave X unselected before and after it (unless
 * it made the set), and a batch that moves the selector changes no gate
 * buffer's elements. No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_kernel.h"
#include "fake_nft.h"
#include "core/diff.h"
#include "core/gate.h"
#include "sync/reconcile.h"

#define T "sandwall"

struct gt {
	struct fn k;
	struct sw_nl nl;
	char err[SW_ERRLEN];
	int sel;                /* what the kernel selected after the last commit: 0 a, 1 b, -1 none */
	size_t edits[2];        /* batches that changed buffer a / b */
	size_t flips;           /* batches that moved the selector */
	size_t violations;
};

/* which buffer the kernel's gate_a / gate_b select */
static int kernel_sel(struct fn *k)
{
	struct fn_set *a = fn_set(k->s, T, SW_GATE_SEL_A), *b = fn_set(k->s, T, SW_GATE_SEL_B);
	bool on_a = a && fn_n_elems(k->s, a), on_b = b && fn_n_elems(k->s, b);

	return on_a == on_b ? -1 : on_a ? 0 : 1;
}

static bool is_buf(const char *name, int x)
{
	char n4[SW_NAME_MAX], n6[SW_NAME_MAX];

	sw_gate_set_name(n4, sizeof(n4), 0, x ? SW_GATE_B : SW_GATE_A);
	sw_gate_set_name(n6, sizeof(n6), 1, x ? SW_GATE_B : SW_GATE_A);
	return !strcmp(name, n4) || !strcmp(name, n6);
}

static void check_batch(struct fn *k, enum fn_when when, uint16_t type, void *arg)
{
	struct gt *t = arg;
	bool edited[2] = { false, false }, made[2] = { false, false }, flip = false;
	int now;

	if (when != FN_COMMIT)
		return;
	for (size_t i = 0; i < k->n_log; i++) {
		const struct fn_logged *l = &k->log[i];

		for (int x = 0; x < 2; x++) {
			if (!is_buf(l->name, x))
				continue;
			if (l->type == NFT_MSG_NEWSET)
				made[x] = true;
			if (l->type == NFT_MSG_NEWSETELEM || l->type == NFT_MSG_DELSETELEM)
				edited[x] = true;
		}
		if ((l->type == NFT_MSG_NEWSETELEM || l->type == NFT_MSG_DELSETELEM) &&
		    (!strcmp(l->name, SW_GATE_SEL_A) || !strcmp(l->name, SW_GATE_SEL_B)))
			flip = true;
	}
	now = kernel_sel(k);
	for (int x = 0; x < 2; x++) {
		if (!edited[x])
			continue;
		t->edits[x]++;
		if (!made[x] && (t->sel == x || now == x || flip)) {
			print_error("batch %zu edits buffer %c while it is selected (before %d, after %d, flip %d)\n",
				    k->n_commits, x ? 'b' : 'a', t->sel, now, flip);
			t->violations++;
		}
	}
	t->flips += flip && t->sel >= 0;
	t->sel = now;
}

static int setup(void **state)
{
	struct gt *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	fn_init(&t->k);
	t->sel = -1;
	t->k.hook = check_batch;
	t->k.hook_arg = t;
	assert_int_equal(sw_nl_open_ops(&t->nl, &fn_ops, &t->k), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct gt *t = *state;

	sw_nl_close(&t->nl);
	fn_free(&t->k);
	free(t);
	return 0;
}

static void assert_in_sync(struct gt *t, const char *conf)
{
	struct sw_model m;
	struct sw_diff d;

	tk_build(conf, &m);
	assert_int_equal(sw_check(&t->nl, &m, &d, t->err, sizeof(t->err)), 0);
	if (d.n)
		sw_diff_print(&d, stderr);
	assert_int_equal(d.n, 0);
	sw_diff_free(&d);
	sw_model_free(&m);
}

/* settle alone: which buffer, and whether phase 1 is needed */
static void test_settle_plan(void **state)
{
	static struct sw_model want, have, again;
	struct sw_gate_plan p;

	(void)state;
	/* nothing in the kernel: a, made with the table (no phase 1) */
	tk_build("", &want);
	assert_int_equal(sw_gate_live(&want), SW_GATE_A);
	assert_int_equal(sw_gate_settle(&want, NULL, &p), 0);
	assert_int_equal(p.target, SW_GATE_A);
	assert_false(p.phase1);
	/* the kernel holds it: keep a */
	tk_build("", &have);
	have.has_table = true;
	assert_int_equal(sw_gate_settle(&want, &have, &p), 0);
	assert_int_equal(p.target, SW_GATE_A);
	assert_false(p.phase1);
	sw_model_free(&want);
	/* the gate changes: b, filled first (have has gate4_b) */
	tk_build("[block]\nprivate = no\n", &want);
	assert_int_equal(sw_gate_settle(&want, &have, &p), 0);
	assert_int_equal(p.target, SW_GATE_B);
	assert_true(p.phase1);
	assert_int_equal(sw_gate_live(&want), SW_GATE_B);
	/* want's a keeps have's elements (nothing is sent to it) */
	assert_int_equal(sw_model_find_set(&want, "gate4_a")->n_elems,
			 sw_model_find_set(&have, "gate4_a")->n_elems);
	/* b selected by both, same gate: settled again, no phase 1 */
	tk_build("[block]\nprivate = no\n", &again);
	assert_int_equal(sw_gate_settle(&again, &want, &p), 0);
	assert_int_equal(p.target, SW_GATE_B);
	assert_false(p.phase1);
	assert_int_equal(sw_gate_live(&again), SW_GATE_B);
	assert_int_equal(sw_model_find_set(&again, "gate_a")->n_elems, 0);
	assert_int_equal(sw_model_find_set(&again, "gate_b")->n_elems, 2);
	assert_true(sw_gate_buffer("gate6_a") && sw_gate_buffer("gate4_b"));
	assert_false(sw_gate_buffer("lan4") || sw_gate_buffer("gate_a"));
	sw_model_free(&want);
	sw_model_free(&have);
	sw_model_free(&again);
	/* the netdev table has no gate: nothing */
	sw_model_init(&want, T);
	assert_int_equal(sw_gate_settle(&want, NULL, &p), 0);
	assert_int_equal(p.target, SW_GATE_NONE);
	sw_model_free(&want);
}

/* Changes that move the gate, one after another, by apply and by
 * reconcile: each fills the buffer not selected in its own commit and
 * flips in the next; the selected one is never edited; the kernel ends
 * in sync every time. */
static void test_flip_never_edits_live(void **state)
{
	static const char *const confs[] = {
		"",
		"[block]\nprivate = no\n",
		"[block]\nprivate = no\ndestinations = 198.51.100.0/24 2001:db8:77::/48\n",
		"[block]\ndestinations = 198.51.100.0/24\n",
		"",
		"[block]\nmetadata = no\n",
		"",
	};
	struct gt *t = *state;
	size_t before;

	for (size_t i = 0; i < sizeof(confs) / sizeof(*confs); i++) {
		struct sw_model m;
		struct sw_diff d = { 0 };
		bool repaired;

		tk_build(confs[i], &m);
		before = t->k.n_commits;
		if (i % 2)
			assert_int_equal(sw_apply(&t->nl, &m, t->err, sizeof(t->err)), 0);
		else
			assert_int_equal(sw_reconcile(&t->nl, &m, &d, &repaired, t->err,
						      sizeof(t->err)), 0);
		sw_diff_free(&d);
		sw_model_free(&m);
		assert_in_sync(t, confs[i]);
		/* a change of the gate is two commits (fill, flip) */
		/* a change of the gate is two commits (fill, flip); back to
		 * what the other buffer still holds (the last step: "" as in
		 * step 4) is a flip alone */
		if (i)
			assert_int_equal(t->k.n_commits - before, i == 6 ? 1 : 2);
		assert_int_equal(t->sel, (int)(i % 2));
		assert_int_equal(t->violations, 0);
	}
	assert_int_equal(t->flips, 6);
	assert_true(t->edits[0] >= 3 && t->edits[1] >= 3);
}

/* conf -> sw_update_sets from *old (the kernel at *gen): by deltas, the
 * kernel selects sel afterwards and holds conf; *old becomes the new model */
static void update_by_deltas(struct gt *t, const char *conf, struct sw_model *old, uint32_t *gen,
			     int sel)
{
	struct sw_model next;
	struct sw_diff d = { 0 };

	tk_build(conf, &next);
	if (sw_update_sets(&t->nl, &next, old, gen, &d, t->err, sizeof(t->err)))
		fail_msg("%s", t->err);
	assert_true(d.n > 0);
	sw_diff_free(&d);
	assert_int_equal(t->sel, sel);
	assert_int_equal(t->violations, 0);
	assert_in_sync(t, conf);
	sw_model_free(old);
	*old = next;
}

/* The daemon's host path (sw_update_sets) sends no gate change by
 * deltas: -ESTALE, and the observed path fills and flips. A change that
 * leaves the gate alone goes by deltas and keeps the buffer the kernel
 * selects, also when that is b. */
static void test_update_sets(void **state)
{
	struct gt *t = *state;
	static struct sw_model old, next;
	struct sw_diff d = { 0 };
	uint32_t gen;
	bool repaired;

	tk_build("", &old);
	assert_int_equal(sw_apply(&t->nl, &old, t->err, sizeof(t->err)), 0);
	tk_build("[block]\nprivate = no\n", &next);
	assert_int_equal(sw_reconcile(&t->nl, &next, &d, &repaired, t->err, sizeof(t->err)), 0);
	sw_diff_free(&d);
	assert_int_equal(t->sel, 1);
	sw_model_free(&old);
	old = next;
	gen = t->k.genid;
	/* host_ports only: by deltas, b stays */
	update_by_deltas(t, "[block]\nprivate = no\n[allow]\nhost_ports = tcp/8080\n", &old, &gen, 1);
	/* back to the gate buffer a still holds: a flip alone, by deltas */
	update_by_deltas(t, "[allow]\nhost_ports = tcp/8080\n", &old, &gen, 0);
	/* a gate neither buffer holds: not by deltas (-ESTALE); the observed
	 * path fills b and flips */
	tk_build("[block]\ndestinations = 198.51.100.0/24\n[allow]\nhost_ports = tcp/8080\n", &next);
	assert_int_equal(sw_update_sets(&t->nl, &next, &old, &gen, &d, t->err, sizeof(t->err)),
			 -ESTALE);
	sw_diff_free(&d);
	assert_int_equal(sw_reconcile(&t->nl, &next, &d, &repaired, t->err, sizeof(t->err)), 0);
	sw_diff_free(&d);
	assert_int_equal(t->sel, 1);
	assert_int_equal(t->violations, 0);
	assert_in_sync(t, "[block]\ndestinations = 198.51.100.0/24\n[allow]\nhost_ports = tcp/8080\n");
	sw_model_free(&old);
	sw_model_free(&next);
}

/* A tamper that takes elements out of the selected buffer is repaired
 * through the other buffer, never by editing the one the packets read. */
static void test_tampered_live_repaired_via_idle(void **state)
{
	struct gt *t = *state;
	struct sw_model m;
	struct sw_diff d = { 0 };
	struct fn_set *s;
	bool repaired;

	tk_build("", &m);
	assert_int_equal(sw_apply(&t->nl, &m, t->err, sizeof(t->err)), 0);
	assert_int_equal(t->sel, 0);
	/* another process empties gate4_a (all or nothing: a flush) */
	s = fn_set(t->k.s, T, "gate4_a");
	assert_non_null(s);
	assert_true(fn_n_elems(t->k.s, s) > 0);
	fn_flush_elems(t->k.s, s->sid);
	t->k.genid++;
	assert_int_equal(sw_reconcile(&t->nl, &m, &d, &repaired, t->err, sizeof(t->err)), 0);
	assert_true(repaired);
	assert_true(d.n > 0);
	sw_diff_free(&d);
	assert_int_equal(t->sel, 1);
	assert_int_equal(t->violations, 0);
	sw_model_free(&m);
	assert_in_sync(t, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settle_plan),
		cmocka_unit_test_setup_teardown(test_flip_never_edits_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_sets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tampered_live_repaired_via_idle, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
