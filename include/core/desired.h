/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DESIRED_H
#define SANDWALL_DESIRED_H
/* desired = f(config, host): the tables sandwall wants in the kernel,
 * built from one inputs struct. Pure: the host is read by the caller
 * (sync/reconcile.h, sw_host_gather), the resolver's addresses are passed
 * in; nothing here talks to the kernel. */
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"
#include "core/host.h"
#include "core/model.h"

/* One address an allowlist hostname resolved to, for the set
 * sbx_<sandbox>_hosts4/6 it belongs in; e.timeout_ms is its remaining
 * lifetime (host/resolver.h, sw_resolver_elems). */
struct sw_desired_elem {
	char set[SW_NAME_MAX];
	struct sw_elem e;
};

struct sw_desired_in {
	const struct sw_config *cfg;
	const struct sw_host *host;             /* links, addresses, routes, cgroups: read */
	uint32_t table_flags;                   /* table inet's ownership flags (the daemon's) */
	const struct sw_desired_elem *elems;    /* the hostnames' addresses (NULL: none) */
	size_t n_elems;
};

/* table inet <name>: the host-dependent refusals (nothing is built), then
 * the ruleset, its table flags and the resolved addresses. 0 or -errno
 * with err filled; on failure inet holds nothing to free. */
int sw_desired_build(const struct sw_desired_in *in, struct sw_model *inet,
		     char *err, size_t errlen);

/* table netdev <name> ([guard] macvlan_parents or users) for the same
 * inputs, beside the inet model sw_desired_build made from them (its
 * category sets are copies of inet's). 0 or -errno with err filled. */
int sw_desired_netdev(const struct sw_desired_in *in, const struct sw_model *inet,
		      struct sw_model *netdev, char *err, size_t errlen);

#endif
