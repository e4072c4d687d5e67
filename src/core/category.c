/* SPDX-License-Identifier: GPL-2.0-or-later */
/* category: the block category table and its fixed lists (see
 * include/core/category.h). */
#include <errno.h>
#include <string.h>

#include "core/category.h"

/* link_local: IPv4 and IPv6 link-local (RFC 3927, RFC 4291) */
static const char *const link_local[] = { "169.254.0.0/16", "fe80::/10" };
/* private: RFC 1918, the shared address space (RFC 6598) and ULA (RFC 4193) */
static const char *const rfc_private[] = {
	"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7",
};
#define FIXED(v) .fixed = v, .n_fixed = sizeof(v) / sizeof(*v)
_Static_assert(sizeof(link_local) / sizeof(*link_local) <= SW_CAT_MAX_FIXED &&
	       sizeof(rfc_private) / sizeof(*rfc_private) <= SW_CAT_MAX_FIXED, "SW_CAT_MAX_FIXED");

/* The categories, in enum order; `rank` gives the guard chain's order. */
const struct sw_category_info sw_categories[SW_CAT_COUNT] = {
	[SW_CAT_SPOOFED] = { .name = "spoofed", .key = SW_CAT_KEY_NONE, .default_on = true,
			     .match = SW_CAT_MATCH_SPOOF, .families = SW_CAT_V4 | SW_CAT_V6,
			     .rank = 0 },
	[SW_CAT_METADATA] = { .name = "metadata", .key = SW_CAT_KEY_BOOL, .default_on = true,
			      .match = SW_CAT_MATCH_SET, .families = SW_CAT_V4 | SW_CAT_V6,
			      .rank = 10, .fill = sw_cat_fill_metadata },
	[SW_CAT_LINK_LOCAL] = { .name = "link_local", .key = SW_CAT_KEY_BOOL, .default_on = true,
				.match = SW_CAT_MATCH_SET, .families = SW_CAT_V4 | SW_CAT_V6,
				.rank = 20, FIXED(link_local), .fill = sw_cat_fill_link_local },
	[SW_CAT_HOST] = { .name = "host", .key = SW_CAT_KEY_BOOL, .default_on = true,
			  .match = SW_CAT_MATCH_LOCAL, .families = SW_CAT_V4 | SW_CAT_V6,
			  .rank = 30 },
	[SW_CAT_GATEWAYS] = { .name = "gateways", .key = SW_CAT_KEY_BOOL, .default_on = true,
			      .match = SW_CAT_MATCH_SET, .families = SW_CAT_V4 | SW_CAT_V6,
			      .rank = 40, .fill = sw_cat_fill_gateways },
	[SW_CAT_LAN] = { .name = "lan", .key = SW_CAT_KEY_BOOL, .default_on = true,
			 .match = SW_CAT_MATCH_SET, .families = SW_CAT_V4 | SW_CAT_V6,
			 .rank = SW_CAT_RANK_OWN + 10, .fill = sw_cat_fill_lan },
	[SW_CAT_PRIVATE] = { .name = "private", .key = SW_CAT_KEY_BOOL, .default_on = true,
			     .match = SW_CAT_MATCH_SET, .families = SW_CAT_V4 | SW_CAT_V6,
			     .rank = SW_CAT_RANK_OWN + 20, FIXED(rfc_private),
			     .fill = sw_cat_fill_private },
	[SW_CAT_DESTINATIONS] = { .name = "destinations", .key = SW_CAT_KEY_LIST,
				  .default_on = false, .match = SW_CAT_MATCH_SET,
				  .families = SW_CAT_V4 | SW_CAT_V6, .rank = 50,
				  .fill = sw_cat_fill_destinations },
	/* judged in the forward hook (its own chain), so its rank orders
	 * nothing in guard */
	[SW_CAT_SANDBOXES] = { .name = "sandboxes", .key = SW_CAT_KEY_BOOL, .default_on = true,
			       .match = SW_CAT_MATCH_ROUTED, .families = SW_CAT_V4 | SW_CAT_V6,
			       .rank = 60, .fill = sw_cat_fill_sandboxes },
};

const struct sw_category_info *sw_category_info(enum sw_category c)
{
	return (unsigned)c < SW_CAT_COUNT ? &sw_categories[c] : NULL;
}

const char *sw_category_name(enum sw_category c)
{
	return (unsigned)c < SW_CAT_COUNT ? sw_categories[c].name : "unknown";
}

int sw_category_lookup(const char *name)
{
	for (int c = 0; c < SW_CAT_COUNT; c++)
		if (!strcmp(sw_categories[c].name, name))
			return c;
	return -ENOENT;
}

size_t sw_category_fixed(enum sw_category c, struct sw_prefix *out, size_t max)
{
	const struct sw_category_info *ci = sw_category_info(c);
	size_t n = 0;

	for (size_t i = 0; ci && i < ci->n_fixed && n < max; i++)
		if (sw_prefix_parse(ci->fixed[i], &out[n], NULL) == 0)
			n++;
	return n;
}
