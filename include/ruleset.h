/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RULESET_H
#define SANDWALL_RULESET_H
/* ruleset: desired = f(config, host state). Pure: builds the model of our
 * table (fixed chains and rules, variable sets) with no kernel I/O. */
#include <stddef.h>
#include "config.h"
#include "hoststate.h"
#include "model.h"

#define SW_CHAIN_HOOK     "prerouting"
#define SW_CHAIN_GUARD    "guard"
#define SW_CHAIN_INPUT    "input"
#define SW_CHAIN_GUARD_INPUT "guard_input"
#define SW_HOOK_PRIO      (-150)   /* after conntrack (-200), before DNAT (-100) */
#define SW_TAG_PREFIX     "sandwall:"

/* Build the desired model. Returns 0 or -errno with err filled. */
int sw_ruleset_build(const struct sw_config *cfg, const struct sw_host *host,
		     struct sw_model *m, char *err, size_t errlen);

/* Is ifname guarded by the config's patterns (or as a bridge with all_bridges)? */
bool sw_ruleset_guarded(const struct sw_config *cfg, const struct sw_link *l);

#endif
