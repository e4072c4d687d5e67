/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hosttrack: the host model kept up to date from rtnetlink events, one
 * delta at a time (sw_host_apply_rtnl, sw_host_track; see
 * include/host/hoststate.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "host/hoststate.h"
#include "host/rtnlparse.h"
#include "kernel/nl.h"
#include "kernel/nlmsg.h"

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
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return 0;
	if (sw_rtnl_link(&nl, nlh))
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
		bool peer_moved = l->peer_netns != nl.peer_netns || l->netnsid != nl.netnsid ||
				  l->peer_ifindex != nl.peer_ifindex;

		nl.master_bridge = l->master_bridge;    /* until sw_host_classify */
		nl.uplink = l->uplink;
		if (strcmp(l->name, nl.name)) {
			*l = nl;
			link_note(dl, l, true);
		} else {
			*l = nl;
		}
		if (peer_moved && dl->on_peer)
			dl->on_peer(l, dl->data);
		dl->changes++;
		return 0;
	}
	if ((err = sw_host_room_links(h)))
		return err;
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
		if (h->addrs[i].ifindex == a->ifindex &&
		    sw_rtnl_same_addr(&h->addrs[i].local, &a->local))
			return &h->addrs[i];
	return NULL;
}

static int ev_addr(struct sw_host *h, const struct nlmsghdr *nlh, struct sw_host_delta *dl)
{
	struct sw_addr a, *have;
	int r = sw_rtnl_addr(&a, nlh);

	if (r <= 0)
		return r;
	have = find_addr(h, &a);
	if (nlh->nlmsg_type == RTM_NEWADDR) {
		if (have)
			return 0;
		if ((r = sw_host_room_addrs(h)))
			return r;
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
	struct sw_rtnl_attrs t = { tb, RTA_MAX };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct sw_route one;
	uint32_t table;
	size_t i;
	int oif = 0, err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm) ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_type != RTN_UNICAST)
		return 0;
	if (mnl_attr_parse(nlh, sizeof(*rtm), sw_rtnl_attr_cb, &t) < 0)
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
	 * sw_route, not a whole host dumped per event) */
	if (!sw_rtnl_route(tb, rtm, oif, &one))
		return 0;
	for (i = 0; i < h->n_routes; i++)
		if (h->routes[i].oif == one.oif && sw_rtnl_same_addr(&h->routes[i].dst, &one.dst))
			break;
	if (nlh->nlmsg_type == RTM_NEWROUTE) {
		if (i < h->n_routes)
			return 0;
		if ((err = sw_host_room_routes(h)))
			return err == -ENOSPC ? 0 : err;  /* beyond the cap: dropped, as in the dump */
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
