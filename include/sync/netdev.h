/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NETDEV_H
#define SANDWALL_NETDEV_H
/* netdev: table netdev <name>, the guard on the parents of macvlan/ipvlan
 * children ([guard] macvlan_parents; ruleset.h builds it). Kept next to
 * table inet <name> by the same reconcile loop: built from the config, the
 * host and the inet model, compared, repaired. Without macvlan_parents
 * there is no such table (a leftover of ours is removed). */
#include <stdbool.h>
#include <stddef.h>
#include "core/config.h"
#include "core/diff.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nl.h"

/* Observe and diff (d empty: in sync; also when no parents are configured). */
int sw_netdev_check(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *host,
		    const struct sw_model *inet, struct sw_diff *d, char *err, size_t errlen);
/* Observe, diff and repair (force: replace the table); *repaired says a
 * batch was sent. n_parents (may be NULL) receives how many parents the
 * table hooks. */
int sw_netdev_reconcile(struct sw_nl *nl, const struct sw_config *cfg,
			const struct sw_host *host, const struct sw_model *inet, bool force,
			struct sw_diff *d, bool *repaired, size_t *n_parents,
			char *err, size_t errlen);
/* Delete our netdev table (absent is fine). */
int sw_netdev_remove(struct sw_nl *nl, const char *table, bool *absent, char *err, size_t errlen);

#endif
