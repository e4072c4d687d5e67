/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rtnlparse: one rtnetlink message (RTM_NEWLINK, RTM_NEWADDR/DELADDR,
 * RTM_NEWROUTE/DELROUTE) into the host model's link, address or route;
 * the dump (hoststate.c) and the event tracking (hosttrack.c) read with
 * the same parsers (see include/host/rtnlparse.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "host/rtnlparse.h"

int sw_rtnl_attr_cb(const struct nlattr *a, void *data)
{
	const struct sw_rtnl_attrs *t = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type <= t->max)
		t->tb[type] = a;
	return MNL_CB_OK;
}

bool sw_rtnl_prefix(const struct nlattr *a, int family, uint8_t len, struct sw_prefix *p)
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

bool sw_rtnl_same_addr(const struct sw_prefix *a, const struct sw_prefix *b)
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
		struct sw_rtnl_attrs t = { tt, IFLA_TUN_MAX };

		if (mnl_attr_parse_nested(data, sw_rtnl_attr_cb, &t) >= 0 && tt[IFLA_TUN_TYPE] &&
		    mnl_attr_validate(tt[IFLA_TUN_TYPE], MNL_TYPE_U8) == 0 &&
		    mnl_attr_get_u8(tt[IFLA_TUN_TYPE]) == IFF_TAP)
			k = SW_LINK_TAP;
	}
	return k;
}

int sw_rtnl_link(struct sw_link *l, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[IFLA_MAX + 1] = { 0 };
	const struct nlattr *li[IFLA_INFO_MAX + 1] = { 0 };
	struct sw_rtnl_attrs t = { tb, IFLA_MAX }, tl = { li, IFLA_INFO_MAX };
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);

	if (mnl_attr_parse(nlh, sizeof(*ifm), sw_rtnl_attr_cb, &t) < 0)
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
	    mnl_attr_parse_nested(tb[IFLA_LINKINFO], sw_rtnl_attr_cb, &tl) >= 0 &&
	    li[IFLA_INFO_KIND])
		l->kind = kind_of(li[IFLA_INFO_KIND], li[IFLA_INFO_DATA]);
	l->is_bridge = l->kind == SW_LINK_BRIDGE;
	return 0;
}

int sw_rtnl_addr(struct sw_addr *a, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[IFA_MAX + 1] = { 0 };
	struct sw_rtnl_attrs t = { tb, IFA_MAX };
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa) ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return 0;
	if (mnl_attr_parse(nlh, sizeof(*ifa), sw_rtnl_attr_cb, &t) < 0)
		return -EPROTO;
	/* IFA_LOCAL is the local address; IFA_ADDRESS is the peer on
	 * point-to-point links and equals IFA_LOCAL otherwise. */
	if (!sw_rtnl_prefix(tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS],
			    ifa->ifa_family, ifa->ifa_prefixlen, &a->local))
		return 0;
	a->ifindex = (int)ifa->ifa_index;
	return 1;
}

bool sw_rtnl_route(const struct nlattr *const *tb, const struct rtmsg *rtm, int oif,
		   struct sw_route *r)
{
	if (oif <= 0 || tb[RTA_GATEWAY] || tb[RTA_MULTIPATH] ||
	    rtm->rtm_dst_len > (rtm->rtm_family == AF_INET ? 32 : 128) ||
	    !sw_rtnl_prefix(tb[RTA_DST], rtm->rtm_family, rtm->rtm_dst_len, &r->dst))
		return false;
	sw_prefix_mask(&r->dst);
	r->oif = oif;
	return true;
}
