/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the JSON writer and the strict reader. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

static void test_writer_escapes(void **state)
{
	struct sw_jw w;

	(void)state;
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "q", "a\"b\\c\nd\te\x01\x7f");
	sw_jw_str(&w, "key \"x\"", "utf8 \xc3\xa9");
	sw_jw_u64(&w, "big", UINT64_MAX);
	sw_jw_i64(&w, "neg", -5);
	sw_jw_bool(&w, "t", true);
	sw_jw_null(&w, "n");
	sw_jw_str(&w, "nullstr", NULL);
	sw_jw_dbl(&w, "d", 0.00031);
	sw_jw_dbl(&w, "inf", INFINITY);
	sw_jw_arr(&w, "a");
	sw_jw_u64(&w, NULL, 1);
	sw_jw_obj(&w, NULL);
	sw_jw_end(&w);
	sw_jw_arr(&w, NULL);
	sw_jw_end(&w);
	sw_jw_end(&w);
	sw_jw_end(&w);
	assert_non_null(sw_jw_text(&w));
	assert_string_equal(sw_jw_text(&w),
			    "{\"q\":\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\","
			    "\"key \\\"x\\\"\":\"utf8 \xc3\xa9\","
			    "\"big\":18446744073709551615,\"neg\":-5,\"t\":true,\"n\":null,"
			    "\"nullstr\":null,\"d\":0.000310,\"inf\":null,\"a\":[1,{},[]]}");
	sw_jw_free(&w);
}

static void test_writer_misuse(void **state)
{
	struct sw_jw w;

	(void)state;
	/* a value without a key inside an object */
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_u64(&w, NULL, 1);
	sw_jw_end(&w);
	assert_null(sw_jw_text(&w));
	assert_int_equal(w.err, -EINVAL);
	sw_jw_free(&w);
	/* a key inside an array */
	sw_jw_init(&w);
	sw_jw_arr(&w, NULL);
	sw_jw_u64(&w, "k", 1);
	sw_jw_end(&w);
	assert_null(sw_jw_text(&w));
	sw_jw_free(&w);
	/* unclosed, and one end too many */
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	assert_null(sw_jw_text(&w));
	sw_jw_end(&w);
	assert_non_null(sw_jw_text(&w));
	sw_jw_end(&w);
	assert_null(sw_jw_text(&w));
	sw_jw_free(&w);
	/* two top-level values */
	sw_jw_init(&w);
	sw_jw_u64(&w, NULL, 1);
	sw_jw_u64(&w, NULL, 2);
	assert_null(sw_jw_text(&w));
	sw_jw_free(&w);
	/* too deep */
	sw_jw_init(&w);
	for (int i = 0; i < SW_JSON_DEPTH + 1; i++)
		sw_jw_arr(&w, NULL);
	assert_int_equal(w.err, -EINVAL);
	sw_jw_free(&w);
}

static void test_round_trip(void **state)
{
	struct sw_jw w;
	struct sw_jv v;
	const char *s;
	bool b;
	int64_t n;

	(void)state;
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "change", "delete \"table\"\\ \n\x02");
	sw_jw_bool(&w, "passed", true);
	sw_jw_i64(&w, "pid", 4242);
	sw_jw_arr(&w, "targets");
	for (int i = 0; i < 100; i++)
		sw_jw_u64(&w, NULL, (uint64_t)i);
	sw_jw_end(&w);
	sw_jw_end(&w);
	assert_non_null(sw_jw_text(&w));
	assert_int_equal(sw_jv_parse(w.buf, w.len, &v, NULL), 0);
	assert_int_equal(sw_jv_get_str(&v, "change", &s), 0);
	assert_string_equal(s, "delete \"table\"\\ \n\x02");
	assert_int_equal(sw_jv_get_bool(&v, "passed", &b), 0);
	assert_true(b);
	assert_int_equal(sw_jv_get_i64(&v, "pid", &n), 0);
	assert_int_equal(n, 4242);
	assert_int_equal(sw_jv_get(&v, "targets")->n, 100);
	assert_int_equal(sw_jv_get_bool(&v, "pid", &b), -EINVAL);
	assert_int_equal(sw_jv_get_bool(&v, "nope", &b), -ENOENT);
	sw_jv_free(&v);
	sw_jw_free(&w);
}

static void test_reader_accepts(void **state)
{
	static const char *const good[] = {
		"null", " true ", "false", "0", "-1.5e3", "\"\"", "[]", "{}",
		"{\"a\":[1,2,{\"b\":null}],\"c\":\"\\u00e9\\ud83d\\ude00\"}",
		"\n[ 1 , \"x\" ]\t",
	};
	struct sw_jv v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		if (sw_jv_parse(good[i], strlen(good[i]), &v, NULL))
			fail_msg("refused: %s", good[i]);
		sw_jv_free(&v);
	}
	assert_int_equal(sw_jv_parse("\"\\u00e9\\ud83d\\ude00\"", 20, &v, NULL), 0);
	assert_string_equal(v.str, "\xc3\xa9\xf0\x9f\x98\x80");
	sw_jv_free(&v);
}

static void test_reader_refuses(void **state)
{
	static const char *const badj[] = {
		"", " ", "nul", "tru", "01", "-", "1.", "+1", "1e999", "\"abc", "\"a\nb\"",
		"\"\\x\"", "\"\\u12\"", "\"\\u0000\"", "\"\\udc00\"", "\"\\ud800\"", "[1,]",
		"[1 2]", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "{\"a\":1,\"a\":2}",
		"[]]", "{} {}", "1 2", "[", "{",
	};
	struct sw_jv v;
	size_t where;

	(void)state;
	for (size_t i = 0; i < sizeof(badj) / sizeof(*badj); i++) {
		int rc = sw_jv_parse(badj[i], strlen(badj[i]), &v, &where);

		if (rc == 0)
			fail_msg("accepted: '%s'", badj[i]);
		assert_int_equal(v.type, SW_JNULL);
		assert_int_equal(v.n, 0);
	}
	/* a NUL inside the buffer */
	assert_int_equal(sw_jv_parse("[1]\0", 4, &v, NULL), -EINVAL);
	assert_int_equal(sw_jv_parse("\"a\0b\"", 5, &v, NULL), -EINVAL);
}

static void test_reader_limits(void **state)
{
	char deep[2 * SW_JSON_DEPTH + 4];
	size_t n = 0;
	struct sw_jv v;

	(void)state;
	for (int i = 0; i < SW_JSON_DEPTH + 1; i++)
		deep[n++] = '[';
	for (int i = 0; i < SW_JSON_DEPTH + 1; i++)
		deep[n++] = ']';
	assert_int_equal(sw_jv_parse(deep, n, &v, NULL), -E2BIG);
	assert_int_equal(sw_jv_parse("[]", SW_JSON_MAX + 1, &v, NULL), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_escapes),
		cmocka_unit_test(test_writer_misuse),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_reader_accepts),
		cmocka_unit_test(test_reader_refuses),
		cmocka_unit_test(test_reader_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
