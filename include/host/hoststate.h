/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_HOSTSTATE_H
#define SANDWALL_HOSTSTATE_H
/* hoststate: what the host looks like (core/host.h), read from rtnetlink
 * dumps (links, v4/v6 addresses, default routes) and the resolver
 * configuration, and kept up to date from rtnetlink events. The dump is
 * hoststate.c, the events hosttrack.c, the resolvers resolv.c (the
 * message parsers the dump and the events share are rtnlparse.h's). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/host.h"

/* Dump links, addresses and default routes from the current network
 * namespace via rtnetlink (NETLINK_ROUTE). Returns 0 or -errno. */
int sw_host_read_links_addrs_routes(struct sw_host *h);
/* Parse resolv.conf-format text: every "nameserver X" line; loopback
 * servers (127.0.0.0/8, ::1) are skipped and *saw_stub set when
 * 127.0.0.53 is seen (systemd-resolved). Returns 0 or -errno. */
int sw_resolv_parse(const char *text, struct sw_prefix *out, size_t max,
		    size_t *n, bool *saw_stub);
/* Read /etc/resolv.conf (or the path in $SANDWALL_RESOLV_CONF); when it
 * names the systemd-resolved stub, also /run/systemd/resolve/resolv.conf.
 * Missing files are not an error (no resolvers). Returns 0 or -errno. */
int sw_host_read_resolvers(struct sw_host *h);
/* Everything above. */
int sw_host_read(struct sw_host *h);
/* Parse one RTM_NEWLINK message (len bytes from msg, checked) and append
 * the link to h: 0, -ENOSPC when h is full, -EPROTO when malformed.
 * Messages of another type are ignored (0). */
int sw_host_add_link_msg(struct sw_host *h, const void *msg, size_t len);
struct sw_nl;

/* Read links, addresses and routes over a NETLINK_ROUTE transport
 * (sw_nl_open_route, or a test's fake) into h, links sorted by ifindex,
 * classified. sw_host_read_links_addrs_routes opens a socket for it.
 * -EINTR: the kernel marked a dump inconsistent (retry). */
int sw_host_dump(struct sw_nl *nl, struct sw_host *h);
/* Read only the routes again (gateways, uplinks, routes) and classify. */
int sw_host_dump_routes(struct sw_nl *nl, struct sw_host *h);

/* What a run of rtnetlink events did to a host model. */
struct sw_host_delta {
	unsigned changes;       /* messages that changed the model */
	bool routes_stale;      /* a default route moved, or a link that carries
				 * one went down or away: routes are read again */
	bool lost;              /* ENOBUFS: events were lost, a full dump is due */
	unsigned removals;      /* of the changes: links, addresses or routes gone,
				 * or a link gone down (nothing more to guard) */
	unsigned n_new;         /* of the changes: links that were not there */
	int new_idx[16];        /* their ifindexes (the first 16) */
	/* a link came (added) or went (!added), or was renamed (both) */
	void (*on_link)(const struct sw_link *l, bool added, void *data);
	/* a link's peer moved (a veth's other end went into a container's
	 * namespace: IFLA_LINK_NETNSID, IFLA_LINK changed), may be NULL */
	void (*on_peer)(const struct sw_link *l, void *data);
	void *data;
};

/* Apply one datagram of rtnetlink events to h as deltas: RTM_NEWLINK
 * (added, or changed in place: carrier and statistics changes are no
 * change), RTM_DELLINK (with its addresses and routes), RTM_NEWADDR,
 * RTM_DELADDR, RTM_NEWROUTE, RTM_DELROUTE (main table, the same filter as
 * the dump; default routes only mark routes_stale). A link going down
 * drops the routes through it, as the kernel does without telling.
 * Does not classify. 0, -ENOSPC when h is full, -EPROTO when malformed. */
int sw_host_apply_rtnl(struct sw_host *h, const void *buf, size_t len, struct sw_host_delta *dl);
/* Drain the event subscriber ev (recv with timeout 0) into h with
 * sw_host_apply_rtnl; then, when routes are stale and dump_nl is given,
 * read the routes again, and classify. -ENOBUFS (dl->lost): events were
 * lost and h is stale until a full sw_host_dump. */
int sw_host_track(struct sw_nl *ev, struct sw_nl *dump_nl, struct sw_host *h,
		  struct sw_host_delta *dl);

/* Feed one rtnetlink datagram (RTM_NEWLINK/NEWADDR/NEWROUTE replies, as a
 * dump returns them) into h, adding to what is there: 0 or -errno. The
 * dump path uses the same parsers; this entry exists for tests and fuzzing. */
int sw_host_parse_rtnl(struct sw_host *h, const void *buf, size_t len);

#endif
