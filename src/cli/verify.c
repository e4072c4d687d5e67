// SPDX-License-Identifier: GPL-2.0-or-later
/* verify: probe the boundary from where the containers are (see
 * include/cli/verify.h). The throwaway namespace is anonymous: it dies with
 * its last file descriptor, so nothing is left behind even on a crash;
 * the veth on the bridge is deleted on every path. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "lib/atomicfile.h"
#include "sync/cgwatch.h"
#include "lib/control.h"
#include "core/coverage.h"
#include "core/diff.h"
#include "core/endpoints.h"
#include "core/holes.h"
#include "lib/json.h"
#include "lib/log.h"
#include "core/model.h"
#include "kernel/nl.h"
#include "kernel/observe.h"
#include "host/rawcap.h"
#include "core/ruleset.h"
#include "kernel/rtlink.h"
#include "cli/verify.h"
#include "sync/bindtable.h"
#include <linux/netfilter.h>

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
};

const char *sw_vcat_name(enum sw_vcat c)
{
	if ((unsigned)c >= SW_VCAT_COUNT)
		return "?";
	return vcats[c].cat >= 0 ? sw_category_name((enum sw_category)vcats[c].cat) : vcats[c].name;
}

static bool allowed(const struct sw_config *cfg, const struct sw_host *host,
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
		if (!v6_linklocal(&meta[i]) && !allowed(cfg, host, &meta[i], 80, false) &&
		    (rc = add(v, SW_VCAT_METADATA, true, &meta[i], 80)))
			goto fail;
	/* default gateways (a link-local one lives on the uplink's link only) */
	for (size_t i = 0; i < host->n_gateways; i++)
		if (!v6_linklocal(&host->gateways[i].addr) &&
		    !allowed(cfg, host, &host->gateways[i].addr, 80, false) &&
		    (rc = add(v, SW_VCAT_GATEWAYS, true, &host->gateways[i].addr, 80)))
			goto fail;
	/* the LAN: the first address of each connected, non-guarded subnet */
	for (size_t i = 0; i < host->n_addrs; i++) {
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);
		struct sw_prefix q = host->addrs[i].local, first;
		size_t alen = sw_family_addrlen(q.family);

		if (!l || sw_ruleset_guarded(cfg, l) || l->loopback || l->ifindex == 1 || v6_linklocal(&q) ||
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
		if (first.len && !allowed(cfg, host, &first, 80, false) &&
		    (rc = add(v, SW_VCAT_LAN, true, &first, 80)))
			goto fail;
	}
	/* the host: every address x every listening port (1 if none: a closed
	 * port answers RST when nothing blocks it) */
	for (size_t i = 0; i < host->n_addrs; i++) {
		struct sw_prefix a = host->addrs[i].local;
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);

		a.len = (uint8_t)(sw_family_addrlen(a.family) * 8);
		if ((l && (l->loopback || l->ifindex == 1)) || v6_linklocal(&a) ||
		    (a.family == AF_INET && a.addr[0] == 127))
			continue;
		for (size_t p = 0; p <= n_ports; p++) {
			uint16_t port = p < n_ports ? ports[p] : 1;

			if (p == n_ports && n_ports)
				break;
			if (!allowed(cfg, host, &a, port, true) && (rc = add(v, SW_VCAT_HOST, true, &a, port)) == -ENOSPC) {
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

		if (x->egress == SW_EGRESS_OPEN || !sandbox_matches(x, ifname, self4, self6))
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

/* A row that is a report, never a pass or a failure. */
static bool report_only(const struct sw_verify_target *t)
{
	return t->cat == SW_VCAT_ALLOWED;
}

bool sw_verify_passed(const struct sw_verify *v)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_probe *p = &v->t[i].probe;

		if (report_only(&v->t[i]))
			continue;
		if (v->t[i].atk.kind != SW_ATK_NONE) {
			if (!sw_attack_held(&v->t[i].atk))
				return false;
			continue;
		}

		/* an attempt that could not be made proves nothing */
		if (v->t[i].must_block ? sw_probe_reachable(p) || p->result == SW_PROBE_ERROR ||
					 p->result == SW_PROBE_PENDING
				       : !sw_probe_reachable(p))
			return false;
	}
	return true;
}

enum sw_vverdict sw_verify_verdict_of(const struct sw_verify_target *t)
{
	if (report_only(t))
		return sw_probe_reachable(&t->probe) ? SW_VV_OPEN : SW_VV_UNREACHABLE;
	if (t->atk.kind != SW_ATK_NONE)
		return !sw_attack_held(&t->atk) ? SW_VV_FAIL : t->must_block ? SW_VV_BLOCKED : SW_VV_OPEN;
	if (t->probe.result == SW_PROBE_NOROUTE)
		return t->must_block ? SW_VV_SKIPPED : SW_VV_FAIL;
	if (t->must_block)
		return sw_probe_reachable(&t->probe) || t->probe.result == SW_PROBE_ERROR ? SW_VV_FAIL
											   : SW_VV_BLOCKED;
	return sw_probe_reachable(&t->probe) ? SW_VV_OPEN : SW_VV_FAIL;
}

const char *sw_verify_verdict(const struct sw_verify_target *t)
{
	static const char *const names[SW_VV_COUNT] = {
		[SW_VV_BLOCKED] = "blocked", [SW_VV_OPEN] = "open", [SW_VV_SKIPPED] = "skipped",
		[SW_VV_UNREACHABLE] = "unreachable", [SW_VV_FAIL] = "FAIL",
	};

	return names[sw_verify_verdict_of(t)];
}

/* The attack in words, for the text table's last column. */
static void attack_words(const struct sw_attack *a, const char *gw, char *buf, size_t len)
{
	switch (a->kind) {
	case SW_ATK_PRIME_TCP:
	case SW_ATK_PRIME_UDP:
		snprintf(buf, len, "%s: forged %s from the target to %s, %s +%llu", sw_attack_kind_name(a->kind),
			 a->kind == SW_ATK_PRIME_TCP ? "SYN" : "datagram",
			 a->bcast_mac ? "ff:ff:ff:ff:ff:ff" : gw, a->counter,
			 (unsigned long long)a->counted);
		break;
	case SW_ATK_ND:
		snprintf(buf, len, "%s: NS hop limit 255 with option 253, %s +%llu", sw_attack_kind_name(a->kind),
			 a->counter, (unsigned long long)a->counted);
		break;
	case SW_ATK_BCAST:
		snprintf(buf, len, "%s: UDP to the host's canary: %s", sw_attack_kind_name(a->kind),
			 a->result == SW_ATK_HEARD ? "it heard it" : a->result == SW_ATK_SILENT ?
			 "it heard nothing" : "no proof (its control failed)");
		break;
	case SW_ATK_CANARY:
		snprintf(buf, len, "%s: the host to its own canary: %s", sw_attack_kind_name(a->kind),
			 a->result == SW_ATK_HEARD ? "heard (the canary works)" : "NOT heard");
		break;
	case SW_ATK_BUDGET:
		snprintf(buf, len, "%s: %u TCP connections at once to the sink, %s +%llu",
			 sw_attack_kind_name(a->kind), a->tries, a->counter, (unsigned long long)a->counted);
		break;
	case SW_ATK_EGRESS:
		snprintf(buf, len, "%s: TCP to an unlisted destination (verify's sink), %s%s%s +%llu",
			 sw_attack_kind_name(a->kind), a->counter, a->counter2[0] ? "+" : "", a->counter2,
			 (unsigned long long)a->counted);
		break;
	default:
		buf[0] = '\0';
	}
	if (a->err && a->result != SW_ATK_COUNTED && a->result != SW_ATK_SILENT &&
	    a->result != SW_ATK_HEARD) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (%s)", strerror(a->err));
	}
}

static const char site_bridge[] = "bridge", site_routed[] = "routed veth", site_tap[] = "tap";

/* Through a bridge (or from an existing namespace, whose gateway is
 * usually a bridge)? */
static bool bridge_site(const struct sw_verify *v)
{
	return !v->site || v->site == site_bridge;
}

void sw_verify_json(const struct sw_verify *v, struct sw_jw *w)
{
	char a[SW_ADDR_STRLEN];

	sw_jw_obj(w, NULL);
	sw_jw_str(w, "from", v->from);
	if (v->link[0]) {
		sw_jw_str(w, "link", v->link);
		sw_jw_str(w, "kind", v->site);
		sw_jw_str(w, "why", v->why);
	}
	sw_jw_bool(w, "passed", sw_verify_passed(v));
	sw_jw_arr(w, "sources");
	for (size_t i = 0; i < v->n_src && i < 2; i++) {
		char s[SW_ADDR_STRLEN];
		struct sw_prefix p = v->src[i];

		p.len = (uint8_t)(sw_family_addrlen(p.family) * 8);
		sw_prefix_format(&p, s, sizeof(s));
		sw_jw_str(w, NULL, s);
	}
	sw_jw_end(w);
	sw_jw_arr(w, "targets");
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_verify_target *t = &v->t[i];
		bool atk = t->atk.kind != SW_ATK_NONE;

		sw_prefix_format(&t->probe.addr, a, sizeof(a));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "category", sw_vcat_name(t->cat));
		sw_jw_str(w, "address", a);
		sw_jw_u64(w, "port", t->probe.port);
		sw_jw_bool(w, "must_block", t->must_block);
		sw_jw_str(w, "result", atk ? sw_attack_result_name(t->atk.result)
					   : sw_probe_result_name(t->probe.result));
		sw_jw_str(w, "verdict", sw_verify_verdict(t));
		sw_jw_u64(w, "ms", atk ? t->atk.ms : t->probe.ms);
		if (t->sandbox > 0)
			sw_jw_str(w, "sandbox", t->sandbox_name);
		if (atk)
			sw_jw_str(w, "attack", sw_attack_kind_name(t->atk.kind));
		if (t->atk.kind == SW_ATK_PRIME_TCP || t->atk.kind == SW_ATK_PRIME_UDP)
			sw_jw_str(w, "frame_to", t->atk.bcast_mac ? "broadcast-mac" :
					  bridge_site(v) ? "bridge-mac" : "link-mac");
		if (t->atk.counter[0]) {
			sw_jw_str(w, "counter", t->atk.counter);
			sw_jw_u64(w, "counted", t->atk.counted);
		}
		if (t->atk.counter2[0])
			sw_jw_str(w, "counter2", t->atk.counter2);
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_end(w);
}

void sw_verify_text(const struct sw_verify *v, FILE *f)
{
	const char *gw = bridge_site(v) ? "the bridge MAC" : "the link's MAC";
	char a[SW_ADDR_STRLEN];

	fprintf(f, "probing from %s\n%-12s %-40s %-8s %-10s %-5s %s\n", v->from, "category",
		"target", "verdict", "result", "ms", "attack");
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_verify_target *t = &v->t[i];
		bool atk = t->atk.kind != SW_ATK_NONE;
		char target[SW_ADDR_STRLEN + 16], words[192];

		sw_prefix_format(&t->probe.addr, a, sizeof(a));
		snprintf(target, sizeof(target), t->probe.addr.family == AF_INET6 ? "[%s]:%u" : "%s:%u",
			 a, t->probe.port);
		if (!atk) {
			fprintf(f, "%-12s %-40s %-8s %-10s %-5u%s%s\n", sw_vcat_name(t->cat), target,
				sw_verify_verdict(t), sw_probe_result_name(t->probe.result), t->probe.ms,
				t->sandbox > 0 ? " sandbox " : "", t->sandbox > 0 ? t->sandbox_name : "");
			continue;
		}
		attack_words(&t->atk, gw, words, sizeof(words));
		fprintf(f, "%-12s %-40s %-8s %-10s %-5u %s%s%s\n", sw_vcat_name(t->cat), target,
			sw_verify_verdict(t), sw_attack_result_name(t->atk.result), t->atk.ms, words,
			t->sandbox > 0 ? ", sandbox " : "", t->sandbox > 0 ? t->sandbox_name : "");
	}
	{
		size_t nc = 0;

		for (size_t i = 0; i < v->n; i++)
			nc += v->t[i].cat == SW_VCAT_EXPECT_OPEN;
		fprintf(f, "%s: %s\n", v->from, !sw_verify_passed(v) ? "NOT HELD (see FAIL lines)" :
			nc ? "every target blocked, every canary open" :
			"every target blocked, but no canary was probed: nothing proven open");
	}
}

void sw_verify_print(const struct sw_verify *v, size_t run, FILE *f, bool json)
{
	struct sw_jw w;

	(void)run;
	if (!json) {
		sw_verify_text(v, f);
		return;
	}
	sw_jw_init(&w);
	sw_verify_json(v, &w);
	if (sw_jw_text(&w))
		fputs(sw_jw_text(&w), f);
	sw_jw_free(&w);
}

/* Probe from the namespace behind fd (and run the attacks when env is
 * given), then come back. */
static int probe_in(int nsfd, int homefd, struct sw_verify *v, unsigned timeout_ms,
		    const struct sw_attack_env *env)
{
	static struct sw_probe p[SW_VERIFY_MAX];
	static struct sw_attack a[SW_VERIFY_MAX];
	size_t np = 0, na = 0;
	int rc;

	for (size_t i = 0; i < v->n; i++) {
		if (v->t[i].atk.kind == SW_ATK_NONE)
			p[np++] = v->t[i].probe;
		else
			a[na++] = v->t[i].atk;
	}
	if (setns(nsfd, CLONE_NEWNET) < 0)
		return -errno;
	rc = sw_probe_run(p, np, timeout_ms);
	if (!rc && env && na)
		rc = sw_attack_run(env, a, na);
	if (setns(homefd, CLONE_NEWNET) < 0) {
		sw_err("cannot return to the host network namespace: %s", strerror(errno));
		exit(2);        /* never go on in the wrong namespace */
	}
	np = na = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (v->t[i].atk.kind == SW_ATK_NONE)
			v->t[i].probe = p[np++];
		else
			v->t[i].atk = a[na++];
	}
	return rc;
}

/* What the attacks and the sandbox checks need from the host's side. */
struct attack_ctx {
	struct sw_nl *nl;               /* nfnetlink, in the host's namespace */
	const char *table;
	struct sw_model *m;             /* scratch for the counters */
	int canary4, canary6, control4, control6;
	uint16_t canary_port;
	struct sw_prefix bcast[32];     /* the guarded bridges' directed broadcasts */
	size_t n_bcast;
	bool attacks;                   /* run the attacks (not --no-attacks) */
};

/* What table bridge <name> dropped because a frame's source was not its
 * port's (bindtable.h): 0 without the table. A forged source dies there,
 * before table inet's counters see it. */
static uint64_t unbound_pkts(struct sw_nl *nl, const char *table)
{
	struct sw_model *m = calloc(1, sizeof(*m));
	uint64_t n = 0;
	int i;

	if (m && !sw_observe_family(nl, NFPROTO_BRIDGE, table, m)) {
		if (m->has_table && (i = sw_model_find_counter(m, SW_BT_COUNTER)) >= 0)
			n = m->counter_pkts[i];
		sw_model_free(m);
	}
	free(m);
	return n;
}

static int count_cb(void *arg, const char *counter, uint64_t *pkts)
{
	const struct attack_ctx *ac = arg;
	int rc = sw_observe_counters(ac->nl, ac->table, ac->m), i;

	if (!rc) {
		i = sw_model_find_counter(ac->m, counter);
		if (!ac->m->has_table || i < 0)
			rc = -ENOENT;
		else
			*pkts = ac->m->counter_pkts[i] + unbound_pkts(ac->nl, ac->table);
	}
	sw_model_free(ac->m);
	return rc;
}

static bool host_has_addr(const struct sw_host *h, const struct sw_prefix *c)
{
	size_t alen = sw_family_addrlen(c->family);

	for (size_t j = 0; j < h->n_addrs; j++)
		if (h->addrs[j].local.family == c->family && !memcmp(h->addrs[j].local.addr, c->addr, alen))
			return true;
	return false;
}

/* A free address in the bridge's subnet of this family: from the top
 * down, not the host's, not in the neighbour table; inside within when
 * it is given (a sandbox's source prefix). */
static int free_addr(const struct sw_host *h, const struct sw_link *br, int family,
		     const struct sw_prefix *within, struct sw_prefix *out, struct sw_prefix *gw)
{
	size_t alen = sw_family_addrlen(family);

	for (size_t i = 0; i < h->n_addrs; i++) {
		const struct sw_addr *a = &h->addrs[i];
		struct sw_prefix net, range;
		uint8_t nfirst[16], nlast[16];

		/* room for candidates; no IPv6 link-local (it needs a scope) */
		if (a->ifindex != br->ifindex || a->local.family != family ||
		    a->local.len > alen * 8 - 3 || (family == AF_INET6 && a->local.addr[0] == 0xfe &&
						     (a->local.addr[1] & 0xc0) == 0x80))
			continue;
		*gw = a->local;
		gw->len = (uint8_t)(alen * 8);
		net = a->local;
		sw_prefix_mask(&net);
		range = net;
		if (within) {
			if (within->family != family)
				continue;
			if (within->len > net.len) {
				range = *within;
				sw_prefix_mask(&range);
				if (!sw_prefix_contains(&net, &range))
					continue;
			} else if (!sw_prefix_contains(within, &net)) {
				continue;
			}
		}
		sw_prefix_range(&net, nfirst, nlast);
		/* the top of the bridge's subnet minus 2 (as before), or the top
		 * of a smaller source prefix */
		for (unsigned k = within && range.len > net.len ? 0 : 2; k < 64; k++) {
			struct sw_prefix c = range;
			uint8_t first[16];
			int used = 0;
			uint32_t low;

			sw_prefix_range(&range, first, c.addr);
			memcpy(&low, c.addr + alen - 4, 4);
			low = htonl(ntohl(low) - k);
			memcpy(c.addr + alen - 4, &low, 4);
			c.len = (uint8_t)(alen * 8);
			if (!sw_prefix_contains(&range, &c))
				break;
			if (!memcmp(c.addr, nfirst, alen) || !memcmp(c.addr, nlast, alen) ||
			    host_has_addr(h, &c) || sw_rt_neigh_used(br->ifindex, &c, &used) || used)
				continue;
			*out = c;
			out->len = a->local.len;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

/* In a fresh namespace: its interfaces get usable IPv6 link-local
 * addresses at once (ff02::1 is sent from one), like the probe's global
 * address (nodad). */
static void no_dad(void)
{
	static const char *const files[] = {
		"/proc/sys/net/ipv6/conf/default/accept_dad", "/proc/sys/net/ipv6/conf/all/accept_dad",
	};

	for (size_t i = 0; i < 2; i++) {
		int fd = open(files[i], O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (write(fd, "0", 1) != 1)
				sw_debug("verify: cannot write %s", files[i]);
			close(fd);
		}
	}
}

static void go_home(int homefd)
{
	if (setns(homefd, CLONE_NEWNET) < 0) {
		sw_err("cannot return to the host network namespace: %s", strerror(errno));
		exit(2);        /* never go on in the wrong namespace */
	}
}

/* A new, anonymous network namespace: gone when *nsfd is closed. */
static int new_ns(int homefd, int *nsfd)
{
	int e;

	if (unshare(CLONE_NEWNET) < 0)
		return -errno;
	*nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	e = errno;
	if (*nsfd >= 0)
		no_dad();       /* /proc/sys/net is the namespace of the opener */
	go_home(homefd);
	return *nsfd < 0 ? -e : 0;
}

/* In the namespace nsfd: lo and ifname up, addr with a default route via
 * gw, or (gw NULL) addr and an on-link default route, which the host's
 * proxy ARP answers (the routed style of Calico and of routed micro-VMs);
 * addr6/gw6 when addr6 is given. */
static int ns_setup(int nsfd, int homefd, const char *ifname, const struct sw_prefix *addr,
		    const struct sw_prefix *gw, const struct sw_prefix *addr6,
		    const struct sw_prefix *gw6)
{
	static const struct sw_prefix any4 = { .family = AF_INET };
	int rc;

	if (setns(nsfd, CLONE_NEWNET) < 0)
		return -errno;
	rc = sw_rt_link_up("lo", 0);
	if (!rc)
		rc = sw_rt_link_up(ifname, 0);
	if (!rc)
		rc = sw_rt_addr_add(ifname, addr);
	if (!rc)
		rc = gw ? sw_rt_default_route(ifname, gw) : sw_rt_route_add(ifname, &any4);
	if (!rc && addr6)
		rc = sw_rt_addr_add(ifname, addr6);
	if (!rc && addr6)
		rc = sw_rt_default_route(ifname, gw6);
	go_home(homefd);
	return rc;
}

/* The host's side of a routed link: up, proxy ARP on, a /32 route to
 * what sits behind it. */
static int routed_host_side(const char *hname, const struct sw_prefix *behind)
{
	char path[96];
	int fd, rc;

	if ((rc = sw_rt_link_up(hname, 0)))
		return rc;
	/* net.ipv4.conf.<hname>.proxy_arp = 1 and
	 * net.ipv4.neigh.<hname>.proxy_delay = 0 (answered at once, not
	 * after up to 0.8 s): our own link only */
	for (int k = 0; k < 2 && !rc; k++) {
		snprintf(path, sizeof(path), k ? "/proc/sys/net/ipv4/neigh/%s/proxy_delay" :
			 "/proc/sys/net/ipv4/conf/%s/proxy_arp", hname);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		rc = write(fd, k ? "0" : "1", 1) == 1 ? 0 : -EIO;
		close(fd);
	}
	if (!rc) {
		struct sw_prefix r = *behind;

		r.len = 32;
		rc = sw_rt_route_add(hname, &r);
	}
	return rc;
}

/* ---- the sink: an unlisted destination for the sandboxes' checks ---------- */

struct sink {
	struct sw_prefix addr;          /* family 0: none */
	uint16_t port;
	int nsfd;
	char hname[16];
	char why_not[128];              /* when there is none */
};

/* May the sink take c? Not the host's, not routed by it to anything but
 * the default route, nothing the config blocks, allows or names. */
static bool sink_candidate(const struct sw_config *cfg, const struct sw_host *h,
			   const struct sw_prefix *c, uint16_t port)
{
	for (size_t i = 0; i < h->n_addrs; i++) {
		struct sw_prefix net = h->addrs[i].local;

		sw_prefix_mask(&net);
		if (net.family == c->family && sw_prefix_contains(&net, c))
			return false;
	}
	for (size_t i = 0; i < h->n_routes; i++)
		if (h->routes[i].dst.family == c->family && sw_prefix_contains(&h->routes[i].dst, c))
			return false;
	for (size_t i = 0; i < cfg->n_destinations; i++)
		if (cfg->destinations[i].family == c->family && sw_prefix_contains(&cfg->destinations[i], c))
			return false;
	if (allowed(cfg, h, c, port, false))
		return false;
	for (size_t b = 0; b < cfg->n_sandboxes; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];

		for (size_t i = 0; i < x->n_allows; i++)
			if (x->allows[i].dst.family == c->family && sw_prefix_contains(&x->allows[i].dst, c))
				return false;
		for (size_t i = 0; i < x->n_sources; i++)
			if (x->sources[i].family == c->family && sw_prefix_contains(&x->sources[i], c))
				return false;
	}
	return true;
}

static void sink_close(struct sink *k)
{
	if (k->hname[0])
		sw_rt_link_del(k->hname);
	k->hname[0] = '\0';
	if (k->nsfd >= 0)
		close(k->nsfd);
	k->nsfd = -1;
}

/* The sink: a throwaway namespace holding one address of TEST-NET-1
 * (192.0.2.0/24, RFC 5737: never routed on the internet) behind a routed
 * veth; nothing listens, so a connection that gets there is answered
 * with a reset (reachable). The host reaching it is the control. */
static int sink_setup(const struct sw_config *cfg, const struct sw_host *h, int homefd,
		      unsigned timeout_ms, struct sink *k)
{
	struct sw_probe ctl;
	int rc;

	memset(k, 0, sizeof(*k));
	k->nsfd = -1;
	k->port = 80;
	for (unsigned i = 0; i < 254 && !k->addr.family; i++) {
		struct sw_prefix c;

		/* the same address run after run (receipts compare), unless taken */
		sw_prefix_parse("192.0.2.0", &c, NULL);
		c.addr[3] = (uint8_t)(1 + (76 + i) % 254);
		if (sink_candidate(cfg, h, &c, k->port))
			k->addr = c;
	}
	if (!k->addr.family) {
		snprintf(k->why_not, sizeof(k->why_not), "no free address in 192.0.2.0/24 for the sink");
		return -EADDRNOTAVAIL;
	}
	if ((rc = new_ns(homefd, &k->nsfd)))
		goto fail;
	snprintf(k->hname, sizeof(k->hname), "swv%uk", (unsigned)getpid() % 1000000);
	rc = sw_rt_veth_add(k->hname, "sink", k->nsfd);
	if (rc) {
		k->hname[0] = '\0';
		goto fail;
	}
	if ((rc = ns_setup(k->nsfd, homefd, "sink", &k->addr, NULL, NULL, NULL)) ||
	    (rc = routed_host_side(k->hname, &k->addr)))
		goto fail;
	/* the control: the host reaches the sink (a fresh link may drop the
	 * first SYN: three tries) */
	for (int tries = 0; tries < 3; tries++) {
		memset(&ctl, 0, sizeof(ctl));
		ctl.addr = k->addr;
		ctl.port = k->port;
		rc = sw_probe_run(&ctl, 1, timeout_ms < 1000 ? 1000 : timeout_ms);
		if (rc || sw_probe_reachable(&ctl))
			break;
	}
	if (!rc && !sw_probe_reachable(&ctl)) {
		snprintf(k->why_not, sizeof(k->why_not), "the host cannot reach verify's sink (%s)",
			 sw_probe_result_name(ctl.result));
		sink_close(k);
		k->addr.family = 0;
		return -EHOSTUNREACH;
	}
	if (!rc)
		return 0;
fail:
	snprintf(k->why_not, sizeof(k->why_not), "cannot set up verify's sink: %s", strerror(-rc));
	sink_close(k);
	k->addr.family = 0;
	return rc;
}

/* ---- one run through a throwaway namespace -------------------------------- */

enum site_kind { SITE_NONE, SITE_BRIDGE, SITE_ROUTED, SITE_TAP };

/* How verify can attach a throwaway probe next to a guarded link. */
static enum site_kind site_of(const struct sw_link *l)
{
	if (l->is_bridge)
		return SITE_BRIDGE;
	if (l->kind == SW_LINK_VETH && l->peer_netns && !l->master_bridge)
		return SITE_ROUTED;
	if (l->kind == SW_LINK_TAP && !l->master_bridge)
		return SITE_TAP;
	return SITE_NONE;
}

/* Why a guarded link of no probe-able kind is not probed. */
static const char *no_site_reason(const struct sw_link *l)
{
	static const char *const by_kind[SW_LINK_KIND_COUNT] = {
		[SW_LINK_TUN] = "a tun (layer 3) device: no Ethernet to attach a probe to; use --netns",
		[SW_LINK_MACVLAN] = "a macvlan: verify has no probe for it; use --netns",
		[SW_LINK_IPVLAN] = "an ipvlan: verify has no probe for it; use --netns",
	};

	if (l->master_bridge)
		return "a bridge port: its traffic arrives on (and is probed through) its bridge";
	if ((unsigned)l->kind < SW_LINK_KIND_COUNT && by_kind[l->kind])
		return by_kind[l->kind];
	return "verify attaches probes to bridges, routed veths and taps only; use --netns";
}

struct run_in {
	const struct sw_config *cfg;
	const struct sw_host *h;
	int homefd;
	unsigned timeout_ms;
	struct attack_ctx *ac;          /* NULL: no counters (no attacks, no sandbox checks) */
	const struct sink *sink;
	bool attacks;
};

/* In a sandbox's namespace its policy drops a packet of an attack that
 * the forged-source check lets through (ND with a payload) before the
 * category would: the first matching policy's egress counter counts too. */
static void sandbox_counters(const struct sw_config *cfg, struct sw_verify *v, size_t from)
{
	for (size_t b = 0; b < cfg->n_sandboxes && b < 32; b++) {
		if (!(v->sandboxes & (1u << b)))
			continue;
		for (size_t i = from; i < v->n; i++)
			if (v->t[i].atk.kind == SW_ATK_ND && !v->t[i].atk.counter2[0])
				snprintf(v->t[i].atk.counter2, sizeof(v->t[i].atk.counter2), "egress_%s",
					 cfg->sandboxes[b].name);
		return;
	}
}

/* Everything of a run once its namespace is wired: the sandbox rows, the
 * attacks, the probes. hname: what the host sees the packets arrive on. */
static int run_wired(const struct run_in *in, struct sw_verify *v, int nsfd, const char *cname,
		     const char *hname, const char *mac_of, const struct sw_prefix *addr,
		     const struct sw_prefix *addr6)
{
	struct sw_attack_env env;
	struct attack_ctx *ac = in->ac;
	int rc;

	if (sw_verify_add_sandboxes(in->cfg, in->h, v, hname, addr, addr6,
				    ac && in->sink ? &in->sink->addr : NULL, in->sink ? in->sink->port : 0))
		sw_warn("verify: more than %d targets; not every sandbox check is run", SW_VERIFY_MAX);
	if (!ac)
		return probe_in(nsfd, in->homefd, v, in->timeout_ms, NULL);
	memset(&env, 0, sizeof(env));
	snprintf(env.ifname, sizeof(env.ifname), "%s", cname);
	env.self4 = *addr;
	if (addr6)
		env.self6 = *addr6;
	env.canary4 = ac->canary4;
	env.canary6 = ac->canary6;
	env.control4 = ac->control4;
	env.control6 = ac->control6;
	env.canary_port = ac->canary_port;
	env.timeout_ms = in->timeout_ms;
	/* silence is waited for: long enough on a busy host */
	env.evidence_ms = in->timeout_ms < 250 ? 250 : in->timeout_ms > 1000 ? 1000 : in->timeout_ms;
	env.count = count_cb;
	env.count_arg = ac;
	/* the frames go to the host side's own MAC, as a container's do */
	rc = sw_attack_ifmac(mac_of, env.gwmac);
	if (rc) {
		sw_err("%s: cannot read its MAC address: %s", mac_of, strerror(-rc));
		return rc;
	}
	if (in->attacks) {
		size_t n0 = v->n;

		if (sw_verify_add_attacks(v, addr6 != NULL, ac->bcast, ac->n_bcast, ac->canary4 >= 0,
					  ac->canary6 >= 0, ac->canary_port))
			sw_warn("verify: more than %d targets; not every attack is run", SW_VERIFY_MAX);
		sandbox_counters(in->cfg, v, n0);
	}
	/* let the link leave its learning state */
	usleep(50 * 1000);
	return probe_in(nsfd, in->homefd, v, in->timeout_ms, &env);
}

/* "<what> as <address> [and <address6>]" */
static void describe(struct sw_verify *v, const char *what, const struct sw_prefix *addr,
		     const struct sw_prefix *addr6)
{
	char a[SW_ADDR_STRLEN], a6[SW_ADDR_STRLEN];

	sw_prefix_format(addr, a, sizeof(a));
	v->n_src = 0;
	v->src[v->n_src++] = *addr;
	if (addr6)
		v->src[v->n_src++] = *addr6;
	if (addr6) {
		sw_prefix_format(addr6, a6, sizeof(a6));
		snprintf(v->from, sizeof(v->from), "%s as %s and %s", what, a, a6);
	} else {
		snprintf(v->from, sizeof(v->from), "%s as %s", what, a);
	}
}

/* table bridge <name> in line with the host as it is now (a probe's port
 * bound to its addresses, or its binding gone with it), when a sandbox
 * keys on a source: without it the probe's own frames would drop at the
 * bridge and every "blocked" would be the binding's. */
static void probe_bind(const struct run_in *in)
{
	struct sw_host *h;
	struct sw_diff d;
	struct sw_nl nl;
	char err[256];
	bool repaired;

	if (!sw_portbind_wanted(in->cfg) || !(h = calloc(1, sizeof(*h))))
		return;
	if (!sw_host_read_links_addrs_routes(h) && !sw_nl_open(&nl)) {
		if (sw_bindtable_reconcile(&nl, in->cfg, h, false, &d, &repaired, NULL, err,
					   sizeof(err)))
			sw_warn("verify: table bridge %s: %s", in->cfg->table, err);
		sw_diff_free(&d);
		sw_nl_close(&nl);
	}
	free(h);
}

/* One throwaway namespace on one bridge (within: its address in a
 * sandbox's source prefix). */
static int probe_bridge(const struct run_in *in, const struct sw_link *br,
			const struct sw_prefix *within, struct sw_verify *v)
{
	const struct sw_host *h = in->h;
	char hname[16], cname[16];
	struct sw_prefix addr, gw, addr6, gw6;
	bool v6;
	int nsfd = -1, rc;

	if ((rc = free_addr(h, br, AF_INET, within, &addr, &gw)))
		return rc;
	/* IPv6 too where the bridge has a global or ULA subnet */
	v6 = !within && free_addr(h, br, AF_INET6, NULL, &addr6, &gw6) == 0;
	snprintf(hname, sizeof(hname), "swv%uh", (unsigned)getpid() % 1000000);
	snprintf(cname, sizeof(cname), "swv%uc", (unsigned)getpid() % 1000000);
	if ((rc = new_ns(in->homefd, &nsfd)))
		return rc;
	rc = sw_rt_veth_add(hname, cname, nsfd);
	if (!rc)
		rc = sw_rt_link_up(hname, br->ifindex);
	if (!rc)
		rc = ns_setup(nsfd, in->homefd, cname, &addr, &gw, v6 ? &addr6 : NULL, &gw6);
	if (!rc)
		probe_bind(in);
	if (!rc) {
		char what[32];

		snprintf(what, sizeof(what), "bridge %s", br->name);
		describe(v, what, &addr, v6 ? &addr6 : NULL);
		snprintf(v->link, sizeof(v->link), "%s", br->name);
		v->why = sw_guard_why_name(sw_ruleset_guard_why(in->cfg, br));
		v->site = site_bridge;
		rc = run_wired(in, v, nsfd, cname, br->name, br->name, &addr, v6 ? &addr6 : NULL);
	}
	sw_rt_link_del(hname);
	probe_bind(in);                 /* its binding goes with it */
	/* the host learnt the probe's addresses on the bridge: forget them,
	 * or they would look taken to the next run */
	sw_rt_neigh_del(br->ifindex, &addr);
	if (v6)
		sw_rt_neigh_del(br->ifindex, &addr6);
	close(nsfd);
	return rc;
}

/* The name of a throwaway routed veth or tap, so that it takes the path
 * that guards the host's real links of its kind. With auto, a neutral
 * name ("swv" + the pid) classified like any other link of the kind (a
 * tap; a veth whose peer is in another namespace): the kernel guards it
 * by its kind (meta iifkind), as it guards a real tap or routed veth from
 * its first packet, so a break of that path fails verify. Without auto,
 * the real links are guarded by the config's patterns only: a name one
 * of them covers. -ENOENT when neither applies. */
static int pick_name(const struct sw_config *cfg, const struct sw_host *h, enum site_kind kind,
		     char out[16])
{
	for (size_t i = 0; i <= cfg->n_patterns; i++) {
		char prefix[SW_IFNAMSIZ] = "";
		struct sw_link fake;
		enum sw_guard_why why;
		bool clash = false;
		size_t plen;

		if (i == cfg->n_patterns) {
			if (!cfg->auto_detect)
				continue;
		} else {
			const char *p = cfg->patterns[i];

			if (cfg->auto_detect)
				continue;
			plen = strnlen(p, SW_IFNAMSIZ);
			if (!plen || p[plen - 1] != '*' || plen > 9)
				continue;
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(plen - 1), p);
		}
		plen = strlen(prefix);
		/* prefix + "swv" + the pid, cut at 15 characters */
		{
			char full[48];

			snprintf(full, sizeof(full), "%sswv%u", prefix, (unsigned)getpid());
			snprintf(out, 16, "%.15s", full);
		}
		memset(&fake, 0, sizeof(fake));
		snprintf(fake.name, sizeof(fake.name), "%s", out);
		fake.ifindex = -1;
		fake.netnsid = -1;
		fake.kind = kind == SITE_TAP ? SW_LINK_TAP : SW_LINK_VETH;
		fake.peer_netns = kind != SITE_TAP;
		why = sw_ruleset_guard_why(cfg, &fake);
		if (cfg->auto_detect ? why != (kind == SITE_TAP ? SW_GUARD_TAP : SW_GUARD_ROUTED_VETH)
				     : why != SW_GUARD_PATTERN)
			continue;
		/* a pattern that would cover the uplink or lo is left out of
		 * the kernel's set; a name that exists is taken */
		for (size_t j = 0; j < h->n_links && !clash; j++)
			clash = !strcmp(h->links[j].name, out) ||
				(plen && (h->links[j].uplink || h->links[j].loopback || h->links[j].ifindex == 1) &&
				 !strncmp(h->links[j].name, prefix, plen));
		if (!clash)
			return 0;
	}
	return -ENOENT;
}

/* The address of a throwaway routed probe: next to what sits behind a
 * guarded link of that kind (a route of it or an address of it), so that
 * it is routed (and NATed) like that link's containers: a free address
 * of the same /24, from the top. */
static int routed_addr(const struct sw_config *cfg, const struct sw_host *h, enum site_kind kind,
		       struct sw_prefix *out)
{
	struct sw_prefix seed = { 0 };

	for (size_t i = 0; i < h->n_links && !seed.family; i++) {
		const struct sw_link *l = &h->links[i];

		if (site_of(l) != kind || !sw_ruleset_guarded(cfg, l))
			continue;
		for (size_t r = 0; r < h->n_routes && !seed.family; r++)
			if (h->routes[r].oif == l->ifindex && h->routes[r].dst.family == AF_INET)
				seed = h->routes[r].dst;
		for (size_t a = 0; a < h->n_addrs && !seed.family; a++)
			if (h->addrs[a].ifindex == l->ifindex && h->addrs[a].local.family == AF_INET)
				seed = h->addrs[a].local;
	}
	if (!seed.family)
		return -ENOENT;
	for (unsigned k = 254; k >= 2; k--) {
		struct sw_prefix c = seed;
		bool taken = false;

		c.addr[3] = (uint8_t)k;
		c.len = 32;
		/* nothing the host routes or is connected to: the /32 route
		 * verify adds must not take an address away from anyone */
		taken = host_has_addr(h, &c);
		for (size_t r = 0; r < h->n_routes && !taken; r++)
			taken = h->routes[r].dst.family == AF_INET && sw_prefix_contains(&h->routes[r].dst, &c);
		for (size_t a = 0; a < h->n_addrs && !taken; a++) {
			struct sw_prefix net = h->addrs[a].local;

			sw_prefix_mask(&net);
			taken = net.family == AF_INET && sw_prefix_contains(&net, &c);
		}
		if (!taken) {
			*out = c;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

/* The frame pump of a throwaway tap: what a VMM does with virtio-net.
 * A child process copies every frame between the host's tap and the
 * probe namespace's; it dies with verify (PDEATHSIG) or when killed. */
static pid_t tap_pump(int a, int b)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		struct pollfd p[2] = { { .fd = a, .events = POLLIN }, { .fd = b, .events = POLLIN } };
		uint8_t buf[65536];

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			_exit(1);
		for (int i = 0; i < 2; i++) {
			ssize_t r;

			if (!(p[i].revents & POLLIN))
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r > 0 && write(i ? a : b, buf, (size_t)r) < 0)
				continue;       /* a frame lost, as on a wire */
		}
	}
}

/* open("/dev/net/tun") + TUNSETIFF name, tap, no packet info. */
static int tap_open(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* One throwaway routed veth or tap, guarded as the host's own (pick_name),
 * with the probe behind it at a /32 (on-link default route, proxy ARP on
 * the host's side). stands_for: the guarded link it is of the kind of. */
static int probe_routed(const struct run_in *in, enum site_kind kind, const struct sw_link *stands_for,
			struct sw_verify *v, char *why_not, size_t wlen)
{
	char hname[16], cname[16] = "eth0", what[96];
	struct sw_prefix addr;
	int nsfd = -1, tfd = -1, cfd = -1, rc;
	pid_t pump = -1;

	if (pick_name(in->cfg, in->h, kind, hname)) {
		snprintf(why_not, wlen, "no name for a throwaway %s guarded as the host's are "
			 "(auto, or a pattern with '*'; or use --netns)",
			 kind == SITE_TAP ? "tap" : "routed veth");
		return -ENOENT;
	}
	if ((rc = routed_addr(in->cfg, in->h, kind, &addr))) {
		snprintf(why_not, wlen, "no IPv4 route or address of a guarded %s to put a probe next to",
			 kind == SITE_TAP ? "tap" : "routed veth");
		return rc;
	}
	if ((rc = new_ns(in->homefd, &nsfd)))
		goto out;
	if (kind == SITE_TAP) {
		if ((tfd = tap_open(hname)) < 0) {
			rc = tfd;
			goto out;
		}
		if (setns(nsfd, CLONE_NEWNET) < 0) {
			rc = -errno;
			goto out;
		}
		cfd = tap_open(cname);
		go_home(in->homefd);
		if (cfd < 0) {
			rc = cfd;
			goto out;
		}
		if ((pump = tap_pump(tfd, cfd)) < 0) {
			rc = -errno;
			goto out;
		}
	} else if ((rc = sw_rt_veth_add(hname, cname, nsfd))) {
		hname[0] = '\0';
		goto out;
	}
	if ((rc = routed_host_side(hname, &addr)) ||
	    (rc = ns_setup(nsfd, in->homefd, cname, &addr, NULL, NULL, NULL)))
		goto out;
	snprintf(what, sizeof(what), "%s %s (a throwaway %s, as %s)",
		 kind == SITE_TAP ? "tap" : "routed veth", hname, kind == SITE_TAP ? "tap" : "veth",
		 stands_for->name);
	describe(v, what, &addr, NULL);
	snprintf(v->link, sizeof(v->link), "%s", hname);
	v->why = sw_guard_why_name(sw_ruleset_guard_why(in->cfg, stands_for));
	v->site = kind == SITE_TAP ? site_tap : site_routed;
	rc = run_wired(in, v, nsfd, cname, hname, hname, &addr, NULL);
out:
	if (rc && why_not[0] == '\0')
		snprintf(why_not, wlen, "cannot set up a throwaway %s: %s",
			 kind == SITE_TAP ? "tap" : "routed veth", strerror(-rc));
	if (pump > 0) {
		kill(pump, SIGKILL);
		waitpid(pump, NULL, 0);
	}
	if (cfd >= 0)
		close(cfd);
	if (tfd >= 0)
		close(tfd);     /* the tap goes with its last file descriptor */
	else if (hname[0] && kind != SITE_TAP)
		sw_rt_link_del(hname);
	if (nsfd >= 0)
		close(nsfd);
	return rc;
}

static void record(const char *path, const char *json)
{
	char dir[SW_PATH_MAX], *slash;

	if (!path || !*path || !json)
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	if (sw_atomic_write(path, json, strlen(json), 0600))
		sw_debug("cannot record the verify result in %s", path);
}

/* The reopen holes of [allow]: for the text and the JSON alike. */
static size_t holes_of(const struct sw_config *cfg, const struct sw_host *host, size_t i,
		       struct sw_hole *h)
{
	return cfg->allows[i].reopen ? sw_allow_holes(cfg, host, &cfg->allows[i], h, SW_MAX_HOLES) : 0;
}

void sw_verify_print_holes(const struct sw_config *cfg, const struct sw_host *host, FILE *f)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], p[SW_ADDR_STRLEN];
	bool first = true;

	for (size_t i = 0; i < cfg->n_allows; i++) {
		size_t n = holes_of(cfg, host, i, h);

		if (!n)
			continue;
		sw_allow_format(&cfg->allows[i], e, sizeof(e));
		fprintf(f, "%s%s:%u: %s reopens", first ? "deliberate holes ([allow] "
			"destinations ... reopen):\n" : "", cfg->path, cfg->allows[i].line, e);
		for (size_t j = 0; j < n; j++) {
			sw_prefix_format(&h[j].blocked, p, sizeof(p));
			fprintf(f, "%s %s (%s)", j ? "," : "", sw_category_name(h[j].cat), p);
		}
		fputc('\n', f);
		first = false;
	}
}

void sw_verify_holes_json(const struct sw_config *cfg, const struct sw_host *host, struct sw_jw *w)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128];

	sw_jw_arr(w, "holes");
	for (size_t i = 0; i < cfg->n_allows; i++) {
		size_t n = holes_of(cfg, host, i, h);

		if (!n)
			continue;
		sw_allow_format(&cfg->allows[i], e, sizeof(e));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "entry", e);
		sw_jw_u64(w, "line", cfg->allows[i].line);
		sw_jw_arr(w, "reopens");
		for (size_t j = 0; j < n; j++)
			sw_jw_str(w, NULL, sw_category_name(h[j].cat));
		sw_jw_end(w);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}

static bool host_port_udp(const struct sw_config *cfg, uint16_t port)
{
	for (size_t i = 0; i < cfg->n_host_ports; i++)
		if (cfg->host_ports[i].proto == IPPROTO_UDP && cfg->host_ports[i].port == port)
			return true;
	return false;
}

/* The canary: UDP sockets bound to 0.0.0.0:PORT and [::]:PORT in the host's
 * namespace (a free port that [allow] host_ports does not open), and
 * unbound sockets for the control. IPv6 is optional. */
static int canary_open(const struct sw_config *cfg, struct attack_ctx *ac)
{
	int one = 1;

	for (int tries = 0; tries < 16; tries++) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
		socklen_t sl = sizeof(s4);

		ac->canary4 = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (ac->canary4 < 0)
			return -errno;
		if (bind(ac->canary4, (struct sockaddr *)&s4, sizeof(s4)) < 0 ||
		    getsockname(ac->canary4, (struct sockaddr *)&s4, &sl) < 0) {
			int e = -errno;

			close(ac->canary4);
			ac->canary4 = -1;
			return e;
		}
		ac->canary_port = ntohs(s4.sin_port);
		if (host_port_udp(cfg, ac->canary_port)) {
			close(ac->canary4);
			ac->canary4 = -1;
			continue;
		}
		ac->canary6 = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		s6.sin6_port = s4.sin_port;
		if (ac->canary6 >= 0 &&
		    (setsockopt(ac->canary6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) ||
		     bind(ac->canary6, (struct sockaddr *)&s6, sizeof(s6)) < 0)) {
			bool busy = errno == EADDRINUSE;

			close(ac->canary6);
			ac->canary6 = -1;
			if (busy) {
				close(ac->canary4);
				ac->canary4 = -1;
				continue;
			}
		}
		ac->control4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (ac->canary6 >= 0)
			ac->control6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		return 0;
	}
	return -EADDRINUSE;
}

static void attack_close(struct attack_ctx *ac)
{
	int *fds[] = { &ac->canary4, &ac->canary6, &ac->control4, &ac->control6 };

	for (size_t i = 0; i < sizeof(fds) / sizeof(*fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (ac->nl) {
		sw_nl_close(ac->nl);
		ac->nl = NULL;
	}
	free(ac->m);
	ac->m = NULL;
}

/* The directed broadcast addresses of every guarded bridge's IPv4
 * subnets (172.17.255.255, and the other bridges' too: the host takes
 * those as well). */
static void bcast_list(const struct sw_config *cfg, const struct sw_host *h, struct attack_ctx *ac)
{
	const size_t max = sizeof(ac->bcast) / sizeof(*ac->bcast);

	ac->n_bcast = 0;
	for (size_t i = 0; i < h->n_addrs && ac->n_bcast < max; i++) {
		const struct sw_link *l = sw_host_link(h, h->addrs[i].ifindex);
		struct sw_prefix net = h->addrs[i].local, b;
		uint8_t first[16];
		bool dup = false;

		if (!l || !l->is_bridge || !sw_ruleset_guarded(cfg, l) || net.family != AF_INET ||
		    net.len > 30)
			continue;
		sw_prefix_mask(&net);
		b = net;
		sw_prefix_range(&net, first, b.addr);
		b.len = 32;
		for (size_t j = 0; j < ac->n_bcast && !dup; j++)
			dup = sw_prefix_equal(&ac->bcast[j], &b);
		if (!dup)
			ac->bcast[ac->n_bcast++] = b;
	}
}

/* Everything the attacks and the sandbox checks need on the host's side,
 * or an error. */
static int attack_setup(const struct sw_config *cfg, const struct sw_host *h, struct attack_ctx *ac,
			bool attacks)
{
	static struct sw_nl nl;
	int rc;

	memset(ac, 0, sizeof(*ac));
	ac->canary4 = ac->canary6 = ac->control4 = ac->control6 = -1;
	ac->table = cfg->table;
	ac->attacks = attacks;
	ac->m = malloc(sizeof(*ac->m));
	if (!ac->m)
		return -ENOMEM;
	if ((rc = sw_nl_open(&nl))) {
		sw_err("verify: cannot open the netfilter netlink socket: %s", strerror(-rc));
		goto fail;
	}
	ac->nl = &nl;
	if (attacks && (rc = canary_open(cfg, ac))) {
		sw_err("verify: cannot open the canary socket: %s", strerror(-rc));
		goto fail;
	}
	bcast_list(cfg, h, ac);
	return 0;
fail:
	attack_close(ac);
	return rc;
}

/* ---- the whole command ---------------------------------------------------- */

/* What became of a guarded link, and of a sandbox, across the runs. */
struct link_rec {
	int run;                        /* the run that probed it (or its kind), -1: none */
	const char *why_not;
};

struct sbx_rec {
	size_t runs, runs_failed;
	size_t unlisted_blocked, unlisted_failed, allowed_open, allowed_unreachable;
	size_t budget_counted, budget_failed;
	int first_run;
};

struct verify_state {
	struct sw_jw w;                 /* the JSON document */
	size_t runs;
	bool all;                       /* every run passed */
	struct sbx_rec sbx[SW_MAX_SANDBOXES];
	char routed_why_not[160], tap_why_not[160];
	int routed_run, tap_run;
};

/* A finished run: printed, written to the JSON, counted per sandbox. */
static void run_done(struct verify_state *st, const struct sw_config *cfg, const struct sw_verify *v,
		     bool json)
{
	bool passed = sw_verify_passed(v);

	if (!json)
		sw_verify_text(v, stdout);
	sw_verify_json(v, &st->w);
	st->all &= passed;
	for (size_t b = 0; b < cfg->n_sandboxes && b < 32; b++) {
		struct sbx_rec *r = &st->sbx[b];

		if (!(v->sandboxes & (1u << b)))
			continue;
		if (!r->runs)
			r->first_run = (int)st->runs;
		r->runs++;
		r->runs_failed += !passed;
		for (size_t i = 0; i < v->n; i++) {
			const struct sw_verify_target *t = &v->t[i];
			bool fail = sw_verify_verdict_of(t) == SW_VV_FAIL;

			if (t->sandbox != (int)b + 1)
				continue;
			if (t->cat == SW_VCAT_EGRESS && t->atk.kind == SW_ATK_EGRESS) {
				r->unlisted_blocked += !fail;
				r->unlisted_failed += fail;
			} else if (t->atk.kind == SW_ATK_BUDGET) {
				r->budget_counted += !fail;
				r->budget_failed += fail;
			} else if (t->cat == SW_VCAT_ALLOWED) {
				r->allowed_open += sw_probe_reachable(&t->probe);
				r->allowed_unreachable += !sw_probe_reachable(&t->probe);
			}
		}
	}
	st->runs++;
}

enum sbx_verdict { SBX_OPEN, SBX_NOT_PROBED, SBX_UNPROVEN, SBX_HELD, SBX_NOT_HELD };

static enum sbx_verdict sbx_verdict(const struct sw_sandbox *x, const struct sbx_rec *r)
{
	if (x->egress == SW_EGRESS_OPEN)
		return SBX_OPEN;
	if (!r->runs)
		return SBX_NOT_PROBED;
	if (r->runs_failed || r->unlisted_failed || r->budget_failed)
		return SBX_NOT_HELD;
	return r->unlisted_blocked ? SBX_HELD : SBX_UNPROVEN;
}

static const char *const sbx_verdict_names[] = {
	[SBX_OPEN] = "open policy", [SBX_NOT_PROBED] = "not probed", [SBX_UNPROVEN] = "unproven",
	[SBX_HELD] = "held", [SBX_NOT_HELD] = "not held",
};

/* The per-sandbox verdicts: JSON member "sandboxes" and the text. */
static void sandboxes_out(struct verify_state *st, const struct sw_config *cfg,
			  const struct sink *sink, const char *no_probe, bool json)
{
	char a[SW_ADDR_STRLEN] = "";

	if (sink->addr.family)
		sw_prefix_format(&sink->addr, a, sizeof(a));
	sw_jw_arr(&st->w, "sandboxes");
	if (!json && cfg->n_sandboxes)
		printf("sandboxes:\n");
	for (size_t b = 0; b < cfg->n_sandboxes; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];
		const struct sbx_rec *r = &st->sbx[b];
		enum sbx_verdict vd = sbx_verdict(x, r);
		const char *reason = NULL;

		if (vd == SBX_NOT_PROBED)
			reason = no_probe ? no_probe : "no throwaway probe matched its interfaces or sources";
		else if (vd == SBX_UNPROVEN)
			reason = sink->addr.family ? "no unlisted destination was tried" : sink->why_not;
		sw_jw_obj(&st->w, NULL);
		sw_jw_str(&st->w, "name", x->name);
		sw_jw_str(&st->w, "egress", sw_egress_name(x->egress));
		sw_jw_str(&st->w, "verdict", sbx_verdict_names[vd]);
		sw_jw_u64(&st->w, "runs", r->runs);
		if (r->runs)
			sw_jw_u64(&st->w, "first_run", (uint64_t)r->first_run);
		if (sink->addr.family)
			sw_jw_str(&st->w, "unlisted", a);
		sw_jw_u64(&st->w, "unlisted_blocked", r->unlisted_blocked);
		sw_jw_u64(&st->w, "unlisted_failed", r->unlisted_failed);
		sw_jw_u64(&st->w, "allowed_open", r->allowed_open);
		sw_jw_u64(&st->w, "allowed_unreachable", r->allowed_unreachable);
		if (x->budget) {
			sw_jw_u64(&st->w, "budget_counted", r->budget_counted);
			sw_jw_u64(&st->w, "budget_failed", r->budget_failed);
		}
		if (reason)
			sw_jw_str(&st->w, "reason", reason);
		sw_jw_end(&st->w);
		if (json)
			continue;
		printf("  %-16s egress %-9s %s", x->name, sw_egress_name(x->egress),
		       vd == SBX_NOT_HELD ? "NOT HELD" : sbx_verdict_names[vd]);
		if (vd == SBX_HELD || vd == SBX_NOT_HELD)
			printf(" (%zu run(s); unlisted %s:%u blocked %zu, FAIL %zu; allowed open %zu, "
			       "unreachable %zu)", r->runs, a, sink->port, r->unlisted_blocked,
			       r->unlisted_failed, r->allowed_open, r->allowed_unreachable);
		if ((vd == SBX_HELD || vd == SBX_NOT_HELD) && x->budget > SW_VERIFY_BUDGET_MAX)
			printf(" (budget %u: above %d, not probed)", x->budget, SW_VERIFY_BUDGET_MAX);
		else if ((vd == SBX_HELD || vd == SBX_NOT_HELD) && x->budget)
			printf(" (budget %u: one over it counted %zu, FAIL %zu)", x->budget,
			       r->budget_counted, r->budget_failed);
		if (reason)
			printf(" (%s)", reason);
		printf("\n");
	}
	sw_jw_end(&st->w);
}

/* Every guarded link, why, and which run probed it (or why none did). */
static void guarded_out(struct verify_state *st, const struct sw_config *cfg,
			const struct sw_host *h, const struct link_rec *lr, bool json)
{
	bool any = false;

	sw_jw_arr(&st->w, "guarded");
	for (size_t i = 0; i < h->n_links; i++) {
		const struct sw_link *l = &h->links[i];
		enum sw_guard_why why = sw_ruleset_guard_why(cfg, l);

		if (why < SW_GUARD_PATTERN)
			continue;
		sw_jw_obj(&st->w, NULL);
		sw_jw_str(&st->w, "name", l->name);
		sw_jw_str(&st->w, "kind", sw_link_kind_name(l->kind));
		sw_jw_str(&st->w, "why", sw_guard_why_name(why));
		if (lr[i].run >= 0)
			sw_jw_u64(&st->w, "run", (uint64_t)lr[i].run);
		else
			sw_jw_null(&st->w, "run");
		if (lr[i].run < 0 && lr[i].why_not)
			sw_jw_str(&st->w, "reason", lr[i].why_not);
		sw_jw_end(&st->w);
		if (json)
			continue;
		if (!any)
			printf("guarded links:\n");
		any = true;
		printf("  %-16s %-8s %-13s ", l->name, sw_link_kind_name(l->kind), sw_guard_why_name(why));
		if (lr[i].run >= 0)
			printf("probed (run %d)\n", lr[i].run + 1);
		else
			printf("not probed: %s\n", lr[i].why_not ? lr[i].why_not : "-");
	}
	sw_jw_end(&st->w);
}

/* The default mode: a run per guarded bridge, one through a throwaway
 * routed veth and one through a throwaway tap when links of those kinds
 * are guarded, and one for each sandbox no run matched that a bridge
 * subnet holds a source of. Returns 0 or -errno (set-up failures). */
static int throwaway_runs(struct verify_state *st, const struct run_in *in,
			  const struct sw_verify *plan, struct link_rec *lr, bool json)
{
	static struct sw_verify run;
	const struct sw_host *h = in->h;
	const struct sw_config *cfg = in->cfg;
	bool bridges = false;
	int rc = 0;

	for (size_t i = 0; i < h->n_links && !rc; i++) {
		const struct sw_link *l = &h->links[i];

		lr[i].run = -1;
		lr[i].why_not = NULL;
		if (!sw_ruleset_guarded(cfg, l))
			continue;
		switch (site_of(l)) {
		case SITE_BRIDGE:
			if (!l->up) {
				lr[i].why_not = "down";
				continue;
			}
			run = *plan;
			rc = probe_bridge(in, l, NULL, &run);
			if (rc == -EADDRNOTAVAIL) {
				sw_warn("bridge %s: no IPv4 subnet with a free address; not probed", l->name);
				lr[i].why_not = "no IPv4 subnet with a free address";
				rc = 0;
				continue;
			}
			if (rc) {
				sw_err("bridge %s: cannot set up the probe namespace: %s", l->name, strerror(-rc));
				break;
			}
			lr[i].run = (int)st->runs;
			bridges = true;
			run_done(st, cfg, &run, json);
			break;
		case SITE_ROUTED:
		case SITE_TAP: {
			enum site_kind k = site_of(l);
			int *done = k == SITE_TAP ? &st->tap_run : &st->routed_run;
			char *why_not = k == SITE_TAP ? st->tap_why_not : st->routed_why_not;

			/* one throwaway of each kind stands for all of that kind */
			if (*done == -1) {
				run = *plan;
				why_not[0] = '\0';
				if (probe_routed(in, k, l, &run, why_not, sizeof(st->tap_why_not)) == 0) {
					*done = (int)st->runs;
					run_done(st, cfg, &run, json);
				} else {
					*done = -2;
					sw_warn("%s: not probed: %s", l->name, why_not);
				}
			}
			lr[i].run = *done >= 0 ? *done : -1;
			lr[i].why_not = why_not;
			break;
		}
		default:
			lr[i].why_not = no_site_reason(l);
		}
	}
	/* a sandbox chosen by source that no run fell under: a bridge run
	 * from inside one of its sources */
	for (size_t b = 0; !rc && b < cfg->n_sandboxes && b < 32; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];
		bool done = st->sbx[b].runs > 0;

		for (size_t s = 0; !done && x->egress != SW_EGRESS_OPEN && s < x->n_sources; s++) {
			for (size_t i = 0; !done && i < h->n_links; i++) {
				const struct sw_link *l = &h->links[i];
				int r;

				if (site_of(l) != SITE_BRIDGE || !l->up || !sw_ruleset_guarded(cfg, l) ||
				    x->sources[s].family != AF_INET)
					continue;
				run = *plan;
				r = probe_bridge(in, l, &x->sources[s], &run);
				if (r == -EADDRNOTAVAIL)
					continue;
				if (r) {
					sw_err("bridge %s: cannot set up the probe namespace: %s", l->name,
					       strerror(-r));
					rc = r;
					break;
				}
				bridges = true;
				run_done(st, cfg, &run, json);
				done = true;
			}
		}
	}
	if (!rc && !st->runs) {
		sw_err("no guarded bridge is up with an IPv4 subnet%s; use --pid or --netns",
		       bridges ? "" : " (nor a routed veth or tap to copy)");
		rc = -ENOENT;
	}
	return rc;
}

/* --uid / --cgroup: the output path ([guard] users, cgroups). A child
 * takes the identity (writes itself into the cgroup's cgroup.procs, drops
 * to the uid and gid), probes from the host's own namespace and sends the
 * results back through a pipe. The plan gains the host's loopback
 * (127.0.0.1 and ::1 x every listening port not in host_ports), which the
 * output path blocks too. */
static int join_cgroup(const char *cg)
{
	char root[4096], path[8192], pid[24];
	int fd, rc = 0;

	while (*cg == '/')
		cg++;
	if (!*cg || strstr(cg, ".."))
		return -EINVAL;
	if ((rc = sw_cg_root(root, sizeof(root))))
		return rc;
	snprintf(path, sizeof(path), "%s/%s/cgroup.procs", root, cg);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, pid, strlen(pid)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int plan_loopback(const struct sw_config *cfg, const struct sw_host *host,
			 const uint16_t *ports, size_t n_ports, struct sw_verify *v)
{
	static const char *const lo[] = { "127.0.0.1", "::1" };
	int rc;

	for (size_t i = 0; i < 2; i++) {
		struct sw_prefix a;

		sw_prefix_parse(lo[i], &a, NULL);
		for (size_t p = 0; p < n_ports; p++)
			if (!allowed(cfg, host, &a, ports[p], true) &&
			    (rc = add(v, SW_VCAT_HOST, true, &a, ports[p])) == -ENOSPC)
				return rc;
	}
	return 0;
}

/* Exactly len bytes, or -EIO (the child died or wrote less). */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		got += (size_t)r;
	}
	return 0;
}

static int probe_as(struct sw_verify *v, const struct sw_verify_opts *o)
{
	static struct sw_probe p[SW_VERIFY_MAX];
	size_t np = 0;
	int fds[2], rc = 0, status;
	pid_t pid;

	for (size_t i = 0; i < v->n; i++)
		if (v->t[i].atk.kind == SW_ATK_NONE)
			p[np++] = v->t[i].probe;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		if (o->cgroup)
			rc = join_cgroup(o->cgroup);
		if (!rc && o->has_uid && (setgroups(0, NULL) < 0 || setgid(o->uid) < 0 ||
					  setuid(o->uid) < 0))
			rc = -errno;
		if (!rc)
			rc = sw_probe_run(p, np, o->timeout_ms);
		if (write(fds[1], &rc, sizeof(rc)) != sizeof(rc) ||
		    (!rc && write(fds[1], p, np * sizeof(*p)) != (ssize_t)(np * sizeof(*p))))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read_full(fds[0], &rc, sizeof(rc)))
		rc = -EIO;
	else if (!rc && read_full(fds[0], p, np * sizeof(*p)))
		rc = -EIO;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (rc)
		return rc;
	np = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->t[i].atk.kind == SW_ATK_NONE)
			v->t[i].probe = p[np++];
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

	if (!l || l->loopback || l->ifindex == 1 || sw_ruleset_guarded(nw->cfg, l) ||
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
		    !allowed(nw->cfg, nw->host, &a, 80, false) &&
		    add(nw->v, SW_VCAT_LAN, true, &a, 80) == 0)
			(*n)++;
	}
	return MNL_CB_OK;
}

/* Add the LAN peers of the neighbour table to the plan: 0 or -errno
 * (nothing added then: the plan's own LAN rows stand). */
static int lan_peers(const struct sw_config *cfg, const struct sw_host *host, struct sw_verify *v)
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

/* ---- what is wrong at the root, and the one verdict ---------------------- */

#define VERDICT_MAX 12
struct verdict {
	char why[VERDICT_MAX][256];     /* reasons it is NOT HELD */
	size_t n;
	char note[4][256];              /* root notes that do not fail it */
	size_t n_notes;
	bool unguarded;                 /* a container-facing link is not guarded */
};

__attribute__((format(printf, 2, 3)))
static void verdict_add(struct verdict *vd, const char *fmt, ...)
{
	va_list ap;

	if (vd->n == VERDICT_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(vd->why[vd->n++], sizeof(vd->why[0]), fmt, ap);
	va_end(ap);
}

/* Before any probe: the table, the daemon, the coverage of the links.
 * Printed first (text), they say why nothing below can be HELD. */
static void root_checks(const struct sw_config *cfg, const struct sw_host *host,
			const struct sw_verify_opts *o, struct verdict *vd)
{
	struct sw_coverage cov;
	char rep[SW_CONTROL_REPMAX];
	struct sw_nl nl;
	bool present = false;
	uint32_t flags = 0;
	int rc;

	if ((rc = sw_nl_open(&nl)) == 0) {
		rc = sw_observe_table(&nl, cfg->table, &present, &flags);
		sw_nl_close(&nl);
	}
	if (rc)
		verdict_add(vd, "cannot read table inet %s: %s", cfg->table, strerror(-rc));
	else if (!present)
		verdict_add(vd, "table inet %s is ABSENT: nothing blocks (sandwall apply)", cfg->table);
	if (o->control && (sw_control_call(o->control, "status", rep, sizeof(rep)) ||
			   strncmp(rep, "ok\n", 3)))
		snprintf(vd->note[vd->n_notes++], sizeof(vd->note[0]),
			 "sandwalld is not running (no answer on %s): nothing repairs drift", o->control);
	sw_coverage(cfg, host, &cov);
	vd->unguarded = sw_coverage_hole(&cov);
	for (size_t i = 0; i < cov.n_links && i < SW_COV_MAX; i++)
		verdict_add(vd, "%s (%s) faces containers and no [guard] entry covers it: UNGUARDED",
			    cov.links[i].name, cov.links[i].facing);
	if (cov.n_links > SW_COV_MAX)
		verdict_add(vd, "%zu more unguarded container-facing links", cov.n_links - SW_COV_MAX);
	for (size_t i = 0; i < cov.n_patterns && vd->n_notes < 4; i++)
		snprintf(vd->note[vd->n_notes++], sizeof(vd->note[0]),
			 "[guard] interfaces pattern \"%s\" matches no interface now (a typo?)",
			 cov.patterns[i]);
}

static void root_print(const struct verdict *vd, FILE *f)
{
	for (size_t i = 0; i < vd->n; i++)
		fprintf(f, "NOT HELD: %s\n", vd->why[i]);
	for (size_t i = 0; i < vd->n_notes; i++)
		fprintf(f, "note: %s\n", vd->note[i]);
}

static void iso_utc(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

/* The last lines (text) and members (JSON) of the result: one verdict. */
static bool verdict_out(const struct verdict *vd, struct sw_jw *w, time_t t, bool json)
{
	char when[32];
	bool held = vd->n == 0;

	iso_utc(t, when, sizeof(when));
	sw_jw_str(w, "time_utc", when);
	sw_jw_str(w, "verdict", held ? "held" : "not held");
	sw_jw_arr(w, "reasons");
	for (size_t i = 0; i < vd->n; i++)
		sw_jw_str(w, NULL, vd->why[i]);
	sw_jw_end(w);
	sw_jw_arr(w, "notes");
	for (size_t i = 0; i < vd->n_notes; i++)
		sw_jw_str(w, NULL, vd->note[i]);
	sw_jw_end(w);
	if (!json) {
		printf("verdict at %s: %s\n", when, held ?
		       "HELD (every target blocked, every canary open)" : "NOT HELD");
		for (size_t i = 0; i < vd->n; i++)
			printf("  because %s\n", vd->why[i]);
	}
	return held;
}

int sw_verify_cmd(const struct sw_config *cfg, const struct sw_verify_opts *o)
{
	static struct verdict vd;
	char *canaries[SW_VERIFY_MAX_OPEN];
	size_t n_canaries = 0;
	time_t t_start = time(NULL);
	static struct attack_ctx ac;
	static struct sw_host host;
	static struct sw_verify plan, run;
	static struct verify_state st;
	bool as_id = o->has_uid || o->cgroup;   /* --uid / --cgroup: from the host */
	bool throwaway = !o->pid && !o->netns && !as_id;
	bool attacks = !o->no_attacks && throwaway;
	struct sink sink = { .nsfd = -1 };
	struct link_rec *lr = NULL;
	struct run_in in;
	uint16_t ports[128];
	size_t n_ports = 0;
	char err[SW_ERRLEN];
	const char *no_probe = NULL;
	bool sandboxes = false, have_ac = false, held = false;
	int homefd = -1, rc, code = 2;

	if (as_id && (o->pid || o->netns)) {
		sw_err("--uid and --cgroup probe from the host; not with --pid or --netns");
		return 2;
	}
	memset(&vd, 0, sizeof(vd));
	if (geteuid() != 0) {
		/* nothing can be probed: say so first, and claim nothing */
		printf("NOT HELD: not run as root (euid %u): nothing was probed\n", (unsigned)geteuid());
		sw_err("verify needs root (network namespaces, raw sockets, the nf_tables table)");
		return 2;
	}
	if ((rc = sw_host_read(&host))) {
		sw_err("cannot read the host's links, addresses and routes: %s", strerror(-rc));
		return 2;
	}
	root_checks(cfg, &host, o, &vd);
	if (!o->json)
		root_print(&vd, stdout);
	/* the canaries: --expect-open, else [verify] canary */
	for (size_t i = 0; i < o->n_open && n_canaries < SW_VERIFY_MAX_OPEN; i++)
		canaries[n_canaries++] = o->expect_open[i];
	for (size_t i = 0; !o->n_open && i < cfg->n_canaries && n_canaries < SW_VERIFY_MAX_OPEN; i++)
		canaries[n_canaries++] = (char *)cfg->canaries[i];
	sw_verify_listening(ports, 128, &n_ports);
	if (sw_verify_plan(cfg, &host, ports, n_ports, canaries, n_canaries, &plan,
			   err, sizeof(err))) {
		sw_err("%s", err);
		return 2;
	}
	if ((rc = lan_peers(cfg, &host, &plan)))
		sw_debug("verify: cannot read the neighbour table: %s", strerror(-rc));
	for (size_t b = 0; b < cfg->n_sandboxes; b++)
		sandboxes |= cfg->sandboxes[b].egress != SW_EGRESS_OPEN;
	memset(&st, 0, sizeof(st));
	st.all = true;
	st.routed_run = st.tap_run = -1;
	sw_jw_init(&st.w);
	homefd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (homefd < 0) {
		sw_err("cannot open the host network namespace: %s", strerror(errno));
		goto out;
	}
	/* the counters (attacks, sandbox checks) and the canary */
	if (throwaway && (attacks || sandboxes)) {
		if (attack_setup(cfg, &host, &ac, attacks))
			goto out;
		have_ac = true;
	}
	if (throwaway && sandboxes)
		sink_setup(cfg, &host, homefd, o->timeout_ms, &sink);
	else if (sandboxes)
		no_probe = "sandbox checks run from the throwaway namespaces only (not --pid or --netns)";
	if (!throwaway)
		sink.addr.family = 0;
	lr = calloc(host.n_links ? host.n_links : 1, sizeof(*lr));
	if (!lr)
		goto out;

	sw_jw_obj(&st.w, NULL);
	sw_jw_i64(&st.w, "time", (int64_t)time(NULL));
	sw_jw_bool(&st.w, "attacks", attacks);
	if (have_ac && attacks && (ac.canary4 >= 0 || ac.canary6 >= 0))
		sw_jw_u64(&st.w, "canary_port", ac.canary_port);   /* its UDP canary: receipt tells them apart */
	if (!o->json && !attacks)
		printf("attacks: not run (%s)\n", o->no_attacks ? "--no-attacks" :
		       "only from the throwaway namespaces, not with --pid or --netns");
	if (!o->json && sandboxes && throwaway && !sink.addr.family)
		printf("sandboxes: no unlisted destination to try (%s)\n", sink.why_not);
	sw_verify_holes_json(cfg, &host, &st.w);
	if (!o->json)
		sw_verify_print_holes(cfg, &host, stdout);
	sw_jw_arr(&st.w, "runs");
	rc = 0;
	if (as_id) {
		run = plan;
		if (o->cgroup && o->has_uid)
			snprintf(run.from, sizeof(run.from), "uid %u in cgroup %s", o->uid, o->cgroup);
		else if (o->cgroup)
			snprintf(run.from, sizeof(run.from), "cgroup %s", o->cgroup);
		else
			snprintf(run.from, sizeof(run.from), "uid %u", o->uid);
		rc = plan_loopback(cfg, &host, ports, n_ports, &run);
		if (!rc)
			rc = probe_as(&run, o);
		if (rc)
			sw_err("%s: cannot probe: %s", run.from, strerror(-rc));
		else
			run_done(&st, cfg, &run, o->json);
		for (size_t i = 0; i < host.n_links; i++) {
			lr[i].run = -1;
			lr[i].why_not = "--uid/--cgroup: the output path, no throwaway probes";
		}
	} else if (!throwaway) {
		char path[64];
		const char *nspath = o->netns;
		int fd;

		if (o->pid) {
			snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)o->pid);
			nspath = path;
		}
		fd = open(nspath, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			sw_err("cannot open %s: %s", nspath, strerror(errno));
			rc = -errno;
		} else {
			run = plan;
			if (o->pid)
				snprintf(run.from, sizeof(run.from), "pid %d", (int)o->pid);
			else
				snprintf(run.from, sizeof(run.from), "netns %s", nspath);
			rc = probe_in(fd, homefd, &run, o->timeout_ms, NULL);
			close(fd);
			if (!rc)
				run_done(&st, cfg, &run, o->json);
		}
		for (size_t i = 0; i < host.n_links; i++) {
			lr[i].run = -1;
			lr[i].why_not = "--pid/--netns: no throwaway probes";
		}
	} else {
		in = (struct run_in){ cfg, &host, homefd, o->timeout_ms, have_ac ? &ac : NULL,
				      &sink, attacks };
		rc = throwaway_runs(&st, &in, &plan, lr, o->json);
	}
	sw_jw_end(&st.w);       /* runs */
	guarded_out(&st, cfg, &host, lr, o->json);
	sandboxes_out(&st, cfg, &sink, no_probe, o->json);
	/* packet sockets: a guarded host-side process with CAP_NET_RAW is not held (rawcap.h) */
	if (sw_rawcap_out(cfg, "", &st.w, o->json ? NULL : stdout))
		verdict_add(&vd, "a guarded host-side process holds CAP_NET_RAW: its packet sockets are not held");
	if (!n_canaries)
		verdict_add(&vd, "no canary configured ([verify] canary = none, no --expect-open): "
			    "nothing proves the container side reaches anything");
	if (rc && rc != -ENOENT)
		verdict_add(&vd, "the probes could not run: %s", strerror(-rc));
	else if (rc)
		verdict_add(&vd, "no guarded link to probe from");
	if (!st.all)
		verdict_add(&vd, "a target that must be blocked was reached, or a canary was not (FAIL rows)");
	sw_jw_arr(&st.w, "problems");
	for (size_t i = 0; i < vd.n; i++)
		sw_jw_str(&st.w, NULL, vd.why[i]);
	sw_jw_end(&st.w);
	held = verdict_out(&vd, &st.w, t_start, o->json);
	sw_jw_bool(&st.w, "passed", held);
	sw_jw_end(&st.w);
	if (!sw_jw_text(&st.w)) {
		sw_err("verify: cannot write the JSON result: %s", strerror(-st.w.err));
		goto out;
	}
	if (o->json)
		sw_jw_print(&st.w, stdout);
	if (!rc || rc == -ENOENT)
		record(o->record, sw_jw_text(&st.w));
	/* an error is 2, except where nothing could be probed because the
	 * container-facing link is unguarded: that is NOT HELD (1) */
	code = held ? 0 : rc && !(rc == -ENOENT && vd.unguarded) ? 2 : 1;
out:
	sink_close(&sink);
	free(lr);
	sw_jw_free(&st.w);
	if (homefd >= 0)
		close(homefd);
	if (have_ac)
		attack_close(&ac);
	return code;
}

/* ---- options: one entry each ---------------------------------------------- */

static int opt_pid(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > 0x7fffffff) {
		snprintf(err, errlen, "bad --pid '%s'", arg);
		return -EINVAL;
	}
	o->pid = (pid_t)v;
	return 0;
}

static int opt_netns(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	o->netns = arg;
	return 0;
}

static int opt_open(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	if (o->n_open >= SW_VERIFY_MAX_OPEN) {
		snprintf(err, errlen, "at most %d --expect-open", SW_VERIFY_MAX_OPEN);
		return -EINVAL;
	}
	o->expect_open[o->n_open++] = (char *)arg;
	return 0;
}

static int opt_timeout(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < 10 || v > 60000) {
		snprintf(err, errlen, "bad --timeout '%s' (10..60000 ms)", arg);
		return -EINVAL;
	}
	o->timeout_ms = (unsigned)v;
	return 0;
}

static int opt_no_attacks(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	(void)arg;
	(void)err;
	(void)errlen;
	o->no_attacks = true;
	return 0;
}

static int opt_uid(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || *arg == '-' || v == 0 || v >= UINT32_MAX) {
		snprintf(err, errlen, "bad --uid '%s' (a number, not 0)", arg);
		return -EINVAL;
	}
	o->has_uid = true;
	o->uid = (uint32_t)v;
	return 0;
}

static int opt_cgroup(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	o->cgroup = arg;
	return 0;
}

const struct sw_verify_optdef sw_verify_optdefs[] = {
	{ "pid", true, "PID", "probe from that process's network namespace", opt_pid },
	{ "netns", true, "PATH", "probe from that namespace (e.g. /run/netns/NAME)", opt_netns },
	{ "expect-open", true, "HOST:PORT", "a canary that must stay reachable (repeatable)", opt_open },
	{ "timeout", true, "MS", "how long a probe waits (default 1000)", opt_timeout },
	{ "no-attacks", false, NULL, "TCP probes only (no priming, ND or broadcast attacks)",
	  opt_no_attacks },
	{ "uid", true, "UID", "probe from the host as that user ([guard] users)", opt_uid },
	{ "cgroup", true, "PATH", "probe from the host in that cgroup ([guard] cgroups)", opt_cgroup },
};
const size_t sw_verify_n_optdefs = sizeof(sw_verify_optdefs) / sizeof(*sw_verify_optdefs);

int sw_verify_opt(struct sw_verify_opts *o, size_t idx, const char *arg, char *err, size_t errlen)
{
	if (idx >= sw_verify_n_optdefs) {
		snprintf(err, errlen, "no such verify option");
		return -EINVAL;
	}
	return sw_verify_optdefs[idx].set(o, arg, err, errlen);
}
