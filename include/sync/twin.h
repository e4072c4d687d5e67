/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_TWIN_H
#define SANDWALL_TWIN_H
/* twin: a ruleset variant, the desired model's blocks in a second table:
 * held for as long as the daemon lives where the kernel has the owner
 * flag but not persist (mode twin), and, as <table>_handover, while
 * reconcile replaces the table (takeover). */
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"
#include "core/host.h"
#include "core/model.h"

#define SW_TWIN_SUFFIX "_twin"  /* table inet <table>_twin: the owned twin (mode twin) */
#define SW_HANDOVER_SUFFIX "_handover"  /* table inet <table>_handover: the blocks during a takeover */
#define SW_TWIN_PRIO   (-140)   /* after the main table's -150: its counters and
				 * logs see the drops first; still before DNAT */

/* The name of the twin table that holds the blocks while <table> is
 * replaced (takeover), or for as long as the daemon lives where the kernel
 * has owner but no persist flag (mode twin). -ENAMETOOLONG if it does not
 * fit len. */
int sw_twin_name(const char *table, char *buf, size_t len);

/* The twin of the desired model: same blocks in table <table>_twin, base
 * chains at SW_TWIN_PRIO, no log rules, with these table flags. */
int sw_twin_build(const struct sw_config *cfg, const struct sw_host *host, uint32_t flags,
		  struct sw_model *m, char *err, size_t errlen);

#endif
