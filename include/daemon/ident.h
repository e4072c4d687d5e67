/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_IDENT_H
#define SANDWALL_DAEMON_IDENT_H
/* ident: sandwalld's side of sandbox identity (host/identity.h). The
 * lookups (the runtimes' APIs, 200 ms at most each, and the /proc
 * fallback) run on a worker thread, never in the loop; the loop keeps the
 * cache, stamps attempts and writes identities.jsonl beside the journal.
 *
 * When they run: when a veth whose peer is in another namespace, or a
 * tap, appears (at once, then 0.2, 0.5, 1, 2 and 4 s later: a container's
 * process starts a moment after its veth, and a --rm one may be gone a
 * second later) or goes (its records are swept); when a blocked source
 * has no identity (at most once per SW_IDENT_MISS_US per address, a new
 * link resets that); and on the resync timer's rhythm otherwise never. */
#include <stdbool.h>
#include <stdint.h>
#include "core/host.h"
#include "host/identity.h"

#define SW_IDENT_MISS_US        (3 * 1000000)   /* one refresh per address and 3 s */
#define SW_IDENT_JSONL_MAX      (1u << 20)      /* identities.jsonl: rotated at 1 MiB */

struct sw_daemon;
struct sw_ident;

/* Start (or after a reload: re-read the config and the environment;
 * [identity] enabled = no stops it). Warns, never fails the daemon. */
void sw_ident_setup(struct sw_daemon *d);
void sw_ident_close(struct sw_daemon *d);
int sw_ident_fd(const struct sw_daemon *d);
/* A link came or went (every link; only veths with a peer elsewhere and
 * taps count). */
void sw_ident_link(struct sw_daemon *d, const struct sw_link *l, bool added);
/* The identity of a blocked source now (iif: the interface it came in on,
 * or NULL): 0 and *out, or -ENOENT (then a refresh is asked for, within
 * the rate limit). A micro-VM's record (a tap, no addresses the host can
 * read) takes the addresses first seen on its tap. */
int sw_ident_lookup(struct sw_daemon *d, int family, const uint8_t *src, const char *iif,
		    struct sw_identity *out);
/* The worker is done: merge, log, stamp the attempts. */
void sw_ident_read(struct sw_daemon *d);
/* Start what is due. */
void sw_ident_tick(struct sw_daemon *d);
/* Milliseconds until the next refresh is due (-1: none). */
int sw_ident_timeout(const struct sw_daemon *d, int64_t now_us);
/* Counters for status: records, lookups run, API failures, lines dropped. */
void sw_ident_stats(const struct sw_daemon *d, uint64_t *records, uint64_t *jobs,
		    uint64_t *api_errors, uint64_t *dropped);

#endif
