// SPDX-License-Identifier: GPL-2.0-or-later
/* blocklog: the blocked attempts, logged and recorded (see
 * include/daemon/blocklog.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>

#include "core/host.h"
#include "core/logkind.h"
#include "daemon/blocklog.h"
#include "daemon/ident.h"
#include "daemon/report.h"
#include "lib/log.h"

void sw_blocklog_one(const struct sw_blocked *b, void *data)
{
	struct sw_daemon *d = data;
	uint8_t key[SW_LIMITER_KEY] = { 0 };
	char what[160], sup[32] = "", sbx[48] = "", from[48], who[300] = "";
	const struct sw_link *l = sw_host_link(&d->host, (int)b->iif);
	int kind = sw_logkind_of(b->category, NULL);
	static struct sw_identity id;
	bool known;
	long n;

	/* a quarantine tripped (chain sbx_NAME_trip): its own event, once
	 * the block chain that jumped there has logged the packet too (its
	 * category says why: metadata, egress, budget, connections) */
	if (kind == SW_LK_TRIPPED) {
		sw_blocklog_pending(d);
		d->q_pending = *b;
		snprintf(d->q_pending_iif, sizeof(d->q_pending_iif), "%s", l ? l->name : "");
		d->q_pending_on = true;
		return;
	}
	if (d->q_pending_on && d->q_pending.family == b->family &&
	    !memcmp(d->q_pending.src, b->src, sizeof(b->src))) {
		sw_report_quarantine(d, &d->q_pending, d->q_pending_iif[0] ? d->q_pending_iif : NULL,
				     b->category);
		d->q_pending_on = false;
	}
	d->blocked_seen++;
	/* the sandbox it came from, as known now (a miss asks the runtimes;
	 * the record gets the answer when it comes) */
	known = !sw_blocked_is_output(b) &&
		sw_ident_lookup(d, b->family, b->src, l ? l->name : NULL, &id) == 0;
	sw_attempts_add_ident(&d->attempts, b, l && !sw_blocked_is_output(b) ? l->name : NULL,
			      known ? &id : NULL, time(NULL));
	if (known) {
		char sid[16];

		sw_identity_short(&id, sid, sizeof(sid));
		snprintf(who, sizeof(who), " sandbox_name=%s runtime=%s container=%s image=%s",
			 sw_identity_name(&id), id.runtime,
			 sid[0] ? sid : "?", id.image[0] ? id.image : "?");
	}
	d->attempts_dirty = true;
	key[0] = (uint8_t)b->family;
	memcpy(key + 2, b->src, 16);
	memcpy(key + 18, b->dst, 16);
	if ((n = sw_limiter_admit(&d->blocked, key, sw_daemon_now_us(), 1000000)) < 0)
		return;
	if (n > 0)
		snprintf(sup, sizeof(sup), " suppressed=%ld", n);
	sw_blocked_format(b, what, sizeof(what));
	if (b->sandbox[0])
		snprintf(sbx, sizeof(sbx), " sandbox=%s", b->sandbox);
	/* where it came from: the output path has no input interface, but
	 * the socket's owner (NFLOG carries no cgroup) */
	if (sw_blocked_is_output(b) && b->has_uid)
		snprintf(from, sizeof(from), "path=output uid=%u", b->uid);
	else if (sw_blocked_is_output(b))
		snprintf(from, sizeof(from), "path=output");
	else
		snprintf(from, sizeof(from), "iif=%s", l ? l->name : "?");
	/* a sandbox's budget, its max_connections: their own events
	 * (core/logkind.c); everything else: blocked */
	if (kind >= 0 && sw_logkinds[kind].event)
		sw_alert(&d->alert_blocked, LOG_WARNING, "event=%s%s %s %s%s%s", sw_logkinds[kind].event,
			 sbx, what, from, who, sup);
	else
		sw_alert(&d->alert_blocked, LOG_WARNING, "event=blocked category=%s%s %s %s%s%s",
			 b->category, sbx, what, from, who, sup);
}

void sw_blocklog_flush(struct sw_daemon *d, bool now)
{
	char path[SW_PATH_MAX + 16];
	const char *slash = strrchr(d->cfg.journal_path, '/');
	time_t t = time(NULL);
	int rc;

	if (!d->attempts_dirty || !slash || (!now && t == d->attempts_written))
		return;
	snprintf(path, sizeof(path), "%.*s/attempts.json", (int)(slash - d->cfg.journal_path),
		 d->cfg.journal_path);
	{
		/* verify's own probes apart from the sandboxes' traffic: its
		 * addresses from its last record beside the journal */
		static struct sw_attempts_probes probes;
		char vpath[SW_PATH_MAX + 16], *vtext = NULL;
		size_t vlen = 0;
		FILE *vf;

		snprintf(vpath, sizeof(vpath), "%.*s/verify.json", (int)(slash - d->cfg.journal_path),
			 d->cfg.journal_path);
		memset(&probes, 0, sizeof(probes));
		if ((vf = fopen(vpath, "re"))) {
			if ((vtext = malloc(1 << 20)))
				vlen = fread(vtext, 1, (1 << 20) - 1, vf);
			fclose(vf);
			sw_attempts_probes_read(vtext, vlen, &probes);
			free(vtext);
		}
		sw_attempts_mark(&d->attempts, &probes);
		rc = sw_attempts_write_by(&d->attempts, &probes, path);
	}
	sw_report_attempts_write(d, path, rc);
	d->attempts_dirty = false;
	d->attempts_written = t;
}

int sw_blocklog_timeout_at(const struct sw_daemon *d, long now_ns)
{
	if (!d->attempts_dirty && !sw_alert_pending(&d->alert) &&
	    !sw_alert_pending(&d->alert_blocked))
		return -1;
	return (int)(1000 - now_ns / 1000000) + 5;
}

int sw_blocklog_timeout(const struct sw_daemon *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return sw_blocklog_timeout_at(d, ts.tv_nsec);
}

void sw_blocklog_pending(struct sw_daemon *d)
{
	/* its block chain's line did not come (its log is rate-limited): the
	 * quarantine without its why */
	if (d->q_pending_on)
		sw_report_quarantine(d, &d->q_pending, d->q_pending_iif[0] ? d->q_pending_iif : NULL,
				     "");
	d->q_pending_on = false;
}

void sw_blocklog_read(struct sw_daemon *d)
{
	int rc = sw_nflog_read(&d->nflog, sw_blocklog_one, d);

	if (rc < 0)
		sw_err("blocked-attempt log: %s", strerror(-rc));
	sw_blocklog_pending(d);
}

void sw_blocklog_setup(struct sw_daemon *d)
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
	sw_daemon_watch(d, sw_nflog_fd(&d->nflog), SLOT_NFLOG);
}
