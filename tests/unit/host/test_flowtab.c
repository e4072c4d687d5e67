// SPDX-License-Identifier: GPL-2.0-or-later
/* test_flowtab: the network log's open-flow table (insert, update, end,
 * full -> dropped, the dump's sweep, deletion against a reference under
 * random churn), the interface of a sandbox address, and the record. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "host/flowtab.h"

static struct sw_ct_flow flow(uint32_t id, uint16_t sport, enum sw_ct_kind kind)
{
	struct sw_ct_flow f;

	memset(&f, 0, sizeof(f));
	f.kind = kind;
	f.family = AF_INET;
	inet_pton(AF_INET, "172.17.0.2", f.src);
	inet_pton(AF_INET, "203.0.113.10", f.dst);
	f.proto = IPPROTO_TCP;
	f.sport = sport;
	f.dport = 80;
	f.id = id;
	return f;
}

static void test_insert_update_end(void **state)
{
	struct sw_flowtab t;
	struct sw_ct_flow f = flow(1, 40000, SW_CT_NEW), g;
	struct sw_flow out;

	(void)state;
	assert_int_equal(sw_flowtab_init(&t, 4), 0);
	assert_int_equal(sw_flowtab_seen(&t, &f, "docker0", 100), 1);
	assert_int_equal(t.n, 1);
	/* the dump's update: counters and last */
	g = f;
	g.kind = SW_CT_DUMPED;
	g.has_counters = true;
	g.orig_bytes = 10;
	g.reply_bytes = 2000;
	assert_int_equal(sw_flowtab_seen(&t, &g, NULL, 130), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(sw_flowtab_find(&t, &f)->last, 130);
	assert_string_equal(sw_flowtab_find(&t, &f)->iif, "docker0");
	/* DESTROY: the final counters, out of the table */
	g.kind = SW_CT_DESTROY;
	g.reply_bytes = 5000;
	assert_int_equal(sw_flowtab_end(&t, &g, 140, &out), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(out.first, 100);
	assert_int_equal(out.last, 140);
	assert_true(out.ct.has_counters);
	assert_int_equal(out.ct.reply_bytes, 5000);
	assert_int_equal(sw_flowtab_end(&t, &g, 150, &out), -ENOENT);
	/* a DESTROY without counters keeps the last ones seen */
	assert_int_equal(sw_flowtab_seen(&t, &f, "docker0", 100), 1);
	g.kind = SW_CT_DUMPED;
	sw_flowtab_seen(&t, &g, NULL, 110);
	f.kind = SW_CT_DESTROY;
	assert_int_equal(sw_flowtab_end(&t, &f, 120, &out), 0);
	assert_int_equal(out.ct.reply_bytes, 5000);
	/* the same tuple with another conntrack id is another flow */
	f = flow(1, 40000, SW_CT_NEW);
	g = flow(2, 40000, SW_CT_NEW);
	sw_flowtab_seen(&t, &f, "", 1);
	assert_null(sw_flowtab_find(&t, &g));
	sw_flowtab_free(&t);
}

static void test_full_counts_dropped(void **state)
{
	struct sw_flowtab t;

	(void)state;
	assert_int_equal(sw_flowtab_init(&t, 2), 0);
	for (uint32_t i = 0; i < 5; i++) {
		struct sw_ct_flow f = flow(10 + i, (uint16_t)(41000 + i), SW_CT_NEW);
		int rc = sw_flowtab_seen(&t, &f, "docker0", 1);

		assert_int_equal(rc, i < 2 ? 1 : -ENOSPC);
	}
	assert_int_equal(t.n, 2);
	assert_int_equal(t.dropped, 3);
	/* a dump that finds no room counts untracked, not dropped */
	sw_flowtab_dump_begin(&t);
	for (uint32_t i = 0; i < 5; i++) {
		struct sw_ct_flow f = flow(10 + i, (uint16_t)(41000 + i), SW_CT_DUMPED);

		sw_flowtab_seen(&t, &f, NULL, 2);
	}
	assert_int_equal(sw_flowtab_dump_end(&t, NULL, NULL), 0);
	assert_int_equal(t.dropped, 3);
	assert_int_equal(t.untracked, 3);
	sw_flowtab_free(&t);
	assert_int_equal(sw_flowtab_init(&t, 0), -EINVAL);
	assert_int_equal(sw_flowtab_init(&t, SW_FLOWS_MAX_LIMIT + 1), -EINVAL);
}

static void count_cb(const struct sw_flow *f, void *data)
{
	(void)f;
	(*(size_t *)data)++;
}

/* a kept flow the dump did not see ended while its event was lost */
static void test_sweep(void **state)
{
	struct sw_flowtab t;
	size_t gone = 0;

	(void)state;
	assert_int_equal(sw_flowtab_init(&t, 16), 0);
	for (uint32_t i = 0; i < 10; i++) {
		struct sw_ct_flow f = flow(i + 1, (uint16_t)(42000 + i), SW_CT_NEW);

		sw_flowtab_seen(&t, &f, "", 1);
	}
	sw_flowtab_dump_begin(&t);
	for (uint32_t i = 0; i < 10; i += 2) {
		struct sw_ct_flow f = flow(i + 1, (uint16_t)(42000 + i), SW_CT_DUMPED);

		assert_int_equal(sw_flowtab_seen(&t, &f, NULL, 2), 0);
	}
	assert_int_equal(sw_flowtab_dump_end(&t, count_cb, &gone), 5);
	assert_int_equal(gone, 5);
	assert_int_equal(t.n, 5);
	for (uint32_t i = 0; i < 10; i++) {
		struct sw_ct_flow f = flow(i + 1, (uint16_t)(42000 + i), SW_CT_NEW);

		assert_true((sw_flowtab_find(&t, &f) != NULL) == (i % 2 == 0));
	}
	sw_flowtab_free(&t);
}

/* random churn against a reference: deletion (backward shift) keeps every
 * other flow findable, and the count right */
static void test_churn(void **state)
{
	enum { MAX = 64, IDS = 200 };
	struct sw_flowtab t;
	bool in[IDS] = { false };
	size_t n = 0;

	(void)state;
	srand(7);
	assert_int_equal(sw_flowtab_init(&t, MAX), 0);
	for (int step = 0; step < 20000; step++) {
		uint32_t id = (uint32_t)(rand() % IDS);
		struct sw_ct_flow f = flow(id, (uint16_t)(1000 + id % 7), SW_CT_NEW);
		struct sw_flow out;

		if (rand() % 2) {
			int rc = sw_flowtab_seen(&t, &f, "", step);

			if (!in[id] && n < MAX) {
				assert_int_equal(rc, 1);
				in[id] = true;
				n++;
			} else {
				assert_int_equal(rc, in[id] ? 0 : -ENOSPC);
			}
		} else {
			assert_int_equal(sw_flowtab_end(&t, &f, step, &out), in[id] ? 0 : -ENOENT);
			if (in[id])
				n--;
			in[id] = false;
		}
		assert_int_equal(t.n, n);
		if (step % 500 == 0)
			for (uint32_t i = 0; i < IDS; i++) {
				struct sw_ct_flow g = flow(i, (uint16_t)(1000 + i % 7), SW_CT_NEW);

				assert_true((sw_flowtab_find(&t, &g) != NULL) == in[i]);
			}
	}
	sw_flowtab_free(&t);
}

static void test_iif(void **state)
{
	struct sw_link links[2] = { { .ifindex = 3, .name = "docker0" }, { .ifindex = 4, .name = "cali1" } };
	struct sw_addr addrs[1] = { { .ifindex = 3 } };
	struct sw_route routes[1] = { { .oif = 4 } };
	struct sw_host h;
	uint8_t a[16];
	char name[16];

	(void)state;
	memset(&h, 0, sizeof(h));
	addrs[0].local.family = AF_INET;
	inet_pton(AF_INET, "172.17.0.1", addrs[0].local.addr);
	addrs[0].local.len = 16;
	routes[0].dst.family = AF_INET;
	inet_pton(AF_INET, "172.29.0.5", routes[0].dst.addr);
	routes[0].dst.len = 32;
	h.links = links;
	h.n_links = 2;
	h.addrs = addrs;
	h.n_addrs = 1;
	h.routes = routes;
	h.n_routes = 1;
	inet_pton(AF_INET, "172.17.0.2", a);
	sw_flow_iif(&h, AF_INET, a, name, sizeof(name));
	assert_string_equal(name, "docker0");
	inet_pton(AF_INET, "172.29.0.5", a);
	sw_flow_iif(&h, AF_INET, a, name, sizeof(name));
	assert_string_equal(name, "cali1");
	inet_pton(AF_INET, "10.9.9.9", a);
	sw_flow_iif(&h, AF_INET, a, name, sizeof(name));
	assert_string_equal(name, "");
	/* the host's own address on the bridge is in its subnet, but no sandbox */
	inet_pton(AF_INET, "172.17.0.1", a);
	assert_true(sw_flow_from_host(&h, AF_INET, a));
	inet_pton(AF_INET, "172.17.0.2", a);
	assert_false(sw_flow_from_host(&h, AF_INET, a));
	assert_false(sw_flow_from_host(&h, AF_INET6, a));
}

static void test_record(void **state)
{
	struct sw_flow f;
	struct sw_jw w;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.ct = flow(77, 40123, SW_CT_DESTROY);
	f.ct.dport = 8088;
	f.ct.has_counters = true;
	f.ct.orig_packets = 18;
	f.ct.orig_bytes = 1029;
	f.ct.reply_packets = 19;
	f.ct.reply_bytes = 301148;
	f.first = 1796299132;
	f.last = 1796299134;
	strcpy(f.iif, "docker0");
	sw_jw_init(&w);
	sw_flow_json(&w, NULL, &f, "closed", 1796299135);
	assert_string_equal(sw_jw_text(&w),
		"{\"time\":\"2026-12-03T11:58:55Z\",\"unix\":1796299135,\"event\":\"flow\","
		"\"state\":\"closed\",\"verdict\":\"allowed\",\"first\":1796299132,"
		"\"first_time\":\"2026-12-03T11:58:52Z\",\"last\":1796299134,"
		"\"last_time\":\"2026-12-03T11:58:54Z\",\"family\":\"ipv4\",\"src\":\"172.17.0.2\","
		"\"sport\":40123,\"iif\":\"docker0\",\"dst\":\"203.0.113.10\",\"proto\":\"tcp\","
		"\"dport\":8088,\"counters\":\"kernel\",\"orig_packets\":18,\"orig_bytes\":1029,"
		"\"reply_packets\":19,\"reply_bytes\":301148,\"ct_id\":77}");
	sw_jw_free(&w);
	/* no accounting: unknown and null, never 0; no interface: null */
	f.ct.has_counters = false;
	f.iif[0] = '\0';
	sw_jw_init(&w);
	sw_flow_json(&w, NULL, &f, "open", 1796299135);
	assert_non_null(strstr(sw_jw_text(&w), "\"iif\":null"));
	assert_non_null(strstr(sw_jw_text(&w),
		"\"counters\":\"unknown\",\"orig_packets\":null,\"orig_bytes\":null,"
		"\"reply_packets\":null,\"reply_bytes\":null"));
	sw_jw_free(&w);
}

/* A flow's name: set on the kept flow, written after dst only when known;
 * a name longer than the record keeps is cut and says so. */
static void test_name(void **state)
{
	struct sw_flowtab t;
	struct sw_ct_flow c = flow(5, 40000, SW_CT_NEW), other = flow(6, 40001, SW_CT_NEW);
	char longname[300];
	struct sw_jw w;

	(void)state;
	assert_int_equal(sw_flowtab_init(&t, 8), 0);
	assert_int_equal(sw_flowtab_seen(&t, &c, "docker0", 100), 1);
	assert_int_equal(sw_flowtab_name(&t, &other, "x.test"), -ENOENT);
	sw_jw_init(&w);
	sw_flow_json(&w, NULL, sw_flowtab_find(&t, &c), "open", 100);
	assert_null(strstr(sw_jw_text(&w), "\"name\""));
	sw_jw_free(&w);
	assert_int_equal(sw_flowtab_name(&t, &c, "files.pypi.test"), 0);
	sw_jw_init(&w);
	sw_flow_json(&w, NULL, sw_flowtab_find(&t, &c), "open", 100);
	assert_non_null(strstr(sw_jw_text(&w), "\"dst\":\"203.0.113.10\",\"name\":\"files.pypi.test\",\"proto\""));
	assert_null(strstr(sw_jw_text(&w), "name_cut"));
	sw_jw_free(&w);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(sw_flowtab_name(&t, &c, longname), 0);
	assert_int_equal(strlen(sw_flowtab_find(&t, &c)->name), SW_FLOW_NAMELEN - 1);
	assert_true(sw_flowtab_find(&t, &c)->name_cut);
	sw_jw_init(&w);
	sw_flow_json(&w, NULL, sw_flowtab_find(&t, &c), "open", 100);
	assert_non_null(strstr(sw_jw_text(&w), "\"name_cut\":true"));
	sw_jw_free(&w);
	sw_flowtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_update_end),
		cmocka_unit_test(test_full_counts_dropped),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_churn),
		cmocka_unit_test(test_iif),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
