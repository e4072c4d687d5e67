/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_PORTBIND_H
#define SANDWALL_PORTBIND_H
/* portbind: which addresses each bridge port may send from. A port of a
 * guarded bridge whose peer (a veth) lives in another namespace is bound
 * to the addresses of that peer device in its own namespace, read over
 * rtnetlink with IFA_TARGET_NETNSID (RTM_GETADDR, strict checking, kernel
 * 4.20+): the port's IFLA_LINK_NETNSID names the namespace and IFLA_LINK
 * the peer's ifindex there. bindtable.h turns the bindings into table
 * bridge <name>, where a frame whose source address is not its port's is
 * dropped (docs/ruleset.md). Pure functions of the host model and the
 * dumped addresses; the daemon re-reads them on link changes and on every
 * address change in any namespace with an id (sw_portbind_open_events). */
#include <stdbool.h>
#include <stddef.h>
#include "lib/addr.h"
#include "core/config.h"
#include "core/host.h"


#define SW_MAX_BINDS 65536

/* One address a port may send from. */
struct sw_bind {
	int ifindex;            /* the port (host side) */
	char port[16];          /* its name */
	struct sw_prefix addr;  /* full length */
};

/* A bound port as it was when its addresses were read. */
struct sw_bound_port {
	int ifindex;
	int32_t netnsid;
	int peer_ifindex;
	char name[16];
};

struct sw_binds {
	struct sw_bind *v;              /* sorted by port name, family, address */
	size_t n, cap;
	struct sw_bound_port *ports;    /* every port read (with or without addresses) */
	size_t n_ports, cap_ports;
};

/* Why a port of a guarded bridge is (not) bound. */
enum sw_port_kind {
	SW_PORT_NONE,           /* not a port of a guarded bridge */
	SW_PORT_EXEMPT,         /* a port that faces no sandbox (physical, vxlan, wireguard, ...) */
	SW_PORT_BOUND,          /* a veth whose peer is in another namespace: bound to its addresses */
	SW_PORT_UNBOUND,        /* faces a sandbox, no binding can be known (tap, a veth with
				 * both ends here): every frame it sends is dropped */
};

/* Does this config key anything on a source address ([sandbox] sources,
 * budget or quarantine_on)? Only then is table bridge <name> built. */
bool sw_portbind_wanted(const struct sw_config *cfg);
enum sw_port_kind sw_portbind_port(const struct sw_config *cfg, const struct sw_host *h,
				   const struct sw_link *l);
/* Refuse (FILE:LINE, -EINVAL) a [sandbox] sources entry narrower than the
 * subnet of a guarded interface that is not a bridge (a routed veth, tap,
 * macvlan or ipvlan with an address, or a connected route): there no port
 * binding holds, the kernel's anti-spoofing passes every address of that
 * subnet, and a sandbox behind it could send from one the entry leaves
 * out. Bridges are held per port (table bridge). */
int sw_portbind_check_sources(const struct sw_config *cfg, const struct sw_host *h,
			      char *err, size_t errlen);
void sw_binds_free(struct sw_binds *b);
bool sw_binds_equal(const struct sw_binds *a, const struct sw_binds *b);
/* Append a bound port (its name and ifindex) / one address it may send
 * from: 0 or -ENOMEM. Order of a sorted b (by address). */
int sw_binds_add_port(struct sw_binds *b, const struct sw_link *l);
int sw_binds_add(struct sw_binds *b, const struct sw_link *l, const struct sw_prefix *a);
int sw_bind_cmp(const void *x, const void *y);

#endif
