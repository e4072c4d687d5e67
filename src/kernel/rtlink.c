// SPDX-License-Identifier: GPL-2.0-or-later
/* rtlink: small rtnetlink writes for the verify probe (see include/kernel/rtlink.h). */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <libmnl/libmnl.h>

#include "kernel/rtlink.h"
#include "kernel/nlmsg.h"

struct neigh_q {
	int ifindex;
	const struct sw_prefix *addr;
	int *used;
};

static int neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	struct neigh_q *q = data;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWNEIGH || sw_nlmsg_payload_len(nlh) < sizeof(*nd) ||
	    nd->ndm_ifindex != q->ifindex ||
	    (nd->ndm_state & (NUD_FAILED | NUD_INCOMPLETE)))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*nd))
		if (mnl_attr_get_type(a) == NDA_DST &&
		    mnl_attr_get_payload_len(a) == sw_family_addrlen(q->addr->family) &&
		    !memcmp(mnl_attr_get_payload(a), q->addr->addr, mnl_attr_get_payload_len(a)))
			*q->used = 1;
	return MNL_CB_OK;
}

/* Send one request and wait for its ACK (or run cb over a dump). */
static int talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	unsigned int portid;
	ssize_t n;
	int rc = 0;

	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		rc = -errno;
		goto out;
	}
	for (;;) {
		int r;

		n = sw_nl_recv_kernel(mnl_socket_get_fd(nl), buf, sizeof(buf), 0);
		if (n <= 0) {
			rc = n < 0 ? (int)n : -EAGAIN;
			break;
		}
		errno = 0;
		r = sw_nlmsg_run(buf, (size_t)n, nlh->nlmsg_seq, portid, cb, data, NULL, 0);
		if (r <= MNL_CB_STOP) {
			rc = r < 0 ? (errno ? -errno : -EPROTO) : 0;
			break;
		}
	}
out:
	mnl_socket_close(nl);
	return rc;
}

static struct nlmsghdr *req(char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	return nlh;
}

int sw_rt_veth_add(const char *name, const char *peer, int peer_netns_fd)
{
	char buf[1024] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	struct nlattr *linkinfo, *data, *peerinfo;
	struct ifinfomsg *pi;

	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peerinfo = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	pi = mnl_nlmsg_put_extra_header(nlh, sizeof(*pi));
	pi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_netns_fd);
	mnl_attr_nest_end(nlh, peerinfo);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	return talk(nlh, NULL, NULL);
}

int sw_rt_link_up(const char *name, int master_ifindex)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (master_ifindex > 0)
		mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)master_ifindex);
	return talk(nlh, NULL, NULL);
}

int sw_rt_link_del(const char *name)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_DELLINK, 0);

	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return talk(nlh, NULL, NULL);
}

int sw_rt_addr_add(const char *name, const struct sw_prefix *addr)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	unsigned idx = if_nametoindex(name);

	if (!idx)
		return -errno;
	ifa->ifa_family = (uint8_t)addr->family;
	ifa->ifa_prefixlen = addr->len;
	ifa->ifa_index = idx;
	ifa->ifa_flags = addr->family == AF_INET6 ? IFA_F_NODAD : 0;
	mnl_attr_put(nlh, IFA_LOCAL, sw_family_addrlen(addr->family), addr->addr);
	mnl_attr_put(nlh, IFA_ADDRESS, sw_family_addrlen(addr->family), addr->addr);
	return talk(nlh, NULL, NULL);
}

int sw_rt_default_route(const char *name, const struct sw_prefix *gw)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	unsigned idx = if_nametoindex(name);

	if (!idx)
		return -errno;
	rtm->rtm_family = (uint8_t)gw->family;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_GATEWAY, sw_family_addrlen(gw->family), gw->addr);
	mnl_attr_put_u32(nlh, RTA_OIF, idx);
	return talk(nlh, NULL, NULL);
}

int sw_rt_route_add(const char *name, const struct sw_prefix *dst)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	unsigned idx = if_nametoindex(name);

	if (!idx)
		return -errno;
	rtm->rtm_family = (uint8_t)dst->family;
	rtm->rtm_dst_len = dst->len;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	if (dst->len)
		mnl_attr_put(nlh, RTA_DST, sw_family_addrlen(dst->family), dst->addr);
	mnl_attr_put_u32(nlh, RTA_OIF, idx);
	return talk(nlh, NULL, NULL);
}

static int oper_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;
	int *oper = data;

	if (nlh->nlmsg_type != RTM_NEWLINK || sw_nlmsg_payload_len(nlh) < sizeof(struct ifinfomsg))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(a) == IFLA_OPERSTATE && mnl_attr_get_payload_len(a) == 1)
			*oper = *(const uint8_t *)mnl_attr_get_payload(a);
	return MNL_CB_OK;
}

int sw_rt_link_oper(const char *name, int *oper)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_GETLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	*oper = -1;
	return talk(nlh, oper_cb, oper);
}

int sw_rt_neigh_del(int ifindex, const struct sw_prefix *addr)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = req(buf, RTM_DELNEIGH, 0);
	struct ndmsg *nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	int rc;

	nd->ndm_family = (uint8_t)addr->family;
	nd->ndm_ifindex = ifindex;
	mnl_attr_put(nlh, NDA_DST, sw_family_addrlen(addr->family), addr->addr);
	rc = talk(nlh, NULL, NULL);
	return rc == -ENOENT ? 0 : rc;
}

int sw_rt_neigh_used(int ifindex, const struct sw_prefix *addr, int *used)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd;
	struct neigh_q q = { ifindex, addr, used };

	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = (uint8_t)addr->family;
	*used = 0;
	return talk(nlh, neigh_cb, &q);
}
