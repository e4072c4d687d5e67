/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NFTEXPR_H
#define SANDWALL_NFTEXPR_H
/* nftexpr: the ruleset's rule builder. One small function per nft
 * expression (or the few expressions nft writes as one term), each
 * appending to the rule being built; RULE wraps a body of them into one
 * tagged rule of the model. Private to the ruleset's parts. */
#include <stdbool.h>
#include <stdint.h>
#include "core/model.h"

struct nftnl_expr;

struct rb {
	struct nftnl_rule *r;
	int err;
	bool netdev;            /* table netdev: no nfproto, the address behind meta protocol */
};

struct nftnl_expr *e_new(struct rb *b, const char *name);
void e_add(struct rb *b, struct nftnl_expr *e);
void e_meta(struct rb *b, uint32_t key, uint32_t dreg);
void e_cmp(struct rb *b, uint32_t sreg, uint32_t op, const void *data, uint32_t len);
void e_cmp_u8(struct rb *b, uint32_t sreg, uint8_t v);
void e_payload(struct rb *b, uint32_t base, uint32_t off, uint32_t len, uint32_t dreg);
void e_lookup(struct rb *b, uint32_t sreg, const char *set);
void e_lookup_inv(struct rb *b, uint32_t sreg, const char *set);
void e_verdict(struct rb *b, int verdict, const char *chain);
const char *e_verdict_word(int verdict);
void e_nfproto(struct rb *b, int family);
void e_daddr(struct rb *b, int family);
const char *e_daddr_text(const struct rb *b, bool v6);
void e_fib_type(struct rb *b, uint32_t op, uint32_t type);
void e_fib_local(struct rb *b);
void e_fib_spoofed(struct rb *b);
void e_fib_daddr_iif_missing(struct rb *b);
void e_ct_established(struct rb *b);
void e_ct_new(struct rb *b);
void e_ct_state(struct rb *b, uint32_t mask);
void e_ct_original(struct rb *b);
void e_ct_dnat(struct rb *b);
void e_nd(struct rb *b, uint8_t type);
void e_protocol(struct rb *b, uint32_t op, uint16_t ethertype);
void e_ethertype(struct rb *b, uint32_t op, uint16_t ethertype);
void e_fib_saddr_local(struct rb *b);

int e_begin(struct rb *b);
/* The rule's userdata comment is "<prefix><id>" (SW_TAG_PREFIX). */
int e_finish(struct sw_model *m, struct rb *b, const char *chain, const char *prefix,
	     const char *id, const char *text);

#define RULE(m, b, chain, id, text, body) do {                          \
		int _e = e_begin(b);                                     \
		if (_e)                                                  \
			return _e;                                       \
		body;                                                    \
		if ((_e = e_finish(m, b, chain, SW_TAG_PREFIX, id, text))) \
			return _e;                                       \
	} while (0)

#endif
