// SPDX-License-Identifier: GPL-2.0-or-later
/* desired: the tables sandwall wants, from one inputs struct (see
 * include/core/desired.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/desired.h"
#include "core/holes.h"
#include "core/ruleset.h"

/* The resolved addresses into their host sets (the ruleset leaves them
 * empty: dynamic sets only the resolver fills); a set the model does not
 * have (a sandbox gone since) is skipped. */
static int add_elems(struct sw_model *m, const struct sw_desired_elem *v, size_t n,
		     char *err, size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct sw_set *s = sw_model_find_set(m, v[i].set);

		if (s)
			rc = sw_set_add_elem(s, &v[i].e);
	}
	if (rc)
		snprintf(err, errlen, "cannot fill the host sets: %s", strerror(-rc));
	return rc;
}

int sw_desired_build(const struct sw_desired_in *in, struct sw_model *inet,
		     char *err, size_t errlen)
{
	int rc;

	/* refusals that depend on the host: nothing is built, nothing sent */
	if ((rc = sw_config_check_host(in->cfg, in->host, err, errlen)))
		return rc;
	if ((rc = sw_ruleset_build(in->cfg, in->host, inet, err, errlen)))
		return rc;
	inet->table_flags = in->table_flags;
	/* the hostnames' addresses: a table made from it has them at once */
	if ((rc = add_elems(inet, in->elems, in->n_elems, err, errlen)))
		sw_model_free(inet);
	return rc;
}

int sw_desired_netdev(const struct sw_desired_in *in, const struct sw_model *inet,
		      struct sw_model *netdev, char *err, size_t errlen)
{
	return sw_ruleset_build_netdev(in->cfg, in->host, inet, netdev, err, errlen);
}
