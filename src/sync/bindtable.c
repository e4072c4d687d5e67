// SPDX-License-Identifier: GPL-2.0-or-later
/* bindtable: table bridge <name>, each port bound to its own addresses
 * (bindtable.h). The table, for a host with c1 and c3 on docker0:
 *
 *   counter unbound
 *   set exempt { type ifname; }                   ports that face no sandbox
 *   set bind4 { type ifname . ipv4_addr; }         "vethc1" . 172.17.0.2, ...
 *   set bind6 { type ifname . ipv6_addr; }         "vethc1" . fd00:17::2, ...
 *   chain prerouting { type filter hook prerouting priority -200; policy accept;
 *     iifname @exempt return
 *     iifname . ip saddr @bind4 return
 *     iifname . ip6 saddr @bind6 return
 *     ether type arp iifname . arp saddr ip @bind4 return
 *     arp saddr ip 0.0.0.0 return
 *     ip6 saddr fe80::/10 ip6 daddr fe80::/10 return
 *     ip6 saddr fe80::/10 ip6 daddr ff02::/16 return
 *     ip6 saddr :: ip6 daddr ff02::/16 meta l4proto ipv6-icmp return
 *     counter name "unbound" drop
 *   }
 *
 * Every frame that enters a bridge by a port not in @exempt meets the
 * binding, including a port the table has not heard of yet (a container
 * started a moment ago): it drops until its binding is in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if_arp.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter/nf_tables.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/udata.h>

#include "sync/bindtable.h"
#include "host/portread.h"
#include "sync/reconcile.h"
#include "core/ruleset.h"

#define TAG_PREFIX "sandwall:"

struct bt {
	struct nftnl_rule *r;
	int err;
};

static struct nftnl_expr *bt_expr(struct bt *b, const char *name)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	if (!e)
		b->err = -ENOMEM;
	return e;
}

static void bt_add(struct bt *b, struct nftnl_expr *e)
{
	if (e)
		nftnl_rule_add_expr(b->r, e);
}

static void e_meta(struct bt *b, uint32_t key, uint32_t dreg)
{
	struct nftnl_expr *e = bt_expr(b, "meta");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
	bt_add(b, e);
}

static void e_payload(struct bt *b, uint32_t base, uint32_t off, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = bt_expr(b, "payload");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	bt_add(b, e);
}

static void e_cmp(struct bt *b, uint32_t sreg, const void *data, uint32_t len)
{
	struct nftnl_expr *e = bt_expr(b, "cmp");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	bt_add(b, e);
}

/* [ bitwise reg R = ( reg R & MASK ) ^ 0 ] */
static void e_mask(struct bt *b, uint32_t reg, const void *mask, uint32_t len)
{
	static const uint8_t zero[16];
	struct nftnl_expr *e = bt_expr(b, "bitwise");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, reg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, reg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
	bt_add(b, e);
}

static void e_lookup(struct bt *b, uint32_t sreg, const char *set)
{
	struct nftnl_expr *e = bt_expr(b, "lookup");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, 0);
	bt_add(b, e);
}

static void e_verdict(struct bt *b, int verdict)
{
	struct nftnl_expr *e = bt_expr(b, "immediate");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	bt_add(b, e);
}

/* meta protocol ip|ip6 (nft's dependency for ip/ip6 in the bridge family) */
static void e_proto(struct bt *b, uint16_t ethertype)
{
	uint16_t p = htons(ethertype);

	e_meta(b, NFT_META_PROTOCOL, NFT_REG_1);
	e_cmp(b, NFT_REG_1, &p, sizeof(p));
}

/* ether type arp */
static void e_arp(struct bt *b)
{
	uint16_t p = htons(ETH_P_ARP);

	e_payload(b, NFT_PAYLOAD_LL_HEADER, 12, 2, NFT_REG_1);
	e_cmp(b, NFT_REG_1, &p, sizeof(p));
}

/* ip6 saddr|daddr fe80::/10 (off 8 or 24) */
static void e_ll6(struct bt *b, uint32_t off)
{
	static const uint8_t mask[16] = { 0xff, 0xc0 }, net[16] = { 0xfe, 0x80 };

	e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, off, 16, NFT_REG_1);
	e_mask(b, NFT_REG_1, mask, sizeof(mask));
	e_cmp(b, NFT_REG_1, net, sizeof(net));
}

/* ip6 daddr ff02::/16 */
static void e_mc6(struct bt *b)
{
	static const uint8_t net[2] = { 0xff, 0x02 };

	e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 24, 2, NFT_REG_1);
	e_cmp(b, NFT_REG_1, net, sizeof(net));
}

static int bt_begin(struct bt *b)
{
	b->err = 0;
	b->r = nftnl_rule_alloc();
	return b->r ? 0 : -ENOMEM;
}

static int bt_finish(struct sw_model *m, struct bt *b, const char *id, const char *text)
{
	char tag[SW_NAME_MAX], full[512], *canon = NULL;
	struct nftnl_udata_buf *ud = NULL;
	int err = b->err;

	snprintf(tag, sizeof(tag), TAG_PREFIX "%s", id);
	if (!err && (!(ud = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN)) ||
		     !nftnl_udata_put_strz(ud, 0 /* NFTNL_UDATA_RULE_COMMENT */, tag)))
		err = -ENOMEM;
	if (!err) {
		nftnl_rule_set_data(b->r, NFTNL_RULE_USERDATA, nftnl_udata_buf_data(ud),
				    nftnl_udata_buf_len(ud));
		nftnl_rule_set_str(b->r, NFTNL_RULE_TABLE, m->table);
		nftnl_rule_set_str(b->r, NFTNL_RULE_CHAIN, SW_BT_CHAIN);
		nftnl_rule_set_u32(b->r, NFTNL_RULE_FAMILY, NFPROTO_BRIDGE);
		if (!(canon = sw_rule_canon(b->r)))
			err = -ENOMEM;
	}
	if (!err) {
		snprintf(full, sizeof(full), "%s comment \"%s\"", text, tag);
		err = sw_model_add_rule(m, SW_BT_CHAIN, tag, canon, full, b->r);
	}
	if (ud)
		nftnl_udata_buf_free(ud);
	free(canon);
	if (err)
		nftnl_rule_free(b->r);
	b->r = NULL;
	return err;
}

#define BT_RULE(m, b, id, text, body) do {                              \
		int _e = bt_begin(b);                                    \
		if (_e)                                                  \
			return _e;                                       \
		body;                                                    \
		if ((_e = bt_finish(m, b, id, text)))                    \
			return _e;                                       \
	} while (0)

static int bt_rules(struct sw_model *m)
{
	struct bt bb = { 0 }, *b = &bb;
	static const uint8_t unspec6[16];
	const uint8_t icmp6 = IPPROTO_ICMPV6;
	const uint32_t zero4 = 0;

	BT_RULE(m, b, "port-exempt", "iifname @exempt return", {
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_lookup(b, NFT_REG_1, "exempt");
		e_verdict(b, NFT_RETURN);
	});
	BT_RULE(m, b, "bind4", "iifname . ip saddr @bind4 return", {
		e_proto(b, ETH_P_IP);
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 12, 4, NFT_REG_2);
		e_lookup(b, NFT_REG_1, "bind4");
		e_verdict(b, NFT_RETURN);
	});
	BT_RULE(m, b, "bind6", "iifname . ip6 saddr @bind6 return", {
		e_proto(b, ETH_P_IPV6);
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 8, 16, NFT_REG_2);
		e_lookup(b, NFT_REG_1, "bind6");
		e_verdict(b, NFT_RETURN);
	});
	/* the ARP sender is the port's own address: no neighbour's cache
	 * learns another address at this port */
	BT_RULE(m, b, "bind-arp", "ether type arp iifname . arp saddr ip @bind4 return", {
		e_arp(b);
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 14, 4, NFT_REG_2);
		e_lookup(b, NFT_REG_1, "bind4");
		e_verdict(b, NFT_RETURN);
	});
	/* an ARP probe (RFC 5227, sender 0.0.0.0) teaches no cache anything */
	BT_RULE(m, b, "arp-probe", "arp saddr ip 0.0.0.0 return", {
		e_arp(b);
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 14, 4, NFT_REG_1);
		e_cmp(b, NFT_REG_1, &zero4, sizeof(zero4));
		e_verdict(b, NFT_RETURN);
	});
	/* link-local sources stay on the link: to link-local and link-scope
	 * multicast only (table inet judges what reaches the host) */
	BT_RULE(m, b, "link6", "ip6 saddr fe80::/10 ip6 daddr fe80::/10 return", {
		e_proto(b, ETH_P_IPV6);
		e_ll6(b, 8);
		e_ll6(b, 24);
		e_verdict(b, NFT_RETURN);
	});
	BT_RULE(m, b, "link6-mcast", "ip6 saddr fe80::/10 ip6 daddr ff02::/16 return", {
		e_proto(b, ETH_P_IPV6);
		e_ll6(b, 8);
		e_mc6(b);
		e_verdict(b, NFT_RETURN);
	});
	/* duplicate address detection: NS from :: to the solicited-node group */
	BT_RULE(m, b, "dad6", "ip6 saddr :: ip6 daddr ff02::/16 meta l4proto ipv6-icmp return", {
		e_proto(b, ETH_P_IPV6);
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 8, 16, NFT_REG_1);
		e_cmp(b, NFT_REG_1, unspec6, sizeof(unspec6));
		e_mc6(b);
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_cmp(b, NFT_REG_1, &icmp6, sizeof(icmp6));
		e_verdict(b, NFT_RETURN);
	});
	BT_RULE(m, b, "unbound", "counter name \"" SW_BT_COUNTER "\" drop", {
		struct nftnl_expr *e = bt_expr(b, "objref");

		if (e) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE, NFT_OBJECT_COUNTER);
			nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_IMM_NAME, SW_BT_COUNTER);
			bt_add(b, e);
		}
		e_verdict(b, NF_DROP);
	});
	return 0;
}

static struct sw_set *bt_set(struct sw_model *m, const char *name, uint32_t type, uint32_t klen,
			     const char *text, const uint8_t *fields, uint8_t n)
{
	struct sw_set *s = sw_model_add_set(m, name);

	if (!s)
		return NULL;
	s->key_type = type;
	s->key_len = klen;
	s->type_text = text;
	if (n)
		memcpy(s->concat, fields, n);
	s->n_concat = n;
	return s;
}

static int bt_sets(struct sw_model *m, const struct sw_config *cfg, const struct sw_host *host,
		   const struct sw_binds *binds)
{
	static const uint8_t f4[] = { SW_IFNAMSIZ, 4 }, f6[] = { SW_IFNAMSIZ, 16 };
	struct sw_set *ex, *s4, *s6;
	int err = 0;

	ex = bt_set(m, "exempt", SW_TYPE_IFNAME, SW_IFNAMSIZ, "ifname", NULL, 0);
	s4 = bt_set(m, "bind4", SW_TYPE_IFNAME << SW_TYPE_BITS | SW_TYPE_IPADDR, SW_IFNAMSIZ + 4,
		    "ifname . ipv4_addr", f4, 2);
	s6 = bt_set(m, "bind6", SW_TYPE_IFNAME << SW_TYPE_BITS | SW_TYPE_IP6ADDR, SW_IFNAMSIZ + 16,
		    "ifname . ipv6_addr", f6, 2);
	if (!ex || !s4 || !s6)
		return -ENOSPC;
	/* exempt: every bridge port that does not face a sandbox, and every
	 * port of a bridge that is not guarded */
	for (size_t i = 0; i < host->n_links && !err; i++) {
		const struct sw_link *l = &host->links[i];
		enum sw_port_kind k = sw_portbind_port(cfg, host, l);
		struct sw_elem e = { .key = { 0 } };
		char text[SW_IFNAMSIZ + 4];

		if (k == SW_PORT_BOUND || k == SW_PORT_UNBOUND || !l->master || !l->master_bridge)
			continue;
		memcpy(e.key, l->name, strnlen(l->name, SW_IFNAMSIZ - 1));
		snprintf(text, sizeof(text), "\"%s\"", l->name);
		if (!(err = sw_set_add_elem(ex, &e)))
			err = sw_set_add_text(ex, text);
	}
	for (size_t i = 0; binds && i < binds->n && !err; i++) {
		const struct sw_bind *bd = &binds->v[i];
		bool v6 = bd->addr.family == AF_INET6;
		struct sw_elem e = { .key = { 0 } };
		char a[INET6_ADDRSTRLEN], text[SW_IFNAMSIZ + INET6_ADDRSTRLEN + 8];

		memcpy(e.key, bd->port, strnlen(bd->port, SW_IFNAMSIZ - 1));
		memcpy(e.key + SW_IFNAMSIZ, bd->addr.addr, v6 ? 16 : 4);
		inet_ntop(bd->addr.family, bd->addr.addr, a, sizeof(a));
		snprintf(text, sizeof(text), "\"%s\" . %s", bd->port, a);
		if (!(err = sw_set_add_elem(v6 ? s6 : s4, &e)))
			err = sw_set_add_text(v6 ? s6 : s4, text);
	}
	return err;
}

int sw_bindtable_build(const struct sw_config *cfg, const struct sw_host *host,
		       const struct sw_binds *binds, struct sw_model *m, char *err, size_t errlen)
{
	struct sw_chain *c;
	int rc;

	sw_model_init(m, cfg->table);
	m->family = NFPROTO_BRIDGE;
	m->has_table = true;
	rc = sw_model_add_counter(m, SW_BT_COUNTER);
	if (!rc)
		rc = bt_sets(m, cfg, host, binds);
	if (!rc && !(c = sw_model_add_chain(m, SW_BT_CHAIN)))
		rc = -ENOSPC;
	if (!rc) {
		c->base = true;
		c->hook = NF_BR_PRE_ROUTING;
		c->prio = SW_BT_PRIO;
		c->policy = NF_ACCEPT;
		snprintf(c->type, sizeof(c->type), "filter");
		rc = bt_rules(m);
	}
	if (rc) {
		snprintf(err, errlen, "cannot build table bridge %s: %s", cfg->table, strerror(-rc));
		sw_model_free(m);
		return rc;
	}
	for (size_t i = 0; i < m->n_sets; i++)
		sw_set_sort(&m->sets[i]);
	return 0;
}

int sw_bindtable_want(const struct sw_config *cfg, const struct sw_host *host,
		      struct sw_model *m, char *err, size_t errlen)
{
	struct sw_binds binds;
	struct sw_nl nl;
	int rc = sw_portbind_open(&nl);

	if (!rc) {
		rc = sw_portbind_read(&nl, cfg, host, &binds);
		sw_nl_close(&nl);
	}
	if (rc) {
		snprintf(err, errlen, "cannot read the bridge ports' addresses: %s", strerror(-rc));
		return rc;
	}
	rc = sw_bindtable_build(cfg, host, &binds, m, err, errlen);
	sw_binds_free(&binds);
	return rc;
}

int sw_bindtable_check(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_host *host,
		       struct sw_diff *d, char *err, size_t errlen)
{
	struct sw_model want;
	int rc;

	memset(d, 0, sizeof(*d));
	if (!sw_portbind_wanted(cfg))
		return 0;
	if ((rc = sw_bindtable_want(cfg, host, &want, err, errlen)))
		return rc;
	rc = sw_check(nl, &want, d, err, errlen);
	sw_model_free(&want);
	return rc;
}

int sw_bindtable_reconcile_binds(struct sw_nl *nl, const struct sw_config *cfg,
				 const struct sw_host *host, const struct sw_binds *binds,
				 bool force, struct sw_diff *d, bool *repaired, size_t *n_bound,
				 char *err, size_t errlen)
{
	struct sw_model want;
	bool absent = true;
	int rc;

	memset(d, 0, sizeof(*d));
	*repaired = false;
	if (n_bound)
		*n_bound = binds ? binds->n_ports : 0;
	if (!sw_portbind_wanted(cfg)) {
		/* nothing keyed on a source: a table of ours left from before goes */
		rc = sw_bindtable_remove(nl, cfg->table, &absent, err, errlen);
		*repaired = !rc && !absent;
		return rc;
	}
	if ((rc = sw_bindtable_build(cfg, host, binds, &want, err, errlen)))
		return rc;
	if (force) {
		rc = sw_apply(nl, &want, err, errlen);
		*repaired = !rc;
		if (!rc)
			rc = sw_check(nl, &want, d, err, errlen);
		if (!rc && d->n) {
			snprintf(err, errlen, "table bridge %s: the kernel does not hold what was applied",
				 cfg->table);
			rc = -EIO;
		}
	} else {
		rc = sw_reconcile(nl, &want, d, repaired, err, errlen);
	}
	sw_model_free(&want);
	return rc;
}

int sw_bindtable_reconcile(struct sw_nl *nl, const struct sw_config *cfg,
			   const struct sw_host *host, bool force, struct sw_diff *d,
			   bool *repaired, size_t *n_bound, char *err, size_t errlen)
{
	struct sw_binds binds = { 0 };
	struct sw_nl rt;
	int rc = 0;

	if (sw_portbind_wanted(cfg)) {
		if (!(rc = sw_portbind_open(&rt))) {
			rc = sw_portbind_read(&rt, cfg, host, &binds);
			sw_nl_close(&rt);
		}
		if (rc) {
			memset(d, 0, sizeof(*d));
			*repaired = false;
			snprintf(err, errlen, "cannot read the bridge ports' addresses: %s",
				 strerror(-rc));
			return rc;
		}
	}
	rc = sw_bindtable_reconcile_binds(nl, cfg, host, &binds, force, d, repaired, n_bound,
					  err, errlen);
	sw_binds_free(&binds);
	return rc;
}

int sw_bindtable_remove(struct sw_nl *nl, const char *table, bool *absent, char *err,
			size_t errlen)
{
	return sw_remove_family(nl, NFPROTO_BRIDGE, table, absent, err, errlen);
}
