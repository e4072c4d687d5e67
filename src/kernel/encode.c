// SPDX-License-Identifier: GPL-2.0-or-later
/* encode: build the nf_tables messages of a model into a batch. Each
 * message is built by libnftnl into space reserved in the batch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include <libnftnl/chain.h>
#include <libnftnl/set.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/udata.h>

#include "kernel/encode.h"
#include "kernel/nlmsg.h"

#define MSG_ROOM        65536   /* upper bound for one message */
#define ELEMS_PER_MSG   256

/* Account the message built at nlh with what it does to which object
 * (commit.c names it if the kernel refuses it). */
static void add(struct sw_batch *b, struct sw_nl *nl, struct nlmsghdr *nlh, const char *name,
		const char *comment)
{
	struct sw_intent w = { .type = NFNL_MSG_TYPE(nlh->nlmsg_type) };

	snprintf(w.name, sizeof(w.name), "%s", name);
	snprintf(w.comment, sizeof(w.comment), "%s", comment ? comment : "");
	sw_batch_add(b, nl, nlh, &w);
}

static struct nlmsghdr *msg(struct sw_batch *b, uint16_t type, uint16_t flags)
{
	void *p = sw_batch_reserve(b, MSG_ROOM);

	if (!p)
		return NULL;
	return nftnl_nlmsg_build_hdr(p, type, b->family ? (uint16_t)b->family : NFPROTO_INET,
				     flags, 0);
}

/* table inet <name> { [flags ...;] comment "sandwall/1" } -- add (create,
 * no EXCL) or delete. Every table we add carries the marker, as nft's
 * table comment (user data record 0, NUL-terminated): the kernel keeps
 * it from the creation on and ignores it on a later add. */
static int table_msg_nl(struct sw_batch *b, struct sw_nl *nl, const char *name,
			uint16_t type, uint32_t flags, bool with_flags, uint16_t nlflags)
{
	uint8_t ud[2 + sizeof(SW_TABLE_MARKER)] = { 0 /* NFTNL_UDATA_TABLE_COMMENT */,
						    sizeof(SW_TABLE_MARKER) };
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	if (!t)
		return -ENOMEM;
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, name);
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	if (with_flags)
		nftnl_table_set_u32(t, NFTNL_TABLE_FLAGS, flags);
	if (type == NFT_MSG_NEWTABLE) {
		memcpy(ud + 2, SW_TABLE_MARKER, sizeof(SW_TABLE_MARKER));
		nftnl_table_set_data(t, NFTNL_TABLE_USERDATA, ud, sizeof(ud));
	}
	nlh = msg(b, type, nlflags);
	if (nlh) {
		nftnl_table_nlmsg_build_payload(nlh, t);
		add(b, nl, nlh, name, NULL);
	}
	nftnl_table_free(t);
	return nlh ? 0 : b->err;
}

static int table_msg(struct sw_batch *b, struct sw_nl *nl, const char *name,
		     uint16_t type, uint32_t flags, bool with_flags)
{
	return table_msg_nl(b, nl, name, type, flags, with_flags,
			    type == NFT_MSG_NEWTABLE ? NLM_F_CREATE : 0);
}

/* counter <name> { } */
static int counter_msg(struct sw_batch *b, struct sw_nl *nl, const char *table,
		       const char *name)
{
	struct nftnl_obj *o = nftnl_obj_alloc();
	struct nlmsghdr *nlh;

	if (!o)
		return -ENOMEM;
	nftnl_obj_set_str(o, NFTNL_OBJ_TABLE, table);
	nftnl_obj_set_str(o, NFTNL_OBJ_NAME, name);
	nftnl_obj_set_u32(o, NFTNL_OBJ_FAMILY, NFPROTO_INET);
	nftnl_obj_set_u32(o, NFTNL_OBJ_TYPE, NFT_OBJECT_COUNTER);
	nftnl_obj_set_u64(o, NFTNL_OBJ_CTR_PKTS, 0);
	nftnl_obj_set_u64(o, NFTNL_OBJ_CTR_BYTES, 0);
	nlh = msg(b, NFT_MSG_NEWOBJ, NLM_F_CREATE);
	if (nlh) {
		nftnl_obj_nlmsg_build_payload(nlh, o);
		add(b, nl, nlh, name, NULL);
	}
	nftnl_obj_free(o);
	return nlh ? 0 : b->err;
}

static struct nftnl_set *set_obj(const char *table, const struct sw_set *s, uint32_t id)
{
	struct nftnl_set *ns = nftnl_set_alloc();

	if (!ns)
		return NULL;
	nftnl_set_set_str(ns, NFTNL_SET_TABLE, table);
	nftnl_set_set_str(ns, NFTNL_SET_NAME, s->name);
	nftnl_set_set_u32(ns, NFTNL_SET_FAMILY, NFPROTO_INET);
	if (id)
		nftnl_set_set_u32(ns, NFTNL_SET_ID, id);
	return ns;
}

/* The key types whose keys are in host byte order, and for which kind of
 * set nft writes its note saying so (NFTNL_UDATA_SET_KEYBYTEORDER):
 * without it `nft list` shows them byte-swapped, or an interface name of
 * a hash set as ""; the kernel ignores it. nft writes none for an interval
 * set of names. */
static const struct {
	uint32_t key_type;
	bool hash, interval;
} host_order[] = {
	{ SW_TYPE_UID, true, true },
	{ SW_TYPE_CGROUPV2, true, true },
	{ SW_TYPE_IFNAME, true, false },
};

static bool host_order_note(const struct sw_set *s)
{
	for (size_t i = 0; i < sizeof(host_order) / sizeof(*host_order); i++)
		if (host_order[i].key_type == s->key_type)
			return s->flags & NFT_SET_INTERVAL ? host_order[i].interval :
							     host_order[i].hash;
	return false;
}

/* set <name> { type <type_text>; [flags interval;] } */
static int set_msg(struct sw_batch *b, struct sw_nl *nl, const char *table,
		   const struct sw_set *s, uint32_t id)
{
	struct nftnl_set *ns = set_obj(table, s, id);
	struct nlmsghdr *nlh;

	if (!ns)
		return -ENOMEM;
	nftnl_set_set_u32(ns, NFTNL_SET_KEY_TYPE, s->key_type);
	nftnl_set_set_u32(ns, NFTNL_SET_KEY_LEN, s->key_len);
	nftnl_set_set_u32(ns, NFTNL_SET_FLAGS, s->flags);
	if (s->timeout_ms)
		nftnl_set_set_u64(ns, NFTNL_SET_TIMEOUT, s->timeout_ms);
	if (s->size)
		nftnl_set_set_u32(ns, NFTNL_SET_DESC_SIZE, s->size);
	if (s->n_concat && (s->flags & NFT_SET_CONCAT))
		nftnl_set_set_data(ns, NFTNL_SET_DESC_CONCAT, s->concat, s->n_concat);
	if (host_order_note(s)) {
		struct nftnl_udata_buf *ud = nftnl_udata_buf_alloc(16);

		if (!ud || !nftnl_udata_put_u32(ud, NFTNL_UDATA_SET_KEYBYTEORDER, 1 /* host */)) {
			nftnl_udata_buf_free(ud);
			nftnl_set_free(ns);
			return -ENOMEM;
		}
		nftnl_set_set_data(ns, NFTNL_SET_USERDATA, nftnl_udata_buf_data(ud),
				   nftnl_udata_buf_len(ud));
		nftnl_udata_buf_free(ud);
	}
	nlh = msg(b, NFT_MSG_NEWSET, NLM_F_CREATE);
	if (nlh) {
		nftnl_set_nlmsg_build_payload(nlh, ns);
		add(b, nl, nlh, s->name, NULL);
	}
	nftnl_set_free(ns);
	return nlh ? 0 : b->err;
}

/* add|delete element inet <table> <set> { ... } -- these n elements, in
 * chunks (type NFT_MSG_NEWSETELEM or NFT_MSG_DELSETELEM) */
static int elems_op_msg(struct sw_batch *b, struct sw_nl *nl, const char *table,
			const struct sw_set *s, const struct sw_elem *v, size_t n, uint32_t id,
			uint16_t type)
{
	for (size_t i = 0; i < n; i += ELEMS_PER_MSG) {
		struct nftnl_set *ns = set_obj(table, s, id);
		struct nlmsghdr *nlh;

		if (!ns)
			return -ENOMEM;
		for (size_t j = i; j < n && j < i + ELEMS_PER_MSG; j++) {
			struct nftnl_set_elem *e = nftnl_set_elem_alloc();

			if (!e) {
				nftnl_set_free(ns);
				return -ENOMEM;
			}
			nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, v[j].key, s->key_len);
			if (v[j].has_key_end)
				nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY_END, v[j].key_end, s->key_len);
			if (v[j].flags)
				nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_FLAGS, v[j].flags);
			if (v[j].timeout_ms && type == NFT_MSG_NEWSETELEM)
				nftnl_set_elem_set_u64(e, NFTNL_SET_ELEM_TIMEOUT, v[j].timeout_ms);
			nftnl_set_elem_add(ns, e);
		}
		nlh = msg(b, type, type == NFT_MSG_NEWSETELEM ? NLM_F_CREATE : 0);
		if (nlh) {
			nftnl_set_elems_nlmsg_build_payload(nlh, ns);
			add(b, nl, nlh, s->name, NULL);
		}
		nftnl_set_free(ns);
		if (!nlh)
			return b->err;
	}
	return 0;
}

/* add element inet <table> <set> { every element of s } */
static int elems_msg(struct sw_batch *b, struct sw_nl *nl, const char *table,
		     const struct sw_set *s, uint32_t id)
{
	return elems_op_msg(b, nl, table, s, s->elems, s->n_elems, id, NFT_MSG_NEWSETELEM);
}

int sw_encode_elems(struct sw_batch *b, struct sw_nl *nl, const char *table,
		    const struct sw_set *s, const struct sw_elem *v, size_t n, uint16_t type)
{
	if (type != NFT_MSG_NEWSETELEM && type != NFT_MSG_DELSETELEM)
		return -EINVAL;
	return elems_op_msg(b, nl, table, s, v, n, 0, type);
}

int sw_encode_set_delta(struct sw_batch *b, struct sw_nl *nl, const char *table,
			const struct sw_set *want, const struct sw_set *have)
{
	size_t len = want->key_len < SW_KEY_MAX ? want->key_len : SW_KEY_MAX;
	struct sw_elem *del = malloc((have->n_elems + 1) * sizeof(*del));
	struct sw_elem *add = malloc((want->n_elems + 1) * sizeof(*add));
	size_t i = 0, j = 0, nd = 0, na = 0;
	int err = -ENOMEM;

	if (!del || !add)
		goto out;
	/* both sorted: one walk */
	while (i < want->n_elems || j < have->n_elems) {
		int c = i == want->n_elems ? 1 : j == have->n_elems ? -1 :
			sw_elem_order(&want->elems[i], &have->elems[j], len);

		if (c < 0)
			add[na++] = want->elems[i++];
		else if (c > 0)
			del[nd++] = have->elems[j++];
		else
			i++, j++;
	}
	/* delete element ...; add element ...: the removed go first, so that a
	 * moved interval end never overlaps itself */
	err = elems_op_msg(b, nl, table, want, del, nd, 0, NFT_MSG_DELSETELEM);
	if (!err)
		err = elems_op_msg(b, nl, table, want, add, na, 0, NFT_MSG_NEWSETELEM);
out:
	free(del);
	free(add);
	return err;
}

/* chain <name> { [type filter hook prerouting priority P; policy accept;] } */
static int chain_msg(struct sw_batch *b, struct sw_nl *nl, const char *table,
		     const struct sw_chain *c)
{
	struct nftnl_chain *nc = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	if (!nc)
		return -ENOMEM;
	nftnl_chain_set_str(nc, NFTNL_CHAIN_TABLE, table);
	nftnl_chain_set_str(nc, NFTNL_CHAIN_NAME, c->name);
	nftnl_chain_set_u32(nc, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	if (c->base) {
		nftnl_chain_set_u32(nc, NFTNL_CHAIN_HOOKNUM, c->hook);
		nftnl_chain_set_s32(nc, NFTNL_CHAIN_PRIO, c->prio);
		nftnl_chain_set_u32(nc, NFTNL_CHAIN_POLICY, c->policy);
		nftnl_chain_set_str(nc, NFTNL_CHAIN_TYPE, c->type);
		/* netdev family: ... hook egress|ingress device "<dev>" ... */
		if (c->dev[0])
			nftnl_chain_set_str(nc, NFTNL_CHAIN_DEV, c->dev);
	}
	nlh = msg(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE);
	if (nlh) {
		nftnl_chain_nlmsg_build_payload(nlh, nc);
		add(b, nl, nlh, c->name, NULL);
	}
	nftnl_chain_free(nc);
	return nlh ? 0 : b->err;
}

/* the rule's nft text is in the model (r->text); as names another table
 * (a twin) for this message only, NULL for the model's own table */
static int rule_msg(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m,
		    const struct sw_rule *r, const char *as)
{
	struct nlmsghdr *nlh;

	if (!r->nl)
		return -EINVAL;
	nlh = msg(b, NFT_MSG_NEWRULE, NLM_F_APPEND | NLM_F_CREATE);
	if (!nlh)
		return b->err;
	if (as)
		nftnl_rule_set_str(r->nl, NFTNL_RULE_TABLE, as);
	nftnl_rule_nlmsg_build_payload(nlh, r->nl);
	if (as)
		nftnl_rule_set_str(r->nl, NFTNL_RULE_TABLE, m->table);
	add(b, nl, nlh, r->chain, r->tag);
	return 0;
}

/* Everything inside the table: counters, sets and elements, chains, rules
 * (in table `table`: the model's own, or a twin's). */
static int encode_contents(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m,
			   const char *table)
{
	const char *as = strcmp(table, m->table) ? table : NULL;
	int err;

	for (size_t i = 0; i < m->n_counters; i++)
		if ((err = counter_msg(b, nl, table, m->counters[i])))
			return err;
	for (size_t i = 0; i < m->n_sets; i++)
		if ((err = set_msg(b, nl, table, &m->sets[i], (uint32_t)i + 1)) ||
		    (err = elems_msg(b, nl, table, &m->sets[i], (uint32_t)i + 1)))
			return err;
	for (size_t i = 0; i < m->n_chains; i++)
		if ((err = chain_msg(b, nl, table, &m->chains[i])))
			return err;
	for (size_t i = 0; i < m->n_rules; i++)
		if ((err = rule_msg(b, nl, m, &m->rules[i], as)))
			return err;
	return 0;
}

int sw_encode_replace(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m)
{
	int err;

	b->family = sw_model_family(m);
	/* add table (without flags: a no-op on an existing table, whatever its
	 * flags, so the delete cannot fail); delete table; add table */
	if ((err = table_msg(b, nl, m->table, NFT_MSG_NEWTABLE, 0, false)) ||
	    (err = table_msg(b, nl, m->table, NFT_MSG_DELTABLE, 0, false)) ||
	    (err = table_msg(b, nl, m->table, NFT_MSG_NEWTABLE, m->table_flags, true)))
		return err;
	return encode_contents(b, nl, m, m->table);
}

int sw_encode_create(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m)
{
	int err;

	b->family = sw_model_family(m);
	/* add table with everything (it is known to be absent: EXCL, so that a
	 * table someone else made in the meantime fails the batch, EEXIST,
	 * and never receives our chains) */
	if ((err = table_msg_nl(b, nl, m->table, NFT_MSG_NEWTABLE, m->table_flags, true,
				NLM_F_CREATE | NLM_F_EXCL)))
		return err;
	return encode_contents(b, nl, m, m->table);
}

int sw_encode_twin(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m,
		   const char *twin, uint32_t flags)
{
	int err;

	b->family = sw_model_family(m);
	/* table inet <twin> { flags <flags>; <the model's contents> }, created
	 * with EXCL: a table of that name that is there (someone else's) makes
	 * the batch fail instead of being deleted or receiving our chains */
	if ((err = table_msg_nl(b, nl, twin, NFT_MSG_NEWTABLE, flags, true,
				NLM_F_CREATE | NLM_F_EXCL)))
		return err;
	return encode_contents(b, nl, m, twin);
}

/* delete chain|set|counter <name> (emptied earlier in the same batch) */
static int del_msg(struct sw_batch *b, struct sw_nl *nl, const char *table, uint16_t type,
		   const char *name)
{
	struct nlmsghdr *nlh = msg(b, type, 0);

	if (!nlh)
		return b->err;
	mnl_attr_put_strz(nlh, 1, table);        /* NFTA_{CHAIN,SET,OBJ}_TABLE */
	mnl_attr_put_strz(nlh, type == NFT_MSG_DELCHAIN ? NFTA_CHAIN_NAME :
			  type == NFT_MSG_DELSET ? NFTA_SET_NAME : NFTA_OBJ_NAME, name);
	if (type == NFT_MSG_DELOBJ)
		mnl_attr_put_u32(nlh, NFTA_OBJ_TYPE, htonl(NFT_OBJECT_COUNTER));
	add(b, nl, nlh, name, NULL);
	return 0;
}

/* flush chain inet <table> <chain>: DELRULE without a handle */
static int flush_chain_msg(struct sw_batch *b, struct sw_nl *nl, const char *table,
			   const char *chain)
{
	struct nlmsghdr *nlh = msg(b, NFT_MSG_DELRULE, 0);

	if (!nlh)
		return b->err;
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, table);
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, chain);
	add(b, nl, nlh, chain, NULL);
	return 0;
}

/* flush set inet <table> <set>: DELSETELEM without elements */
static int flush_set_msg(struct sw_batch *b, struct sw_nl *nl, const char *table,
			 const struct sw_set *s)
{
	struct nftnl_set *ns = set_obj(table, s, 0);
	struct nlmsghdr *nlh;

	if (!ns)
		return -ENOMEM;
	nlh = msg(b, NFT_MSG_DELSETELEM, 0);
	if (nlh) {
		nftnl_set_elems_nlmsg_build_payload(nlh, ns);
		add(b, nl, nlh, s->name, NULL);
	}
	nftnl_set_free(ns);
	return nlh ? 0 : b->err;
}

int sw_encode_set_flush(struct sw_batch *b, struct sw_nl *nl, const char *table,
			const struct sw_set *s)
{
	return flush_set_msg(b, nl, table, s);
}

/* Does the kernel's chain hold exactly our rules, in order? */
static bool rules_same(const struct sw_model *want, const struct sw_model *have, const char *chain)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < want->n_rules && strcmp(want->rules[i].chain, chain))
			i++;
		while (j < have->n_rules && strcmp(have->rules[j].chain, chain))
			j++;
		if (i == want->n_rules || j == have->n_rules)
			return i == want->n_rules && j == have->n_rules;
		if (!sw_rule_same(&want->rules[i], &have->rules[j]))
			return false;
		i++, j++;
	}
}

static bool elems_same(const struct sw_set *a, const struct sw_set *b)
{
	if (a->n_elems != b->n_elems)
		return false;
	for (size_t i = 0; i < a->n_elems; i++)
		if (!sw_elem_same(&a->elems[i], &b->elems[i], a->key_len))
			return false;
	return true;
}

int sw_encode_update(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *want,
		     const struct sw_model *have, unsigned how)
{
	const char *t = want->table;
	bool redo[SW_MAX_CHAINS] = { false };   /* want->chains[i] gets its rules again */
	int err = 0;

	b->family = sw_model_family(want);
	for (size_t i = 0; i < want->n_chains; i++) {
		const struct sw_chain *h = sw_model_find_chain(have, want->chains[i].name);

		redo[i] = (how & SW_UPDATE_CHAINS) || !h || !sw_chain_same_hook(&want->chains[i], h) ||
			  !rules_same(want, have, want->chains[i].name);
	}
	/* table inet T: wake it if someone made it dormant (keeping the
	 * ownership flags, which cannot change on a live table) */
	if (have->table_flags & NFT_TABLE_F_DORMANT)
		err = table_msg(b, nl, t, NFT_MSG_NEWTABLE,
				have->table_flags & ~(uint32_t)NFT_TABLE_F_DORMANT, true);
	/* flush chain ... where the rules differ, and in every chain that
	 * is not ours (it may reference our sets and chains) */
	for (size_t i = 0; i < have->n_chains && !err; i++) {
		const struct sw_chain *w = sw_model_find_chain(want, have->chains[i].name);

		if (!w || redo[w - want->chains])
			err = flush_chain_msg(b, nl, t, have->chains[i].name);
	}
	/* delete what is extra or of the wrong kind (now unreferenced) */
	for (size_t i = 0; i < have->n_chains && !err; i++) {
		const struct sw_chain *w = sw_model_find_chain(want, have->chains[i].name);

		if (!w || !sw_chain_same_hook(w, &have->chains[i]))
			err = del_msg(b, nl, t, NFT_MSG_DELCHAIN, have->chains[i].name);
	}
	for (size_t i = 0; i < have->n_sets && !err; i++) {
		const struct sw_set *w = sw_model_find_set(want, have->sets[i].name);

		if (!w || !sw_set_same_shape(w, &have->sets[i]))
			err = del_msg(b, nl, t, NFT_MSG_DELSET, have->sets[i].name);
	}
	for (size_t i = 0; i < have->n_counters && !err; i++)
		if (sw_model_find_counter(want, have->counters[i]) < 0)
			err = del_msg(b, nl, t, NFT_MSG_DELOBJ, have->counters[i]);
	/* counters that are there keep their counts */
	for (size_t i = 0; i < want->n_counters && !err; i++)
		if (sw_model_find_counter(have, want->counters[i]) < 0)
			err = counter_msg(b, nl, t, want->counters[i]);
	/* sets: create, or flush and refill where the elements differ */
	for (size_t i = 0; i < want->n_sets && !err; i++) {
		const struct sw_set *w = &want->sets[i];
		const struct sw_set *h = sw_model_find_set(have, w->name);
		bool keep = h && sw_set_same_shape(w, h);
		uint32_t id = (uint32_t)i + 1;

		if (keep && elems_same(w, h))
			continue;
		if (keep && !(how & SW_UPDATE_FLUSH_SETS)) {    /* only what differs travels */
			err = sw_encode_set_delta(b, nl, t, w, h);
			continue;
		}
		err = keep ? flush_set_msg(b, nl, t, w) : set_msg(b, nl, t, w, id);
		if (!err)
			err = elems_msg(b, nl, t, w, keep ? 0 : id);
	}
	/* chains: create the missing, set the base chain's policy */
	for (size_t i = 0; i < want->n_chains && !err; i++) {
		const struct sw_chain *h = sw_model_find_chain(have, want->chains[i].name);

		if (!h || !sw_chain_same_hook(&want->chains[i], h) ||
		    (want->chains[i].base && ((how & SW_UPDATE_CHAINS) ||
					      h->policy != want->chains[i].policy)))
			err = chain_msg(b, nl, t, &want->chains[i]);
	}
	/* the rules of every chain that was flushed or created */
	for (size_t i = 0; i < want->n_rules && !err; i++) {
		const struct sw_chain *c = sw_model_find_chain(want, want->rules[i].chain);

		if (c && redo[c - want->chains])
			err = rule_msg(b, nl, want, &want->rules[i], NULL);
	}
	return err;
}

int sw_encode_set_refill(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m,
			 const struct sw_set *s)
{
	int err;

	b->family = sw_model_family(m);
	err = flush_set_msg(b, nl, m->table, s);
	return err ? err : elems_msg(b, nl, m->table, s, 0);
}

int sw_encode_delete(struct sw_batch *b, struct sw_nl *nl, const char *table)
{
	return table_msg(b, nl, table, NFT_MSG_DELTABLE, 0, false);
}

int sw_encode_table_flags(struct sw_batch *b, struct sw_nl *nl, const char *table,
			  uint32_t flags)
{
	/* table inet <name> { flags owner, persist } -- update or adopt */
	return table_msg(b, nl, table, NFT_MSG_NEWTABLE, flags, true);
}
