// SPDX-License-Identifier: GPL-2.0-or-later
/* netdev: keep table netdev <name> (the macvlan/ipvlan parents' guard) in
 * step with the config and the host, through reconcile.c's loop. */
#include <errno.h>
#include <string.h>
#include <linux/netfilter.h>

#include "core/desired.h"
#include "sync/netdev.h"
#include "sync/reconcile.h"
#include "core/ruleset.h"

static int build(const struct sw_config *cfg, const struct sw_host *host,
		 const struct sw_model *inet, struct sw_model *m, char *err, size_t errlen)
{
	return sw_desired_netdev(&(struct sw_desired_in){ .cfg = cfg, .host = host }, inet, m,
				 err, errlen);
}

int sw_netdev_check(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *host,
		    const struct sw_model *inet, struct sw_diff *d, char *err, size_t errlen)
{
	struct sw_model want;
	int rc;

	memset(d, 0, sizeof(*d));
	if (!sw_ruleset_netdev_wanted(cfg))
		return 0;
	if ((rc = build(cfg, host, inet, &want, err, errlen)))
		return rc;
	rc = sw_check(nl, &want, d, err, errlen);
	sw_model_free(&want);
	return rc;
}

int sw_netdev_reconcile(struct sw_nl *nl, const struct sw_config *cfg,
			const struct sw_host *host, const struct sw_model *inet, bool force,
			struct sw_diff *d, bool *repaired, size_t *n_parents,
			char *err, size_t errlen)
{
	struct sw_model want;
	bool absent = true;
	int rc;

	memset(d, 0, sizeof(*d));
	*repaired = false;
	if (n_parents)
		*n_parents = 0;
	if (!sw_ruleset_netdev_wanted(cfg)) {
		/* none configured: a table of ours left from before goes */
		rc = sw_netdev_remove(nl, cfg->table, &absent, err, errlen);
		*repaired = !rc && !absent;
		return rc;
	}
	if ((rc = build(cfg, host, inet, &want, err, errlen)))
		return rc;
	if (n_parents)
		*n_parents = sw_ruleset_n_parents(cfg, host);
	if (force) {
		rc = sw_apply(nl, &want, err, errlen);
		*repaired = !rc;
		if (!rc)
			rc = sw_check(nl, &want, d, err, errlen);
		if (!rc && d->n) {
			snprintf(err, errlen, "table netdev %s: the kernel does not hold what was applied",
				 cfg->table);
			rc = -EIO;
		}
	} else {
		rc = sw_reconcile(nl, &want, d, repaired, err, errlen);
	}
	sw_model_free(&want);
	return rc;
}

int sw_netdev_remove(struct sw_nl *nl, const char *table, bool *absent, char *err, size_t errlen)
{
	return sw_remove_family(nl, NFPROTO_NETDEV, table, absent, err, errlen);
}
