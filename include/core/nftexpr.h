/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NFTEXPR_H
#define SANDWALL_NFTEXPR_H
/* nftexpr: the ruleset's rule builder. One small function per nft
 * expression (or per term that nft writes as one, like `ct state
 * established`), each adding its expressions to the rule being built AND
 * appending its nft text: the rule's text (what `sandwall export` prints)
 * comes from the calls that build it, never from a second description.
 * RULE wraps a body of builders into one tagged rule of the model.
 * Private to the ruleset's parts (include/core/rs_internal.h).
 *
 * The text follows nft's own rules: a load (meta, payload, ct, fib,
 * socket) writes its left-hand side ("meta l4proto", "ip daddr"); the
 * compare or lookup that consumes it writes the right-hand side ("tcp",
 * "!= @guard_except"); two loads before one lookup are a concatenation
 * ("meta l4proto . th dport"). A compare given no text is a dependency nft
 * leaves implied (meta nfproto before ip daddr, meta l4proto before
 * icmpv6 type): its load's words go too. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/model.h"

struct nftnl_expr;

struct rb {
	struct nftnl_rule *r;
	int err;
	bool netdev;            /* table netdev: no nfproto, the address behind meta protocol */
	char text[512];         /* the rule's nft text so far */
	size_t len;
	size_t lhs;             /* where the pending load's words start in text */
	bool loaded;            /* a load waits for its compare or lookup */
};

/* The header fields the ruleset loads: where they are and what nft calls
 * them (e_payload). */
enum nx_field {
	NX_IP_SADDR,            /* ip saddr: network header + 12, 4 bytes */
	NX_IP_DADDR,            /* ip daddr: + 16, 4 */
	NX_IP_PROTOCOL,         /* ip protocol: + 9, 1 */
	NX_IP6_SADDR,           /* ip6 saddr: + 8, 16 */
	NX_IP6_DADDR,           /* ip6 daddr: + 24, 16 */
	NX_IP6_NEXTHDR,         /* ip6 nexthdr: + 6, 1 */
	NX_IP6_HOPLIMIT,        /* ip6 hoplimit: + 7, 1 */
	NX_ARP_SADDR_IP,        /* arp saddr ip: + 14, 4 */
	NX_ICMPV6_TYPE,         /* icmpv6 type: transport header + 0, 1 */
	NX_TH_SPORT,            /* th sport: + 0, 2 */
	NX_TH_DPORT,            /* th dport: + 2, 2 */
	NX_ND_TARGET,           /* @th,64,128: + 8, 16 (a neighbour advert's target) */
	NX_TCP_FLAGS,           /* tcp flags: + 13, 1 */
	NX_ETHER_SADDR,         /* ether saddr: link-layer header + 6, 6 */
	NX_ETHER_TYPE,          /* ether type: + 12, 2 */
	NX_FIELD_COUNT
};

/* ---- single expressions ---- */
/* meta KEY => reg DREG ("meta l4proto", "iifname", ...) */
void e_meta(struct rb *b, uint32_t key, uint32_t dreg);
/* payload FIELD => reg DREG */
void e_payload(struct rb *b, enum nx_field f, uint32_t dreg);
/* socket cgroupv2 level L => reg 1 */
void e_socket_cgroup(struct rb *b, unsigned level);
/* cmp OP reg SREG DATA; val: its nft text ("tcp", "\"lo\""), NULL for a
 * dependency nft leaves implied */
void e_cmp(struct rb *b, uint32_t sreg, uint32_t op, const void *data, uint32_t len,
	   const char *val);
void e_cmp_u8(struct rb *b, uint32_t sreg, uint8_t v, const char *val);
/* bitwise reg SREG & MASK (xor 0) => reg SREG; text "& TEXT" */
void e_bitwise(struct rb *b, uint32_t sreg, const void *mask, uint32_t len, const char *text);
/* lookup reg SREG @SET, or (inv) != @SET */
void e_lookup(struct rb *b, uint32_t sreg, const char *set);
void e_lookup_inv(struct rb *b, uint32_t sreg, const char *set);
/* accept, drop, return, goto CHAIN, jump CHAIN */
void e_verdict(struct rb *b, int verdict, const char *chain);
/* counter name "NAME" (a named counter object) */
void e_counter(struct rb *b, const char *name);
/* limit rate RATE/UNIT burst BURST packets (unit in seconds: 1, 60, 3600) */
void e_limit(struct rb *b, uint64_t rate, uint64_t unit, uint32_t burst);
/* log prefix "PREFIX" group GROUP */
void e_log(struct rb *b, const char *prefix, uint16_t group);
/* update @SET { KEY limit rate RATE/UNIT burst BURST packets }: KEY is the
 * pending load (its text moves inside the braces) */
void e_update_limit(struct rb *b, const char *set, uint64_t rate, uint64_t unit, uint32_t burst);
/* add @SET { <the pending load> }: breaks the rule when the set is full */
void e_dynset_add(struct rb *b, const char *set);

/* ---- terms of several expressions ---- */
/* meta nfproto ipv4|ipv6: implied by what follows (no text) */
void e_nfproto(struct rb *b, int family);
/* meta protocol [!=] ip|ip6|arp (the sk_buff's protocol) */
void e_protocol(struct rb *b, uint32_t op, uint16_t ethertype);
/* ether type [!=] ip|ip6|arp (what the wire carries) */
void e_ethertype(struct rb *b, uint32_t op, uint16_t ethertype);
/* ip daddr / ip6 daddr => reg 1: behind meta nfproto in table inet,
 * behind meta protocol in table netdev (which has no nfproto) */
void e_daddr(struct rb *b, int family);
/* ip saddr / ip6 saddr => reg 1, likewise */
void e_saddr(struct rb *b, int family);
/* fib saddr|daddr type [!=] local */
void e_fib_local(struct rb *b, bool saddr, uint32_t op);
/* fib saddr|daddr . iif oif missing: no route back to the source
 * (saddr), or to the destination (daddr), through the interface the
 * packet came in on */
void e_fib_oif_missing(struct rb *b, bool saddr);
/* ct state established / ct state new / ct status dnat */
void e_ct_established(struct rb *b);
void e_ct_new(struct rb *b);
void e_ct_dnat(struct rb *b);
/* ct direction original (0) / reply (1) */
void e_ct_direction(struct rb *b, uint8_t dir);
/* icmpv6 type TYPE (behind meta protocol ip6 in table netdev) */
void e_icmpv6_type(struct rb *b, uint8_t type);
/* icmpv6 type TYPE ip6 hoplimit 255: a neighbour discovery message as
 * RFC 4861 requires it (never forwarded: the hop limit proves it is
 * on-link) */
void e_nd(struct rb *b, uint8_t type);

/* ---- the rule ---- */
int e_begin(struct rb *b);
/* Hand the rule to the model with its text and the userdata comment
 * "<prefix><id>" (SW_TAG_PREFIX). */
int e_finish(struct sw_model *m, struct rb *b, const char *chain, const char *prefix,
	     const char *id);

#define RULE(m, b, chain, id, body) do {                                \
		int _e = e_begin(b);                                     \
		if (_e)                                                  \
			return _e;                                       \
		body;                                                    \
		if ((_e = e_finish(m, b, chain, SW_TAG_PREFIX, id)))     \
			return _e;                                       \
	} while (0)

#endif
