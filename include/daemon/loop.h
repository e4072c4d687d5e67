/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_LOOP_H
#define SANDWALL_DAEMON_LOOP_H
/* loop: the epoll loop, each source to its part, and the deadlines it
 * sleeps until (a deferred host update, a link unguarded past its grace,
 * the control socket's backoff, a second's summaries, flows to forget). */
#include <stdbool.h>
#include <stdint.h>
#include "daemon/state.h"

/* Report the start, tell READY, compare once, then serve the events
 * until TERM/INT; report the stop. Returns the exit code (0, or 2 when
 * epoll fails). */
int sw_loop_run(struct sw_daemon *d);
/* epoll_wait's timeout at now (CLOCK_MONOTONIC us) for the host and the
 * flows: -1, or until a deferred host update is due, or cov (ms until an
 * unguarded link is due, -1: none) when sooner; 0 while flows are to be
 * forgotten (they go when no event waits). */
int sw_loop_timeout(const struct sw_daemon *d, int64_t now, int cov);
#define SW_FORGET_MAX_US 20000
/* Is it time to forget a re-created table's primed flows: when no event
 * waits (idle), or at the latest SW_FORGET_MAX_US after the re-create,
 * and no walk runs? */
bool sw_loop_forget_due(const struct sw_daemon *d, bool idle, int64_t now);

#endif
