// SPDX-License-Identifier: GPL-2.0-or-later
/* rs_netdev: the macvlan/ipvlan parents' table (netdev family)
 *
 * A macvlan or ipvlan child in a container's namespace sends its frames
 * straight to its parent device's transmit queue: they never cross the
 * host's IP stack, so table inet <name> never sees them. table netdev
 * <name> hooks the parent itself, one pair of base chains per parent:
 *
 *   chain egress_<dev>   filter hook egress device <dev> priority -150
 *                        jump parent_guard
 *   chain ingress_<dev>  filter hook ingress device <dev> priority -150
 *                        ether saddr @parent_macs jump parent_guard
 *   chain parent_guard   the host's own frames return; the children's
 *                        meet the same categories as bridge traffic
 *   chain block_<cat>    counter name <cat>; drop
 *
 * The category sets are copies of table inet's (same elements, built by
 * sw_ruleset_build), so both tables block the same destinations.
 * docs/ruleset.md says why a child's frame cannot pass for the host's. */

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

#define ND_PRIO         SW_HOOK_PRIO
#define ND_GUARD        "parent_guard"
#define ND_PACKET       "packet_guard"
#define ND_MAX_PARENTS  ((SW_MAX_CHAINS - SW_CAT_COUNT - 1) / 2)

/* the sets parent_guard reads besides the categories', copied from table inet */
static const char *const nd_copied[] = {
	"allow4", "allow6", "allow4_exact", "allow6_exact", "nd6", "own4", "own6"
};

static bool is_parent(const struct sw_config *cfg, const struct sw_link *l)
{
	if (sw_link_is_loopback(l) || !l->has_mac)
		return false;
	if (cfg->parents_auto && l->uplink)
		return true;
	for (size_t i = 0; i < cfg->n_parents; i++)
		if (sw_name_match(cfg->parents[i], l->name))
			return true;
	return false;
}

bool sw_ruleset_macvlan_parent(const struct sw_config *cfg, const struct sw_link *l)
{
	return is_parent(cfg, l);
}

/* [guard] users: the uplinks and lo carry the packet-socket guard */
static bool is_packet_dev(const struct sw_config *cfg, const struct sw_link *l)
{
	return cfg->n_users && (l->uplink || sw_link_is_loopback(l));
}

bool sw_ruleset_parents_on(const struct sw_config *cfg)
{
	return cfg->n_parents || cfg->parents_auto;
}

bool sw_ruleset_netdev_wanted(const struct sw_config *cfg)
{
	return sw_ruleset_parents_on(cfg) || cfg->n_users;
}

bool sw_ruleset_netdev_device(const struct sw_config *cfg, const struct sw_link *l)
{
	return is_parent(cfg, l) || is_packet_dev(cfg, l);
}

static int copy_set(struct sw_model *m, const struct sw_set *from)
{
	struct sw_set *s = sw_model_add_set(m, from->name);
	int err = 0;

	if (!s)
		return -ENOSPC;
	s->key_type = from->key_type;
	s->key_len = from->key_len;
	s->flags = from->flags;
	s->timeout_ms = from->timeout_ms;
	s->size = from->size;
	memcpy(s->concat, from->concat, sizeof(s->concat));
	s->n_concat = from->n_concat;
	s->type_text = from->type_text;
	s->text_concat = from->text_concat;
	for (size_t i = 0; i < from->n_elems && !err; i++)
		err = sw_set_add_elem(s, &from->elems[i]);
	for (size_t i = 0; i < from->n_text && !err; i++)
		err = sw_set_add_text(s, from->text[i]);
	return err;
}

/* set parent_macs { type ether_addr; elements = { <each parent's MAC> } } */
static int parent_macs_set(struct sw_model *m, const struct sw_config *cfg,
			   const struct sw_host *host)
{
	struct sw_set *s = rs_new_set(m, "parent_macs", 9 /* TYPE_ETHERADDR */, 6, 0, "ether_addr");
	int err = 0;

	if (!s)
		return -ENOSPC;
	for (size_t i = 0; host && i < host->n_links && !err; i++) {
		const struct sw_link *l = &host->links[i];
		struct sw_elem e = { 0 };
		char text[24];
		bool dup = false;

		if (!is_parent(cfg, l))
			continue;
		memcpy(e.key, l->mac, 6);
		for (size_t j = 0; j < s->n_elems && !dup; j++)
			dup = !memcmp(s->elems[j].key, e.key, 6);
		if (dup)
			continue;       /* two parents with one address (a bond's slaves) */
		snprintf(text, sizeof(text), "%02x:%02x:%02x:%02x:%02x:%02x", l->mac[0], l->mac[1],
			 l->mac[2], l->mac[3], l->mac[4], l->mac[5]);
		if (!(err = sw_set_add_elem(s, &e)))
			err = sw_set_add_text(s, text);
	}
	return err;
}

/* set host_addrs4 / host_addrs6 { type ipv4_addr|ipv6_addr; flags interval; }:
 * every address of the host (link-local included, loopback not), exactly */
static int host_addr_sets(struct sw_model *m, const struct sw_host *host)
{
	struct work *w = calloc(1, sizeof(*w));
	size_t n = 0;
	int err;

	if (!w || !(w->p = calloc((host ? host->n_addrs : 0) + 1, sizeof(*w->p)))) {
		rs_work_free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; host && i < host->n_addrs; i++) {
		struct sw_prefix q = host->addrs[i].local;

		if (sw_prefix_is_loopback(&q))
			continue;
		q.len = (uint8_t)(sw_family_addrlen(q.family) * 8);
		w->p[n++] = q;
	}
	err = rs_addr_sets(m, w, "host_addrs", w->p, n);
	rs_work_free(w);
	return err;
}

/* ether saddr @parent_macs: [ payload load 6b @ link header + 6 ] [ lookup ] */
static void e_parent_mac(struct rb *b)
{
	e_payload(b, NX_ETHER_SADDR, NFT_REG_1);
	e_lookup(b, NFT_REG_1, "parent_macs");
}

/* meta protocol ip6 icmpv6 type TYPE ip6 hoplimit 255 ip6 daddr @nd6 accept */
static int nd_nd_rules(struct sw_model *m, struct rb *b)
{
	static const struct { const char *id; uint8_t type; } nd[] = {
		{ "nd-solicit", 135 }, { "nd-advert", 136 },
	};

	for (size_t i = 0; i < sizeof(nd) / sizeof(*nd); i++)
		RULE(m, b, ND_GUARD, nd[i].id, {
			e_nd(b, nd[i].type);    /* behind meta protocol ip6 here */
			e_payload(b, NX_IP6_DADDR, NFT_REG_1);
			e_lookup(b, NFT_REG_1, "nd6");
			e_verdict(b, NF_ACCEPT, NULL);
		});
	return 0;
}

/* chain block_<cat> { counter name "<cat>"; drop } (no log: NFLOG from a
 * netdev hook carries the link-layer frame, which nflog.c does not parse) */
static int nd_block_chain(struct sw_model *m, struct rb *b, const char *cat)
{
	char chain[SW_NAME_MAX], id[SW_NAME_MAX];
	int err;

	snprintf(chain, sizeof(chain), "block_%s", cat);
	if (!sw_model_add_chain(m, chain) || sw_model_add_counter(m, cat))
		return -ENOSPC;
	if ((err = rs_counter_rule(m, b, chain, cat)))
		return err;
	snprintf(id, sizeof(id), "%s-drop", cat);
	RULE(m, b, chain, id, e_verdict(b, NF_DROP, NULL));
	return 0;
}

/* chain parent_guard: the host's frames return, the children's meet the
 * categories. Each return below is a door; docs/ruleset.md. */
static int nd_guard_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	int err;

	if (!sw_model_add_chain(m, ND_GUARD))
		return -ENOSPC;
	/* ether saddr @parent_macs fib saddr type local return: the host's
	 * stack, from an address of its own */
	RULE(m, b, ND_GUARD, "host-local", {
		e_parent_mac(b);
		e_fib_local(b, true, NFT_CMP_EQ);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* (no ct here: the kernel refuses conntrack expressions in the netdev
	 * family, EPROTO; so the host's forwarded frames from a source of
	 * another network meet the categories like a child's, docs/ruleset.md) */
	/* ether saddr @parent_macs meta protocol ip ip saddr 0.0.0.0 return
	 * (and ip6 saddr ::): the host's DHCP client and duplicate address
	 * detection, sent before it has an address */
	for (int v6 = 0; v6 < 2; v6++) {
		static const uint8_t zero[16];

		RULE(m, b, ND_GUARD, v6 ? "host-unspec6" : "host-unspec4", {
			e_parent_mac(b);
			e_saddr(b, v6 ? AF_INET6 : AF_INET);
			e_cmp(b, NFT_REG_1, NFT_CMP_EQ, zero, v6 ? 16 : 4, v6 ? "::" : "0.0.0.0");
			e_verdict(b, NFT_RETURN, NULL);
		});
	}
	/* ether saddr @parent_macs meta protocol ip6 ip6 saddr @host_addrs6
	 * return: the host's link-local traffic (fib without an interface does
	 * not see a link-local address as local) */
	RULE(m, b, ND_GUARD, "host-addr6", {
		e_parent_mac(b);
		e_saddr(b, AF_INET6);
		e_lookup(b, NFT_REG_1, "host_addrs6");
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* ether saddr @parent_macs ether type arp return: the host's ARP */
	RULE(m, b, ND_GUARD, "host-arp", {
		e_parent_mac(b);
		e_ethertype(b, NFT_CMP_EQ, 0x0806);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* a child's frame from here on. It must not claim an address of the
	 * host in the LAN's neighbour caches (the answers to a forged host
	 * source would then come to it):
	 *   ether type arp arp saddr ip @host_addrs4 goto block_spoofed
	 *   meta protocol ip6 icmpv6 type nd-neighbor-advert @th,64,128 @host_addrs6 goto block_spoofed
	 *   meta protocol ip ip saddr @host_addrs4 goto block_spoofed (and ip6) */
	RULE(m, b, ND_GUARD, "arp-host", {
		e_ethertype(b, NFT_CMP_EQ, 0x0806);
		e_payload(b, NX_ARP_SADDR_IP, NFT_REG_1);
		e_lookup(b, NFT_REG_1, "host_addrs4");
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	RULE(m, b, ND_GUARD, "na-host", {
		e_icmpv6_type(b, 136);
		e_payload(b, NX_ND_TARGET, NFT_REG_1);
		e_lookup(b, NFT_REG_1, "host_addrs6");
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	for (int v6 = 0; v6 < 2; v6++)
		RULE(m, b, ND_GUARD, v6 ? "saddr-host6" : "saddr-host4", {
			e_saddr(b, v6 ? AF_INET6 : AF_INET);
			e_lookup(b, NFT_REG_1, v6 ? "host_addrs6" : "host_addrs4");
			e_verdict(b, NFT_GOTO, "block_spoofed");
		});
	/* ether type arp return */
	RULE(m, b, ND_GUARD, "arp", {
		e_ethertype(b, NFT_CMP_EQ, 0x0806);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* ether type != ip ether type != ip6 goto block_spoofed; and the
	 * sk_buff's protocol must say the same (a raw socket sets it): only
	 * IPv4 and IPv6 reach the category rules, parsed as the wire will */
	RULE(m, b, ND_GUARD, "ethertype", {
		e_ethertype(b, NFT_CMP_NEQ, 0x0800);
		e_ethertype(b, NFT_CMP_NEQ, 0x86dd);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	RULE(m, b, ND_GUARD, "protocol4", {
		e_ethertype(b, NFT_CMP_EQ, 0x0800);
		e_protocol(b, NFT_CMP_NEQ, 0x0800);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	RULE(m, b, ND_GUARD, "protocol6", {
		e_ethertype(b, NFT_CMP_EQ, 0x86dd);
		e_protocol(b, NFT_CMP_NEQ, 0x86dd);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	/* meta l4proto tcp tcp flags & (syn | ack) != syn return: a TCP
	 * segment that opens no connection. Without conntrack here this is
	 * what lets the answers through to connections others opened (the
	 * LAN or a load balancer to a child, to a routed container whose
	 * traffic the host forwards without NAT); a child's own segments to
	 * a blocked place cannot start a connection without the SYN, so they
	 * are blind (docs/ruleset.md). A segment too short for its flags, and
	 * a later fragment, do not match and meet the categories. */
	RULE(m, b, ND_GUARD, "tcp-no-syn", {
		static const uint8_t mask = 0x12 /* syn | ack */;
		static const uint8_t syn = 0x02;

		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_cmp_u8(b, NFT_REG_1, IPPROTO_TCP, "tcp");
		e_payload(b, NX_TCP_FLAGS, NFT_REG_1);
		e_bitwise(b, NFT_REG_1, &mask, 1, "(syn | ack)");
		e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &syn, 1, "syn");
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* meta protocol ip ip daddr . ip protocol . th dport @allow4 accept
	 * (ip6 likewise), then the categories in table inet's order: the same
	 * builders as guard's, with the address behind meta protocol */
	if ((err = nd_nd_rules(m, b)) ||
	    (err = rs_allow_rules(m, b, ND_GUARD, "allow", "allow", NF_ACCEPT, NULL)) ||
	    (err = rs_category_rules(m, b, cfg, ND_GUARD, false)))
		return err;
	for (int cat = 0; cat < SW_CAT_COUNT; cat++)
		if ((err = nd_block_chain(m, b, sw_category_name(cat))))
			return err;
	return 0;
}

/* chain packet_guard: a guarded user's frame that the IP stack did not
 * route (an AF_PACKET socket's: it has no route, skb->dst) is dropped.
 *   meta rtclassid >= 0 return      (loads only when the frame has a route)
 *   goto block_spoofed
 * The IP stack's frames of the user were judged by table inet's output
 * chain (with conntrack) and pass. docs/ruleset.md. */
static int nd_packet_rules(struct sw_model *m, struct rb *b)
{
	static const uint32_t zero;

	if (!sw_model_add_chain(m, ND_PACKET))
		return -ENOSPC;
	RULE(m, b, ND_PACKET, "packet-stack", {
		e_meta(b, NFT_META_RTCLASSID, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_GTE, &zero, sizeof(zero), "0");
		e_verdict(b, NFT_RETURN, NULL);
	});
	RULE(m, b, ND_PACKET, "packet-socket", {
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	return 0;
}

/* the base chains of one device: egress for a parent or a packet device
 * (an uplink or lo with [guard] users), ingress for a parent */
static int nd_dev_chains(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			 const struct sw_link *l)
{
	const char *dev = l->name;
	bool parent = is_parent(cfg, l);

	for (int egress = 1; egress >= 0; egress--) {
		char name[SW_NAME_MAX];
		struct sw_chain *c;

		if (!egress && !parent)
			continue;
		snprintf(name, sizeof(name), "%s_%s", egress ? "egress" : "ingress", dev);
		/* chain egress_<dev> { type filter hook egress device "<dev>" priority -150; policy accept; } */
		if (!(c = sw_model_add_chain(m, name)))
			return -ENOSPC;
		c->base = true;
		c->hook = egress ? 1 /* NF_NETDEV_EGRESS */ : NF_NETDEV_INGRESS;
		c->prio = ND_PRIO;
		c->policy = NF_ACCEPT;
		snprintf(c->type, sizeof(c->type), "filter");
		snprintf(c->dev, sizeof(c->dev), "%s", dev);
		if (egress && is_packet_dev(cfg, l)) {
			/* meta skuid @guard_uids jump packet_guard: a guarded
			 * user's frame (its socket is of this namespace: a
			 * macvlan child's never matches) */
			RULE(m, b, name, "packet-users", {
				e_meta(b, NFT_META_SKUID, NFT_REG_1);
				e_lookup(b, NFT_REG_1, SW_SET_UIDS);
				e_verdict(b, NFT_JUMP, ND_PACKET);
			});
		}
		if (egress && parent) {
			/* jump parent_guard: every frame the device sends */
			RULE(m, b, name, "parent-egress", {
				e_verdict(b, NFT_JUMP, ND_GUARD);
			});
		} else if (!egress) {
			/* ether saddr @parent_macs jump parent_guard: an ipvlan
			 * child's frame to the host (l2 mode hands it to the
			 * parent's receive path with the shared address) */
			RULE(m, b, name, "parent-ingress", {
				e_parent_mac(b);
				e_verdict(b, NFT_JUMP, ND_GUARD);
			});
		}
	}
	return 0;
}

size_t sw_ruleset_n_parents(const struct sw_config *cfg, const struct sw_host *host)
{
	size_t n = 0;

	for (size_t i = 0; host && i < host->n_links; i++)
		n += is_parent(cfg, &host->links[i]);
	return n;
}

int sw_ruleset_build_netdev(const struct sw_config *cfg, const struct sw_host *host,
			    const struct sw_model *inet, struct sw_model *m,
			    char *err, size_t errlen)
{
	struct rb rb = { .netdev = true };
	size_t n = sw_ruleset_n_parents(cfg, host);
	int rc = 0;

	sw_model_init(m, cfg->table);
	m->family = NFPROTO_NETDEV;
	m->has_table = true;
	/* (the uplinks and lo that [guard] users adds have one chain each; a
	 * model without room for them fails below with ENOSPC) */
	if (n > ND_MAX_PARENTS) {
		snprintf(err, errlen, "[guard] macvlan_parents names %zu devices on this host; "
			 "at most %d can be guarded", n, ND_MAX_PARENTS);
		sw_model_free(m);
		return -ENOSPC;
	}
	if (sw_ruleset_parents_on(cfg)) {
		for (size_t i = 0; i < sizeof(nd_copied) / sizeof(*nd_copied) && !rc; i++) {
			const struct sw_set *s = sw_model_find_set(inet, nd_copied[i]);

			rc = s ? copy_set(m, s) : -ENOENT;
		}
		/* every set category's <name>4 and <name>6 */
		for (int c = 0; c < SW_CAT_COUNT && !rc; c++)
			for (int v6 = 0; v6 < 2 && !rc && sw_categories[c].match == SW_CAT_MATCH_SET; v6++) {
				char name[SW_NAME_MAX];
				const struct sw_set *s;

				snprintf(name, sizeof(name), "%s%c", sw_categories[c].name, v6 ? '6' : '4');
				s = sw_model_find_set(inet, name);
				rc = s ? copy_set(m, s) : -ENOENT;
			}
		if (!rc)
			rc = parent_macs_set(m, cfg, host);
		if (!rc)
			rc = host_addr_sets(m, host);
		if (!rc)
			rc = nd_guard_rules(m, &rb, cfg);
	}
	if (cfg->n_users && !rc) {
		/* set guard_uids, a copy of table inet's; chain packet_guard */
		const struct sw_set *s = sw_model_find_set(inet, SW_SET_UIDS);

		rc = s ? copy_set(m, s) : -ENOENT;
		if (!rc)
			rc = nd_packet_rules(m, &rb);
		if (!rc && !sw_ruleset_parents_on(cfg))
			rc = nd_block_chain(m, &rb, sw_category_name(SW_CAT_SPOOFED));
	}
	for (size_t i = 0; host && i < host->n_links && !rc; i++)
		if (sw_ruleset_netdev_device(cfg, &host->links[i]))
			rc = nd_dev_chains(m, &rb, cfg, &host->links[i]);
	if (rc) {
		snprintf(err, errlen, "cannot build table netdev %s: %s", cfg->table, strerror(-rc));
		sw_model_free(m);
		return rc;
	}
	for (size_t i = 0; i < m->n_sets; i++)
		sw_set_sort(&m->sets[i]);
	return 0;
}
