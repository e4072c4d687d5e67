/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_rtnl: what fake_rtnl.h declares, compiled once into build/libswtest.a. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_rtnl.h"

void fr_init(struct fr *k)
{
	memset(k, 0, sizeof(*k));
}

void fr_free(struct fr *k)
{
	for (size_t i = k->ev_head; i < k->ev_tail; i++)
		free(k->ev[i]);
}

/* ---- messages ------------------------------------------------------------ */

struct nlmsghdr *fr_hdr(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(at);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = seq ? FR_PORTID : 0;
	return nlh;
}

size_t fr_put_link(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq,
		   const struct fr_link *l)
{
	struct nlmsghdr *nlh = fr_hdr(at, type, flags, seq);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = l->ifindex;
	ifm->ifi_flags = l->up ? IFF_UP : 0;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, l->name);
	if (l->master)
		mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)l->master);
	if (l->peer_nsid) {
		mnl_attr_put_u32(nlh, IFLA_LINK_NETNSID, (uint32_t)(l->peer_nsid - 1));
		mnl_attr_put_u32(nlh, IFLA_LINK, (uint32_t)l->peer_ifindex);
	}
	if (l->kind) {
		struct nlattr *li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);

		mnl_attr_put_strz(nlh, IFLA_INFO_KIND, l->kind);
		mnl_attr_nest_end(nlh, li);
	}
	return nlh->nlmsg_len;
}

size_t fr_put_addr(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq,
		   const struct fr_addr *a)
{
	struct nlmsghdr *nlh = fr_hdr(at, type, flags, seq);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	size_t alen = a->family == AF_INET ? 4 : 16;

	ifa->ifa_family = (uint8_t)a->family;
	ifa->ifa_prefixlen = a->plen;
	ifa->ifa_index = (uint32_t)a->ifindex;
	mnl_attr_put(nlh, IFA_ADDRESS, alen, a->addr);
	mnl_attr_put(nlh, IFA_LOCAL, alen, a->addr);
	return nlh->nlmsg_len;
}

size_t fr_put_route(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq,
		    const struct fr_route *r)
{
	struct nlmsghdr *nlh = fr_hdr(at, type, flags, seq);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	size_t alen = r->family == AF_INET ? 4 : 16;

	rtm->rtm_family = (uint8_t)r->family;
	rtm->rtm_dst_len = r->dst_len;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_type = RTN_UNICAST;
	rtm->rtm_protocol = RTPROT_KERNEL;
	rtm->rtm_scope = r->has_gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
	mnl_attr_put_u32(nlh, RTA_TABLE, RT_TABLE_MAIN);
	if (r->dst_len)
		mnl_attr_put(nlh, RTA_DST, alen, r->dst);
	if (r->has_gw)
		mnl_attr_put(nlh, RTA_GATEWAY, alen, r->gw);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)r->oif);
	return nlh->nlmsg_len;
}

/* ---- state helpers ---------------------------------------------------------- */

void fr_parse(const char *text, int *family, uint8_t *addr)
{
	*family = strchr(text, ':') ? AF_INET6 : AF_INET;
	memset(addr, 0, 16);
	assert_int_equal(inet_pton(*family, text, addr), 1);
}

struct fr_link fr_mklink(int ifindex, const char *name, const char *kind, bool up,
			 int master)
{
	struct fr_link l = { .ifindex = ifindex, .kind = kind, .up = up, .master = master };

	snprintf(l.name, sizeof(l.name), "%s", name);
	return l;
}

struct fr_addr fr_mkaddr(int ifindex, const char *text, uint8_t plen)
{
	struct fr_addr a = { .ifindex = ifindex, .plen = plen };

	fr_parse(text, &a.family, a.addr);
	return a;
}

/* dst NULL: a default route */
struct fr_route fr_mkroute(const char *dst, uint8_t dst_len, int oif, const char *gw)
{
	struct fr_route r = { .dst_len = dst_len, .oif = oif };
	uint8_t tmp[16];
	int fam = AF_INET;

	if (dst)
		fr_parse(dst, &r.family, r.dst);
	if (gw) {
		fr_parse(gw, &fam, tmp);
		memcpy(r.gw, tmp, 16);
		r.has_gw = true;
		if (!dst)
			r.family = fam;
	}
	if (!r.family)
		r.family = AF_INET;
	return r;
}

/* one event datagram holding one message */
void fr_queue(struct fr *k, const uint8_t *msg, size_t len)
{
	assert_true(k->ev_tail < FR_EVQ);
	k->ev[k->ev_tail] = malloc(len ? len : 1);
	assert_non_null(k->ev[k->ev_tail]);
	if (len)
		memcpy(k->ev[k->ev_tail], msg, len);
	k->ev_len[k->ev_tail++] = len;
}

/* the kernel's queue overran: the subscriber gets ENOBUFS */
void fr_lost(struct fr *k)
{
	fr_queue(k, NULL, 0);
}

void fr_link_ev(struct fr *k, uint16_t type, const struct fr_link *l)
{
	uint8_t buf[1024] = { 0 };

	fr_queue(k, buf, fr_put_link(buf, type, 0, 0, l));
}

void fr_addr_ev(struct fr *k, uint16_t type, const struct fr_addr *a)
{
	uint8_t buf[512] = { 0 };

	fr_queue(k, buf, fr_put_addr(buf, type, 0, 0, a));
}

void fr_route_ev(struct fr *k, uint16_t type, const struct fr_route *r)
{
	uint8_t buf[512] = { 0 };

	fr_queue(k, buf, fr_put_route(buf, type, 0, 0, r));
}

/* state changes, with (ev) or without (a lost event) the event */
void fr_add_link(struct fr *k, struct fr_link l, bool ev)
{
	for (size_t i = 0; i < k->n_links; i++)
		if (k->links[i].ifindex == l.ifindex) {
			k->links[i] = l;
			goto out;
		}
	assert_true(k->n_links < FR_N);
	k->links[k->n_links++] = l;
out:
	if (ev)
		fr_link_ev(k, RTM_NEWLINK, &l);
}

void fr_del_link(struct fr *k, int ifindex, bool ev)
{
	size_t j = 0;

	for (size_t i = 0; i < k->n_links; i++) {
		if (k->links[i].ifindex == ifindex) {
			if (ev)
				fr_link_ev(k, RTM_DELLINK, &k->links[i]);
			continue;
		}
		k->links[j++] = k->links[i];
	}
	k->n_links = j;
	/* addresses and routes go with the link, silently (as IPv4 routes do) */
	j = 0;
	for (size_t i = 0; i < k->n_addrs; i++)
		if (k->addrs[i].ifindex != ifindex)
			k->addrs[j++] = k->addrs[i];
	k->n_addrs = j;
	j = 0;
	for (size_t i = 0; i < k->n_routes; i++)
		if (k->routes[i].oif != ifindex)
			k->routes[j++] = k->routes[i];
	k->n_routes = j;
}

void fr_add_addr(struct fr *k, struct fr_addr a, bool ev)
{
	assert_true(k->n_addrs < FR_N);
	k->addrs[k->n_addrs++] = a;
	if (ev)
		fr_addr_ev(k, RTM_NEWADDR, &a);
}

void fr_add_route(struct fr *k, struct fr_route r, bool ev)
{
	assert_true(k->n_routes < FR_N);
	k->routes[k->n_routes++] = r;
	if (ev)
		fr_route_ev(k, RTM_NEWROUTE, &r);
}

/* ---- the transports ---------------------------------------------------------- */

ssize_t fr_dump_send(void *ctx, const void *buf, size_t len)
{
	struct fr *k = ctx;
	const struct nlmsghdr *req = buf;
	uint8_t family;
	size_t off = 0;

	assert_true(len >= NLMSG_HDRLEN + 1);
	assert_true(req->nlmsg_flags & NLM_F_DUMP);
	family = *(const uint8_t *)mnl_nlmsg_get_payload(req);
	memset(k->answer, 0, sizeof(k->answer));
	switch (req->nlmsg_type) {
	case RTM_GETLINK:
		for (size_t i = 0; i < k->n_links; i++)
			off += fr_put_link(k->answer + off, RTM_NEWLINK, NLM_F_MULTI, req->nlmsg_seq,
					   &k->links[i]);
		break;
	case RTM_GETADDR: {
		/* IFA_TARGET_NETNSID: another namespace's addresses (the kernel
		 * honours it only with NETLINK_GET_STRICT_CHK, which also makes
		 * ifa_index a filter) */
		const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(req);
		const struct nlattr *at;
		int want = 0;

		mnl_attr_for_each(at, req, sizeof(*ifa))
			if (mnl_attr_get_type(at) == IFA_TARGET_NETNSID)
				want = (int)mnl_attr_get_u32(at) + 1;
		k->n_target_dumps += want != 0;
		for (size_t i = 0; i < k->n_addrs; i++)
			if (k->addrs[i].nsid == want &&
			    (!family || k->addrs[i].family == family) &&
			    (!want || !ifa->ifa_index || k->addrs[i].ifindex == (int)ifa->ifa_index))
				off += fr_put_addr(k->answer + off, RTM_NEWADDR, NLM_F_MULTI,
						   req->nlmsg_seq, &k->addrs[i]);
		break;
	}
	case RTM_GETROUTE:
		for (size_t i = 0; i < k->n_routes; i++)
			if (k->routes[i].family == family)
				off += fr_put_route(k->answer + off, RTM_NEWROUTE, NLM_F_MULTI,
						    req->nlmsg_seq, &k->routes[i]);
		break;
	default:
		fail_msg("fake rtnl: unexpected request type %u", req->nlmsg_type);
	}
	{
		struct nlmsghdr *done = fr_hdr(k->answer + off, NLMSG_DONE, NLM_F_MULTI,
					       req->nlmsg_seq);
		int zero = 0;

		mnl_nlmsg_put_extra_header(done, sizeof(zero));
		off += done->nlmsg_len;
	}
	k->answer_len = off;
	k->answer_off = 0;
	k->split = 0;
	if (k->intr_dumps && off > ((struct nlmsghdr *)k->answer)->nlmsg_len) {
		struct nlmsghdr *first = (struct nlmsghdr *)k->answer;

		k->intr_dumps--;
		first->nlmsg_flags |= NLM_F_DUMP_INTR;
		k->split = first->nlmsg_len;
	}
	k->answer_ready = true;
	k->n_dumps++;
	return (ssize_t)len;
}

ssize_t fr_dump_recv(void *ctx, void *buf, size_t len, int timeout_ms)
{
	struct fr *k = ctx;
	size_t n;

	(void)timeout_ms;
	if (!k->answer_ready)
		return 0;
	n = (k->split && !k->answer_off ? k->split : k->answer_len) - k->answer_off;
	assert_true(n <= len);
	memcpy(buf, k->answer + k->answer_off, n);
	k->answer_off += n;
	k->answer_ready = k->answer_off < k->answer_len;
	return (ssize_t)n;
}

ssize_t fr_ev_send(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	fail_msg("fake rtnl: the subscriber sends nothing");
	return -EINVAL;
}

ssize_t fr_ev_recv(void *ctx, void *buf, size_t len, int timeout_ms)
{
	struct fr *k = ctx;
	size_t n;

	assert_int_equal(timeout_ms, 0);        /* drained without blocking */
	if (k->ev_head == k->ev_tail)
		return 0;
	n = k->ev_len[k->ev_head];
	assert_true(n <= len);
	memcpy(buf, k->ev[k->ev_head], n);
	free(k->ev[k->ev_head]);
	k->ev_head++;
	return n ? (ssize_t)n : -ENOBUFS;
}

const struct sw_nl_ops fr_dump_ops = { .send = fr_dump_send, .recv = fr_dump_recv };
const struct sw_nl_ops fr_ev_ops = { .send = fr_ev_send, .recv = fr_ev_recv };
