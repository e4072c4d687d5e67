/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RESOLVER_H
#define SANDWALL_RESOLVER_H
/* resolver: the hostnames of the sandboxes' allowlists, kept resolved.
 *
 * Per hostname the current addresses, each with the time it expires
 * (now + its DNS TTL clamped to [dns_min_ttl, dns_max_ttl]). A round asks
 * A and AAAA over UDP (dns.h) at 3/4 of the shortest lifetime (and at
 * least two query timeouts before it ends, at most every 500 ms), so the
 * answer comes in before the addresses expire. An address the new answer
 * no longer lists is not refreshed and goes when it expires; a failed
 * round keeps the last good addresses until they expire, and is logged
 * once per failure streak (then at most every SW_RESOLVER_LOG_MS).
 *
 * The addresses go into the sandboxes' sets sbx_<name>_hosts4/6 (key
 * address . protocol . port, flags dynamic,timeout: core/rs_sandbox.c) as
 * elements whose kernel timeout is the address's remaining lifetime, so
 * the kernel drops an address on its own when it expires, daemon or not.
 *
 * The bookkeeping is pure (times are passed in: the tests use a fake
 * clock); sockets and netlink only in sw_resolver_open/_send/_recv/_push. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"
#include "core/desired.h"
#include "lib/dns.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nl.h"

#define SW_RESOLVER_MAXADDRS   64       /* per hostname, v4 and v6 together */
#define SW_RESOLVER_TIMEOUT_MS 2000     /* one query, then the next server */
#define SW_RESOLVER_RETRY_MS   1000     /* after a failed round, doubling ... */
#define SW_RESOLVER_RETRY_MAX  30000    /* ... up to this */
#define SW_RESOLVER_LOG_MS     300000   /* a failure streak is logged again after this */
#define SW_RESOLVER_MARGIN_MS  250      /* an element this close to expiry is not deleted */

struct sw_resolver_addr {
	int family;                     /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	int64_t expires_ms;             /* monotonic */
	int64_t kernel_ms;              /* the expiry the kernel holds, 0: not pushed */
};

/* One query of a round: A (index 0) or AAAA (1). */
struct sw_resolver_query {
	uint16_t id;
	bool pending;                   /* sent, no answer yet */
	bool ok;                        /* answered this round */
};

struct sw_resolver_name {
	char name[SW_DNS_NAMELEN];
	struct sw_resolver_addr addrs[SW_RESOLVER_MAXADDRS];
	size_t n_addrs;
	int64_t next_ms;                /* the next round starts then */
	int64_t sent_ms;                /* the round in flight started then, 0: none */
	struct sw_resolver_query q[2];
	unsigned server;                /* the server the round asks */
	unsigned fails;                 /* failed rounds in a row */
	int64_t logged_ms;              /* last failure line, 0: none in this streak */
	uint32_t round_ttl;             /* shortest clamped TTL seen in this round */
	char error[64];                 /* why the round failed */
};

/* A sandbox's hostname entry: name index, set base, port. */
struct sw_resolver_use {
	size_t name;
	char set[SW_NAME_MAX - 2];      /* "sbx_<sandbox>_hosts" (4/6 appended) */
	struct sw_port port;
};

struct sw_resolver {
	unsigned min_ttl, max_ttl;      /* seconds */
	struct sw_prefix servers[SW_MAX_DNS_SERVERS];
	size_t n_servers;
	struct sw_resolver_name *names;
	size_t n_names;
	struct sw_resolver_use *uses;
	size_t n_uses;
	int fd[2];                      /* UDP sockets, v4 and v6 (-1: none) */
	bool dirty;                     /* addresses the kernel does not hold yet */
	size_t fresh;                   /* of which new addresses (not extended lifetimes) */
	uint64_t rounds, failures, answers, pushes, push_failures;
	uint64_t commits;               /* batches the kernel committed (each moves the generation) */
	int64_t last_answer_us;         /* when the answer that made it dirty came in */
	int64_t last_push_us;           /* answer -> elements ACKed, last time (µs) */
};

/* From the config's [sandbox] hostname entries and [daemon] resolvers
 * (else the host's resolv.conf servers). Keeps the addresses of names
 * that old (may be NULL) knew: a reload leaves no gap. No sockets. */
int sw_resolver_init(struct sw_resolver *r, const struct sw_config *cfg,
		     const struct sw_host *host, const struct sw_resolver *old);
void sw_resolver_free(struct sw_resolver *r);
/* The host's resolvers moved (only used without a [daemon] resolvers list). */
void sw_resolver_set_servers(struct sw_resolver *r, const struct sw_config *cfg,
			     const struct sw_host *host);

/* ---- pure: the state, driven by a clock passed in --------------------- */

/* TTL clamped to [min_ttl, max_ttl] */
uint32_t sw_resolver_clamp(const struct sw_resolver *r, uint32_t ttl);
/* A parsed answer for name i (qtype in a->qtype) at now. */
void sw_resolver_answer(struct sw_resolver *r, size_t i, const struct sw_dns_answer *a,
			int64_t now_ms);
/* Query qi (0: A, 1: AAAA) of name i failed (timeout, bad reply, server error). */
void sw_resolver_failed(struct sw_resolver *r, size_t i, int qi, const char *why, int64_t now_ms);
/* Close name i's round: schedule the next one (3/4 of the shortest TTL,
 * or the back-off after a failure); logs a failure streak once. */
void sw_resolver_round_end(struct sw_resolver *r, size_t i, int64_t now_ms);
/* Drop the addresses that expired (the kernel drops its elements on its own). */
size_t sw_resolver_expire(struct sw_resolver *r, int64_t now_ms);
/* When something is due next (a round, a timeout, an expiry); INT64_MAX: never. */
int64_t sw_resolver_deadline(const struct sw_resolver *r);
/* Put the live addresses into the model's sbx_*_hosts4/6 sets, each
 * element with its remaining lifetime as its timeout (replacing what the
 * sets held): a table re-created or repaired gets them in the same batch. */
int sw_resolver_fill(const struct sw_resolver *r, struct sw_model *m, int64_t now_ms);
/* The same addresses as data, for a model still to be built
 * (core/desired.h): *out (free it) holds *n_out of them, sorted by set. */
int sw_resolver_elems(const struct sw_resolver *r, int64_t now_ms,
		      struct sw_desired_elem **out, size_t *n_out);

/* ---- I/O ---------------------------------------------------------------- */

/* UDP sockets (non-blocking) for the server families. */
int sw_resolver_open(struct sw_resolver *r);
void sw_resolver_close(struct sw_resolver *r);
/* Start the rounds that are due and time out the late ones. */
void sw_resolver_send(struct sw_resolver *r, int64_t now_ms);
/* Read every reply waiting on fd. */
void sw_resolver_recv(struct sw_resolver *r, int fd, int64_t now_ms);
/* Send the addresses the kernel does not hold yet (or holds with an older
 * expiry) to the sets of these tables, in one batch per table. */
int sw_resolver_push(struct sw_resolver *r, struct sw_nl *nl, const char *const *tables,
		     size_t n_tables, int64_t now_ms);
/* Resolve every name once, waiting at most timeout_ms (sandwall apply
 * without a daemon). Returns the number of names with addresses. */
int sw_resolver_once(struct sw_resolver *r, unsigned timeout_ms);

/* CLOCK_MONOTONIC in ms */
int64_t sw_resolver_now_ms(void);

#endif
