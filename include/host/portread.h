/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_HOST_PORTREAD_H
#define SANDWALL_HOST_PORTREAD_H
/* portread: the bindings of bridge ports (core/portbind.h), read over
 * rtnetlink from the namespaces behind the ports. */
#include <stddef.h>
#include <stdint.h>
#include "core/portbind.h"

struct sw_nl;

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
#endif
