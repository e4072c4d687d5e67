/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RECONCILE_H
#define SANDWALL_RECONCILE_H
/* reconcile: the one loop shared by `check`, `apply`, the daemon and the
 * tests: desired = f(config, host); observed = dump; diff; repair in one
 * batch; read back. */
#include <stdbool.h>
#include "core/config.h"
#include "core/diff.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/commit.h"     /* sw_gen_after: the generations its commits make */
#include "kernel/nl.h"
/* what the daemon uses beside reconcile (the hint's events, the twin) */
#include "sync/derive.h"
#include "sync/twin.h"

#define SW_APPLY_TRIES 5    /* bounded retry when the generation moves (ERESTART) */
/* Whose is the table that was observed? sandwall changes and deletes
 * only its own: check, apply, reconcile and remove return -EEXIST with
 * a message for SW_TABLE_FOREIGN (and remove also for SW_TABLE_EMPTY). */
enum sw_table_owner {
	SW_TABLE_ABSENT,
	SW_TABLE_OURS,          /* carries the SW_TABLE_MARKER comment */
	SW_TABLE_OURS_UNMARKED, /* no marker, but only rules tagged "sandwall:" and
				 * nothing the model does not see (an older sandwall's,
				 * or restored without its comment): drift, the table
				 * is replaced to mark it */
	SW_TABLE_EMPTY,         /* no marker and nothing in it: adopted by apply */
	SW_TABLE_FOREIGN,       /* anything else: another tool's */
};
enum sw_table_owner sw_table_owner(const struct sw_model *have);

/* Read what the desired tables depend on (core/desired.h builds them):
 * with links, the host's links, addresses and routes (rtnetlink; without,
 * the daemon's, tracked by rtnetlink events), then the cgroups the config
 * names, read again each time. 0 or -errno with err filled. */
int sw_host_gather(const struct sw_config *cfg, struct sw_host *host, bool links,
		   char *err, size_t errlen);

/* The host moved: the kernel held old at generation *genid (the daemon's
 * last verified state). Send what differs from old to want as set element
 * deltas only (no flush), in one batch stamped with *genid, without
 * reading the table: 0 (nothing sent when d->n == 0), *genid advanced to
 * the generation after the commit. -ESTALE when the change is more than
 * elements; -ERESTART when anything changed the ruleset since *genid;
 * ENOENT/EEXIST when the kernel does not hold old. On any error the
 * caller observes and repairs (sw_reconcile_hint). d: the change. */
int sw_update_sets(struct sw_nl *nl, struct sw_model *want, const struct sw_model *old,
		   uint32_t *genid, struct sw_diff *d, char *err, size_t errlen);

/* apply --force: rewrite every chain of the table in place (sets by
 * element deltas), creating the table when absent, in one batch,
 * retrying on ERESTART. The table itself is replaced only where the
 * kernel gives no other way (ownership flags, the marker). On failure
 * err holds the reason (with the kernel's text and the refused object). */
int sw_apply(struct sw_nl *nl, struct sw_model *want, char *err, size_t errlen);
/* add table with these flags (ownership: adopt an orphaned table);
 * refused (-EEXIST) unless the table is ours. */
int sw_set_table_flags(struct sw_nl *nl, const char *table, uint32_t flags,
		       char *err, size_t errlen);
/* Delete the table if it is ours (absent is fine: *absent set); the
 * delete is stamped with the generation in which it was seen to be ours. */
int sw_remove(struct sw_nl *nl, const char *table, bool *absent, char *err, size_t errlen);
/* The same for a table of another family (NFPROTO_NETDEV). */
int sw_remove_family(struct sw_nl *nl, uint32_t family, const char *table, bool *absent,
		     char *err, size_t errlen);

/* Every function below that takes want may change its gate buffers
 * (include/core/gate.h): which one is selected, and the elements of the one
 * that is not, follow the kernel; a change to the gate fills the buffer
 * not selected in a commit of its own before the one that selects it.
 * sw_update_sets returns -ESTALE when the gate changes. */

/* Observe and diff. d is filled (empty = in sync). */
int sw_check(struct sw_nl *nl, struct sw_model *want, struct sw_diff *d,
	     char *err, size_t errlen);
/* Observe, diff and, on drift, send the smallest batch that fixes it
 * (create when the table is absent, element deltas for the sets, flush
 * and refill only the chains that differ, all in place; replace only to
 * change the ownership flags or add the marker), stamped with the generation the diff
 * saw (ERESTART: observe again, bounded); then read back. *repaired says
 * a batch was sent; d holds the drift that was found. Returns -EIO if
 * the read-back still differs at the generation the repair made, -EAGAIN
 * if it differs because another process committed after it. */
int sw_reconcile(struct sw_nl *nl, struct sw_model *want, struct sw_diff *d,
		 bool *repaired, char *err, size_t errlen);

/* What the daemon knows from the event, and when the fix was committed. */
struct sw_hint {
	bool table_deleted;     /* the transaction deleted our table ... */
	uint32_t genid;         /* ... and this generation followed it */
	int64_t committed_us;   /* out: CLOCK_MONOTONIC µs when the repair batch was ACKed */
	uint32_t synced_genid;  /* out: the generation at which the table was seen to
				 * hold want (0: not seen; sw_update_sets starts there) */
	bool defer_forget;      /* in: after a (re)create, leave forgetting the flows
				 * opened toward the sandboxes meanwhile to the caller
				 * (a walk of the kernel's conntrack table, ~11 ms) */
	bool forget_due;        /* out: a create happened; call sw_reconcile_forget */
	/* in: the one transaction by another process that followed
	 * base_genid, the generation at which the kernel was last seen to
	 * hold want, and made genid: every message of it that named our
	 * table (events.h, rec). When they say all that changed (rules of a
	 * chain, elements, a base chain's policy, the table deleted), the
	 * repair is derived from want and them, without a dump, and stamped
	 * with genid: if anything else moved, the kernel refuses it
	 * (ERESTART) and the repair observes. The read-back verifies either
	 * way. NULL: observe. */
	const uint8_t *txn;
	size_t txn_len;
	uint32_t base_genid;
	bool derived;           /* out: the repair was derived from the events */
};

/* Forget every flow opened toward a sandbox (conntrack.h): what a
 * (re)created table's create does itself unless the hint defers it. */
void sw_reconcile_forget(struct sw_nl *nl, const struct sw_model *want);
/* What such a walk did, in the log (rc: its result, n: flows forgotten). */
void sw_reconcile_forget_report(const char *table, int rc, size_t n);
int sw_reconcile_hint(struct sw_nl *nl, struct sw_model *want, struct sw_hint *hint,
		      struct sw_diff *d, bool *repaired, char *err, size_t errlen);

/* sw_reconcile_hint, again while the read-back differs (-EIO, -EAGAIN)
 * because the next tamper came in between (a one-socket tamperer does it
 * within microseconds): at most tries rounds, each observing first. When
 * the last round's read-back still differs: -EAGAIN if another commit
 * came after ours (the generation moved past the repair's: the repair
 * held, and that commit's own event brings the next round), -EIO if the
 * kernel does not hold what was committed at our own generation. Any
 * other error at once.
 * *repaired: any round sent a batch; first: the summary of what the first
 * compare found; d: the last round's diff; hint->committed_us: the first
 * commit; hint->synced_genid: from the last round. */
int sw_reconcile_settle(struct sw_nl *nl, struct sw_model *want, struct sw_hint *hint,
			int tries, struct sw_diff *d, bool *repaired, char *first, size_t firstlen,
			char *err, size_t errlen);

#endif
