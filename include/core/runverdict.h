/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RUNVERDICT_H
#define SANDWALL_RUNVERDICT_H
/* runverdict: whether an eval run counts (contained), from what was
 * recorded of it, and every reason it does not. Pure: no clock, no files.
 * A run is contained only when
 *   - its preflight verify held (else the command was not started),
 *   - its postflight verify held,
 *   - sandwalld answered at the start and at the end of the run,
 *   - the max_connections counts were started again at its start (or
 *     shared with a run open then), when a sandbox has them,
 *   - the journal shows no gap over the run's window (table absent or
 *     changed, daemon not running, a link unguarded, a failed verify or
 *     repair, a hole in the record, a part of the window before the
 *     oldest event kept),
 *   - no assumption the boundary makes of the run's sandboxes was broken
 *     (e.g. a guarded host-side process holding CAP_NET_RAW),
 *   - nothing of the record failed to be written or read.
 * Blocked attempts do not count against it: they are the boundary
 * working; a quarantine neither. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/timeline.h"

#define SW_RUN_REASONS    32
#define SW_RUN_REASON_LEN 256

struct sw_run_facts {
	int pre, post;                  /* verify's exit: 0 held, 1 not held, 2 error, -1 not run */
	bool daemon_start, daemon_stop; /* sandwalld answered then */
	bool counts_failed;             /* sandwalld did not start the max_connections counts again */
	bool started;                   /* the command was started */
	const struct sw_timeline *tl;   /* the window's gaps (NULL: the journal was not read) */
	const char *const *broken;      /* assumptions that did not hold (text) */
	size_t n_broken;
	const char *record_error;       /* a part of the record that is missing, or NULL */
};

struct sw_run_verdict {
	bool contained;
	char reason[SW_RUN_REASONS][SW_RUN_REASON_LEN];
	size_t n;
	size_t more;                    /* reasons past SW_RUN_REASONS, counted */
};

void sw_run_verdict(const struct sw_run_facts *f, struct sw_run_verdict *v);

/* One gap as a reason: "table absent 2026-12-03T10:00:01.250000Z ..
 * 2026-12-03T10:00:02.000000Z: removed (uid 0 pid 42 (nft)), ended by ...". */
void sw_run_gap_text(const struct sw_gap *g, char *out, size_t len);

#endif
