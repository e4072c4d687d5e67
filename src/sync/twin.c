// SPDX-License-Identifier: GPL-2.0-or-later
/* twin: the desired model's twin table (see include/sync/twin.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ruleset.h"
#include "sync/twin.h"

int sw_twin_name(const char *table, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s" SW_TWIN_SUFFIX, table);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sw_twin_build(const struct sw_config *cfg, const struct sw_host *host, uint32_t flags,
		  struct sw_model *m, char *err, size_t errlen)
{
	struct sw_config *tc = malloc(sizeof(*tc));
	int rc;

	if (!tc) {
		snprintf(err, errlen, "cannot build the twin table: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* a view of cfg with two fields changed: its arrays are cfg's,
	 * read only and never freed through tc */
	memcpy(tc, cfg, sizeof(*tc));
	tc->log_blocked = false;        /* the main table logs; no duplicates */
	rc = sw_twin_name(cfg->table, tc->table, sizeof(tc->table));
	if (rc)
		snprintf(err, errlen, "cannot name the twin of table %s: %s", cfg->table,
			 strerror(-rc));
	else
		rc = sw_ruleset_build(tc, host, m, err, errlen);
	free(tc);
	if (rc)
		return rc;
	for (size_t i = 0; i < m->n_chains; i++)
		if (m->chains[i].base)
			m->chains[i].prio = SW_TWIN_PRIO;
	m->table_flags = flags;
	return 0;
}
