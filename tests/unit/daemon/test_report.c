/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the daemon's typed reporting (report.c), the journal it
 * writes, the receipt's reading of that journal and of the verify record,
 * and the blocked-line limiter. */
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

#include "lib/json.h"
#include "lib/limiter.h"
#include "lib/log.h"
#include "cli/receipt.h"
#include "daemon/report.h"

static struct sw_daemon d;
static char jpath[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	memset(&d, 0, sizeof(d));
	sw_config_defaults(&d.cfg);
	snprintf(jpath, sizeof(jpath), "/tmp/sw-report-XXXXXX");
	fd = mkstemp(jpath);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(jpath);
	snprintf(d.cfg.journal_path, sizeof(d.cfg.journal_path), "%s", jpath);
	d.mode = "watch";
	if (sw_journal_open(&d.journal, jpath))
		return -1;
	sw_alert_init(&d.alert, 1000, "events");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sw_journal_close(&d.journal);
	unlink(jpath);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

static struct sw_receipt_journal read_back(struct sw_jv *lines)
{
	struct sw_receipt_journal js;
	size_t len;
	char *text = slurp(jpath, &len);

	assert_int_equal(sw_receipt_read_journal(text, len, &js, lines), 0);
	free(text);
	return js;
}

/* A repair that failed and then succeeded on the retry is settled: the
 * receipt must not keep saying NOT HELD (0.1.0 never journaled the retry). */
static void test_retry_settles_failure(void **state)
{
	struct sw_repair fail = { .cause = SW_CAUSE_DRIFT, .failed = true, .change = "delete table",
				  .pid = 42, .comm = "nft", .error = "kernel said \"no\"" };
	struct sw_repair retry = { .cause = SW_CAUSE_RETRY, .change = "missing table",
				   .changes = 1, .restored_us = 310, .verified_us = 400 };
	struct sw_receipt_journal js;
	struct sw_jv lines;
	const char *s;

	(void)state;
	sw_report_start(&d);
	sw_report_repair(&d, &fail);
	js = read_back(NULL);
	assert_int_equal(js.unrepaired, 1);
	assert_int_equal(d.repair_failures, 1);
	assert_int_equal(d.drifts, 1);
	sw_report_repair(&d, &retry);
	js = read_back(&lines);
	assert_int_equal(js.unrepaired, 0);
	assert_int_equal(js.malformed, 0);
	assert_int_equal(js.events, 3);
	assert_int_equal(d.repairs, 1);
	assert_int_equal(d.drifts, 1);          /* a retry is no new drift */
	assert_int_equal(lines.n, 3);
	assert_int_equal(sw_jv_get_str(&lines.vals[1], "event", &s), 0);
	assert_string_equal(s, "repair-failed");
	assert_int_equal(sw_jv_get_str(&lines.vals[1], "error", &s), 0);
	assert_string_equal(s, "kernel said \"no\"");   /* escaped, not dropped */
	assert_int_equal(sw_jv_get_str(&lines.vals[2], "event", &s), 0);
	assert_string_equal(s, "repaired");
	assert_int_equal(sw_jv_get_str(&lines.vals[2], "found_by", &s), 0);
	assert_string_equal(s, "retry");
	sw_jv_free(&lines);
}

/* Causes that are no drift are not journaled and not counted as drift. */
static void test_causes(void **state)
{
	struct sw_repair up = { .cause = SW_CAUSE_UPDATE, .change = "set own4", .changes = 2 };
	struct sw_repair dr = { .cause = SW_CAUSE_RESYNC, .change = "rule", .comm = "" };
	struct sw_receipt_journal js;

	(void)state;
	assert_true(sw_cause_is_drift(SW_CAUSE_DRIFT));
	assert_true(sw_cause_is_drift(SW_CAUSE_RESYNC));
	assert_false(sw_cause_is_drift(SW_CAUSE_UPDATE));
	assert_false(sw_cause_is_drift(SW_CAUSE_RETRY));
	assert_false(sw_cause_is_drift(SW_CAUSE_RELOAD));
	assert_string_equal(sw_cause_name(SW_CAUSE_COUNT), "unknown");
	sw_report_repair(&d, &up);
	sw_report_repair(&d, &dr);
	js = read_back(NULL);
	assert_int_equal(js.events, 1);
	assert_int_equal(js.drifts, 1);
	assert_int_equal(d.drifts, 1);
	assert_int_equal(d.repairs, 2);
	assert_string_equal(d.last_drift, "rule by pid 0 (?)");
}

static void test_journal_reader(void **state)
{
	static const char text[] =
		"{\"time\":\"t\",\"unix\":100,\"event\":\"start\",\"table\":\"inet/x\"}\n"
		"{\"unix\":101,\"event\":\"repair-failed\"}\n"
		"not json\n"
		"{\"unix\":102,\"event\":\"no-such-event\"}\n"
		"{\"unix\":\"103\",\"event\":\"drift\"}\n"
		"\n"
		"{\"unix\":104,\"event\":\"stop\"}\n"
		"{\"unix\":105,\"event\":\"repair-failed\"}";
	struct sw_receipt_journal js;

	(void)state;
	assert_int_equal(sw_receipt_read_journal(text, sizeof(text) - 1, &js, NULL), 0);
	assert_int_equal(js.events, 4);
	assert_int_equal(js.malformed, 3);
	assert_int_equal(js.unrepaired, 2);
	assert_int_equal(js.first, 100);
	assert_int_equal(js.last_stop, 104);
	assert_int_equal(sw_receipt_read_journal("", 0, &js, NULL), 0);
	assert_int_equal(js.events, 0);
	assert_int_equal(js.first, -1);
}

/* 0.1.0 found the verdict with strstr("],\"passed\":true}"): a probe's
 * text could fake it. The reader looks at the member itself. */
static void test_verify_reader(void **state)
{
	static const char good[] = "{\"time\":5,\"runs\":[{\"from\":\"x\",\"passed\":true}],\"passed\":true}";
	static const char fake[] = "{\"time\":5,\"runs\":[{\"from\":\"],\\\"passed\\\":true}\"}],"
				   "\"passed\":false}";
	static const char cut[] = "{\"time\":5,\"runs\":[],\"passed\":tr";
	int64_t t = 0;
	bool passed = false;

	(void)state;
	assert_int_equal(sw_receipt_read_verify(good, sizeof(good) - 1, &t, &passed), 0);
	assert_int_equal(t, 5);
	assert_true(passed);
	assert_int_equal(sw_receipt_read_verify(fake, sizeof(fake) - 1, &t, &passed), 0);
	assert_false(passed);
	assert_int_equal(sw_receipt_read_verify(cut, sizeof(cut) - 1, &t, &passed), -EINVAL);
	assert_int_equal(sw_receipt_read_verify("{\"time\":5,\"passed\":true}", 25, &t, &passed),
			 -EINVAL);
}

static void test_limiter(void **state)
{
	static struct sw_limiter l;
	uint8_t a[SW_LIMITER_KEY] = { 1 }, b[SW_LIMITER_KEY] = { 2 };

	(void)state;
	assert_int_equal(sw_limiter_admit(&l, a, 1000, 1000000), 0);
	assert_int_equal(sw_limiter_admit(&l, a, 2000, 1000000), -1);
	assert_int_equal(sw_limiter_admit(&l, a, 3000, 1000000), -1);
	assert_int_equal(sw_limiter_admit(&l, b, 3000, 1000000), 0);   /* its own budget */
	/* after the window: admitted, and told how many were suppressed */
	assert_int_equal(sw_limiter_admit(&l, a, 1001000, 1000000), 2);
	assert_int_equal(sw_limiter_admit(&l, a, 2002000, 1000000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_retry_settles_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_causes, setup, teardown),
		cmocka_unit_test(test_journal_reader),
		cmocka_unit_test(test_verify_reader),
		cmocka_unit_test(test_limiter),
	};

	sw_log_init("test_report", false, false, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
