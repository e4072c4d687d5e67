/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DERIVE_H
#define SANDWALL_DERIVE_H
/* derive: what the kernel holds after one transaction by another process,
 * from its nf_tables events (the daemon's repair without a dump; see
 * src/sync/derive.c and struct sw_hint in reconcile.h). */
#include <stddef.h>
#include <stdint.h>
#include "core/model.h"

/* What the kernel holds after the transaction msgs (events.h rec) if it
 * held want before: a copy of want with the change applied, genid set.
 * -EOPNOTSUPP when the messages say more than this follows (a chain,
 * set, counter or the table's flags changed, another family, an element
 * the kernel could not have held as said): then observe. */
int sw_model_from_events(const struct sw_model *want, const uint8_t *msgs, size_t len,
			 uint32_t genid, struct sw_model *have);

#endif
