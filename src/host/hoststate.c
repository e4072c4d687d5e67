/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hoststate: read what the host looks like.
 *
 * Links, v4/v6 addresses and default-route gateways come from rtnetlink
 * dumps (libmnl, NETLINK_ROUTE); DNS resolvers from resolv.conf. Nothing
 * here logs: every function returns 0 or -errno and the caller reports.
 * Overflowing a link/address/gateway capacity is an error (-ENOSPC), never
 * a silent truncation, so that a caller that blocks "every gateway" fails
 * closed. Resolvers are an allow list: extra ones are dropped (see below). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "host/hoststate.h"
#include "kernel/nl.h"
#include "kernel/nlmsg.h"

#define DUMP_RETRIES      3             /* on an interrupted dump (EINTR) */
#define RESOLV_MAX_BYTES  (1u << 20)
#define RESOLV_DEFAULT    "/etc/resolv.conf"
#define RESOLV_RESOLVED   "/run/systemd/resolve/resolv.conf"

/* ---------------------------------------------------------------- rtnetlink */

struct dump_ctx {
	struct sw_host *h;
	int err;                /* first error seen by a callback, or 0 */
};

struct attr_tab {
	const struct nlattr **tb;
	unsigned int max;
};

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct attr_tab *t = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type <= t->max)
		t->tb[type] = a;
	return MNL_CB_OK;
}

static int fail(struct dump_ctx *c, int err)
{
	c->err = err;
	errno = -err;
	return MNL_CB_ERROR;
}

/* Copy an address attribute of the family's exact size into a prefix. */
static bool attr_to_prefix(const struct nlattr *a, int family, uint8_t len,
			   struct sw_prefix *p)
{
	size_t alen = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;

	if (!a || !alen || mnl_attr_get_payload_len(a) != alen)
		return false;
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->len = len;
	memcpy(p->addr, mnl_attr_get_payload(a), alen);
	return true;
}

static bool same_addr(const struct sw_prefix *a, const struct sw_prefix *b)
{
	return a->family == b->family && a->len == b->len &&
	       memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

/* IFLA_INFO_KIND -> enum sw_link_kind ("tun" is split by IFLA_TUN_TYPE) */
static const struct { const char *kind; enum sw_link_kind k; } link_kinds[] = {
	{ "bridge", SW_LINK_BRIDGE }, { "veth", SW_LINK_VETH }, { "tun", SW_LINK_TUN },
	{ "macvlan", SW_LINK_MACVLAN }, { "macvtap", SW_LINK_MACVLAN },
	{ "ipvlan", SW_LINK_IPVLAN }, { "ipvtap", SW_LINK_IPVLAN },
	{ "vxlan", SW_LINK_VXLAN }, { "wireguard", SW_LINK_WIREGUARD },
};

/* The kind attribute is a NUL-terminated string inside its payload; only
 * the bytes before the first NUL (or the payload's end) count. */
static enum sw_link_kind kind_of(const struct nlattr *kind, const struct nlattr *data)
{
	const char *s = mnl_attr_get_payload(kind);
	size_t n = strnlen(s, mnl_attr_get_payload_len(kind));
	enum sw_link_kind k = SW_LINK_OTHER;

	for (size_t i = 0; i < sizeof(link_kinds) / sizeof(*link_kinds); i++)
		if (strlen(link_kinds[i].kind) == n && !memcmp(s, link_kinds[i].kind, n))
			k = link_kinds[i].k;
	if (k == SW_LINK_TUN && data) {
		/* IFLA_TUN_TYPE (u8, Linux 4.15+): IFF_TUN or IFF_TAP */
		const struct nlattr *tt[IFLA_TUN_MAX + 1] = { 0 };
		struct attr_tab t = { tt, IFLA_TUN_MAX };

		if (mnl_attr_parse_nested(data, attr_cb, &t) >= 0 && tt[IFLA_TUN_TYPE] &&
		    mnl_attr_validate(tt[IFLA_TUN_TYPE], MNL_TYPE_U8) == 0 &&
		    mnl_attr_get_u8(tt[IFLA_TUN_TYPE]) == IFF_TAP)
			k = SW_LINK_TAP;
	}
	return k;
}

/* One RTM_NEWLINK (dump reply or event) into *l: 0, or -EPROTO. */
static int link_of(struct sw_link *l, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[IFLA_MAX + 1] = { 0 };
	const struct nlattr *li[IFLA_INFO_MAX + 1] = { 0 };
	struct attr_tab t = { tb, IFLA_MAX }, tl = { li, IFLA_INFO_MAX };
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);

	if (mnl_attr_parse(nlh, sizeof(*ifm), attr_cb, &t) < 0)
		return -EPROTO;
	memset(l, 0, sizeof(*l));
	l->ifindex = ifm->ifi_index;
	l->up = ifm->ifi_flags & IFF_UP;
	l->loopback = ifm->ifi_flags & IFF_LOOPBACK;
	if (tb[IFLA_IFNAME]) {
		size_t n = strnlen(mnl_attr_get_payload(tb[IFLA_IFNAME]),
				   mnl_attr_get_payload_len(tb[IFLA_IFNAME]));
		if (n >= sizeof(l->name))
			n = sizeof(l->name) - 1;
		memcpy(l->name, mnl_attr_get_payload(tb[IFLA_IFNAME]), n);
	}
	/* the link-layer address, only as long as Ethernet's */
	if (tb[IFLA_ADDRESS] && mnl_attr_get_payload_len(tb[IFLA_ADDRESS]) == sizeof(l->mac)) {
		memcpy(l->mac, mnl_attr_get_payload(tb[IFLA_ADDRESS]), sizeof(l->mac));
		l->has_mac = true;
	}
	if (tb[IFLA_MASTER] && mnl_attr_validate(tb[IFLA_MASTER], MNL_TYPE_U32) == 0)
		l->master = (int)mnl_attr_get_u32(tb[IFLA_MASTER]);
	/* present only when the peer's namespace differs from the link's */
	l->peer_netns = tb[IFLA_LINK_NETNSID] &&
			mnl_attr_validate(tb[IFLA_LINK_NETNSID], MNL_TYPE_U32) == 0;
	/* where the peer is: its namespace's id and its ifindex there (portbind.h) */
	l->netnsid = l->peer_netns ? (int32_t)mnl_attr_get_u32(tb[IFLA_LINK_NETNSID]) : -1;
	if (tb[IFLA_LINK] && mnl_attr_validate(tb[IFLA_LINK], MNL_TYPE_U32) == 0)
		l->peer_ifindex = (int)mnl_attr_get_u32(tb[IFLA_LINK]);
	if (tb[IFLA_LINKINFO] &&
	    mnl_attr_parse_nested(tb[IFLA_LINKINFO], attr_cb, &tl) >= 0 &&
	    li[IFLA_INFO_KIND])
		l->kind = kind_of(li[IFLA_INFO_KIND], li[IFLA_INFO_DATA]);
	l->is_bridge = l->kind == SW_LINK_BRIDGE;
	return 0;
}

static int parse_link(struct sw_host *h, const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return 0;
	if (h->n_links >= SW_MAX_LINKS)
		return -ENOSPC;
	if (link_of(&h->links[h->n_links], nlh))
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

/* One RTM_NEWADDR/DELADDR into *a: 1 when it is a usable v4/v6 address,
 * 0 when it is to be ignored, -EPROTO when malformed. */
static int addr_of(struct sw_addr *a, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[IFA_MAX + 1] = { 0 };
	struct attr_tab t = { tb, IFA_MAX };
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa) ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return 0;
	if (mnl_attr_parse(nlh, sizeof(*ifa), attr_cb, &t) < 0)
		return -EPROTO;
	/* IFA_LOCAL is the local address; IFA_ADDRESS is the peer on
	 * point-to-point links and equals IFA_LOCAL otherwise. */
	if (!attr_to_prefix(tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS],
			    ifa->ifa_family, ifa->ifa_prefixlen, &a->local))
		return 0;
	a->ifindex = (int)ifa->ifa_index;
	return 1;
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	struct sw_addr a;
	int r;

	if (nlh->nlmsg_type != RTM_NEWADDR)
		return MNL_CB_OK;
	if ((r = addr_of(&a, nlh)) <= 0)
		return r ? fail(c, r) : MNL_CB_OK;
	if (c->h->n_addrs >= SW_MAX_ADDRS)
		return fail(c, -ENOSPC);
	c->h->addrs[c->h->n_addrs++] = a;
	return MNL_CB_OK;
}

/* Gateways are deduplicated by address: the first oif seen is kept. */
static int add_gateway(struct dump_ctx *c, const struct nlattr *gw, int family, int oif)
{
	struct sw_host *h = c->h;
	struct sw_gateway g;

	if (!attr_to_prefix(gw, family, family == AF_INET ? 32 : 128, &g.addr))
		return 0;
	for (size_t i = 0; i < h->n_gateways; i++)
		if (same_addr(&h->gateways[i].addr, &g.addr))
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

/* A directly connected route (no gateway, one output interface). */
/* A main-table route the model keeps (through oif, no gateway): *r. */
static bool route_of(const struct nlattr *const *tb, const struct rtmsg *rtm, int oif,
		     struct sw_route *r)
{
	if (oif <= 0 || tb[RTA_GATEWAY] || tb[RTA_MULTIPATH] ||
	    rtm->rtm_dst_len > (rtm->rtm_family == AF_INET ? 32 : 128) ||
	    !attr_to_prefix(tb[RTA_DST], rtm->rtm_family, rtm->rtm_dst_len, &r->dst))
		return false;
	sw_prefix_mask(&r->dst);
	r->oif = oif;
	return true;
}

static void add_route(struct sw_host *h, const struct nlattr *const *tb,
		      const struct rtmsg *rtm, int oif)
{
	struct sw_route r;

	if (h->n_routes < SW_MAX_ROUTES && route_of(tb, rtm, oif, &r))
		h->routes[h->n_routes++] = r;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };
	struct attr_tab t = { tb, RTA_MAX };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	uint32_t table;
	int oif = 0, err;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm) ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_type != RTN_UNICAST)
		return MNL_CB_OK;
	if (mnl_attr_parse(nlh, sizeof(*rtm), attr_cb, &t) < 0)
		return fail(c, -EPROTO);
	table = rtm->rtm_table;
	if (tb[RTA_TABLE] && mnl_attr_validate(tb[RTA_TABLE], MNL_TYPE_U32) == 0)
		table = mnl_attr_get_u32(tb[RTA_TABLE]);
	if (table != RT_TABLE_MAIN)
		return MNL_CB_OK;
	if (tb[RTA_OIF] && mnl_attr_validate(tb[RTA_OIF], MNL_TYPE_U32) == 0)
		oif = (int)mnl_attr_get_u32(tb[RTA_OIF]);
	if (rtm->rtm_dst_len) {
		add_route(c->h, tb, rtm, oif);
		return MNL_CB_OK;
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
			struct attr_tab tn = { nt, RTA_MAX };
			size_t step = RTNH_ALIGN(nh->rtnh_len);

			if (nh->rtnh_len < sizeof(*nh) || nh->rtnh_len > left)
				return fail(c, -EPROTO);
			if (mnl_attr_parse_payload(p + RTNH_LENGTH(0),
						   nh->rtnh_len - RTNH_LENGTH(0),
						   attr_cb, &tn) < 0)
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

/* ------------------------------------------------------------------ events */

/* Carries a default route (its output interface, or a gateway's)? */
static bool carries_default(const struct sw_host *h, int ifindex)
{
	for (size_t i = 0; i < h->n_uplinks; i++)
		if (h->uplinks[i] == ifindex)
			return true;
	for (size_t i = 0; i < h->n_gateways; i++)
		if (h->gateways[i].oif == ifindex)
			return true;
	return false;
}

/* The kernel flushes IPv4 routes through a link that goes down or away
 * without a word (fib_flush sends no RTM_DELROUTE): mirror it. Default
 * routes (multipath ones die whole) are read again. */
static void link_gone_down(struct sw_host *h, int ifindex, struct sw_host_delta *dl)
{
	size_t j = 0;

	for (size_t i = 0; i < h->n_routes; i++)
		if (h->routes[i].oif != ifindex)
			h->routes[j++] = h->routes[i];
	h->n_routes = j;
	if (carries_default(h, ifindex))
		dl->routes_stale = true;
}

static bool link_same(const struct sw_link *a, const struct sw_link *b)
{
	return a->ifindex == b->ifindex && !strcmp(a->name, b->name) &&
	       a->is_bridge == b->is_bridge && a->up == b->up && a->loopback == b->loopback &&
	       a->kind == b->kind && a->master == b->master && a->peer_netns == b->peer_netns &&
	       a->netnsid == b->netnsid && a->peer_ifindex == b->peer_ifindex;
}

static void link_note(struct sw_host_delta *dl, const struct sw_link *l, bool added)
{
	if (dl->on_link)
		dl->on_link(l, added, dl->data);
}

static int ev_newlink(struct sw_host *h, const struct nlmsghdr *nlh, struct sw_host_delta *dl)
{
	struct sw_link nl, *l;
	size_t p;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return 0;
	if (link_of(&nl, nlh))
		return -EPROTO;
	if ((l = sw_host_link_rw(h, nl.ifindex))) {
		/* carrier, statistics, a port's state: nothing we keep */
		if (link_same(l, &nl))
			return 0;
		if (l->up && !nl.up) {
			struct sw_link was_up = nl;

			was_up.up = true;
			link_gone_down(h, nl.ifindex, dl);
			if (link_same(l, &was_up))
				dl->removals++;         /* down, nothing else */
		}
		if (strcmp(l->name, nl.name))
			link_note(dl, l, false);
		nl.master_bridge = l->master_bridge;    /* until sw_host_classify */
		nl.uplink = l->uplink;
		if (strcmp(l->name, nl.name)) {
			*l = nl;
			link_note(dl, l, true);
		} else {
			*l = nl;
		}
		dl->changes++;
		return 0;
	}
	if (h->n_links >= SW_MAX_LINKS)
		return -ENOSPC;
	p = sw_host_link_pos(h, nl.ifindex);
	memmove(&h->links[p + 1], &h->links[p], (h->n_links - p) * sizeof(*h->links));
	h->links[p] = nl;
	h->n_links++;
	link_note(dl, &h->links[p], true);
	if (dl->n_new < sizeof(dl->new_idx) / sizeof(*dl->new_idx))
		dl->new_idx[dl->n_new] = nl.ifindex;
	dl->n_new++;
	dl->changes++;
	return 0;
}

static int ev_dellink(struct sw_host *h, const struct nlmsghdr *nlh, struct sw_host_delta *dl)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct sw_link *l;
	size_t j = 0;
	int ifindex;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifm))
		return 0;
	ifindex = ifm->ifi_index;
	if (!(l = sw_host_link_rw(h, ifindex)))
		return 0;
	link_note(dl, l, false);
	memmove(l, l + 1, (size_t)(&h->links[h->n_links] - (l + 1)) * sizeof(*l));
	h->n_links--;
	/* its addresses go with it (RTM_DELADDR may follow: a no-op then) */
	for (size_t i = 0; i < h->n_addrs; i++)
		if (h->addrs[i].ifindex != ifindex)
			h->addrs[j++] = h->addrs[i];
	h->n_addrs = j;
	link_gone_down(h, ifindex, dl);
	dl->changes++;
	dl->removals++;
	return 0;
}

static struct sw_addr *find_addr(struct sw_host *h, const struct sw_addr *a)
{
	for (size_t i = 0; i < h->n_addrs; i++)
		if (h->addrs[i].ifindex == a->ifindex && same_addr(&h->addrs[i].local, &a->local))
			return &h->addrs[i];
	return NULL;
}

static int ev_addr(struct sw_host *h, const struct nlmsghdr *nlh, struct sw_host_delta *dl)
{
	struct sw_addr a, *have;
	int r = addr_of(&a, nlh);

	if (r <= 0)
		return r;
	have = find_addr(h, &a);
	if (nlh->nlmsg_type == RTM_NEWADDR) {
		if (have)
			return 0;
		if (h->n_addrs >= SW_MAX_ADDRS)
			return -ENOSPC;
		h->addrs[h->n_addrs++] = a;
	} else {
		if (!have)
			return 0;
		memmove(have, have + 1, (size_t)(&h->addrs[h->n_addrs] - (have + 1)) * sizeof(*have));
		h->n_addrs--;
		dl->removals++;
	}
	dl->changes++;
	return 0;
}

static int ev_route(struct sw_host *h, const struct nlmsghdr *nlh, struct sw_host_delta *dl)
{
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };
	struct attr_tab t = { tb, RTA_MAX };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct sw_route one;
	uint32_t table;
	size_t i;
	int oif = 0;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm) ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_type != RTN_UNICAST)
		return 0;
	if (mnl_attr_parse(nlh, sizeof(*rtm), attr_cb, &t) < 0)
		return -EPROTO;
	table = rtm->rtm_table;
	if (tb[RTA_TABLE] && mnl_attr_validate(tb[RTA_TABLE], MNL_TYPE_U32) == 0)
		table = mnl_attr_get_u32(tb[RTA_TABLE]);
	if (table != RT_TABLE_MAIN)
		return 0;
	/* a default route came, went or was replaced (NLM_F_REPLACE names
	 * only the new one): read the few default routes again */
	if (!rtm->rtm_dst_len) {
		dl->routes_stale = true;
		dl->changes++;
		return 0;
	}
	if (tb[RTA_OIF] && mnl_attr_validate(tb[RTA_OIF], MNL_TYPE_U32) == 0)
		oif = (int)mnl_attr_get_u32(tb[RTA_OIF]);
	/* the same filter as the dump: one route, or none (a struct
	 * sw_route, not a whole struct sw_host of 2.6 MiB on the stack,
	 * zeroed per event and resident for the daemon's life after) */
	if (!route_of(tb, rtm, oif, &one))
		return 0;
	for (i = 0; i < h->n_routes; i++)
		if (h->routes[i].oif == one.oif && same_addr(&h->routes[i].dst, &one.dst))
			break;
	if (nlh->nlmsg_type == RTM_NEWROUTE) {
		if (i < h->n_routes || h->n_routes >= SW_MAX_ROUTES)
			return 0;       /* beyond the cap: dropped, as in the dump */
		h->routes[h->n_routes++] = one;
	} else {
		if (i == h->n_routes)
			return 0;
		memmove(&h->routes[i], &h->routes[i + 1], (h->n_routes - i - 1) * sizeof(*h->routes));
		h->n_routes--;
		dl->removals++;
	}
	dl->changes++;
	return 0;
}

struct ev_ctx {
	struct sw_host *h;
	struct sw_host_delta *dl;
	int err;
};

static int ev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ev_ctx *c = data;
	int err = 0;

	/* the bridge's own RTM_NEWLINK/RTM_DELLINK about a port (ifi_family
	 * AF_BRIDGE: its port state, without the link's kind or peer, and a
	 * DELLINK when the port merely leaves the bridge) describe no link:
	 * the link's own AF_UNSPEC messages do (a port read as kind "other"
	 * would be exempted by table bridge, portbind.h) */
	if ((nlh->nlmsg_type == RTM_NEWLINK || nlh->nlmsg_type == RTM_DELLINK) &&
	    mnl_nlmsg_get_payload_len(nlh) >= sizeof(struct ifinfomsg) &&
	    ((const struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_family == AF_BRIDGE)
		return MNL_CB_OK;
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
		err = ev_newlink(c->h, nlh, c->dl);
		break;
	case RTM_DELLINK:
		err = ev_dellink(c->h, nlh, c->dl);
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		err = ev_addr(c->h, nlh, c->dl);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		err = ev_route(c->h, nlh, c->dl);
		break;
	}
	if (err) {
		c->err = err;
		errno = -err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int sw_host_apply_rtnl(struct sw_host *h, const void *buf, size_t len, struct sw_host_delta *dl)
{
	struct ev_ctx c = { h, dl, 0 };
	int ret;

	errno = 0;
	ret = sw_nlmsg_run(buf, len, 0, 0, ev_cb, &c, NULL, 0);
	if (ret < 0)
		return c.err ? c.err : errno ? -errno : -EPROTO;
	return 0;
}

int sw_host_track(struct sw_nl *ev, struct sw_nl *dump_nl, struct sw_host *h,
		  struct sw_host_delta *dl)
{
	int err = 0;

	for (;;) {
		ssize_t n = ev->ops->recv(ev->ctx, ev->rbuf, SW_NL_RCVBUF, 0);

		if (n == -ENOBUFS) {
			/* events were lost: only a full dump is the truth now */
			dl->lost = true;
			return -ENOBUFS;
		}
		if (n < 0)
			return (int)n;
		if (n == 0)
			break;
		if ((err = sw_host_apply_rtnl(h, ev->rbuf, (size_t)n, dl)))
			return err;
	}
	if (dl->routes_stale && dump_nl) {
		if ((err = sw_host_dump_routes(dump_nl, h)))
			return err;
		dl->routes_stale = false;
	} else if (dl->changes) {
		sw_host_classify(h);
	}
	return 0;
}

/* --------------------------------------------------------------- resolvers */

static bool is_loopback_or_any(const struct sw_prefix *p)
{
	static const uint8_t any6[16], lo6[16] = { [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (p->family == AF_INET)
		return p->addr[0] == 127 || memcmp(p->addr, any6, 4) == 0;
	if (memcmp(p->addr, any6, 16) == 0 || memcmp(p->addr, lo6, 16) == 0)
		return true;
	return memcmp(p->addr, mapped, 12) == 0 && p->addr[12] == 127;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Parse one line (without its '\n'). Returns 1 and fills *p for a usable
 * "nameserver ADDR" line, 0 otherwise. */
static int parse_line(const char *s, const char *end, struct sw_prefix *p)
{
	static const char kw[] = "nameserver";
	char tok[SW_ADDR_STRLEN];
	const char *a;
	size_t n;

	while (s < end && is_space(*s))
		s++;
	if ((size_t)(end - s) <= sizeof(kw) - 1 || memcmp(s, kw, sizeof(kw) - 1) != 0 ||
	    !is_space(s[sizeof(kw) - 1]))
		return 0;
	for (s += sizeof(kw) - 1; s < end && is_space(*s); s++)
		;
	for (a = s; s < end && !is_space(*s) && *s != '#' && *s != ';'; s++)
		;
	n = (size_t)(s - a);
	if (n == 0 || n >= sizeof(tok) || memchr(a, '/', n))
		return 0;
	memcpy(tok, a, n);
	tok[n] = '\0';
	if (strchr(tok, ':')) {           /* fe80::1%eth0: drop the zone */
		char *z = strchr(tok, '%');
		if (z)
			*z = '\0';
	}
	return sw_prefix_parse(tok, p, NULL) == 0;
}

/* Entries beyond max are ignored: the list only narrows what is allowed,
 * and the C library itself uses the first few servers only. */
int sw_resolv_parse(const char *text, struct sw_prefix *out, size_t max,
		    size_t *n, bool *saw_stub)
{
	static const uint8_t stub[4] = { 127, 0, 0, 53 };
	const char *s = text, *eol;

	if (!text || !n || (max && !out))
		return -EINVAL;
	*n = 0;
	if (saw_stub)
		*saw_stub = false;
	for (; *s; s = *eol ? eol + 1 : eol) {
		struct sw_prefix p;
		size_t i;

		eol = strchrnul(s, '\n');
		if (!parse_line(s, eol, &p))
			continue;
		if (p.family == AF_INET && memcmp(p.addr, stub, 4) == 0 && saw_stub)
			*saw_stub = true;
		if (is_loopback_or_any(&p))
			continue;
		for (i = 0; i < *n && !same_addr(&out[i], &p); i++)
			;
		if (i == *n && *n < max)
			out[(*n)++] = p;
	}
	return 0;
}

/* Read a whole small text file, NUL-terminated. -ENOENT if missing. */
static int read_text(const char *path, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf = NULL, *nb;
	int fd, err = 0;
	ssize_t r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!buf || len + 1 >= cap) {
			if (buf)
				cap *= 2;
			if (cap > RESOLV_MAX_BYTES) {
				err = -EFBIG;
				break;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Parse one file and merge its servers into h (deduplicated). A missing
 * file is not an error. */
static int read_resolv_file(struct sw_host *h, const char *path, bool *saw_stub)
{
	struct sw_prefix tmp[SW_MAX_RESOLVERS];
	size_t n = 0;
	char *text;
	int err = read_text(path, &text);

	if (saw_stub)
		*saw_stub = false;
	if (err == -ENOENT || err == -ENOTDIR)
		return 0;
	if (err)
		return err;
	err = sw_resolv_parse(text, tmp, SW_MAX_RESOLVERS, &n, saw_stub);
	free(text);
	for (size_t i = 0; !err && i < n; i++) {
		size_t j;

		for (j = 0; j < h->n_resolvers && !same_addr(&h->resolvers[j], &tmp[i]); j++)
			;
		if (j == h->n_resolvers && h->n_resolvers < SW_MAX_RESOLVERS)
			h->resolvers[h->n_resolvers++] = tmp[i];
	}
	return err;
}

int sw_host_read_resolvers(struct sw_host *h)
{
	const char *path = secure_getenv("SANDWALL_RESOLV_CONF");
	bool stub = false;
	int err;

	h->n_resolvers = 0;
	if (!path || !*path)
		path = RESOLV_DEFAULT;
	err = read_resolv_file(h, path, &stub);
	if (!err && stub)
		err = read_resolv_file(h, RESOLV_RESOLVED, NULL);
	if (err)
		h->n_resolvers = 0;
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
