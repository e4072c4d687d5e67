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
#include "host/hoststate.h"

struct sw_nl;

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

/* Does this config key anything on a source address ([sandbox] sources or
 * budget)? Only then is table bridge <name> built. */
bool sw_portbind_wanted(const struct sw_config *cfg);
enum sw_port_kind sw_portbind_port(const struct sw_config *cfg, const struct sw_host *h,
				   const struct sw_link *l);
/* Read the bindings of every SW_PORT_BOUND port of h over a NETLINK_ROUTE
 * transport with strict checking (sw_portbind_open, or a test's fake),
 * sorted by port and address. IPv6 link-local addresses are left out (the
 * table judges link-local sources by destination). 0 or -errno; on error
 * out is empty. */
int sw_portbind_read(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *h,
		     struct sw_binds *out);
/* b again for h, reading only what may have moved: ports that are new or
 * changed (namespace, peer, name) since b was read, and ports whose peer
 * lives in one of the namespaces nsids names; all: every port. Ports no
 * longer bound drop out. The cost is one dump per family per port read.
 * 0 or -errno (b is then empty). */
int sw_portbind_refresh(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *h,
			struct sw_binds *b, const int32_t *nsids, size_t n_nsids, bool all);
/* A NETLINK_ROUTE socket for sw_portbind_read (NETLINK_GET_STRICT_CHK). */
int sw_portbind_open(struct sw_nl *nl);
/* A non-blocking subscriber to address changes in every namespace that has
 * an id here (NETLINK_LISTEN_ALL_NSID): any datagram on it means "read the
 * bindings again". */
int sw_portbind_open_events(struct sw_nl *nl);
/* Drain it: 0 when nothing arrived (or only this namespace's own events,
 * where no peer lives); 1 when address events came from the namespaces now
 * in nsids[0..*n) (at most max); 2 when events were lost or came from more
 * namespaces than max (read all again). */
int sw_portbind_drain(struct sw_nl *nl, int32_t *nsids, size_t max, size_t *n);
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

#endif
