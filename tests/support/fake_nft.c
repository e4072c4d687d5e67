/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_nft: what fake_nft.h declares, compiled once into build/libswtest.a. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_nft.h"

/* ---- setup ----------------------------------------------------------------- */

void fn_init(struct fn *k)
{
	memset(k, 0, sizeof(*k));
	k->s = calloc(1, sizeof(*k->s));
	assert_non_null(k->s);
	k->s->next_handle = 1;
	k->s->next_sid = 1;
	k->genid = 100;
	k->portid = FN_PORTID;
	k->fail_index = -1;
}

void fn_free(struct fn *k)
{
	for (size_t i = k->qhead; i < k->qtail; i++)
		free(k->q[i]);
	free(k->q);
	free(k->qlen);
	free(k->s);
	memset(k, 0, sizeof(*k));
}

/* ---- lookups --------------------------------------------------------------- */

struct fn_table *fn_table(struct fn_state *s, const char *name)
{
	for (size_t i = 0; name && i < s->n_tables; i++)
		if (!strcmp(s->tables[i].name, name))
			return &s->tables[i];
	return NULL;
}

struct fn_chain *fn_chain(struct fn_state *s, const char *t, const char *name)
{
	for (size_t i = 0; t && name && i < s->n_chains; i++)
		if (!strcmp(s->chains[i].table, t) && !strcmp(s->chains[i].name, name))
			return &s->chains[i];
	return NULL;
}

struct fn_set *fn_set(struct fn_state *s, const char *t, const char *name)
{
	for (size_t i = 0; t && name && i < s->n_sets; i++)
		if (!strcmp(s->sets[i].table, t) && !strcmp(s->sets[i].name, name))
			return &s->sets[i];
	return NULL;
}

struct fn_obj *fn_obj(struct fn_state *s, const char *t, const char *name)
{
	for (size_t i = 0; t && name && i < s->n_objs; i++)
		if (!strcmp(s->objs[i].table, t) && !strcmp(s->objs[i].name, name))
			return &s->objs[i];
	return NULL;
}

/* The same, for objects that must be there: a missing one fails the test. */
struct fn_table *fn_tab(struct fn_state *s, const char *name)
{
	static struct fn_table none;
	struct fn_table *t = fn_table(s, name);

	if (!t) {
		fail_msg("no table %s", name);
		return &none;
	}
	return t;
}

struct fn_set *fn_st(struct fn_state *s, const char *t, const char *name)
{
	static struct fn_set none;
	struct fn_set *set = fn_set(s, t, name);

	if (!set) {
		fail_msg("no set %s", name);
		return &none;
	}
	return set;
}

struct fn_obj *fn_ob(struct fn_state *s, const char *t, const char *name)
{
	static struct fn_obj none;
	struct fn_obj *o = fn_obj(s, t, name);

	if (!o) {
		fail_msg("no counter %s", name);
		return &none;
	}
	return o;
}

size_t fn_n_rules(struct fn_state *s, const char *t, const char *chain)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_rules; i++)
		n += !strcmp(s->rules[i].table, t) && (!chain || !strcmp(s->rules[i].chain, chain));
	return n;
}

size_t fn_n_elems(struct fn_state *s, const struct fn_set *set)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_elems; i++)
		n += s->elems[i].sid == set->sid;
	return n;
}

void fn_flush_rules(struct fn_state *s, const char *t, const char *chain)
{
	for (size_t i = s->n_rules; i-- > 0;)
		if (!strcmp(s->rules[i].table, t) && (!chain || !strcmp(s->rules[i].chain, chain)))
			FN_DEL(s->rules, s->n_rules, i);
}

void fn_flush_elems(struct fn_state *s, uint32_t sid)
{
	for (size_t i = s->n_elems; i-- > 0;)
		if (s->elems[i].sid == sid)
			FN_DEL(s->elems, s->n_elems, i);
}

void fn_drop_chain(struct fn_state *s, struct fn_chain *c)
{
	fn_flush_rules(s, c->table, c->name);
	FN_DEL(s->chains, s->n_chains, (size_t)(c - s->chains));
}

void fn_drop_set(struct fn_state *s, struct fn_set *set)
{
	fn_flush_elems(s, set->sid);
	FN_DEL(s->sets, s->n_sets, (size_t)(set - s->sets));
}

void fn_drop_table(struct fn_state *s, struct fn_table *t)
{
	char name[FN_NAME];

	snprintf(name, sizeof(name), "%s", t->name);
	fn_flush_rules(s, name, NULL);
	for (size_t i = s->n_chains; i-- > 0;)
		if (!strcmp(s->chains[i].table, name))
			FN_DEL(s->chains, s->n_chains, i);
	for (size_t i = s->n_sets; i-- > 0;)
		if (!strcmp(s->sets[i].table, name))
			fn_drop_set(s, &s->sets[i]);
	for (size_t i = s->n_objs; i-- > 0;)
		if (!strcmp(s->objs[i].table, name))
			FN_DEL(s->objs, s->n_objs, i);
	FN_DEL(s->tables, s->n_tables, (size_t)(t - s->tables));
}

/* chains + sets + objects: the kernel's NFTA_TABLE_USE */
uint32_t fn_table_use(struct fn_state *s, const char *t)
{
	uint32_t n = 0;

	for (size_t i = 0; i < s->n_chains; i++)
		n += !strcmp(s->chains[i].table, t);
	for (size_t i = 0; i < s->n_sets; i++)
		n += !strcmp(s->sets[i].table, t);
	for (size_t i = 0; i < s->n_objs; i++)
		n += !strcmp(s->objs[i].table, t);
	return n;
}

/* Does table t hold blocks: awake, a base chain, a rule? */
bool fn_guarded(struct fn_state *s, const struct fn_table *t)
{
	bool base = false;

	if (t->flags & NFT_TABLE_F_DORMANT)
		return false;
	for (size_t i = 0; i < s->n_chains && !base; i++)
		base = !strcmp(s->chains[i].table, t->name) && s->chains[i].base;
	return base && fn_n_rules(s, t->name, NULL) > 0;
}

/* ---- attributes of a message ----------------------------------------------- */

const struct nlattr *fn_attr(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) == type)
			return a;
	}
	return NULL;
}

const char *fn_attr_str(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a = fn_attr(nlh, type);

	return a && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0 ? mnl_attr_get_str(a) : NULL;
}

/* ---- answers ---------------------------------------------------------------- */

size_t fn_dgram(struct fn *k)
{
	if (k->qtail == k->qcap) {
		size_t cap = k->qcap ? k->qcap * 2 : 64;

		k->q = realloc(k->q, cap * sizeof(*k->q));
		k->qlen = realloc(k->qlen, cap * sizeof(*k->qlen));
		assert_non_null(k->q);
		assert_non_null(k->qlen);
		k->qcap = cap;
	}
	k->q[k->qtail] = calloc(1, FN_DGRAM);
	assert_non_null(k->q[k->qtail]);
	k->qlen[k->qtail] = 0;
	return k->qtail++;
}

/* Room for one message at the end of the current answer datagram. */
void *fn_room(struct fn *k, bool fresh)
{
	size_t d;

	if (fresh || k->qtail == k->qhead || k->qlen[k->qtail - 1] + FN_MSG_MAX > FN_DGRAM)
		fn_dgram(k);
	d = k->qtail - 1;
	memset(k->q[d] + k->qlen[d], 0, FN_MSG_MAX);
	return k->q[d] + k->qlen[d];
}

void fn_sent(struct fn *k, struct nlmsghdr *nlh)
{
	assert_true(nlh->nlmsg_len <= FN_MSG_MAX);
	k->qlen[k->qtail - 1] += NLMSG_ALIGN(nlh->nlmsg_len);
}

/* NLMSG_ERROR (capped: the request header echoed) for the request */
void fn_err(struct fn *k, const struct nlmsghdr *req, uint32_t seq, int error)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(fn_room(k, false));
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	nlh->nlmsg_seq = seq;
	e->error = error;
	e->msg = *req;
	e->msg.nlmsg_seq = seq;
	fn_sent(k, nlh);
}

void fn_done(struct fn *k, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(fn_room(k, false));

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	*(int *)mnl_nlmsg_put_extra_header(nlh, sizeof(int)) = 0;
	fn_sent(k, nlh);
}

struct nlmsghdr *fn_reply_hdr(struct fn *k, uint16_t type, uint32_t seq, bool multi)
{
	struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(fn_room(k, false), type, NFPROTO_INET, 0, seq);

	nlh->nlmsg_flags = multi ? NLM_F_MULTI : 0;
	return nlh;
}

void fn_reply_table(struct fn *k, const struct fn_table *t, uint32_t seq, bool multi)
{
	struct nftnl_table *nt = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	assert_non_null(nt);
	nftnl_table_set_str(nt, NFTNL_TABLE_NAME, t->name);
	nftnl_table_set_u32(nt, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nftnl_table_set_u32(nt, NFTNL_TABLE_FLAGS, t->flags);
	nftnl_table_set_u64(nt, NFTNL_TABLE_HANDLE, t->handle);
	if (t->has_ud)
		nftnl_table_set_data(nt, NFTNL_TABLE_USERDATA, t->ud, t->udlen);
	nlh = fn_reply_hdr(k, NFT_MSG_NEWTABLE, seq, multi);
	nftnl_table_nlmsg_build_payload(nlh, nt);
	mnl_attr_put_u32(nlh, NFTA_TABLE_USE, htonl(fn_table_use(k->s, t->name)));
	if (t->flags & NFT_TABLE_F_OWNER)
		mnl_attr_put_u32(nlh, NFTA_TABLE_OWNER, htonl(t->owner));
	nftnl_table_free(nt);
	fn_sent(k, nlh);
}

void fn_reply_chain(struct fn *k, const struct fn_chain *c, uint32_t seq)
{
	struct nftnl_chain *nc = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	assert_non_null(nc);
	nftnl_chain_set_str(nc, NFTNL_CHAIN_TABLE, c->table);
	nftnl_chain_set_str(nc, NFTNL_CHAIN_NAME, c->name);
	nftnl_chain_set_u32(nc, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	nftnl_chain_set_u64(nc, NFTNL_CHAIN_HANDLE, c->handle);
	if (c->base) {
		nftnl_chain_set_u32(nc, NFTNL_CHAIN_HOOKNUM, c->hook);
		nftnl_chain_set_s32(nc, NFTNL_CHAIN_PRIO, c->prio);
		nftnl_chain_set_u32(nc, NFTNL_CHAIN_POLICY, c->policy);
		nftnl_chain_set_str(nc, NFTNL_CHAIN_TYPE, c->type);
	}
	nlh = fn_reply_hdr(k, NFT_MSG_NEWCHAIN, seq, true);
	nftnl_chain_nlmsg_build_payload(nlh, nc);
	nftnl_chain_free(nc);
	fn_sent(k, nlh);
}

struct nftnl_set *fn_nset(const struct fn_set *s)
{
	struct nftnl_set *ns = nftnl_set_alloc();

	assert_non_null(ns);
	nftnl_set_set_str(ns, NFTNL_SET_TABLE, s->table);
	nftnl_set_set_str(ns, NFTNL_SET_NAME, s->name);
	nftnl_set_set_u32(ns, NFTNL_SET_FAMILY, NFPROTO_INET);
	return ns;
}

void fn_reply_set(struct fn *k, const struct fn_set *s, uint32_t seq)
{
	struct nftnl_set *ns = fn_nset(s);
	struct nlmsghdr *nlh;

	nftnl_set_set_u32(ns, NFTNL_SET_KEY_TYPE, s->key_type);
	nftnl_set_set_u32(ns, NFTNL_SET_KEY_LEN, s->key_len);
	nftnl_set_set_u32(ns, NFTNL_SET_FLAGS, s->flags);
	if (s->n_concat)
		nftnl_set_set_data(ns, NFTNL_SET_DESC_CONCAT, s->concat, s->n_concat);
	nlh = fn_reply_hdr(k, NFT_MSG_NEWSET, seq, true);
	nftnl_set_nlmsg_build_payload(nlh, ns);
	nftnl_set_free(ns);
	fn_sent(k, nlh);
}

/* the set's elements, 64 a message */
void fn_reply_elems(struct fn *k, const struct fn_set *s, uint32_t seq)
{
	size_t i = 0;

	while (i < k->s->n_elems) {
		struct nftnl_set *ns = fn_nset(s);
		struct nlmsghdr *nlh;
		size_t n = 0;

		for (; i < k->s->n_elems && n < 64; i++) {
			const struct fn_elem *e = &k->s->elems[i];
			struct nftnl_set_elem *ne;

			if (e->sid != s->sid)
				continue;
			ne = nftnl_set_elem_alloc();
			assert_non_null(ne);
			nftnl_set_elem_set(ne, NFTNL_SET_ELEM_KEY, e->key, e->klen);
			if (e->has_end)
				nftnl_set_elem_set(ne, NFTNL_SET_ELEM_KEY_END, e->key_end, e->klen);
			if (e->flags)
				nftnl_set_elem_set_u32(ne, NFTNL_SET_ELEM_FLAGS, e->flags);
			nftnl_set_elem_add(ns, ne);
			n++;
		}
		if (n) {
			nlh = fn_reply_hdr(k, NFT_MSG_NEWSETELEM, seq, true);
			nftnl_set_elems_nlmsg_build_payload(nlh, ns);
			fn_fix_elems(nlh);
			fn_sent(k, nlh);
		}
		nftnl_set_free(ns);
	}
}

void fn_reply_obj(struct fn *k, const struct fn_obj *o, uint32_t seq)
{
	struct nftnl_obj *no = nftnl_obj_alloc();
	struct nlmsghdr *nlh;

	assert_non_null(no);
	nftnl_obj_set_str(no, NFTNL_OBJ_TABLE, o->table);
	nftnl_obj_set_str(no, NFTNL_OBJ_NAME, o->name);
	nftnl_obj_set_u32(no, NFTNL_OBJ_FAMILY, NFPROTO_INET);
	nftnl_obj_set_u32(no, NFTNL_OBJ_TYPE, NFT_OBJECT_COUNTER);
	nftnl_obj_set_u64(no, NFTNL_OBJ_CTR_PKTS, o->pkts);
	nftnl_obj_set_u64(no, NFTNL_OBJ_CTR_BYTES, o->bytes);
	nlh = fn_reply_hdr(k, NFT_MSG_NEWOBJ, seq, true);
	nftnl_obj_nlmsg_build_payload(nlh, no);
	nftnl_obj_free(no);
	fn_sent(k, nlh);
}

/* the rule as it was stored (canonical), with its handle, as NEWRULE */
void fn_reply_rule(struct fn *k, const struct fn_rule *r, uint32_t seq)
{
	const struct nlmsghdr *in = (const struct nlmsghdr *)r->msg;
	struct nlmsghdr *nlh = fn_reply_hdr(k, NFT_MSG_NEWRULE, seq, true);
	const struct nlattr *a;

	mnl_attr_for_each(a, in, sizeof(struct nfgenmsg)) {
		switch (mnl_attr_get_type(a)) {
		case NFTA_RULE_POSITION: case NFTA_RULE_ID: case NFTA_RULE_POSITION_ID:
		case NFTA_RULE_HANDLE: case NFTA_RULE_TABLE: case NFTA_RULE_CHAIN:
			break;
		default:
			fn_copy_attr(nlh, a);
		}
	}
	mnl_attr_put_strz(nlh, NFTA_RULE_TABLE, r->table);
	mnl_attr_put_strz(nlh, NFTA_RULE_CHAIN, r->chain);
	mnl_attr_put_u64(nlh, NFTA_RULE_HANDLE, htobe64(r->handle));
	fn_sent(k, nlh);
}

void fn_answer_get(struct fn *k, const struct nlmsghdr *req)
{
	uint16_t type = req->nlmsg_type & 0xff;
	const char *t = fn_attr_str(req, 1);     /* NFTA_*_TABLE / NFTA_TABLE_NAME */
	struct fn_state *s = k->s;
	uint32_t seq = req->nlmsg_seq;

	if (type < NFT_MSG_MAX)
		k->n_gets[type]++;
	switch (type) {
	case NFT_MSG_GETTABLE:
		if (!(req->nlmsg_flags & NLM_F_DUMP)) {
			const struct fn_table *ft = fn_table(s, t);

			if (!ft) {
				fn_err(k, req, seq, -ENOENT);
				return;
			}
			fn_reply_table(k, ft, seq, false);
			if (req->nlmsg_flags & NLM_F_ACK)
				fn_err(k, req, seq, 0);
			return;
		}
		for (size_t i = 0; i < s->n_tables; i++)
			if (!t || !strcmp(s->tables[i].name, t))
				fn_reply_table(k, &s->tables[i], seq, true);
		break;
	case NFT_MSG_GETOBJ:
		for (size_t i = 0; i < s->n_objs; i++)
			if (!t || !strcmp(s->objs[i].table, t))
				fn_reply_obj(k, &s->objs[i], seq);
		break;
	case NFT_MSG_GETSET:
		for (size_t i = 0; i < s->n_sets; i++)
			if (!t || !strcmp(s->sets[i].table, t))
				fn_reply_set(k, &s->sets[i], seq);
		break;
	case NFT_MSG_GETSETELEM: {
		const struct fn_set *set = fn_set(s, t, fn_attr_str(req, NFTA_SET_ELEM_LIST_SET));

		if (!set) {
			fn_err(k, req, seq, -ENOENT);
			return;
		}
		fn_reply_elems(k, set, seq);
		break;
	}
	case NFT_MSG_GETCHAIN:
		for (size_t i = 0; i < s->n_chains; i++)
			if (!t || !strcmp(s->chains[i].table, t))
				fn_reply_chain(k, &s->chains[i], seq);
		break;
	case NFT_MSG_GETRULE:
		for (size_t i = 0; i < s->n_rules; i++)
			if (!t || !strcmp(s->rules[i].table, t))
				fn_reply_rule(k, &s->rules[i], seq);
		break;
	default:
		fn_err(k, req, seq, -EOPNOTSUPP);
		return;
	}
	fn_done(k, seq);
}

void fn_answer_gen(struct fn *k, const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(fn_room(k, false), NFT_MSG_NEWGEN,
						     AF_UNSPEC, 0, req->nlmsg_seq);

	nlh->nlmsg_flags = 0;
	mnl_attr_put_u32(nlh, NFTA_GEN_ID, htonl(k->genid));
	fn_sent(k, nlh);
	k->n_getgens++;
}

/* ---- ctnetlink ------------------------------------------------------------------- */

void fn_ct_tuple(struct nlmsghdr *nlh, uint16_t type, uint8_t family,
		 const uint8_t *src, const uint8_t *dst)
{
	struct nlattr *t = mnl_attr_nest_start(nlh, type), *ip = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
	size_t len = family == AF_INET ? 4 : 16;

	mnl_attr_put(nlh, family == AF_INET ? CTA_IP_V4_SRC : CTA_IP_V6_SRC, len, src);
	mnl_attr_put(nlh, family == AF_INET ? CTA_IP_V4_DST : CTA_IP_V6_DST, len, dst);
	mnl_attr_nest_end(nlh, ip);
	mnl_attr_nest_end(nlh, t);
}

/* conntrack -L: every entry as IPCTNL_MSG_CT_NEW */
void fn_ct_dump(struct fn *k, const struct nlmsghdr *req)
{
	k->n_ct_dumps++;
	for (size_t i = 0; i < k->n_ct; i++) {
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(fn_room(k, false));
		struct nfgenmsg *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

		nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
		nlh->nlmsg_flags = NLM_F_MULTI;
		nlh->nlmsg_seq = req->nlmsg_seq;
		g->nfgen_family = k->ct[i].family;
		g->version = NFNETLINK_V0;
		fn_ct_tuple(nlh, CTA_TUPLE_ORIG, k->ct[i].family, k->ct[i].osrc, k->ct[i].odst);
		fn_ct_tuple(nlh, CTA_TUPLE_REPLY, k->ct[i].family, k->ct[i].rsrc, k->ct[i].rdst);
		fn_sent(k, nlh);
	}
	fn_done(k, req->nlmsg_seq);
}

/* conntrack -D by the original tuple: 0 or ENOENT */
int fn_ct_delete(struct fn *k, const struct nlmsghdr *req)
{
	const struct nlattr *orig = fn_attr(req, CTA_TUPLE_ORIG), *ip = NULL, *a;
	const uint8_t *src = NULL, *dst = NULL;

	if (!orig)
		return -EINVAL;
	mnl_attr_for_each_nested(a, orig) {
		if (mnl_attr_get_type(a) == CTA_TUPLE_IP)
			ip = a;
	}
	if (!ip)
		return -EINVAL;
	mnl_attr_for_each_nested(a, ip) {
		uint16_t t = mnl_attr_get_type(a);

		if (t == CTA_IP_V4_SRC || t == CTA_IP_V6_SRC)
			src = mnl_attr_get_payload(a);
		if (t == CTA_IP_V4_DST || t == CTA_IP_V6_DST)
			dst = mnl_attr_get_payload(a);
	}
	for (size_t i = 0; src && dst && i < k->n_ct; i++) {
		size_t len = k->ct[i].family == AF_INET ? 4 : 16;

		if (!memcmp(k->ct[i].osrc, src, len) && !memcmp(k->ct[i].odst, dst, len)) {
			FN_DEL(k->ct, k->n_ct, i);
			k->n_ct_deleted++;
			return 0;
		}
	}
	return -ENOENT;
}

/* A flow from osrc to odst (replies from rsrc to rdst), addresses as text. */
void fn_ct_add(struct fn *k, const char *osrc, const char *odst,
	       const char *rsrc, const char *rdst)
{
	struct fn_ct *c;
	int family = strchr(osrc, ':') ? AF_INET6 : AF_INET;

	assert_true(k->n_ct < FN_CT);
	c = &k->ct[k->n_ct++];
	memset(c, 0, sizeof(*c));
	c->family = (uint8_t)family;
	assert_int_equal(inet_pton(family, osrc, c->osrc), 1);
	assert_int_equal(inet_pton(family, odst, c->odst), 1);
	assert_int_equal(inet_pton(family, rsrc, c->rsrc), 1);
	assert_int_equal(inet_pton(family, rdst, c->rdst), 1);
}

/* ---- batches ----------------------------------------------------------------- */

/* May portid change table t? */
int fn_may(const struct fn *k, const struct fn_table *t)
{
	return (t->flags & NFT_TABLE_F_OWNER) && t->owner != k->portid ? -EPERM : 0;
}

int fn_newtable(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh)
{
	struct nftnl_table *nt = nftnl_table_alloc();
	struct fn_table *t;
	const char *name;
	int err = 0;

	assert_non_null(nt);
	if (nftnl_table_nlmsg_parse(nlh, nt) < 0 || !(name = nftnl_table_get_str(nt, NFTNL_TABLE_NAME))) {
		err = -EINVAL;
		goto out;
	}
	t = fn_table(s, name);
	if (t) {
		uint32_t f, mask = NFT_TABLE_F_DORMANT | NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST;

		if (nlh->nlmsg_flags & NLM_F_EXCL)
			err = -EEXIST;
		else if ((err = fn_may(k, t)) || !nftnl_table_is_set(nt, NFTNL_TABLE_FLAGS))
			;
		else if ((f = nftnl_table_get_u32(nt, NFTNL_TABLE_FLAGS)) & ~mask)
			err = -EOPNOTSUPP;
		/* as nf_tables_updtable: the owner flag only by adopting an
		 * orphan (persist, no owner), persist never changes */
		else if (((t->flags & NFT_TABLE_F_OWNER) && !(f & NFT_TABLE_F_OWNER)) ||
			 ((f & NFT_TABLE_F_OWNER) && !(t->flags & NFT_TABLE_F_OWNER) &&
			  !(t->flags & NFT_TABLE_F_PERSIST)) ||
			 ((f ^ t->flags) & NFT_TABLE_F_PERSIST))
			err = -EOPNOTSUPP;
		else {
			if ((f & NFT_TABLE_F_OWNER) && !(t->flags & NFT_TABLE_F_OWNER))
				t->owner = k->portid;
			t->flags = f;
		}
		goto out;
	}
	if (s->n_tables == FN_TABLES) {
		err = -ENOSPC;
		goto out;
	}
	if (nftnl_table_get_u32(nt, NFTNL_TABLE_FLAGS) & k->no_table_flags) {
		err = -EOPNOTSUPP;
		goto out;
	}
	t = &s->tables[s->n_tables++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->flags = nftnl_table_get_u32(nt, NFTNL_TABLE_FLAGS);
	t->owner = k->portid;
	t->handle = s->next_handle++;
	if (nftnl_table_is_set(nt, NFTNL_TABLE_USERDATA)) {
		uint32_t len = 0;
		const void *ud = nftnl_table_get_data(nt, NFTNL_TABLE_USERDATA, &len);

		assert_true(len <= FN_UD);
		memcpy(t->ud, ud, len);
		t->udlen = len;
		t->has_ud = true;
	}
out:
	nftnl_table_free(nt);
	return err;
}

/* the table a message names (attribute 1), checked for ownership */
int fn_table_of(struct fn *k, struct fn_state *s, const char *name,
		struct fn_table **t)
{
	*t = fn_table(s, name);
	return *t ? fn_may(k, *t) : -ENOENT;
}

int fn_newchain(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh)
{
	struct nftnl_chain *nc = nftnl_chain_alloc();
	struct fn_table *t;
	struct fn_chain *c;
	const char *name;
	int err;

	assert_non_null(nc);
	if (nftnl_chain_nlmsg_parse(nlh, nc) < 0 || !(name = nftnl_chain_get_str(nc, NFTNL_CHAIN_NAME))) {
		err = -EINVAL;
		goto out;
	}
	if ((err = fn_table_of(k, s, nftnl_chain_get_str(nc, NFTNL_CHAIN_TABLE), &t)))
		goto out;
	c = fn_chain(s, t->name, name);
	if (c) {
		bool base = nftnl_chain_is_set(nc, NFTNL_CHAIN_HOOKNUM);

		if (nlh->nlmsg_flags & NLM_F_EXCL)
			err = -EEXIST;
		else if (base != c->base || (base && (nftnl_chain_get_u32(nc, NFTNL_CHAIN_HOOKNUM) != c->hook ||
						      nftnl_chain_get_s32(nc, NFTNL_CHAIN_PRIO) != c->prio)))
			err = -EBUSY;   /* the kernel does not move a hook */
		else if (nftnl_chain_is_set(nc, NFTNL_CHAIN_POLICY))
			c->policy = nftnl_chain_get_u32(nc, NFTNL_CHAIN_POLICY);
		goto out;
	}
	if (s->n_chains == FN_CHAINS) {
		err = -ENOSPC;
		goto out;
	}
	c = &s->chains[s->n_chains++];
	memset(c, 0, sizeof(*c));
	snprintf(c->table, sizeof(c->table), "%s", t->name);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->handle = s->next_handle++;
	if (nftnl_chain_is_set(nc, NFTNL_CHAIN_HOOKNUM)) {
		c->base = true;
		c->hook = nftnl_chain_get_u32(nc, NFTNL_CHAIN_HOOKNUM);
		c->prio = nftnl_chain_get_s32(nc, NFTNL_CHAIN_PRIO);
		c->policy = nftnl_chain_is_set(nc, NFTNL_CHAIN_POLICY) ?
			    nftnl_chain_get_u32(nc, NFTNL_CHAIN_POLICY) : NF_ACCEPT;
		snprintf(c->type, sizeof(c->type), "%s", nftnl_chain_is_set(nc, NFTNL_CHAIN_TYPE) ?
			 nftnl_chain_get_str(nc, NFTNL_CHAIN_TYPE) : "filter");
	}
out:
	nftnl_chain_free(nc);
	return err;
}

int fn_newset(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh)
{
	struct nftnl_set *ns = nftnl_set_alloc();
	struct fn_table *t;
	struct fn_set *set, want;
	const char *name;
	int err;

	assert_non_null(ns);
	if (nftnl_set_nlmsg_parse(nlh, ns) < 0 || !(name = nftnl_set_get_str(ns, NFTNL_SET_NAME))) {
		err = -EINVAL;
		goto out;
	}
	if ((err = fn_table_of(k, s, nftnl_set_get_str(ns, NFTNL_SET_TABLE), &t)))
		goto out;
	memset(&want, 0, sizeof(want));
	snprintf(want.table, sizeof(want.table), "%s", t->name);
	snprintf(want.name, sizeof(want.name), "%s", name);
	want.key_type = nftnl_set_get_u32(ns, NFTNL_SET_KEY_TYPE);
	want.key_len = nftnl_set_get_u32(ns, NFTNL_SET_KEY_LEN);
	want.flags = nftnl_set_get_u32(ns, NFTNL_SET_FLAGS);
	if (nftnl_set_is_set(ns, NFTNL_SET_DESC_CONCAT)) {
		uint32_t len = 0;
		const uint8_t *f = nftnl_set_get_data(ns, NFTNL_SET_DESC_CONCAT, &len);

		for (uint32_t i = 0; f && i < len && i < sizeof(want.concat) && f[i]; i++)
			want.concat[want.n_concat++] = f[i];
	}
	set = fn_set(s, t->name, name);
	if (set) {
		if ((nlh->nlmsg_flags & NLM_F_EXCL) || set->key_len != want.key_len ||
		    set->flags != want.flags || set->key_type != want.key_type)
			err = -EEXIST;
		goto out;
	}
	if (s->n_sets == FN_SETS) {
		err = -ENOSPC;
		goto out;
	}
	want.sid = s->next_sid++;
	s->sets[s->n_sets++] = want;
out:
	nftnl_set_free(ns);
	return err;
}

bool fn_elem_eq(const struct fn_elem *a, const struct fn_elem *b)
{
	return a->sid == b->sid && a->klen == b->klen && !memcmp(a->key, b->key, a->klen) &&
	       (a->flags & NFT_SET_ELEM_INTERVAL_END) == (b->flags & NFT_SET_ELEM_INTERVAL_END);
}

/* NEWSETELEM (add) or DELSETELEM (delete; none listed: flush) */
int fn_setelem(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh, bool add)
{
	struct nftnl_set *ns = nftnl_set_alloc();
	struct nftnl_set_elems_iter *it = NULL;
	struct nftnl_set_elem *e;
	struct fn_table *t;
	struct fn_set *set;
	size_t n = 0;
	int err;

	assert_non_null(ns);
	if (nftnl_set_elems_nlmsg_parse(nlh, ns) < 0) {
		err = -EINVAL;
		goto out;
	}
	if ((err = fn_table_of(k, s, nftnl_set_get_str(ns, NFTNL_SET_TABLE), &t)))
		goto out;
	if (!(set = fn_set(s, t->name, nftnl_set_get_str(ns, NFTNL_SET_NAME)))) {
		err = -ENOENT;
		goto out;
	}
	it = nftnl_set_elems_iter_create(ns);
	assert_non_null(it);
	while (!err && (e = nftnl_set_elems_iter_next(it))) {
		struct fn_elem fe;
		uint32_t len = 0;
		const void *key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
		size_t j;

		n++;
		memset(&fe, 0, sizeof(fe));
		if (!key || len > SW_KEY_MAX || len != set->key_len) {
			err = -EINVAL;
			break;
		}
		fe.sid = set->sid;
		fe.klen = len;
		memcpy(fe.key, key, len);
		if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_KEY_END)) {
			key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY_END, &len);
			if (!key || len != fe.klen) {
				err = -EINVAL;
				break;
			}
			memcpy(fe.key_end, key, len);
			fe.has_end = true;
		}
		if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS))
			fe.flags = nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS);
		for (j = 0; j < s->n_elems && !fn_elem_eq(&s->elems[j], &fe); j++)
			;
		if (add && j < s->n_elems)
			err = nlh->nlmsg_flags & NLM_F_EXCL ? -EEXIST : 0;
		else if (add && s->n_elems == FN_ELEMS)
			err = -ENOSPC;
		else if (add)
			s->elems[s->n_elems++] = fe;
		else if (j == s->n_elems)
			err = -ENOENT;
		else
			FN_DEL(s->elems, s->n_elems, j);
	}
	if (!err && !add && n == 0)
		fn_flush_elems(s, set->sid);
out:
	if (it)
		nftnl_set_elems_iter_destroy(it);
	nftnl_set_free(ns);
	return err;
}

int fn_newobj(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh)
{
	struct nftnl_obj *no = nftnl_obj_alloc();
	struct fn_table *t;
	struct fn_obj *o;
	const char *name;
	int err;

	assert_non_null(no);
	if (nftnl_obj_nlmsg_parse(nlh, no) < 0 || !(name = nftnl_obj_get_str(no, NFTNL_OBJ_NAME)) ||
	    nftnl_obj_get_u32(no, NFTNL_OBJ_TYPE) != NFT_OBJECT_COUNTER) {
		err = -EINVAL;
		goto out;
	}
	if ((err = fn_table_of(k, s, nftnl_obj_get_str(no, NFTNL_OBJ_TABLE), &t)))
		goto out;
	if ((o = fn_obj(s, t->name, name))) {
		/* a counter has no update: its counts stay */
		err = nlh->nlmsg_flags & NLM_F_EXCL ? -EEXIST : 0;
		goto out;
	}
	if (s->n_objs == FN_OBJS) {
		err = -ENOSPC;
		goto out;
	}
	o = &s->objs[s->n_objs++];
	memset(o, 0, sizeof(*o));
	snprintf(o->table, sizeof(o->table), "%s", t->name);
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->pkts = nftnl_obj_get_u64(no, NFTNL_OBJ_CTR_PKTS);
	o->bytes = nftnl_obj_get_u64(no, NFTNL_OBJ_CTR_BYTES);
out:
	nftnl_obj_free(no);
	return err;
}

/* Append (NLM_F_APPEND) or insert at the front a rule stored as the message itself. */
int fn_put_rule(struct fn_state *s, const char *table, const char *chain,
		const struct nlmsghdr *nlh, bool append)
{
	size_t at = s->n_rules;
	struct fn_rule *r;

	if (s->n_rules == FN_RULES)
		return -ENOSPC;
	assert_true(nlh->nlmsg_len <= FN_RULE_MAX);
	if (!append)
		for (at = 0; at < s->n_rules && (strcmp(s->rules[at].table, table) ||
						 strcmp(s->rules[at].chain, chain)); at++)
			;
	memmove(&s->rules[at + 1], &s->rules[at], (s->n_rules - at) * sizeof(s->rules[0]));
	s->n_rules++;
	r = &s->rules[at];
	memset(r, 0, sizeof(*r));
	snprintf(r->table, sizeof(r->table), "%s", table);
	snprintf(r->chain, sizeof(r->chain), "%s", chain);
	r->handle = s->next_handle++;
	r->len = nlh->nlmsg_len;
	memcpy(r->msg, nlh, nlh->nlmsg_len);
	return 0;
}

int fn_newrule(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh)
{
	struct nftnl_rule *nr = nftnl_rule_alloc();
	struct fn_table *t;
	const char *chain;
	int err;

	assert_non_null(nr);
	if (nftnl_rule_nlmsg_parse(nlh, nr) < 0 || !(chain = nftnl_rule_get_str(nr, NFTNL_RULE_CHAIN))) {
		err = -EINVAL;
		goto out;
	}
	if ((err = fn_table_of(k, s, nftnl_rule_get_str(nr, NFTNL_RULE_TABLE), &t)))
		goto out;
	if (!fn_chain(s, t->name, chain)) {
		err = -ENOENT;
		goto out;
	}
	err = fn_put_rule(s, t->name, chain, nlh, nlh->nlmsg_flags & NLM_F_APPEND);
out:
	nftnl_rule_free(nr);
	return err;
}

int fn_del(struct fn *k, struct fn_state *s, uint16_t type, const struct nlmsghdr *nlh)
{
	struct fn_table *t;
	int err;

	if ((err = fn_table_of(k, s, fn_attr_str(nlh, 1), &t)))
		return err;
	switch (type) {
	case NFT_MSG_DELTABLE:
		fn_drop_table(s, t);
		return 0;
	case NFT_MSG_DELCHAIN: {
		struct fn_chain *c = fn_chain(s, t->name, fn_attr_str(nlh, NFTA_CHAIN_NAME));

		if (!c)
			return -ENOENT;
		fn_drop_chain(s, c);
		return 0;
	}
	case NFT_MSG_DELSET: {
		struct fn_set *set = fn_set(s, t->name, fn_attr_str(nlh, NFTA_SET_NAME));

		if (!set)
			return -ENOENT;
		fn_drop_set(s, set);
		return 0;
	}
	case NFT_MSG_DELOBJ: {
		struct fn_obj *o = fn_obj(s, t->name, fn_attr_str(nlh, NFTA_OBJ_NAME));

		if (!o)
			return -ENOENT;
		FN_DEL(s->objs, s->n_objs, (size_t)(o - s->objs));
		return 0;
	}
	case NFT_MSG_DELRULE: {
		const char *chain = fn_attr_str(nlh, NFTA_RULE_CHAIN);
		const struct nlattr *h = fn_attr(nlh, NFTA_RULE_HANDLE);

		if (chain && !fn_chain(s, t->name, chain))
			return -ENOENT;
		if (!h) {       /* flush chain (or every chain of the table) */
			fn_flush_rules(s, t->name, chain);
			return 0;
		}
		for (size_t i = 0; i < s->n_rules; i++)
			if (!strcmp(s->rules[i].table, t->name) &&
			    s->rules[i].handle == be64toh(mnl_attr_get_u64(h))) {
				FN_DEL(s->rules, s->n_rules, i);
				return 0;
			}
		return -ENOENT;
	}
	}
	return -EOPNOTSUPP;
}

/* What the message names, for the log. */
void fn_note(struct fn *k, const struct nlmsghdr *nlh, uint16_t type)
{
	struct fn_logged *l;
	const char *name = NULL;

	if (k->n_log == FN_LOG)
		return;
	l = &k->log[k->n_log++];
	memset(l, 0, sizeof(*l));
	l->type = type;
	l->flags = nlh->nlmsg_flags;
	snprintf(l->table, sizeof(l->table), "%s", fn_attr_str(nlh, 1) ? fn_attr_str(nlh, 1) : "");
	switch (type) {
	case NFT_MSG_NEWCHAIN: case NFT_MSG_DELCHAIN: name = fn_attr_str(nlh, NFTA_CHAIN_NAME); break;
	case NFT_MSG_NEWSET: case NFT_MSG_DELSET: name = fn_attr_str(nlh, NFTA_SET_NAME); break;
	case NFT_MSG_NEWSETELEM: case NFT_MSG_DELSETELEM:
		name = fn_attr_str(nlh, NFTA_SET_ELEM_LIST_SET); break;
	case NFT_MSG_NEWOBJ: case NFT_MSG_DELOBJ: name = fn_attr_str(nlh, NFTA_OBJ_NAME); break;
	case NFT_MSG_NEWRULE: case NFT_MSG_DELRULE: name = fn_attr_str(nlh, NFTA_RULE_CHAIN); break;
	default: break;
	}
	snprintf(l->name, sizeof(l->name), "%s", name ? name : "");
}

int fn_apply(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh, uint16_t type)
{
	switch (type) {
	case NFT_MSG_NEWTABLE: return fn_newtable(k, s, nlh);
	case NFT_MSG_NEWCHAIN: return fn_newchain(k, s, nlh);
	case NFT_MSG_NEWSET: return fn_newset(k, s, nlh);
	case NFT_MSG_NEWSETELEM: return fn_setelem(k, s, nlh, true);
	case NFT_MSG_DELSETELEM: return fn_setelem(k, s, nlh, false);
	case NFT_MSG_NEWOBJ: return fn_newobj(k, s, nlh);
	case NFT_MSG_NEWRULE: return fn_newrule(k, s, nlh);
	case NFT_MSG_DELTABLE: case NFT_MSG_DELCHAIN: case NFT_MSG_DELSET:
	case NFT_MSG_DELOBJ: case NFT_MSG_DELRULE:
		return fn_del(k, s, type, nlh);
	}
	return -EOPNOTSUPP;
}

/* The gap check: a commit must leave untouched at least one of the
 * tables that held blocks before it. */
void fn_check_gap(struct fn *k, struct fn_state *before, struct fn_state *after)
{
	bool any = false;

	for (size_t i = 0; i < before->n_tables; i++) {
		const struct fn_table *t = &before->tables[i];
		const struct fn_table *a;
		bool deleted = false;

		if (!fn_guarded(before, t))
			continue;
		any = true;
		for (size_t j = 0; j < k->n_log && !deleted; j++)
			deleted = k->log[j].type == NFT_MSG_DELTABLE && !strcmp(k->log[j].table, t->name);
		if (!deleted && (a = fn_table(after, t->name)) && fn_guarded(after, a))
			return;
	}
	if (any)
		k->gaps++;
}

void fn_batch(struct fn *k, const uint8_t *buf, size_t len)
{
	const struct nlmsghdr *nlh = (const void *)buf, *begin = nlh;
	const struct nlattr *gen = fn_attr(begin, NFNL_BATCH_GENID);
	struct fn_state *scratch;
	int rest = (int)len, index = 0, first = 0;

	k->n_batches++;
	k->n_log = 0;
	if (gen && ntohl(mnl_attr_get_u32(gen)) != k->genid) {
		fn_err(k, begin, begin->nlmsg_seq, -ERESTART);
		k->fail_index = -1;
		k->last_batch_err = -ERESTART;
		return;
	}
	scratch = malloc(sizeof(*scratch));
	assert_non_null(scratch);
	memcpy(scratch, k->s, sizeof(*scratch));
	for (nlh = mnl_nlmsg_next(nlh, &rest); mnl_nlmsg_ok(nlh, rest); nlh = mnl_nlmsg_next(nlh, &rest)) {
		uint16_t type = nlh->nlmsg_type & 0xff;
		struct nlmsghdr *canon;
		int err;

		if (nlh->nlmsg_type == NFNL_MSG_BATCH_END)
			break;
		assert_int_equal(nlh->nlmsg_type >> 8, NFNL_SUBSYS_NFTABLES);
		fn_note(k, nlh, type);
		canon = calloc(1, 2 * (size_t)nlh->nlmsg_len + 256);
		assert_non_null(canon);
		fn_canon(nlh, canon);
		err = index == k->fail_index ? k->fail_err : fn_apply(k, scratch, canon, type);
		free(canon);
		if (err && !first)
			first = err;
		if (nlh->nlmsg_flags & NLM_F_ACK)
			fn_err(k, nlh, nlh->nlmsg_seq, err);
		index++;
	}
	k->fail_index = -1;
	k->last_batch_err = first;
	if (!first) {
		fn_check_gap(k, k->s, scratch);
		free(k->s);
		k->s = scratch;
		k->genid++;
		k->n_commits++;
		if (k->hook)
			k->hook(k, FN_COMMIT, NFNL_MSG_BATCH_BEGIN, k->hook_arg);
	} else {
		free(scratch);
	}
}

ssize_t fn_send(void *ctx, const void *buf, size_t len)
{
	struct fn *k = ctx;
	const struct nlmsghdr *nlh = buf;
	uint16_t type = nlh->nlmsg_type;
	size_t tail = k->qtail;

	k->n_sends++;
	assert_true(len >= sizeof(*nlh));
	if (k->hook)
		k->hook(k, FN_BEFORE, type, k->hook_arg);
	if (type == NFNL_MSG_BATCH_BEGIN)
		fn_batch(k, buf, len);
	else if (type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETGEN))
		fn_answer_gen(k, nlh);
	else if ((type >> 8) == NFNL_SUBSYS_NFTABLES)
		fn_answer_get(k, nlh);
	else if (type == ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET))
		fn_ct_dump(k, nlh);
	else if (type == ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE))
		fn_err(k, nlh, nlh->nlmsg_seq, fn_ct_delete(k, nlh));
	else
		fn_err(k, nlh, nlh->nlmsg_seq, -EOPNOTSUPP);
	if (k->drop_send && k->n_sends == k->drop_send) {
		/* lost: throw away what this request got */
		while (k->qtail > tail)
			free(k->q[--k->qtail]);
	}
	return (ssize_t)len;
}

ssize_t fn_recv(void *ctx, void *buf, size_t len, int timeout_ms)
{
	struct fn *k = ctx;
	size_t n;

	(void)timeout_ms;
	k->n_recvs++;
	if (k->enobufs_recv && k->n_recvs == k->enobufs_recv)
		return -ENOBUFS;
	if (k->qhead == k->qtail)
		return 0;       /* timeout */
	n = k->qlen[k->qhead];
	assert_true(n <= len);
	memcpy(buf, k->q[k->qhead], n);
	free(k->q[k->qhead]);
	k->q[k->qhead++] = NULL;
	return (ssize_t)n;
}

const struct sw_nl_ops fn_ops = { .send = fn_send, .recv = fn_recv };

/* ---- the last batch ------------------------------------------------------------ */

/* Messages of this type in the last batch (naming `name`, NULL: any). */
size_t fn_count(const struct fn *k, uint16_t type, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < k->n_log; i++)
		n += k->log[i].type == type && (!name || !strcmp(k->log[i].name, name));
	return n;
}

/* ---- another process (each bumps the generation, like a commit) -------------- */

struct fn_table *fn_t_table(struct fn *k, const char *name)
{
	struct fn_table *t = fn_tab(k->s, name);

	k->genid++;
	return t;
}

void fn_t_del_table(struct fn *k, const char *t)
{
	fn_drop_table(k->s, fn_t_table(k, t));
}

/* A table made by another tool: no marker (unless marked), these flags. */
void fn_t_add_table(struct fn *k, const char *name, uint32_t flags, bool marked)
{
	struct fn_table *t;

	assert_null(fn_table(k->s, name));
	assert_true(k->s->n_tables < FN_TABLES);
	t = &k->s->tables[k->s->n_tables++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->flags = flags;
	t->owner = 999;
	t->handle = k->s->next_handle++;
	if (marked) {
		t->ud[0] = 0;
		t->ud[1] = sizeof(SW_TABLE_MARKER);
		memcpy(t->ud + 2, SW_TABLE_MARKER, sizeof(SW_TABLE_MARKER));
		t->udlen = 2 + sizeof(SW_TABLE_MARKER);
		t->has_ud = true;
	}
	k->genid++;
}

void fn_t_flags(struct fn *k, const char *t, uint32_t flags)
{
	fn_t_table(k, t)->flags = flags;
}

/* Lose the marker (an older sandwall's table, or restored without it). */
void fn_t_unmark(struct fn *k, const char *t)
{
	struct fn_table *ft = fn_t_table(k, t);

	ft->has_ud = false;
	ft->udlen = 0;
}

void fn_t_flush_chain(struct fn *k, const char *t, const char *chain)
{
	fn_t_table(k, t);
	assert_non_null(fn_chain(k->s, t, chain));
	fn_flush_rules(k->s, t, chain);
}

/* delete rule: the idx-th rule of the chain */
void fn_t_del_rule(struct fn *k, const char *t, const char *chain, size_t idx)
{
	fn_t_table(k, t);
	for (size_t i = 0; i < k->s->n_rules; i++)
		if (!strcmp(k->s->rules[i].table, t) && !strcmp(k->s->rules[i].chain, chain) && !idx--) {
			FN_DEL(k->s->rules, k->s->n_rules, i);
			return;
		}
	fail_msg("no such rule in chain %s", chain);
}

/* add rule inet T C counter (no comment): another tool's rule */
void fn_t_add_rogue_rule(struct fn *k, const char *t, const char *chain)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr *e = nftnl_expr_alloc("counter");
	static uint8_t buf[FN_RULE_MAX], out[2 * FN_RULE_MAX + 256];
	struct nlmsghdr *nlh;

	assert_non_null(r);
	assert_non_null(e);
	fn_t_table(k, t);
	assert_non_null(fn_chain(k->s, t, chain));
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, t);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	nftnl_rule_add_expr(r, e);
	memset(buf, 0, sizeof(buf));
	nlh = nftnl_nlmsg_build_hdr((char *)buf, NFT_MSG_NEWRULE, NFPROTO_INET, NLM_F_APPEND, 1);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	fn_canon(nlh, (struct nlmsghdr *)out);
	assert_int_equal(fn_put_rule(k->s, t, chain, (struct nlmsghdr *)out, true), 0);
}

/* delete element: the idx-th element of the set */
void fn_t_del_elem(struct fn *k, const char *t, const char *set, size_t idx)
{
	struct fn_set *s;

	fn_t_table(k, t);
	s = fn_st(k->s, t, set);
	for (size_t i = 0; i < k->s->n_elems; i++)
		if (k->s->elems[i].sid == s->sid && !idx--) {
			FN_DEL(k->s->elems, k->s->n_elems, i);
			return;
		}
	fail_msg("no such element in set %s", set);
}

void fn_t_del_chain(struct fn *k, const char *t, const char *chain)
{
	struct fn_chain *c;

	fn_t_table(k, t);
	assert_non_null(c = fn_chain(k->s, t, chain));
	fn_drop_chain(k->s, c);
}

void fn_t_del_set(struct fn *k, const char *t, const char *set)
{
	struct fn_set *s;

	fn_t_table(k, t);
	s = fn_st(k->s, t, set);
	fn_drop_set(k->s, s);
}

void fn_t_del_obj(struct fn *k, const char *t, const char *name)
{
	struct fn_obj *o;

	fn_t_table(k, t);
	o = fn_ob(k->s, t, name);
	FN_DEL(k->s->objs, k->s->n_objs, (size_t)(o - k->s->objs));
}

/* add chain inet T <name> (a regular chain) */
void fn_t_add_chain(struct fn *k, const char *t, const char *name)
{
	struct fn_chain *c;

	fn_t_table(k, t);
	assert_true(k->s->n_chains < FN_CHAINS);
	c = &k->s->chains[k->s->n_chains++];
	memset(c, 0, sizeof(*c));
	snprintf(c->table, sizeof(c->table), "%s", t);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->handle = k->s->next_handle++;
}

/* add set inet T <name> { type ipv4_addr; } */
void fn_t_add_set(struct fn *k, const char *t, const char *name)
{
	struct fn_set *s;

	fn_t_table(k, t);
	assert_true(k->s->n_sets < FN_SETS);
	s = &k->s->sets[k->s->n_sets++];
	memset(s, 0, sizeof(*s));
	snprintf(s->table, sizeof(s->table), "%s", t);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->key_type = SW_TYPE_IPADDR;
	s->key_len = 4;
	s->sid = k->s->next_sid++;
}

/* add counter inet T <name> */
void fn_t_add_obj(struct fn *k, const char *t, const char *name)
{
	struct fn_obj *o;

	fn_t_table(k, t);
	assert_true(k->s->n_objs < FN_OBJS);
	o = &k->s->objs[k->s->n_objs++];
	memset(o, 0, sizeof(*o));
	snprintf(o->table, sizeof(o->table), "%s", t);
	snprintf(o->name, sizeof(o->name), "%s", name);
}

/* Packets counted by the kernel (no generation change: not a commit). */
void fn_bump_counter(struct fn *k, const char *t, const char *name,
		     uint64_t pkts, uint64_t bytes)
{
	struct fn_obj *o = fn_ob(k->s, t, name);

	o->pkts += pkts;
	o->bytes += bytes;
}

/* The socket of portid closed: its owned tables go, unless persistent
 * (then they lose their owner: orphans). */
void fn_close_portid(struct fn *k, uint32_t portid)
{
	for (size_t i = k->s->n_tables; i-- > 0;) {
		struct fn_table *t = &k->s->tables[i];

		if (!(t->flags & NFT_TABLE_F_OWNER) || t->owner != portid)
			continue;
		if (t->flags & NFT_TABLE_F_PERSIST)
			t->flags &= ~(uint32_t)NFT_TABLE_F_OWNER;
		else
			fn_drop_table(k->s, t);
		k->genid++;
	}
}
