// SPDX-License-Identifier: GPL-2.0-or-later
/* gatefill: the gate's first phase, a commit of its own (see
 * include/sync/gatefill.h). */
#include <stdbool.h>
#include <stdint.h>

#include "core/gate.h"
#include "kernel/commit.h"
#include "kernel/encode.h"
#include "sync/gatefill.h"

struct gate_fill {
	const struct sw_model *want, *have;
	enum sw_gate_buf target;
	bool flush;
};

/* Phase 1 (include/core/gate.h): have's target buffer, which no rule reads
 * while the other one is selected, takes want's gate, by element deltas
 * (or flushed and refilled, when the kernel refuses a delta). */
static int build_gate_fill(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct gate_fill *g = arg;
	char n[SW_NAME_MAX];
	int rc = 0;

	b->family = sw_model_family(g->want);
	for (int v6 = 0; v6 < 2 && !rc; v6++) {
		const struct sw_set *w, *h;

		sw_gate_set_name(n, sizeof(n), v6, g->target);
		w = sw_model_find_set(g->want, n);
		h = sw_model_find_set(g->have, n);
		if (!w || !h)
			continue;       /* made with the flip, elements and all */
		if (g->flush)
			rc = sw_encode_set_refill(b, nl, g->want, w);
		else
			rc = sw_encode_set_delta(b, nl, g->want->table, w, h);
	}
	return rc;
}

int sw_gate_fill(struct sw_nl *nl, struct sw_model *want, struct sw_model *have)
{
	struct sw_gate_plan p;
	struct gate_fill g = { want, have, SW_GATE_NONE, false };
	char n[SW_NAME_MAX];
	int rc;

	if ((rc = sw_gate_settle(want, have, &p)) || !p.phase1)
		return rc;
	g.target = p.target;
	/* on success, have->genid becomes the generation the fill made */
	rc = sw_commit(nl, SW_GEN_REQUIRE, &have->genid, build_gate_fill, &g);
	if (sw_encode_delta_refused(rc)) {
		g.flush = true;
		rc = sw_commit(nl, SW_GEN_REQUIRE, &have->genid, build_gate_fill, &g);
	}
	if (rc)
		return rc;
	for (int v6 = 0; v6 < 2 && !rc; v6++) {
		struct sw_set *h;

		sw_gate_set_name(n, sizeof(n), v6, p.target);
		if ((h = sw_model_find_set(have, n)))
			rc = sw_set_copy_elems(h, sw_model_find_set(want, n));
	}
	return rc;
}
