/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CORE_HOST_H
#define SANDWALL_CORE_HOST_H
/* host: the model of what the host looks like (links, addresses, default
 * routes, resolvers, cgroups), as host/hoststate.h reads it from the
 * kernel and tests build it by hand; and what follows from the whole
 * model (which link is on a bridge, which carries a default route). Pure:
 * no netlink, no files. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/addr.h"

#define SW_MAX_LINKS      16384   /* every container veth is a link: far above 10,000 */
#define SW_MAX_ADDRS      32768
#define SW_MAX_GATEWAYS   32
#define SW_MAX_RESOLVERS  16
#define SW_MAX_UPLINKS    32      /* interfaces of default routes */
#define SW_MAX_ROUTES     16384   /* directly connected routes (a routed container's /32) */
#define SW_MAX_CGROUPS    2048    /* cgroups [guard] cgroups matches (cgwatch.h) */
#define SW_CG_PATH_MAX    256

/* What IFLA_INFO_KIND says a link is (tun and tap share the kind "tun";
 * IFLA_TUN_TYPE in IFLA_INFO_DATA tells them apart). */
enum sw_link_kind {
	SW_LINK_OTHER,         /* no kind (physical), or one not listed here */
	SW_LINK_BRIDGE,
	SW_LINK_VETH,
	SW_LINK_TUN,           /* kind "tun", IFF_TUN (layer 3) or type not reported */
	SW_LINK_TAP,           /* kind "tun", IFF_TAP (Ethernet: micro-VMs) */
	SW_LINK_MACVLAN,       /* "macvlan" and "macvtap" */
	SW_LINK_IPVLAN,        /* "ipvlan" and "ipvtap" */
	SW_LINK_VXLAN,
	SW_LINK_WIREGUARD,
	SW_LINK_KIND_COUNT
};

struct sw_link {
	int ifindex;
	char name[16];
	bool is_bridge;        /* IFLA_INFO_KIND "bridge" (kind == SW_LINK_BRIDGE) */
	bool up;               /* IFF_UP */
	bool loopback;         /* IFF_LOOPBACK */
	enum sw_link_kind kind;
	int master;            /* IFLA_MASTER: the bridge (bond, vrf) it is enslaved to, or 0 */
	bool peer_netns;       /* IFLA_LINK_NETNSID: its peer (veth) lives in another namespace */
	int32_t netnsid;       /* that namespace's id as this one sees it (peer_netns), else -1 */
	int peer_ifindex;      /* IFLA_LINK: the peer's ifindex (in netnsid's namespace), or 0 */
	unsigned char mac[6];  /* IFLA_ADDRESS when it is 6 bytes long (has_mac) */
	bool has_mac;
	/* filled by sw_host_classify from the whole dump: */
	bool master_bridge;    /* master is a bridge of this namespace */
	bool uplink;           /* the output interface of a default route (main table) */
};

struct sw_addr {
	int ifindex;
	struct sw_prefix local;  /* the address itself, len = prefix length of the address (not masked) */
};

struct sw_gateway {
	struct sw_prefix addr;   /* full-length prefix */
	int oif;
};

struct sw_route {
	struct sw_prefix dst;    /* masked */
	int oif;
};

/* A cgroup that a [guard] cgroups pattern matches (cgwatch.c finds them). */
struct sw_cgroup {
	uint64_t id;             /* the kernel's cgroup id: its directory's inode number */
	uint8_t level;           /* components below the cgroup2 root, 1.. */
	uint8_t pattern;         /* index into cfg->cgroups */
	char path[SW_CG_PATH_MAX]; /* relative to the cgroup2 root ("" if too long) */
};

/* links, addrs, routes and cgroups grow with the host (lib/grow.h, up to
 * their SW_MAX_*): a zeroed struct is an empty host; sw_host_free frees
 * it, sw_host_copy copies one (never by assignment: the arrays would be
 * shared). */
struct sw_host {
	struct sw_link *links;
	size_t n_links, cap_links;
	struct sw_addr *addrs;
	size_t n_addrs, cap_addrs;
	struct sw_gateway gateways[SW_MAX_GATEWAYS];  /* gateways of default routes, v4 and v6 */
	size_t n_gateways;
	struct sw_prefix resolvers[SW_MAX_RESOLVERS]; /* DNS servers, loopback ones excluded */
	size_t n_resolvers;
	int uplinks[SW_MAX_UPLINKS];  /* output interfaces of default routes, with or without gateway */
	size_t n_uplinks;
	/* main-table unicast routes without a gateway other than default
	 * routes (`172.29.0.5 dev cali1 scope link`): what sits behind an
	 * interface that has no address of its own. Beyond SW_MAX_ROUTES
	 * they are dropped: they only widen `own`, which opens nothing that
	 * a block category closes before it. */
	struct sw_route *routes;
	size_t n_routes, cap_routes;
	/* [guard] cgroups: the matching cgroups (sw_cg_scan), sorted by level
	 * and id; beyond SW_MAX_CGROUPS the scan fails (fail closed: nothing
	 * is applied) */
	struct sw_cgroup *cgroups;
	size_t n_cgroups, cap_cgroups;
};

/* An empty host (all zero). */
void sw_host_init(struct sw_host *h);
/* Free its arrays; it is empty again after. */
void sw_host_free(struct sw_host *h);
/* Empty again, its arrays kept for the next read. */
void sw_host_clear(struct sw_host *h);
/* dst (an initialised host) becomes a copy of src: 0 or -ENOMEM (dst
 * then is empty). */
int sw_host_copy(struct sw_host *dst, const struct sw_host *src);
/* Room for one more link, address or route: 0, -ENOSPC at its SW_MAX_*
 * (the limit, as with the fixed arrays before), or -ENOMEM. */
int sw_host_room_links(struct sw_host *h);
int sw_host_room_addrs(struct sw_host *h);
int sw_host_room_routes(struct sw_host *h);
/* Room for n cgroups in all (a scan fills up to SW_MAX_CGROUPS at once). */
int sw_host_room_cgroups(struct sw_host *h, size_t n);

/* Fill the fields that need the whole dump: master_bridge (from the
 * masters' kinds) and uplink (from uplinks[] and the gateways' oifs).
 * sw_host_read_links_addrs_routes calls it; hand-made hosts call it too. */
void sw_host_classify(struct sw_host *h);
/* "bridge", "veth", "tun", "tap", ... */
const char *sw_link_kind_name(enum sw_link_kind k);
/* The link with this ifindex (binary search on a dumped host, whose links
 * are sorted by ifindex; a linear pass otherwise), or NULL. */
const struct sw_link *sw_host_link(const struct sw_host *h, int ifindex);

/* Where ifindex is, or would go, in links sorted by ifindex. */
size_t sw_host_link_pos(const struct sw_host *h, int ifindex);
/* The same as sw_host_link, writable (the trackers in host/hoststate.c update in place). */
struct sw_link *sw_host_link_rw(struct sw_host *h, int ifindex);

#endif
