/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for `sandwall run`'s words (run.c): the forms, durations,
 * labels, every refusal; and the run state file, read back and refused
 * when it is no run record. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/run.h"

static char err[256];

static int parse(struct sw_run_args *a, int argc, const char **argv)
{
	return sw_run_parse(argc, (char **)argv, a, err, sizeof(err));
}

static void test_forms(void **state)
{
	struct sw_run_args a;
	const char *w1[] = { "--label", "t1", "--timeout", "5m", "--receipt", "/tmp/r.json", "--",
			     "docker", "run", "--rm", NULL };
	const char *w2[] = { "start", "--label=h1", NULL };
	const char *w3[] = { "stop", "h1", NULL };
	const char *w4[] = { "echo", "--label", NULL };

	(void)state;
	assert_int_equal(parse(&a, 10, w1), 0);
	assert_int_equal(a.mode, SW_RUN_WRAP);
	assert_string_equal(a.label, "t1");
	assert_int_equal(a.timeout_ms, 300000);
	assert_string_equal(a.receipt, "/tmp/r.json");
	assert_string_equal(a.cmd[0], "docker");
	assert_string_equal(a.cmd[2], "--rm");     /* the command's own options stay its own */
	assert_int_equal(parse(&a, 2, w2), 0);
	assert_int_equal(a.mode, SW_RUN_START);
	assert_string_equal(a.label, "h1");
	assert_int_equal(parse(&a, 2, w3), 0);
	assert_int_equal(a.mode, SW_RUN_STOP);
	assert_string_equal(a.stop, "h1");
	/* without "--" the command starts at the first word */
	assert_int_equal(parse(&a, 2, w4), 0);
	assert_string_equal(a.cmd[0], "echo");
	assert_string_equal(a.label, "run");
}

static void test_refusals(void **state)
{
	static const struct { const char *w[4]; int n; const char *msg; } bad[] = {
		{ { "--label", "a b", "--", "true" }, 4, "bad --label" },
		{ { "--label", "", "--", "true" }, 4, "bad --label" },
		{ { "--timeout", "0", "--", "true" }, 4, "bad --timeout" },
		{ { "--timeout", "5x", "--", "true" }, 4, "bad --timeout" },
		{ { "--timeout", "8000000", "--", "true" }, 4, "bad --timeout" },
		{ { "--label" }, 1, "needs a value" },
		{ { "--label", "x" }, 2, "no command" },
		{ { "--" }, 1, "no command" },
		{ { "-c", "f", "--", "true" }, 4, "unknown option" },
		{ { "stop" }, 1, "which run" },
		{ { "stop", "a", "b" }, 3, "unexpected 'b'" },
		{ { "start", "x" }, 2, "unexpected 'x'" },
		{ { "stop", "--timeout", "5", "a" }, 4, "--timeout belongs" },
	};
	struct sw_run_args a;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = '\0';
		assert_int_equal(parse(&a, bad[i].n, (const char **)bad[i].w), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, bad[i].msg);
	}
}

static void test_duration_label(void **state)
{
	int64_t ms;

	(void)state;
	assert_int_equal(sw_run_duration("90", &ms), 0);
	assert_int_equal(ms, 90000);
	assert_int_equal(sw_run_duration("500ms", &ms), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(sw_run_duration("2h", &ms), 0);
	assert_int_equal(ms, 7200000);
	assert_int_equal(sw_run_duration("-1", &ms), -EINVAL);
	assert_int_equal(sw_run_duration("", &ms), -EINVAL);
	assert_int_equal(sw_run_duration("1d", &ms), -EINVAL);
	assert_int_equal(sw_run_duration("99999999999999999999", &ms), -EINVAL);
	assert_true(sw_run_label_ok("eval-7.b_2"));
	assert_false(sw_run_label_ok("a/b"));
	assert_false(sw_run_label_ok("x\"y"));
	assert_false(sw_run_label_ok("0123456789012345678901234567890123456789012345678901234567890123456789"));
}

/* The command starts only when the preflight held, sandwalld answered and
 * the max_connections counts are the run's */
static void test_may_start(void **state)
{
	struct sw_run r = { .pre = 0, .daemon_start = true, .counts = SW_RUN_COUNTS_RESET };

	(void)state;
	assert_true(sw_run_may_start(&r));
	r.counts = SW_RUN_COUNTS_SHARED;
	assert_true(sw_run_may_start(&r));
	r.counts = SW_RUN_COUNTS_NONE;
	assert_true(sw_run_may_start(&r));
	r.counts = SW_RUN_COUNTS_FAILED;
	assert_false(sw_run_may_start(&r));
	r.counts = SW_RUN_COUNTS_RESET;
	r.daemon_start = false;
	assert_false(sw_run_may_start(&r));
	r.daemon_start = true;
	r.pre = 1;
	assert_false(sw_run_may_start(&r));
	r.pre = 2;
	assert_false(sw_run_may_start(&r));
}

static void test_state_file(void **state)
{
	char dir[] = "/tmp/sw-run-test.XXXXXX", path[128];
	struct sw_run r = { .id = "20261203T114501Z-3f9a0c21", .label = "t1", .start_us = 1796200000123456LL,
			    .uid = 0, .pid = 42, .cmd = "docker run --rm 'a b'", .wrapped = true,
			    .started = true, .status = 7, .pre = 0, .post = 1, .daemon_start = true,
			    .mode = "owner+persist", .receipt = "/tmp/x.json" }, back;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(sw_run_save(path, &r), 0);
	assert_int_equal(sw_run_load(path, &back), 0);
	assert_string_equal(back.id, r.id);
	assert_string_equal(back.cmd, r.cmd);
	assert_int_equal(back.start_us, r.start_us);
	assert_int_equal(back.status, 7);
	assert_int_equal(back.post, 1);
	assert_true(back.daemon_start);
	assert_false(back.daemon_stop);
	/* no run record, a bad label, a status out of range, truncated */
	static const char *const hostile[] = {
		"{\"record\":\"verify\"}",
		"{\"record\":\"sandwall-run\",\"id\":\"x\"}",
		"not json",
		"",
	};
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		assert_non_null(f = fopen(path, "w"));
		fputs(hostile[i], f);
		fclose(f);
		assert_int_equal(sw_run_load(path, &back), -EINVAL);
	}
	snprintf(r.label, sizeof(r.label), "a b");
	assert_int_equal(sw_run_save(path, &r), 0);
	assert_int_equal(sw_run_load(path, &back), -EINVAL);
	snprintf(r.label, sizeof(r.label), "ok");
	r.status = 300;
	assert_int_equal(sw_run_save(path, &r), 0);
	assert_int_equal(sw_run_load(path, &back), -EINVAL);
	r.status = 7;
	/* the max_connections counts: kept, with the run they are shared with */
	r.counts = SW_RUN_COUNTS_SHARED;
	snprintf(r.counts_with, sizeof(r.counts_with), "20261203T114400Z-00000001");
	assert_int_equal(sw_run_save(path, &r), 0);
	assert_int_equal(sw_run_load(path, &back), 0);
	assert_int_equal(back.counts, SW_RUN_COUNTS_SHARED);
	assert_string_equal(back.counts_with, r.counts_with);
	r.counts = SW_RUN_COUNTS_FAILED;
	assert_int_equal(sw_run_save(path, &r), 0);
	assert_int_equal(sw_run_load(path, &back), 0);
	assert_int_equal(back.counts, SW_RUN_COUNTS_FAILED);
	assert_string_equal(sw_run_counts_name(back.counts), "failed");
	assert_non_null(f = fopen(path, "w"));
	fputs("{\"record\":\"sandwall-run\",\"id\":\"x\",\"label\":\"ok\",\"command\":\"\","
	      "\"mode\":\"\",\"receipt\":\"\",\"start_us\":1,\"stop_us\":0,\"uid\":0,\"pid\":1,"
	      "\"timeout_ms\":0,\"status\":-1,\"signal\":0,\"preflight\":0,\"postflight\":-1,"
	      "\"wrapped\":true,\"started\":false,\"timed_out\":false,\"daemon_start\":true,"
	      "\"daemon_stop\":false,\"max_connections_counts\":\"resett\"}", f);
	fclose(f);
	assert_int_equal(sw_run_load(path, &back), -EINVAL);  /* an unknown state */
	unlink(path);
	assert_int_equal(sw_run_load(path, &back), -ENOENT);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_duration_label),
		cmocka_unit_test(test_may_start),
		cmocka_unit_test(test_state_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
