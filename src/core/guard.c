// SPDX-License-Identifier: GPL-2.0-or-later
/* guard: which links are guarded, why, and the interface-name patterns
 * (include/core/guard.h). */
#include <string.h>

#include "core/guard.h"

/* What `auto` adds by name, besides what it detects by kind: the interface
 * names of the container and VM runtimes (a bridge or veth is detected
 * anyway; the names also cover a device before its kind is known, e.g. a
 * tun-mode tap* or a veth whose peer has not moved yet). */
const char *const sw_runtime_names[] = {
	"docker0", "br-*", "cni-podman*", "podman*", "lxcbr*", "virbr*", "lxdbr*", "incusbr*",
	"tap*", "fc-*", "cali*", "lxc*", "cilium_*", "flannel*", "cni*", "nerdctl*", "vnet*",
};
const size_t sw_n_runtime_names = sizeof(sw_runtime_names) / sizeof(*sw_runtime_names);

static const char *const guard_why_names[SW_GUARD_WHY_COUNT] = {
	[SW_GUARD_NO] = "not guarded", [SW_GUARD_EX_LOOPBACK] = "loopback",
	[SW_GUARD_EX_UPLINK] = "default route", [SW_GUARD_EX_CONFIG] = "[guard] except",
	[SW_GUARD_PATTERN] = "pattern",
	[SW_GUARD_ALL_BRIDGES] = "all_bridges", [SW_GUARD_BRIDGE] = "bridge",
	[SW_GUARD_ROUTED_VETH] = "routed veth", [SW_GUARD_TAP] = "tap",
	[SW_GUARD_RUNTIME_NAME] = "runtime name", [SW_GUARD_KIND] = "kind",
};

/* auto: the link kinds that face a container or VM, guarded in the
 * kernel by `meta iifkind` from their first packet (a tap is kind "tun"
 * with an Ethernet type: its own rule) */
const char *const sw_guard_kinds[] = { "bridge", "veth", "macvlan", "macvtap", "ipvlan", "ipvtap" };
const size_t sw_n_guard_kinds = sizeof(sw_guard_kinds) / sizeof(*sw_guard_kinds);

const char *sw_guard_why_name(enum sw_guard_why why)
{
	return (unsigned)why < SW_GUARD_WHY_COUNT ? guard_why_names[why] : "unknown";
}

bool sw_link_is_loopback(const struct sw_link *l)
{
	return l->ifindex == 1 || l->loopback;
}

/* the kernel's interval match of an ifname set (ivals_add_ifname) */
bool sw_name_match(const char *pattern, const char *name)
{
	size_t n = strnlen(pattern, SW_IFNAMSIZ);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, name, n - 1);
	return !strncmp(pattern, name, SW_IFNAMSIZ);
}

bool sw_guard_excepted(const struct sw_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_except; i++)
		if (!strncmp(cfg->except[i], name, SW_IFNAMSIZ))
			return true;
	return false;
}

bool sw_guard_never_auto(const struct sw_config *cfg, const struct sw_link *l)
{
	return sw_link_is_loopback(l) || l->uplink || sw_guard_excepted(cfg, l->name);
}

static bool runtime_name(const char *name)
{
	for (size_t i = 0; i < sw_n_runtime_names; i++)
		if (sw_name_match(sw_runtime_names[i], name))
			return true;
	return false;
}

enum sw_guard_why sw_ruleset_guard_why(const struct sw_config *cfg, const struct sw_link *l)
{
	enum sw_guard_why why = SW_GUARD_NO;

	for (size_t i = 0; i < cfg->n_patterns; i++)
		if (sw_name_match(cfg->patterns[i], l->name))
			return SW_GUARD_PATTERN;
	if (cfg->all_bridges && l->is_bridge)
		return SW_GUARD_ALL_BRIDGES;
	if (!cfg->auto_detect)
		return SW_GUARD_NO;
	/* a bridge port's traffic arrives on the bridge: the bridge is guarded */
	if (l->is_bridge)
		why = SW_GUARD_BRIDGE;
	else if (l->kind == SW_LINK_VETH && l->peer_netns && !l->master_bridge)
		why = SW_GUARD_ROUTED_VETH;
	else if (l->kind == SW_LINK_TAP)
		why = SW_GUARD_TAP;
	else if (runtime_name(l->name))
		why = SW_GUARD_RUNTIME_NAME;
	/* what the kernel guards by kind anyway (a veth whose peer is still
	 * here may be moved into a container at any time; a host-side
	 * macvlan/ipvlan shim is reached by its siblings): guarded, so its
	 * subnets are own, not lan. A bridge's port is left to its bridge. */
	else if ((l->kind == SW_LINK_VETH && !l->master_bridge) || l->kind == SW_LINK_MACVLAN ||
		 l->kind == SW_LINK_IPVLAN)
		why = SW_GUARD_KIND;
	if (why != SW_GUARD_NO && sw_guard_never_auto(cfg, l))
		return sw_link_is_loopback(l) ? SW_GUARD_EX_LOOPBACK :
		       l->uplink ? SW_GUARD_EX_UPLINK : SW_GUARD_EX_CONFIG;
	return why;
}

bool sw_ruleset_guarded(const struct sw_config *cfg, const struct sw_link *l)
{
	return sw_ruleset_guard_why(cfg, l) >= SW_GUARD_PATTERN;
}

bool sw_guard_pattern_hits_excluded(const struct sw_config *cfg, const char *pattern,
				    const struct sw_host *host)
{
	for (size_t i = 0; i < cfg->n_except; i++)
		if (sw_name_match(pattern, cfg->except[i]))
			return true;
	for (size_t i = 0; host && i < host->n_links; i++)
		if (sw_guard_never_auto(cfg, &host->links[i]) && sw_name_match(pattern, host->links[i].name))
			return true;
	return false;
}
