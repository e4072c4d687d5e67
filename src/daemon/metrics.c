// SPDX-License-Identifier: GPL-2.0-or-later
/* metrics: Prometheus textfile for node_exporter (see include/daemon/metrics.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/atomicfile.h"
#include "daemon/metrics.h"

#define PUT(...) do {                                                        \
		int _n = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__); \
		if (_n < 0)                                                  \
			return -EINVAL;                                      \
		off += (size_t)_n;                                           \
	} while (0)

int sw_metrics_render(const struct sw_metrics *m, char *buf, size_t len)
{
	size_t off = 0;

	PUT("# HELP sandwall_up 1 while sandwalld runs and the table is in place.\n"
	    "# TYPE sandwall_up gauge\nsandwall_up %d\n", m->up ? 1 : 0);
	PUT("# HELP sandwall_owner 1 while the table is owned by sandwalld (others get EPERM).\n"
	    "# TYPE sandwall_owner gauge\nsandwall_owner %d\n", m->owner ? 1 : 0);
	for (int unit = 0; unit < 2; unit++) {
		const char *what = unit ? "bytes" : "packets";
		const uint64_t *v = unit ? m->bytes : m->pkts;

		PUT("# HELP sandwall_blocked_%s_total %s dropped, per block category.\n"
		    "# TYPE sandwall_blocked_%s_total counter\n", what, unit ? "Bytes" : "Packets", what);
		for (int c = 0; c < SW_CAT_COUNT; c++)
			PUT("sandwall_blocked_%s_total{category=\"%s\"} %llu\n", what,
			    sw_category_name(c), (unsigned long long)v[c]);
	}
	PUT("# HELP sandwall_drift_events_total Changes to the table by other processes.\n"
	    "# TYPE sandwall_drift_events_total counter\nsandwall_drift_events_total %llu\n",
	    (unsigned long long)m->drifts);
	PUT("# HELP sandwall_repairs_total Batches that brought the table back (drift, host changes, reloads).\n"
	    "# TYPE sandwall_repairs_total counter\nsandwall_repairs_total %llu\n",
	    (unsigned long long)m->repairs);
	PUT("# HELP sandwall_repair_failures_total Repairs that failed or did not read back as intended.\n"
	    "# TYPE sandwall_repair_failures_total counter\nsandwall_repair_failures_total %llu\n",
	    (unsigned long long)m->repair_failures);
	PUT("# HELP sandwall_repair_latency_seconds Time from the event to the commit (ACK) of the last repair batch.\n"
	    "# TYPE sandwall_repair_latency_seconds gauge\nsandwall_repair_latency_seconds %.6f\n",
	    m->last_repair_seconds);
	PUT("# HELP sandwall_last_drift_timestamp_seconds When the last drift was seen (0: never).\n"
	    "# TYPE sandwall_last_drift_timestamp_seconds gauge\nsandwall_last_drift_timestamp_seconds %lld\n",
	    (long long)m->last_drift_time);
	PUT("# HELP sandwall_event_overruns_total Times the kernel dropped netlink events (ENOBUFS) and a resync followed.\n"
	    "# TYPE sandwall_event_overruns_total counter\nsandwall_event_overruns_total %llu\n",
	    (unsigned long long)m->enobufs);
	PUT("# HELP sandwall_blocked_logged_total Blocked attempts read from the NFLOG group.\n"
	    "# TYPE sandwall_blocked_logged_total counter\nsandwall_blocked_logged_total %llu\n",
	    (unsigned long long)m->blocked_logged);
	PUT("# HELP sandwall_record_write_errors_total Writes of the journal or attempts.json that failed (the record has a hole).\n"
	    "# TYPE sandwall_record_write_errors_total counter\n"
	    "sandwall_record_write_errors_total{file=\"journal\"} %llu\n"
	    "sandwall_record_write_errors_total{file=\"attempts\"} %llu\n",
	    (unsigned long long)m->journal_errors, (unsigned long long)m->attempts_errors);
	PUT("# HELP sandwall_unguarded_links Container-facing links that no guard covers.\n"
	    "# TYPE sandwall_unguarded_links gauge\nsandwall_unguarded_links %llu\n",
	    (unsigned long long)m->unguarded);
	if (m->flows_on) {
		PUT("# HELP sandwall_flows_logged_total Flow records written to flows.jsonl (the network log).\n"
		    "# TYPE sandwall_flows_logged_total counter\nsandwall_flows_logged_total %llu\n",
		    (unsigned long long)m->flows_logged);
		PUT("# HELP sandwall_flows_dropped_total New flows not logged: the open-flow table ([log] max_flows) was full.\n"
		    "# TYPE sandwall_flows_dropped_total counter\nsandwall_flows_dropped_total %llu\n",
		    (unsigned long long)m->flows_dropped);
		PUT("# HELP sandwall_flows_lost_events_total Times the kernel dropped conntrack events (ENOBUFS); a dump followed.\n"
		    "# TYPE sandwall_flows_lost_events_total counter\nsandwall_flows_lost_events_total %llu\n",
		    (unsigned long long)m->flows_lost);
		PUT("# HELP sandwall_flows_open Open sandbox flows kept in the table.\n"
		    "# TYPE sandwall_flows_open gauge\nsandwall_flows_open %llu\n",
		    (unsigned long long)m->flows_open);
		PUT("# HELP sandwall_flows_untracked Open sandbox flows the last dump found no room for.\n"
		    "# TYPE sandwall_flows_untracked gauge\nsandwall_flows_untracked %llu\n",
		    (unsigned long long)m->flows_untracked);
	}
	return off < len ? (int)off : -ENOSPC;
}

int sw_metrics_write(const char *path, const struct sw_metrics *m)
{
	char buf[8192];
	int n = sw_metrics_render(m, buf, sizeof(buf));

	if (n < 0)
		return n;
	return sw_atomic_write(path, buf, (size_t)n, 0644);
}
