// SPDX-License-Identifier: GPL-2.0-or-later
/* nftexpr: one small builder per nft expression, and the rule around them
 * (include/core/nftexpr.h). Each builder's comment gives its nft meaning. */
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
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>
#include <libnftnl/udata.h>

#include "core/nftexpr.h"

void e_add(struct rb *b, struct nftnl_expr *e)
{
	if (!e)
		b->err = -ENOMEM;
	else
		nftnl_rule_add_expr(b->r, e);
}

struct nftnl_expr *e_new(struct rb *b, const char *name)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	if (!e)
		b->err = -ENOMEM;
	return e;
}

/* [ meta load KEY => reg DREG ] */
void e_meta(struct rb *b, uint32_t key, uint32_t dreg)
{
	struct nftnl_expr *e = e_new(b, "meta");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
	e_add(b, e);
}

/* [ cmp OP reg SREG DATA ] */
void e_cmp(struct rb *b, uint32_t sreg, uint32_t op, const void *data, uint32_t len)
{
	struct nftnl_expr *e = e_new(b, "cmp");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	e_add(b, e);
}

void e_cmp_u8(struct rb *b, uint32_t sreg, uint8_t v)
{
	e_cmp(b, sreg, NFT_CMP_EQ, &v, 1);
}

/* [ payload load LEN @ BASE + OFF => reg DREG ] */
void e_payload(struct rb *b, uint32_t base, uint32_t off, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = e_new(b, "payload");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	e_add(b, e);
}

/* [ lookup reg SREG set NAME ] (flags always sent: the kernel echoes them) */
void e_lookup(struct rb *b, uint32_t sreg, const char *set)
{
	struct nftnl_expr *e = e_new(b, "lookup");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, 0);
	e_add(b, e);
}

/* [ lookup reg SREG set NAME 0x1 ]: not in the set */
/* [ lookup reg SREG set NAME 0x1 ]: not in the set */
void e_lookup_inv(struct rb *b, uint32_t sreg, const char *set)
{
	struct nftnl_expr *e = e_new(b, "lookup");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, NFT_LOOKUP_F_INV);
	e_add(b, e);
}

/* [ immediate reg 0 VERDICT [-> CHAIN] ] */
void e_verdict(struct rb *b, int verdict, const char *chain)
{
	struct nftnl_expr *e = e_new(b, "immediate");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	if (chain)
		nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain);
	e_add(b, e);
}

const char *e_verdict_word(int verdict)
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

/* meta nfproto ipv4|ipv6 */
void e_nfproto(struct rb *b, int family)
{
	e_meta(b, NFT_META_NFPROTO, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6);
}

/* ip daddr / ip6 daddr => reg 1 */

/* ip daddr / ip6 daddr into reg 1: behind meta nfproto in table inet,
 * behind meta protocol in table netdev (which has no nfproto) */
void e_daddr(struct rb *b, int family)
{
	if (b->netdev)
		e_protocol(b, NFT_CMP_EQ, family == AF_INET ? 0x0800 : 0x86dd);
	else
		e_nfproto(b, family);
	if (family == AF_INET)
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 16, 4, NFT_REG_1);
	else
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 24, 16, NFT_REG_1);
}

/* The nft text of e_daddr: "ip daddr", or "meta protocol ip ip daddr" */
const char *e_daddr_text(const struct rb *b, bool v6)
{
	if (b->netdev)
		return v6 ? "meta protocol ip6 ip6 daddr" : "meta protocol ip ip daddr";
	return v6 ? "ip6 daddr" : "ip daddr";
}

/* fib daddr type [!=] TYPE */
void e_fib_type(struct rb *b, uint32_t op, uint32_t type)
{
	struct nftnl_expr *e = e_new(b, "fib");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, NFTA_FIB_F_DADDR);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	e_add(b, e);
	e_cmp(b, NFT_REG_1, op, &type, sizeof(type));
}

/* fib daddr type local */
void e_fib_local(struct rb *b)
{
	e_fib_type(b, NFT_CMP_EQ, RTN_LOCAL);
}

#ifndef NFTA_FIB_F_PRESENT
#define NFTA_FIB_F_PRESENT (1 << 5)
#endif

/* fib saddr . iif oif missing: no route back to the source through the
 * interface the packet came in on (strict reverse-path check; a local
 * source address also counts as missing) */
void e_fib_spoofed(struct rb *b)
{
	struct nftnl_expr *e = e_new(b, "fib");
	uint32_t missing = 0;     /* nft compares the whole register */

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS,
			   NFTA_FIB_F_SADDR | NFTA_FIB_F_IIF | NFTA_FIB_F_PRESENT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_OIF);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	e_add(b, e);
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &missing, sizeof(missing));
}

/* fib daddr . iif oif missing: the route to the destination does not
 * leave by the interface the packet came in on (routed elsewhere) */
void e_fib_daddr_iif_missing(struct rb *b)
{
	struct nftnl_expr *e = e_new(b, "fib");
	uint32_t missing = 0;

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS,
			   NFTA_FIB_F_DADDR | NFTA_FIB_F_IIF | NFTA_FIB_F_PRESENT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_OIF);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	e_add(b, e);
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &missing, sizeof(missing));
}

/* ct state established */
void e_ct_state(struct rb *b, uint32_t mask);
void e_ct_established(struct rb *b)
{
	e_ct_state(b, 1u << 1 /* NF_CT_STATE_BIT(IP_CT_ESTABLISHED) */);
}

/* ct state new */
void e_ct_new(struct rb *b)
{
	e_ct_state(b, 1u << 3 /* NF_CT_STATE_BIT(IP_CT_NEW) */);
}

/* ct state STATE: [ ct load state ] [ bitwise & mask ] [ cmp neq 0 ] */
void e_ct_state(struct rb *b, uint32_t mask)
{
	struct nftnl_expr *e = e_new(b, "ct"), *bw;
	uint32_t zero = 0;

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	e_add(b, e);
	if (!(bw = e_new(b, "bitwise")))
		return;
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_LEN, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_MASK, &mask, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_XOR, &zero, sizeof(zero));
	e_add(b, bw);
	e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &zero, sizeof(zero));
}

/* ct direction original: a packet of the side that opened the connection */
void e_ct_original(struct rb *b)
{
	struct nftnl_expr *e = e_new(b, "ct");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_DIRECTION);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
		e_add(b, e);
	}
	e_cmp_u8(b, NFT_REG_1, 0 /* IP_CT_DIR_ORIGINAL */);
}

/* ct status dnat */
void e_ct_dnat(struct rb *b)
{
	struct nftnl_expr *e, *bw;
	uint32_t zero = 0, mask = 1u << 5 /* IPS_DST_NAT */;

	if (!(e = e_new(b, "ct")))
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATUS);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	e_add(b, e);
	if (!(bw = e_new(b, "bitwise")))
		return;
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_LEN, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_MASK, &mask, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_XOR, &zero, sizeof(zero));
	e_add(b, bw);
	e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &zero, sizeof(zero));
}

/* icmpv6 type TYPE ip6 hoplimit 255: a neighbour discovery message as
 * RFC 4861 requires it (never forwarded: the hop limit proves it is
 * on-link) */
void e_nd(struct rb *b, uint8_t type)
{
	e_nfproto(b, AF_INET6);
	e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6);
	e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, type);
	e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 7, 1, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, 255);
}

int e_finish(struct sw_model *m, struct rb *b, const char *chain, const char *prefix,
	     const char *id, const char *text)
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
		char full[512];

		snprintf(full, sizeof(full), "%s comment \"%s\"", text, tag);
		err = sw_model_add_rule(m, chain, tag, canon, full, b->r);
	}
	free(canon);
	if (err)
		nftnl_rule_free(b->r);
	b->r = NULL;
	return err;
}

int e_begin(struct rb *b)
{
	b->err = 0;
	b->r = nftnl_rule_alloc();
	return b->r ? 0 : -ENOMEM;
}


/* meta protocol ip|ip6|arp (the sk_buff's protocol, in network order) */
void e_protocol(struct rb *b, uint32_t op, uint16_t ethertype)
{
	uint16_t v = htons(ethertype);

	e_meta(b, NFT_META_PROTOCOL, NFT_REG_1);
	e_cmp(b, NFT_REG_1, op, &v, sizeof(v));
}

/* ether type ip|ip6|arp (what the wire carries) */
void e_ethertype(struct rb *b, uint32_t op, uint16_t ethertype)
{
	uint16_t v = htons(ethertype);

	e_payload(b, NFT_PAYLOAD_LL_HEADER, 12, 2, NFT_REG_1);
	e_cmp(b, NFT_REG_1, op, &v, sizeof(v));
}

/* fib saddr type local */
void e_fib_saddr_local(struct rb *b)
{
	struct nftnl_expr *e = e_new(b, "fib");
	uint32_t local = RTN_LOCAL;

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, NFTA_FIB_F_SADDR);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	e_add(b, e);
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &local, sizeof(local));
}

/* meta protocol ip|ip6, then the address at the network header => reg 1 */
