/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_FUZZ_HOST_H
#define SANDWALL_FUZZ_HOST_H
/* The hand-made host the config and nf_tables harnesses build against
 * (the unit tests' tk_host() without cmocka): lo, eth0, docker0 and one
 * br-* bridge, v4 and v6 addresses, two gateways and a resolver. */
#include <stdio.h>
#include <string.h>
#include "host/hoststate.h"

static void fh_link(struct sw_host *h, int idx, const char *name, bool bridge)
{
	struct sw_link *l;

	if (sw_host_room_links(h))
		__builtin_trap();
	l = &h->links[h->n_links++];
	memset(l, 0, sizeof(*l));

	l->ifindex = idx;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->is_bridge = bridge;
	l->up = true;
}

static void fh_addr(struct sw_host *h, int idx, const char *addr, uint8_t len)
{
	struct sw_addr *a;

	if (sw_host_room_addrs(h))
		__builtin_trap();
	a = &h->addrs[h->n_addrs++];
	memset(a, 0, sizeof(*a));

	if (sw_prefix_parse(addr, &a->local, NULL))
		__builtin_trap();
	a->local.len = len;
	a->ifindex = idx;
}

static void fh_gateway(struct sw_host *h, const char *addr, int oif)
{
	struct sw_gateway *g = &h->gateways[h->n_gateways++];

	if (sw_prefix_parse(addr, &g->addr, NULL))
		__builtin_trap();
	g->oif = oif;
}

static void fh_host(struct sw_host *h)
{
	sw_host_clear(h);
	fh_link(h, 1, "lo", false);
	fh_link(h, 2, "eth0", false);
	fh_link(h, 3, "docker0", true);
	fh_link(h, 4, "br-0a1b2c3d4e5f", true);
	fh_addr(h, 1, "127.0.0.1", 8);
	fh_addr(h, 2, "10.0.0.2", 24);
	fh_addr(h, 2, "fd00:10::2", 64);
	fh_addr(h, 3, "172.17.0.1", 16);
	fh_addr(h, 4, "172.18.0.1", 16);
	fh_gateway(h, "10.0.0.1", 2);
	fh_gateway(h, "fd00:10::1", 2);
	if (sw_prefix_parse("169.254.169.253", &h->resolvers[0], NULL))
		__builtin_trap();
	h->n_resolvers = 1;
}

#endif
