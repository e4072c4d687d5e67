/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for encode: the desired model as one nf_tables batch. The
 * batch is walked message by message, parsed back with libnftnl and run
 * through the observe decoders; the decoded model must equal the desired
 * one (the diff must be empty). No kernel: a fake transport. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>
#include <linux/netfilter.h>
#include <libnftnl/common.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#include "core/diff.h"
#include "kernel/encode.h"
#include "fake_kernel.h"
#include "nft_canon.h"
#include "kernel/observe.h"

#define MSG(t) ((NFNL_SUBSYS_NFTABLES << 8) | (t))

struct enc {
	struct fk k;
	struct sw_nl nl;
	struct sw_batch b;
	struct sw_model m;
};

static int setup(void **state)
{
	struct enc *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	fk_init(&e->k);
	assert_int_equal(sw_nl_open_ops(&e->nl, &fk_ops, &e->k), 0);
	tk_build("", &e->m);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct enc *e = *state;

	sw_batch_free(&e->b);
	sw_model_free(&e->m);
	sw_nl_close(&e->nl);
	fk_free(&e->k);
	free(e);
	return 0;
}

/* Messages of a finished batch, in order. */
static size_t walk(const struct sw_batch *b, const struct nlmsghdr **out, size_t max)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)b->buf;
	int len = (int)b->len;
	size_t n = 0;

	for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		assert_true(n < max);
		out[n++] = nlh;
	}
	assert_int_equal(len, 0);       /* nothing left over, no truncated message */
	return n;
}


/* The message as the kernel would dump it back (nft_canon.h): a malloc'd copy. */
static struct nlmsghdr *kernel_echo(const struct nlmsghdr *in)
{
	struct nlmsghdr *out = calloc(1, MNL_ALIGN(in->nlmsg_len) * 2 + 256);

	assert_non_null(out);
	fn_canon(in, out);
	return out;
}

static void build_replace(struct enc *e, uint32_t genid)
{
	assert_int_equal(sw_batch_init(&e->b, &e->nl, SW_GEN_REQUIRE, genid), 0);
	assert_int_equal(sw_encode_replace(&e->b, &e->nl, &e->m), 0);
	assert_int_equal(sw_batch_finish(&e->b, &e->nl), 0);
}

static void test_batch_frame(void **state)
{
	struct enc *e = *state;
	const struct nlmsghdr *msgs[1024];
	const struct nfgenmsg *g;
	const struct nlattr *a;
	size_t n;
	bool genid_seen = false;

	build_replace(e, 0xdeadbeef);
	n = walk(&e->b, msgs, 1024);
	assert_true(n > 4);
	/* BEGIN with the generation id, for the nf_tables subsystem */
	assert_int_equal(msgs[0]->nlmsg_type, NFNL_MSG_BATCH_BEGIN);
	assert_int_equal(msgs[0]->nlmsg_seq, e->b.begin_seq);
	assert_int_equal(msgs[0]->nlmsg_flags & NLM_F_ACK, 0);
	g = mnl_nlmsg_get_payload(msgs[0]);
	assert_int_equal(ntohs(g->res_id), NFNL_SUBSYS_NFTABLES);
	mnl_attr_for_each(a, msgs[0], sizeof(*g)) {
		if (mnl_attr_get_type(a) == NFNL_BATCH_GENID) {
			assert_int_equal(mnl_attr_get_payload_len(a), 4);
			assert_int_equal(ntohl(mnl_attr_get_u32(a)), 0xdeadbeef);
			genid_seen = true;
		}
	}
	assert_true(genid_seen);
	/* END last, right after the last inner message */
	assert_int_equal(msgs[n - 1]->nlmsg_type, NFNL_MSG_BATCH_END);
	assert_int_equal(ntohs(((const struct nfgenmsg *)mnl_nlmsg_get_payload(msgs[n - 1]))->res_id),
			 NFNL_SUBSYS_NFTABLES);
	assert_int_equal(msgs[n - 1]->nlmsg_seq, e->b.first_seq + e->b.n_msgs);
	/* inner: ACK wanted, consecutive sequence numbers, nf_tables inet */
	assert_int_equal(e->b.n_msgs, n - 2);
	assert_int_equal(e->b.first_seq, e->b.begin_seq + 1);
	for (size_t i = 1; i + 1 < n; i++) {
		const struct nfgenmsg *ng = mnl_nlmsg_get_payload(msgs[i]);

		assert_true(msgs[i]->nlmsg_flags & NLM_F_ACK);
		assert_true(msgs[i]->nlmsg_flags & NLM_F_REQUEST);
		assert_int_equal(msgs[i]->nlmsg_seq, e->b.first_seq + i - 1);
		assert_int_equal(msgs[i]->nlmsg_type >> 8, NFNL_SUBSYS_NFTABLES);
		assert_int_equal(ng->nfgen_family, NFPROTO_INET);
	}
	/* add table; delete table; add table */
	assert_int_equal(msgs[1]->nlmsg_type, MSG(NFT_MSG_NEWTABLE));
	assert_int_equal(msgs[2]->nlmsg_type, MSG(NFT_MSG_DELTABLE));
	assert_int_equal(msgs[3]->nlmsg_type, MSG(NFT_MSG_NEWTABLE));
	/* no EXCL: "add table" must not fail when the table is there */
	assert_int_equal(msgs[1]->nlmsg_flags & NLM_F_EXCL, 0);
	assert_true(msgs[1]->nlmsg_flags & NLM_F_CREATE);

	/* without a generation id the BEGIN has no attribute */
	sw_batch_free(&e->b);
	assert_int_equal(sw_batch_init(&e->b, &e->nl, SW_GEN_NONE, 7), 0);
	assert_int_equal(sw_batch_finish(&e->b, &e->nl), 0);
	n = walk(&e->b, msgs, 1024);
	assert_int_equal(n, 2);
	assert_int_equal(e->b.n_msgs, 0);
	assert_int_equal(msgs[0]->nlmsg_len, NLMSG_HDRLEN + sizeof(struct nfgenmsg));
}

/* Message type order of the whole batch: counters, then each set followed
 * by its elements, then chains, then rules. */
static void test_message_order(void **state)
{
	struct enc *e = *state;
	const struct nlmsghdr *msgs[1024];
	size_t n, i = 4, counters = 0, sets = 0, chains = 0, rules = 0;

	build_replace(e, 1);
	n = walk(&e->b, msgs, 1024);
	for (; i < n - 1 && msgs[i]->nlmsg_type == MSG(NFT_MSG_NEWOBJ); i++)
		counters++;
	while (i < n - 1 && msgs[i]->nlmsg_type == MSG(NFT_MSG_NEWSET)) {
		sets++;
		i++;
		while (i < n - 1 && msgs[i]->nlmsg_type == MSG(NFT_MSG_NEWSETELEM))
			i++;
	}
	for (; i < n - 1 && msgs[i]->nlmsg_type == MSG(NFT_MSG_NEWCHAIN); i++)
		chains++;
	for (; i < n - 1 && msgs[i]->nlmsg_type == MSG(NFT_MSG_NEWRULE); i++)
		rules++;
	assert_int_equal(i, n - 1);
	assert_int_equal(counters, e->m.n_counters);
	assert_int_equal(sets, e->m.n_sets);
	assert_int_equal(chains, e->m.n_chains);
	assert_int_equal(rules, e->m.n_rules);
	assert_int_equal(counters, 9);
	assert_int_equal(sets, 33);
	assert_int_equal(chains, 17);
	assert_int_equal(rules, 114);
}

/* Every NEWRULE parses back to the model's canonical string and tag. */
static void test_rules_parse_back(void **state)
{
	struct enc *e = *state;
	const struct nlmsghdr *msgs[1024];
	size_t n, r = 0;

	build_replace(e, 1);
	n = walk(&e->b, msgs, 1024);
	for (size_t i = 0; i < n; i++) {
		struct nftnl_rule *nr;
		struct nlmsghdr *echo;
		char tag[SW_NAME_MAX], *canon;

		if (msgs[i]->nlmsg_type != MSG(NFT_MSG_NEWRULE))
			continue;
		assert_true(msgs[i]->nlmsg_flags & NLM_F_APPEND);
		nr = nftnl_rule_alloc();
		assert_non_null(nr);
		echo = kernel_echo(msgs[i]);
		assert_true(nftnl_rule_nlmsg_parse(echo, nr) >= 0);
		free(echo);
		assert_true(r < e->m.n_rules);
		canon = sw_rule_canon(nr);
		assert_non_null(canon);
		assert_string_equal(canon, e->m.rules[r].canon);
		sw_rule_tag(nr, tag, sizeof(tag));
		assert_string_equal(tag, e->m.rules[r].tag);
		assert_string_equal(nftnl_rule_get_str(nr, NFTNL_RULE_TABLE), "sandwall");
		assert_string_equal(nftnl_rule_get_str(nr, NFTNL_RULE_CHAIN), e->m.rules[r].chain);
		assert_int_equal(nftnl_rule_get_u32(nr, NFTNL_RULE_FAMILY), NFPROTO_INET);
		free(canon);
		nftnl_rule_free(nr);
		r++;
	}
	assert_int_equal(r, e->m.n_rules);
	/* the first rule, exactly */
	assert_string_equal(e->m.rules[0].canon,
			    "[ meta load iifname => reg 1 ] [ lookup reg 1 set guard_links 0x0 ] "
			    "[ immediate reg 0 goto -> guard ]");
}

static size_t count_elems(struct nftnl_set *s)
{
	struct nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	size_t n = 0;

	assert_non_null(it);
	while (nftnl_set_elems_iter_next(it))
		n++;
	nftnl_set_elems_iter_destroy(it);
	return n;
}

/* The index of set NAME in the model (it must be there). */
static size_t at(const struct enc *e, const char *name)
{
	const struct sw_set *st = sw_model_find_set(&e->m, name);

	assert_non_null(st);
	return (size_t)(st - e->m.sets);
}

/* NEWSET / NEWSETELEM parse back to the model's names, lengths, flags and counts. */
static void test_sets_parse_back(void **state)
{
	struct enc *e = *state;
	const struct nlmsghdr *msgs[1024];
	size_t n, si = 0;
	size_t elems[SW_MAX_SETS] = { 0 };
	const struct sw_set *cur = NULL;

	build_replace(e, 1);
	n = walk(&e->b, msgs, 1024);
	for (size_t i = 0; i < n; i++) {
		struct nftnl_set *s;
		struct nlmsghdr *echo;

		if (msgs[i]->nlmsg_type == MSG(NFT_MSG_NEWSET)) {
			s = nftnl_set_alloc();
			assert_non_null(s);
			assert_true(nftnl_set_nlmsg_parse(msgs[i], s) >= 0);
			assert_true(si < e->m.n_sets);
			cur = &e->m.sets[si++];
			assert_string_equal(nftnl_set_get_str(s, NFTNL_SET_NAME), cur->name);
			assert_string_equal(nftnl_set_get_str(s, NFTNL_SET_TABLE), "sandwall");
			assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN), cur->key_len);
			assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE), cur->key_type);
			assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_FLAGS), cur->flags);
			assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_ID), si);
			nftnl_set_free(s);
		} else if (msgs[i]->nlmsg_type == MSG(NFT_MSG_NEWSETELEM)) {
			assert_non_null(cur);
			s = nftnl_set_alloc();
			assert_non_null(s);
			echo = kernel_echo(msgs[i]);
			assert_true(nftnl_set_elems_nlmsg_parse(echo, s) >= 0);
			free(echo);
			assert_string_equal(nftnl_set_get_str(s, NFTNL_SET_NAME), cur->name);
			elems[si - 1] += count_elems(s);
			nftnl_set_free(s);
		}
	}
	assert_int_equal(si, e->m.n_sets);
	for (size_t i = 0; i < e->m.n_sets; i++)
		assert_int_equal(elems[i], e->m.sets[i].n_elems);
	/* golden counts for a few, by name (a set added elsewhere moves the rest) */
	/* guard_ifaces (auto): a leading end and 15 ranges (cni-podman* is in
	 * cni*, lxcbr* in lxc*; docker0 and br-0a1b2c3d4e5f in the runtime names) */
	assert_int_equal(elems[at(e, "guard_ifaces")], 31);
	assert_int_equal(elems[at(e, "guard_links")], 2);	/* docker0, br-0a1b2c3d4e5f */
	assert_int_equal(elems[at(e, "guard_except")], 2);	/* lo, eth0 (the uplink) */
	assert_int_equal(elems[at(e, "guard_kinds")], 6);	/* bridge, veth, macvlan, ... */
	assert_int_equal(elems[at(e, "link_local4")], 3);
	assert_int_equal(elems[at(e, "sandboxes4")], 3);	/* 0-end, 172.17.0.0-172.18.255.255 */
	assert_int_equal(elems[at(e, "nd6")], 5);	/* 0-end, fe80::/10, ff02::/16 */
	assert_int_equal(elems[at(e, "between")], 0);
	assert_int_equal(elems[at(e, "allow4")], 0);
	assert_int_equal(elems[at(e, "allow4_exact")], 2);	/* the resolver's udp and tcp 53 */
	assert_int_equal(elems[at(e, "gate_a")], 2);	/* ipv4, ipv6 */
	assert_int_equal(elems[at(e, "gate_b")], 0);
}

/* Big sets are split into several NEWSETELEM messages. */
static void test_elems_chunked(void **state)
{
	struct enc *e = *state;
	const struct nlmsghdr *msgs[1024];
	struct sw_set *s = sw_model_find_set(&e->m, "destinations4");
	size_t n, msgs_for = 0, total = 0;

	assert_non_null(s);
	for (uint32_t i = 0; i < 600; i++) {
		struct sw_elem el;

		memset(&el, 0, sizeof(el));
		el.key[0] = 11;
		el.key[1] = (uint8_t)(i >> 8);
		el.key[2] = (uint8_t)i;
		assert_int_equal(sw_set_add_elem(s, &el), 0);
	}
	build_replace(e, 1);
	n = walk(&e->b, msgs, 1024);
	for (size_t i = 0; i < n; i++) {
		struct nftnl_set *ns;
		struct nlmsghdr *echo;

		if (msgs[i]->nlmsg_type != MSG(NFT_MSG_NEWSETELEM))
			continue;
		ns = nftnl_set_alloc();
		assert_non_null(ns);
		echo = kernel_echo(msgs[i]);
		assert_true(nftnl_set_elems_nlmsg_parse(echo, ns) >= 0);
		free(echo);
		if (!strcmp(nftnl_set_get_str(ns, NFTNL_SET_NAME), "destinations4")) {
			msgs_for++;
			total += count_elems(ns);
		}
		nftnl_set_free(ns);
	}
	assert_int_equal(msgs_for, 3);          /* 256 + 256 + 88 */
	assert_int_equal(total, 600);
}

/* Our own messages through the observe decoders: the decoded model must
 * equal the desired model. */
static void decode_all(const struct sw_batch *b, struct sw_model *d)
{
	const struct nlmsghdr *msgs[1024];
	size_t n;

	n = walk(b, msgs, 1024);
	for (size_t i = 1; i + 1 < n; i++) {
		struct nlmsghdr *m = kernel_echo(msgs[i]);
		int rc = 0;

		switch (NFNL_MSG_TYPE(m->nlmsg_type)) {
		case NFT_MSG_NEWTABLE:
			rc = sw_decode_table(m, d);
			break;
		case NFT_MSG_DELTABLE:
			break;
		case NFT_MSG_NEWOBJ:
			rc = sw_decode_obj(m, d);
			break;
		case NFT_MSG_NEWSET:
			rc = sw_decode_set(m, d);
			break;
		case NFT_MSG_NEWSETELEM:
			rc = sw_decode_elems(m, d);
			break;
		case NFT_MSG_NEWCHAIN:
			rc = sw_decode_chain(m, d);
			break;
		case NFT_MSG_NEWRULE:
			rc = sw_decode_rule(m, d);
			break;
		default:
			fail_msg("unexpected message type %u", m->nlmsg_type);
		}
		free(m);
		assert_int_equal(rc, 0);
	}
	for (size_t i = 0; i < d->n_sets; i++)
		sw_set_sort(&d->sets[i]);
}

static void test_decode_roundtrip(void **state)
{
	struct enc *e = *state;
	struct sw_model d;
	struct sw_diff diff;

	build_replace(e, 1);
	sw_model_init(&d, "sandwall");
	decode_all(&e->b, &d);
	assert_true(d.has_table);
	d.has_table = true;
	assert_int_equal(d.n_chains, e->m.n_chains);
	assert_int_equal(d.n_sets, e->m.n_sets);
	assert_int_equal(d.n_counters, e->m.n_counters);
	assert_int_equal(d.n_rules, e->m.n_rules);
	/* the field lengths travel only for concatenated interval sets
	 * (NFT_SET_CONCAT, as nft does): host_ports comes back without them */
	assert_int_equal(sw_model_find_set(&d, "host_ports")->n_concat, 0);
	assert_int_equal(sw_model_find_set(&d, "allow4")->n_concat, 3);
	for (size_t i = 0; i < d.n_sets; i++) {
		if (!(e->m.sets[i].flags & NFT_SET_CONCAT))
			continue;
		assert_int_equal(d.sets[i].n_concat, e->m.sets[i].n_concat);
		assert_memory_equal(d.sets[i].concat, e->m.sets[i].concat, e->m.sets[i].n_concat);
	}
	assert_int_equal(sw_diff(&e->m, &d, &diff), 0);
	if (diff.n)
		sw_diff_print(&diff, stderr);
	assert_int_equal(diff.n, 0);
	sw_diff_free(&diff);

	/* a table of another name in the same batch is not ours */
	sw_model_free(&d);
	sw_model_init(&d, "other");
	decode_all(&e->b, &d);
	assert_false(d.has_table);
	assert_int_equal(d.n_rules + d.n_sets + d.n_chains + d.n_counters, 0);
	sw_model_free(&d);
}

static void test_decode_roundtrip_variants(void **state)
{
	static const char *const confs[] = {
		"[block]\nprivate = yes\ndestinations = 10.9.0.0/16 2001:db8::/32\n"
		"[allow]\nhost_ports = udp/53 tcp/53\n"
		"destinations = 10.0.0.5 tcp/3128 reopen, fd00::/8 udp/53 reopen\n",
		"[log]\nblocked = no\n[block]\nhost = no\nlan = no\n[nft]\ntable = t2\n",
		"[guard]\ninterfaces = docker0 br-* cni* podman* tap*\nall_bridges = yes\n",
	};
	struct enc *e = *state;

	for (size_t c = 0; c < sizeof(confs) / sizeof(confs[0]); c++) {
		struct sw_model d;
		struct sw_diff diff;

		sw_model_free(&e->m);
		sw_batch_free(&e->b);
		tk_build(confs[c], &e->m);
		build_replace(e, 1);
		sw_model_init(&d, e->m.table);
		decode_all(&e->b, &d);
		assert_true(d.has_table);
		assert_int_equal(sw_diff(&e->m, &d, &diff), 0);
		if (diff.n)
			sw_diff_print(&diff, stderr);
		assert_int_equal(diff.n, 0);
		sw_diff_free(&diff);
		sw_model_free(&d);
	}
}

static void test_encode_delete(void **state)
{
	struct enc *e = *state;
	const struct nlmsghdr *msgs[8];
	struct nftnl_table *t;
	size_t n;

	assert_int_equal(sw_batch_init(&e->b, &e->nl, SW_GEN_REQUIRE, 5), 0);
	assert_int_equal(sw_encode_delete(&e->b, &e->nl, "sandwall"), 0);
	assert_int_equal(sw_batch_finish(&e->b, &e->nl), 0);
	n = walk(&e->b, msgs, 8);
	assert_int_equal(n, 3);
	assert_int_equal(e->b.n_msgs, 1);
	assert_int_equal(msgs[1]->nlmsg_type, MSG(NFT_MSG_DELTABLE));
	assert_true(msgs[1]->nlmsg_flags & NLM_F_ACK);
	t = nftnl_table_alloc();
	assert_non_null(t);
	assert_true(nftnl_table_nlmsg_parse(msgs[1], t) >= 0);
	assert_string_equal(nftnl_table_get_str(t, NFTNL_TABLE_NAME), "sandwall");
	assert_int_equal(nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY), NFPROTO_INET);
	nftnl_table_free(t);
}

static void test_encode_set_refill(void **state)
{
	struct enc *e = *state;
	const struct nlmsghdr *msgs[8];
	const struct sw_set *s = sw_model_find_set(&e->m, "metadata4");
	struct nftnl_set *ns;
	struct nlmsghdr *echo;
	size_t n;

	assert_non_null(s);
	assert_int_equal(sw_batch_init(&e->b, &e->nl, SW_GEN_REQUIRE, 5), 0);
	assert_int_equal(sw_encode_set_refill(&e->b, &e->nl, &e->m, s), 0);
	assert_int_equal(sw_batch_finish(&e->b, &e->nl), 0);
	n = walk(&e->b, msgs, 8);
	assert_int_equal(n, 4);
	assert_int_equal(e->b.n_msgs, 2);
	assert_int_equal(msgs[1]->nlmsg_type, MSG(NFT_MSG_DELSETELEM));
	assert_int_equal(msgs[2]->nlmsg_type, MSG(NFT_MSG_NEWSETELEM));
	/* the flush names the set and carries no element */
	ns = nftnl_set_alloc();
	assert_non_null(ns);
	echo = kernel_echo(msgs[1]);
	assert_true(nftnl_set_elems_nlmsg_parse(echo, ns) >= 0);
	free(echo);
	assert_string_equal(nftnl_set_get_str(ns, NFTNL_SET_NAME), "metadata4");
	assert_string_equal(nftnl_set_get_str(ns, NFTNL_SET_TABLE), "sandwall");
	assert_int_equal(count_elems(ns), 0);
	nftnl_set_free(ns);
	ns = nftnl_set_alloc();
	assert_non_null(ns);
	echo = kernel_echo(msgs[2]);
	assert_true(nftnl_set_elems_nlmsg_parse(echo, ns) >= 0);
	free(echo);
	assert_string_equal(nftnl_set_get_str(ns, NFTNL_SET_NAME), "metadata4");
	assert_int_equal(count_elems(ns), s->n_elems);
	assert_int_equal(count_elems(ns), 15);
	nftnl_set_free(ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_batch_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules_parse_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sets_parse_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elems_chunked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decode_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decode_roundtrip_variants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_encode_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_encode_set_refill, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
