// SPDX-License-Identifier: GPL-2.0-or-later
/* rs_sandbox: each [sandbox NAME]'s sets, its dispatch from guard and its
 * policy chains (include/core/rs_internal.h). */
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

#include "core/logkind.h"
#include "core/rs_internal.h"
#include "core/ruleset.h"

/* set sbx_<name>_ifaces { type ifname; flags interval; } from patterns */
static int pattern_set(struct sw_model *m, struct work *w, const char *name,
		       const char (*patterns)[SW_IFNAMSIZ], size_t n)
{
	struct ivals *iv = &w->a;
	struct sw_set *s = rs_new_set(m, name, SW_TYPE_IFNAME, SW_IFNAMSIZ, NFT_SET_INTERVAL, "ifname");
	int err;

	if (!s)
		return -ENOSPC;
	iv->n = 0;
	iv->klen = SW_IFNAMSIZ;
	for (size_t i = 0; i < n; i++)
		if ((err = ivals_add_ifname(iv, patterns[i])))
			return err;
	return rs_ifname_fill(s, iv);
}

/* set sbx_<name>_hosts4 { type ipv4_addr . inet_proto . inet_service;
 *   size 65535; flags dynamic,timeout; } (and hosts6): the addresses
 * sandwalld resolved for the sandbox's hostname entries, each element
 * timing out with its (clamped) DNS TTL. Filled by the resolver
 * (resolver.h), never by the ruleset: dynamic, so the compare leaves
 * its elements alone. */
static int host_sets(struct sw_model *m, const char *sbx)
{
	static const uint8_t f4[] = { 4, 1, 2 }, f6[] = { 16, 1, 2 };

	for (int v6 = 0; v6 < 2; v6++) {
		char name[SW_NAME_MAX];
		struct sw_set *s;

		snprintf(name, sizeof(name), "sbx_%s_hosts%c", sbx, v6 ? '6' : '4');
		s = rs_new_concat_set(m, name,
				   (((uint32_t)(v6 ? SW_TYPE_IP6ADDR : SW_TYPE_IPADDR) << SW_TYPE_BITS |
				     SW_TYPE_INET_PROTO) << SW_TYPE_BITS) | SW_TYPE_INET_SERVICE,
				   v6 ? 24 : 12, NFT_SET_EVAL | NFT_SET_TIMEOUT,
				   v6 ? "ipv6_addr . inet_proto . inet_service" :
				   "ipv4_addr . inet_proto . inet_service", v6 ? f6 : f4, 3);
		if (!s)
			return -ENOSPC;
		s->size = SW_HOST_ELEMS;
	}
	return 0;
}

/* set sbx_<name>_q4 { type ipv4_addr; size 65535; flags dynamic; } (and
 * q6), set sbx_<name>_qif { type ifname; size 1024; flags dynamic; }: the
 * quarantined sources and links, filled by the packet path (chain
 * sbx_<name>_trip), emptied by `sandwall release`; no timeout: a
 * quarantine lasts until it is released. */
static int quarantine_sets(struct sw_model *m, const char *sbx)
{
	static const struct { char suffix[4]; uint32_t type; uint32_t len; const char *text;
			      uint32_t size; } q[] = {
		{ "q4", SW_TYPE_IPADDR, 4, "ipv4_addr", SW_QUARANTINE_ELEMS },
		{ "q6", SW_TYPE_IP6ADDR, 16, "ipv6_addr", SW_QUARANTINE_ELEMS },
		{ "qif", SW_TYPE_IFNAME, SW_IFNAMSIZ, "ifname", 1024 },
	};

	for (size_t i = 0; i < sizeof(q) / sizeof(*q); i++) {
		char name[SW_NAME_MAX];
		struct sw_set *s;

		if ((size_t)snprintf(name, sizeof(name), "sbx_%s_%s", sbx, q[i].suffix) >= sizeof(name))
			return -ENAMETOOLONG;
		if (!(s = rs_new_set(m, name, q[i].type, q[i].len, NFT_SET_EVAL, q[i].text)))
			return -ENOSPC;
		s->size = q[i].size;
	}
	return 0;
}

/* set sbx_<name>_<what>4 { type ipv4_addr; size SIZE; flags dynamic,timeout;
 *   timeout T; } (and 6): the per-source token buckets of a budget
 * ("budget") or a max_connections count ("conns"), filled by the packet
 * path (bucket_rules) */
static int bucket_sets(struct sw_model *m, const char *sbx, const char *what, uint32_t size,
		       uint64_t timeout_ms)
{
	for (int v6 = 0; v6 < 2; v6++) {
		char name[SW_NAME_MAX];
		struct sw_set *bs;

		snprintf(name, sizeof(name), "sbx_%s_%s%c", sbx, what, v6 ? '6' : '4');
		bs = rs_new_set(m, name, v6 ? SW_TYPE_IP6ADDR : SW_TYPE_IPADDR, v6 ? 16 : 4,
				NFT_SET_EVAL | NFT_SET_TIMEOUT, v6 ? "ipv6_addr" : "ipv4_addr");
		if (!bs)
			return -ENOSPC;
		bs->size = size;
		bs->timeout_ms = timeout_ms;
	}
	return 0;
}

/* Per sandbox: sbx_<name>_ifaces, sbx_<name>_src4/6 (when it names
 * them), sbx_<name>_allow4/6 (allowlist); and resolvers4/6 (udp and tcp 53
 * of the host's resolvers) for the policies' DNS rules. */
int rs_sandbox_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
			const struct sw_host *host)
{
	struct sw_allow res[2 * SW_MAX_RESOLVERS];
	char name[SW_NAME_MAX];
	int err;

	if (!cfg->n_sandboxes)
		return 0;
	if ((err = rs_concat_sets(m, "resolvers", res, rs_add_resolvers(res, 0, host), false)))
		return err;
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];

		if (x->n_patterns) {
			snprintf(name, sizeof(name), "sbx_%s_ifaces", x->name);
			if ((err = pattern_set(m, w, name, x->patterns, x->n_patterns)))
				return err;
		}
		if (x->n_sources) {
			snprintf(name, sizeof(name), "sbx_%s_src", x->name);
			if ((err = rs_addr_sets(m, w, name, x->sources, x->n_sources)))
				return err;
		}
		if (x->budget && (err = bucket_sets(m, x->name, "budget", x->budget_sources ?
						    x->budget_sources : SW_BUDGET_SOURCES,
						    (uint64_t)x->budget_unit * 1000)))
			return err;
		if (x->max_conns && (err = bucket_sets(m, x->name, "conns", SW_BUDGET_SOURCES,
						       (uint64_t)SW_CONNS_UNIT * 1000)))
			return err;
		if (x->quarantine_on && (err = quarantine_sets(m, x->name)))
			return err;
		if (x->egress == SW_EGRESS_ALLOWLIST) {
			struct sw_allow *a = malloc(sizeof(*a) * (x->n_allows ? x->n_allows : 1));

			if (!a)
				return -ENOMEM;
			memcpy(a, x->allows, sizeof(*a) * x->n_allows);
			snprintf(name, sizeof(name), "sbx_%s_allow", x->name);
			err = rs_concat_sets(m, name, a, x->n_allows, true);
			free(a);
			if (err)
				return err;
		}
		if (x->egress == SW_EGRESS_ALLOWLIST && x->n_names &&
		    (err = host_sets(m, x->name)))
			return err;
	}
	return 0;
}

/* Per sandbox, in guard after neighbour discovery and before every accept:
 *   iifname @sbx_<name>_ifaces jump sbx_<name>
 *   ip saddr @sbx_<name>_src4 jump sbx_<name>   (ip6 likewise)
 * A packet of several sandboxes meets every one of their policies. */
int rs_sandbox_dispatch(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];
		char chain[SW_NAME_MAX], set[SW_NAME_MAX], id[SW_NAME_MAX];

		snprintf(chain, sizeof(chain), "sbx_%s", x->name);
		if (x->n_patterns) {
			snprintf(set, sizeof(set), "sbx_%s_ifaces", x->name);
			snprintf(id, sizeof(id), "sbx-%s-ifaces", x->name);
			RULE(m, b, SW_CHAIN_GUARD, id, {
				e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
				e_lookup(b, NFT_REG_1, set);
				e_verdict(b, NFT_JUMP, chain);
			});
		}
		for (int v6 = 0; x->n_sources && v6 < 2; v6++) {
			snprintf(set, sizeof(set), "sbx_%s_src%c", x->name, v6 ? '6' : '4');
			snprintf(id, sizeof(id), "sbx-%s-src%c", x->name, v6 ? '6' : '4');
			RULE(m, b, SW_CHAIN_GUARD, id, {
				e_saddr(b, v6 ? AF_INET6 : AF_INET);
				e_lookup(b, NFT_REG_1, set);
				e_verdict(b, NFT_JUMP, chain);
			});
		}
	}
	return 0;
}

/* A per-source token bucket: what = "budget" (budget = N/unit: rate N
 * per unit, burst N) or "conns" (max_connections = N: rate 1 per week,
 * burst N, i.e. a count of N, the next one over; a run's start empties
 * its sets, sw_conns_reset, and a release takes the source's element out).
 * In chain sbx_<name> (conns after the quarantine's drops, then budget):
 *   ct state new jump sbx_<name>_budget
 * chain sbx_<name>_budget:
 *   update @sbx_<name>_budget4 { ip saddr limit rate N/<unit> burst N packets } return
 *   update @sbx_<name>_budget6 { ip6 saddr limit rate N/<unit> burst N packets } return
 *   goto block_budget_<name>        (block_connections_<name> for conns)
 * A token bucket per source address: N new connections at once, N more per
 * window; the element lives while the source keeps trying (update
 * refreshes its timeout) and goes after a quiet window. Only an update
 * that succeeded inside the budget returns: over budget, a full set or a
 * failed update all fall through to the drop (fail closed; the audit of
 * every dynamic set is in docs/ruleset.md). */
static int bucket_rules(struct sw_model *m, struct rb *b, const struct sw_sandbox *x,
			const char *what, const char *block_what, uint64_t rate, uint64_t unit,
			uint32_t burst)
{
	char chain[SW_NAME_MAX], sub[SW_NAME_MAX], block[SW_NAME_MAX], id[SW_NAME_MAX];

	snprintf(chain, sizeof(chain), "sbx_%s", x->name);
	snprintf(sub, sizeof(sub), "sbx_%s_%s", x->name, what);
	snprintf(block, sizeof(block), "block_%s_%s", block_what, x->name);
	snprintf(id, sizeof(id), "sbx-%s-%s", x->name, what);
	RULE(m, b, chain, id, {
		e_ct_new(b);
		e_verdict(b, NFT_JUMP, sub);
	});
	/* chain sbx_<name>_<what> { } */
	if (!sw_model_add_chain(m, sub))
		return -ENOSPC;
	for (int v6 = 0; v6 < 2; v6++) {
		char set[SW_NAME_MAX];

		snprintf(set, sizeof(set), "sbx_%s_%s%c", x->name, what, v6 ? '6' : '4');
		snprintf(id, sizeof(id), "sbx-%s-%s%c", x->name, what, v6 ? '6' : '4');
		/* update @set { ip saddr limit rate RATE/UNIT burst BURST packets }:
		 * the source took a token of its bucket (e_update_limit) */
		RULE(m, b, sub, id, {
			e_saddr(b, v6 ? AF_INET6 : AF_INET);
			e_update_limit(b, set, rate, unit, burst);
			e_verdict(b, NFT_RETURN, NULL);
		});
	}
	/* goto block_<block_what>_<name>: over, set full or update failed */
	snprintf(id, sizeof(id), "sbx-%s-%s-drop", x->name, what);
	RULE(m, b, sub, id, e_verdict(b, NFT_GOTO, block));
	return 0;
}

/* In chain sbx_<name>, first (before its budget and its returns):
 *   ip saddr @sbx_<name>_q4 goto block_quarantine_<name>
 *   ip6 saddr @sbx_<name>_q6 goto block_quarantine_<name>
 *   iifname @sbx_<name>_qif goto block_quarantine_<name>
 * chain sbx_<name>_trip (jumped to by the block chains of its
 * quarantine_on categories, rs_sandbox_trips):
 *   ip saddr @sbx_<name>_q4 return              already cut off
 *   ip6 saddr @sbx_<name>_q6 return
 *   iifname @sbx_<name>_qif return
 *   limit rate 10/second burst 20 packets log prefix "sandwall:tripped:<name> " group G
 *   meta iifkind != "bridge" add @sbx_<name>_qif { iifname } return
 *   add @sbx_<name>_q4 { ip saddr } return
 *   add @sbx_<name>_q6 { ip6 saddr } return
 *   add @sbx_<name>_qif { iifname } return
 * A link that is no bridge (a tap, a routed veth) is one sandbox: the
 * link is cut off, whatever source it forges. Behind a bridge the source
 * address is the sandbox's (table bridge binds each port to its peer's
 * addresses, sw_portbind_wanted): that address is cut off, never the
 * bridge; only when an address set is full does the bridge go as a whole
 * (fail closed). Every new packet of the source then meets the drop
 * before any return: new connections, and its own flows already open. */
static int quarantine_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			    const struct sw_sandbox *x)
{
	static const char *const q[3] = { "q4", "q6", "qif" };
	char chain[SW_NAME_MAX], trip[SW_NAME_MAX], block[SW_NAME_MAX], set[SW_NAME_MAX];
	char id[SW_NAME_MAX], prefix[64];
	int err;

	snprintf(chain, sizeof(chain), "sbx_%s", x->name);
	snprintf(trip, sizeof(trip), "sbx_%s_trip", x->name);
	snprintf(block, sizeof(block), "block_quarantine_%s", x->name);
	for (int pass = 0; pass < 2; pass++) {
		const char *in = pass ? trip : chain;

		if (pass && !sw_model_add_chain(m, trip))
			return -ENOSPC;
		for (int i = 0; i < 3; i++) {
			snprintf(set, sizeof(set), "sbx_%s_%s", x->name, q[i]);
			snprintf(id, sizeof(id), "sbx-%s-%s%s", x->name, pass ? "in-" : "", q[i]);
			RULE(m, b, in, id, {
				if (i < 2)
					e_saddr(b, i ? AF_INET6 : AF_INET);
				else
					e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
				e_lookup(b, NFT_REG_1, set);
				e_verdict(b, pass ? NFT_RETURN : NFT_GOTO, pass ? NULL : block);
			});
		}
	}
	if (cfg->log_blocked) {
		if ((err = sw_logkind_prefix(SW_LK_TRIPPED, x->name, prefix, sizeof(prefix))))
			return err;
		snprintf(id, sizeof(id), "sbx-%s-trip-log", x->name);
		RULE(m, b, trip, id, {
			e_limit(b, 10, 1, 20);
			e_log(b, prefix, cfg->log_group);
		});
	}
	snprintf(set, sizeof(set), "sbx_%s_qif", x->name);
	snprintf(id, sizeof(id), "sbx-%s-trip-link", x->name);
	RULE(m, b, trip, id, {
		char bridge[SW_IFNAMSIZ] = "bridge";

		e_meta(b, NFT_META_IIFKIND, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, bridge, sizeof(bridge), "\"bridge\"");
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_dynset_add(b, set);
		e_verdict(b, NFT_RETURN, NULL);
	});
	for (int i = 0; i < 3; i++) {
		snprintf(set, sizeof(set), "sbx_%s_%s", x->name, q[i]);
		snprintf(id, sizeof(id), "sbx-%s-trip-%s", x->name, q[i]);
		RULE(m, b, trip, id, {
			if (i < 2)
				e_saddr(b, i ? AF_INET6 : AF_INET);
			else
				e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
			e_dynset_add(b, set);
			e_verdict(b, NFT_RETURN, NULL);
		});
	}
	return 0;
}

/* In a block chain, after its counter: for every sandbox whose
 * quarantine_on has bit (1 << category, SW_Q_EGRESS, SW_Q_BUDGET), a jump
 * to its trip chain. own >= 0: the block chain is that sandbox's own
 * (egress_<name>, budget_<name>): every packet in it is the sandbox's.
 * Else the sandbox's packets are told by its dispatch:
 *   iifname @sbx_<name>_ifaces jump sbx_<name>_trip
 *   ip saddr @sbx_<name>_src4 jump sbx_<name>_trip   (ip6 likewise) */
int rs_sandbox_trips(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		     const char *chain, uint32_t bit, int own)
{
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];
		char trip[SW_NAME_MAX], set[SW_NAME_MAX], id[SW_NAME_MAX];

		if (!(x->quarantine_on & bit) || (own >= 0 && (size_t)own != i))
			continue;
		snprintf(trip, sizeof(trip), "sbx_%s_trip", x->name);
		if (own >= 0) {
			snprintf(id, sizeof(id), "%s-trip", chain);
			RULE(m, b, chain, id, e_verdict(b, NFT_JUMP, trip));
			continue;
		}
		if (x->n_patterns) {
			snprintf(set, sizeof(set), "sbx_%s_ifaces", x->name);
			snprintf(id, sizeof(id), "%s-trip-%s", chain, x->name);
			RULE(m, b, chain, id, {
				e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
				e_lookup(b, NFT_REG_1, set);
				e_verdict(b, NFT_JUMP, trip);
			});
		}
		for (int v6 = 0; x->n_sources && v6 < 2; v6++) {
			snprintf(set, sizeof(set), "sbx_%s_src%c", x->name, v6 ? '6' : '4');
			snprintf(id, sizeof(id), "%s-trip-%s-src%c", chain, x->name, v6 ? '6' : '4');
			RULE(m, b, chain, id, {
				e_saddr(b, v6 ? AF_INET6 : AF_INET);
				e_lookup(b, NFT_REG_1, set);
				e_verdict(b, NFT_JUMP, trip);
			});
		}
	}
	return 0;
}

/* chain sbx_<name>: the policy, which only drops or returns:
 *   dns none:   ip daddr . ip protocol . th dport @resolvers4 goto block_egress_<name>
 *   not open:   ip6 daddr @nd6 return
 *               [dns auto]  ip daddr . ip protocol . th dport @resolvers4 return
 *               [allowlist] ip daddr . ip protocol . th dport @sbx_<name>_allow4 return
 *               [hostnames] ip daddr . ip protocol . th dport @sbx_<name>_hosts4 return
 *               goto block_egress_<name>
 * (and ip6). A returned packet goes on through every global block. */
int rs_sandbox_chains(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];
		char chain[SW_NAME_MAX], block[SW_NAME_MAX], set[SW_NAME_MAX], id[SW_NAME_MAX];
		int err;

		snprintf(chain, sizeof(chain), "sbx_%s", x->name);
		snprintf(block, sizeof(block), "block_egress_%s", x->name);
		/* chain sbx_<name> { } */
		if (!sw_model_add_chain(m, chain))
			return -ENOSPC;
		if (x->quarantine_on && (err = quarantine_rules(m, b, cfg, x)))
			return err;
		if (x->max_conns && (err = bucket_rules(m, b, x, "conns", "connections", 1,
							SW_CONNS_UNIT, x->max_conns)))
			return err;
		if (x->budget && (err = bucket_rules(m, b, x, "budget", "budget", x->budget,
							 x->budget_unit, x->budget)))
			return err;
		if (x->dns == SW_DNS_NONE) {
			snprintf(id, sizeof(id), "sbx-%s-nodns", x->name);
			if ((err = rs_concat_rules(m, b, chain, id, "resolvers", NFT_GOTO, block)))
				return err;
		}
		if (x->egress == SW_EGRESS_OPEN)
			continue;
		/* ip6 daddr @nd6 return: link-scope IPv6 (neighbour discovery,
		 * router solicitation, MLD) never leaves the link; the global
		 * rules judge it */
		snprintf(id, sizeof(id), "sbx-%s-link6", x->name);
		RULE(m, b, chain, id, {
			e_daddr(b, AF_INET6);
			e_lookup(b, NFT_REG_1, "nd6");
			e_verdict(b, NFT_RETURN, NULL);
		});
		if (x->dns == SW_DNS_AUTO) {
			snprintf(id, sizeof(id), "sbx-%s-dns", x->name);
			if ((err = rs_concat_rules(m, b, chain, id, "resolvers", NFT_RETURN, NULL)))
				return err;
		}
		if (x->egress == SW_EGRESS_ALLOWLIST) {
			snprintf(id, sizeof(id), "sbx-%s-allow", x->name);
			snprintf(set, sizeof(set), "sbx_%s_allow", x->name);
			if ((err = rs_allow_rules(m, b, chain, id, set, NFT_RETURN, NULL)))
				return err;
		}
		if (x->egress == SW_EGRESS_ALLOWLIST && x->n_names) {
			/* ip daddr . ip protocol . th dport @sbx_<name>_hosts4 return (and ip6) */
			snprintf(id, sizeof(id), "sbx-%s-hosts", x->name);
			snprintf(set, sizeof(set), "sbx_%s_hosts", x->name);
			if ((err = rs_concat_rules(m, b, chain, id, set, NFT_RETURN, NULL)))
				return err;
		}
		/* goto block_egress_<name> */
		snprintf(id, sizeof(id), "sbx-%s-egress", x->name);
		RULE(m, b, chain, id, e_verdict(b, NFT_GOTO, block));
	}
	return 0;
}
