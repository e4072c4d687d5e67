// SPDX-License-Identifier: GPL-2.0-or-later
/* portbind + bindtable: each bridge port bound to the addresses of its
 * peer in its own namespace (read over the fake rtnetlink with
 * IFA_TARGET_NETNSID), and table bridge NAME built from the bindings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "fake_rtnl.h"
#include <linux/netfilter.h>
#include "sync/bindtable.h"
#include "core/config_check.h"
#include "core/holes.h"
#include "host/hoststate.h"
#include "core/portbind.h"
#include "host/portread.h"

static struct sw_config cfg;
static struct sw_host host;
static struct fr k;
static char err[256];

static void conf(const char *text)
{
	if (sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("config: %s", err);
}

static struct fr_link peer_link(int idx, const char *name, const char *kind, int master,
				int nsid, int peer)
{
	struct fr_link l = fr_mklink(idx, name, kind, true, master);

	l.peer_nsid = nsid >= 0 ? nsid + 1 : 0;
	l.peer_ifindex = peer;
	return l;
}

static void add_foreign(int nsid, int ifindex, const char *text, uint8_t plen)
{
	struct fr_addr a = fr_mkaddr(ifindex, text, plen);

	a.nsid = nsid + 1;
	fr_add_addr(&k, a, false);
}

/* docker0 with c1 (nsid 0) and c3 (nsid 1), a tap, a physical port, and a
 * veth whose peer is in this namespace */
static void topo(void)
{
	fr_init(&k);
	fr_add_link(&k, fr_mklink(1, "lo", NULL, true, 0), false);
	fr_add_link(&k, fr_mklink(2, "eth0", NULL, true, 0), false);
	fr_add_link(&k, fr_mklink(3, "docker0", "bridge", true, 0), false);
	fr_add_link(&k, peer_link(10, "vethc1", "veth", 3, 0, 2), false);
	fr_add_link(&k, peer_link(11, "vethc3", "veth", 3, 1, 7), false);
	fr_add_link(&k, fr_mklink(12, "tap0", "tun", true, 3), false);
	fr_add_link(&k, fr_mklink(13, "eth1", NULL, true, 3), false);
	fr_add_link(&k, peer_link(14, "vethloop", "veth", 3, -1, 15), false);
	fr_add_link(&k, peer_link(20, "vethx", "veth", 0, 0, 9), false);     /* no bridge */
	fr_add_addr(&k, fr_mkaddr(3, "172.17.0.1", 16), false);
	fr_add_addr(&k, fr_mkaddr(2, "10.0.0.2", 24), false);
	/* c1's namespace: its eth0 (2) and its lo (1) */
	add_foreign(0, 2, "172.17.0.2", 16);
	add_foreign(0, 2, "fd00:17::2", 64);
	add_foreign(0, 2, "fe80::2", 64);
	add_foreign(0, 1, "127.0.0.1", 8);
	add_foreign(0, 9, "172.17.9.9", 16);            /* vethx's peer: not a bridge port */
	/* c3's namespace: its eth0 is 7 there */
	add_foreign(1, 7, "172.17.0.3", 16);
	add_foreign(1, 2, "172.17.0.99", 16);           /* another device of c3 */
}

static void read_host(struct sw_nl *nl)
{
	assert_int_equal(sw_nl_open_ops(nl, &fr_dump_ops, &k), 0);
	assert_int_equal(sw_host_dump(nl, &host), 0);
}

static void test_ports(void **state)
{
	struct sw_nl nl;

	(void)state;
	topo();
	conf("[sandbox a]\nsources = 172.17.0.2/32\negress = none\n");
	read_host(&nl);
	assert_true(sw_portbind_wanted(&cfg));
	assert_int_equal(sw_host_link(&host, 10)->netnsid, 0);
	assert_int_equal(sw_host_link(&host, 10)->peer_ifindex, 2);
	assert_int_equal(sw_host_link(&host, 11)->netnsid, 1);
	assert_int_equal(sw_host_link(&host, 3)->netnsid, -1);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 10)), SW_PORT_BOUND);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 11)), SW_PORT_BOUND);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 12)), SW_PORT_UNBOUND);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 13)), SW_PORT_EXEMPT);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 14)), SW_PORT_UNBOUND);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 20)), SW_PORT_NONE);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 3)), SW_PORT_NONE);
	/* nothing keyed on a source: no table */
	conf("[sandbox a]\ninterfaces = docker0\negress = none\n");
	assert_false(sw_portbind_wanted(&cfg));
	conf("[sandbox a]\ninterfaces = docker0\nbudget = 5/minute\n");
	assert_true(sw_portbind_wanted(&cfg));
	sw_nl_close(&nl);
	fr_free(&k);
}

static void test_read(void **state)
{
	struct sw_binds b;
	struct sw_nl nl;
	char a[INET6_ADDRSTRLEN];

	(void)state;
	topo();
	conf("[sandbox a]\nsources = 172.17.0.2/32\negress = none\n");
	read_host(&nl);
	k.n_target_dumps = 0;
	assert_int_equal(sw_portbind_read(&nl, &cfg, &host, &b), 0);
	/* two bound ports, one dump per family each */
	assert_int_equal(k.n_target_dumps, 4);
	/* sorted by port, then family and address; the peer's own device
	 * only; link-local left out */
	assert_int_equal(b.n, 3);
	assert_string_equal(b.v[0].port, "vethc1");
	assert_int_equal(b.v[0].ifindex, 10);
	inet_ntop(AF_INET, b.v[0].addr.addr, a, sizeof(a));
	assert_string_equal(a, "172.17.0.2");
	assert_int_equal(b.v[0].addr.len, 32);
	assert_string_equal(b.v[1].port, "vethc1");
	inet_ntop(AF_INET6, b.v[1].addr.addr, a, sizeof(a));
	assert_string_equal(a, "fd00:17::2");
	assert_int_equal(b.v[1].addr.len, 128);
	assert_string_equal(b.v[2].port, "vethc3");
	inet_ntop(AF_INET, b.v[2].addr.addr, a, sizeof(a));
	assert_string_equal(a, "172.17.0.3");
	{
		struct sw_binds c;

		assert_int_equal(sw_portbind_read(&nl, &cfg, &host, &c), 0);
		assert_true(sw_binds_equal(&b, &c));
		c.v[0].addr.addr[3] = 77;
		assert_false(sw_binds_equal(&b, &c));
		sw_binds_free(&c);
	}
	/* nothing moved: a refresh reads nothing and keeps every entry */
	k.n_target_dumps = 0;
	assert_int_equal(sw_portbind_refresh(&nl, &cfg, &host, &b, NULL, 0, false), 0);
	assert_int_equal(k.n_target_dumps, 0);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.n_ports, 2);
	/* c1 gains an address (SLAAC, a second address): an event from its
	 * namespace (nsid 0) reads its port only */
	add_foreign(0, 2, "172.17.0.20", 16);
	{
		const int32_t ids[] = { 0 };

		assert_int_equal(sw_portbind_refresh(&nl, &cfg, &host, &b, ids, 1, false), 0);
	}
	assert_int_equal(k.n_target_dumps, 2);
	assert_int_equal(b.n, 4);
	assert_string_equal(b.v[0].port, "vethc1");
	assert_string_equal(b.v[3].port, "vethc3");
	/* c3's port moves to another peer: read again without an event */
	for (size_t i = 0; i < host.n_links; i++)
		if (host.links[i].ifindex == 11)
			host.links[i].peer_ifindex = 2;     /* c3's 172.17.0.99 */
	k.n_target_dumps = 0;
	assert_int_equal(sw_portbind_refresh(&nl, &cfg, &host, &b, NULL, 0, false), 0);
	assert_int_equal(k.n_target_dumps, 2);
	assert_int_equal(b.n, 4);
	inet_ntop(AF_INET, b.v[3].addr.addr, a, sizeof(a));
	assert_string_equal(a, "172.17.0.99");
	/* a port no longer bound (its bridge no longer guarded) drops out */
	conf("[guard]\ninterfaces = br-*\n[sandbox a]\nsources = 172.18.0.2/32\n");
	assert_int_equal(sw_portbind_refresh(&nl, &cfg, &host, &b, NULL, 0, false), 0);
	assert_int_equal(b.n, 0);
	assert_int_equal(b.n_ports, 0);
	sw_binds_free(&b);
	sw_nl_close(&nl);
	fr_free(&k);
}

static const char *rule_text(const struct sw_model *m, size_t i)
{
	assert_true(i < m->n_rules);
	return m->rules[i].text;
}

static void test_build(void **state)
{
	static struct sw_model m;
	static const char *const want[] = {
		"iifname @exempt return comment \"sandwall:port-exempt\"",
		"iifname . ip saddr @bind4 return comment \"sandwall:bind4\"",
		"iifname . ip6 saddr @bind6 return comment \"sandwall:bind6\"",
		"ether type arp iifname . arp saddr ip @bind4 return comment \"sandwall:bind-arp\"",
		"arp saddr ip 0.0.0.0 return comment \"sandwall:arp-probe\"",
		"ip6 saddr fe80::/10 ip6 daddr fe80::/10 return comment \"sandwall:link6\"",
		"ip6 saddr fe80::/10 ip6 daddr ff02::/16 return comment \"sandwall:link6-mcast\"",
		"ip6 saddr :: ip6 daddr ff02::/16 meta l4proto ipv6-icmp return comment \"sandwall:dad6\"",
		"counter name \"unbound\" drop comment \"sandwall:unbound\"",
	};
	const struct sw_set *s;
	const struct sw_chain *c;
	struct sw_binds b;
	struct sw_nl nl;

	(void)state;
	topo();
	conf("[sandbox a]\nsources = 172.17.0.2/32\negress = none\n");
	read_host(&nl);
	assert_int_equal(sw_portbind_read(&nl, &cfg, &host, &b), 0);
	assert_int_equal(sw_bindtable_build(&cfg, &host, &b, &m, err, sizeof(err)), 0);
	assert_int_equal(m.family, NFPROTO_BRIDGE);
	assert_string_equal(m.table, "sandwall");
	c = sw_model_find_chain(&m, "prerouting");
	assert_non_null(c);
	assert_true(c->base);
	assert_int_equal(c->hook, 0 /* NF_BR_PRE_ROUTING */);
	assert_int_equal(c->prio, -200);
	assert_int_equal(c->policy, NF_ACCEPT);
	assert_int_equal(m.n_rules, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < m.n_rules; i++)
		assert_string_equal(rule_text(&m, i), want[i]);
	/* the bytecode of the ARP binding: sender IP at network header + 14 */
	assert_string_equal(m.rules[3].canon,
			    "[ payload load 2b @ link header + 12 => reg 1 ] "
			    "[ cmp eq reg 1 0x00000608 ] [ meta load iifname => reg 1 ] "
			    "[ payload load 4b @ network header + 14 => reg 2 ] "
			    "[ lookup reg 1 set bind4 0x0 ] [ immediate reg 0 return ]");
	assert_true(sw_model_find_counter(&m, "unbound") >= 0);
	/* the sets: exempt has the physical port only; the tap and the
	 * veth with both ends here are in no set (they drop) */
	s = sw_model_find_set(&m, "exempt");
	assert_non_null(s);
	assert_int_equal(s->n_elems, 1);
	assert_string_equal(s->text[0], "\"eth1\"");
	s = sw_model_find_set(&m, "bind4");
	assert_non_null(s);
	assert_int_equal(s->key_len, 20);
	assert_int_equal(s->n_concat, 2);
	assert_int_equal(s->n_elems, 2);
	assert_string_equal(s->text[0], "\"vethc1\" . 172.17.0.2");
	assert_string_equal(s->text[1], "\"vethc3\" . 172.17.0.3");
	assert_memory_equal(s->elems[0].key, "vethc1\0\0\0\0\0\0\0\0\0\0\xac\x11\x00\x02", 20);
	s = sw_model_find_set(&m, "bind6");
	assert_non_null(s);
	assert_int_equal(s->key_len, 32);
	assert_int_equal(s->n_elems, 1);
	assert_string_equal(s->text[0], "\"vethc1\" . fd00:17::2");
	sw_model_free(&m);
	/* no bindings at all: the sets are empty and every port drops */
	assert_int_equal(sw_bindtable_build(&cfg, &host, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(sw_model_find_set(&m, "bind4")->n_elems, 0);
	sw_model_free(&m);
	sw_binds_free(&b);
	sw_nl_close(&nl);
	fr_free(&k);
}

static void hlink(struct sw_host *h, int idx, const char *name, enum sw_link_kind kind, int master)
{
	struct sw_link *l;

	assert_int_equal(sw_host_room_links(h), 0);
	l = &h->links[h->n_links++];
	memset(l, 0, sizeof(*l));

	l->ifindex = idx;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = kind;
	l->is_bridge = kind == SW_LINK_BRIDGE;
	l->up = true;
	l->master = master;
	l->peer_netns = kind == SW_LINK_VETH;
	l->netnsid = l->peer_netns ? 0 : -1;
}

static void haddr(struct sw_host *h, int idx, const char *text, uint8_t len)
{
	struct sw_addr *a;

	assert_int_equal(sw_host_room_addrs(h), 0);
	a = &h->addrs[h->n_addrs++];
	memset(a, 0, sizeof(*a));

	assert_int_equal(sw_prefix_parse(text, &a->local, NULL), 0);
	a->local.len = len;
	a->ifindex = idx;
}

static void hroute(struct sw_host *h, int oif, const char *text)
{
	struct sw_route *r;

	assert_int_equal(sw_host_room_routes(h), 0);
	r = &h->routes[h->n_routes++];
	memset(r, 0, sizeof(*r));

	assert_int_equal(sw_prefix_parse(text, &r->dst, NULL), 0);
	r->oif = oif;
}

/* where no binding can be known, a sources entry narrower than the
 * interface's subnet is refused with FILE:LINE */
static void test_refuse_sources(void **state)
{
	static struct sw_host h;

	(void)state;
	memset(&h, 0, sizeof(h));
	hlink(&h, 1, "lo", SW_LINK_OTHER, 0);
	hlink(&h, 2, "eth0", SW_LINK_OTHER, 0);
	hlink(&h, 3, "docker0", SW_LINK_BRIDGE, 0);
	hlink(&h, 4, "tap0", SW_LINK_TAP, 0);
	hlink(&h, 5, "cali1", SW_LINK_VETH, 0);
	hlink(&h, 6, "cali2", SW_LINK_VETH, 0);
	haddr(&h, 2, "10.0.0.2", 24);
	haddr(&h, 3, "172.17.0.1", 16);
	haddr(&h, 4, "10.9.0.1", 24);
	hroute(&h, 5, "172.29.0.5/32");         /* Calico: one address per veth */
	hroute(&h, 6, "172.30.0.0/24");         /* a routed veth with a subnet */
	sw_host_classify(&h);
	/* on a bridge: bound per port, fine */
	conf("[sandbox a]\nsources = 172.17.0.2/32\negress = none\n");
	assert_int_equal(sw_portbind_check_sources(&cfg, &h, err, sizeof(err)), 0);
	/* the whole subnet of a tap, or a /32 route's own address: fine */
	conf("[sandbox a]\nsources = 10.9.0.0/24 172.29.0.5/32\n");
	assert_int_equal(sw_portbind_check_sources(&cfg, &h, err, sizeof(err)), 0);
	/* the uplink is not guarded: nothing to hold there */
	conf("[sandbox a]\nsources = 10.0.0.7/32\n");
	assert_int_equal(sw_portbind_check_sources(&cfg, &h, err, sizeof(err)), 0);
	/* narrower than the tap's subnet: refused, with the entry's line */
	conf("[sandbox a]\negress = none\nsources = 172.17.0.2/32,\n  10.9.0.5/32\n");
	assert_int_equal(sw_portbind_check_sources(&cfg, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:4: [sandbox a] sources 10.9.0.5 is narrower than "
				    "10.9.0.0/24 of tap0 (tap), where no per-port binding can be known"));
	/* narrower than a routed veth's connected route */
	conf("[sandbox b]\nsources = 172.30.0.9/32\n");
	assert_int_equal(sw_portbind_check_sources(&cfg, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2: [sandbox b] sources 172.30.0.9 is narrower than "
				    "172.30.0.0/24 of cali2 (veth)"));
	/* and through the host check that apply, check and the daemon run */
	assert_int_equal(sw_config_check_host(&cfg, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2:"));
	sw_host_free(&h);
}

/* the bridge's own port messages (AF_BRIDGE) change no link: a veth port
 * would otherwise read as kind "other" (and be exempted), and a port
 * leaving the bridge as a link gone */
static void test_bridge_port_messages(void **state)
{
	struct sw_host_delta dl = { 0 };
	struct fr_link l = fr_mklink(10, "vethc1", NULL, true, 3);
	uint8_t buf[1024] = { 0 };
	struct ifinfomsg *ifm;
	size_t len;
	struct sw_nl nl;

	(void)state;
	topo();
	conf("[sandbox a]\nsources = 172.17.0.2/32\n");
	read_host(&nl);
	len = fr_put_link(buf, RTM_NEWLINK, 0, 0, &l);
	ifm = mnl_nlmsg_get_payload((struct nlmsghdr *)buf);
	ifm->ifi_family = AF_BRIDGE;
	assert_int_equal(sw_host_apply_rtnl(&host, buf, len, &dl), 0);
	sw_host_classify(&host);
	assert_int_equal(sw_host_link(&host, 10)->kind, SW_LINK_VETH);
	assert_int_equal(sw_portbind_port(&cfg, &host, sw_host_link(&host, 10)), SW_PORT_BOUND);
	((struct nlmsghdr *)buf)->nlmsg_type = RTM_DELLINK;
	assert_int_equal(sw_host_apply_rtnl(&host, buf, len, &dl), 0);
	assert_non_null(sw_host_link(&host, 10));
	assert_int_equal(dl.changes, 0);
	/* the link's own message still counts */
	ifm->ifi_family = AF_UNSPEC;
	assert_int_equal(sw_host_apply_rtnl(&host, buf, len, &dl), 0);
	assert_null(sw_host_link(&host, 10));
	sw_nl_close(&nl);
	fr_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_refuse_sources),
		cmocka_unit_test(test_bridge_port_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
