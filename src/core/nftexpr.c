// SPDX-License-Identifier: GPL-2.0-or-later
/* nftexpr: one small builder per nft expression, each adding its
 * expressions to the rule and its words to the rule's nft text
 * (include/core/nftexpr.h says how the text is put together). Each
 * builder's comment gives the expressions it sends. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>
#include <libnftnl/udata.h>

#include "core/nftexpr.h"

#ifndef NFTA_FIB_F_PRESENT
#define NFTA_FIB_F_PRESENT (1 << 5)
#endif

/* ---- the text ---------------------------------------------------------- */

/* Append words (a space before them unless they start the rule). */
static void __attribute__((format(printf, 2, 3))) t_put(struct rb *b, const char *fmt, ...)
{
	size_t room = sizeof(b->text) - b->len;
	va_list ap;
	int n;

	if (b->len && room > 1) {
		b->text[b->len++] = ' ';
		b->text[b->len] = 0;
		room--;
	}
	va_start(ap, fmt);
	n = vsnprintf(b->text + b->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* A load's words: they start its left-hand side, or join the pending
 * one as a concatenation ("meta l4proto . th dport"). */
static void t_load(struct rb *b, const char *words)
{
	if (b->loaded) {
		size_t room = sizeof(b->text) - b->len;
		int n = snprintf(b->text + b->len, room, " . %s", words);

		if (n > 0)
			b->len += (size_t)n < room ? (size_t)n : room - 1;
		return;
	}
	b->lhs = b->len;
	b->loaded = true;
	t_put(b, "%s", words);
}

/* What consumes the pending load: "[OP]VAL" after it, or, with no VAL,
 * nothing, and the load's words go too (an implied dependency). */
static void t_match(struct rb *b, const char *op, const char *val)
{
	b->loaded = false;
	if (!val) {
		b->len = b->lhs;
		b->text[b->len] = 0;
		return;
	}
	t_put(b, "%s%s", op, val);
}

static const char *op_word(uint32_t op)
{
	switch (op) {
	case NFT_CMP_EQ: return "";
	case NFT_CMP_NEQ: return "!= ";
	case NFT_CMP_GTE: return ">= ";
	default: return "? ";
	}
}

/* ---- single expressions ------------------------------------------------ */

static void e_add(struct rb *b, struct nftnl_expr *e)
{
	if (!e)
		b->err = -ENOMEM;
	else
		nftnl_rule_add_expr(b->r, e);
}

static struct nftnl_expr *e_new(struct rb *b, const char *name)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	if (!e)
		b->err = -ENOMEM;
	return e;
}

static const char *meta_word(uint32_t key)
{
	switch (key) {
	case NFT_META_NFPROTO: return "meta nfproto";
	case NFT_META_L4PROTO: return "meta l4proto";
	case NFT_META_PROTOCOL: return "meta protocol";
	case NFT_META_IIF: return "meta iif";
	case NFT_META_IIFNAME: return "iifname";
	case NFT_META_OIFNAME: return "oifname";
	case NFT_META_IIFKIND: return "meta iifkind";
	case NFT_META_IIFTYPE: return "meta iiftype";
	case NFT_META_SKUID: return "meta skuid";
	case NFT_META_RTCLASSID: return "meta rtclassid";
	default: return "meta ?";
	}
}

/* [ meta load KEY => reg DREG ] */
void e_meta(struct rb *b, uint32_t key, uint32_t dreg)
{
	struct nftnl_expr *e = e_new(b, "meta");

	t_load(b, meta_word(key));
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
	e_add(b, e);
}

static const struct {
	uint32_t base, off, len;
	const char *name;
} fields[NX_FIELD_COUNT] = {
	[NX_IP_SADDR] = { NFT_PAYLOAD_NETWORK_HEADER, 12, 4, "ip saddr" },
	[NX_IP_DADDR] = { NFT_PAYLOAD_NETWORK_HEADER, 16, 4, "ip daddr" },
	[NX_IP_PROTOCOL] = { NFT_PAYLOAD_NETWORK_HEADER, 9, 1, "ip protocol" },
	[NX_IP6_SADDR] = { NFT_PAYLOAD_NETWORK_HEADER, 8, 16, "ip6 saddr" },
	[NX_IP6_DADDR] = { NFT_PAYLOAD_NETWORK_HEADER, 24, 16, "ip6 daddr" },
	[NX_IP6_NEXTHDR] = { NFT_PAYLOAD_NETWORK_HEADER, 6, 1, "ip6 nexthdr" },
	[NX_IP6_HOPLIMIT] = { NFT_PAYLOAD_NETWORK_HEADER, 7, 1, "ip6 hoplimit" },
	[NX_ARP_SADDR_IP] = { NFT_PAYLOAD_NETWORK_HEADER, 14, 4, "arp saddr ip" },
	[NX_ICMPV6_TYPE] = { NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, "icmpv6 type" },
	[NX_TH_SPORT] = { NFT_PAYLOAD_TRANSPORT_HEADER, 0, 2, "th sport" },
	[NX_TH_DPORT] = { NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, "th dport" },
	[NX_ND_TARGET] = { NFT_PAYLOAD_TRANSPORT_HEADER, 8, 16, "@th,64,128" },
	[NX_TCP_FLAGS] = { NFT_PAYLOAD_TRANSPORT_HEADER, 13, 1, "tcp flags" },
	[NX_ETHER_SADDR] = { NFT_PAYLOAD_LL_HEADER, 6, 6, "ether saddr" },
	[NX_ETHER_TYPE] = { NFT_PAYLOAD_LL_HEADER, 12, 2, "ether type" },
};

/* [ payload load LEN @ BASE + OFF => reg DREG ] */
void e_payload(struct rb *b, enum nx_field f, uint32_t dreg)
{
	struct nftnl_expr *e = e_new(b, "payload");

	t_load(b, fields[f].name);
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, fields[f].base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, fields[f].off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, fields[f].len);
	e_add(b, e);
}

/* [ socket load cgroupv2 level L => reg 1 ] */
void e_socket_cgroup(struct rb *b, unsigned level)
{
	struct nftnl_expr *e = e_new(b, "socket");
	char words[40];

	snprintf(words, sizeof(words), "socket cgroupv2 level %u", level);
	t_load(b, words);
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_KEY, NFT_SOCKET_CGROUPV2);
	nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_LEVEL, level);
	nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_DREG, NFT_REG_1);
	e_add(b, e);
}

/* [ cmp OP reg SREG DATA ] */
static void put_cmp(struct rb *b, uint32_t sreg, uint32_t op, const void *data, uint32_t len)
{
	struct nftnl_expr *e = e_new(b, "cmp");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	e_add(b, e);
}

void e_cmp(struct rb *b, uint32_t sreg, uint32_t op, const void *data, uint32_t len,
	   const char *val)
{
	put_cmp(b, sreg, op, data, len);
	t_match(b, op_word(op), val);
}

void e_cmp_u8(struct rb *b, uint32_t sreg, uint8_t v, const char *val)
{
	e_cmp(b, sreg, NFT_CMP_EQ, &v, 1, val);
}

/* [ bitwise reg SREG = ( reg SREG & MASK ) ^ 0 ] */
static void put_bitwise(struct rb *b, uint32_t sreg, const void *mask, uint32_t len)
{
	static const uint8_t zero[16];
	struct nftnl_expr *e = e_new(b, "bitwise");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
	e_add(b, e);
}

void e_bitwise(struct rb *b, uint32_t sreg, const void *mask, uint32_t len, const char *text)
{
	put_bitwise(b, sreg, mask, len);
	t_put(b, "& %s", text);
}

/* [ lookup reg SREG set NAME FLAGS ] (flags always sent: the kernel echoes them) */
static void put_lookup(struct rb *b, uint32_t sreg, const char *set, uint32_t flags)
{
	struct nftnl_expr *e = e_new(b, "lookup");
	char val[SW_NAME_MAX + 1];

	snprintf(val, sizeof(val), "@%s", set);
	t_match(b, flags & NFT_LOOKUP_F_INV ? "!= " : "", val);
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, flags);
	e_add(b, e);
}

void e_lookup(struct rb *b, uint32_t sreg, const char *set)
{
	put_lookup(b, sreg, set, 0);
}

/* [ lookup reg SREG set NAME 0x1 ]: not in the set */
void e_lookup_inv(struct rb *b, uint32_t sreg, const char *set)
{
	put_lookup(b, sreg, set, NFT_LOOKUP_F_INV);
}

static const char *verdict_word(int verdict)
{
	switch (verdict) {
	case NF_ACCEPT: return "accept";
	case NF_DROP: return "drop";
	case NFT_RETURN: return "return";
	case NFT_GOTO: return "goto";
	case NFT_JUMP: return "jump";
	default: return "?";
	}
}

/* [ immediate reg 0 VERDICT [-> CHAIN] ] */
void e_verdict(struct rb *b, int verdict, const char *chain)
{
	struct nftnl_expr *e = e_new(b, "immediate");

	t_put(b, "%s%s%s", verdict_word(verdict), chain ? " " : "", chain ? chain : "");
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	if (chain)
		nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain);
	e_add(b, e);
}

/* [ objref type 1 name NAME ] */
void e_counter(struct rb *b, const char *name)
{
	struct nftnl_expr *e = e_new(b, "objref");

	t_put(b, "counter name \"%s\"", name);
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE, NFT_OBJECT_COUNTER);
	nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_IMM_NAME, name);
	e_add(b, e);
}

static const char *unit_word(uint64_t unit)
{
	return unit == 1 ? "second" : unit == 60 ? "minute" : unit == 3600 ? "hour" :
	       unit == 86400 ? "day" : "week";
}

/* [ limit rate RATE/UNIT burst BURST type packets flags 0x0 ] (not added) */
static struct nftnl_expr *limit_expr(uint64_t rate, uint64_t unit, uint32_t burst)
{
	struct nftnl_expr *l = nftnl_expr_alloc("limit");

	if (!l)
		return NULL;
	nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_RATE, rate);
	nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_UNIT, unit);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_BURST, burst);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_FLAGS, 0);
	return l;
}

void e_limit(struct rb *b, uint64_t rate, uint64_t unit, uint32_t burst)
{
	t_put(b, "limit rate %llu/%s burst %u packets", (unsigned long long)rate,
	      unit_word(unit), burst);
	e_add(b, limit_expr(rate, unit, burst));
}

/* [ log prefix PREFIX group GROUP ] */
void e_log(struct rb *b, const char *prefix, uint16_t group)
{
	struct nftnl_expr *g = e_new(b, "log");

	t_put(b, "log prefix \"%s\" group %u", prefix, group);
	if (!g)
		return;
	nftnl_expr_set_str(g, NFTNL_EXPR_LOG_PREFIX, prefix);
	nftnl_expr_set_u16(g, NFTNL_EXPR_LOG_GROUP, group);
	e_add(b, g);
}

/* [ dynset update reg_key 1 set SET timeout 0 expr [ limit ... ] ]: matches
 * only when the set took the key (a new element or a refreshed one) and
 * the key's bucket still has a token. The dynset breaks the rule when the
 * update fails (set full) and the limit breaks it when the bucket is
 * empty: either way the rule does not match. */
void e_update_limit(struct rb *b, const char *set, uint64_t rate, uint64_t unit, uint32_t burst)
{
	struct nftnl_expr *d, *l;
	char key[128];

	/* the pending load is the key: its words go inside the braces */
	snprintf(key, sizeof(key), "%s", b->loaded ? b->text + b->lhs : "");
	b->len = b->loaded ? b->lhs : b->len;
	b->text[b->len] = 0;
	b->loaded = false;
	t_put(b, "update @%s { %s limit rate %llu/%s burst %u packets }", set, key,
	      (unsigned long long)rate, unit_word(unit), burst);
	l = limit_expr(rate, unit, burst);
	d = e_new(b, "dynset");
	if (!l || !d) {
		b->err = -ENOMEM;
		if (d)
			nftnl_expr_free(d);
		if (l)
			nftnl_expr_free(l);
		return;
	}
	nftnl_expr_set_u32(d, NFTNL_EXPR_DYNSET_OP, NFT_DYNSET_OP_UPDATE);
	nftnl_expr_set_u32(d, NFTNL_EXPR_DYNSET_SREG_KEY, NFT_REG_1);
	nftnl_expr_set_str(d, NFTNL_EXPR_DYNSET_SET_NAME, set);
	/* the set's own timeout; sent as 0 because the kernel echoes it */
	nftnl_expr_set_u64(d, NFTNL_EXPR_DYNSET_TIMEOUT, 0);
	nftnl_expr_set(d, NFTNL_EXPR_DYNSET_EXPR, l, 0);        /* the dynset owns it */
	e_add(b, d);
}

/* [ dynset add reg_key 1 set SET ]: the pending load (the key) goes into
 * the set; the rule goes on when the set took it (or holds it already)
 * and breaks when the set is full. */
void e_dynset_add(struct rb *b, const char *set)
{
	struct nftnl_expr *d;
	char key[128];

	snprintf(key, sizeof(key), "%s", b->loaded ? b->text + b->lhs + strspn(b->text + b->lhs, " ") : "");
	b->len = b->loaded ? b->lhs : b->len;
	b->text[b->len] = 0;
	b->loaded = false;
	t_put(b, "add @%s { %s }", set, key);
	if (!(d = e_new(b, "dynset")))
		return;
	nftnl_expr_set_u32(d, NFTNL_EXPR_DYNSET_OP, NFT_DYNSET_OP_ADD);
	nftnl_expr_set_u32(d, NFTNL_EXPR_DYNSET_SREG_KEY, NFT_REG_1);
	nftnl_expr_set_str(d, NFTNL_EXPR_DYNSET_SET_NAME, set);
	/* no timeout attribute: the kernel refuses one (EOPNOTSUPP) for a set
	 * without flags timeout */
	e_add(b, d);
}

/* [ fib FLAGS RESULT => reg 1 ] */
static void put_fib(struct rb *b, uint32_t flags, uint32_t result, const char *words)
{
	struct nftnl_expr *e = e_new(b, "fib");

	t_load(b, words);
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, flags);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, result);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	e_add(b, e);
}

/* [ ct load KEY => reg 1 ] */
static void put_ct(struct rb *b, uint32_t key, const char *words)
{
	struct nftnl_expr *e = e_new(b, "ct");

	t_load(b, words);
	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	e_add(b, e);
}

/* ---- terms of several expressions -------------------------------------- */

/* [ meta load nfproto => reg 1 ] [ cmp eq reg 1 FAMILY ] */
void e_nfproto(struct rb *b, int family)
{
	e_meta(b, NFT_META_NFPROTO, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6, NULL);
}

static const char *ethertype_word(uint16_t ethertype)
{
	switch (ethertype) {
	case 0x0800: return "ip";
	case 0x86dd: return "ip6";
	case 0x0806: return "arp";
	default: return "?";
	}
}

/* [ meta load protocol => reg 1 ] [ cmp OP reg 1 ETHERTYPE ] (network order) */
void e_protocol(struct rb *b, uint32_t op, uint16_t ethertype)
{
	uint16_t v = htons(ethertype);

	e_meta(b, NFT_META_PROTOCOL, NFT_REG_1);
	e_cmp(b, NFT_REG_1, op, &v, sizeof(v), ethertype_word(ethertype));
}

/* [ payload load 2b @ link header + 12 => reg 1 ] [ cmp OP reg 1 ETHERTYPE ] */
void e_ethertype(struct rb *b, uint32_t op, uint16_t ethertype)
{
	uint16_t v = htons(ethertype);

	e_payload(b, NX_ETHER_TYPE, NFT_REG_1);
	e_cmp(b, NFT_REG_1, op, &v, sizeof(v), ethertype_word(ethertype));
}

/* the family's dependency: meta nfproto (inet, implied) or meta protocol (netdev) */
static void family_dep(struct rb *b, int family)
{
	if (b->netdev)
		e_protocol(b, NFT_CMP_EQ, family == AF_INET ? 0x0800 : 0x86dd);
	else
		e_nfproto(b, family);
}

void e_daddr(struct rb *b, int family)
{
	family_dep(b, family);
	e_payload(b, family == AF_INET ? NX_IP_DADDR : NX_IP6_DADDR, NFT_REG_1);
}

void e_saddr(struct rb *b, int family)
{
	family_dep(b, family);
	e_payload(b, family == AF_INET ? NX_IP_SADDR : NX_IP6_SADDR, NFT_REG_1);
}

/* [ fib saddr|daddr type => reg 1 ] [ cmp OP reg 1 RTN_LOCAL ] */
void e_fib_local(struct rb *b, bool saddr, uint32_t op)
{
	uint32_t local = RTN_LOCAL;

	put_fib(b, saddr ? NFTA_FIB_F_SADDR : NFTA_FIB_F_DADDR, NFT_FIB_RESULT_ADDRTYPE,
		saddr ? "fib saddr type" : "fib daddr type");
	e_cmp(b, NFT_REG_1, op, &local, sizeof(local), "local");
}

/* [ fib saddr|daddr . iif present oif => reg 1 ] [ cmp eq reg 1 0 ] (nft
 * compares the whole register; a local source address also counts as
 * missing) */
void e_fib_oif_missing(struct rb *b, bool saddr)
{
	uint32_t missing = 0;

	put_fib(b, (saddr ? NFTA_FIB_F_SADDR : NFTA_FIB_F_DADDR) | NFTA_FIB_F_IIF |
		   NFTA_FIB_F_PRESENT, NFT_FIB_RESULT_OIF,
		saddr ? "fib saddr . iif oif" : "fib daddr . iif oif");
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &missing, sizeof(missing), "missing");
}

/* ct KEY FLAG: [ ct load KEY ] [ bitwise & mask ] [ cmp neq 0 ] */
static void ct_flag(struct rb *b, uint32_t key, uint32_t mask, const char *flag)
{
	uint32_t zero = 0;

	put_ct(b, key, key == NFT_CT_STATE ? "ct state" : "ct status");
	put_bitwise(b, NFT_REG_1, &mask, sizeof(mask));
	put_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &zero, sizeof(zero));
	t_match(b, "", flag);
}

void e_ct_established(struct rb *b)
{
	ct_flag(b, NFT_CT_STATE, 1u << 1 /* NF_CT_STATE_BIT(IP_CT_ESTABLISHED) */, "established");
}

void e_ct_new(struct rb *b)
{
	ct_flag(b, NFT_CT_STATE, 1u << 3 /* NF_CT_STATE_BIT(IP_CT_NEW) */, "new");
}

void e_ct_dnat(struct rb *b)
{
	ct_flag(b, NFT_CT_STATUS, 1u << 5 /* IPS_DST_NAT */, "dnat");
}

/* [ ct load direction => reg 1 ] [ cmp eq reg 1 DIR ] */
void e_ct_direction(struct rb *b, uint8_t dir)
{
	put_ct(b, NFT_CT_DIRECTION, "ct direction");
	e_cmp_u8(b, NFT_REG_1, dir, dir ? "reply" : "original");
}

static const char *icmpv6_word(uint8_t type)
{
	switch (type) {
	case 133: return "nd-router-solicit";
	case 135: return "nd-neighbor-solicit";
	case 136: return "nd-neighbor-advert";
	case 143: return "mld2-listener-report";
	default: return "?";
	}
}

/* the family's dependency, meta l4proto ipv6-icmp (implied), then
 * [ payload load 1b @ transport header + 0 ] [ cmp eq TYPE ] */
void e_icmpv6_type(struct rb *b, uint8_t type)
{
	family_dep(b, AF_INET6);
	e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6, NULL);
	e_payload(b, NX_ICMPV6_TYPE, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, type, icmpv6_word(type));
}

void e_nd(struct rb *b, uint8_t type)
{
	e_icmpv6_type(b, type);
	e_payload(b, NX_IP6_HOPLIMIT, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, 255, "255");
}

/* ---- the rule ---------------------------------------------------------- */

int e_begin(struct rb *b)
{
	b->err = 0;
	b->len = b->lhs = 0;
	b->text[0] = 0;
	b->loaded = false;
	b->r = nftnl_rule_alloc();
	return b->r ? 0 : -ENOMEM;
}

int e_finish(struct sw_model *m, struct rb *b, const char *chain, const char *prefix,
	     const char *id)
{
	char tag[SW_NAME_MAX], *canon;
	struct nftnl_udata_buf *ud;
	int err = b->err;

	snprintf(tag, sizeof(tag), "%s%s", prefix, id);
	ud = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
	if (!ud || !nftnl_udata_put_strz(ud, 0 /* NFTNL_UDATA_RULE_COMMENT */, tag))
		err = err ? err : -ENOMEM;
	if (!err) {
		nftnl_rule_set_data(b->r, NFTNL_RULE_USERDATA, nftnl_udata_buf_data(ud),
				    nftnl_udata_buf_len(ud));
		nftnl_rule_set_str(b->r, NFTNL_RULE_TABLE, m->table);
		nftnl_rule_set_str(b->r, NFTNL_RULE_CHAIN, chain);
		nftnl_rule_set_u32(b->r, NFTNL_RULE_FAMILY, sw_model_family(m));
	}
	if (ud)
		nftnl_udata_buf_free(ud);
	canon = err ? NULL : sw_rule_canon(b->r);
	if (!err && !canon)
		err = -ENOMEM;
	if (!err) {
		char full[sizeof(b->text) + SW_NAME_MAX + 16];

		snprintf(full, sizeof(full), "%s comment \"%s\"", b->text, tag);
		err = sw_model_add_rule(m, chain, tag, canon, full, b->r);
	}
	free(canon);
	if (err)
		nftnl_rule_free(b->r);
	b->r = NULL;
	return err;
}
