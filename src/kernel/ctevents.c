// SPDX-License-Identifier: GPL-2.0-or-later
/* ctevents: conntrack's NEW and DESTROY events and its dump, parsed with
 * every length checked (see include/kernel/ctevents.h). */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "kernel/ctevents.h"
#include "kernel/nlmsg.h"

#define CTEV_BUF (64 * 1024)

/* Scalars: the payload must be exactly that long. */
static int get_be16(const struct nlattr *a, uint16_t *v)
{
	uint16_t x;

	if (mnl_attr_get_payload_len(a) != 2)
		return -EBADMSG;
	memcpy(&x, mnl_attr_get_payload(a), 2);
	*v = ntohs(x);
	return 0;
}

static int get_be32(const struct nlattr *a, uint32_t *v)
{
	uint32_t x;

	if (mnl_attr_get_payload_len(a) != 4)
		return -EBADMSG;
	memcpy(&x, mnl_attr_get_payload(a), 4);
	*v = ntohl(x);
	return 0;
}

static int get_be64(const struct nlattr *a, uint64_t *v)
{
	uint64_t x;

	if (mnl_attr_get_payload_len(a) != 8)
		return -EBADMSG;
	memcpy(&x, mnl_attr_get_payload(a), 8);
	*v = be64toh(x);
	return 0;
}

/* The walk over a nest's payload stops at a torn attribute: a nest whose
 * attributes are not whole is malformed. */
#define NEST_EACH(a, nest, off) \
	sw_nlattr_for_each(a, mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), off)

static int nest_whole(const struct nlattr *nest, size_t off)
{
	return mnl_attr_get_payload_len(nest) - off < MNL_ATTR_HDRLEN ? 0 : -EBADMSG;
}

static int tuple_ip(const struct nlattr *nest, struct sw_ct_flow *f)
{
	const struct nlattr *a;
	size_t off;
	int got = 0;

	NEST_EACH(a, nest, off) {
		uint16_t t = mnl_attr_get_type(a), n = mnl_attr_get_payload_len(a);
		bool v4 = t == CTA_IP_V4_SRC || t == CTA_IP_V4_DST;
		bool v6 = t == CTA_IP_V6_SRC || t == CTA_IP_V6_DST;

		if (!v4 && !v6)
			continue;
		if (n != (v4 ? 4 : 16) || (f->family && f->family != (v4 ? AF_INET : AF_INET6)))
			return -EBADMSG;
		f->family = v4 ? AF_INET : AF_INET6;
		memcpy(t == CTA_IP_V4_SRC || t == CTA_IP_V6_SRC ? f->src : f->dst,
		       mnl_attr_get_payload(a), n);
		got |= t == CTA_IP_V4_SRC || t == CTA_IP_V6_SRC ? 1 : 2;
	}
	if (nest_whole(nest, off) || got != 3)
		return -EBADMSG;
	return 0;
}

static int tuple_proto(const struct nlattr *nest, struct sw_ct_flow *f)
{
	const struct nlattr *a;
	size_t off;
	bool num = false;
	int rc = 0;

	NEST_EACH(a, nest, off) {
		switch (mnl_attr_get_type(a)) {
		case CTA_PROTO_NUM:
			if (mnl_attr_get_payload_len(a) != 1)
				return -EBADMSG;
			f->proto = *(const uint8_t *)mnl_attr_get_payload(a);
			num = true;
			break;
		case CTA_PROTO_SRC_PORT: rc = get_be16(a, &f->sport); break;
		case CTA_PROTO_DST_PORT: rc = get_be16(a, &f->dport); break;
		}
		if (rc)
			return rc;
	}
	if (nest_whole(nest, off) || !num)
		return -EBADMSG;
	return 0;
}

static int tuple(const struct nlattr *nest, struct sw_ct_flow *f)
{
	const struct nlattr *a;
	size_t off;
	int rc = 0, got = 0;

	NEST_EACH(a, nest, off) {
		switch (mnl_attr_get_type(a)) {
		case CTA_TUPLE_IP: rc = tuple_ip(a, f); got |= 1; break;
		case CTA_TUPLE_PROTO: rc = tuple_proto(a, f); got |= 2; break;
		}
		if (rc)
			return rc;
	}
	if (nest_whole(nest, off) || got != 3)
		return -EBADMSG;
	return 0;
}

/* CTA_COUNTERS_*: 64-bit counters (32-bit ones from old kernels too). */
static int counters(const struct nlattr *nest, uint64_t *pkts, uint64_t *bytes)
{
	const struct nlattr *a;
	size_t off;
	int rc = 0, got = 0;

	NEST_EACH(a, nest, off) {
		uint32_t v32;

		switch (mnl_attr_get_type(a)) {
		case CTA_COUNTERS_PACKETS: rc = get_be64(a, pkts); got |= 1; break;
		case CTA_COUNTERS_BYTES: rc = get_be64(a, bytes); got |= 2; break;
		case CTA_COUNTERS32_PACKETS:
			if (!(rc = get_be32(a, &v32)))
				*pkts = v32;
			got |= 1;
			break;
		case CTA_COUNTERS32_BYTES:
			if (!(rc = get_be32(a, &v32)))
				*bytes = v32;
			got |= 2;
			break;
		}
		if (rc)
			return rc;
	}
	if (nest_whole(nest, off) || got != 3)
		return -EBADMSG;
	return 0;
}

static int timestamp(const struct nlattr *nest, struct sw_ct_flow *f)
{
	const struct nlattr *a;
	size_t off;
	int rc = 0;

	NEST_EACH(a, nest, off) {
		switch (mnl_attr_get_type(a)) {
		case CTA_TIMESTAMP_START: rc = get_be64(a, &f->start_ns); f->has_start = true; break;
		case CTA_TIMESTAMP_STOP: rc = get_be64(a, &f->stop_ns); break;
		}
		if (rc)
			return rc;
	}
	return nest_whole(nest, off);
}

int sw_ct_parse_msg(const struct nlmsghdr *nlh, struct sw_ct_flow *f)
{
	const struct nfgenmsg *g;
	const struct nlattr *a;
	const uint8_t *attrs;
	size_t len, off;
	int rc = 0, got = 0;
	uint16_t type = nlh->nlmsg_type;

	memset(f, 0, sizeof(*f));
	if (type == ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE))
		f->kind = SW_CT_DESTROY;
	else if (type == ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW))
		f->kind = (nlh->nlmsg_flags & NLM_F_CREATE) ? SW_CT_NEW : SW_CT_DUMPED;
	else
		return -ENOENT;
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*g)))
		return -EBADMSG;
	g = mnl_nlmsg_get_payload(nlh);
	attrs = (const uint8_t *)g + MNL_ALIGN(sizeof(*g));
	len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN - MNL_ALIGN(sizeof(*g));
	sw_nlattr_for_each(a, attrs, len, off) {
		uint64_t p = 0, b = 0;

		switch (mnl_attr_get_type(a)) {
		case CTA_TUPLE_ORIG: rc = tuple(a, f); got |= 1; break;
		case CTA_ID: rc = get_be32(a, &f->id); break;
		case CTA_ZONE: rc = get_be16(a, &f->zone); break;
		case CTA_COUNTERS_ORIG:
			if (!(rc = counters(a, &p, &b))) {
				f->orig_packets = p;
				f->orig_bytes = b;
				got |= 2;
			}
			break;
		case CTA_COUNTERS_REPLY:
			if (!(rc = counters(a, &p, &b))) {
				f->reply_packets = p;
				f->reply_bytes = b;
				got |= 4;
			}
			break;
		case CTA_TIMESTAMP: rc = timestamp(a, f); break;
		}
		if (rc)
			return -EBADMSG;
	}
	if (len - off >= MNL_ATTR_HDRLEN || !(got & 1))
		return -EBADMSG;
	if (g->nfgen_family != AF_UNSPEC && g->nfgen_family != f->family)
		return -EBADMSG;
	f->has_counters = (got & 6) == 6;
	if (!f->has_counters)
		f->orig_packets = f->orig_bytes = f->reply_packets = f->reply_bytes = 0;
	return 0;
}

size_t sw_ct_parse(const void *buf, size_t len, struct sw_ct_flow *out, size_t max, size_t *bad)
{
	const struct nlmsghdr *nlh;
	size_t off, n = 0;

	sw_nlmsg_for_each(nlh, buf, len, off) {
		int rc;

		if (n == max)
			break;
		rc = sw_ct_parse_msg(nlh, &out[n]);
		if (rc == 0)
			n++;
		else if (rc == -EBADMSG)
			(*bad)++;
	}
	if (n < max && off != len)
		(*bad)++;       /* a torn message at the end */
	return n;
}

const char *sw_ct_proto_name(uint8_t proto, char *buf, size_t len)
{
	switch (proto) {
	case IPPROTO_TCP: return "tcp";
	case IPPROTO_UDP: return "udp";
	case IPPROTO_ICMP: return "icmp";
	case IPPROTO_IGMP: return "igmp";
	case IPPROTO_ICMPV6: return "ipv6-icmp";
	case IPPROTO_SCTP: return "sctp";
	case IPPROTO_UDPLITE: return "udplite";
	case IPPROTO_DCCP: return "dccp";
	}
	snprintf(buf, len, "%u", proto);
	return buf;
}

int sw_ctev_open(struct sw_ctev *e)
{
	unsigned groups = (1u << (NFNLGRP_CONNTRACK_NEW - 1)) | (1u << (NFNLGRP_CONNTRACK_DESTROY - 1));
	int sz = (int)SW_CTEV_RCVBUF, err;
	socklen_t sl = sizeof(e->rcvbuf);

	memset(e, 0, sizeof(*e));
	e->buf = malloc(CTEV_BUF);
	e->sock = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!e->buf || !e->sock) {
		err = e->buf ? -errno : -ENOMEM;
		goto fail;
	}
	/* a burst of short flows must not overrun it: FORCE (root) past rmem_max */
	if (setsockopt(mnl_socket_get_fd(e->sock), SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(mnl_socket_get_fd(e->sock), SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	getsockopt(mnl_socket_get_fd(e->sock), SOL_SOCKET, SO_RCVBUF, &e->rcvbuf, &sl);
	if (mnl_socket_bind(e->sock, groups, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto fail;
	}
	return 0;
fail:
	sw_ctev_close(e);
	return err;
}

void sw_ctev_close(struct sw_ctev *e)
{
	if (e->sock)
		mnl_socket_close(e->sock);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

int sw_ctev_fd(const struct sw_ctev *e)
{
	return e->sock ? mnl_socket_get_fd(e->sock) : -1;
}

int sw_ctev_read(struct sw_ctev *e, void (*cb)(const struct sw_ct_flow *f, void *data), void *data)
{
	bool lost = false;

	for (;;) {
		struct sockaddr_nl sa;
		socklen_t salen = sizeof(sa);
		const struct nlmsghdr *nlh;
		ssize_t n = recvfrom(mnl_socket_get_fd(e->sock), e->buf, CTEV_BUF, MSG_DONTWAIT,
				     (struct sockaddr *)&sa, &salen);
		size_t off;

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return lost ? -ENOBUFS : 0;
			if (errno == ENOBUFS) {
				e->overruns++;
				lost = true;
				continue;
			}
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (salen < sizeof(sa) || sa.nl_pid != 0)
			continue;       /* not from the kernel */
		sw_nlmsg_for_each(nlh, e->buf, (size_t)n, off) {
			struct sw_ct_flow f;
			int rc = sw_ct_parse_msg(nlh, &f);

			if (rc == 0)
				cb(&f, data);
			else if (rc == -EBADMSG)
				e->bad++;
		}
		if (off != (size_t)n)
			e->bad++;
	}
}

struct dump_ctx {
	void (*cb)(const struct sw_ct_flow *f, void *data);
	void *data;
	uint64_t *bad;
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	struct sw_ct_flow f;
	int rc = sw_ct_parse_msg(nlh, &f);

	if (rc == 0)
		c->cb(&f, c->data);
	else if (rc == -EBADMSG && c->bad)
		(*c->bad)++;
	return MNL_CB_OK;
}

int sw_ct_dump(struct sw_nl *nl, void (*cb)(const struct sw_ct_flow *f, void *data), void *data,
	       uint64_t *bad)
{
	struct dump_ctx c = { cb, data, bad };
	char req[64];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct nfgenmsg *g;
	int rc;

	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = sw_nl_next_seq(nl);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	rc = sw_nl_dump(nl, nlh, dump_cb, &c);
	if (rc == -EINTR || rc == -ENOENT || rc == -EOPNOTSUPP || rc == -EPROTONOSUPPORT)
		rc = 0;
	return rc;
}

#define ACCT_PATH "/proc/sys/net/netfilter/nf_conntrack_acct"
#define EVENTS_PATH "/proc/sys/net/netfilter/nf_conntrack_events"

int sw_ct_events_off(bool *off)
{
	char v[8] = "";
	int fd = open(EVENTS_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*off = false;
	if (fd < 0)
		return -errno;
	n = read(fd, v, sizeof(v) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	*off = v[0] == '0';
	return 0;
}

int sw_ct_acct(bool on, bool *was)
{
	char v[8] = "";
	int fd = open(ACCT_PATH, (on ? O_RDWR : O_RDONLY) | O_CLOEXEC), rc = 0;
	ssize_t n;

	*was = false;
	if (fd < 0)
		return -errno;
	n = read(fd, v, sizeof(v) - 1);
	if (n < 0) {
		rc = -errno;
		goto out;
	}
	*was = v[0] == '1';
	if (on && !*was && pwrite(fd, "1\n", 2, 0) != 2)
		rc = -errno;
out:
	close(fd);
	return rc;
}
