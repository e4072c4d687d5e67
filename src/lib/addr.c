/* SPDX-License-Identifier: GPL-2.0-or-later */
/* addr: IPv4/IPv6 prefixes: strict parsing (inet_pton), formatting
 * (inet_ntop), masking, containment and big-endian key arithmetic for the
 * interval sets. Pure functions, no kernel, no allocation. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/addr.h"

size_t sw_family_addrlen(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

void sw_prefix_mask(struct sw_prefix *p)
{
	size_t n = sw_family_addrlen(p->family);

	if (p->len > n * 8)
		p->len = (uint8_t)(n * 8);
	for (size_t i = 0; i < sizeof(p->addr); i++) {
		unsigned keep = i * 8 >= p->len ? 0 : p->len - i * 8;

		if (i >= n || keep == 0)
			p->addr[i] = 0;
		else if (keep < 8)
			p->addr[i] &= (uint8_t)(0xff << (8 - keep));
	}
}

void sw_prefix_from_addr(struct sw_prefix *p, int family, const void *addr, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->family = family;
	if (addr)
		memcpy(p->addr, addr, sw_family_addrlen(family));
	p->len = len;
	sw_prefix_mask(p);
}

/* Decimal 0..max, digits only, no leading zero (except "0" itself). */
static int parse_len(const char *s, unsigned max, unsigned *out)
{
	unsigned v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > max)
			return -EINVAL;
	}
	*out = v;
	return 0;
}

int sw_ipv4_parse(const char *s, size_t n, uint8_t out[4])
{
	uint8_t a[4];
	size_t i = 0;

	/* what inet_pton(AF_INET) takes: four decimal parts 0..255, dots
	 * between, no leading zero, nothing else */
	for (int part = 0; part < 4; part++) {
		size_t start;
		unsigned v = 0;

		if (part && (i >= n || s[i++] != '.'))
			return -EINVAL;
		for (start = i; i < n && i - start < 4 && (unsigned)(s[i] - '0') < 10; i++)
			v = v * 10 + (unsigned)(s[i] - '0');
		/* 1 to 3 digits, no "01", at most 255 */
		if (i == start || i - start > 3 || v > 255 || (s[start] == '0' && i - start > 1))
			return -EINVAL;
		a[part] = (uint8_t)v;
	}
	if (i != n)
		return -EINVAL;
	memcpy(out, a, 4);      /* out untouched on failure, as inet_pton */
	return 0;
}

static int parse(const char *s, struct sw_prefix *p, const char **why, int strict)
{
	char buf[INET6_ADDRSTRLEN + 1];
	struct sw_prefix r = { 0 }, m;
	const char *slash, *dummy;
	size_t alen;
	unsigned len;

	if (!why)
		why = &dummy;
	if (!s || !*s) {
		*why = "empty";
		return -EINVAL;
	}
	slash = strchr(s, '/');
	alen = slash ? (size_t)(slash - s) : strlen(s);
	if (alen == 0 || alen >= sizeof(buf))
		goto bad_addr;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	r.family = memchr(buf, ':', alen) ? AF_INET6 : AF_INET;
	/* IPv4 by hand: a 10,000-entry allowlist is mostly this */
	if (r.family == AF_INET ? sw_ipv4_parse(buf, alen, r.addr) :
				  inet_pton(r.family, buf, r.addr) != 1)
		goto bad_addr;
	len = (unsigned)sw_family_addrlen(r.family) * 8;
	if (slash && parse_len(slash + 1, len, &len) < 0) {
		*why = "bad prefix length";
		return -EINVAL;
	}
	r.len = (uint8_t)len;
	m = r;
	if (len < sw_family_addrlen(r.family) * 8)
		sw_prefix_mask(&m);     /* a host address has no bits to clear */
	if (strict && memcmp(m.addr, r.addr, sizeof(r.addr))) {
		*why = "host bits set";
		return -EINVAL;
	}
	*p = m;
	return 0;
bad_addr:
	*why = "not an IPv4 or IPv6 address";
	return -EINVAL;
}

int sw_prefix_parse(const char *s, struct sw_prefix *p, const char **why)
{
	return parse(s, p, why, 1);
}

int sw_prefix_parse_loose(const char *s, struct sw_prefix *p, const char **why)
{
	return parse(s, p, why, 0);
}

int sw_prefix_format(const struct sw_prefix *p, char *buf, size_t len)
{
	size_t n = sw_family_addrlen(p->family), used;

	if (!n)
		return -EAFNOSUPPORT;
	if (len > (size_t)INT32_MAX)
		len = INT32_MAX;
	if (p->family == AF_INET) {
		/* dotted quad by hand: what inet_ntop prints, without its sprintf
		 * (the text of every element of a 10,000-entry allow list) */
		char q[16], *o = q;

		for (int i = 0; i < 4; i++) {
			unsigned v = p->addr[i];

			if (v >= 100)
				*o++ = (char)('0' + v / 100);
			if (v >= 10)
				*o++ = (char)('0' + v / 10 % 10);
			*o++ = (char)('0' + v % 10);
			*o++ = i < 3 ? '.' : '\0';
		}
		if ((size_t)(o - q) > len) {
			if (len)
				buf[0] = '\0';
			return -ENOSPC;
		}
		memcpy(buf, q, (size_t)(o - q));
	} else if (!inet_ntop(p->family, p->addr, buf, (socklen_t)len)) {
		return -ENOSPC;
	}
	if (p->len >= n * 8)
		return 0;
	used = strlen(buf);
	if ((size_t)snprintf(buf + used, len - used, "/%u", p->len) >= len - used) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	return 0;
}

bool sw_prefix_contains(const struct sw_prefix *outer, const struct sw_prefix *inner)
{
	size_t n = sw_family_addrlen(outer->family), whole;
	unsigned rest;

	if (outer->family != inner->family || !n || outer->len > inner->len)
		return false;
	/* the first len bits: whole bytes (a loop: most differ in the first
	 * byte, and a call to memcmp costs more), then the bits left of the
	 * next (a length past the address compares the address only) */
	whole = outer->len / 8 < n ? outer->len / 8 : n;
	rest = whole < n ? outer->len % 8 : 0;
	for (size_t i = 0; i < whole; i++)
		if (outer->addr[i] != inner->addr[i])
			return false;
	return !rest || !((outer->addr[whole] ^ inner->addr[whole]) & (uint8_t)(0xff << (8 - rest)));
}

bool sw_prefix_equal(const struct sw_prefix *a, const struct sw_prefix *b)
{
	return a->len == b->len && sw_prefix_contains(a, b);
}

void sw_prefix_range(const struct sw_prefix *p, uint8_t *first, uint8_t *last)
{
	size_t n = sw_family_addrlen(p->family);

	for (size_t i = 0; i < n; i++) {
		unsigned keep = i * 8 >= p->len ? 0 : p->len - i * 8;
		uint8_t mask = keep >= 8 ? 0xff : (uint8_t)(0xff << (8 - keep));

		first[i] = p->addr[i] & mask;
		last[i] = (uint8_t)(p->addr[i] | (uint8_t)~mask);
	}
}

bool sw_key_inc(uint8_t *k, size_t n)
{
	while (n--)
		if (++k[n] != 0)
			return false;
	return true;
}

int sw_key_cmp(const uint8_t *a, const uint8_t *b, size_t n)
{
	int r = memcmp(a, b, n);

	return (r > 0) - (r < 0);
}

int sw_prefix_order(const struct sw_prefix *x, const struct sw_prefix *y)
{
	int r;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	if ((r = memcmp(x->addr, y->addr, sizeof(x->addr))))
		return r;
	return x->len < y->len ? -1 : x->len > y->len;
}

bool sw_prefix_is_loopback(const struct sw_prefix *p)
{
	static const uint8_t v6lo[16] = { [15] = 1 };

	if (p->family == AF_INET)
		return p->addr[0] == 127;
	return p->family == AF_INET6 && !memcmp(p->addr, v6lo, 16);
}

bool sw_prefix_is_v6_linklocal(const struct sw_prefix *p)
{
	return p->family == AF_INET6 && p->addr[0] == 0xfe && (p->addr[1] & 0xc0) == 0x80;
}

/* "ADDRESS:PORT", "ADDRESS:tcp/PORT", "[V6]:PORT", "[V6]:tcp/PORT" (only
 * TCP can be proven open): 0, -EINVAL (no such form) or -EDOM (not an
 * address or not a port). */
int sw_hostport_parse(const char *text, struct sw_prefix *a, uint16_t *port)
{
	char hostpart[128], *colon, *portpart, *end;
	long p;

	if (strlen(text) >= sizeof(hostpart))
		return -EINVAL;
	snprintf(hostpart, sizeof(hostpart), "%s", text);
	if (hostpart[0] == '[') {
		char *rb = strchr(hostpart, ']');

		if (!rb || rb[1] != ':')
			return -EINVAL;
		*rb = '\0';
		colon = rb + 1;
		memmove(hostpart, hostpart + 1, strlen(hostpart));  /* the tail stays */
	} else {
		colon = strrchr(hostpart, ':');
		if (!colon)
			return -EINVAL;
	}
	*colon = '\0';
	portpart = colon + 1;
	if (!strncmp(portpart, "tcp/", 4))
		portpart += 4;
	if (*portpart < '0' || *portpart > '9')
		return -EDOM;
	errno = 0;
	p = strtol(portpart, &end, 10);
	if (errno || *end || p < 1 || p > 65535 || sw_prefix_parse(hostpart, a, NULL) ||
	    a->len != sw_family_addrlen(a->family) * 8)
		return -EDOM;
	*port = (uint16_t)p;
	return 0;
}
