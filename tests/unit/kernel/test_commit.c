/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for commit (include/kernel/commit.h): the generation-id
 * policy of BATCH_BEGIN, the per-message ACK accounting, the refused
 * message named from what was recorded while encoding it, and the
 * extended ACK's offset, used only when it falls inside that message.
 * The answers are scripted here on the fake kernel's queue
 * (fake_kernel.h); no kernel is touched. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>
#include <linux/netfilter.h>

#include "kernel/commit.h"
#include "kernel/encode.h"
#include "fake_kernel.h"

#define MSG(t) ((NFNL_SUBSYS_NFTABLES << 8) | (t))

/* How the scripted kernel answers a batch. */
enum off_kind {
	OFF_NONE,               /* no NLMSGERR_ATTR_OFFS */
	OFF_EXPR,               /* at the second expression of a rule */
	OFF_ELEM,               /* at the second element of an element message */
	OFF_ATTR,               /* at the message's first attribute */
	OFF_RAW,                /* raw_off, whatever it is */
	OFF_PAST,               /* past the message's end */
	OFF_END,                /* exactly at its end */
};

struct t {
	struct fk k;
	struct sw_nl nl;
	struct sw_model m;
	bool script;            /* answer here, not by fk_answer_batch */
	uint16_t fail_type;     /* the first inner message of this type fails */
	int fail_err;
	enum off_kind off;
	uint32_t raw_off;
	bool reverse, repeat, stale, foreign;   /* ACK accounting cases */
	size_t drop;            /* 1-based inner message left unanswered, 0: none */
};

/* An NLMSG_ERROR for orig, capped, with the kernel's text and, if asked,
 * an offset into orig. */
static void put_err(struct fk *k, size_t d, const struct nlmsghdr *orig, uint32_t seq,
		    uint32_t pid, int error, const char *msg, bool has_off, uint32_t off)
{
	struct nlmsghdr *nlh = fk_put(k, d, NLMSG_ERROR, NLM_F_CAPPED, seq, pid);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = error;
	e->msg = *orig;
	if (msg || has_off)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (has_off)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, off);
	fk_done(k, d, nlh);
}

/* The offset (from the message start) of the nth (1-based) attribute in
 * the list attribute of type list, 0 if none. */
static uint32_t nth_in_list(const struct nlmsghdr *nlh, uint16_t list, unsigned nth)
{
	const struct nlattr *a, *c;
	unsigned i = 0;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) != list)
			continue;
		mnl_attr_for_each_nested(c, a)
			if (++i == nth)
				return (uint32_t)((const uint8_t *)c - (const uint8_t *)nlh);
	}
	return 0;
}

static uint32_t offset_for(const struct t *t, const struct nlmsghdr *nlh)
{
	switch (t->off) {
	case OFF_EXPR:
		return nth_in_list(nlh, NFTA_RULE_EXPRESSIONS, 2);
	case OFF_ELEM:
		return nth_in_list(nlh, NFTA_SET_ELEM_LIST_ELEMENTS, 2);
	case OFF_ATTR:
		return NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg));
	case OFF_RAW:
		return t->raw_off;
	case OFF_PAST:
		return nlh->nlmsg_len + 8;
	case OFF_END:
		return nlh->nlmsg_len;
	case OFF_NONE:
		break;
	}
	return 0;
}

static void answer(struct t *t, const uint8_t *buf, size_t len)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf, *msgs[4096];
	int rest = (int)len;
	size_t n = 0, d = fk_dgram(&t->k);
	bool failed = false;

	for (; mnl_nlmsg_ok(nlh, rest); nlh = mnl_nlmsg_next(nlh, &rest))
		if (nlh->nlmsg_flags & NLM_F_ACK)
			msgs[n++] = nlh;
	if (t->stale)           /* an error for a sequence number of no batch */
		put_err(&t->k, d, msgs[0], msgs[0]->nlmsg_seq - 1000, 0, -ENOENT, "stale", false, 0);
	if (t->foreign)         /* an error from a process, not the kernel */
		put_err(&t->k, d, msgs[0], msgs[0]->nlmsg_seq, 999, -EPERM, "forged", false, 0);
	for (size_t j = 0; j < n; j++) {
		size_t i = t->reverse ? n - 1 - j : j;
		const struct nlmsghdr *m = msgs[i];

		if (t->drop && i + 1 == t->drop)
			continue;
		if (!failed && t->fail_type && NFNL_MSG_TYPE(m->nlmsg_type) == t->fail_type) {
			failed = true;
			put_err(&t->k, d, m, m->nlmsg_seq, 0, t->fail_err, "refused here",
				t->off != OFF_NONE, offset_for(t, m));
		} else {
			put_err(&t->k, d, m, m->nlmsg_seq, 0, 0, NULL, false, 0);
		}
		/* the same answer again, now claiming an error: counted once */
		if (t->repeat && j == 0)
			put_err(&t->k, d, m, m->nlmsg_seq, 0, -EINVAL, "again", false, 0);
	}
}

static ssize_t t_send(void *ctx, const void *buf, size_t len)
{
	struct t *t = ctx;
	const struct nlmsghdr *nlh = buf;

	if (!t->script || nlh->nlmsg_type != NFNL_MSG_BATCH_BEGIN)
		return fk_send(&t->k, buf, len);
	t->k.n_sends++;
	t->k.n_batches++;
	free(t->k.last);
	t->k.last = malloc(len);
	assert_non_null(t->k.last);
	memcpy(t->k.last, buf, len);
	t->k.last_len = len;
	answer(t, buf, len);
	return (ssize_t)len;
}

static ssize_t t_recv(void *ctx, void *buf, size_t len, int timeout_ms)
{
	return fk_recv(&((struct t *)ctx)->k, buf, len, timeout_ms);
}

static const struct sw_nl_ops t_ops = { .send = t_send, .recv = t_recv };

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	fk_init(&t->k);
	assert_int_equal(sw_nl_open_ops(&t->nl, &t_ops, t), 0);
	tk_build("", &t->m);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;

	sw_model_free(&t->m);
	sw_nl_close(&t->nl);
	fk_free(&t->k);
	free(t);
	return 0;
}

static int fill_replace(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	return sw_encode_replace(b, nl, arg);
}

/* The generation id BATCH_BEGIN of the last batch carried (*has). */
static uint32_t sent_genid(const struct t *t, bool *has)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)t->k.last;
	const struct nlattr *a;
	uint32_t g = 0;

	*has = false;
	assert_non_null(nlh);
	assert_int_equal(nlh->nlmsg_type, NFNL_MSG_BATCH_BEGIN);
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
		if (mnl_attr_get_type(a) == NFNL_BATCH_GENID) {
			*has = true;
			g = ntohl(mnl_attr_get_u32(a));
		}
	return g;
}

/* ---- the generation-id policy ------------------------------------------- */

static void test_gen_after(void **state)
{
	(void)state;
	assert_int_equal(sw_gen_after(1), 2);
	assert_int_equal(sw_gen_after(0), 1);
	assert_int_equal(sw_gen_after(UINT32_MAX), 1);     /* the kernel skips 0 */
}

static void test_policy(void **state)
{
	static const struct {
		enum sw_gen_policy gen;
		uint32_t in;
		bool stamped;
		uint32_t sent, out;
	} c[] = {
		{ SW_GEN_REQUIRE, 7, true, 7, 8 },
		{ SW_GEN_REQUIRE, 0, true, 0, 1 },      /* stamped even when 0, as before */
		{ SW_GEN_IF_KNOWN, 9, true, 9, 10 },
		{ SW_GEN_IF_KNOWN, 0, false, 0, 0 },    /* not known: not stamped, kept */
		{ SW_GEN_NONE, 9, false, 0, 9 },
		{ SW_GEN_CURRENT, 3, true, 41, 42 },    /* the kernel's, read first */
	};
	struct t *t = *state;

	t->k.genid = 41;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint32_t g = c[i].in, getgens = (uint32_t)t->k.n_getgens;
		bool has;

		assert_int_equal(sw_commit(&t->nl, c[i].gen, &g, fill_replace, &t->m), 0);
		assert_int_equal(sent_genid(t, &has), c[i].sent);
		assert_int_equal(has, c[i].stamped);
		assert_int_equal(g, c[i].out);
		assert_int_equal(t->k.n_getgens - getgens, c[i].gen == SW_GEN_CURRENT);
	}
	/* NULL: nothing to advance, the policy still holds */
	assert_int_equal(sw_commit(&t->nl, SW_GEN_REQUIRE, NULL, fill_replace, &t->m), 0);
	assert_int_equal(sent_genid(t, &(bool){ false }), 0);
}

/* A refused batch leaves the caller's generation alone; a generation
 * that moved is ERESTART, from BEGIN's answer. */
static void test_policy_refused(void **state)
{
	struct t *t = *state;
	uint32_t g = 5;

	t->k.restarts = 1;
	assert_int_equal(sw_commit(&t->nl, SW_GEN_REQUIRE, &g, fill_replace, &t->m), -ERESTART);
	assert_int_equal(g, 5);
	assert_int_equal(t->nl.err_index, -1);
	assert_string_equal(t->nl.errobj, "");
	assert_int_equal(sw_commit(&t->nl, SW_GEN_REQUIRE, &g, fill_replace, &t->m), 0);
	assert_int_equal(g, 6);
	/* GETGEN fails: nothing is sent */
	t->k.no_answer = true;
	assert_int_equal(sw_commit(&t->nl, SW_GEN_CURRENT, &g, fill_replace, &t->m), -ETIMEDOUT);
	assert_int_equal(t->k.n_batches, 2);
	assert_int_equal(g, 6);
}

/* ---- ACK accounting ----------------------------------------------------- */

static void test_acks_any_order(void **state)
{
	struct t *t = *state;

	t->script = true;
	t->reverse = t->repeat = t->stale = t->foreign = true;
	assert_int_equal(sw_commit(&t->nl, SW_GEN_NONE, NULL, fill_replace, &t->m), 0);
	assert_int_equal(t->nl.err_index, -1);
	assert_string_equal(t->nl.errmsg, "");
	assert_int_equal(fk_pending(&t->k), 0);
}

static void test_ack_missing(void **state)
{
	struct t *t = *state;

	t->script = true;
	t->drop = 3;
	assert_int_equal(sw_commit(&t->nl, SW_GEN_NONE, NULL, fill_replace, &t->m), -ETIMEDOUT);
	assert_int_equal(t->nl.err_index, -1);
}

/* Two refusals: the first in the batch's order is the one named, even
 * when its answer comes last. */
static void test_first_refusal_named(void **state)
{
	struct t *t = *state;

	t->k.fail_index[0] = 5;
	t->k.fail_err[0] = -EINVAL;
	t->k.fail_msg[0] = "first";
	t->k.fail_index[1] = 9;
	t->k.fail_err[1] = -ENOENT;
	t->k.fail_msg[1] = "second";
	assert_int_equal(sw_commit(&t->nl, SW_GEN_NONE, NULL, fill_replace, &t->m), -EINVAL);
	assert_int_equal(t->nl.err_index, 5);
	assert_string_equal(t->nl.errmsg, "first");
	assert_true(t->nl.errobj[0] != '\0');
}

/* ---- naming the refused object ------------------------------------------ */

static void refuse(struct t *t, uint16_t type, enum off_kind off, int expect)
{
	t->script = true;
	t->fail_type = type;
	t->fail_err = -EINVAL;
	t->off = off;
	assert_int_equal(sw_commit(&t->nl, SW_GEN_NONE, NULL, fill_replace, &t->m), expect);
}

static void test_names_counter(void **state)
{
	struct t *t = *state;
	char err[512];

	refuse(t, NFT_MSG_NEWOBJ, OFF_NONE, -EINVAL);
	assert_string_equal(t->nl.errobj, "add counter spoofed");
	sw_commit_error(&t->nl, "cannot apply the ruleset", -EINVAL, err, sizeof(err));
	assert_string_equal(err, "cannot apply the ruleset: Invalid argument (kernel: refused "
			    "here, message 3 of the batch: add counter spoofed)");
	/* the next batch that succeeds leaves nothing behind */
	t->fail_type = 0;
	assert_int_equal(sw_commit(&t->nl, SW_GEN_NONE, NULL, fill_replace, &t->m), 0);
	assert_string_equal(t->nl.errobj, "");
	assert_string_equal(t->nl.errmsg, "");
	assert_int_equal(t->nl.err_index, -1);
	sw_commit_error(&t->nl, "x", -EIO, err, sizeof(err));
	assert_string_equal(err, "x: Input/output error");
}

static void test_names_rule(void **state)
{
	struct t *t = *state;

	refuse(t, NFT_MSG_NEWRULE, OFF_NONE, -EINVAL);
	assert_non_null(strstr(t->nl.errobj, "add rule in chain "));
	assert_non_null(strstr(t->nl.errobj, " (comment \"sandwall:"));
	assert_null(strstr(t->nl.errobj, "expression"));
}

static void test_names_set_and_table(void **state)
{
	struct t *t = *state;

	refuse(t, NFT_MSG_NEWSET, OFF_NONE, -EINVAL);
	assert_int_equal(strncmp(t->nl.errobj, "add set ", 8), 0);
	refuse(t, NFT_MSG_DELTABLE, OFF_NONE, -EINVAL);
	assert_string_equal(t->nl.errobj, "delete table sandwall");
}

/* the offset at the second expression of a rule names it */
static void test_offset_expression(void **state)
{
	struct t *t = *state;
	const char *p;

	refuse(t, NFT_MSG_NEWRULE, OFF_EXPR, -EINVAL);
	print_message("%s\n", t->nl.errobj);
	p = strstr(t->nl.errobj, "\"), expression 2 (");
	assert_non_null(p);
	assert_true(strlen(p) > strlen("\"), expression 2 ()"));
}

/* the offset at the second element of an element message names it, key
 * and all */
static void test_offset_element(void **state)
{
	struct t *t = *state;

	refuse(t, NFT_MSG_NEWSETELEM, OFF_ELEM, -EINVAL);
	assert_int_equal(strncmp(t->nl.errobj, "add elements to set ", 20), 0);
	print_message("%s\n", t->nl.errobj);
	assert_non_null(strstr(t->nl.errobj, ", element 2 of "));
	assert_non_null(strstr(t->nl.errobj, " (key "));
}

/* any other attribute by its type */
static void test_offset_attribute(void **state)
{
	struct t *t = *state;

	refuse(t, NFT_MSG_NEWOBJ, OFF_ATTR, -EINVAL);
	assert_string_equal(t->nl.errobj, "add counter spoofed, attribute 1");
}

/* An offset the message cannot hold is the kernel's (or a forger's)
 * mistake: ignored, never read past the message. */
static void test_offset_malformed_ignored(void **state)
{
	static const enum off_kind bad[] = { OFF_PAST, OFF_END };
	static const uint32_t raw[] = { 0, 4, NLMSG_HDRLEN, 21, 0x7fffffff, UINT32_MAX };
	struct t *t = *state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		refuse(t, NFT_MSG_NEWOBJ, bad[i], -EINVAL);
		assert_string_equal(t->nl.errobj, "add counter spoofed");
		assert_string_equal(t->nl.errmsg, "refused here");
	}
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		t->raw_off = raw[i];
		refuse(t, NFT_MSG_NEWOBJ, OFF_RAW, -EINVAL);
		assert_string_equal(t->nl.errobj, "add counter spoofed");
	}
	/* past the end of an element message: no element named from there */
	refuse(t, NFT_MSG_NEWSETELEM, OFF_PAST, -EINVAL);
	assert_null(strstr(t->nl.errobj, "element 2"));
}

/* Without an offset, a message of one element names that element. */
static int fill_one_elem(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	struct sw_set s = { .name = "dns4", .key_len = 4 };
	struct sw_elem e = { .key = { 10, 0, 0, 1 } };

	(void)arg;
	return sw_encode_elems(b, nl, "sandwall", &s, &e, 1, NFT_MSG_DELSETELEM);
}

static void test_names_one_element(void **state)
{
	struct t *t = *state;

	t->script = true;
	t->fail_type = NFT_MSG_DELSETELEM;
	t->fail_err = -ENOENT;
	assert_int_equal(sw_commit(&t->nl, SW_GEN_NONE, NULL, fill_one_elem, NULL), -ENOENT);
	assert_int_equal(t->nl.err_index, 0);
	assert_string_equal(t->nl.errobj, "delete elements of set dns4, element 1 of 1 (key 0a000001)");
}

/* the intent of a message index the batch does not have */
static void test_describe_bounds(void **state)
{
	struct t *t = *state;
	struct sw_batch b;
	char out[160];

	assert_int_equal(sw_batch_init(&b, &t->nl, SW_GEN_NONE, 0), 0);
	assert_int_equal(sw_encode_delete(&b, &t->nl, "sandwall"), 0);
	assert_int_equal(sw_batch_finish(&b, &t->nl), 0);
	assert_int_equal(sw_batch_describe(&b, 0, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "delete table sandwall");
	assert_int_equal(sw_batch_describe(&b, 1, 0, out, sizeof(out)), -ENOENT);
	assert_int_equal(sw_batch_describe(&b, -1, 0, out, sizeof(out)), -EINVAL);
	sw_batch_free(&b);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_gen_after),
		T(test_policy),
		T(test_policy_refused),
		T(test_acks_any_order),
		T(test_ack_missing),
		T(test_first_refusal_named),
		T(test_names_counter),
		T(test_names_rule),
		T(test_names_set_and_table),
		T(test_offset_expression),
		T(test_offset_element),
		T(test_offset_attribute),
		T(test_offset_malformed_ignored),
		T(test_names_one_element),
		T(test_describe_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
