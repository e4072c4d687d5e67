// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon: keep the boundary in place (see include/daemon/daemon.h).
 *
 * Prevent first: where the kernel has NFT_TABLE_F_OWNER and _PERSIST, the
 * table belongs to our long-lived socket (others get EPERM, `nft flush
 * ruleset` skips it) and outlives us. Repair second: every change to our
 * table by another process is diffed and repaired in one batch, read back,
 * and reported with the pid and name the kernel gives in NEWGEN. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "core/config_check.h"
#include "lib/control.h"
#include "daemon/daemon.h"
#include "core/diff.h"
#include "sync/forget.h"
#include "core/gate.h"
#include "sync/hostfast.h"
#include "lib/journal.h"
#include "lib/lock.h"
#include "lib/log.h"
#include "daemon/metrics.h"
#include "lib/notify.h"
#include "kernel/observe.h"
#include "daemon/owner.h"
#include "daemon/report.h"
#include "sync/netdev.h"
#include "sync/bindtable.h"
#include "host/portread.h"
#include "sync/reconcile.h"
#include "core/ruleset.h"

#define ALERTS_PER_SEC   20
#define RETRY_MS         100
#define RESYNC_SOON_MS   5      /* lost events: one resync for a burst of ENOBUFS */
#define SETTLE_MS        20     /* after removals only, or a new link guarded by the
				 * fast path: the whole model is rebuilt this much later
				 * (or after 4 times its last cost), once for a burst */
#define SETTLE_MAX_MS    100    /* but never later than this after the first event
				 * (a steady stream of removals must not starve it) */

/* The epoll slots, one per source (epoll_event.data.u32). */
enum slot {
	SLOT_NFT = 1,           /* nf_tables events: drift */
	SLOT_RT,                /* rtnetlink events: the host moved */
	SLOT_SIGNAL,            /* HUP reload, TERM/INT stop */
	SLOT_RESYNC,            /* timer: full compare, retries, coalesced ENOBUFS */
	SLOT_WATCHDOG,          /* systemd watchdog */
	SLOT_CONTROL,           /* the CLI's control socket */
	SLOT_NFLOG,             /* blocked attempts */
	SLOT_CGROUP,            /* [guard] cgroups: cgroups came or went (inotify) */
	SLOT_DNS,               /* the resolver's UDP sockets: answers */
	SLOT_DNS_TIMER,         /* the resolver's next round, timeout or expiry */
	SLOT_FORGET,            /* the conntrack walk's worker is done (forget.h) */
	SLOT_BIND,              /* an address changed in a bridge port's peer namespace */
	SLOT_LOCK,              /* the instance lock: a second daemon asks who holds it */
};

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A pid for a message ("unknown" when 0). */
static const char *pid_str(pid_t pid, char *buf, size_t len)
{
	if (pid > 0)
		snprintf(buf, len, "%d", (int)pid);
	else
		snprintf(buf, len, "unknown");
	return buf;
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

	arm(d->tfd, d->resync_soon ? RESYNC_SOON_MS : d->retry ? RETRY_MS : ms, ms);
}

/* Events were lost (ENOBUFS): compare everything, once for the burst, on
 * the timer (as conntrackd does), not once per overrun. */
static void resync_soon(struct sw_daemon *d)
{
	if (d->resync_soon)
		return;
	d->resync_soon = true;
	arm_resync(d);
}

/* desired = f(config, host), with our ownership flags; tracked: from the
 * host model the rtnetlink events keep (only when no event was lost),
 * else from a fresh read of the host */
static int build_want_from(struct sw_daemon *d, struct sw_model *m, bool tracked)
{
	char err[SW_ERRLEN];
	int rc = tracked && !d->resync_soon && !d->retry ?
			 sw_desired_tracked(&d->cfg, &d->host, m, err, sizeof(err)) :
			 sw_desired(&d->cfg, &d->host, m, err, sizeof(err));

	if (rc)
		sw_err("%s", err);
	else
		m->table_flags = d->own_flags;
	/* the hostnames' addresses: a table made from it has them at once */
	if (!rc && (rc = sw_resolver_fill(&d->resolver, m, sw_resolver_now_ms())))
		sw_model_free(m);
	return rc;
}

static int build_want(struct sw_daemon *d, struct sw_model *m)
{
	return build_want_from(d, m, false);
}

static uint64_t parents_sig(const struct sw_config *cfg, const struct sw_host *h);

/* table netdev <name> (the macvlan/ipvlan parents, netdev.h): compared and
 * repaired on every pass, after table inet; one line when it changed. */
static void netdev_sync(struct sw_daemon *d)
{
	char err[SW_ERRLEN], summary[256];
	struct sw_diff diff;
	bool repaired = false;
	size_t n = 0;
	int rc = sw_netdev_reconcile(&d->nl, &d->cfg, &d->host, &d->want, false, &diff,
				     &repaired, &n, err, sizeof(err));

	if (!rc)
		d->parents_sig = parents_sig(&d->cfg, &d->host);
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

/* table bridge <name> (each bridge port bound to its own addresses,
 * bindtable.h): compared and repaired after table netdev, on every pass,
 * on every host update and on every address change in a peer's namespace.
 * Only the ports that are new, changed or in one of nsids are read again
 * (all: every port; the resync) */
static void bindtable_sync(struct sw_daemon *d, const int32_t *nsids, size_t n_nsids, bool all)
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

/* Compare with the kernel and repair; report what happened as one typed
 * record. change/pid/comm name the culprit when an event did. */
static int reconcile_txn(struct sw_daemon *d, enum sw_cause cause, const char *change,
			 uint32_t pid, const char *comm, int64_t t0, const struct sw_nft_txn *txn);

/* compare with the kernel and repair, with no transaction to go by */
static int reconcile(struct sw_daemon *d, enum sw_cause cause, const char *change, uint32_t pid,
		     const char *comm, int64_t t0)
{
	return reconcile_txn(d, cause, change, pid, comm, t0, NULL);
}

/* txn: the one transaction by another process in this read, NULL when
 * there is none (or more than one). A deleted table is re-created, and
 * the change that followed the last generation seen in sync repaired as
 * its events say (sw_hint.txn), without a dump first. */
static int reconcile_txn(struct sw_daemon *d, enum sw_cause cause, const char *change,
			 uint32_t pid, const char *comm, int64_t t0, const struct sw_nft_txn *txn)
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
	 * while it was gone once no event waits (forget_tick), not here: the
	 * walk of the conntrack table takes ~11 ms, and the next tamper's
	 * repair would wait for it */
	if (hint.forget_due && !d->forget_pending) {
		d->forget_pending = true;
		d->forget_since_us = now_us();
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
	netdev_sync(d);
	bindtable_sync(d, NULL, 0, cause == SW_CAUSE_RESYNC);
	if (!rc && !any) {
		sw_diff_free(&diff);
		if (d->retry) {
			/* in sync again without us: the failure is settled */
			d->retry = false;
			arm_resync(d);
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
	r.verified_us = now_us() - t0;
	if (rc) {
		d->retry = true;
		arm_resync(d);
	} else if (d->retry) {
		d->retry = false;
		arm_resync(d);
	}
	sw_report_repair(d, &r);
	sw_diff_free(&diff);
	return rc;
}

struct drift {
	bool seen;
	unsigned n;             /* transactions by others in this read */
	struct sw_nft_txn txn;
	uint32_t *synced;       /* the daemon's synced_gen */
	uint8_t *rec;           /* the first one's messages (sw_daemon.txn_rec) */
	size_t rec_cap;
};

static void on_txn(const struct sw_nft_txn *t, void *data)
{
	struct drift *dr = data;

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

/* Every guarded link, named by why: event=bridge for a bridge (as
 * always), event=guarded-link for the others, and event=macvlan-parent
 * for a parent the netdev table hooks. */
static void link_line(struct sw_daemon *d, const struct sw_link *l, bool added)
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

/* gateways: one replaced by another is a change */
static void gateway_changes(struct sw_daemon *d, const struct sw_gateway *og, size_t nog,
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

/* Log what changed on the host that matters to us (after a full read:
 * sorted names, one merge). */
static void host_changes(struct sw_daemon *d, const struct sw_host *old, const struct sw_host *new)
{
	size_t no, nn, i = 0, j = 0;
	const struct sw_link **o = guarded_links(d, old, &no), **n = guarded_links(d, new, &nn);

	while (i < no || j < nn) {
		int c = i == no ? 1 : j == nn ? -1 : strcmp(o[i]->name, n[j]->name);

		if (c < 0)
			link_line(d, o[i++], false);
		else if (c > 0)
			link_line(d, n[j++], true);
		else
			i++, j++;
	}
	free(o);
	free(n);
	gateway_changes(d, old->gateways, old->n_gateways, new);
}

/* The macvlan/ipvlan parents as the netdev table hooks them (name, index,
 * MAC): a different value means one came, went or changed its address. */
static uint64_t parents_sig(const struct sw_config *cfg, const struct sw_host *h)
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

/* Links, addresses or routes moved: rebuild the desired sets. */
/* Rebuild the desired model from the host. With only_if_changed (a link,
 * address or route event), the kernel is compared only when the desired
 * sets moved: kernel drift comes in as nftables events, and the resync
 * timer is the backstop, so a bridge port changing state costs no dump. */
/* A new desired model m (the host moved or was read again) replaces
 * d->want; the kernel is compared unless only_if_changed and m is the
 * same as before. */
static void want_update(struct sw_daemon *d, struct sw_model *m, enum sw_cause cause,
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
	if (parents_sig(&d->cfg, &d->host) != d->parents_sig)
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
	reconcile(d, cause, NULL, 0, NULL, t0);
}

/* Read the whole host again (start, resync timer, lost events) and
 * rebuild the desired model. */
static void host_update(struct sw_daemon *d, enum sw_cause cause, bool only_if_changed)
{
	struct sw_host *old = &d->host_prev;
	struct sw_model m;
	int64_t t0 = now_us();

	*old = d->host;
	d->host_dirty = false;
	if (build_want(d, &m)) {
		d->host = *old;
		d->retry = true;
		arm_resync(d);
		return;
	}
	host_changes(d, old, &d->host);
	sw_resolver_set_servers(&d->resolver, &d->cfg, &d->host);
	want_update(d, &m, cause, only_if_changed, t0);
	sw_report_coverage(d);
}

static void handle_nft(struct sw_daemon *d);

/* Can d->want move by deltas without a look at the kernel? */
static bool deltas_ok(const struct sw_daemon *d)
{
	return d->synced_gen && !d->retry && !d->paused && !d->twin;
}

/* m replaces d->want by set element deltas only (sw_update_sets), stamped
 * with the generation at which the table was last seen to hold d->want,
 * without reading the table. When the generation moved, the events not
 * read yet say by whom (another table's transaction moves synced_gen
 * along; a change to ours is repaired) and it tries once more. 0:
 * committed, m is d->want now, the change is reported as r says (cause,
 * pid, comm) and *changes says how many elements moved; else nothing was
 * sent, synced_gen is forgotten and m is still the caller's, for the
 * observed path. */
static int want_by_deltas(struct sw_daemon *d, struct sw_model *m, const struct sw_repair *r,
			  int64_t t0, size_t *changes)
{
	char err[SW_ERRLEN] = "", summary[256];
	struct sw_diff diff = { 0 };
	int rc = deltas_ok(d) ? sw_update_sets(&d->nl, m, &d->want, &d->synced_gen, &diff, err,
					       sizeof(err)) : -ESTALE;

	if (rc == -ERESTART) {
		sw_diff_free(&diff);
		handle_nft(d);
		rc = deltas_ok(d) ? sw_update_sets(&d->nl, m, &d->want, &d->synced_gen, &diff,
						   err, sizeof(err)) : -ESTALE;
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
		rep.restored_us = rep.verified_us = now_us() - t0;
		sw_report_repair(d, &rep);
	}
	sw_diff_free(&diff);
	return 0;
}

/* The host model moved by rtnetlink deltas: rebuild the desired model
 * from it (no dump) and send only the set elements that changed, stamped
 * with the generation at which the table was last seen to hold d->want.
 * Anything else (more than elements, the generation moved, the kernel
 * refuses a delta, a failed repair pending, mode twin) takes the observed
 * path. */
static void host_delta_update(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	struct sw_model m;
	int64_t t0 = d->host_t0, t1 = now_us(), t2;
	size_t changes;
	int rc;

	d->host_dirty = false;
	if (sw_desired_host(&d->cfg, &d->host, &m, err, sizeof(err))) {
		sw_err("%s", err);
		d->retry = true;
		arm_resync(d);
		return;
	}
	m.table_flags = d->own_flags;
	/* the hostnames' addresses, as build_want puts them in: without them
	 * the deltas would take them out of the kernel */
	if (sw_resolver_fill(&d->resolver, &m, sw_resolver_now_ms())) {
		sw_model_free(&m);
		d->retry = true;
		arm_resync(d);
		return;
	}
	t2 = now_us();
	rc = want_by_deltas(d, &m, &(struct sw_repair){ .cause = SW_CAUSE_UPDATE }, t0, &changes);
	sw_debug("host update: waited %lld us, model %lld us, diff and commit %lld us (%s)",
		 (long long)(t1 - t0), (long long)(t2 - t1), (long long)(now_us() - t2),
		 rc ? "falling back" : "deltas");
	if (rc) {
		want_update(d, &m, SW_CAUSE_RESYNC, true, t0);
	} else {
		d->updates += changes > 0;
		/* a parent that came or went by a delta, set elements that
		 * table netdev copies (own4, lan4, ...), or its host_addrs4/6:
		 * the netdev table follows */
		if (parents_sig(&d->cfg, &d->host) != d->parents_sig ||
		    sw_ruleset_netdev_wanted(&d->cfg))
			netdev_sync(d);
	}
	bindtable_sync(d, NULL, 0, false);      /* a port came, went or moved */
	/* bursts (500 bridges deleted) coalesce: the next update waits as long
	 * as this one took, so the daemon's CPU grows with the events, not
	 * with events times the host's size */
	d->full_cost_us = now_us() - t1;
	d->update_due_us = now_us() + d->full_cost_us;
	sw_report_coverage(d);
}

/* The model of a host with only lo, for the fast path (per config). */
static void fast_base_build(struct sw_daemon *d)
{
	char err[SW_ERRLEN];

	if (d->fast_base_ok)
		sw_model_free(&d->fast_base);
	d->fast_base_stale = false;
	d->fast_base_ok = sw_fast_base(&d->cfg, &d->fast_base, err, sizeof(err)) == 0;
	if (!d->fast_base_ok)
		sw_debug("no fast path for new links: %s", err);
}

/* New links only: guard them now by adding their own elements to the
 * desired sets (no rebuild of the whole model); 0 when done, else the
 * caller takes the full path. The whole model follows, coalesced. */
static int host_fast_update(struct sw_daemon *d, const struct sw_host_delta *dl, int64_t t0)
{
	char err[SW_ERRLEN];
	struct sw_fast f;
	size_t added = 0;
	int64_t t1 = now_us();
	int rc;

	if (d->fast_base_stale)
		fast_base_build(d);
	if (!d->fast_base_ok || !d->synced_gen || d->retry || d->paused || d->twin ||
	    dl->n_new != dl->changes || dl->n_new > SW_FAST_MAX_LINKS || dl->routes_stale)
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
		 dl->n_new, added, (long long)(now_us() - t1));
	if (added) {
		char change[64];
		struct sw_repair r = { .cause = SW_CAUSE_UPDATE, .changes = added, .change = change };

		snprintf(change, sizeof(change), "%zu element(s) for %u new link(s)", added, dl->n_new);
		r.restored_us = r.verified_us = now_us() - t0;
		d->updates++;
		sw_report_repair(d, &r);
	}
	return 0;
}


static void full_resync(struct sw_daemon *d)
{
	d->host_dirty = false;
	d->resyncs++;
	d->resync_soon = false;
	/* after a failed repair, the retry is no new drift */
	host_update(d, d->retry ? SW_CAUSE_RETRY : SW_CAUSE_RESYNC, false);
	sw_owner_ensure(d);
}

static void handle_nft(struct sw_daemon *d)
{
	struct drift dr = { .synced = &d->synced_gen, .rec = d->txn_rec,
			    .rec_cap = d->txn_rec ? SW_TXN_REC : 0 };
	int64_t t0 = now_us();
	int rc = sw_events_read_nft(&d->ev, d->cfg.table, on_txn, &dr);

	if (rc == -ENOBUFS) {
		sw_alert(&d->alert, LOG_WARNING,
			 "event=enobufs source=nftables count=%u rcvbuf=%d action=resync",
			 d->ev.enobufs, d->ev.nft_rcvbuf);
		resync_soon(d);
		return;
	}
	if (rc < 0) {
		sw_err("nftables events: %s; resubscribing", strerror(-rc));
		if (sw_events_reopen(&d->ev) == 0) {
			epoll_ctl(d->epfd, EPOLL_CTL_ADD, sw_events_nft_fd(&d->ev),
				  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_NFT });
			epoll_ctl(d->epfd, EPOLL_CTL_ADD, sw_events_rt_fd(&d->ev),
				  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_RT });
		}
		full_resync(d);
		return;
	}
	if (dr.seen)
		reconcile_txn(d, SW_CAUSE_DRIFT, dr.txn.change, dr.txn.pid, dr.txn.comm, t0,
			      dr.n == 1 ? &dr.txn : NULL);
}

/* event=blocked, at most one line a second per source and destination */
static void on_blocked(const struct sw_blocked *b, void *data)
{
	struct sw_daemon *d = data;
	uint8_t key[SW_LIMITER_KEY] = { 0 };
	char what[160], sup[32] = "", sbx[48] = "", from[48];
	const struct sw_link *l = sw_host_link(&d->host, (int)b->iif);
	long n;

	d->blocked_seen++;
	sw_attempts_add_iif(&d->attempts, b, l && !sw_blocked_is_output(b) ? l->name : NULL,
			    time(NULL));
	d->attempts_dirty = true;
	key[0] = (uint8_t)b->family;
	memcpy(key + 2, b->src, 16);
	memcpy(key + 18, b->dst, 16);
	if ((n = sw_limiter_admit(&d->blocked, key, now_us(), 1000000)) < 0)
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
	/* a sandbox's budget: its own event; everything else: blocked */
	if (!strcmp(b->category, "budget"))
		sw_alert(&d->alert_blocked, LOG_WARNING, "event=budget%s %s %s%s", sbx, what, from,
			 sup);
	else
		sw_alert(&d->alert_blocked, LOG_WARNING, "event=blocked category=%s%s %s %s%s",
			 b->category, sbx, what, from, sup);
}

/* attempts.json beside the journal, at most once a second (and at stop) */
static void attempts_flush(struct sw_daemon *d, bool now)
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

/* How long the loop may sleep: until the next second when attempts.json
 * or a suppressed-lines summary is waiting for its window to end (else a
 * quiet host would hold them until the next event), forever otherwise. */
static int flush_timeout(const struct sw_daemon *d)
{
	struct timespec ts;

	if (!d->attempts_dirty && !sw_alert_pending(&d->alert) &&
	    !sw_alert_pending(&d->alert_blocked))
		return -1;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int)(1000 - ts.tv_nsec / 1000000) + 5;
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
		  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_NFLOG });
}

static void on_link(const struct sw_link *l, bool added, void *data)
{
	struct sw_daemon *d = data;

	if (sw_ruleset_guarded(&d->cfg, l) || sw_ruleset_macvlan_parent(&d->cfg, l))
		link_line(d, l, added);
}

/* rtnetlink events update the host model as deltas; the desired model
 * follows at once, or, within a burst, when the last update's cost has
 * passed (the loop's epoll timeout). */
static void handle_rt(struct sw_daemon *d)
{
	struct sw_host_delta dl = { .on_link = on_link, .data = d };
	struct sw_gateway gw[SW_MAX_GATEWAYS];
	size_t ngw = d->host.n_gateways;
	int64_t t0 = now_us();
	int rc;

	memcpy(gw, d->host.gateways, ngw * sizeof(*gw));
	rc = sw_events_track_rt(&d->ev, &d->rtdump, &d->host, &dl);
	if (rc == -ENOBUFS) {
		sw_alert(&d->alert, LOG_WARNING,
			 "event=enobufs source=rtnetlink count=%u rcvbuf=%d action=resync",
			 d->ev.enobufs, d->ev.rt_rcvbuf);
		resync_soon(d);
		return;
	}
	if (rc < 0) {
		/* a broken socket or a host model that cannot follow (full):
		 * read everything and compare the kernel, as on the timer */
		sw_err("rtnetlink events: %s", strerror(-rc));
		host_update(d, SW_CAUSE_RESYNC, false);
		return;
	}
	if (!dl.changes)
		return;
	gateway_changes(d, gw, ngw, &d->host);
	if (!d->host_dirty)
		d->host_t0 = t0;
	d->host_dirty = true;
	/* new links are guarded at once; removals only guard less: either
	 * way the whole model follows once for the burst */
	if ((dl.n_new == dl.changes && host_fast_update(d, &dl, t0) == 0) ||
	    (dl.removals == dl.changes && !dl.routes_stale)) {
		int64_t settle = now_us() + (SETTLE_MS * 1000 > 4 * d->full_cost_us ?
					     SETTLE_MS * 1000 : 4 * d->full_cost_us);

		if (settle > d->host_t0 + SETTLE_MAX_MS * 1000)
			settle = d->host_t0 + SETTLE_MAX_MS * 1000;
		if (d->update_due_us < settle)
			d->update_due_us = settle;
		return;
	}
	if (now_us() >= d->update_due_us)
		host_delta_update(d);
}

/* epoll_wait's timeout: -1, or until a deferred host update is due; 0
 * while flows are to be forgotten (they go when no event waits) */
static int loop_timeout(const struct sw_daemon *d)
{
	int64_t left;

	int cov = sw_report_coverage_due_ms(d), t;

	if (d->forget_pending && !sw_forget_running(d->forget))
		return 0;
	if (!d->host_dirty)
		return cov;
	left = d->update_due_us - now_us();
	t = left <= 0 ? 0 : (int)((left + 999) / 1000);
	return cov >= 0 && cov < t ? cov : t;
}

/* The resolver's turn: drop what expired, start the rounds that are
 * due, send new addresses to the sets, and sleep until the next deadline.
 * Never blocks: the sockets are non-blocking, the batch is one ACK. */
static void dns_tick(struct sw_daemon *d)
{
	char twin[SW_NAME_MAX + sizeof(SW_TWIN_SUFFIX)];
	const char *tables[2] = { d->cfg.table, twin };
	int64_t now = sw_resolver_now_ms(), next;
	struct itimerspec it = { 0 };

	if (!d->resolver.n_names)
		return;
	sw_resolver_expire(&d->resolver, now);
	sw_resolver_send(&d->resolver, now);
	if (!d->paused && d->resolver.dirty) {
		uint64_t commits = d->resolver.commits;

		sw_resolver_push(&d->resolver, &d->nl, tables,
				 d->twin && !sw_twin_name(d->cfg.table, twin, sizeof(twin)) ? 2 : 1, now);
		/* each of our commits moves the generation host updates start
		 * from (a wrong guess only costs them a dump: ERESTART) */
		for (; d->synced_gen && commits < d->resolver.commits; commits++)
			d->synced_gen = sw_gen_after(d->synced_gen);
	}
	next = sw_resolver_deadline(&d->resolver);
	if (next == INT64_MAX)
		return;
	next = next > now ? next - now : 1;
	it.it_value.tv_sec = next / 1000;
	it.it_value.tv_nsec = (long)(next % 1000) * 1000000;
	timerfd_settime(d->dnsfd, 0, &it, NULL);
}

static void handle_dns(struct sw_daemon *d)
{
	int64_t now = sw_resolver_now_ms();

	for (int f = 0; f < 2; f++)
		if (d->resolver.fd[f] >= 0)
			sw_resolver_recv(&d->resolver, d->resolver.fd[f], now);
	dns_tick(d);
}

/* (Re)build the resolver from the config, keeping what old knew (NULL at
 * start), and register its sockets. */
static int dns_setup(struct sw_daemon *d, struct sw_resolver *old)
{
	struct sw_resolver r;
	int rc = sw_resolver_init(&r, &d->cfg, &d->host, old);

	if (rc) {
		sw_err("cannot set up the resolver: %s", strerror(-rc));
		return rc;
	}
	if (old) {
		for (int f = 0; f < 2; f++)
			if (old->fd[f] >= 0)
				epoll_ctl(d->epfd, EPOLL_CTL_DEL, old->fd[f], NULL);
		sw_resolver_free(old);
	}
	d->resolver = r;
	if (!r.n_names)
		return 0;
	if ((rc = sw_resolver_open(&d->resolver))) {
		sw_err("cannot open the resolver's sockets: %s", strerror(-rc));
		return rc;
	}
	for (int f = 0; f < 2; f++)
		if (d->resolver.fd[f] >= 0)
			epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->resolver.fd[f],
				  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_DNS });
	arm(d->dnsfd, 1, 0);
	return 0;
}

static void handle_cgroup(struct sw_daemon *d, bool rescan);

/* (Re)watch the cgroup tree for [guard] cgroups; none named: no watch.
 * Then scan once more: what started between the last scan and the
 * watches is found now. */
static void cgroup_setup(struct sw_daemon *d)
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
	epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->cgw.fd,
		  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_CGROUP });
	handle_cgroup(d, true);
}

/* A cgroup came or went: rescan the patterns' paths and send the element
 * deltas of the guard_cg sets (no host dump, no rebuild); on any error the
 * full compare takes over. */
static void handle_cgroup(struct sw_daemon *d, bool rescan)
{
	int64_t t0 = now_us();
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
		host_update(d, SW_CAUSE_RESYNC, false);
		return;
	}
	if (!sent)
		return;
	d->updates++;
	if (d->twin)
		sw_owner_twin_sync(d);
	sw_alert(&d->alert, LOG_NOTICE, "event=cgroups guarded=%zu before=%zu update_us=%lld",
		 d->host.n_cgroups, before, (long long)(now_us() - t0));
}

/* A reload that changes only set elements (an entry of [allow] or
 * [block] destinations, say) goes in as deltas, as a host update does:
 * 0, or the caller takes the observed path (m still the caller's). */
static int reload_by_deltas(struct sw_daemon *d, struct sw_model *m)
{
	size_t changes;

	if (parents_sig(&d->cfg, &d->host) != d->parents_sig)
		return -ESTALE;
	return want_by_deltas(d, m, &(struct sw_repair){ .cause = SW_CAUSE_RELOAD,
			      .pid = (uint32_t)getpid(), .comm = "sandwalld" }, now_us(), &changes);
}

/* What a reload may not do unasked (d->cfg the new config, old the one in
 * force): lose sections or keys (sw_config_loss), or take a table another
 * daemon guards. 0, with *newlock the new table's instance lock (or -1:
 * same table); else -errno with the reason in err. */
static int reload_allowed(struct sw_daemon *d, const struct sw_config *old, bool accept_loss,
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
			 d->cfg.table, pid_str(pid, who, sizeof(who)));
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

static int reload(struct sw_daemon *d, bool accept_loss, char *msg, size_t len)
{
	struct sw_config *old = &d->cfg_prev;
	char err[SW_ERRLEN], oldtable[SW_TABLE_MAXLEN];
	struct sw_model m;
	int64_t t0 = now_us(), t1, t2, t3;
	int rc, newlock = -1;

	*old = d->cfg;
	rc = sw_config_load(d->config_path, &d->cfg, err, sizeof(err));
	if (!rc)
		rc = reload_allowed(d, old, accept_loss, &newlock, err, sizeof(err));
	t1 = now_us();
	if (rc) {
		d->cfg = *old;
		sw_alert(&d->alert, LOG_ERR, "event=reload-failed error=\"%s\" action=kept-rules", err);
		snprintf(msg, len, "%s", err);
		return rc;
	}
	if (accept_loss && sw_config_loss(old, &d->cfg, err, sizeof(err)))
		sw_alert(&d->alert, LOG_WARNING, "event=reload-loss-accepted config=%s",
			 d->config_path);
	{
		struct sw_resolver prev = d->resolver;

		dns_setup(d, &prev);
	}
	/* the host as the events keep it: a reload reads only the file */
	if ((rc = build_want_from(d, &m, true))) {
		struct sw_resolver prev = d->resolver;

		d->cfg = *old;
		dns_setup(d, &prev);
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
		epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->lockfd,
			  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_LOCK });
	}
	t2 = now_us();
	if (d->cfg.log_facility != old->log_facility)
		sw_log_init("sandwalld", d->foreground, true, d->cfg.log_facility);
	snprintf(oldtable, sizeof(oldtable), "%s", old->table);
	/* the model of a bare host is built when a new link first needs it
	 * (host_fast_update): a reload of 10,000 entries does not wait for a
	 * second build */
	d->fast_base_stale = true;
	if (!strcmp(oldtable, d->cfg.table) && reload_by_deltas(d, &m) == 0) {
		rc = 0;
		netdev_sync(d);         /* its copies of the changed sets */
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
		rc = reconcile(d, SW_CAUSE_RELOAD, "reload", (uint32_t)getpid(), "sandwalld",
			       now_us());
	}
	t3 = now_us();
	sw_owner_ensure(d);
	nflog_setup(d);
	cgroup_setup(d);
	sw_debug("reload: config %lld us, host and model %lld us, kernel %lld us, the rest %lld us",
		 (long long)(t1 - t0), (long long)(t2 - t1), (long long)(t3 - t2),
		 (long long)(now_us() - t3));
	sw_report_coverage(d);
	sw_alert(&d->alert, LOG_NOTICE, "event=reload config=%s result=%s uid=%lld pid=%lld unguarded=%zu",
		 d->config_path, rc ? "failed" : "ok", (long long)d->req_uid, (long long)d->req_pid,
		 d->n_unguarded);
	sw_report_reload(d, rc);
	snprintf(msg, len, "%s", rc ? "reloaded, but the repair failed" : "reloaded and in sync");
	arm_resync(d);
	return rc;
}

/* Does the request change something (remove, reload)? Those are
 * "accepted" when they start and answered when done. */
static bool control_mutates(const char *verb)
{
	return !strcmp(verb, "reload") || !strcmp(verb, "remove");
}

/* The descriptor limit: accept needs one more descriptor, and a listener
 * left readable would wake the loop forever (level-triggered). The spare
 * descriptor is given up to make room (control_spare), the client served
 * in its place and the spare taken again; when even that fails, the
 * listeners sleep for SW_CTL_BACKOFF_MS instead of spinning. */
#define SW_CTL_BACKOFF_MS 200
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

static void control_backoff(struct sw_daemon *d)
{
	if (d->spare_fd < 0)
		d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (d->ctl_sleeping)
		return;
	sw_warn("no descriptor for a client, not even the reserve: the control socket "
		"sleeps for %d ms", SW_CTL_BACKOFF_MS);
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->ctlfd, NULL);
	if (d->lockfd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->lockfd, NULL);
	d->ctl_sleeping = true;
	d->ctl_wake_us = now_us() + SW_CTL_BACKOFF_MS * 1000;
}

/* The listeners back after SW_CTL_BACKOFF_MS (the loop's timeout). */
static void control_wake(struct sw_daemon *d)
{
	if (!d->ctl_sleeping || now_us() < d->ctl_wake_us)
		return;
	d->ctl_sleeping = false;
	if (d->ctlfd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->ctlfd,
			  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_CONTROL });
	if (d->lockfd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->lockfd,
			  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = SLOT_LOCK });
	if (d->spare_fd < 0)
		d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* The sooner of two epoll timeouts (-1: none). */
static int min_timeout(int a, int b)
{
	return a < 0 ? b : b < 0 || a < b ? a : b;
}

static int ctl_timeout(const struct sw_daemon *d)
{
	int64_t left;

	if (!d->ctl_sleeping)
		return -1;
	left = d->ctl_wake_us - now_us();
	return left <= 0 ? 0 : (int)((left + 999) / 1000);
}

/* Someone asked the instance lock who holds it (lock.h): it read our pid
 * from the connection; nothing to say. */
static void handle_lock(struct sw_daemon *d)
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
	if (d->spare_fd < 0)
		d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void control_serve(struct sw_daemon *d, int cfd, const struct sw_control_req *r);

static void handle_control(struct sw_daemon *d)
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
		control_serve(d, cfd, &req);
	/* the reserve again, once the client's descriptor is closed */
	if (d->spare_fd < 0)
		d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void control_serve(struct sw_daemon *d, int cfd, const struct sw_control_req *r)
{
	char rep[SW_CONTROL_REPMAX], msg[SW_ERRLEN];
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
	if (control_mutates(req.verb))
		sw_control_accepted(cfd, &req);
	if (!strcmp(req.verb, "reload")) {
		rc = reload(d, req.accept_loss, msg, sizeof(msg));
		snprintf(rep, sizeof(rep), "%s\nmessage=%s\n", rc ? "error" : "ok", msg);
	} else if (!strcmp(req.verb, "remove")) {
		char err[SW_ERRLEN];
		bool absent;

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
		snprintf(rep, sizeof(rep), "%s\nmessage=%s\n", rc ? "error" : "ok",
			 rc ? err : "table removed; sandwalld paused until reload or restart");
	} else if (!strcmp(req.verb, "status")) {
		snprintf(rep, sizeof(rep),
			 "ok\npid=%d\nuptime=%lld\nmode=%s\npaused=%s\nconfig=%s\ndrifts=%llu\n"
			 "repairs=%llu\nrepair_failures=%llu\nresyncs=%llu\nupdates=%llu\nenobufs=%u\n"
			 "blocked_logged=%llu\n"
			 "dns_names=%zu\ndns_failures=%llu\ndns_last_update_us=%lld\n"
			 "last_drift=%s\nlast_drift_at=%lld\n"
			 "journal_errors=%llu\njournal_error=%s\nattempts_errors=%llu\n"
			 "unguarded=%zu\n",
			 (int)getpid(), (long long)(time(NULL) - d->started), d->mode,
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
	} else {
		snprintf(rep, sizeof(rep), "error\nmessage=unknown request '%.32s'\n", req.verb);
	}
	if (sw_control_reply(cfd, rep) && control_mutates(req.verb))
		sw_warn("the client of '%s' left before the answer; the request was done: %s",
			req.verb, rc ? "it failed" : "it succeeded");
}

/* The long-lived nf_tables socket, which owns the table (and the twin):
 * the one a previous run handed to the service manager's fd store if
 * there is one, so that the table is owned across a restart (no instant
 * in which another process may delete it), else a new one. */
#define SW_FDNAME_OWNER "nft-owner"
static int nl_open_owner(struct sw_daemon *d)
{
	int fd = sw_listen_fd(SW_FDNAME_OWNER), rc;

	if (fd >= 0) {
		if ((rc = sw_nl_adopt(&d->nl, fd)) == 0) {
			sw_info("adopted the nf_tables socket of the previous run (fd store): the "
				"table stayed owned");
			return 0;
		}
		sw_warn("cannot use the stored nf_tables socket: %s; opening a new one",
			strerror(-rc));
		close(fd);
	}
	return sw_nl_open(&d->nl);
}

/* Hand the owning socket to the service manager's fd store (systemd:
 * FileDescriptorStoreMax=), where it outlives us: a kill -9 leaves the
 * table owned until the restarted daemon takes the socket back. */
static void owner_store(struct sw_daemon *d)
{
	int rc;

	if (!(d->own_flags & NFT_TABLE_F_OWNER) && !d->twin)
		return;
	if (!getenv("NOTIFY_SOCKET"))
		return;
	rc = sw_notify_fd("FDSTORE=1\nFDNAME=" SW_FDNAME_OWNER, mnl_socket_get_fd(d->nl.sock));
	if (rc)
		sw_warn("cannot hand the owning socket to the service manager: %s (a restart "
			"leaves the table unowned until it is taken again)", strerror(-rc));
	else
		sw_debug("owning socket handed to the service manager's fd store");
}

/* The instance locks (lock.h): the table's in this network namespace,
 * then the control socket's. -EEXIST: another daemon has one (named). */
static int take_locks(struct sw_daemon *d)
{
	char who[16];
	uid_t uid;
	pid_t pid;

	d->lockfd = sw_lock_table(d->cfg.table, &pid, &uid);
	if (d->lockfd == -EEXIST && uid == 0) {
		sw_err("another sandwalld (pid %s) already guards table inet %s in this network "
		       "namespace; exiting", pid_str(pid, who, sizeof(who)), d->cfg.table);
		return -EEXIST;
	}
	if (d->lockfd == -EEXIST) {
		/* any user may bind an abstract name: not a daemon's, not a
		 * reason to leave the table unguarded */
		sw_warn("the lock name of table inet %s is held by pid %s, not a root process: "
			"going on without it", d->cfg.table, pid_str(pid, who, sizeof(who)));
		d->lockfd = -1;
	} else if (d->lockfd < 0) {
		sw_err("cannot take the lock of table inet %s: %s", d->cfg.table,
		       strerror(-d->lockfd));
		return d->lockfd;
	}
	d->ctl_lockfd = sw_lock_control(d->control_path, &pid);
	if (d->ctl_lockfd == -EEXIST) {
		sw_err("another sandwalld (pid %s) already serves the control socket %s; exiting",
		       pid_str(pid, who, sizeof(who)), d->control_path);
		return -EEXIST;
	}
	if (d->ctl_lockfd < 0)
		sw_warn("cannot lock the control socket %s: %s (no control socket)",
			d->control_path, strerror(-d->ctl_lockfd));
	return 0;
}

static int setup(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	sigset_t mask;
	uint64_t wd;
	int rc;

	d->cgw.fd = -1;
	d->epfd = d->sigfd = d->tfd = d->wdfd = d->ctlfd = d->dnsfd = -1;
	d->lockfd = d->ctl_lockfd = d->spare_fd = -1;
	d->resolver.fd[0] = d->resolver.fd[1] = -1;
	d->started = time(NULL);
	d->req_uid = d->req_pid = -1;
	rc = sw_config_load(d->config_path, &d->cfg, err, sizeof(err));
	if (rc) {
		sw_err("%s", err);
		return rc;
	}
	if (sw_config_is_empty(&d->cfg))
		sw_warn("%s is empty (no section): running with every default", d->config_path);
	/* one daemon per table and per control socket, before anything else */
	if ((rc = take_locks(d)))
		return rc;
	/* the reserve for accept at the descriptor limit (control_backoff):
	 * early, so that at a low limit the operator's way in comes first */
	d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sw_alert_init(&d->alert, ALERTS_PER_SEC, "events");
	sw_alert_init(&d->alert_blocked, ALERTS_PER_SEC, "blocked");
	if (d->cfg.journal_path[0] && (rc = sw_journal_open(&d->journal, d->cfg.journal_path)))
		sw_warn("cannot read the journal %s: %s", d->cfg.journal_path, strerror(-rc));
	/* subscribe before the first dump, so no change falls in between */
	if ((rc = sw_events_open(&d->ev))) {
		sw_err("cannot subscribe to netlink events: %s", strerror(-rc));
		return rc;
	}
	/* without it every repair observes first */
	d->txn_rec = malloc(SW_TXN_REC);
	/* without it the conntrack walk runs in the loop (forget_tick) */
	if ((rc = sw_forget_open(&d->forget)))
		sw_warn("no worker for the conntrack walk after a re-create: %s", strerror(-rc));
	if ((rc = nl_open_owner(d))) {
		sw_err("cannot open the netfilter netlink socket: %s", strerror(-rc));
		return rc;
	}
	if ((rc = sw_nl_open_route(&d->rtdump, 0))) {
		sw_err("cannot open the rtnetlink socket: %s", strerror(-rc));
		return rc;
	}
	if ((rc = build_want(d, &d->want)))
		return rc;
	fast_base_build(d);
	if ((rc = sw_owner_take(d)))
		return rc;
	owner_store(d);
	netdev_sync(d);
	if ((rc = sw_portbind_open_events(&d->bind_ev)))
		sw_warn("no events from the bridge ports' namespaces: %s (bindings follow on the "
			"resync timer only)", strerror(-rc));
	bindtable_sync(d, NULL, 0, true);

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
	d->ctlfd = d->ctl_lockfd >= 0 ? sw_control_listen(d->control_path) : -ENOLCK;
	if (d->ctlfd < 0)
		sw_warn("no control socket at %s: %s (the CLI cannot reach the daemon)",
			d->control_path, strerror(-d->ctlfd));
	arm_resync(d);
	nflog_setup(d);
	cgroup_setup(d);
	d->dnsfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d->dnsfd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->dnsfd,
				      &(struct epoll_event){ .events = EPOLLIN,
							     .data.u32 = SLOT_DNS_TIMER }) < 0) {
		rc = -errno;
		sw_err("cannot set up the resolver's timer: %s", strerror(errno));
		return rc;
	}
	if ((rc = dns_setup(d, NULL)))
		return rc;
	if ((wd = sw_notify_watchdog_usec())) {
		d->wdfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (d->wdfd >= 0)
			arm(d->wdfd, (unsigned)(wd / 2000), (unsigned)(wd / 2000));
	}
	struct { int fd; uint32_t id; } fds[] = {
		{ sw_events_nft_fd(&d->ev), SLOT_NFT }, { sw_events_rt_fd(&d->ev), SLOT_RT },
		{ d->sigfd, SLOT_SIGNAL }, { d->tfd, SLOT_RESYNC }, { d->wdfd, SLOT_WATCHDOG },
		{ d->ctlfd, SLOT_CONTROL }, { sw_forget_fd(d->forget), SLOT_FORGET },
		{ d->bind_ev.rbuf ? sw_nl_fd(&d->bind_ev) : -1, SLOT_BIND },
		{ d->lockfd, SLOT_LOCK },
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
	int fds[] = { d->epfd, d->sigfd, d->tfd, d->wdfd, d->ctlfd, d->dnsfd, d->spare_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* only the owner of the control socket (its lock) unlinks it */
	if (d->ctlfd >= 0 && d->ctl_lockfd >= 0)
		unlink(d->control_path);
	if (d->ctl_lockfd >= 0)
		close(d->ctl_lockfd);
	if (d->lockfd >= 0)
		close(d->lockfd);
	d->ctlfd = d->ctl_lockfd = d->lockfd = d->spare_fd = -1;
	sw_events_close(&d->ev);
	free(d->txn_rec);
	d->txn_rec = NULL;
	sw_forget_close(d->forget);     /* waits for a walk that runs */
	d->forget = NULL;
	sw_cgwatch_close(&d->cgw);
	if (d->nflog.sock)
		sw_nflog_close(&d->nflog);
	/* closing the owner socket leaves a persist table in place */
	if (d->nl.rbuf)
		sw_nl_close(&d->nl);
	if (d->rtdump.rbuf)
		sw_nl_close(&d->rtdump);
	if (d->bind_ev.rbuf)
		sw_nl_close(&d->bind_ev);
	if (d->bind_nl.rbuf)
		sw_nl_close(&d->bind_nl);
	sw_binds_free(&d->binds);
	sw_model_free(&d->want);
	if (d->fast_base_ok)
		sw_model_free(&d->fast_base);
	sw_resolver_free(&d->resolver);
	sw_journal_close(&d->journal);
}

/* The flows opened toward the sandboxes while the table was gone: when no
 * event waits (idle), or at the latest SW_FORGET_MAX_US after the
 * re-create, so that a storm of tampers cannot put it off for long. The
 * walk runs on the worker (forget.h), so the next tamper's repair does
 * not wait for it; one at a time: a re-create meanwhile starts another
 * once it is done. Without a worker, in the loop. */
#define SW_FORGET_MAX_US 20000
static void forget_tick(struct sw_daemon *d, bool idle)
{
	if (!d->forget_pending || sw_forget_running(d->forget) ||
	    (!idle && now_us() - d->forget_since_us < SW_FORGET_MAX_US))
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

int sw_daemon_run(struct sw_daemon *d)
{
	int rc = setup(d);

	if (rc) {
		teardown(d);
		return 2;
	}
	rc = 0;
	/* the start line before READY: whoever waits for READY finds it */
	sw_report_start(d);
	sw_notify("READY=1");
	sw_report_coverage(d);
	/* the generation at which the kernel holds want: host updates start
	 * from it without a dump */
	reconcile(d, SW_CAUSE_RESYNC, NULL, 0, NULL, now_us());

	while (!d->stop) {
		struct epoll_event evs[8];
		/* the sooner of the two deadlines (-1: none) */
		int tf = flush_timeout(d), th = min_timeout(loop_timeout(d), ctl_timeout(d));
		int n = epoll_wait(d->epfd, evs, 8, tf < 0 ? th : th < 0 || tf < th ? tf : th);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sw_err("epoll_wait: %s", strerror(errno));
			rc = 2;
			break;
		}
		forget_tick(d, n == 0);
		for (int i = 0; i < n; i++) {
			uint64_t ticks;

			switch (evs[i].data.u32) {
			case SLOT_NFT:
				handle_nft(d);
				break;
			case SLOT_RT:
				handle_rt(d);
				break;
			case SLOT_SIGNAL: {
				struct signalfd_siginfo si;

				while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
					char msg[SW_ERRLEN];

					/* who sent it: the journal names them */
					d->req_uid = si.ssi_uid;
					d->req_pid = si.ssi_pid;
					if (si.ssi_signo == SIGHUP)
						reload(d, false, msg, sizeof(msg));
					else
						d->stop = true;
				}
				break;
			}
			case SLOT_RESYNC:
				if (read(d->tfd, &ticks, sizeof(ticks)) > 0) {
					full_resync(d);
					sw_report_metrics(d, true);
				}
				break;
			case SLOT_WATCHDOG:
				if (read(d->wdfd, &ticks, sizeof(ticks)) > 0)
					sw_notify("WATCHDOG=1");
				break;
			case SLOT_CONTROL:
				handle_control(d);
				break;
			case SLOT_NFLOG:
				handle_nflog(d);
				break;
			case SLOT_CGROUP:
				handle_cgroup(d, false);
				break;
			case SLOT_DNS:
				handle_dns(d);
				break;
			case SLOT_DNS_TIMER:
				if (read(d->dnsfd, &ticks, sizeof(ticks)) > 0)
					dns_tick(d);
				break;
			case SLOT_FORGET:
				forget_done(d);
				break;
			case SLOT_BIND: {
				int32_t ids[64];
				size_t n_ids;
				int got = sw_portbind_drain(&d->bind_ev, ids, 64, &n_ids);

				if (got)
					bindtable_sync(d, ids, n_ids, got == 2);
				break;
			}
			case SLOT_LOCK:
				handle_lock(d);
				break;
			}
		}
		if (d->host_dirty && now_us() >= d->update_due_us)
			host_delta_update(d);
		else if (d->n_cov_pending && sw_report_coverage_due_ms(d) == 0)
			sw_report_coverage(d);  /* an unguarded link that stayed */
		control_wake(d);
		sw_alert_flush(&d->alert);
		sw_alert_flush(&d->alert_blocked);
		attempts_flush(d, false);
	}
	attempts_flush(d, true);
	sw_notify("STOPPING=1");
	sw_report_stop(d);
	teardown(d);
	return rc;
}
