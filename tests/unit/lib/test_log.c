/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the journald entry (log.c): the fields, SANDWALL_EVENT
 * from "event=NAME", MESSAGE on one line, an entry that does not fit. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

static void test_fields(void **state)
{
	char out[512], want[512];
	size_t n;

	(void)state;
	n = sw_log_journal_entry(out, sizeof(out), LOG_WARNING, LOG_DAEMON, "sandwalld",
				 "event=drift table=inet/sandwall change=\"delete table\"");
	snprintf(want, sizeof(want), "PRIORITY=4\nSYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=sandwalld\n"
		 "SYSLOG_PID=%d\nSANDWALL_EVENT=drift\nMESSAGE=event=drift table=inet/sandwall "
		 "change=\"delete table\"\n", (int)getpid());
	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
	/* an event further in; none at all; a newline inside the message */
	sw_log_journal_entry(out, sizeof(out), LOG_INFO, LOG_DAEMON, "sandwalld",
			     "sandwalld: event=start mode=owner");
	assert_non_null(strstr(out, "\nSANDWALL_EVENT=start\n"));
	sw_log_journal_entry(out, sizeof(out), LOG_ERR, LOG_USER, "sandwall", "cannot read x");
	assert_null(strstr(out, "SANDWALL_EVENT"));
	assert_non_null(strstr(out, "PRIORITY=3\nSYSLOG_FACILITY=1\n"));
	sw_log_journal_entry(out, sizeof(out), LOG_ERR, LOG_USER, "sandwall", "a\nFAKE=1");
	assert_non_null(strstr(out, "\nMESSAGE=a FAKE=1\n"));
	assert_null(strstr(out, "\nFAKE=1"));
	/* "prevent=x" is no event */
	sw_log_journal_entry(out, sizeof(out), LOG_ERR, LOG_USER, "sandwall", "prevent=x");
	assert_null(strstr(out, "SANDWALL_EVENT"));
}

static void test_too_small(void **state)
{
	char out[40];

	(void)state;
	assert_int_equal(sw_log_journal_entry(out, sizeof(out), LOG_INFO, LOG_DAEMON, "sandwalld",
					      "event=start"), 0);
}

/* every daemon line key=value: one that is stays as it is, free text is
 * quoted with its level, escaped, and cut inside the buffer */
static void test_kv(void **state)
{
	char out[64];

	(void)state;
	assert_true(sw_log_is_kv("event=start table=sandwall"));
	assert_true(sw_log_is_kv("time=x"));
	assert_false(sw_log_is_kv("cannot open /x: No such file"));
	assert_false(sw_log_is_kv("=x"));
	assert_false(sw_log_is_kv("Event=x"));
	assert_false(sw_log_is_kv("network log: a=b"));
	sw_log_kv(out, sizeof(out), LOG_ERR, "event=start table=sandwall");
	assert_string_equal(out, "event=start table=sandwall");
	sw_log_kv(out, sizeof(out), LOG_WARNING, "cannot open \"/x\": a\\b\nc");
	assert_string_equal(out, "level=warning msg=\"cannot open \\\"/x\\\": a\\\\b c\"");
	sw_log_kv(out, sizeof(out), LOG_INFO, "control socket: accepting clients again");
	assert_string_equal(out, "level=info msg=\"control socket: accepting clients again\"");
	/* cut: still one quoted value */
	assert_true(sw_log_kv(out, 24, LOG_ERR, "a very long message that does not fit") < 24);
	assert_int_equal(out[strlen(out) - 1], '"');
	assert_int_equal(strncmp(out, "level=error msg=\"", 17), 0);
	assert_int_equal(sw_log_kv(out, 0, LOG_ERR, "x"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_kv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
