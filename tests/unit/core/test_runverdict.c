/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for a run's verdict (runverdict.c): contained only when every
 * fact holds; each fact alone makes it not contained, with its reason. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "core/runverdict.h"

static struct sw_timeline tl0;
static struct sw_run_verdict v;

static struct sw_run_facts good(void)
{
	memset(&tl0, 0, sizeof(tl0));
	return (struct sw_run_facts){ .pre = 0, .post = 0, .daemon_start = true,
				      .daemon_stop = true, .started = true, .tl = &tl0 };
}

static void has(const char *needle)
{
	for (size_t i = 0; i < v.n; i++)
		if (strstr(v.reason[i], needle))
			return;
	fail_msg("no reason with \"%s\" (%zu reasons, first \"%s\")", needle, v.n,
		 v.n ? v.reason[0] : "");
}

static void test_contained(void **state)
{
	struct sw_run_facts f = good();

	(void)state;
	sw_run_verdict(&f, &v);
	assert_true(v.contained);
	assert_int_equal(v.n, 0);
}

static void test_each_fact(void **state)
{
	struct sw_run_facts f;
	const char *broken[] = { "pid 7 (agent) holds CAP_NET_RAW" };

	(void)state;
	f = good(); f.pre = 1; f.started = false;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	has("preflight verify did not hold (exit 1): the command was not started");
	f = good(); f.post = 1;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	has("postflight verify did not hold");
	f = good(); f.post = 2;
	sw_run_verdict(&f, &v);
	has("postflight verify could not run");
	f = good(); f.daemon_start = false;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	has("did not answer at the start");
	f = good(); f.counts_failed = true;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	has("did not start the max_connections counts again");
	f = good(); f.daemon_stop = false;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	f = good(); f.tl = NULL;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	has("journal could not be read");
	f = good(); f.broken = broken; f.n_broken = 1;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	has("assumption not met: pid 7 (agent) holds CAP_NET_RAW");
	f = good(); f.record_error = "attempts.json unreadable";
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	f = good(); tl0.malformed = 2;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
}

/* a table removed mid-run: the gap is the reason, with when and who */
static void test_gap(void **state)
{
	struct sw_run_facts f = good();
	struct sw_gap g = { .kind = SW_GAP_ABSENT, .start_us = 1796200001250000LL,
			    .end_us = 1796200002000000LL, .what = "removed",
			    .who = "uid 0 pid 42 (nft)", .ended_by = "uid 0 pid 9 (sandwalld)" };

	(void)state;
	tl0.gaps = &g;
	tl0.n_gaps = 1;
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.reason[0], "table absent 2026-12-02T08:26:41.250000Z .. "
			    "2026-12-02T08:26:42.000000Z: removed (uid 0 pid 42 (nft)), ended by "
			    "uid 0 pid 9 (sandwalld)");
	g.open = true;
	sw_run_verdict(&f, &v);
	has(".. the end of the run: removed");
	tl0.gaps = NULL;
	tl0.n_gaps = 0;
}

/* more reasons than fit: counted, still not contained */
static void test_many(void **state)
{
	static struct sw_gap g[SW_RUN_REASONS + 5];
	struct sw_run_facts f = good();

	(void)state;
	for (size_t i = 0; i < sizeof(g) / sizeof(*g); i++)
		g[i] = (struct sw_gap){ .kind = SW_GAP_DRIFT, .start_us = 1, .end_us = 2 };
	tl0.gaps = g;
	tl0.n_gaps = sizeof(g) / sizeof(*g);
	sw_run_verdict(&f, &v);
	assert_false(v.contained);
	assert_int_equal(v.n, SW_RUN_REASONS);
	assert_int_equal(v.more, 5);
	tl0.gaps = NULL;
	tl0.n_gaps = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contained),
		cmocka_unit_test(test_each_fact),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
