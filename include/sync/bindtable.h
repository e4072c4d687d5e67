/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_BINDTABLE_H
#define SANDWALL_BINDTABLE_H
/* bindtable: table bridge <name>, where each port of a guarded bridge may
 * send only from its own addresses (portbind.h says where they come from;
 * docs/ruleset.md lists the table and says why a forged frame cannot
 * pass). Built only when the config keys something on a source address
 * (sw_portbind_wanted); otherwise a table of ours left from before is
 * removed. Kept by the same reconcile loop as table inet <name>. */
#include <stdbool.h>
#include <stddef.h>
#include "core/config.h"
#include "core/diff.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nl.h"
#include "core/portbind.h"
#include "host/portread.h"

#define SW_BT_CHAIN    "prerouting"
#define SW_BT_PRIO     (-200)          /* NF_BR_PRI_FILTER_BRIDGED */
#define SW_BT_COUNTER  "unbound"

/* The desired table from the config, the host and the bindings. 0 or
 * -errno (err says why). */
int sw_bindtable_build(const struct sw_config *cfg, const struct sw_host *host,
		       const struct sw_binds *binds, struct sw_model *m, char *err, size_t errlen);
/* Read the bindings (a socket of its own) and build. */
int sw_bindtable_want(const struct sw_config *cfg, const struct sw_host *host,
		      struct sw_model *m, char *err, size_t errlen);
/* Observe and diff (d empty: in sync, also when no table is wanted). */
int sw_bindtable_check(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *host,
		       struct sw_diff *d, char *err, size_t errlen);
/* Observe, diff and repair (force: replace the table); *repaired says a
 * batch was sent; n_bound (may be NULL) receives the bound ports. */
int sw_bindtable_reconcile(struct sw_nl *nl, const struct sw_config *cfg,
			   const struct sw_host *host, bool force, struct sw_diff *d,
			   bool *repaired, size_t *n_bound, char *err, size_t errlen);
/* The same from bindings the caller keeps (sandwalld: sw_portbind_refresh). */
int sw_bindtable_reconcile_binds(struct sw_nl *nl, const struct sw_config *cfg,
				 const struct sw_host *host, const struct sw_binds *binds,
				 bool force, struct sw_diff *d, bool *repaired, size_t *n_bound,
				 char *err, size_t errlen);
/* Delete our bridge table (absent is fine). */
int sw_bindtable_remove(struct sw_nl *nl, const char *table, bool *absent, char *err,
			size_t errlen);

#endif
