// SPDX-License-Identifier: GPL-2.0-or-later
/* coverage: container-facing links that no guard covers (coverage.h). */
#include <stdlib.h>
#include <string.h>

#include "core/coverage.h"
#include "core/ruleset.h"

static bool bridge_has_ports(const struct sw_host *h, const struct sw_link *br)
{
	for (size_t i = 0; i < h->n_links; i++)
		if (h->links[i].master == br->ifindex && h->links[i].ifindex != br->ifindex)
			return true;
	return false;
}

/* facing, with the bridges' ports already known (ports: NULL = look) */
static const char *facing(const struct sw_host *h, const struct sw_link *l, const bool *ports)
{
	if (!l->up || sw_link_is_loopback(l) || l->uplink)
		return NULL;
	if (l->is_bridge)
		return (ports ? ports[l - h->links] : bridge_has_ports(h, l)) ? "bridge with ports" : NULL;
	switch (l->kind) {
	case SW_LINK_VETH:
		return l->peer_netns && !l->master ? "routed veth" : NULL;
	case SW_LINK_TAP:
		return l->master ? NULL : "tap";
	case SW_LINK_MACVLAN:
		return "host-side macvlan";
	case SW_LINK_IPVLAN:
		return "host-side ipvlan";
	default:
		return NULL;
	}
}

const char *sw_cov_facing(const struct sw_host *h, const struct sw_link *l)
{
	return facing(h, l, NULL);
}

static bool unguarded(const struct sw_config *cfg, const struct sw_host *h,
		      const struct sw_link *l, const bool *ports)
{
	return facing(h, l, ports) && !sw_ruleset_guarded(cfg, l);
}

bool sw_cov_unguarded(const struct sw_config *cfg, const struct sw_host *h,
		      const struct sw_link *l)
{
	return unguarded(cfg, h, l, NULL);
}

static bool pattern_match(const char *pattern, const char *name)
{
	size_t n = strnlen(pattern, SW_IFNAMSIZ);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, name, n - 1);
	return !strncmp(pattern, name, SW_IFNAMSIZ);
}

static int cov_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sw_cov_link *)a)->name, ((const struct sw_cov_link *)b)->name);
}

void sw_coverage(const struct sw_config *cfg, const struct sw_host *h, struct sw_coverage *c)
{
	/* which bridges have ports: one pass over the ports (links are
	 * sorted by ifindex on a dumped host: sw_host_link finds the master) */
	bool *ports = h->n_links ? calloc(h->n_links, sizeof(*ports)) : NULL;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; ports && i < h->n_links; i++) {
		const struct sw_link *m;

		if (h->links[i].master && (m = sw_host_link(h, h->links[i].master)) &&
		    m != &h->links[i])
			ports[m - h->links] = true;
	}
	for (size_t i = 0; i < h->n_links; i++) {
		const struct sw_link *l = &h->links[i];

		if (!unguarded(cfg, h, l, ports))
			continue;
		if (c->n_links < SW_COV_MAX) {
			struct sw_cov_link *x = &c->links[c->n_links];

			memcpy(x->name, l->name, sizeof(x->name));
			x->name[sizeof(x->name) - 1] = '\0';
			x->kind = l->kind;
			x->facing = facing(h, l, ports);
		}
		c->n_links++;
	}
	free(ports);
	qsort(c->links, c->n_links < SW_COV_MAX ? c->n_links : SW_COV_MAX, sizeof(c->links[0]),
	      cov_cmp);
	for (size_t p = 0; p < cfg->n_patterns; p++) {
		bool hit = false;

		for (size_t i = 0; i < h->n_links && !hit; i++)
			hit = pattern_match(cfg->patterns[p], h->links[i].name);
		if (!hit)
			c->patterns[c->n_patterns++] = cfg->patterns[p];
	}
}

size_t sw_coverage_print(const struct sw_coverage *c, const struct sw_config *cfg,
			 FILE *f, const char *prefix)
{
	size_t shown = c->n_links < SW_COV_MAX ? c->n_links : SW_COV_MAX, n = 0;

	for (size_t i = 0; i < shown; i++, n++)
		fprintf(f, "%s%s (%s) faces containers and no [guard] entry covers it: UNGUARDED\n",
			prefix, c->links[i].name, c->links[i].facing);
	if (c->n_links > shown)
		fprintf(f, "%s... and %zu more unguarded container-facing links\n", prefix,
			c->n_links - shown), n++;
	for (size_t i = 0; i < c->n_patterns; i++, n++) {
		if (cfg && cfg->interfaces_line)
			fprintf(f, "%s%s:%u: ", prefix, cfg->path, cfg->interfaces_line);
		else
			fputs(prefix, f);
		fprintf(f, "[guard] interfaces pattern \"%s\" matches no interface now (a typo?)\n",
			c->patterns[i]);
	}
	return n;
}

void sw_coverage_names(const struct sw_coverage *c, char *buf, size_t len)
{
	size_t shown = c->n_links < SW_COV_MAX ? c->n_links : SW_COV_MAX, o = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < shown && o < len; i++) {
		int k = snprintf(buf + o, len - o, "%s%s (%s)", i ? ", " : "", c->links[i].name,
				 c->links[i].facing);
		o += k > 0 ? (size_t)k : 0;
	}
	if (c->n_links > shown && o < len)
		snprintf(buf + o, len - o, " and %zu more", c->n_links - shown);
}

void sw_coverage_json(const struct sw_coverage *c, struct sw_jw *w)
{
	size_t shown = c->n_links < SW_COV_MAX ? c->n_links : SW_COV_MAX;

	sw_jw_u64(w, "n_unguarded", c->n_links);
	sw_jw_arr(w, "unguarded");
	for (size_t i = 0; i < shown; i++) {
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "name", c->links[i].name);
		sw_jw_str(w, "kind", sw_link_kind_name(c->links[i].kind));
		sw_jw_str(w, "facing", c->links[i].facing);
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_arr(w, "unmatched_patterns");
	for (size_t i = 0; i < c->n_patterns; i++)
		sw_jw_str(w, NULL, c->patterns[i]);
	sw_jw_end(w);
}
