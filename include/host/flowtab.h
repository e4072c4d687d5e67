/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_FLOWTAB_H
#define SANDWALL_FLOWTAB_H
/* flowtab: the network log's open flows ([log] flows), pure: a
 * fixed-capacity table (max_flows entries, allocated once) of the flows
 * the sandboxes opened that conntrack confirmed -- what the boundary
 * allowed -- keyed by conntrack id and original tuple, and the one
 * function that turns a flow into its record (sw_flow_json).
 *
 * Bounds, never silent: a NEW flow that finds the table full is not kept
 * and counted in dropped; at a dump, open flows that find no room are
 * counted in untracked (that dump's number). A flow kept but absent from
 * a later dump ended while its DESTROY event was lost (the sweep hands it
 * out as "gone"). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/host.h"
#include "kernel/ctevents.h"
#include "lib/json.h"

#define SW_FLOWS_MAX_DEFAULT 4096
#define SW_FLOWS_MAX_LIMIT   (1u << 20)
#define SW_FLOW_NAMELEN      128

struct sw_flow {
	struct sw_ct_flow ct;       /* the tuple, and the counters last seen */
	char iif[16];               /* the guarded link whose subnet holds src ("" unknown) */
	int64_t first, last;        /* unix seconds: first seen (NEW or a dump), last seen */
	uint32_t gen;               /* the dump that last saw it */
	bool used;
	/* the name the sandbox's DNS answer gave for dst when the flow was
	 * first seen (host/dnsnames.h; "" none); name_cut: it was longer */
	bool name_cut;
	char name[SW_FLOW_NAMELEN];
};

struct sw_flowtab {
	struct sw_flow *slot;       /* open addressing, n_slots a power of two >= 2 * max */
	size_t n_slots, n, max;
	uint32_t gen;               /* the dump going on (sw_flowtab_dump_begin) */
	uint64_t dropped;           /* NEW flows not kept: the table was full */
	uint64_t untracked;         /* the last dump: open flows that found no room */
	uint64_t untracked_now;     /* counting during a dump */
};

/* max: 1..SW_FLOWS_MAX_LIMIT. 0 or -EINVAL / -ENOMEM. */
int sw_flowtab_init(struct sw_flowtab *t, size_t max);
void sw_flowtab_free(struct sw_flowtab *t);

struct sw_flow *sw_flowtab_find(struct sw_flowtab *t, const struct sw_ct_flow *f);
/* A NEW event or a dumped entry seen at now (iif: its link's name or
 * NULL). Kept (1), updated (0: counters and last), or -ENOSPC when the
 * table is full: a NEW flow is counted in dropped, a dumped one in
 * untracked_now. */
int sw_flowtab_seen(struct sw_flowtab *t, const struct sw_ct_flow *f, const char *iif,
		    int64_t now);
/* Label the kept flow f (its first sight) with name: kept whole up to
 * SW_FLOW_NAMELEN - 1 bytes, else cut there and name_cut set. 0, or
 * -ENOENT when f is not kept. */
int sw_flowtab_name(struct sw_flowtab *t, const struct sw_ct_flow *f, const char *name);
/* A DESTROY event: the kept flow's final state into *out (the event's
 * counters when it has them) and out of the table. 0, or -ENOENT when it
 * was not kept (dropped, or opened while events were lost). */
int sw_flowtab_end(struct sw_flowtab *t, const struct sw_ct_flow *f, int64_t now,
		   struct sw_flow *out);
/* A dump starts: the flows it sees are marked with a new generation. */
void sw_flowtab_dump_begin(struct sw_flowtab *t);
/* It is done: every kept flow it did not see ended unseen; each is handed
 * to cb (before it goes) and removed. Returns how many. */
size_t sw_flowtab_dump_end(struct sw_flowtab *t, void (*cb)(const struct sw_flow *f, void *data),
			   void *data);
/* Each kept flow, in slot order. */
void sw_flowtab_each(const struct sw_flowtab *t, void (*cb)(const struct sw_flow *f, void *data),
		     void *data);

/* The input interface of a sandbox address: the link whose address
 * prefix (else directly connected route) holds it, longest first; ""
 * when none. */
void sw_flow_iif(const struct sw_host *h, int family, const uint8_t *addr, char *name, size_t len);

/* Is addr one of the host's own addresses? The host's address on a
 * guarded bridge lies in the guarded subnets, but what the host sends
 * from it (connections to its containers, IGMP reports) is no sandbox's. */
bool sw_flow_from_host(const struct sw_host *h, int family, const uint8_t *addr);

/* The record of one flow, an object (key: its member name, NULL in an
 * array). state: "closed" (its DESTROY event), "gone" (absent from a dump:
 * the event was lost), "open" (still open: the snapshot, or at stop).
 * Every record of a flow is built here; members are added here only. */
void sw_flow_json(struct sw_jw *w, const char *key, const struct sw_flow *f, const char *state,
		  int64_t now);

#endif
