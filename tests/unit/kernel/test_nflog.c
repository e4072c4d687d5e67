// SPDX-License-Identifier: GPL-2.0-or-later
/* test_nflog: blocked-attempt messages (NFULNL_MSG_PACKET) built as the
 * kernel sends them, parsed into event fields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <libmnl/libmnl.h>
#include <cmocka.h>

#include "kernel/nflog.h"

static size_t put_packet(uint8_t *buf, uint8_t family, const char *prefix, uint32_t iif,
			 const uint8_t *pkt, size_t plen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;

	nlh->nlmsg_type = NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_PACKET;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = family;
	if (prefix)
		mnl_attr_put_strz(nlh, NFULA_PREFIX, prefix);
	mnl_attr_put_u32(nlh, NFULA_IFINDEX_INDEV, htonl(iif));
	mnl_attr_put(nlh, NFULA_PAYLOAD, plen, pkt);
	return nlh->nlmsg_len;
}

/* IPv4 TCP SYN 172.17.0.2:40000 -> 169.254.169.254:80 */
static const uint8_t tcp4[40] = {
	0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, IPPROTO_TCP, 0, 0,
	172, 17, 0, 2, 169, 254, 169, 254,
	0x9c, 0x40, 0x00, 0x50,
};

static void test_v4_tcp(void **state)
{
	uint8_t buf[1024];
	struct sw_blocked b[4];
	char text[160];
	size_t len;

	(void)state;
	len = put_packet(buf, NFPROTO_IPV4, "sandwall:metadata ", 3, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_string_equal(b[0].category, "metadata");
	assert_int_equal(b[0].iif, 3);
	assert_int_equal(b[0].dport, 80);
	sw_blocked_format(&b[0], text, sizeof(text));
	assert_string_equal(text, "src=172.17.0.2 dst=169.254.169.254 proto=tcp dport=80");
	assert_string_equal(b[0].sandbox, "");
	/* a sandbox's policy: "<category>:<name> " */
	len = put_packet(buf, NFPROTO_IPV4, "sandwall:egress:agents ", 3, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_string_equal(b[0].category, "egress");
	assert_string_equal(b[0].sandbox, "agents");
	len = put_packet(buf, NFPROTO_IPV4, "sandwall:budget:a_1 ", 3, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_string_equal(b[0].category, "budget");
	assert_string_equal(b[0].sandbox, "a_1");
}

/* The copied packet is handed out as it is, inside the datagram, with the
 * attribute's length; a message cut inside the attribute has none. */
static void test_payload(void **state)
{
	uint8_t buf[1024];
	struct sw_blocked b[4];
	size_t len;

	(void)state;
	len = put_packet(buf, NFPROTO_IPV4, "sandwall:dns ", 3, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_string_equal(b[0].category, "dns");
	assert_int_equal(b[0].payload_len, sizeof(tcp4));
	assert_true(b[0].payload > buf && b[0].payload + b[0].payload_len <= buf + len);
	assert_memory_equal(b[0].payload, tcp4, sizeof(tcp4));
	/* the last attribute (the payload) announced longer than the message */
	{
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

		nlh->nlmsg_len -= 8;
		assert_int_equal(sw_nflog_parse(buf, nlh->nlmsg_len, b, 4), 1);
		assert_null(b[0].payload);
		assert_int_equal(b[0].payload_len, 0);
	}
}

static void test_v6_udp_and_foreign_prefix(void **state)
{
	uint8_t buf[2048], pkt[48] = { 0x60, 0, 0, 0, 0, 8, IPPROTO_UDP, 64 };
	struct sw_blocked b[4];
	char text[160];
	size_t len;

	(void)state;
	inet_pton(AF_INET6, "fd00:17::2", pkt + 8);
	inet_pton(AF_INET6, "fd00:ec2::254", pkt + 24);
	pkt[40] = 0x30; pkt[41] = 0x39;    /* sport 12345 */
	pkt[42] = 0x00; pkt[43] = 0x35;    /* dport 53 */
	len = put_packet(buf, NFPROTO_IPV4, "other-tool ", 3, tcp4, sizeof(tcp4));
	len += put_packet(buf + len, NFPROTO_IPV6, "sandwall:link_local ", 7, pkt, sizeof(pkt));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_string_equal(b[0].category, "link_local");
	sw_blocked_format(&b[0], text, sizeof(text));
	assert_string_equal(text, "src=fd00:17::2 dst=fd00:ec2::254 proto=udp dport=53");
}

static void test_truncated_and_fragment(void **state)
{
	uint8_t buf[1024], frag[40];
	struct sw_blocked b[4];
	char text[160];
	size_t len;

	(void)state;
	/* a copy too short for ports: addresses only */
	len = put_packet(buf, NFPROTO_IPV4, "sandwall:host ", 3, tcp4, 20);
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	sw_blocked_format(&b[0], text, sizeof(text));
	assert_string_equal(text, "src=172.17.0.2 dst=169.254.169.254 proto=tcp");
	/* a later fragment carries no ports */
	memcpy(frag, tcp4, sizeof(frag));
	frag[6] = 0x00;
	frag[7] = 0x10;
	len = put_packet(buf, NFPROTO_IPV4, "sandwall:host ", 3, frag, sizeof(frag));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_int_equal(b[0].dport, 0);
	/* no prefix at all: not ours */
	len = put_packet(buf, NFPROTO_IPV4, NULL, 3, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 0);
}

/* What the kernel sends for a packet logged at the output hook (a host
 * socket of a guarded user or cgroup): NFULA_PACKET_HDR with the hook, no
 * input device, the output device, and the socket's owner. hdr_len and
 * uid_len let a test cut those attributes short. */
static size_t put_output(uint8_t *buf, const char *prefix, uint8_t hook, size_t hdr_len,
			 uint32_t uid, size_t uid_len, const uint8_t *pkt, size_t plen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfulnl_msg_packet_hdr ph = { .hw_protocol = htons(0x0800), .hook = hook };
	uint32_t be_uid = htonl(uid), be_gid = htonl(uid + 1);
	struct nfgenmsg *g;

	nlh->nlmsg_type = NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_PACKET;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = NFPROTO_IPV4;
	mnl_attr_put(nlh, NFULA_PACKET_HDR, hdr_len, &ph);
	mnl_attr_put_strz(nlh, NFULA_PREFIX, prefix);
	mnl_attr_put_u32(nlh, NFULA_IFINDEX_OUTDEV, htonl(2));
	mnl_attr_put(nlh, NFULA_UID, uid_len, &be_uid);
	mnl_attr_put(nlh, NFULA_GID, sizeof(be_gid), &be_gid);
	mnl_attr_put(nlh, NFULA_PAYLOAD, plen, pkt);
	return nlh->nlmsg_len;
}

static void test_output_hook_uid(void **state)
{
	uint8_t buf[1024];
	struct sw_blocked b[4];
	size_t len;

	(void)state;
	len = put_output(buf, "sandwall:host ", NF_INET_LOCAL_OUT, sizeof(struct nfulnl_msg_packet_hdr),
			 42001, 4, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_string_equal(b[0].category, "host");
	assert_true(b[0].has_hook);
	assert_int_equal(b[0].hook, NF_INET_LOCAL_OUT);
	assert_true(sw_blocked_is_output(&b[0]));
	assert_int_equal(b[0].iif, 0);
	assert_int_equal(b[0].oif, 2);
	assert_true(b[0].has_uid);
	assert_int_equal(b[0].uid, 42001);
	assert_true(b[0].has_gid);
	assert_int_equal(b[0].gid, 42002);
	assert_int_equal(b[0].dport, 80);
	/* root's socket: uid 0 is a uid, not "none" */
	len = put_output(buf, "sandwall:host ", NF_INET_LOCAL_OUT, sizeof(struct nfulnl_msg_packet_hdr),
			 0, 4, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_true(b[0].has_uid);
	assert_int_equal(b[0].uid, 0);
	/* the prerouting hook is not the output path */
	len = put_output(buf, "sandwall:host ", NF_INET_PRE_ROUTING,
			 sizeof(struct nfulnl_msg_packet_hdr), 7, 4, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_false(sw_blocked_is_output(&b[0]));
	/* no packet header at all (the bridge tests' messages): not output */
	len = put_packet(buf, NFPROTO_IPV4, "sandwall:host ", 3, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_false(b[0].has_hook);
	assert_false(b[0].has_uid);
	assert_false(sw_blocked_is_output(&b[0]));
}

static void test_output_short_attrs(void **state)
{
	uint8_t buf[1024];
	struct sw_blocked b[4];
	size_t len;

	(void)state;
	/* a UID of 2 bytes and a packet header of 2 bytes are not read */
	len = put_output(buf, "sandwall:lan ", NF_INET_LOCAL_OUT, 2, 42001, 2, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_string_equal(b[0].category, "lan");
	assert_false(b[0].has_hook);
	assert_false(sw_blocked_is_output(&b[0]));
	assert_false(b[0].has_uid);
	assert_int_equal(b[0].uid, 0);
	assert_true(b[0].has_gid);
	/* an empty UID is no uid either */
	len = put_output(buf, "sandwall:lan ", NF_INET_LOCAL_OUT, sizeof(struct nfulnl_msg_packet_hdr),
			 42001, 0, tcp4, sizeof(tcp4));
	assert_int_equal(sw_nflog_parse(buf, len, b, 4), 1);
	assert_true(sw_blocked_is_output(&b[0]));
	assert_false(b[0].has_uid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_payload),
		cmocka_unit_test(test_v4_tcp),
		cmocka_unit_test(test_v6_udp_and_foreign_prefix),
		cmocka_unit_test(test_truncated_and_fragment),
		cmocka_unit_test(test_output_hook_uid),
		cmocka_unit_test(test_output_short_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
