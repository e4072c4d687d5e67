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
#include "daemon/state.h"

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

/* The journal's last start or stop line of table inet <table> is a start:
 * the run before this one ended without a stop (a crash, kill -9). The
 * time of the newest line of this table in *last (unix seconds; *last 0
 * on entry). text (len bytes and one more: the lines are cut in place) is
 * read from the end. */
bool sw_report_crashed(char *text, size_t len, const char *table, int64_t *last);

/* Lifecycle lines: start (previous=crashed when sw_report_crashed says
 * so of the journal), stop, removed. */
void sw_report_start(struct sw_daemon *d);
void sw_report_stop(struct sw_daemon *d);
void sw_report_removed(struct sw_daemon *d);

/* A reload (d->req_uid/req_pid asked for it): journal lines reload and,
 * when it worked, applied. */
void sw_report_reload(struct sw_daemon *d, int rc);
/* A release (`sandwall release`): NOTICE, and a journal line when a set held it. */
void sw_report_release(struct sw_daemon *d, const char *what, size_t sets);
/* A source (or link) tripped a quarantine: WARNING and a journal line;
 * on: the category of the block that tripped it ("connections" for
 * max_connections; "" when not known). */
void sw_report_quarantine(struct sw_daemon *d, const struct sw_blocked *b, const char *iif,
			  const char *on);
/* A guarded link came (added) or went, named by why: event=bridge for a
 * bridge (as always), event=guarded-link for the others, and
 * event=macvlan-parent for a parent the netdev table hooks. */
void sw_report_link(struct sw_daemon *d, const struct sw_link *l, bool added);
/* The gateways of new against the og (nog of them): event=gateway add, del,
 * or change when one replaced another. */
void sw_report_gateways(struct sw_daemon *d, const struct sw_gateway *og, size_t nog,
			const struct sw_host *new);
/* What changed on the host that matters to us, after a full read: the
 * guarded links (sorted names, one merge) and the gateways. */
void sw_report_host_changes(struct sw_daemon *d, const struct sw_host *old,
			    const struct sw_host *new);
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
