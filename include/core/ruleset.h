/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RULESET_H
#define SANDWALL_RULESET_H
/* ruleset: desired = f(config, host state). Pure: builds the model of our
 * table (fixed chains and rules, variable sets) with no kernel I/O. Which
 * links are guarded is core/guard.h's (included here). The parts:
 * src/core/ruleset.c (the entry), rs_sets.c, rs_fills.c, rs_chains.c,
 * rs_sandbox.c, rs_output.c, rs_netdev.c, with nftexpr.c (the rule
 * builders) and ivals.c (intervals); include/core/rs_internal.h. */
#include <stddef.h>
#include "core/config.h"
#include "core/guard.h"
#include "core/host.h"
#include "core/model.h"

#define SW_CHAIN_HOOK     "prerouting"
#define SW_CHAIN_GUARD    "guard"
#define SW_CHAIN_GUARD_ND "guard_nd"
#define SW_CHAIN_INPUT    "input"
#define SW_CHAIN_GUARD_INPUT "guard_input"
#define SW_CHAIN_FORWARD  "forward"       /* after NAT: translated destinations */
#define SW_CHAIN_GUARD_NAT "guard_nat"    /* forward and input: ct status dnat */
#define SW_CHAIN_GUARD_FWD "guard_fwd"    /* forward: the routed categories, then NAT */
#define SW_SET_BETWEEN    "between"       /* [allow] between: iifname . oifname pairs */
#define SW_HOOK_PRIO      (-150)   /* after conntrack (-200), before DNAT (-100) */
#define SW_CHAIN_OUTPUT   "output"        /* [guard] users / cgroups: the output hook */
#define SW_CHAIN_GUARD_OUTPUT "guard_output"
#define SW_SET_GUARD_LINKS "guard_links"   /* exact names of the guarded links (hash) */
#define SW_SET_GUARD_EXCEPT "guard_except" /* auto: lo and the uplinks, never guarded by kind */
#define SW_SET_GUARD_KINDS "guard_kinds"   /* auto: the container-facing link kinds */
#define SW_SET_UIDS       "guard_uids"
#define SW_SET_CG         "guard_cg"      /* guard_cg<level>, one per level used */
#define SW_TAG_PREFIX     "sandwall:"

/* Build the desired model. Returns 0 or -errno with err filled. */
int sw_ruleset_build(const struct sw_config *cfg, const struct sw_host *host,
		     struct sw_model *m, char *err, size_t errlen);

/* Bit L set for every level (component count) a [guard] cgroups pattern has. */
unsigned sw_ruleset_cg_levels(const struct sw_config *cfg);
/* Fill the empty set s (guard_cg<level>) with the ids of the cgroups of
 * that level in cg[0..n), sorted. 0 or -errno. */
int sw_ruleset_cg_fill(struct sw_set *s, const struct sw_cgroup *cg, size_t n, unsigned level);
/* table netdev <name>: the macvlan/ipvlan parents' table (rs_netdev.c).
 * Its category sets are copies of inet's (the model sw_ruleset_build
 * made for the same config and host); one egress and one ingress chain per
 * link that [guard] macvlan_parents names. Returns 0 or -errno, err filled. */
int sw_ruleset_build_netdev(const struct sw_config *cfg, const struct sw_host *host,
			    const struct sw_model *inet, struct sw_model *m,
			    char *err, size_t errlen);
/* Does [guard] macvlan_parents name this link (and is it one: not lo,
 * with an Ethernet address)? */
bool sw_ruleset_macvlan_parent(const struct sw_config *cfg, const struct sw_link *l);
/* Are macvlan/ipvlan parents guarded: named, or auto (the default: the uplinks)? */
bool sw_ruleset_parents_on(const struct sw_config *cfg);
/* Is there a table netdev at all ([guard] macvlan_parents or users)? */
bool sw_ruleset_netdev_wanted(const struct sw_config *cfg);
/* Does table netdev hook this link: a macvlan parent, or (with [guard]
 * users) an uplink or lo, whose egress drops the guarded users' frames
 * that the IP stack did not route (packet sockets)? */
bool sw_ruleset_netdev_device(const struct sw_config *cfg, const struct sw_link *l);
/* How many links of the host are such parents. */
size_t sw_ruleset_n_parents(const struct sw_config *cfg, const struct sw_host *host);

#endif
