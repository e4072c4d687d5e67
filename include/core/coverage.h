/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_COVERAGE_H
#define SANDWALL_COVERAGE_H
/* coverage: is every link that faces a container guarded? Pure (config
 * and host state, no kernel). A link faces a container when it is, in the
 * host's namespace, up, not lo and not an uplink (a default route's
 * interface), and one of: a bridge with at least one port, a veth whose
 * peer lives in another namespace and that is on no bridge, a tap, or a
 * host-side macvlan/ipvlan. It is unguarded when sw_ruleset_guarded (the
 * one owner of "is this link guarded") says no. A [guard] interfaces
 * pattern that matches no link of the host is reported as well (a typo
 * such as "dokcer0"): a warning, not a hole by itself, since a pattern
 * also guards the names it matches as they appear. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "core/config.h"
#include "core/host.h"
#include "lib/json.h"

#define SW_COV_MAX 64           /* names kept; beyond, only counted */

struct sw_cov_link {
	char name[16];
	enum sw_link_kind kind;
	const char *facing;     /* why it faces containers: "bridge with ports", ... */
};

struct sw_coverage {
	struct sw_cov_link links[SW_COV_MAX];  /* unguarded container-facing links, by name */
	size_t n_links;                        /* all of them (may exceed SW_COV_MAX) */
	const char *patterns[SW_MAX_PATTERNS]; /* patterns that match nothing (cfg's strings) */
	size_t n_patterns;
};

/* Why l faces containers ("bridge with ports", "routed veth", "tap",
 * "host-side macvlan", "host-side ipvlan"), or NULL when it does not. */
const char *sw_cov_facing(const struct sw_host *h, const struct sw_link *l);
/* The one decision: l faces containers and no guard covers it. */
bool sw_cov_unguarded(const struct sw_config *cfg, const struct sw_host *h,
		      const struct sw_link *l);
/* Every unguarded container-facing link and every pattern matching nothing. */
void sw_coverage(const struct sw_config *cfg, const struct sw_host *h, struct sw_coverage *c);
/* Is something unguarded (a hole: check and verify fail)? */
static inline bool sw_coverage_hole(const struct sw_coverage *c) { return c->n_links > 0; }
/* One line each, prefixed: "PREFIXdocker0 (bridge with ports) faces containers and
 * no [guard] entry covers it" / "PREFIX[guard] interfaces pattern dokcer0 matches
 * no interface". Returns the number of lines. */
size_t sw_coverage_print(const struct sw_coverage *c, const struct sw_config *cfg,
			 FILE *f, const char *prefix);
/* The names as one short text: "docker0 (bridge with ports), br-x (bridge with ports)". */
void sw_coverage_names(const struct sw_coverage *c, char *buf, size_t len);
/* "unguarded":[{"name","kind","facing"}],"unmatched_patterns":[..] in the open object. */
void sw_coverage_json(const struct sw_coverage *c, struct sw_jw *w);

#endif
