/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_FAKE_KERNEL_H
#define SANDWALL_FAKE_KERNEL_H
/* fake_kernel: helpers shared by the model/encode/diff/nl unit tests.
 *   - tk_host(): the hand-made host every test builds against;
 *   - tk_build(): config text + that host -> desired model;
 *   - struct fk: a scripted nf_tables "kernel" behind struct sw_nl_ops
 *     that records what was sent and queues answers for recv().
 * No kernel is touched. Defined in fake_kernel.c, compiled once into
 * build/libswtest.a. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "core/config_check.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nl.h"
#include "core/ruleset.h"

/* ---- the host ------------------------------------------------------------ */

/* A zeroed new link, address or route at the end of h's (grown). */
struct sw_link *tk_new_link(struct sw_host *h);
struct sw_addr *tk_new_addr(struct sw_host *h);
struct sw_route *tk_new_route(struct sw_host *h);

void tk_link(struct sw_host *h, int idx, const char *name, bool bridge);

void tk_addr(struct sw_host *h, int idx, const char *text);

void tk_gateway(struct sw_host *h, const char *text, int oif);

/* lo 1, eth0 2, docker0 3 (bridge), br-0a1b2c3d4e5f 4 (bridge); gateways
 * 10.0.0.1 and fd00:10::1; resolver 169.254.169.253. h: zeroed or a host
 * built before (its arrays are reused); sw_host_free frees it. */
void tk_host(struct sw_host *h);

/* The guard list of sandwall 0.1.0's default config, for the tests that
 * are about something else than the guard selection. */
#define TK_LEGACY_GUARD "[guard]\ninterfaces = docker0 br-*\n"

/* Build the desired model from config text and host h (tk_host() if NULL). */
void tk_build_host(const char *conf, const struct sw_host *h, struct sw_model *m);

void tk_build(const char *conf, struct sw_model *m);

/* ---- the fake kernel ------------------------------------------------------ */

#define FK_QMAX     256
#define FK_DGRAM    (64 * 1024)

struct fk {
	/* what was sent */
	size_t n_sends, n_batches, n_getgens, n_recvs;
	uint8_t *last;                  /* copy of the last batch sent */
	size_t last_len;
	/* answers waiting for recv() */
	uint8_t *q[FK_QMAX];
	size_t qlen[FK_QMAX];
	size_t qhead, qtail;
	/* script for batches */
	uint32_t genid;                 /* answered to GETGEN */
	int begin_err;                  /* error on the BATCH_BEGIN seq (0: none) */
	int restarts;                   /* first N batches get -ERESTART (<0: forever) */
	int fail_index[4];              /* inner messages that fail (index), -1 unused */
	int fail_err[4];
	const char *fail_msg[4];        /* extack text, NULL for none */
	bool uncapped;                  /* extack after the echoed original message */
	size_t acks_per_dgram;          /* 0: all answers in one datagram */
	bool stale_first;               /* a foreign-seq answer (with extack) comes first */
	bool no_answer;                 /* swallow batches and GETGEN without any answer */
	size_t skip_ack;                /* answer every message but this one (1-based, 0: off) */
	int send_err;                   /* send() fails with this */
	int recv_err;                   /* recv() fails with this once the queue is empty */
};

void fk_init(struct fk *k);

void fk_free(struct fk *k);

/* A new empty datagram at the tail of the queue; returns its index. */
size_t fk_dgram(struct fk *k);

/* Append one message to datagram d: header + payload (may be NULL/0). */
struct nlmsghdr *fk_put(struct fk *k, size_t d, uint16_t type, uint16_t flags,
			uint32_t seq, uint32_t pid);

void fk_done(struct fk *k, size_t d, struct nlmsghdr *nlh);

/* NLMSG_ERROR for seq: error 0 is an ACK; msg adds NLMSGERR_ATTR_MSG
 * (capped: no echo of the request; uncapped: the request header echoed,
 * orig may be NULL then an empty header is echoed). */
void fk_put_err(struct fk *k, size_t d, uint32_t seq, int error,
		const char *msg, bool capped, const struct nlmsghdr *orig);

/* NFT_MSG_NEWGEN with NFTA_GEN_ID for seq. */
void fk_put_newgen(struct fk *k, size_t d, uint32_t seq, uint32_t genid);

int fk_fail_slot(const struct fk *k, int index);

/* Answer a batch the way the kernel does: one NLMSG_ERROR per inner
 * message that asked for an ACK, or one error on the BEGIN seq. */
void fk_answer_batch(struct fk *k, const uint8_t *buf, size_t len);

ssize_t fk_send(void *ctx, const void *buf, size_t len);

ssize_t fk_recv(void *ctx, void *buf, size_t len, int timeout_ms);

extern const struct sw_nl_ops fk_ops;

size_t fk_pending(const struct fk *k);

#endif
