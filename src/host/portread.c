/* SPDX-License-Identifier: GPL-2.0-or-later */
/* portread: the bindings of bridge ports (core/portbind.h) read over
 * rtnetlink from the namespaces behind them, and kept up to date. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "host/portread.h"
#include "kernel/nl.h"
#include "core/ruleset.h"

struct read_ctx {
	struct sw_binds *out;
	const struct sw_link *port;     /* the port whose peer is being dumped */
	int err;
};

/* One RTM_NEWADDR of the peer's namespace: the peer's own addresses only */
static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct read_ctx *c = data;
	const struct ifaddrmsg *ifa;
	const struct nlattr *at, *local = NULL, *address = NULL;
	struct sw_prefix p = { 0 };
	size_t alen;

	if (nlh->nlmsg_type != RTM_NEWADDR || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa))
		return 0;
	ifa = mnl_nlmsg_get_payload(nlh);
	if ((int)ifa->ifa_index != c->port->peer_ifindex)
		return 0;       /* another device of that namespace */
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return 0;
	alen = ifa->ifa_family == AF_INET ? 4 : 16;
	mnl_attr_for_each(at, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_type(at) == IFA_LOCAL)
			local = at;
		else if (mnl_attr_get_type(at) == IFA_ADDRESS)
			address = at;
	}
	/* IFA_LOCAL is the address itself (IFA_ADDRESS is the peer's on a
	 * point-to-point link); IPv6 sends IFA_ADDRESS only */
	if (!local)
		local = address;
	if (!local || mnl_attr_get_payload_len(local) != alen)
		return 0;
	p.family = ifa->ifa_family;
	p.len = (uint8_t)(alen * 8);
	memcpy(p.addr, mnl_attr_get_payload(local), alen);
	/* fe80::/10: judged by destination (link-local stays on the link) */
	if (p.family == AF_INET6 && p.addr[0] == 0xfe && (p.addr[1] & 0xc0) == 0x80)
		return 0;
	if ((c->err = sw_binds_add(c->out, c->port, &p)))
		return c->err;
	return 0;
}

/* RTM_GETADDR family AF ifindex PEER, IFA_TARGET_NETNSID NSID */
static int dump_peer(struct sw_nl *nl, const struct sw_link *l, uint8_t af, struct read_ctx *c)
{
	uint8_t buf[NLMSG_HDRLEN + 64] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	int err;

	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (!(nlh->nlmsg_seq = sw_nl_next_seq(nl)))
		nlh->nlmsg_seq = sw_nl_next_seq(nl);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = af;
	ifa->ifa_index = (uint32_t)l->peer_ifindex;   /* a filter under strict checking */
	mnl_attr_put_u32(nlh, IFA_TARGET_NETNSID, (uint32_t)l->netnsid);
	c->port = l;
	c->err = 0;
	err = sw_nl_dump(nl, nlh, addr_cb, c);
	return err ? err : c->err;
}

static const struct sw_bound_port *port_rec(const struct sw_binds *b, int ifindex)
{
	for (size_t i = 0; i < b->n_ports; i++)     /* sorted by ifindex: see below */
		if (b->ports[i].ifindex == ifindex)
			return &b->ports[i];
	return NULL;
}

/* b's entries of port name (contiguous: b->v is sorted by port first) */
static size_t first_of(const struct sw_binds *b, const char *name)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(b->v[mid].port, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool moved(const struct sw_bound_port *p, const struct sw_link *l,
		  const int32_t *nsids, size_t n_nsids)
{
	if (p->netnsid != l->netnsid || p->peer_ifindex != l->peer_ifindex ||
	    strncmp(p->name, l->name, sizeof(p->name)))
		return true;
	for (size_t i = 0; i < n_nsids; i++)
		if (nsids[i] == l->netnsid)
			return true;
	return false;
}

int sw_portbind_refresh(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *h,
			struct sw_binds *b, const int32_t *nsids, size_t n_nsids, bool all)
{
	struct sw_binds out = { 0 };
	struct read_ctx c = { .out = &out };
	int err = 0;

	/* the links are sorted by ifindex, and so is out->ports: port_rec's
	 * walk of the old list could be a search, but the reads dominate */
	for (size_t i = 0; i < h->n_links && !err; i++) {
		const struct sw_link *l = &h->links[i];
		const struct sw_bound_port *p;

		if (sw_portbind_port(cfg, h, l) != SW_PORT_BOUND)
			continue;
		if ((err = sw_binds_add_port(&out, l)))
			break;
		p = all ? NULL : port_rec(b, l->ifindex);
		if (p && !moved(p, l, nsids, n_nsids)) {
			/* unchanged: its entries as they were */
			for (size_t j = first_of(b, p->name); j < b->n && !err &&
			     !strcmp(b->v[j].port, p->name); j++)
				err = sw_binds_add(&out, l, &b->v[j].addr);
			continue;
		}
		for (int v6 = 0; v6 < 2 && !err; v6++) {
			err = dump_peer(nl, l, v6 ? AF_INET6 : AF_INET, &c);
			/* the peer went away (or its namespace) since the link
			 * dump: nothing to bind, its port drops */
			if (err == -ENODEV || err == -EINVAL || err == -ENOENT)
				err = 0;
		}
	}
	sw_binds_free(b);
	if (err) {
		sw_binds_free(&out);
		return err;
	}
	if (out.n)
		qsort(out.v, out.n, sizeof(*out.v), sw_bind_cmp);
	*b = out;
	return 0;
}

int sw_portbind_read(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *h,
		     struct sw_binds *out)
{
	memset(out, 0, sizeof(*out));
	return sw_portbind_refresh(nl, cfg, h, out, NULL, 0, true);
}

int sw_portbind_open(struct sw_nl *nl)
{
	int one = 1, err = sw_nl_open_route(nl, 0);

	if (err)
		return err;
	if (setsockopt(sw_nl_fd(nl), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one))) {
		err = -errno;
		sw_nl_close(nl);
	}
	return err;
}

int sw_portbind_open_events(struct sw_nl *nl)
{
	int one = 1, err = sw_nl_open_route(nl, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR);

	if (err)
		return err;
	if (setsockopt(sw_nl_fd(nl), SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &one, sizeof(one))) {
		err = -errno;
		sw_nl_close(nl);
	}
	return err;
}

/* One datagram and the namespace it came from (-1: this one, which has no
 * id of its own, or not said) */
static ssize_t recv_nsid(struct sw_nl *nl, int32_t *nsid)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { nl->rbuf, SW_NL_RCVBUF };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n;

	*nsid = -1;
	if (!nl->sock)          /* a test's transport: no ancillary data */
		return nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, 0);
	n = recvmsg(sw_nl_fd(nl), &mh, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_NETLINK && cm->cmsg_type == NETLINK_LISTEN_ALL_NSID &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(nsid, CMSG_DATA(cm), sizeof(*nsid));
	return n ? n : -EPROTO;
}

int sw_portbind_drain(struct sw_nl *nl, int32_t *nsids, size_t max, size_t *n)
{
	int got = 0;
	int32_t id;
	ssize_t r;

	*n = 0;
	while ((r = recv_nsid(nl, &id)) != 0) {
		if (r < 0 && r != -ENOBUFS && r != -EPROTO)
			break;
		if (r < 0) {
			got = 2;        /* lost events: all again */
			continue;
		}
		if (id < 0)
			continue;       /* this namespace's own: no peer lives here */
		if (got == 2)
			continue;
		got = 1;
		for (size_t i = 0; i < *n; i++)
			if (nsids[i] == id)
				goto next;
		if (*n == max)
			got = 2;
		else
			nsids[(*n)++] = id;
next:		;
	}
	return got;
}
