/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for sw_reconcile_settle (the daemon's repair): a read-back
 * overtaken by the next tamper is compared and repaired again, and when
 * the tamperer keeps going the result says so (-EAGAIN: the generation
 * moved past the repair's), so the daemon writes no repair-failed
 * (LOG_CRIT) line for it; only a kernel refusal, or a read-back that
 * differs at the repair's own generation, is a failure.
 * Against the stateful fake kernel (fake_nft.h). No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_kernel.h"
#include "fake_nft.h"
#include "core/diff.h"
#include "sync/reconcile.h"

#define T "sandwall"
#define TRIES 3

struct st {
	struct fn k;
	struct sw_nl nl;
	struct sw_model want;
	struct sw_diff d;
	char err[SW_ERRLEN], first[256];
	const char *victim;     /* the set the tamperer takes an element from */
	int tampers;            /* after this many more commits of ours, stop */
};

static int setup(void **state)
{
	struct st *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	fn_init(&t->k);
	assert_int_equal(sw_nl_open_ops(&t->nl, &fn_ops, &t->k), 0);
	tk_build("", &t->want);
	for (size_t i = 0; i < t->want.n_sets && !t->victim; i++)
		if (t->want.sets[i].n_elems >= 4)
			t->victim = t->want.sets[i].name;
	assert_non_null(t->victim);
	assert_int_equal(sw_apply(&t->nl, &t->want, t->err, sizeof(t->err)), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct st *t = *state;

	sw_diff_free(&t->d);
	sw_model_free(&t->want);
	sw_nl_close(&t->nl);
	fn_free(&t->k);
	free(t);
	return 0;
}

/* the one-socket tamperer: right after each of our commits, before our
 * read-back, it deletes an element again */
static void tamper(struct fn *k, enum fn_when when, uint16_t type, void *arg)
{
	struct st *t = arg;

	(void)type;
	if (when == FN_COMMIT && t->tampers > 0) {
		t->tampers--;
		fn_t_del_elem(k, T, t->victim, 0);
	}
}

static int settle(struct st *t, bool *repaired)
{
	struct sw_hint hint = { 0 };
	int rc;

	sw_diff_free(&t->d);
	rc = sw_reconcile_settle(&t->nl, &t->want, &hint, TRIES, &t->d, repaired, t->first,
				 sizeof(t->first), t->err, sizeof(t->err));
	if (*repaired)
		assert_true(hint.committed_us > 0);
	if (!rc)
		assert_int_equal(hint.synced_genid, t->k.genid);
	return rc;
}

static void assert_in_sync(struct st *t)
{
	struct sw_diff d;

	assert_int_equal(sw_check(&t->nl, &t->want, &d, t->err, sizeof(t->err)), 0);
	assert_int_equal(d.n, 0);
	sw_diff_free(&d);
}

/* tampered; the read-back after the repair is overtaken once: settled in
 * two rounds, no failure */
static void test_overtaken_once(void **state)
{
	struct st *t = *state;
	size_t batches = t->k.n_batches;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 1);
	t->tampers = 1;
	t->k.hook = tamper;
	t->k.hook_arg = t;
	assert_int_equal(settle(t, &repaired), 0);
	t->k.hook = NULL;
	assert_true(repaired);
	assert_int_equal(t->k.n_batches - batches, 2);
	assert_non_null(strstr(t->first, "missing"));   /* what the first compare found */
	assert_in_sync(t);
}

/* overtaken twice in a row: still settled within TRIES rounds */
static void test_overtaken_twice(void **state)
{
	struct st *t = *state;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 1);
	t->tampers = TRIES - 1;
	t->k.hook = tamper;
	t->k.hook_arg = t;
	assert_int_equal(settle(t, &repaired), 0);
	t->k.hook = NULL;
	assert_int_equal(t->tampers, 0);
	assert_in_sync(t);
}

/* overtaken every round (a storm): after TRIES rounds -EAGAIN, not -EIO:
 * each repair held, and the commit after it is drift of its own (the
 * daemon writes no repair-failed line for it) */
static void test_keeps_overtaken(void **state)
{
	struct st *t = *state;
	size_t batches = t->k.n_batches;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 1);
	t->tampers = 1000;
	t->k.hook = tamper;
	t->k.hook_arg = t;
	assert_int_equal(settle(t, &repaired), -EAGAIN);
	t->k.hook = NULL;
	assert_true(repaired);
	assert_int_equal(t->k.n_batches - batches, TRIES);
	assert_non_null(strstr(t->err, "changed again after the repair"));
}

/* the kernel acknowledged, yet does not hold it at the repair's own
 * generation (no other commit): -EIO after TRIES rounds, the CRIT case */
static void lose(struct fn *k, enum fn_when when, uint16_t type, void *arg)
{
	struct st *t = arg;

	(void)type;
	if (when == FN_COMMIT && t->tampers > 0) {
		t->tampers--;
		fn_t_del_elem(k, T, t->victim, 0);
		k->genid--;     /* not a commit: the element is just not there */
	}
}

static void test_not_held(void **state)
{
	struct st *t = *state;
	size_t batches = t->k.n_batches;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 1);
	t->tampers = 1000;
	t->k.hook = lose;
	t->k.hook_arg = t;
	assert_int_equal(settle(t, &repaired), -EIO);
	t->k.hook = NULL;
	assert_true(repaired);
	assert_int_equal(t->k.n_batches - batches, TRIES);
	assert_non_null(strstr(t->err, "does not hold"));
}

/* the kernel refuses the repair: an error at once, one round */
static void test_refused_is_not_retried(void **state)
{
	struct st *t = *state;
	size_t batches = t->k.n_batches;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 1);
	t->k.fail_index = 0;
	t->k.fail_err = -ENOMEM;
	assert_int_equal(settle(t, &repaired), -ENOMEM);
	assert_false(repaired);
	assert_int_equal(t->k.n_batches - batches, 1);
}

/* in sync: nothing sent, the generation known */
static void test_in_sync(void **state)
{
	struct st *t = *state;
	size_t batches = t->k.n_batches;
	bool repaired;

	assert_int_equal(settle(t, &repaired), 0);
	assert_false(repaired);
	assert_int_equal(t->k.n_batches, batches);
	assert_int_equal(t->d.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overtaken_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overtaken_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_overtaken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_is_not_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_sync, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
