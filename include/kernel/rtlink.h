/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RTLINK_H
#define SANDWALL_RTLINK_H
/* rtlink: the few rtnetlink writes `sandwall verify` needs to build its
 * throwaway probe namespace: a veth pair with one end in another netns,
 * a bridge port, an address, a default route. Each call is one
 * acknowledged request on a fresh NETLINK_ROUTE socket of the calling
 * thread's current network namespace. */
#include <stdint.h>
#include "lib/addr.h"

/* ip link add NAME type veth peer name PEER netns PEER_NETNS_FD */
int sw_rt_veth_add(const char *name, const char *peer, int peer_netns_fd);
/* ip link set NAME [master MASTER_IFINDEX] up */
int sw_rt_link_up(const char *name, int master_ifindex);
/* ip link del NAME */
int sw_rt_link_del(const char *name);
/* ip addr add ADDR/LEN dev NAME [nodad] */
int sw_rt_addr_add(const char *name, const struct sw_prefix *addr);
/* ip route add default via GW (dev NAME) */
int sw_rt_default_route(const char *name, const struct sw_prefix *gw);
/* ip route add DST dev NAME scope link (0.0.0.0/0: an on-link default);
 * -EEXIST when the route is there */
int sw_rt_route_add(const char *name, const struct sw_prefix *dst);
/* NAME's operational state (IF_OPER_*, IFLA_OPERSTATE; -1 when the
 * kernel did not say). A veth is IF_OPER_UP once the kernel's link watch
 * has seen its carrier and given it its queue: before, what it sends is
 * dropped. */
int sw_rt_link_oper(const char *name, int *oper);
/* ip neigh del ADDR dev IFINDEX (absent is fine) */
int sw_rt_neigh_del(int ifindex, const struct sw_prefix *addr);
/* Is ADDR in the neighbour table of IFINDEX (someone uses it)? */
int sw_rt_neigh_used(int ifindex, const struct sw_prefix *addr, int *used);

#endif
