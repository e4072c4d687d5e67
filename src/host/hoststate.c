/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hoststate: read what the host looks like (the events that keep it up
 * to date are hosttrack.c's, the resolvers resolv.c's).
 *
 * Links, v4/v6 addresses and default-route gateways come from rtnetlink
 * dumps (libmnl, NETLINK_ROUTE); DNS resolvers from resolv.conf. Nothing
 * here logs: every function returns 0 or -errno and the caller reports.
 * Overflowing a link/address/gateway capacity is an error (-ENOSPC), never
 * a silent truncation, so that a caller that blocks "every gateway" fails
 * closed. Resolvers are an allow list: extra ones are dropped (resolv.c). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "host/hoststate.h"
#include "host/rtnlparse.h"
#include "kernel/nl.h"
#include "kernel/nlmsg.h"

#define DUMP_RETRIES      3             /* on an interrupted dump (EINTR) */

struct dump_ctx {
	struct sw_host *h;
	int err;                /* first error seen by a callback, or 0 */
};

static int fail(struct dump_ctx *c, int err)
{
	c->err = err;
	errno = -err;
	return MNL_CB_ERROR;
}

static int parse_link(struct sw_host *h, const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return 0;
	int err = sw_host_room_links(h);

	if (err)
		return err;
	if (sw_rtnl_link(&h->links[h->n_links], nlh))
		return -EPROTO;
	h->n_links++;
	return 0;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	int err = parse_link(c->h, nlh);

	return err ? fail(c, err) : MNL_CB_OK;
}

int sw_host_add_link_msg(struct sw_host *h, const void *msg, size_t len)
{
	const struct nlmsghdr *nlh = msg;

	if (!h || !msg || !mnl_nlmsg_ok(nlh, (int)(len > INT32_MAX ? INT32_MAX : len)))
		return -EPROTO;
	return parse_link(h, nlh);
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	struct sw_addr a;
	int r;

	if (nlh->nlmsg_type != RTM_NEWADDR)
		return MNL_CB_OK;
	if ((r = sw_rtnl_addr(&a, nlh)) <= 0)
		return r ? fail(c, r) : MNL_CB_OK;
	if ((r = sw_host_room_addrs(c->h)))
		return fail(c, r);
	c->h->addrs[c->h->n_addrs++] = a;
	return MNL_CB_OK;
}

/* Gateways are deduplicated by address: the first oif seen is kept. */
static int add_gateway(struct dump_ctx *c, const struct nlattr *gw, int family, int oif)
{
	struct sw_host *h = c->h;
	struct sw_gateway g;

	if (!sw_rtnl_prefix(gw, family, family == AF_INET ? 32 : 128, &g.addr))
		return 0;
	for (size_t i = 0; i < h->n_gateways; i++)
		if (sw_rtnl_same_addr(&h->gateways[i].addr, &g.addr))
			return 0;
	if (h->n_gateways >= SW_MAX_GATEWAYS)
		return -ENOSPC;
	g.oif = oif;
	h->gateways[h->n_gateways++] = g;
	return 0;
}

/* The output interface of a default route, with or without a gateway
 * (`default dev wg0`): an uplink, never guarded by detection. */
static int add_uplink(struct sw_host *h, int oif)
{
	if (oif <= 0)
		return 0;
	for (size_t i = 0; i < h->n_uplinks; i++)
		if (h->uplinks[i] == oif)
			return 0;
	if (h->n_uplinks >= SW_MAX_UPLINKS)
		return -ENOSPC;
	h->uplinks[h->n_uplinks++] = oif;
	return 0;
}

/* Beyond SW_MAX_ROUTES a route is dropped (host.h); 0 or -ENOMEM. */
static int add_route(struct sw_host *h, const struct nlattr *const *tb,
		     const struct rtmsg *rtm, int oif)
{
	struct sw_route r;
	int err;

	if (!sw_rtnl_route(tb, rtm, oif, &r))
		return 0;
	if ((err = sw_host_room_routes(h)))
		return err == -ENOSPC ? 0 : err;
	h->routes[h->n_routes++] = r;
	return 0;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };
	struct sw_rtnl_attrs t = { tb, RTA_MAX };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	uint32_t table;
	int oif = 0, err;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm) ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_type != RTN_UNICAST)
		return MNL_CB_OK;
	if (mnl_attr_parse(nlh, sizeof(*rtm), sw_rtnl_attr_cb, &t) < 0)
		return fail(c, -EPROTO);
	table = rtm->rtm_table;
	if (tb[RTA_TABLE] && mnl_attr_validate(tb[RTA_TABLE], MNL_TYPE_U32) == 0)
		table = mnl_attr_get_u32(tb[RTA_TABLE]);
	if (table != RT_TABLE_MAIN)
		return MNL_CB_OK;
	if (tb[RTA_OIF] && mnl_attr_validate(tb[RTA_OIF], MNL_TYPE_U32) == 0)
		oif = (int)mnl_attr_get_u32(tb[RTA_OIF]);
	if (rtm->rtm_dst_len) {
		err = add_route(c->h, tb, rtm, oif);
		return err ? fail(c, err) : MNL_CB_OK;
	}

	err = add_gateway(c, tb[RTA_GATEWAY], rtm->rtm_family, oif);
	if (!err)
		err = add_uplink(c->h, oif);
	if (err)
		return fail(c, err);

	if (tb[RTA_MULTIPATH]) {
		const uint8_t *p = mnl_attr_get_payload(tb[RTA_MULTIPATH]);
		size_t left = mnl_attr_get_payload_len(tb[RTA_MULTIPATH]);

		while (left >= sizeof(struct rtnexthop)) {
			const struct rtnexthop *nh = (const void *)p;
			const struct nlattr *nt[RTA_MAX + 1] = { 0 };
			struct sw_rtnl_attrs tn = { nt, RTA_MAX };
			size_t step = RTNH_ALIGN(nh->rtnh_len);

			if (nh->rtnh_len < sizeof(*nh) || nh->rtnh_len > left)
				return fail(c, -EPROTO);
			if (mnl_attr_parse_payload(p + RTNH_LENGTH(0),
						   nh->rtnh_len - RTNH_LENGTH(0),
						   sw_rtnl_attr_cb, &tn) < 0)
				return fail(c, -EPROTO);
			err = add_gateway(c, nt[RTA_GATEWAY], rtm->rtm_family,
					  nh->rtnh_ifindex);
			if (!err)
				err = add_uplink(c->h, nh->rtnh_ifindex);
			if (err)
				return fail(c, err);
			if (step >= left)
				break;
			p += step;
			left -= step;
		}
	}
	return MNL_CB_OK;
}

/* Control messages. With a control array libmnl ignores the types it does
 * not name, so NLMSG_ERROR is handled here too. */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	(void)data;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (e->error == 0)
		return MNL_CB_STOP;
	errno = -sw_nlmsg_status(e->error);
	return MNL_CB_ERROR;
}

/* NLMSG_DONE of a dump carries the dump's final status. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	int e = 0;

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(e))
		memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof(e));
	if (e < 0) {
		errno = -sw_nlmsg_status(e);
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

/* Does the datagram hold the NLMSG_DONE that ends a dump? */
static bool has_done(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh;
	size_t off;

	sw_nlmsg_for_each(nlh, buf, len, off)
		if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR)
			return true;
	return false;
}

/* Send one dump request over the transport (a NETLINK_ROUTE socket or a
 * test's fake) and feed every reply to cb; sw_nlmsg_run checks each
 * reply's sequence number and portid, and fails an interrupted dump with
 * EINTR. hdrlen is the size of the family header (ifinfomsg, ifaddrmsg,
 * rtmsg), each of which starts with the one-byte address family. */
static int dump(struct sw_nl *nl, uint16_t type, size_t hdrlen, uint8_t family,
		mnl_cb_t cb, struct dump_ctx *c)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb, [NLMSG_DONE] = done_cb,
	};
	/* room for the largest family header (ifinfomsg 16, rtmsg 12, ifaddrmsg 8) */
	uint8_t req[NLMSG_HDRLEN + 64] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	bool intr = false;
	uint32_t seq;
	ssize_t n;
	int ret;

	if (hdrlen > sizeof(req) - NLMSG_HDRLEN)
		return -EINVAL;
	memset(req, 0, sizeof(req));
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if ((seq = sw_nl_next_seq(nl)) == 0)    /* 0 would disable the check */
		seq = sw_nl_next_seq(nl);
	nlh->nlmsg_seq = seq;
	*(uint8_t *)mnl_nlmsg_put_extra_header(nlh, hdrlen) = family;

	n = nl->ops->send(nl->ctx, nlh, nlh->nlmsg_len);
	if (n < 0)
		return (int)n;
	do {
		const struct nlmsghdr *first = (const void *)nl->rbuf;

		n = nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, -1);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EAGAIN;
		/* the rest of an earlier dump that was given up (interrupted):
		 * not ours, dropped */
		if ((size_t)n >= sizeof(*first) && first->nlmsg_seq && first->nlmsg_seq != seq) {
			ret = MNL_CB_OK;
			continue;
		}
		if (intr) {
			ret = has_done(nl->rbuf, (size_t)n) ? MNL_CB_STOP : MNL_CB_OK;
			continue;
		}
		errno = 0;
		ret = sw_nlmsg_run(nl->rbuf, (size_t)n, seq, nl->portid, cb, c,
				   ctl, NLMSG_MIN_TYPE);
		/* the kernel marked the dump inconsistent: read it to its end,
		 * so that the socket is clean for the retry */
		if (ret < 0 && errno == EINTR && !c->err) {
			intr = true;
			ret = has_done(nl->rbuf, (size_t)n) ? MNL_CB_STOP : MNL_CB_OK;
		}
	} while (ret > MNL_CB_STOP);
	if (intr)
		return -EINTR;
	if (ret < 0)
		return c->err ? c->err : errno ? -errno : -EPROTO;
	return 0;
}

static int any_cb(const struct nlmsghdr *nlh, void *data)
{
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
		return link_cb(nlh, data);
	case RTM_NEWADDR:
		return addr_cb(nlh, data);
	case RTM_NEWROUTE:
		return route_cb(nlh, data);
	default:
		return MNL_CB_OK;
	}
}

int sw_host_parse_rtnl(struct sw_host *h, const void *buf, size_t len)
{
	static const mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb, [NLMSG_DONE] = done_cb,
	};
	struct dump_ctx c = { .h = h };
	int ret;

	errno = 0;
	ret = sw_nlmsg_run(buf, len, 0, 0, any_cb, &c, ctl, NLMSG_MIN_TYPE);
	if (ret < 0)
		return c.err ? c.err : errno ? -errno : -EPROTO;
	return 0;
}

static int link_index_cmp(const void *a, const void *b)
{
	int x = ((const struct sw_link *)a)->ifindex, y = ((const struct sw_link *)b)->ifindex;

	return x < y ? -1 : x > y;
}

static void clear_routes(struct sw_host *h)
{
	h->n_gateways = h->n_uplinks = h->n_routes = 0;
}

static int dump_routes(struct sw_nl *nl, struct dump_ctx *c)
{
	int err = dump(nl, RTM_GETROUTE, sizeof(struct rtmsg), AF_INET, route_cb, c);

	return err ? err : dump(nl, RTM_GETROUTE, sizeof(struct rtmsg), AF_INET6, route_cb, c);
}

int sw_host_dump(struct sw_nl *nl, struct sw_host *h)
{
	struct dump_ctx c = { .h = h };
	int err;

	h->n_links = h->n_addrs = 0;
	clear_routes(h);
	err = dump(nl, RTM_GETLINK, sizeof(struct ifinfomsg), AF_UNSPEC, link_cb, &c);
	if (!err)
		err = dump(nl, RTM_GETADDR, sizeof(struct ifaddrmsg), AF_UNSPEC, addr_cb, &c);
	if (!err)
		err = dump_routes(nl, &c);
	if (err) {
		h->n_links = h->n_addrs = 0;
		clear_routes(h);
		return err;
	}
	/* by ifindex: sw_host_link finds a link in log time, and events
	 * insert in place */
	qsort(h->links, h->n_links, sizeof(*h->links), link_index_cmp);
	sw_host_classify(h);
	return 0;
}

int sw_host_dump_routes(struct sw_nl *nl, struct sw_host *h)
{
	int err, tries = 0;

	do {
		struct dump_ctx c = { .h = h };

		clear_routes(h);
		err = dump_routes(nl, &c);
	} while (err == -EINTR && ++tries < DUMP_RETRIES);
	if (err)
		clear_routes(h);
	sw_host_classify(h);
	return err;
}

int sw_host_read_links_addrs_routes(struct sw_host *h)
{
	struct sw_nl nl;
	int err, tries = 0;

	if ((err = sw_nl_open_route(&nl, 0))) {
		h->n_links = h->n_addrs = 0;
		clear_routes(h);
		return err;
	}
	do
		err = sw_host_dump(&nl, h);
	while (err == -EINTR && ++tries < DUMP_RETRIES);
	sw_nl_close(&nl);
	return err;
}

/* -------------------------------------------------------------------- all */

int sw_host_read(struct sw_host *h)
{
	int err = sw_host_read_links_addrs_routes(h);

	if (!err)
		err = sw_host_read_resolvers(h);
	return err;
}
