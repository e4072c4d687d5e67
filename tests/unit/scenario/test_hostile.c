/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_hostile: hostile netlink input (issue 10). Each case failed before
 * its fix -- an ASan heap over-read, a SIGSEGV, a ~4 GiB jump or an endless
 * loop in the libmnl walk, libnftnl's exit(1) or stack write -- and must now
 * come back as an error with the process alive. A watchdog alarm turns a
 * hang into a failure. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "host/events.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nflog.h"
#include "kernel/nftval.h"
#include "kernel/nl.h"
#include "kernel/nlmsg.h"
#include "kernel/observe.h"

#define MSG(t) ((NFNL_SUBSYS_NFTABLES << 8) | (t))

static uint8_t *buf;    /* 4-byte aligned, like a receive buffer */

static int setup(void **state)
{
	(void)state;
	alarm(20);              /* a hang fails the suite */
	buf = calloc(1, 65536);
	return buf ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(buf);
	alarm(0);
	return 0;
}

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;

		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static struct nlmsghdr *nft_msg(uint16_t type)
{
	struct nlmsghdr *nlh;
	struct nfgenmsg *g;

	memset(buf, 0, 65536);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = MSG(type);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = NFPROTO_INET;
	return nlh;
}

/* ---- rule user data --------------------------------------------------- */

/* The NEWRULE of the issue: userdata {type 0, length 200} in 2 bytes. */
static void test_udata_length_past_buffer(void **state)
{
	struct sw_model m;
	size_t n;

	(void)state;
	n = unhex("38000000060a00000000000000000000010000000d00010073616e6477616c6c00"
		  "0000000a00020067756172640000000600070000c80000", buf);
	assert_int_equal(n, 0x38);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_rule((struct nlmsghdr *)buf, &m), 0);
	assert_int_equal(m.n_rules, 1);
	assert_string_equal(m.rules[0].tag, "");        /* no comment, no heap byte */
	sw_model_free(&m);
}

/* A well-formed comment still names the rule; one without its NUL does not. */
static void test_udata_comment(void **state)
{
	static const uint8_t good[] = { 0, 6, 'g', 'u', 'a', 'r', 'd', 0, 1, 1, 'x' };
	static const uint8_t nonul[] = { 0, 3, 'a', 'b', 'c' };
	struct sw_model m;
	struct nlmsghdr *nlh;

	(void)state;
	nlh = nft_msg(NFT_MSG_NEWRULE);
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, "guard");
	mnl_attr_put(nlh, NFTA_RULE_USERDATA, sizeof(good), good);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_rule(nlh, &m), 0);
	assert_string_equal(m.rules[0].tag, "guard");
	sw_model_free(&m);

	nlh = nft_msg(NFT_MSG_NEWRULE);
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, "guard");
	mnl_attr_put(nlh, NFTA_RULE_USERDATA, sizeof(nonul), nonul);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_rule(nlh, &m), 0);
	assert_string_equal(m.rules[0].tag, "");
	sw_model_free(&m);
}

/* ---- set elements: the direct decoder against libnftnl's ----------------- */

enum { E_KEY = 1, E_END = 2, E_FLAGS = 4, E_TIMEOUT = 8, E_KEY2 = 16, E_VERDICT = 32,
       E_KEY_EMPTY = 64, E_KEY_LONG = 128, E_FLAGS_SHORT = 256, E_STRAY = 512 };

/* one NEWSETELEM: table, set (either may be NULL), elements per spec */
static struct nlmsghdr *elems_msg(const char *table, const char *set, const unsigned *spec,
				  size_t n, bool top_stray)
{
	struct nlmsghdr *nlh = nft_msg(NFT_MSG_NEWSETELEM);
	struct nlattr *list, *el, *k;
	uint8_t v[65];

	if (table)
		mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_TABLE, table);
	if (set)
		mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, set);
	if (top_stray)
		mnl_attr_put_u32(nlh, NFTA_SET_ELEM_LIST_SET_ID, htonl(7));
	list = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_LIST_ELEMENTS);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof(v); j++)
			v[j] = (uint8_t)(i * 31 + j);
		if (spec[i] & E_STRAY) {
			mnl_attr_put_u32(nlh, NFTA_LIST_UNSPEC, 0);
			continue;
		}
		el = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
		if (spec[i] & (E_KEY | E_KEY2 | E_VERDICT | E_KEY_EMPTY | E_KEY_LONG)) {
			k = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_KEY);
			if (spec[i] & E_KEY)
				mnl_attr_put(nlh, NFTA_DATA_VALUE, 12, v);
			if (spec[i] & E_KEY2)
				mnl_attr_put(nlh, NFTA_DATA_VALUE, 4, v + 20);
			if (spec[i] & E_KEY_LONG)
				mnl_attr_put(nlh, NFTA_DATA_VALUE, 65, v);
			if (spec[i] & E_VERDICT) {
				struct nlattr *vd = mnl_attr_nest_start(nlh, NFTA_DATA_VERDICT);

				mnl_attr_put_u32(nlh, NFTA_VERDICT_CODE, htonl((uint32_t)NF_ACCEPT));
				mnl_attr_nest_end(nlh, vd);
			}
			mnl_attr_nest_end(nlh, k);
		}
		if (spec[i] & E_END) {
			k = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_KEY_END);
			mnl_attr_put(nlh, NFTA_DATA_VALUE, 12, v + 1);
			mnl_attr_nest_end(nlh, k);
		}
		if (spec[i] & E_FLAGS)
			mnl_attr_put_u32(nlh, NFTA_SET_ELEM_FLAGS, htonl(NFT_SET_ELEM_INTERVAL_END));
		if (spec[i] & E_FLAGS_SHORT)
			mnl_attr_put_u16(nlh, NFTA_SET_ELEM_FLAGS, 1);
		if (spec[i] & E_TIMEOUT)
			mnl_attr_put_u64(nlh, NFTA_SET_ELEM_TIMEOUT, htobe64(5000));
		mnl_attr_nest_end(nlh, el);
	}
	mnl_attr_nest_end(nlh, list);
	return nlh;
}

/* Both decoders on one message: the same return and the same elements. */
static void same_decode(const struct nlmsghdr *nlh, const char *what)
{
	struct sw_model a, b;
	const struct sw_set *x, *y;
	int ra, rb;

	sw_model_init(&a, "sandwall");
	sw_model_init(&b, "sandwall");
	assert_non_null(sw_model_add_set(&a, "allow4"));
	assert_non_null(sw_model_add_set(&b, "allow4"));
	ra = sw_decode_elems(nlh, &a);
	rb = sw_decode_elems_nftnl(nlh, &b);
	if (ra != rb)
		fail_msg("%s: direct %d, libnftnl %d", what, ra, rb);
	x = sw_model_find_set(&a, "allow4");
	y = sw_model_find_set(&b, "allow4");
	if (x->n_elems != y->n_elems)
		fail_msg("%s: direct %zu elements, libnftnl %zu", what, x->n_elems, y->n_elems);
	for (size_t i = 0; i < x->n_elems; i++) {
		const struct sw_elem *p = &x->elems[i], *q = &y->elems[i];

		if (memcmp(p->key, q->key, SW_KEY_MAX) || memcmp(p->key_end, q->key_end, SW_KEY_MAX) ||
		    p->flags != q->flags || p->has_key_end != q->has_key_end)
			fail_msg("%s: element %zu differs", what, i);
	}
	sw_model_free(&a);
	sw_model_free(&b);
}

static void test_elems_direct_as_nftnl(void **state)
{
	static const unsigned plain[] = { E_KEY, E_KEY | E_END, E_KEY | E_FLAGS, 0,
					  E_KEY_EMPTY, E_KEY | E_KEY2, E_END | E_FLAGS };
	static const unsigned odd[] = {
		E_KEY | E_TIMEOUT, E_KEY | E_VERDICT, E_VERDICT, E_KEY_LONG, E_KEY | E_FLAGS_SHORT,
		E_STRAY,
	};
	char what[64];

	(void)state;
	/* plain lists, and one odd element at the start, middle and end */
	same_decode(elems_msg("sandwall", "allow4", plain, 7, false), "plain");
	same_decode(elems_msg("sandwall", "allow4", plain, 7, true), "plain + set id");
	same_decode(elems_msg("sandwall", "allow4", plain, 0, false), "empty list");
	for (size_t o = 0; o < sizeof(odd) / sizeof(*odd); o++)
		for (size_t at = 0; at < 3; at++) {
			unsigned spec[7];

			memcpy(spec, plain, sizeof(spec));
			spec[at * 3] = odd[o];
			snprintf(what, sizeof(what), "odd %zu at %zu", o, at * 3);
			same_decode(elems_msg("sandwall", "allow4", spec, 7, false), what);
			snprintf(what, sizeof(what), "odd %zu at %zu, other table", o, at * 3);
			same_decode(elems_msg("other", "allow4", spec, 7, false), what);
			snprintf(what, sizeof(what), "odd %zu at %zu, no set name", o, at * 3);
			same_decode(elems_msg("sandwall", NULL, spec, 7, false), what);
			snprintf(what, sizeof(what), "odd %zu at %zu, another set", o, at * 3);
			same_decode(elems_msg("sandwall", "lan4", spec, 7, false), what);
		}
	/* not ours, no set name, a set the model lacks, no table */
	same_decode(elems_msg("other", "allow4", plain, 7, false), "other table");
	same_decode(elems_msg("sandwall", NULL, plain, 7, false), "no set name");
	same_decode(elems_msg("sandwall", "lan4", plain, 7, false), "another set");
	same_decode(elems_msg(NULL, "allow4", plain, 7, false), "no table");
	/* the direct path took the plain list: its elements, in order */
	{
		struct sw_model m;
		const struct sw_set *s;

		sw_model_init(&m, "sandwall");
		assert_non_null(sw_model_add_set(&m, "allow4"));
		assert_int_equal(sw_decode_elems(elems_msg("sandwall", "allow4", plain, 7, false), &m), 0);
		s = sw_model_find_set(&m, "allow4");
		assert_int_equal(s->n_elems, 7);
		assert_int_equal(s->elems[0].key[0], 0);
		assert_int_equal(s->elems[1].key[11], 31 + 11);
		assert_true(s->elems[1].has_key_end);
		assert_int_equal(s->elems[1].key_end[0], 31 + 1);
		assert_int_equal(s->elems[2].flags, NFT_SET_ELEM_INTERVAL_END);
		assert_int_equal(s->elems[5].key[0], 5 * 31 + 20);     /* the last value wins */
		assert_int_equal(s->elems[5].key[4], 0);        /* only its 4 bytes */
		sw_model_free(&m);
	}
}

/* ---- set elements without a set name ------------------------------------ */

static void test_elems_without_set_name(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;
	struct nlattr *list, *el, *key;
	uint32_t addr = htonl(0xa9fea9fe);

	(void)state;
	nlh = nft_msg(NFT_MSG_NEWSETELEM);
	mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_TABLE, "sandwall");
	list = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_LIST_ELEMENTS);
	el = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
	key = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_KEY);
	mnl_attr_put(nlh, NFTA_DATA_VALUE, sizeof(addr), &addr);
	mnl_attr_nest_end(nlh, key);
	mnl_attr_nest_end(nlh, el);
	mnl_attr_nest_end(nlh, list);
	sw_model_init(&m, "sandwall");
	assert_non_null(sw_model_add_set(&m, "metadata4"));
	assert_int_equal(sw_decode_elems(nlh, &m), -EBADMSG);
	sw_model_free(&m);
}

/* ---- nlmsg_len beyond 2^31, and a length whose alignment wraps to 0 ------ */

static const uint32_t evil_len[] = { 0x80000010u, 0xfffffffdu, 0xffffffffu };

static size_t put_evil(uint32_t len, uint16_t type)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, 65536);
	/* one good message first, then the evil one */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	mnl_nlmsg_put_extra_header(nlh, 16);
	nlh = (struct nlmsghdr *)(buf + nlh->nlmsg_len);
	nlh->nlmsg_len = len;
	nlh->nlmsg_type = type;
	return 32 + 64;
}

static void test_walk_oversized_len(void **state)
{
	const struct nlmsghdr *nlh;
	size_t off, n, seen;

	(void)state;
	for (size_t i = 0; i < sizeof(evil_len) / sizeof(evil_len[0]); i++) {
		n = put_evil(evil_len[i], RTM_NEWLINK);
		seen = 0;
		sw_nlmsg_for_each(nlh, buf, n, off)
			seen++;
		assert_int_equal(seen, 1);
		assert_int_equal(off, 32);      /* stops where the bad one starts */
	}
}

/* the last message's length is not padded and the datagram ends there:
 * libmnl would walk its attributes up to the padded end, past the data */
static void test_walk_unpadded_tail(void **state)
{
	const struct nlmsghdr *nlh;
	struct nlmsghdr *m;
	size_t off, seen = 0;

	(void)state;
	memset(buf, 0, 65536);
	m = mnl_nlmsg_put_header(buf);
	m->nlmsg_type = RTM_NEWROUTE;
	mnl_nlmsg_put_extra_header(m, 28);
	m->nlmsg_len = 46;
	sw_nlmsg_for_each(nlh, buf, 46, off)
		seen++;
	assert_int_equal(seen, 0);
	assert_int_equal(off, 0);
	sw_nlmsg_for_each(nlh, buf, 48, off)
		seen++;
	assert_int_equal(seen, 1);
	assert_int_equal(off, 48);
}

/* attributes: the same bounded walk, and the nest check conntrack uses */
static void put_attr(uint8_t *p, uint16_t len, uint16_t type)
{
	struct nlattr a = { .nla_len = len, .nla_type = type };

	memcpy(p, &a, sizeof(a));
}

static void test_attr_walk_and_tree(void **state)
{
	uint8_t *p = (uint8_t *)buf;
	const struct nlattr *a;
	size_t off, seen = 0;

	(void)state;
	memset(buf, 0, 65536);
	/* outer nest (40) = [ inner nest (12) = [ u32 (8) ], u32 (8), u64 (12) ], 4 pad bytes left */
	put_attr(p, 36, 1 | NLA_F_NESTED);
	put_attr(p + 4, 12, 1 | NLA_F_NESTED);
	put_attr(p + 8, 8, 1);
	put_attr(p + 16, 8, 2);
	put_attr(p + 24, 12, 3);
	sw_nlattr_for_each(a, p + 4, 32, off)
		seen++;
	assert_int_equal(seen, 3);
	assert_int_equal(off, 32);
	assert_true(sw_nlattr_tree_ok((const struct nlattr *)p, 4));
	assert_false(sw_nlattr_tree_ok((const struct nlattr *)p, 1));     /* too deep */
	/* an inner length past its nest, below a header, at 0xffff */
	for (unsigned bad = 0; bad < 3; bad++) {
		static const uint16_t lens[] = { 16, 2, 0xffff };

		put_attr(p + 4, lens[bad], 1 | NLA_F_NESTED);
		assert_false(sw_nlattr_tree_ok((const struct nlattr *)p, 4));
	}
	put_attr(p + 4, 12, 1 | NLA_F_NESTED);
	put_attr(p + 8, 9, 1);          /* inner value past the inner nest */
	assert_false(sw_nlattr_tree_ok((const struct nlattr *)p, 4));
	put_attr(p + 8, 8, 1);
	/* trailing bytes that could hold a header but are not whole */
	put_attr(p, 40, 1 | NLA_F_NESTED);
	put_attr(p + 36, 8, 4);
	assert_false(sw_nlattr_tree_ok((const struct nlattr *)p, 4));
	/* nla_len wraps nothing: 0xffff from the end of a small buffer */
	put_attr(p, 0xffff, 1);
	seen = 0;
	sw_nlattr_for_each(a, p, 8, off)
		seen++;
	assert_int_equal(seen, 0);
	assert_int_equal(off, 0);
}

static void test_parsers_oversized_len(void **state)
{
	struct sw_blocked b[4];
	struct sw_nft_txn txn;
	static struct sw_host h;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(evil_len) / sizeof(evil_len[0]); i++) {
		n = put_evil(evil_len[i], MSG(NFT_MSG_NEWRULE));
		memset(&txn, 0, sizeof(txn));
		sw_events_parse_nft(buf, n, "sandwall", &txn, NULL, NULL);
		assert_false(txn.touched);

		n = put_evil(evil_len[i], NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_PACKET);
		assert_int_equal(sw_nflog_parse(buf, n, b, 4), 0);

		n = put_evil(evil_len[i], RTM_NEWADDR);
		sw_host_clear(&h);
		assert_int_equal(sw_host_parse_rtnl(&h, buf, n), -EBADMSG);

		n = put_evil(evil_len[i], RTM_NEWLINK);
		assert_true(sw_events_parse_rt(buf, n));        /* the good one */
	}
	sw_host_free(&h);
}

/* sw_nl_dump over a fake transport that answers with the evil datagram */
struct one_dgram {
	size_t len;
	int sent;
};

static ssize_t od_send(void *ctx, const void *b, size_t len)
{
	(void)ctx;
	(void)b;
	return (ssize_t)len;
}

static ssize_t od_recv(void *ctx, void *b, size_t len, int timeout_ms)
{
	struct one_dgram *o = ctx;

	(void)timeout_ms;
	if (o->sent++)
		return 0;
	memcpy(b, buf, o->len < len ? o->len : len);
	return (ssize_t)o->len;
}

static const struct sw_nl_ops od_ops = { .send = od_send, .recv = od_recv };

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(*(int *)data)++;
	return 0;
}

static void test_dump_oversized_len(void **state)
{
	for (size_t i = 0; i < sizeof(evil_len) / sizeof(evil_len[0]); i++) {
		struct one_dgram o = { 0, 0 };
		struct sw_nl nl;
		uint8_t req[64] __attribute__((aligned(4))) = { 0 };
		struct nlmsghdr *r = mnl_nlmsg_put_header(req);
		int n = 0;

		(void)state;
		o.len = put_evil(evil_len[i], MSG(NFT_MSG_NEWRULE));
		assert_int_equal(sw_nl_open_ops(&nl, &od_ops, &o), 0);
		((struct nlmsghdr *)buf)->nlmsg_seq = 7;
		((struct nlmsghdr *)(buf + 32))->nlmsg_seq = 7;
		r->nlmsg_type = MSG(NFT_MSG_GETRULE);
		r->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		r->nlmsg_seq = 7;
		assert_int_equal(sw_nl_dump(&nl, r, count_cb, &n), -EBADMSG);
		assert_int_equal(n, 1);
		sw_nl_close(&nl);
	}
}

/* ---- libnftnl 1.2.4 on malformed messages -------------------------------- */

/* exit(1) "nf_tables kernel ABI is broken": NFTA_TABLE_FLAGS of 2 bytes */
static void test_nftnl_attr_size(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;
	uint16_t flags = 0;

	(void)state;
	nlh = nft_msg(NFT_MSG_NEWTABLE);
	mnl_attr_put_strz(nlh, NFTA_TABLE_NAME, "sandwall");
	mnl_attr_put(nlh, NFTA_TABLE_FLAGS, sizeof(flags), &flags);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_table(nlh, &m), -EBADMSG);
	assert_false(m.has_table);
	sw_model_free(&m);

	/* a nest too short for an attribute header (MNL_TYPE_NESTED) */
	nlh = nft_msg(NFT_MSG_NEWCHAIN);
	mnl_attr_put_strz(nlh, NFTA_CHAIN_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_CHAIN_NAME, "guard");
	mnl_attr_put(nlh, NFTA_CHAIN_HOOK, sizeof(flags), &flags);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_chain(nlh, &m), -EBADMSG);
	assert_int_equal(m.n_chains, 0);
	sw_model_free(&m);

	/* the same inside an expression: a 1-byte NFTA_META_KEY */
	nlh = nft_msg(NFT_MSG_NEWRULE);
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, "guard");
	{
		struct nlattr *l = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
		struct nlattr *e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
		struct nlattr *d;

		mnl_attr_put_strz(nlh, NFTA_EXPR_NAME, "meta");
		d = mnl_attr_nest_start(nlh, NFTA_EXPR_DATA);
		mnl_attr_put_u8(nlh, NFTA_META_KEY, 1);
		mnl_attr_nest_end(nlh, d);
		mnl_attr_nest_end(nlh, e);
		mnl_attr_nest_end(nlh, l);
	}
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_rule(nlh, &m), -EBADMSG);
	assert_int_equal(m.n_rules, 0);
	sw_model_free(&m);
}

/* NULL dereference: an expression without NFTA_EXPR_NAME */
static void test_nftnl_expr_without_name(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;
	struct nlattr *l, *e, *d;

	(void)state;
	nlh = nft_msg(NFT_MSG_NEWRULE);
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, "guard");
	l = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
	e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
	d = mnl_attr_nest_start(nlh, NFTA_EXPR_DATA);
	mnl_attr_put_u32(nlh, NFTA_META_KEY, htonl(NFT_META_IIFNAME));
	mnl_attr_nest_end(nlh, d);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, l);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_rule(nlh, &m), -EBADMSG);
	sw_model_free(&m);
}

/* stack write: a set-element attribute of type 12..NFTA_SET_MAX */
static void test_nftnl_elem_attr_type(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;
	struct nlattr *list, *el;

	(void)state;
	for (uint16_t t = 12; t <= 17; t++) {
		nlh = nft_msg(NFT_MSG_NEWSETELEM);
		mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_TABLE, "sandwall");
		mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, "metadata4");
		list = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_LIST_ELEMENTS);
		el = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
		mnl_attr_put_u32(nlh, t, 0);
		mnl_attr_nest_end(nlh, el);
		mnl_attr_nest_end(nlh, list);
		sw_model_init(&m, "sandwall");
		assert_non_null(sw_model_add_set(&m, "metadata4"));
		assert_int_equal(sw_decode_elems(nlh, &m), -EBADMSG);
		sw_model_free(&m);
	}
}

/* strdup() past the attribute: strings without their NUL */
static void test_nftnl_string_without_nul(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;

	(void)state;
	nlh = nft_msg(NFT_MSG_NEWCHAIN);
	mnl_attr_put_strz(nlh, NFTA_CHAIN_TABLE, "sandwall");
	mnl_attr_put(nlh, NFTA_CHAIN_NAME, 8, "guardxyz");     /* no NUL inside */
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_chain(nlh, &m), -EBADMSG);
	assert_int_equal(m.n_chains, 0);
	sw_model_free(&m);

	nlh = nft_msg(NFT_MSG_NEWSET);
	mnl_attr_put(nlh, NFTA_SET_TABLE, 8, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_SET_NAME, "metadata4");
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_set(nlh, &m), -EBADMSG);
	assert_int_equal(m.n_sets, 0);
	sw_model_free(&m);
}

/* The fuzzer's message: nlmsg_len 50 ends 2 bytes into an attribute
 * header {len 4, NFTA_SET_ELEM_LIST_TABLE}; libmnl walks to the aligned
 * end (52), reads an empty table name and libnftnl exit()s. Refused. */
static void test_nftnl_unaligned_message_len(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;
	uint8_t *tail;

	(void)state;
	nlh = nft_msg(NFT_MSG_NEWSETELEM);
	mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, "own4");
	tail = (uint8_t *)nlh + nlh->nlmsg_len;
	tail[0] = 4;                    /* nla_len 4 */
	tail[2] = NFTA_SET_ELEM_LIST_TABLE;
	nlh->nlmsg_len += 2;            /* the message ends inside that header */
	assert_int_equal(sw_nft_validate(nlh, SW_NFT_ELEMS), -EBADMSG);
	sw_model_init(&m, "sandwall");
	assert_non_null(sw_model_add_set(&m, "own4"));
	assert_int_equal(sw_decode_elems(nlh, &m), -EBADMSG);
	assert_int_equal(sw_decode_elems_nftnl(nlh, &m), -EBADMSG);
	sw_model_free(&m);

	nlh->nlmsg_len -= 2;            /* the same message, aligned: accepted */
	assert_int_equal(sw_nft_validate(nlh, SW_NFT_ELEMS), 0);
}

/* uninitialised read: a verdict without NFTA_VERDICT_CODE, a jump without
 * a chain; and a concatenation of more than 16 fields */
static void test_nftnl_verdict_and_concat(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;
	struct nlattr *l, *e, *d, *data, *v, *desc, *cat;

	(void)state;
	for (int jump = 0; jump < 2; jump++) {
		nlh = nft_msg(NFT_MSG_NEWRULE);
		mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, "sandwall");
		mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, "guard");
		l = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
		e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
		mnl_attr_put_strz(nlh, NFTA_EXPR_NAME, "immediate");
		d = mnl_attr_nest_start(nlh, NFTA_EXPR_DATA);
		mnl_attr_put_u32(nlh, NFTA_IMMEDIATE_DREG, 0);
		data = mnl_attr_nest_start(nlh, NFTA_IMMEDIATE_DATA);
		v = mnl_attr_nest_start(nlh, NFTA_DATA_VERDICT);
		if (jump)
			mnl_attr_put_u32(nlh, NFTA_VERDICT_CODE, htonl((uint32_t)NFT_JUMP));
		mnl_attr_nest_end(nlh, v);
		mnl_attr_nest_end(nlh, data);
		mnl_attr_nest_end(nlh, d);
		mnl_attr_nest_end(nlh, e);
		mnl_attr_nest_end(nlh, l);
		sw_model_init(&m, "sandwall");
		assert_int_equal(sw_decode_rule(nlh, &m), -EBADMSG);
		sw_model_free(&m);
	}

	nlh = nft_msg(NFT_MSG_NEWSET);
	mnl_attr_put_strz(nlh, NFTA_SET_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_SET_NAME, "pairs");
	desc = mnl_attr_nest_start(nlh, NFTA_SET_DESC);
	cat = mnl_attr_nest_start(nlh, NFTA_SET_DESC_CONCAT);
	for (int i = 0; i < 40; i++) {
		e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
		mnl_attr_put_u32(nlh, NFTA_SET_FIELD_LEN, htonl(4));
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, cat);
	mnl_attr_nest_end(nlh, desc);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_set(nlh, &m), -EBADMSG);
	sw_model_free(&m);
}

/* a rule whose printed expression is longer than the print buffer: the
 * printer returns the full length, which must not index the buffer */
static void test_long_expression_text(void **state)
{
	static char prefix[3000];
	struct sw_model m;
	struct nlmsghdr *nlh;
	struct nlattr *l, *e, *d;

	(void)state;
	memset(prefix, ' ', sizeof(prefix) - 1);
	nlh = nft_msg(NFT_MSG_NEWRULE);
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, "guard");
	l = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
	e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
	mnl_attr_put_strz(nlh, NFTA_EXPR_NAME, "log");
	d = mnl_attr_nest_start(nlh, NFTA_EXPR_DATA);
	mnl_attr_put_strz(nlh, NFTA_LOG_PREFIX, prefix);
	mnl_attr_nest_end(nlh, d);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, l);
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_rule(nlh, &m), 0);
	assert_int_equal(m.n_rules, 1);
	assert_true(strlen(m.rules[0].canon) < 2048);
	sw_model_free(&m);
}

/* the validator accepts what the kernel sends: a table, a set with a
 * 2-field concatenation, a rule with a lookup and a jump */
static void test_nftval_accepts_wellformed(void **state)
{
	struct sw_model m;
	struct nlmsghdr *nlh;
	struct nlattr *l, *e, *d, *data, *v, *desc, *cat;

	(void)state;
	nlh = nft_msg(NFT_MSG_NEWSET);
	mnl_attr_put_strz(nlh, NFTA_SET_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_SET_NAME, "pairs");
	mnl_attr_put_u32(nlh, NFTA_SET_FLAGS, htonl(NFT_SET_INTERVAL | NFT_SET_CONCAT));
	desc = mnl_attr_nest_start(nlh, NFTA_SET_DESC);
	cat = mnl_attr_nest_start(nlh, NFTA_SET_DESC_CONCAT);
	for (int i = 0; i < 2; i++) {
		e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
		mnl_attr_put_u32(nlh, NFTA_SET_FIELD_LEN, htonl(4));
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, cat);
	mnl_attr_nest_end(nlh, desc);
	assert_int_equal(sw_nft_validate(nlh, SW_NFT_SET), 0);
	assert_int_equal(sw_nft_validate(nlh, SW_NFT_RULE), -EBADMSG);  /* wrong kind */
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_set(nlh, &m), 0);
	assert_int_equal(m.n_sets, 1);
	assert_int_equal(m.sets[0].n_concat, 2);
	sw_model_free(&m);

	nlh = nft_msg(NFT_MSG_NEWRULE);
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, "sandwall");
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, "guard");
	l = mnl_attr_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
	e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
	mnl_attr_put_strz(nlh, NFTA_EXPR_NAME, "lookup");
	d = mnl_attr_nest_start(nlh, NFTA_EXPR_DATA);
	mnl_attr_put_strz(nlh, NFTA_LOOKUP_SET, "pairs");
	mnl_attr_put_u32(nlh, NFTA_LOOKUP_SREG, htonl(1));
	mnl_attr_nest_end(nlh, d);
	mnl_attr_nest_end(nlh, e);
	e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM);
	mnl_attr_put_strz(nlh, NFTA_EXPR_NAME, "immediate");
	d = mnl_attr_nest_start(nlh, NFTA_EXPR_DATA);
	mnl_attr_put_u32(nlh, NFTA_IMMEDIATE_DREG, 0);
	data = mnl_attr_nest_start(nlh, NFTA_IMMEDIATE_DATA);
	v = mnl_attr_nest_start(nlh, NFTA_DATA_VERDICT);
	mnl_attr_put_u32(nlh, NFTA_VERDICT_CODE, htonl((uint32_t)NFT_JUMP));
	mnl_attr_put_strz(nlh, NFTA_VERDICT_CHAIN, "metadata");
	mnl_attr_nest_end(nlh, v);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, d);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, l);
	mnl_attr_put_u64(nlh, NFTA_RULE_HANDLE, htobe64(42));
	sw_model_init(&m, "sandwall");
	assert_int_equal(sw_decode_rule(nlh, &m), 0);
	assert_int_equal(m.n_rules, 1);
	assert_int_equal(m.rules[0].handle, 42);
	sw_model_free(&m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_udata_length_past_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_udata_comment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elems_without_set_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elems_direct_as_nftnl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_oversized_len, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_unpadded_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attr_walk_and_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parsers_oversized_len, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_oversized_len, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nftnl_attr_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nftnl_expr_without_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nftnl_elem_attr_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nftnl_string_without_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nftnl_unaligned_message_len, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nftnl_verdict_and_concat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_expression_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nftval_accepts_wellformed, setup, teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);        /* run one case by name */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
