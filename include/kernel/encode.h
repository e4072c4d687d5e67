/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ENCODE_H
#define SANDWALL_ENCODE_H
/* encode: desired model -> nf_tables messages in a batch (commit.h),
 * each recorded with what it does (its intent). */
#include <errno.h>
#include <stdbool.h>
#include "core/model.h"
#include "kernel/commit.h"

/* The whole table, replacing whatever is there, in one batch:
 *   add table; delete table; add table; counters, sets, elements, chains, rules.
 * Only for changing the ownership flags or adding the marker (neither
 * can change on a live table): flood tests during development showed a
 * rare packet passing while the hooks are swapped, so everything else
 * uses sw_encode_update. Every table added carries the marker comment
 * SW_TABLE_MARKER (model.h). The caller makes sure the table is ours
 * (reconcile.c). */
int sw_encode_replace(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m);
/* Fix the table in place, in one batch, from what is there (have): flush
 * the chains whose rules differ (and any chain not ours), delete what is
 * extra or of the wrong kind, flush and refill the sets whose elements
 * differ, create what is missing, add the rules of the flushed chains.
 * all: rewrite every chain and set. The table and its hooks stay
 * registered throughout, and counters keep their counts. */
#define SW_UPDATE_CHAINS     1u   /* rewrite every chain, not only those that differ */
#define SW_UPDATE_FLUSH_SETS 2u   /* flush and refill the sets that differ (no deltas) */
int sw_encode_update(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *want,
		     const struct sw_model *have, unsigned how);
/* The whole table when it is known to be absent (nothing to delete, so
 * nothing for the kernel to clean up afterwards); NLM_F_EXCL: a table of
 * the same name made meanwhile fails the batch (EEXIST). */
int sw_encode_create(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m);
/* The model's contents in another table, `twin` (which must not exist:
 * EEXIST otherwise), with these table flags: the same blocks held by a
 * second table while the first one is replaced. */
int sw_encode_twin(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m,
		   const char *twin, uint32_t flags);
/* Only the named set's contents: flush its elements, add the desired ones. */
/* Change set `want` in place into ... from what the kernel holds (`have`,
 * same definition): delete element for what went, add element for what
 * came; the elements that stay are not touched (a 10,000-entry set with
 * one change sends two elements, never a flush). */
int sw_encode_set_delta(struct sw_batch *b, struct sw_nl *nl, const char *table,
			const struct sw_set *want, const struct sw_set *have);
/* What the kernel answers an element delta that does not fit what it
 * holds (the fallback is a flush and refill). */
static inline bool sw_encode_delta_refused(int rc)
{
	return rc == -ENOENT || rc == -EEXIST || rc == -ENOTEMPTY;
}
int sw_encode_set_refill(struct sw_batch *b, struct sw_nl *nl, const struct sw_model *m,
			 const struct sw_set *s);
/* add|delete element inet <table> <s->name> { these n elements } (type
 * NFT_MSG_NEWSETELEM or NFT_MSG_DELSETELEM; an element's timeout_ms goes
 * with an add): the resolver's changes to the dynamic host sets. */
int sw_encode_elems(struct sw_batch *b, struct sw_nl *nl, const char *table,
		    const struct sw_set *s, const struct sw_elem *v, size_t n, uint16_t type);
/* flush set inet <table> <s->name>: every element out (a run's start
 * empties the max_connections sets) */
int sw_encode_set_flush(struct sw_batch *b, struct sw_nl *nl, const char *table,
			const struct sw_set *s);
/* delete table inet <name> */
int sw_encode_delete(struct sw_batch *b, struct sw_nl *nl, const char *table);

/* add table inet <name> with these flags (adopts an orphaned table). */
int sw_encode_table_flags(struct sw_batch *b, struct sw_nl *nl, const char *table,
			  uint32_t flags);

#endif
