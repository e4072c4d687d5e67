// SPDX-License-Identifier: GPL-2.0-or-later
/* report: one typed record -> alert, journal, counters, status, metrics. */
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <linux/netfilter/nf_tables.h>

#include "json.h"
#include "log.h"
#include "metrics.h"
#include "notify.h"
#include "observe.h"
#include "report.h"

static const struct {
	const char *name;
	bool drift;             /* somebody else's change: counted, alerted as drift */
	const char *event;      /* alert event of a success that is no drift */
	int prio;
} causes[SW_CAUSE_COUNT] = {
	[SW_CAUSE_DRIFT]  = { "drift",  true,  NULL, LOG_WARNING },
	[SW_CAUSE_RESYNC] = { "resync", true,  NULL, LOG_WARNING },
	[SW_CAUSE_UPDATE] = { "update", false, "sets-updated", LOG_INFO },
	[SW_CAUSE_RETRY]  = { "retry",  false, "repaired-after-retry", LOG_NOTICE },
	[SW_CAUSE_RELOAD] = { "reload", false, "applied", LOG_INFO },
};

const char *sw_cause_name(enum sw_cause c)
{
	return (unsigned)c < SW_CAUSE_COUNT ? causes[c].name : "unknown";
}

bool sw_cause_is_drift(enum sw_cause c)
{
	return (unsigned)c < SW_CAUSE_COUNT && causes[c].drift;
}

/* key="value" alert lines: no double quote may end a value early */
static void unquote(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s ? s : "");
	for (char *q = buf; (q = strchr(q, '"')); )
		*q = '\'';
}

static void journal_add(struct sw_daemon *d, struct sw_jw *w)
{
	int rc;

	if (!d->cfg.journal_path[0]) {
		sw_jw_free(w);
		return;
	}
	if ((rc = sw_journal_add_jw(&d->journal, w)))
		sw_debug("cannot write the journal %s: %s", d->cfg.journal_path, strerror(-rc));
}

void sw_report_repair(struct sw_daemon *d, const struct sw_repair *r)
{
	const char *comm = r->comm && *r->comm ? r->comm : "?";
	bool drift = sw_cause_is_drift(r->cause);
	char change[256], err[512];
	struct sw_jw w;
	time_t now = time(NULL);

	unquote(r->change, change, sizeof(change));
	unquote(r->error, err, sizeof(err));
	if (drift)
		d->drifts++;
	if (r->failed) {
		d->repair_failures++;
		sw_alert(&d->alert, LOG_CRIT,
			 "event=repair-failed table=inet/%s cause=%s change=\"%s\" error=\"%s\"",
			 d->cfg.table, sw_cause_name(r->cause), change, err);
		sw_journal_begin(&w, SW_JE_REPAIR_FAILED, d->cfg.table, now);
		sw_jw_str(&w, "cause", sw_cause_name(r->cause));
		sw_jw_str(&w, "change", r->change);
		sw_jw_u64(&w, "pid", r->pid);
		sw_jw_str(&w, "comm", comm);
		sw_jw_str(&w, "error", r->error);
		journal_add(d, &w);
	} else {
		d->repairs++;
		d->last_repair_us = r->restored_us;
		if (drift) {
			sw_alert(&d->alert, LOG_WARNING,
				 "event=drift table=inet/%s change=\"%s\" pid=%u comm=%s found_by=%s "
				 "restored_us=%lld verified_us=%lld",
				 d->cfg.table, change, r->pid, comm, sw_cause_name(r->cause),
				 (long long)r->restored_us, (long long)r->verified_us);
		} else {
			sw_alert(&d->alert, causes[r->cause].prio,
				 "event=%s table=inet/%s changes=%zu first=\"%s\" applied_us=%lld",
				 causes[r->cause].event, d->cfg.table, r->changes, change,
				 (long long)r->restored_us);
		}
		/* the journal keeps drift, and the repair that settles a failure */
		if (drift || r->cause == SW_CAUSE_RETRY) {
			sw_journal_begin(&w, drift ? SW_JE_DRIFT : SW_JE_REPAIRED, d->cfg.table, now);
			sw_jw_str(&w, "change", r->change);
			sw_jw_u64(&w, "pid", r->pid);
			sw_jw_str(&w, "comm", comm);
			sw_jw_str(&w, "found_by", sw_cause_name(r->cause));
			sw_jw_i64(&w, "restored_us", r->restored_us);
			sw_jw_i64(&w, "verified_us", r->verified_us);
			sw_jw_str(&w, "result", "repaired");
			journal_add(d, &w);
		}
	}
	if (drift) {
		snprintf(d->last_drift, sizeof(d->last_drift), "%.180s by pid %u (%.31s)",
			 change, r->pid, comm);
		d->last_drift_at = now;
	}
	sw_report_status(d);
	sw_report_metrics(d, true);
}

void sw_report_start(struct sw_daemon *d)
{
	struct sw_jw w;

	sw_alert(&d->alert, LOG_NOTICE,
		 "event=start table=inet/%s mode=%s config=%s rules=%zu sets=%zu",
		 d->cfg.table, d->mode, d->config_path, d->want.n_rules, d->want.n_sets);
	sw_journal_begin(&w, SW_JE_START, d->cfg.table, time(NULL));
	sw_jw_str(&w, "mode", d->mode);
	sw_jw_i64(&w, "pid", (int64_t)getpid());
	journal_add(d, &w);
	sw_report_status(d);
	sw_report_metrics(d, true);
}

void sw_report_stop(struct sw_daemon *d)
{
	struct sw_jw w;

	sw_alert(&d->alert, LOG_NOTICE, "event=stop table=inet/%s rules=left-in-place", d->cfg.table);
	sw_journal_begin(&w, SW_JE_STOP, d->cfg.table, time(NULL));
	sw_jw_str(&w, "rules", "left-in-place");
	journal_add(d, &w);
	sw_report_metrics(d, false);
}

void sw_report_removed(struct sw_daemon *d)
{
	struct sw_jw w;

	sw_alert(&d->alert, LOG_WARNING, "event=removed table=inet/%s action=paused-until-reload",
		 d->cfg.table);
	sw_journal_begin(&w, SW_JE_REMOVED, d->cfg.table, time(NULL));
	sw_jw_str(&w, "by", "sandwall remove");
	journal_add(d, &w);
	sw_report_metrics(d, false);
	sw_report_status(d);
}

void sw_report_metrics(struct sw_daemon *d, bool up)
{
	struct sw_metrics m = { 0 };
	struct sw_model have;
	int rc;

	if (!d->cfg.metrics_path[0])
		return;
	/* the table and its counters only: no set or rule dumps */
	if (sw_observe_counters(&d->nl, d->cfg.table, &have) == 0) {
		for (int c = 0; c < SW_CAT_COUNT; c++) {
			int i = sw_model_find_counter(&have, sw_category_name(c));

			if (i >= 0) {
				m.pkts[c] = have.counter_pkts[i];
				m.bytes[c] = have.counter_bytes[i];
			}
		}
		m.up = up && have.has_table && !d->paused;
		m.owner = have.has_table && (have.table_flags & NFT_TABLE_F_OWNER);
		sw_model_free(&have);
	}
	m.drifts = d->drifts;
	m.repairs = d->repairs;
	m.repair_failures = d->repair_failures;
	m.enobufs = d->ev.enobufs;
	m.blocked_logged = d->blocked_seen;
	m.last_repair_seconds = (double)d->last_repair_us / 1e6;
	m.last_drift_time = d->last_drift_at;
	if ((rc = sw_metrics_write(d->cfg.metrics_path, &m)))
		sw_warn("cannot write metrics to %s: %s", d->cfg.metrics_path, strerror(-rc));
}

void sw_report_status(struct sw_daemon *d)
{
	char s[256];

	snprintf(s, sizeof(s), "STATUS=%s table inet %s, mode %s, %llu drift(s), %llu repair(s)",
		 d->paused ? "paused:" : "guarding", d->cfg.table, d->mode,
		 (unsigned long long)d->drifts, (unsigned long long)d->repairs);
	sw_notify(s);
}
