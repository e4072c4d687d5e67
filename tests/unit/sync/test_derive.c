/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the repair derived from a transaction's events
 * (sw_model_from_events, sw_hint.txn): the daemon's repair without a dump
 * before it. Against the stateful fake kernel (fake_nft.h): another
 * process changes the table, the test builds the events the kernel would
 * send for that transaction, and the repair must make the kernel hold
 * want with one dump only (the read-back); when the events do not say
 * what happened, the read-back must still find it, and the repair that
 * follows observes. No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_kernel.h"
#include "fake_nft.h"
#include "core/diff.h"
#include "sync/reconcile.h"

#define T "sandwall"

struct ev {
	uint8_t data[32 * 1024];
	size_t len;
};

struct st {
	struct fn k;
	struct sw_nl nl;
	struct sw_model want;
	struct sw_diff d;
	char err[SW_ERRLEN];
	const char *victim;     /* a set with a few elements */
	const char *chain;      /* a chain with rules */
	uint32_t synced;        /* the generation at which the kernel holds want */
	struct ev ev;
};

static int setup(void **state)
{
	struct st *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	fn_init(&t->k);
	assert_int_equal(sw_nl_open_ops(&t->nl, &fn_ops, &t->k), 0);
	tk_build("", &t->want);
	for (size_t i = 0; i < t->want.n_sets && !t->victim; i++)
		if (t->want.sets[i].n_elems >= 4 && !sw_set_dynamic(&t->want.sets[i]))
			t->victim = t->want.sets[i].name;
	for (size_t i = 0; i < t->want.n_rules && !t->chain; i++)
		t->chain = t->want.rules[i].chain;
	assert_non_null(t->victim);
	assert_non_null(t->chain);
	assert_int_equal(sw_apply(&t->nl, &t->want, t->err, sizeof(t->err)), 0);
	t->synced = t->k.genid;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct st *t = *state;

	sw_diff_free(&t->d);
	sw_model_free(&t->want);
	sw_nl_close(&t->nl);
	fn_free(&t->k);
	free(t);
	return 0;
}

/* ---- the events of a transaction, as the kernel sends them ---------------- */

static struct nlmsghdr *ev_hdr(struct ev *e, uint16_t type, uint8_t family)
{
	assert_true(e->len + 4096 <= sizeof(e->data));
	return nftnl_nlmsg_build_hdr((char *)e->data + e->len, type, family, 0, 0);
}

static void ev_done(struct ev *e, struct nlmsghdr *nlh)
{
	e->len += NLMSG_ALIGN(nlh->nlmsg_len);
}

/* the idx-th element of set in the fake kernel */
static struct fn_elem elem_of(struct st *t, const char *set, size_t idx)
{
	struct fn_set *s = fn_st(t->k.s, T, set);

	for (size_t i = 0; i < t->k.s->n_elems; i++)
		if (t->k.s->elems[i].sid == s->sid && !idx--)
			return t->k.s->elems[i];
	fail_msg("no element %zu in set %s", idx, set);
	return (struct fn_elem){ 0 };
}

/* DELSETELEM/NEWSETELEM of one element */
static void ev_elem(struct ev *e, uint16_t type, uint8_t family, const char *set,
		    const struct fn_elem *x)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct nftnl_set_elem *se = nftnl_set_elem_alloc();
	struct nlmsghdr *nlh;

	assert_non_null(s);
	assert_non_null(se);
	nftnl_set_set_str(s, NFTNL_SET_TABLE, T);
	nftnl_set_set_str(s, NFTNL_SET_NAME, set);
	nftnl_set_elem_set(se, NFTNL_SET_ELEM_KEY, x->key, x->klen);
	if (x->has_end)
		nftnl_set_elem_set(se, NFTNL_SET_ELEM_KEY_END, x->key_end, x->klen);
	if (x->flags)
		nftnl_set_elem_set_u32(se, NFTNL_SET_ELEM_FLAGS, x->flags);
	nftnl_set_elem_add(s, se);
	nlh = ev_hdr(e, type, family);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);
	ev_done(e, nlh);
}

/* DELRULE of a rule of chain */
static void ev_delrule(struct ev *e, const char *chain, uint64_t handle)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *nlh;

	assert_non_null(r);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, T);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, handle);
	nlh = ev_hdr(e, NFT_MSG_DELRULE, NFPROTO_INET);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	ev_done(e, nlh);
}

/* a message that names only the object (delete chain, set, table) */
static void ev_named(struct ev *e, uint16_t type, uint8_t family, const char *name)
{
	struct nlmsghdr *nlh = ev_hdr(e, type, family);

	mnl_attr_put_strz(nlh, 1, T);   /* every object message: the table in attribute 1 */
	if (type != NFT_MSG_DELTABLE && type != NFT_MSG_NEWTABLE)
		mnl_attr_put_strz(nlh, type == NFT_MSG_DELCHAIN ? NFTA_CHAIN_NAME : NFTA_SET_NAME, name);
	ev_done(e, nlh);
}

/* The repair, as the daemon makes it after that transaction. */
static int repair(struct st *t, bool settle, bool *repaired, struct sw_hint *hint)
{
	*hint = (struct sw_hint){ .txn = t->ev.data, .txn_len = t->ev.len, .genid = t->k.genid,
				  .base_genid = t->synced };
	sw_diff_free(&t->d);
	if (settle)
		return sw_reconcile_settle(&t->nl, &t->want, hint, 3, &t->d, repaired, NULL, 0,
					   t->err, sizeof(t->err));
	return sw_reconcile_hint(&t->nl, &t->want, hint, &t->d, repaired, t->err, sizeof(t->err));
}

static void assert_in_sync(struct st *t)
{
	struct sw_diff d;

	assert_int_equal(sw_check(&t->nl, &t->want, &d, t->err, sizeof(t->err)), 0);
	assert_int_equal(d.n, 0);
	sw_diff_free(&d);
}

/* ---- derived repairs --------------------------------------------------------- */

/* an element deleted: put back from the event, no dump before the batch
 * (one GETRULE in all: the read-back's) */
static void test_elem_deleted(void **state)
{
	struct st *t = *state;
	struct fn_elem x = elem_of(t, t->victim, 1);
	size_t gets = t->k.n_gets[NFT_MSG_GETRULE], batches = t->k.n_batches;
	struct sw_hint h;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 1);
	ev_elem(&t->ev, NFT_MSG_DELSETELEM, NFPROTO_INET, t->victim, &x);
	assert_int_equal(repair(t, false, &repaired, &h), 0);
	assert_true(repaired);
	assert_true(h.derived);
	assert_int_equal(t->k.n_batches - batches, 1);
	assert_int_equal(t->k.n_gets[NFT_MSG_GETRULE] - gets, 1);
	assert_int_equal(h.synced_genid, t->k.genid);
	assert_in_sync(t);
}

/* events that cannot be (an element added that the kernel already held,
 * since it held want): not followed; the repair observes, finds the
 * table in sync and sends nothing */
static void test_impossible_events(void **state)
{
	struct st *t = *state;
	struct fn_elem x = elem_of(t, t->victim, 1);
	size_t gets = t->k.n_gets[NFT_MSG_GETRULE], batches = t->k.n_batches;
	struct sw_hint h;
	bool repaired;

	ev_elem(&t->ev, NFT_MSG_NEWSETELEM, NFPROTO_INET, t->victim, &x);
	t->k.genid++;
	assert_int_equal(repair(t, false, &repaired, &h), 0);
	assert_false(h.derived);
	assert_false(repaired);
	assert_int_equal(t->k.n_batches - batches, 0);
	assert_int_equal(t->k.n_gets[NFT_MSG_GETRULE] - gets, 1);      /* the observe */
	assert_in_sync(t);
}

/* a chain flushed (a DELRULE per rule): the chain refilled, no dump first */
static void test_chain_flushed(void **state)
{
	struct st *t = *state;
	size_t gets = t->k.n_gets[NFT_MSG_GETRULE], n = fn_n_rules(t->k.s, T, t->chain);
	struct sw_hint h;
	bool repaired;

	assert_true(n > 0);
	for (size_t i = 0; i < n; i++)
		ev_delrule(&t->ev, t->chain, 100 + i);
	fn_t_flush_chain(&t->k, T, t->chain);
	assert_int_equal(repair(t, false, &repaired, &h), 0);
	assert_true(repaired);
	assert_true(h.derived);
	assert_int_equal(t->k.n_gets[NFT_MSG_GETRULE] - gets, 1);
	assert_int_equal(fn_n_rules(t->k.s, T, t->chain), n);
	assert_in_sync(t);
}

/* the events do not say what happened (they name a rule, an element went):
 * the derived batch is accepted at that generation, and the read-back
 * finds the table still wrong at the repair's own generation: -EIO. The
 * settle loop then observes and repairs. If the read-back were gone, or
 * trusted the events, the element would stay missing. */
static void test_readback_catches_wrong_events(void **state)
{
	struct st *t = *state;
	struct sw_hint h;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 0);
	ev_delrule(&t->ev, t->chain, 1);
	assert_int_equal(repair(t, false, &repaired, &h), -EIO);
	assert_true(repaired);
	assert_true(h.derived);
	assert_non_null(strstr(t->err, "does not hold"));
	assert_int_equal(h.synced_genid, 0);

	/* the daemon's way: compare and repair again, observing first */
	t->synced = 0;
	assert_int_equal(repair(t, true, &repaired, &h), 0);
	assert_true(repaired);
	assert_in_sync(t);
}

/* the same through sw_reconcile_settle at once: settled in its second
 * round, by the observed path */
static void test_settle_after_wrong_events(void **state)
{
	struct st *t = *state;
	size_t batches = t->k.n_batches;
	struct sw_hint h;
	bool repaired;

	fn_t_del_elem(&t->k, T, t->victim, 0);
	ev_delrule(&t->ev, t->chain, 1);
	assert_int_equal(repair(t, true, &repaired, &h), 0);
	assert_true(repaired);
	assert_int_equal(t->k.n_batches - batches, 2);
	assert_in_sync(t);
}

/* another commit came after the transaction the events describe: the
 * batch stamped with its generation is refused (ERESTART) and the repair
 * observes; both changes are repaired */
static void test_generation_moved(void **state)
{
	struct st *t = *state;
	struct fn_elem x = elem_of(t, t->victim, 1);
	size_t gets = t->k.n_gets[NFT_MSG_GETRULE];
	struct sw_hint h;
	bool repaired;
	uint32_t g;

	fn_t_del_elem(&t->k, T, t->victim, 1);
	ev_elem(&t->ev, NFT_MSG_DELSETELEM, NFPROTO_INET, t->victim, &x);
	g = t->k.genid;
	fn_t_flush_chain(&t->k, T, t->chain);   /* a second commit, no events given */
	sw_diff_free(&t->d);
	h = (struct sw_hint){ .txn = t->ev.data, .txn_len = t->ev.len, .genid = g,
			      .base_genid = t->synced };
	assert_int_equal(sw_reconcile_hint(&t->nl, &t->want, &h, &t->d, &repaired, t->err,
					   sizeof(t->err)), 0);
	assert_true(repaired);
	assert_false(h.derived);
	assert_int_equal(t->k.n_gets[NFT_MSG_GETRULE] - gets, 2);      /* observe + read-back */
	assert_in_sync(t);
}

/* the events follow a generation that is not the one the kernel was seen
 * in sync at (a commit in between we have no events of): observed */
static void test_not_after_synced(void **state)
{
	struct st *t = *state;
	struct fn_elem x = elem_of(t, t->victim, 1);
	size_t gets = t->k.n_gets[NFT_MSG_GETRULE];
	struct sw_hint h;
	bool repaired;

	fn_t_flush_chain(&t->k, T, t->chain);
	fn_t_del_elem(&t->k, T, t->victim, 1);
	ev_elem(&t->ev, NFT_MSG_DELSETELEM, NFPROTO_INET, t->victim, &x);
	assert_int_equal(repair(t, false, &repaired, &h), 0);
	assert_true(repaired);
	assert_false(h.derived);
	assert_int_equal(t->k.n_gets[NFT_MSG_GETRULE] - gets, 2);
	assert_in_sync(t);
}

/* ---- what sw_model_from_events follows, and what it leaves to a dump ------- */

static void test_model_from_events(void **state)
{
	struct st *t = *state;
	struct fn_elem x = elem_of(t, t->victim, 1);
	struct sw_model have;
	struct sw_diff d;
	const struct sw_set *w = sw_model_find_set(&t->want, t->victim), *h;

	/* an element deleted: want less that element, genid set */
	ev_elem(&t->ev, NFT_MSG_DELSETELEM, NFPROTO_INET, t->victim, &x);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len, 77, &have), 0);
	assert_int_equal(have.genid, 77);
	assert_true(have.has_table);
	assert_non_null(h = sw_model_find_set(&have, t->victim));
	assert_int_equal(h->n_elems + 1, w->n_elems);
	assert_int_equal(sw_diff(&t->want, &have, &d), 0);
	assert_int_equal(d.n, 1);
	sw_diff_free(&d);
	sw_model_free(&have);

	/* the same element deleted twice: the kernel could not have */
	ev_elem(&t->ev, NFT_MSG_DELSETELEM, NFPROTO_INET, t->victim, &x);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len, 77, &have),
			 -EOPNOTSUPP);
	sw_model_free(&have);

	/* the table deleted, its objects first: absent */
	t->ev.len = 0;
	ev_delrule(&t->ev, t->chain, 5);
	ev_named(&t->ev, NFT_MSG_DELSET, NFPROTO_INET, t->victim);
	ev_named(&t->ev, NFT_MSG_DELCHAIN, NFPROTO_INET, t->chain);
	ev_named(&t->ev, NFT_MSG_DELTABLE, NFPROTO_INET, NULL);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len, 9, &have), 0);
	assert_false(have.has_table);
	assert_int_equal(have.genid, 9);
	sw_model_free(&have);

	/* ... and made again in the same transaction: not followed */
	ev_named(&t->ev, NFT_MSG_NEWTABLE, NFPROTO_INET, NULL);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len, 9, &have),
			 -EOPNOTSUPP);
	sw_model_free(&have);

	/* a chain or a set deleted, the netdev table's change, nothing: observe */
	t->ev.len = 0;
	ev_named(&t->ev, NFT_MSG_DELCHAIN, NFPROTO_INET, t->chain);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len, 9, &have),
			 -EOPNOTSUPP);
	sw_model_free(&have);
	t->ev.len = 0;
	ev_named(&t->ev, NFT_MSG_DELSET, NFPROTO_INET, t->victim);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len, 9, &have),
			 -EOPNOTSUPP);
	sw_model_free(&have);
	t->ev.len = 0;
	ev_elem(&t->ev, NFT_MSG_DELSETELEM, NFPROTO_NETDEV, t->victim, &x);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len, 9, &have),
			 -EOPNOTSUPP);
	sw_model_free(&have);
	assert_int_equal(sw_model_from_events(&t->want, NULL, 0, 9, &have), -EOPNOTSUPP);
	sw_model_free(&have);

	/* a truncated message: not whole, not followed */
	t->ev.len = 0;
	ev_elem(&t->ev, NFT_MSG_DELSETELEM, NFPROTO_INET, t->victim, &x);
	assert_int_equal(sw_model_from_events(&t->want, t->ev.data, t->ev.len - 4, 9, &have),
			 -EOPNOTSUPP);
	sw_model_free(&have);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_elem_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_impossible_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_flushed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readback_catches_wrong_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settle_after_wrong_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_generation_moved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_after_synced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_from_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
