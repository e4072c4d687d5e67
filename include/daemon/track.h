/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_TRACK_H
#define SANDWALL_DAEMON_TRACK_H
/* track: what the events say moved, and the daemon following it: the
 * table (nf_tables events: drift, repaired), the host (rtnetlink deltas:
 * the desired sets follow by element deltas, the new-link path (hostfast.h),
 * bursts coalesced) and the cgroups ([guard] cgroups, inotify). A full
 * read of the host and compare is the fallback of each. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "daemon/report.h"
#include "daemon/state.h"

/* The nf_tables transactions of one read (sw_events_read_nft's callback
 * data): the first one by another process names the culprit. */
struct sw_drift {
	bool seen;
	unsigned n;             /* transactions by others in this read */
	struct sw_nft_txn txn;
	uint32_t *synced;       /* the daemon's synced_gen */
	uint8_t *rec;           /* the first one's messages (sw_daemon.txn_rec) */
	size_t rec_cap;
};
/* One transaction into dr (a struct sw_drift): ours are skipped; another
 * table's right after *dr->synced moves it along. */
void sw_track_on_txn(const struct sw_nft_txn *t, void *data);
/* nf_tables events: repair what another process changed; lost events:
 * resync soon; a broken subscription: subscribe again and resync. */
void sw_track_nft(struct sw_daemon *d);

/* Read the whole host again (start, resync timer, lost events) and
 * rebuild the desired model. */
void sw_track_host_update(struct sw_daemon *d, enum sw_cause cause, bool only_if_changed);
/* The resync timer: read everything, compare, and take the table back
 * if it lost its owner. */
void sw_track_full_resync(struct sw_daemon *d);

/* Can d->want move by deltas without a look at the kernel? */
bool sw_track_deltas_ok(const struct sw_daemon *d);
/* m replaces d->want by set element deltas only (sw_update_sets), stamped
 * with the generation at which the table was last seen to hold d->want,
 * without reading the table. When the generation moved, the events not
 * read yet say by whom (another table's transaction moves synced_gen
 * along; a change to ours is repaired) and it tries once more. 0:
 * committed, m is d->want now, the change is reported as r says (cause,
 * pid, comm) and *changes says how many elements moved; else nothing was
 * sent, synced_gen is forgotten and m is still the caller's, for the
 * observed path. */
int sw_track_by_deltas(struct sw_daemon *d, struct sw_model *m, const struct sw_repair *r,
		       int64_t t0, size_t *changes);
/* The host model moved by rtnetlink deltas: rebuild the desired model
 * from it (no dump) and send only the set elements that changed, stamped
 * with the generation at which the table was last seen to hold d->want.
 * Anything else (more than elements, the generation moved, the kernel
 * refuses a delta, a failed repair pending, mode twin) takes the observed
 * path. */
void sw_track_host_delta(struct sw_daemon *d);
/* rtnetlink events update the host model as deltas; the desired model
 * follows at once, or, within a burst, when the last update's cost has
 * passed (the loop's epoll timeout). */
void sw_track_rt(struct sw_daemon *d);
/* Within a burst: when the whole model is rebuilt at the earliest (CLOCK_
 * MONOTONIC us), now that an event came at now: SETTLE_MS later, or 4
 * times the last rebuild's cost, but never later than SETTLE_MAX_MS after
 * the burst's first event, and never sooner than already due. */
int64_t sw_track_settle_due(const struct sw_daemon *d, int64_t now);

/* The model of a host with only lo, for the new-link path (per config). */
void sw_track_fast_base(struct sw_daemon *d);
/* May these new links be guarded by the new-link path (their own elements
 * added to the desired sets, no rebuild)? Only new links, few, no route
 * moved, and the kernel known to hold d->want. */
bool sw_track_fast_ok(const struct sw_daemon *d, const struct sw_host_delta *dl);

/* (Re)watch the cgroup tree for [guard] cgroups; none named: no watch.
 * Then scan once more: what started between the last scan and the
 * watches is found now. */
void sw_track_cgroup_setup(struct sw_daemon *d);
/* A cgroup came or went (rescan: look anyway): rescan the patterns' paths
 * and send the element deltas of the guard_cg sets (no host dump, no
 * rebuild); on any error the full compare takes over. */
void sw_track_cgroup(struct sw_daemon *d, bool rescan);

#endif
