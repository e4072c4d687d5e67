/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NL_H
#define SANDWALL_NL_H
/* nl: the one netlink transport for nf_tables and rtnetlink: requests
 * and dumps read to NLMSG_DONE, GETGEN, and the ACK parsing that
 * commit.c's batches use (a whole batch per sendmsg, then a wait for
 * every sequence number). The
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
	char errobj[160];               /* what that message did (commit.c names it), "" */
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

/* An NLMSG_ERROR answer's error: 0, -errno, or -EBADMSG when it is short. */
int sw_nl_ack_code(const struct nlmsghdr *nlh);
/* Keep the kernel's extack text of an error we report in nl->errmsg, and
 * (ext_off, may be NULL) the offset NLMSGERR_ATTR_OFFS gives into the
 * refused message, 0 if none: as the kernel sent it, for the caller to
 * check against that message (commit.c). */
void sw_nl_ack_text(struct sw_nl *nl, const struct nlmsghdr *nlh, uint32_t *ext_off);
/* Did the kernel send it (port 0), or our own port (a loopback test)? */
bool sw_nl_from_kernel(const struct sw_nl *nl, const struct nlmsghdr *nlh);

#endif
