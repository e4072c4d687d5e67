// SPDX-License-Identifier: GPL-2.0-or-later
/* apply (include/cli/apply.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/apply.h"
#include "cli/daemonctl.h"
#include "cli/lint.h"
#include "core/coverage.h"
#include "core/diff.h"
#include "core/ruleset.h"
#include "host/resolver.h"
#include "lib/log.h"
#include "sync/bindtable.h"
#include "sync/netdev.h"
#include "sync/reconcile.h"

static size_t count_elems(const struct sw_model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_sets; i++)
		n += m->sets[i].n_elems;
	return n;
}

static int cmd_apply(struct sw_nl *nl, const struct sw_config *cfg, struct sw_model *want,
		     bool force)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	bool repaired = false;
	int rc;

	if (force) {
		/* rewrite every chain in place, then read back */
		if ((rc = sw_apply(nl, want, err, sizeof(err)))) {
			sw_cli_table_err(cfg, rc, err, "; the kernel kept its previous ruleset");
			return EXIT_ERR;
		}
		if ((rc = sw_check(nl, want, &d, err, sizeof(err)))) {
			sw_err("applied, but %s", err);
			return EXIT_ERR;
		}
		if (d.n) {
			sw_err("applied, but the kernel does not hold the same ruleset:");
			sw_diff_print(&d, stderr);
			sw_diff_free(&d);
			return EXIT_ERR;
		}
		repaired = true;
	} else if ((rc = sw_reconcile(nl, want, &d, &repaired, err, sizeof(err)))) {
		sw_cli_table_err(cfg, rc, err, repaired ? "" : "; the kernel kept its previous ruleset");
		sw_diff_free(&d);
		return EXIT_ERR;
	}
	if (repaired)
		sw_cli_journal(cfg, SW_JE_APPLIED, force ? "sandwall apply --force" : "sandwall apply", 0);
	if (!repaired)
		printf("table inet %s already in place: %zu chains, %zu rules, %zu sets, %zu elements\n",
		       want->table, want->n_chains, want->n_rules, want->n_sets, count_elems(want));
	else
		printf("applied table inet %s (%s): %zu chains, %zu rules, %zu sets, %zu elements; read back identical\n",
		       want->table, force ? "rewritten" : d.n == 1 && d.items[0].kind == SW_DIFF_MISSING &&
		       !strcmp(d.items[0].object, "table") ?
		       "created" : "updated", want->n_chains, want->n_rules, want->n_sets, count_elems(want));
	sw_diff_free(&d);
	return 0;
}

/* table netdev <name>, the macvlan/ipvlan parents' guard (netdev.h),
 * after table inet <name> */
static int netdev_apply(struct sw_cli_run *x)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	bool repaired = false;
	size_t n = 0;
	int rc = sw_netdev_reconcile(x->nl, x->cfg, x->host, x->want, x->o->force, &d, &repaired,
				     &n, err, sizeof(err));

	sw_diff_free(&d);
	if (rc) {
		sw_cli_table_err(x->cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (sw_ruleset_parents_on(x->cfg))
		printf("%s table netdev %s: %zu macvlan/ipvlan parent(s) guarded\n",
		       repaired ? "applied" : "in place:", x->cfg->table, n);
	else if (x->cfg->n_users)
		printf("%s table netdev %s: the guarded users' packet sockets stopped on the uplinks and lo\n",
		       repaired ? "applied" : "in place:", x->cfg->table);
	else if (repaired)
		printf("removed table netdev %s ([guard] macvlan_parents and users are empty)\n", x->cfg->table);
	return 0;
}

/* table bridge <name>, each bridge port bound to its own addresses
 * (bindtable.h), after table inet <name> */
static int bindtable_apply(struct sw_cli_run *x)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	bool repaired = false;
	size_t n = 0;
	int rc = sw_bindtable_reconcile(x->nl, x->cfg, x->host, x->o->force, &d, &repaired, &n,
					err, sizeof(err));

	sw_diff_free(&d);
	if (rc) {
		sw_cli_table_err(x->cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (sw_portbind_wanted(x->cfg))
		printf("%s table bridge %s: %zu bridge port(s) bound to their addresses\n",
		       repaired ? "applied" : "in place:", x->cfg->table, n);
	else if (repaired)
		printf("removed table bridge %s (no sandbox keys on a source)\n", x->cfg->table);
	return 0;
}

/* Without sandwalld, apply resolves the allowlists' hostnames once
 * (waiting SW_APPLY_DNS_MS at most) so that they work at once; their
 * elements then time out with their clamped TTL, as nobody refreshes them
 * (docs/config.md: run sandwalld for hostnames). */
#define SW_APPLY_DNS_MS 3000

int sw_cli_apply(struct sw_cli_run *x)
{
	struct sw_resolver r;
	int rc;

	if (sw_cli_daemon_refuses_apply(x->o))
		return EXIT_ERR;
	if (sw_cli_owned(x->nl, x->want->table))
		return sw_cli_via_daemon(x->o, sw_cli_reload_req(x->o), x->want->table);
	/* an empty file is far likelier a truncated one than a wish for every
	 * default (rules/sandwall.conf spells those out) */
	if (sw_config_is_empty(x->cfg) && !x->o->accept_loss) {
		sw_err("%s:1: the file is empty (no section): refused, nothing was changed (to "
		       "apply every default anyway: --accept-loss)", x->cfg->path);
		return EXIT_ERR;
	}
	if ((rc = sw_resolver_init(&r, x->cfg, x->host, NULL))) {
		sw_err("cannot set up the resolver: %s", strerror(-rc));
		return EXIT_ERR;
	}
	if (r.n_names) {
		int got = sw_resolver_once(&r, SW_APPLY_DNS_MS);

		if (got < (int)r.n_names)
			sw_warn("%d of %zu allowlist hostnames resolved; the others allow nothing "
				"until sandwalld resolves them", got < 0 ? 0 : got, r.n_names);
		sw_resolver_fill(&r, x->want, sw_resolver_now_ms());
	}
	rc = cmd_apply(x->nl, x->cfg, x->want, x->o->force);
	if (!rc && r.n_names) {
		const char *t = x->want->table;

		/* the table was already in place: its host sets get them now */
		if (sw_resolver_push(&r, x->nl, &t, 1, sw_resolver_now_ms()))
			rc = EXIT_ERR;
	}
	sw_resolver_free(&r);
	if (!rc)
		rc = netdev_apply(x);
	if (!rc)
		sw_cli_lint_warn(x->cfg, x->host);
	return rc ? rc : bindtable_apply(x);
}
