// SPDX-License-Identifier: GPL-2.0-or-later
/* test_events: the nf_tables event parser that decides what is drift and
 * who caused it. Messages are built into a buffer as the kernel sends them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>
#include <cmocka.h>

#include "host/events.h"

struct buf {
	uint8_t data[8192];
	size_t len;
};

/* One nf_tables event: type, family, and the table name in attribute 1. */
static void put_obj(struct buf *b, uint16_t type, uint8_t family, const char *table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b->data + b->len);
	struct nfgenmsg *g;

	nlh->nlmsg_type = (uint16_t)(NFNL_SUBSYS_NFTABLES << 8 | type);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = family;
	g->version = NFNETLINK_V0;
	mnl_attr_put_strz(nlh, 1, table);
	b->len += nlh->nlmsg_len;
}

static void put_gen(struct buf *b, uint32_t genid, uint32_t pid, const char *comm)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b->data + b->len);
	struct nfgenmsg *g;

	nlh->nlmsg_type = (uint16_t)(NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWGEN);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, NFTA_GEN_ID, htonl(genid));
	mnl_attr_put_u32(nlh, NFTA_GEN_PROC_PID, htonl(pid));
	mnl_attr_put_strz(nlh, NFTA_GEN_PROC_NAME, comm);
	b->len += nlh->nlmsg_len;
}

struct seen {
	int calls;
	struct sw_nft_txn last;
};

static void cb(const struct sw_nft_txn *t, void *data)
{
	struct seen *s = data;

	s->calls++;
	s->last = *t;
}

static void test_delete_table_names_process(void **state)
{
	struct buf b = { .len = 0 };
	struct sw_nft_txn cur = { 0 };
	struct seen s = { 0 };

	(void)state;
	/* `nft delete table` emits the objects' deletions, then the table's */
	put_obj(&b, NFT_MSG_DELRULE, NFPROTO_INET, "sandwall");
	put_obj(&b, NFT_MSG_DELSET, NFPROTO_INET, "sandwall");
	put_obj(&b, NFT_MSG_DELCHAIN, NFPROTO_INET, "sandwall");
	put_obj(&b, NFT_MSG_DELTABLE, NFPROTO_INET, "sandwall");
	put_gen(&b, 77, 4242, "nft");
	sw_events_parse_nft(b.data, b.len, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 1);
	assert_string_equal(s.last.change, "delete table");
	assert_int_equal(s.last.pid, 4242);
	assert_string_equal(s.last.comm, "nft");
	assert_int_equal(s.last.genid, 77);
	assert_int_equal(s.last.n_changes, 4);
	assert_true(s.last.table_deleted);
	/* the transaction state is reset after NEWGEN */
	assert_false(cur.touched);
}

static void test_other_tables_are_not_drift(void **state)
{
	struct buf b = { .len = 0 };
	struct sw_nft_txn cur = { 0 };
	struct seen s = { 0 };

	(void)state;
	put_obj(&b, NFT_MSG_NEWRULE, NFPROTO_INET, "docker");       /* other table */
	put_obj(&b, NFT_MSG_NEWRULE, NFPROTO_IPV4, "sandwall");     /* other family */
	put_obj(&b, NFT_MSG_NEWRULE, NFPROTO_INET, "sandwall2");    /* prefix match is no match */
	put_gen(&b, 5, 99, "dockerd");
	sw_events_parse_nft(b.data, b.len, "sandwall", &cur, cb, &s);
	/* the transaction is reported (its generation moves the daemon's
	 * synced one along), as not touching our table */
	assert_int_equal(s.calls, 1);
	assert_false(s.last.touched);
	assert_int_equal(s.last.genid, 5);
	assert_int_equal(s.last.n_changes, 0);
}

static void test_transaction_spans_datagrams(void **state)
{
	struct buf a = { .len = 0 }, b = { .len = 0 };
	struct sw_nft_txn cur = { 0 };
	struct seen s = { 0 };

	(void)state;
	put_obj(&a, NFT_MSG_NEWSETELEM, NFPROTO_INET, "sandwall");
	put_obj(&b, NFT_MSG_NEWRULE, NFPROTO_INET, "sandwall");
	put_gen(&b, 9, 1234, "python3");
	sw_events_parse_nft(a.data, a.len, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 0);
	assert_true(cur.touched);
	sw_events_parse_nft(b.data, b.len, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 1);
	/* a rule change outranks an element change in the description */
	assert_string_equal(s.last.change, "add rule");
	assert_int_equal(s.last.n_changes, 2);
	assert_false(s.last.table_deleted);
	assert_string_equal(s.last.comm, "python3");
}

static void test_policy_change_and_two_transactions(void **state)
{
	struct buf b = { .len = 0 };
	struct sw_nft_txn cur = { 0 };
	struct seen s = { 0 };

	(void)state;
	put_obj(&b, NFT_MSG_NEWCHAIN, NFPROTO_INET, "sandwall");
	put_gen(&b, 10, 1, "a");
	put_obj(&b, NFT_MSG_DELSETELEM, NFPROTO_INET, "sandwall");
	put_gen(&b, 11, 2, "b");
	sw_events_parse_nft(b.data, b.len, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 2);
	assert_string_equal(s.last.change, "delete element");
	assert_int_equal(s.last.pid, 2);
	assert_int_equal(s.last.genid, 11);
}

static void test_truncated_input_is_ignored(void **state)
{
	struct buf b = { .len = 0 };
	struct sw_nft_txn cur = { 0 };
	struct seen s = { 0 };

	(void)state;
	put_obj(&b, NFT_MSG_DELTABLE, NFPROTO_INET, "sandwall");
	put_gen(&b, 3, 3, "nft");
	/* cut inside the NEWGEN message: it must not be half-parsed */
	sw_events_parse_nft(b.data, b.len - 8, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 0);
	assert_true(cur.touched);
}

/* The messages that name our table are kept for the repair (sw_hint.txn,
 * derive.c), whatever their type and family; others are not; a record
 * that does not fit says so. */
static void test_records_our_messages(void **state)
{
	struct buf b = { .len = 0 };
	uint8_t rec[4096];
	struct sw_nft_txn cur = { .rec = rec, .rec_cap = sizeof(rec) };
	struct seen s = { 0 };
	const struct nlmsghdr *first = (const struct nlmsghdr *)rec;
	size_t ours;

	(void)state;
	put_obj(&b, NFT_MSG_DELRULE, NFPROTO_INET, "other");
	ours = b.len;
	put_obj(&b, NFT_MSG_DELSETELEM, NFPROTO_INET, "sandwall");
	put_obj(&b, NFT_MSG_NEWFLOWTABLE, NFPROTO_INET, "sandwall");
	put_obj(&b, NFT_MSG_DELCHAIN, NFPROTO_NETDEV, "sandwall");
	ours = b.len - ours;
	put_gen(&b, 5, 77, "nft");
	sw_events_parse_nft(b.data, b.len, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.last.rec_len, ours);
	assert_false(s.last.rec_lost);
	assert_int_equal(NFNL_MSG_TYPE(first->nlmsg_type), NFT_MSG_DELSETELEM);
	/* the next transaction starts empty, the buffer kept */
	assert_int_equal(cur.rec_len, 0);
	assert_ptr_equal(cur.rec, rec);

	b.len = 0;
	put_obj(&b, NFT_MSG_DELRULE, NFPROTO_INET, "sandwall");
	put_gen(&b, 6, 77, "nft");
	sw_events_parse_nft(b.data, b.len, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 2);
	assert_int_equal(s.last.rec_len, first->nlmsg_len);
	assert_int_equal(NFNL_MSG_TYPE(first->nlmsg_type), NFT_MSG_DELRULE);

	/* too small: lost, and said */
	cur.rec_cap = 8;
	sw_events_parse_nft(b.data, b.len, "sandwall", &cur, cb, &s);
	assert_int_equal(s.calls, 3);
	assert_true(s.last.rec_lost);
	assert_int_equal(s.last.rec_len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delete_table_names_process),
		cmocka_unit_test(test_other_tables_are_not_drift),
		cmocka_unit_test(test_transaction_spans_datagrams),
		cmocka_unit_test(test_policy_change_and_two_transactions),
		cmocka_unit_test(test_truncated_input_is_ignored),
		cmocka_unit_test(test_records_our_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
