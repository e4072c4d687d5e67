/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_REPAIR_H
#define SANDWALL_DAEMON_REPAIR_H
/* repair: what the daemon's three tables should hold (table inet from
 * config and host, table netdev for the macvlan/ipvlan parents, table
 * bridge for the ports' bindings) and bringing the kernel to it, with
 * the resync timer that backs it up. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "daemon/report.h"
#include "daemon/state.h"

/* The resync timer's next expiry in ms: soon after lost events (one
 * resync for a burst of ENOBUFS), sooner after a failed repair (the
 * retry), else [daemon] resync_interval. */
unsigned sw_repair_resync_ms(const struct sw_daemon *d);
/* Arm the resync timer as sw_repair_resync_ms says, then every
 * resync_interval. */
void sw_repair_arm_resync(struct sw_daemon *d);
/* Events were lost (ENOBUFS): compare everything, once for the burst, on
 * the timer (as conntrackd does), not once per overrun. */
void sw_repair_resync_soon(struct sw_daemon *d);

/* desired = f(config, host), with our ownership flags; tracked: from the
 * host model the rtnetlink events keep (only when no event was lost),
 * else from a fresh read of the host. 0 or -errno (logged). */
int sw_repair_build_want(struct sw_daemon *d, struct sw_model *m, bool tracked);
/* The same from the host as the daemon holds it (nothing read):
 * core/desired.h with our ownership flags and the resolver's addresses.
 * 0 or -errno with err filled. */
int sw_repair_desired(struct sw_daemon *d, struct sw_model *m, char *err, size_t errlen);
/* The macvlan/ipvlan parents as the netdev table hooks them (name, index,
 * MAC): a different value means one came, went or changed its address. */
uint64_t sw_repair_parents_sig(const struct sw_config *cfg, const struct sw_host *h);

/* table netdev <name> (the macvlan/ipvlan parents, netdev.h): compared and
 * repaired on every pass, after table inet; one line when it changed. */
void sw_repair_netdev(struct sw_daemon *d);
/* table bridge <name> (each bridge port bound to its own addresses,
 * bindtable.h): compared and repaired after table netdev, on every pass,
 * on every host update and on every address change in a peer's namespace.
 * Only the ports that are new, changed or in one of nsids are read again
 * (all: every port; the resync) */
void sw_repair_bindtable(struct sw_daemon *d, const int32_t *nsids, size_t n_nsids, bool all);

/* Compare with the kernel and repair; report what happened as one typed
 * record. change/pid/comm name the culprit when an event did. txn: the
 * one transaction by another process in this read, NULL when there is
 * none (or more than one). A deleted table is re-created, and the change
 * that followed the last generation seen in sync repaired as its events
 * say (sw_hint.txn), without a dump first. 0 or -errno. */
int sw_repair_reconcile_txn(struct sw_daemon *d, enum sw_cause cause, const char *change,
			    uint32_t pid, const char *comm, int64_t t0,
			    const struct sw_nft_txn *txn);
/* The same with no transaction to go by. */
int sw_repair_reconcile(struct sw_daemon *d, enum sw_cause cause, const char *change, uint32_t pid,
			const char *comm, int64_t t0);

/* A new desired model m (the host moved or was read again) replaces
 * d->want; the kernel is compared unless only_if_changed and m is the
 * same as before. With only_if_changed (a link, address or route event)
 * kernel drift comes in as nftables events, and the resync timer is the
 * backstop, so a bridge port changing state costs no dump. */
void sw_repair_want_update(struct sw_daemon *d, struct sw_model *m, enum sw_cause cause,
			   bool only_if_changed, int64_t t0);

#endif
