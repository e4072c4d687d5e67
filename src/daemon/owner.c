// SPDX-License-Identifier: GPL-2.0-or-later
/* owner: who holds the table (see include/daemon/owner.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <linux/netfilter/nf_tables.h>

#include "core/diff.h"
#include "kernel/encode.h"
#include "lib/log.h"
#include "kernel/observe.h"
#include "daemon/owner.h"
#include "sync/reconcile.h"

/* Mode twin: bring table <table>_twin (owned by our socket: nobody else
 * can change or delete it, `nft flush ruleset` skips it, and it dies with
 * us) to the desired blocks. Only we change it, so this runs when the
 * desired model moves, not on every drift. */
int sw_owner_twin_sync(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	struct sw_model m;
	struct sw_diff diff;
	bool repaired;
	int rc;

	if (!d->twin || d->paused)
		return 0;
	rc = sw_twin_build(&d->cfg, &d->host, NFT_TABLE_F_OWNER, &m, err, sizeof(err));
	/* the twin holds the hostnames' addresses too (resolver.h) */
	if (!rc && (rc = sw_resolver_fill(&d->resolver, &m, sw_resolver_now_ms()))) {
		snprintf(err, sizeof(err), "cannot fill the twin's host sets: %s", strerror(-rc));
		sw_model_free(&m);
	} else if (!rc) {
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
void sw_owner_twin_remove(struct sw_daemon *d, const char *table)
{
	char err[SW_ERRLEN], name[SW_NAME_MAX + sizeof(SW_TWIN_SUFFIX)];
	bool absent;

	if (d->twin && sw_twin_name(table, name, sizeof(name)) == 0 &&
	    sw_remove(&d->nl, name, &absent, err, sizeof(err)))
		sw_warn("%s", err);
}

/* batch: add table inet <table>_probe { flags F; }; delete table inet
 * <table>_probe. The kernel checks the flags at the add (EOPNOTSUPP for
 * one it does not know); the table never outlives the batch and, empty,
 * hooks nothing. */
struct flag_probe {
	const char *name;
	uint32_t flags;
};

static int build_flag_probe(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct flag_probe *p = arg;
	struct sw_model empty;
	int err;

	sw_model_init(&empty, p->name);
	err = sw_encode_twin(b, nl, &empty, p->name, p->flags);
	sw_model_free(&empty);
	return err ? err : sw_encode_delete(b, nl, p->name);
}

/* Does the kernel take these table flags? 1 yes, 0 no, or -errno when
 * the question could not be asked. */
static int flags_supported(struct sw_nl *nl, const char *table, uint32_t flags)
{
	char name[SW_NAME_MAX + sizeof(SW_PROBE_SUFFIX)];
	struct flag_probe p = { name, flags };
	int rc;

	if (snprintf(name, sizeof(name), "%s" SW_PROBE_SUFFIX, table) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	/* unstamped: the probe's table is made and gone in the one batch */
	rc = sw_commit(nl, SW_GEN_NONE, NULL, build_flag_probe, &p);
	if (rc == -EOPNOTSUPP || rc == -EINVAL)
		return 0;
	return rc ? rc : 1;
}

/* Take the table: owner+persist where the kernel has them, adopting an
 * orphaned table; else (owner without persist, kernels before 6.9) an
 * unowned table plus an owned twin; otherwise watch and repair only. The
 * kernel's flags are asked first, with an empty table made and deleted
 * in one batch: a refusal of the real table is then an error, never
 * mistaken for a missing flag. */
int sw_owner_take(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	struct sw_model have;
	struct sw_diff diff;
	/* the main table's flags per try; TWIN: flags 0 and an owned twin */
	enum { TWIN = 1u << 31 };
	uint32_t tries[2];
	int n = 0, rc = 0, persist = 0, owner = 0;

	if (d->cfg.owner != SW_OWNER_NO) {
		persist = flags_supported(&d->nl, d->cfg.table,
					  NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST);
		if (persist == -EEXIST) {
			/* created with EXCL: a table of that name is someone
			 * else's, and is left alone; ask by trying instead */
			sw_warn("table inet %s" SW_PROBE_SUFFIX " exists (not ours): assuming the "
				"kernel has the owner and persist flags", d->cfg.table);
			persist = 1;
		}
		owner = persist > 0 ? 1 : flags_supported(&d->nl, d->cfg.table, NFT_TABLE_F_OWNER);
		if (persist < 0 || owner < 0) {
			rc = persist < 0 ? persist : owner;
			sw_err("cannot ask the kernel which table flags it has: %s", strerror(-rc));
			return rc;
		}
		sw_info("table flags: owner %s, persist %s", owner ? "yes" : "no",
			persist ? "yes" : "no");
	}
	switch (d->cfg.owner) {
	case SW_OWNER_AUTO:
		tries[n++] = persist ? NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST : owner ? TWIN : 0;
		break;
	case SW_OWNER_YES:          /* asked for: owner even without persist */
		if (!owner) {
			sw_err("[daemon] owner = yes, but the kernel has no owner flag for tables");
			return -EOPNOTSUPP;
		}
		tries[n++] = persist ? NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST : NFT_TABLE_F_OWNER;
		break;
	case SW_OWNER_TWIN:         /* also the test switch on a kernel with persist */
		tries[n++] = owner ? TWIN : 0;
		break;
	case SW_OWNER_NO:
		tries[n++] = 0;
		break;
	}

	for (int i = 0; i < n; i++) {
		if (tries[i] == TWIN) {
			d->own_flags = d->want.table_flags = 0;
			d->mode = "twin";
			d->twin = true;
			if ((rc = sw_apply(&d->nl, &d->want, err, sizeof(err))))
				break;
			if ((rc = sw_owner_twin_sync(d)) == 0)
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
		break;
	}
	if (n == 0 || rc == 0)
		return rc;
	sw_err("%s", err);
	return rc;
}

/* The table must stay ours: after `sandwall remove` + a direct apply, or
 * any other way it lost its owner, take it back. */
void sw_owner_ensure(struct sw_daemon *d)
{
	bool present = false;
	uint32_t flags = 0;

	if (!d->own_flags || d->paused ||
	    sw_observe_table(&d->nl, d->cfg.table, &present, &flags) || !present ||
	    (flags & NFT_TABLE_F_OWNER))
		return;
	if (sw_owner_take(d) == 0)
		sw_alert(&d->alert, LOG_NOTICE, "event=owner action=retaken table=inet/%s mode=%s",
			 d->cfg.table, d->mode);
}

