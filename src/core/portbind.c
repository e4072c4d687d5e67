// SPDX-License-Identifier: GPL-2.0-or-later
/* portbind: each bridge port's own addresses, read from its peer's
 * namespace (portbind.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "core/portbind.h"
#include "core/ruleset.h"

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif
#ifndef NETLINK_LISTEN_ALL_NSID
#define NETLINK_LISTEN_ALL_NSID 8
#endif

bool sw_portbind_wanted(const struct sw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_sandboxes; i++)
		if (cfg->sandboxes[i].n_sources || cfg->sandboxes[i].budget ||
		    cfg->sandboxes[i].quarantine_on)
			return true;
	return false;
}

enum sw_port_kind sw_portbind_port(const struct sw_config *cfg, const struct sw_host *h,
				   const struct sw_link *l)
{
	const struct sw_link *br;

	if (!l->master || !l->master_bridge || !(br = sw_host_link(h, l->master)) ||
	    !sw_ruleset_guarded(cfg, br))
		return SW_PORT_NONE;
	switch (l->kind) {
	case SW_LINK_VETH:
		return l->peer_netns && l->peer_ifindex > 0 ? SW_PORT_BOUND : SW_PORT_UNBOUND;
	case SW_LINK_TAP:
	case SW_LINK_TUN:
	case SW_LINK_MACVLAN:
	case SW_LINK_IPVLAN:
		return SW_PORT_UNBOUND;
	default:
		return SW_PORT_EXEMPT;
	}
}

/* Is src narrower than the subnet net of link ifindex, a guarded
 * interface that is no bridge? Then write the refusal. */
static int narrower(const struct sw_config *cfg, const struct sw_host *h,
		    const struct sw_sandbox *x, size_t j,
		    const struct sw_prefix *net, int ifindex, char *err, size_t errlen)
{
	const struct sw_prefix *src = &x->sources[j];
	const struct sw_link *l;
	char a[SW_ADDR_STRLEN], b[SW_ADDR_STRLEN];

	if (src->family != net->family || src->len <= net->len ||
	    !sw_prefix_contains(net, src) || !(l = sw_host_link(h, ifindex)) ||
	    l->is_bridge || !sw_ruleset_guarded(cfg, l))
		return 0;
	sw_prefix_format(src, a, sizeof(a));
	sw_prefix_format(net, b, sizeof(b));
	snprintf(err, errlen, "%s:%u: [sandbox %s] sources %s is narrower than %s of %s (%s), "
		 "where no per-port binding can be known: a sandbox behind %s can send from "
		 "every address of %s; name the whole subnet, or put the sandboxes on a bridge",
		 cfg->path, x->source_lines[j] ? x->source_lines[j] : x->line, x->name, a, b, l->name,
		 sw_link_kind_name(l->kind), l->name, b);
	return -EINVAL;
}

int sw_portbind_check_sources(const struct sw_config *cfg, const struct sw_host *h,
			      char *err, size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; i < cfg->n_sandboxes && !rc; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];

		for (size_t j = 0; j < x->n_sources && !rc; j++) {
			for (size_t k = 0; k < h->n_addrs && !rc; k++) {
				struct sw_prefix net = h->addrs[k].local;

				sw_prefix_mask(&net);
				rc = narrower(cfg, h, x, j, &net, h->addrs[k].ifindex,
					      err, errlen);
			}
			for (size_t k = 0; k < h->n_routes && !rc; k++)
				rc = narrower(cfg, h, x, j, &h->routes[k].dst,
					      h->routes[k].oif, err, errlen);
		}
	}
	return rc;
}

void sw_binds_free(struct sw_binds *b)
{
	free(b->v);
	free(b->ports);
	memset(b, 0, sizeof(*b));
}

int sw_binds_add_port(struct sw_binds *b, const struct sw_link *l)
{
	struct sw_bound_port *p;

	if (b->n_ports == b->cap_ports) {
		size_t cap = b->cap_ports ? b->cap_ports * 2 : 64;

		if (!(p = realloc(b->ports, cap * sizeof(*p))))
			return -ENOMEM;
		b->ports = p;
		b->cap_ports = cap;
	}
	p = &b->ports[b->n_ports++];
	memset(p, 0, sizeof(*p));
	p->ifindex = l->ifindex;
	p->netnsid = l->netnsid;
	p->peer_ifindex = l->peer_ifindex;
	memcpy(p->name, l->name, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = '\0';
	return 0;
}

int sw_binds_add(struct sw_binds *b, const struct sw_link *l, const struct sw_prefix *a)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct sw_bind *v;

		if (b->n >= SW_MAX_BINDS)
			return -ENOSPC;
		if (!(v = realloc(b->v, cap * sizeof(*v))))
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	memset(&b->v[b->n], 0, sizeof(b->v[b->n]));
	b->v[b->n].ifindex = l->ifindex;
	memcpy(b->v[b->n].port, l->name, sizeof(b->v[b->n].port));
	b->v[b->n].port[sizeof(b->v[b->n].port) - 1] = '\0';
	b->v[b->n].addr = *a;
	b->n++;
	return 0;
}

int sw_bind_cmp(const void *x, const void *y)
{
	const struct sw_bind *a = x, *b = y;
	int c = strcmp(a->port, b->port);

	if (c)
		return c;
	if (a->addr.family != b->addr.family)
		return a->addr.family - b->addr.family;
	return memcmp(a->addr.addr, b->addr.addr, sizeof(a->addr.addr));
}

bool sw_binds_equal(const struct sw_binds *a, const struct sw_binds *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (sw_bind_cmp(&a->v[i], &b->v[i]) || a->v[i].ifindex != b->v[i].ifindex)
			return false;
	return true;
}

