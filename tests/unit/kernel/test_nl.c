/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for nl (dumps, GETGEN) and commit (batch send, ACK wait, errors), and for
 * the ERESTART retry of reconcile's sw_apply, against a scripted fake
 * kernel (fake_kernel.h). No kernel is touched. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>
#include <linux/netfilter.h>

#include "kernel/encode.h"
#include "fake_kernel.h"
#include "sync/reconcile.h"

#define MSG(t) ((NFNL_SUBSYS_NFTABLES << 8) | (t))

struct t {
	struct fk k;
	struct sw_nl nl;
	struct sw_batch b;
	struct sw_model m;
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	fk_init(&t->k);
	assert_int_equal(sw_nl_open_ops(&t->nl, &fk_ops, &t->k), 0);
	assert_int_equal(t->nl.err_index, -1);
	assert_null(t->nl.sock);
	assert_int_equal(sw_nl_fd(&t->nl), -1);
	tk_build("", &t->m);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;

	sw_batch_free(&t->b);
	sw_model_free(&t->m);
	sw_nl_close(&t->nl);
	fk_free(&t->k);
	free(t);
	return 0;
}

/* The full replace batch of the default model. */
static void batch(struct t *t)
{
	assert_int_equal(sw_batch_init(&t->b, &t->nl, SW_GEN_REQUIRE, 1), 0);
	assert_int_equal(sw_encode_replace(&t->b, &t->nl, &t->m), 0);
	assert_int_equal(sw_batch_finish(&t->b, &t->nl), 0);
	assert_true(t->b.n_msgs > 50);
}

/* (a) one ACK per inner message, all in one datagram */
static void test_ack_all(void **state)
{
	struct t *t = *state;

	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
	assert_int_equal(t->k.n_batches, 1);
	assert_int_equal(t->k.last_len, t->b.len);
	assert_memory_equal(t->k.last, t->b.buf, t->b.len);
	assert_int_equal(fk_pending(&t->k), 0);
	assert_int_equal(t->k.n_recvs, 1);
	assert_int_equal(t->nl.err_index, -1);
	assert_string_equal(t->nl.errmsg, "");
}

/* (b) ACKs spread over many datagrams: wait for every one */
static void test_ack_split(void **state)
{
	struct t *t = *state;
	size_t dgrams;

	t->k.acks_per_dgram = 7;
	batch(t);
	dgrams = (t->b.n_msgs + 6) / 7;
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
	assert_int_equal(fk_pending(&t->k), 0);
	assert_int_equal(t->k.n_recvs, dgrams);

	/* one ACK per datagram */
	sw_batch_free(&t->b);
	t->k.acks_per_dgram = 1;
	t->k.n_recvs = 0;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
	assert_int_equal(fk_pending(&t->k), 0);
	assert_int_equal(t->k.n_recvs, t->b.n_msgs);
}

/* (b') the last ACK never comes: not success, a timeout */
static void test_ack_missing(void **state)
{
	struct t *t = *state;

	batch(t);
	t->k.skip_ack = t->b.n_msgs;
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -ETIMEDOUT);
	assert_int_equal(fk_pending(&t->k), 0);
}

/* (c) EPERM on the BEGIN sequence number */
static void test_eperm_begin(void **state)
{
	struct t *t = *state;

	t->k.begin_err = -EPERM;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -EPERM);
	assert_int_equal(t->nl.err_index, -1);
}

/* (d) one inner message fails with extack text */
static void check_inner_error(struct t *t, bool uncapped)
{
	t->k.fail_index[0] = 41;
	t->k.fail_err[0] = -EINVAL;
	t->k.fail_msg[0] = "Rule does not exist";
	t->k.uncapped = uncapped;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -EINVAL);
	assert_string_equal(t->nl.errmsg, "Rule does not exist");
	assert_int_equal(t->nl.err_index, 41);
	/* every answer was read */
	assert_int_equal(fk_pending(&t->k), 0);
}

static void test_inner_error_capped(void **state)
{
	check_inner_error(*state, false);
}

static void test_inner_error_uncapped(void **state)
{
	check_inner_error(*state, true);
}

/* an error without extack text leaves errmsg empty */
static void test_inner_error_no_text(void **state)
{
	struct t *t = *state;

	t->k.fail_index[0] = 0;
	t->k.fail_err[0] = -ENOENT;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -ENOENT);
	assert_string_equal(t->nl.errmsg, "");
	assert_int_equal(t->nl.err_index, 0);
}

/* Several inner messages fail (the kernel reports every error of the
 * batch): the first error wins, and errmsg must be the text of that same
 * message, not of a later one. */
static void test_two_errors_first_wins(void **state)
{
	struct t *t = *state;

	t->k.fail_index[0] = 3;
	t->k.fail_err[0] = -EINVAL;
	t->k.fail_msg[0] = "first";
	t->k.fail_index[1] = 9;
	t->k.fail_err[1] = -ENOENT;
	t->k.fail_msg[1] = "second";
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -EINVAL);
	assert_int_equal(t->nl.err_index, 3);
	assert_string_equal(t->nl.errmsg, "first");
}

/* (e) ERESTART: the generation moved */
static void test_erestart(void **state)
{
	struct t *t = *state;

	t->k.restarts = 1;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -ERESTART);
	assert_int_equal(fk_pending(&t->k), 0);
}

static void test_apply_retries(void **state)
{
	struct t *t = *state;
	char err[512] = "";

	t->k.genid = 77;
	t->k.restarts = 2;
	assert_int_equal(sw_apply(&t->nl, &t->m, err, sizeof(err)), 0);
	assert_int_equal(t->k.n_batches, 3);
	/* each try observes the (absent) table between two GETGENs */
	assert_int_equal(t->k.n_getgens, 6);
	assert_int_equal(fk_pending(&t->k), 0);
	/* the last batch carried the generation id the fake answered */
	{
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)t->k.last;
		const struct nlattr *a;
		uint32_t g = 0;

		mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
			if (mnl_attr_get_type(a) == NFNL_BATCH_GENID)
				g = ntohl(mnl_attr_get_u32(a));
		assert_int_equal(g, 77);
	}
}

static void test_apply_restart_forever(void **state)
{
	struct t *t = *state;
	char err[512] = "";

	t->k.restarts = -1;
	assert_int_equal(sw_apply(&t->nl, &t->m, err, sizeof(err)), -ERESTART);
	assert_int_equal(t->k.n_batches, SW_APPLY_TRIES);
	assert_string_equal(err, "cannot apply the ruleset: Interrupted system call should be restarted");
}

static void test_apply_error_text(void **state)
{
	struct t *t = *state;
	char err[512] = "";

	t->k.fail_index[0] = 2;
	t->k.fail_err[0] = -EOPNOTSUPP;
	t->k.fail_msg[0] = "Table flag not supported";
	assert_int_equal(sw_apply(&t->nl, &t->m, err, sizeof(err)), -EOPNOTSUPP);
	assert_int_equal(t->k.n_batches, 1);
	assert_string_equal(err, "cannot apply the ruleset: Operation not supported "
			    "(kernel: Table flag not supported, message 2 of the batch: add counter metadata)");
}

static void test_remove_absent(void **state)
{
	struct t *t = *state;
	char err[512] = "";
	bool absent = false;

	t->k.fail_index[0] = 0;
	t->k.fail_err[0] = -ENOENT;
	assert_int_equal(sw_remove(&t->nl, "sandwall", &absent, err, sizeof(err)), 0);
	assert_true(absent);
	/* the table is looked at first (GETTABLE: ENOENT): no blind delete */
	assert_int_equal(t->k.n_batches, 0);
}

/* A table that cannot be read (EPERM as non-root; here: no answer) is
 * not "absent": remove fails and says so, whatever *absent held before
 * (the CLI once reported "was not there" and exit 0 as non-root while the
 * table stayed). */
static void test_remove_unreadable(void **state)
{
	struct t *t = *state;
	char err[512] = "";
	bool absent = true;

	t->k.no_answer = true;          /* the ruleset cannot be read */
	assert_int_equal(sw_remove(&t->nl, "sandwall", &absent, err, sizeof(err)), -ETIMEDOUT);
	assert_false(absent);
	assert_int_equal(t->k.n_batches, 0);
	assert_non_null(strstr(err, "cannot read the ruleset"));
}

/* (f) ENOBUFS from recv is returned, not swallowed */
static void test_enobufs(void **state)
{
	struct t *t = *state;

	t->k.no_answer = true;
	t->k.recv_err = -ENOBUFS;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -ENOBUFS);
}

static void test_send_error(void **state)
{
	struct t *t = *state;

	t->k.send_err = -EMSGSIZE;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -EMSGSIZE);
	assert_int_equal(t->k.n_recvs, 0);
}

/* (g) stale answers with foreign sequence numbers are ignored */
static void test_stale_ignored(void **state)
{
	struct t *t = *state;
	size_t d;

	/* an old error from an earlier request, queued before the batch */
	d = fk_dgram(&t->k);
	fk_put_err(&t->k, d, 12345, -EEXIST, NULL, true, NULL);
	t->k.stale_first = true;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
	assert_int_equal(fk_pending(&t->k), 0);
	assert_int_equal(t->nl.err_index, -1);
}

/* An answer with our sequence number from another port is not the kernel's. */
static void test_foreign_pid_ignored(void **state)
{
	struct t *t = *state;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	size_t d;

	batch(t);
	d = fk_dgram(&t->k);
	nlh = fk_put(&t->k, d, NLMSG_ERROR, 0, t->b.first_seq, 777);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -EPERM;
	fk_done(&t->k, d, nlh);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
}

/* A stale error's extack text must not leak into errmsg. */
static void test_stale_errmsg_clean(void **state)
{
	struct t *t = *state;

	t->k.stale_first = true;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
	assert_string_equal(t->nl.errmsg, "");
}

/* (h) no answer at all: timeout */
static void test_timeout(void **state)
{
	struct t *t = *state;

	t->k.no_answer = true;
	batch(t);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), -ETIMEDOUT);
}

/* Sequence numbers wrap around 2^32 inside one batch. */
static void test_seq_wrap(void **state)
{
	struct t *t = *state;

	t->nl.seq = UINT32_MAX - 3;
	batch(t);
	assert_true(t->b.first_seq + t->b.n_msgs < t->b.first_seq);    /* it wraps */
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
}

/* An empty batch (BEGIN + END) needs no answer. */
static void test_empty_batch(void **state)
{
	struct t *t = *state;

	assert_int_equal(sw_batch_init(&t->b, &t->nl, SW_GEN_REQUIRE, 1), 0);
	assert_int_equal(sw_batch_finish(&t->b, &t->nl), 0);
	assert_int_equal(sw_nl_send_batch(&t->nl, &t->b), 0);
	assert_int_equal(t->k.n_recvs, 0);
}

/* ---- GETGEN and dumps ------------------------------------------------------------ */

static void test_getgen(void **state)
{
	struct t *t = *state;
	uint32_t g = 0;
	size_t d;

	t->k.genid = 0xa1b2c3d4;
	/* a stale NEWGEN (old seq) is queued first */
	d = fk_dgram(&t->k);
	fk_put_newgen(&t->k, d, 5, 99);
	assert_int_equal(sw_nl_getgen(&t->nl, &g), 0);
	assert_int_equal(g, 0xa1b2c3d4);
	assert_int_equal(t->k.n_getgens, 1);
	assert_int_equal(fk_pending(&t->k), 0);
}

static void test_getgen_error(void **state)
{
	struct t *t = *state;
	uint32_t g = 1;
	char err[512] = "";

	t->k.no_answer = true;
	assert_int_equal(sw_nl_getgen(&t->nl, &g), -ETIMEDOUT);
	t->k.recv_err = -ENOBUFS;
	assert_int_equal(sw_nl_getgen(&t->nl, &g), -ENOBUFS);
	/* sw_apply gives up when it cannot read the kernel, without sending a batch */
	assert_int_equal(sw_apply(&t->nl, &t->m, err, sizeof(err)), -ENOBUFS);
	assert_int_equal(t->k.n_batches, 0);
	assert_string_equal(err, "cannot read the ruleset: No buffer space available");
}

struct dump_seen {
	size_t n;
	uint16_t types[16];
	int fail_at;            /* cb returns -EIO at this call (1-based, 0: never) */
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_seen *s = data;

	if (s->n < 16)
		s->types[s->n] = nlh->nlmsg_type;
	s->n++;
	return s->fail_at && s->n == (size_t)s->fail_at ? -EIO : 0;
}

static struct nlmsghdr *dump_req(char *buf, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;

	nlh->nlmsg_type = MSG(NFT_MSG_GETRULE);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = NFPROTO_INET;
	return nlh;
}

static void queue_part(struct fk *k, size_t d, uint16_t type, uint32_t seq, uint16_t extra)
{
	struct nlmsghdr *nlh = fk_put(k, d, type, NLM_F_MULTI | extra, seq, 0);

	mnl_nlmsg_put_extra_header(nlh, sizeof(struct nfgenmsg));
	fk_done(k, d, nlh);
}

static void test_dump_multipart(void **state)
{
	struct t *t = *state;
	struct dump_seen s = { 0 };
	char buf[256];
	size_t d;

	d = fk_dgram(&t->k);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 500, 0);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 499, 0);        /* stale: skipped */
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 500, 0);
	d = fk_dgram(&t->k);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWSET), 500, 0);
	queue_part(&t->k, d, NLMSG_DONE, 500, 0);
	d = fk_dgram(&t->k);        /* after DONE: not read */
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 500, 0);
	assert_int_equal(sw_nl_dump(&t->nl, dump_req(buf, 500), dump_cb, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.types[0], MSG(NFT_MSG_NEWRULE));
	assert_int_equal(s.types[2], MSG(NFT_MSG_NEWSET));
	assert_int_equal(fk_pending(&t->k), 1);
	assert_int_equal(t->k.n_sends, 1);
}

static void test_dump_intr(void **state)
{
	struct t *t = *state;
	struct dump_seen s = { 0 };
	char buf[256];
	size_t d;

	d = fk_dgram(&t->k);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 600, 0);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 600, NLM_F_DUMP_INTR);
	d = fk_dgram(&t->k);
	queue_part(&t->k, d, NLMSG_DONE, 600, 0);
	assert_int_equal(sw_nl_dump(&t->nl, dump_req(buf, 600), dump_cb, &s), -EINTR);
	/* the whole dump was read before saying so */
	assert_int_equal(fk_pending(&t->k), 0);
}

static void test_dump_errors(void **state)
{
	struct t *t = *state;
	struct dump_seen s = { 0 };
	char buf[256];
	size_t d;

	d = fk_dgram(&t->k);
	fk_put_err(&t->k, d, 700, -ENOENT, "No such table", true, NULL);
	assert_int_equal(sw_nl_dump(&t->nl, dump_req(buf, 700), dump_cb, &s), -ENOENT);
	assert_string_equal(t->nl.errmsg, "No such table");
	assert_int_equal(s.n, 0);

	/* the callback's error stops the dump */
	d = fk_dgram(&t->k);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 701, 0);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWRULE), 701, 0);
	queue_part(&t->k, d, NLMSG_DONE, 701, 0);
	s.fail_at = 1;
	assert_int_equal(sw_nl_dump(&t->nl, dump_req(buf, 701), dump_cb, &s), -EIO);
	assert_int_equal(s.n, 1);
	fk_free(&t->k);
	fk_init(&t->k);

	/* nothing comes: timeout; ENOBUFS: returned */
	assert_int_equal(sw_nl_dump(&t->nl, dump_req(buf, 702), dump_cb, &s), -ETIMEDOUT);
	t->k.recv_err = -ENOBUFS;
	assert_int_equal(sw_nl_dump(&t->nl, dump_req(buf, 703), dump_cb, &s), -ENOBUFS);
}

/* A non-dump request with NLM_F_ACK: the answer, then the ACK ends it. */
static void test_get_with_ack(void **state)
{
	struct t *t = *state;
	struct dump_seen s = { 0 };
	char buf[256];
	struct nlmsghdr *req = dump_req(buf, 800);
	size_t d;

	req->nlmsg_type = MSG(NFT_MSG_GETCHAIN);
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	d = fk_dgram(&t->k);
	queue_part(&t->k, d, MSG(NFT_MSG_NEWCHAIN), 800, 0);
	d = fk_dgram(&t->k);
	fk_put_err(&t->k, d, 800, 0, NULL, true, NULL);
	assert_int_equal(sw_nl_dump(&t->nl, req, dump_cb, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(fk_pending(&t->k), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_ack_all),
		T(test_ack_split),
		T(test_ack_missing),
		T(test_eperm_begin),
		T(test_inner_error_capped),
		T(test_inner_error_uncapped),
		T(test_inner_error_no_text),
		T(test_two_errors_first_wins),
		T(test_erestart),
		T(test_apply_retries),
		T(test_apply_restart_forever),
		T(test_apply_error_text),
		T(test_remove_absent),
		T(test_remove_unreadable),
		T(test_enobufs),
		T(test_send_error),
		T(test_stale_ignored),
		T(test_foreign_pid_ignored),
		T(test_stale_errmsg_clean),
		T(test_timeout),
		T(test_seq_wrap),
		T(test_empty_batch),
		T(test_getgen),
		T(test_getgen_error),
		T(test_dump_multipart),
		T(test_dump_intr),
		T(test_dump_errors),
		T(test_get_with_ack),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
