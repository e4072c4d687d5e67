/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_HOLES_H
#define SANDWALL_HOLES_H
/* holes: the checks that keep a config from opening the boundary it is
 * meant to close. An [allow] destinations entry comes before the block
 * rules, so it reopens whatever enabled block category it overlaps; that
 * is refused unless the entry ends with `reopen` (config_check.c at parse time
 * for the categories that do not depend on the host, sw_config_check_host
 * once the host is known), and `verify` lists the entries that do. */
#include <stdbool.h>
#include <stddef.h>
#include "core/config.h"
#include "core/host.h"
#include "core/nets.h"

#define SW_MAX_HOLES 8

struct sw_hole {
	enum sw_category cat;           /* the block category it reopens */
	struct sw_prefix blocked;       /* the blocked prefix it overlaps (the first) */
};

/* The enabled block categories that [allow] entry a overlaps, one hole
 * per category, at most max. host NULL: only metadata, link_local,
 * private and destinations (no host state needed). Returns the count. */
size_t sw_allow_holes(const struct sw_config *cfg, const struct sw_host *host,
		      const struct sw_allow *a, struct sw_hole *out, size_t max);
/* "0.0.0.0/0 tcp/443" */
void sw_allow_format(const struct sw_allow *a, char *buf, size_t len);
/* The refusals that need the host (run before every ruleset build):
 * an [allow] entry without `reopen` that overlaps host, gateways or lan,
 * and a guarded interface that is the loopback (ifindex 1) or carries a
 * default route. 0, or -EINVAL with "FILE:LINE: why" in err. */
int sw_config_check_host(const struct sw_config *cfg, const struct sw_host *host,
			 char *err, size_t errlen);

#endif
