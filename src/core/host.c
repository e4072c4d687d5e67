/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host: what follows from the whole host model (include/core/host.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/host.h"
#include "lib/grow.h"

static const char *const link_kind_names[SW_LINK_KIND_COUNT] = {
	[SW_LINK_OTHER] = "other", [SW_LINK_BRIDGE] = "bridge", [SW_LINK_VETH] = "veth",
	[SW_LINK_TUN] = "tun", [SW_LINK_TAP] = "tap", [SW_LINK_MACVLAN] = "macvlan",
	[SW_LINK_IPVLAN] = "ipvlan", [SW_LINK_VXLAN] = "vxlan", [SW_LINK_WIREGUARD] = "wireguard",
};

const char *sw_link_kind_name(enum sw_link_kind k)
{
	return (unsigned)k < SW_LINK_KIND_COUNT ? link_kind_names[k] : "other";
}

/* Where ifindex is, or would go, in links sorted by ifindex (a dump sorts
 * them; a hand-made host may not be: the linear pass below still finds
 * any link, and an insert merely lands somewhere). */
size_t sw_host_link_pos(const struct sw_host *h, int ifindex)
{
	size_t lo = 0, hi = h->n_links;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->links[mid].ifindex < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct sw_link *sw_host_link_rw(struct sw_host *h, int ifindex)
{
	size_t p = sw_host_link_pos(h, ifindex);

	if (p < h->n_links && h->links[p].ifindex == ifindex)
		return &h->links[p];
	for (size_t i = 0; i < h->n_links; i++)
		if (h->links[i].ifindex == ifindex)
			return &h->links[i];
	return NULL;
}

const struct sw_link *sw_host_link(const struct sw_host *h, int ifindex)
{
	return sw_host_link_rw((struct sw_host *)h, ifindex);
}

static int ifindex_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static bool in_sorted(const int *v, size_t n, int key)
{
	return n && bsearch(&key, v, n, sizeof(*v), ifindex_cmp);
}

void sw_host_classify(struct sw_host *h)
{
	int up[SW_MAX_UPLINKS + SW_MAX_GATEWAYS];
	size_t nu = 0;

	for (size_t i = 0; i < h->n_uplinks && nu < SW_MAX_UPLINKS; i++)
		up[nu++] = h->uplinks[i];
	for (size_t i = 0; i < h->n_gateways; i++)
		up[nu++] = h->gateways[i].oif;
	qsort(up, nu, sizeof(*up), ifindex_cmp);
	for (size_t i = 0; i < h->n_links; i++) {
		struct sw_link *l = &h->links[i];
		/* a dumped host's links are sorted by ifindex: a binary search
		 * (thousands of bridge ports, on every event) */
		const struct sw_link *m = l->master ? sw_host_link_rw(h, l->master) : NULL;

		l->master_bridge = m && m->is_bridge;
		l->uplink = in_sorted(up, nu, l->ifindex);
	}
}


void sw_host_init(struct sw_host *h)
{
	memset(h, 0, sizeof(*h));
}

void sw_host_free(struct sw_host *h)
{
	free(h->links);
	free(h->addrs);
	free(h->routes);
	free(h->cgroups);
	sw_host_init(h);
}

int sw_host_room_links(struct sw_host *h)
{
	return SW_GROW(h->links, h->cap_links, h->n_links, SW_MAX_LINKS);
}

int sw_host_room_addrs(struct sw_host *h)
{
	return SW_GROW(h->addrs, h->cap_addrs, h->n_addrs, SW_MAX_ADDRS);
}

int sw_host_room_routes(struct sw_host *h)
{
	return SW_GROW(h->routes, h->cap_routes, h->n_routes, SW_MAX_ROUTES);
}

int sw_host_room_cgroups(struct sw_host *h, size_t n)
{
	return n > SW_MAX_CGROUPS ? -ENOSPC : SW_GROW_TO(h->cgroups, h->cap_cgroups, n);
}

/* *dstp (an array with room for *cap) gets src's n elements, grown to fit */
static int copy_array(void *dstp, size_t *cap, const void *src, size_t n, size_t size)
{
	void *d;

	if (sw_grow_to(dstp, cap, n, size))
		return -ENOMEM;
	memcpy(&d, dstp, sizeof(d));
	if (n)
		memcpy(d, src, n * size);
	return 0;
}

#define COPY_ARRAY(dst, src, arr) \
	copy_array(&(dst)->arr, &(dst)->cap_##arr, (src)->arr, (src)->n_##arr, sizeof(*(src)->arr))

/* h's fields from src, its own arrays (and their capacities) kept */
static void keep_arrays(struct sw_host *h, const struct sw_host *src)
{
	struct sw_host keep = *h;

	*h = *src;
	h->links = keep.links;
	h->cap_links = keep.cap_links;
	h->addrs = keep.addrs;
	h->cap_addrs = keep.cap_addrs;
	h->routes = keep.routes;
	h->cap_routes = keep.cap_routes;
	h->cgroups = keep.cgroups;
	h->cap_cgroups = keep.cap_cgroups;
}

void sw_host_clear(struct sw_host *h)
{
	static const struct sw_host empty;

	keep_arrays(h, &empty);
}

int sw_host_copy(struct sw_host *dst, const struct sw_host *src)
{
	if (dst == src)
		return 0;
	keep_arrays(dst, src);
	if (COPY_ARRAY(dst, src, links) || COPY_ARRAY(dst, src, addrs) ||
	    COPY_ARRAY(dst, src, routes) || COPY_ARRAY(dst, src, cgroups)) {
		sw_host_free(dst);
		return -ENOMEM;
	}
	return 0;
}
