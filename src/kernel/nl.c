// SPDX-License-Identifier: GPL-2.0-or-later
/* nl: netlink transport for nf_tables (see include/kernel/nl.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <limits.h>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>

#include "kernel/nl.h"
#include "kernel/nlmsg.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* One batch is one sendmsg, and netlink refuses a message larger than
 * the socket's send buffer (EMSGSIZE): grow it to the batch, as nft does
 * (SO_SNDBUFFORCE as root, else up to wmem_max). */
static void sock_fit(struct sw_nl *nl, size_t len)
{
	int fd = mnl_socket_get_fd(nl->sock), cur = 0, want;
	socklen_t sl = sizeof(cur);

	if (len > INT_MAX / 2)
		return;
	want = (int)len + 4096;
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cur, &sl) == 0 && cur / 2 >= want)
		return;         /* the kernel reports twice what it was given */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof(want)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
}

/* The kernel answers every message of a batch with an ack (NLM_F_ACK),
 * one skb each, all queued before we read: a receive buffer too small
 * for them is ENOBUFS and the batch's outcome is lost. Grow it to the
 * number of messages (an ack's skb takes well under 2 KiB). */
static void sock_fit_acks(struct sw_nl *nl, const void *buf, size_t len)
{
	const struct nlmsghdr *h = buf;
	int fd = mnl_socket_get_fd(nl->sock), cur = 0, want, left = (int)len;
	socklen_t sl = sizeof(cur);
	size_t n = 0;

	if (len > INT_MAX / 2)
		return;
	for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left))
		n++;
	if (n > (size_t)(INT_MAX / 4096))
		return;
	want = (int)n * 2048 + 65536;
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cur, &sl) == 0 && cur / 2 >= want)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
}

static ssize_t sock_send(void *ctx, const void *buf, size_t len)
{
	struct sw_nl *nl = ctx;
	ssize_t n;

	sock_fit(nl, len);
	sock_fit_acks(nl, buf, len);
	n = mnl_socket_sendto(nl->sock, buf, len);
	return n < 0 ? -errno : n;
}

static ssize_t sock_recv(void *ctx, void *buf, size_t len, int timeout_ms)
{
	struct sw_nl *nl = ctx;
	struct pollfd pfd = { .fd = mnl_socket_get_fd(nl->sock), .events = POLLIN };
	ssize_t n;
	int r;

	for (;;) {
		/* answers to a batch are queued by the time sendmsg returns:
		 * read first, wait only when nothing is there */
		n = sw_nl_recv_kernel(pfd.fd, buf, len, MSG_DONTWAIT);
		if (n != 0)
			return n;
		if (timeout_ms == 0)
			return 0;
		do
			r = poll(&pfd, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
	}
}

static const struct sw_nl_ops sock_ops = { .send = sock_send, .recv = sock_recv };

static int nl_alloc(struct sw_nl *nl)
{
	nl->rbuf = malloc(SW_NL_RCVBUF);
	if (!nl->rbuf)
		return -ENOMEM;
	nl->seq = (uint32_t)time(NULL);
	nl->err_index = -1;
	return 0;
}

/* One socket on a netlink bus, bound to groups; acks: ask for extended
 * and capped acks (best effort: older kernels lack them and still work). */
static int nl_open_bus(struct sw_nl *nl, int bus, int flags, unsigned int groups, bool acks)
{
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	if ((err = nl_alloc(nl)))
		return err;
	nl->sock = mnl_socket_open2(bus, SOCK_CLOEXEC | flags);
	if (!nl->sock) {
		err = -errno;
		goto fail;
	}
	if (acks) {
		mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
		mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	}
	if (mnl_socket_bind(nl->sock, groups, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto fail;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->ops = &sock_ops;
	nl->ctx = nl;
	return 0;
fail:
	sw_nl_close(nl);
	return err;
}

int sw_nl_open(struct sw_nl *nl)
{
	return nl_open_bus(nl, NETLINK_NETFILTER, 0, 0, true);
}

int sw_nl_adopt(struct sw_nl *nl, int fd)
{
	int one = 1, proto = -1, type = -1, err;
	socklen_t l = sizeof(proto);
	char drop[8192];

	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l) < 0)
		return -errno;
	l = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0)
		return -errno;
	if (proto != NETLINK_NETFILTER || type != SOCK_RAW)
		return -EPROTOTYPE;
	memset(nl, 0, sizeof(*nl));
	if ((err = nl_alloc(nl)))
		return err;
	nl->sock = mnl_socket_fdopen(fd);
	if (!nl->sock) {
		err = -errno;
		free(nl->rbuf);
		memset(nl, 0, sizeof(*nl));
		return err;
	}
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	/* answers the previous run never read */
	for (;;) {
		ssize_t r = recv(fd, drop, sizeof(drop), MSG_DONTWAIT);

		if (r <= 0 && !(r < 0 && errno == EINTR))
			break;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->ops = &sock_ops;
	nl->ctx = nl;
	return 0;
}

int sw_nl_open_route(struct sw_nl *nl, unsigned int groups)
{
	/* subscribers read without blocking (drained on each epoll wakeup) */
	return nl_open_bus(nl, NETLINK_ROUTE, groups ? SOCK_NONBLOCK : 0, groups, false);
}

int sw_nl_open_ops(struct sw_nl *nl, const struct sw_nl_ops *ops, void *ctx)
{
	int err;

	memset(nl, 0, sizeof(*nl));
	if ((err = nl_alloc(nl)))
		return err;
	nl->ops = ops;
	nl->ctx = ctx;
	nl->portid = 4242;
	return 0;
}

void sw_nl_close(struct sw_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->rbuf);
	memset(nl, 0, sizeof(*nl));
}

int sw_nl_fd(const struct sw_nl *nl)
{
	return nl->sock ? mnl_socket_get_fd(nl->sock) : -1;
}

uint32_t sw_nl_next_seq(struct sw_nl *nl)
{
	return ++nl->seq;
}

int sw_nl_ack_code(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -EBADMSG;
	return sw_nlmsg_status(e->error);
}

void sw_nl_ack_text(struct sw_nl *nl, const struct nlmsghdr *nlh, uint32_t *ext_off)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t off;

	nl->errmsg[0] = '\0';
	if (ext_off)
		*ext_off = 0;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)) || !e->error ||
	    !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* the echoed request (unless capped), then the TLVs; every length
	 * here comes from the message: no step may wrap or pass its end */
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(e->msg) ||
		    e->msg.nlmsg_len - sizeof(e->msg) > sw_nlmsg_payload_len(nlh))
			return;
		off += e->msg.nlmsg_len - sizeof(e->msg);
	}
	off = MNL_ALIGN(off);
	if (off >= sw_nlmsg_payload_len(nlh))
		return;
	mnl_attr_for_each_payload((void *)((const uint8_t *)e + off),
				  sw_nlmsg_payload_len(nlh) - off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(nl->errmsg, sizeof(nl->errmsg), "%s", mnl_attr_get_str(attr));
		else if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_OFFS && ext_off &&
			 mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			*ext_off = mnl_attr_get_u32(attr);     /* checked by the caller */
	}
}

static int parse_error(struct sw_nl *nl, const struct nlmsghdr *nlh)
{
	int err = sw_nl_ack_code(nlh);

	if (err)
		sw_nl_ack_text(nl, nlh, NULL);
	return err;
}

bool sw_nl_from_kernel(const struct sw_nl *nl, const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_pid == 0 || nlh->nlmsg_pid == nl->portid;
}

int sw_nl_dump(struct sw_nl *nl, struct nlmsghdr *req, sw_nl_cb cb, void *data)
{
	uint32_t seq = req->nlmsg_seq;
	bool intr = false;
	ssize_t n;
	int err;

	nl->errmsg[0] = '\0';
	n = nl->ops->send(nl->ctx, req, req->nlmsg_len);
	if (n < 0)
		return (int)n;
	for (;;) {
		const struct nlmsghdr *nlh;
		size_t off;

		n = nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, 5000);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -ETIMEDOUT;
		if ((size_t)n > SW_NL_RCVBUF)
			return -EMSGSIZE;
		sw_nlmsg_for_each(nlh, nl->rbuf, (size_t)n, off) {
			if (nlh->nlmsg_seq != seq || !sw_nl_from_kernel(nl, nlh))
				continue;       /* stale answer to an earlier request */
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = true;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return intr ? -EINTR : 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				err = parse_error(nl, nlh);
				if (err)
					return err;
				if (!(req->nlmsg_flags & NLM_F_DUMP))
					return intr ? -EINTR : 0;
				continue;
			}
			if ((err = cb(nlh, data)) < 0)
				return err;
			if (!(req->nlmsg_flags & NLM_F_DUMP) && !(req->nlmsg_flags & NLM_F_ACK))
				return 0;
		}
		if (off != (size_t)n)
			return -EBADMSG;        /* a message runs past the datagram */
	}
}

static int gen_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *a;

	if ((nlh->nlmsg_type & 0xff) != NFT_MSG_NEWGEN)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) == NFTA_GEN_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			*(uint32_t *)data = ntohl(mnl_attr_get_u32(a));
	}
	return 0;
}

int sw_nl_getgen(struct sw_nl *nl, uint32_t *genid)
{
	char buf[MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg))];
	struct nlmsghdr *nlh;

	/* nft: (no syntax) -- NFT_MSG_GETGEN */
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETGEN, AF_UNSPEC, 0, sw_nl_next_seq(nl));
	*genid = 0;
	return sw_nl_dump(nl, nlh, gen_cb, genid);
}
