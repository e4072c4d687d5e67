/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_HOST_IDPROBE_H
#define SANDWALL_HOST_IDPROBE_H
/* idprobe: a sandbox's identity from the kernel when no runtime API
 * answers (identity.h). A veth whose peer lives in another namespace:
 * the processes' network namespaces (/proc/PID/ns/net, each asked for its
 * id here with RTM_GETNSID) give a process in the peer's, whose
 * /proc/PID/cgroup names the container (rtapi.h's parser), and the peer's
 * addresses are read there (RTM_GETADDR, IFA_TARGET_NETNSID). A tap: the
 * process holding /dev/net/tun attached to it (/proc/PID/fdinfo/FD says
 * "iff:\tNAME"), a micro-VM named by its pid and comm. All of it from the
 * daemon's own namespaces; bounded (SW_IDPROBE_MAX_PROCS processes,
 * SW_IDPROBE_MAX_FDS descriptors each). */
#include <stdbool.h>
#include <stdint.h>
#include "host/identity.h"

#define SW_IDPROBE_MAX_PROCS 8192
#define SW_IDPROBE_MAX_FDS   1024

struct sw_nl;

/* What is known of the link when it appeared. */
struct sw_idprobe_link {
	int ifindex;
	char name[16];
	bool tap;               /* a tap (micro-VM), else a veth */
	int32_t netnsid;        /* the veth peer's namespace (-1: none) */
	int peer_ifindex;
};

/* nl: a NETLINK_ROUTE socket with strict checking (sw_portbind_open);
 * proc: "/proc" (tests: a tree of their own). 0 and *out, or -ENOENT
 * (nothing found), -errno. */
int sw_idprobe_link(struct sw_nl *nl, const char *proc, const struct sw_idprobe_link *l,
		    struct sw_identity *out);

#endif
