// SPDX-License-Identifier: GPL-2.0-or-later
/* ruleset: the desired model of table inet <name>.
 *
 *   chain prerouting   filter hook prerouting priority -150, policy accept
 *                      iifname @guard_links / @guard_ifaces goto guard; with
 *                      auto, meta iifkind @guard_kinds (not @guard_except)
 *   chain guard        anti-spoofing, the fast path (a destination outside
 *                      blocked4/6 and not local returns), replies, ND
 *                      (chain guard_nd), sandboxes, allow lists, then one
 *                      rule per category in rank order
 *   chain input        filter hook input priority -150, policy accept
 *                      a translated destination -> guard_nat, the rest
 *                      -> guard_input ([block] host)
 *   chain guard_input  broadcast/multicast to the host -> block_host
 *   chain forward      filter hook forward priority -150, policy accept
 *                      the opening side -> guard_fwd: sandboxes, then a
 *                      translated destination -> guard_nat (guard's
 *                      categories again, after NAT)
 *   chain block_<cat>  counter name <cat>; [limit + log]; drop
 *
 * Every accept before the blocks is a door; docs/ruleset.md and
 * docs/threat-model.md say why a forged packet cannot use each one.
 *
 * Chains and rules are fixed (they depend only on a few switches); all
 * that changes with the host lives in named sets. Each rule carries the
 * comment "sandwall:<id>" as userdata; handles are never relied on. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>

#include "core/rs_internal.h"
#include "core/ruleset.h"

void rs_work_free(struct work *w)
{
	if (!w)
		return;
	free(w->a.v);
	free(w->b.v);
	free(w->p);
	free(w->guarded);
	for (int i = 0; i < 3; i++)
		free(w->pre[i]);
	free(w);
}


/* ---- the whole model ----------------------------------------------------- */

int sw_ruleset_build(const struct sw_config *cfg, const struct sw_host *host,
		     struct sw_model *m, char *err, size_t errlen)
{
	struct work *w = calloc(1, sizeof(*w));
	struct sw_prefix *p = NULL;
	int rc;

	sw_model_init(m, cfg->table);
	m->has_table = true;
	if (w) {
		/* one prefix per address, route, gateway or config entry at most */
		w->cap_p = FIXED_ENTRIES + cfg->n_destinations + cfg->n_networks +
			   (host ? host->n_addrs + host->n_routes + host->n_gateways : 0);
		p = w->p = calloc(w->cap_p, sizeof(*w->p));
	}
	if (!w || !p) {
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = rs_ifname_set(m, w, cfg, host)))
		goto fail;

	/* every set category's <name>4/<name>6 in rank order, own4/own6
	 * before the first one after own; then blocked4/6, the union */
	if ((rc = rs_category_sets(m, w, cfg, host)))
		goto fail;

	/* set nd6 { type ipv6_addr; flags interval; elements = { fe80::/10, ff02::/16 } } */
	if ((rc = rs_nd_set(m, w)))
		goto fail;
	if ((rc = rs_between_set(m, cfg)))
		goto fail;

	if ((rc = rs_allow_sets(m, cfg, host)))
		goto fail;
	if ((rc = rs_sandbox_sets(m, w, cfg, host)))
		goto fail;
	if ((rc = rs_output_sets(m, cfg, host)))
		goto fail;
	if ((rc = rs_build_rules(m, cfg)))
		goto fail;
	/* the compare walks sorted element lists on both sides */
	for (size_t i = 0; i < m->n_sets; i++)
		sw_set_sort(&m->sets[i]);
	rs_work_free(w);
	return 0;
fail:
	rs_work_free(w);
	snprintf(err, errlen, "cannot build the ruleset: %s", strerror(-rc));
	sw_model_free(m);
	return rc;
}
