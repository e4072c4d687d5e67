/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_FLOWLOG_H
#define SANDWALL_DAEMON_FLOWLOG_H
/* flowlog: the network log ([log] flows). The flows the sandboxes opened
 * (ORIGINAL source on the sandbox side, sw_ct_sandbox_side) that
 * conntrack confirmed -- the boundary let them through -- from
 * ctnetlink's NEW and DESTROY events (kernel/ctevents.h), kept in the
 * flow table (host/flowtab.h) while open, one line each in flows.jsonl
 * beside the journal when they end (sw_flow_json), the open ones in
 * flows-open.json at each dump ([log] flow_interval) and at stop.
 * Bounds are said, never silent: "flows-dropped" and "flows-lost" lines,
 * and the metrics. */
#include <stdbool.h>
#include "daemon/state.h"

/* Open or close what [log] flows asks for (start, reload): accounting
 * on, the event socket, the dump socket, the timer, flows.jsonl, and the
 * first dump (the flows already open). */
void sw_flowlog_setup(struct sw_daemon *d);
/* The event socket is readable. */
void sw_flowlog_read(struct sw_daemon *d);
/* The names group is readable: each DNS reply into the names table. Also
 * drained first by sw_flowlog_read and each dump, so that an answer is
 * known before the flow it named is handled. */
void sw_flowlog_names_read(struct sw_daemon *d);
/* The timer: dump, update, sweep, flows-open.json. */
void sw_flowlog_tick(struct sw_daemon *d);
/* A dump now (the "flows" request: a run that ends wants its open flows
 * in flows-open.json). false when the log is off. */
bool sw_flowlog_dump_now(struct sw_daemon *d);
/* After each loop turn: a resync dump due after lost events, and the
 * "flows-dropped" line when more were dropped. */
void sw_flowlog_flush(struct sw_daemon *d);
/* At stop: each open flow as a "state":"open" line, flows-open.json,
 * everything closed. */
void sw_flowlog_stop(struct sw_daemon *d);

/* The sibling of the journal named name ("" when there is no journal). */
void sw_flowlog_path(const struct sw_daemon *d, const char *name, char *buf, size_t len);

#endif
