/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for attempts: folding blocked attempts into bounded records
 * and the JSON that receipt reads back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>

#include "host/attempts.h"

static struct sw_blocked blk(const char *cat, const char *dst, uint8_t proto, uint16_t port)
{
	struct sw_blocked b;

	memset(&b, 0, sizeof(b));
	{
		const char *colon = strchr(cat, ':');

		snprintf(b.category, sizeof(b.category), "%.*s",
			 (int)(colon ? colon - cat : (ptrdiff_t)strlen(cat)), cat);
		if (colon)
			snprintf(b.sandbox, sizeof(b.sandbox), "%s", colon + 1);
	}
	b.family = strchr(dst, ':') ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(b.family, dst, b.dst), 1);
	b.proto = proto;
	b.dport = port;
	return b;
}

static void test_fold_and_json(void **state)
{
	static struct sw_attempts t;
	struct sw_blocked a = blk("metadata", "169.254.169.254", IPPROTO_TCP, 80);
	struct sw_blocked e = blk("egress:agents", "203.0.113.10", IPPROTO_TCP, 443);
	struct sw_blocked v6 = blk("lan", "fd00:10::50", IPPROTO_ICMPV6, 0);
	struct sw_jw w;
	struct sw_jv v;
	const struct sw_jv *list;
	const char *s;
	int64_t n;

	(void)state;
	for (int i = 0; i < 3; i++)
		sw_attempts_add(&t, &a, 100 + i);
	sw_attempts_add(&t, &e, 105);
	sw_attempts_add(&t, &e, 106);
	sw_attempts_add(&t, &v6, 107);
	a.dport = 81;                           /* another port: another record */
	sw_attempts_add(&t, &a, 108);
	assert_int_equal(t.n, 4);
	sw_jw_init(&w);
	sw_attempts_json(&t, &w);
	assert_non_null(sw_jw_text(&w));
	assert_int_equal(sw_jv_parse(w.buf, w.len, &v, NULL), 0);
	list = sw_jv_get(&v, "attempts");
	assert_non_null(list);
	assert_int_equal(list->n, 4);
	/* most counted first */
	assert_int_equal(sw_jv_get_str(&list->vals[0], "dst", &s), 0);
	assert_string_equal(s, "169.254.169.254");
	assert_int_equal(sw_jv_get_i64(&list->vals[0], "count", &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(sw_jv_get_i64(&list->vals[0], "first", &n), 0);
	assert_int_equal(n, 100);
	assert_int_equal(sw_jv_get_i64(&list->vals[0], "last", &n), 0);
	assert_int_equal(n, 102);
	/* a sandbox's policy: category egress, the sandbox named */
	assert_int_equal(sw_jv_get_str(&list->vals[1], "category", &s), 0);
	assert_string_equal(s, "egress");
	assert_int_equal(sw_jv_get_str(&list->vals[1], "sandbox", &s), 0);
	assert_string_equal(s, "agents");
	/* no port for ICMPv6, the protocol as a number */
	for (size_t i = 0; i < list->n; i++)
		if (!sw_jv_get_str(&list->vals[i], "dst", &s) && !strcmp(s, "fd00:10::50")) {
			assert_null(sw_jv_get(&list->vals[i], "dport"));
			assert_int_equal(sw_jv_get_i64(&list->vals[i], "proto", &n), 0);
			assert_int_equal(n, IPPROTO_ICMPV6);
		}
	sw_jv_free(&v);
	sw_jw_free(&w);
}

static void test_bounded(void **state)
{
	static struct sw_attempts t;
	struct sw_blocked b = blk("lan", "10.0.0.1", IPPROTO_UDP, 1);

	(void)state;
	for (int i = 0; i < SW_ATTEMPTS_MAX + 10; i++) {
		b.dport = (uint16_t)(i + 1);
		sw_attempts_add(&t, &b, 1000 + i);
	}
	assert_int_equal(t.n, SW_ATTEMPTS_MAX);
	assert_int_equal(t.evicted, 10);
	/* the oldest went: ports 1..10 */
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.a[i].dport > 10);
}

/* The output path: one record per uid, and "path"/"uid" in the JSON;
 * a uid on a packet of another hook (early demux's receiving socket) is
 * not the sender's and is left out. */
static void test_output_uid(void **state)
{
	static struct sw_attempts t;
	struct sw_blocked a = blk("host", "127.0.0.1", IPPROTO_TCP, 5432), b, c;
	struct sw_jw w;
	struct sw_jv v;
	const struct sw_jv *list;
	const char *s;
	int64_t n;

	(void)state;
	a.has_hook = true;
	a.hook = 3;                             /* NF_INET_LOCAL_OUT */
	a.has_uid = true;
	a.uid = 42001;
	b = a;
	b.uid = 42002;                          /* another user: another record */
	c = a;
	c.hook = 1;                             /* NF_INET_LOCAL_IN: not output */
	sw_attempts_add(&t, &a, 100);
	sw_attempts_add(&t, &a, 101);
	sw_attempts_add(&t, &b, 102);
	sw_attempts_add(&t, &c, 103);
	assert_int_equal(t.n, 3);
	sw_jw_init(&w);
	sw_attempts_json(&t, &w);
	assert_non_null(sw_jw_text(&w));
	assert_int_equal(sw_jv_parse(w.buf, w.len, &v, NULL), 0);
	list = sw_jv_get(&v, "attempts");
	assert_non_null(list);
	assert_int_equal(list->n, 3);
	assert_int_equal(sw_jv_get_str(&list->vals[0], "path", &s), 0);
	assert_string_equal(s, "output");
	assert_int_equal(sw_jv_get_i64(&list->vals[0], "uid", &n), 0);
	assert_int_equal(n, 42001);
	assert_int_equal(sw_jv_get_i64(&list->vals[0], "count", &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < list->n; i++)
		if (!sw_jv_get_i64(&list->vals[i], "last", &n) && n == 103) {
			assert_null(sw_jv_get(&list->vals[i], "uid"));
			assert_null(sw_jv_get(&list->vals[i], "path"));
		}
	sw_jv_free(&v);
	sw_jw_free(&w);
}

/* Records per source and interface; verify's own probes (its record's
 * run sources and sandbox sinks) marked "by":"verify", the rest "sandbox". */
static void test_verify_apart(void **state)
{
	static struct sw_attempts t;
	static const char vj[] = "{\"time\":1,\"runs\":[{\"from\":\"bridge docker0\","
				 "\"sources\":[\"172.17.255.253\",\"fd00:17::fffd\"],\"targets\":[]}],"
				 "\"sandboxes\":[{\"name\":\"a\",\"unlisted\":\"192.0.2.77\"}],"
				 "\"passed\":true}";
	struct sw_attempts_probes p;
	struct sw_blocked agent = blk("metadata", "169.254.169.254", IPPROTO_TCP, 80);
	struct sw_blocked probe = agent, spoof = blk("spoofed", "172.17.255.253", IPPROTO_TCP, 4000);
	struct sw_blocked sink = blk("egress:a", "192.0.2.77", IPPROTO_TCP, 80);
	struct sw_jw w;
	struct sw_jv v;
	const struct sw_jv *list;
	const char *by, *src, *iif;

	(void)state;
	inet_pton(AF_INET, "172.17.0.2", agent.src);
	inet_pton(AF_INET, "172.17.255.253", probe.src);
	inet_pton(AF_INET, "169.254.169.254", spoof.src);   /* forged, to verify's address */
	inet_pton(AF_INET, "172.17.0.9", sink.src);
	sw_attempts_probes_read(vj, sizeof(vj) - 1, &p);
	assert_int_equal(p.n, 3);
	sw_attempts_add_iif(&t, &agent, "docker0", 10);
	sw_attempts_add_iif(&t, &agent, "docker0", 11);
	sw_attempts_add_iif(&t, &probe, "docker0", 12);  /* same destination, verify's source */
	sw_attempts_add_iif(&t, &spoof, "docker0", 13);
	sw_attempts_add_iif(&t, &sink, "docker0", 14);
	assert_int_equal(t.n, 4);
	sw_jw_init(&w);
	sw_attempts_json_by(&t, &p, &w);
	assert_int_equal(sw_jv_parse(w.buf, w.len, &v, NULL), 0);
	list = sw_jv_get(&v, "attempts");
	assert_non_null(list);
	assert_int_equal(list->n, 4);
	/* the most counted first: the agent's, with its source and interface */
	assert_int_equal(sw_jv_get_str(&list->vals[0], "by", &by), 0);
	assert_string_equal(by, "sandbox");
	assert_int_equal(sw_jv_get_str(&list->vals[0], "src", &src), 0);
	assert_string_equal(src, "172.17.0.2");
	assert_int_equal(sw_jv_get_str(&list->vals[0], "iif", &iif), 0);
	assert_string_equal(iif, "docker0");
	for (size_t i = 1; i < 4; i++) {
		assert_int_equal(sw_jv_get_str(&list->vals[i], "by", &by), 0);
		assert_string_equal(by, "verify");
	}
	sw_jv_free(&v);
	sw_jw_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_and_json),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_output_uid),
		cmocka_unit_test(test_verify_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
