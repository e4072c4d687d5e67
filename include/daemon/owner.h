/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_OWNER_H
#define SANDWALL_OWNER_H
/* owner: sandwalld's hold on the table, the strongest the kernel has:
 *   owner+persist  the table belongs to our socket and outlives us (6.9+)
 *   twin           (owner flag only, 5.12+) the table is unowned and
 *                  repaired; an owned twin holds the same blocks meanwhile
 *   owner          owner flag without persist, only when asked (fails open)
 *   watch          nothing owned: repair after the fact */
#include "daemon/state.h"

/* table inet <table>_probe: made and deleted in one batch at start, to ask
 * the kernel which table flags it has */
#define SW_PROBE_SUFFIX "_probe"

/* Take the table at start (and after losing it): apply the desired model
 * with the mode's flags, adopting an orphaned persistent table. Sets
 * d->mode, d->own_flags, d->twin. Returns 0 or -errno. */
int sw_owner_take(struct sw_daemon *d);
/* The table lost its owner (`sandwall remove` + a direct apply): take it
 * back. */
void sw_owner_ensure(struct sw_daemon *d);
/* Mode twin: bring table <table>_twin to the desired blocks. */
int sw_owner_twin_sync(struct sw_daemon *d);
/* Delete our twin of `table` (remove, rename). */
void sw_owner_twin_remove(struct sw_daemon *d, const char *table);

#endif
