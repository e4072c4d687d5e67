/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_EVENTS_H
#define SANDWALL_EVENTS_H
/* events: the daemon's netlink subscriptions. nf_tables (NFNLGRP_NFTABLES)
 * tells us who changed our table (NEWGEN closes each transaction with the
 * pid and name of the process); rtnetlink tells us links, addresses and
 * routes moved. Subscribed before the first dump; messages not from the
 * kernel are dropped; ENOBUFS grows the buffer and asks for a resync. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "host/hoststate.h"
#include "kernel/nl.h"

#define SW_EV_RCVBUF_MIN   (1 << 20)
#define SW_EV_RCVBUF_MAX   (64 << 20)

struct mnl_socket;

/* One nf_tables transaction as seen on the event group. */
struct sw_nft_txn {
	bool touched;              /* a message named our table */
	bool table_deleted;        /* one of them deleted it */
	unsigned n_changes;        /* messages about our table */
	int worst;                 /* rank of the most severe change seen */
	char change[192];          /* the most severe: "delete table", "delete rule in chain
				    * guard (sandwall:metadata4)", "add element of set x (2
				    * elements)", ... */
	uint32_t pid;              /* from NEWGEN */
	char comm[32];
	uint32_t genid;
	/* Every message that named our table (either family, any type), as
	 * it came, when the owner gives a buffer: rec (rec_cap bytes) is
	 * kept across transactions, rec_len is this one's. rec_lost: one did
	 * not fit (then the messages say too little: observe instead). */
	uint8_t *rec;
	size_t rec_cap, rec_len;
	bool rec_lost;
};

typedef void (*sw_nft_txn_cb)(const struct sw_nft_txn *txn, void *data);

/* Parse one datagram of nf_tables events. Messages for `table` (family
 * inet) mark the transaction; NEWGEN completes it and calls cb, for every
 * transaction (cur->touched: it named our table). cur carries a
 * transaction across datagrams; with cur->rec it also keeps the messages
 * that named our table (valid in cb, until the next transaction). */
void sw_events_parse_nft(const void *buf, size_t len, const char *table,
			 struct sw_nft_txn *cur, sw_nft_txn_cb cb, void *data);
/* Does an rtnetlink datagram change links, addresses or routes? */
bool sw_events_parse_rt(const void *buf, size_t len);

struct sw_events {
	struct mnl_socket *nft;
	struct mnl_socket *rt;     /* rtnl's socket */
	struct sw_nl rtnl;          /* rtnetlink subscriber (sw_host_track reads it) */
	int nft_rcvbuf, rt_rcvbuf;
	unsigned enobufs;           /* times the kernel dropped events */
	struct sw_nft_txn txn;
	uint8_t *buf;
};

int sw_events_open(struct sw_events *ev);
void sw_events_close(struct sw_events *ev);
int sw_events_nft_fd(const struct sw_events *ev);
int sw_events_rt_fd(const struct sw_events *ev);
/* Drain the nf_tables socket without blocking. -ENOBUFS: events were lost
 * (the buffer has been grown): the caller must resync everything. */
int sw_events_read_nft(struct sw_events *ev, const char *table, sw_nft_txn_cb cb, void *data);
/* Drain rtnetlink; *changed when any link/address/route message came. */
int sw_events_read_rt(struct sw_events *ev, bool *changed);
/* Drain rtnetlink into the host model as deltas (sw_host_track; dump_nl
 * re-reads stale routes). -ENOBUFS: events were lost (the buffer has been
 * grown): the caller must dump the host again. */
int sw_events_track_rt(struct sw_events *ev, struct sw_nl *dump_nl, struct sw_host *h,
		       struct sw_host_delta *dl);
/* Forget the transaction in progress (keeps the record buffer). */
void sw_events_txn_reset(struct sw_nft_txn *t);
/* Close and reopen both subscriptions (after an unexpected error). */
int sw_events_reopen(struct sw_events *ev);

#endif
