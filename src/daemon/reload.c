// SPDX-License-Identifier: GPL-2.0-or-later
/* reload: the config read again and put in force (see
 * include/daemon/reload.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "core/config_check.h"
#include "daemon/blocklog.h"
#include "daemon/flowlog.h"
#include "daemon/hostnames.h"
#include "daemon/ident.h"
#include "daemon/owner.h"
#include "daemon/ident.h"
#include "daemon/reload.h"
#include "daemon/repair.h"
#include "daemon/report.h"
#include "daemon/track.h"
#include "lib/lock.h"
#include "lib/log.h"
#include "sync/reconcile.h"

/* A reload that changes only set elements (an entry of [allow] or
 * [block] destinations, say) goes in as deltas, as a host update does:
 * 0, or the caller takes the observed path (m still the caller's). */
static int reload_by_deltas(struct sw_daemon *d, struct sw_model *m)
{
	size_t changes;

	if (sw_repair_parents_sig(&d->cfg, &d->host) != d->parents_sig)
		return -ESTALE;
	return sw_track_by_deltas(d, m, &(struct sw_repair){ .cause = SW_CAUSE_RELOAD,
				  .pid = (uint32_t)getpid(), .comm = "sandwalld" },
				  sw_daemon_now_us(), &changes);
}

int sw_reload_allowed(struct sw_daemon *d, const struct sw_config *old, bool accept_loss,
		      int *newlock, char *err, size_t len)
{
	char who[16];
	uid_t uid;
	pid_t pid;
	int rc;

	*newlock = -1;
	if (!accept_loss && (rc = sw_config_loss(old, &d->cfg, err, len)))
		return rc;
	if (!strcmp(old->table, d->cfg.table))
		return 0;
	*newlock = sw_lock_table(d->cfg.table, &pid, &uid);
	if (*newlock == -EEXIST && uid != 0)
		*newlock = -1;          /* a squatter's name: as at start */
	else if (*newlock == -EEXIST)
		snprintf(err, len, "%s:%u: [nft] table = %s: another sandwalld (pid %s) guards that "
			 "table in this network namespace", d->cfg.path, d->cfg.table_line,
			 d->cfg.table, sw_daemon_pid_str(pid, who, sizeof(who)));
	else if (*newlock < 0)
		snprintf(err, len, "cannot take the lock of table inet %s: %s", d->cfg.table,
			 strerror(-*newlock));
	return *newlock < -1 ? *newlock : 0;
}

/* The journal and metrics paths follow the config, never silently: a
 * change is logged, and the journal is read again from its new place. */
static void reload_paths(struct sw_daemon *d, const struct sw_config *old)
{
	int rc;

	if (strcmp(old->metrics_path, d->cfg.metrics_path))
		sw_alert(&d->alert, LOG_WARNING, "event=state-path what=metrics from=%s to=%s",
			 old->metrics_path[0] ? old->metrics_path : "off",
			 d->cfg.metrics_path[0] ? d->cfg.metrics_path : "off");
	if (!strcmp(old->journal_path, d->cfg.journal_path))
		return;
	sw_alert(&d->alert, LOG_WARNING, "event=state-path what=journal from=%s to=%s",
		 old->journal_path[0] ? old->journal_path : "off",
		 d->cfg.journal_path[0] ? d->cfg.journal_path : "off");
	sw_journal_close(&d->journal);
	if (d->cfg.journal_path[0] && (rc = sw_journal_open(&d->journal, d->cfg.journal_path)))
		sw_warn("cannot read the journal %s: %s", d->cfg.journal_path, strerror(-rc));
}

/* cfg and cfg_prev trade places, each with its own arrays (a byte swap:
 * no copy that would share them, no temporary) */
static void swap_cfg(struct sw_daemon *d)
{
	unsigned char *a = (unsigned char *)&d->cfg, *b = (unsigned char *)&d->cfg_prev, t;

	for (size_t i = 0; i < sizeof(d->cfg); i++) {
		t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

int sw_reload(struct sw_daemon *d, bool accept_loss, char *msg, size_t len)
{
	struct sw_config *old = &d->cfg_prev;
	char err[SW_ERRLEN], oldtable[SW_TABLE_MAXLEN];
	struct sw_model m;
	int64_t t0 = sw_daemon_now_us(), t1, t2, t3;
	int rc, newlock = -1;

	swap_cfg(d);            /* the running config moves to cfg_prev, arrays and all */
	rc = sw_config_load(d->config_path, &d->cfg, err, sizeof(err));
	if (!rc)
		rc = sw_reload_allowed(d, old, accept_loss, &newlock, err, sizeof(err));
	t1 = sw_daemon_now_us();
	if (rc) {
		swap_cfg(d);
		sw_alert(&d->alert, LOG_ERR, "event=reload-failed error=\"%s\" action=kept-rules", err);
		snprintf(msg, len, "%s", err);
		return rc;
	}
	if (accept_loss && sw_config_loss(old, &d->cfg, err, sizeof(err)))
		sw_alert(&d->alert, LOG_WARNING, "event=reload-loss-accepted config=%s",
			 d->config_path);
	{
		struct sw_resolver prev = d->resolver;

		sw_hostnames_setup(d, &prev);
	}
	/* the host as the events keep it: a reload reads only the file */
	if ((rc = sw_repair_build_want(d, &m, true))) {
		struct sw_resolver prev = d->resolver;

		swap_cfg(d);
		sw_hostnames_setup(d, &prev);
		if (newlock >= 0)
			close(newlock);
		snprintf(msg, len, "cannot build the ruleset");
		return rc;
	}
	reload_paths(d, old);
	if (newlock >= 0) {
		/* the new table's lock replaces the old one's */
		if (d->lockfd >= 0) {
			epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->lockfd, NULL);
			close(d->lockfd);
		}
		d->lockfd = newlock;
		sw_daemon_watch(d, d->lockfd, SLOT_LOCK);
	}
	t2 = sw_daemon_now_us();
	if (d->cfg.log_facility != old->log_facility)
		sw_log_init("sandwalld", d->foreground, true, d->cfg.log_facility);
	snprintf(oldtable, sizeof(oldtable), "%s", old->table);
	/* the model of a bare host is built when a new link first needs it
	 * (sw_track_fast_ok): a reload of 10,000 entries does not wait for a
	 * second build */
	d->fast_base_stale = true;
	if (!strcmp(oldtable, d->cfg.table) && reload_by_deltas(d, &m) == 0) {
		rc = 0;
		sw_repair_netdev(d);    /* its copies of the changed sets */
	} else {
		sw_model_free(&d->want);
		d->want = m;
		d->paused = false;
		if (strcmp(oldtable, d->cfg.table)) {
			bool absent;

			sw_remove(&d->nl, oldtable, &absent, err, sizeof(err));
			sw_owner_twin_remove(d, oldtable);
		}
		sw_owner_twin_sync(d);
		rc = sw_repair_reconcile(d, SW_CAUSE_RELOAD, "reload", (uint32_t)getpid(),
					 "sandwalld", sw_daemon_now_us());
	}
	t3 = sw_daemon_now_us();
	sw_owner_ensure(d);
	sw_blocklog_setup(d);
	sw_flowlog_setup(d);
	sw_track_cgroup_setup(d);
	sw_ident_setup(d);
	sw_debug("reload: config %lld us, host and model %lld us, kernel %lld us, the rest %lld us",
		 (long long)(t1 - t0), (long long)(t2 - t1), (long long)(t3 - t2),
		 (long long)(sw_daemon_now_us() - t3));
	sw_report_coverage(d);
	sw_alert(&d->alert, LOG_NOTICE, "event=reload config=%s result=%s uid=%lld pid=%lld unguarded=%zu",
		 d->config_path, rc ? "failed" : "ok", (long long)d->req_uid, (long long)d->req_pid,
		 d->n_unguarded);
	sw_report_reload(d, rc);
	snprintf(msg, len, "%s", rc ? "reloaded, but the repair failed" : "reloaded and in sync");
	sw_repair_arm_resync(d);
	return rc;
}
