/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ADDR_H
#define SANDWALL_ADDR_H
/* addr: IPv4/IPv6 addresses, prefixes and the interval arithmetic the set
 * encoder needs. Pure functions, no kernel. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SW_ADDR_STRLEN 64

struct sw_prefix {
	int family;        /* AF_INET or AF_INET6 */
	uint8_t addr[16];  /* network byte order; v4 uses the first 4 bytes */
	uint8_t len;       /* prefix length */
};

/* Parse "1.2.3.4", "1.2.3.0/24", "fd00::1", "fd00::/8".
 * A bare address gets the full length. Host bits must be zero when a
 * length is given ("10.0.0.1/8" is refused: -EINVAL with *why set).
 * Returns 0 or -EINVAL; *why (may be NULL) names the problem. */
int sw_prefix_parse(const char *s, struct sw_prefix *p, const char **why);
/* The n bytes at s as a dotted-quad IPv4 address, exactly what
 * inet_pton(AF_INET) accepts (fuzz_addr compares the two): 0 or -EINVAL. */
int sw_ipv4_parse(const char *s, size_t n, uint8_t out[4]);
/* Like sw_prefix_parse but host bits are allowed and then cleared. */
int sw_prefix_parse_loose(const char *s, struct sw_prefix *p, const char **why);
/* Format as "1.2.3.0/24"; the "/len" is omitted for a full-length prefix. */
int sw_prefix_format(const struct sw_prefix *p, char *buf, size_t len);
size_t sw_family_addrlen(int family);           /* 4 or 16, 0 if unknown */
void sw_prefix_mask(struct sw_prefix *p);       /* clear host bits */
/* Make a prefix from a host address and a length; host bits cleared. */
void sw_prefix_from_addr(struct sw_prefix *p, int family, const void *addr, uint8_t len);
bool sw_prefix_contains(const struct sw_prefix *outer, const struct sw_prefix *inner);
bool sw_prefix_equal(const struct sw_prefix *a, const struct sw_prefix *b);
/* Order by family, address, length (<0, 0, >0): the order the config
 * parser sorts [block] destinations in, and the hole search relies on. */
int sw_prefix_order(const struct sw_prefix *a, const struct sw_prefix *b);
/* 127.0.0.0/8 or ::1 */
bool sw_prefix_is_loopback(const struct sw_prefix *p);
/* fe80::/10 */
bool sw_prefix_is_v6_linklocal(const struct sw_prefix *p);
/* First and last address covered by p (len bytes written each). */
void sw_prefix_range(const struct sw_prefix *p, uint8_t *first, uint8_t *last);
/* Big-endian arithmetic on n-byte keys. Return true on carry/borrow out. */
bool sw_key_inc(uint8_t *k, size_t n);
int sw_key_cmp(const uint8_t *a, const uint8_t *b, size_t n);

/* "ADDRESS:PORT", "ADDRESS:tcp/PORT", "[V6]:PORT", "[V6]:tcp/PORT" (a TCP
 * destination: verify's canaries): 0, -EINVAL (no such form) or -EDOM
 * (not an address or not a port). */
int sw_hostport_parse(const char *text, struct sw_prefix *a, uint16_t *port);

#endif
