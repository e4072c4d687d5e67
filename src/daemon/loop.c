// SPDX-License-Identifier: GPL-2.0-or-later
/* loop: the epoll loop (see include/daemon/loop.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>

#include "daemon/blocklog.h"
#include "daemon/flowlog.h"
#include "daemon/hostnames.h"
#include "daemon/ident.h"
#include "daemon/loop.h"
#include "daemon/reload.h"
#include "daemon/repair.h"
#include "daemon/report.h"
#include "daemon/request.h"
#include "daemon/track.h"
#include "host/portread.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "sync/forget.h"
#include "sync/reconcile.h"

int sw_loop_timeout(const struct sw_daemon *d, int64_t now, int cov)
{
	if (d->forget_pending && !sw_forget_running(d->forget))
		return 0;
	if (!d->host_dirty)
		return cov;
	return sw_daemon_min_timeout(cov, sw_daemon_ms_until(d->update_due_us, now));
}

bool sw_loop_forget_due(const struct sw_daemon *d, bool idle, int64_t now)
{
	return d->forget_pending && !sw_forget_running(d->forget) &&
	       (idle || now - d->forget_since_us >= SW_FORGET_MAX_US);
}

/* The flows opened toward the sandboxes while the table was gone, when
 * sw_loop_forget_due says (so that a storm of tampers cannot put it off
 * for long). The walk runs on the worker (forget.h), so the next tamper's
 * repair does not wait for it; one at a time: a re-create meanwhile
 * starts another once it is done. Without a worker, in the loop. */
static void forget_tick(struct sw_daemon *d, bool idle)
{
	if (!sw_loop_forget_due(d, idle, sw_daemon_now_us()))
		return;
	d->forget_pending = false;
	if (d->forget && sw_forget_start(d->forget, &d->want) == 0)
		return;
	sw_reconcile_forget(&d->nl, &d->want);
}

/* The worker's walk is done: what it did (as sw_reconcile_forget says it). */
static void forget_done(struct sw_daemon *d)
{
	char table[SW_NAME_MAX];
	size_t n;
	int rc;

	if (sw_forget_collect(d->forget, &rc, &n, table, sizeof(table)) == 0)
		sw_reconcile_forget_report(table, rc, n);
}

/* HUP: reload; TERM, INT: stop (the rules stay) */
static void on_signals(struct sw_daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		char msg[SW_ERRLEN];

		/* who sent it: the journal names them */
		d->req_uid = si.ssi_uid;
		d->req_pid = si.ssi_pid;
		if (si.ssi_signo == SIGHUP)
			sw_reload(d, false, msg, sizeof(msg));
		else
			d->stop = true;
	}
}

/* One ready source, to its part. */
static void dispatch(struct sw_daemon *d, uint32_t slot)
{
	uint64_t ticks;

	switch (slot) {
	case SLOT_NFT:
		sw_track_nft(d);
		break;
	case SLOT_RT:
		sw_track_rt(d);
		break;
	case SLOT_SIGNAL:
		on_signals(d);
		break;
	case SLOT_RESYNC:
		if (read(d->tfd, &ticks, sizeof(ticks)) > 0) {
			sw_track_full_resync(d);
			sw_report_metrics(d, true);
		}
		break;
	case SLOT_WATCHDOG:
		if (read(d->wdfd, &ticks, sizeof(ticks)) > 0)
			sw_notify("WATCHDOG=1");
		break;
	case SLOT_CONTROL:
		sw_request_accept(d);
		break;
	case SLOT_NFLOG:
		sw_blocklog_read(d);
		break;
	case SLOT_CGROUP:
		sw_track_cgroup(d, false);
		break;
	case SLOT_DNS:
		sw_hostnames_read(d);
		break;
	case SLOT_DNS_TIMER:
		if (read(d->dnsfd, &ticks, sizeof(ticks)) > 0)
			sw_hostnames_tick(d);
		break;
	case SLOT_FORGET:
		forget_done(d);
		break;
	case SLOT_BIND: {
		int32_t ids[64];
		size_t n_ids;
		int got = sw_portbind_drain(&d->bind_ev, ids, 64, &n_ids);

		if (got)
			sw_repair_bindtable(d, ids, n_ids, got == 2);
		break;
	}
	case SLOT_LOCK:
		sw_request_lock(d);
		break;
	case SLOT_CT:
		sw_flowlog_read(d);
		break;
	case SLOT_CT_TIMER:
		sw_flowlog_tick(d);
		break;
	case SLOT_IDENT:
		sw_ident_read(d);
		break;
	case SLOT_NAMES:
		sw_flowlog_names_read(d);
		break;
	}
}

int sw_loop_run(struct sw_daemon *d)
{
	int rc = 0;

	/* the start line before READY: whoever waits for READY finds it */
	sw_report_start(d);
	sw_notify("READY=1");
	sw_report_coverage(d);
	/* the generation at which the kernel holds want: host updates start
	 * from it without a dump */
	sw_repair_reconcile(d, SW_CAUSE_RESYNC, NULL, 0, NULL, sw_daemon_now_us());

	while (!d->stop) {
		struct epoll_event evs[8];
		/* the soonest of the deadlines (-1: none) */
		int64_t now = sw_daemon_now_us();
		int th = sw_loop_timeout(d, now, sw_report_coverage_due_ms(d));
		int tc = sw_request_timeout(d, now), tf = sw_blocklog_timeout(d);
		int ti = sw_ident_timeout(d, now);
		int n = epoll_wait(d->epfd, evs, 8,
				   sw_daemon_min_timeout(ti, sw_daemon_min_timeout(tf,
				   sw_daemon_min_timeout(th, tc))));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sw_err("epoll_wait: %s", strerror(errno));
			rc = 2;
			break;
		}
		forget_tick(d, n == 0);
		for (int i = 0; i < n; i++)
			dispatch(d, evs[i].data.u32);
		if (d->host_dirty && sw_daemon_now_us() >= d->update_due_us)
			sw_track_host_delta(d);
		else if (sw_report_coverage_due_ms(d) == 0)
			sw_report_coverage(d);  /* an unguarded link that stayed, a verify's gone */
		sw_request_wake(d);
		sw_ident_tick(d);
		sw_alert_flush(&d->alert);
		sw_alert_flush(&d->alert_blocked);
		sw_blocklog_flush(d, false);
		sw_flowlog_flush(d);
	}
	sw_blocklog_flush(d, true);
	sw_flowlog_stop(d);
	sw_notify("STOPPING=1");
	sw_report_stop(d);
	return rc;
}
