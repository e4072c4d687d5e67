// SPDX-License-Identifier: GPL-2.0-or-later
/* commit: every nf_tables batch, framed, sent, acknowledged and, when
 * refused, named (see include/kernel/commit.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "kernel/commit.h"
#include "kernel/nlmsg.h"

uint32_t sw_gen_after(uint32_t gen)
{
	return gen + 1 ? gen + 1 : 1;
}

/* ---- framing ------------------------------------------------------------ */

static int batch_grow(struct sw_batch *b, size_t room)
{
	uint8_t *n;
	size_t cap = b->cap ? b->cap : 65536;

	if (b->err)
		return b->err;
	if (b->len + room <= b->cap)
		return 0;
	while (b->len + room > cap)
		cap *= 2;
	n = realloc(b->buf, cap);
	if (!n)
		return b->err = -ENOMEM;
	/* zero the new space: libnftnl builders expect a clean header */
	memset(n + b->cap, 0, cap - b->cap);
	b->buf = n;
	b->cap = cap;
	return 0;
}

/* BATCH_BEGIN / BATCH_END for the nf_tables subsystem */
static struct nlmsghdr *batch_hdr(struct sw_batch *b, uint16_t type, uint32_t seq)
{
	struct nlmsghdr *nlh;
	struct nfgenmsg *g;

	if (batch_grow(b, 256))
		return NULL;
	nlh = mnl_nlmsg_put_header(b->buf + b->len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons(NFNL_SUBSYS_NFTABLES);
	return nlh;
}

int sw_batch_init(struct sw_batch *b, struct sw_nl *nl, enum sw_gen_policy gen,
		  uint32_t genid)
{
	struct nlmsghdr *nlh;

	memset(b, 0, sizeof(*b));
	b->begin_seq = sw_nl_next_seq(nl);
	nlh = batch_hdr(b, NFNL_MSG_BATCH_BEGIN, b->begin_seq);
	if (!nlh)
		return b->err;
	/* the kernel refuses the batch with ERESTART if the ruleset moved */
	b->stamped = gen == SW_GEN_REQUIRE || gen == SW_GEN_CURRENT ||
		     (gen == SW_GEN_IF_KNOWN && genid);
	b->genid = b->stamped ? genid : 0;
	if (b->stamped)
		mnl_attr_put_u32(nlh, NFNL_BATCH_GENID, htonl(genid));
	b->len += nlh->nlmsg_len;
	b->first_seq = b->begin_seq + 1;
	return 0;
}

void *sw_batch_reserve(struct sw_batch *b, size_t room)
{
	if (batch_grow(b, room))
		return NULL;
	memset(b->buf + b->len, 0, room);
	return b->buf + b->len;
}

void sw_batch_add(struct sw_batch *b, struct sw_nl *nl, struct nlmsghdr *nlh,
		  const struct sw_intent *what)
{
	uint32_t seq = sw_nl_next_seq(nl);

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	b->len += nlh->nlmsg_len;
	if (b->n_msgs == b->cap_intent && !b->err) {
		size_t cap = b->cap_intent ? b->cap_intent * 2 : 64;
		struct sw_intent *n = realloc(b->intent, cap * sizeof(*n));

		if (n) {
			b->intent = n;
			b->cap_intent = cap;
		} else {
			b->err = -ENOMEM;
		}
	}
	if (b->n_msgs < b->cap_intent)
		b->intent[b->n_msgs] = *what;
	b->n_msgs++;
}

int sw_batch_finish(struct sw_batch *b, struct sw_nl *nl)
{
	struct nlmsghdr *nlh = batch_hdr(b, NFNL_MSG_BATCH_END, sw_nl_next_seq(nl));

	if (!nlh)
		return b->err;
	b->len += nlh->nlmsg_len;
	return b->err;
}

void sw_batch_free(struct sw_batch *b)
{
	free(b->buf);
	free(b->intent);
	memset(b, 0, sizeof(*b));
}

/* ---- sending and the ACKs ---------------------------------------------- */

/* Read what is still queued without waiting (answers we no longer need). */
static void drain(struct sw_nl *nl)
{
	while (nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, 0) > 0)
		;
}

/* Every answer of one datagram: the BEGIN's (the batch as a whole:
 * ERESTART when the generation moved, EPERM, a failed commit) ends the
 * wait; each inner message's is counted once, and the first error kept
 * with its text and the offset the kernel gave. 1: the BEGIN refused,
 * 0: go on, -EBADMSG: a message runs past the datagram. */
static int read_acks(struct sw_nl *nl, struct sw_batch *b, size_t n, uint8_t *seen,
		     uint32_t *pending, int *first_err, uint32_t *ext_off)
{
	const struct nlmsghdr *nlh;
	size_t off;

	sw_nlmsg_for_each(nlh, nl->rbuf, n, off) {
		uint32_t idx;
		int err;

		if (nlh->nlmsg_type != NLMSG_ERROR || !sw_nl_from_kernel(nl, nlh))
			continue;
		err = sw_nl_ack_code(nlh);
		if (nlh->nlmsg_seq == b->begin_seq) {
			if (!err)
				continue;
			*first_err = err;
			sw_nl_ack_text(nl, nlh, NULL);
			return 1;
		}
		idx = nlh->nlmsg_seq - b->first_seq;     /* wraps safely */
		if (idx >= b->n_msgs || seen[idx])
			continue;                       /* stale or repeated */
		seen[idx] = 1;
		(*pending)--;
		if (err && !*first_err) {
			*first_err = err;
			nl->err_index = (int)idx;
			sw_nl_ack_text(nl, nlh, ext_off);
		}
	}
	return off == n ? 0 : -EBADMSG;
}

int sw_nl_send_batch(struct sw_nl *nl, struct sw_batch *b)
{
	uint32_t pending = b->n_msgs, ext_off = 0;
	uint8_t *seen = NULL;
	int first_err = 0, r;
	ssize_t n;

	nl->errmsg[0] = '\0';
	nl->errobj[0] = '\0';
	nl->err_index = -1;
	if (b->err)
		return b->err;
	seen = calloc(b->n_msgs ? b->n_msgs : 1, 1);
	if (!seen)
		return -ENOMEM;
	n = nl->ops->send(nl->ctx, b->buf, b->len);
	if (n < 0) {
		first_err = (int)n;
		goto out;
	}
	/* The kernel handles the whole batch inside sendmsg, so every answer
	 * is queued by now; keep reading until each sequence number has one. */
	while (pending) {
		n = nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, 5000);
		if (n < 0) {
			first_err = (int)n;
			goto out;
		}
		if (n == 0) {
			first_err = first_err ? first_err : -ETIMEDOUT;
			goto out;
		}
		if ((size_t)n > SW_NL_RCVBUF) {
			first_err = -EMSGSIZE;
			goto out;
		}
		r = read_acks(nl, b, (size_t)n, seen, &pending, &first_err, &ext_off);
		if (r > 0) {
			drain(nl);
			goto out;
		}
		if (r < 0) {
			first_err = first_err ? first_err : r;
			goto out;
		}
	}
out:
	if (first_err && nl->err_index >= 0)
		sw_batch_describe(b, nl->err_index, ext_off, nl->errobj, sizeof(nl->errobj));
	free(seen);
	return first_err;
}

int sw_commit_send(struct sw_batch *b, struct sw_nl *nl, uint32_t *genid)
{
	int rc = sw_batch_finish(b, nl);

	if (!rc)
		rc = sw_nl_send_batch(nl, b);
	if (!rc && b->stamped && genid)
		*genid = sw_gen_after(b->genid);
	sw_batch_free(b);
	return rc;
}

int sw_commit(struct sw_nl *nl, enum sw_gen_policy gen, uint32_t *genid,
	      sw_commit_fill fill, const void *arg)
{
	uint32_t g = genid ? *genid : 0;
	struct sw_batch b;
	int rc;

	if (gen == SW_GEN_CURRENT && (rc = sw_nl_getgen(nl, &g)))
		return rc;
	nl->errobj[0] = '\0';
	if ((rc = sw_batch_init(&b, nl, gen, g)) == 0 && (rc = fill(&b, nl, arg)) == 0)
		return sw_commit_send(&b, nl, genid);
	sw_batch_free(&b);
	return rc;
}

void sw_commit_error(struct sw_nl *nl, const char *what, int rc, char *err, size_t errlen)
{
	const char *sep = nl->errobj[0] ? ": " : "";

	if (nl->errmsg[0])
		snprintf(err, errlen, "%s: %s (kernel: %s, message %d of the batch%s%s)", what,
			 strerror(-rc), nl->errmsg, nl->err_index, sep, nl->errobj);
	else if (nl->err_index >= 0)
		snprintf(err, errlen, "%s: %s (message %d of the batch%s%s)", what, strerror(-rc),
			 nl->err_index, sep, nl->errobj);
	else
		snprintf(err, errlen, "%s: %s", what, strerror(-rc));
}

/* ---- naming a refused message ------------------------------------------ */

static const struct {
	uint16_t msg;
	const char *verb;
} verbs[] = {
	{ NFT_MSG_NEWTABLE,   "add table" },
	{ NFT_MSG_DELTABLE,   "delete table" },
	{ NFT_MSG_NEWCHAIN,   "add chain" },
	{ NFT_MSG_DELCHAIN,   "delete chain" },
	{ NFT_MSG_NEWRULE,    "add rule in chain" },
	{ NFT_MSG_DELRULE,    "delete rules of chain" },
	{ NFT_MSG_NEWSET,     "add set" },
	{ NFT_MSG_DELSET,     "delete set" },
	{ NFT_MSG_NEWSETELEM, "add elements to set" },
	{ NFT_MSG_DELSETELEM, "delete elements of set" },
	{ NFT_MSG_NEWOBJ,     "add counter" },
	{ NFT_MSG_DELOBJ,     "delete counter" },
	{ NFT_MSG_NEWFLOWTABLE, "add flowtable" },
};

/* The refused message in the batch (by its sequence number). */
static const struct nlmsghdr *find_msg(const struct sw_batch *b, int index)
{
	const struct nlmsghdr *nlh;
	size_t off;

	sw_nlmsg_for_each(nlh, b->buf, b->len, off)
		if (nlh->nlmsg_seq == b->first_seq + (uint32_t)index)
			return nlh;
	return NULL;
}

/* The attribute of buf[0..len) (at message offset base) that holds the
 * message offset at, and how many there are before it (*nth, 1-based)
 * and in all (*count); NULL if none. */
static const struct nlattr *attr_at(const uint8_t *buf, size_t len, size_t base, size_t at,
				    unsigned *nth, unsigned *count)
{
	const struct nlattr *a, *hit = NULL;
	size_t off, start = 0;
	unsigned i = 0;

	sw_nlattr_for_each(a, buf, len, off) {
		i++;
		if (!hit && at >= base + start && at < base + start + a->nla_len) {
			hit = a;
			*nth = i;
		}
		start = off;
	}
	*count = i;
	return hit;
}

/* A nested attribute of type t inside a, or NULL. */
static const struct nlattr *nested(const struct nlattr *a, uint16_t t)
{
	const struct nlattr *c;
	size_t off;

	sw_nlattr_for_each(c, (const uint8_t *)a + NLA_HDRLEN, a->nla_len - NLA_HDRLEN, off)
		if ((c->nla_type & NLA_TYPE_MASK) == t)
			return c;
	return NULL;
}

/* Append to out[0..len) at *at, bounded. */
static void __attribute__((format(printf, 4, 5)))
put(char *out, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(out + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at = *at + (size_t)n < len ? *at + (size_t)n : len;
}

/* Element k of kc (the list attribute's child in), with its key. */
static void elem_text(const struct nlattr *in, unsigned k, unsigned kc, char *out, size_t len,
		      size_t *at)
{
	const struct nlattr *c;

	put(out, len, at, ", element %u of %u", k, kc);
	if ((c = nested(in, NFTA_SET_ELEM_KEY)) && (c = nested(c, NFTA_DATA_VALUE))) {
		const uint8_t *v = (const uint8_t *)c + NLA_HDRLEN;
		size_t n = c->nla_len - NLA_HDRLEN;

		put(out, len, at, " (key ");
		for (size_t i = 0; i < n && i < 16; i++)
			put(out, len, at, "%02x", v[i]);
		put(out, len, at, "%s", n > 16 ? "...)" : ")");
	}
}

/* The expression of a rule the kernel pointed at, by position and name. */
static void expr_text(const struct nlattr *in, unsigned k, char *out, size_t len, size_t *at)
{
	const struct nlattr *c = nested(in, NFTA_EXPR_NAME);
	char name[32] = "";

	if (c)
		snprintf(name, sizeof(name), "%.*s", (int)(c->nla_len - NLA_HDRLEN),
			 (const char *)c + NLA_HDRLEN);
	for (size_t i = 0; name[i]; i++)
		if (name[i] < 0x20 || name[i] >= 0x7f)
			name[i] = '?';
	put(out, len, at, ", expression %u (%s)", k, name);
}

/* The list a rule's expressions or a message's elements are in. */
static uint16_t list_attr(uint16_t type)
{
	if (type == NFT_MSG_NEWRULE)
		return NFTA_RULE_EXPRESSIONS;
	if (type == NFT_MSG_NEWSETELEM || type == NFT_MSG_DELSETELEM)
		return NFTA_SET_ELEM_LIST_ELEMENTS;
	return 0;
}

/* Where the kernel pointed (NLMSGERR_ATTR_OFFS, an offset from the start
 * of the refused message), appended to out: used only when it falls on an
 * attribute inside that message (the offset comes from the kernel's
 * answer: as iproute2 does, it is checked against the message length
 * before anything is read there). An expression of a rule and an element
 * are named, anything else by its attribute type. Without a usable
 * offset, the one element of a one-element message is named. */
static void describe_part(const struct nlmsghdr *nlh, uint32_t ext_off, char *out, size_t len)
{
	size_t base = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg)), at = strlen(out);
	const uint8_t *p = (const uint8_t *)nlh + base;
	uint16_t type = NFNL_MSG_TYPE(nlh->nlmsg_type), list = list_attr(type);
	const struct nlattr *a = NULL, *in = NULL;
	unsigned nth = 0, count = 0, k = 0, kc = 0;
	bool ok = ext_off >= base && ext_off % NLA_ALIGNTO == 0 && ext_off <= nlh->nlmsg_len &&
		  nlh->nlmsg_len - ext_off >= NLA_HDRLEN;

	if (ok)
		a = attr_at(p, nlh->nlmsg_len - base, base, ext_off, &nth, &count);
	if (a && list && (a->nla_type & NLA_TYPE_MASK) == list)
		in = attr_at((const uint8_t *)a + NLA_HDRLEN, a->nla_len - NLA_HDRLEN,
			     (size_t)((const uint8_t *)a - (const uint8_t *)nlh) + NLA_HDRLEN,
			     ext_off, &k, &kc);
	if (in && type == NFT_MSG_NEWRULE)
		expr_text(in, k, out, len, &at);
	else if (in)
		elem_text(in, k, kc, out, len, &at);
	else if (a)
		put(out, len, &at, ", attribute %u", a->nla_type & NLA_TYPE_MASK);
	else if (list == NFTA_SET_ELEM_LIST_ELEMENTS) {
		const struct nlattr *c;
		size_t off;

		/* no usable offset: a message of one element names it */
		sw_nlattr_for_each(c, p, nlh->nlmsg_len - base, off)
			if ((c->nla_type & NLA_TYPE_MASK) == list)
				a = c;
		if (a && (in = attr_at((const uint8_t *)a + NLA_HDRLEN, a->nla_len - NLA_HDRLEN,
				       0, 0, &k, &kc)) && kc == 1)
			elem_text(in, k, kc, out, len, &at);
	}
}

int sw_batch_describe(const struct sw_batch *b, int index, uint32_t ext_off,
		      char *out, size_t len)
{
	const struct nlmsghdr *nlh;
	const struct sw_intent *w;

	if (index < 0 || !len)
		return -EINVAL;
	out[0] = '\0';
	nlh = find_msg(b, index);
	if (!nlh || NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES ||
	    sw_nlmsg_payload_len(nlh) < sizeof(struct nfgenmsg))
		return -ENOENT;
	w = (size_t)index < b->cap_intent && (uint32_t)index < b->n_msgs ? &b->intent[index] : NULL;
	for (size_t i = 0; w && i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (verbs[i].msg != w->type)
			continue;
		snprintf(out, len, "%s %s%s%s%s", verbs[i].verb, w->name,
			 w->comment[0] ? " (comment \"" : "", w->comment,
			 w->comment[0] ? "\")" : "");
		describe_part(nlh, ext_off, out, len);
		return 0;
	}
	snprintf(out, len, "nf_tables message %u", NFNL_MSG_TYPE(nlh->nlmsg_type));
	return 0;
}
