/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DNS_H
#define SANDWALL_DNS_H
/* dns: a small stub for the daemon's hostname allowlists. Builds one A or
 * AAAA question (RFC 1035, no EDNS) and parses the answer strictly: every
 * length is bounded by the message, compression pointers only point
 * backwards (so no loop), the ID and the question must be ours, CNAME
 * chains are followed within the answer section, and each address comes
 * with its TTL (the smallest TTL along its chain). Pure: no sockets. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SW_DNS_NAMELEN     254     /* 253 characters + NUL (RFC 1035 2.3.4) */
#define SW_DNS_QUERYMAX    (12 + SW_DNS_NAMELEN + 2 + 4)
#define SW_DNS_MSGMAX      4096    /* the largest answer we read (UDP) */
#define SW_DNS_MAXADDRS    32      /* addresses kept from one answer */
#define SW_DNS_MAXCHAIN    8       /* CNAME hops followed */
#define SW_DNS_MAXRR       64      /* answer records looked at */

enum sw_dns_qtype { SW_DNS_A = 1, SW_DNS_CNAME = 5, SW_DNS_AAAA = 28 };

enum sw_dns_rcode {
	SW_DNS_NOERROR = 0, SW_DNS_FORMERR = 1, SW_DNS_SERVFAIL = 2,
	SW_DNS_NXDOMAIN = 3, SW_DNS_NOTIMP = 4, SW_DNS_REFUSED = 5,
};

struct sw_dns_addr {
	uint8_t addr[16];               /* 4 bytes for A, 16 for AAAA */
	uint32_t ttl;                   /* seconds, the minimum along its CNAME chain */
};

struct sw_dns_answer {
	int rcode;                      /* enum sw_dns_rcode (NOERROR or NXDOMAIN on success) */
	uint16_t qtype;
	struct sw_dns_addr a[SW_DNS_MAXADDRS];
	size_t n;                       /* 0: no such address (NODATA or NXDOMAIN) */
	unsigned chain;                 /* CNAME hops followed */
};

/* Is name a hostname we resolve: RFC 1123 labels (1..63 of a-z A-Z 0-9 -,
 * no '-' at either end), at least two labels, 1..253 characters, no
 * trailing dot, and not all-numeric in its last label (that would be an
 * address)? why (may be NULL) says what is wrong. */
bool sw_dns_name_valid(const char *name, const char **why);

/* Write the query for (name, qtype) with this id into buf. Returns its
 * length or -EINVAL (bad name or type) / -ENOSPC (buf too small). */
int sw_dns_query(uint8_t *buf, size_t len, uint16_t id, const char *name, uint16_t qtype);

/* Parse a reply to the query (id, name, qtype). Returns 0 with ans filled
 * (NOERROR with or without addresses, or NXDOMAIN), -EBADMSG for anything
 * malformed or not an answer to our question, -EMSGSIZE for a truncated
 * reply (TC), -EIO for a server error (SERVFAIL, REFUSED, ...). */
int sw_dns_parse(const uint8_t *msg, size_t len, uint16_t id, const char *name,
		 uint16_t qtype, struct sw_dns_answer *ans);

/* A reply read on its own (the network log's names): the id and the
 * question come from the message itself, not from a query of ours. */
struct sw_dns_reply {
	uint16_t id;
	char qname[SW_DNS_NAMELEN];     /* the question's name, lower case, never "" */
	struct sw_dns_answer ans;       /* ans.qtype: A or AAAA */
};

/* Parse a reply to whatever question it carries (exactly one, class IN,
 * type A or AAAA, a non-empty name), with sw_dns_parse's checks: every
 * length bounded by len, pointers only backwards, CNAME chains within the
 * answer section. Returns 0 (NOERROR or NXDOMAIN) or sw_dns_parse's
 * errors; -EBADMSG also for a question of another type. */
int sw_dns_parse_reply(const uint8_t *msg, size_t len, struct sw_dns_reply *r);

/* Decode the (possibly compressed) name at *off into out (lower case,
 * dotted, no trailing dot; "" for the root); *off moves past it.
 * Returns 0 or -EBADMSG. Exposed for the tests. */
int sw_dns_name_read(const uint8_t *msg, size_t len, size_t *off, char out[SW_DNS_NAMELEN]);

#endif
