// SPDX-License-Identifier: GPL-2.0-or-later
/* nets: the subnets lan stands for (include/core/nets.h). */
#include "core/guard.h"
#include "core/nets.h"

bool sw_prefix_overlap(const struct sw_prefix *a, const struct sw_prefix *b)
{
	/* the shorter one contains the longer one (of equal lengths, either
	 * contains the other or neither does): one compare, not two */
	return a->len <= b->len ? sw_prefix_contains(a, b) : sw_prefix_contains(b, a);
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
