// SPDX-License-Identifier: GPL-2.0-or-later
/* conntrack: forget flows opened toward a sandbox (see include/kernel/conntrack.h).
 * ctnetlink speaks on the same NETLINK_NETFILTER socket as nf_tables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "kernel/conntrack.h"
#include "kernel/nlmsg.h"

/* In an interval set as the kernel holds it (start elements, END markers
 * one past each range): the last element at or below addr decides. */
static bool in_interval_set(const struct sw_set *s, const uint8_t *addr, size_t len)
{
	const struct sw_elem *last = NULL;

	if (!s || s->key_len != len)
		return false;
	for (size_t i = 0; i < s->n_elems; i++) {
		if (memcmp(s->elems[i].key, addr, len) > 0)
			break;
		last = &s->elems[i];
	}
	return last && !(last->flags & NFT_SET_ELEM_INTERVAL_END);
}

bool sw_ct_sandbox_side(const struct sw_model *want, int family, const uint8_t *addr)
{
	if (family == AF_INET)
		return in_interval_set(sw_model_find_set(want, "own4"), addr, 4);
	if (family != AF_INET6)
		return false;
	if (addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80)
		return true;    /* link-local: own6 leaves it out, a primed flow may use it */
	return in_interval_set(sw_model_find_set(want, "own6"), addr, 16);
}

struct victims {
	const struct sw_model *want;
	uint8_t *buf;           /* copies of CTA_TUPLE_ORIG (and CTA_ZONE) per entry */
	size_t len, cap;
	size_t n;
	int err;
};

/* The source address in a CTA_TUPLE_* nest: 0 and family/addr, or -1. */
static int tuple_src(const struct nlattr *tuple, int *family, const uint8_t **addr)
{
	const struct nlattr *a, *ip = NULL;

	mnl_attr_for_each_nested(a, tuple) {
		if (mnl_attr_get_type(a) == CTA_TUPLE_IP)
			ip = a;
	}
	if (!ip)
		return -1;
	mnl_attr_for_each_nested(a, ip) {
		uint16_t t = mnl_attr_get_type(a);
		uint16_t n = mnl_attr_get_payload_len(a);

		if (t == CTA_IP_V4_SRC && n == 4) {
			*family = AF_INET;
			*addr = mnl_attr_get_payload(a);
			return 0;
		}
		if (t == CTA_IP_V6_SRC && n == 16) {
			*family = AF_INET6;
			*addr = mnl_attr_get_payload(a);
			return 0;
		}
	}
	return -1;
}

/* ctnetlink nests go at most tuple -> ip/proto -> values deep */
#define CT_NEST_DEPTH 4

static int keep(struct victims *v, uint8_t family, const struct nlattr *orig,
		const struct nlattr *zone)
{
	size_t need = 4 + MNL_ALIGN(orig->nla_len) + (zone ? MNL_ALIGN(zone->nla_len) : 0);
	uint8_t *p;

	if (v->n >= SW_CT_MAX_FORGET)
		return -E2BIG;
	if (v->len + need > v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;

		while (cap < v->len + need)
			cap *= 2;
		if (!(p = realloc(v->buf, cap)))
			return -ENOMEM;
		v->buf = p;
		v->cap = cap;
	}
	/* record: family, has-zone, 2 bytes pad; then the attributes */
	p = v->buf + v->len;
	p[0] = family;
	p[1] = zone != NULL;
	p[2] = p[3] = 0;
	memcpy(p + 4, orig, orig->nla_len);
	memset(p + 4 + orig->nla_len, 0, MNL_ALIGN(orig->nla_len) - orig->nla_len);
	if (zone)
		memcpy(p + 4 + MNL_ALIGN(orig->nla_len), zone, zone->nla_len);
	v->len += need;
	v->n++;
	return 0;
}

static int entry_cb(const struct nlmsghdr *nlh, void *data)
{
	struct victims *v = data;
	const struct nfgenmsg *g;
	const struct nlattr *a, *orig = NULL, *reply = NULL, *zone = NULL;
	const uint8_t *src;
	int family;

	if (nlh->nlmsg_type != ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW) ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*g))
		return 0;
	g = mnl_nlmsg_get_payload(nlh);
	mnl_attr_for_each(a, nlh, sizeof(*g)) {
		switch (mnl_attr_get_type(a)) {
		case CTA_TUPLE_ORIG: orig = a; break;
		case CTA_TUPLE_REPLY: reply = a; break;
		case CTA_ZONE:
			if (mnl_attr_get_payload_len(a) == 2)
				zone = a;
			break;
		}
	}
	if (!orig || !reply || !sw_nlattr_tree_ok(orig, CT_NEST_DEPTH) || !sw_nlattr_tree_ok(reply, CT_NEST_DEPTH) ||
	    tuple_src(reply, &family, &src) || family != g->nfgen_family)
		return 0;
	if (!sw_ct_sandbox_side(v->want, family, src))
		return 0;
	v->err = keep(v, g->nfgen_family, orig, zone);
	return v->err;
}

static int ack_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return 0;
}

int sw_ct_forget_inbound(struct sw_nl *nl, const struct sw_model *want, size_t *n)
{
	struct victims v = { .want = want };
	char req[8192];
	struct nlmsghdr *nlh;
	struct nfgenmsg *g;
	int rc;

	*n = 0;
	/* conntrack -L: every entry, both families */
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = sw_nl_next_seq(nl);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	rc = sw_nl_dump(nl, nlh, entry_cb, &v);
	if (rc == -EINTR)
		rc = 0;         /* an inconsistent dump: what we saw still goes */
	if (rc == -ENOENT || rc == -EOPNOTSUPP || rc == -EPROTONOSUPPORT)
		rc = 0;         /* no conntrack in this kernel or namespace: no state */
	/* conntrack -D per entry, by its original tuple (and zone) */
	for (size_t off = 0; !rc && off < v.len;) {
		const uint8_t *p = v.buf + off;
		const struct nlattr *orig = (const struct nlattr *)(p + 4);
		const struct nlattr *zone = p[1] ?
			(const struct nlattr *)(p + 4 + MNL_ALIGN(orig->nla_len)) : NULL;
		int err;

		off += 4 + MNL_ALIGN(orig->nla_len) + (zone ? MNL_ALIGN(zone->nla_len) : 0);
		if ((size_t)(4 + MNL_ALIGN(orig->nla_len) + 64) > sizeof(req))
			continue;
		nlh = mnl_nlmsg_put_header(req);
		nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		nlh->nlmsg_seq = sw_nl_next_seq(nl);
		g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
		g->nfgen_family = p[0];
		g->version = NFNETLINK_V0;
		memcpy((char *)nlh + nlh->nlmsg_len, orig, orig->nla_len);
		nlh->nlmsg_len += MNL_ALIGN(orig->nla_len);
		if (zone) {
			memcpy((char *)nlh + nlh->nlmsg_len, zone, zone->nla_len);
			nlh->nlmsg_len += MNL_ALIGN(zone->nla_len);
		}
		err = sw_nl_dump(nl, nlh, ack_cb, NULL);
		if (!err)
			(*n)++;
		else if (err != -ENOENT)
			rc = err;       /* gone meanwhile is fine; anything else is not */
	}
	free(v.buf);
	return rc ? rc : v.err;
}
