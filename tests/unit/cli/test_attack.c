/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for verify's attacks, the parts without a kernel: the frame
 * builders (every field, lengths, and the IPv4 header, TCP, UDP and ICMPv6
 * checksums checked with an independent checksum), which attacks a run
 * gets (sw_verify_add_attacks), and how attack results decide the verdict. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/attack.h"
#include "cli/verify.h"

static const uint8_t DMAC[6] = { 0x02, 0x42, 0xac, 0x11, 0x00, 0x01 };
static const uint8_t SMAC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x99 };

static struct sw_prefix P(const char *s)
{
	struct sw_prefix p;

	assert_int_equal(sw_prefix_parse(s, &p, NULL), 0);
	return p;
}

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* RFC 1071, written out again: the one's complement sum of the 16-bit
 * words of a + b (each even-length but the last), 0xffff when the data
 * carries a correct checksum. */
static unsigned ones_sum(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	uint64_t s = 0;

	for (size_t i = 0; i < alen; i += 2)
		s += get16(a + i);
	for (size_t i = 0; i < blen; i += 2)
		s += i + 1 < blen ? get16(b + i) : (unsigned)b[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (unsigned)s;
}

/* the pseudo header of RFC 793 / RFC 8200 as bytes */
static size_t pseudo_bytes(const uint8_t *ip, bool v6, uint8_t proto, size_t l4len, uint8_t *out)
{
	if (v6) {
		memcpy(out, ip + 8, 32);
		out[32] = (uint8_t)(l4len >> 24);
		out[33] = (uint8_t)(l4len >> 16);
		out[34] = (uint8_t)(l4len >> 8);
		out[35] = (uint8_t)l4len;
		out[36] = out[37] = out[38] = 0;
		out[39] = proto;
		return 40;
	}
	memcpy(out, ip + 12, 8);
	out[8] = 0;
	out[9] = proto;
	out[10] = (uint8_t)(l4len >> 8);
	out[11] = (uint8_t)l4len;
	return 12;
}

static void assert_l4_csum(const uint8_t *ip, bool v6, uint8_t proto, const uint8_t *l4, size_t l4len)
{
	uint8_t ph[40];
	size_t n = pseudo_bytes(ip, v6, proto, l4len, ph);

	assert_int_equal(ones_sum(ph, n, l4, l4len), 0xffff);
}

static void assert_eth(const uint8_t *f, unsigned type)
{
	assert_memory_equal(f, DMAC, 6);
	assert_memory_equal(f + 6, SMAC, 6);
	assert_int_equal(get16(f + 12), type);
}

static void test_csum_rfc1071_example(void **state)
{
	/* RFC 1071 section 3: 0001 f203 f4f5 f6f7 sums to ddf2 */
	static const uint8_t d[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	(void)state;
	assert_int_equal(sw_inet_csum(d, sizeof(d), 0), (uint16_t)~0xddf2);
	/* odd length: the last byte is the high half of a word */
	assert_int_equal(sw_inet_csum(d, 1, 0), (uint16_t)~0x0000);
	assert_int_equal(sw_inet_csum(d + 2, 1, 0), (uint16_t)~0xf200);
}

static void test_frame_syn_v4(void **state)
{
	struct sw_frame f = {
		.kind = SW_FRAME_TCP_SYN, .src = P("169.254.169.254"), .dst = P("172.17.255.253"),
		.sport = 80, .dport = 40001, .seq = 0x12345678, .ttl = 64,
	};
	uint8_t b[SW_FRAME_MAX];
	const uint8_t *ip = b + 14, *tcp = b + 34;
	size_t len = 0;

	(void)state;
	memcpy(f.dmac, DMAC, 6);
	memcpy(f.smac, SMAC, 6);
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), 0);
	assert_int_equal(len, 14 + 20 + 24);
	assert_eth(b, 0x0800);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(get16(ip + 2), 44);            /* total length */
	assert_int_equal(get16(ip + 4), 0x5678);        /* id */
	assert_int_equal(get16(ip + 6), 0x4000);        /* DF, offset 0 */
	assert_int_equal(ip[8], 64);
	assert_int_equal(ip[9], IPPROTO_TCP);
	assert_memory_equal(ip + 12, f.src.addr, 4);
	assert_memory_equal(ip + 16, f.dst.addr, 4);
	assert_int_equal(ones_sum(ip, 20, NULL, 0), 0xffff);   /* header checksum */
	assert_int_equal(get16(tcp), 80);
	assert_int_equal(get16(tcp + 2), 40001);
	assert_int_equal(get32(tcp + 4), 0x12345678);
	assert_int_equal(get32(tcp + 8), 0);            /* no ack */
	assert_int_equal(tcp[12] >> 4, 6);              /* 24 bytes */
	assert_int_equal(tcp[13], 0x02);                /* SYN only */
	assert_int_not_equal(get16(tcp + 14), 0);       /* a window */
	assert_int_equal(get16(tcp + 18), 0);           /* urgent */
	assert_int_equal(tcp[20], 2);                   /* MSS option */
	assert_int_equal(tcp[21], 4);
	assert_int_equal(get16(tcp + 22), 1400);
	assert_l4_csum(ip, false, IPPROTO_TCP, tcp, 24);
}

static void test_frame_syn_v6(void **state)
{
	struct sw_frame f = {
		.kind = SW_FRAME_TCP_SYN, .src = P("fd00:ec2::254"), .dst = P("fd00:17::fffd"),
		.sport = 80, .dport = 40002, .seq = 7, .ttl = 64,
	};
	uint8_t b[SW_FRAME_MAX];
	const uint8_t *ip = b + 14, *tcp = b + 54;
	size_t len = 0;

	(void)state;
	memcpy(f.dmac, DMAC, 6);
	memcpy(f.smac, SMAC, 6);
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), 0);
	assert_int_equal(len, 14 + 40 + 24);
	assert_eth(b, 0x86dd);
	assert_int_equal(get32(ip), 6u << 28);          /* version 6, no class/flow */
	assert_int_equal(get16(ip + 4), 24);            /* payload length */
	assert_int_equal(ip[6], IPPROTO_TCP);
	assert_int_equal(ip[7], 64);
	assert_memory_equal(ip + 8, f.src.addr, 16);
	assert_memory_equal(ip + 24, f.dst.addr, 16);
	assert_int_equal(get16(tcp + 2), 40002);
	assert_int_equal(tcp[13], 0x02);
	assert_l4_csum(ip, true, IPPROTO_TCP, tcp, 24);
}

static void test_frame_udp_v4_odd_payload(void **state)
{
	static const uint8_t data[] = "odd";     /* 3 bytes: odd-length checksum */
	struct sw_frame f = {
		.kind = SW_FRAME_UDP, .src = P("10.0.0.1"), .dst = P("172.18.255.253"),
		.sport = 53, .dport = 40003, .ttl = 64, .payload = data, .plen = 3,
	};
	uint8_t b[SW_FRAME_MAX];
	const uint8_t *ip = b + 14, *udp = b + 34;
	size_t len = 0;

	(void)state;
	memcpy(f.dmac, DMAC, 6);
	memcpy(f.smac, SMAC, 6);
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), 0);
	assert_int_equal(len, 14 + 20 + 8 + 3);
	assert_int_equal(get16(ip + 2), 31);
	assert_int_equal(ip[9], IPPROTO_UDP);
	assert_int_equal(ones_sum(ip, 20, NULL, 0), 0xffff);
	assert_int_equal(get16(udp), 53);
	assert_int_equal(get16(udp + 2), 40003);
	assert_int_equal(get16(udp + 4), 11);
	assert_memory_equal(udp + 8, "odd", 3);
	assert_int_not_equal(get16(udp + 6), 0);        /* 0 would mean "none" */
	assert_l4_csum(ip, false, IPPROTO_UDP, udp, 11);
}

static void test_frame_udp_v6(void **state)
{
	static const uint8_t data[] = "sandwall-verify";
	struct sw_frame f = {
		.kind = SW_FRAME_UDP, .src = P("fd00:10::2"), .dst = P("fd00:17::fffd"),
		.sport = 9090, .dport = 40004, .ttl = 64, .payload = data, .plen = 15,
	};
	uint8_t b[SW_FRAME_MAX];
	const uint8_t *ip = b + 14, *udp = b + 54;
	size_t len = 0;

	(void)state;
	memcpy(f.dmac, DMAC, 6);
	memcpy(f.smac, SMAC, 6);
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), 0);
	assert_int_equal(len, 14 + 40 + 8 + 15);
	assert_int_equal(get16(ip + 4), 23);
	assert_int_equal(ip[6], IPPROTO_UDP);
	assert_int_equal(get16(udp + 4), 23);
	assert_memory_equal(udp + 8, data, 15);
	assert_int_not_equal(get16(udp + 6), 0);        /* mandatory in IPv6 */
	assert_l4_csum(ip, true, IPPROTO_UDP, udp, 23);
}

static void test_frame_ns_payload(void **state)
{
	static const uint8_t data[] = "sandwall-verify";
	struct sw_frame f = {
		.kind = SW_FRAME_NS, .src = P("fd00:17::fffd"), .dst = P("fd00:ec2::254"),
		.nd_target = P("fd00:ec2::254"), .ttl = 255, .payload = data, .plen = 15,
	};
	uint8_t b[SW_FRAME_MAX];
	const uint8_t *ip = b + 14, *icmp = b + 54;
	size_t len = 0;

	(void)state;
	memcpy(f.dmac, DMAC, 6);
	memcpy(f.smac, SMAC, 6);
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), 0);
	/* 24 bytes of NS, then an option of 2 + 15 bytes padded to 24 */
	assert_int_equal(len, 14 + 40 + 24 + 24);
	assert_eth(b, 0x86dd);
	assert_int_equal(get16(ip + 4), 48);
	assert_int_equal(ip[6], IPPROTO_ICMPV6);
	assert_int_equal(ip[7], 255);                   /* hop limit of RFC 4861 */
	assert_int_equal(icmp[0], 135);
	assert_int_equal(icmp[1], 0);
	assert_int_equal(get32(icmp + 4), 0);           /* reserved */
	assert_memory_equal(icmp + 8, f.nd_target.addr, 16);
	assert_int_equal(icmp[24], 253);
	assert_int_equal(icmp[25], 3);                  /* 3 x 8 bytes */
	assert_memory_equal(icmp + 26, data, 15);
	for (size_t i = 26 + 15; i < 48; i++)
		assert_int_equal(icmp[i], 0);
	assert_l4_csum(ip, true, IPPROTO_ICMPV6, icmp, 48);
}

static void test_frame_bad(void **state)
{
	struct sw_frame f = { .kind = SW_FRAME_UDP, .src = P("10.0.0.1"), .dst = P("fd00::1") };
	uint8_t b[SW_FRAME_MAX];
	size_t len;

	(void)state;
	/* mixed families */
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), -EINVAL);
	/* NS over IPv4 */
	f.kind = SW_FRAME_NS;
	f.dst = P("10.0.0.2");
	f.nd_target = P("10.0.0.2");
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), -EINVAL);
	/* NS without a v6 target */
	f.src = P("fd00::1");
	f.dst = P("fd00::2");
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), -EINVAL);
	/* too small a buffer, too long a payload, a length without data */
	f.kind = SW_FRAME_TCP_SYN;
	assert_int_equal(sw_frame_build(&f, b, 14 + 40 + 23, &len), -EMSGSIZE);
	assert_int_equal(sw_frame_build(&f, b, 14 + 40 + 24, &len), 0);
	f.kind = SW_FRAME_UDP;
	f.plen = 1401;
	f.payload = b;
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), -EINVAL);
	f.plen = 4;
	f.payload = NULL;
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), -EINVAL);
	f.kind = (enum sw_frame_kind)99;
	f.plen = 0;
	assert_int_equal(sw_frame_build(&f, b, sizeof(b), &len), -EINVAL);
}

/* ------------------------------------------------------------ plan */

static struct sw_verify V;

/* The category of a name ("metadata", "expect-open", ...). */
static enum sw_vcat vcat(const char *name)
{
	for (int c = 0; c < SW_VCAT_COUNT; c++)
		if (!strcmp(sw_vcat_name((enum sw_vcat)c), name))
			return (enum sw_vcat)c;
	fail_msg("no category %s", name);
	return SW_VCAT_COUNT;
}

static void target(const char *cat, const char *addr, uint16_t port, bool must_block)
{
	struct sw_verify_target *t = &V.t[V.n++];

	memset(t, 0, sizeof(*t));
	t->cat = vcat(cat);
	t->must_block = must_block;
	t->probe.addr = P(addr);
	t->probe.port = port;
}

static void base_plan(void)
{
	memset(&V, 0, sizeof(V));
	target("metadata", "169.254.169.254", 80, true);
	target("metadata", "fd00:ec2::254", 80, true);
	target("gateways", "10.0.0.1", 80, true);
	target("lan", "fd00:10::1", 80, true);
	target("host", "10.0.0.2", 9090, true);
	target("host", "10.0.0.2", 8080, true);
	target("host", "fd00:10::2", 8080, true);
	target("expect-open", "203.0.113.10", 80, false);
}

struct want {
	const char *cat;
	enum sw_attack_kind kind;
	bool bcast_mac;
	const char *addr;
	uint16_t port;
	const char *counter;
	bool must_block;
};

static void assert_attacks(size_t from, const struct want *w, size_t n)
{
	char a[SW_ADDR_STRLEN];

	assert_int_equal(V.n - from, n);
	for (size_t i = 0; i < n; i++) {
		const struct sw_verify_target *t = &V.t[from + i];

		sw_prefix_format(&t->probe.addr, a, sizeof(a));
		print_message("  [%zu] %s %s %s %s:%u %s\n", i, sw_vcat_name(t->cat), sw_attack_kind_name(t->atk.kind),
			      t->atk.bcast_mac ? "bcast" : "-", a, t->probe.port, t->atk.counter);
		assert_string_equal(sw_vcat_name(t->cat), w[i].cat);
		assert_int_equal(t->atk.kind, w[i].kind);
		assert_int_equal(t->atk.bcast_mac, w[i].bcast_mac);
		assert_string_equal(a, w[i].addr);
		assert_int_equal(t->probe.port, w[i].port);
		assert_true(sw_prefix_equal(&t->atk.target, &t->probe.addr));
		assert_int_equal(t->atk.port, w[i].port);
		assert_string_equal(t->atk.counter, w[i].counter);
		assert_int_equal(t->must_block, w[i].must_block);
	}
}

static void test_add_attacks_v4_v6(void **state)
{
	static const struct want w[] = {
		{ "spoofed", SW_ATK_PRIME_TCP, false, "169.254.169.254", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, false, "169.254.169.254", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_TCP, true, "169.254.169.254", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, true, "169.254.169.254", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_TCP, false, "10.0.0.1", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, false, "10.0.0.1", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_TCP, true, "10.0.0.1", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, true, "10.0.0.1", 80, "spoofed", true },
		/* the first host target only */
		{ "spoofed", SW_ATK_PRIME_TCP, false, "10.0.0.2", 9090, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, false, "10.0.0.2", 9090, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_TCP, true, "10.0.0.2", 9090, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, true, "10.0.0.2", 9090, "spoofed", true },
		/* IPv6: no gateways target here; routed frames only */
		{ "spoofed", SW_ATK_PRIME_TCP, false, "fd00:ec2::254", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, false, "fd00:ec2::254", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_TCP, false, "fd00:10::2", 8080, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, false, "fd00:10::2", 8080, "spoofed", true },
		/* ND to the first v6 metadata/gateways/lan target, its category counts */
		{ "nd", SW_ATK_ND, false, "fd00:ec2::254", 0, "metadata", true },
		{ "broadcast", SW_ATK_CANARY, false, "127.0.0.1", 4242, "", false },
		{ "broadcast", SW_ATK_BCAST, false, "172.17.255.255", 4242, "", true },
		{ "broadcast", SW_ATK_BCAST, false, "172.18.255.255", 4242, "", true },
		{ "broadcast", SW_ATK_BCAST, false, "255.255.255.255", 4242, "", true },
		{ "broadcast", SW_ATK_BCAST, false, "224.0.0.1", 4242, "", true },
		{ "broadcast", SW_ATK_CANARY, false, "::1", 4242, "", false },
		{ "broadcast", SW_ATK_BCAST, false, "ff02::1", 4242, "", true },
	};
	struct sw_prefix bc[2] = { P("172.17.255.255"), P("172.18.255.255") };
	size_t n0;

	(void)state;
	base_plan();
	n0 = V.n;
	assert_int_equal(sw_verify_add_attacks(&V, true, bc, 2, true, true, 4242), 0);
	assert_attacks(n0, w, sizeof(w) / sizeof(*w));
}

static void test_add_attacks_v4_only(void **state)
{
	static const struct want w[] = {
		{ "spoofed", SW_ATK_PRIME_TCP, false, "10.0.0.1", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, false, "10.0.0.1", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_TCP, true, "10.0.0.1", 80, "spoofed", true },
		{ "spoofed", SW_ATK_PRIME_UDP, true, "10.0.0.1", 80, "spoofed", true },
		{ "broadcast", SW_ATK_CANARY, false, "127.0.0.1", 9, "", false },
		{ "broadcast", SW_ATK_BCAST, false, "255.255.255.255", 9, "", true },
		{ "broadcast", SW_ATK_BCAST, false, "224.0.0.1", 9, "", true },
	};
	size_t n0;

	(void)state;
	memset(&V, 0, sizeof(V));
	/* no metadata (allowed), no host target; a v6 one is ignored without v6 */
	target("gateways", "10.0.0.1", 80, true);
	target("metadata", "fd00:ec2::254", 80, true);
	n0 = V.n;
	assert_int_equal(sw_verify_add_attacks(&V, false, NULL, 0, true, false, 9), 0);
	assert_attacks(n0, w, sizeof(w) / sizeof(*w));
	/* no canary at all: priming only */
	V.n = n0;
	assert_int_equal(sw_verify_add_attacks(&V, false, NULL, 0, false, false, 9), 0);
	assert_attacks(n0, w, 4);
}

static void test_add_attacks_full(void **state)
{
	(void)state;
	base_plan();
	V.n = SW_VERIFY_MAX - 3;
	assert_int_equal(sw_verify_add_attacks(&V, true, NULL, 0, true, true, 9), -ENOSPC);
	assert_int_equal(V.n, SW_VERIFY_MAX);
}

/* ------------------------------------------------------------ verdicts */

static void one_attack(enum sw_attack_kind k, enum sw_attack_result r)
{
	memset(&V, 0, sizeof(V));
	target("metadata", "169.254.169.254", 80, true);
	V.t[0].probe.result = SW_PROBE_TIMEOUT;
	V.t[1] = V.t[0];
	V.n = 2;
	V.t[1].cat = vcat(k == SW_ATK_BCAST || k == SW_ATK_CANARY ? "broadcast" : "spoofed");
	V.t[1].must_block = k != SW_ATK_CANARY;
	V.t[1].probe.result = SW_PROBE_PENDING;      /* never TCP-probed */
	V.t[1].atk.kind = k;
	V.t[1].atk.result = r;
	snprintf(V.t[1].atk.counter, sizeof(V.t[1].atk.counter), "spoofed");
}

static void test_attack_truth_table(void **state)
{
	static const struct {
		enum sw_attack_kind k;
		enum sw_attack_result r;
		bool passed;
		const char *verdict;
	} rows[] = {
		{ SW_ATK_PRIME_TCP, SW_ATK_COUNTED, true, "blocked" },
		{ SW_ATK_PRIME_TCP, SW_ATK_UNCOUNTED, false, "FAIL" },
		{ SW_ATK_PRIME_UDP, SW_ATK_REACHED, false, "FAIL" },
		{ SW_ATK_PRIME_UDP, SW_ATK_ERROR, false, "FAIL" },
		{ SW_ATK_PRIME_UDP, SW_ATK_PENDING, false, "FAIL" },
		{ SW_ATK_ND, SW_ATK_COUNTED, true, "blocked" },
		{ SW_ATK_ND, SW_ATK_UNCOUNTED, false, "FAIL" },
		{ SW_ATK_BCAST, SW_ATK_SILENT, true, "blocked" },
		{ SW_ATK_BCAST, SW_ATK_HEARD, false, "FAIL" },
		{ SW_ATK_BCAST, SW_ATK_UNPROVEN, false, "FAIL" },
		{ SW_ATK_CANARY, SW_ATK_HEARD, true, "open" },
		{ SW_ATK_CANARY, SW_ATK_SILENT, false, "FAIL" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char *buf = NULL, line[256];
		size_t len = 0;
		FILE *f;

		one_attack(rows[i].k, rows[i].r);
		print_message("  %s %s\n", sw_attack_kind_name(rows[i].k), sw_attack_result_name(rows[i].r));
		assert_int_equal(sw_verify_passed(&V), rows[i].passed);
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		sw_verify_print(&V, 0, f, false);
		fclose(f);
		/* the attack's row: category, target, verdict, result */
		snprintf(line, sizeof(line), "\n%-12s %-40s %-8s %-10s ", sw_vcat_name(V.t[1].cat),
			 "169.254.169.254:80", rows[i].verdict, sw_attack_result_name(rows[i].r));
		if (!strstr(buf, line))
			fail_msg("no row '%s' in:\n%s", line + 1, buf);
		/* a run proves no HELD by itself: the verdict needs a canary open */
		assert_non_null(strstr(buf, rows[i].passed ? "every target blocked" : "NOT HELD"));
		free(buf);
		/* the JSON names the attack, and its counter for priming */
		buf = NULL;
		f = open_memstream(&buf, &len);
		sw_verify_print(&V, 0, f, true);
		fclose(f);
		snprintf(line, sizeof(line), "\"attack\":\"%s\"", sw_attack_kind_name(rows[i].k));
		assert_non_null(strstr(buf, line));
		assert_non_null(strstr(buf, rows[i].passed ? "\"passed\":true" : "\"passed\":false"));
		free(buf);
	}
}

static void test_attack_names(void **state)
{
	(void)state;
	assert_string_equal(sw_attack_kind_name(SW_ATK_PRIME_TCP), "prime-tcp");
	assert_string_equal(sw_attack_kind_name(SW_ATK_ND), "nd-payload");
	assert_string_equal(sw_attack_kind_name((enum sw_attack_kind)77), "?");
	assert_string_equal(sw_attack_result_name(SW_ATK_UNCOUNTED), "uncounted");
	assert_string_equal(sw_attack_result_name((enum sw_attack_result)77), "?");
}

/* The primed ports never meet the ephemeral range, whatever the random
 * number: a plain probe's source port cannot match a primed entry. */
static void test_prime_base_outside_ephemeral(void **state)
{
	static const unsigned ranges[][2] = {
		{ 32768, 60999 }, { 1025, 65000 }, { 20000, 20000 }, { 1024, 65535 },
		{ 2000, 65535 }, { 1024, 64000 },
	};
	static const uint32_t rs[] = { 0, 1, 7, 31999, 32000, 4000000000u, 0xffffffffu };
	const size_t n = 48;

	(void)state;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		unsigned lo = ranges[i][0], hi = ranges[i][1];

		for (size_t j = 0; j < sizeof(rs) / sizeof(rs[0]); j++) {
			uint16_t b = sw_attack_prime_base(lo, hi, n, rs[j]);

			if (lo == 1024 && hi == 65535) {
				/* no room outside: any run above 1024 */
				assert_true(b >= 1024 && (unsigned)b + n - 1 <= 65535);
				continue;
			}
			assert_true(b >= 1024);
			assert_true((unsigned)b + n - 1 <= 65535);
			/* the whole run lies below lo or above hi */
			assert_true((unsigned)b + n - 1 < lo || b > hi);
		}
	}
	/* both sides used: r picks below first, then above */
	assert_int_equal(sw_attack_prime_base(32768, 60999, n, 0), 1024);
	assert_int_equal(sw_attack_prime_base(32768, 60999, n, 32768 - n - 1024), 61000);
	assert_int_equal(sw_attack_prime_base(60000, 50000, n, 0), 0);  /* lo > hi */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_rfc1071_example),
		cmocka_unit_test(test_frame_syn_v4),
		cmocka_unit_test(test_frame_syn_v6),
		cmocka_unit_test(test_frame_udp_v4_odd_payload),
		cmocka_unit_test(test_frame_udp_v6),
		cmocka_unit_test(test_frame_ns_payload),
		cmocka_unit_test(test_frame_bad),
		cmocka_unit_test(test_add_attacks_v4_v6),
		cmocka_unit_test(test_add_attacks_v4_only),
		cmocka_unit_test(test_add_attacks_full),
		cmocka_unit_test(test_attack_truth_table),
		cmocka_unit_test(test_attack_names),
		cmocka_unit_test(test_prime_base_outside_ephemeral),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
