/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_REPORT_H
#define SANDWALL_REPORT_H
/* report: what sandwalld tells the world about what happened, from one
 * typed record: the alert line (syslog, key=value), the journal line
 * (JSON, read by `sandwall receipt`), the daemon's counters, the
 * systemd status and the Prometheus textfile. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "daemon/daemon.h"

/* Why the daemon compared the kernel with the desired model. */
enum sw_cause {
	SW_CAUSE_DRIFT,         /* an nftables event: another process changed the table */
	SW_CAUSE_RESYNC,        /* the timer or lost events (ENOBUFS) */
	SW_CAUSE_UPDATE,        /* the host moved: the desired sets changed */
	SW_CAUSE_RETRY,         /* again, after a repair failed */
	SW_CAUSE_RELOAD,        /* SIGHUP or `sandwall reload` */
	SW_CAUSE_COUNT
};
const char *sw_cause_name(enum sw_cause c);
/* Did somebody else change our table (counted and alerted as drift)? */
bool sw_cause_is_drift(enum sw_cause c);

/* One compare-and-repair that sent a batch (or failed to). */
struct sw_repair {
	enum sw_cause cause;
	bool failed;
	const char *change;     /* the kernel's words ("delete table") or the diff summary */
	uint32_t pid;           /* who (NEWGEN), 0 if unknown */
	const char *comm;
	size_t changes;         /* differences found */
	int64_t restored_us;    /* event -> repair batch ACKed */
	int64_t verified_us;    /* event -> read back */
	const char *error;      /* failed: why */
};
void sw_report_repair(struct sw_daemon *d, const struct sw_repair *r);

/* Lifecycle lines: start, stop, removed. */
void sw_report_start(struct sw_daemon *d);
void sw_report_stop(struct sw_daemon *d);
void sw_report_removed(struct sw_daemon *d);

/* A reload (d->req_uid/req_pid asked for it): journal lines reload and,
 * when it worked, applied. */
void sw_report_reload(struct sw_daemon *d, int rc);
/* Compare the unguarded container-facing links with those last reported:
 * event=unguarded state=unguarded|covered|gone, and a journal line each. */
void sw_report_coverage(struct sw_daemon *d);
#define SW_COV_GRACE_US 1000000
/* ms until a pending unguarded link is due (-1: none pending) */
int sw_report_coverage_due_ms(const struct sw_daemon *d);
/* attempts.json written (rc 0) or not: a WARNING once per failing episode. */
void sw_report_attempts_write(struct sw_daemon *d, const char *path, int rc);

/* The Prometheus textfile, from the kernel's counters and ours. */
void sw_report_metrics(struct sw_daemon *d, bool up);
/* STATUS= for systemd. */
void sw_report_status(struct sw_daemon *d);

#endif
