// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dnsnames: the network log's names table (bounds, expiry, eviction,
 * one client's names never another's) and the raw-packet parser (IPv4 and
 * IPv6 headers, UDP or TCP from 53; every length that lies, fragments and
 * truncations refused; over TCP only whole messages behind their length
 * prefix, segments without data ignored). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "host/dnsnames.h"

static const uint8_t C1[4] = { 10, 88, 0, 2 }, C2[4] = { 10, 88, 0, 3 };
static const uint8_t A1[4] = { 203, 0, 113, 10 }, A2[4] = { 203, 0, 113, 11 };

static struct sw_dnsnames *fresh(void)
{
	struct sw_dnsnames *t = malloc(sizeof(*t));

	assert_non_null(t);
	sw_dnsnames_init(t, 0x1234);
	return t;
}

static void test_put_get(void **state)
{
	struct sw_dnsnames *t = fresh();
	char out[SW_DNS_NAMELEN];
	char longname[SW_DNS_NAMELEN + 1];

	(void)state;
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A1, 0, out), -ENOENT);
	assert_int_equal(sw_dnsnames_put(t, AF_INET, C1, A1, "pypi.test", 60, 1000), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A1, 1000, out), 0);
	assert_string_equal(out, "pypi.test");
	/* another client, another address, another family: not theirs */
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C2, A1, 1000, out), -ENOENT);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A2, 1000, out), -ENOENT);
	{
		/* the same bytes as IPv6 keys (an IPv6 key is 16 bytes long) */
		uint8_t c6[16] = { 0 }, a6[16] = { 0 };

		memcpy(c6, C1, 4);
		memcpy(a6, A1, 4);
		assert_int_equal(sw_dnsnames_get(t, AF_INET6, c6, a6, 1000, out), -ENOENT);
	}
	assert_int_equal(sw_dnsnames_get(t, 99, C1, A1, 1000, out), -ENOENT);
	/* a rewrite replaces the name, in place */
	assert_int_equal(sw_dnsnames_put(t, AF_INET, C1, A1, "other.test", 60, 1001), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A1, 1001, out), 0);
	assert_string_equal(out, "other.test");
	assert_int_equal(t->evicted, 0);
	/* refused: a bad family, no name, a name without room for its NUL */
	assert_int_equal(sw_dnsnames_put(t, 0, C1, A1, "x.test", 60, 0), -EINVAL);
	assert_int_equal(sw_dnsnames_put(t, AF_INET, C1, A1, "", 60, 0), -EINVAL);
	memset(longname, 'a', SW_DNS_NAMELEN);
	longname[SW_DNS_NAMELEN] = '\0';
	assert_int_equal(sw_dnsnames_put(t, AF_INET, C1, A1, longname, 60, 0), -EINVAL);
	free(t);
}

static void test_expiry(void **state)
{
	struct sw_dnsnames *t = fresh();
	char out[SW_DNS_NAMELEN];

	(void)state;
	/* TTL 0 lives the minimum, 300 s */
	assert_int_equal(sw_dnsnames_put(t, AF_INET, C1, A1, "a.test", 0, 1000), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A1, 1299, out), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A1, 1300, out), -ENOENT);
	/* a TTL beyond the maximum lives the maximum */
	assert_int_equal(sw_dnsnames_put(t, AF_INET, C1, A2, "b.test", 0xffffffffu, 1000), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A2, 1000 + SW_DNSNAMES_TTL_MAX - 1, out), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A2, 1000 + SW_DNSNAMES_TTL_MAX, out), -ENOENT);
	free(t);
}

/* A flood: the table stays its size, the newest names are there, and the
 * oldest live ones were evicted (counted). */
static void test_bounded(void **state)
{
	struct sw_dnsnames *t = fresh();
	size_t total = 4 * SW_DNSNAMES_SETS * SW_DNSNAMES_WAYS, found = 0;
	char out[SW_DNS_NAMELEN];
	uint8_t a[4] = { 198, 18, 0, 0 };

	(void)state;
	for (size_t i = 0; i < total; i++) {
		a[2] = (uint8_t)(i >> 8);
		a[3] = (uint8_t)i;
		a[1] = (uint8_t)(18 + (i >> 16));
		assert_int_equal(sw_dnsnames_put(t, AF_INET, C1, a, "flood.test", 3600, 1000), 0);
	}
	assert_int_equal(t->stored, total);
	assert_true(t->evicted >= total - SW_DNSNAMES_SETS * SW_DNSNAMES_WAYS);
	/* the last one written is always there */
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, a, 1000, out), 0);
	for (size_t i = 0; i < total; i++) {
		a[2] = (uint8_t)(i >> 8);
		a[3] = (uint8_t)i;
		a[1] = (uint8_t)(18 + (i >> 16));
		found += sw_dnsnames_get(t, AF_INET, C1, a, 1000, out) == 0;
	}
	assert_true(found <= SW_DNSNAMES_SETS * SW_DNSNAMES_WAYS);
	assert_true(found > 0);
	/* the least recently written way goes first: fill one set's ways by
	 * hand is not possible without the hash, so check an expired entry is
	 * reused before a live one is evicted */
	sw_dnsnames_init(t, 0x1234);
	for (size_t i = 0; i < SW_DNSNAMES_SETS * SW_DNSNAMES_WAYS; i++) {
		a[2] = (uint8_t)(i >> 8);
		a[3] = (uint8_t)i;
		sw_dnsnames_put(t, AF_INET, C1, a, "old.test", 0, 1000);
	}
	assert_int_equal(sw_dnsnames_put(t, AF_INET, C2, A1, "new.test", 0, 5000), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C2, A1, 5000, out), 0);
	free(t);
}

/* ---- packets -------------------------------------------------------------- */

/* A reply for name with one A record (addr), ttl 120; returns its length. */
static size_t reply(uint8_t *b, const char *name, uint16_t qtype, const uint8_t *addr)
{
	size_t n = 0;

	memcpy(b, "\x12\x34\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00", 12);
	n = 12;
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t l = dot ? (size_t)(dot - name) : strlen(name);

		b[n++] = (uint8_t)l;
		memcpy(b + n, name, l);
		n += l;
		name += l + (dot ? 1 : 0);
	}
	b[n++] = 0;
	b[n++] = 0; b[n++] = (uint8_t)qtype; b[n++] = 0; b[n++] = 1;
	b[n++] = 0xc0; b[n++] = 12;
	b[n++] = 0; b[n++] = (uint8_t)qtype; b[n++] = 0; b[n++] = 1;
	b[n++] = 0; b[n++] = 0; b[n++] = 0; b[n++] = 120;
	b[n++] = 0; b[n++] = qtype == 1 ? 4 : 16;
	memcpy(b + n, addr, qtype == 1 ? 4 : 16);
	return n + (qtype == 1 ? 4 : 16);
}

static void put16(uint8_t *p, size_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

static size_t pkt4(uint8_t *b, const uint8_t *client, const char *name, const uint8_t *addr)
{
	size_t m = reply(b + 28, name, 1, addr);

	memset(b, 0, 28);
	b[0] = 0x45;
	put16(b + 2, 28 + m);
	b[6] = 0x40;            /* DF */
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	memcpy(b + 12, "\xc0\x00\x02\x35", 4);  /* 192.0.2.53 */
	memcpy(b + 16, client, 4);
	put16(b + 20, 53);
	put16(b + 22, 40000);
	put16(b + 24, 8 + m);
	return 28 + m;
}

static void test_packet4(void **state)
{
	struct sw_dnsnames *t = fresh();
	struct sw_dns_packet p;
	char out[SW_DNS_NAMELEN];
	uint8_t b[512], m[512];
	size_t n = pkt4(b, C1, "Files.pypi.test", A1);

	(void)state;
	assert_int_equal(sw_dns_packet_parse(b, n, &p), 0);
	assert_int_equal(p.family, AF_INET);
	assert_memory_equal(p.client, C1, 4);
	assert_int_equal(p.len, n - 28);
	assert_ptr_equal(p.msg, b + 28);
	assert_int_equal(sw_dnsnames_learn(t, b, n, 1000), 1);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A1, 1000, out), 0);
	assert_string_equal(out, "files.pypi.test");
	/* the answer was for C1: C2 has no name for that address */
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C2, A1, 1000, out), -ENOENT);
	/* every truncation refused */
	for (size_t k = 0; k < n; k++)
		assert_true(sw_dns_packet_parse(b, k, &p) < 0 || sw_dnsnames_learn(t, b, k, 0) < 0);
	/* lengths that lie: IHL under 5 or past the packet, total length past
	 * the bytes or under the header, UDP length under 8 or past the IP payload */
	memcpy(m, b, n); m[0] = 0x44;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); m[0] = 0x4f;
	assert_int_equal(sw_dns_packet_parse(m, 40, &p), -EBADMSG);
	memcpy(m, b, n); put16(m + 2, n + 1);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); put16(m + 2, 19);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); put16(m + 24, 7);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); put16(m + 24, n - 20 + 1);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	/* the total length shorter than the bytes: the rest is not the datagram's */
	memcpy(m, b, n); put16(m + 2, n - 4);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	/* fragments: MF, an offset */
	memcpy(m, b, n); m[6] = 0x20;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); m[6] = 0; m[7] = 1;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	/* neither UDP nor TCP, not from 53, not IP */
	memcpy(m, b, n); m[9] = IPPROTO_ICMP;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EPROTONOSUPPORT);
	memcpy(m, b, n); put16(m + 20, 5353);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EPROTONOSUPPORT);
	memcpy(m, b, n); m[0] = 0x55;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	assert_int_equal(sw_dns_packet_parse(m, 0, &p), -EBADMSG);
	/* a hostile reply inside a good packet: refused, nothing recorded */
	memcpy(m, b, n); m[28 + 5] = 3;         /* QDCOUNT 3 */
	assert_int_equal(sw_dnsnames_learn(t, m, n, 1000), -EBADMSG);
	free(t);
}

static void test_packet6(void **state)
{
	static const uint8_t c6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 };
	struct sw_dnsnames *t = fresh();
	struct sw_dns_packet p;
	char out[SW_DNS_NAMELEN];
	uint8_t b[512], m[512];
	size_t r = reply(b + 48, "v6.test", SW_DNS_AAAA, a6), n = 48 + r;

	(void)state;
	memset(b, 0, 48);
	b[0] = 0x60;
	put16(b + 4, 8 + r);
	b[6] = IPPROTO_UDP;
	b[7] = 64;
	b[8] = 0xfd; b[23] = 0x53;
	memcpy(b + 24, c6, 16);
	put16(b + 40, 53);
	put16(b + 42, 40000);
	put16(b + 44, 8 + r);
	assert_int_equal(sw_dns_packet_parse(b, n, &p), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_int_equal(sw_dnsnames_learn(t, b, n, 1000), 1);
	assert_int_equal(sw_dnsnames_get(t, AF_INET6, c6, a6, 1000, out), 0);
	assert_string_equal(out, "v6.test");
	/* payload length past the bytes; a fragment header; another extension header */
	memcpy(m, b, n); put16(m + 4, 8 + r + 1);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); m[6] = IPPROTO_FRAGMENT;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); m[6] = IPPROTO_HOPOPTS;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EPROTONOSUPPORT);
	assert_int_equal(sw_dns_packet_parse(b, 39, &p), -EBADMSG);
	for (size_t k = 0; k < n; k++)
		assert_true(sw_dnsnames_learn(t, b, k, 0) < 0);
	/* an A answer over IPv6: no IPv6 flow goes to it, nothing recorded */
	r = reply(b + 48, "v4.test", SW_DNS_A, A1);
	put16(b + 4, 8 + r);
	put16(b + 44, 8 + r);
	assert_int_equal(sw_dnsnames_learn(t, b, 48 + r, 1000), 0);
	free(t);
}

/* An IPv4 TCP segment from 192.0.2.53:53 to client, its TCP header doff
 * 32-bit words (the options zero), its data: nmsg replies (name, addr[i])
 * each behind its 2-byte length. Returns the packet's length. */
static size_t seg4(uint8_t *b, const uint8_t *client, unsigned doff, size_t nmsg,
		   const char *const *name, const uint8_t (*addr)[4])
{
	size_t n = 20 + doff * 4;

	memset(b, 0, n);
	b[0] = 0x45;
	b[6] = 0x40;
	b[8] = 64;
	b[9] = IPPROTO_TCP;
	memcpy(b + 12, "\xc0\x00\x02\x35", 4);
	memcpy(b + 16, client, 4);
	put16(b + 20, 53);
	put16(b + 22, 40000);
	b[32] = (uint8_t)(doff << 4);
	b[33] = 0x18;           /* PSH ACK */
	for (size_t i = 0; i < nmsg; i++) {
		size_t m = reply(b + n + 2, name[i], SW_DNS_A, addr[i]);

		put16(b + n, m);
		n += 2 + m;
	}
	put16(b + 2, n);
	return n;
}

/* DNS over TCP: a whole message in one segment is read behind its length
 * prefix (with TCP options too); a message the segment does not hold
 * whole, a data offset that lies, and truncations are refused; a segment
 * without data (SYN, ACK, FIN) is nothing to learn and no refusal. */
static void test_packet4_tcp(void **state)
{
	static const char *const names[] = { "tcp.pypi.test", "two.pypi.test" };
	static const uint8_t addrs[][4] = { { 203, 0, 113, 10 }, { 203, 0, 113, 11 } };
	struct sw_dnsnames *t = fresh();
	struct sw_dns_packet p;
	char out[SW_DNS_NAMELEN];
	uint8_t b[1024], m[1024];
	size_t n = seg4(b, C1, 5, 1, names, addrs), k;

	(void)state;
	assert_int_equal(sw_dns_packet_parse(b, n, &p), 0);
	assert_int_equal(p.family, AF_INET);
	assert_memory_equal(p.client, C1, 4);
	assert_ptr_equal(p.msg, b + 42);
	assert_int_equal(p.len, n - 42);
	assert_int_equal(p.rest, 0);
	assert_int_equal(sw_dns_packet_next(&p), -ENODATA);
	assert_int_equal(sw_dnsnames_learn(t, b, n, 1000), 1);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, A1, 1000, out), 0);
	assert_string_equal(out, "tcp.pypi.test");
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C2, A1, 1000, out), -ENOENT);
	/* a TCP header with options (timestamps: 32 bytes) */
	n = seg4(b, C2, 8, 1, names, addrs);
	assert_int_equal(sw_dns_packet_parse(b, n, &p), 0);
	assert_ptr_equal(p.msg, b + 54);
	assert_int_equal(sw_dnsnames_learn(t, b, n, 1000), 1);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C2, A1, 1000, out), 0);
	/* every truncation of the bytes given refused */
	n = seg4(b, C1, 5, 1, names, addrs);
	for (k = 0; k < n; k++)
		assert_true(sw_dnsnames_learn(t, b, k, 0) < 0);
	/* the segment cut anywhere, its IP length saying so, in exactly that
	 * many bytes (ASan sees a read past them): refused, or no data */
	for (k = 20; k < n; k++) {
		uint8_t *c = malloc(k);

		assert_non_null(c);
		memcpy(c, b, k);
		put16(c + 2, k);
		assert_int_equal(sw_dns_packet_parse(c, k, &p), k == 40 ? -ENODATA : -EBADMSG);
		assert_true(sw_dnsnames_learn(t, c, k, 0) <= 0);
		free(c);
	}
	/* the message split over segments: the prefix announces more than the
	 * segment holds (the IP length says where it ends), by one byte or by
	 * all but the prefix; the prefix itself split (one byte of data) */
	memcpy(m, b, n); put16(m + 40, n - 42 + 1);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	assert_int_equal(sw_dnsnames_learn(t, m, n, 1000), -EBADMSG);
	memcpy(m, b, n); put16(m + 2, 42);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); put16(m + 2, 41);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	assert_int_equal(sw_dnsnames_learn(t, m, n, 1000), -EBADMSG);
	/* data offsets that lie: under 5 words, past the IP payload, the TCP
	 * header itself past it */
	memcpy(m, b, n); m[32] = 4 << 4;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); m[32] = 0;
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); m[32] = 15 << 4; put16(m + 2, 20 + 56);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	assert_int_equal(sw_dnsnames_learn(t, m, n, 1000), -EBADMSG);
	memcpy(m, b, n); put16(m + 2, 20 + 19);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	/* not from 53 */
	memcpy(m, b, n); put16(m + 20, 5353);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EPROTONOSUPPORT);
	/* no data (SYN+ACK, a bare ACK, FIN; with options too): ignored, not
	 * refused, nothing recorded */
	sw_dnsnames_init(t, 0x1234);
	k = seg4(m, C1, 5, 0, NULL, NULL);
	assert_int_equal(k, 40);
	assert_int_equal(sw_dns_packet_parse(m, k, &p), -ENODATA);
	assert_int_equal(sw_dnsnames_learn(t, m, k, 1000), 0);
	k = seg4(m, C1, 8, 0, NULL, NULL);
	assert_int_equal(sw_dnsnames_learn(t, m, k, 1000), 0);
	assert_int_equal(t->stored, 0);
	/* a hostile reply inside a good segment: refused */
	memcpy(m, b, n); m[42 + 5] = 3;         /* QDCOUNT 3 */
	assert_int_equal(sw_dnsnames_learn(t, m, n, 1000), -EBADMSG);
	assert_int_equal(t->stored, 0);
	/* two whole messages in one segment (pipelined answers): both read */
	n = seg4(b, C1, 5, 2, names, addrs);
	assert_int_equal(sw_dns_packet_parse(b, n, &p), 0);
	assert_true(p.rest > 0);
	assert_int_equal(sw_dnsnames_learn(t, b, n, 1000), 2);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, addrs[0], 1000, out), 0);
	assert_string_equal(out, "tcp.pypi.test");
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, addrs[1], 1000, out), 0);
	assert_string_equal(out, "two.pypi.test");
	/* the second cut short by the segment's end: the packet refused (the
	 * whole first message's names stay), never a guess at the rest */
	sw_dnsnames_init(t, 0x1234);
	memcpy(m, b, n); put16(m + 2, n - 1);
	assert_int_equal(sw_dnsnames_learn(t, m, n, 1000), -EBADMSG);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, addrs[0], 1000, out), 0);
	assert_int_equal(sw_dnsnames_get(t, AF_INET, C1, addrs[1], 1000, out), -ENOENT);
	free(t);
}

static void test_packet6_tcp(void **state)
{
	static const uint8_t c6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 };
	struct sw_dnsnames *t = fresh();
	struct sw_dns_packet p;
	char out[SW_DNS_NAMELEN];
	uint8_t b[512], m[512];
	size_t r = reply(b + 62, "v6tcp.test", SW_DNS_AAAA, a6), n = 62 + r;

	(void)state;
	memset(b, 0, 62);
	b[0] = 0x60;
	put16(b + 4, 20 + 2 + r);
	b[6] = IPPROTO_TCP;
	b[7] = 64;
	b[8] = 0xfd; b[23] = 0x53;
	memcpy(b + 24, c6, 16);
	put16(b + 40, 53);
	put16(b + 42, 40000);
	b[52] = 5 << 4;
	b[53] = 0x18;
	put16(b + 60, r);
	assert_int_equal(sw_dns_packet_parse(b, n, &p), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_ptr_equal(p.msg, b + 62);
	assert_int_equal(sw_dnsnames_learn(t, b, n, 1000), 1);
	assert_int_equal(sw_dnsnames_get(t, AF_INET6, c6, a6, 1000, out), 0);
	assert_string_equal(out, "v6tcp.test");
	for (size_t k = 0; k < n; k++)
		assert_true(sw_dnsnames_learn(t, b, k, 0) < 0);
	/* the prefix past the segment; the data offset past it; no data */
	memcpy(m, b, n); put16(m + 60, r + 1);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); m[52] = 15 << 4; put16(m + 4, 40);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -EBADMSG);
	memcpy(m, b, n); put16(m + 4, 20);
	assert_int_equal(sw_dns_packet_parse(m, n, &p), -ENODATA);
	assert_int_equal(sw_dnsnames_learn(t, m, n, 1000), 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_packet4),
		cmocka_unit_test(test_packet6),
		cmocka_unit_test(test_packet4_tcp),
		cmocka_unit_test(test_packet6_tcp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
