/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_HOSTFAST_H
#define SANDWALL_HOSTFAST_H
/* hostfast: the new-link path, a new link guarded without rebuilding the
 * whole desired model (not the packet path's gate, core/gate.h).
 *
 * Rebuilding the desired model costs time in the number of links (5 ms at
 * 4,096 bridges); a new bridge must be guarded at once. What one link adds
 * on its own is the difference between the model of a host with only lo
 * (base, per config) and the model of lo plus that link (classified as in
 * the whole host, so guarded exactly as the full build would): set
 * elements, and nothing else for a link without addresses. Those elements
 * go into the desired model's sets where nothing there covers them yet,
 * and out to the kernel as element additions, stamped with the generation
 * at which the kernel held the desired model. The whole model is rebuilt
 * later (coalesced) and brought to the kernel by element deltas as usual;
 * additions only guard more, never less, until then.
 *
 * Anything that is not a plain addition (a rule that differs, an element
 * the link would remove, an interval that touches or partly overlaps one
 * in place, a concatenation, a change to the gate, include/core/gate.h, which
 * a new link cannot make today: its own subnets only take from the gate)
 * is -ESTALE: the caller rebuilds at once. */
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nl.h"

#define SW_FAST_MAX_LINKS 16    /* more new links in one read: the full path */

/* The elements to add, per set of the desired model. */
struct sw_fast {
	size_t n;
	struct {
		struct sw_set *set;     /* in the desired model */
		struct sw_elem *elems;  /* the additions, sorted */
		size_t n_elems;
		size_t added;
	} s[SW_MAX_SETS];
};

/* The model of a host that has only lo (the base the additions are
 * measured against). 0 or -errno (err says why). */
int sw_fast_base(const struct sw_config *cfg, struct sw_model *base, char *err, size_t errlen);

/* What the links (ifindexes idx, already in host and classified) add to
 * want: 0 and f filled (f->n == 0: nothing to add), or -ESTALE, -ENOMEM. */
int sw_fast_plan(const struct sw_config *cfg, const struct sw_host *host, const int *idx,
		 size_t n_idx, const struct sw_model *base, const struct sw_model *want,
		 struct sw_fast *f);
/* Send the additions in one batch stamped with *genid; on success the
 * desired model's sets take them and *genid advances. -ERESTART when the
 * ruleset moved since *genid, a kernel error otherwise (err). */
int sw_fast_commit(struct sw_nl *nl, const char *table, struct sw_fast *f, uint32_t *genid,
		   char *err, size_t errlen);
void sw_fast_free(struct sw_fast *f);

#endif
