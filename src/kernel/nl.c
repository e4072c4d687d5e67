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

/* The error code of an NLMSG_ERROR message. */
static int error_code(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -EBADMSG;
	return sw_nlmsg_status(e->error);
}

/* Keep the kernel's extack text of an error we report. */
static void error_text(struct sw_nl *nl, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t off;

	nl->errmsg[0] = '\0';
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
	}
}

static int parse_error(struct sw_nl *nl, const struct nlmsghdr *nlh)
{
	int err = error_code(nlh);

	if (err)
		error_text(nl, nlh);
	return err;
}

static bool from_kernel_ok(const struct sw_nl *nl, const struct nlmsghdr *nlh)
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
			if (nlh->nlmsg_seq != seq || !from_kernel_ok(nl, nlh))
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

/* ---- batches ------------------------------------------------------------ */

static int batch_grow(struct sw_batch *b, size_t room)
{
	uint8_t *n;
	size_t cap = b->cap ? b->cap : 65536;

	if (b->err)
		return b->err;
	if (b->len + room <= b->cap)
		return 0;
	while (b->len + room > cap)
		cap *= 2;
	n = realloc(b->buf, cap);
	if (!n)
		return b->err = -ENOMEM;
	/* zero the new space: libnftnl builders expect a clean header */
	memset(n + b->cap, 0, cap - b->cap);
	b->buf = n;
	b->cap = cap;
	return 0;
}

/* BATCH_BEGIN / BATCH_END for the nf_tables subsystem */
static struct nlmsghdr *batch_hdr(struct sw_batch *b, uint16_t type, uint32_t seq)
{
	struct nlmsghdr *nlh;
	struct nfgenmsg *g;

	if (batch_grow(b, 256))
		return NULL;
	nlh = mnl_nlmsg_put_header(b->buf + b->len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons(NFNL_SUBSYS_NFTABLES);
	return nlh;
}

int sw_batch_init(struct sw_batch *b, struct sw_nl *nl, uint32_t genid, bool use_genid)
{
	struct nlmsghdr *nlh;

	memset(b, 0, sizeof(*b));
	b->begin_seq = sw_nl_next_seq(nl);
	nlh = batch_hdr(b, NFNL_MSG_BATCH_BEGIN, b->begin_seq);
	if (!nlh)
		return b->err;
	/* the kernel refuses the batch with ERESTART if the ruleset moved */
	if (use_genid)
		mnl_attr_put_u32(nlh, NFNL_BATCH_GENID, htonl(genid));
	b->len += nlh->nlmsg_len;
	b->first_seq = b->begin_seq + 1;
	return 0;
}

void *sw_batch_reserve(struct sw_batch *b, size_t room)
{
	if (batch_grow(b, room))
		return NULL;
	memset(b->buf + b->len, 0, room);
	return b->buf + b->len;
}

void sw_batch_commit(struct sw_batch *b, struct sw_nl *nl, struct nlmsghdr *nlh)
{
	uint32_t seq = sw_nl_next_seq(nl);

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	b->len += nlh->nlmsg_len;
	b->n_msgs++;
}

int sw_batch_finish(struct sw_batch *b, struct sw_nl *nl)
{
	struct nlmsghdr *nlh = batch_hdr(b, NFNL_MSG_BATCH_END, sw_nl_next_seq(nl));

	if (!nlh)
		return b->err;
	b->len += nlh->nlmsg_len;
	return b->err;
}

void sw_batch_free(struct sw_batch *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* Read what is still queued without waiting (answers we no longer need). */
static void drain(struct sw_nl *nl)
{
	while (nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, 0) > 0)
		;
}

int sw_nl_send_batch(struct sw_nl *nl, struct sw_batch *b)
{
	uint32_t pending = b->n_msgs;
	uint8_t *seen = NULL;
	int first_err = 0;
	ssize_t n;

	nl->errmsg[0] = '\0';
	nl->err_index = -1;
	if (b->err)
		return b->err;
	seen = calloc(b->n_msgs ? b->n_msgs : 1, 1);
	if (!seen)
		return -ENOMEM;
	n = nl->ops->send(nl->ctx, b->buf, b->len);
	if (n < 0) {
		first_err = (int)n;
		goto out;
	}
	/* The kernel handles the whole batch inside sendmsg, so every answer
	 * is queued by now; keep reading until each sequence number has one. */
	while (pending) {
		const struct nlmsghdr *nlh;
		size_t off;

		n = nl->ops->recv(nl->ctx, nl->rbuf, SW_NL_RCVBUF, 5000);
		if (n < 0) {
			first_err = (int)n;
			goto out;
		}
		if (n == 0) {
			first_err = first_err ? first_err : -ETIMEDOUT;
			goto out;
		}
		if ((size_t)n > SW_NL_RCVBUF) {
			first_err = -EMSGSIZE;
			goto out;
		}
		sw_nlmsg_for_each(nlh, nl->rbuf, (size_t)n, off) {
			uint32_t seq = nlh->nlmsg_seq, idx;
			int err;

			if (nlh->nlmsg_type != NLMSG_ERROR || !from_kernel_ok(nl, nlh))
				continue;
			err = error_code(nlh);
			if (seq == b->begin_seq) {
				/* the batch as a whole: ERESTART (generation
				 * moved), EPERM, or a failed commit */
				if (err) {
					first_err = err;
					error_text(nl, nlh);
					drain(nl);
					goto out;
				}
				continue;
			}
			idx = seq - b->first_seq;       /* wraps safely */
			if (idx >= b->n_msgs || seen[idx])
				continue;               /* stale or repeated */
			seen[idx] = 1;
			pending--;
			if (err && !first_err) {
				first_err = err;
				nl->err_index = (int)idx;
				error_text(nl, nlh);
			}
		}
		if (off != (size_t)n) {
			first_err = first_err ? first_err : -EBADMSG;
			goto out;
		}
	}
out:
	free(seen);
	return first_err;
}
