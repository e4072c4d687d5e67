/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_GATE_H
#define SANDWALL_GATE_H
/* gate: the fast path's two buffers, and which one the packet path reads.
 *
 * One interval set per family holds every address some category blocks
 * (the gate, built in rs_sets.c). A packet whose destination is outside
 * it, and not the host's own, leaves the guard chain at once: one lookup
 * and one fib whatever the number of entries and categories.
 *
 * A lookup in an interval set that a transaction is changing can miss on
 * Linux 6.1 and 6.12 (nft_set_rbtree: an element not yet active, or one
 * deleted but not yet erased, shadows its neighbours), before the commit
 * and in the commit itself until the deleted elements are erased. A miss
 * in the gate would let a blocked packet out, so the packet path never
 * reads a gate set that is being changed. There are two buffers per family
 * (gate4_a/gate4_b, gate6_a/gate6_b) and two hash sets that select one:
 *
 *   set gate_a { type nf_proto; elements = { ipv4, ipv6 } }   (a is live)
 *   set gate_b { type nf_proto; }
 *   meta nfproto @gate_a ip daddr != @gate4_a fib daddr type != local return
 *   meta nfproto @gate_b ip daddr != @gate4_b fib daddr type != local return
 *
 * A change fills the buffer that is not selected, in a commit of its own
 * (phase 1; no rule reads that buffer), and the next commit moves the
 * selector's two elements (a hash set, whose lookups skip elements of the
 * other generation exactly) with whatever else changes. So the live gate
 * is never edited, and a flip is atomic. The idle buffer keeps the
 * content it had when it was last live; its elements are not compared.
 *
 * This module is pure (models only): sync/gatefill.c sends phase 1. */
#include <stdbool.h>
#include "core/model.h"

#define SW_GATE_SEL_A   "gate_a"
#define SW_GATE_SEL_B   "gate_b"
#define SW_GATE_PREFIX  "gate"          /* gate4_a, gate6_b, ... */
#define SW_TYPE_NFPROTO 2               /* nft's nf_proto datatype, 1 byte */

enum sw_gate_buf { SW_GATE_NONE = -1, SW_GATE_A = 0, SW_GATE_B = 1 };

/* "gate4_a" etc.: the set of family v6 (0/1) in buffer buf */
void sw_gate_set_name(char *buf, size_t len, int v6, enum sw_gate_buf which);
/* Which buffer the model's selectors pick: A or B when exactly one of
 * gate_a/gate_b holds elements, else NONE (no gate, or a tamper). */
enum sw_gate_buf sw_gate_live(const struct sw_model *m);
/* Is set `name` one of the four gate buffers? */
bool sw_gate_buffer(const char *name);

/* Select buffer which: gate_a or gate_b (both already in m) holds
 * { ipv4, ipv6 }, the other nothing. 0, -ENOENT (no selector), -ENOMEM. */
int sw_gate_select(struct sw_model *m, enum sw_gate_buf which);

struct sw_gate_plan {
	enum sw_gate_buf target;        /* the buffer want selects after settle */
	bool phase1;                    /* have's target buffer must be filled first,
					 * in a commit of its own */
};
/* Make want (built with buffer A live and B empty, or settled before)
 * agree with have (observed, or the model the kernel was last seen to
 * hold): keep have's live buffer when it holds want's gate, else select
 * the other one; the buffer not selected takes have's elements (so that
 * nothing is sent to it). *plan says whether have's target buffer differs
 * from want's gate (phase 1). A model without a gate (the netdev table):
 * nothing, plan->target NONE. 0 or -ENOMEM. */
int sw_gate_settle(struct sw_model *want, const struct sw_model *have, struct sw_gate_plan *plan);

#endif
