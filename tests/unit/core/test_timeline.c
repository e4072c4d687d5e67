/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the receipt's timeline builder (timeline.c): every event
 * kind, gaps clipped to the window, who started and ended each, torn and
 * out-of-order lines, another table's lines, the part before the record. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/timeline.h"

#define T0 1796200000LL        /* 2026-12-02T08:26:40Z */
#define S(x) ((int64_t)(x) * 1000000)

static struct sw_timeline tl;

static void build(const char *text, int64_t since, int64_t until)
{
	assert_int_equal(sw_timeline_build(text, strlen(text), "sandwall", S(since),
					   S(until), &tl), 0);
}

static const struct sw_gap *gap_of(enum sw_gap_kind k, size_t nth)
{
	for (size_t i = 0; i < tl.n_gaps; i++)
		if (tl.gaps[i].kind == k && nth-- == 0)
			return &tl.gaps[i];
	return NULL;
}

/* the gap, or the test fails (never NULL) */
static const struct sw_gap *must(enum sw_gap_kind k, size_t nth)
{
	static const struct sw_gap none;
	const struct sw_gap *g = gap_of(k, nth);

	if (!g) {
		fail_msg("no gap %s #%zu (%zu gaps)", sw_gap_kind_name(k), nth, tl.n_gaps);
		return &none;
	}
	return g;
}

#define L(t, rest) "{\"unix\":" #t ",\"event\":" rest "}\n"

/* start, verify passed, nothing else: HELD for a window after the start */
static void test_held(void **state)
{
	(void)state;
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\",\"uid\":0,\"pid\":10")
	      L(1796200010, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0, T0 + 100);
	assert_int_equal(tl.n_gaps, 0);
	assert_int_equal(tl.verifies_passed, 1);
	assert_true(tl.held);
	sw_timeline_free(&tl);
	/* no verify inside the window: not held, though no gap */
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200010, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0 + 20, T0 + 100);
	assert_int_equal(tl.n_gaps, 0);
	assert_false(tl.held);
	sw_timeline_free(&tl);
}

/* remove + re-apply: one absent gap with its start, end and who */
static void test_remove_reapply(void **state)
{
	const struct sw_gap *g;

	(void)state;
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\",\"uid\":0,\"pid\":10,\"comm\":\"sandwalld\"")
	      L(1796200010, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true")
	      L(1796200020, "\"removed\",\"table\":\"inet/sandwall\",\"by\":\"sandwall remove\",\"uid\":1000,\"pid\":4242")
	      L(1796200050, "\"applied\",\"table\":\"inet/sandwall\",\"by\":\"sandwall apply\",\"uid\":0,\"pid\":4300")
	      L(1796200060, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0, T0 + 100);
	assert_int_equal(tl.n_gaps, 1);
	g = must(SW_GAP_ABSENT, 0);
	assert_int_equal(g->start_us, S(T0 + 20));
	assert_int_equal(g->end_us, S(T0 + 50));
	assert_false(g->open);
	assert_string_equal(g->who, "sandwall remove, uid 1000 pid 4242");
	assert_string_equal(g->ended_by, "sandwall apply, uid 0 pid 4300");
	assert_false(tl.held);
	sw_timeline_free(&tl);
	/* a window after the gap: held */
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200020, "\"removed\",\"table\":\"inet/sandwall\"")
	      L(1796200050, "\"applied\",\"table\":\"inet/sandwall\"")
	      L(1796200060, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0 + 55, T0 + 100);
	assert_int_equal(tl.n_gaps, 0);
	assert_true(tl.held);
	sw_timeline_free(&tl);
	/* removed and never applied again: open to the window's end */
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200020, "\"removed\",\"table\":\"inet/sandwall\""),
	      T0, T0 + 100);
	g = must(SW_GAP_ABSENT, 0);
	assert_true(g->open);
	assert_int_equal(g->end_us, S(T0 + 100));
	sw_timeline_free(&tl);
}

/* stop .. start: daemon gap; start after start: a crash from the last event */
static void test_daemon_stop_and_crash(void **state)
{
	const struct sw_gap *g;

	(void)state;
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200010, "\"stop\",\"table\":\"inet/sandwall\",\"uid\":0,\"pid\":1")
	      L(1796200030, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200040, "\"drift\",\"table\":\"inet/sandwall\",\"change\":\"delete rule\",\"restored_us\":500")
	      L(1796200070, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200080, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0, T0 + 100);
	g = must(SW_GAP_DAEMON, 0);
	assert_int_equal(g->start_us, S(T0 + 10));
	assert_int_equal(g->end_us, S(T0 + 30));
	assert_string_equal(g->who, "uid 0 pid 1");
	g = must(SW_GAP_DAEMON, 1);
	assert_int_equal(g->start_us, S(T0 + 40));      /* its last sign of life */
	assert_int_equal(g->end_us, S(T0 + 70));
	assert_non_null(strstr(g->what, "crashed"));
	g = must(SW_GAP_DRIFT, 0);
	assert_int_equal(g->end_us - g->start_us, 500);
	assert_string_equal(g->what, "delete rule");
	assert_int_equal(tl.drifts, 1);
	assert_false(tl.held);
	sw_timeline_free(&tl);
}

/* repair-failed .. repaired, unguarded .. covered, verify failed .. passed, hole */
static void test_every_other_kind(void **state)
{
	const struct sw_gap *g;

	(void)state;
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200005, "\"repair-failed\",\"table\":\"inet/sandwall\",\"change\":\"add rule\"")
	      L(1796200008, "\"repaired\",\"table\":\"inet/sandwall\"")
	      L(1796200010, "\"unguarded\",\"table\":\"inet/sandwall\",\"ifname\":\"docker0\",\"facing\":\"bridge with ports\"")
	      L(1796200012, "\"unguarded\",\"table\":\"inet/sandwall\",\"ifname\":\"tap0\",\"facing\":\"tap\"")
	      L(1796200020, "\"covered\",\"table\":\"inet/sandwall\",\"ifname\":\"docker0\",\"state\":\"covered\"")
	      L(1796200030, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":false")
	      L(1796200040, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true")
	      L(1796200050, "\"hole\",\"since_unix\":1796200045,\"lost\":3,\"error\":\"No space left on device\"")
	      L(1796200055, "\"reload\",\"table\":\"inet/sandwall\",\"result\":\"ok\""),
	      T0, T0 + 100);
	g = must(SW_GAP_REPAIR, 0);
	assert_int_equal(g->start_us, S(T0 + 5));
	assert_int_equal(g->end_us, S(T0 + 8));
	g = must(SW_GAP_UNGUARDED, 0);
	assert_string_equal(g->what, "docker0 (bridge with ports)");
	assert_int_equal(g->end_us, S(T0 + 20));
	g = must(SW_GAP_UNGUARDED, 1);
	assert_string_equal(g->what, "tap0 (tap)");
	assert_true(g->open);
	g = must(SW_GAP_VERIFY, 0);
	assert_int_equal(g->start_us, S(T0 + 30));
	assert_int_equal(g->end_us, S(T0 + 40));
	g = must(SW_GAP_HOLE, 0);
	assert_int_equal(g->start_us, S(T0 + 45));
	assert_int_equal(g->end_us, S(T0 + 50));
	assert_non_null(strstr(g->what, "3 event(s) not written: No space left on device"));
	assert_int_equal(tl.verifies, 2);
	assert_int_equal(tl.verifies_passed, 1);
	assert_false(tl.held);
	sw_timeline_free(&tl);
}

/* torn and corrupt lines: a hole between the events around them; out of
 * order lines sorted and counted; another table's lines left out */
static void test_torn_out_of_order_other_table(void **state)
{
	const struct sw_gap *g;

	(void)state;
	build(L(1796200000, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200030, "\"applied\",\"table\":\"inet/sandwall\"")
	      L(1796200020, "\"removed\",\"table\":\"inet/sandwall\"")     /* written late */
	      "{\"unix\":1796200040,\"event\":\"dri\n"                         /* torn */
	      L(1796200050, "\"removed\",\"table\":\"inet/other\"")
	      "not json at all\n"
	      L(1796200060, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true")
	      L(1796200070, "\"nonsense-kind\",\"table\":\"inet/sandwall\""),
	      T0, T0 + 100);
	assert_int_equal(tl.out_of_order, 1);
	assert_int_equal(tl.malformed, 3);
	g = must(SW_GAP_ABSENT, 0);                              /* sorted: removed, then applied */
	assert_int_equal(g->start_us, S(T0 + 20));
	assert_int_equal(g->end_us, S(T0 + 30));
	assert_null(gap_of(SW_GAP_ABSENT, 1));          /* not inet/other's removal */
	g = must(SW_GAP_HOLE, 0);
	assert_int_equal(g->start_us, S(T0 + 20));      /* the event before it in the file */
	assert_int_equal(g->end_us, S(T0 + 60));        /* the one after it */
	assert_false(tl.held);
	sw_timeline_free(&tl);
}

/* a window that reaches back past the oldest event kept: that part is
 * unknown; no journal at all: all unknown; a daemon seen only by its
 * lines (its start rotated away) ran since before the record */
static void test_unknown_before_record(void **state)
{
	const struct sw_gap *g;

	(void)state;
	build(L(1796200050, "\"start\",\"table\":\"inet/sandwall\"")
	      L(1796200060, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0, T0 + 100);
	g = must(SW_GAP_UNKNOWN, 0);
	assert_int_equal(g->start_us, S(T0));
	assert_int_equal(g->end_us, S(T0 + 50));
	assert_false(tl.held);
	sw_timeline_free(&tl);
	build("", T0, T0 + 100);
	assert_non_null(gap_of(SW_GAP_UNKNOWN, 0));
	assert_true(must(SW_GAP_UNKNOWN, 0)->open);
	assert_false(tl.held);
	sw_timeline_free(&tl);
	build(L(1796200010, "\"drift\",\"table\":\"inet/sandwall\",\"change\":\"x\",\"restored_us\":0")
	      L(1796200060, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0 + 20, T0 + 100);
	assert_null(gap_of(SW_GAP_DAEMON, 0));
	assert_true(tl.held);
	sw_timeline_free(&tl);
	/* the CLI alone (no daemon ever): the daemon gap covers the window */
	build(L(1796200010, "\"applied\",\"table\":\"inet/sandwall\"")
	      L(1796200060, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0 + 20, T0 + 100);
	assert_non_null(gap_of(SW_GAP_DAEMON, 0));
	assert_false(tl.held);
	sw_timeline_free(&tl);
}

/* lines the CLI writes (apply, verify, a run's start and stop) prove no
 * daemon: without a start the whole window is "sandwalld not seen running" */
static void test_cli_lines_prove_no_daemon(void **state)
{
	(void)state;
	build(L(1796200000, "\"applied\",\"table\":\"inet/sandwall\"")
	      L(1796200001, "\"run-start\",\"table\":\"inet/sandwall\",\"run\":\"r1\"")
	      L(1796200002, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true")
	      L(1796200050, "\"run-stop\",\"table\":\"inet/sandwall\",\"run\":\"r1\""),
	      T0 + 1, T0 + 50);
	assert_int_equal(tl.n_gaps, 1);
	assert_int_equal(must(SW_GAP_DAEMON, 0)->start_us, S(T0 + 1));
	assert_true(must(SW_GAP_DAEMON, 0)->open);
	assert_false(tl.held);
	sw_timeline_free(&tl);
	/* a line only a running daemon writes (drift) does prove it */
	build(L(1796200000, "\"run-start\",\"table\":\"inet/sandwall\",\"run\":\"r1\"")
	      L(1796200001, "\"covered\",\"table\":\"inet/sandwall\",\"ifname\":\"x\"")
	      L(1796200002, "\"verify\",\"table\":\"inet/sandwall\",\"passed\":true"),
	      T0 + 1, T0 + 50);
	assert_int_equal(tl.n_gaps, 0);
	sw_timeline_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_remove_reapply),
		cmocka_unit_test(test_daemon_stop_and_crash),
		cmocka_unit_test(test_every_other_kind),
		cmocka_unit_test(test_torn_out_of_order_other_table),
		cmocka_unit_test(test_unknown_before_record),
		cmocka_unit_test(test_cli_lines_prove_no_daemon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
