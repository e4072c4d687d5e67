// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dns: the stub's query builder and its strict answer parser, on
 * messages built here byte by byte (and one captured from the tests'
 * dns.py): compression, CNAME chains, TTLs, and every way a reply may be
 * malformed or not ours. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "lib/dns.h"

/* ---- a tiny message writer ---------------------------------------------- */

struct msg {
	uint8_t b[1024];
	size_t n;
};

static void put8(struct msg *m, uint8_t v) { m->b[m->n++] = v; }
static void put16(struct msg *m, uint16_t v) { put8(m, (uint8_t)(v >> 8)); put8(m, (uint8_t)v); }
static void put32(struct msg *m, uint32_t v) { put16(m, (uint16_t)(v >> 16)); put16(m, (uint16_t)v); }

static void put_name(struct msg *m, const char *name)
{
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t l = dot ? (size_t)(dot - name) : strlen(name);

		put8(m, (uint8_t)l);
		memcpy(m->b + m->n, name, l);
		m->n += l;
		name += l + (dot ? 1 : 0);
	}
	put8(m, 0);
}

static void put_ptr(struct msg *m, uint16_t off) { put16(m, (uint16_t)(0xc000 | off)); }

/* header + question (name at offset 12) */
static void put_head(struct msg *m, uint16_t id, uint16_t flags, uint16_t an, const char *q,
		     uint16_t qtype)
{
	m->n = 0;
	put16(m, id);
	put16(m, flags);
	put16(m, 1);
	put16(m, an);
	put16(m, 0);
	put16(m, 0);
	put_name(m, q);
	put16(m, qtype);
	put16(m, 1);
}

/* an A record owned by the question's name (pointer to offset 12) */
static void put_a(struct msg *m, uint32_t ttl, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	put_ptr(m, 12);
	put16(m, SW_DNS_A);
	put16(m, 1);
	put32(m, ttl);
	put16(m, 4);
	put8(m, a); put8(m, b); put8(m, c); put8(m, d);
}

#define OK_FLAGS 0x8180

/* ---- names -------------------------------------------------------------- */

static void test_name_valid(void **state)
{
	static const char *const good[] = { "pypi.org", "files.pythonhosted.org", "a-b.c0.example",
					    "x.io", "EXAMPLE.COM", "1password.com" };
	static const char *const bad[] = { "", "localhost", "pypi.org.", ".pypi.org", "a..b",
					   "-a.org", "a-.org", "a_b.org", "a b.org", "1.2.3.4",
					   "pypi.123", "ä.org" };
	char long_label[80], long_name[300];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_true(sw_dns_name_valid(good[i], NULL));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *why = NULL;

		assert_false(sw_dns_name_valid(bad[i], &why));
		assert_non_null(why);
	}
	memset(long_label, 'a', 64);
	strcpy(long_label + 64, ".org");
	assert_false(sw_dns_name_valid(long_label, NULL));        /* 64-character label */
	long_label[63] = '.';
	strcpy(long_label + 64, "org");
	assert_true(sw_dns_name_valid(long_label + 1, NULL));     /* 62 + ".org" */
	for (size_t i = 0; i < 254; i += 2)
		long_name[i] = 'a', long_name[i + 1] = '.';
	long_name[253] = '\0';                                    /* "a.a.....a": 253 characters */
	assert_true(sw_dns_name_valid(long_name, NULL));
	long_name[253] = 'b';
	long_name[254] = '\0';
	assert_false(sw_dns_name_valid(long_name, NULL));         /* 254 */
}

static void test_query(void **state)
{
	static const uint8_t want[] = {
		0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
		4, 'p', 'y', 'p', 'i', 3, 'o', 'r', 'g', 0, 0, 28, 0, 1,
	};
	uint8_t q[SW_DNS_QUERYMAX];

	(void)state;
	assert_int_equal(sw_dns_query(q, sizeof(q), 0x1234, "PyPI.org", SW_DNS_AAAA), sizeof(want));
	assert_memory_equal(q, want, sizeof(want));
	assert_int_equal(sw_dns_query(q, 20, 1, "pypi.org", SW_DNS_A), -ENOSPC);
	assert_int_equal(sw_dns_query(q, sizeof(q), 1, "pypi.org", SW_DNS_CNAME), -EINVAL);
	assert_int_equal(sw_dns_query(q, sizeof(q), 1, "bad_name.org", SW_DNS_A), -EINVAL);
}

/* ---- answers ------------------------------------------------------------ */

static void test_parse_a(void **state)
{
	struct sw_dns_answer a;
	struct msg m;

	(void)state;
	put_head(&m, 7, OK_FLAGS, 2, "pypi.org", SW_DNS_A);
	put_a(&m, 300, 151, 101, 0, 223);
	put_a(&m, 60, 151, 101, 64, 223);
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), 0);
	assert_int_equal(a.rcode, SW_DNS_NOERROR);
	assert_int_equal(a.n, 2);
	assert_memory_equal(a.a[0].addr, ((uint8_t[]){ 151, 101, 0, 223 }), 4);
	assert_int_equal(a.a[0].ttl, 300);
	assert_int_equal(a.a[1].ttl, 60);
	/* the question's name is compared without regard to case */
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "PYPI.org", SW_DNS_A, &a), 0);
	/* a duplicate address is kept once */
	put_head(&m, 7, OK_FLAGS, 2, "pypi.org", SW_DNS_A);
	put_a(&m, 300, 1, 2, 3, 4);
	put_a(&m, 300, 1, 2, 3, 4);
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), 0);
	assert_int_equal(a.n, 1);
}

static void test_parse_aaaa_nodata_nxdomain(void **state)
{
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x10 };
	struct sw_dns_answer a;
	struct msg m;

	(void)state;
	put_head(&m, 9, OK_FLAGS, 1, "pypi.org", SW_DNS_AAAA);
	put_ptr(&m, 12);
	put16(&m, SW_DNS_AAAA);
	put16(&m, 1);
	put32(&m, 0x80000001u);         /* top bit set: read as 0 (RFC 2181) */
	put16(&m, 16);
	memcpy(m.b + m.n, v6, 16);
	m.n += 16;
	assert_int_equal(sw_dns_parse(m.b, m.n, 9, "pypi.org", SW_DNS_AAAA, &a), 0);
	assert_int_equal(a.n, 1);
	assert_memory_equal(a.a[0].addr, v6, 16);
	assert_int_equal(a.a[0].ttl, 0);
	/* an A record in an AAAA answer is not an address of ours */
	put_head(&m, 9, OK_FLAGS, 1, "pypi.org", SW_DNS_AAAA);
	put_a(&m, 5, 1, 2, 3, 4);
	assert_int_equal(sw_dns_parse(m.b, m.n, 9, "pypi.org", SW_DNS_AAAA, &a), 0);
	assert_int_equal(a.n, 0);
	/* NODATA, NXDOMAIN */
	put_head(&m, 9, OK_FLAGS, 0, "pypi.org", SW_DNS_AAAA);
	assert_int_equal(sw_dns_parse(m.b, m.n, 9, "pypi.org", SW_DNS_AAAA, &a), 0);
	assert_int_equal(a.n, 0);
	put_head(&m, 9, OK_FLAGS | SW_DNS_NXDOMAIN, 0, "pypi.org", SW_DNS_AAAA);
	assert_int_equal(sw_dns_parse(m.b, m.n, 9, "pypi.org", SW_DNS_AAAA, &a), 0);
	assert_int_equal(a.rcode, SW_DNS_NXDOMAIN);
	assert_int_equal(a.n, 0);
}

static void test_parse_cname(void **state)
{
	struct sw_dns_answer a;
	struct msg m;
	size_t cdn;

	(void)state;
	/* files.pythonhosted.org CNAME dualstack.x.fastly.net (ttl 100)
	 * dualstack.x.fastly.net A 151.101.1.63 (ttl 30) and a record for
	 * an unrelated owner that must be ignored */
	put_head(&m, 3, OK_FLAGS, 3, "files.pythonhosted.org", SW_DNS_A);
	put_ptr(&m, 12);
	put16(&m, SW_DNS_CNAME);
	put16(&m, 1);
	put32(&m, 100);
	put16(&m, 24);                  /* "dualstack" "x" "fastly" "net" 0 */
	cdn = m.n;
	put_name(&m, "dualstack.x.fastly.net");
	assert_int_equal(m.n - cdn, 24);
	put_ptr(&m, (uint16_t)cdn);
	put16(&m, SW_DNS_A);
	put16(&m, 1);
	put32(&m, 30);
	put16(&m, 4);
	put32(&m, 0x9765013f);
	put_name(&m, "evil.example");
	put16(&m, SW_DNS_A);
	put16(&m, 1);
	put32(&m, 30);
	put16(&m, 4);
	put32(&m, 0xa9fea9fe);
	assert_int_equal(sw_dns_parse(m.b, m.n, 3, "files.pythonhosted.org", SW_DNS_A, &a), 0);
	assert_int_equal(a.chain, 1);
	assert_int_equal(a.n, 1);
	assert_memory_equal(a.a[0].addr, ((uint8_t[]){ 151, 101, 1, 63 }), 4);
	assert_int_equal(a.a[0].ttl, 30);
	/* the chain's shortest TTL wins: CNAME 10 s, A 30 s */
	m.b[12 + 24 + 4 + 2 + 2 + 2 + 3] = 10;  /* the CNAME's TTL low byte */
	assert_int_equal(sw_dns_parse(m.b, m.n, 3, "files.pythonhosted.org", SW_DNS_A, &a), 0);
	assert_int_equal(a.a[0].ttl, 10);
}

static void test_parse_cname_loop(void **state)
{
	struct sw_dns_answer a;
	struct msg m;
	size_t b;

	(void)state;
	/* a.example CNAME b.example; b.example CNAME a.example */
	put_head(&m, 4, OK_FLAGS, 2, "a.example", SW_DNS_A);
	put_ptr(&m, 12);
	put16(&m, SW_DNS_CNAME);
	put16(&m, 1);
	put32(&m, 5);
	put16(&m, 11);
	b = m.n;
	put_name(&m, "b.example");
	put_ptr(&m, (uint16_t)b);
	put16(&m, SW_DNS_CNAME);
	put16(&m, 1);
	put32(&m, 5);
	put16(&m, 2);
	put_ptr(&m, 12);
	assert_int_equal(sw_dns_parse(m.b, m.n, 4, "a.example", SW_DNS_A, &a), -EBADMSG);
}

static void test_parse_not_ours(void **state)
{
	struct sw_dns_answer a;
	struct msg m;

	(void)state;
	put_head(&m, 7, OK_FLAGS, 1, "pypi.org", SW_DNS_A);
	put_a(&m, 300, 1, 2, 3, 4);
	assert_int_equal(sw_dns_parse(m.b, m.n, 8, "pypi.org", SW_DNS_A, &a), -EBADMSG);   /* id */
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.com", SW_DNS_A, &a), -EBADMSG);   /* name */
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_AAAA, &a), -EBADMSG); /* type */
	m.b[2] &= 0x7f;                                                                    /* QR = 0 */
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	put_head(&m, 7, OK_FLAGS | 0x0200, 0, "pypi.org", SW_DNS_A);                       /* TC */
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EMSGSIZE);
	put_head(&m, 7, OK_FLAGS | SW_DNS_SERVFAIL, 0, "pypi.org", SW_DNS_A);
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EIO);
	put_head(&m, 7, OK_FLAGS | SW_DNS_REFUSED, 0, "pypi.org", SW_DNS_A);
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EIO);
	/* two questions */
	put_head(&m, 7, OK_FLAGS, 0, "pypi.org", SW_DNS_A);
	m.b[5] = 2;
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
}

static void test_parse_malformed(void **state)
{
	struct sw_dns_answer a;
	struct msg m, good;

	(void)state;
	put_head(&good, 7, OK_FLAGS, 1, "pypi.org", SW_DNS_A);
	put_a(&good, 300, 1, 2, 3, 4);
	/* every truncation of a good answer is refused, none read past it */
	for (size_t n = 0; n < good.n; n++)
		assert_int_equal(sw_dns_parse(good.b, n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	/* a pointer to itself, a pointer forward, a pointer into the header */
	for (int k = 0; k < 3; k++) {
		m = good;
		m.n = 12 + 10 + 4;      /* after the question */
		put_ptr(&m, (uint16_t)(k == 0 ? m.n : k == 1 ? m.n + 4 : 2));
		put16(&m, SW_DNS_A);
		put16(&m, 1);
		put32(&m, 1);
		put16(&m, 4);
		put32(&m, 0x01020304);
		assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	}
	/* two pointers that point at each other: each must go backwards */
	m = good;
	m.n = 12 + 10 + 4;
	put_ptr(&m, (uint16_t)(m.n + 2));
	put_ptr(&m, (uint16_t)(m.n - 2));
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	/* rdlength beyond the end; an A record of 5 bytes */
	m = good;
	m.b[m.n - 5] = 200;
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	m = good;
	m.b[m.n - 5] = 5;
	put8(&m, 9);
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	/* an extended label type (0x40) */
	m = good;
	m.b[12] = 0x44;
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	/* more records announced than there are */
	m = good;
	m.b[7] = 2;
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
	/* a class other than IN */
	m = good;
	m.b[m.n - 4 - 2 - 4 - 1] = 3;
	assert_int_equal(sw_dns_parse(m.b, m.n, 7, "pypi.org", SW_DNS_A, &a), -EBADMSG);
}

static void test_name_read_bounds(void **state)
{
	char out[SW_DNS_NAMELEN];
	struct msg m = { .n = 12 };
	size_t off = 12;

	(void)state;
	memset(m.b, 0, 12);
	/* 5 labels of 63: 319 characters, more than a name may have */
	for (int i = 0; i < 5; i++) {
		put8(&m, 63);
		memset(m.b + m.n, 'a', 63);
		m.n += 63;
	}
	put8(&m, 0);
	assert_int_equal(sw_dns_name_read(m.b, m.n, &off, out), -EBADMSG);
	/* a label byte that is no hostname byte stands for itself as '?' */
	m.n = 12;
	put8(&m, 3);
	put8(&m, 'a'); put8(&m, '.'); put8(&m, 0);
	put8(&m, 3);
	put8(&m, 'o'); put8(&m, 'r'); put8(&m, 'g');
	put8(&m, 0);
	off = 12;
	assert_int_equal(sw_dns_name_read(m.b, m.n, &off, out), 0);
	assert_string_equal(out, "a??.org");
	assert_int_equal(off, m.n);
}

/* an answer from the integration tests' dns.py: files.pypi.test CNAME
 * cdn.test, cdn.test A 203.0.113.10 */
static void test_parse_dnspy(void **state)
{
	static const uint8_t r[] = {
		0x00, 0x07, 0x81, 0x80, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x05, 0x66,
		0x69, 0x6c, 0x65, 0x73, 0x04, 0x70, 0x79, 0x70, 0x69, 0x04, 0x74, 0x65, 0x73, 0x74,
		0x00, 0x00, 0x01, 0x00, 0x01, 0x05, 0x66, 0x69, 0x6c, 0x65, 0x73, 0x04, 0x70, 0x79,
		0x70, 0x69, 0x04, 0x74, 0x65, 0x73, 0x74, 0x00, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00,
		0x01, 0x2c, 0x00, 0x0a, 0x03, 0x63, 0x64, 0x6e, 0x04, 0x74, 0x65, 0x73, 0x74, 0x00,
		0x03, 0x63, 0x64, 0x6e, 0x04, 0x74, 0x65, 0x73, 0x74, 0x00, 0x00, 0x01, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x78, 0x00, 0x04, 0xcb, 0x00, 0x71, 0x0a,
	};
	struct sw_dns_answer a;

	(void)state;
	assert_int_equal(sw_dns_parse(r, sizeof(r), 7, "files.pypi.test", SW_DNS_A, &a), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.chain, 1);
	assert_int_equal(a.a[0].ttl, 120);
	assert_memory_equal(a.a[0].addr, ((uint8_t[]){ 203, 0, 113, 10 }), 4);
}

/* ---- a reply read on its own (the network log's names) ------------------ */

static void test_parse_reply(void **state)
{
	struct sw_dns_reply r;
	struct msg m, good;

	(void)state;
	put_head(&good, 0x4242, OK_FLAGS, 2, "Files.PyPI.test", SW_DNS_A);
	put_a(&good, 60, 203, 0, 113, 10);
	put_a(&good, 9000, 203, 0, 113, 11);
	assert_int_equal(sw_dns_parse_reply(good.b, good.n, &r), 0);
	assert_int_equal(r.id, 0x4242);
	assert_string_equal(r.qname, "files.pypi.test");
	assert_int_equal(r.ans.qtype, SW_DNS_A);
	assert_int_equal(r.ans.n, 2);
	assert_int_equal(r.ans.a[0].ttl, 60);
	assert_memory_equal(r.ans.a[1].addr, ((uint8_t[]){ 203, 0, 113, 11 }), 4);
	/* every truncation refused */
	for (size_t n = 0; n < good.n; n++)
		assert_int_equal(sw_dns_parse_reply(good.b, n, &r), -EBADMSG);
	/* a query (QR clear), two questions, no question */
	m = good;
	m.b[2] &= 0x7f;
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	m = good;
	m.b[5] = 2;
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	m = good;
	m.b[5] = 0;
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	/* TC: refused as truncated */
	m = good;
	m.b[2] |= 0x02;
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EMSGSIZE);
	/* a question of another type (MX), the root name */
	put_head(&m, 1, OK_FLAGS, 0, "pypi.org", 15);
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	put_head(&m, 1, OK_FLAGS, 0, "", SW_DNS_A);
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	/* the question's name a pointer to itself (a loop), forward, into the header */
	for (int k = 0; k < 3; k++) {
		m.n = 0;
		put16(&m, 1); put16(&m, OK_FLAGS); put16(&m, 1); put16(&m, 0);
		put16(&m, 0); put16(&m, 0);
		put_ptr(&m, (uint16_t)(k == 0 ? 12 : k == 1 ? 20 : 4));
		put16(&m, SW_DNS_A); put16(&m, 1);
		put32(&m, 0); put32(&m, 0);
		assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	}
	/* an rdlength past the end, a 5-byte A record */
	m = good;
	m.b[m.n - 5] = 250;
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	m = good;
	m.b[m.n - 5] = 5;
	put8(&m, 1);
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), -EBADMSG);
	/* longer than any UDP answer we read */
	assert_int_equal(sw_dns_parse_reply(good.b, SW_DNS_MSGMAX + 1, &r), -EBADMSG);
	/* NXDOMAIN: parsed, no address */
	put_head(&m, 3, OK_FLAGS | 3, 0, "gone.test", SW_DNS_AAAA);
	assert_int_equal(sw_dns_parse_reply(m.b, m.n, &r), 0);
	assert_int_equal(r.ans.n, 0);
	assert_int_equal(r.ans.qtype, SW_DNS_AAAA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_valid),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_parse_a),
		cmocka_unit_test(test_parse_aaaa_nodata_nxdomain),
		cmocka_unit_test(test_parse_cname),
		cmocka_unit_test(test_parse_cname_loop),
		cmocka_unit_test(test_parse_not_ours),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_name_read_bounds),
		cmocka_unit_test(test_parse_dnspy),
		cmocka_unit_test(test_parse_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
