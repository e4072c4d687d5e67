/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NETS_H
#define SANDWALL_NETS_H
/* nets: the subnets the lan category stands for, in one place for the
 * ruleset (which fills lan's sets with them, rs_fills.c) and the hole
 * checks (which refuse an [allow] entry that reopens them, holes.c). The
 * fixed lists of link_local and private are the category table's
 * (core/category.h). */
#include <stdbool.h>
#include <stddef.h>
#include "lib/addr.h"

struct sw_config;
struct sw_host;

/* Do two prefixes share an address? */
bool sw_prefix_overlap(const struct sw_prefix *a, const struct sw_prefix *b);

/* lan: does address i of the host stand for a subnet lan blocks (a subnet
 * of a link that is not guarded; not the loopback, not IPv6 link-local,
 * not a host address of full length)? Then *out is that subnet (masked).
 * near: only a subnet that overlaps it (the check before the link's
 * lookup, which is a scan), or NULL for any. */
bool sw_nets_lan_subnet(const struct sw_config *cfg, const struct sw_host *host, size_t i,
			const struct sw_prefix *near, struct sw_prefix *out);

#endif
