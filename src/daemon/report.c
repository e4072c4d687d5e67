// SPDX-License-Identifier: GPL-2.0-or-later
/* report: one typed record -> alert, journal, counters, status, metrics. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter/nf_tables.h>

#include "core/coverage.h"
#include "core/ruleset.h"
#include "lib/json.h"
#include "lib/log.h"
#include "daemon/metrics.h"
#include "lib/notify.h"
#include "kernel/observe.h"
#include "daemon/report.h"

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

/* The owner of a process, from /proc (-1 when it is gone or unknown): the
 * nf_tables event names the pid, the journal names the user too. */
static int64_t uid_of(uint32_t pid)
{
	char path[64], line[256];
	int64_t uid = -1;
	FILE *f;

	if (!pid)
		return -1;
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4)) {
			uid = strtoll(line + 4, NULL, 10);
			break;
		}
	fclose(f);
	return uid;
}

/* A failed write of the record is a hole: WARNING once per episode (with
 * the reason), counted (metrics, status), and when writes work again the
 * journal itself says what is missing (a "hole" line). */
static void journal_add(struct sw_daemon *d, struct sw_jw *w)
{
	bool was_failing = d->journal.failing;
	uint64_t lost = d->journal.lost;
	int rc;

	if (!d->cfg.journal_path[0]) {
		sw_jw_free(w);
		return;
	}
	if ((rc = sw_journal_add_jw(&d->journal, w))) {
		if (!d->journal_warned)
			sw_alert(&d->alert, LOG_WARNING,
				 "event=record-failed file=journal path=%s error=\"%s\" "
				 "action=counting-lost-events", d->cfg.journal_path, strerror(-rc));
		d->journal_warned = true;
		return;
	}
	if (was_failing || d->journal_warned)
		sw_alert(&d->alert, LOG_NOTICE, "event=record-ok file=journal path=%s lost=%llu",
			 d->cfg.journal_path, (unsigned long long)lost);
	d->journal_warned = false;
}

void sw_report_attempts_write(struct sw_daemon *d, const char *path, int rc)
{
	if (rc) {
		d->attempts_errors++;
		if (!d->attempts_failing)
			sw_alert(&d->alert, LOG_WARNING,
				 "event=record-failed file=attempts path=%s error=\"%s\"", path,
				 strerror(-rc));
		d->attempts_failing = true;
	} else if (d->attempts_failing) {
		sw_alert(&d->alert, LOG_NOTICE, "event=record-ok file=attempts path=%s", path);
		d->attempts_failing = false;
	}
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
		sw_journal_who(&w, uid_of(r->pid), r->pid, comm);
		sw_jw_str(&w, "error", r->error);
		journal_add(d, &w);
	} else {
		d->repairs++;
		d->last_repair_us = r->restored_us;
		if (drift) {
			sw_alert(&d->alert, LOG_WARNING,
				 "event=drift table=inet/%s change=\"%s\" differences=%zu pid=%u uid=%lld "
				 "comm=%s found_by=%s restored_us=%lld verified_us=%lld",
				 d->cfg.table, change, r->changes, r->pid, (long long)uid_of(r->pid), comm,
				 sw_cause_name(r->cause), (long long)r->restored_us,
				 (long long)r->verified_us);
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
			sw_journal_who(&w, uid_of(r->pid), r->pid, comm);
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

bool sw_report_crashed(char *text, size_t len, const char *table, int64_t *last)
{
	char want[80];
	size_t end;
	bool crashed = false;

	snprintf(want, sizeof(want), "inet/%s", table);
	/* from the end: each whole line that is an event of this table */
	for (end = len; end > 0;) {
		size_t start = end;
		const char *ev = NULL, *t = NULL;
		struct sw_jv v;
		bool decided = false;

		while (start > 0 && text[start - 1] != '\n')
			start--;
		text[end] = '\0';
		/* once the last sign of life is known, only a start or a stop
		 * line can decide: the others (most of a busy journal) are not
		 * parsed (the journal writes compact JSON, journal.c) */
		if (*last && !memmem(text + start, end - start, "\"event\":\"start\"", 15) &&
		    !memmem(text + start, end - start, "\"event\":\"stop\"", 14)) {
			end = start ? start - 1 : 0;
			continue;
		}
		if (end > start && sw_jv_parse(text + start, end - start, &v, NULL) == 0) {
			if (sw_jv_get_str(&v, "event", &ev) == 0 && sw_jv_get_str(&v, "table", &t) == 0 &&
			    !strcmp(t, want)) {
				enum sw_jevent e = sw_jevent_parse(ev);

				/* the newest line: the last sign of life */
				if (!*last)
					sw_jv_get_i64(&v, "unix", last);
				/* the last start or stop decides (the CLI's lines do not) */
				if (e == SW_JE_START || e == SW_JE_STOP) {
					crashed = e == SW_JE_START;
					decided = true;
				}
			}
			sw_jv_free(&v);
		}
		if (decided)
			break;
		end = start ? start - 1 : 0;
	}
	return crashed;
}

/* The whole journal (both files, at most 2 x SW_JOURNAL_MAX_BYTES) is
 * read from the end: a busy run writes far more than a tail holds between
 * its start and its crash. */
static bool crashed_before(const struct sw_daemon *d, int64_t *last)
{
	char *text = NULL;
	size_t len = 0;
	bool crashed;

	if (!d->cfg.journal_path[0] || sw_journal_read(d->cfg.journal_path, &text, &len))
		return false;
	crashed = sw_report_crashed(text, len, d->cfg.table, last);
	free(text);
	return crashed;
}

void sw_report_start(struct sw_daemon *d)
{
	struct sw_jw w;
	int64_t last = 0;
	bool crashed = crashed_before(d, &last);
	char when[32] = "";

	if (crashed)
		sw_iso_utc(last, when, sizeof(when));
	sw_alert(&d->alert, crashed ? LOG_WARNING : LOG_NOTICE,
		 "event=start table=inet/%s mode=%s config=%s rules=%zu sets=%zu%s%s%s",
		 d->cfg.table, d->mode, d->config_path, d->want.n_rules, d->want.n_sets, d->flow_note,
		 crashed ? " previous=crashed last_seen=" : "", when);
	sw_journal_begin(&w, SW_JE_START, d->cfg.table, time(NULL));
	sw_jw_str(&w, "mode", d->mode);
	if (crashed) {
		sw_jw_str(&w, "previous", "crashed");
		sw_jw_i64(&w, "last_seen_unix", last);
	}
	sw_journal_who(&w, (int64_t)getuid(), (int64_t)getpid(), "sandwalld");
	sw_jw_str(&w, "config", d->config_path);
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
	sw_journal_who(&w, d->req_uid, d->req_pid, NULL);
	journal_add(d, &w);
	sw_report_metrics(d, false);
}

void sw_report_removed(struct sw_daemon *d)
{
	struct sw_jw w;

	sw_alert(&d->alert, LOG_WARNING,
		 "event=removed table=inet/%s uid=%lld pid=%lld action=paused-until-reload",
		 d->cfg.table, (long long)d->req_uid, (long long)d->req_pid);
	sw_journal_begin(&w, SW_JE_REMOVED, d->cfg.table, time(NULL));
	sw_jw_str(&w, "by", "sandwall remove");
	sw_journal_who(&w, d->req_uid, d->req_pid, NULL);
	journal_add(d, &w);
	sw_report_metrics(d, false);
	sw_report_status(d);
}

void sw_report_release(struct sw_daemon *d, const char *what, size_t sets)
{
	struct sw_jw w;

	sw_alert(&d->alert, LOG_NOTICE, "event=release target=%s sets=%zu uid=%lld pid=%lld", what,
		 sets, (long long)d->req_uid, (long long)d->req_pid);
	if (!sets)
		return;
	sw_journal_begin(&w, SW_JE_RELEASE, d->cfg.table, time(NULL));
	sw_jw_str(&w, "target", what);
	sw_jw_u64(&w, "sets", sets);
	sw_journal_who(&w, d->req_uid, d->req_pid, NULL);
	journal_add(d, &w);
}

void sw_report_quarantine(struct sw_daemon *d, const struct sw_blocked *b, const char *iif,
			  const char *on)
{
	char what[160];
	struct sw_jw w;
	char src[64];

	sw_blocked_format(b, what, sizeof(what));
	sw_alert(&d->alert, LOG_WARNING, "event=quarantine sandbox=%s %s iif=%s on=%s "
		 "action=cut-off-until-release", b->sandbox, what, iif ? iif : "?", on[0] ? on : "?");
	sw_journal_begin(&w, SW_JE_QUARANTINE, d->cfg.table, time(NULL));
	sw_jw_str(&w, "sandbox", b->sandbox);
	inet_ntop(b->family, b->src, src, sizeof(src));
	sw_jw_str(&w, "src", src);
	sw_jw_str(&w, "iif", iif ? iif : "");
	inet_ntop(b->family, b->dst, src, sizeof(src));
	sw_jw_str(&w, "dst", src);
	sw_jw_u64(&w, "proto", b->proto);
	sw_jw_u64(&w, "dport", b->dport);
	if (on[0])
		sw_jw_str(&w, "on", on);
	journal_add(d, &w);
}

void sw_report_reload(struct sw_daemon *d, int rc)
{
	struct sw_jw w;

	sw_journal_begin(&w, SW_JE_RELOAD, d->cfg.table, time(NULL));
	sw_jw_str(&w, "config", d->config_path);
	sw_jw_str(&w, "result", rc ? "failed" : "ok");
	sw_journal_who(&w, d->req_uid, d->req_pid, NULL);
	journal_add(d, &w);
	/* a reload that put the rules back ends a removal's gap */
	if (!rc) {
		sw_journal_begin(&w, SW_JE_APPLIED, d->cfg.table, time(NULL));
		sw_jw_str(&w, "by", "sandwalld reload");
		sw_journal_who(&w, d->req_uid, d->req_pid, NULL);
		journal_add(d, &w);
	}
}

static int link_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct sw_link *const *)a)->name,
		      (*(const struct sw_link *const *)b)->name);
}

/* The guarded links and macvlan parents, sorted by name (NULL when there
 * are none or no memory: then no line is logged). */
static const struct sw_link **guarded_links(struct sw_daemon *d, const struct sw_host *h,
					    size_t *n)
{
	const struct sw_link **v = h->n_links ? malloc(h->n_links * sizeof(*v)) : NULL;

	*n = 0;
	for (size_t i = 0; v && i < h->n_links; i++)
		if (sw_ruleset_guard_why(&d->cfg, &h->links[i]) >= SW_GUARD_PATTERN ||
		    sw_ruleset_macvlan_parent(&d->cfg, &h->links[i]))
			v[(*n)++] = &h->links[i];
	if (v)
		qsort(v, *n, sizeof(*v), link_cmp);
	return v;
}

void sw_report_link(struct sw_daemon *d, const struct sw_link *l, bool added)
{
	enum sw_guard_why why = sw_ruleset_guard_why(&d->cfg, l);

	if (why >= SW_GUARD_PATTERN)
		sw_alert(&d->alert, LOG_NOTICE, "event=%s action=%s ifname=%s kind=%s why=\"%s\"",
			 l->is_bridge ? "bridge" : "guarded-link", added ? "add" : "del", l->name,
			 sw_link_kind_name(l->kind), sw_guard_why_name(why));
	if (sw_ruleset_macvlan_parent(&d->cfg, l))
		sw_alert(&d->alert, LOG_NOTICE, "event=macvlan-parent action=%s ifname=%s kind=%s",
			 added ? "add" : "del", l->name, sw_link_kind_name(l->kind));
}

void sw_report_gateways(struct sw_daemon *d, const struct sw_gateway *og, size_t nog,
			const struct sw_host *new)
{
	char added[SW_MAX_GATEWAYS][SW_ADDR_STRLEN], removed[SW_MAX_GATEWAYS][SW_ADDR_STRLEN];
	size_t na = 0, nr = 0;

	for (int pass = 0; pass < 2; pass++) {
		const struct sw_gateway *a = pass ? og : new->gateways, *b = pass ? new->gateways : og;
		size_t an = pass ? nog : new->n_gateways, bn = pass ? new->n_gateways : nog;

		for (size_t i = 0; i < an; i++) {
			bool found = false;

			for (size_t j = 0; j < bn && !found; j++)
				found = sw_prefix_equal(&a[i].addr, &b[j].addr);
			if (!found && pass)
				sw_prefix_format(&a[i].addr, removed[nr++], SW_ADDR_STRLEN);
			else if (!found)
				sw_prefix_format(&a[i].addr, added[na++], SW_ADDR_STRLEN);
		}
	}
	for (size_t i = 0; i < na || i < nr; i++) {
		if (i < na && i < nr)
			sw_alert(&d->alert, LOG_NOTICE, "event=gateway action=change addr=%s old=%s",
				 added[i], removed[i]);
		else
			sw_alert(&d->alert, LOG_NOTICE, "event=gateway action=%s addr=%s",
				 i < na ? "add" : "del", i < na ? added[i] : removed[i]);
	}
}

void sw_report_host_changes(struct sw_daemon *d, const struct sw_host *old,
			    const struct sw_host *new)
{
	size_t no, nn, i = 0, j = 0;
	const struct sw_link **o = guarded_links(d, old, &no), **n = guarded_links(d, new, &nn);

	while (i < no || j < nn) {
		int c = i == no ? 1 : j == nn ? -1 : strcmp(o[i]->name, n[j]->name);

		if (c < 0)
			sw_report_link(d, o[i++], false);
		else if (c > 0)
			sw_report_link(d, n[j++], true);
		else
			i++, j++;
	}
	free(o);
	free(n);
	sw_report_gateways(d, old->gateways, old->n_gateways, new);
}

/* event=unguarded: a container-facing link that no guard covers came (or
 * the config stopped covering it), and when it is covered again or gone */
static int64_t real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int sw_report_coverage_due_ms(const struct sw_daemon *d)
{
	int64_t now = real_us(), due = sw_vlinks_due_us(&d->vlinks, sw_daemon_now_us());

	for (size_t k = 0; k < d->n_cov_pending; k++) {
		int64_t left = d->cov_pending_since[k] + SW_COV_GRACE_US - now;

		if (due < 0 || left < due)
			due = left < 0 ? 0 : left;
	}
	return due < 0 ? -1 : (int)((due + 999) / 1000);
}

/* verify's own links (vlinks.h) out of c: no alert, no journal line */
static void coverage_less_verify(struct sw_daemon *d, struct sw_coverage *c)
{
	size_t shown = c->n_links < SW_COV_MAX ? c->n_links : SW_COV_MAX, n = 0;

	sw_vlinks_prune(&d->vlinks, &d->host, sw_daemon_now_us(), sw_vlinks_proc_start);
	if (!d->vlinks.n)
		return;
	for (size_t i = 0; i < shown; i++) {
		const struct sw_link *l = NULL;

		for (size_t j = 0; j < d->host.n_links && !l; j++)
			if (!strcmp(d->host.links[j].name, c->links[i].name))
				l = &d->host.links[j];
		if (!l || !sw_vlinks_own(&d->vlinks, l))
			c->links[n++] = c->links[i];
	}
	c->n_links -= shown - n;
}

void sw_report_coverage(struct sw_daemon *d)
{
	static struct sw_coverage c;
	char keep[SW_COV_MAX][16];
	int64_t keep_since[SW_COV_MAX], now = real_us();
	size_t shown, n_keep = 0, n_now = 0;
	bool now_set[SW_COV_MAX] = { false };

	sw_coverage(&d->cfg, &d->host, &c);
	coverage_less_verify(d, &c);
	shown = c.n_links < SW_COV_MAX ? c.n_links : SW_COV_MAX;
	for (size_t i = 0; i < shown; i++) {
		bool known = false;
		int64_t since = now;
		struct sw_jw w;

		for (size_t k = 0; k < d->n_unguarded && !known; k++)
			known = !strcmp(d->unguarded[k], c.links[i].name);
		if (known) {
			now_set[i] = true;
			continue;
		}
		for (size_t k = 0; k < d->n_cov_pending; k++)
			if (!strcmp(d->cov_pending[k], c.links[i].name))
				since = d->cov_pending_since[k];
		if (now - since < SW_COV_GRACE_US) {
			/* wait: a link on its way to or from its bridge */
			snprintf(keep[n_keep], sizeof(keep[0]), "%s", c.links[i].name);
			keep_since[n_keep++] = since;
			continue;
		}
		now_set[i] = true;
		sw_alert(&d->alert, LOG_WARNING,
			 "event=unguarded ifname=%s kind=%s facing=\"%s\" state=unguarded "
			 "action=none (add it to [guard] interfaces)", c.links[i].name,
			 sw_link_kind_name(c.links[i].kind), c.links[i].facing);
		sw_journal_begin_us(&w, SW_JE_UNGUARDED, d->cfg.table, since);
		sw_jw_str(&w, "ifname", c.links[i].name);
		sw_jw_str(&w, "kind", sw_link_kind_name(c.links[i].kind));
		sw_jw_str(&w, "facing", c.links[i].facing);
		journal_add(d, &w);
	}
	for (size_t k = 0; k < d->n_unguarded; k++) {
		bool still = false;
		const struct sw_link *l = NULL;
		struct sw_jw w;

		for (size_t i = 0; i < shown && !still; i++)
			still = !strcmp(d->unguarded[k], c.links[i].name);
		if (still)
			continue;
		for (size_t i = 0; i < d->host.n_links && !l; i++)
			if (!strcmp(d->host.links[i].name, d->unguarded[k]))
				l = &d->host.links[i];
		sw_alert(&d->alert, LOG_WARNING, "event=unguarded ifname=%s state=%s", d->unguarded[k],
			 l ? "covered" : "gone");
		sw_journal_begin(&w, SW_JE_COVERED, d->cfg.table, time(NULL));
		sw_jw_str(&w, "ifname", d->unguarded[k]);
		sw_jw_str(&w, "state", l ? "covered" : "gone");
		journal_add(d, &w);
	}
	for (size_t i = 0; i < shown; i++)
		if (now_set[i])
			snprintf(d->unguarded[n_now++], sizeof(d->unguarded[0]), "%s", c.links[i].name);
	d->n_unguarded = n_now;
	memcpy(d->cov_pending, keep, sizeof(keep[0]) * n_keep);
	memcpy(d->cov_pending_since, keep_since, sizeof(keep_since[0]) * n_keep);
	d->n_cov_pending = n_keep;
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
	m.journal_errors = d->journal.errors;
	m.attempts_errors = d->attempts_errors;
	m.unguarded = d->n_unguarded;
	m.flows_on = d->flows_on;
	m.flows_logged = d->flows_logged;
	m.flows_dropped = d->flowtab.dropped;
	m.flows_lost = d->ctev.overruns;
	m.flows_open = d->flowtab.n;
	m.flows_untracked = d->flowtab.untracked;
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
