// SPDX-License-Identifier: GPL-2.0-or-later
/* rs_fills: what each set category blocks, and the category sets in rank
 * order (include/core/rs_internal.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>

#include "core/endpoints.h"
#include "core/nets.h"
#include "core/rs_internal.h"
#include "core/ruleset.h"

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The guarded links' ifindexes, sorted: a lookup per route, not a scan
 * (a Calico host has one route and one veth per pod). */
static int guarded_index(struct work *w, const struct sw_config *cfg, const struct sw_host *host)
{
	if (w->guarded)
		return 0;       /* built already (own and sandboxes both ask) */
	w->n_guarded = 0;
	if (!host->n_links)
		return 0;
	if (!(w->guarded = calloc(host->n_links, sizeof(*w->guarded))))
		return -ENOMEM;
	for (size_t i = 0; i < host->n_links; i++)
		if (sw_ruleset_guarded(cfg, &host->links[i]))
			w->guarded[w->n_guarded++] = host->links[i].ifindex;
	qsort(w->guarded, w->n_guarded, sizeof(*w->guarded), int_cmp);
	return 0;
}


/* A category's sets <name>4/<name>6, noted for the gate */
static int cat_sets(struct sw_model *m, struct work *w, enum sw_category cat,
		    const struct sw_prefix *p, size_t n)
{
	const struct sw_category_info *ci = &sw_categories[cat];
	int err = rs_addr_sets(m, w, ci->name, p, n);

	/* a routed category is judged in the forward hook, not behind the gate */
	if (err || ci->match == SW_CAT_MATCH_ROUTED)
		return err;
	return rs_gate_note(w, ci->rank >= SW_CAT_RANK_OWN, p, n);
}

/* ---- what each set category blocks -------------------------------------- */

/* The fill functions of the category table (core/category.h, sw_cat_fill_fn),
 * each called only when its category is on. */

/* metadata: the compiled-in list */
int sw_cat_fill_metadata(const struct sw_config *cfg, const struct sw_host *host,
			 struct work *w, const struct sw_prefix **out, size_t *n)
{
	return sw_endpoints_metadata(w->p, FIXED_ENTRIES, n);
}

/* link_local: its fixed list (category.c) */
int sw_cat_fill_link_local(const struct sw_config *cfg, const struct sw_host *host,
			   struct work *w, const struct sw_prefix **out, size_t *n)
{
	*n += sw_category_fixed(SW_CAT_LINK_LOCAL, w->p + *n, FIXED_ENTRIES - *n);
	return 0;
}

/* gateways: default-route next hops */
int sw_cat_fill_gateways(const struct sw_config *cfg, const struct sw_host *host,
			 struct work *w, const struct sw_prefix **out, size_t *n)
{
	for (size_t i = 0; host && i < host->n_gateways; i++)
		w->p[(*n)++] = host->gateways[i].addr;
	return 0;
}

/* destinations: from the config */
int sw_cat_fill_destinations(const struct sw_config *cfg, const struct sw_host *host,
			     struct work *w, const struct sw_prefix **out, size_t *n)
{
	*out = cfg->destinations;
	*n = cfg->n_destinations;
	return 0;
}

/* lan: subnets connected to the other interfaces */
int sw_cat_fill_lan(const struct sw_config *cfg, const struct sw_host *host,
		    struct work *w, const struct sw_prefix **out, size_t *n)
{
	for (size_t i = 0; host && i < host->n_addrs; i++)
		if (sw_nets_lan_subnet(cfg, host, i, NULL, &w->p[*n]))
			(*n)++;
	return 0;
}

/* private: its fixed list (category.c) */
int sw_cat_fill_private(const struct sw_config *cfg, const struct sw_host *host,
			struct work *w, const struct sw_prefix **out, size_t *n)
{
	*n += sw_category_fixed(SW_CAT_PRIVATE, w->p + *n, FIXED_ENTRIES - *n);
	return 0;
}

/* own: subnets of guarded interfaces (container-to-container stays) and
 * what is routed to a guarded interface without a gateway (a routed veth
 * has no address, its container's /32 is a route), and [allow] networks */
static int guarded_subnets(const struct sw_config *cfg, const struct sw_host *host,
			   struct work *w, struct sw_prefix *p, size_t *np)
{
	size_t n = 0;
	int rc;

	for (size_t i = 0; host && i < host->n_addrs; i++) {
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);
		struct sw_prefix q = host->addrs[i].local;

		if (!l || !sw_ruleset_guarded(cfg, l) || sw_prefix_is_v6_linklocal(&q))
			continue;
		sw_prefix_mask(&q);
		p[n++] = q;
	}
	if (host && host->n_routes && (rc = guarded_index(w, cfg, host)))
		return rc;
	for (size_t i = 0; host && i < host->n_routes; i++) {
		int oif = host->routes[i].oif;

		if (sw_prefix_is_v6_linklocal(&host->routes[i].dst) || !w->n_guarded ||
		    !bsearch(&oif, w->guarded, w->n_guarded, sizeof(oif), int_cmp))
			continue;
		p[n++] = host->routes[i].dst;
	}
	*np = n;
	return 0;
}

/* sandboxes: the guarded interfaces' subnets (own without [allow]
 * networks), judged in the forward hook */
int sw_cat_fill_sandboxes(const struct sw_config *cfg, const struct sw_host *host,
			  struct work *w, const struct sw_prefix **out, size_t *n)
{
	return guarded_subnets(cfg, host, w, w->p, n);
}

static int own_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
		    const struct sw_host *host)
{
	struct sw_prefix *p = w->p;
	size_t n = 0;
	int rc;

	if ((rc = guarded_subnets(cfg, host, w, p, &n)))
		return rc;
	/* [allow] networks: left open by lan and private like the above */
	for (size_t i = 0; i < cfg->n_networks; i++)
		p[n++] = cfg->networks[i];
	if ((rc = rs_addr_sets(m, w, "own", p, n)))
		return rc;
	return rs_gate_note(w, 2, p, n);
}

/* The set categories' sets in rank order (own4/own6 where own's rank
 * is), then blocked4/blocked6. */
int rs_category_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
			 const struct sw_host *host)
{
	bool done[SW_CAT_COUNT] = { false }, own = false;
	int rc;

	for (;;) {
		const struct sw_prefix *out;
		size_t n = 0;
		int next = -1;

		for (int c = 0; c < SW_CAT_COUNT; c++)
			if (!done[c] && (sw_categories[c].match == SW_CAT_MATCH_SET ||
					 sw_categories[c].match == SW_CAT_MATCH_ROUTED) &&
			    (next < 0 || sw_categories[c].rank < sw_categories[next].rank))
				next = c;
		if (!own && (next < 0 || sw_categories[next].rank >= SW_CAT_RANK_OWN)) {
			own = true;
			if ((rc = own_sets(m, w, cfg, host)))
				return rc;
		}
		if (next < 0)
			break;
		done[next] = true;
		if (!sw_categories[next].fill)
			return -EINVAL;         /* a set category needs its fill */
		out = w->p;
		if (cfg->block[next] && (rc = sw_categories[next].fill(cfg, host, w, &out, &n)))
			return rc;
		if ((rc = cat_sets(m, w, next, out, n)))
			return rc;
	}
	/* gate4_a/b, gate6_a/b, gate_a/b: the fast path's gate */
	return rs_gate_sets(m, w);
}
