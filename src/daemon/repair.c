// SPDX-License-Identifier: GPL-2.0-or-later
/* repair: the three tables brought to what they should hold (see
 * include/daemon/repair.h).
 *
 * Prevent first: where the kernel has NFT_TABLE_F_OWNER and _PERSIST, the
 * table belongs to our long-lived socket (others get EPERM, `nft flush
 * ruleset` skips it) and outlives us (owner.c). Repair second: every
 * change to our table by another process is diffed and repaired in one
 * batch, read back, and reported with the pid and name the kernel gives
 * in NEWGEN (report.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/nf_tables.h>

#include "core/diff.h"
#include "core/gate.h"
#include "core/ruleset.h"
#include "daemon/owner.h"
#include "daemon/repair.h"
#include "daemon/report.h"
#include "host/portread.h"
#include "lib/log.h"
#include "sync/bindtable.h"
#include "sync/netdev.h"
#include "core/desired.h"
#include "sync/reconcile.h"

#define RETRY_MS         100
#define RESYNC_SOON_MS   5      /* lost events: one resync for a burst of ENOBUFS */

unsigned sw_repair_resync_ms(const struct sw_daemon *d)
{
	unsigned ms = d->cfg.resync_interval * 1000;

	return d->resync_soon ? RESYNC_SOON_MS : d->retry ? RETRY_MS : ms;
}

void sw_repair_arm_resync(struct sw_daemon *d)
{
	sw_daemon_arm(d->tfd, sw_repair_resync_ms(d), d->cfg.resync_interval * 1000);
}

void sw_repair_resync_soon(struct sw_daemon *d)
{
	if (d->resync_soon)
		return;
	d->resync_soon = true;
	sw_repair_arm_resync(d);
}

int sw_repair_build_want(struct sw_daemon *d, struct sw_model *m, bool tracked)
{
	char err[SW_ERRLEN];
	int rc = sw_host_gather(&d->cfg, &d->host, !tracked || d->resync_soon || d->retry,
				err, sizeof(err));

	if (!rc)
		rc = sw_repair_desired(d, m, err, sizeof(err));
	if (rc)
		sw_err("%s", err);
	return rc;
}

int sw_repair_desired(struct sw_daemon *d, struct sw_model *m, char *err, size_t errlen)
{
	struct sw_desired_in in = { .cfg = &d->cfg, .host = &d->host, .table_flags = d->own_flags };
	struct sw_desired_elem *v;
	int rc;

	/* the hostnames' addresses: a table made from it has them at once */
	if ((rc = sw_resolver_elems(&d->resolver, sw_resolver_now_ms(), &v, &in.n_elems))) {
		snprintf(err, errlen, "cannot fill the host sets: %s", strerror(-rc));
		return rc;
	}
	in.elems = v;
	rc = sw_desired_build(&in, m, err, errlen);
	free(v);
	return rc;
}

uint64_t sw_repair_parents_sig(const struct sw_config *cfg, const struct sw_host *h)
{
	uint64_t x = 1469598103934665603ull;    /* FNV-1a */

	for (size_t i = 0; i < h->n_links; i++) {
		const struct sw_link *l = &h->links[i];

		if (!sw_ruleset_netdev_device(cfg, l))
			continue;
		for (const char *c = l->name; *c; c++)
			x = (x ^ (uint8_t)*c) * 1099511628211ull;
		for (size_t k = 0; k < 6; k++)
			x = (x ^ l->mac[k]) * 1099511628211ull;
		x = (x ^ (uint32_t)l->ifindex) * 1099511628211ull;
	}
	return x;
}

void sw_repair_netdev(struct sw_daemon *d)
{
	char err[SW_ERRLEN], summary[256];
	struct sw_diff diff;
	bool repaired = false;
	size_t n = 0;
	int rc = sw_netdev_reconcile(&d->nl, &d->cfg, &d->host, &d->want, false, &diff,
				     &repaired, &n, err, sizeof(err));

	if (!rc)
		d->parents_sig = sw_repair_parents_sig(&d->cfg, &d->host);
	/* our batch moves the generation that table inet's deltas start
	 * from (a wrong guess only costs them a dump: ERESTART) */
	if (repaired && d->synced_gen)
		d->synced_gen = sw_gen_after(d->synced_gen);

	sw_diff_summary(&diff, summary, sizeof(summary));
	if (rc)
		sw_alert(&d->alert, LOG_ERR, "event=repair-failed table=netdev/%s error=\"%s\"",
			 d->cfg.table, err);
	else if (repaired)
		sw_alert(&d->alert, LOG_NOTICE, "event=repair table=netdev/%s parents=%zu change=\"%s\"",
			 d->cfg.table, n, diff.n ? summary : "removed");
	sw_diff_free(&diff);
}

void sw_repair_bindtable(struct sw_daemon *d, const int32_t *nsids, size_t n_nsids, bool all)
{
	char err[SW_ERRLEN], summary[256];
	struct sw_diff diff = { 0 };
	bool repaired = false;
	size_t n = 0;
	int rc = 0;

	if (d->paused)
		return;
	if (sw_portbind_wanted(&d->cfg)) {
		if (!d->bind_nl.rbuf && (rc = sw_portbind_open(&d->bind_nl)))
			snprintf(err, sizeof(err), "cannot open rtnetlink: %s", strerror(-rc));
		else if ((rc = sw_portbind_refresh(&d->bind_nl, &d->cfg, &d->host, &d->binds, nsids,
						   n_nsids, all)))
			snprintf(err, sizeof(err), "cannot read the bridge ports' addresses: %s",
				 strerror(-rc));
	} else {
		sw_binds_free(&d->binds);
	}
	if (!rc)
		rc = sw_bindtable_reconcile_binds(&d->nl, &d->cfg, &d->host, &d->binds, false, &diff,
						  &repaired, &n, err, sizeof(err));
	sw_diff_summary(&diff, summary, sizeof(summary));
	if (rc)
		sw_alert(&d->alert, LOG_ERR, "event=repair-failed table=bridge/%s error=\"%s\"",
			 d->cfg.table, err);
	else if (repaired)
		sw_info("event=bind table=bridge/%s ports=%zu change=\"%s\"", d->cfg.table, n,
			diff.n ? summary : "removed");
	sw_diff_free(&diff);
}

/* A read-back that differs because the next tamper came in between is no
 * failed repair: compare and repair again, this many times, before the
 * CRIT line. */
#define READBACK_TRIES 3

int sw_repair_reconcile_txn(struct sw_daemon *d, enum sw_cause cause, const char *change,
			    uint32_t pid, const char *comm, int64_t t0,
			    const struct sw_nft_txn *txn)
{
	struct sw_hint hint = { .defer_forget = true };
	char err[SW_ERRLEN], summary[256];
	struct sw_repair r = { .cause = cause, .pid = pid, .comm = comm };
	struct sw_diff diff = { 0 };
	bool repaired = false, any = false;
	int rc = -EIO;

	if (d->paused) {
		d->synced_gen = 0;
		return 0;
	}
	if (txn) {
		hint.table_deleted = txn->table_deleted;
		hint.genid = txn->genid;
		/* not where the ownership flags matter: the dump shows
		 * them, the events do not (and there others get EPERM) */
		if (!txn->rec_lost && d->synced_gen && !d->retry &&
		    !(d->want.table_flags & (NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST))) {
			hint.txn = txn->rec;
			hint.txn_len = txn->rec_len;
			hint.base_genid = d->synced_gen;
		}
	}
	/* a re-created table or set gets the resolved addresses in the same
	 * batch, with their remaining lifetimes */
	sw_resolver_fill(&d->resolver, &d->want, sw_resolver_now_ms());
	rc = sw_reconcile_settle(&d->nl, &d->want, &hint, READBACK_TRIES, &diff, &repaired,
				 summary, sizeof(summary), err, sizeof(err));
	any = repaired;
	/* a re-created table: forget the flows opened toward the sandboxes
	 * while it was gone once no event waits (forget_tick, loop.c), not here: the
	 * walk of the conntrack table takes ~11 ms, and the next tamper's
	 * repair would wait for it */
	if (hint.forget_due && !d->forget_pending) {
		d->forget_pending = true;
		d->forget_since_us = sw_daemon_now_us();
	}
	/* where host updates start from without a dump (sw_update_sets) */
	d->synced_gen = rc ? 0 : hint.synced_genid;
	/* overtaken: our repair held and was changed again by a later commit,
	 * whose own event starts the next round; no failed repair */
	if (rc == -EAGAIN) {
		sw_debug("repair overtaken: %s", err);
		rc = 0;
	}
	/* the parents' table after table inet: its repair comes first */
	sw_repair_netdev(d);
	sw_repair_bindtable(d, NULL, 0, cause == SW_CAUSE_RESYNC);
	if (!rc && !any) {
		sw_diff_free(&diff);
		if (d->retry) {
			/* in sync again without us: the failure is settled */
			d->retry = false;
			sw_repair_arm_resync(d);
			r.cause = SW_CAUSE_RETRY;
			r.change = "in sync";
			sw_report_repair(d, &r);
		}
		return 0;
	}
	r.change = change ? change : summary;
	r.changes = diff.n;
	r.failed = rc != 0;
	r.error = rc ? err : NULL;
	/* restored: the repair batch was committed; verified: read back */
	r.restored_us = hint.committed_us ? hint.committed_us - t0 : 0;
	r.verified_us = sw_daemon_now_us() - t0;
	if (rc) {
		d->retry = true;
		sw_repair_arm_resync(d);
	} else if (d->retry) {
		d->retry = false;
		sw_repair_arm_resync(d);
	}
	sw_report_repair(d, &r);
	sw_diff_free(&diff);
	return rc;
}

int sw_repair_reconcile(struct sw_daemon *d, enum sw_cause cause, const char *change, uint32_t pid,
			const char *comm, int64_t t0)
{
	return sw_repair_reconcile_txn(d, cause, change, pid, comm, t0, NULL);
}

void sw_repair_want_update(struct sw_daemon *d, struct sw_model *m, enum sw_cause cause,
			   bool only_if_changed, int64_t t0)
{
	struct sw_gate_plan gp;
	struct sw_diff diff;
	bool changed = true;

	/* a different desired model means the host moved (or the resolvers
	 * changed): updating the sets is no drift. The gate's buffers as the
	 * kernel was last seen to hold them (include/core/gate.h) */
	if (sw_gate_settle(m, &d->want, &gp) == 0 && sw_diff(m, &d->want, &diff) == 0) {
		changed = diff.n > 0;
		sw_diff_free(&diff);
	}
	if (sw_repair_parents_sig(&d->cfg, &d->host) != d->parents_sig)
		changed = true;
	sw_model_free(&d->want);
	d->want = *m;
	if (!changed && only_if_changed)
		return;
	if (changed) {
		cause = SW_CAUSE_UPDATE;
		d->updates++;
		sw_owner_twin_sync(d);
	}
	sw_repair_reconcile(d, cause, NULL, 0, NULL, t0);
}
