// SPDX-License-Identifier: GPL-2.0-or-later
/* request: the control socket's clients and the instance lock's (see
 * include/daemon/request.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "daemon/flowlog.h"
#include "daemon/owner.h"
#include "daemon/reload.h"
#include "daemon/report.h"
#include "daemon/ident.h"
#include "daemon/request.h"
#include "daemon/vlinks.h"
#include "lib/log.h"
#include "sync/bindtable.h"
#include "sync/netdev.h"
#include "sync/quarantine.h"
#include "sync/reconcile.h"

/* The reserve descriptor, taken again when it was given up. */
static void spare_take(struct sw_daemon *d)
{
	if (d->spare_fd < 0)
		d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* At the limit (err from accept on lfd): give up the spare descriptor to
 * make room (true), or there is none (false). */
static bool control_spare(struct sw_daemon *d, int lfd, int err)
{
	if (!d->fd_starved)
		sw_warn("cannot accept a client on %s: %s; serving it with the reserve descriptor",
			lfd == d->ctlfd ? d->control_path : "the instance lock", strerror(-err));
	d->fd_starved = true;
	if (d->spare_fd < 0)
		return false;
	close(d->spare_fd);
	d->spare_fd = -1;
	return true;
}

/* Not even the spare: the listeners sleep for SW_CTL_BACKOFF_MS. */
static void control_backoff(struct sw_daemon *d)
{
	spare_take(d);
	if (d->ctl_sleeping)
		return;
	sw_warn("no descriptor for a client, not even the reserve: the control socket "
		"sleeps for %d ms", SW_CTL_BACKOFF_MS);
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->ctlfd, NULL);
	if (d->lockfd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->lockfd, NULL);
	d->ctl_sleeping = true;
	d->ctl_wake_us = sw_daemon_now_us() + SW_CTL_BACKOFF_MS * 1000;
}

void sw_request_wake(struct sw_daemon *d)
{
	if (!d->ctl_sleeping || sw_daemon_now_us() < d->ctl_wake_us)
		return;
	d->ctl_sleeping = false;
	if (d->ctlfd >= 0)
		sw_daemon_watch(d, d->ctlfd, SLOT_CONTROL);
	if (d->lockfd >= 0)
		sw_daemon_watch(d, d->lockfd, SLOT_LOCK);
	spare_take(d);
}

int sw_request_timeout(const struct sw_daemon *d, int64_t now)
{
	if (!d->ctl_sleeping)
		return -1;
	return sw_daemon_ms_until(d->ctl_wake_us, now);
}

void sw_request_lock(struct sw_daemon *d)
{
	int cfd = accept4(d->lockfd, NULL, NULL, SOCK_CLOEXEC);
	int err = cfd < 0 ? -errno : 0;

	if ((err == -EMFILE || err == -ENFILE) && control_spare(d, d->lockfd, err)) {
		cfd = accept4(d->lockfd, NULL, NULL, SOCK_CLOEXEC);
		err = cfd < 0 ? -errno : 0;
	}
	if (cfd >= 0)
		close(cfd);
	else if (err == -EMFILE || err == -ENFILE)
		control_backoff(d);
	spare_take(d);
}

void sw_request_accept(struct sw_daemon *d)
{
	struct sw_control_req req;
	int cfd = sw_control_accept(d->ctlfd, &req);
	bool spare = false;

	if ((cfd == -EMFILE || cfd == -ENFILE) && (spare = control_spare(d, d->ctlfd, cfd)))
		cfd = sw_control_accept(d->ctlfd, &req);
	if (cfd == -EMFILE || cfd == -ENFILE)
		control_backoff(d);
	if (cfd >= 0 && !spare && d->fd_starved) {
		sw_info("control socket: accepting clients again");
		d->fd_starved = false;
	}
	if (cfd >= 0)
		sw_request_serve(d, cfd, &req);
	/* the reserve again, once the client's descriptor is closed */
	spare_take(d);
}

void sw_request_status(const struct sw_daemon *d, pid_t pid, time_t now, char *rep, size_t len)
{
	uint64_t ids, jobs, api_errors, dropped;
	size_t n;

	sw_ident_stats(d, &ids, &jobs, &api_errors, &dropped);
	n = (size_t)snprintf(rep, len,
		 "ok\npid=%d\nuptime=%lld\nmode=%s\npaused=%s\nconfig=%s\ndrifts=%llu\n"
		 "repairs=%llu\nrepair_failures=%llu\nresyncs=%llu\nupdates=%llu\nenobufs=%u\n"
		 "blocked_logged=%llu\n"
		 "dns_names=%zu\ndns_failures=%llu\ndns_last_update_us=%lld\n"
		 "last_drift=%s\nlast_drift_at=%lld\n"
		 "journal_errors=%llu\njournal_error=%s\nattempts_errors=%llu\n"
		 "unguarded=%zu\n",
		 (int)pid, (long long)(now - d->started), d->mode,
		 d->paused ? "yes" : "no", d->config_path,
		 (unsigned long long)d->drifts, (unsigned long long)d->repairs,
		 (unsigned long long)d->repair_failures, (unsigned long long)d->resyncs,
		 (unsigned long long)d->updates, d->ev.enobufs,
		 (unsigned long long)d->blocked_seen,
		 d->resolver.n_names, (unsigned long long)d->resolver.failures,
		 (long long)d->resolver.last_push_us,
		 d->last_drift[0] ? d->last_drift : "none", (long long)d->last_drift_at,
		 (unsigned long long)d->journal.errors,
		 d->journal.failing ? strerror(-d->journal.last_err) : "none",
		 (unsigned long long)d->attempts_errors, d->n_unguarded);
	if (n < len)
		snprintf(rep + n, len - n, "identities=%llu\nidentity_lookups=%llu\n"
			 "identity_api_errors=%llu\nidentities_dropped=%llu\n",
			 (unsigned long long)ids, (unsigned long long)jobs,
			 (unsigned long long)api_errors, (unsigned long long)dropped);
}

/* remove: the tables taken away, the daemon paused until reload or
 * restart */
static int request_remove(struct sw_daemon *d, const struct sw_control_req *req, char *rep,
			  size_t len)
{
	char err[SW_ERRLEN];
	bool absent;
	int rc;

	rc = sw_remove(&d->nl, d->cfg.table, &absent, err, sizeof(err));
	if (!rc)
		rc = sw_netdev_remove(&d->nl, d->cfg.table, &absent, err, sizeof(err));
	if (!rc)
		rc = sw_bindtable_remove(&d->nl, d->cfg.table, &absent, err, sizeof(err));
	if (!rc) {
		sw_owner_twin_remove(d, d->cfg.table);
		d->paused = true;
		sw_report_removed(d);
	}
	snprintf(rep, len, "%s\nmessage=%s\n", rc ? "error" : "ok",
		 rc ? err : "table removed; sandwalld paused until reload or restart");
	return rc;
}

/* release: a quarantined source or link out of every quarantine set */
static int request_release(struct sw_daemon *d, const struct sw_control_req *req, char *rep,
			   size_t len)
{
	char err[SW_ERRLEN] = "";
	struct sw_release r;
	size_t n = 0;
	int rc;

	rc = sw_release_parse(req->target, &r, err, sizeof(err));
	if (!rc)
		rc = sw_quarantine_release(&d->nl, &d->cfg, NULL, &r, &n, err, sizeof(err));
	if (!rc)
		sw_report_release(d, r.text, n);
	if (rc)
		snprintf(rep, len, "error\nmessage=%s\n", err);
	else
		snprintf(rep, len, "ok\nmessage=%s %s\nreleased=%zu\n", r.text,
			 n ? "released" : "was not quarantined", n);
	return rc;
}

/* reset-connections: a run starts; every source's max_connections count
 * starts again */
static int request_reset_conns(struct sw_daemon *d, const struct sw_control_req *req, char *rep,
			       size_t len)
{
	char err[SW_ERRLEN] = "";
	size_t n = 0;
	int rc = sw_conns_reset(&d->nl, &d->cfg, &n, err, sizeof(err));

	if (rc) {
		sw_err("event=connections-reset result=failed reason=\"%s\"", err);
		snprintf(rep, len, "error\nmessage=%s\n", err);
	} else {
		if (n)
			sw_info("event=connections-reset sets=%zu uid=%lld pid=%lld", n,
				(long long)d->req_uid, (long long)d->req_pid);
		snprintf(rep, len, "ok\nmessage=%zu max_connections set(s) emptied\nsets=%zu\n", n, n);
	}
	return rc;
}

static int request_reload(struct sw_daemon *d, const struct sw_control_req *req, char *rep,
			  size_t len)
{
	char msg[SW_ERRLEN];
	int rc = sw_reload(d, req->accept_loss, msg, sizeof(msg));

	snprintf(rep, len, "%s\nmessage=%s\n", rc ? "error" : "ok", msg);
	return rc;
}

/* flows: the open flows written out now (flows-open.json) */
static int request_flows(struct sw_daemon *d, const struct sw_control_req *req, char *rep,
			 size_t len)
{
	bool on = sw_flowlog_dump_now(d);

	snprintf(rep, len, "ok\nmessage=%s\n", on ? "open flows written" :
		 "the network log is off ([log] flows = no)");
	return 0;
}

/* verify-link: a live `sandwall verify` (the caller) is about to create
 * the throwaway link target; the coverage leaves it out while that verify
 * runs (vlinks.h). Nothing in the kernel changes. */
static int request_verify_link(struct sw_daemon *d, const struct sw_control_req *req, char *rep,
			       size_t len)
{
	static const char *const why[] = {
		[EINVAL] = "not a link name, or no caller to tie it to",
		[EEXIST] = "a link of that name exists: it is reported as any other",
		[EBUSY] = "another live verify announced that name",
		[ENOSPC] = "too many announced links",
	};
	uint64_t start = 0;
	int64_t now = sw_daemon_now_us();
	int rc = sw_vlinks_proc_start(d->req_pid, &start);

	if (!rc) {
		sw_vlinks_prune(&d->vlinks, &d->host, now, sw_vlinks_proc_start);
		rc = sw_vlinks_add(&d->vlinks, &d->host, req->target,
				   req->target[0] && if_nametoindex(req->target) != 0, d->req_pid,
				   start, now);
	} else {
		rc = -EINVAL;
	}
	if (rc) {
		const char *w = -rc < (int)(sizeof(why) / sizeof(why[0])) && why[-rc] ? why[-rc] :
				strerror(-rc);

		sw_info("event=verify-link ifname=%.15s pid=%lld result=refused reason=\"%s\"",
			req->target, (long long)d->req_pid, w);
		snprintf(rep, len, "error\nmessage=%s\n", w);
		return rc;
	}
	sw_info("event=verify-link ifname=%s pid=%lld result=left-out-of-coverage", req->target,
		(long long)d->req_pid);
	snprintf(rep, len, "ok\nmessage=%s is left out of the coverage while pid %lld runs\n",
		 req->target, (long long)d->req_pid);
	return 0;
}

static int request_status(struct sw_daemon *d, const struct sw_control_req *req, char *rep,
			  size_t len)
{
	sw_request_status(d, getpid(), time(NULL), rep, len);
	return 0;
}

/* The requests sandwalld serves (sandwalld(8) CONTROL SOCKET): a verb,
 * whether it changes something (those are "accepted" when they start and
 * answered when done), what it does. */
static const struct request_verb {
	const char *verb;
	bool mutates;
	int (*run)(struct sw_daemon *d, const struct sw_control_req *req, char *rep, size_t len);
} verbs[] = {
	{ "status", false, request_status },
	{ "flows", false, request_flows },
	{ "reload", true, request_reload },
	{ "remove", true, request_remove },
	{ "release", true, request_release },
	{ "reset-connections", true, request_reset_conns },
	{ "verify-link", false, request_verify_link },
};

static const struct request_verb *verb_of(const char *verb)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].verb, verb))
			return &verbs[i];
	return NULL;
}

bool sw_request_mutates(const char *verb)
{
	const struct request_verb *v = verb_of(verb);

	return v && v->mutates;
}

int sw_request_run(struct sw_daemon *d, const struct sw_control_req *req, char *rep, size_t len)
{
	const struct request_verb *v = verb_of(req->verb);

	if (!v) {
		snprintf(rep, len, "error\nmessage=unknown request '%.32s'\n", req->verb);
		return 0;
	}
	return v->run(d, req, rep, len);
}

void sw_request_serve(struct sw_daemon *d, int cfd, const struct sw_control_req *r)
{
	char rep[SW_CONTROL_REPMAX];
	struct sw_control_req req = *r;
	int rc;

	/* a client that gave up (its deadline passed, it hung up) is gone:
	 * what it asked for is not done behind its back */
	if ((rc = sw_control_live(cfd, &req, sw_control_now_ms()))) {
		sw_alert(&d->alert, LOG_WARNING, "event=control-expired request=%s reason=%s "
			 "action=not-executed", req.verb, rc == -ETIME ? "deadline" : "client-gone");
		snprintf(rep, sizeof(rep), "error\nmessage=request expired before it ran; nothing "
			 "was done\n");
		sw_control_reply(cfd, rep);
		return;
	}
	{
		struct ucred uc;
		socklen_t ul = sizeof(uc);

		/* who asks: the journal names them */
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) == 0) {
			d->req_uid = uc.uid;
			d->req_pid = uc.pid;
		} else {
			d->req_uid = d->req_pid = -1;
		}
	}
	if (sw_request_mutates(req.verb))
		sw_control_accepted(cfd, &req);
	rc = sw_request_run(d, &req, rep, sizeof(rep));
	if (sw_control_reply(cfd, rep) && sw_request_mutates(req.verb))
		sw_warn("the client of '%s' left before the answer; the request was done: %s",
			req.verb, rc ? "it failed" : "it succeeded");
}
