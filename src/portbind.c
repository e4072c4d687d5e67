// SPDX-License-Identifier: GPL-2.0-or-later
/* portbind: each bridge port's own addresses, read from its peer's
 * namespace (portbind.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "nl.h"
#include "portbind.h"
#include "ruleset.h"

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif
#ifndef NETLINK_LISTEN_ALL_NSID
#define NETLINK_LISTEN_ALL_NSID 8
#endif

bool sw_portbind_wanted(const struct sw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_sandboxes; i++)
		if (cfg->sandboxes[i].n_sources || cfg->sandboxes[i].budget)
			return true;
	return false;
}

enum sw_port_kind sw_portbind_port(const struct sw_config *cfg, const struct sw_host *h,
				   const struct sw_link *l)
{
	const struct sw_link *br;

	if (!l->master || !l->master_bridge || !(br = sw_host_link(h, l->master)) ||
	    !sw_ruleset_guarded(cfg, br))
		return SW_PORT_NONE;
	switch (l->kind) {
	case SW_LINK_VETH:
		return l->peer_netns && l->peer_ifindex > 0 ? SW_PORT_BOUND : SW_PORT_UNBOUND;
	case SW_LINK_TAP:
	case SW_LINK_TUN:
	case SW_LINK_MACVLAN:
	case SW_LINK_IPVLAN:
		return SW_PORT_UNBOUND;
	default:
		return SW_PORT_EXEMPT;
	}
}

/* Is src narrower than the subnet net of link ifindex, a guarded
 * interface that is no bridge? Then write the refusal. */
static int narrower(const struct sw_config *cfg, const struct sw_host *h,
		    const struct sw_sandbox *x, size_t j,
		    const struct sw_prefix *net, int ifindex, char *err, size_t errlen)
{
	const struct sw_prefix *src = &x->sources[j];
	const struct sw_link *l;
	char a[SW_ADDR_STRLEN], b[SW_ADDR_STRLEN];

	if (src->family != net->family || src->len <= net->len ||
	    !sw_prefix_contains(net, src) || !(l = sw_host_link(h, ifindex)) ||
	    l->is_bridge || !sw_ruleset_guarded(cfg, l))
		return 0;
	sw_prefix_format(src, a, sizeof(a));
	sw_prefix_format(net, b, sizeof(b));
	snprintf(err, errlen, "%s:%u: [sandbox %s] sources %s is narrower than %s of %s (%s), "
		 "where no per-port binding can be known: a sandbox behind %s can send from "
		 "every address of %s; name the whole subnet, or put the sandboxes on a bridge",
		 cfg->path, x->source_lines[j] ? x->source_lines[j] : x->line, x->name, a, b, l->name,
		 sw_link_kind_name(l->kind), l->name, b);
	return -EINVAL;
}

int sw_portbind_check_sources(const struct sw_config *cfg, const struct sw_host *h,
			      char *err, size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; i < cfg->n_sandboxes && !rc; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];

		for (size_t j = 0; j < x->n_sources && !rc; j++) {
			for (size_t k = 0; k < h->n_addrs && !rc; k++) {
				struct sw_prefix net = h->addrs[k].local;

				sw_prefix_mask(&net);
				rc = narrower(cfg, h, x, j, &net, h->addrs[k].ifindex,
					      err, errlen);
			}
			for (size_t k = 0; k < h->n_routes && !rc; k++)
				rc = narrower(cfg, h, x, j, &h->routes[k].dst,
					      h->routes[k].oif, err, errlen);
		}
	}
	return rc;
}

void sw_binds_free(struct sw_binds *b)
{
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static int binds_add(struct sw_binds *b, const struct sw_link *l, const struct sw_prefix *a)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct sw_bind *v;

		if (b->n >= SW_MAX_BINDS)
			return -ENOSPC;
		if (!(v = realloc(b->v, cap * sizeof(*v))))
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	memset(&b->v[b->n], 0, sizeof(b->v[b->n]));
	b->v[b->n].ifindex = l->ifindex;
	memcpy(b->v[b->n].port, l->name, sizeof(b->v[b->n].port));
	b->v[b->n].port[sizeof(b->v[b->n].port) - 1] = '\0';
	b->v[b->n].addr = *a;
	b->n++;
	return 0;
}

static int bind_cmp(const void *x, const void *y)
{
	const struct sw_bind *a = x, *b = y;
	int c = strcmp(a->port, b->port);

	if (c)
		return c;
	if (a->addr.family != b->addr.family)
		return a->addr.family - b->addr.family;
	return memcmp(a->addr.addr, b->addr.addr, sizeof(a->addr.addr));
}

bool sw_binds_equal(const struct sw_binds *a, const struct sw_binds *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (bind_cmp(&a->v[i], &b->v[i]) || a->v[i].ifindex != b->v[i].ifindex)
			return false;
	return true;
}

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
	if ((c->err = binds_add(c->out, c->port, &p)))
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

int sw_portbind_read(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *h,
		     struct sw_binds *out)
{
	struct read_ctx c = { .out = out };
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < h->n_links && !err; i++) {
		const struct sw_link *l = &h->links[i];

		if (sw_portbind_port(cfg, h, l) != SW_PORT_BOUND)
			continue;
		for (int v6 = 0; v6 < 2 && !err; v6++) {
			err = dump_peer(nl, l, v6 ? AF_INET6 : AF_INET, &c);
			/* the peer went away (or its namespace) since the link
			 * dump: nothing to bind, its port drops */
			if (err == -ENODEV || err == -EINVAL || err == -ENOENT)
				err = 0;
		}
	}
	if (err) {
		sw_binds_free(out);
		return err;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), bind_cmp);
	return 0;
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

int sw_portbind_drain(struct sw_nl *nl)
{
	int got = 0;
	ssize_t n;

	while ((n = nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, 0)) != 0) {
		if (n < 0 && n != -ENOBUFS)
			break;
		got = 1;        /* an address event, or lost ones: read again */
	}
	return got;
}
