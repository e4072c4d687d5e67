/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CTEVENTS_H
#define SANDWALL_CTEVENTS_H
/* ctevents: the flows conntrack confirms, as ctnetlink says them (the
 * network log, [log] flows). A socket bound to the NEW and DESTROY
 * groups (NFNLGRP_CONNTRACK_NEW/DESTROY) of the daemon's network
 * namespace; a dump of the table on a request socket (the periodic
 * update, and the resync after ENOBUFS); and the parser both go through.
 *
 * The parser is sandwall's own (libmnl's walk under kernel/nlmsg.h's
 * bounded one): every message length, every attribute length, every
 * nest is checked before it is read; a message that fails a check is
 * counted as bad and skipped (tests/unit/kernel/test_ctevents.c,
 * tests/fuzz/fuzz_ct.c). Byte and packet counters are there only when
 * the entry has the accounting extension (net.netfilter.nf_conntrack_acct
 * when it was created): has_counters says so, never a fake 0. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/nl.h"

struct nlmsghdr;
struct mnl_socket;

enum sw_ct_kind { SW_CT_NEW = 1, SW_CT_DESTROY, SW_CT_DUMPED };

struct sw_ct_flow {
	enum sw_ct_kind kind;
	int family;                     /* AF_INET / AF_INET6 */
	uint8_t src[16], dst[16];       /* the ORIGINAL direction */
	uint8_t proto;                  /* IPPROTO_* */
	uint16_t sport, dport;          /* host order; 0 when not TCP/UDP/SCTP/DCCP/UDPLITE */
	uint32_t id;                    /* CTA_ID (0 when absent) */
	uint16_t zone;
	bool has_counters;              /* CTA_COUNTERS_ORIG and _REPLY both there */
	uint64_t orig_packets, orig_bytes, reply_packets, reply_bytes;
	bool has_start;                 /* CTA_TIMESTAMP (nf_conntrack_timestamp) */
	uint64_t start_ns, stop_ns;     /* CLOCK_REALTIME ns; stop_ns 0 while open */
};

/* One ctnetlink message (IPCTNL_MSG_CT_NEW or _DELETE; dumped entries are
 * NEW without NLM_F_CREATE: SW_CT_DUMPED). 0, -ENOENT (another message
 * type: not a flow), -EBADMSG (malformed: a length, a missing tuple). */
int sw_ct_parse_msg(const struct nlmsghdr *nlh, struct sw_ct_flow *f);
/* A datagram of messages: up to max flows into out; *bad counts the
 * malformed messages (and a torn tail). Returns how many were written. */
size_t sw_ct_parse(const void *buf, size_t len, struct sw_ct_flow *out, size_t max, size_t *bad);

/* "tcp", "udp", "icmp", "ipv6-icmp", "sctp", else the number. */
const char *sw_ct_proto_name(uint8_t proto, char *buf, size_t len);

#define SW_CTEV_RCVBUF (8u << 20)       /* asked for (SO_RCVBUFFORCE, else SO_RCVBUF) */

struct sw_ctev {
	struct mnl_socket *sock;
	uint8_t *buf;
	uint64_t overruns;              /* ENOBUFS: events the kernel dropped */
	uint64_t bad;                   /* malformed messages skipped */
	int rcvbuf;                     /* what the kernel granted (bytes) */
};

/* Subscribe (NEW, DESTROY). 0 or -errno (-EPROTONOSUPPORT: no ctnetlink). */
int sw_ctev_open(struct sw_ctev *e);
void sw_ctev_close(struct sw_ctev *e);
int sw_ctev_fd(const struct sw_ctev *e);
/* Drain without blocking: cb for each flow. Returns 0, -ENOBUFS when the
 * kernel dropped events since the last read (counted in overruns; the
 * caller resyncs with a dump: the socket goes on), or -errno. */
int sw_ctev_read(struct sw_ctev *e, void (*cb)(const struct sw_ct_flow *f, void *data), void *data);

/* Dump the conntrack table over nl (a NETLINK_NETFILTER request socket,
 * sw_nl_open): cb for each entry (kind SW_CT_DUMPED). *bad counts the
 * malformed ones. 0 or -errno; a dump interrupted by a change (EINTR)
 * counts as done, and no conntrack in the namespace is an empty table. */
int sw_ct_dump(struct sw_nl *nl, void (*cb)(const struct sw_ct_flow *f, void *data), void *data,
	       uint64_t *bad);

/* net.netfilter.nf_conntrack_acct of this network namespace: *was its
 * value; switched on when on is true. 0 or -errno (-ENOENT: no conntrack
 * loaded, -EACCES/-EROFS: not ours to change). */
int sw_ct_acct(bool on, bool *was);
/* net.netfilter.nf_conntrack_events: *off when it is 0 (no events at all:
 * the flows are seen by the dumps only). 0 or -errno. */
int sw_ct_events_off(bool *off);

#endif
