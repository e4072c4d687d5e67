// SPDX-License-Identifier: GPL-2.0-or-later
/* holes: [allow] entries against the block categories they would reopen,
 * and the interfaces that must never be guarded (see include/core/holes.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/endpoints.h"
#include "core/holes.h"
#include "core/guard.h"
#include "core/portbind.h"

#define MAX_META 256

void sw_allow_format(const struct sw_allow *a, char *buf, size_t len)
{
	char p[SW_ADDR_STRLEN];

	sw_prefix_format(&a->dst, p, sizeof(p));
	snprintf(buf, len, "%s %s/%u", p, a->port.proto == IPPROTO_TCP ? "tcp" : "udp",
		 a->port.port);
}


/* First index whose entry is not below p (n if none). */
static size_t lower_bound(const struct sw_prefix *v, size_t n, const struct sw_prefix *p)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sw_prefix_order(&v[mid], p) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A destination that overlaps p, in sorted destinations: prefixes nest or
 * are disjoint, so it either contains p (p masked to one of its shorter
 * lengths, found exactly) or lies inside p (right after p's start). */
static const struct sw_prefix *dest_overlap(const struct sw_config *cfg, const struct sw_prefix *p)
{
	const struct sw_prefix *v = cfg->destinations;
	size_t n = cfg->n_destinations, i;

	if (!n)
		return NULL;
	for (int len = 0; len <= p->len; len++) {
		struct sw_prefix q = *p;

		q.len = (uint8_t)len;
		sw_prefix_mask(&q);
		i = lower_bound(v, n, &q);
		if (i < n && !sw_prefix_order(&v[i], &q))
			return &v[i];
	}
	{
		struct sw_prefix q = *p;

		sw_prefix_mask(&q);
		i = lower_bound(v, n, &q);
		if (i < n && v[i].family == p->family && sw_prefix_contains(&q, &v[i]))
			return &v[i];
	}
	return NULL;
}

struct acc {
	struct sw_hole *out;
	size_t n, max;
	const struct sw_allow *a;
};

/* Record cat once, with the first blocked prefix a overlaps. */
static void consider(struct acc *c, enum sw_category cat, const struct sw_prefix *p)
{
	if (c->n == c->max || c->a->dst.family != p->family || !sw_prefix_overlap(&c->a->dst, p))
		return;
	if (c->n && c->out[c->n - 1].cat == cat)
		return;
	c->out[c->n].cat = cat;
	c->out[c->n++].blocked = *p;
}

#define CAT(x) (1u << (x))
#define ALL_CATS (~0u)
_Static_assert(SW_CAT_COUNT <= 32, "a category is a bit of cats");

/* The first bytes a list of prefixes reaches, a bit per byte value and
 * family: an entry of /8 or longer whose first byte has no bit overlaps
 * none of them (a prefix of /8 or longer shares its first byte with
 * everything it overlaps; a shorter one sets the bits of every byte it
 * spans). The usual large allowlist, public addresses, skips the lists at
 * once. */
struct first_bytes {
	uint64_t v4[4], v6[4];
};

static void first_bytes_add(struct first_bytes *fb, const struct sw_prefix *p)
{
	uint64_t *bits = p->family == AF_INET ? fb->v4 : fb->v6;
	unsigned span = p->len >= 8 ? 1 : 1u << (8 - p->len), lo = p->addr[0] & ~(span - 1);

	for (unsigned b = lo; b < lo + span; b++)
		bits[b / 64] |= 1ull << (b % 64);
}

static bool first_bytes_miss(const struct first_bytes *fb, const struct sw_prefix *p)
{
	const uint64_t *bits = p->family == AF_INET ? fb->v4 : fb->v6;

	return p->len >= 8 && !(bits[p->addr[0] / 64] & (1ull << (p->addr[0] % 64)));
}

/* The compiled-in lists, metadata's and every fixed list of the category
 * table (link_local, private), parsed once (the hole checks run for every
 * [allow] entry), with their first bytes. */
static struct {
	bool done;
	struct sw_prefix meta[MAX_META], list[SW_CAT_COUNT][SW_CAT_MAX_FIXED];
	size_t n_meta, n[SW_CAT_COUNT];
	struct first_bytes reach;
} fixed;

static void parse_list(enum sw_category c, struct sw_prefix *out, size_t *n_out)
{
	*n_out = sw_category_fixed(c, out, SW_CAT_MAX_FIXED);
	for (size_t i = 0; i < *n_out; i++)
		first_bytes_add(&fixed.reach, &out[i]);
}

static void fixed_lists(void)
{
	if (fixed.done)
		return;
	fixed.done = true;
	if (sw_endpoints_metadata(fixed.meta, MAX_META, &fixed.n_meta))
		fixed.n_meta = 0;
	for (size_t i = 0; i < fixed.n_meta; i++)
		first_bytes_add(&fixed.reach, &fixed.meta[i]);
	for (int c = 0; c < SW_CAT_COUNT; c++)
		parse_list((enum sw_category)c, fixed.list[c], &fixed.n[c]);
}

static void consider_list(struct acc *c, enum sw_category cat, const struct sw_prefix *v,
			  size_t n)
{
	for (size_t i = 0; i < n; i++)
		consider(c, cat, &v[i]);
}

/* sw_allow_holes for the categories in cats only */
static size_t holes_in(const struct sw_config *cfg, const struct sw_host *host,
		       const struct sw_allow *a, struct sw_hole *out, size_t max, unsigned cats)
{
	struct acc c = { out, 0, max, a };
	bool block[SW_CAT_COUNT], skip_fixed;

	fixed_lists();
	for (int i = 0; i < SW_CAT_COUNT; i++)
		block[i] = cfg->block[i] && (cats & CAT(i));
	/* the compiled-in lists: none reaches the entry's first byte */
	skip_fixed = first_bytes_miss(&fixed.reach, &a->dst);
	/* in the table's order: what each category blocks */
	for (int k = 0; k < SW_CAT_COUNT; k++) {
		if (!block[k])
			continue;
		if (fixed.n[k] && !skip_fixed)
			consider_list(&c, k, fixed.list[k], fixed.n[k]);
		if (k == SW_CAT_METADATA && !skip_fixed)
			consider_list(&c, k, fixed.meta, fixed.n_meta);
		for (size_t i = 0; host && k == SW_CAT_HOST && i < host->n_addrs; i++) {
			struct sw_prefix q = host->addrs[i].local;

			q.len = (uint8_t)(sw_family_addrlen(q.family) * 8);
			if (!sw_prefix_is_loopback(&q))
				consider(&c, k, &q);
		}
		for (size_t i = 0; host && k == SW_CAT_GATEWAYS && i < host->n_gateways; i++)
			consider(&c, k, &host->gateways[i].addr);
		/* lan: subnets connected to the interfaces that are not guarded */
		for (size_t i = 0; host && k == SW_CAT_LAN && i < host->n_addrs; i++) {
			struct sw_prefix q;

			/* the link lookup is a scan: only for a subnet that overlaps */
			if (sw_nets_lan_subnet(cfg, host, i, &a->dst, &q))
				consider(&c, k, &q);
		}
	}
	if (!(cats & CAT(SW_CAT_DESTINATIONS))) {
		/* not asked for */
	} else if (cfg->destinations_sorted) {
		const struct sw_prefix *d = dest_overlap(cfg, &a->dst);

		if (d)
			consider(&c, SW_CAT_DESTINATIONS, d);
	} else {
		for (size_t i = 0; i < cfg->n_destinations && c.n < c.max; i++)
			consider(&c, SW_CAT_DESTINATIONS, &cfg->destinations[i]);
	}
	return c.n;
}

size_t sw_allow_holes(const struct sw_config *cfg, const struct sw_host *host,
		      const struct sw_allow *a, struct sw_hole *out, size_t max)
{
	return holes_in(cfg, host, a, out, max, ALL_CATS);
}

/* Does one of the [guard] interfaces patterns name it? */
static bool pattern_match(const struct sw_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_patterns; i++)
		if (sw_name_match(cfg->patterns[i], name))
			return true;
	return false;
}

static bool by_host(enum sw_category cat)
{
	return cat == SW_CAT_HOST || cat == SW_CAT_GATEWAYS || cat == SW_CAT_LAN;
}

int sw_config_check_host(const struct sw_config *cfg, const struct sw_host *host,
			 char *err, size_t errlen)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], p[SW_ADDR_STRLEN];
	struct first_bytes reach = { 0 };

	/* what host, gateways and lan can hold, by first byte (every address's
	 * subnet and every gateway: more than holes_in looks at, never less) */
	for (size_t i = 0; i < host->n_addrs; i++)
		first_bytes_add(&reach, &host->addrs[i].local);
	for (size_t i = 0; i < host->n_gateways; i++)
		first_bytes_add(&reach, &host->gateways[i].addr);
	for (size_t i = 0; i < cfg->n_allows; i++) {
		size_t n;

		if (cfg->allows[i].reopen || first_bytes_miss(&reach, &cfg->allows[i].dst))
			continue;
		/* only the categories this host decides: the others were checked
		 * with the file (check_whole), and are not reported here */
		n = holes_in(cfg, host, &cfg->allows[i], h, SW_MAX_HOLES,
			     CAT(SW_CAT_HOST) | CAT(SW_CAT_GATEWAYS) | CAT(SW_CAT_LAN));
		for (size_t j = 0; j < n; j++) {
			if (!by_host(h[j].cat))
				continue;
			sw_allow_format(&cfg->allows[i], e, sizeof(e));
			sw_prefix_format(&h[j].blocked, p, sizeof(p));
			snprintf(err, errlen, "%s:%u: [allow] destinations entry '%s' reopens %s "
				 "(%s on this host), which [block] closes; if that is intended, "
				 "say so: '%s reopen'", cfg->path, cfg->allows[i].line, e,
				 sw_category_name(h[j].cat), p, e);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < host->n_links; i++) {
		const struct sw_link *l = &host->links[i];
		bool lo = sw_link_is_loopback(l), by_pattern;
		unsigned line;

		/* l->uplink: the output interface of any default route, with or
		 * without a gateway (sw_host_classify); the pattern match last:
		 * hosts have thousands of links */
		if ((!lo && !l->uplink) || !sw_ruleset_guarded(cfg, l))
			continue;
		by_pattern = pattern_match(cfg, l->name);
		line = by_pattern ? cfg->interfaces_line : cfg->all_bridges_line;
		snprintf(p, sizeof(p), ":%u", line);
		snprintf(err, errlen, "%s%s: [guard] %s guards %s, %s: guarding it would cut the "
			 "host off (and lock its operator out); name only the container interfaces",
			 cfg->path, line ? p : "", by_pattern ? "interfaces" : "all_bridges", l->name,
			 lo ? "the loopback interface" :
			 "which carries the default route");
		return -EINVAL;
	}
	/* a sandbox chosen by source where no per-port binding holds it */
	return sw_portbind_check_sources(cfg, host, err, errlen);
}
