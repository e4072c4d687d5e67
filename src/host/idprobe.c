// SPDX-License-Identifier: GPL-2.0-or-later
/* idprobe: a sandbox's identity from /proc and rtnetlink (see
 * include/host/idprobe.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "host/idprobe.h"
#include "host/rtapi.h"
#include "kernel/nl.h"

/* a small file (at most len - 1 bytes): its length, or -errno */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int nsid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *at;
	int32_t *nsid = data;

	if (nlh->nlmsg_type != RTM_NEWNSID)
		return 0;
	mnl_attr_for_each(at, nlh, sizeof(struct rtgenmsg))
		if (mnl_attr_get_type(at) == NETNSA_NSID && mnl_attr_get_payload_len(at) == 4)
			*nsid = (int32_t)mnl_attr_get_u32(at);
	return 0;
}

/* The id this namespace has for the one fd refers to (-1: none). */
static int32_t nsid_of(struct sw_nl *nl, int fd)
{
	uint8_t buf[NLMSG_HDRLEN + 32] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;
	int32_t nsid = -1;

	nlh->nlmsg_type = RTM_GETNSID;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = sw_nl_next_seq(nl);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, NETNSA_FD, (uint32_t)fd);
	if (sw_nl_dump(nl, nlh, nsid_cb, &nsid))
		return -1;
	return nsid;
}

/* A process whose network namespace has id nsid here: its pid, or 0. */
static pid_t pid_in_nsid(struct sw_nl *nl, const char *proc, int32_t nsid)
{
	ino_t seen[256];
	size_t n_seen = 0, n_procs = 0;
	struct dirent *de;
	pid_t found = 0;
	DIR *d = opendir(proc);

	while (d && !found && (de = readdir(d)) && n_procs < SW_IDPROBE_MAX_PROCS) {
		char path[300];
		struct stat st;
		bool dup = false;
		int fd;

		if (!is_pid(de->d_name))
			continue;
		n_procs++;
		snprintf(path, sizeof(path), "%s/%s/ns/net", proc, de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if (fstat(fd, &st) == 0) {
			for (size_t i = 0; i < n_seen && !dup; i++)
				dup = seen[i] == st.st_ino;
			if (!dup && n_seen < sizeof(seen) / sizeof(*seen))
				seen[n_seen++] = st.st_ino;
			if (!dup && nsid_of(nl, fd) == nsid)
				found = (pid_t)atoi(de->d_name);
		}
		close(fd);
	}
	if (d)
		closedir(d);
	return found;
}

/* The process holding a tun descriptor attached to ifname, or 0. */
static pid_t pid_of_tap(const char *proc, const char *ifname)
{
	size_t n_procs = 0;
	struct dirent *de;
	pid_t found = 0;
	DIR *d = opendir(proc);

	while (d && !found && (de = readdir(d)) && n_procs < SW_IDPROBE_MAX_PROCS) {
		char path[600], link[64], text[1024], iff[16];
		struct dirent *fe;
		size_t n_fds = 0;
		DIR *fds;

		if (!is_pid(de->d_name))
			continue;
		n_procs++;
		snprintf(path, sizeof(path), "%s/%s/fd", proc, de->d_name);
		if (!(fds = opendir(path)))
			continue;
		while (!found && (fe = readdir(fds)) && n_fds++ < SW_IDPROBE_MAX_FDS) {
			ssize_t n;

			if (!is_pid(fe->d_name))
				continue;
			snprintf(path, sizeof(path), "%s/%s/fd/%s", proc, de->d_name, fe->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0 || (size_t)n != strlen("/dev/net/tun") ||
			    memcmp(link, "/dev/net/tun", (size_t)n))
				continue;
			snprintf(path, sizeof(path), "%s/%s/fdinfo/%s", proc, de->d_name, fe->d_name);
			if ((n = read_small(path, text, sizeof(text))) > 0 &&
			    sw_rtapi_parse_fdinfo(text, (size_t)n, iff, sizeof(iff)) == 0 &&
			    !strcmp(iff, ifname))
				found = (pid_t)atoi(de->d_name);
		}
		closedir(fds);
	}
	if (d)
		closedir(d);
	return found;
}

struct addr_ctx {
	struct sw_identity *id;
	int peer;
};

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct addr_ctx *c = data;
	const struct ifaddrmsg *ifa;
	const struct nlattr *at, *local = NULL, *address = NULL;
	uint8_t a16[16] = { 0 };
	size_t alen;

	if (nlh->nlmsg_type != RTM_NEWADDR || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa))
		return 0;
	ifa = mnl_nlmsg_get_payload(nlh);
	if ((int)ifa->ifa_index != c->peer || (ifa->ifa_family != AF_INET &&
					       ifa->ifa_family != AF_INET6))
		return 0;
	alen = ifa->ifa_family == AF_INET ? 4 : 16;
	mnl_attr_for_each(at, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_type(at) == IFA_LOCAL)
			local = at;
		else if (mnl_attr_get_type(at) == IFA_ADDRESS)
			address = at;
	}
	if (!local)
		local = address;
	if (!local || mnl_attr_get_payload_len(local) != alen)
		return 0;
	memcpy(a16, mnl_attr_get_payload(local), alen);
	if (ifa->ifa_family == AF_INET6 && a16[0] == 0xfe && (a16[1] & 0xc0) == 0x80)
		return 0;       /* link-local: not what a sandbox is known by */
	sw_identity_add_addr(c->id, ifa->ifa_family, a16);
	return 0;
}

static void peer_addrs(struct sw_nl *nl, const struct sw_idprobe_link *l, struct sw_identity *id)
{
	static const uint8_t afs[] = { AF_INET, AF_INET6 };

	for (size_t i = 0; i < 2; i++) {
		uint8_t buf[NLMSG_HDRLEN + 64] __attribute__((aligned(4))) = { 0 };
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct addr_ctx c = { id, l->peer_ifindex };
		struct ifaddrmsg *ifa;

		nlh->nlmsg_type = RTM_GETADDR;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		nlh->nlmsg_seq = sw_nl_next_seq(nl);
		ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
		ifa->ifa_family = afs[i];
		ifa->ifa_index = (uint32_t)l->peer_ifindex;
		mnl_attr_put_u32(nlh, IFA_TARGET_NETNSID, (uint32_t)l->netnsid);
		sw_nl_dump(nl, nlh, addr_cb, &c);
	}
}

/* What the process's cgroup and name say. */
static void from_pid(const char *proc, pid_t pid, struct sw_identity *id)
{
	char path[300], text[4096];
	ssize_t n;

	id->pid = (int32_t)pid;
	snprintf(path, sizeof(path), "%s/%d/cgroup", proc, (int)pid);
	if ((n = read_small(path, text, sizeof(text))) > 0)
		sw_rtapi_parse_cgroup(text, (size_t)n, id);
	snprintf(path, sizeof(path), "%s/%d/comm", proc, (int)pid);
	if ((n = read_small(path, text, sizeof(text))) > 0) {
		text[strcspn(text, "\n")] = '\0';
		sw_identity_clean(id->comm, sizeof(id->comm), text);
	}
}

int sw_idprobe_link(struct sw_nl *nl, const char *proc, const struct sw_idprobe_link *l,
		    struct sw_identity *out)
{
	pid_t pid;

	memset(out, 0, sizeof(*out));
	snprintf(out->iif, sizeof(out->iif), "%s", l->name);
	if (l->tap) {
		if (!(pid = pid_of_tap(proc, l->name)))
			return -ENOENT;
		from_pid(proc, pid, out);
		/* a micro-VM's monitor (firecracker, qemu) is no container */
		if (!out->runtime[0] || !strcmp(out->runtime, "cgroup"))
			snprintf(out->runtime, sizeof(out->runtime), "microvm");
		return 0;
	}
	if (l->netnsid < 0 || !nl)
		return -ENOENT;
	peer_addrs(nl, l, out);
	if ((pid = pid_in_nsid(nl, proc, l->netnsid)))
		from_pid(proc, pid, out);
	if (!out->runtime[0] && !out->n_addrs)
		return -ENOENT;
	if (!out->runtime[0])
		snprintf(out->runtime, sizeof(out->runtime), "unknown");
	return 0;
}
