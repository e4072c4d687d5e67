// SPDX-License-Identifier: GPL-2.0-or-later
/* rs_sets: the named sets of table inet <name> that hold addresses, names
 * and allow lists (include/core/rs_internal.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>

#include "core/gate.h"
#include "core/rs_internal.h"
#include "core/ruleset.h"
#include "lib/sort.h"

/* where IPv6 neighbour discovery may go besides the host's own addresses */
static const char *const nd_dests[] = { "fe80::/10", "ff02::/16" };

struct sw_set *rs_new_set(struct sw_model *m, const char *name, uint32_t type,
			      uint32_t klen, uint32_t flags, const char *type_text)
{
	struct sw_set *s = sw_model_add_set(m, name);

	if (!s)
		return NULL;
	s->key_type = type;
	s->key_len = klen;
	s->flags = flags;
	s->type_text = type_text;
	return s;
}

struct sw_set *rs_new_concat_set(struct sw_model *m, const char *name, uint32_t type,
				     uint32_t klen, uint32_t flags, const char *type_text,
				     const uint8_t *fields, uint8_t n)
{
	struct sw_set *s = rs_new_set(m, name, type, klen, flags, type_text);

	if (s) {
		memcpy(s->concat, fields, n);
		s->n_concat = n;
	}
	return s;
}


/* set <name>4 { type ipv4_addr; flags interval; } and <name>6 likewise */
int rs_addr_sets(struct sw_model *m, struct work *w, const char *base,
		     const struct sw_prefix *p, size_t n)
{
	struct ivals *iv4 = &w->a, *iv6 = &w->b;
	char name[SW_NAME_MAX];
	struct sw_set *s4, *s6;
	int err;

	snprintf(name, sizeof(name), "%s4", base);
	s4 = rs_new_set(m, name, SW_TYPE_IPADDR, 4, NFT_SET_INTERVAL, "ipv4_addr");
	snprintf(name, sizeof(name), "%s6", base);
	s6 = rs_new_set(m, name, SW_TYPE_IP6ADDR, 16, NFT_SET_INTERVAL, "ipv6_addr");
	if (!s4 || !s6)
		return -ENOSPC;
	iv4->n = iv6->n = 0;
	iv4->klen = 4;
	iv6->klen = 16;
	for (size_t i = 0; i < n; i++) {
		err = ivals_add_prefix(p[i].family == AF_INET ? iv4 : iv6, &p[i]);
		if (err)
			return err;
	}
	if ((err = ivals_fill_set(s4, iv4, AF_INET, true)))
		return err;
	return ivals_fill_set(s6, iv6, AF_INET6, true);
}

/* Note n prefixes for the gate: list 0 (blocks before own), 1 (after
 * own: lan, private) or 2 (own itself). */
int rs_gate_note(struct work *w, int list, const struct sw_prefix *p, size_t n)
{
	if (!n)
		return 0;
	if (w->n_pre[list] + n > w->cap_pre[list]) {
		size_t cap = w->cap_pre[list] * 2 + n + 64;
		struct sw_prefix *v = reallocarray(w->pre[list], cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->pre[list] = v;
		w->cap_pre[list] = cap;
	}
	memcpy(w->pre[list] + w->n_pre[list], p, n * sizeof(*p));
	w->n_pre[list] += n;
	return 0;
}


/* The gate (include/core/gate.h): every address some category's set blocks,
 * less the own subnets where only lan and private would block them; two
 * buffers per family, the first selected:
 *   set gate4_a { type ipv4_addr; flags interval; elements = { ... } }
 *   set gate4_b { type ipv4_addr; flags interval; }   (and gate6_a/b)
 *   set gate_a { type nf_proto; elements = { ipv4, ipv6 } }
 *   set gate_b { type nf_proto; } */
int rs_gate_sets(struct sw_model *m, struct work *w)
{
	struct ivals iv[3] = { { 0 } }, out = { 0 };
	char name[SW_NAME_MAX];
	int err = 0;

	for (int v6 = 0; v6 < 2 && !err; v6++) {
		int fam = v6 ? AF_INET6 : AF_INET;
		struct sw_set *s[2];

		for (int x = 0; x < 2; x++) {
			sw_gate_set_name(name, sizeof(name), v6, x ? SW_GATE_B : SW_GATE_A);
			s[x] = rs_new_set(m, name, v6 ? SW_TYPE_IP6ADDR : SW_TYPE_IPADDR, v6 ? 16 : 4,
				       NFT_SET_INTERVAL, v6 ? "ipv6_addr" : "ipv4_addr");
		}
		if (!s[0] || !s[1]) {
			err = -ENOSPC;
			break;
		}
		for (int l = 0; l < 3 && !err; l++) {
			iv[l].n = 0;
			iv[l].klen = sw_family_addrlen(fam);
			for (size_t i = 0; i < w->n_pre[l] && !err; i++)
				if (w->pre[l][i].family == fam)
					err = ivals_add_prefix(&iv[l], &w->pre[l][i]);
			ivals_merge(&iv[l], true);
		}
		out.n = 0;
		out.klen = iv[0].klen;
		for (size_t i = 0; i < iv[0].n && !err; i++)
			err = ivals_push(&out, iv[0].v[i].lo, iv[0].v[i].hi);
		if (!err)
			err = ivals_subtract(&out, &iv[1], &iv[2]);
		if (!err)
			err = ivals_fill_set(s[0], &out, fam, true);
	}
	for (int l = 0; l < 3; l++)
		free(iv[l].v);
	free(out.v);
	for (int x = 0; x < 2 && !err; x++)
		if (!rs_new_set(m, x ? SW_GATE_SEL_B : SW_GATE_SEL_A, SW_TYPE_NFPROTO, 1, 0, "nf_proto"))
			return -ENOSPC;
	return err ? err : sw_gate_select(m, SW_GATE_A);
}

/* Fill an ifname set from the names and patterns in iv. Names are merged
 * only when one covers another (a merged range of unrelated names could
 * not be written back as nft text); the text comes from what is left. */
int rs_ifname_fill(struct sw_set *s, struct ivals *iv)
{
	int err;

	if ((err = ivals_fill_set(s, iv, 0, false)))
		return err;
	for (size_t i = 0; i < iv->n; i++) {
		char text[SW_IFNAMSIZ + 4];
		size_t l = strnlen((const char *)iv->v[i].lo, SW_IFNAMSIZ);
		bool wild = l < SW_IFNAMSIZ && iv->v[i].hi[l] == 0xff;

		snprintf(text, sizeof(text), "\"%.*s%s\"", (int)l, (const char *)iv->v[i].lo,
			 wild ? "*" : "");
		if ((err = sw_set_add_text(s, text)))
			return err;
	}
	return 0;
}


static int name_elem(struct sw_set *s, const char *name)
{
	struct sw_elem e = { .key = { 0 } };
	char text[SW_IFNAMSIZ + 4];
	size_t l = strnlen(name, SW_IFNAMSIZ - 1);
	int err;

	memcpy(e.key, name, l);
	snprintf(text, sizeof(text), "\"%.*s\"", (int)l, name);
	if ((err = sw_set_add_elem(s, &e)))
		return err;
	return sw_set_add_text(s, text);
}

/* auto, guard by kind (the prerouting, input and forward dispatch):
 *   set guard_except { type ifname; elements = { "lo", "eth0" } }
 *     lo, [guard] except and the links auto never guards (the uplinks:
 *     the output interfaces of default routes, a bridge that holds the
 *     uplink);
 *     a veth whose peer is still here is NOT one of them
 *   set guard_kinds { type ifname; elements = { "bridge", "veth", ... } } */
static int kind_sets(struct sw_model *m, const struct sw_config *cfg, const struct sw_host *host)
{
	struct sw_set *s = rs_new_set(m, SW_SET_GUARD_EXCEPT, SW_TYPE_IFNAME, SW_IFNAMSIZ, 0, "ifname");
	bool lo = false;
	int err;

	if (!s)
		return -ENOSPC;
	for (size_t i = 0; i < cfg->n_except; i++) {
		lo |= !strncmp(cfg->except[i], "lo", SW_IFNAMSIZ);
		if ((err = name_elem(s, cfg->except[i])))
			return err;
	}
	for (size_t i = 0; host && i < host->n_links; i++) {
		const struct sw_link *l = &host->links[i];

		if (!sw_guard_never_auto(cfg, l) || !l->name[0] || sw_guard_excepted(cfg, l->name))
			continue;
		lo |= !strncmp(l->name, "lo", SW_IFNAMSIZ);
		if ((err = name_elem(s, l->name)))
			return err;
	}
	if (!lo && (err = name_elem(s, "lo")))
		return err;
	if (!(s = rs_new_set(m, SW_SET_GUARD_KINDS, SW_TYPE_IFNAME, SW_IFNAMSIZ, 0, "ifname")))
		return -ENOSPC;
	for (size_t i = 0; i < sw_n_guard_kinds; i++)
		if ((err = name_elem(s, sw_guard_kinds[i])))
			return err;
	return 0;
}

/* set guard_ifaces { type ifname; flags interval; elements = { "docker0", "br-*" } }
 * The [guard] interfaces patterns; with auto, the runtime name patterns
 * and the name of every link detected (bridge, routed veth, tap); with
 * all_bridges, the name of every bridge. */
int rs_ifname_set(struct sw_model *m, struct work *w, const struct sw_config *cfg,
		      const struct sw_host *host)
{
	struct ivals *iv = &w->a;
	size_t n_links = host ? host->n_links : 0;
	struct sw_set *s;
	int err;

	s = rs_new_set(m, "guard_ifaces", SW_TYPE_IFNAME, SW_IFNAMSIZ, NFT_SET_INTERVAL, "ifname");
	if (!s)
		return -ENOSPC;
	iv->n = 0;
	iv->klen = SW_IFNAMSIZ;
	for (size_t i = 0; i < cfg->n_patterns; i++)
		if ((err = ivals_add_ifname(iv, cfg->patterns[i])))
			return err;
	for (size_t i = 0; cfg->auto_detect && i < sw_n_runtime_names; i++)
		if (!sw_guard_pattern_hits_excluded(cfg, sw_runtime_names[i], host) &&
		    (err = ivals_add_ifname(iv, sw_runtime_names[i])))
			return err;
	for (size_t i = 0; i < n_links; i++)
		if (sw_ruleset_guarded(cfg, &host->links[i]) &&
		    (err = ivals_add_ifname(iv, host->links[i].name)))
			return err;
	if ((err = rs_ifname_fill(s, iv)))
		return err;
	/* set guard_links { type ifname; elements = { "docker0", ... } }: the
	 * guarded links' exact names, a hash set in front of guard_ifaces:
	 * one hash lookup for a guarded link's packet instead of a walk of
	 * the interval tree (docs/BENCHMARKS.md, run F) */
	if (!(s = rs_new_set(m, SW_SET_GUARD_LINKS, SW_TYPE_IFNAME, SW_IFNAMSIZ, 0, "ifname")))
		return -ENOSPC;
	for (size_t i = 0; i < n_links; i++) {
		struct sw_elem e = { .key = { 0 } };
		char text[SW_IFNAMSIZ + 4];
		size_t l = strnlen(host->links[i].name, SW_IFNAMSIZ - 1);

		if (!l || !sw_ruleset_guarded(cfg, &host->links[i]))
			continue;
		memcpy(e.key, host->links[i].name, l);
		snprintf(text, sizeof(text), "\"%.*s\"", (int)l, host->links[i].name);
		if ((err = sw_set_add_elem(s, &e)) || (err = sw_set_add_text(s, text)))
			return err;
	}
	return cfg->auto_detect ? kind_sets(m, cfg, host) : 0;
}

/* One element of a concatenation, padded to 32-bit registers. */
static size_t concat_key(uint8_t *k, const void *addr, size_t alen, uint8_t proto, uint16_t port)
{
	size_t off = 0;
	uint16_t be = htons(port);

	memset(k, 0, SW_KEY_MAX);
	if (addr) {
		memcpy(k, addr, alen);
		off = alen;
	}
	k[off] = proto;
	off += 4;
	memcpy(k + off, &be, 2);
	return off + 4;
}

/* family, address, length, protocol, port: the order the kernel sorts keys in */
static int allow_cmp(const void *a, const void *b, void *arg)
{
	const struct sw_allow *x = a, *y = b;
	int r;

	(void)arg;

	if (x->dst.family != y->dst.family)
		return x->dst.family < y->dst.family ? -1 : 1;
	if ((r = memcmp(x->dst.addr, y->dst.addr, 16)))
		return r;
	if (x->dst.len != y->dst.len)
		return x->dst.len < y->dst.len ? -1 : 1;
	if (x->port.proto != y->port.proto)
		return x->port.proto < y->port.proto ? -1 : 1;
	return x->port.port < y->port.port ? -1 : x->port.port > y->port.port;
}

static const char *proto_name(uint8_t p)
{
	return p == IPPROTO_TCP ? "tcp" : "udp";
}

/* family, protocol, port, then address, the wider prefix first */
static int cover_cmp(const void *a, const void *b, void *arg)
{
	const struct sw_allow *x = a, *y = b;
	int r;

	(void)arg;

	if (x->dst.family != y->dst.family)
		return x->dst.family < y->dst.family ? -1 : 1;
	if (x->port.proto != y->port.proto)
		return x->port.proto < y->port.proto ? -1 : 1;
	if (x->port.port != y->port.port)
		return x->port.port < y->port.port ? -1 : 1;
	if ((r = memcmp(x->dst.addr, y->dst.addr, 16)))
		return r;
	return x->dst.len < y->dst.len ? -1 : x->dst.len > y->dst.len;
}

/* set <base>4 { type ipv4_addr . inet_proto . inet_service; flags interval; }
 * and <base>6 likewise, filled with the entries (which it sorts, and of
 * which it drops the covered ones). With exact, also
 * set <base>4_exact { type ipv4_addr . inet_proto . inet_service; }
 * and <base>6_exact (hash sets), which take every entry of one address
 * (a /32 or /128): the kernel adds and deletes those in O(1), where a
 * delete from the interval set's pipapo rebuilds its lookup tables
 * (~60 ms among 10,000 elements, docs/BENCHMARKS.md). Only wider
 * prefixes stay in the interval sets. */
/* Which of rs_concat_sets' four sets an entry goes to: v4 or v6 (bit 0),
 * interval or, for one address with exact sets, hash (SLOT_EXACT); -1 for
 * an entry dropped (covered by another). */
#define SLOT_V6    1
#define SLOT_EXACT 2
static int entry_slot(const struct sw_allow *a, bool exact)
{
	if (a->dst.family == AF_UNSPEC)
		return -1;
	return (a->dst.family == AF_INET6 ? SLOT_V6 : 0) |
	       (exact && a->dst.len == sw_family_addrlen(a->dst.family) * 8 ? SLOT_EXACT : 0);
}

int rs_concat_sets(struct sw_model *m, const char *base, struct sw_allow *all, size_t n,
		       bool exact)
{
	static const uint8_t f4[] = { 4, 1, 2 }, f6[] = { 16, 1, 2 };
	static const uint32_t t4 = (((SW_TYPE_IPADDR << SW_TYPE_BITS) | SW_TYPE_INET_PROTO) <<
				    SW_TYPE_BITS) | SW_TYPE_INET_SERVICE;
	static const uint32_t t6 = (((SW_TYPE_IP6ADDR << SW_TYPE_BITS) | SW_TYPE_INET_PROTO) <<
				    SW_TYPE_BITS) | SW_TYPE_INET_SERVICE;
	char name[SW_NAME_MAX];
	struct sw_set *s4, *s6, *x4 = NULL, *x6 = NULL;
	size_t count[4] = { 0 };
	int err, k;

	snprintf(name, sizeof(name), "%s4", base);
	s4 = rs_new_concat_set(m, name, t4, 12, NFT_SET_INTERVAL | NFT_SET_CONCAT,
			    "ipv4_addr . inet_proto . inet_service", f4, 3);
	snprintf(name, sizeof(name), "%s6", base);
	s6 = rs_new_concat_set(m, name, t6, 24, NFT_SET_INTERVAL | NFT_SET_CONCAT,
			    "ipv6_addr . inet_proto . inet_service", f6, 3);
	if (!s4 || !s6)
		return -ENOSPC;
	if (exact) {
		snprintf(name, sizeof(name), "%s4_exact", base);
		x4 = rs_new_concat_set(m, name, t4, 12, 0,
				    "ipv4_addr . inet_proto . inet_service", f4, 3);
		snprintf(name, sizeof(name), "%s6_exact", base);
		x6 = rs_new_concat_set(m, name, t6, 24, 0,
				    "ipv6_addr . inet_proto . inet_service", f6, 3);
		if (!x4 || !x6)
			return -ENOSPC;
	}
	struct sw_set *to[4] = { s4, s6, x4, x6 };       /* by entry_slot */

	/* pipapo refuses overlaps: drop every entry another one covers. Prefixes
	 * either nest or are disjoint, so in (family, protocol, port, address,
	 * widest first) order a covered entry follows its cover: one sweep.
	 * A host entry under a wider one is dropped too: the wider one
	 * accepts it already. */
	sw_sort(all, n, sizeof(all[0]), cover_cmp, NULL);
	for (size_t i = 0, cover = SIZE_MAX; i < n; i++) {
		if (cover != SIZE_MAX && all[cover].dst.family == all[i].dst.family &&
		    all[cover].port.proto == all[i].port.proto &&
		    all[cover].port.port == all[i].port.port &&
		    sw_prefix_contains(&all[cover].dst, &all[i].dst))
			all[i].dst.family = AF_UNSPEC;          /* covered: dropped below */
		else
			cover = i;
	}
	/* the order the kernel sorts keys in, for stable text */
	sw_sort(all, n, sizeof(all[0]), allow_cmp, NULL);
	/* each set's room at once (10,000 entries, no copy per doubling) */
	for (size_t i = 0; i < n; i++)
		if ((k = entry_slot(&all[i], exact)) >= 0)
			count[k]++;
	for (k = 0; k < 4; k++)
		if (to[k] && count[k] && (err = sw_set_reserve(to[k], count[k])))
			return err;
	/* the entries' texts come from the elements when export asks */
	for (k = 0; k < 4; k++)
		if (to[k])
			to[k]->text_concat = true;
	for (size_t i = 0; i < n; i++) {
		uint8_t lo[16], hi[16];
		struct sw_elem e;
		size_t alen;

		if ((k = entry_slot(&all[i], exact)) < 0)
			continue;
		alen = sw_family_addrlen(all[i].dst.family);
		sw_prefix_range(&all[i].dst, lo, hi);
		memset(&e, 0, sizeof(e));
		concat_key(e.key, lo, alen, all[i].port.proto, all[i].port.port);
		if (!(k & SLOT_EXACT)) {
			concat_key(e.key_end, hi, alen, all[i].port.proto, all[i].port.port);
			e.has_key_end = true;
		}
		if ((err = sw_set_add_elem(to[k], &e)))
			return err;
	}
	return 0;
}

/* udp and tcp port 53 of every resolver the host uses, appended to all */
size_t rs_add_resolvers(struct sw_allow *all, size_t n, const struct sw_host *host)
{
	for (size_t i = 0; host && i < host->n_resolvers; i++) {
		for (int p = 0; p < 2; p++) {
			memset(&all[n], 0, sizeof(all[n]));
			all[n].dst = host->resolvers[i];
			all[n].port.proto = p ? IPPROTO_TCP : IPPROTO_UDP;
			all[n++].port.port = 53;
		}
	}
	return n;
}

/* set allow4 { type ipv4_addr . inet_proto . inet_service; flags interval; },
 * set allow4_exact { type ipv4_addr . inet_proto . inet_service; } (and 6) */
int rs_allow_sets(struct sw_model *m, const struct sw_config *cfg,
		      const struct sw_host *host)
{
	struct sw_allow *all = calloc(cfg->n_allows + 2 * SW_MAX_RESOLVERS, sizeof(*all));
	static const uint8_t f4[] = { 4, 1, 2 };
	size_t n = 0;
	struct sw_set *s;
	int err;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->n_allows; i++)
		all[n++] = cfg->allows[i];
	if (cfg->dns == SW_DNS_AUTO)
		n = rs_add_resolvers(all, n, host);
	err = rs_concat_sets(m, "allow", all, n, true);
	free(all);
	if (err)
		return err;

	/* set host_ports { type inet_proto . inet_service; } */
	s = rs_new_concat_set(m, "host_ports", (SW_TYPE_INET_PROTO << SW_TYPE_BITS) | SW_TYPE_INET_SERVICE,
			   8, 0, "inet_proto . inet_service", f4 + 1, 2);
	if (!s)
		return -ENOSPC;
	for (size_t i = 0; i < cfg->n_host_ports; i++) {
		struct sw_elem e;
		char text[32];
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= cfg->host_ports[j].proto == cfg->host_ports[i].proto &&
			       cfg->host_ports[j].port == cfg->host_ports[i].port;
		if (dup)
			continue;
		memset(&e, 0, sizeof(e));
		concat_key(e.key, NULL, 0, cfg->host_ports[i].proto, cfg->host_ports[i].port);
		if ((err = sw_set_add_elem(s, &e)))
			return err;
		snprintf(text, sizeof(text), "%s . %u", proto_name(cfg->host_ports[i].proto),
			 cfg->host_ports[i].port);
		if ((err = sw_set_add_text(s, text)))
			return err;
	}
	return 0;
}

/* set nd6: link-local unicast and link-scope multicast, the only places
 * (with the host's own addresses) that neighbour discovery may go to */
int rs_nd_set(struct sw_model *m, struct work *w)
{
	struct ivals *iv = &w->b;
	struct sw_set *s = rs_new_set(m, "nd6", SW_TYPE_IP6ADDR, 16, NFT_SET_INTERVAL, "ipv6_addr");
	struct sw_prefix p;
	int err;

	if (!s)
		return -ENOSPC;
	iv->n = 0;
	iv->klen = 16;
	for (size_t i = 0; i < sizeof(nd_dests) / sizeof(*nd_dests); i++) {
		sw_prefix_parse(nd_dests[i], &p, NULL);
		if ((err = ivals_add_prefix(iv, &p)))
			return err;
	}
	return ivals_fill_set(s, iv, AF_INET6, true);
}

/* set between { type ifname . ifname; elements = { "docker0" . "br-x", "br-x" . "docker0" } }
 * [allow] between, both ways: the pairs whose routed traffic sandboxes
 * leaves alone */
int rs_between_set(struct sw_model *m, const struct sw_config *cfg)
{
	static const uint8_t f[] = { SW_IFNAMSIZ, SW_IFNAMSIZ };
	struct sw_set *s = rs_new_concat_set(m, SW_SET_BETWEEN, (SW_TYPE_IFNAME << SW_TYPE_BITS) | SW_TYPE_IFNAME,
					  2 * SW_IFNAMSIZ, 0, "ifname . ifname", f, 2);
	int err;

	if (!s)
		return -ENOSPC;
	for (size_t i = 0; i < cfg->n_between; i++)
		for (int d = 0; d < 2; d++) {
			const char *a = cfg->between[i][d], *z = cfg->between[i][!d];
			struct sw_elem e = { .key = { 0 } };
			char text[2 * SW_IFNAMSIZ + 8];

			if (d && !strcmp(a, z))
				break;          /* A:A is one element */
			memcpy(e.key, a, strnlen(a, SW_IFNAMSIZ - 1));
			memcpy(e.key + SW_IFNAMSIZ, z, strnlen(z, SW_IFNAMSIZ - 1));
			snprintf(text, sizeof(text), "\"%s\" . \"%s\"", a, z);
			if ((err = sw_set_add_elem(s, &e)) || (err = sw_set_add_text(s, text)))
				return err;
		}
	return 0;
}

