// SPDX-License-Identifier: GPL-2.0-or-later
/* observe: decode our table from kernel dumps into a model. */
#include <errno.h>
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

#include "kernel/nlmsg.h"
#include "kernel/nftval.h"
#include "kernel/observe.h"

#define OBSERVE_TRIES 10

static bool ours(const char *table, uint32_t family, const struct sw_model *m)
{
	return family == sw_model_family(m) && table && !strcmp(table, m->table);
}

/* Does the table's user data carry our marker? It is a list of
 * type-length-value records (libnftnl udata); walked here with bounds,
 * since the bytes come from whoever created the table. */
static bool has_marker(const uint8_t *ud, uint32_t len)
{
	uint32_t off = 0;

	while (ud && len - off >= 2) {
		uint8_t type = ud[off], l = ud[off + 1];

		if (l > len - off - 2)
			return false;
		if (type == 0 /* NFTNL_UDATA_TABLE_COMMENT */ && l == sizeof(SW_TABLE_MARKER) &&
		    !memcmp(ud + off + 2, SW_TABLE_MARKER, sizeof(SW_TABLE_MARKER)))
			return true;
		off += 2u + l;
	}
	return false;
}

int sw_decode_table(const struct nlmsghdr *nlh, struct sw_model *m)
{
	struct nftnl_table *t = nftnl_table_alloc();
	const uint8_t *ud;
	uint32_t udlen = 0;
	int err = 0;

	if (!t)
		return -ENOMEM;
	if (sw_nft_validate(nlh, SW_NFT_TABLE) || nftnl_table_nlmsg_parse(nlh, t) < 0)
		err = -EBADMSG;
	else if (ours(nftnl_table_get_str(t, NFTNL_TABLE_NAME),
		      nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY), m)) {
		m->has_table = true;
		m->table_flags = nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS);
		m->table_use = nftnl_table_get_u32(t, NFTNL_TABLE_USE);
		ud = nftnl_table_get_data(t, NFTNL_TABLE_USERDATA, &udlen);
		m->table_unmarked = !nftnl_table_is_set(t, NFTNL_TABLE_USERDATA) ||
				    !has_marker(ud, udlen);
	}
	nftnl_table_free(t);
	return err;
}

int sw_decode_chain(const struct nlmsghdr *nlh, struct sw_model *m)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct sw_chain *sc;
	int err = 0;

	if (!c)
		return -ENOMEM;
	if (sw_nft_validate(nlh, SW_NFT_CHAIN) || nftnl_chain_nlmsg_parse(nlh, c) < 0) {
		err = -EBADMSG;
		goto out;
	}
	if (!ours(nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE),
		  nftnl_chain_get_u32(c, NFTNL_CHAIN_FAMILY), m))
		goto out;
	if (!(sc = sw_model_add_chain(m, nftnl_chain_get_str(c, NFTNL_CHAIN_NAME)))) {
		err = -ENOSPC;
		goto out;
	}
	if (nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM)) {
		sc->base = true;
		sc->hook = nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM);
		sc->prio = nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO);
		sc->policy = nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY);
		if (nftnl_chain_is_set(c, NFTNL_CHAIN_TYPE))
			snprintf(sc->type, sizeof(sc->type), "%s",
				 nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE));
		/* netdev family: the hook's device (one device per chain) */
		if (nftnl_chain_is_set(c, NFTNL_CHAIN_DEV))
			snprintf(sc->dev, sizeof(sc->dev), "%s",
				 nftnl_chain_get_str(c, NFTNL_CHAIN_DEV));
	}
out:
	nftnl_chain_free(c);
	return err;
}

int sw_decode_set(const struct nlmsghdr *nlh, struct sw_model *m)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct sw_set *ss;
	int err = 0;

	if (!s)
		return -ENOMEM;
	if (sw_nft_validate(nlh, SW_NFT_SET) || nftnl_set_nlmsg_parse(nlh, s) < 0) {
		err = -EBADMSG;
		goto out;
	}
	if (!ours(nftnl_set_get_str(s, NFTNL_SET_TABLE),
		  nftnl_set_get_u32(s, NFTNL_SET_FAMILY), m) ||
	    (nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS))
		goto out;       /* anonymous sets come with (extra) rules */
	if (!(ss = sw_model_add_set(m, nftnl_set_get_str(s, NFTNL_SET_NAME)))) {
		err = -ENOSPC;
		goto out;
	}
	ss->key_type = nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE);
	ss->key_len = nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN);
	ss->flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	if (nftnl_set_is_set(s, NFTNL_SET_TIMEOUT))
		ss->timeout_ms = nftnl_set_get_u64(s, NFTNL_SET_TIMEOUT);
	if (nftnl_set_is_set(s, NFTNL_SET_DESC_SIZE))
		ss->size = nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE);
	if (nftnl_set_is_set(s, NFTNL_SET_DESC_CONCAT)) {
		uint32_t len = 0;
		const uint8_t *f = nftnl_set_get_data(s, NFTNL_SET_DESC_CONCAT, &len);

		for (uint32_t i = 0; f && i < len && i < sizeof(ss->concat) && f[i]; i++)
			ss->concat[ss->n_concat++] = f[i];
	}
out:
	nftnl_set_free(s);
	return err;
}

/* ---- set elements without libnftnl objects -------------------------------
 * A dump of a 10,000-element set is 10,000 libnftnl element objects, each
 * allocated, filled and freed: ~1,500 instructions an element, a fifth of
 * a one-entry `sandwall apply`. The elements this program makes carry only
 * a key, maybe a key end and maybe flags; such a message is read straight
 * from its attributes. Anything else (data, timeouts, expressions, user
 * data, a key that is not a plain value, an attribute libnftnl would
 * refuse) goes to the libnftnl path, which decides as before. Applied
 * after sw_nft_validate, and with libnftnl's rules: the last of a repeated
 * attribute wins, a nest's walk stops where its attributes stop fitting
 * (the project's one bounded walk, sw_nlattr_for_each in nlmsg.h). */

/* for each attribute inside the nest `nest` */
#define nest_for_each(a, nest, off) \
	sw_nlattr_for_each(a, mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), off)

/* NFTA_SET_ELEM_KEY / KEY_END: only NFTA_DATA_VALUE of at most 64 bytes
 * (libnftnl's data register) -> val and len (NULL and 0 when there is none). */
static bool plain_key(const struct nlattr *nest, const void **val, uint16_t *len)
{
	const struct nlattr *a;
	size_t off;

	*val = NULL;
	*len = 0;
	nest_for_each(a, nest, off) {
		if (mnl_attr_get_type(a) != NFTA_DATA_VALUE ||
		    mnl_attr_get_payload_len(a) > 64)
			return false;
		*val = mnl_attr_get_payload(a);
		*len = mnl_attr_get_payload_len(a);
	}
	return true;
}

/* One NFTA_LIST_ELEM -> *se, or false when it is not a plain element. */
static bool plain_elem(const struct nlattr *nest, struct sw_elem *se)
{
	const struct nlattr *a, *key = NULL, *end = NULL, *flags = NULL;
	const void *v;
	uint16_t len;
	size_t off;

	nest_for_each(a, nest, off) {
		switch (mnl_attr_get_type(a)) {
		case NFTA_SET_ELEM_KEY:
			key = a;
			break;
		case NFTA_SET_ELEM_KEY_END:
			end = a;
			break;
		case NFTA_SET_ELEM_FLAGS:
			if (mnl_attr_get_payload_len(a) != sizeof(uint32_t))
				return false;
			flags = a;
			break;
		default:
			return false;
		}
	}
	memset(se, 0, sizeof(*se));
	if (key) {
		if (!plain_key(key, &v, &len))
			return false;
		if (v)
			memcpy(se->key, v, len < SW_KEY_MAX ? len : SW_KEY_MAX);
	}
	if (end) {
		if (!plain_key(end, &v, &len))
			return false;
		if (v)
			memcpy(se->key_end, v, len < SW_KEY_MAX ? len : SW_KEY_MAX);
		se->has_key_end = true;
	}
	if (flags)
		se->flags = ntohl(mnl_attr_get_u32(flags));
	return true;
}

/* Is every element of the list plain (NULL: no list, nothing to read)? */
static bool elems_plain(const struct nlattr *elems)
{
	const struct nlattr *e;
	struct sw_elem se;
	size_t off;

	if (!elems)
		return true;
	nest_for_each(e, elems, off)
		if (mnl_attr_get_type(e) != NFTA_LIST_ELEM || !plain_elem(e, &se))
			return false;
	return true;
}

/* 1: decoded into m (or not ours: skipped); 0: not plain, use libnftnl
 * (nothing was added); -errno: what libnftnl's path would return. */
static int decode_elems_plain(const struct nlmsghdr *nlh, struct sw_model *m)
{
	const struct nfgenmsg *nfg = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *table = NULL, *set = NULL, *elems = NULL, *e;
	struct sw_set *ss;
	size_t first, off;

	sw_nlattr_for_each(a, mnl_nlmsg_get_payload_offset(nlh, sizeof(*nfg)),
			   mnl_nlmsg_get_payload_len(nlh) - sizeof(*nfg), off) {
		switch (mnl_attr_get_type(a)) {
		case NFTA_SET_ELEM_LIST_TABLE:
			table = a;
			break;
		case NFTA_SET_ELEM_LIST_SET:
			set = a;
			break;
		case NFTA_SET_ELEM_LIST_ELEMENTS:
			elems = a;
			break;
		case NFTA_SET_ELEM_LIST_SET_ID:
			break;
		default:
			return 0;
		}
	}
	/* libnftnl parses the elements first: a list it refuses is its
	 * error whoever owns it. The strings are NUL-terminated inside their
	 * attributes (sw_nft_validate). */
	if (!ours(table ? mnl_attr_get_str(table) : NULL, nfg->nfgen_family, m))
		return elems_plain(elems) ? 1 : 0;
	if (!set)
		return elems_plain(elems) ? -EBADMSG : 0;
	if (!(ss = sw_model_find_set(m, mnl_attr_get_str(set))))
		return elems_plain(elems) ? 1 : 0;
	if (!elems)
		return 1;
	first = ss->n_elems;
	nest_for_each(e, elems, off) {
		struct sw_elem se;
		int err;

		if (mnl_attr_get_type(e) != NFTA_LIST_ELEM || !plain_elem(e, &se)) {
			ss->n_elems = first;    /* undone: libnftnl reads it all */
			return 0;
		}
		if ((err = sw_set_add_elem(ss, &se)))
			return err;
	}
	return 1;
}

int sw_decode_elems(const struct nlmsghdr *nlh, struct sw_model *m)
{
	int rc;

	if (sw_nft_validate(nlh, SW_NFT_ELEMS))
		return -EBADMSG;
	rc = decode_elems_plain(nlh, m);
	if (rc)
		return rc < 0 ? rc : 0;
	return sw_decode_elems_nftnl(nlh, m);
}

int sw_decode_elems_nftnl(const struct nlmsghdr *nlh, struct sw_model *m)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct nftnl_set_elems_iter *it = NULL;
	struct nftnl_set_elem *e;
	struct sw_set *ss;
	int err = 0;

	if (!s)
		return -ENOMEM;
	if (sw_nft_validate(nlh, SW_NFT_ELEMS) || nftnl_set_elems_nlmsg_parse(nlh, s) < 0) {
		err = -EBADMSG;
		goto out;
	}
	if (!ours(nftnl_set_get_str(s, NFTNL_SET_TABLE),
		  nftnl_set_get_u32(s, NFTNL_SET_FAMILY), m))
		goto out;
	if (!nftnl_set_is_set(s, NFTNL_SET_NAME)) {
		err = -EBADMSG;         /* no NFTA_SET_ELEM_LIST_SET: whose elements? */
		goto out;
	}
	if (!(ss = sw_model_find_set(m, nftnl_set_get_str(s, NFTNL_SET_NAME))))
		goto out;
	if (!(it = nftnl_set_elems_iter_create(s))) {
		err = -ENOMEM;
		goto out;
	}
	while ((e = nftnl_set_elems_iter_next(it))) {
		struct sw_elem se;
		uint32_t len = 0;
		const void *k;

		memset(&se, 0, sizeof(se));
		k = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
		if (k)
			memcpy(se.key, k, len < SW_KEY_MAX ? len : SW_KEY_MAX);
		if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_KEY_END)) {
			k = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY_END, &len);
			if (k)
				memcpy(se.key_end, k, len < SW_KEY_MAX ? len : SW_KEY_MAX);
			se.has_key_end = true;
		}
		if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS))
			se.flags = nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS);
		if ((err = sw_set_add_elem(ss, &se)))
			break;
	}
out:
	if (it)
		nftnl_set_elems_iter_destroy(it);
	nftnl_set_free(s);
	return err;
}

int sw_decode_obj(const struct nlmsghdr *nlh, struct sw_model *m)
{
	struct nftnl_obj *o = nftnl_obj_alloc();
	int err = 0;

	if (!o)
		return -ENOMEM;
	if (sw_nft_validate(nlh, SW_NFT_OBJ) || nftnl_obj_nlmsg_parse(nlh, o) < 0) {
		err = -EBADMSG;
		goto out;
	}
	if (!ours(nftnl_obj_get_str(o, NFTNL_OBJ_TABLE),
		  nftnl_obj_get_u32(o, NFTNL_OBJ_FAMILY), m) ||
	    nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE) != NFT_OBJECT_COUNTER)
		goto out;
	if (!(err = sw_model_add_counter(m, nftnl_obj_get_str(o, NFTNL_OBJ_NAME)))) {
		m->counter_pkts[m->n_counters - 1] = nftnl_obj_get_u64(o, NFTNL_OBJ_CTR_PKTS);
		m->counter_bytes[m->n_counters - 1] = nftnl_obj_get_u64(o, NFTNL_OBJ_CTR_BYTES);
	}
out:
	nftnl_obj_free(o);
	return err;
}

int sw_decode_rule(const struct nlmsghdr *nlh, struct sw_model *m)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	char tag[SW_NAME_MAX], *canon = NULL;
	int err = 0;

	if (!r)
		return -ENOMEM;
	if (sw_nft_validate(nlh, SW_NFT_RULE) || nftnl_rule_nlmsg_parse(nlh, r) < 0) {
		err = -EBADMSG;
		goto out;
	}
	if (!ours(nftnl_rule_get_str(r, NFTNL_RULE_TABLE),
		  nftnl_rule_get_u32(r, NFTNL_RULE_FAMILY), m))
		goto out;
	if (!(canon = sw_rule_canon(r))) {
		err = -ENOMEM;
		goto out;
	}
	sw_rule_tag(r, tag, sizeof(tag));
	err = sw_model_add_rule(m, nftnl_rule_get_str(r, NFTNL_RULE_CHAIN), tag, canon,
				NULL, NULL);
	if (!err)
		m->rules[m->n_rules - 1].handle = nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE);
out:
	free(canon);
	nftnl_rule_free(r);
	return err;
}

struct dump_ctx {
	struct sw_model *m;
	int (*decode)(const struct nlmsghdr *, struct sw_model *);
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *d = data;

	return d->decode(nlh, d->m);
}

/* One GET request: dump (or get) of type for our table (and set). */
static int get(struct sw_nl *nl, struct sw_model *m, uint16_t type, bool dump,
	       const char *set, int (*decode)(const struct nlmsghdr *, struct sw_model *))
{
	char buf[1024];
	struct dump_ctx d = { m, decode };
	struct nlmsghdr *nlh;

	memset(buf, 0, sizeof(buf));
	nlh = nftnl_nlmsg_build_hdr(buf, type, (uint16_t)sw_model_family(m),
				    dump ? NLM_F_DUMP : NLM_F_ACK, sw_nl_next_seq(nl));
	/* the table name (and set name) filter the dump in the kernel */
	mnl_attr_put_strz(nlh, type == NFT_MSG_GETSETELEM ? NFTA_SET_ELEM_LIST_TABLE :
			  type == NFT_MSG_GETTABLE ? NFTA_TABLE_NAME :
			  type == NFT_MSG_GETSET ? NFTA_SET_TABLE :
			  type == NFT_MSG_GETOBJ ? NFTA_OBJ_TABLE :
			  type == NFT_MSG_GETCHAIN ? NFTA_CHAIN_TABLE : NFTA_RULE_TABLE,
			  m->table);
	if (set)
		mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, set);
	if (type == NFT_MSG_GETOBJ)
		mnl_attr_put_u32(nlh, NFTA_OBJ_TYPE, htonl(NFT_OBJECT_COUNTER));
	return sw_nl_dump(nl, nlh, dump_cb, &d);
}

static int observe_once(struct sw_nl *nl, struct sw_model *m)
{
	int err;

	err = get(nl, m, NFT_MSG_GETTABLE, false, NULL, sw_decode_table);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	if ((err = get(nl, m, NFT_MSG_GETOBJ, true, NULL, sw_decode_obj)) ||
	    (err = get(nl, m, NFT_MSG_GETSET, true, NULL, sw_decode_set)))
		return err;
	for (size_t i = 0; i < m->n_sets; i++)
		if (!sw_set_dynamic(&m->sets[i]) &&
		    (err = get(nl, m, NFT_MSG_GETSETELEM, true, m->sets[i].name, sw_decode_elems)))
			return err;
	if ((err = get(nl, m, NFT_MSG_GETCHAIN, true, NULL, sw_decode_chain)) ||
	    (err = get(nl, m, NFT_MSG_GETRULE, true, NULL, sw_decode_rule)))
		return err;
	for (size_t i = 0; i < m->n_sets; i++)
		sw_set_sort(&m->sets[i]);
	return 0;
}

int sw_observe_table(struct sw_nl *nl, const char *table, bool *present, uint32_t *flags)
{
	struct sw_model m;
	int err;

	sw_model_init(&m, table);
	err = get(nl, &m, NFT_MSG_GETTABLE, false, NULL, sw_decode_table);
	*present = m.has_table;
	*flags = m.table_flags;
	sw_model_free(&m);
	return err == -ENOENT ? 0 : err;
}

int sw_observe_counters(struct sw_nl *nl, const char *table, struct sw_model *m)
{
	int err;

	sw_model_init(m, table);
	if ((err = sw_nl_getgen(nl, &m->genid)))
		return err;
	err = get(nl, m, NFT_MSG_GETTABLE, false, NULL, sw_decode_table);
	if (err == -ENOENT)
		return 0;
	if (!err)
		err = get(nl, m, NFT_MSG_GETOBJ, true, NULL, sw_decode_obj);
	if (err) {
		sw_model_free(m);
		sw_model_init(m, table);
	}
	return err;
}

int sw_observe_family(struct sw_nl *nl, uint32_t family, const char *table, struct sw_model *m)
{
	int err = -EAGAIN;

	for (int i = 0; i < OBSERVE_TRIES; i++) {
		uint32_t g1, g2;

		sw_model_init(m, table);
		m->family = family;
		if ((err = sw_nl_getgen(nl, &g1)))
			break;
		err = observe_once(nl, m);
		if (err == -EINTR || err == -ENOENT) {
			/* a set or the table vanished mid-dump: the ruleset moved */
			sw_model_free(m);
			continue;
		}
		if (err)
			break;
		if ((err = sw_nl_getgen(nl, &g2)))
			break;
		if (g1 == g2) {
			m->genid = g1;
			return 0;
		}
		sw_model_free(m);
		err = -EAGAIN;
	}
	sw_model_free(m);
	sw_model_init(m, table);
	m->family = family;
	return err;
}

int sw_observe(struct sw_nl *nl, const char *table, struct sw_model *m)
{
	return sw_observe_family(nl, NFPROTO_INET, table, m);
}
