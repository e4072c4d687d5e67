// SPDX-License-Identifier: GPL-2.0-or-later
/* rs_chains: the chain layout of table inet <name>: the prerouting,
 * input and forward hooks, guard and the block chains (docs/ruleset.md;
 * include/core/rs_internal.h). */
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

#include "core/gate.h"
#include "core/logkind.h"
#include "core/rs_internal.h"
#include "core/ruleset.h"

/* ip daddr @<set>4 goto|return ... ; ip6 daddr @<set>6 ... (in chain) */
static int addr_rules(struct sw_model *m, struct rb *b, const char *chain, const char *set,
		      int verdict, const char *target)
{
	char sname[SW_NAME_MAX];

	for (int v6 = 0; v6 < 2; v6++) {
		int fam = v6 ? AF_INET6 : AF_INET;

		snprintf(sname, sizeof(sname), "%s%c", set, v6 ? '6' : '4');
		RULE(m, b, chain, sname, {
			e_daddr(b, fam);
			e_lookup(b, NFT_REG_1, sname);
			e_verdict(b, verdict, target);
		});
	}
	return 0;
}

/* chain block_<cat>: its counter, [limit + log with the prefix of kind
 * lk for name (core/logkind.h: "sandwall:<category> ",
 * "sandwall:egress:<sandbox> ", ...)], drop. cat names the chain and the
 * counter. */
static int block_chain(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		       const char *cat, enum sw_logkind lk, const char *name, uint32_t trip_bit,
		       int own)
{
	char chain[SW_NAME_MAX], id[SW_NAME_MAX], prefix[64];
	struct sw_chain *ch;
	int err;

	snprintf(chain, sizeof(chain), "block_%s", cat);
	/* chain block_<cat> { } */
	if (!(ch = sw_model_add_chain(m, chain)))
		return -ENOSPC;

	/* counter name "<cat>" */
	if ((err = rs_counter_rule(m, b, chain, cat)))
		return err;
	/* the sandboxes this category cuts off: jump sbx_<name>_trip */
	if (trip_bit && (err = rs_sandbox_trips(m, b, cfg, chain, trip_bit, own)))
		return err;
	if (cfg->log_blocked) {
		/* limit rate 10/second burst 20 packets log prefix "sandwall:<cat> " group G */
		if ((err = sw_logkind_prefix(lk, name, prefix, sizeof(prefix))))
			return err;
		snprintf(id, sizeof(id), "%s-log", cat);
		RULE(m, b, chain, id, {
			e_limit(b, 10, 1, 20);
			e_log(b, prefix, cfg->log_group);
		});
	}
	/* drop */
	snprintf(id, sizeof(id), "%s-drop", cat);
	RULE(m, b, chain, id, e_verdict(b, NF_DROP, NULL));
	return 0;
}

/* counter name "<cat>" (id <cat>-count): the first rule of a block chain */
int rs_counter_rule(struct sw_model *m, struct rb *b, const char *chain, const char *cat)
{
	char id[SW_NAME_MAX];

	snprintf(id, sizeof(id), "%s-count", cat);
	RULE(m, b, chain, id, e_counter(b, cat));
	return 0;
}


/* Which packets a chain judges: those that arrive on a guarded interface.
 *   iifname @guard_links goto TARGET       a guarded link by its exact name
 *                                          (a hash lookup, docs/BENCHMARKS.md run F)
 *   iifname @guard_ifaces goto TARGET      the patterns and the rest (an interval tree)
 * prek: each rule starts with `ct direction original` (the side that
 * opened the connection) and `ct status dnat` (its destination
 * translated, by any table: dnat, redirect). ids:
 * <id>-links, <id>. goto: TARGET's return ends at the policy, accept,
 * so no packet is judged twice in one hook. */
enum dispatch_pre { PRE_NONE, PRE_ORIGINAL, PRE_DNAT };

static void e_dispatch_pre(struct rb *b, enum dispatch_pre p)
{
	if (p >= PRE_ORIGINAL)
		e_ct_direction(b, 0 /* IP_CT_DIR_ORIGINAL */);
	if (p == PRE_DNAT)
		e_ct_dnat(b);
}

static int dispatch_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			  const char *chain, const char *id, enum dispatch_pre prek, const char *target)
{
	char rid[SW_NAME_MAX];

	for (int i = 0; i < 2; i++) {
		const char *set = i ? "guard_ifaces" : SW_SET_GUARD_LINKS;

		snprintf(rid, sizeof(rid), "%s%s", id, i ? "" : "-links");
		RULE(m, b, chain, rid, {
			e_dispatch_pre(b, prek);
			e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
			e_lookup(b, NFT_REG_1, set);
			e_verdict(b, NFT_GOTO, target);
		});
	}
	if (!cfg->auto_detect)
		return 0;
	/* auto: by kind, from the first packet, whatever the daemon has seen
	 * (no return: the chain may hold more rules, e.g. input's for lo):
	 *   meta iifkind @guard_kinds iifname != @guard_except goto TARGET
	 *   meta iifkind "tun" meta iiftype ether iifname != @guard_except goto TARGET
	 * (bridge, veth, macvlan, ipvlan; a tap), unless lo, an uplink or
	 * [guard] except. The kind first: a physical NIC has none. */
	snprintf(rid, sizeof(rid), "%s-kinds", id);
	RULE(m, b, chain, rid, {
		e_dispatch_pre(b, prek);
		e_meta(b, NFT_META_IIFKIND, NFT_REG_1);
		e_lookup(b, NFT_REG_1, SW_SET_GUARD_KINDS);
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_lookup_inv(b, NFT_REG_1, SW_SET_GUARD_EXCEPT);
		e_verdict(b, NFT_GOTO, target);
	});
	snprintf(rid, sizeof(rid), "%s-tap", id);
	RULE(m, b, chain, rid, {
		char tun[SW_IFNAMSIZ] = "tun";
		uint16_t ether = 1 /* ARPHRD_ETHER */;

		e_dispatch_pre(b, prek);
		e_meta(b, NFT_META_IIFKIND, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_EQ, tun, sizeof(tun), "\"tun\"");
		e_meta(b, NFT_META_IIFTYPE, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &ether, sizeof(ether), "ether");
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_lookup_inv(b, NFT_REG_1, SW_SET_GUARD_EXCEPT);
		e_verdict(b, NFT_GOTO, target);
	});
	return 0;
}

/* The forward hook (docs/ruleset.md): the side that opened a connection
 * from a guarded interface meets the routed categories (sandboxes), and,
 * when another table translated its destination (dnat, redirect), the
 * same categories and carve-outs as in guard on the new destination,
 * counted in the same counters:
 *   chain forward { type filter hook forward priority -150; policy accept; }
 *       ct direction original iifname @guard_links goto guard_fwd ...
 *   chain guard_fwd   ip daddr @sandboxes4 ... goto block_sandboxes (and ip6);
 *                     ct status dnat goto guard_nat
 *   chain guard_nat   the fast path, allow, host_ports, the categories, the
 *                     gate's fallback
 * (the input hook's rules are in input_rules: a translation to the host).
 * Replies, ND and the spoofing check need no second look: replies are
 * not dispatched (direction original), ND is never translated, and NAT
 * does not change the source prerouting checked. */
static int forward_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	struct sw_chain *c;
	int err;

	if (!(c = sw_model_add_chain(m, SW_CHAIN_FORWARD)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_FORWARD;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_FWD) || !sw_model_add_chain(m, SW_CHAIN_GUARD_NAT))
		return -ENOSPC;
	if ((err = dispatch_rules(m, b, cfg, SW_CHAIN_FORWARD, "fwd", PRE_ORIGINAL, SW_CHAIN_GUARD_FWD)))
		return err;
	/* the network log's names ([log] flows), the chain's last rules, one
	 * per transport a DNS reply comes over:
	 *   ct direction reply meta l4proto udp th sport 53 log prefix "sandwall:dns " group G
	 *   ct direction reply meta l4proto tcp th sport 53 log prefix "sandwall:dns " group G
	 * a copy of each DNS reply routed to a sandbox, for the daemon to read
	 * the name each answer address came from (over TCP every segment of
	 * the connection, the daemon parses the ones that hold a whole
	 * message). log is not a verdict: the packet goes on to the policy
	 * (accept) as without the rule, and a forged reply can only mislabel
	 * its own sandbox's flow records */
	if (cfg->log_flows) {
		static const struct { const char *id; uint8_t proto; const char *word; } dns[] = {
			{ "dns-names", IPPROTO_UDP, "udp" },
			{ "dns-names-tcp", IPPROTO_TCP, "tcp" },
		};
		char prefix[32];

		if ((err = sw_logkind_prefix(SW_LK_DNS, NULL, prefix, sizeof(prefix))))
			return err;

		for (size_t i = 0; i < sizeof(dns) / sizeof(dns[0]); i++)
			RULE(m, b, SW_CHAIN_FORWARD, dns[i].id, {
				uint16_t port = htons(53);

				e_ct_direction(b, 1 /* IP_CT_DIR_REPLY */);
				e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
				e_cmp_u8(b, NFT_REG_1, dns[i].proto, dns[i].word);
				e_payload(b, NX_TH_SPORT, NFT_REG_1);
				e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &port, sizeof(port), "53");
				e_log(b, prefix, cfg->log_names_group);
			});
	}
	/* the routed categories (sandboxes):
	 *   ip daddr @sandboxes4 fib daddr . iif oif missing iifname . oifname != @between goto block_sandboxes
	 * a destination in another guarded interface's subnets, routed out
	 * of another interface than it came in on (bridged traffic, with
	 * br_netfilter, goes out of the bridge it came in on), unless
	 * [allow] between names the pair */
	for (int cat = 0; cat < SW_CAT_COUNT; cat++) {
		char target[SW_NAME_MAX];

		if (sw_categories[cat].match != SW_CAT_MATCH_ROUTED)
			continue;
		snprintf(target, sizeof(target), SW_CAT_CHAIN_PREFIX "%s", sw_categories[cat].name);
		for (int v6 = 0; v6 < 2; v6++) {
			char sname[SW_NAME_MAX];

			snprintf(sname, sizeof(sname), "%s%c", sw_categories[cat].name, v6 ? '6' : '4');
			RULE(m, b, SW_CHAIN_GUARD_FWD, sname, {
				e_daddr(b, v6 ? AF_INET6 : AF_INET);
				e_lookup(b, NFT_REG_1, sname);
				e_fib_oif_missing(b, false);
				e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
				e_meta(b, NFT_META_OIFNAME, NFT_REG_2);
				e_lookup_inv(b, NFT_REG_1, SW_SET_BETWEEN);
				e_verdict(b, NFT_GOTO, target);
			});
		}
	}
	/* ct status dnat goto guard_nat: the translated destination */
	RULE(m, b, SW_CHAIN_GUARD_FWD, "fwd-nat", {
		e_ct_dnat(b);
		e_verdict(b, NFT_GOTO, SW_CHAIN_GUARD_NAT);
	});
	if ((err = rs_gate_rules(m, b, cfg, SW_CHAIN_GUARD_NAT, "", false)))
		return err;
	if ((err = rs_allow_rules(m, b, SW_CHAIN_GUARD_NAT, "allow", "allow", NF_ACCEPT, NULL)))
		return err;
	if ((err = rs_host_ports_rule(m, b, SW_CHAIN_GUARD_NAT, "host_ports")))
		return err;
	return rs_category_rules(m, b, cfg, SW_CHAIN_GUARD_NAT, true);
}

/* The host's own copy of broadcast and multicast: `fib daddr type local`
 * in the guard chain does not match 255.255.255.255, a bridge's directed
 * broadcast or 224.0.0.1/ff02::1, yet the host delivers them to every
 * socket bound to 0.0.0.0 or ::. Container-to-container broadcast is
 * bridged and never reaches this hook. Only with [block] host. */
static int input_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	struct sw_chain *c;
	int err;

	/* chain input { type filter hook input priority -150; policy accept; } */
	if (!(c = sw_model_add_chain(m, SW_CHAIN_INPUT)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_LOCAL_IN;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	/* chain guard_input { } */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_INPUT))
		return -ENOSPC;

	/* ct direction original ct status dnat iifname @guard_links goto
	 * guard_nat ...: a destination translated to the host (another
	 * table's dnat, a redirect) is judged as in guard; then
	 * iifname @guard_links goto guard_input ... for the rest */
	if ((err = dispatch_rules(m, b, cfg, SW_CHAIN_INPUT, "input-nat", PRE_DNAT, SW_CHAIN_GUARD_NAT)) ||
	    (err = dispatch_rules(m, b, cfg, SW_CHAIN_INPUT, "guard-input", PRE_NONE, SW_CHAIN_GUARD_INPUT)))
		return err;
	/* fib daddr type local return: unicast to the host was judged in guard */
	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-local", {
		e_fib_local(b, false, NFT_CMP_EQ);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 return (and advert):
	 * the host's solicited-node multicast groups */
	for (int i = 0; i < 2; i++) {
		RULE(m, b, SW_CHAIN_GUARD_INPUT, i ? "input-nd-advert" : "input-nd-solicit", {
			e_nd(b, i ? 136 : 135);
			e_verdict(b, NFT_RETURN, NULL);
		});
	}
	/* meta l4proto . th dport @host_ports return: [allow] host_ports opens
	 * broadcast too (DHCP: udp/67) */
	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-host-ports", {
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_payload(b, NX_TH_DPORT, NFT_REG32_01);
		e_lookup(b, NFT_REG_1, "host_ports");
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* icmpv6 type nd-router-solicit drop / icmpv6 type mld2-listener-report
	 * drop: what every container's kernel sends when its interface comes
	 * up (to ff02::2 and ff02::16, which a forwarding host joins). Blocked
	 * like the rest, but not counted or logged: benign noise would bury
	 * the attempts that matter. */
	for (int i = 0; i < 2; i++) {
		RULE(m, b, SW_CHAIN_GUARD_INPUT, i ? "input-mld" : "input-rs", {
			e_icmpv6_type(b, i ? 143 : 133);
			e_verdict(b, NF_DROP, NULL);
		});
	}
	/* goto block_host */
	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-host", e_verdict(b, NFT_GOTO, "block_host"));
	return 0;
}

/* ip daddr . ip protocol . th dport @<set>4 VERDICT [target] (and ip6 daddr .
 * ip6 nexthdr . th dport @<set>6); ids <id>4 and <id>6. Not `meta l4proto`:
 * Debian 12's 6.12 kernels from 6.12.115 refuse it (EOPNOTSUPP) in an
 * interval concatenation (docs/kernels.md). The 1-byte payload loads the
 * same protocol number; an IPv6 packet with extension headers before its
 * transport header matches no entry, so it is not accepted here. The
 * names take sfx after the family digit ("_exact": @<set>4_exact, id
 * <id>4_exact). */
static int concat_rules_sfx(struct sw_model *m, struct rb *b, const char *chain, const char *id,
			    const char *set, const char *sfx, int verdict, const char *target)
{
	for (int v6 = 0; v6 < 2; v6++) {
		/* the registers nft picks: reg 9/10 after a v4 address, reg 2/13 after v6 */
		uint32_t r2 = v6 ? NFT_REG_2 : NFT_REG32_01;
		uint32_t r3 = v6 ? NFT_REG32_05 : NFT_REG32_02;
		char rid[SW_NAME_MAX], sname[SW_NAME_MAX];

		snprintf(rid, sizeof(rid), "%s%c%s", id, v6 ? '6' : '4', sfx);
		snprintf(sname, sizeof(sname), "%s%c%s", set, v6 ? '6' : '4', sfx);
		RULE(m, b, chain, rid, {
			e_daddr(b, v6 ? AF_INET6 : AF_INET);
			e_payload(b, v6 ? NX_IP6_NEXTHDR : NX_IP_PROTOCOL, r2);
			e_payload(b, NX_TH_DPORT, r3);
			e_lookup(b, NFT_REG_1, sname);
			e_verdict(b, verdict, target);
		});
	}
	return 0;
}

int rs_concat_rules(struct sw_model *m, struct rb *b, const char *chain, const char *id,
			const char *set, int verdict, const char *target)
{
	return concat_rules_sfx(m, b, chain, id, set, "", verdict, target);
}

/* An allow list (rs_concat_sets with exact), exact entries first:
 *   ip daddr . ip protocol . th dport @<set>4_exact VERDICT [target]
 *   ip6 daddr . ip6 nexthdr . th dport @<set>6_exact VERDICT [target]
 *   ip daddr . ip protocol . th dport @<set>4 VERDICT [target]
 *   ip6 daddr . ip6 nexthdr . th dport @<set>6 VERDICT [target] */
int rs_allow_rules(struct sw_model *m, struct rb *b, const char *chain, const char *id,
		       const char *set, int verdict, const char *target)
{
	int err = concat_rules_sfx(m, b, chain, id, set, "_exact", verdict, target);

	return err ? err : rs_concat_rules(m, b, chain, id, set, verdict, target);
}

/* fib daddr type local meta l4proto . th dport @host_ports accept */
int rs_host_ports_rule(struct sw_model *m, struct rb *b, const char *chain, const char *id)
{
	RULE(m, b, chain, id, {
		e_fib_local(b, false, NFT_CMP_EQ);
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_payload(b, NX_TH_DPORT, NFT_REG32_01);
		e_lookup(b, NFT_REG_1, "host_ports");
		e_verdict(b, NF_ACCEPT, NULL);
	});
	return 0;
}


/* With [guard] macvlan_parents: an ipvlan child in l3 mode that sends to
 * the host's address on its parent is routed in the host's namespace
 * through lo (docs/ruleset.md), where no hook of the parent sees it; it
 * arrives with a source address that is not the host's, which the host's
 * own traffic through lo never has.
 *   meta iif lo fib saddr type != local goto block_host */
static int lo_foreign_rule(struct sw_model *m, struct rb *b)
{
	uint32_t lo = 1 /* the loopback's ifindex in every namespace */;

	RULE(m, b, SW_CHAIN_INPUT, "input-lo-foreign", {
		e_meta(b, NFT_META_IIF, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &lo, sizeof(lo), "\"lo\"");
		e_fib_local(b, true, NFT_CMP_NEQ);
		e_verdict(b, NFT_GOTO, "block_host");
	});
	return 0;
}

/* The fast path and its backstop, for both buffers of the gate
 * (include/core/gate.h); id "<pre>unblocked4a" etc.:
 *   meta nfproto @gate_a ip daddr != @gate4_a fib daddr type != local return
 * (without [block] host, no fib): a destination outside the gate and not
 * the host's meets only accepts and returns below. And, after the
 * categories (fallback):
 *   meta nfproto @gate_a ip daddr @gate4_a drop
 * a gated destination that no category's rule caught (a category set
 * that a transaction was changing missed) is dropped all the same. */
int rs_gate_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		      const char *chain, const char *pre, bool fallback)
{
	for (int x = 0; x < 2; x++)
		for (int v6 = 0; v6 < 2; v6++) {
			const char *sel = x ? SW_GATE_SEL_B : SW_GATE_SEL_A;
			bool fib = !fallback && cfg->block[SW_CAT_HOST];
			char set[SW_NAME_MAX], id[SW_NAME_MAX];

			sw_gate_set_name(set, sizeof(set), v6, x ? SW_GATE_B : SW_GATE_A);
			snprintf(id, sizeof(id), "%s%s%c%c", pre, fallback ? "gated" : "unblocked",
				 v6 ? '6' : '4', x ? 'b' : 'a');
			RULE(m, b, chain, id, {
				e_meta(b, NFT_META_NFPROTO, NFT_REG_1);
				e_lookup(b, NFT_REG_1, sel);
				e_daddr(b, v6 ? AF_INET6 : AF_INET);
				if (fallback)
					e_lookup(b, NFT_REG_1, set);
				else
					e_lookup_inv(b, NFT_REG_1, set);
				if (fib)
					e_fib_local(b, false, NFT_CMP_NEQ);
				e_verdict(b, fallback ? NF_DROP : NFT_RETURN, NULL);
			});
		}
	return 0;
}

/* ip daddr @<cat>4 goto block_<cat> (and ip6) for a set category;
 * fib daddr type local goto block_host for the host (with [block] host).
 * Into chain: guard, and guard_output for the output path ([guard] users,
 * cgroups): one list for both (the same ids in both chains); gated: behind
 * the gate's fast path, and then its fallback. The netdev table has no gate:
 * ip daddr @own4 return (and ip6) between the ranks below and from
 * SW_CAT_RANK_OWN. (Behind the gate, own is not needed: the gate leaves
 * the own subnets out where only lan and private would block them, and
 * a gated destination in own is one a category before own blocks.) */
int rs_category_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			  const char *chain, bool gated)
{
	bool done[SW_CAT_COUNT] = { false }, own = false;
	char target[SW_NAME_MAX];
	int err;

	for (;;) {
		int next = -1;

		for (int c = 0; c < SW_CAT_COUNT; c++)
			if (!done[c] && (next < 0 || sw_categories[c].rank < sw_categories[next].rank))
				next = c;
		if (!own && !gated && (next < 0 || sw_categories[next].rank >= SW_CAT_RANK_OWN)) {
			own = true;
			if ((err = addr_rules(m, b, chain, "own", NFT_RETURN, NULL)))
				return err;
		}
		if (next < 0)
			return gated ? rs_gate_rules(m, b, cfg, chain, "", true) : 0;
		done[next] = true;
		snprintf(target, sizeof(target), SW_CAT_CHAIN_PREFIX "%s", sw_categories[next].name);
		switch (sw_categories[next].match) {
		case SW_CAT_MATCH_SPOOF:
			break;          /* first of all, in rs_build_rules (netdev: the ethertype rules) */
		case SW_CAT_MATCH_LOCAL:
			if (!cfg->block[next])
				break;
			/* fib daddr type local goto block_host */
			RULE(m, b, chain, sw_categories[next].name, {
				e_fib_local(b, false, NFT_CMP_EQ);
				e_verdict(b, NFT_GOTO, target);
			});
			break;
		case SW_CAT_MATCH_SET:
			if ((err = addr_rules(m, b, chain, sw_categories[next].name, NFT_GOTO, target)))
				return err;
			break;
		case SW_CAT_MATCH_ROUTED:
			break;          /* in the forward hook only (forward_rules) */
		}
	}
}


int rs_build_rules(struct sw_model *m, const struct sw_config *cfg)
{
	struct rb rb = { 0 }, *b = &rb;
	struct sw_chain *c;
	char target[SW_NAME_MAX];
	int err;

	/* chain prerouting { type filter hook prerouting priority -150; policy accept; } */
	if (!(c = sw_model_add_chain(m, SW_CHAIN_HOOK)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_PRE_ROUTING;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	/* chain guard { } */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD))
		return -ENOSPC;

	/* iifname @guard_links goto guard ... (dispatch_rules) */
	if ((err = dispatch_rules(m, b, cfg, SW_CHAIN_HOOK, "guard", PRE_NONE, SW_CHAIN_GUARD)))
		return err;
	/* fib saddr . iif oif missing goto block_spoofed: first, before any
	 * accept, so no forged source can create or use conntrack state */
	RULE(m, b, SW_CHAIN_GUARD, "spoofed", {
		e_fib_oif_missing(b, true);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	/* the fast path, right after the anti-spoofing check when there are no
	 * sandboxes (replies and ND only accept, so for an unblocked, non-local
	 * destination they decide nothing); after the sandboxes' dispatch
	 * when there are (their policies judge allowed destinations too) */
	if (!cfg->n_sandboxes && (err = rs_gate_rules(m, b, cfg, SW_CHAIN_GUARD, "", false)))
		return err;
	/* ct state established ct direction reply accept: replies to
	 * connections others opened (related ICMP errors are not let through) */
	RULE(m, b, SW_CHAIN_GUARD, "replies", {
		e_ct_established(b);
		e_ct_direction(b, 1 /* IP_CT_DIR_REPLY */);
		e_verdict(b, NF_ACCEPT, NULL);
	});
	/* meta l4proto ipv6-icmp jump guard_nd: the ND accepts, behind one
	 * compare that every other packet fails */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_ND))
		return -ENOSPC;
	RULE(m, b, SW_CHAIN_GUARD, "nd", {
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6, "ipv6-icmp");
		e_verdict(b, NFT_JUMP, SW_CHAIN_GUARD_ND);
	});
	/* chain guard_nd:
	 * icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 ip6 daddr @nd6 accept
	 * icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 fib daddr type local accept
	 * (and nd-neighbor-advert): ND only on-link and only to link-local,
	 * link-scope multicast or the host itself */
	for (int i = 0; i < 4; i++) {
		static const struct { const char *id; uint8_t type; bool local; } nd[] = {
			{ "nd-solicit", 135, false }, { "nd-advert", 136, false },
			{ "nd-solicit-host", 135, true }, { "nd-advert-host", 136, true },
		};

		RULE(m, b, SW_CHAIN_GUARD_ND, nd[i].id, {
			e_nd(b, nd[i].type);
			if (nd[i].local) {
				e_fib_local(b, false, NFT_CMP_EQ);
			} else {
				e_payload(b, NX_IP6_DADDR, NFT_REG_1);
				e_lookup(b, NFT_REG_1, "nd6");
			}
			e_verdict(b, NF_ACCEPT, NULL);
		});
	}
	/* the sandboxes' policies, before the first accept of a new flow:
	 * they only drop or return */
	if ((err = rs_sandbox_dispatch(m, b, cfg)))
		return err;
	if (cfg->n_sandboxes && (err = rs_gate_rules(m, b, cfg, SW_CHAIN_GUARD, "", false)))
		return err;
	/* ip daddr . ip protocol . th dport @allow4_exact accept, then @allow4 (and ip6) */
	if ((err = rs_allow_rules(m, b, SW_CHAIN_GUARD, "allow", "allow", NF_ACCEPT, NULL)))
		return err;
	/* fib daddr type local meta l4proto . th dport @host_ports accept */
	if ((err = rs_host_ports_rule(m, b, SW_CHAIN_GUARD, "host_ports")))
		return err;

	/* the categories in their rank order (the first that matches counts
	 * the packet), then the gate's fallback */
	if ((err = rs_category_rules(m, b, cfg, SW_CHAIN_GUARD, true)))
		return err;

	if (cfg->block[SW_CAT_HOST] && (err = input_rules(m, b, cfg)))
		return err;
	if ((err = forward_rules(m, b, cfg)))
		return err;
	if ((err = rs_output_rules(m, b, cfg)))
		return err;
	if (cfg->block[SW_CAT_HOST] && cfg->n_parents && (err = lo_foreign_rule(m, b)))
		return err;

	for (int cat = 0; cat < SW_CAT_COUNT; cat++) {
		snprintf(target, sizeof(target), "%s", sw_categories[cat].name);
		/* counter <cat> { } */
		if ((err = sw_model_add_counter(m, target)))
			return err;
		if ((err = block_chain(m, b, cfg, target, SW_LK_CATEGORY, target, 1u << cat, -1)))
			return err;
	}
	if ((err = rs_sandbox_chains(m, b, cfg)))
		return err;
	/* per sandbox: counter egress_<name>; chain block_egress_<name>, logged
	 * with the prefix "sandwall:egress:<name> " */
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const char *name = cfg->sandboxes[i].name;

		snprintf(target, sizeof(target), "egress_%s", name);
		if ((err = sw_model_add_counter(m, target)) ||
		    (err = block_chain(m, b, cfg, target, SW_LK_EGRESS, name, SW_Q_EGRESS, (int)i)))
			return err;
		if (cfg->sandboxes[i].quarantine_on) {
			/* counter quarantine_<name>; chain block_quarantine_<name>,
			 * logged as "sandwall:quarantine:<name> " */
			snprintf(target, sizeof(target), "quarantine_%s", name);
			if ((err = sw_model_add_counter(m, target)) ||
			    (err = block_chain(m, b, cfg, target, SW_LK_QUARANTINE, name, 0, -1)))
				return err;
		}
		if (cfg->sandboxes[i].max_conns) {
			/* counter connections_<name>; chain block_connections_<name>,
			 * logged as "sandwall:connections:<name> ", always tripping
			 * its quarantine */
			snprintf(target, sizeof(target), "connections_%s", name);
			if ((err = sw_model_add_counter(m, target)) ||
			    (err = block_chain(m, b, cfg, target, SW_LK_CONNS, name, SW_Q_CONNS, (int)i)))
				return err;
		}
		if (!cfg->sandboxes[i].budget)
			continue;
		/* counter budget_<name>; chain block_budget_<name>, logged as
		 * "sandwall:budget:<name> " */
		snprintf(target, sizeof(target), "budget_%s", name);
		if ((err = sw_model_add_counter(m, target)) ||
		    (err = block_chain(m, b, cfg, target, SW_LK_BUDGET, name, SW_Q_BUDGET, (int)i)))
			return err;
	}
	return 0;
}
