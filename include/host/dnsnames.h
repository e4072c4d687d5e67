/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DNSNAMES_H
#define SANDWALL_DNSNAMES_H
/* dnsnames: the network log's names, pure. Where a sandbox's DNS answers
 * cross the host, the name each answer address was resolved from, keyed
 * (family, client address, answer address): what a flow record shows as
 * "name".
 *
 * Bounded whatever the input: a fixed table (SW_DNSNAMES_SETS sets of
 * SW_DNSNAMES_WAYS entries, in the struct, no allocation); a new entry
 * takes a free or expired way of its set, else the least recently written
 * one. The set is chosen by a keyed hash (seed) so that a sandbox cannot
 * aim its answers at another client's set without knowing it. An entry
 * lives its answer's TTL clamped to SW_DNSNAMES_TTL_MIN..TTL_MAX.
 *
 * The bytes are the sandbox's to forge (a sandbox may send itself any
 * "reply"): a name here labels a flow record and nothing else; no verdict
 * depends on it. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/dns.h"

#define SW_DNSNAMES_WAYS    4
#define SW_DNSNAMES_SETS    1024          /* a power of two */
#define SW_DNSNAMES_TTL_MIN 300           /* seconds */
#define SW_DNSNAMES_TTL_MAX 86400

struct sw_dnsname {
	uint8_t family;                 /* 0: free */
	uint8_t client[16], addr[16];   /* 4 bytes used for AF_INET */
	int64_t expires;                /* seconds, the caller's clock */
	uint64_t stamp;                 /* the write that last set it (eviction order) */
	char name[SW_DNS_NAMELEN];
};

struct sw_dnsnames {
	struct sw_dnsname e[SW_DNSNAMES_SETS][SW_DNSNAMES_WAYS];
	uint64_t seed, stamp;
	uint64_t stored, evicted;       /* entries written; live ones pushed out */
};

/* A DNS reply as one packet carries it (what NFLOG hands out in copy mode
 * packet): an IPv4 or IPv6 header, UDP or TCP from port 53. Over TCP a
 * segment's data holds messages each behind its 2-byte length (RFC 1035
 * 4.2.2); only whole ones are read, from the segment's first byte on: a
 * message split over segments is refused, never guessed at. */
struct sw_dns_packet {
	int family;                     /* AF_INET or AF_INET6 */
	uint8_t server[16], client[16]; /* the packet's source and destination */
	const uint8_t *msg;             /* the (current) DNS message, inside the packet */
	size_t len;
	size_t rest;                    /* TCP: the segment's bytes after it; UDP: 0 */
};

/* Room for the headers in front of a message of SW_DNS_MSGMAX bytes: an
 * IPv4 header with options (60; IPv6's is 40), a TCP header with options
 * (60; UDP's is 8) and the TCP length prefix (2): what NFLOG must copy. */
#define SW_DNS_PACKET_HEADROOM (60 + 60 + 2)

void sw_dnsnames_init(struct sw_dnsnames *t, uint64_t seed);

/* Record name for (family, client, addr) at now for ttl seconds (clamped).
 * 0, or -EINVAL (family, or an empty or overlong name). */
int sw_dnsnames_put(struct sw_dnsnames *t, int family, const uint8_t *client,
		    const uint8_t *addr, const char *name, uint32_t ttl, int64_t now);

/* The name for (family, client, addr) at now into out (SW_DNS_NAMELEN
 * bytes): 0, or -ENOENT (never seen, or expired). */
int sw_dnsnames_get(const struct sw_dnsnames *t, int family, const uint8_t *client,
		    const uint8_t *addr, int64_t now, char *out);

/* Parse one raw packet (len: the bytes given, checked against every
 * header's own length): IPv4 (no options past the given header length,
 * no fragment) or IPv6 (UDP or TCP as the first next header: extension
 * headers and fragments are refused), then from source port 53 either UDP
 * (its length within the IP payload) or TCP (its data offset at least 20
 * and within the IP payload; the first message: the 2-byte length and
 * every byte it announces within the segment). 0 with out->msg the (first)
 * message; -ENODATA for a TCP segment without data (SYN, ACK, FIN: nothing
 * to read); -EBADMSG (a length that lies, a fragment, a truncation, a TCP
 * message the segment does not hold whole); -EPROTONOSUPPORT for neither
 * UDP nor TCP from 53. */
int sw_dns_packet_parse(const uint8_t *pkt, size_t len, struct sw_dns_packet *out);

/* The next message of a TCP segment (p from sw_dns_packet_parse): 0 with
 * p->msg and p->len moved to it, -ENODATA when the segment holds no more
 * (always over UDP), -EBADMSG when what follows is not a whole message
 * (its length prefix or its bytes go on in the next segment). */
int sw_dns_packet_next(struct sw_dns_packet *p);

/* One packet into the table: parsed, each of its messages parsed
 * (sw_dns_parse_reply) and each answer address of the packet's family
 * recorded for the packet's destination. Returns how many were recorded
 * (0 also for a TCP segment without data), or -errno when the packet or
 * one of its messages is refused (what the messages before it recorded
 * stays). */
int sw_dnsnames_learn(struct sw_dnsnames *t, const uint8_t *pkt, size_t len, int64_t now);

#endif
