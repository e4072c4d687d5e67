/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_TIMELINE_H
#define SANDWALL_TIMELINE_H
/* timeline: what the journal says happened to the boundary over a window.
 * Pure: journal text (JSON lines, see journal.h) in, gaps out; no clock,
 * no files. A gap is a span in which the boundary was not as configured
 * or not watched, or in which the record itself is missing:
 *   unknown       before the oldest event kept (or no journal at all)
 *   daemon        sandwalld not running (stop .. start; a start after a
 *                 start with no stop between is a crash: from the last
 *                 event of the crashed run)
 *   absent        the table removed (removed / table-absent .. applied /
 *                 table-present)
 *   drift         another process changed the table, until the repair
 *                 (the drift line's restored_us)
 *   repair        a repair failed, until one succeeded
 *   unguarded     a container-facing link no guard covered (per link)
 *   verify        a verify failed, until one passed
 *   hole          the journal could not be written (a "hole" line), or a
 *                 line that is no event (torn, corrupt): between the
 *                 events around it
 * Lines are taken in time order (out-of-order lines are sorted, and
 * counted). Lines of another table are left out. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sw_gap_kind {
	SW_GAP_UNKNOWN,
	SW_GAP_DAEMON,
	SW_GAP_ABSENT,
	SW_GAP_DRIFT,
	SW_GAP_REPAIR,
	SW_GAP_UNGUARDED,
	SW_GAP_VERIFY,
	SW_GAP_HOLE,
	SW_GAP_COUNT
};
/* "unknown", "daemon not running", "table absent", ... */
const char *sw_gap_kind_name(enum sw_gap_kind k);

struct sw_gap {
	enum sw_gap_kind kind;
	int64_t start_us, end_us;   /* clipped to the window */
	bool open;                  /* not over at the window's end */
	char what[128];             /* "delete table", "docker0 (bridge with ports)" */
	char who[96];               /* "uid 0 pid 4242 (nft)", "" when unknown */
	char ended_by[96];          /* who ended it ("" when unknown or open) */
};

struct sw_timeline {
	int64_t since_us, until_us; /* the window */
	int64_t first_us;           /* the oldest event kept (-1: none) */
	struct sw_gap *gaps;        /* in start order */
	size_t n_gaps;
	size_t events;              /* good lines of this table (all times) */
	size_t in_window;           /* of them, in the window */
	size_t malformed;           /* lines that are no event */
	size_t out_of_order;        /* lines older than one before them */
	size_t drifts;              /* in the window */
	size_t verifies, verifies_passed; /* in the window */
	int64_t last_verify_us;     /* in the window, -1: none */
	bool last_verify_passed;
	bool held;                  /* no gap, and a verify in the window passed */
};

/* Build the timeline of table (its name, "sandwall") over [since_us,
 * until_us] from journal text. 0 or -ENOMEM (tl freed). */
int sw_timeline_build(const char *text, size_t len, const char *table, int64_t since_us,
		      int64_t until_us, struct sw_timeline *tl);
void sw_timeline_free(struct sw_timeline *tl);

#endif
