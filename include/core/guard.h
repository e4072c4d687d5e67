/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_GUARD_H
#define SANDWALL_GUARD_H
/* guard: which links of the host are guarded and why (a [guard]
 * interfaces pattern, all_bridges, or what auto detects), which ones auto
 * never guards (the loopback, the uplinks, [guard] except), and the one
 * matcher of interface-name patterns. Pure: config and host in, answers
 * out. */
#include <stdbool.h>
#include <stddef.h>
#include "core/config.h"
#include "core/host.h"

/* Why a link is guarded, or why `auto` leaves it out. Values from
 * SW_GUARD_PATTERN on mean guarded; the first reason that applies wins,
 * in this order. */
enum sw_guard_why {
	SW_GUARD_NO,            /* not guarded */
	SW_GUARD_EX_LOOPBACK,   /* auto would guard it, but it is the loopback */
	SW_GUARD_EX_UPLINK,     /* auto would guard it, but it carries a default route */
	SW_GUARD_EX_CONFIG,     /* auto would guard it, but [guard] except names it */
	SW_GUARD_PATTERN,       /* a [guard] interfaces pattern names it */
	SW_GUARD_ALL_BRIDGES,   /* a bridge, with all_bridges = yes */
	SW_GUARD_BRIDGE,        /* auto: a bridge */
	SW_GUARD_ROUTED_VETH,   /* auto: a veth whose peer is in another namespace, on no bridge */
	SW_GUARD_TAP,           /* auto: a tap device (micro-VM) */
	SW_GUARD_RUNTIME_NAME,  /* auto: a known container or VM runtime's interface name */
	SW_GUARD_KIND,          /* auto: a container-facing kind (a veth whose peer is here,
				 * a host-side macvlan/ipvlan): guarded by kind in the kernel */
	SW_GUARD_WHY_COUNT
};

enum sw_guard_why sw_ruleset_guard_why(const struct sw_config *cfg, const struct sw_link *l);
/* "pattern", "bridge", "routed veth", "tap", "runtime name", "default route", ... */
const char *sw_guard_why_name(enum sw_guard_why why);
/* Is the link guarded (sw_ruleset_guard_why >= SW_GUARD_PATTERN)? */
bool sw_ruleset_guarded(const struct sw_config *cfg, const struct sw_link *l);

/* Is it the loopback (ifindex 1 in every namespace, or IFF_LOOPBACK)? */
bool sw_link_is_loopback(const struct sw_link *l);
/* A pattern is a name, or a prefix and a final '*' (config_keys.c refuses any
 * other '*' and every other wildcard): the kernel's interval match. */
bool sw_name_match(const char *pattern, const char *name);
/* Does [guard] except name it (exactly)? */
bool sw_guard_excepted(const struct sw_config *cfg, const char *name);
/* A link auto never guards: the loopback, an uplink (the output interface
 * of a default route, a bridge that holds the uplink included), or one
 * [guard] except names. */
bool sw_guard_never_auto(const struct sw_config *cfg, const struct sw_link *l);
/* Does a runtime name pattern match an interface auto must never guard?
 * Then it cannot go in as a pattern (a range has no holes): the names it
 * matches now go in one by one instead. */
bool sw_guard_pattern_hits_excluded(const struct sw_config *cfg, const char *pattern,
				    const struct sw_host *host);

/* The names auto adds as patterns: docker0, br-*, cni-podman*, ... */
extern const char *const sw_runtime_names[];
extern const size_t sw_n_runtime_names;
/* auto: the link kinds guarded by `meta iifkind` (bridge, veth, ...) */
extern const char *const sw_guard_kinds[];
extern const size_t sw_n_guard_kinds;

#endif
