/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NLMSG_H
#define SANDWALL_NLMSG_H
/* nlmsg: the one bounded walk over a netlink datagram.
 *
 * libmnl 1.0.4's mnl_nlmsg_ok() compares nlmsg_len as an int: a length of
 * 2^31 or more passes, and the next step jumps ~4 GiB or, when alignment
 * wraps to 0, never moves. Every receive loop walks with sw_nlmsg_next()
 * instead: unsigned arithmetic, a header that fits, a length that is at
 * least a header and, padded to 4 bytes, at most what is left (libmnl's
 * attribute walk runs to the padded end), and a step that cannot wrap.
 * sw_nl_recv_kernel() reads one datagram and drops those whose sender is
 * not the kernel (nl_pid != 0): any local process may unicast to our port. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <libmnl/libmnl.h>

struct nlmsghdr;
struct nlattr;

/* The message at *off and advance *off past it (aligned, clamped to len);
 * NULL at the end or at a malformed header, which leaves *off where the
 * bad message starts: a datagram was whole when *off == len after the walk. */
const struct nlmsghdr *sw_nlmsg_next(const void *buf, size_t len, size_t *off);

#define sw_nlmsg_for_each(nlh, buf, len, off) \
	for ((off) = 0; ((nlh) = sw_nlmsg_next((buf), (len), &(off))) != NULL; )

/* Payload length of a walked message (nlmsg_len >= header is guaranteed). */
static inline size_t sw_nlmsg_payload_len(const struct nlmsghdr *nlh)
{
	return (size_t)nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
}

/* The error of an NLMSG_ERROR/NLMSG_DONE status as -errno: 0 stays 0, a
 * kernel error -1..-4095 is kept, anything else (positive, INT_MIN, whose
 * negation overflows) is -EPROTO. */
static inline int sw_nlmsg_status(int32_t code)
{
	if (code == 0 || (code < 0 && code >= -4095))
		return code;
	return -EPROTO;
}

/* The same walk over attributes: the attribute at *off in buf[0..len) and
 * advance *off past it (padded, clamped to len); NULL at the end or at an
 * attribute whose length is below a header or beyond len, which leaves
 * *off where it starts. The attributes were whole when, after the walk,
 * len - *off < NLA_HDRLEN (what the kernel and libmnl ignore). */
const struct nlattr *sw_nlattr_next(const void *buf, size_t len, size_t *off);

#define sw_nlattr_for_each(a, buf, len, off) \
	for ((off) = 0; ((a) = sw_nlattr_next((buf), (len), &(off))) != NULL; )

/* Is every attribute of this attribute's payload whole, and recursively
 * so inside those flagged NLA_F_NESTED, to at most depth levels? */
bool sw_nlattr_tree_ok(const struct nlattr *nest, unsigned depth);

/* mnl_cb_run2() on the bounded walk: the same checks (portid and sequence
 * when non-zero, NLM_F_DUMP_INTR -> EINTR, NLMSG_ERROR/DONE/NOOP/OVERRUN
 * defaults unless ctl names the type) and the same return values
 * (MNL_CB_ERROR with errno, MNL_CB_STOP, MNL_CB_OK). A truncated or
 * malformed message fails with EBADMSG. */
int sw_nlmsg_run(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		 mnl_cb_t cb, void *data, const mnl_cb_t *ctl, unsigned int nctl);

/* One datagram from the kernel into buf: bytes, 0 when nothing is queued
 * (flags contains MSG_DONTWAIT), -EMSGSIZE when it did not fit, or -errno.
 * Datagrams from another sender are dropped and the read goes on. */
ssize_t sw_nl_recv_kernel(int fd, void *buf, size_t len, int flags);

#endif
