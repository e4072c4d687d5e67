/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for addr.c: parsing, formatting, masking, containment and key
 * arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/addr.h"
#include "testutil.h"

/* Parse s and format it back; compare with want (NULL: want == s). */
static void roundtrip(const char *s, const char *want, int family, unsigned len)
{
	struct sw_prefix p;
	char buf[SW_ADDR_STRLEN];
	const char *why = "unset";

	assert_int_equal(sw_prefix_parse(s, &p, &why), 0);
	assert_int_equal(p.family, family);
	assert_int_equal(p.len, len);
	assert_int_equal(sw_prefix_format(&p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want ? want : s);
}

static void test_parse_good(void **state)
{
	roundtrip("1.2.3.4", NULL, AF_INET, 32);
	roundtrip("1.2.3.4/32", "1.2.3.4", AF_INET, 32);
	roundtrip("10.0.0.0/8", NULL, AF_INET, 8);
	roundtrip("0.0.0.0/0", NULL, AF_INET, 0);
	roundtrip("169.254.0.0/16", NULL, AF_INET, 16);
	roundtrip("fd00::1", NULL, AF_INET6, 128);
	roundtrip("fd00::/8", NULL, AF_INET6, 8);
	roundtrip("FE80::/10", "fe80::/10", AF_INET6, 10);
	roundtrip("::/0", NULL, AF_INET6, 0);
	roundtrip("fd00:ec2::254", NULL, AF_INET6, 128);
	roundtrip("::ffff:1.2.3.4", NULL, AF_INET6, 128);
	roundtrip("2001:db8::/127", NULL, AF_INET6, 127);

	struct sw_prefix p;
	assert_int_equal(sw_prefix_parse("192.168.1.0/24", &p, NULL), 0);
	const uint8_t want[16] = { 192, 168, 1, 0 };
	assert_memory_equal(p.addr, want, 16);  /* bytes past the v4 address are zero */
}

static void test_parse_bad(void **state)
{
	static const struct { const char *s, *why; } bad[] = {
		{ "", "empty" },
		{ "10.0.0.1/8", "host bits set" },
		{ "10.0.0.1/31", "host bits set" },
		{ "fd00::1/64", "host bits set" },
		{ "1.2.3.4/33", "bad prefix length" },
		{ "1.2.3.0/24x", "bad prefix length" },
		{ "1.2.3.0/", "bad prefix length" },
		{ "1.2.3.0/-1", "bad prefix length" },
		{ "1.2.3.0/+8", "bad prefix length" },
		{ "1.2.3.0/08", "bad prefix length" },
		{ "1.2.3.0/ 24", "bad prefix length" },
		{ "1.2.3.0/24/24", "bad prefix length" },
		{ "fd00::/129", "bad prefix length" },
		{ "fd00::/1000", "bad prefix length" },
		{ "/8", "not an IPv4 or IPv6 address" },
		{ " 1.2.3.4", "not an IPv4 or IPv6 address" },
		{ "1.2.3.4 ", "not an IPv4 or IPv6 address" },
		{ "1.2.3", "not an IPv4 or IPv6 address" },
		{ "1.2.3.256", "not an IPv4 or IPv6 address" },
		{ "01.2.3.4", "not an IPv4 or IPv6 address" },
		{ "0x1.2.3.4", "not an IPv4 or IPv6 address" },
		{ "1.2.3.4.5", "not an IPv4 or IPv6 address" },
		{ "fd00:::1", "not an IPv4 or IPv6 address" },
		{ "fe80::1%eth0", "not an IPv4 or IPv6 address" },
		{ "docker0", "not an IPv4 or IPv6 address" },
		{ "1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb:cccc", "not an IPv4 or IPv6 address" },
	};
	struct sw_prefix p = { .family = 99, .len = 7 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		print_message("refuse '%s'\n", bad[i].s);
		assert_int_equal(sw_prefix_parse(bad[i].s, &p, &why), -EINVAL);
		assert_non_null(why);
		assert_string_equal(why, bad[i].why);
		assert_int_equal(p.family, 99);         /* untouched on failure */
		assert_int_equal(p.len, 7);
	}
	assert_int_equal(sw_prefix_parse(NULL, &p, NULL), -EINVAL);
	assert_int_equal(sw_prefix_parse("10.0.0.1/8", &p, NULL), -EINVAL); /* why may be NULL */
}

static void test_parse_loose(void **state)
{
	struct sw_prefix p;
	char buf[SW_ADDR_STRLEN];

	assert_int_equal(sw_prefix_parse_loose("10.1.2.3/8", &p, NULL), 0);
	assert_int_equal(sw_prefix_format(&p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "10.0.0.0/8");
	assert_int_equal(sw_prefix_parse_loose("fd00::abcd/120", &p, NULL), 0);
	assert_int_equal(sw_prefix_format(&p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fd00::ab00/120");
	assert_int_equal(sw_prefix_parse_loose("10.1.2.3/33", &p, NULL), -EINVAL);
	assert_int_equal(sw_prefix_parse_loose("x", &p, NULL), -EINVAL);
}

static void test_format(void **state)
{
	struct sw_prefix p = { 0 };
	char small[8];

	sw_prefix_from_addr(&p, AF_INET, (const uint8_t[]){ 192, 168, 100, 200 }, 24);
	assert_int_equal(sw_prefix_format(&p, small, sizeof(small)), -ENOSPC);
	char ok[15];    /* "192.168.100.0/24" needs 17 */
	assert_int_equal(sw_prefix_format(&p, ok, sizeof(ok)), -ENOSPC);
	char exact[17];
	assert_int_equal(sw_prefix_format(&p, exact, sizeof(exact)), 0);
	assert_string_equal(exact, "192.168.100.0/24");
	p.family = 12345;
	assert_int_equal(sw_prefix_format(&p, exact, sizeof(exact)), -EAFNOSUPPORT);
}

/* The hand-made IPv4 parser takes exactly what inet_pton(AF_INET) takes:
 * each octet value in each position, and the near misses. */
static void test_ipv4_parse_as_inet_pton(void **state)
{
	static const char *const odd[] = {
		"", ".", "1.2.3", "1.2.3.4.", ".1.2.3.4", "1.2.3.4.5", "1..2.3", "01.2.3.4",
		"1.2.3.04", "1.2.3.00", "0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3.256",
		"1.2.3.1000", "1.2.3.4 ", " 1.2.3.4", "1.2.3.-4", "1.2.3.4a", "0x1.2.3.4",
		"1.2.3.4/8", "999.1.1.1", "1.2.3.0255", "4294967296.0.0.1",
	};
	char s[32];
	uint8_t got[4], want[4];

	(void)state;
	for (unsigned v = 0; v < 1000; v++) {
		for (int i = 0; i < 4; i++) {
			snprintf(s, sizeof(s), "%s%u%s", i == 0 ? "" : i == 1 ? "7." : i == 2 ? "7.7." : "7.7.7.",
				 v, i == 3 ? "" : i == 2 ? ".7" : i == 1 ? ".7.7" : ".7.7.7");
			memset(got, 0, 4);
			memset(want, 0, 4);
			assert_int_equal(sw_ipv4_parse(s, strlen(s), got) == 0,
					 inet_pton(AF_INET, s, want) == 1);
			assert_memory_equal(got, want, 4);
		}
	}
	for (size_t i = 0; i < sizeof(odd) / sizeof(*odd); i++) {
		memset(got, 0, 4);
		memset(want, 0, 4);
		assert_int_equal(sw_ipv4_parse(odd[i], strlen(odd[i]), got) == 0,
				 inet_pton(AF_INET, odd[i], want) == 1);
		assert_memory_equal(got, want, 4);
	}
	/* the length given, not the terminator, ends it */
	assert_int_equal(sw_ipv4_parse("10.1.2.3/8", 8, got), 0);
	assert_memory_equal(got, ((const uint8_t[]){ 10, 1, 2, 3 }), 4);
}

/* The hand-made dotted quad prints what inet_ntop prints, for every octet
 * value in every position, and refuses a buffer one byte short. */
static void test_format_v4_as_inet_ntop(void **state)
{
	struct sw_prefix p = { .family = AF_INET, .len = 32 };
	char got[SW_ADDR_STRLEN], want[INET_ADDRSTRLEN];

	for (unsigned v = 0; v < 256; v++) {
		for (int i = 0; i < 4; i++) {
			memset(p.addr, (int)(255 - v), 4);
			p.addr[i] = (uint8_t)v;
			assert_non_null(inet_ntop(AF_INET, p.addr, want, sizeof(want)));
			assert_int_equal(sw_prefix_format(&p, got, sizeof(got)), 0);
			assert_string_equal(got, want);
			assert_int_equal(sw_prefix_format(&p, got, strlen(want) + 1), 0);
			assert_int_equal(sw_prefix_format(&p, got, strlen(want)), -ENOSPC);
		}
	}
	p.len = 7;
	memcpy(p.addr, (const uint8_t[]){ 254, 0, 0, 0 }, 4);
	assert_int_equal(sw_prefix_format(&p, got, sizeof(got)), 0);
	assert_string_equal(got, "254.0.0.0/7");
}

static void test_family_mask(void **state)
{
	struct sw_prefix p;

	assert_int_equal(sw_family_addrlen(AF_INET), 4);
	assert_int_equal(sw_family_addrlen(AF_INET6), 16);
	assert_int_equal(sw_family_addrlen(AF_UNIX), 0);

	memset(&p, 0xff, sizeof(p));
	p.family = AF_INET;
	p.len = 20;
	sw_prefix_mask(&p);
	const uint8_t v4[16] = { 0xff, 0xff, 0xf0, 0 };
	assert_memory_equal(p.addr, v4, 16);

	memset(&p, 0xff, sizeof(p));
	p.family = AF_INET6;
	p.len = 65;
	sw_prefix_mask(&p);
	const uint8_t v6[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80 };
	assert_memory_equal(p.addr, v6, 16);

	p.len = 200;    /* clamped */
	sw_prefix_mask(&p);
	assert_int_equal(p.len, 128);

	sw_prefix_from_addr(&p, AF_INET6, v6, 0);
	assert_int_equal(p.family, AF_INET6);
	assert_int_equal(p.len, 0);
	const uint8_t zero[16] = { 0 };
	assert_memory_equal(p.addr, zero, 16);
	sw_prefix_from_addr(&p, AF_INET, (const uint8_t[]){ 10, 9, 8, 7 }, 32);
	const uint8_t host[16] = { 10, 9, 8, 7 };
	assert_memory_equal(p.addr, host, 16);
	assert_int_equal(p.len, 32);
}

static struct sw_prefix P(const char *s)
{
	struct sw_prefix p;

	assert_int_equal(sw_prefix_parse(s, &p, NULL), 0);
	return p;
}

static void test_contains_equal(void **state)
{
	struct sw_prefix a = P("10.0.0.0/8"), b = P("10.1.0.0/16"), c = P("11.0.0.0/16");
	struct sw_prefix v6 = P("::/0"), v4all = P("0.0.0.0/0"), h = P("10.255.255.255");

	assert_true(sw_prefix_contains(&a, &b));
	assert_false(sw_prefix_contains(&b, &a));
	assert_true(sw_prefix_contains(&a, &a));
	assert_false(sw_prefix_contains(&a, &c));
	assert_true(sw_prefix_contains(&a, &h));
	assert_true(sw_prefix_contains(&v4all, &c));
	assert_false(sw_prefix_contains(&v6, &c));      /* families differ */
	struct sw_prefix f = P("fd00::/8"), g = P("fd12:3456::1"), l = P("fe80::/10");
	assert_true(sw_prefix_contains(&f, &g));
	assert_false(sw_prefix_contains(&l, &g));
	assert_true(sw_prefix_contains(&v6, &g));

	struct sw_prefix a2 = P("10.0.0.0/8");
	assert_true(sw_prefix_equal(&a, &a2));
	assert_false(sw_prefix_equal(&a, &b));
	struct sw_prefix a9 = P("10.0.0.0/9");
	assert_false(sw_prefix_equal(&a, &a9));
	struct sw_prefix z4 = P("0.0.0.0/0");
	assert_false(sw_prefix_equal(&z4, &v6));
}

/* bit by bit, the definition */
static bool contains_ref(const struct sw_prefix *o, const struct sw_prefix *in)
{
	if (o->family != in->family || !sw_family_addrlen(o->family) || o->len > in->len)
		return false;
	for (unsigned i = 0; i < o->len; i++)
		if (((o->addr[i / 8] ^ in->addr[i / 8]) >> (7 - i % 8)) & 1)
			return false;
	return true;
}

/* Every length pair of v4 and some of v6, inner addresses one bit away
 * from the outer one at every position: the byte-wise compare agrees. */
static void test_contains_every_length(void **state)
{
	static const int fams[] = { AF_INET, AF_INET6 };

	for (size_t f = 0; f < 2; f++) {
		unsigned max = (unsigned)sw_family_addrlen(fams[f]) * 8;

		for (unsigned ol = 0; ol <= max; ol += f ? 3 : 1)
			for (unsigned flip = 0; flip <= max; flip++) {
				struct sw_prefix o = { .family = fams[f] }, in;

				memset(o.addr, 0xa5, max / 8);
				o.len = (uint8_t)ol;
				sw_prefix_mask(&o);
				in = o;
				in.len = (uint8_t)max;
				memset(in.addr, 0xa5, max / 8);
				if (flip < max)
					in.addr[flip / 8] ^= (uint8_t)(0x80 >> (flip % 8));
				assert_int_equal(sw_prefix_contains(&o, &in), contains_ref(&o, &in));
				assert_int_equal(sw_prefix_contains(&in, &o), contains_ref(&in, &o));
			}
	}
}

static void test_range(void **state)
{
	uint8_t first[16], last[16];
	struct sw_prefix p = P("192.168.4.0/22");

	sw_prefix_range(&p, first, last);
	assert_memory_equal(first, ((uint8_t[]){ 192, 168, 4, 0 }), 4);
	assert_memory_equal(last, ((uint8_t[]){ 192, 168, 7, 255 }), 4);

	p = P("1.2.3.4");
	sw_prefix_range(&p, first, last);
	assert_memory_equal(first, ((uint8_t[]){ 1, 2, 3, 4 }), 4);
	assert_memory_equal(last, ((uint8_t[]){ 1, 2, 3, 4 }), 4);

	p = P("0.0.0.0/0");
	sw_prefix_range(&p, first, last);
	assert_memory_equal(first, ((uint8_t[]){ 0, 0, 0, 0 }), 4);
	assert_memory_equal(last, ((uint8_t[]){ 255, 255, 255, 255 }), 4);

	p = P("fe80::/10");
	sw_prefix_range(&p, first, last);
	uint8_t f6[16] = { 0xfe, 0x80 }, l6[16];
	memset(l6, 0xff, sizeof(l6));
	l6[0] = 0xfe;
	l6[1] = 0xbf;
	assert_memory_equal(first, f6, 16);
	assert_memory_equal(last, l6, 16);
}

static void test_key(void **state)
{
	uint8_t k[4] = { 10, 0, 0, 255 };

	assert_false(sw_key_inc(k, 4));
	assert_memory_equal(k, ((uint8_t[]){ 10, 0, 1, 0 }), 4);
	uint8_t m[4] = { 0, 255, 255, 255 };
	assert_false(sw_key_inc(m, 4));
	assert_memory_equal(m, ((uint8_t[]){ 1, 0, 0, 0 }), 4);
	uint8_t top[16];
	memset(top, 0xff, sizeof(top));
	assert_true(sw_key_inc(top, 16));
	const uint8_t zero[16] = { 0 };
	assert_memory_equal(top, zero, 16);

	const uint8_t a[4] = { 10, 0, 0, 1 }, b[4] = { 10, 0, 1, 0 }, c[4] = { 200, 0, 0, 0 };
	assert_int_equal(sw_key_cmp(a, b, 4), -1);
	assert_int_equal(sw_key_cmp(b, a, 4), 1);
	assert_int_equal(sw_key_cmp(a, a, 4), 0);
	assert_int_equal(sw_key_cmp(c, a, 4), 1);       /* unsigned bytes */
	assert_int_equal(sw_key_cmp(a, b, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_loose),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_v4_as_inet_ntop),
		cmocka_unit_test(test_ipv4_parse_as_inet_pton),
		cmocka_unit_test(test_family_mask),
		cmocka_unit_test(test_contains_equal),
		cmocka_unit_test(test_contains_every_length),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
