/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for hoststate: resolv.conf parsing, the resolver file reader
 * and the link lookup. No kernel needed. */
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
#include <unistd.h>

#include <net/if.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "host/hoststate.h"
#include "lib/grow.h"

/* Assert that p is exactly the full-length address text. */
static void assert_addr(const struct sw_prefix *p, const char *text)
{
	uint8_t want[16] = { 0 };

	if (strchr(text, ':')) {
		assert_int_equal(inet_pton(AF_INET6, text, want), 1);
		assert_int_equal(p->family, AF_INET6);
		assert_int_equal(p->len, 128);
	} else {
		assert_int_equal(inet_pton(AF_INET, text, want), 1);
		assert_int_equal(p->family, AF_INET);
		assert_int_equal(p->len, 32);
	}
	assert_memory_equal(p->addr, want, p->family == AF_INET ? 4 : 16);
}

static size_t parse(const char *text, struct sw_prefix *out, size_t max, bool *stub)
{
	size_t n = 99;

	assert_int_equal(sw_resolv_parse(text, out, max, &n, stub), 0);
	return n;
}

static void test_comments_and_options(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	bool stub = true;
	size_t n = parse("# generated\n"
			 "; another comment\n"
			 "search example.com corp\n"
			 "options ndots:2 timeout:1\n"
			 "nameserver 8.8.8.8\n"
			 "  nameserver\t1.1.1.1   # trailing comment\n"
			 "nameserver 9.9.9.9;semicolon comment\n"
			 "#nameserver 5.5.5.5\n"
			 "domain example.com\n",
			 r, SW_MAX_RESOLVERS, &stub);

	(void)state;
	assert_int_equal(n, 3);
	assert_addr(&r[0], "8.8.8.8");
	assert_addr(&r[1], "1.1.1.1");
	assert_addr(&r[2], "9.9.9.9");
	assert_false(stub);
}

static void test_ipv6_and_zone(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	size_t n = parse("nameserver 2001:4860:4860::8888\n"
			 "nameserver fe80::1%eth0\n"
			 "nameserver fd00:ec2::253 # aws\n"
			 "nameserver 192.0.2.53\r\n",
			 r, SW_MAX_RESOLVERS, NULL);

	(void)state;
	assert_int_equal(n, 4);
	assert_addr(&r[0], "2001:4860:4860::8888");
	assert_addr(&r[1], "fe80::1");
	assert_addr(&r[2], "fd00:ec2::253");
	assert_addr(&r[3], "192.0.2.53");
}

static void test_stub(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	bool stub = false;
	size_t n = parse("# This is /run/systemd/resolve/stub-resolv.conf\n"
			 "nameserver 127.0.0.53\n"
			 "options edns0 trust-ad\n"
			 "search .\n",
			 r, SW_MAX_RESOLVERS, &stub);

	(void)state;
	assert_int_equal(n, 0);
	assert_true(stub);

	/* stub among real servers: the stub is still skipped */
	stub = false;
	n = parse("nameserver 10.0.0.2\nnameserver 127.0.0.53\n", r, SW_MAX_RESOLVERS, &stub);
	assert_int_equal(n, 1);
	assert_addr(&r[0], "10.0.0.2");
	assert_true(stub);
}

static void test_loopback_skipped(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	bool stub = true;
	size_t n = parse("nameserver 127.0.0.1\n"
			 "nameserver ::1\n"
			 "nameserver 127.1.2.3\n"
			 "nameserver ::ffff:127.0.0.1\n"
			 "nameserver 0.0.0.0\n"
			 "nameserver ::\n"
			 "nameserver 128.0.0.1\n"
			 "nameserver 2001:db8::1",          /* no final newline */
			 r, SW_MAX_RESOLVERS, &stub);

	(void)state;
	assert_int_equal(n, 2);
	assert_addr(&r[0], "128.0.0.1");
	assert_addr(&r[1], "2001:db8::1");
	assert_false(stub);
}

static void test_malformed_lines(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	size_t n = parse("nameserver\n"
			 "nameserver   \n"
			 "nameserver 300.1.1.1\n"
			 "nameserver 10.0.0.0/8\n"
			 "nameserver 10.0.0.7/32\n"
			 "nameservers 1.2.3.4\n"
			 "nameserver1.2.3.4\n"
			 "NAMESERVER 1.2.3.4\n"
			 "nameserver foo.example\n"
			 "nameserver 1.2.3.4%eth0\n"
			 "nameserver 1.2.3\n"
			 "nameserver 2001:db8::1::2\n"
			 "nameserver 0123456789012345678901234567890123456789012345678901234567890123456789\n"
			 "\n"
			 "garbage\n"
			 "nameserver 10.0.0.1\n",
			 r, SW_MAX_RESOLVERS, NULL);

	(void)state;
	assert_int_equal(n, 1);
	assert_addr(&r[0], "10.0.0.1");
}

static void test_duplicates(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	size_t n = parse("nameserver 10.0.0.1\nnameserver 10.0.0.1\n"
			 "nameserver fe80::1%eth0\nnameserver fe80::1%eth1\n",
			 r, SW_MAX_RESOLVERS, NULL);

	(void)state;
	assert_int_equal(n, 2);
	assert_addr(&r[0], "10.0.0.1");
	assert_addr(&r[1], "fe80::1");
}

static void test_max_capacity(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS + 1], sentinel;
	char text[2048] = "", line[64];
	size_t n;

	(void)state;
	for (int i = 1; i <= SW_MAX_RESOLVERS + 4; i++) {
		snprintf(line, sizeof(line), "nameserver 192.0.2.%d\n", i);
		strcat(text, line);
	}
	memset(&sentinel, 0xa5, sizeof(sentinel));
	r[SW_MAX_RESOLVERS] = sentinel;
	n = parse(text, r, SW_MAX_RESOLVERS, NULL);
	assert_int_equal(n, SW_MAX_RESOLVERS);
	assert_addr(&r[0], "192.0.2.1");
	assert_addr(&r[SW_MAX_RESOLVERS - 1], "192.0.2.16");
	assert_memory_equal(&r[SW_MAX_RESOLVERS], &sentinel, sizeof(sentinel));

	/* a small buffer: first two kept, nothing written past it */
	r[2] = sentinel;
	n = parse(text, r, 2, NULL);
	assert_int_equal(n, 2);
	assert_addr(&r[0], "192.0.2.1");
	assert_addr(&r[1], "192.0.2.2");
	assert_memory_equal(&r[2], &sentinel, sizeof(sentinel));

	/* max 0: nothing stored, stub still reported */
	{
		bool stub = false;

		n = parse("nameserver 1.1.1.1\nnameserver 127.0.0.53\n", NULL, 0, &stub);
		assert_int_equal(n, 0);
		assert_true(stub);
	}
}

static void test_empty_and_invalid(void **state)
{
	struct sw_prefix r[2];
	size_t n = 5;

	(void)state;
	assert_int_equal(parse("", r, 2, NULL), 0);
	assert_int_equal(parse("\n\n\n", r, 2, NULL), 0);
	assert_int_equal(sw_resolv_parse(NULL, r, 2, &n, NULL), -EINVAL);
	assert_int_equal(sw_resolv_parse("", r, 2, NULL, NULL), -EINVAL);
}

/* An empty host with room for 8 zeroed links (the tests below write
 * links[i] by hand). */
static struct sw_host *new_host(void)
{
	struct sw_host *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	assert_int_equal(sw_grow_to(&h->links, &h->cap_links, 8, sizeof(*h->links)), 0);
	memset(h->links, 0, 8 * sizeof(*h->links));
	return h;
}

static void host_free(struct sw_host *h)
{
	sw_host_free(h);
	free(h);
}

static void test_read_resolvers_file(void **state)
{
	char path[] = "/tmp/sw_test_resolv_XXXXXX";
	const char text[] = "nameserver 203.0.113.7\nnameserver 2001:db8::53\nnameserver 127.0.0.1\n";
	struct sw_host *h = new_host();
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);

	h->n_resolvers = 7;
	assert_int_equal(setenv("SANDWALL_RESOLV_CONF", path, 1), 0);
	assert_int_equal(sw_host_read_resolvers(h), 0);
	assert_int_equal(h->n_resolvers, 2);
	assert_addr(&h->resolvers[0], "203.0.113.7");
	assert_addr(&h->resolvers[1], "2001:db8::53");

	/* a missing file is not an error: no resolvers */
	unlink(path);
	h->n_resolvers = 7;
	assert_int_equal(sw_host_read_resolvers(h), 0);
	assert_int_equal(h->n_resolvers, 0);
	unsetenv("SANDWALL_RESOLV_CONF");
	host_free(h);
}

static void test_link_lookup(void **state)
{
	struct sw_host *h = new_host();
	const struct sw_link *l;

	(void)state;
	h->links[0] = (struct sw_link){ .ifindex = 1, .name = "lo", .up = true };
	h->links[1] = (struct sw_link){ .ifindex = 7, .name = "docker0", .is_bridge = true };
	h->links[2] = (struct sw_link){ .ifindex = 3, .name = "eth0", .up = true };
	h->n_links = 2;

	l = sw_host_link(h, 7);
	assert_non_null(l);
	assert_ptr_equal(l, &h->links[1]);
	assert_string_equal(l->name, "docker0");
	assert_true(l->is_bridge);
	assert_false(l->up);
	assert_ptr_equal(sw_host_link(h, 1), &h->links[0]);
	assert_null(sw_host_link(h, 3));      /* beyond n_links */
	assert_null(sw_host_link(h, 0));
	host_free(h);
}

/* ---- RTM_NEWLINK parsing (crafted messages) --------------------------------- */

struct lmsg {
	char buf[1024];
	struct nlmsghdr *nlh;
};

/* A link message: index, name, flags; the rest is added by the caller. */
static struct nlmsghdr *lmsg_start(struct lmsg *m, int idx, const char *name, unsigned flags)
{
	struct ifinfomsg *ifm;

	memset(m->buf, 0, sizeof(m->buf));
	m->nlh = mnl_nlmsg_put_header(m->buf);
	m->nlh->nlmsg_type = RTM_NEWLINK;
	ifm = mnl_nlmsg_put_extra_header(m->nlh, sizeof(*ifm));
	ifm->ifi_index = idx;
	ifm->ifi_flags = flags;
	if (name)
		mnl_attr_put_strz(m->nlh, IFLA_IFNAME, name);
	return m->nlh;
}

/* IFLA_LINKINFO { IFLA_INFO_KIND kind [IFLA_INFO_DATA { IFLA_TUN_TYPE tuntype }] } */
static void lmsg_kind(struct lmsg *m, const char *kind, int tuntype)
{
	struct nlattr *li = mnl_attr_nest_start(m->nlh, IFLA_LINKINFO), *d;

	mnl_attr_put_strz(m->nlh, IFLA_INFO_KIND, kind);
	if (tuntype >= 0) {
		d = mnl_attr_nest_start(m->nlh, IFLA_INFO_DATA);
		mnl_attr_put_u8(m->nlh, IFLA_TUN_TYPE, (uint8_t)tuntype);
		mnl_attr_nest_end(m->nlh, d);
	}
	mnl_attr_nest_end(m->nlh, li);
}

static const struct sw_link *add(struct sw_host *h, struct lmsg *m)
{
	assert_int_equal(sw_host_add_link_msg(h, m->nlh, m->nlh->nlmsg_len), 0);
	return &h->links[h->n_links - 1];
}

static void test_link_msgs(void **state)
{
	struct sw_host *h = new_host();
	const struct sw_link *l;
	struct lmsg m;

	(void)state;
	/* lo: no kind, IFF_LOOPBACK */
	lmsg_start(&m, 1, "lo", IFF_UP | IFF_LOOPBACK);
	l = add(h, &m);
	assert_true(l->loopback);
	assert_true(l->up);
	assert_int_equal(l->kind, SW_LINK_OTHER);
	/* a bridge */
	lmsg_start(&m, 3, "docker0", IFF_UP);
	lmsg_kind(&m, "bridge", -1);
	l = add(h, &m);
	assert_int_equal(l->kind, SW_LINK_BRIDGE);
	assert_true(l->is_bridge);
	assert_false(l->loopback);
	/* a bridged veth: master, peer in another namespace */
	lmsg_start(&m, 5, "vethc1", IFF_UP);
	mnl_attr_put_u32(m.nlh, IFLA_MASTER, 3);
	mnl_attr_put_u32(m.nlh, IFLA_LINK_NETNSID, 0);
	lmsg_kind(&m, "veth", -1);
	l = add(h, &m);
	assert_int_equal(l->kind, SW_LINK_VETH);
	assert_int_equal(l->master, 3);
	assert_true(l->peer_netns);
	/* a routed veth: no master */
	lmsg_start(&m, 6, "cali0123456789a", IFF_UP);
	mnl_attr_put_u32(m.nlh, IFLA_LINK_NETNSID, 7);
	lmsg_kind(&m, "veth", -1);
	l = add(h, &m);
	assert_int_equal(l->master, 0);
	assert_true(l->peer_netns);
	assert_string_equal(l->name, "cali0123456789a");
	/* a veth pair inside this namespace: no IFLA_LINK_NETNSID */
	lmsg_start(&m, 7, "cilium_host", IFF_UP);
	lmsg_kind(&m, "veth", -1);
	assert_false(add(h, &m)->peer_netns);
	/* tun and tap share the kind "tun"; IFLA_TUN_TYPE tells them apart */
	lmsg_start(&m, 8, "fc-tap0", IFF_UP);
	lmsg_kind(&m, "tun", IFF_TAP);
	assert_int_equal(add(h, &m)->kind, SW_LINK_TAP);
	lmsg_start(&m, 9, "tun0", IFF_UP);
	lmsg_kind(&m, "tun", IFF_TUN);
	assert_int_equal(add(h, &m)->kind, SW_LINK_TUN);
	lmsg_start(&m, 10, "tun1", IFF_UP);
	lmsg_kind(&m, "tun", -1);       /* no type (before Linux 4.15): not a tap */
	assert_int_equal(add(h, &m)->kind, SW_LINK_TUN);
	/* the other kinds */
	static const struct { const char *kind; enum sw_link_kind k; } kinds[] = {
		{ "macvlan", SW_LINK_MACVLAN }, { "macvtap", SW_LINK_MACVLAN },
		{ "ipvlan", SW_LINK_IPVLAN }, { "vxlan", SW_LINK_VXLAN },
		{ "wireguard", SW_LINK_WIREGUARD }, { "dummy", SW_LINK_OTHER },
		{ "bridg", SW_LINK_OTHER }, { "bridge0", SW_LINK_OTHER }, { "", SW_LINK_OTHER },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
		lmsg_start(&m, 20 + (int)i, "x", 0);
		lmsg_kind(&m, kinds[i].kind, -1);
		assert_int_equal(add(h, &m)->kind, kinds[i].k);
	}
	assert_string_equal(sw_link_kind_name(SW_LINK_TAP), "tap");
	assert_string_equal(sw_link_kind_name(SW_LINK_KIND_COUNT), "other");
	host_free(h);
}

/* Lengths from outside are never trusted. */
static void test_link_msgs_malformed(void **state)
{
	struct sw_host *h = new_host();
	struct lmsg m;
	struct nlattr *a;

	(void)state;
	/* a master of the wrong size is ignored, not read past */
	lmsg_start(&m, 4, "v", 0);
	a = (struct nlattr *)((char *)m.nlh + m.nlh->nlmsg_len);
	mnl_attr_put_u16(m.nlh, IFLA_MASTER, 3);
	(void)a;
	mnl_attr_put_u16(m.nlh, IFLA_LINK_NETNSID, 1);
	assert_int_equal(add(h, &m)->master, 0);
	assert_false(h->links[0].peer_netns);
	/* a kind without its NUL, the payload's end is the end */
	lmsg_start(&m, 5, "b", 0);
	{
		struct nlattr *li = mnl_attr_nest_start(m.nlh, IFLA_LINKINFO);
		mnl_attr_put(m.nlh, IFLA_INFO_KIND, 6, "bridge");
		mnl_attr_nest_end(m.nlh, li);
	}
	assert_int_equal(add(h, &m)->kind, SW_LINK_BRIDGE);
	/* a tun type of the wrong size: not a tap */
	lmsg_start(&m, 6, "t", 0);
	{
		struct nlattr *li = mnl_attr_nest_start(m.nlh, IFLA_LINKINFO), *d;
		mnl_attr_put_strz(m.nlh, IFLA_INFO_KIND, "tun");
		d = mnl_attr_nest_start(m.nlh, IFLA_INFO_DATA);
		mnl_attr_put_u32(m.nlh, IFLA_TUN_TYPE, IFF_TAP);
		mnl_attr_nest_end(m.nlh, d);
		mnl_attr_nest_end(m.nlh, li);
	}
	assert_int_equal(add(h, &m)->kind, SW_LINK_TUN);
	/* an attribute whose length runs past the message: libmnl's walk
	 * stops there, nothing of it is read */
	lmsg_start(&m, 7, "y", 0);
	a = (struct nlattr *)((char *)m.nlh + m.nlh->nlmsg_len);
	mnl_attr_put_u32(m.nlh, IFLA_MASTER, 3);
	a->nla_len = 200;
	assert_int_equal(add(h, &m)->master, 0);
	/* a message longer than the buffer given, or shorter than its header */
	lmsg_start(&m, 8, "z", 0);
	assert_int_equal(sw_host_add_link_msg(h, m.nlh, m.nlh->nlmsg_len - 1), -EPROTO);
	assert_int_equal(sw_host_add_link_msg(h, m.nlh, 8), -EPROTO);
	/* a payload shorter than struct ifinfomsg: ignored */
	m.nlh->nlmsg_len = (uint32_t)mnl_nlmsg_size(4);
	assert_int_equal(sw_host_add_link_msg(h, m.nlh, m.nlh->nlmsg_len), 0);
	/* another type: ignored */
	lmsg_start(&m, 9, "w", 0);
	m.nlh->nlmsg_type = RTM_DELLINK;
	assert_int_equal(sw_host_add_link_msg(h, m.nlh, m.nlh->nlmsg_len), 0);
	assert_int_equal(h->n_links, 4);
	/* full: -ENOSPC */
	h->n_links = SW_MAX_LINKS;
	lmsg_start(&m, 10, "f", 0);
	assert_int_equal(sw_host_add_link_msg(h, m.nlh, m.nlh->nlmsg_len), -ENOSPC);
	host_free(h);
}

/* sw_host_copy: the copy has arrays of its own; sw_host_clear keeps them. */
static void test_copy(void **state)
{
	struct sw_host a = { 0 }, b = { 0 };

	(void)state;
	for (int i = 1; i <= 40; i++) {         /* past the first allocation */
		assert_int_equal(sw_host_room_links(&a), 0);
		a.links[a.n_links++] = (struct sw_link){ .ifindex = i };
	}
	assert_int_equal(sw_host_room_addrs(&a), 0);
	a.addrs[a.n_addrs++] = (struct sw_addr){ .ifindex = 2 };
	a.n_gateways = 1;
	assert_int_equal(sw_host_copy(&b, &a), 0);
	assert_ptr_not_equal(a.links, b.links);
	assert_int_equal(b.n_links, 40);
	assert_int_equal(b.links[39].ifindex, 40);
	assert_int_equal(b.n_addrs, 1);
	assert_int_equal(b.n_gateways, 1);
	a.links[0].ifindex = 99;
	assert_int_equal(b.links[0].ifindex, 1);
	sw_host_clear(&b);
	assert_int_equal(b.n_links, 0);
	assert_int_equal(b.n_gateways, 0);
	assert_true(b.cap_links >= 40);
	sw_host_free(&a);
	sw_host_free(&b);
	assert_null(a.links);
}

/* master_bridge and uplink need the whole dump. */
static void test_classify(void **state)
{
	struct sw_host *h = new_host();

	(void)state;
	h->links[0] = (struct sw_link){ .ifindex = 9, .name = "docker0", .is_bridge = true,
					.kind = SW_LINK_BRIDGE };
	h->links[1] = (struct sw_link){ .ifindex = 4, .name = "vethc1", .kind = SW_LINK_VETH,
					.master = 9, .peer_netns = true };
	h->links[2] = (struct sw_link){ .ifindex = 5, .name = "bond-port", .master = 6 };
	h->links[3] = (struct sw_link){ .ifindex = 2, .name = "eth0" };
	h->links[4] = (struct sw_link){ .ifindex = 3, .name = "wg0", .kind = SW_LINK_WIREGUARD };
	h->links[5] = (struct sw_link){ .ifindex = 6, .name = "bond0" };
	h->n_links = 6;
	h->gateways[0].oif = 2;         /* default via 10.0.0.1 dev eth0 */
	h->n_gateways = 1;
	h->uplinks[0] = 3;              /* default dev wg0 (no gateway) */
	h->n_uplinks = 1;
	sw_host_classify(h);
	assert_true(h->links[1].master_bridge);
	assert_false(h->links[2].master_bridge);        /* its master is no bridge */
	assert_false(h->links[0].master_bridge);
	assert_true(h->links[3].uplink);
	assert_true(h->links[4].uplink);
	assert_false(h->links[0].uplink);
	assert_false(h->links[1].uplink);
	host_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comments_and_options),
		cmocka_unit_test(test_ipv6_and_zone),
		cmocka_unit_test(test_stub),
		cmocka_unit_test(test_loopback_skipped),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_max_capacity),
		cmocka_unit_test(test_empty_and_invalid),
		cmocka_unit_test(test_read_resolvers_file),
		cmocka_unit_test(test_link_lookup),
		cmocka_unit_test(test_link_msgs),
		cmocka_unit_test(test_link_msgs_malformed),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
