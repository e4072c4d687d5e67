// SPDX-License-Identifier: GPL-2.0-or-later
/* derive: what the kernel holds after one transaction, from its events.
 *
 * The daemon knows the generation at which the kernel was last seen to
 * hold want (a read-back that matched). When the next generation is one
 * transaction by another process, the nf_tables events of that
 * transaction are every change it made to our table: the kernel sends one
 * message per object changed (a flushed chain: a DELRULE per rule; a
 * flushed set: a DELSETELEM per element; a deleted table: its rules,
 * sets and chains, then the table). Applied to a copy of want, they give
 * the table the kernel holds at the transaction's generation, and the
 * repair is the ordinary one (send_fix) against that model, stamped with
 * that generation: if anything else moved meanwhile the kernel refuses
 * it with ERESTART. What this does not follow (-EOPNOTSUPP) is observed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "kernel/nlmsg.h"
#include "kernel/observe.h"
#include "sync/derive.h"

/* A rule placed where a chain's rules changed: the chain then differs
 * from want, and the repair flushes and refills it (what send_fix does
 * for any chain whose rules differ, whatever they are). */
#define CHANGED_CANON "(rules changed by another process)"

/* The string attribute type of a message (NUL-terminated), or NULL. */
static const char *attr_str(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;
	size_t off;

	sw_nlattr_for_each(a, mnl_nlmsg_get_payload_offset(nlh, sizeof(struct nfgenmsg)),
			   sw_nlmsg_payload_len(nlh) - sizeof(struct nfgenmsg), off)
		if (mnl_attr_get_type(a) == type)
			return mnl_attr_validate(a, MNL_TYPE_NUL_STRING) ? NULL : mnl_attr_get_str(a);
	return NULL;
}

static struct sw_chain *find_chain_i(struct sw_model *m, const char *name, size_t *i)
{
	for (*i = 0; name && *i < m->n_chains; (*i)++)
		if (!strcmp(m->chains[*i].name, name))
			return &m->chains[*i];
	return NULL;
}

/* The chains whose rules changed: their rules go, one CHANGED_CANON
 * rule stands in for them. */
static int mark_chains(struct sw_model *m, const bool *changed)
{
	size_t j = 0;
	int err = 0;

	for (size_t i = 0; i < m->n_rules; i++) {
		size_t c;

		if (find_chain_i(m, m->rules[i].chain, &c) && changed[c]) {
			free(m->rules[i].canon);
			free(m->rules[i].text);
			continue;
		}
		m->rules[j++] = m->rules[i];
	}
	m->n_rules = j;
	for (size_t c = 0; c < m->n_chains && !err; c++)
		if (changed[c])
			err = sw_model_add_rule(m, m->chains[c].name, "", CHANGED_CANON, NULL, NULL);
	return err;
}

/* Element compares one transaction may cost (a flush of a set of
 * thousands is a message per element): beyond it, observe. */
#define WORK_MAX (1u << 20)

struct derive {
	struct sw_model *have;
	struct sw_model *scratch;       /* decodes one message; initialised once */
	bool chain_changed[SW_MAX_CHAINS];
	bool set_changed[SW_MAX_SETS];
	size_t work;
};

/* The elements of one DELSETELEM/NEWSETELEM message, taken from or added
 * to have's set (sorted again at the end). */
static int apply_elems(struct derive *dv, const struct nlmsghdr *nlh, bool add)
{
	const char *name = attr_str(nlh, NFTA_SET_ELEM_LIST_SET);
	struct sw_set *s = sw_model_find_set(dv->have, name), *x;
	int err;

	if (!s)
		return -EOPNOTSUPP;     /* not a set of ours: an anonymous one, or new */
	if (sw_set_dynamic(s))
		return 0;               /* the packet path's state: never compared */
	if (!(x = sw_model_find_set(dv->scratch, name)) && !(x = sw_model_add_set(dv->scratch, name)))
		return -ENOMEM;
	x->key_len = s->key_len;
	x->flags = s->flags;
	x->n_elems = 0;
	if ((err = sw_decode_elems(nlh, dv->scratch)))
		return err;
	dv->set_changed[s - dv->have->sets] = true;
	for (size_t i = 0; i < x->n_elems && !err; i++) {
		size_t j;

		if ((dv->work += s->n_elems) > WORK_MAX)
			return -EOPNOTSUPP;
		for (j = 0; j < s->n_elems; j++)
			if (sw_elem_same(&x->elems[i], &s->elems[j], s->key_len))
				break;
		if (add && j < s->n_elems)
			err = -EOPNOTSUPP;      /* the kernel could not have added it */
		else if (add)
			err = sw_set_add_elem(s, &x->elems[i]);
		else if (j == s->n_elems)
			err = -EOPNOTSUPP;      /* nor deleted one it did not hold */
		else
			s->elems[j] = s->elems[--s->n_elems];
	}
	return err;
}

/* A NEWCHAIN of one of our chains: what can change in place, its policy. */
static int apply_chain(struct derive *dv, const struct nlmsghdr *nlh)
{
	size_t i;
	struct sw_chain *c = find_chain_i(dv->have, attr_str(nlh, NFTA_CHAIN_NAME), &i);
	int err;

	if (!c)
		return -EOPNOTSUPP;     /* a chain added, or one renamed */
	dv->scratch->n_chains = 0;
	err = sw_decode_chain(nlh, dv->scratch);
	if (!err && (dv->scratch->n_chains != 1 || !sw_chain_same_hook(&dv->scratch->chains[0], c)))
		err = -EOPNOTSUPP;
	if (!err)
		c->policy = dv->scratch->chains[0].policy;
	return err;
}

static int apply(struct derive *dv, const struct nlmsghdr *nlh)
{
	size_t c;

	switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
	case NFT_MSG_NEWRULE:
	case NFT_MSG_DELRULE:
		if (!find_chain_i(dv->have, attr_str(nlh, NFTA_RULE_CHAIN), &c))
			return -EOPNOTSUPP;
		dv->chain_changed[c] = true;
		return 0;
	case NFT_MSG_NEWSETELEM:
	case NFT_MSG_DELSETELEM:
		return apply_elems(dv, nlh, NFNL_MSG_TYPE(nlh->nlmsg_type) == NFT_MSG_NEWSETELEM);
	case NFT_MSG_NEWCHAIN:
		return apply_chain(dv, nlh);
	default:
		/* the table's flags, a chain, set or counter made or
		 * deleted, a flowtable, ...: observe */
		return -EOPNOTSUPP;
	}
}

int sw_model_from_events(const struct sw_model *want, const uint8_t *msgs, size_t len,
			 uint32_t genid, struct sw_model *have)
{
	struct derive *dv = NULL;
	const struct nlmsghdr *nlh;
	size_t off, deleted = 0;        /* the messages up to the table's deletion */
	int err = 0;

	sw_model_init(have, want->table);
	have->family = want->family;
	if (!msgs || !len)
		return -EOPNOTSUPP;
	/* ours (events.c recorded only messages naming our table), of our
	 * family; a deleted table: what went before it went with it, and
	 * anything after it (the table made again) is not followed */
	sw_nlmsg_for_each(nlh, msgs, len, off) {
		const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);

		if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES ||
		    sw_nlmsg_payload_len(nlh) < sizeof(*g) ||
		    g->nfgen_family != sw_model_family(want))
			return -EOPNOTSUPP;
		if (NFNL_MSG_TYPE(nlh->nlmsg_type) == NFT_MSG_DELTABLE)
			deleted = off;
	}
	if (off != len || (deleted && deleted != len))
		return -EOPNOTSUPP;
	have->genid = genid;
	if (deleted)
		return 0;               /* has_table false: the repair creates it */
	if (!(dv = calloc(1, sizeof(*dv))) || !(dv->scratch = malloc(sizeof(*dv->scratch)))) {
		err = -ENOMEM;
		goto out;
	}
	sw_model_init(dv->scratch, want->table);
	dv->scratch->family = want->family;
	dv->have = have;
	if ((err = sw_model_copy(have, want)))
		goto out;
	have->genid = genid;
	sw_nlmsg_for_each(nlh, msgs, len, off)
		if ((err = apply(dv, nlh)))
			break;
	for (size_t i = 0; i < have->n_sets && !err; i++)
		if (dv->set_changed[i])
			sw_set_sort(&have->sets[i]);
	if (!err)
		err = mark_chains(have, dv->chain_changed);
out:
	if (dv && dv->scratch) {
		sw_model_free(dv->scratch);
		free(dv->scratch);
	}
	free(dv);
	if (err) {
		sw_model_free(have);
		sw_model_init(have, want->table);
		have->family = want->family;
		return err == -ENOMEM ? err : -EOPNOTSUPP;
	}
	return 0;
}
