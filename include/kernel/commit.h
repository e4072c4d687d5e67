/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_COMMIT_H
#define SANDWALL_COMMIT_H
/* commit: the one way an nf_tables batch reaches the kernel. A batch is
 * framed (BATCH_BEGIN, stamped with a generation id as the caller's
 * policy says; the inner messages, each with NLM_F_ACK; BATCH_END), sent
 * in one sendmsg, and answered message by message: the wait ends when
 * every sequence number has its ACK. While the messages are encoded
 * (encode.c), each records what it does to which object (its intent);
 * when the kernel refuses one, the refusal names that object
 * (nl->err_index, nl->errmsg, nl->errobj), and where the kernel's
 * extended ACK points into the message (NLMSGERR_ATTR_OFFS, used only
 * once checked against that message's length), the part of it: which
 * expression of a rule, which element of a set. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/nl.h"

struct nlmsghdr;

/* Which generation id BATCH_BEGIN carries (NFNL_BATCH_GENID): with one,
 * the kernel refuses the whole batch (ERESTART) when the ruleset moved
 * past it, so a batch built from a view of the kernel never lands on
 * another one. */
enum sw_gen_policy {
	SW_GEN_REQUIRE,         /* the caller's (cached) generation, whatever it is */
	SW_GEN_IF_KNOWN,        /* the caller's generation when non-zero, else none */
	SW_GEN_CURRENT,         /* the kernel's, read (NFT_MSG_GETGEN) just before */
	SW_GEN_NONE,            /* none: the batch applies to whatever is there */
};

/* The generation after a commit at gen (the kernel skips 0). */
uint32_t sw_gen_after(uint32_t gen);

/* What one inner message does, recorded while it is encoded. */
struct sw_intent {
	uint16_t type;                  /* NFT_MSG_* */
	char name[64];                  /* its table, chain, set or counter */
	char comment[64];               /* a rule's tag, "" if none */
};

/* A batch under construction. */
struct sw_batch {
	uint8_t *buf;
	size_t len, cap;
	uint32_t begin_seq;         /* BATCH_BEGIN */
	uint32_t first_seq;         /* first inner message */
	uint32_t n_msgs;            /* inner messages (each wants an ACK) */
	int err;                    /* sticky allocation error */
	uint32_t family;            /* of the table being encoded (encode.c); 0: NFPROTO_INET */
	bool stamped;               /* BATCH_BEGIN carries genid */
	uint32_t genid;
	struct sw_intent *intent;   /* one per inner message */
	size_t cap_intent;
};

/* BATCH_BEGIN, with the generation id the policy asks for (genid: the
 * caller's generation for SW_GEN_REQUIRE and SW_GEN_IF_KNOWN). */
int sw_batch_init(struct sw_batch *b, struct sw_nl *nl, enum sw_gen_policy gen,
		  uint32_t genid);
/* Room for one more message of up to `room` bytes; returns where to build
 * it (the caller fills it with nftnl_*_nlmsg_build_hdr) or NULL. */
void *sw_batch_reserve(struct sw_batch *b, size_t room);
/* Account the message just built at the reserved place (NLM_F_ACK, its
 * sequence number) with what it does. */
void sw_batch_add(struct sw_batch *b, struct sw_nl *nl, struct nlmsghdr *nlh,
		  const struct sw_intent *what);
/* BATCH_END. */
int sw_batch_finish(struct sw_batch *b, struct sw_nl *nl);
void sw_batch_free(struct sw_batch *b);

/* Send a finished batch and wait for an answer to every message.
 * Returns 0, the first error (-errno, with nl->errmsg, nl->err_index and
 * nl->errobj naming the refused message), or -ERESTART when the
 * generation moved (rebuild and retry). */
int sw_nl_send_batch(struct sw_nl *nl, struct sw_batch *b);

/* Finish, send and free a batch begun with sw_batch_init: 0 or the
 * refusal, as sw_nl_send_batch. On success, when the batch was stamped,
 * *genid (may be NULL) is the generation the commit made. */
int sw_commit_send(struct sw_batch *b, struct sw_nl *nl, uint32_t *genid);

/* err = "<what>: <strerror> (kernel: <extack text>, message <i> of the
 * batch: <what the message did>)", with the parts the refusal has. */
void sw_commit_error(struct sw_nl *nl, const char *what, int rc, char *err, size_t errlen);

typedef int (*sw_commit_fill)(struct sw_batch *b, struct sw_nl *nl, const void *arg);

/* One commit: begin with the policy (SW_GEN_CURRENT reads the kernel's
 * generation first), fill (the encoder calls), send. *genid: in, the
 * caller's generation (unused for SW_GEN_CURRENT and SW_GEN_NONE; NULL
 * reads as 0); out, on success, as sw_commit_send. */
int sw_commit(struct sw_nl *nl, enum sw_gen_policy gen, uint32_t *genid,
	      sw_commit_fill fill, const void *arg);

/* What the refused message did, e.g. `add rule in chain guard (comment
 * "sandwall:metadata4")`, and where the kernel pointed (`, expression 3
 * (payload)`, `, element 2 of 256 (key 0a000001)`): the text of
 * nl->errobj. 0, or -ENOENT when no message has that index. ext_off: the
 * offset the extended ACK gave into the message, 0 for none. */
int sw_batch_describe(const struct sw_batch *b, int index, uint32_t ext_off,
		      char *out, size_t len);

#endif
