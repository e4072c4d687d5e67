/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_BLOCKLOG_H
#define SANDWALL_DAEMON_BLOCKLOG_H
/* blocklog: the blocked attempts ([log] blocked: the table's NFLOG
 * group) as event=blocked and event=budget lines, at most one a second
 * per source and destination, and attempts.json beside the journal (what
 * the sandboxes tried to reach, `sandwall attempts`). */
#include <stdbool.h>
#include "daemon/state.h"
#include "kernel/nflog.h"

/* Bind the NFLOG group when [log] blocked is on (another reader may hold
 * it); let it go when the config no longer asks for it (reload). */
void sw_blocklog_setup(struct sw_daemon *d);
/* The group is readable: each attempt through sw_blocklog_one. */
void sw_blocklog_read(struct sw_daemon *d);
/* A tripped quarantine still waiting for its block chain's line: reported
 * now, without its why (the end of each read). */
void sw_blocklog_pending(struct sw_daemon *d);
/* One blocked attempt (data: the daemon): counted, into the attempts, and
 * its line unless one for the same source and destination came within
 * the second (the next one says how many were suppressed). */
void sw_blocklog_one(const struct sw_blocked *b, void *data);
/* attempts.json beside the journal, at most once a second (and at stop:
 * now), when an attempt came since the last write. */
void sw_blocklog_flush(struct sw_daemon *d, bool now);
/* How long the loop may sleep: until the next second when attempts.json
 * or a suppressed-lines summary is waiting for its window to end (else a
 * quiet host would hold them until the next event), forever (-1)
 * otherwise. now_ns: CLOCK_REALTIME's nanoseconds within its second. */
int sw_blocklog_timeout_at(const struct sw_daemon *d, long now_ns);
/* The same now. */
int sw_blocklog_timeout(const struct sw_daemon *d);

#endif
