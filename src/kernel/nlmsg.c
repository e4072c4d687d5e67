// SPDX-License-Identifier: GPL-2.0-or-later
/* nlmsg: bounded netlink message walk (see include/kernel/nlmsg.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "kernel/nlmsg.h"

const struct nlmsghdr *sw_nlmsg_next(const void *buf, size_t len, size_t *off)
{
	const struct nlmsghdr *nlh;
	size_t left, step;

	if (!buf || *off > len)
		return NULL;
	left = len - *off;
	if (left < sizeof(struct nlmsghdr))
		return NULL;
	nlh = (const struct nlmsghdr *)(const void *)((const uint8_t *)buf + *off);
	if (nlh->nlmsg_len < sizeof(struct nlmsghdr) || nlh->nlmsg_len > left)
		return NULL;
	/* nlmsg_len <= left: no wrap. The padded length must fit as well:
	 * libmnl's attribute walk ends at the padded end of the message, and
	 * the kernel always sends the padding. */
	step = ((size_t)nlh->nlmsg_len + NLMSG_ALIGNTO - 1) & ~(size_t)(NLMSG_ALIGNTO - 1);
	if (step > left)
		return NULL;
	*off += step;
	return nlh;
}

const struct nlattr *sw_nlattr_next(const void *buf, size_t len, size_t *off)
{
	const struct nlattr *a;
	size_t left, step;

	if (!buf || *off > len)
		return NULL;
	left = len - *off;
	if (left < NLA_HDRLEN)
		return NULL;
	a = (const struct nlattr *)(const void *)((const uint8_t *)buf + *off);
	if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
		return NULL;
	step = NLA_ALIGN((size_t)a->nla_len);
	*off += step < left ? step : left;
	return a;
}

bool sw_nlattr_tree_ok(const struct nlattr *nest, unsigned depth)
{
	const uint8_t *p = (const uint8_t *)nest + NLA_HDRLEN;
	size_t len, off;
	const struct nlattr *a;

	if (!depth || nest->nla_len < NLA_HDRLEN)
		return false;
	len = nest->nla_len - NLA_HDRLEN;
	sw_nlattr_for_each(a, p, len, off)
		if ((a->nla_type & NLA_F_NESTED) && !sw_nlattr_tree_ok(a, depth - 1))
			return false;
	return len - off < NLA_HDRLEN;
}

/* NLMSG_ERROR as libmnl's default handler reads it. */
static int error_default(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (sw_nlmsg_payload_len(nlh) < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	errno = -sw_nlmsg_status(e->error);
	return errno == 0 ? MNL_CB_STOP : MNL_CB_ERROR;
}

int sw_nlmsg_run(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		 mnl_cb_t cb, void *data, const mnl_cb_t *ctl, unsigned int nctl)
{
	const struct nlmsghdr *nlh;
	int ret = MNL_CB_OK;
	size_t off;

	sw_nlmsg_for_each(nlh, buf, len, off) {
		if (portid && nlh->nlmsg_pid && nlh->nlmsg_pid != portid) {
			errno = ESRCH;
			return MNL_CB_ERROR;
		}
		if (seq && nlh->nlmsg_seq && nlh->nlmsg_seq != seq) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			errno = EINTR;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE) {
			if (cb)
				ret = cb(nlh, data);
		} else if (nlh->nlmsg_type < nctl) {
			if (ctl && ctl[nlh->nlmsg_type])
				ret = ctl[nlh->nlmsg_type](nlh, data);
		} else if (nlh->nlmsg_type == NLMSG_ERROR) {
			ret = error_default(nlh);
		} else if (nlh->nlmsg_type == NLMSG_DONE) {
			ret = MNL_CB_STOP;
		}
		if (ret <= MNL_CB_STOP)
			return ret;
	}
	if (off != len) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return ret;
}

ssize_t sw_nl_recv_kernel(int fd, void *buf, size_t len, int flags)
{
	for (;;) {
		struct sockaddr_nl sa;
		struct iovec iov = { buf, len };
		struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof(sa),
				     .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		memset(&sa, 0, sizeof(sa));
		n = recvmsg(fd, &mh, flags);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		if (mh.msg_namelen != sizeof(sa) || sa.nl_family != AF_NETLINK || sa.nl_pid != 0)
			continue;       /* not from the kernel: drop */
		return n;
	}
}
