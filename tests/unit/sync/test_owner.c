/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the table marker: every table sandwall adds carries the
 * comment "sandwall/1" (table user data), the decoder finds it (and only
 * it, with bounds), and sw_table_owner tells our table from another
 * tool's; a missing marker on our own table is drift. No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_kernel.h"
#include <linux/netfilter.h>
#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include "core/diff.h"
#include "kernel/encode.h"
#include "kernel/observe.h"
#include "sync/reconcile.h"

#define MSG(t) ((NFNL_SUBSYS_NFTABLES << 8) | (t))

static uint8_t buf[4096];

/* NEWTABLE inet <name> as the kernel dumps it: user data ud (NULL: none),
 * NFTA_TABLE_USE use. */
static struct nlmsghdr *table_msg(const char *name, const void *ud, uint32_t udlen, uint32_t use)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	assert_non_null(t);
	memset(buf, 0, sizeof(buf));
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, name);
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nftnl_table_set_u32(t, NFTNL_TABLE_FLAGS, 0);
	if (ud)
		nftnl_table_set_data(t, NFTNL_TABLE_USERDATA, ud, udlen);
	nlh = nftnl_nlmsg_build_hdr((char *)buf, NFT_MSG_NEWTABLE, NFPROTO_INET, 0, 1);
	nftnl_table_nlmsg_build_payload(nlh, t);
	mnl_attr_put_u32(nlh, NFTA_TABLE_USE, htonl(use));
	nftnl_table_free(t);
	return nlh;
}

static void decode(const struct nlmsghdr *nlh, struct sw_model *m)
{
	sw_model_init(m, "sandwall");
	assert_int_equal(sw_decode_table(nlh, m), 0);
	assert_true(m->has_table);
}

/* The marker as nft writes a table comment: record 0, NUL-terminated. */
static const uint8_t marker[] = { 0, 11, 's', 'a', 'n', 'd', 'w', 'a', 'l', 'l', '/', '1', 0 };

static void test_decode_marker(void **state)
{
	struct sw_model m;
	uint8_t ud[64];

	(void)state;
	decode(table_msg("sandwall", marker, sizeof(marker), 3), &m);
	assert_false(m.table_unmarked);
	assert_int_equal(m.table_use, 3);
	assert_int_equal(sw_table_owner(&m), SW_TABLE_OURS);

	/* no user data: unmarked */
	decode(table_msg("sandwall", NULL, 0, 0), &m);
	assert_true(m.table_unmarked);

	/* another tool's comment */
	decode(table_msg("sandwall", "\0\6other", 8, 0), &m);
	assert_true(m.table_unmarked);

	/* the marker after another record (type 1) is found */
	memcpy(ud, "\1\2xy", 4);
	memcpy(ud + 4, marker, sizeof(marker));
	decode(table_msg("sandwall", ud, 4 + sizeof(marker), 0), &m);
	assert_false(m.table_unmarked);

	/* a prefix of it, or without the NUL, is not it */
	decode(table_msg("sandwall", "\0\12sandwall/1", 12, 0), &m);
	assert_true(m.table_unmarked);
	decode(table_msg("sandwall", "\0\10sandwall", 10, 0), &m);
	assert_true(m.table_unmarked);

	/* a record whose length runs past the data is not read past it */
	memcpy(ud, marker, sizeof(marker));
	ud[1] = 200;
	decode(table_msg("sandwall", ud, sizeof(marker), 0), &m);
	assert_true(m.table_unmarked);
	/* a lone type byte */
	decode(table_msg("sandwall", "\0", 1, 0), &m);
	assert_true(m.table_unmarked);

	/* another table's marker is not ours to look at */
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_table(table_msg("filter", NULL, 0, 2), &m), 0);
	assert_false(m.has_table);
	assert_int_equal(sw_table_owner(&m), SW_TABLE_ABSENT);
}

/* Every NEWTABLE that encode builds carries the marker, byte for byte
 * what nft stores for `comment "sandwall/1"`. */
static void test_encode_marks(void **state)
{
	const struct nlmsghdr *nlh;
	struct sw_model want, got;
	struct sw_batch b;
	struct sw_nl nl;
	struct fk k;
	size_t tables = 0;
	int len;

	(void)state;
	fk_init(&k);
	assert_int_equal(sw_nl_open_ops(&nl, &fk_ops, &k), 0);
	tk_build("", &want);
	for (int kind = 0; kind < 3; kind++) {
		assert_int_equal(sw_batch_init(&b, &nl, SW_GEN_REQUIRE, 1), 0);
		assert_int_equal(kind == 0 ? sw_encode_create(&b, &nl, &want) :
				 kind == 1 ? sw_encode_replace(&b, &nl, &want) :
				 sw_encode_table_flags(&b, &nl, "sandwall", 0), 0);
		assert_int_equal(sw_batch_finish(&b, &nl), 0);
		len = (int)b.len;
		for (nlh = (const struct nlmsghdr *)b.buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			struct nftnl_table *t;
			const void *ud;
			uint32_t udlen = 0;

			if (nlh->nlmsg_type != MSG(NFT_MSG_NEWTABLE))
				continue;
			tables++;
			/* create: EXCL, so a same-named table made meanwhile fails the batch */
			if (kind == 0)
				assert_true(nlh->nlmsg_flags & NLM_F_EXCL);
			assert_non_null(t = nftnl_table_alloc());
			assert_true(nftnl_table_nlmsg_parse(nlh, t) >= 0);
			ud = nftnl_table_get_data(t, NFTNL_TABLE_USERDATA, &udlen);
			assert_non_null(ud);
			assert_int_equal(udlen, sizeof(marker));
			assert_memory_equal(ud, marker, sizeof(marker));
			nftnl_table_free(t);
			decode(nlh, &got);
			assert_false(got.table_unmarked);
		}
		sw_batch_free(&b);
	}
	assert_int_equal(tables, 1 + 2 + 1);    /* replace: add, delete, add */
	sw_model_free(&want);
	sw_nl_close(&nl);
	fk_free(&k);
}

static void add_rule(struct sw_model *m, const char *chain, const char *tag)
{
	assert_int_equal(sw_model_add_rule(m, chain, tag, "[ x ]", NULL, NULL), 0);
}

static void test_owner(void **state)
{
	struct sw_model h;

	(void)state;
	sw_model_init(&h, "filter");
	assert_int_equal(sw_table_owner(&h), SW_TABLE_ABSENT);
	h.has_table = true;
	assert_int_equal(sw_table_owner(&h), SW_TABLE_OURS);      /* marked */

	/* unmarked and empty: adoptable */
	h.table_unmarked = true;
	assert_int_equal(sw_table_owner(&h), SW_TABLE_EMPTY);
	/* holds something the model does not see (a flowtable, a quota) */
	h.table_use = 1;
	assert_int_equal(sw_table_owner(&h), SW_TABLE_FOREIGN);

	/* table inet filter { set trusted; chain input { policy drop; tcp dport 22 accept } } */
	sw_model_add_chain(&h, "input");
	sw_model_add_set(&h, "trusted");
	h.table_use = 2;
	add_rule(&h, "input", "");
	assert_int_equal(sw_table_owner(&h), SW_TABLE_FOREIGN);
	sw_model_free(&h);

	/* a base chain and a set, no rules: still another tool's */
	sw_model_init(&h, "filter");
	h.has_table = h.table_unmarked = true;
	sw_model_add_chain(&h, "input");
	h.table_use = 1;
	assert_int_equal(sw_table_owner(&h), SW_TABLE_FOREIGN);
	/* only our rules (an older sandwall's table): ours, to be marked */
	add_rule(&h, "input", "sandwall:guard");
	assert_int_equal(sw_table_owner(&h), SW_TABLE_OURS_UNMARKED);
	/* ... unless one rule is someone else's */
	add_rule(&h, "input", "ssh");
	assert_int_equal(sw_table_owner(&h), SW_TABLE_FOREIGN);
	sw_model_free(&h);

	sw_model_init(&h, "sandwall");
	h.has_table = h.table_unmarked = true;
	sw_model_add_chain(&h, "guard");
	add_rule(&h, "guard", "sandwall:x");
	h.table_use = 2;                        /* one more object than we see */
	assert_int_equal(sw_table_owner(&h), SW_TABLE_FOREIGN);
	sw_model_free(&h);
}

/* check: a missing marker on our own table is drift (one item). */
static void test_diff_marker(void **state)
{
	struct sw_model want, have;
	struct sw_diff d;

	(void)state;
	tk_build("", &want);
	tk_build("", &have);
	assert_int_equal(sw_diff(&want, &have, &d), 0);
	assert_int_equal(d.n, 0);
	sw_diff_free(&d);
	have.table_unmarked = true;
	assert_int_equal(sw_diff(&want, &have, &d), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].kind, SW_DIFF_CHANGED);
	assert_string_equal(d.items[0].object, "table");
	assert_string_equal(d.items[0].desc,
			    "table inet sandwall (no comment \"sandwall/1\": not marked as sandwall's)");
	assert_null(d.items[0].set);
	sw_diff_free(&d);
	sw_model_free(&want);
	sw_model_free(&have);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_marker),
		cmocka_unit_test(test_encode_marks),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_diff_marker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
