/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NL_H
#define SANDWALL_NL_H
/* nl: the one netlink transport for nf_tables and rtnetlink. A whole batch per sendmsg
 * (BEGIN with the generation id, NLM_F_ACK on every inner message, END),
 * then a wait for every sequence number; dumps read to NLMSG_DONE. The
 * kernel side is behind a small ops table so tests can inject ACK, EPERM,
 * ERESTART and ENOBUFS without a kernel. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct nlmsghdr;
struct mnl_socket;

#define SW_NL_RCVBUF      (64 * 1024)     /* a dump datagram is at most 32 KiB */
#define SW_NL_ERRMSG      256

struct sw_nl_ops {
	/* whole buffer in one message; returns bytes sent or -errno */
	ssize_t (*send)(void *ctx, const void *buf, size_t len);
	/* one datagram; timeout_ms < 0 blocks; returns bytes, 0 on timeout, or -errno */
	ssize_t (*recv)(void *ctx, void *buf, size_t len, int timeout_ms);
};

struct sw_nl {
	const struct sw_nl_ops *ops;
	void *ctx;
	struct mnl_socket *sock;        /* NULL for a fake transport */
	uint32_t portid;
	uint32_t seq;
	char errmsg[SW_NL_ERRMSG];      /* the kernel's extack text for the last error */
	int err_index;                  /* which batch message failed (0-based), -1 */
	char errobj[160];               /* what that message did (encode.c names it), "" */
	uint8_t *rbuf;
};

/* Open NETLINK_NETFILTER: SOCK_CLOEXEC, NETLINK_EXT_ACK, NETLINK_CAP_ACK. */
int sw_nl_open(struct sw_nl *nl);
/* The same on a NETLINK_NETFILTER socket opened earlier (by a previous
 * run, kept in the service manager's fd store): what it still holds from
 * then is read and dropped. -ENOTSOCK/-EPROTOTYPE for anything else. */
int sw_nl_adopt(struct sw_nl *nl, int fd);
/* Open NETLINK_ROUTE on the same transport: groups 0 for requests and
 * dumps (sw_host_dump), or RTMGRP_* bits for a non-blocking subscriber
 * (recv with timeout 0 drains it). The host tracker's events and dumps go
 * through ops, so tests feed RTM_* messages without a kernel. */
int sw_nl_open_route(struct sw_nl *nl, unsigned int groups);
/* Use a fake kernel (tests). */
int sw_nl_open_ops(struct sw_nl *nl, const struct sw_nl_ops *ops, void *ctx);
void sw_nl_close(struct sw_nl *nl);
int sw_nl_fd(const struct sw_nl *nl);
uint32_t sw_nl_next_seq(struct sw_nl *nl);

/* NFT_MSG_GETGEN -> the current ruleset generation id. */
int sw_nl_getgen(struct sw_nl *nl, uint32_t *genid);

typedef int (*sw_nl_cb)(const struct nlmsghdr *nlh, void *data);
/* Send a dump request and hand every reply to cb until NLMSG_DONE.
 * -EINTR when the kernel marks the dump inconsistent (retry it). */
int sw_nl_dump(struct sw_nl *nl, struct nlmsghdr *req, sw_nl_cb cb, void *data);

/* A batch under construction. */
struct sw_batch {
	uint8_t *buf;
	size_t len, cap;
	uint32_t begin_seq;         /* BATCH_BEGIN */
	uint32_t first_seq;         /* first inner message */
	uint32_t n_msgs;            /* inner messages (each wants an ACK) */
	int err;                    /* sticky allocation error */
	uint32_t family;            /* of the table being encoded (encode.c); 0: NFPROTO_INET */
};

int sw_batch_init(struct sw_batch *b, struct sw_nl *nl, uint32_t genid, bool use_genid);
/* Room for one more message of up to `room` bytes; returns where to build
 * it (the caller fills it with nftnl_*_nlmsg_build_hdr) or NULL. */
void *sw_batch_reserve(struct sw_batch *b, size_t room);
/* Account the message just built at the reserved place. */
void sw_batch_commit(struct sw_batch *b, struct sw_nl *nl, struct nlmsghdr *nlh);
int sw_batch_finish(struct sw_batch *b, struct sw_nl *nl);
void sw_batch_free(struct sw_batch *b);

/* Send a finished batch and wait for an answer to every message.
 * Returns 0, the first error (-errno, with nl->errmsg and nl->err_index),
 * or -ERESTART when the generation moved (rebuild and retry). */
int sw_nl_send_batch(struct sw_nl *nl, struct sw_batch *b);

#endif
