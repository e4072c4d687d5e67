/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CONNTRACK_H
#define SANDWALL_CONNTRACK_H
/* conntrack: forget the connections a sandbox may have forged while no
 * table was in force.
 *
 * The guard chain accepts replies (`ct state established ct direction
 * reply`). Its anti-spoofing rule keeps a container from creating such a
 * flow with a forged packet, but only while the table is there: a flow
 * primed before (sandwall installed on a running host, `sandwall remove`,
 * a table deleted in watch mode) survives the apply, and the container's
 * packets on it are replies to whatever it named as the source. So when
 * the table is (re)created, every conntrack entry whose reply direction
 * starts on the sandbox side -- a flow opened *toward* a sandbox: published
 * ports, host to container, and every primed flow -- is deleted. Flows the
 * sandboxes opened themselves stay. The price: connections toward
 * containers that are open at that moment are cut once. */
#include <stddef.h>
#include "core/model.h"
#include "kernel/nl.h"

#define SW_CT_MAX_FORGET 1000000    /* entries deleted per call, at most */

/* Is this address on the sandbox side: in want's own4/own6 (the guarded
 * subnets) or IPv6 link-local? family AF_INET/AF_INET6, addr 4/16 bytes. */
bool sw_ct_sandbox_side(const struct sw_model *want, int family, const uint8_t *addr);

/* Dump the conntrack table over nl (NETLINK_NETFILTER, ctnetlink) and
 * delete every entry whose reply source is on the sandbox side. *n says
 * how many went. Returns 0 or -errno. */
int sw_ct_forget_inbound(struct sw_nl *nl, const struct sw_model *want, size_t *n);

#endif
