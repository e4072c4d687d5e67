/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_METRICS_H
#define SANDWALL_METRICS_H
/* metrics: the node_exporter textfile (Prometheus text format), written
 * atomically (temporary file + rename) so a scrape never sees half. */
#include <stdbool.h>
#include <stdint.h>
#include "core/config.h"

struct sw_metrics {
	bool up;                        /* daemon running and the table in place */
	bool owner;                     /* the table is owned by the daemon */
	uint64_t pkts[SW_CAT_COUNT], bytes[SW_CAT_COUNT];
	uint64_t drifts, repairs, repair_failures, enobufs, blocked_logged;
	double last_repair_seconds;     /* latency of the last repair */
	int64_t last_drift_time;        /* unix seconds, 0 = never */
	uint64_t journal_errors, attempts_errors; /* failed writes: holes in the record */
	uint64_t unguarded;             /* container-facing links no guard covers */
	/* the network log ([log] flows; the metrics only when it is on) */
	bool flows_on;
	uint64_t flows_logged, flows_dropped, flows_lost, flows_open, flows_untracked;
};

/* Render to buf (for tests); returns the length or -ENOSPC. */
int sw_metrics_render(const struct sw_metrics *m, char *buf, size_t len);
/* Write to path atomically. Returns 0 or -errno. */
int sw_metrics_write(const char *path, const struct sw_metrics *m);

#endif
