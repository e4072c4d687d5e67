// SPDX-License-Identifier: GPL-2.0-or-later
/* track: the table, the host and the cgroups as the events say they
 * moved (see include/daemon/track.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "core/diff.h"
#include "core/ruleset.h"
#include "daemon/ident.h"
#include "daemon/owner.h"
#include "daemon/repair.h"
#include "daemon/report.h"
#include "daemon/track.h"
#include "lib/log.h"
#include "sync/hostfast.h"
#include "sync/reconcile.h"

#define SETTLE_MS        20     /* after removals only, or a new link guarded by the
				 * new-link path: the whole model is rebuilt this much later
				 * (or after 4 times its last cost), once for a burst */
#define SETTLE_MAX_MS    100    /* but never later than this after the first event
				 * (a steady stream of removals must not starve it) */

void sw_track_on_txn(const struct sw_nft_txn *t, void *data)
{
	struct sw_drift *dr = data;

	/* another table's transaction right after the generation at which our
	 * table was seen to hold want: it holds it at this one too, and the
	 * next delta need not find the generation moved (ERESTART) and dump
	 * the table (docker's iptables-nft, another tool's table) */
	if (!t->touched) {
		/* (not if any message named our table, of a kind not followed:
		 * a flowtable, say) */
		if (*dr->synced && sw_gen_after(*dr->synced) == t->genid && !t->rec_len &&
		    !t->rec_lost)
			*dr->synced = t->genid;
		return;
	}
	if (t->pid == (uint32_t)getpid())
		return;         /* our own batch */
	if (!dr->seen) {
		dr->txn = *t;   /* the first one names the culprit */
		/* its messages, out of the buffer the next one reuses */
		dr->txn.rec = dr->rec;
		dr->txn.rec_len = 0;
		if (!dr->rec || t->rec_len > dr->rec_cap)
			dr->txn.rec_lost = true;
		else if (t->rec_len)
			memcpy(dr->rec, t->rec, dr->txn.rec_len = t->rec_len);
	}
	dr->seen = true;
	dr->n++;
}

void sw_track_host_update(struct sw_daemon *d, enum sw_cause cause, bool only_if_changed)
{
	struct sw_host *old = &d->host_prev;
	struct sw_model m;
	int64_t t0 = sw_daemon_now_us();

	struct sw_host swap;

	/* the host before moves to host_prev (its arrays with it), and
	 * d->host is read again into host_prev's old arrays: no copy */
	swap = *old;
	*old = d->host;
	d->host = swap;
	d->host_dirty = false;
	if (sw_repair_build_want(d, &m, false)) {
		swap = d->host;
		d->host = *old;
		*old = swap;
		d->retry = true;
		sw_repair_arm_resync(d);
		return;
	}
	sw_report_host_changes(d, old, &d->host);
	sw_resolver_set_servers(&d->resolver, &d->cfg, &d->host);
	sw_repair_want_update(d, &m, cause, only_if_changed, t0);
	sw_report_coverage(d);
}

bool sw_track_deltas_ok(const struct sw_daemon *d)
{
	return d->synced_gen && !d->retry && !d->paused && !d->twin;
}

int sw_track_by_deltas(struct sw_daemon *d, struct sw_model *m, const struct sw_repair *r,
		       int64_t t0, size_t *changes)
{
	char err[SW_ERRLEN] = "", summary[256];
	struct sw_diff diff = { 0 };
	int rc = sw_track_deltas_ok(d) ? sw_update_sets(&d->nl, m, &d->want, &d->synced_gen, &diff,
							err, sizeof(err)) : -ESTALE;

	if (rc == -ERESTART) {
		sw_diff_free(&diff);
		sw_track_nft(d);
		rc = sw_track_deltas_ok(d) ? sw_update_sets(&d->nl, m, &d->want, &d->synced_gen,
							    &diff, err, sizeof(err)) : -ESTALE;
	}
	*changes = diff.n;
	if (rc) {
		if (*err)
			sw_debug("%s by deltas: %s; comparing with the kernel",
				 sw_cause_name(r->cause), err);
		sw_diff_free(&diff);
		d->synced_gen = 0;
		return rc;
	}
	sw_model_free(&d->want);
	d->want = *m;
	if (diff.n) {
		struct sw_repair rep = *r;

		sw_diff_summary(&diff, summary, sizeof(summary));
		rep.changes = diff.n;
		rep.change = summary;
		rep.restored_us = rep.verified_us = sw_daemon_now_us() - t0;
		sw_report_repair(d, &rep);
	}
	sw_diff_free(&diff);
	return 0;
}

void sw_track_host_delta(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	struct sw_model m;
	int64_t t0 = d->host_t0, t1 = sw_daemon_now_us(), t2;
	size_t changes;
	int rc;

	d->host_dirty = false;
	/* with the hostnames' addresses, as sw_repair_build_want: without
	 * them the deltas would take them out of the kernel */
	if (sw_repair_desired(d, &m, err, sizeof(err))) {
		sw_err("%s", err);
		d->retry = true;
		sw_repair_arm_resync(d);
		return;
	}
	t2 = sw_daemon_now_us();
	rc = sw_track_by_deltas(d, &m, &(struct sw_repair){ .cause = SW_CAUSE_UPDATE }, t0,
				&changes);
	sw_debug("host update: waited %lld us, model %lld us, diff and commit %lld us (%s)",
		 (long long)(t1 - t0), (long long)(t2 - t1), (long long)(sw_daemon_now_us() - t2),
		 rc ? "falling back" : "deltas");
	if (rc) {
		sw_repair_want_update(d, &m, SW_CAUSE_RESYNC, true, t0);
	} else {
		d->updates += changes > 0;
		/* a parent that came or went by a delta, set elements that
		 * table netdev copies (own4, lan4, ...), or its host_addrs4/6:
		 * the netdev table follows */
		if (sw_repair_parents_sig(&d->cfg, &d->host) != d->parents_sig ||
		    sw_ruleset_netdev_wanted(&d->cfg))
			sw_repair_netdev(d);
	}
	sw_repair_bindtable(d, NULL, 0, false); /* a port came, went or moved */
	/* bursts (500 bridges deleted) coalesce: the next update waits as long
	 * as this one took, so the daemon's CPU grows with the events, not
	 * with events times the host's size */
	d->full_cost_us = sw_daemon_now_us() - t1;
	d->update_due_us = sw_daemon_now_us() + d->full_cost_us;
	sw_report_coverage(d);
}

void sw_track_fast_base(struct sw_daemon *d)
{
	char err[SW_ERRLEN];

	if (d->fast_base_ok)
		sw_model_free(&d->fast_base);
	d->fast_base_stale = false;
	d->fast_base_ok = sw_fast_base(&d->cfg, &d->fast_base, err, sizeof(err)) == 0;
	if (!d->fast_base_ok)
		sw_debug("no fast path for new links: %s", err);
}

bool sw_track_fast_ok(const struct sw_daemon *d, const struct sw_host_delta *dl)
{
	return d->fast_base_ok && sw_track_deltas_ok(d) && dl->n_new == dl->changes &&
	       dl->n_new <= SW_FAST_MAX_LINKS && !dl->routes_stale;
}

/* New links only: guard them now by adding their own elements to the
 * desired sets (no rebuild of the whole model); 0 when done, else the
 * caller takes the full path. The whole model follows, coalesced. */
static int host_fast_update(struct sw_daemon *d, const struct sw_host_delta *dl, int64_t t0)
{
	char err[SW_ERRLEN];
	struct sw_fast f;
	size_t added = 0;
	int64_t t1 = sw_daemon_now_us();
	int rc;

	if (d->fast_base_stale)
		sw_track_fast_base(d);
	if (!sw_track_fast_ok(d, dl))
		return -ESTALE;
	if ((rc = sw_fast_plan(&d->cfg, &d->host, dl->new_idx, dl->n_new, &d->fast_base,
			       &d->want, &f)))
		return rc;
	for (size_t i = 0; i < f.n; i++)
		added += f.s[i].added;
	if ((rc = sw_fast_commit(&d->nl, d->cfg.table, &f, &d->synced_gen, err, sizeof(err)))) {
		sw_debug("fast path: %s", err);
		sw_fast_free(&f);
		d->synced_gen = 0;      /* the full path observes */
		return rc;
	}
	sw_debug("host update: fast path for %u new link(s), %zu element(s), %lld us",
		 dl->n_new, added, (long long)(sw_daemon_now_us() - t1));
	if (added) {
		char change[64];
		struct sw_repair r = { .cause = SW_CAUSE_UPDATE, .changes = added, .change = change };

		snprintf(change, sizeof(change), "%zu element(s) for %u new link(s)", added, dl->n_new);
		r.restored_us = r.verified_us = sw_daemon_now_us() - t0;
		d->updates++;
		sw_report_repair(d, &r);
	}
	return 0;
}

void sw_track_full_resync(struct sw_daemon *d)
{
	d->host_dirty = false;
	d->resyncs++;
	d->resync_soon = false;
	/* after a failed repair, the retry is no new drift */
	sw_track_host_update(d, d->retry ? SW_CAUSE_RETRY : SW_CAUSE_RESYNC, false);
	sw_owner_ensure(d);
}

void sw_track_nft(struct sw_daemon *d)
{
	struct sw_drift dr = { .synced = &d->synced_gen, .rec = d->txn_rec,
			       .rec_cap = d->txn_rec ? SW_TXN_REC : 0 };
	int64_t t0 = sw_daemon_now_us();
	int rc = sw_events_read_nft(&d->ev, d->cfg.table, sw_track_on_txn, &dr);

	if (rc == -ENOBUFS) {
		sw_alert(&d->alert, LOG_WARNING,
			 "event=enobufs source=nftables count=%u rcvbuf=%d action=resync",
			 d->ev.enobufs, d->ev.nft_rcvbuf);
		sw_repair_resync_soon(d);
		return;
	}
	if (rc < 0) {
		sw_err("nftables events: %s; resubscribing", strerror(-rc));
		if (sw_events_reopen(&d->ev) == 0) {
			sw_daemon_watch(d, sw_events_nft_fd(&d->ev), SLOT_NFT);
			sw_daemon_watch(d, sw_events_rt_fd(&d->ev), SLOT_RT);
		}
		sw_track_full_resync(d);
		return;
	}
	if (dr.seen)
		sw_repair_reconcile_txn(d, SW_CAUSE_DRIFT, dr.txn.change, dr.txn.pid, dr.txn.comm,
					t0, dr.n == 1 ? &dr.txn : NULL);
}

static void on_link(const struct sw_link *l, bool added, void *data)
{
	struct sw_daemon *d = data;

	sw_ident_link(d, l, added);     /* a sandbox's veth or tap: who is behind it */
	if (sw_ruleset_guarded(&d->cfg, l) || sw_ruleset_macvlan_parent(&d->cfg, l))
		sw_report_link(d, l, added);
}

static void on_peer(const struct sw_link *l, void *data)
{
	sw_ident_link(data, l, true);   /* a veth's peer went into a sandbox */
}

int64_t sw_track_settle_due(const struct sw_daemon *d, int64_t now)
{
	int64_t settle = now + (SETTLE_MS * 1000 > 4 * d->full_cost_us ?
				SETTLE_MS * 1000 : 4 * d->full_cost_us);

	if (settle > d->host_t0 + SETTLE_MAX_MS * 1000)
		settle = d->host_t0 + SETTLE_MAX_MS * 1000;
	return d->update_due_us < settle ? settle : d->update_due_us;
}

void sw_track_rt(struct sw_daemon *d)
{
	struct sw_host_delta dl = { .on_link = on_link, .on_peer = on_peer, .data = d };
	struct sw_gateway gw[SW_MAX_GATEWAYS];
	size_t ngw = d->host.n_gateways;
	int64_t t0 = sw_daemon_now_us();
	int rc;

	memcpy(gw, d->host.gateways, ngw * sizeof(*gw));
	rc = sw_events_track_rt(&d->ev, &d->rtdump, &d->host, &dl);
	if (rc == -ENOBUFS) {
		sw_alert(&d->alert, LOG_WARNING,
			 "event=enobufs source=rtnetlink count=%u rcvbuf=%d action=resync",
			 d->ev.enobufs, d->ev.rt_rcvbuf);
		sw_repair_resync_soon(d);
		return;
	}
	if (rc < 0) {
		/* a broken socket or a host model that cannot follow (full):
		 * read everything and compare the kernel, as on the timer */
		sw_err("rtnetlink events: %s", strerror(-rc));
		sw_track_host_update(d, SW_CAUSE_RESYNC, false);
		return;
	}
	if (!dl.changes)
		return;
	sw_report_gateways(d, gw, ngw, &d->host);
	if (!d->host_dirty)
		d->host_t0 = t0;
	d->host_dirty = true;
	/* new links are guarded at once; removals only guard less: either
	 * way the whole model follows once for the burst */
	if ((dl.n_new == dl.changes && host_fast_update(d, &dl, t0) == 0) ||
	    (dl.removals == dl.changes && !dl.routes_stale)) {
		d->update_due_us = sw_track_settle_due(d, sw_daemon_now_us());
		return;
	}
	if (sw_daemon_now_us() >= d->update_due_us)
		sw_track_host_delta(d);
}

void sw_track_cgroup_setup(struct sw_daemon *d)
{
	int rc;

	if (d->cgw.fd >= 0) {
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->cgw.fd, NULL);
		sw_cgwatch_close(&d->cgw);
	}
	if ((rc = sw_cgwatch_open(&d->cgw, &d->cfg))) {
		sw_warn("cannot watch the cgroup tree (cgroups that start later are found on "
			"the resync timer): %s", strerror(-rc));
		return;
	}
	if (d->cgw.fd < 0)
		return;
	sw_daemon_watch(d, d->cgw.fd, SLOT_CGROUP);
	sw_track_cgroup(d, true);
}

void sw_track_cgroup(struct sw_daemon *d, bool rescan)
{
	int64_t t0 = sw_daemon_now_us();
	size_t before = d->host.n_cgroups;
	bool changed = rescan, sent;
	int rc = rescan ? 0 : sw_cgwatch_read(&d->cgw, &d->cfg, &changed);

	if (d->paused || (!rc && !changed))
		return;
	if (!rc)
		rc = sw_cgwatch_update(&d->cgw, &d->cfg, &d->host, &d->want, &d->nl, &d->synced_gen,
				       &sent);
	if (rc) {
		sw_warn("cgroup update: %s; comparing everything", strerror(-rc));
		sw_track_host_update(d, SW_CAUSE_RESYNC, false);
		return;
	}
	if (!sent)
		return;
	d->updates++;
	if (d->twin)
		sw_owner_twin_sync(d);
	sw_alert(&d->alert, LOG_NOTICE, "event=cgroups guarded=%zu before=%zu update_us=%lld",
		 d->host.n_cgroups, before, (long long)(sw_daemon_now_us() - t0));
}
