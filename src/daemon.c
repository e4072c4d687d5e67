// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon: keep the boundary in place (see include/daemon.h).
 *
 * Prevent first: where the kernel has NFT_TABLE_F_OWNER and _PERSIST, the
 * table belongs to our long-lived socket (others get EPERM, `nft flush
 * ruleset` skips it) and outlives us. Repair second: every change to our
 * table by another process is diffed and repaired in one batch, read back,
 * and reported with the pid and name the kernel gives in NEWGEN. */
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <linux/netfilter/nf_tables.h>

#include "control.h"
#include "daemon.h"
#include "diff.h"
#include "diff.h"
#include "journal.h"
#include "log.h"
#include "metrics.h"
#include "notify.h"
#include "observe.h"
#include "reconcile.h"
#include "ruleset.h"

#define ALERTS_PER_SEC   20
#define RETRY_MS         100

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void arm(int fd, unsigned first_ms, unsigned every_ms)
{
	struct itimerspec it = {
		.it_value = { first_ms / 1000, (long)(first_ms % 1000) * 1000000 },
		.it_interval = { every_ms / 1000, (long)(every_ms % 1000) * 1000000 },
	};

	timerfd_settime(fd, 0, &it, NULL);
}

static void arm_resync(struct sw_daemon *d)
{
	unsigned ms = d->cfg.resync_interval * 1000;

	arm(d->tfd, d->retry ? RETRY_MS : ms, ms);
}

/* One JSON line in the journal: {"time":..,"event":..,"table":..,<extra>} */
static void journal(struct sw_daemon *d, const char *event, const char *extra_fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void journal(struct sw_daemon *d, const char *event, const char *extra_fmt, ...)
{
	char line[1536], extra[1024] = "", when[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	if (!d->cfg.journal_path[0])
		return;
	va_start(ap, extra_fmt);
	vsnprintf(extra, sizeof(extra), extra_fmt, ap);
	va_end(ap);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(line, sizeof(line), "{\"time\":\"%s\",\"unix\":%lld,\"event\":\"%s\","
		 "\"table\":\"inet/%s\"%s%s}", when, (long long)now, event, d->cfg.table,
		 extra[0] ? "," : "", extra);
	if (sw_journal_add(&d->journal, line))
		sw_debug("cannot write the journal %s", d->cfg.journal_path);
}

/* A string made safe for the journal's JSON (quotes and controls dropped). */
static const char *js(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s && *s && o + 1 < len; s++)
		if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			buf[o++] = *s;
	buf[o] = '\0';
	return buf;
}

/* The Prometheus textfile, from the kernel's counters and our own. */
static void write_metrics(struct sw_daemon *d, bool up)
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

/* desired = f(config, host), with our ownership flags */
static int build_want(struct sw_daemon *d, struct sw_model *m)
{
	char err[SW_ERRLEN];
	int rc = sw_desired(&d->cfg, &d->host, m, err, sizeof(err));

	if (rc)
		sw_err("%s", err);
	else
		m->table_flags = d->own_flags;
	return rc;
}

static void status_notify(struct sw_daemon *d)
{
	char s[256];

	snprintf(s, sizeof(s), "STATUS=%s table inet %s, mode %s, %llu drift(s), %llu repair(s)",
		 d->paused ? "paused:" : "guarding", d->cfg.table, d->mode,
		 (unsigned long long)d->drifts, (unsigned long long)d->repairs);
	sw_notify(s);
}

/* Compare with the kernel and repair; report as the caller says. */
static int reconcile(struct sw_daemon *d, const char *why, const char *change, uint32_t pid,
		     const char *comm, int64_t t0, uint32_t deleted_genid)
{
	/* a deleted table is re-created without a dump first */
	struct sw_hint hint = { .table_deleted = deleted_genid != 0, .genid = deleted_genid };
	char err[SW_ERRLEN], summary[256];
	struct sw_diff diff;
	bool repaired = false;
	int rc;

	if (d->paused)
		return 0;
	rc = sw_reconcile_hint(&d->nl, &d->want, &hint, &diff, &repaired, err, sizeof(err));
	if (diff.n == 0 && !rc && !repaired) {
		sw_diff_free(&diff);
		if (d->retry) {
			d->retry = false;
			arm_resync(d);
		}
		return 0;
	}
	sw_diff_summary(&diff, summary, sizeof(summary));
	/* key="value" lines: no double quotes inside a value */
	for (char *q = summary; (q = strchr(q, '"')); )
		*q = '\'';
	bool drift = !strcmp(why, "drift") || !strcmp(why, "resync");

	if (drift)
		d->drifts++;
	if (rc) {
		d->repair_failures++;
		d->retry = true;
		arm_resync(d);
		sw_alert(&d->alert, LOG_CRIT,
			 "event=repair-failed table=inet/%s cause=%s change=\"%s\" error=\"%s\"",
			 d->cfg.table, why, change ? change : summary, err);
		{
			char a[256], b[256], c[64];

			journal(d, "repair-failed", "\"cause\":\"%s\",\"change\":\"%s\",\"pid\":%u,"
				"\"comm\":\"%s\",\"error\":\"%s\"", why,
				js(change ? change : summary, a, sizeof(a)), pid,
				js(comm, c, sizeof(c)), js(err, b, sizeof(b)));
		}
	} else {
		/* restored: the repair batch was committed; verified: read back */
		int64_t us = hint.committed_us - t0, vus = now_us() - t0;

		d->repairs++;
		d->last_repair_us = us;
		if (drift) {
			char a[256], c[64];

			journal(d, "drift", "\"change\":\"%s\",\"pid\":%u,\"comm\":\"%s\","
				"\"found_by\":\"%s\",\"restored_us\":%lld,\"verified_us\":%lld,"
				"\"result\":\"repaired\"",
				js(change ? change : summary, a, sizeof(a)), pid,
				js(comm && *comm ? comm : "?", c, sizeof(c)), why, (long long)us,
				(long long)vus);
		}
		if (d->retry) {
			d->retry = false;
			arm_resync(d);
		}
		if (!drift)
			sw_alert(&d->alert, LOG_INFO,
				 "event=%s table=inet/%s changes=%zu first=\"%s\" applied_us=%lld",
				 !strcmp(why, "update") ? "sets-updated" : !strcmp(why, "retry") ?
				 "repaired-after-retry" : "applied", d->cfg.table,
				 diff.n, summary, (long long)us);
		else
			sw_alert(&d->alert, LOG_WARNING,
				 "event=drift table=inet/%s change=\"%s\" pid=%u comm=%s found_by=%s "
				 "restored_us=%lld verified_us=%lld",
				 d->cfg.table, change ? change : summary, pid,
				 comm && *comm ? comm : "?", why, (long long)us, (long long)vus);
	}
	if (drift) {
		snprintf(d->last_drift, sizeof(d->last_drift), "%.180s by pid %u (%.31s)",
			 change ? change : summary, pid, comm && *comm ? comm : "?");
		d->last_drift_at = time(NULL);
	}
	sw_diff_free(&diff);
	status_notify(d);
	write_metrics(d, true);
	return rc;
}

struct drift {
	bool seen;
	unsigned n;             /* transactions by others in this read */
	struct sw_nft_txn txn;
};

static void on_txn(const struct sw_nft_txn *t, void *data)
{
	struct drift *dr = data;

	if (t->pid == (uint32_t)getpid())
		return;         /* our own batch */
	if (!dr->seen)
		dr->txn = *t;   /* the first one names the culprit */
	dr->seen = true;
	dr->n++;
}

/* Log what changed on the host that matters to us. */
static void host_changes(struct sw_daemon *d, const struct sw_host *old, const struct sw_host *new)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct sw_host *a = pass ? old : new, *b = pass ? new : old;

		for (size_t i = 0; i < a->n_links; i++) {
			bool found = false;

			if (!sw_ruleset_guarded(&d->cfg, &a->links[i]) || !a->links[i].is_bridge)
				continue;
			for (size_t j = 0; j < b->n_links && !found; j++)
				found = !strcmp(a->links[i].name, b->links[j].name);
			if (!found)
				sw_alert(&d->alert, LOG_NOTICE, "event=bridge action=%s ifname=%s",
					 pass ? "del" : "add", a->links[i].name);
		}
	}
	/* gateways: one replaced by another is a change */
	{
		char added[SW_MAX_GATEWAYS][SW_ADDR_STRLEN], removed[SW_MAX_GATEWAYS][SW_ADDR_STRLEN];
		size_t na = 0, nr = 0;

		for (int pass = 0; pass < 2; pass++) {
			const struct sw_host *a = pass ? old : new, *b = pass ? new : old;

			for (size_t i = 0; i < a->n_gateways; i++) {
				bool found = false;

				for (size_t j = 0; j < b->n_gateways && !found; j++)
					found = sw_prefix_equal(&a->gateways[i].addr, &b->gateways[j].addr);
				if (!found && pass)
					sw_prefix_format(&a->gateways[i].addr, removed[nr++], SW_ADDR_STRLEN);
				else if (!found)
					sw_prefix_format(&a->gateways[i].addr, added[na++], SW_ADDR_STRLEN);
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
}

static int twin_sync(struct sw_daemon *d);
static void twin_remove(struct sw_daemon *d, const char *table);

/* Links, addresses or routes moved: rebuild the desired sets. */
/* Rebuild the desired model from the host. With only_if_changed (a link,
 * address or route event), the kernel is compared only when the desired
 * sets moved: kernel drift comes in as nftables events, and the resync
 * timer is the backstop, so a bridge port changing state costs no dump. */
static void host_update(struct sw_daemon *d, const char *why, bool only_if_changed)
{
	struct sw_host *old = &d->host_prev;
	struct sw_model m;
	struct sw_diff diff;
	bool changed = true;
	int64_t t0 = now_us();

	*old = d->host;
	if (build_want(d, &m)) {
		d->host = *old;
		d->retry = true;
		arm_resync(d);
		return;
	}
	host_changes(d, old, &d->host);
	/* a different desired model means the host moved (or the resolvers
	 * changed): updating the sets is no drift */
	if (sw_diff(&m, &d->want, &diff) == 0) {
		changed = diff.n > 0;
		sw_diff_free(&diff);
	}
	sw_model_free(&d->want);
	d->want = m;
	if (!changed && only_if_changed)
		return;
	if (changed) {
		why = "update";
		d->updates++;
		twin_sync(d);
	}
	reconcile(d, why, NULL, 0, NULL, t0, 0);
}

static void ensure_owned(struct sw_daemon *d);

static void full_resync(struct sw_daemon *d, const char *why)
{
	/* after a failed repair, the retry is no new drift */
	if (d->retry)
		why = "retry";
	d->resyncs++;
	host_update(d, why, false);
	ensure_owned(d);
}

static void handle_nft(struct sw_daemon *d)
{
	struct drift dr = { 0 };
	int64_t t0 = now_us();
	int rc = sw_events_read_nft(&d->ev, d->cfg.table, on_txn, &dr);

	if (rc == -ENOBUFS) {
		sw_alert(&d->alert, LOG_WARNING,
			 "event=enobufs source=nftables count=%u rcvbuf=%d action=resync",
			 d->ev.enobufs, d->ev.nft_rcvbuf);
		full_resync(d, "resync");
		return;
	}
	if (rc < 0) {
		sw_err("nftables events: %s; resubscribing", strerror(-rc));
		if (sw_events_reopen(&d->ev) == 0) {
			epoll_ctl(d->epfd, EPOLL_CTL_ADD, sw_events_nft_fd(&d->ev),
				  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = 1 });
			epoll_ctl(d->epfd, EPOLL_CTL_ADD, sw_events_rt_fd(&d->ev),
				  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = 2 });
		}
		full_resync(d, "resync");
		return;
	}
	if (dr.seen)
		reconcile(d, "drift", dr.txn.change, dr.txn.pid, dr.txn.comm, t0,
			  dr.txn.table_deleted && dr.n == 1 ? dr.txn.genid : 0);
}

/* event=blocked, at most one line a second per source and destination */
static void on_blocked(const struct sw_blocked *b, void *data)
{
	struct sw_daemon *d = data;
	struct sw_blocked_slot *slot;
	uint8_t key[36] = { 0 };
	uint32_t h = 2166136261u;
	char what[160], sup[32] = "";
	const struct sw_link *l = sw_host_link(&d->host, (int)b->iif);
	int64_t now = now_us();

	d->blocked_seen++;
	key[0] = (uint8_t)b->family;
	memcpy(key + 2, b->src, 16);
	memcpy(key + 18, b->dst, 16);
	for (size_t i = 0; i < sizeof(key); i++)
		h = (h ^ key[i]) * 16777619u;
	slot = &d->blocked[h % SW_BLOCKED_SLOTS];
	if (!memcmp(slot->key, key, sizeof(key)) && now - slot->last_us < 1000000) {
		slot->suppressed++;
		return;
	}
	if (!memcmp(slot->key, key, sizeof(key)) && slot->suppressed)
		snprintf(sup, sizeof(sup), " suppressed=%u", slot->suppressed);
	memcpy(slot->key, key, sizeof(key));
	slot->last_us = now;
	slot->suppressed = 0;
	sw_blocked_format(b, what, sizeof(what));
	sw_alert(&d->alert_blocked, LOG_WARNING, "event=blocked category=%s %s iif=%s%s", b->category,
		 what, l ? l->name : "?", sup);
}

static void handle_nflog(struct sw_daemon *d)
{
	int rc = sw_nflog_read(&d->nflog, on_blocked, d);

	if (rc < 0)
		sw_err("blocked-attempt log: %s", strerror(-rc));
}

/* Bind the NFLOG group when [log] blocked is on (another reader may hold it). */
static void nflog_setup(struct sw_daemon *d)
{
	int rc;

	if (d->nflog.sock && (!d->cfg.log_blocked || d->nflog.group != d->cfg.log_group)) {
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, sw_nflog_fd(&d->nflog), NULL);
		sw_nflog_close(&d->nflog);
	}
	if (!d->cfg.log_blocked || d->nflog.sock)
		return;
	rc = sw_nflog_open(&d->nflog, d->cfg.log_group);
	if (rc) {
		sw_warn("cannot read NFLOG group %u (blocked attempts will not be logged): %s",
			d->cfg.log_group, strerror(-rc));
		return;
	}
	epoll_ctl(d->epfd, EPOLL_CTL_ADD, sw_nflog_fd(&d->nflog),
		  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = 7 });
}

static void handle_rt(struct sw_daemon *d)
{
	bool changed = false;
	int rc = sw_events_read_rt(&d->ev, &changed);

	if (rc == -ENOBUFS)
		sw_alert(&d->alert, LOG_WARNING,
			 "event=enobufs source=rtnetlink count=%u rcvbuf=%d action=resync",
			 d->ev.enobufs, d->ev.rt_rcvbuf);
	else if (rc < 0)
		sw_err("rtnetlink events: %s", strerror(-rc));
	/* lost events: compare the kernel too, as on the resync timer */
	if (changed || rc < 0)
		host_update(d, "resync", rc >= 0);
}

static int reload(struct sw_daemon *d, char *msg, size_t len)
{
	struct sw_config *old = &d->cfg_prev;
	char err[SW_ERRLEN], oldtable[SW_TABLE_MAXLEN];
	struct sw_model m;
	int rc;

	*old = d->cfg;
	rc = sw_config_load(d->config_path, &d->cfg, err, sizeof(err));
	if (rc) {
		d->cfg = *old;
		sw_alert(&d->alert, LOG_ERR, "event=reload-failed error=\"%s\" action=kept-rules", err);
		snprintf(msg, len, "%s", err);
		return rc;
	}
	if ((rc = build_want(d, &m))) {
		d->cfg = *old;
		snprintf(msg, len, "cannot build the ruleset");
		return rc;
	}
	if (d->cfg.log_facility != old->log_facility)
		sw_log_init("sandwalld", d->foreground, true, d->cfg.log_facility);
	snprintf(oldtable, sizeof(oldtable), "%s", old->table);
	sw_model_free(&d->want);
	d->want = m;
	d->paused = false;
	if (strcmp(oldtable, d->cfg.table)) {
		bool absent;

		sw_remove(&d->nl, oldtable, &absent, err, sizeof(err));
		twin_remove(d, oldtable);
	}
	twin_sync(d);
	rc = reconcile(d, "reload", "reload", (uint32_t)getpid(), "sandwalld", now_us(), 0);
	ensure_owned(d);
	nflog_setup(d);
	sw_alert(&d->alert, LOG_NOTICE, "event=reload config=%s result=%s", d->config_path,
		 rc ? "failed" : "ok");
	snprintf(msg, len, "%s", rc ? "reloaded, but the repair failed" : "reloaded and in sync");
	arm_resync(d);
	return rc;
}

static void handle_control(struct sw_daemon *d)
{
	char req[SW_CONTROL_REQMAX], rep[SW_CONTROL_REPMAX], msg[SW_ERRLEN];
	int cfd = sw_control_accept(d->ctlfd, req, sizeof(req));
	int rc;

	if (cfd < 0)
		return;
	if (!strcmp(req, "reload")) {
		rc = reload(d, msg, sizeof(msg));
		snprintf(rep, sizeof(rep), "%s\nmessage=%s\n", rc ? "error" : "ok", msg);
	} else if (!strcmp(req, "remove")) {
		char err[SW_ERRLEN];
		bool absent;

		rc = sw_remove(&d->nl, d->cfg.table, &absent, err, sizeof(err));
		if (!rc) {
			twin_remove(d, d->cfg.table);
			d->paused = true;
			sw_alert(&d->alert, LOG_WARNING,
				 "event=removed table=inet/%s action=paused-until-reload", d->cfg.table);
			journal(d, "removed", "\"by\":\"sandwall remove\"");
			write_metrics(d, false);
			status_notify(d);
		}
		snprintf(rep, sizeof(rep), "%s\nmessage=%s\n", rc ? "error" : "ok",
			 rc ? err : "table removed; sandwalld paused until reload or restart");
	} else if (!strcmp(req, "status")) {
		snprintf(rep, sizeof(rep),
			 "ok\npid=%d\nuptime=%lld\nmode=%s\npaused=%s\nconfig=%s\ndrifts=%llu\n"
			 "repairs=%llu\nrepair_failures=%llu\nresyncs=%llu\nupdates=%llu\nenobufs=%u\n"
			 "blocked_logged=%llu\n"
			 "last_drift=%s\nlast_drift_at=%lld\n",
			 (int)getpid(), (long long)(time(NULL) - d->started), d->mode,
			 d->paused ? "yes" : "no", d->config_path,
			 (unsigned long long)d->drifts, (unsigned long long)d->repairs,
			 (unsigned long long)d->repair_failures, (unsigned long long)d->resyncs,
			 (unsigned long long)d->updates, d->ev.enobufs,
			 (unsigned long long)d->blocked_seen,
			 d->last_drift[0] ? d->last_drift : "none", (long long)d->last_drift_at);
	} else {
		snprintf(rep, sizeof(rep), "error\nmessage=unknown request '%.32s'\n", req);
	}
	sw_control_reply(cfd, rep);
}

/* Mode twin: bring table <table>_twin (owned by our socket: nobody else
 * can change or delete it, `nft flush ruleset` skips it, and it dies with
 * us) to the desired blocks. Only we change it, so this runs when the
 * desired model moves, not on every drift. */
static int twin_sync(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	struct sw_model m;
	struct sw_diff diff;
	bool repaired;
	int rc;

	if (!d->twin || d->paused)
		return 0;
	rc = sw_twin_build(&d->cfg, &d->host, NFT_TABLE_F_OWNER, &m, err, sizeof(err));
	if (!rc) {
		rc = sw_reconcile(&d->nl, &m, &diff, &repaired, err, sizeof(err));
		sw_diff_free(&diff);
		sw_model_free(&m);
	}
	if (rc)
		sw_alert(&d->alert, LOG_ERR, "event=twin-failed table=inet/%s" SW_TWIN_SUFFIX
			 " error=\"%s\"", d->cfg.table, err);
	return rc;
}

/* Delete our twin (after `sandwall remove`, or when the table is renamed). */
static void twin_remove(struct sw_daemon *d, const char *table)
{
	char err[SW_ERRLEN], name[SW_NAME_MAX + sizeof(SW_TWIN_SUFFIX)];
	bool absent;

	if (d->twin && sw_twin_name(table, name, sizeof(name)) == 0 &&
	    sw_remove(&d->nl, name, &absent, err, sizeof(err)))
		sw_warn("%s", err);
}

/* Take the table: owner+persist where the kernel has them, adopting an
 * orphaned table; else (owner without persist, kernels before 6.9) an
 * unowned table plus an owned twin; otherwise watch and repair only. */
static int take_table(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	struct sw_model have;
	struct sw_diff diff;
	/* the main table's flags per try; TWIN: flags 0 and an owned twin */
	enum { TWIN = 1u << 31 };
	uint32_t tries[3];
	int n = 0, rc;

	if (d->cfg.owner == SW_OWNER_AUTO || d->cfg.owner == SW_OWNER_YES)
		tries[n++] = NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST;
	if (d->cfg.owner == SW_OWNER_YES)
		tries[n++] = NFT_TABLE_F_OWNER;     /* asked for: even without persist */
	if (d->cfg.owner == SW_OWNER_AUTO || d->cfg.owner == SW_OWNER_TWIN)
		tries[n++] = TWIN;
	if (d->cfg.owner != SW_OWNER_YES)
		tries[n++] = 0;

	for (int i = 0; i < n; i++) {
		if (tries[i] == TWIN) {
			d->own_flags = d->want.table_flags = 0;
			d->mode = "twin";
			d->twin = true;
			if ((rc = sw_apply(&d->nl, &d->want, err, sizeof(err))))
				break;
			if ((rc = twin_sync(d)) == 0)
				return 0;
			/* the kernel has no owner flag: watch the table that is in */
			d->twin = false;
			d->mode = "watch";
			sw_info("no owned twin table (%s): mode watch", strerror(-rc));
			return 0;
		}
		d->own_flags = tries[i];
		d->want.table_flags = tries[i];
		d->mode = tries[i] == 0 ? "watch" : tries[i] & NFT_TABLE_F_PERSIST ? "owner+persist" : "owner";
		/* adopt an identical orphan without touching its counters */
		if (tries[i] && sw_observe(&d->nl, d->cfg.table, &have) == 0) {
			bool orphan = have.has_table && (have.table_flags & NFT_TABLE_F_PERSIST) &&
				      !(have.table_flags & NFT_TABLE_F_OWNER);

			if (orphan && sw_diff(&d->want, &have, &diff) == 0) {
				if (diff.n == 0 &&
				    sw_set_table_flags(&d->nl, d->cfg.table, tries[i], err, sizeof(err)) == 0) {
					sw_diff_free(&diff);
					sw_model_free(&have);
					sw_info("adopted the existing table inet %s (mode %s)", d->cfg.table, d->mode);
					return 0;
				}
				sw_diff_free(&diff);
			}
			sw_model_free(&have);
		}
		rc = sw_apply(&d->nl, &d->want, err, sizeof(err));
		if (rc == 0)
			return 0;
		if (rc != -EOPNOTSUPP && rc != -EINVAL)
			break;
		sw_info("the kernel refused table flags 0x%x: %s", tries[i], err);
	}
	if (n == 0 || rc == 0)
		return rc;
	sw_err("%s", err);
	return rc;
}

/* The table must stay ours: after `sandwall remove` + a direct apply, or
 * any other way it lost its owner, take it back. */
static void ensure_owned(struct sw_daemon *d)
{
	bool present = false;
	uint32_t flags = 0;

	if (!d->own_flags || d->paused ||
	    sw_observe_table(&d->nl, d->cfg.table, &present, &flags) || !present ||
	    (flags & NFT_TABLE_F_OWNER))
		return;
	if (take_table(d) == 0)
		sw_alert(&d->alert, LOG_NOTICE, "event=owner action=retaken table=inet/%s mode=%s",
			 d->cfg.table, d->mode);
}

static int setup(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	sigset_t mask;
	uint64_t wd;
	int rc;

	d->epfd = d->sigfd = d->tfd = d->wdfd = d->ctlfd = -1;
	d->started = time(NULL);
	rc = sw_config_load(d->config_path, &d->cfg, err, sizeof(err));
	if (rc) {
		sw_err("%s", err);
		return rc;
	}
	sw_alert_init(&d->alert, ALERTS_PER_SEC, "events");
	sw_alert_init(&d->alert_blocked, ALERTS_PER_SEC, "blocked");
	if (d->cfg.journal_path[0] && (rc = sw_journal_open(&d->journal, d->cfg.journal_path)))
		sw_warn("cannot read the journal %s: %s", d->cfg.journal_path, strerror(-rc));
	/* subscribe before the first dump, so no change falls in between */
	if ((rc = sw_events_open(&d->ev))) {
		sw_err("cannot subscribe to netlink events: %s", strerror(-rc));
		return rc;
	}
	if ((rc = sw_nl_open(&d->nl))) {
		sw_err("cannot open the netfilter netlink socket: %s", strerror(-rc));
		return rc;
	}
	if ((rc = build_want(d, &d->want)))
		return rc;
	if ((rc = take_table(d)))
		return rc;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->sigfd < 0 || d->tfd < 0 || d->epfd < 0) {
		rc = -errno;
		sw_err("cannot set up the event loop: %s", strerror(errno));
		return rc;
	}
	d->ctlfd = sw_control_listen(d->control_path);
	if (d->ctlfd < 0)
		sw_warn("no control socket at %s: %s (the CLI cannot reach the daemon)",
			d->control_path, strerror(-d->ctlfd));
	arm_resync(d);
	nflog_setup(d);
	if ((wd = sw_notify_watchdog_usec())) {
		d->wdfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (d->wdfd >= 0)
			arm(d->wdfd, (unsigned)(wd / 2000), (unsigned)(wd / 2000));
	}
	struct { int fd; uint32_t id; } fds[] = {
		{ sw_events_nft_fd(&d->ev), 1 }, { sw_events_rt_fd(&d->ev), 2 },
		{ d->sigfd, 3 }, { d->tfd, 4 }, { d->wdfd, 5 }, { d->ctlfd, 6 },
	};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = fds[i].id };

		if (fds[i].fd >= 0 && epoll_ctl(d->epfd, EPOLL_CTL_ADD, fds[i].fd, &e) < 0) {
			rc = -errno;
			sw_err("epoll: %s", strerror(errno));
			return rc;
		}
	}
	return 0;
}

static void teardown(struct sw_daemon *d)
{
	int fds[] = { d->epfd, d->sigfd, d->tfd, d->wdfd, d->ctlfd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (d->ctlfd >= 0)
		unlink(d->control_path);
	sw_events_close(&d->ev);
	if (d->nflog.sock)
		sw_nflog_close(&d->nflog);
	/* closing the owner socket leaves a persist table in place */
	if (d->nl.rbuf)
		sw_nl_close(&d->nl);
	sw_model_free(&d->want);
	sw_journal_close(&d->journal);
}

int sw_daemon_run(struct sw_daemon *d)
{
	int rc = setup(d);

	if (rc) {
		teardown(d);
		return 2;
	}
	rc = 0;
	sw_alert(&d->alert, LOG_NOTICE,
		 "event=start table=inet/%s mode=%s config=%s rules=%zu sets=%zu",
		 d->cfg.table, d->mode, d->config_path, d->want.n_rules, d->want.n_sets);
	sw_notify("READY=1");
	status_notify(d);
	journal(d, "start", "\"mode\":\"%s\",\"pid\":%d", d->mode, (int)getpid());
	write_metrics(d, true);

	while (!d->stop) {
		struct epoll_event evs[8];
		int n = epoll_wait(d->epfd, evs, 8, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sw_err("epoll_wait: %s", strerror(errno));
			rc = 2;
			break;
		}
		for (int i = 0; i < n; i++) {
			uint64_t ticks;

			switch (evs[i].data.u32) {
			case 1:
				handle_nft(d);
				break;
			case 2:
				handle_rt(d);
				break;
			case 3: {
				struct signalfd_siginfo si;

				while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
					char msg[SW_ERRLEN];

					if (si.ssi_signo == SIGHUP)
						reload(d, msg, sizeof(msg));
					else
						d->stop = true;
				}
				break;
			}
			case 4:
				if (read(d->tfd, &ticks, sizeof(ticks)) > 0) {
					full_resync(d, "resync");
					write_metrics(d, true);
				}
				break;
			case 5:
				if (read(d->wdfd, &ticks, sizeof(ticks)) > 0)
					sw_notify("WATCHDOG=1");
				break;
			case 6:
				handle_control(d);
				break;
			case 7:
				handle_nflog(d);
				break;
			}
		}
		sw_alert_flush(&d->alert);
		sw_alert_flush(&d->alert_blocked);
	}
	sw_notify("STOPPING=1");
	sw_alert(&d->alert, LOG_NOTICE, "event=stop table=inet/%s rules=left-in-place", d->cfg.table);
	journal(d, "stop", "\"rules\":\"left-in-place\"");
	write_metrics(d, false);
	teardown(d);
	return rc;
}
