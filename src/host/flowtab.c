// SPDX-License-Identifier: GPL-2.0-or-later
/* flowtab: the network log's flow table and records (see include/host/flowtab.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "host/flowtab.h"
#include "lib/journal.h"

int sw_flowtab_init(struct sw_flowtab *t, size_t max)
{
	size_t n = 4;

	memset(t, 0, sizeof(*t));
	if (max < 1 || max > SW_FLOWS_MAX_LIMIT)
		return -EINVAL;
	while (n < 2 * max)
		n *= 2;
	if (!(t->slot = calloc(n, sizeof(*t->slot))))
		return -ENOMEM;
	t->n_slots = n;
	t->max = max;
	return 0;
}

void sw_flowtab_free(struct sw_flowtab *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static bool same(const struct sw_ct_flow *a, const struct sw_ct_flow *b)
{
	return a->id == b->id && a->family == b->family && a->proto == b->proto &&
	       a->sport == b->sport && a->dport == b->dport && a->zone == b->zone &&
	       !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

/* FNV-1a over the key */
static size_t hash(const struct sw_ct_flow *f)
{
	uint64_t h = 1469598103934665603ull;
	uint8_t k[44];

	memcpy(k, &f->id, 4);
	memcpy(k + 4, f->src, 16);
	memcpy(k + 20, f->dst, 16);
	memcpy(k + 36, &f->sport, 2);
	memcpy(k + 38, &f->dport, 2);
	k[40] = f->proto;
	k[41] = (uint8_t)f->family;
	memcpy(k + 42, &f->zone, 2);
	for (size_t i = 0; i < sizeof(k); i++)
		h = (h ^ k[i]) * 1099511628211ull;
	return (size_t)h;
}

/* The slot that holds f, or the free one where it would go. */
static size_t probe(const struct sw_flowtab *t, const struct sw_ct_flow *f)
{
	size_t i = hash(f) & (t->n_slots - 1);

	while (t->slot[i].used && !same(&t->slot[i].ct, f))
		i = (i + 1) & (t->n_slots - 1);
	return i;
}

struct sw_flow *sw_flowtab_find(struct sw_flowtab *t, const struct sw_ct_flow *f)
{
	size_t i;

	if (!t->slot)
		return NULL;
	i = probe(t, f);
	return t->slot[i].used ? &t->slot[i] : NULL;
}

static void take_counters(struct sw_flow *e, const struct sw_ct_flow *f)
{
	if (!f->has_counters)
		return;
	e->ct.has_counters = true;
	e->ct.orig_packets = f->orig_packets;
	e->ct.orig_bytes = f->orig_bytes;
	e->ct.reply_packets = f->reply_packets;
	e->ct.reply_bytes = f->reply_bytes;
}

int sw_flowtab_name(struct sw_flowtab *t, const struct sw_ct_flow *f, const char *name)
{
	struct sw_flow *e = sw_flowtab_find(t, f);
	size_t n = strlen(name);

	if (!e)
		return -ENOENT;
	e->name_cut = n >= sizeof(e->name);
	if (e->name_cut)
		n = sizeof(e->name) - 1;
	memcpy(e->name, name, n);
	e->name[n] = '\0';
	return 0;
}

int sw_flowtab_seen(struct sw_flowtab *t, const struct sw_ct_flow *f, const char *iif,
		    int64_t now)
{
	size_t i;
	struct sw_flow *e;

	if (!t->slot)
		return -ENOSPC;
	i = probe(t, f);
	e = &t->slot[i];
	if (e->used) {
		take_counters(e, f);
		e->last = now;
		e->gen = t->gen;
		return 0;
	}
	if (t->n >= t->max) {
		if (f->kind == SW_CT_NEW)
			t->dropped++;
		else
			t->untracked_now++;
		return -ENOSPC;
	}
	memset(e, 0, sizeof(*e));
	e->ct = *f;
	e->used = true;
	e->first = e->last = now;
	e->gen = t->gen;
	snprintf(e->iif, sizeof(e->iif), "%s", iif ? iif : "");
	t->n++;
	return 1;
}

/* Backward-shift deletion: no tombstones, probes stay short. */
static void remove_at(struct sw_flowtab *t, size_t i)
{
	size_t mask = t->n_slots - 1, j = i;

	t->slot[i].used = false;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!t->slot[j].used)
			break;
		home = hash(&t->slot[j].ct) & mask;
		/* j's entry may move to i when its home is not in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->slot[i] = t->slot[j];
			t->slot[j].used = false;
			i = j;
		}
	}
	t->n--;
}

int sw_flowtab_end(struct sw_flowtab *t, const struct sw_ct_flow *f, int64_t now,
		   struct sw_flow *out)
{
	size_t i;

	if (!t->slot)
		return -ENOENT;
	i = probe(t, f);
	if (!t->slot[i].used)
		return -ENOENT;
	take_counters(&t->slot[i], f);
	t->slot[i].last = now;
	*out = t->slot[i];
	remove_at(t, i);
	return 0;
}

void sw_flowtab_dump_begin(struct sw_flowtab *t)
{
	t->gen++;
	t->untracked_now = 0;
}

size_t sw_flowtab_dump_end(struct sw_flowtab *t, void (*cb)(const struct sw_flow *f, void *data),
			   void *data)
{
	size_t gone = 0;

	t->untracked = t->untracked_now;
	for (size_t i = 0; i < t->n_slots;) {
		if (t->slot[i].used && t->slot[i].gen != t->gen) {
			if (cb)
				cb(&t->slot[i], data);
			remove_at(t, i);
			gone++;
			continue;       /* the shift may have moved another one here */
		}
		i++;
	}
	return gone;
}

void sw_flowtab_each(const struct sw_flowtab *t, void (*cb)(const struct sw_flow *f, void *data),
		     void *data)
{
	for (size_t i = 0; i < t->n_slots; i++)
		if (t->slot[i].used)
			cb(&t->slot[i], data);
}

static bool in_prefix(const struct sw_prefix *p, int family, const uint8_t *addr)
{
	struct sw_prefix a = { .family = family };

	memcpy(a.addr, addr, family == AF_INET ? 4 : 16);
	a.len = family == AF_INET ? 32 : 128;
	return p->family == family && sw_prefix_contains(p, &a);
}

void sw_flow_iif(const struct sw_host *h, int family, const uint8_t *addr, char *name, size_t len)
{
	int best = -1, ifindex = 0;

	for (size_t i = 0; i < h->n_addrs; i++) {
		const struct sw_prefix *p = &h->addrs[i].local;

		if (p->len > best && in_prefix(p, family, addr)) {
			best = p->len;
			ifindex = h->addrs[i].ifindex;
		}
	}
	for (size_t i = 0; i < h->n_routes; i++) {
		const struct sw_prefix *p = &h->routes[i].dst;

		if (p->len > best && in_prefix(p, family, addr)) {
			best = p->len;
			ifindex = h->routes[i].oif;
		}
	}
	for (size_t i = 0; ifindex && i < h->n_links; i++) {
		if (h->links[i].ifindex == ifindex) {
			snprintf(name, len, "%s", h->links[i].name);
			return;
		}
	}
	snprintf(name, len, "%s", "");
}

bool sw_flow_from_host(const struct sw_host *h, int family, const uint8_t *addr)
{
	size_t n = family == AF_INET ? 4 : 16;

	for (size_t i = 0; i < h->n_addrs; i++)
		if (h->addrs[i].local.family == family && !memcmp(h->addrs[i].local.addr, addr, n))
			return true;
	return false;
}

static void times(struct sw_jw *w, const char *key, int64_t t)
{
	char iso[32], k[24];

	sw_iso_utc(t, iso, sizeof(iso));
	sw_jw_i64(w, key, t);
	snprintf(k, sizeof(k), "%s_time", key);
	sw_jw_str(w, k, iso);
}

void sw_flow_json(struct sw_jw *w, const char *key, const struct sw_flow *f, const char *state,
		  int64_t now)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], iso[32], pn[8];
	const struct sw_ct_flow *c = &f->ct;

	inet_ntop(c->family, c->src, src, sizeof(src));
	inet_ntop(c->family, c->dst, dst, sizeof(dst));
	sw_iso_utc(now, iso, sizeof(iso));
	sw_jw_obj(w, key);
	sw_jw_str(w, "time", iso);
	sw_jw_i64(w, "unix", now);
	sw_jw_str(w, "event", "flow");
	sw_jw_str(w, "state", state);
	sw_jw_str(w, "verdict", "allowed");
	times(w, "first", f->first);
	times(w, "last", f->last);
	sw_jw_str(w, "family", c->family == AF_INET ? "ipv4" : "ipv6");
	sw_jw_str(w, "src", src);
	sw_jw_u64(w, "sport", c->sport);
	sw_jw_str(w, "iif", f->iif[0] ? f->iif : NULL);
	sw_jw_str(w, "dst", dst);
	if (f->name[0]) {
		sw_jw_str(w, "name", f->name);
		if (f->name_cut)
			sw_jw_bool(w, "name_cut", true);
	}
	sw_jw_str(w, "proto", sw_ct_proto_name(c->proto, pn, sizeof(pn)));
	sw_jw_u64(w, "dport", c->dport);
	/* without conntrack accounting the kernel counts nothing: unknown, not 0 */
	sw_jw_str(w, "counters", c->has_counters ? "kernel" : "unknown");
	if (c->has_counters) {
		sw_jw_u64(w, "orig_packets", c->orig_packets);
		sw_jw_u64(w, "orig_bytes", c->orig_bytes);
		sw_jw_u64(w, "reply_packets", c->reply_packets);
		sw_jw_u64(w, "reply_bytes", c->reply_bytes);
	} else {
		sw_jw_null(w, "orig_packets");
		sw_jw_null(w, "orig_bytes");
		sw_jw_null(w, "reply_packets");
		sw_jw_null(w, "reply_bytes");
	}
	sw_jw_u64(w, "ct_id", c->id);
	/* the sandbox's identity goes here (another member, same object) */
	sw_jw_end(w);
}
