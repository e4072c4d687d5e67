// SPDX-License-Identifier: GPL-2.0-or-later
/* events: netlink subscriptions for the daemon (see include/host/events.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "host/events.h"
#include "core/model.h"
#include "kernel/nlmsg.h"

#define EV_BUF (64 * 1024)     /* event datagrams are a few KiB */
#define EV_REC (64 * 1024)     /* one transaction's messages about our table: a
				* tamper is a few hundred bytes; a delete table
				* of ours ~10 KiB; more is lost (rec_lost) */

/* What a message does to our table, most severe first. */
static const struct {
	uint16_t type;
	const char *what;
} kinds[] = {
	{ NFT_MSG_DELTABLE, "delete table" },
	{ NFT_MSG_NEWTABLE, "change table" },
	{ NFT_MSG_DELCHAIN, "delete chain" },
	{ NFT_MSG_NEWCHAIN, "add or change chain" },
	{ NFT_MSG_DELSET, "delete set" },
	{ NFT_MSG_NEWSET, "add set" },
	{ NFT_MSG_DELOBJ, "delete counter" },
	{ NFT_MSG_NEWOBJ, "add counter" },
	{ NFT_MSG_DELRULE, "delete rule" },
	{ NFT_MSG_NEWRULE, "add rule" },
	{ NFT_MSG_DELSETELEM, "delete element" },
	{ NFT_MSG_NEWSETELEM, "add element" },
};

static int kind_rank(uint16_t type)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].type == type)
			return (int)i;
	return -1;
}

/* Every nf_tables object message names its table in attribute 1
 * (NFTA_TABLE_NAME, NFTA_CHAIN_TABLE, NFTA_RULE_TABLE, NFTA_SET_TABLE,
 * NFTA_SET_ELEM_LIST_TABLE, NFTA_OBJ_TABLE). */
static bool names_table(const struct nlmsghdr *nlh, const char *table)
{
	const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	/* table inet <name>, table netdev <name> of the macvlan parents and
	 * table bridge <name> of the ports' bindings */
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*g)) ||
	    (g->nfgen_family != NFPROTO_INET && g->nfgen_family != NFPROTO_NETDEV &&
	     g->nfgen_family != NFPROTO_BRIDGE))
		return false;
	mnl_attr_for_each(a, nlh, sizeof(*g)) {
		if (mnl_attr_get_type(a) == 1 && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			return !strcmp(mnl_attr_get_str(a), table);
	}
	return false;
}

/* What one message names, after the kind: "in chain guard
 * (sandwall:metadata4)", "of set sbx_a_q4 (2 elements)", "block_host". Bytes
 * from the kernel, written by any process: each attribute validated. */
static void describe(const struct nlmsghdr *nlh, uint16_t type, char *out, size_t len)
{
	const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);
	const char *name = NULL, *comment = NULL;
	const struct nlattr *a, *e;
	unsigned elems = 0;
	int name_attr = -1;

	out[0] = '\0';
	switch (type) {
	case NFT_MSG_NEWCHAIN: case NFT_MSG_DELCHAIN: name_attr = NFTA_CHAIN_NAME; break;
	case NFT_MSG_NEWRULE: case NFT_MSG_DELRULE: name_attr = NFTA_RULE_CHAIN; break;
	case NFT_MSG_NEWSET: case NFT_MSG_DELSET: name_attr = NFTA_SET_NAME; break;
	case NFT_MSG_NEWSETELEM: case NFT_MSG_DELSETELEM: name_attr = NFTA_SET_ELEM_LIST_SET; break;
	case NFT_MSG_NEWOBJ: case NFT_MSG_DELOBJ: name_attr = NFTA_OBJ_NAME; break;
	default: break;
	}
	mnl_attr_for_each(a, nlh, sizeof(*g)) {
		int t = mnl_attr_get_type(a);

		if (t == name_attr && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			name = mnl_attr_get_str(a);
		else if ((type == NFT_MSG_NEWRULE || type == NFT_MSG_DELRULE) &&
			 t == NFTA_RULE_USERDATA && mnl_attr_validate(a, MNL_TYPE_BINARY) == 0)
			comment = sw_udata_comment(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
		else if ((type == NFT_MSG_NEWSETELEM || type == NFT_MSG_DELSETELEM) &&
			 t == NFTA_SET_ELEM_LIST_ELEMENTS && mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
			mnl_attr_for_each_nested(e, a)
				elems++;
	}
	if (!name)
		return;
	switch (type) {
	case NFT_MSG_NEWRULE: case NFT_MSG_DELRULE:
		/* a rule's comment is ours ("sandwall:...") or nobody's */
		snprintf(out, len, " in chain %.32s (%.48s)", name,
			 comment && !strncmp(comment, "sandwall:", 9) ? comment : "untagged");
		break;
	case NFT_MSG_NEWSETELEM: case NFT_MSG_DELSETELEM:
		snprintf(out, len, " of set %.32s (%u element%s)", name, elems, elems == 1 ? "" : "s");
		break;
	default:
		snprintf(out, len, " %.32s", name);
		break;
	}
}

static void parse_gen(const struct nlmsghdr *nlh, struct sw_nft_txn *t)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		switch (mnl_attr_get_type(a)) {
		case NFTA_GEN_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				t->genid = ntohl(mnl_attr_get_u32(a));
			break;
		case NFTA_GEN_PROC_PID:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				t->pid = ntohl(mnl_attr_get_u32(a));
			break;
		case NFTA_GEN_PROC_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(t->comm, sizeof(t->comm), "%s", mnl_attr_get_str(a));
			break;
		}
	}
}

void sw_events_txn_reset(struct sw_nft_txn *t)
{
	uint8_t *rec = t->rec;
	size_t cap = t->rec_cap;

	memset(t, 0, sizeof(*t));
	t->rec = rec;
	t->rec_cap = cap;
}

/* Keep a message about our table for the caller (sw_hint.txn). */
static void record(struct sw_nft_txn *t, const struct nlmsghdr *nlh)
{
	size_t len = NLMSG_ALIGN(nlh->nlmsg_len);

	if (!t->rec)
		return;
	if (len < nlh->nlmsg_len || len > t->rec_cap - t->rec_len) {
		t->rec_lost = true;
		return;
	}
	memcpy(t->rec + t->rec_len, nlh, nlh->nlmsg_len);
	memset(t->rec + t->rec_len + nlh->nlmsg_len, 0, len - nlh->nlmsg_len);
	t->rec_len += len;
}

void sw_events_parse_nft(const void *buf, size_t len, const char *table,
			 struct sw_nft_txn *cur, sw_nft_txn_cb cb, void *data)
{
	const struct nlmsghdr *nlh;
	size_t off;

	sw_nlmsg_for_each(nlh, buf, len, off) {
		uint16_t type;
		int rank;

		if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES)
			continue;
		type = NFNL_MSG_TYPE(nlh->nlmsg_type);
		if (type == NFT_MSG_NEWGEN) {
			parse_gen(nlh, cur);
			if (cb)
				cb(cur, data);
			sw_events_txn_reset(cur);
			continue;
		}
		if (!names_table(nlh, table))
			continue;
		record(cur, nlh);
		if ((rank = kind_rank(type)) < 0)
			continue;
		if (!cur->touched || rank < cur->worst) {
			char obj[128];

			cur->worst = rank;
			describe(nlh, type, obj, sizeof(obj));
			snprintf(cur->change, sizeof(cur->change), "%s%s", kinds[rank].what, obj);
		}
		cur->touched = true;
		cur->table_deleted |= type == NFT_MSG_DELTABLE;
		cur->n_changes++;
	}
}

bool sw_events_parse_rt(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh;
	size_t off;

	sw_nlmsg_for_each(nlh, buf, len, off)
		if (nlh->nlmsg_type >= RTM_NEWLINK && nlh->nlmsg_type <= RTM_DELROUTE)
			return true;
	return false;
}

static struct mnl_socket *sub(int bus, unsigned groups_or_grp, bool add_membership, int *rcvbuf)
{
	struct mnl_socket *s = mnl_socket_open2(bus, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int size = SW_EV_RCVBUF_MIN;

	if (!s)
		return NULL;
	if (mnl_socket_bind(s, add_membership ? 0 : groups_or_grp, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	if (add_membership &&
	    mnl_socket_setsockopt(s, NETLINK_ADD_MEMBERSHIP, &groups_or_grp,
				  sizeof(groups_or_grp)) < 0)
		goto fail;
	/* root may exceed rmem_max; fall back to the ordinary limit */
	if (setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	*rcvbuf = size;
	return s;
fail:
	mnl_socket_close(s);
	return NULL;
}

int sw_events_open(struct sw_events *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->buf = malloc(EV_BUF);
	ev->txn.rec = malloc(EV_REC);
	if (!ev->buf || !ev->txn.rec) {
		free(ev->buf);
		free(ev->txn.rec);
		ev->buf = NULL;
		ev->txn.rec = NULL;
		return -ENOMEM;
	}
	ev->txn.rec_cap = EV_REC;
	return sw_events_reopen(ev);
}

/* The rtnetlink subscriber sits on the sw_nl transport (the host
 * tracker's test seam): links, v4/v6 addresses, v4/v6 routes. */
static int sub_rt(struct sw_events *ev)
{
	int size = SW_EV_RCVBUF_MIN, fd, err;

	err = sw_nl_open_route(&ev->rtnl, RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
			       RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE);
	if (err)
		return err;
	fd = sw_nl_fd(&ev->rtnl);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	ev->rt_rcvbuf = size;
	ev->rt = ev->rtnl.sock;
	return 0;
}

static void close_rt(struct sw_events *ev)
{
	if (ev->rtnl.rbuf)
		sw_nl_close(&ev->rtnl);
	ev->rt = NULL;
}

int sw_events_reopen(struct sw_events *ev)
{
	int err;

	if (ev->nft)
		mnl_socket_close(ev->nft);
	close_rt(ev);
	ev->nft = sub(NETLINK_NETFILTER, NFNLGRP_NFTABLES, true, &ev->nft_rcvbuf);
	if (!ev->nft)
		return errno ? -errno : -EIO;
	if ((err = sub_rt(ev))) {
		mnl_socket_close(ev->nft);
		ev->nft = NULL;
		return err;
	}
	sw_events_txn_reset(&ev->txn);
	return 0;
}

void sw_events_close(struct sw_events *ev)
{
	if (ev->nft)
		mnl_socket_close(ev->nft);
	close_rt(ev);
	free(ev->buf);
	free(ev->txn.rec);
	memset(ev, 0, sizeof(*ev));
}

int sw_events_nft_fd(const struct sw_events *ev)
{
	return ev->nft ? mnl_socket_get_fd(ev->nft) : -1;
}

int sw_events_rt_fd(const struct sw_events *ev)
{
	return ev->rt ? mnl_socket_get_fd(ev->rt) : -1;
}

/* Events were lost: grow the buffer (bounded) and tell the caller. */
static int lost(struct sw_events *ev, struct mnl_socket *s, int *rcvbuf)
{
	int size = *rcvbuf * 2;

	ev->enobufs++;
	if (size > SW_EV_RCVBUF_MAX)
		size = SW_EV_RCVBUF_MAX;
	if (setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) == 0)
		*rcvbuf = size;
	return -ENOBUFS;
}

/* One datagram from the kernel; 0 when nothing is queued. */
static ssize_t recv_kernel(struct mnl_socket *s, void *buf, size_t len)
{
	return sw_nl_recv_kernel(mnl_socket_get_fd(s), buf, len, MSG_DONTWAIT);
}

int sw_events_read_nft(struct sw_events *ev, const char *table, sw_nft_txn_cb cb, void *data)
{
	for (;;) {
		ssize_t n = recv_kernel(ev->nft, ev->buf, EV_BUF);

		if (n == -ENOBUFS) {
			sw_events_txn_reset(&ev->txn);
			return lost(ev, ev->nft, &ev->nft_rcvbuf);
		}
		if (n <= 0)
			return (int)n;
		sw_events_parse_nft(ev->buf, (size_t)n, table, &ev->txn, cb, data);
	}
}

int sw_events_read_rt(struct sw_events *ev, bool *changed)
{
	for (;;) {
		ssize_t n = recv_kernel(ev->rt, ev->buf, EV_BUF);

		if (n == -ENOBUFS) {
			*changed = true;
			return lost(ev, ev->rt, &ev->rt_rcvbuf);
		}
		if (n <= 0)
			return (int)n;
		if (sw_events_parse_rt(ev->buf, (size_t)n))
			*changed = true;
	}
}

int sw_events_track_rt(struct sw_events *ev, struct sw_nl *dump_nl, struct sw_host *h,
		       struct sw_host_delta *dl)
{
	int rc = sw_host_track(&ev->rtnl, dump_nl, h, dl);

	return rc == -ENOBUFS ? lost(ev, ev->rt, &ev->rt_rcvbuf) : rc;
}
