// SPDX-License-Identifier: GPL-2.0-or-later
/* reconcile: desired vs kernel, and the batches that fix it. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "lib/log.h"

#include "kernel/conntrack.h"
#include "kernel/commit.h"
#include "kernel/encode.h"
#include "core/gate.h"
#include "kernel/observe.h"
#include "sync/cgwatch.h"
#include "sync/gatefill.h"
#include "sync/reconcile.h"
#include "sync/twin.h"
#include "core/ruleset.h"

int sw_host_gather(const struct sw_config *cfg, struct sw_host *host, bool links,
		   char *err, size_t errlen)
{
	int rc;

	if (links) {
		sw_host_clear(host);
		rc = sw_host_read(host);
		if (rc) {
			snprintf(err, errlen, "cannot read the host's links, addresses and routes: %s",
				 strerror(-rc));
			return rc;
		}
	}
	/* [guard] cgroups: the matching cgroups' ids (cgwatch.c) */
	if ((rc = sw_cg_scan_host(cfg, host))) {
		snprintf(err, errlen, "cannot read the cgroup tree for [guard] cgroups: %s",
			 strerror(-rc));
		return rc;
	}
	return 0;
}

enum sw_table_owner sw_table_owner(const struct sw_model *h)
{
	bool all_tagged = h->n_rules > 0;

	if (!h->has_table)
		return SW_TABLE_ABSENT;
	if (!h->table_unmarked)
		return SW_TABLE_OURS;
	if (h->table_use == 0 && !h->n_chains && !h->n_sets && !h->n_counters && !h->n_rules)
		return SW_TABLE_EMPTY;
	for (size_t i = 0; i < h->n_rules && all_tagged; i++)
		all_tagged = !strncmp(h->rules[i].tag, SW_TAG_PREFIX, strlen(SW_TAG_PREFIX));
	/* every rule ours, and nothing in it that the model does not see */
	if (all_tagged && h->table_use == h->n_chains + h->n_sets + h->n_counters)
		return SW_TABLE_OURS_UNMARKED;
	return SW_TABLE_FOREIGN;
}

/* May sandwall change (adopt: true) or delete (adopt: false) the observed
 * table? 0, or -EEXIST and err says why not and what to do. */
static int may_touch(const struct sw_model *h, bool adopt, char *err, size_t errlen)
{
	switch (sw_table_owner(h)) {
	case SW_TABLE_ABSENT:
	case SW_TABLE_OURS:
	case SW_TABLE_OURS_UNMARKED:
		return 0;
	case SW_TABLE_EMPTY:
		if (adopt)
			return 0;
		snprintf(err, errlen, "table inet %s is empty and was not created by sandwall "
			 "(no comment \"%s\"): left alone", h->table, SW_TABLE_MARKER);
		return -EEXIST;
	case SW_TABLE_FOREIGN:
		break;
	}
	snprintf(err, errlen, "table inet %s was not created by sandwall (no comment \"%s\"; it "
		 "holds %u chains, sets or objects of another tool): sandwall never changes or "
		 "deletes a table it did not create; set [nft] table to a name of its own (the "
		 "default is sandwall), or delete that table yourself (nft delete table inet %s) "
		 "if nothing uses it", h->table, SW_TABLE_MARKER, h->table_use, h->table);
	return -EEXIST;
}

/* One batch stamped with the generation the diff was made against
 * (SW_GEN_REQUIRE: ERESTART when anything moved since). */
static int send_stamped(struct sw_nl *nl, uint32_t genid, sw_commit_fill build, const void *arg)
{
	return sw_commit(nl, SW_GEN_REQUIRE, &genid, build, arg);
}

/* Build with the current generation id (SW_GEN_CURRENT), send, retry
 * when it moved. Only for a table this process owns (the kernel's owner
 * flag: no one else can have changed it); every other change goes
 * through send_if_ours. */
static int send_with_retry(struct sw_nl *nl, sw_commit_fill build, const void *arg,
			   const char *what, char *err, size_t errlen)
{
	int rc = -ERESTART;

	for (int i = 0; i < SW_APPLY_TRIES && rc == -ERESTART; i++)
		rc = sw_commit(nl, SW_GEN_CURRENT, NULL, build, arg);
	if (rc)
		sw_commit_error(nl, what, rc, err, errlen);
	return rc;
}

static int build_replace(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	return sw_encode_replace(b, nl, arg);
}

static int build_delete(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	return sw_encode_delete(b, nl, arg);
}

struct del_family {
	const char *table;
	uint32_t family;
};

static int build_delete_family(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct del_family *a = arg;

	b->family = a->family;
	return sw_encode_delete(b, nl, a->table);
}

struct refill {
	const struct sw_model *want, *have;
	const struct sw_diff *d;
	bool flush;             /* flush and refill, not element deltas */
};

/* Change every set the diff names, once each: by element deltas, or
 * flushed and refilled. */
static int build_refill(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct refill *r = arg;
	int rc = 0;

	for (size_t i = 0; i < r->d->n && !rc; i++) {
		const char *name = r->d->items[i].set;
		const struct sw_set *w, *h;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = r->d->items[j].set && !strcmp(r->d->items[j].set, name);
		if (seen)
			continue;
		w = sw_model_find_set(r->want, name);
		h = r->have ? sw_model_find_set(r->have, name) : NULL;
		b->family = sw_model_family(r->want);
		if (!r->flush && h)
			rc = sw_encode_set_delta(b, nl, r->want->table, w, h);
		else
			rc = sw_encode_set_refill(b, nl, r->want, w);
	}
	return rc;
}


int sw_update_sets(struct sw_nl *nl, struct sw_model *want, const struct sw_model *old,
		   uint32_t *genid, struct sw_diff *d, char *err, size_t errlen)
{
	struct refill r = { want, old, d, false };
	struct sw_gate_plan p;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = sw_gate_settle(want, old, &p))) {
		snprintf(err, errlen, "cannot settle the gate: %s", strerror(-rc));
		return rc;
	}
	if (p.phase1) {
		/* the gate moves: two commits, after a look at the kernel */
		snprintf(err, errlen, "the gate changes");
		return -ESTALE;
	}
	if ((rc = sw_diff(want, old, d))) {
		snprintf(err, errlen, "cannot compare: %s", strerror(-rc));
		return rc;
	}
	if (!d->n)
		return 0;
	/* only elements of sets both models have: anything else (a rule, a
	 * set's shape) takes the observed path */
	for (size_t i = 0; i < d->n; i++)
		if (!d->items[i].set || !sw_model_find_set(want, d->items[i].set) ||
		    !sw_model_find_set(old, d->items[i].set)) {
			snprintf(err, errlen, "not an element change: %s", d->items[i].desc);
			return -ESTALE;
		}
	/* stamped with *genid, which then becomes the commit's generation */
	if ((rc = sw_commit(nl, SW_GEN_REQUIRE, genid, build_refill, &r))) {
		sw_commit_error(nl, "cannot update the sets", rc, err, errlen);
		return rc;
	}
	return 0;
}

struct flags_arg {
	const char *table;
	uint32_t flags;
};

static int build_flags(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct flags_arg *f = arg;

	return sw_encode_table_flags(b, nl, f->table, f->flags);
}


/* Observe the table, check that it is ours, and send build's batch
 * stamped with the generation that was observed (a table swapped in
 * meanwhile makes the kernel answer ERESTART: observe again). */
static int send_if_ours_family(struct sw_nl *nl, uint32_t family, const char *table, bool adopt,
				sw_commit_fill build, const void *arg, bool *absent, const char *what,
				char *err, size_t errlen)
{
	int rc = -ERESTART;

	*absent = false;        /* a table that could not be read is not absent */
	for (int i = 0; i < SW_APPLY_TRIES && rc == -ERESTART; i++) {
		struct sw_model have;

		if ((rc = sw_observe_family(nl, family, table, &have))) {
			sw_commit_error(nl, "cannot read the ruleset", rc, err, errlen);
			return rc;
		}
		*absent = !have.has_table;
		if (!*absent && !(rc = may_touch(&have, adopt, err, errlen)))
			rc = send_stamped(nl, have.genid, build, arg);
		sw_model_free(&have);
		if (*absent || rc == -EEXIST)
			return rc;
	}
	if (rc)
		sw_commit_error(nl, what, rc, err, errlen);
	return rc;
}

static int send_if_ours(struct sw_nl *nl, const char *table, bool adopt, sw_commit_fill build,
			const void *arg, bool *absent, const char *what, char *err, size_t errlen)
{
	return send_if_ours_family(nl, NFPROTO_INET, table, adopt, build, arg, absent, what,
				   err, errlen);
}

int sw_remove_family(struct sw_nl *nl, uint32_t family, const char *table, bool *absent,
		     char *err, size_t errlen)
{
	struct del_family a = { table, family };
	int rc = send_if_ours_family(nl, family, table, false, build_delete_family, &a, absent,
				     "cannot delete the table", err, errlen);

	if (rc == -ENOENT)
		*absent = true;
	return *absent ? 0 : rc;
}

int sw_set_table_flags(struct sw_nl *nl, const char *table, uint32_t flags,
		       char *err, size_t errlen)
{
	struct flags_arg f = { table, flags };
	bool absent = false;
	int rc = send_if_ours(nl, table, false, build_flags, &f, &absent,
			      "cannot set the table flags", err, errlen);

	if (!rc && absent) {
		snprintf(err, errlen, "cannot set the table flags: table inet %s is gone", table);
		rc = -ENOENT;
	}
	return rc;
}

int sw_remove(struct sw_nl *nl, const char *table, bool *absent, char *err, size_t errlen)
{
	int rc = send_if_ours(nl, table, false, build_delete, table, absent,
			      "cannot delete the table", err, errlen);

	if (rc == -ENOENT)
		*absent = true;
	return *absent ? 0 : rc;
}

/* sw_check, and the generation it saw (*gen, when in sync) */
static int check_gen(struct sw_nl *nl, struct sw_model *want, struct sw_diff *d,
		     uint32_t *gen, uint32_t *seen, char *err, size_t errlen)
{
	struct sw_gate_plan p;
	struct sw_model have;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = sw_observe_family(nl, sw_model_family(want), want->table, &have);
	if (rc) {
		sw_commit_error(nl, "cannot read the ruleset", rc, err, errlen);
		return rc;
	}
	/* another tool's table is not drift: it is an error; the gate's
	 * buffer that is not selected is not compared */
	if (!(rc = may_touch(&have, true, err, errlen)) && !(rc = sw_gate_settle(want, &have, &p)) &&
	    (rc = sw_diff(want, &have, d)))
		snprintf(err, errlen, "cannot compare: %s", strerror(-rc));
	if (!rc && !d->n && gen)
		*gen = have.genid;
	if (seen)
		*seen = have.genid;
	sw_model_free(&have);
	return rc;
}

int sw_check(struct sw_nl *nl, struct sw_model *want, struct sw_diff *d,
	     char *err, size_t errlen)
{
	return check_gen(nl, want, d, NULL, NULL, err, errlen);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int build_create(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	return sw_encode_create(b, nl, arg);
}

/* The table was just (re)created: a flow a sandbox primed with a forged
 * packet while there was none would still pass as "replies" (see
 * conntrack.h). Forget every flow opened toward a sandbox. */
static void forget_primed(struct sw_nl *nl, const struct sw_model *want)
{
	size_t n = 0;
	int rc;

	if (sw_model_family(want) != NFPROTO_INET)
		return;         /* the parents' table: no flows toward the sandboxes to forget */
	rc = sw_ct_forget_inbound(nl, want, &n);
	sw_reconcile_forget_report(want->table, rc, n);
}

void sw_reconcile_forget_report(const char *table, int rc, size_t n)
{
	if (rc)
		sw_err("table inet %s is in place, but the connections opened toward the sandboxes "
		       "before it could not be cleared: %s", table, strerror(-rc));
	else if (n)
		sw_info("event=forget table=inet/%s connections=%zu reason=\"opened toward the "
			"sandboxes while the table was not in place\"", table, n);
}

void sw_reconcile_forget(struct sw_nl *nl, const struct sw_model *want)
{
	forget_primed(nl, want);
}

/* After a create: forget what came before, now or (hint->defer_forget)
 * by the caller, later (hint->forget_due). */
static void created(struct sw_nl *nl, const struct sw_model *want, struct sw_hint *hint)
{
	if (hint && hint->defer_forget)
		hint->forget_due = true;
	else
		forget_primed(nl, want);
}

/* create, then forget what came before */
static int create(struct sw_nl *nl, uint32_t genid, const struct sw_model *want,
		  struct sw_hint *hint)
{
	int rc = send_stamped(nl, genid, build_create, want);

	if (!rc)
		created(nl, want, hint);
	return rc;
}


struct update {
	const struct sw_model *want, *have;
	unsigned how;           /* SW_UPDATE_CHAINS, SW_UPDATE_FLUSH_SETS */
};

static int build_update(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct update *u = arg;

	return sw_encode_update(b, nl, u->want, u->have, u->how);
}

/* Adopt an orphaned persistent table and fix it in the same batch. */
static int build_adopt_update(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct update *u = arg;
	int err = sw_encode_table_flags(b, nl, u->want->table, u->want->table_flags);

	return err ? err : sw_encode_update(b, nl, u->want, u->have, u->how);
}

#define OWN_FLAGS (NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST)

struct twin {
	const struct sw_model *want;
	char name[SW_NAME_MAX + sizeof(SW_HANDOVER_SUFFIX)];
};

static int build_twin(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct twin *t = arg;

	/* owned by this socket: if we die half-way, the kernel removes it */
	return sw_encode_twin(b, nl, t->want, t->name, NFT_TABLE_F_OWNER);
}

static int build_twin_delete(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	return sw_encode_delete(b, nl, ((const struct twin *)arg)->name);
}

/* Replace the table (to take ownership) with no instant without the
 * blocks. A batch that deletes and adds a table swaps the hooks at
 * commit, and packets pass in between (flood tests saw it). So a twin
 * table with the same blocks goes in first, in its own batch, the table
 * is replaced, and the twin goes. Every step is a separate commit; at
 * every instant at least one complete table is registered. */
/* An empty table <table>_handover with these flags, made and deleted at
 * once: does the kernel take the flags? Asked before any batch that would
 * delete our table, because on some kernels (6.1) even a refused batch
 * that deletes a base chain lets packets through while it is undone. An
 * empty table hooks nothing. */
static int build_probe(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct twin *t = arg;
	struct sw_model empty;
	int err;

	sw_model_init(&empty, t->name);
	err = sw_encode_twin(b, nl, &empty, t->name, t->want->table_flags);
	sw_model_free(&empty);
	return err;
}

static int takeover(struct sw_nl *nl, const struct sw_model *want, uint32_t genid)
{
	struct twin t = { .want = want };
	enum sw_gen_policy twin_gen = SW_GEN_REQUIRE;     /* the generation seen */
	int rc, rc2;
	char err[128];

	/* not <table>_twin: in mode twin the long-lived twin stays meanwhile */
	if (snprintf(t.name, sizeof(t.name), "%s" SW_HANDOVER_SUFFIX, want->table) >=
	    (int)sizeof(t.name))
		return -ENAMETOOLONG;
	if (want->table_flags) {
		if ((rc = send_with_retry(nl, build_probe, &t, "probe", err, sizeof(err))))
			return rc;      /* the flags are refused: our table is untouched */
		if ((rc = send_with_retry(nl, build_twin_delete, &t, "probe", err, sizeof(err))))
			return rc;
		twin_gen = SW_GEN_CURRENT;      /* the probe's commits moved it */
	}
	if ((rc = sw_commit(nl, twin_gen, &genid, build_twin, &t)))
		return rc;
	/* stamped with the generation after the twin: a change by someone
	 * else in between makes the kernel say ERESTART, and we start over */
	rc = sw_commit(nl, SW_GEN_CURRENT, NULL, build_replace, want);
	rc2 = send_with_retry(nl, build_twin_delete, &t, "cannot delete the handover table",
			      err, sizeof(err));
	if (rc2 && rc2 != -ENOENT)
		sw_warn("%s", err);
	return rc;
}

/* The batch that makes the kernel hold want, given what it holds. */
static int send_fix(struct sw_nl *nl, const struct sw_model *want, const struct sw_model *have,
		    const struct sw_diff *d, bool full, bool *multi, struct sw_hint *hint)
{
	struct refill r = { want, have, d, false };
	/* apply --force: every chain rewritten; sets still by deltas (a
	 * flushed interval set is refilled in place, and on 6.1 and 6.12
	 * under load a lookup meanwhile can miss: check-kernels saw it) */
	struct update u = { want, have, full ? SW_UPDATE_CHAINS : 0 };
	bool only_elems = !full && d && d->n > 0;
	int rc;

	*multi = false;
	for (size_t j = 0; d && j < d->n && only_elems; j++)
		only_elems = d->items[j].set && sw_model_find_set(want, d->items[j].set);
	if (!have->has_table)
		return create(nl, have->genid, want, hint);
	/* the marker can only come with the table: replace an unmarked one
	 * (may_touch refused any but these): one with our rules behind a
	 * twin, with no gap; an empty one hooks nothing, so it is like a
	 * create (and what came before is forgotten the same way) */
	if (have->table_unmarked && sw_table_owner(have) != SW_TABLE_EMPTY) {
		*multi = true;          /* twin, replace, twin gone: several commits */
		return takeover(nl, want, have->genid);
	}
	if (have->table_unmarked) {
		rc = send_stamped(nl, have->genid, build_replace, want);

		if (!rc)
			created(nl, want, hint);
		return rc;
	}
	/* ownership flags cannot change on a live table: replace it, but
	 * only to take ownership; without it, fix the table in place and
	 * leave its flags (e.g. persist, left by a stopped daemon) alone */
	if ((want->table_flags & OWN_FLAGS) &&
	    (have->table_flags & OWN_FLAGS) != (want->table_flags & OWN_FLAGS)) {
		/* an orphan with the same persist flag can be adopted in place */
		if ((have->table_flags & OWN_FLAGS) == NFT_TABLE_F_PERSIST &&
		    (want->table_flags & NFT_TABLE_F_PERSIST))
			return send_stamped(nl, have->genid, build_adopt_update, &u);
		*multi = true;
		return takeover(nl, want, have->genid);
	}
	/* element deltas first; if the kernel refuses one (an element that
	 * is not where the dump said: ENOENT, EEXIST, an interval overlap),
	 * flush and refill, as a new batch */
	if (only_elems) {
		rc = send_stamped(nl, have->genid, build_refill, &r);
		if (sw_encode_delta_refused(rc)) {
			r.flush = true;
			rc = send_stamped(nl, have->genid, build_refill, &r);
		}
		return rc;
	}
	rc = send_stamped(nl, have->genid, build_update, &u);
	if (sw_encode_delta_refused(rc)) {
		u.how |= SW_UPDATE_FLUSH_SETS;
		rc = send_stamped(nl, have->genid, build_update, &u);
	}
	return rc;
}

int sw_apply(struct sw_nl *nl, struct sw_model *want, char *err, size_t errlen)
{
	bool multi;
	int rc = -ERESTART;

	for (int i = 0; i < SW_APPLY_TRIES && rc == -ERESTART; i++) {
		struct sw_model have;

		if ((rc = sw_observe_family(nl, sw_model_family(want), want->table, &have))) {
			sw_commit_error(nl, "cannot read the ruleset", rc, err, errlen);
			return rc;
		}
		if ((rc = may_touch(&have, true, err, errlen))) {
			sw_model_free(&have);
			return rc;
		}
		if (!(rc = sw_gate_fill(nl, want, &have)))
			rc = send_fix(nl, want, &have, NULL, true, &multi, NULL);
		sw_model_free(&have);
	}
	if (rc)
		sw_commit_error(nl, "cannot apply the ruleset", rc, err, errlen);
	return rc;
}

int sw_reconcile(struct sw_nl *nl, struct sw_model *want, struct sw_diff *d,
		 bool *repaired, char *err, size_t errlen)
{
	return sw_reconcile_hint(nl, want, NULL, d, repaired, err, errlen);
}

/* The repair derived from the events (sw_hint.txn): the kernel's table
 * as they say it is (sw_model_from_events), the same fix as after a dump,
 * stamped with the transaction's generation. 0: committed, *expect the
 * generation it made; any error: nothing committed, observe. */
static int derived_fix(struct sw_nl *nl, struct sw_model *want, struct sw_hint *hint,
		       struct sw_diff *d, uint32_t *expect, int64_t *t1)
{
	struct sw_gate_plan p;
	struct sw_model have;
	bool multi = false;
	int rc = sw_model_from_events(want, hint->txn, hint->txn_len, hint->genid, &have);

	if (!rc && !(rc = sw_gate_settle(want, &have, &p)) && p.phase1)
		rc = -ESTALE;           /* the gate moves: two commits, observed */
	if (!rc)
		rc = sw_diff(want, &have, d);
	if (!rc && !d->n)
		rc = -ENODATA;          /* nothing we compare changed: observe to be sure */
	*t1 = now_us();
	if (!rc)
		rc = send_fix(nl, want, &have, d, false, &multi, hint);
	if (!rc)
		*expect = multi ? 0 : sw_gen_after(have.genid);
	sw_model_free(&have);
	if (rc)
		sw_diff_free(d);
	return rc;
}

int sw_reconcile_hint(struct sw_nl *nl, struct sw_model *want, struct sw_hint *hint,
		      struct sw_diff *d, bool *repaired, char *err, size_t errlen)
{
	struct sw_diff after;
	int64_t t0 = now_us(), t1 = 0, t2;
	uint32_t expect = 0, seen = 0; /* the generation our commit made; the read-back's */
	bool multi = false;
	int rc = -ERESTART;

	*repaired = false;
	memset(d, 0, sizeof(*d));
	if (hint)
		hint->derived = false;
	/* the event said the table was deleted at generation g: re-create it
	 * at once, without a dump; if anything moved since, the kernel says
	 * ERESTART and the ordinary path below takes over */
	if (hint && hint->table_deleted) {
		t1 = t0;
		rc = create(nl, hint->genid, want, hint);
		if (rc == 0) {
			d->n = 0;
			expect = sw_gen_after(hint->genid);
			hint->derived = true;
			goto committed;
		}
		rc = -ERESTART;
	} else if (hint && hint->txn && hint->base_genid &&
		   hint->genid == sw_gen_after(hint->base_genid)) {
		/* the one transaction since the kernel held want: repair
		 * what its events say, without a dump */
		if (derived_fix(nl, want, hint, d, &expect, &t1) == 0) {
			hint->derived = true;
			goto committed;
		}
		memset(d, 0, sizeof(*d));
	}
	for (int i = 0; i < SW_APPLY_TRIES && rc == -ERESTART; i++) {
		struct sw_model have;

		sw_diff_free(d);
		if ((rc = sw_observe_family(nl, sw_model_family(want), want->table, &have))) {
			sw_commit_error(nl, "cannot read the ruleset", rc, err, errlen);
			return rc;
		}
		if ((rc = may_touch(&have, true, err, errlen))) {
			sw_model_free(&have);
			return rc;
		}
		if ((rc = sw_gate_fill(nl, want, &have))) {
			sw_model_free(&have);
			if (rc == -ERESTART)
				continue;
			sw_commit_error(nl, "cannot fill the gate", rc, err, errlen);
			return rc;
		}
		if ((rc = sw_diff(want, &have, d))) {
			sw_model_free(&have);
			snprintf(err, errlen, "cannot compare: %s", strerror(-rc));
			return rc;
		}
		if (d->n == 0) {
			if (hint)
				hint->synced_genid = have.genid;
			sw_model_free(&have);
			return 0;
		}
		t1 = now_us();
		/* the smallest batch that fixes it, stamped with the generation
		 * the diff saw: if anything moved since, ERESTART and again */
		rc = send_fix(nl, want, &have, d, false, &multi, hint);
		expect = multi ? 0 : sw_gen_after(have.genid);
		sw_model_free(&have);
	}
	if (rc) {
		sw_commit_error(nl, "cannot repair the ruleset", rc, err, errlen);
		return rc;
	}
committed:
	*repaired = true;
	t2 = now_us();
	if (hint)
		hint->committed_us = t2;
	rc = check_gen(nl, want, &after, hint ? &hint->synced_genid : NULL, &seen, err, errlen);
	sw_debug("reconcile: %s %lld us, repair %lld us, read back %lld us",
		 hint && hint->derived ? "derived" : "check",
		 (long long)(t1 - t0), (long long)(t2 - t1), (long long)(now_us() - t2));
	if (rc)
		return rc;
	if (after.n) {
		char s[512];

		sw_diff_summary(&after, s, sizeof(s));
		/* a commit by someone else came after ours (the generation
		 * moved past it): our repair held, theirs is new drift */
		if (expect && seen != expect) {
			snprintf(err, errlen, "changed again after the repair (generation %u, "
				 "repaired at %u): %s", seen, expect, s);
			rc = -EAGAIN;
		} else {
			snprintf(err, errlen, "the kernel does not hold what was applied: %s", s);
			rc = -EIO;
		}
	}
	sw_diff_free(&after);
	return rc;
}

int sw_reconcile_settle(struct sw_nl *nl, struct sw_model *want, struct sw_hint *hint,
			int tries, struct sw_diff *d, bool *repaired, char *first, size_t firstlen,
			char *err, size_t errlen)
{
	struct sw_hint h = hint ? *hint : (struct sw_hint){ 0 };
	int64_t committed = 0;
	int rc = -EIO;

	*repaired = false;
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < tries && (rc == -EIO || rc == -EAGAIN); i++) {
		bool rep = false;

		if (i) {
			/* the tamper that overtook the read-back is drift like any
			 * other: compare and repair again, observing first */
			sw_diff_free(d);
			h.table_deleted = false;
			h.txn = NULL;
		}
		h.synced_genid = 0;
		h.committed_us = 0;
		rc = sw_reconcile_hint(nl, want, &h, d, &rep, err, errlen);
		*repaired |= rep;
		if (!committed && h.committed_us)
			committed = h.committed_us;
		if (i == 0 && first)
			sw_diff_summary(d, first, firstlen);
	}
	if (hint) {
		h.committed_us = committed;     /* the first repair restored the blocks */
		*hint = h;
	}
	return rc;
}
