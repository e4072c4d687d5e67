// SPDX-License-Identifier: GPL-2.0-or-later
/* logkind: the words of sandwall's log prefixes (include/core/logkind.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/logkind.h"

const struct sw_logkind_info sw_logkinds[SW_LK_COUNT] = {
	[SW_LK_CATEGORY] = { NULL, false, NULL, NULL },
	[SW_LK_EGRESS] = { "egress", true, NULL, NULL },
	[SW_LK_QUARANTINE] = { "quarantine", true, NULL, NULL },
	[SW_LK_CONNS] = { "connections", true, "max-connections", "max_connections exceeded" },
	[SW_LK_BUDGET] = { "budget", true, "budget", NULL },
	[SW_LK_TRIPPED] = { "tripped", true, NULL, NULL },
	[SW_LK_DNS] = { "dns", false, NULL, NULL },
};

int sw_logkind_prefix(enum sw_logkind k, const char *what, char *buf, size_t len)
{
	const struct sw_logkind_info *i;
	int n;

	if ((size_t)k >= SW_LK_COUNT)
		return -EINVAL;
	i = &sw_logkinds[k];
	if ((!i->word || i->per_sandbox) && (!what || !what[0]))
		return -EINVAL;
	if (!i->word)
		n = snprintf(buf, len, SW_LOG_PREFIX "%s ", what);
	else if (i->per_sandbox)
		n = snprintf(buf, len, SW_LOG_PREFIX "%s:%s ", i->word, what);
	else
		n = snprintf(buf, len, SW_LOG_PREFIX "%s ", i->word);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sw_logkind_of(const char *word, enum sw_category *cat)
{
	int c;

	for (int k = 0; k < SW_LK_COUNT; k++)
		if (sw_logkinds[k].word && !strcmp(sw_logkinds[k].word, word))
			return k;
	if ((c = sw_category_lookup(word)) < 0)
		return -ENOENT;
	if (cat)
		*cat = (enum sw_category)c;
	return SW_LK_CATEGORY;
}
