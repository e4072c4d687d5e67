// SPDX-License-Identifier: GPL-2.0-or-later
/* nets: the networks of link_local, private and lan (include/core/nets.h). */
#include "core/guard.h"
#include "core/nets.h"

const char *const sw_nets_link_local[] = { "169.254.0.0/16", "fe80::/10" };
const size_t sw_nets_n_link_local = sizeof(sw_nets_link_local) / sizeof(*sw_nets_link_local);

const char *const sw_nets_private[] = {
	"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7",
};
const size_t sw_nets_n_private = sizeof(sw_nets_private) / sizeof(*sw_nets_private);

_Static_assert(sizeof(sw_nets_link_local) / sizeof(*sw_nets_link_local) <= SW_NETS_FIXED_MAX &&
	       sizeof(sw_nets_private) / sizeof(*sw_nets_private) <= SW_NETS_FIXED_MAX,
	       "a fixed list is longer than SW_NETS_FIXED_MAX");

bool sw_prefix_overlap(const struct sw_prefix *a, const struct sw_prefix *b)
{
	/* the shorter one contains the longer one (of equal lengths, either
	 * contains the other or neither does): one compare, not two */
	return a->len <= b->len ? sw_prefix_contains(a, b) : sw_prefix_contains(b, a);
}

size_t sw_nets_parse(const char *const *v, size_t n, struct sw_prefix *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (sw_prefix_parse(v[i], &out[k], NULL) == 0)
			k++;
	return k;
}

bool sw_nets_lan_subnet(const struct sw_config *cfg, const struct sw_host *host, size_t i,
			const struct sw_prefix *near, struct sw_prefix *out)
{
	struct sw_prefix q = host->addrs[i].local;
	const struct sw_link *l;

	if (sw_prefix_is_loopback(&q) || sw_prefix_is_v6_linklocal(&q) ||
	    q.len == sw_family_addrlen(q.family) * 8)
		return false;   /* a host address is no subnet */
	sw_prefix_mask(&q);
	if (near && !sw_prefix_overlap(near, &q))
		return false;
	if (!(l = sw_host_link(host, host->addrs[i].ifindex)) || sw_ruleset_guarded(cfg, l))
		return false;
	*out = q;
	return true;
}
