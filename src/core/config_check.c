/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_check: the parse with the whole-file hole check (see
 * include/core/config_check.h). */
#include <errno.h>
#include <stdio.h>

#include "core/config_check.h"
#include "core/holes.h"

/* The first [allow] entry that reopens an enabled block category without
 * saying so, of those the host does not decide (sw_config_check_fn). */
static int check_reopen(const struct sw_config *cfg, unsigned *line, char *msg, size_t len)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], p[SW_ADDR_STRLEN];

	for (size_t i = 0; i < cfg->n_allows; i++) {
		const struct sw_allow *a = &cfg->allows[i];

		if (a->reopen || !sw_allow_holes(cfg, NULL, a, h, 1))
			continue;
		sw_allow_format(a, e, sizeof(e));
		sw_prefix_format(&h[0].blocked, p, sizeof(p));
		*line = a->line;
		snprintf(msg, len, "[allow] destinations entry '%s' reopens %s (%s), which [block] "
			 "closes; if that is intended, say so: '%s reopen'", e,
			 sw_category_name(h[0].cat), p, e);
		return -EINVAL;
	}
	return 0;
}

int sw_config_parse_string(const char *text, const char *name,
			   struct sw_config *cfg, char *err, size_t errlen)
{
	return sw_config_parse(text, name, check_reopen, cfg, err, errlen);
}

int sw_config_load(const char *path, struct sw_config *cfg, char *err, size_t errlen)
{
	return sw_config_read(path, check_reopen, cfg, err, errlen);
}
