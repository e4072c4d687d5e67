// SPDX-License-Identifier: GPL-2.0-or-later
/* verify's plan: which targets must be blocked (metadata, gateways, LAN,
 * host), which canaries must stay open, and per run the attacks and the
 * sandbox rows (include/cli/verify.h). Pure but for the listening ports
 * (/proc) and the neighbour table (rtnetlink) it reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "cli/verify_int.h"
#include "core/endpoints.h"
#include "core/ruleset.h"
#include "lib/addr.h"
#include "lib/log.h"

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int sw_verify_listening(uint16_t *ports, size_t max, size_t *n)
{
	static const char *const files[] = { "/proc/self/net/tcp", "/proc/self/net/tcp6" };

	*n = 0;
	for (size_t f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "re");
		char line[512];

		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp)) {
			char *colon, *st;
			unsigned port = 0;
			bool dup = false;

			/* "  0: 00000000:1F90 00000000:0000 0A ..." : state 0A = LISTEN */
			colon = strchr(line, ':');
			if (!colon || !(colon = strchr(colon + 1, ':')))
				continue;
			for (int i = 1; i <= 4 && hexval(colon[i]) >= 0; i++)
				port = port * 16 + (unsigned)hexval(colon[i]);
			st = colon + 5;
			while (*st == ' ')
				st++;
			st = strchr(st, ' ');
			if (!st || strncmp(st + 1, "0A", 2) || !port)
				continue;
			for (size_t i = 0; i < *n && !dup; i++)
				dup = ports[i] == port;
			if (!dup && *n < max)
				ports[(*n)++] = (uint16_t)port;
		}
		fclose(fp);
	}
	return 0;
}

/* A verify row is a block category of the table (named by the category
 * table, config.h) or one of verify's own checks. */
static const struct {
	int cat;                        /* enum sw_category, or -1 */
	const char *name;               /* verify's own rows */
} vcats[SW_VCAT_COUNT] = {
	[SW_VCAT_METADATA] = { SW_CAT_METADATA, NULL },
	[SW_VCAT_GATEWAYS] = { SW_CAT_GATEWAYS, NULL },
	[SW_VCAT_LAN] = { SW_CAT_LAN, NULL },
	[SW_VCAT_HOST] = { SW_CAT_HOST, NULL },
	[SW_VCAT_SPOOFED] = { SW_CAT_SPOOFED, NULL },
	[SW_VCAT_EXPECT_OPEN] = { -1, "expect-open" },
	[SW_VCAT_ND] = { -1, "nd" },
	[SW_VCAT_BROADCAST] = { -1, "broadcast" },
	[SW_VCAT_EGRESS] = { -1, "egress" },
	[SW_VCAT_ALLOWED] = { -1, "allowed" },
	[SW_VCAT_BUDGET] = { -1, "budget" },
	[SW_VCAT_CONNS] = { -1, "max_connections" },
};

const char *sw_vcat_name(enum sw_vcat c)
{
	if ((unsigned)c >= SW_VCAT_COUNT)
		return "?";
	return vcats[c].cat >= 0 ? sw_category_name((enum sw_category)vcats[c].cat) : vcats[c].name;
}

int sw_vcat_category(enum sw_vcat c)
{
	return (unsigned)c < SW_VCAT_COUNT ? vcats[c].cat : -1;
}

bool sw_verify_allowed(const struct sw_config *cfg, const struct sw_host *host,
		       const struct sw_prefix *a, uint16_t port, bool host_addr)
{
	/* dns = auto opens tcp/53 to the resolvers */
	for (size_t i = 0; cfg->dns == SW_DNS_AUTO && port == 53 && i < host->n_resolvers; i++)
		if (sw_prefix_contains(&host->resolvers[i], a))
			return true;
	for (size_t i = 0; i < cfg->n_allows; i++)
		if (cfg->allows[i].port.proto == IPPROTO_TCP && cfg->allows[i].port.port == port &&
		    sw_prefix_contains(&cfg->allows[i].dst, a))
			return true;
	for (size_t i = 0; host_addr && i < cfg->n_host_ports; i++)
		if (cfg->host_ports[i].proto == IPPROTO_TCP && cfg->host_ports[i].port == port)
			return true;
	return false;
}

static int add(struct sw_verify *v, enum sw_vcat cat, bool must_block, const struct sw_prefix *a,
	       uint16_t port)
{
	struct sw_verify_target *t;

	for (size_t i = 0; i < v->n; i++)
		if (sw_prefix_equal(&v->t[i].probe.addr, a) && v->t[i].probe.port == port)
			return 0;       /* once, under its first category */
	if (v->n >= SW_VERIFY_MAX)
		return -ENOSPC;
	t = &v->t[v->n++];
	memset(t, 0, sizeof(*t));
	t->cat = cat;
	t->must_block = must_block;
	t->probe.addr = *a;
	t->probe.port = port;
	return 0;
}

static bool v6_linklocal(const struct sw_prefix *p)
{
	return p->family == AF_INET6 && p->addr[0] == 0xfe && (p->addr[1] & 0xc0) == 0x80;
}

int sw_verify_plan(const struct sw_config *cfg, const struct sw_host *host,
		   const uint16_t *ports, size_t n_ports,
		   char *const *expect_open, size_t n_open,
		   struct sw_verify *v, char *err, size_t errlen)
{
	struct sw_prefix meta[64];
	size_t n_meta = 0;
	int rc;

	v->n = 0;
	v->n_src = 0;
	v->sandboxes = 0;
	v->link[0] = '\0';
	v->why = v->site = NULL;
	/* metadata endpoints (port 80: where IMDS answers) */
	if ((rc = sw_endpoints_metadata(meta, 64, &n_meta)))
		goto fail;
	for (size_t i = 0; i < n_meta; i++)
		/* a link-local v6 endpoint lives on the host's link, not on the
		 * containers' bridge: fe80::/10 is covered by link_local */
		if (!v6_linklocal(&meta[i]) && !sw_verify_allowed(cfg, host, &meta[i], 80, false) &&
		    (rc = add(v, SW_VCAT_METADATA, true, &meta[i], 80)))
			goto fail;
	/* default gateways (a link-local one lives on the uplink's link only) */
	for (size_t i = 0; i < host->n_gateways; i++)
		if (!v6_linklocal(&host->gateways[i].addr) &&
		    !sw_verify_allowed(cfg, host, &host->gateways[i].addr, 80, false) &&
		    (rc = add(v, SW_VCAT_GATEWAYS, true, &host->gateways[i].addr, 80)))
			goto fail;
	/* the LAN: the first address of each connected, non-guarded subnet */
	for (size_t i = 0; i < host->n_addrs; i++) {
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);
		struct sw_prefix q = host->addrs[i].local, first;
		size_t alen = sw_family_addrlen(q.family);

		if (!l || sw_ruleset_guarded(cfg, l) || sw_link_is_loopback(l) || v6_linklocal(&q) ||
		    q.len >= alen * 8 - 1)
			continue;
		sw_prefix_mask(&q);
		first = q;
		first.len = (uint8_t)(alen * 8);
		sw_key_inc(first.addr, alen);
		/* not one of the host's own addresses (those are host targets) */
		for (size_t j = 0; j < host->n_addrs && first.len; j++)
			if (host->addrs[j].local.family == first.family &&
			    !memcmp(host->addrs[j].local.addr, first.addr, alen))
				first.len = 0;
		if (first.len && !sw_verify_allowed(cfg, host, &first, 80, false) &&
		    (rc = add(v, SW_VCAT_LAN, true, &first, 80)))
			goto fail;
	}
	/* the host: every address x every listening port (1 if none: a closed
	 * port answers RST when nothing blocks it) */
	for (size_t i = 0; i < host->n_addrs; i++) {
		struct sw_prefix a = host->addrs[i].local;
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);

		a.len = (uint8_t)(sw_family_addrlen(a.family) * 8);
		if ((l && sw_link_is_loopback(l)) || v6_linklocal(&a) ||
		    (a.family == AF_INET && a.addr[0] == 127))
			continue;
		for (size_t p = 0; p <= n_ports; p++) {
			uint16_t port = p < n_ports ? ports[p] : 1;

			if (p == n_ports && n_ports)
				break;
			if (!sw_verify_allowed(cfg, host, &a, port, true) &&
			    (rc = add(v, SW_VCAT_HOST, true, &a, port)) == -ENOSPC) {
				sw_warn("verify: more than %d targets; the rest are not probed", SW_VERIFY_MAX);
				goto canaries;
			}
		}
	}
canaries:
	for (size_t i = 0; i < n_open; i++) {
		struct sw_prefix a;
		uint16_t port;

		int prc = sw_hostport_parse(expect_open[i], &a, &port);

		if (prc) {
			snprintf(err, errlen, "bad --expect-open '%s' (%s)", expect_open[i],
				 prc == -EINVAL ? "use HOST:PORT or [V6]:PORT" : "use an address and a port");
			return -EINVAL;
		}
		for (size_t j = 0; j < v->n; j++)
			if (v->t[j].must_block && sw_prefix_equal(&v->t[j].probe.addr, &a) &&
			    v->t[j].probe.port == port) {
				snprintf(err, errlen, "--expect-open '%s' is a %s target that must be blocked",
					 expect_open[i], sw_vcat_name(v->t[j].cat));
				return -EINVAL;
			}
		if (v->n >= SW_VERIFY_MAX)
			return -ENOSPC;
		memset(&v->t[v->n], 0, sizeof(v->t[0]));
		v->t[v->n].cat = SW_VCAT_EXPECT_OPEN;
		v->t[v->n].probe.addr = a;
		v->t[v->n].probe.port = port;
		v->n++;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot plan the probes: %s", strerror(-rc));
	return rc;
}

static int add_attack(struct sw_verify *v, enum sw_vcat cat, enum sw_attack_kind k, bool bcast_mac,
		      const struct sw_prefix *a, uint16_t port, const char *counter)
{
	struct sw_verify_target *t;

	if (v->n >= SW_VERIFY_MAX)
		return -ENOSPC;
	t = &v->t[v->n++];
	memset(t, 0, sizeof(*t));
	t->cat = cat;
	t->must_block = k != SW_ATK_CANARY;
	t->probe.addr = *a;
	t->probe.addr.len = (uint8_t)(sw_family_addrlen(a->family) * 8);
	t->probe.port = port;
	t->atk.kind = k;
	t->atk.bcast_mac = bcast_mac;
	t->atk.target = t->probe.addr;
	t->atk.port = port;
	snprintf(t->atk.counter, sizeof(t->atk.counter), "%s", counter);
	return 0;
}

/* The first must-block TCP-probe target of this family in one of cats. */
static const struct sw_verify_target *first_target(const struct sw_verify *v, size_t n, int family,
						   const enum sw_vcat *cats, size_t n_cats)
{
	for (size_t c = 0; c < n_cats; c++)
		for (size_t i = 0; i < n; i++)
			if (v->t[i].must_block && v->t[i].atk.kind == SW_ATK_NONE &&
			    v->t[i].probe.addr.family == family && v->t[i].cat == cats[c])
				return &v->t[i];
	return NULL;
}

/* What the attacks aim at, in order (tables, not strings). */
static const enum sw_vcat prime_cats[] = { SW_VCAT_METADATA, SW_VCAT_GATEWAYS, SW_VCAT_HOST };
static const enum sw_vcat nd_cats[] = { SW_VCAT_METADATA, SW_VCAT_GATEWAYS, SW_VCAT_LAN };
/* The priming plan of one target: the kinds and frame destinations, and
 * whether IPv6 runs it (the broadcast MAC is the bridge path: br_netfilter
 * runs the IP hooks on a flooded frame without any routing check; IPv4). */
static const struct prime_step {
	enum sw_attack_kind kind;
	bool bcast_mac;
	bool v6;
} prime_plan[] = {
	{ SW_ATK_PRIME_TCP, false, true },
	{ SW_ATK_PRIME_UDP, false, true },
	{ SW_ATK_PRIME_TCP, true, false },
	{ SW_ATK_PRIME_UDP, true, false },
};

int sw_verify_add_attacks(struct sw_verify *v, bool v6, const struct sw_prefix *bcast,
			  size_t n_bcast, bool canary4, bool canary6, uint16_t canary_port)
{
	static const char *const v4_groups[] = { "255.255.255.255", "224.0.0.1" };
	const size_t n_plan = v->n;
	struct sw_prefix a;
	int rc = 0;

	/* priming: forged source = the target, destination = the probe */
	for (int f = 0; f < (v6 ? 2 : 1) && !rc; f++) {
		int family = f ? AF_INET6 : AF_INET;

		for (size_t c = 0; c < sizeof(prime_cats) / sizeof(*prime_cats) && !rc; c++) {
			const struct sw_verify_target *t = first_target(v, n_plan, family, &prime_cats[c], 1);

			for (size_t s = 0; t && s < sizeof(prime_plan) / sizeof(*prime_plan) && !rc; s++) {
				if (family == AF_INET6 && !prime_plan[s].v6)
					continue;
				a = t->probe.addr;
				rc = add_attack(v, SW_VCAT_SPOOFED, prime_plan[s].kind, prime_plan[s].bcast_mac,
						&a, t->probe.port, sw_category_name(SW_CAT_SPOOFED));
			}
		}
	}
	/* ND with a payload, counted by the category that blocks the target */
	if (v6 && !rc) {
		const struct sw_verify_target *t = first_target(v, n_plan, AF_INET6, nd_cats,
								sizeof(nd_cats) / sizeof(*nd_cats));

		if (t)
			rc = add_attack(v, SW_VCAT_ND, SW_ATK_ND, false, &t->probe.addr, 0,
					sw_vcat_name(t->cat));
	}
	/* broadcast and multicast to the host's canary, after its control */
	if (canary4 && !rc) {
		sw_prefix_parse("127.0.0.1", &a, NULL);
		rc = add_attack(v, SW_VCAT_BROADCAST, SW_ATK_CANARY, false, &a, canary_port, "");
		for (size_t i = 0; i < n_bcast && !rc; i++)
			if (bcast[i].family == AF_INET)
				rc = add_attack(v, SW_VCAT_BROADCAST, SW_ATK_BCAST, false, &bcast[i], canary_port, "");
		for (size_t i = 0; i < 2 && !rc; i++) {
			sw_prefix_parse(v4_groups[i], &a, NULL);
			rc = add_attack(v, SW_VCAT_BROADCAST, SW_ATK_BCAST, false, &a, canary_port, "");
		}
	}
	if (canary6 && !rc) {
		sw_prefix_parse("::1", &a, NULL);
		rc = add_attack(v, SW_VCAT_BROADCAST, SW_ATK_CANARY, false, &a, canary_port, "");
		sw_prefix_parse("ff02::1", &a, NULL);
		if (!rc)
			rc = add_attack(v, SW_VCAT_BROADCAST, SW_ATK_BCAST, false, &a, canary_port, "");
	}
	return rc;
}

/* ---- sandboxes ------------------------------------------------------------ */

/* A sandbox interface pattern: a name, or a prefix and a final '*'. */
static bool pattern_match(const char *pattern, const char *name)
{
	size_t n = strnlen(pattern, SW_IFNAMSIZ);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, name, n - 1);
	return !strncmp(pattern, name, SW_IFNAMSIZ);
}

bool sw_verify_sandbox_allows(const struct sw_sandbox *x, const struct sw_host *host,
			      const struct sw_prefix *a, uint16_t port)
{
	if (x->egress == SW_EGRESS_OPEN)
		return true;
	for (size_t i = 0; x->dns == SW_DNS_AUTO && port == 53 && i < host->n_resolvers; i++)
		if (sw_prefix_contains(&host->resolvers[i], a))
			return true;
	for (size_t i = 0; x->egress == SW_EGRESS_ALLOWLIST && i < x->n_allows; i++)
		if (x->allows[i].port.proto == IPPROTO_TCP && x->allows[i].port.port == port &&
		    sw_prefix_contains(&x->allows[i].dst, a))
			return true;
	return false;
}

#define VSTR_(x) #x
#define VSTR(x) VSTR_(x)

const char *sw_verify_conns_why_not(const struct sw_sandbox *x)
{
	if (x->max_conns > SW_VERIFY_BUDGET_MAX)
		return "above " VSTR(SW_VERIFY_BUDGET_MAX) ", not probed";
	/* the connections under the cap meet the policy's drop (the sink is
	 * unlisted) or a used-up budget: a quarantine on either cuts the
	 * probe off before the one over the cap reaches the count */
	if (x->quarantine_on & SW_Q_EGRESS)
		return "not probed: quarantine_on = egress cuts the probe off before the count";
	if (x->budget && (x->quarantine_on & SW_Q_BUDGET))
		return "not probed: quarantine_on = budget cuts the probe off before the count";
	return NULL;
}

/* Does the policy apply to a namespace behind ifname sending from self? */
static bool sandbox_matches(const struct sw_sandbox *x, const char *ifname,
			    const struct sw_prefix *self4, const struct sw_prefix *self6)
{
	const struct sw_prefix *self[2] = { self4, self6 };

	for (size_t i = 0; ifname && i < x->n_patterns; i++)
		if (pattern_match(x->patterns[i], ifname))
			return true;
	for (int f = 0; f < 2; f++) {
		struct sw_prefix a;

		if (!self[f] || !self[f]->family)
			continue;
		a = *self[f];   /* the address, not its subnet */
		a.len = (uint8_t)(sw_family_addrlen(a.family) * 8);
		for (size_t i = 0; i < x->n_sources; i++)
			if (x->sources[i].family == a.family && sw_prefix_contains(&x->sources[i], &a))
				return true;
	}
	return false;
}

static void own_row(struct sw_verify_target *t, size_t sbx, const struct sw_sandbox *x)
{
	t->sandbox = (int)sbx + 1;
	snprintf(t->sandbox_name, sizeof(t->sandbox_name), "%s", x->name);
}

int sw_verify_add_sandboxes(const struct sw_config *cfg, const struct sw_host *host,
			    struct sw_verify *v, const char *ifname, const struct sw_prefix *self4,
			    const struct sw_prefix *self6, const struct sw_prefix *sink,
			    uint16_t sink_port)
{
	const size_t n_plan = v->n;

	for (size_t b = 0; b < cfg->n_sandboxes && b < 32; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];

		if (!sandbox_matches(x, ifname, self4, self6))
			continue;
		v->in_sandboxes |= 1u << b;
		if (x->egress == SW_EGRESS_OPEN)
			continue;
		v->sandboxes |= 1u << b;
		/* a canary the policy does not let through must be blocked here */
		for (size_t i = 0; i < n_plan; i++) {
			struct sw_verify_target *t = &v->t[i];

			if (t->cat == SW_VCAT_EXPECT_OPEN && t->atk.kind == SW_ATK_NONE &&
			    !sw_verify_sandbox_allows(x, host, &t->probe.addr, t->probe.port)) {
				t->cat = SW_VCAT_EGRESS;
				t->must_block = true;
				own_row(t, b, x);
			}
		}
		/* a destination it does not list: blocked, and counted by it */
		if (sink && sink->family && !sw_verify_sandbox_allows(x, host, sink, sink_port)) {
			char counter[32];
			int rc;

			snprintf(counter, sizeof(counter), "egress_%s", x->name);
			if ((rc = add_attack(v, SW_VCAT_EGRESS, SW_ATK_EGRESS, false, sink, sink_port, counter)))
				return rc;
			own_row(&v->t[v->n - 1], b, x);
			/* a budget drops new connections before the policy does */
			if (x->budget)
				snprintf(v->t[v->n - 1].atk.counter2, sizeof(v->t[0].atk.counter2),
					 "budget_%s", x->name);
			/* one connection over the budget, all at once: counted */
			if (x->budget && x->budget <= SW_VERIFY_BUDGET_MAX) {
				snprintf(counter, sizeof(counter), "budget_%s", x->name);
				if ((rc = add_attack(v, SW_VCAT_BUDGET, SW_ATK_BUDGET, false, sink, sink_port,
						     counter)))
					return rc;
				own_row(&v->t[v->n - 1], b, x);
				v->t[v->n - 1].atk.tries = x->budget + 1;
			}
			/* one connection over max_connections, all at once: the
			 * first N go on to the policy, which drops them (the
			 * sink is unlisted), the next one is the count's */
			if (x->max_conns && !sw_verify_conns_why_not(x)) {
				snprintf(counter, sizeof(counter), "connections_%s", x->name);
				if ((rc = add_attack(v, SW_VCAT_CONNS, SW_ATK_CONNS, false, sink, sink_port,
						     counter)))
					return rc;
				own_row(&v->t[v->n - 1], b, x);
				v->t[v->n - 1].atk.tries = x->max_conns + 1;
			}
		}
		/* what it lists: each single TCP address, reported */
		for (size_t i = 0; x->egress == SW_EGRESS_ALLOWLIST && i < x->n_allows; i++) {
			const struct sw_allow *e = &x->allows[i];
			bool planned = false;

			if (e->port.proto != IPPROTO_TCP || e->dst.len != sw_family_addrlen(e->dst.family) * 8)
				continue;
			for (size_t j = 0; j < v->n && !planned; j++)
				planned = sw_prefix_equal(&v->t[j].probe.addr, &e->dst) &&
					  v->t[j].probe.port == e->port.port && v->t[j].atk.kind == SW_ATK_NONE;
			if (planned)    /* a global target (the globals win) or a canary */
				continue;
			if (v->n >= SW_VERIFY_MAX)
				return -ENOSPC;
			{
				size_t n0 = v->n;

				add(v, SW_VCAT_ALLOWED, false, &e->dst, e->port.port);
				if (v->n > n0)
					own_row(&v->t[v->n - 1], b, x);
			}
		}
	}
	return 0;
}

int sw_verify_plan_loopback(const struct sw_config *cfg, const struct sw_host *host,
			    const uint16_t *ports, size_t n_ports, struct sw_verify *v)
{
	static const char *const lo[] = { "127.0.0.1", "::1" };
	int rc;

	for (size_t i = 0; i < 2; i++) {
		struct sw_prefix a;

		sw_prefix_parse(lo[i], &a, NULL);
		for (size_t p = 0; p < n_ports; p++)
			if (!sw_verify_allowed(cfg, host, &a, ports[p], true) &&
			    (rc = add(v, SW_VCAT_HOST, true, &a, ports[p])) == -ENOSPC)
				return rc;
	}
	return 0;
}

/* ---- LAN peers: the neighbour table ------------------------------------- */

/* A LAN row must probe a peer that exists, or a host that drops
 * everything passes it: the host's neighbours (ARP/NDP entries that are
 * reachable, stale, delayed, probed or permanent) on links that are not
 * guarded, in a subnet connected there, that are no gateway and no
 * address of the host. At most LAN_PEERS per family. */
#define LAN_PEERS 4
struct neigh_walk {
	const struct sw_config *cfg;
	const struct sw_host *host;
	struct sw_verify *v;
	size_t n4, n6;
};

static bool lan_peer_ok(const struct neigh_walk *nw, const struct sw_prefix *a, int ifindex)
{
	const struct sw_link *l = sw_host_link(nw->host, ifindex);
	bool connected = false;

	if (!l || sw_link_is_loopback(l) || sw_ruleset_guarded(nw->cfg, l) ||
	    v6_linklocal(a) || sw_prefix_is_loopback(a))
		return false;
	for (size_t i = 0; i < nw->host->n_gateways; i++)
		if (sw_prefix_equal(&nw->host->gateways[i].addr, a))
			return false;
	for (size_t i = 0; i < nw->host->n_addrs; i++) {
		struct sw_prefix q = nw->host->addrs[i].local, self = q;

		self.len = (uint8_t)(sw_family_addrlen(self.family) * 8);
		if (sw_prefix_equal(&self, a))
			return false;
		sw_prefix_mask(&q);
		if (nw->host->addrs[i].ifindex == ifindex && sw_prefix_contains(&q, a))
			connected = true;
	}
	return connected;
}

static int neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	struct neigh_walk *nw = data;
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	struct nlattr *at;
	struct sw_prefix a;

	if (nlh->nlmsg_type != RTM_NEWNEIGH || mnl_nlmsg_get_payload_len(nlh) < sizeof(*nd) ||
	    (nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6) ||
	    !(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT)))
		return MNL_CB_OK;
	mnl_attr_for_each(at, nlh, sizeof(*nd)) {
		size_t alen = sw_family_addrlen(nd->ndm_family);
		size_t *n = nd->ndm_family == AF_INET ? &nw->n4 : &nw->n6;

		if (mnl_attr_get_type(at) != NDA_DST || mnl_attr_get_payload_len(at) != alen)
			continue;
		memset(&a, 0, sizeof(a));
		a.family = nd->ndm_family;
		a.len = (uint8_t)(alen * 8);
		memcpy(a.addr, mnl_attr_get_payload(at), alen);
		if (*n < LAN_PEERS && lan_peer_ok(nw, &a, nd->ndm_ifindex) &&
		    !sw_verify_allowed(nw->cfg, nw->host, &a, 80, false) &&
		    add(nw->v, SW_VCAT_LAN, true, &a, 80) == 0)
			(*n)++;
	}
	return MNL_CB_OK;
}

/* Add the LAN peers of the neighbour table to the plan: 0 or -errno
 * (nothing added then: the plan's own LAN rows stand). */
int sw_verify_lan_peers(const struct sw_config *cfg, const struct sw_host *host, struct sw_verify *v)
{
	static char buf[32768];
	struct neigh_walk nw = { cfg, host, v, 0, 0 };
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	struct nlmsghdr *nlh;
	struct ndmsg *nd;
	unsigned seq = (unsigned)time(NULL), portid;
	ssize_t n;
	int rc = 0;

	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = AF_UNSPEC;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		rc = -errno;
		goto out;
	}
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		int r = mnl_cb_run(buf, (size_t)n, seq, portid, neigh_cb, &nw);

		if (r <= MNL_CB_STOP) {
			rc = r < 0 ? -errno : 0;
			break;
		}
	}
	if (n < 0)
		rc = -errno;
out:
	mnl_socket_close(nl);
	return rc;
}
