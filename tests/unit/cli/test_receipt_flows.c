// SPDX-License-Identifier: GPL-2.0-or-later
/* test_receipt_flows: the receipt's flows section from flows.jsonl and
 * flows-open.json: the window, the dropped and lost counts, the open
 * snapshot unless the stop wrote it as lines, the bounded text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/receipt.h"

#define FLOW(state, first, last, sport) \
	"{\"time\":\"x\",\"unix\":" #last ",\"event\":\"flow\",\"state\":\"" state "\"," \
	"\"verdict\":\"allowed\",\"first\":" #first ",\"last\":" #last ",\"src\":\"172.17.0.2\"," \
	"\"sport\":" #sport ",\"dst\":\"203.0.113.10\",\"proto\":\"tcp\",\"dport\":80," \
	"\"counters\":\"kernel\",\"orig_bytes\":10,\"reply_bytes\":2000}\n"

static const char log_text[] =
	FLOW("closed", 100, 110, 1)
	FLOW("closed", 200, 210, 2)
	"{\"time\":\"x\",\"unix\":205,\"event\":\"flows-dropped\",\"count\":3,\"total\":3,\"max_flows\":2}\n"
	"{\"time\":\"x\",\"unix\":206,\"event\":\"flows-lost\",\"count\":1,\"total\":1,\"max_flows\":2}\n"
	"not json\n"
	FLOW("gone", 300, 310, 3)
	"{\"time\":\"x\",\"unix\":900,\"event\":\"flows-dropped\",\"count\":5,\"total\":8,\"max_flows\":2}\n";

static const char open_text[] =
	"{\"time\":\"x\",\"unix\":400,\"max_flows\":2,\"open\":1,\"dropped\":8,\"flows\":["
	"{\"time\":\"x\",\"unix\":400,\"event\":\"flow\",\"state\":\"open\",\"verdict\":\"allowed\","
	"\"first\":350,\"last\":400,\"src\":\"172.17.0.3\",\"sport\":4,\"dst\":\"2001:db8::10\","
	"\"proto\":\"udp\",\"dport\":53,\"counters\":\"unknown\",\"orig_bytes\":null,\"reply_bytes\":null}]}";

static void test_window(void **state)
{
	struct sw_receipt_flows f;

	(void)state;
	assert_int_equal(sw_receipt_read_flows(log_text, strlen(log_text), open_text,
					       strlen(open_text), 150, 500, &f), 0);
	/* 100..110 is before the window; 200..210, 300..310 and the open one are in */
	assert_int_equal(f.n, 3);
	assert_int_equal(f.closed, 1);
	assert_int_equal(f.gone, 1);
	assert_int_equal(f.open, 1);
	assert_int_equal(f.dropped, 3);     /* the line at 900 is after */
	assert_int_equal(f.lost, 1);
	assert_int_equal(f.malformed, 1);
	assert_int_equal(f.oldest, 110);
	sw_receipt_flows_free(&f);
	assert_int_equal(sw_receipt_read_flows(NULL, 0, NULL, 0, 0, 1000, &f), 0);
	assert_int_equal(f.n, 0);
	assert_false(f.have_log);
	sw_receipt_flows_free(&f);
}

/* the stop wrote the open flows as lines at the snapshot's time: once only */
static void test_stop_dedup(void **state)
{
	static const char stopped[] = FLOW("open", 350, 400, 4);
	struct sw_receipt_flows f;

	(void)state;
	assert_int_equal(sw_receipt_read_flows(stopped, strlen(stopped), open_text, strlen(open_text),
					       0, 1000, &f), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.open, 1);
	sw_receipt_flows_free(&f);
}

static void test_text_bounded(void **state)
{
	struct sw_receipt_flows f;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(sw_receipt_read_flows(log_text, strlen(log_text), open_text,
					       strlen(open_text), 0, 1000, &f), 0);
	sw_receipt_flows_text(&f, out, 2);
	fclose(out);
	assert_non_null(strstr(buf, "4 allowed flow(s) in the window (2 closed, 1 open, 1 gone)"));
	assert_non_null(strstr(buf, "NOT COMPLETE: 8 new flow(s) dropped"));
	assert_non_null(strstr(buf, "  172.17.0.2 -> 203.0.113.10:80/tcp  out 10 B, in 2000 B  allowed (closed)\n"));
	assert_non_null(strstr(buf, "  and 2 more (receipt --json lists them all)\n"));
	assert_null(strstr(buf, "2001:db8::10"));
	free(buf);
	/* the JSON has every one */
	{
		struct sw_jw w;

		sw_jw_init(&w);
		sw_jw_obj(&w, NULL);
		sw_receipt_flows_json(&w, &f);
		sw_jw_end(&w);
		assert_non_null(strstr(sw_jw_text(&w), "\"oldest_record\":110,\"count\":4,\"closed\":2,\"open\":1,\"gone\":1,"
						       "\"dropped\":8,\"lost_events\":1"));
		assert_non_null(strstr(sw_jw_text(&w), "\"dst\":\"2001:db8::10\""));
		assert_non_null(strstr(sw_jw_text(&w), "\"reply_bytes\":null"));
		sw_jw_free(&w);
	}
	sw_receipt_flows_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_stop_dedup),
		cmocka_unit_test(test_text_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
