// SPDX-License-Identifier: GPL-2.0-or-later
/* test_ctevents: ctnetlink messages built as the kernel sends them
 * (ctnetlink_fill_info: the original tuple, the counters, the id), parsed
 * into flows; malformed and truncated ones are refused, never read past. */
#include <errno.h>
#include <endian.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <libmnl/libmnl.h>
#include <cmocka.h>

#include "kernel/ctevents.h"

struct spec {
	uint16_t msg;               /* IPCTNL_MSG_CT_NEW / _DELETE */
	uint16_t flags;             /* NLM_F_CREATE for an event's NEW */
	int family;
	const char *src, *dst;
	uint8_t proto;
	uint16_t sport, dport;
	bool counters;
	int bad;                    /* which thing to break (0: none) */
};

enum { BAD_SRC_LEN = 1, BAD_BYTES_LEN, NO_TUPLE, MIXED_FAMILY, NO_PROTONUM, BAD_GENFAMILY,
       BAD_ID_LEN, COUNTERS32 };

static void put_tuple(struct nlmsghdr *nlh, uint16_t type, const struct spec *s, bool reply)
{
	struct nlattr *t = mnl_attr_nest_start(nlh, type), *ip, *pr;
	uint8_t a[16], b[16];
	bool v6 = s->family == AF_INET6;

	inet_pton(s->family, reply ? s->dst : s->src, a);
	inet_pton(s->family, reply ? s->src : s->dst, b);
	ip = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
	mnl_attr_put(nlh, v6 ? CTA_IP_V6_SRC : CTA_IP_V4_SRC,
		     s->bad == BAD_SRC_LEN ? 3 : v6 ? 16 : 4, a);
	if (s->bad == MIXED_FAMILY)
		mnl_attr_put(nlh, v6 ? CTA_IP_V4_DST : CTA_IP_V6_DST, v6 ? 4 : 16, b);
	else
		mnl_attr_put(nlh, v6 ? CTA_IP_V6_DST : CTA_IP_V4_DST, v6 ? 16 : 4, b);
	mnl_attr_nest_end(nlh, ip);
	pr = mnl_attr_nest_start(nlh, CTA_TUPLE_PROTO);
	if (s->bad != NO_PROTONUM)
		mnl_attr_put_u8(nlh, CTA_PROTO_NUM, s->proto);
	mnl_attr_put_u16(nlh, CTA_PROTO_SRC_PORT, htons(reply ? s->dport : s->sport));
	mnl_attr_put_u16(nlh, CTA_PROTO_DST_PORT, htons(reply ? s->sport : s->dport));
	mnl_attr_nest_end(nlh, pr);
	mnl_attr_nest_end(nlh, t);
}

static void put_counters(struct nlmsghdr *nlh, uint16_t type, uint64_t p, uint64_t b, int bad)
{
	struct nlattr *c = mnl_attr_nest_start(nlh, type);

	if (bad == COUNTERS32) {
		mnl_attr_put_u32(nlh, CTA_COUNTERS32_PACKETS, htonl((uint32_t)p));
		mnl_attr_put_u32(nlh, CTA_COUNTERS32_BYTES, htonl((uint32_t)b));
	} else {
		mnl_attr_put_u64(nlh, CTA_COUNTERS_PACKETS, htobe64(p));
		if (bad == BAD_BYTES_LEN)
			mnl_attr_put_u32(nlh, CTA_COUNTERS_BYTES, htonl((uint32_t)b));
		else
			mnl_attr_put_u64(nlh, CTA_COUNTERS_BYTES, htobe64(b));
	}
	mnl_attr_nest_end(nlh, c);
}

static size_t build(uint8_t *buf, const struct spec *s)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;

	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | s->msg;
	nlh->nlmsg_flags = s->flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = s->bad == BAD_GENFAMILY ? (s->family == AF_INET ? AF_INET6 : AF_INET) :
			  (uint8_t)s->family;
	g->version = NFNETLINK_V0;
	if (s->bad != NO_TUPLE)
		put_tuple(nlh, CTA_TUPLE_ORIG, s, false);
	put_tuple(nlh, CTA_TUPLE_REPLY, s, true);
	mnl_attr_put_u32(nlh, CTA_STATUS, htonl(0x8));
	if (s->counters) {
		put_counters(nlh, CTA_COUNTERS_ORIG, 18, 1029, s->bad);
		put_counters(nlh, CTA_COUNTERS_REPLY, 19, 301148, s->bad);
	}
	if (s->bad == BAD_ID_LEN)
		mnl_attr_put_u16(nlh, CTA_ID, htons(7));
	else
		mnl_attr_put_u32(nlh, CTA_ID, htonl(0xdeadbeef));
	return nlh->nlmsg_len;
}

static const struct spec v4new = { IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_EXCL, AF_INET,
				   "172.17.0.2", "203.0.113.10", IPPROTO_TCP, 40123, 8088, true, 0 };

static void test_v4_new_counters(void **state)
{
	uint8_t buf[2048];
	struct sw_ct_flow f;
	size_t len = build(buf, &v4new);

	(void)state;
	assert_int_equal(sw_ct_parse_msg((struct nlmsghdr *)buf, &f), 0);
	assert_int_equal(len, ((struct nlmsghdr *)buf)->nlmsg_len);
	assert_int_equal(f.kind, SW_CT_NEW);
	assert_int_equal(f.family, AF_INET);
	assert_memory_equal(f.src, "\xac\x11\x00\x02", 4);
	assert_memory_equal(f.dst, "\xcb\x00\x71\x0a", 4);
	assert_int_equal(f.proto, IPPROTO_TCP);
	assert_int_equal(f.sport, 40123);
	assert_int_equal(f.dport, 8088);
	assert_int_equal(f.id, 0xdeadbeef);
	assert_true(f.has_counters);
	assert_int_equal(f.orig_packets, 18);
	assert_int_equal(f.orig_bytes, 1029);
	assert_int_equal(f.reply_packets, 19);
	assert_int_equal(f.reply_bytes, 301148);
}

static void test_kinds_and_v6(void **state)
{
	uint8_t buf[2048];
	struct sw_ct_flow f;
	struct spec s = v4new;

	(void)state;
	s.msg = IPCTNL_MSG_CT_DELETE;
	build(buf, &s);
	assert_int_equal(sw_ct_parse_msg((struct nlmsghdr *)buf, &f), 0);
	assert_int_equal(f.kind, SW_CT_DESTROY);
	s.msg = IPCTNL_MSG_CT_NEW;
	s.flags = NLM_F_MULTI;      /* a dumped entry */
	build(buf, &s);
	assert_int_equal(sw_ct_parse_msg((struct nlmsghdr *)buf, &f), 0);
	assert_int_equal(f.kind, SW_CT_DUMPED);
	s.family = AF_INET6;
	s.src = "fd00:17::2";
	s.dst = "2001:db8::10";
	s.proto = IPPROTO_UDP;
	build(buf, &s);
	assert_int_equal(sw_ct_parse_msg((struct nlmsghdr *)buf, &f), 0);
	assert_int_equal(f.family, AF_INET6);
	assert_int_equal(f.src[0], 0xfd);
	assert_int_equal(f.dst[15], 0x10);
	assert_int_equal(f.proto, IPPROTO_UDP);
	/* 32-bit counters (older kernels) */
	s.bad = COUNTERS32;
	build(buf, &s);
	assert_int_equal(sw_ct_parse_msg((struct nlmsghdr *)buf, &f), 0);
	assert_true(f.has_counters);
	assert_int_equal(f.reply_bytes, 301148);
}

/* without accounting: no counters, and none made up */
static void test_no_counters(void **state)
{
	uint8_t buf[2048];
	struct sw_ct_flow f;
	struct spec s = v4new;

	(void)state;
	s.counters = false;
	build(buf, &s);
	assert_int_equal(sw_ct_parse_msg((struct nlmsghdr *)buf, &f), 0);
	assert_false(f.has_counters);
	assert_int_equal(f.orig_bytes, 0);
	assert_int_equal(f.reply_bytes, 0);
}

static void test_malformed(void **state)
{
	static const int bads[] = { BAD_SRC_LEN, BAD_BYTES_LEN, NO_TUPLE, MIXED_FAMILY, NO_PROTONUM,
				    BAD_GENFAMILY, BAD_ID_LEN };
	uint8_t buf[2048];
	struct sw_ct_flow f;

	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct spec s = v4new;

		s.bad = bads[i];
		build(buf, &s);
		if (sw_ct_parse_msg((struct nlmsghdr *)buf, &f) != -EBADMSG)
			fail_msg("malformed case %d was accepted", bads[i]);
	}
	/* not a flow message: skipped, not counted as bad */
	{
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		size_t bad = 0;

		nlh->nlmsg_type = NLMSG_DONE;
		mnl_nlmsg_put_extra_header(nlh, 4);
		assert_int_equal(sw_ct_parse_msg(nlh, &f), -ENOENT);
		assert_int_equal(sw_ct_parse(buf, nlh->nlmsg_len, &f, 1, &bad), 0);
		assert_int_equal(bad, 0);
	}
}

/* Every cut: of the datagram (the message says more than there is) and
 * of the message itself (nlmsg_len shortened: attributes torn). Never a
 * read past, never a flow from a torn tuple or torn counters. */
static void test_truncated(void **state)
{
	uint8_t buf[2048], cut[2048];
	struct sw_ct_flow f[2];
	size_t len = build(buf, &v4new);

	(void)state;
	for (size_t n = 0; n < len; n++) {
		size_t bad = 0;

		memcpy(cut, buf, n);
		assert_int_equal(sw_ct_parse(cut, n, f, 2, &bad), 0);
		assert_int_equal(bad, n ? 1 : 0);
	}
	for (size_t n = MNL_NLMSG_HDRLEN; n < len; n++) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)cut;
		int rc;

		memcpy(cut, buf, len);
		nlh->nlmsg_len = (uint32_t)n;
		rc = sw_ct_parse_msg(nlh, &f[0]);
		if (rc == 0) {
			/* only a cut after the whole tuple may parse: then exactly */
			assert_int_equal(f[0].sport, 40123);
			assert_int_equal(f[0].dport, 8088);
			if (f[0].has_counters)
				assert_int_equal(f[0].reply_bytes, 301148);
		} else {
			assert_int_equal(rc, -EBADMSG);
		}
	}
}

/* two messages in one datagram, the second torn */
static void test_datagram(void **state)
{
	uint8_t buf[4096];
	struct sw_ct_flow f[4];
	size_t a = build(buf, &v4new), b, bad = 0;
	struct spec s = v4new;

	(void)state;
	s.sport = 40124;
	b = build(buf + a, &s);
	assert_int_equal(sw_ct_parse(buf, a + b, f, 4, &bad), 2);
	assert_int_equal(bad, 0);
	assert_int_equal(f[1].sport, 40124);
	assert_int_equal(sw_ct_parse(buf, a + b - 5, f, 4, &bad), 1);
	assert_int_equal(bad, 1);
	/* max bounds what is written */
	bad = 0;
	assert_int_equal(sw_ct_parse(buf, a + b, f, 1, &bad), 1);
}

static void test_proto_name(void **state)
{
	char b[8];

	(void)state;
	assert_string_equal(sw_ct_proto_name(IPPROTO_TCP, b, sizeof(b)), "tcp");
	assert_string_equal(sw_ct_proto_name(IPPROTO_ICMPV6, b, sizeof(b)), "ipv6-icmp");
	assert_string_equal(sw_ct_proto_name(47, b, sizeof(b)), "47");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4_new_counters),
		cmocka_unit_test(test_kinds_and_v6),
		cmocka_unit_test(test_no_counters),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_datagram),
		cmocka_unit_test(test_proto_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
