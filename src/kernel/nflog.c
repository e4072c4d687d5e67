// SPDX-License-Identifier: GPL-2.0-or-later
/* nflog: read the blocked-attempt log group (see include/kernel/nflog.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <libmnl/libmnl.h>

#include "kernel/nflog.h"
#include "kernel/nlmsg.h"

#define NFLOG_BUF     (64 * 1024)
#define NFLOG_COPY    128
#define PREFIX        "sandwall:"

/* Transport header fields from a copied packet (network header first). */
static void parse_payload(const uint8_t *p, size_t len, int family, struct sw_blocked *b)
{
	size_t l4 = 0;

	if (family == AF_INET && len >= 20 && (p[0] >> 4) == 4) {
		memcpy(b->src, p + 12, 4);
		memcpy(b->dst, p + 16, 4);
		b->proto = p[9];
		l4 = (size_t)(p[0] & 0x0f) * 4;
		/* only the first fragment has ports */
		if ((p[6] & 0x1f) || p[7])
			return;
	} else if (family == AF_INET6 && len >= 40 && (p[0] >> 4) == 6) {
		memcpy(b->src, p + 8, 16);
		memcpy(b->dst, p + 24, 16);
		b->proto = p[6];
		l4 = 40;
	} else {
		return;
	}
	if ((b->proto == IPPROTO_TCP || b->proto == IPPROTO_UDP) && len >= l4 + 4)
		b->dport = (uint16_t)(p[l4 + 2] << 8 | p[l4 + 3]);
}

size_t sw_nflog_parse(const void *buf, size_t len, struct sw_blocked *out, size_t max)
{
	const struct nlmsghdr *nlh;
	size_t n = 0, off;

	if (!max)
		return 0;
	sw_nlmsg_for_each(nlh, buf, len, off) {
		const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);
		const struct nlattr *a;
		const char *prefix = NULL;
		const uint8_t *payload = NULL;
		size_t plen = 0;
		struct sw_blocked b;

		if (nlh->nlmsg_type != (NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_PACKET) ||
		    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*g)))
			continue;
		memset(&b, 0, sizeof(b));
		b.family = g->nfgen_family == NFPROTO_IPV6 ? AF_INET6 : AF_INET;
		mnl_attr_for_each(a, nlh, sizeof(*g)) {
			switch (mnl_attr_get_type(a)) {
			case NFULA_PREFIX:
				if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
					prefix = mnl_attr_get_str(a);
				break;
			case NFULA_PACKET_HDR:
				if (mnl_attr_get_payload_len(a) >= sizeof(struct nfulnl_msg_packet_hdr)) {
					const struct nfulnl_msg_packet_hdr *h = mnl_attr_get_payload(a);

					b.hook = h->hook;
					b.has_hook = true;
				}
				break;
			case NFULA_IFINDEX_INDEV:
				if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
					b.iif = ntohl(mnl_attr_get_u32(a));
				break;
			case NFULA_IFINDEX_OUTDEV:
				if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
					b.oif = ntohl(mnl_attr_get_u32(a));
				break;
			case NFULA_UID:
				if (mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
					b.uid = ntohl(mnl_attr_get_u32(a));
					b.has_uid = true;
				}
				break;
			case NFULA_GID:
				if (mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
					b.gid = ntohl(mnl_attr_get_u32(a));
					b.has_gid = true;
				}
				break;
			case NFULA_PAYLOAD:
				/* mnl_attr_for_each stops at an attribute that does not
				 * fit the message: the length is within it */
				payload = mnl_attr_get_payload(a);
				plen = mnl_attr_get_payload_len(a);
				if (plen > (size_t)mnl_attr_get_len(a) || plen > nlh->nlmsg_len)
					payload = NULL, plen = 0;
				break;
			}
		}
		if (!prefix || strncmp(prefix, PREFIX, strlen(PREFIX)))
			continue;
		{
			/* "<category>[:<sandbox>] " */
			const char *c = prefix + strlen(PREFIX);
			size_t word = strcspn(c, " "), cat = strcspn(c, ": ");

			snprintf(b.category, sizeof(b.category), "%.*s", (int)cat, c);
			if (cat < word)
				snprintf(b.sandbox, sizeof(b.sandbox), "%.*s", (int)(word - cat - 1),
					 c + cat + 1);
		}
		if (payload) {
			parse_payload(payload, plen, b.family, &b);
			b.payload = payload;
			b.payload_len = plen;
		}
		out[n++] = b;
		if (n == max)
			break;
	}
	return n;
}

bool sw_blocked_is_output(const struct sw_blocked *b)
{
	return b->has_hook && b->hook == NF_INET_LOCAL_OUT;
}

void sw_blocked_format(const struct sw_blocked *b, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], proto[16];

	inet_ntop(b->family, b->src, s, sizeof(s));
	inet_ntop(b->family, b->dst, d, sizeof(d));
	if (b->proto == IPPROTO_TCP)
		snprintf(proto, sizeof(proto), "tcp");
	else if (b->proto == IPPROTO_UDP)
		snprintf(proto, sizeof(proto), "udp");
	else if (b->proto == IPPROTO_ICMP)
		snprintf(proto, sizeof(proto), "icmp");
	else if (b->proto == IPPROTO_ICMPV6)
		snprintf(proto, sizeof(proto), "icmpv6");
	else
		snprintf(proto, sizeof(proto), "%u", b->proto);
	if (b->dport)
		snprintf(buf, len, "src=%s dst=%s proto=%s dport=%u", s, d, proto, b->dport);
	else
		snprintf(buf, len, "src=%s dst=%s proto=%s", s, d, proto);
}

/* One NFULNL_MSG_CONFIG request for our group, acknowledged. */
static int config(struct sw_nflog *l, uint8_t family, uint16_t attr, const void *data, size_t dlen)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;
	uint32_t seq = ++l->seq;
	ssize_t n;

	nlh->nlmsg_type = NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = family;
	g->version = NFNETLINK_V0;
	g->res_id = htons(l->group);
	mnl_attr_put(nlh, attr, dlen, data);
	if (mnl_socket_sendto(l->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	/* the ack may come after log packets already queued: skip those */
	for (;;) {
		const struct nlmsghdr *r;
		size_t off;

		n = sw_nl_recv_kernel(mnl_socket_get_fd(l->sock), buf, sizeof(buf), 0);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EAGAIN;
		sw_nlmsg_for_each(r, buf, (size_t)n, off)
			if (r->nlmsg_type == NLMSG_ERROR && r->nlmsg_seq == seq) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(r);

				if (sw_nlmsg_payload_len(r) < sizeof(*e))
					return -EBADMSG;
				return sw_nlmsg_status(e->error);
			}
	}
}

int sw_nflog_open(struct sw_nflog *l, uint16_t group)
{
	return sw_nflog_open_copy(l, group, NFLOG_COPY, 0);
}

int sw_nflog_open_copy(struct sw_nflog *l, uint16_t group, uint32_t copy, uint32_t qthresh)
{
	uint32_t qt = htonl(qthresh);
	struct nfulnl_msg_config_cmd cmd = { .command = NFULNL_CFG_CMD_BIND };
	struct nfulnl_msg_config_mode mode = { .copy_range = htonl(copy),
					       .copy_mode = NFULNL_COPY_PACKET };
	int err;

	if (copy < 1 || copy > 65535)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->group = group;
	l->buf = malloc(NFLOG_BUF);
	l->sock = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!l->buf || !l->sock) {
		err = l->buf ? -errno : -ENOMEM;
		goto fail;
	}
	if (mnl_socket_bind(l->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto fail;
	}
	if ((err = config(l, AF_UNSPEC, NFULA_CFG_CMD, &cmd, sizeof(cmd))) ||
	    (err = config(l, AF_UNSPEC, NFULA_CFG_MODE, &mode, sizeof(mode))) ||
	    (qthresh && (err = config(l, AF_UNSPEC, NFULA_CFG_QTHRESH, &qt, sizeof(qt)))))
		goto fail;
	return 0;
fail:
	sw_nflog_close(l);
	return err;
}

void sw_nflog_close(struct sw_nflog *l)
{
	if (l->sock)
		mnl_socket_close(l->sock);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

int sw_nflog_fd(const struct sw_nflog *l)
{
	return l->sock ? mnl_socket_get_fd(l->sock) : -1;
}

int sw_nflog_read(struct sw_nflog *l, void (*cb)(const struct sw_blocked *b, void *data),
		  void *data)
{
	for (;;) {
		struct sw_blocked b[64];
		struct sockaddr_nl sa;
		socklen_t salen = sizeof(sa);
		ssize_t n = recvfrom(mnl_socket_get_fd(l->sock), l->buf, NFLOG_BUF, MSG_DONTWAIT,
				     (struct sockaddr *)&sa, &salen);
		size_t k;

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == ENOBUFS) {
				l->lost++;
				continue;
			}
			return -errno;
		}
		if (sa.nl_pid != 0)
			continue;       /* not from the kernel */
		k = sw_nflog_parse(l->buf, (size_t)n, b, 64);
		for (size_t i = 0; i < k; i++)
			cb(&b[i], data);
	}
}
