/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CATEGORY_H
#define SANDWALL_CATEGORY_H
/* category: the block categories, one table entry each (what the [block]
 * key, the counter, the chain and the log prefix are called, how the
 * config switches it on, how the guard chain finds what it blocks, where
 * it sits in the chain), and the fixed address lists of the categories
 * that have one. Pure, no kernel. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/addr.h"

enum sw_category {
	SW_CAT_SPOOFED,         /* forged source addresses: always on, no config key */
	SW_CAT_METADATA,
	SW_CAT_LINK_LOCAL,
	SW_CAT_HOST,
	SW_CAT_GATEWAYS,
	SW_CAT_LAN,
	SW_CAT_PRIVATE,
	SW_CAT_DESTINATIONS,
	SW_CAT_SANDBOXES,       /* routed traffic to another guarded interface's subnets */
	SW_CAT_COUNT
};
/* "metadata", "link_local", ... (the config key and counter name) */
const char *sw_category_name(enum sw_category c);

/* How the config switches a category on. */
enum sw_cat_key {
	SW_CAT_KEY_NONE,        /* always on, no key (spoofed) */
	SW_CAT_KEY_BOOL,        /* [block] NAME = yes|no */
	SW_CAT_KEY_LIST,        /* on when [block] NAME lists entries (its own parser) */
};

/* How the guard chain finds what a category blocks (ruleset.c). */
enum sw_cat_match {
	SW_CAT_MATCH_SPOOF,     /* fib saddr . iif oif missing, before every accept */
	SW_CAT_MATCH_LOCAL,     /* fib daddr type local (+ the input hook's broadcast) */
	SW_CAT_MATCH_SET,       /* ip daddr @<name>4, ip6 daddr @<name>6 */
	SW_CAT_MATCH_ROUTED,    /* in the forward hook: ip daddr @<name>4 routed out of another
				 * interface than it came in on (fib daddr . iif oif missing),
				 * iifname . oifname not in @between */
};

#define SW_CAT_V4 1u
#define SW_CAT_V6 2u

struct sw_config;
struct sw_host;
struct work;            /* the ruleset's scratch (core/rs_internal.h) */
/* What a set category blocks: into w's prefix buffer (room for
 * FIXED_ENTRIES, from (*n) on), or *out pointed elsewhere (the config's
 * own list) with *n its length. 0 or -errno. */
typedef int (*sw_cat_fill_fn)(const struct sw_config *cfg, const struct sw_host *host,
			      struct work *w, const struct sw_prefix **out, size_t *n);

/* One entry per category. Its name is the [block] key, the named counter,
 * the chain block_<name> and the log prefix "sandwall:<name> ". Adding a
 * category is one entry here (and, for SW_CAT_MATCH_SET, its fill
 * function, which says what it blocks): the [block] key, the default, the
 * sets, the guard rule in rank order, the union for the fast path, the
 * counter and the block chain follow. */
struct sw_category_info {
	const char *name;
	enum sw_cat_key key;
	bool default_on;
	enum sw_cat_match match;
	unsigned families;      /* SW_CAT_V4 | SW_CAT_V6: where it can block */
	/* where it sits in the guard chain (lower first; the first category
	 * that matches counts the packet); from SW_CAT_RANK_OWN on, after the
	 * guarded subnets' return (container-to-container stays open) */
	unsigned rank;
	/* the fixed prefixes it blocks whatever the host and the config
	 * (link_local, private), as text; NULL: none of its own */
	const char *const *fixed;
	size_t n_fixed;
	/* SW_CAT_MATCH_SET and SW_CAT_MATCH_ROUTED: what it blocks (below) */
	sw_cat_fill_fn fill;
};
#define SW_CAT_RANK_OWN 100
/* the fill functions of the table's entries (core/rs_fills.c) */
int sw_cat_fill_metadata(const struct sw_config *cfg, const struct sw_host *host,
			 struct work *w, const struct sw_prefix **out, size_t *n);
int sw_cat_fill_link_local(const struct sw_config *cfg, const struct sw_host *host,
			   struct work *w, const struct sw_prefix **out, size_t *n);
int sw_cat_fill_gateways(const struct sw_config *cfg, const struct sw_host *host,
			 struct work *w, const struct sw_prefix **out, size_t *n);
int sw_cat_fill_lan(const struct sw_config *cfg, const struct sw_host *host,
		    struct work *w, const struct sw_prefix **out, size_t *n);
int sw_cat_fill_private(const struct sw_config *cfg, const struct sw_host *host,
			struct work *w, const struct sw_prefix **out, size_t *n);
int sw_cat_fill_destinations(const struct sw_config *cfg, const struct sw_host *host,
			     struct work *w, const struct sw_prefix **out, size_t *n);
int sw_cat_fill_sandboxes(const struct sw_config *cfg, const struct sw_host *host,
			  struct work *w, const struct sw_prefix **out, size_t *n);
extern const struct sw_category_info sw_categories[SW_CAT_COUNT];
/* The entry of c (NULL when out of range). */
const struct sw_category_info *sw_category_info(enum sw_category c);
/* The category of a name ("metadata"), or -ENOENT. */
int sw_category_lookup(const char *name);
/* prefix of every category's log line and chain */
#define SW_CAT_CHAIN_PREFIX "block_"

/* The fixed prefixes of c (its entry's fixed list), parsed into out (at
 * most max; SW_CAT_MAX_FIXED holds every list): the count written, 0 for
 * a category without one. */
#define SW_CAT_MAX_FIXED 8
size_t sw_category_fixed(enum sw_category c, struct sw_prefix *out, size_t max);

#endif
