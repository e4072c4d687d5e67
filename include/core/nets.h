/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NETS_H
#define SANDWALL_NETS_H
/* nets: the networks a block category stands for, in one place for the
 * ruleset (which fills the category's sets with them, rs_fills.c) and the
 * hole checks (which refuse an [allow] entry that reopens them, holes.c):
 * the fixed lists of link_local and private, and the subnets lan blocks. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/addr.h"

struct sw_config;
struct sw_host;

/* Do two prefixes share an address? */
bool sw_prefix_overlap(const struct sw_prefix *a, const struct sw_prefix *b);

/* room enough for either fixed list below */
#define SW_NETS_FIXED_MAX 8

/* link_local: 169.254.0.0/16, fe80::/10 */
extern const char *const sw_nets_link_local[];
extern const size_t sw_nets_n_link_local;
/* private: RFC 1918, CGNAT (100.64.0.0/10), ULA (fc00::/7) */
extern const char *const sw_nets_private[];
extern const size_t sw_nets_n_private;

/* Parse the n prefixes of list v into out (room for n); returns how many
 * (all of them: the lists are ours). */
size_t sw_nets_parse(const char *const *v, size_t n, struct sw_prefix *out);
/* lan: does address i of the host stand for a subnet lan blocks (a subnet
 * of a link that is not guarded; not the loopback, not IPv6 link-local,
 * not a host address of full length)? Then *out is that subnet (masked).
 * near: only a subnet that overlaps it (the check before the link's
 * lookup, which is a scan), or NULL for any. */
bool sw_nets_lan_subnet(const struct sw_config *cfg, const struct sw_host *host, size_t i,
			const struct sw_prefix *near, struct sw_prefix *out);

#endif
