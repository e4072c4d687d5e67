/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the conntrack walk's worker (forget.h): after a
 * re-created table the daemon forgets the flows opened toward the
 * sandboxes on a thread of its own, so that the next repair does not wait
 * for the walk. The worker must forget exactly what sw_ct_forget_inbound
 * forgets, say so through its eventfd, and run one walk at a time.
 * Against the fake kernel's conntrack list (fake_nft.h). No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <poll.h>
#include <cmocka.h>

#include "fake_kernel.h"
#include "fake_nft.h"
#include "sync/forget.h"

struct st {
	struct fn k;
	struct sw_model want;
	struct sw_forget *f;
};

static int setup(void **state)
{
	struct st *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	fn_init(&t->k);
	tk_build("", &t->want);
	assert_int_equal(sw_forget_open_ops(&t->f, &fn_ops, &t->k), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct st *t = *state;

	sw_forget_close(t->f);
	sw_model_free(&t->want);
	fn_free(&t->k);
	free(t);
	return 0;
}

/* wait for the worker's eventfd (5 s at most) and collect */
static int done(struct st *t, size_t *n)
{
	struct pollfd p = { sw_forget_fd(t->f), POLLIN, 0 };
	char table[SW_NAME_MAX];
	int rc = -1;

	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(sw_forget_collect(t->f, &rc, n, table, sizeof(table)), 0);
	assert_string_equal(table, "sandwall");
	return rc;
}

/* the flows toward a sandbox go, the sandboxes' own stay; the caller's
 * model may change meanwhile (the worker has its copy) */
static void test_worker_forgets(void **state)
{
	struct st *t = *state;
	size_t n = 0;

	fn_ct_add(&t->k, "10.0.0.9", "172.17.0.2", "172.17.0.2", "10.0.0.9");
	fn_ct_add(&t->k, "172.17.0.3", "1.1.1.1", "1.1.1.1", "172.17.0.3");
	fn_ct_add(&t->k, "fe80::9", "fe80::2", "fe80::2", "fe80::9");
	assert_false(sw_forget_running(t->f));
	assert_int_equal(sw_forget_start(t->f, &t->want), 0);
	assert_true(sw_forget_running(t->f));
	/* one walk at a time */
	assert_int_equal(sw_forget_start(t->f, &t->want), -EBUSY);
	sw_model_free(&t->want);
	assert_int_equal(done(t, &n), 0);
	assert_false(sw_forget_running(t->f));
	assert_int_equal(n, 2);
	assert_int_equal(t->k.n_ct_dumps, 1);
	assert_int_equal(t->k.n_ct_deleted, 2);
	assert_int_equal(t->k.n_ct, 1);
	assert_int_equal(t->k.ct[0].osrc[3], 3);
	/* nothing more to collect */
	{
		char table[SW_NAME_MAX];
		int rc;

		assert_int_equal(sw_forget_collect(t->f, &rc, &n, table, sizeof(table)), -EAGAIN);
	}
	/* and again, on the same socket */
	tk_build("", &t->want);
	fn_ct_add(&t->k, "10.0.0.9", "172.17.0.2", "172.17.0.2", "10.0.0.9");
	assert_int_equal(sw_forget_start(t->f, &t->want), 0);
	assert_int_equal(done(t, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(t->k.n_ct_dumps, 2);
}

/* the walk fails: the error comes back through collect */
static void test_worker_error(void **state)
{
	struct st *t = *state;
	size_t n = 99;

	fn_ct_add(&t->k, "10.0.0.9", "172.17.0.2", "172.17.0.2", "10.0.0.9");
	t->k.enobufs_recv = 1;          /* the dump's first answer is lost */
	assert_int_equal(sw_forget_start(t->f, &t->want), 0);
	assert_int_equal(done(t, &n), -ENOBUFS);
	assert_int_equal(t->k.n_ct, 1);
}

/* closed while a walk runs: it waits for it */
static void test_close_waits(void **state)
{
	struct st *t = *state;

	fn_ct_add(&t->k, "10.0.0.9", "172.17.0.2", "172.17.0.2", "10.0.0.9");
	assert_int_equal(sw_forget_start(t->f, &t->want), 0);
	sw_forget_close(t->f);
	t->f = NULL;
	assert_int_equal(t->k.n_ct, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_worker_forgets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_waits, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
