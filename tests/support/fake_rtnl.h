/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_FAKE_RTNL_H
#define SANDWALL_FAKE_RTNL_H
/* fake_rtnl: an rtnetlink "kernel" behind struct sw_nl_ops, for the host
 * tracker (hoststate.c). It keeps links, addresses and routes; answers
 * RTM_GETLINK, RTM_GETADDR and RTM_GETROUTE (per family) dumps from them
 * (one datagram of NLM_F_MULTI replies and NLMSG_DONE, with the request's
 * sequence number); and hands a queue of event datagrams (or an ENOBUFS)
 * to a second transport, the subscriber, which reads with timeout 0. A
 * test changes the state and queues the matching event (fr_*), or changes
 * the state only (an event the "kernel" dropped).
 * Defined in fake_rtnl.c, compiled once into build/libswtest.a. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "kernel/nl.h"

#define FR_N      64
#define FR_DGRAM  (32 * 1024)
#define FR_EVQ    32
#define FR_PORTID 4242          /* sw_nl_open_ops' portid */

/* peer_nsid > 0: a veth whose peer is ifindex peer_ifindex in namespace
 * id peer_nsid - 1 (IFLA_LINK_NETNSID, IFLA_LINK) */
struct fr_link { int ifindex; char name[16]; const char *kind; bool up; int master;
		 int peer_nsid; int peer_ifindex; };
/* nsid > 0: the address lives in namespace id nsid - 1 (answered only to a
 * dump with IFA_TARGET_NETNSID, portbind.h); 0: this namespace */
struct fr_addr { int ifindex; int family; uint8_t addr[16]; uint8_t plen; int nsid; };
struct fr_route { int family; uint8_t dst[16]; uint8_t dst_len; int oif; uint8_t gw[16]; bool has_gw; };

struct fr {
	struct fr_link links[FR_N];
	size_t n_links;
	struct fr_addr addrs[FR_N];
	size_t n_addrs;
	struct fr_route routes[FR_N];
	size_t n_routes;
	/* dump answers: up to two datagrams (an interrupted dump is split:
	 * its first message flagged NLM_F_DUMP_INTR, the rest and DONE after) */
	uint8_t answer[FR_DGRAM];
	size_t answer_len, answer_off, split;
	bool answer_ready;
	size_t n_dumps;
	size_t n_target_dumps;          /* of them, RTM_GETADDR with IFA_TARGET_NETNSID */
	unsigned intr_dumps;            /* the next N dumps are interrupted */
	/* event datagrams for the subscriber; len 0 = ENOBUFS */
	uint8_t *ev[FR_EVQ];
	size_t ev_len[FR_EVQ];
	size_t ev_head, ev_tail;
};

void fr_init(struct fr *k);

void fr_free(struct fr *k);

/* ---- messages ------------------------------------------------------------ */

struct nlmsghdr *fr_hdr(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq);

size_t fr_put_link(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq,
		   const struct fr_link *l);

size_t fr_put_addr(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq,
		   const struct fr_addr *a);

size_t fr_put_route(uint8_t *at, uint16_t type, uint16_t flags, uint32_t seq,
		    const struct fr_route *r);

/* ---- state helpers ---------------------------------------------------------- */

void fr_parse(const char *text, int *family, uint8_t *addr);

struct fr_link fr_mklink(int ifindex, const char *name, const char *kind, bool up,
			 int master);

struct fr_addr fr_mkaddr(int ifindex, const char *text, uint8_t plen);

/* dst NULL: a default route */
struct fr_route fr_mkroute(const char *dst, uint8_t dst_len, int oif, const char *gw);

/* one event datagram holding one message */
void fr_queue(struct fr *k, const uint8_t *msg, size_t len);

/* the kernel's queue overran: the subscriber gets ENOBUFS */
void fr_lost(struct fr *k);

void fr_link_ev(struct fr *k, uint16_t type, const struct fr_link *l);

void fr_addr_ev(struct fr *k, uint16_t type, const struct fr_addr *a);

void fr_route_ev(struct fr *k, uint16_t type, const struct fr_route *r);

/* state changes, with (ev) or without (a lost event) the event */
void fr_add_link(struct fr *k, struct fr_link l, bool ev);

void fr_del_link(struct fr *k, int ifindex, bool ev);

void fr_add_addr(struct fr *k, struct fr_addr a, bool ev);

void fr_add_route(struct fr *k, struct fr_route r, bool ev);

/* ---- the transports ---------------------------------------------------------- */

ssize_t fr_dump_send(void *ctx, const void *buf, size_t len);

ssize_t fr_dump_recv(void *ctx, void *buf, size_t len, int timeout_ms);

ssize_t fr_ev_send(void *ctx, const void *buf, size_t len);

ssize_t fr_ev_recv(void *ctx, void *buf, size_t len, int timeout_ms);

extern const struct sw_nl_ops fr_dump_ops;
extern const struct sw_nl_ops fr_ev_ops;

#endif
