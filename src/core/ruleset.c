// SPDX-License-Identifier: GPL-2.0-or-later
/* ruleset: the desired model of table inet <name>.
 *
 *   chain prerouting   filter hook prerouting priority -150, policy accept
 *                      iifname @guard_links / @guard_ifaces goto guard; with
 *                      auto, meta iifkind @guard_kinds (not @guard_except)
 *   chain guard        anti-spoofing, the fast path (a destination outside
 *                      blocked4/6 and not local returns), replies, ND
 *                      (chain guard_nd), sandboxes, allow lists, then one
 *                      rule per category in rank order
 *   chain input        filter hook input priority -150, policy accept
 *                      a translated destination -> guard_nat, the rest
 *                      -> guard_input ([block] host)
 *   chain guard_input  broadcast/multicast to the host -> block_host
 *   chain forward      filter hook forward priority -150, policy accept
 *                      the opening side -> guard_fwd: sandboxes, then a
 *                      translated destination -> guard_nat (guard's
 *                      categories again, after NAT)
 *   chain block_<cat>  counter name <cat>; [limit + log]; drop
 *
 * Every accept before the blocks is a door; docs/ruleset.md and
 * docs/threat-model.md say why a forged packet cannot use each one.
 *
 * Chains and rules are fixed (they depend only on a few switches); all
 * that changes with the host lives in named sets. Each rule carries the
 * comment "sandwall:<id>" as userdata; handles are never relied on. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>
#include <libnftnl/udata.h>

#include "core/endpoints.h"
#include "core/gate.h"
#include "core/ruleset.h"
#include "lib/sort.h"

/* room for the compiled-in metadata list and the fixed ranges, on top of
 * what the host and the config bring (those are sized at build time) */
#define FIXED_ENTRIES 256
#define SW_HOST_ELEMS     65535  /* resolved address . proto . port per sandbox and family */

/* ---- address intervals ------------------------------------------------ */

struct ival {
	uint8_t lo[16], hi[16];
};

struct ivals {
	struct ival *v;
	size_t n, cap;
	size_t klen;
};

/* Room for one more interval (the scratch space grows; no fixed limit). */
static int ivals_grow(struct ivals *iv)
{
	struct ival *v;
	size_t cap;

	if (iv->n < iv->cap)
		return 0;
	cap = iv->cap ? iv->cap * 2 : 64;
	if (!(v = reallocarray(iv->v, cap, sizeof(*v))))
		return -ENOMEM;
	iv->v = v;
	iv->cap = cap;
	return 0;
}

static int ival_cmp(const void *a, const void *b, void *arg)
{
	const struct ival *x = a, *y = b;
	size_t len = *(const size_t *)arg;
	int r = memcmp(x->lo, y->lo, len);

	return r ? r : memcmp(y->hi, x->hi, len);
}

static int ivals_add_prefix(struct ivals *iv, const struct sw_prefix *p)
{
	int err = ivals_grow(iv);

	if (err)
		return err;
	memset(&iv->v[iv->n], 0, sizeof(iv->v[0]));
	sw_prefix_range(p, iv->v[iv->n].lo, iv->v[iv->n].hi);
	iv->n++;
	return 0;
}

/* Sort and merge overlapping intervals (adjacent ones too when asked). */
static void ivals_merge(struct ivals *iv, bool adjacent)
{
	size_t out = 0;

	if (!iv->n)
		return;
	sw_sort(iv->v, iv->n, sizeof(iv->v[0]), ival_cmp, &iv->klen);
	for (size_t i = 0; i < iv->n; i++) {
		struct ival *last = out ? &iv->v[out - 1] : NULL;
		uint8_t next[16];
		bool carry = true;

		if (last) {
			memcpy(next, last->hi, iv->klen);
			carry = sw_key_inc(next, iv->klen);
		}
		if (last && (sw_key_cmp(iv->v[i].lo, last->hi, iv->klen) <= 0 ||
			     (adjacent && !carry &&
			      !sw_key_cmp(iv->v[i].lo, next, iv->klen)))) {
			if (sw_key_cmp(iv->v[i].hi, last->hi, iv->klen) > 0)
				memcpy(last->hi, iv->v[i].hi, iv->klen);
			continue;
		}
		iv->v[out++] = iv->v[i];
	}
	iv->n = out;
}

/* Is [lo,hi] exactly one prefix? Returns its length or -1. */
static int ival_prefix_len(const struct ival *v, size_t klen)
{
	size_t bits = klen * 8;

	for (size_t len = 0; len <= bits; len++) {
		bool ok = true;

		for (size_t b = 0; b < bits && ok; b++) {
			int lo = v->lo[b / 8] >> (7 - b % 8) & 1;
			int hi = v->hi[b / 8] >> (7 - b % 8) & 1;

			ok = b < len ? lo == hi : (lo == 0 && hi == 1);
		}
		if (ok)
			return (int)len;
	}
	return -1;
}

static int ival_text(const struct ival *v, int family, char *buf, size_t len)
{
	size_t klen = sw_family_addrlen(family);
	int plen = ival_prefix_len(v, klen);
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	inet_ntop(family, v->lo, a, sizeof(a));
	if (plen == (int)klen * 8)
		return snprintf(buf, len, "%s", a);
	if (plen >= 0)
		return snprintf(buf, len, "%s/%d", a, plen);
	inet_ntop(family, v->hi, b, sizeof(b));
	return snprintf(buf, len, "%s-%s", a, b);
}

/* Fill an interval set the way nft does for a non-concatenated interval
 * set: a leading zero key flagged END when the first range does not start
 * at zero, then start (flags 0) and end+1 (flags END) per range. */
static int set_fill_intervals(struct sw_set *s, struct ivals *iv, int family,
			      bool merge_adjacent)
{
	static const uint8_t zero[16];
	struct sw_elem e;
	char text[128];
	int err;

	ivals_merge(iv, merge_adjacent);
	if (iv->n && memcmp(iv->v[0].lo, zero, iv->klen)) {
		memset(&e, 0, sizeof(e));
		e.flags = NFT_SET_ELEM_INTERVAL_END;
		if ((err = sw_set_add_elem(s, &e)))
			return err;
	}
	for (size_t i = 0; i < iv->n; i++) {
		memset(&e, 0, sizeof(e));
		memcpy(e.key, iv->v[i].lo, iv->klen);
		if ((err = sw_set_add_elem(s, &e)))
			return err;
		memset(&e, 0, sizeof(e));
		memcpy(e.key, iv->v[i].hi, iv->klen);
		if (!sw_key_inc(e.key, iv->klen)) {
			e.flags = NFT_SET_ELEM_INTERVAL_END;
			if ((err = sw_set_add_elem(s, &e)))
				return err;
		}
		if (family) {
			ival_text(&iv->v[i], family, text, sizeof(text));
			if ((err = sw_set_add_text(s, text)))
				return err;
		}
	}
	return 0;
}

/* ---- sets ------------------------------------------------------------- */

/* where IPv6 neighbour discovery may go besides the host's own addresses */
static const char *const nd_dests[] = { "fe80::/10", "ff02::/16" };

static struct sw_set *new_set(struct sw_model *m, const char *name, uint32_t type,
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

static struct sw_set *new_concat_set(struct sw_model *m, const char *name, uint32_t type,
				     uint32_t klen, uint32_t flags, const char *type_text,
				     const uint8_t *fields, uint8_t n)
{
	struct sw_set *s = new_set(m, name, type, klen, flags, type_text);

	if (s) {
		memcpy(s->concat, fields, n);
		s->n_concat = n;
	}
	return s;
}

/* Scratch space for one build, sized for this host and config. */
struct work {
	struct ivals a, b;
	struct sw_prefix *p;
	size_t cap_p;
	int *guarded;           /* ifindexes of the guarded links, sorted */
	size_t n_guarded;
	/* what goes into the gate: pre[0] every category before own,
	 * pre[1] those after it (lan, private), pre[2] own */
	struct sw_prefix *pre[3];
	size_t n_pre[3], cap_pre[3];
};

static void work_free(struct work *w)
{
	if (!w)
		return;
	free(w->a.v);
	free(w->b.v);
	free(w->p);
	free(w->guarded);
	for (int i = 0; i < 3; i++)
		free(w->pre[i]);
	free(w);
}

/* set <name>4 { type ipv4_addr; flags interval; } and <name>6 likewise */
static int addr_sets(struct sw_model *m, struct work *w, const char *base,
		     const struct sw_prefix *p, size_t n)
{
	struct ivals *iv4 = &w->a, *iv6 = &w->b;
	char name[SW_NAME_MAX];
	struct sw_set *s4, *s6;
	int err;

	snprintf(name, sizeof(name), "%s4", base);
	s4 = new_set(m, name, SW_TYPE_IPADDR, 4, NFT_SET_INTERVAL, "ipv4_addr");
	snprintf(name, sizeof(name), "%s6", base);
	s6 = new_set(m, name, SW_TYPE_IP6ADDR, 16, NFT_SET_INTERVAL, "ipv6_addr");
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
	if ((err = set_fill_intervals(s4, iv4, AF_INET, true)))
		return err;
	return set_fill_intervals(s6, iv6, AF_INET6, true);
}

/* Note n prefixes for the gate: list 0 (blocks before own), 1 (after
 * own: lan, private) or 2 (own itself). */
static int gate_note(struct work *w, int list, const struct sw_prefix *p, size_t n)
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

/* k - 1; false when k was 0 */
static bool key_dec(uint8_t *k, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (k[i]--)
			return true;
	return false;
}

/* append [lo, hi] to out */
static int ivals_push(struct ivals *out, const uint8_t *lo, const uint8_t *hi)
{
	int err = ivals_grow(out);

	if (err)
		return err;
	memset(&out->v[out->n], 0, sizeof(out->v[0]));
	memcpy(out->v[out->n].lo, lo, out->klen);
	memcpy(out->v[out->n].hi, hi, out->klen);
	out->n++;
	return 0;
}

/* out += x minus y (both merged and sorted) */
static int ivals_subtract(struct ivals *out, const struct ivals *x, const struct ivals *y)
{
	size_t klen = x->klen;
	int err;

	for (size_t i = 0; i < x->n; i++) {
		uint8_t lo[16];
		bool open = true;

		memcpy(lo, x->v[i].lo, klen);
		for (size_t j = 0; j < y->n && open; j++) {
			uint8_t end[16];

			if (sw_key_cmp(y->v[j].hi, lo, klen) < 0)
				continue;
			if (sw_key_cmp(y->v[j].lo, x->v[i].hi, klen) > 0)
				break;
			memcpy(end, y->v[j].lo, klen);
			if (sw_key_cmp(end, lo, klen) > 0 && key_dec(end, klen) &&
			    (err = ivals_push(out, lo, end)))
				return err;
			memcpy(lo, y->v[j].hi, klen);
			open = !sw_key_inc(lo, klen) && sw_key_cmp(lo, x->v[i].hi, klen) <= 0;
		}
		if (open && (err = ivals_push(out, lo, x->v[i].hi)))
			return err;
	}
	return 0;
}

/* The gate (include/core/gate.h): every address some category's set blocks,
 * less the own subnets where only lan and private would block them; two
 * buffers per family, the first selected:
 *   set gate4_a { type ipv4_addr; flags interval; elements = { ... } }
 *   set gate4_b { type ipv4_addr; flags interval; }   (and gate6_a/b)
 *   set gate_a { type nf_proto; elements = { ipv4, ipv6 } }
 *   set gate_b { type nf_proto; } */
static int gate_sets(struct sw_model *m, struct work *w)
{
	struct ivals iv[3] = { { 0 } }, out = { 0 };
	char name[SW_NAME_MAX];
	int err = 0;

	for (int v6 = 0; v6 < 2 && !err; v6++) {
		int fam = v6 ? AF_INET6 : AF_INET;
		struct sw_set *s[2];

		for (int x = 0; x < 2; x++) {
			sw_gate_set_name(name, sizeof(name), v6, x ? SW_GATE_B : SW_GATE_A);
			s[x] = new_set(m, name, v6 ? SW_TYPE_IP6ADDR : SW_TYPE_IPADDR, v6 ? 16 : 4,
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
			err = set_fill_intervals(s[0], &out, fam, true);
	}
	for (int l = 0; l < 3; l++)
		free(iv[l].v);
	free(out.v);
	for (int x = 0; x < 2 && !err; x++)
		if (!new_set(m, x ? SW_GATE_SEL_B : SW_GATE_SEL_A, SW_TYPE_NFPROTO, 1, 0, "nf_proto"))
			return -ENOSPC;
	return err ? err : sw_gate_select(m, SW_GATE_A);
}

/* A category's sets <name>4/<name>6, noted for the gate */
static int cat_sets(struct sw_model *m, struct work *w, enum sw_category cat,
		    const struct sw_prefix *p, size_t n)
{
	const struct sw_category_info *ci = &sw_categories[cat];
	int err = addr_sets(m, w, ci->name, p, n);

	/* a routed category is judged in the forward hook, not behind the gate */
	if (err || ci->match == SW_CAT_MATCH_ROUTED)
		return err;
	return gate_note(w, ci->rank >= SW_CAT_RANK_OWN, p, n);
}

/* What `auto` adds by name, besides what it detects by kind: the interface
 * names of the container and VM runtimes (a bridge or veth is detected
 * anyway; the names also cover a device before its kind is known, e.g. a
 * tun-mode tap* or a veth whose peer has not moved yet). */
const char *const sw_runtime_names[] = {
	"docker0", "br-*", "cni-podman*", "podman*", "lxcbr*", "virbr*", "lxdbr*", "incusbr*",
	"tap*", "fc-*", "cali*", "lxc*", "cilium_*", "flannel*", "cni*", "nerdctl*", "vnet*",
};
const size_t sw_n_runtime_names = sizeof(sw_runtime_names) / sizeof(*sw_runtime_names);

static const char *const guard_why_names[SW_GUARD_WHY_COUNT] = {
	[SW_GUARD_NO] = "not guarded", [SW_GUARD_EX_LOOPBACK] = "loopback",
	[SW_GUARD_EX_UPLINK] = "default route", [SW_GUARD_EX_CONFIG] = "[guard] except",
	[SW_GUARD_PATTERN] = "pattern",
	[SW_GUARD_ALL_BRIDGES] = "all_bridges", [SW_GUARD_BRIDGE] = "bridge",
	[SW_GUARD_ROUTED_VETH] = "routed veth", [SW_GUARD_TAP] = "tap",
	[SW_GUARD_RUNTIME_NAME] = "runtime name", [SW_GUARD_KIND] = "kind",
};

/* auto: the link kinds that face a container or VM, guarded in the
 * kernel by `meta iifkind` from their first packet (a tap is kind "tun"
 * with an Ethernet type: its own rule) */
static const char *const guard_kinds[] = { "bridge", "veth", "macvlan", "macvtap", "ipvlan", "ipvtap" };

const char *sw_guard_why_name(enum sw_guard_why why)
{
	return (unsigned)why < SW_GUARD_WHY_COUNT ? guard_why_names[why] : "unknown";
}

/* A pattern is a name, or a prefix and a final '*' (config.c refuses any
 * other '*' and every other wildcard): the kernel's interval match. */
static bool name_match(const char *pattern, const char *name)
{
	size_t n = strnlen(pattern, SW_IFNAMSIZ);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, name, n - 1);
	return !strncmp(pattern, name, SW_IFNAMSIZ);
}

/* The interfaces detection never guards: lo (index 1 in every namespace)
 * and the output interfaces of default routes (the uplink, a bridge that
 * holds the uplink included). */
static bool cfg_except(const struct sw_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_except; i++)
		if (!strncmp(cfg->except[i], name, SW_IFNAMSIZ))
			return true;
	return false;
}

/* ... and what [guard] except names */
static bool never_auto(const struct sw_config *cfg, const struct sw_link *l)
{
	return l->ifindex == 1 || l->loopback || l->uplink || cfg_except(cfg, l->name);
}

static bool runtime_name(const char *name)
{
	for (size_t i = 0; i < sw_n_runtime_names; i++)
		if (name_match(sw_runtime_names[i], name))
			return true;
	return false;
}

enum sw_guard_why sw_ruleset_guard_why(const struct sw_config *cfg, const struct sw_link *l)
{
	enum sw_guard_why why = SW_GUARD_NO;

	for (size_t i = 0; i < cfg->n_patterns; i++)
		if (name_match(cfg->patterns[i], l->name))
			return SW_GUARD_PATTERN;
	if (cfg->all_bridges && l->is_bridge)
		return SW_GUARD_ALL_BRIDGES;
	if (!cfg->auto_detect)
		return SW_GUARD_NO;
	/* a bridge port's traffic arrives on the bridge: the bridge is guarded */
	if (l->is_bridge)
		why = SW_GUARD_BRIDGE;
	else if (l->kind == SW_LINK_VETH && l->peer_netns && !l->master_bridge)
		why = SW_GUARD_ROUTED_VETH;
	else if (l->kind == SW_LINK_TAP)
		why = SW_GUARD_TAP;
	else if (runtime_name(l->name))
		why = SW_GUARD_RUNTIME_NAME;
	/* what the kernel guards by kind anyway (a veth whose peer is still
	 * here may be moved into a container at any time; a host-side
	 * macvlan/ipvlan shim is reached by its siblings): guarded, so its
	 * subnets are own, not lan. A bridge's port is left to its bridge. */
	else if ((l->kind == SW_LINK_VETH && !l->master_bridge) || l->kind == SW_LINK_MACVLAN ||
		 l->kind == SW_LINK_IPVLAN)
		why = SW_GUARD_KIND;
	if (why != SW_GUARD_NO && never_auto(cfg, l))
		return l->ifindex == 1 || l->loopback ? SW_GUARD_EX_LOOPBACK :
		       l->uplink ? SW_GUARD_EX_UPLINK : SW_GUARD_EX_CONFIG;
	return why;
}

bool sw_ruleset_guarded(const struct sw_config *cfg, const struct sw_link *l)
{
	return sw_ruleset_guard_why(cfg, l) >= SW_GUARD_PATTERN;
}

/* One name or pattern ("br-*": every name that starts with "br-") as an
 * interval of ifname keys. */
static int ifname_add(struct ivals *iv, const char *name)
{
	size_t len = strnlen(name, SW_IFNAMSIZ - 1);
	int err;

	if ((err = ivals_grow(iv)))
		return err;
	memset(&iv->v[iv->n], 0, sizeof(iv->v[0]));
	if (len && name[len - 1] == '*') {
		memcpy(iv->v[iv->n].lo, name, len - 1);
		memcpy(iv->v[iv->n].hi, name, len - 1);
		memset(iv->v[iv->n].hi + len - 1, 0xff, SW_IFNAMSIZ - (len - 1));
	} else {
		memcpy(iv->v[iv->n].lo, name, len);
		memcpy(iv->v[iv->n].hi, name, len);
	}
	iv->n++;
	return 0;
}

/* Fill an ifname set from the names and patterns in iv. Names are merged
 * only when one covers another (a merged range of unrelated names could
 * not be written back as nft text); the text comes from what is left. */
static int ifname_fill(struct sw_set *s, struct ivals *iv)
{
	int err;

	if ((err = set_fill_intervals(s, iv, 0, false)))
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

/* Does a runtime name pattern match an interface auto must never guard?
 * Then it cannot go in as a pattern (a range has no holes): the names it
 * matches now go in one by one instead. */
static bool pattern_hits_excluded(const struct sw_config *cfg, const char *pattern,
				  const struct sw_host *host)
{
	for (size_t i = 0; i < cfg->n_except; i++)
		if (name_match(pattern, cfg->except[i]))
			return true;
	for (size_t i = 0; host && i < host->n_links; i++)
		if (never_auto(cfg, &host->links[i]) && name_match(pattern, host->links[i].name))
			return true;
	return false;
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
	struct sw_set *s = new_set(m, SW_SET_GUARD_EXCEPT, SW_TYPE_IFNAME, SW_IFNAMSIZ, 0, "ifname");
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

		if (!never_auto(cfg, l) || !l->name[0] || cfg_except(cfg, l->name))
			continue;
		lo |= !strncmp(l->name, "lo", SW_IFNAMSIZ);
		if ((err = name_elem(s, l->name)))
			return err;
	}
	if (!lo && (err = name_elem(s, "lo")))
		return err;
	if (!(s = new_set(m, SW_SET_GUARD_KINDS, SW_TYPE_IFNAME, SW_IFNAMSIZ, 0, "ifname")))
		return -ENOSPC;
	for (size_t i = 0; i < sizeof(guard_kinds) / sizeof(*guard_kinds); i++)
		if ((err = name_elem(s, guard_kinds[i])))
			return err;
	return 0;
}

/* set guard_ifaces { type ifname; flags interval; elements = { "docker0", "br-*" } }
 * The [guard] interfaces patterns; with auto, the runtime name patterns
 * and the name of every link detected (bridge, routed veth, tap); with
 * all_bridges, the name of every bridge. */
static int ifname_set(struct sw_model *m, struct work *w, const struct sw_config *cfg,
		      const struct sw_host *host)
{
	struct ivals *iv = &w->a;
	size_t n_links = host ? host->n_links : 0;
	struct sw_set *s;
	int err;

	s = new_set(m, "guard_ifaces", SW_TYPE_IFNAME, SW_IFNAMSIZ, NFT_SET_INTERVAL, "ifname");
	if (!s)
		return -ENOSPC;
	iv->n = 0;
	iv->klen = SW_IFNAMSIZ;
	for (size_t i = 0; i < cfg->n_patterns; i++)
		if ((err = ifname_add(iv, cfg->patterns[i])))
			return err;
	for (size_t i = 0; cfg->auto_detect && i < sw_n_runtime_names; i++)
		if (!pattern_hits_excluded(cfg, sw_runtime_names[i], host) &&
		    (err = ifname_add(iv, sw_runtime_names[i])))
			return err;
	for (size_t i = 0; i < n_links; i++)
		if (sw_ruleset_guarded(cfg, &host->links[i]) &&
		    (err = ifname_add(iv, host->links[i].name)))
			return err;
	if ((err = ifname_fill(s, iv)))
		return err;
	/* set guard_links { type ifname; elements = { "docker0", ... } }: the
	 * guarded links' exact names, a hash set in front of guard_ifaces:
	 * one hash lookup for a guarded link's packet instead of a walk of
	 * the interval tree (docs/BENCHMARKS.md, run F) */
	if (!(s = new_set(m, SW_SET_GUARD_LINKS, SW_TYPE_IFNAME, SW_IFNAMSIZ, 0, "ifname")))
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
/* Which of concat_sets' four sets an entry goes to: v4 or v6 (bit 0),
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

static int concat_sets(struct sw_model *m, const char *base, struct sw_allow *all, size_t n,
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
	s4 = new_concat_set(m, name, t4, 12, NFT_SET_INTERVAL | NFT_SET_CONCAT,
			    "ipv4_addr . inet_proto . inet_service", f4, 3);
	snprintf(name, sizeof(name), "%s6", base);
	s6 = new_concat_set(m, name, t6, 24, NFT_SET_INTERVAL | NFT_SET_CONCAT,
			    "ipv6_addr . inet_proto . inet_service", f6, 3);
	if (!s4 || !s6)
		return -ENOSPC;
	if (exact) {
		snprintf(name, sizeof(name), "%s4_exact", base);
		x4 = new_concat_set(m, name, t4, 12, 0,
				    "ipv4_addr . inet_proto . inet_service", f4, 3);
		snprintf(name, sizeof(name), "%s6_exact", base);
		x6 = new_concat_set(m, name, t6, 24, 0,
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
static size_t add_resolvers(struct sw_allow *all, size_t n, const struct sw_host *host)
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
static int allow_sets(struct sw_model *m, const struct sw_config *cfg,
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
		n = add_resolvers(all, n, host);
	err = concat_sets(m, "allow", all, n, true);
	free(all);
	if (err)
		return err;

	/* set host_ports { type inet_proto . inet_service; } */
	s = new_concat_set(m, "host_ports", (SW_TYPE_INET_PROTO << SW_TYPE_BITS) | SW_TYPE_INET_SERVICE,
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
static int nd_set(struct sw_model *m, struct work *w)
{
	struct ivals *iv = &w->b;
	struct sw_set *s = new_set(m, "nd6", SW_TYPE_IP6ADDR, 16, NFT_SET_INTERVAL, "ipv6_addr");
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
	return set_fill_intervals(s, iv, AF_INET6, true);
}

/* set sbx_<name>_ifaces { type ifname; flags interval; } from patterns */
static int pattern_set(struct sw_model *m, struct work *w, const char *name,
		       const char (*patterns)[SW_IFNAMSIZ], size_t n)
{
	struct ivals *iv = &w->a;
	struct sw_set *s = new_set(m, name, SW_TYPE_IFNAME, SW_IFNAMSIZ, NFT_SET_INTERVAL, "ifname");
	int err;

	if (!s)
		return -ENOSPC;
	iv->n = 0;
	iv->klen = SW_IFNAMSIZ;
	for (size_t i = 0; i < n; i++)
		if ((err = ifname_add(iv, patterns[i])))
			return err;
	return ifname_fill(s, iv);
}

/* set sbx_<name>_hosts4 { type ipv4_addr . inet_proto . inet_service;
 *   size 65535; flags dynamic,timeout; } (and hosts6): the addresses
 * sandwalld resolved for the sandbox's hostname entries, each element
 * timing out with its (clamped) DNS TTL. Filled by the resolver
 * (resolver.h), never by the ruleset: dynamic, so the compare leaves
 * its elements alone. */
static int host_sets(struct sw_model *m, const char *sbx)
{
	static const uint8_t f4[] = { 4, 1, 2 }, f6[] = { 16, 1, 2 };

	for (int v6 = 0; v6 < 2; v6++) {
		char name[SW_NAME_MAX];
		struct sw_set *s;

		snprintf(name, sizeof(name), "sbx_%s_hosts%c", sbx, v6 ? '6' : '4');
		s = new_concat_set(m, name,
				   (((uint32_t)(v6 ? SW_TYPE_IP6ADDR : SW_TYPE_IPADDR) << SW_TYPE_BITS |
				     SW_TYPE_INET_PROTO) << SW_TYPE_BITS) | SW_TYPE_INET_SERVICE,
				   v6 ? 24 : 12, NFT_SET_EVAL | NFT_SET_TIMEOUT,
				   v6 ? "ipv6_addr . inet_proto . inet_service" :
				   "ipv4_addr . inet_proto . inet_service", v6 ? f6 : f4, 3);
		if (!s)
			return -ENOSPC;
		s->size = SW_HOST_ELEMS;
	}
	return 0;
}

/* Per sandbox: sbx_<name>_ifaces, sbx_<name>_src4/6 (when it names
 * them), sbx_<name>_allow4/6 (allowlist); and resolvers4/6 (udp and tcp 53
 * of the host's resolvers) for the policies' DNS rules. */
static int sandbox_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
			const struct sw_host *host)
{
	struct sw_allow res[2 * SW_MAX_RESOLVERS];
	char name[SW_NAME_MAX];
	int err;

	if (!cfg->n_sandboxes)
		return 0;
	if ((err = concat_sets(m, "resolvers", res, add_resolvers(res, 0, host), false)))
		return err;
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];

		if (x->n_patterns) {
			snprintf(name, sizeof(name), "sbx_%s_ifaces", x->name);
			if ((err = pattern_set(m, w, name, x->patterns, x->n_patterns)))
				return err;
		}
		if (x->n_sources) {
			snprintf(name, sizeof(name), "sbx_%s_src", x->name);
			if ((err = addr_sets(m, w, name, x->sources, x->n_sources)))
				return err;
		}
		for (int v6 = 0; x->budget && v6 < 2; v6++) {
			/* set sbx_<name>_budget4 { type ipv4_addr; size 65535 (budget_sources);
			 *   flags dynamic,timeout; timeout <window>; } (and 6) */
			struct sw_set *bs;

			snprintf(name, sizeof(name), "sbx_%s_budget%c", x->name, v6 ? '6' : '4');
			bs = new_set(m, name, v6 ? SW_TYPE_IP6ADDR : SW_TYPE_IPADDR, v6 ? 16 : 4,
				     NFT_SET_EVAL | NFT_SET_TIMEOUT, v6 ? "ipv6_addr" : "ipv4_addr");
			if (!bs)
				return -ENOSPC;
			bs->size = x->budget_sources ? x->budget_sources : SW_BUDGET_SOURCES;
			bs->timeout_ms = (uint64_t)x->budget_unit * 1000;
		}
		if (x->egress == SW_EGRESS_ALLOWLIST) {
			struct sw_allow *a = malloc(sizeof(*a) * (x->n_allows ? x->n_allows : 1));

			if (!a)
				return -ENOMEM;
			memcpy(a, x->allows, sizeof(*a) * x->n_allows);
			snprintf(name, sizeof(name), "sbx_%s_allow", x->name);
			err = concat_sets(m, name, a, x->n_allows, true);
			free(a);
			if (err)
				return err;
		}
		if (x->egress == SW_EGRESS_ALLOWLIST && x->n_names &&
		    (err = host_sets(m, x->name)))
			return err;
	}
	return 0;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The guarded links' ifindexes, sorted: a lookup per route, not a scan
 * (a Calico host has one route and one veth per pod). */
static int guarded_index(struct work *w, const struct sw_config *cfg, const struct sw_host *host)
{
	if (w->guarded)
		return 0;       /* built already (own and sandboxes both ask) */
	w->n_guarded = 0;
	if (!host->n_links)
		return 0;
	if (!(w->guarded = calloc(host->n_links, sizeof(*w->guarded))))
		return -ENOMEM;
	for (size_t i = 0; i < host->n_links; i++)
		if (sw_ruleset_guarded(cfg, &host->links[i]))
			w->guarded[w->n_guarded++] = host->links[i].ifindex;
	qsort(w->guarded, w->n_guarded, sizeof(*w->guarded), int_cmp);
	return 0;
}

static const char *const rfc_private[] = {
	"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7",
};
static const char *const link_local[] = { "169.254.0.0/16", "fe80::/10" };


/* ---- rules -------------------------------------------------------------- */

struct rb {
	struct nftnl_rule *r;
	int err;
	bool netdev;            /* table netdev: no nfproto, the address behind meta protocol */
};

static void add_expr(struct rb *b, struct nftnl_expr *e)
{
	if (!e)
		b->err = -ENOMEM;
	else
		nftnl_rule_add_expr(b->r, e);
}

static struct nftnl_expr *expr(struct rb *b, const char *name)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	if (!e)
		b->err = -ENOMEM;
	return e;
}

/* [ meta load KEY => reg DREG ] */
static void e_meta(struct rb *b, uint32_t key, uint32_t dreg)
{
	struct nftnl_expr *e = expr(b, "meta");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
	add_expr(b, e);
}

/* [ cmp OP reg SREG DATA ] */
static void e_cmp(struct rb *b, uint32_t sreg, uint32_t op, const void *data, uint32_t len)
{
	struct nftnl_expr *e = expr(b, "cmp");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	add_expr(b, e);
}

static void e_cmp_u8(struct rb *b, uint32_t sreg, uint8_t v)
{
	e_cmp(b, sreg, NFT_CMP_EQ, &v, 1);
}

/* [ payload load LEN @ BASE + OFF => reg DREG ] */
static void e_payload(struct rb *b, uint32_t base, uint32_t off, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = expr(b, "payload");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	add_expr(b, e);
}

/* [ lookup reg SREG set NAME ] (flags always sent: the kernel echoes them) */
static void e_lookup(struct rb *b, uint32_t sreg, const char *set)
{
	struct nftnl_expr *e = expr(b, "lookup");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, 0);
	add_expr(b, e);
}

/* [ lookup reg SREG set NAME 0x1 ]: not in the set */
/* [ lookup reg SREG set NAME 0x1 ]: not in the set */
static void e_lookup_inv(struct rb *b, uint32_t sreg, const char *set)
{
	struct nftnl_expr *e = expr(b, "lookup");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, NFT_LOOKUP_F_INV);
	add_expr(b, e);
}

/* [ immediate reg 0 VERDICT [-> CHAIN] ] */
static void e_verdict(struct rb *b, int verdict, const char *chain)
{
	struct nftnl_expr *e = expr(b, "immediate");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	if (chain)
		nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain);
	add_expr(b, e);
}

static const char *verdict_word(int verdict)
{
	switch (verdict) {
	case NF_ACCEPT: return "accept";
	case NF_DROP: return "drop";
	case NFT_RETURN: return "return";
	case NFT_GOTO: return "goto";
	case NFT_JUMP: return "jump";
	default: return "?";
	}
}

/* meta nfproto ipv4|ipv6 */
static void e_nfproto(struct rb *b, int family)
{
	e_meta(b, NFT_META_NFPROTO, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6);
}

/* ip daddr / ip6 daddr => reg 1 */
static void e_protocol(struct rb *b, uint32_t op, uint16_t ethertype);

/* ip daddr / ip6 daddr into reg 1: behind meta nfproto in table inet,
 * behind meta protocol in table netdev (which has no nfproto) */
static void e_daddr(struct rb *b, int family)
{
	if (b->netdev)
		e_protocol(b, NFT_CMP_EQ, family == AF_INET ? 0x0800 : 0x86dd);
	else
		e_nfproto(b, family);
	if (family == AF_INET)
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 16, 4, NFT_REG_1);
	else
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 24, 16, NFT_REG_1);
}

/* The nft text of e_daddr: "ip daddr", or "meta protocol ip ip daddr" */
static const char *daddr_text(const struct rb *b, bool v6)
{
	if (b->netdev)
		return v6 ? "meta protocol ip6 ip6 daddr" : "meta protocol ip ip daddr";
	return v6 ? "ip6 daddr" : "ip daddr";
}

/* fib daddr type [!=] TYPE */
static void e_fib_type(struct rb *b, uint32_t op, uint32_t type)
{
	struct nftnl_expr *e = expr(b, "fib");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, NFTA_FIB_F_DADDR);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	add_expr(b, e);
	e_cmp(b, NFT_REG_1, op, &type, sizeof(type));
}

/* fib daddr type local */
static void e_fib_local(struct rb *b)
{
	e_fib_type(b, NFT_CMP_EQ, RTN_LOCAL);
}

#ifndef NFTA_FIB_F_PRESENT
#define NFTA_FIB_F_PRESENT (1 << 5)
#endif

/* fib saddr . iif oif missing: no route back to the source through the
 * interface the packet came in on (strict reverse-path check; a local
 * source address also counts as missing) */
static void e_fib_spoofed(struct rb *b)
{
	struct nftnl_expr *e = expr(b, "fib");
	uint32_t missing = 0;     /* nft compares the whole register */

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS,
			   NFTA_FIB_F_SADDR | NFTA_FIB_F_IIF | NFTA_FIB_F_PRESENT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_OIF);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	add_expr(b, e);
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &missing, sizeof(missing));
}

/* fib daddr . iif oif missing: the route to the destination does not
 * leave by the interface the packet came in on (routed elsewhere) */
static void e_fib_daddr_iif_missing(struct rb *b)
{
	struct nftnl_expr *e = expr(b, "fib");
	uint32_t missing = 0;

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS,
			   NFTA_FIB_F_DADDR | NFTA_FIB_F_IIF | NFTA_FIB_F_PRESENT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_OIF);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	add_expr(b, e);
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &missing, sizeof(missing));
}

/* ct state established */
static void e_ct_state(struct rb *b, uint32_t mask);
static void e_ct_established(struct rb *b)
{
	e_ct_state(b, 1u << 1 /* NF_CT_STATE_BIT(IP_CT_ESTABLISHED) */);
}

/* ct state new */
static void e_ct_new(struct rb *b)
{
	e_ct_state(b, 1u << 3 /* NF_CT_STATE_BIT(IP_CT_NEW) */);
}

/* ct state STATE: [ ct load state ] [ bitwise & mask ] [ cmp neq 0 ] */
static void e_ct_state(struct rb *b, uint32_t mask)
{
	struct nftnl_expr *e = expr(b, "ct"), *bw;
	uint32_t zero = 0;

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	add_expr(b, e);
	if (!(bw = expr(b, "bitwise")))
		return;
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_LEN, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_MASK, &mask, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_XOR, &zero, sizeof(zero));
	add_expr(b, bw);
	e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &zero, sizeof(zero));
}

/* ct direction original: a packet of the side that opened the connection */
static void e_ct_original(struct rb *b)
{
	struct nftnl_expr *e = expr(b, "ct");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_DIRECTION);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
		add_expr(b, e);
	}
	e_cmp_u8(b, NFT_REG_1, 0 /* IP_CT_DIR_ORIGINAL */);
}

/* ct status dnat */
static void e_ct_dnat(struct rb *b)
{
	struct nftnl_expr *e, *bw;
	uint32_t zero = 0, mask = 1u << 5 /* IPS_DST_NAT */;

	if (!(e = expr(b, "ct")))
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATUS);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	add_expr(b, e);
	if (!(bw = expr(b, "bitwise")))
		return;
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_LEN, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_MASK, &mask, sizeof(mask));
	nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_XOR, &zero, sizeof(zero));
	add_expr(b, bw);
	e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &zero, sizeof(zero));
}

/* icmpv6 type TYPE ip6 hoplimit 255: a neighbour discovery message as
 * RFC 4861 requires it (never forwarded: the hop limit proves it is
 * on-link) */
static void e_nd(struct rb *b, uint8_t type)
{
	e_nfproto(b, AF_INET6);
	e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6);
	e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, type);
	e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 7, 1, NFT_REG_1);
	e_cmp_u8(b, NFT_REG_1, 255);
}

static int finish_rule(struct sw_model *m, struct rb *b, const char *chain,
		       const char *id, const char *text)
{
	char tag[SW_NAME_MAX], *canon;
	struct nftnl_udata_buf *ud;
	int err = b->err;

	snprintf(tag, sizeof(tag), SW_TAG_PREFIX "%s", id);
	ud = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
	if (!ud || !nftnl_udata_put_strz(ud, 0 /* NFTNL_UDATA_RULE_COMMENT */, tag))
		err = err ? err : -ENOMEM;
	if (!err) {
		nftnl_rule_set_data(b->r, NFTNL_RULE_USERDATA, nftnl_udata_buf_data(ud),
				    nftnl_udata_buf_len(ud));
		nftnl_rule_set_str(b->r, NFTNL_RULE_TABLE, m->table);
		nftnl_rule_set_str(b->r, NFTNL_RULE_CHAIN, chain);
		nftnl_rule_set_u32(b->r, NFTNL_RULE_FAMILY, sw_model_family(m));
	}
	if (ud)
		nftnl_udata_buf_free(ud);
	canon = err ? NULL : sw_rule_canon(b->r);
	if (!err && !canon)
		err = -ENOMEM;
	if (!err) {
		char full[512];

		snprintf(full, sizeof(full), "%s comment \"%s\"", text, tag);
		err = sw_model_add_rule(m, chain, tag, canon, full, b->r);
	}
	free(canon);
	if (err)
		nftnl_rule_free(b->r);
	b->r = NULL;
	return err;
}

static int begin(struct rb *b)
{
	b->err = 0;
	b->r = nftnl_rule_alloc();
	return b->r ? 0 : -ENOMEM;
}

#define RULE(m, b, chain, id, text, body) do {                          \
		int _e = begin(b);                                       \
		if (_e)                                                  \
			return _e;                                       \
		body;                                                    \
		if ((_e = finish_rule(m, b, chain, id, text)))           \
			return _e;                                       \
	} while (0)

/* ip daddr @<set>4 goto|return ... ; ip6 daddr @<set>6 ... (in chain) */
static int addr_rules(struct sw_model *m, struct rb *b, const char *chain, const char *set,
		      int verdict, const char *target)
{
	char id[SW_NAME_MAX], text[256], sname[SW_NAME_MAX];

	for (int v6 = 0; v6 < 2; v6++) {
		int fam = v6 ? AF_INET6 : AF_INET;

		snprintf(sname, sizeof(sname), "%s%c", set, v6 ? '6' : '4');
		snprintf(id, sizeof(id), "%s", sname);
		snprintf(text, sizeof(text), "%s @%s %s%s%s", daddr_text(b, v6), sname,
			 verdict_word(verdict), target ? " " : "", target ? target : "");
		RULE(m, b, chain, id, text, {
			e_daddr(b, fam);
			e_lookup(b, NFT_REG_1, sname);
			e_verdict(b, verdict, target);
		});
	}
	return 0;
}

/* chain block_<cat>: its counter, [limit + log with prefix
 * "sandwall:<logname> "], drop. cat names the chain and the counter. */
static int block_chain(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		       const char *cat, const char *logname)
{
	char chain[SW_NAME_MAX], id[SW_NAME_MAX], text[256], prefix[64];
	struct sw_chain *ch;

	snprintf(chain, sizeof(chain), "block_%s", cat);
	/* chain block_<cat> { } */
	if (!(ch = sw_model_add_chain(m, chain)))
		return -ENOSPC;

	/* counter name "<cat>" */
	snprintf(id, sizeof(id), "%s-count", cat);
	snprintf(text, sizeof(text), "counter name \"%s\"", cat);
	RULE(m, b, chain, id, text, {
		struct nftnl_expr *e = expr(b, "objref");
		if (e) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE, NFT_OBJECT_COUNTER);
			nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_IMM_NAME, cat);
			add_expr(b, e);
		}
	});
	if (cfg->log_blocked) {
		/* limit rate 10/second burst 20 packets log prefix "sandwall:<cat> " group G */
		snprintf(prefix, sizeof(prefix), SW_TAG_PREFIX "%s ", logname);
		snprintf(id, sizeof(id), "%s-log", cat);
		snprintf(text, sizeof(text),
			 "limit rate 10/second burst 20 packets log prefix \"%s\" group %u",
			 prefix, cfg->log_group);
		RULE(m, b, chain, id, text, {
			struct nftnl_expr *l = expr(b, "limit");
			struct nftnl_expr *g;
			if (l) {
				nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_RATE, 10);
				nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_UNIT, 1);
				nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_BURST, 20);
				nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
				nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_FLAGS, 0);
				add_expr(b, l);
			}
			g = expr(b, "log");
			if (g) {
				nftnl_expr_set_str(g, NFTNL_EXPR_LOG_PREFIX, prefix);
				nftnl_expr_set_u16(g, NFTNL_EXPR_LOG_GROUP, cfg->log_group);
				add_expr(b, g);
			}
		});
	}
	/* drop */
	snprintf(id, sizeof(id), "%s-drop", cat);
	RULE(m, b, chain, id, "drop", e_verdict(b, NF_DROP, NULL));
	return 0;
}

static int gate_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		      const char *chain, const char *pre, bool fallback);
static int allow_rules(struct sw_model *m, struct rb *b, const char *chain, const char *id,
		       const char *set, int verdict, const char *target);
static int category_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			  const char *chain, bool gated);

/* Which packets a chain judges: those that arrive on a guarded interface.
 *   iifname @guard_links goto TARGET       a guarded link by its exact name
 *                                          (a hash lookup, docs/BENCHMARKS.md run F)
 *   iifname @guard_ifaces goto TARGET      the patterns and the rest (an interval tree)
 * prek: each rule starts with `ct direction original` (the side that
 * opened the connection) and `ct status dnat` (its destination
 * translated, by any table: dnat, redirect). ids:
 * <id>-links, <id>. goto: TARGET's return ends at the policy, accept,
 * so no packet is judged twice in one hook. */
enum dispatch_pre { PRE_NONE, PRE_ORIGINAL, PRE_DNAT };
static const char *const dispatch_pre_text[] = {
	[PRE_NONE] = "", [PRE_ORIGINAL] = "ct direction original ",
	[PRE_DNAT] = "ct direction original ct status dnat ",
};

static void e_dispatch_pre(struct rb *b, enum dispatch_pre p)
{
	if (p >= PRE_ORIGINAL)
		e_ct_original(b);
	if (p == PRE_DNAT)
		e_ct_dnat(b);
}

static int dispatch_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			  const char *chain, const char *id, enum dispatch_pre prek, const char *target)
{
	const char *pre = dispatch_pre_text[prek];
	char rid[SW_NAME_MAX], text[256];

	for (int i = 0; i < 2; i++) {
		const char *set = i ? "guard_ifaces" : SW_SET_GUARD_LINKS;

		snprintf(rid, sizeof(rid), "%s%s", id, i ? "" : "-links");
		snprintf(text, sizeof(text), "%siifname @%s goto %s", pre, set, target);
		RULE(m, b, chain, rid, text, {
			e_dispatch_pre(b, prek);
			e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
			e_lookup(b, NFT_REG_1, set);
			e_verdict(b, NFT_GOTO, target);
		});
	}
	if (!cfg->auto_detect)
		return 0;
	/* auto: by kind, from the first packet, whatever the daemon has seen
	 * (no return: the chain may hold more rules, e.g. input's for lo):
	 *   meta iifkind @guard_kinds iifname != @guard_except goto TARGET
	 *   meta iifkind "tun" meta iiftype ether iifname != @guard_except goto TARGET
	 * (bridge, veth, macvlan, ipvlan; a tap), unless lo, an uplink or
	 * [guard] except. The kind first: a physical NIC has none. */
	snprintf(rid, sizeof(rid), "%s-kinds", id);
	snprintf(text, sizeof(text), "%smeta iifkind @" SW_SET_GUARD_KINDS " iifname != @"
		 SW_SET_GUARD_EXCEPT " goto %s", pre, target);
	RULE(m, b, chain, rid, text, {
		e_dispatch_pre(b, prek);
		e_meta(b, NFT_META_IIFKIND, NFT_REG_1);
		e_lookup(b, NFT_REG_1, SW_SET_GUARD_KINDS);
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_lookup_inv(b, NFT_REG_1, SW_SET_GUARD_EXCEPT);
		e_verdict(b, NFT_GOTO, target);
	});
	snprintf(rid, sizeof(rid), "%s-tap", id);
	snprintf(text, sizeof(text), "%smeta iifkind \"tun\" meta iiftype ether iifname != @"
		 SW_SET_GUARD_EXCEPT " goto %s", pre, target);
	RULE(m, b, chain, rid, text, {
		char tun[SW_IFNAMSIZ] = "tun";
		uint16_t ether = 1 /* ARPHRD_ETHER */;

		e_dispatch_pre(b, prek);
		e_meta(b, NFT_META_IIFKIND, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_EQ, tun, sizeof(tun));
		e_meta(b, NFT_META_IIFTYPE, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &ether, sizeof(ether));
		e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
		e_lookup_inv(b, NFT_REG_1, SW_SET_GUARD_EXCEPT);
		e_verdict(b, NFT_GOTO, target);
	});
	return 0;
}

/* The forward hook (docs/ruleset.md): the side that opened a connection
 * from a guarded interface meets the routed categories (sandboxes), and,
 * when another table translated its destination (dnat, redirect), the
 * same categories and carve-outs as in guard on the new destination,
 * counted in the same counters:
 *   chain forward { type filter hook forward priority -150; policy accept; }
 *       ct direction original iifname @guard_links goto guard_fwd ...
 *   chain guard_fwd   ip daddr @sandboxes4 ... goto block_sandboxes (and ip6);
 *                     ct status dnat goto guard_nat
 *   chain guard_nat   the fast path, allow, host_ports, the categories, the
 *                     gate's fallback
 * (the input hook's rules are in input_rules: a translation to the host).
 * Replies, ND and the spoofing check need no second look: replies are
 * not dispatched (direction original), ND is never translated, and NAT
 * does not change the source prerouting checked. */
static int forward_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	struct sw_chain *c;
	int err;

	if (!(c = sw_model_add_chain(m, SW_CHAIN_FORWARD)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_FORWARD;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_FWD) || !sw_model_add_chain(m, SW_CHAIN_GUARD_NAT))
		return -ENOSPC;
	if ((err = dispatch_rules(m, b, cfg, SW_CHAIN_FORWARD, "fwd", PRE_ORIGINAL, SW_CHAIN_GUARD_FWD)))
		return err;
	/* the routed categories (sandboxes):
	 *   ip daddr @sandboxes4 fib daddr . iif oif missing iifname . oifname != @between goto block_sandboxes
	 * a destination in another guarded interface's subnets, routed out
	 * of another interface than it came in on (bridged traffic, with
	 * br_netfilter, goes out of the bridge it came in on), unless
	 * [allow] between names the pair */
	for (int cat = 0; cat < SW_CAT_COUNT; cat++) {
		char target[SW_NAME_MAX];

		if (sw_categories[cat].match != SW_CAT_MATCH_ROUTED)
			continue;
		snprintf(target, sizeof(target), SW_CAT_CHAIN_PREFIX "%s", sw_categories[cat].name);
		for (int v6 = 0; v6 < 2; v6++) {
			char id[SW_NAME_MAX], text[256], sname[SW_NAME_MAX];

			snprintf(sname, sizeof(sname), "%s%c", sw_categories[cat].name, v6 ? '6' : '4');
			snprintf(id, sizeof(id), "%s", sname);
			snprintf(text, sizeof(text), "%s @%s fib daddr . iif oif missing iifname . oifname != @"
				 SW_SET_BETWEEN " goto %s", daddr_text(b, v6), sname, target);
			RULE(m, b, SW_CHAIN_GUARD_FWD, id, text, {
				e_daddr(b, v6 ? AF_INET6 : AF_INET);
				e_lookup(b, NFT_REG_1, sname);
				e_fib_daddr_iif_missing(b);
				e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
				e_meta(b, NFT_META_OIFNAME, NFT_REG_2);
				e_lookup_inv(b, NFT_REG_1, SW_SET_BETWEEN);
				e_verdict(b, NFT_GOTO, target);
			});
		}
	}
	/* ct status dnat goto guard_nat: the translated destination */
	RULE(m, b, SW_CHAIN_GUARD_FWD, "fwd-nat", "ct status dnat goto " SW_CHAIN_GUARD_NAT, {
		e_ct_dnat(b);
		e_verdict(b, NFT_GOTO, SW_CHAIN_GUARD_NAT);
	});
	if ((err = gate_rules(m, b, cfg, SW_CHAIN_GUARD_NAT, "", false)))
		return err;
	if ((err = allow_rules(m, b, SW_CHAIN_GUARD_NAT, "allow", "allow", NF_ACCEPT, NULL)))
		return err;
	RULE(m, b, SW_CHAIN_GUARD_NAT, "host_ports",
	     "fib daddr type local meta l4proto . th dport @host_ports accept", {
		e_fib_local(b);
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG32_01);
		e_lookup(b, NFT_REG_1, "host_ports");
		e_verdict(b, NF_ACCEPT, NULL);
	});
	return category_rules(m, b, cfg, SW_CHAIN_GUARD_NAT, true);
}

/* The host's own copy of broadcast and multicast: `fib daddr type local`
 * in the guard chain does not match 255.255.255.255, a bridge's directed
 * broadcast or 224.0.0.1/ff02::1, yet the host delivers them to every
 * socket bound to 0.0.0.0 or ::. Container-to-container broadcast is
 * bridged and never reaches this hook. Only with [block] host. */
static int input_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	struct sw_chain *c;
	int err;

	/* chain input { type filter hook input priority -150; policy accept; } */
	if (!(c = sw_model_add_chain(m, SW_CHAIN_INPUT)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_LOCAL_IN;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	/* chain guard_input { } */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_INPUT))
		return -ENOSPC;

	/* ct direction original ct status dnat iifname @guard_links goto
	 * guard_nat ...: a destination translated to the host (another
	 * table's dnat, a redirect) is judged as in guard; then
	 * iifname @guard_links goto guard_input ... for the rest */
	if ((err = dispatch_rules(m, b, cfg, SW_CHAIN_INPUT, "input-nat", PRE_DNAT, SW_CHAIN_GUARD_NAT)) ||
	    (err = dispatch_rules(m, b, cfg, SW_CHAIN_INPUT, "guard-input", PRE_NONE, SW_CHAIN_GUARD_INPUT)))
		return err;
	/* fib daddr type local return: unicast to the host was judged in guard */
	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-local", "fib daddr type local return", {
		e_fib_local(b);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 return (and advert):
	 * the host's solicited-node multicast groups */
	for (int i = 0; i < 2; i++) {
		RULE(m, b, SW_CHAIN_GUARD_INPUT, i ? "input-nd-advert" : "input-nd-solicit",
		     i ? "icmpv6 type nd-neighbor-advert ip6 hoplimit 255 return"
		       : "icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 return", {
			e_nd(b, i ? 136 : 135);
			e_verdict(b, NFT_RETURN, NULL);
		});
	}
	/* meta l4proto . th dport @host_ports return: [allow] host_ports opens
	 * broadcast too (DHCP: udp/67) */
	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-host-ports",
	     "meta l4proto . th dport @host_ports return", {
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG32_01);
		e_lookup(b, NFT_REG_1, "host_ports");
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* icmpv6 type nd-router-solicit drop / icmpv6 type mld2-listener-report
	 * drop: what every container's kernel sends when its interface comes
	 * up (to ff02::2 and ff02::16, which a forwarding host joins). Blocked
	 * like the rest, but not counted or logged: benign noise would bury
	 * the attempts that matter. */
	for (int i = 0; i < 2; i++) {
		RULE(m, b, SW_CHAIN_GUARD_INPUT, i ? "input-mld" : "input-rs",
		     i ? "icmpv6 type mld2-listener-report drop"
		       : "icmpv6 type nd-router-solicit drop", {
			e_nfproto(b, AF_INET6);
			e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
			e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6);
			e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, NFT_REG_1);
			e_cmp_u8(b, NFT_REG_1, i ? 143 : 133);
			e_verdict(b, NF_DROP, NULL);
		});
	}
	/* goto block_host */
	RULE(m, b, SW_CHAIN_GUARD_INPUT, "input-host", "goto block_host",
	     e_verdict(b, NFT_GOTO, "block_host"));
	return 0;
}

/* ip daddr . ip protocol . th dport @<set>4 VERDICT [target] (and ip6 daddr .
 * ip6 nexthdr . th dport @<set>6); ids <id>4 and <id>6. Not `meta l4proto`:
 * Debian 12's 6.12 kernels from 6.12.115 refuse it (EOPNOTSUPP) in an
 * interval concatenation (docs/kernels.md). The 1-byte payload loads the
 * same protocol number; an IPv6 packet with extension headers before its
 * transport header matches no entry, so it is not accepted here. The
 * names take sfx after the family digit ("_exact": @<set>4_exact, id
 * <id>4_exact). */
static int concat_rules_sfx(struct sw_model *m, struct rb *b, const char *chain, const char *id,
			    const char *set, const char *sfx, int verdict, const char *target)
{
	for (int v6 = 0; v6 < 2; v6++) {
		/* the registers nft picks: reg 9/10 after a v4 address, reg 2/13 after v6 */
		uint32_t r2 = v6 ? NFT_REG_2 : NFT_REG32_01;
		uint32_t r3 = v6 ? NFT_REG32_05 : NFT_REG32_02;
		char rid[SW_NAME_MAX], sname[SW_NAME_MAX], text[256];

		snprintf(rid, sizeof(rid), "%s%c%s", id, v6 ? '6' : '4', sfx);
		snprintf(sname, sizeof(sname), "%s%c%s", set, v6 ? '6' : '4', sfx);
		snprintf(text, sizeof(text), "%s . %s . th dport @%s %s%s%s",
			 daddr_text(b, v6), v6 ? "ip6 nexthdr" : "ip protocol", sname,
			 verdict_word(verdict), target ? " " : "", target ? target : "");
		RULE(m, b, chain, rid, text, {
			e_daddr(b, v6 ? AF_INET6 : AF_INET);
			/* ip protocol (offset 9) / ip6 nexthdr (offset 6) */
			e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, v6 ? 6 : 9, 1, r2);
			e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, r3);
			e_lookup(b, NFT_REG_1, sname);
			e_verdict(b, verdict, target);
		});
	}
	return 0;
}

static int concat_rules(struct sw_model *m, struct rb *b, const char *chain, const char *id,
			const char *set, int verdict, const char *target)
{
	return concat_rules_sfx(m, b, chain, id, set, "", verdict, target);
}

/* An allow list (concat_sets with exact), exact entries first:
 *   ip daddr . ip protocol . th dport @<set>4_exact VERDICT [target]
 *   ip6 daddr . ip6 nexthdr . th dport @<set>6_exact VERDICT [target]
 *   ip daddr . ip protocol . th dport @<set>4 VERDICT [target]
 *   ip6 daddr . ip6 nexthdr . th dport @<set>6 VERDICT [target] */
static int allow_rules(struct sw_model *m, struct rb *b, const char *chain, const char *id,
		       const char *set, int verdict, const char *target)
{
	int err = concat_rules_sfx(m, b, chain, id, set, "_exact", verdict, target);

	return err ? err : concat_rules(m, b, chain, id, set, verdict, target);
}

/* Per sandbox, in guard after neighbour discovery and before every accept:
 *   iifname @sbx_<name>_ifaces jump sbx_<name>
 *   ip saddr @sbx_<name>_src4 jump sbx_<name>   (ip6 likewise)
 * A packet of several sandboxes meets every one of their policies. */
static int sandbox_dispatch(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];
		char chain[SW_NAME_MAX], set[SW_NAME_MAX], id[SW_NAME_MAX], text[256];

		snprintf(chain, sizeof(chain), "sbx_%s", x->name);
		if (x->n_patterns) {
			snprintf(set, sizeof(set), "sbx_%s_ifaces", x->name);
			snprintf(id, sizeof(id), "sbx-%s-ifaces", x->name);
			snprintf(text, sizeof(text), "iifname @%s jump %s", set, chain);
			RULE(m, b, SW_CHAIN_GUARD, id, text, {
				e_meta(b, NFT_META_IIFNAME, NFT_REG_1);
				e_lookup(b, NFT_REG_1, set);
				e_verdict(b, NFT_JUMP, chain);
			});
		}
		for (int v6 = 0; x->n_sources && v6 < 2; v6++) {
			snprintf(set, sizeof(set), "sbx_%s_src%c", x->name, v6 ? '6' : '4');
			snprintf(id, sizeof(id), "sbx-%s-src%c", x->name, v6 ? '6' : '4');
			snprintf(text, sizeof(text), "%s saddr @%s jump %s", v6 ? "ip6" : "ip", set, chain);
			RULE(m, b, SW_CHAIN_GUARD, id, text, {
				e_nfproto(b, v6 ? AF_INET6 : AF_INET);
				if (v6)
					e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 8, 16, NFT_REG_1);
				else
					e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 12, 4, NFT_REG_1);
				e_lookup(b, NFT_REG_1, set);
				e_verdict(b, NFT_JUMP, chain);
			});
		}
	}
	return 0;
}

/* update @set { ip saddr limit rate N/unit burst N packets } (and ip6):
 * matches only when the set took the source (a new element or a refreshed
 * one) and the source's bucket still has a token. The dynset breaks the
 * rule when the update fails (set full) and the limit breaks it when the
 * bucket is empty: either way the rule does not match. */
static void e_budget(struct rb *b, const struct sw_sandbox *x, const char *set, int v6)
{
	struct nftnl_expr *d, *l;

	e_nfproto(b, v6 ? AF_INET6 : AF_INET);
	if (v6)
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 8, 16, NFT_REG_1);
	else
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 12, 4, NFT_REG_1);
	l = nftnl_expr_alloc("limit");
	d = expr(b, "dynset");
	if (!l || !d) {
		b->err = -ENOMEM;
		if (d)
			nftnl_expr_free(d);
		if (l)
			nftnl_expr_free(l);
		return;
	}
	nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_RATE, x->budget);
	nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_UNIT, x->budget_unit);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_BURST, x->budget);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_FLAGS, 0);
	nftnl_expr_set_u32(d, NFTNL_EXPR_DYNSET_OP, NFT_DYNSET_OP_UPDATE);
	nftnl_expr_set_u32(d, NFTNL_EXPR_DYNSET_SREG_KEY, NFT_REG_1);
	nftnl_expr_set_str(d, NFTNL_EXPR_DYNSET_SET_NAME, set);
	/* the set's own timeout; sent as 0 because the kernel echoes it */
	nftnl_expr_set_u64(d, NFTNL_EXPR_DYNSET_TIMEOUT, 0);
	nftnl_expr_set(d, NFTNL_EXPR_DYNSET_EXPR, l, 0);        /* the dynset owns it */
	add_expr(b, d);
}

/* In chain sbx_<name>, first:
 *   ct state new jump sbx_<name>_budget
 * chain sbx_<name>_budget:
 *   update @sbx_<name>_budget4 { ip saddr limit rate N/<unit> burst N packets } return
 *   update @sbx_<name>_budget6 { ip6 saddr limit rate N/<unit> burst N packets } return
 *   goto block_budget_<name>
 * A token bucket per source address: N new connections at once, N more per
 * window; the element lives while the source keeps trying (update
 * refreshes its timeout) and goes after a quiet window. Only an update
 * that succeeded inside the budget returns: over budget, a full set or a
 * failed update all fall through to the drop (fail closed; the audit of
 * every dynamic set is in docs/ruleset.md). */
static int budget_rules(struct sw_model *m, struct rb *b, const struct sw_sandbox *x)
{
	static const char *const unit[] = { [1] = "second" };
	const char *u = x->budget_unit == 1 ? unit[1] : x->budget_unit == 60 ? "minute" : "hour";
	char chain[SW_NAME_MAX], sub[SW_NAME_MAX], block[SW_NAME_MAX], id[SW_NAME_MAX];
	char text[256];

	snprintf(chain, sizeof(chain), "sbx_%s", x->name);
	snprintf(sub, sizeof(sub), "sbx_%s_budget", x->name);
	snprintf(block, sizeof(block), "block_budget_%s", x->name);
	snprintf(id, sizeof(id), "sbx-%s-budget", x->name);
	snprintf(text, sizeof(text), "ct state new jump %s", sub);
	RULE(m, b, chain, id, text, {
		e_ct_new(b);
		e_verdict(b, NFT_JUMP, sub);
	});
	/* chain sbx_<name>_budget { } */
	if (!sw_model_add_chain(m, sub))
		return -ENOSPC;
	for (int v6 = 0; v6 < 2; v6++) {
		char set[SW_NAME_MAX];

		snprintf(set, sizeof(set), "sbx_%s_budget%c", x->name, v6 ? '6' : '4');
		snprintf(id, sizeof(id), "sbx-%s-budget%c", x->name, v6 ? '6' : '4');
		snprintf(text, sizeof(text), "update @%s { %s saddr limit rate %u/%s burst %u "
			 "packets } return", set, v6 ? "ip6" : "ip", x->budget, u, x->budget);
		RULE(m, b, sub, id, text, {
			e_budget(b, x, set, v6);
			e_verdict(b, NFT_RETURN, NULL);
		});
	}
	/* goto block_budget_<name>: over budget, set full or update failed */
	snprintf(id, sizeof(id), "sbx-%s-budget-drop", x->name);
	snprintf(text, sizeof(text), "goto %s", block);
	RULE(m, b, sub, id, text, e_verdict(b, NFT_GOTO, block));
	return 0;
}

/* chain sbx_<name>: the policy, which only drops or returns:
 *   dns none:   ip daddr . ip protocol . th dport @resolvers4 goto block_egress_<name>
 *   not open:   ip6 daddr @nd6 return
 *               [dns auto]  ip daddr . ip protocol . th dport @resolvers4 return
 *               [allowlist] ip daddr . ip protocol . th dport @sbx_<name>_allow4 return
 *               [hostnames] ip daddr . ip protocol . th dport @sbx_<name>_hosts4 return
 *               goto block_egress_<name>
 * (and ip6). A returned packet goes on through every global block. */
static int sandbox_chains(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];
		char chain[SW_NAME_MAX], block[SW_NAME_MAX], set[SW_NAME_MAX], id[SW_NAME_MAX];
		int err;

		snprintf(chain, sizeof(chain), "sbx_%s", x->name);
		snprintf(block, sizeof(block), "block_egress_%s", x->name);
		/* chain sbx_<name> { } */
		if (!sw_model_add_chain(m, chain))
			return -ENOSPC;
		if (x->budget && (err = budget_rules(m, b, x)))
			return err;
		if (x->dns == SW_DNS_NONE) {
			snprintf(id, sizeof(id), "sbx-%s-nodns", x->name);
			if ((err = concat_rules(m, b, chain, id, "resolvers", NFT_GOTO, block)))
				return err;
		}
		if (x->egress == SW_EGRESS_OPEN)
			continue;
		/* ip6 daddr @nd6 return: link-scope IPv6 (neighbour discovery,
		 * router solicitation, MLD) never leaves the link; the global
		 * rules judge it */
		snprintf(id, sizeof(id), "sbx-%s-link6", x->name);
		{
			char text[SW_NAME_MAX + 48];

			snprintf(text, sizeof(text), "ip6 daddr @nd6 return");
			RULE(m, b, chain, id, text, {
				e_daddr(b, AF_INET6);
				e_lookup(b, NFT_REG_1, "nd6");
				e_verdict(b, NFT_RETURN, NULL);
			});
		}
		if (x->dns == SW_DNS_AUTO) {
			snprintf(id, sizeof(id), "sbx-%s-dns", x->name);
			if ((err = concat_rules(m, b, chain, id, "resolvers", NFT_RETURN, NULL)))
				return err;
		}
		if (x->egress == SW_EGRESS_ALLOWLIST) {
			snprintf(id, sizeof(id), "sbx-%s-allow", x->name);
			snprintf(set, sizeof(set), "sbx_%s_allow", x->name);
			if ((err = allow_rules(m, b, chain, id, set, NFT_RETURN, NULL)))
				return err;
		}
		if (x->egress == SW_EGRESS_ALLOWLIST && x->n_names) {
			/* ip daddr . ip protocol . th dport @sbx_<name>_hosts4 return (and ip6) */
			snprintf(id, sizeof(id), "sbx-%s-hosts", x->name);
			snprintf(set, sizeof(set), "sbx_%s_hosts", x->name);
			if ((err = concat_rules(m, b, chain, id, set, NFT_RETURN, NULL)))
				return err;
		}
		/* goto block_egress_<name> */
		snprintf(id, sizeof(id), "sbx-%s-egress", x->name);
		{
			char text[SW_NAME_MAX + 8];

			snprintf(text, sizeof(text), "goto %s", block);
			RULE(m, b, chain, id, text, e_verdict(b, NFT_GOTO, block));
		}
	}
	return 0;
}

/* With [guard] macvlan_parents: an ipvlan child in l3 mode that sends to
 * the host's address on its parent is routed in the host's namespace
 * through lo (docs/ruleset.md), where no hook of the parent sees it; it
 * arrives with a source address that is not the host's, which the host's
 * own traffic through lo never has.
 *   meta iif lo fib saddr type != local goto block_host */
static void e_lo_foreign(struct rb *b)
{
	uint32_t lo = 1 /* the loopback's ifindex in every namespace */, local = RTN_LOCAL;
	struct nftnl_expr *e;

	e_meta(b, NFT_META_IIF, NFT_REG_1);
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &lo, sizeof(lo));
	if ((e = expr(b, "fib"))) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, NFTA_FIB_F_SADDR);
		nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
		nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
		add_expr(b, e);
	}
	e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &local, sizeof(local));
	e_verdict(b, NFT_GOTO, "block_host");
}

static int lo_foreign_rule(struct sw_model *m, struct rb *b)
{
	RULE(m, b, SW_CHAIN_INPUT, "input-lo-foreign",
	     "meta iif \"lo\" fib saddr type != local goto block_host", e_lo_foreign(b));
	return 0;
}

/* The fast path and its backstop, for both buffers of the gate
 * (include/core/gate.h); id "<pre>unblocked4a" etc.:
 *   meta nfproto @gate_a ip daddr != @gate4_a fib daddr type != local return
 * (without [block] host, no fib): a destination outside the gate and not
 * the host's meets only accepts and returns below. And, after the
 * categories (fallback):
 *   meta nfproto @gate_a ip daddr @gate4_a drop
 * a gated destination that no category's rule caught (a category set
 * that a transaction was changing missed) is dropped all the same. */
static int gate_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		      const char *chain, const char *pre, bool fallback)
{
	for (int x = 0; x < 2; x++)
		for (int v6 = 0; v6 < 2; v6++) {
			const char *sel = x ? SW_GATE_SEL_B : SW_GATE_SEL_A;
			bool fib = !fallback && cfg->block[SW_CAT_HOST];
			char set[SW_NAME_MAX], id[SW_NAME_MAX], text[192];

			sw_gate_set_name(set, sizeof(set), v6, x ? SW_GATE_B : SW_GATE_A);
			snprintf(id, sizeof(id), "%s%s%c%c", pre, fallback ? "gated" : "unblocked",
				 v6 ? '6' : '4', x ? 'b' : 'a');
			snprintf(text, sizeof(text), "meta nfproto @%s %s daddr %s@%s %s%s", sel,
				 v6 ? "ip6" : "ip", fallback ? "" : "!= ", set,
				 fib ? "fib daddr type != local " : "", fallback ? "drop" : "return");
			RULE(m, b, chain, id, text, {
				e_meta(b, NFT_META_NFPROTO, NFT_REG_1);
				e_lookup(b, NFT_REG_1, sel);
				e_daddr(b, v6 ? AF_INET6 : AF_INET);
				if (fallback)
					e_lookup(b, NFT_REG_1, set);
				else
					e_lookup_inv(b, NFT_REG_1, set);
				if (fib)
					e_fib_type(b, NFT_CMP_NEQ, RTN_LOCAL);
				e_verdict(b, fallback ? NF_DROP : NFT_RETURN, NULL);
			});
		}
	return 0;
}

/* ip daddr @<cat>4 goto block_<cat> (and ip6) for a set category;
 * fib daddr type local goto block_host for the host (with [block] host).
 * Into chain: guard, and guard_output for the output path ([guard] users,
 * cgroups): one list for both (the same ids in both chains); gated: behind
 * the gate's fast path, and then its fallback. The netdev table has no gate:
 * ip daddr @own4 return (and ip6) between the ranks below and from
 * SW_CAT_RANK_OWN. (Behind the gate, own is not needed: the gate leaves
 * the own subnets out where only lan and private would block them, and
 * a gated destination in own is one a category before own blocks.) */
static int category_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			  const char *chain, bool gated)
{
	bool done[SW_CAT_COUNT] = { false }, own = false;
	char target[SW_NAME_MAX];
	int err;

	for (;;) {
		int next = -1;

		for (int c = 0; c < SW_CAT_COUNT; c++)
			if (!done[c] && (next < 0 || sw_categories[c].rank < sw_categories[next].rank))
				next = c;
		if (!own && !gated && (next < 0 || sw_categories[next].rank >= SW_CAT_RANK_OWN)) {
			own = true;
			if ((err = addr_rules(m, b, chain, "own", NFT_RETURN, NULL)))
				return err;
		}
		if (next < 0)
			return gated ? gate_rules(m, b, cfg, chain, "", true) : 0;
		done[next] = true;
		snprintf(target, sizeof(target), SW_CAT_CHAIN_PREFIX "%s", sw_categories[next].name);
		switch (sw_categories[next].match) {
		case SW_CAT_MATCH_SPOOF:
			break;          /* first of all, in build_rules (netdev: the ethertype rules) */
		case SW_CAT_MATCH_LOCAL:
			if (!cfg->block[next])
				break;
			/* fib daddr type local goto block_host */
			RULE(m, b, chain, sw_categories[next].name,
			     "fib daddr type local goto block_host", {
				e_fib_local(b);
				e_verdict(b, NFT_GOTO, target);
			});
			break;
		case SW_CAT_MATCH_SET:
			if ((err = addr_rules(m, b, chain, sw_categories[next].name, NFT_GOTO, target)))
				return err;
			break;
		case SW_CAT_MATCH_ROUTED:
			break;          /* in the forward hook only (forward_rules) */
		}
	}
}

static int output_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg);

static int build_rules(struct sw_model *m, const struct sw_config *cfg)
{
	struct rb rb = { 0 }, *b = &rb;
	struct sw_chain *c;
	char target[SW_NAME_MAX];
	int err;

	/* chain prerouting { type filter hook prerouting priority -150; policy accept; } */
	if (!(c = sw_model_add_chain(m, SW_CHAIN_HOOK)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_PRE_ROUTING;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	/* chain guard { } */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD))
		return -ENOSPC;

	/* iifname @guard_links goto guard ... (dispatch_rules) */
	if ((err = dispatch_rules(m, b, cfg, SW_CHAIN_HOOK, "guard", PRE_NONE, SW_CHAIN_GUARD)))
		return err;
	/* fib saddr . iif oif missing goto block_spoofed: first, before any
	 * accept, so no forged source can create or use conntrack state */
	RULE(m, b, SW_CHAIN_GUARD, "spoofed", "fib saddr . iif oif missing goto block_spoofed", {
		e_fib_spoofed(b);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	/* the fast path, right after the anti-spoofing check when there are no
	 * sandboxes (replies and ND only accept, so for an unblocked, non-local
	 * destination they decide nothing); after the sandboxes' dispatch
	 * when there are (their policies judge allowed destinations too) */
	if (!cfg->n_sandboxes && (err = gate_rules(m, b, cfg, SW_CHAIN_GUARD, "", false)))
		return err;
	/* ct state established ct direction reply accept: replies to
	 * connections others opened (related ICMP errors are not let through) */
	RULE(m, b, SW_CHAIN_GUARD, "replies", "ct state established ct direction reply accept", {
		e_ct_established(b);
		struct nftnl_expr *e = expr(b, "ct");
		if (e) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_DIRECTION);
			nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
			add_expr(b, e);
		}
		e_cmp_u8(b, NFT_REG_1, 1 /* IP_CT_DIR_REPLY */);
		e_verdict(b, NF_ACCEPT, NULL);
	});
	/* meta l4proto ipv6-icmp jump guard_nd: the ND accepts, behind one
	 * compare that every other packet fails */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_ND))
		return -ENOSPC;
	RULE(m, b, SW_CHAIN_GUARD, "nd", "meta l4proto ipv6-icmp jump " SW_CHAIN_GUARD_ND, {
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6);
		e_verdict(b, NFT_JUMP, SW_CHAIN_GUARD_ND);
	});
	/* chain guard_nd:
	 * icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 ip6 daddr @nd6 accept
	 * icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 fib daddr type local accept
	 * (and nd-neighbor-advert): ND only on-link and only to link-local,
	 * link-scope multicast or the host itself */
	for (int i = 0; i < 4; i++) {
		static const struct { const char *id, *text; uint8_t type; bool local; } nd[] = {
			{ "nd-solicit", "icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 ip6 daddr @nd6 accept", 135, false },
			{ "nd-advert", "icmpv6 type nd-neighbor-advert ip6 hoplimit 255 ip6 daddr @nd6 accept", 136, false },
			{ "nd-solicit-host", "icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 fib daddr type local accept", 135, true },
			{ "nd-advert-host", "icmpv6 type nd-neighbor-advert ip6 hoplimit 255 fib daddr type local accept", 136, true },
		};

		RULE(m, b, SW_CHAIN_GUARD_ND, nd[i].id, nd[i].text, {
			e_nd(b, nd[i].type);
			if (nd[i].local) {
				e_fib_local(b);
			} else {
				e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 24, 16, NFT_REG_1);
				e_lookup(b, NFT_REG_1, "nd6");
			}
			e_verdict(b, NF_ACCEPT, NULL);
		});
	}
	/* the sandboxes' policies, before the first accept of a new flow:
	 * they only drop or return */
	if ((err = sandbox_dispatch(m, b, cfg)))
		return err;
	if (cfg->n_sandboxes && (err = gate_rules(m, b, cfg, SW_CHAIN_GUARD, "", false)))
		return err;
	/* ip daddr . ip protocol . th dport @allow4_exact accept, then @allow4 (and ip6) */
	if ((err = allow_rules(m, b, SW_CHAIN_GUARD, "allow", "allow", NF_ACCEPT, NULL)))
		return err;
	/* fib daddr type local meta l4proto . th dport @host_ports accept */
	RULE(m, b, SW_CHAIN_GUARD, "host_ports",
	     "fib daddr type local meta l4proto . th dport @host_ports accept", {
		e_fib_local(b);
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG32_01);
		e_lookup(b, NFT_REG_1, "host_ports");
		e_verdict(b, NF_ACCEPT, NULL);
	});

	/* the categories in their rank order (the first that matches counts
	 * the packet), then the gate's fallback */
	if ((err = category_rules(m, b, cfg, SW_CHAIN_GUARD, true)))
		return err;

	if (cfg->block[SW_CAT_HOST] && (err = input_rules(m, b, cfg)))
		return err;
	if ((err = forward_rules(m, b, cfg)))
		return err;
	if ((err = output_rules(m, b, cfg)))
		return err;
	if (cfg->block[SW_CAT_HOST] && cfg->n_parents && (err = lo_foreign_rule(m, b)))
		return err;

	for (int cat = 0; cat < SW_CAT_COUNT; cat++) {
		snprintf(target, sizeof(target), "%s", sw_categories[cat].name);
		/* counter <cat> { } */
		if ((err = sw_model_add_counter(m, target)))
			return err;
		if ((err = block_chain(m, b, cfg, target, target)))
			return err;
	}
	if ((err = sandbox_chains(m, b, cfg)))
		return err;
	/* per sandbox: counter egress_<name>; chain block_egress_<name>, logged
	 * with the prefix "sandwall:egress:<name> " */
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		char log[SW_NAME_MAX];

		snprintf(target, sizeof(target), "egress_%s", cfg->sandboxes[i].name);
		snprintf(log, sizeof(log), "egress:%s", cfg->sandboxes[i].name);
		if ((err = sw_model_add_counter(m, target)) ||
		    (err = block_chain(m, b, cfg, target, log)))
			return err;
		if (!cfg->sandboxes[i].budget)
			continue;
		/* counter budget_<name>; chain block_budget_<name>, logged as
		 * "sandwall:budget:<name> " */
		snprintf(target, sizeof(target), "budget_%s", cfg->sandboxes[i].name);
		snprintf(log, sizeof(log), "budget:%s", cfg->sandboxes[i].name);
		if ((err = sw_model_add_counter(m, target)) ||
		    (err = block_chain(m, b, cfg, target, log)))
			return err;
	}
	return 0;
}

/* ---- what each set category blocks -------------------------------------- */

/* Fill p (room for w->cap_p) with what a category blocks; *out may point
 * elsewhere instead (the config's own list). Called only when the category
 * is on. */
typedef int (*cat_fill_fn)(const struct sw_config *cfg, const struct sw_host *host,
			   struct work *w, const struct sw_prefix **out, size_t *n);

/* metadata: the compiled-in list */
static int fill_metadata(const struct sw_config *cfg, const struct sw_host *host,
			 struct work *w, const struct sw_prefix **out, size_t *n)
{
	return sw_endpoints_metadata(w->p, FIXED_ENTRIES, n);
}

/* link_local: 169.254.0.0/16, fe80::/10 */
static int fill_link_local(const struct sw_config *cfg, const struct sw_host *host,
			   struct work *w, const struct sw_prefix **out, size_t *n)
{
	for (size_t i = 0; i < 2; i++)
		sw_prefix_parse(link_local[i], &w->p[(*n)++], NULL);
	return 0;
}

/* gateways: default-route next hops */
static int fill_gateways(const struct sw_config *cfg, const struct sw_host *host,
			 struct work *w, const struct sw_prefix **out, size_t *n)
{
	for (size_t i = 0; host && i < host->n_gateways; i++)
		w->p[(*n)++] = host->gateways[i].addr;
	return 0;
}

/* destinations: from the config */
static int fill_destinations(const struct sw_config *cfg, const struct sw_host *host,
			     struct work *w, const struct sw_prefix **out, size_t *n)
{
	*out = cfg->destinations;
	*n = cfg->n_destinations;
	return 0;
}

/* lan: subnets connected to the other interfaces */
static int fill_lan(const struct sw_config *cfg, const struct sw_host *host,
		    struct work *w, const struct sw_prefix **out, size_t *n)
{
	for (size_t i = 0; host && i < host->n_addrs; i++) {
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);
		struct sw_prefix q = host->addrs[i].local;

		if (!l || sw_ruleset_guarded(cfg, l) || sw_prefix_is_loopback(&q) || sw_prefix_is_v6_linklocal(&q))
			continue;
		if (q.len == sw_family_addrlen(q.family) * 8)
			continue;       /* a host address is no subnet */
		sw_prefix_mask(&q);
		w->p[(*n)++] = q;
	}
	return 0;
}

/* private: RFC 1918, CGNAT, ULA */
static int fill_private(const struct sw_config *cfg, const struct sw_host *host,
			struct work *w, const struct sw_prefix **out, size_t *n)
{
	for (size_t i = 0; i < sizeof(rfc_private) / sizeof(*rfc_private); i++)
		sw_prefix_parse(rfc_private[i], &w->p[(*n)++], NULL);
	return 0;
}

static int fill_sandboxes(const struct sw_config *cfg, const struct sw_host *host,
			  struct work *w, const struct sw_prefix **out, size_t *n);

/* per SW_CAT_MATCH_SET and SW_CAT_MATCH_ROUTED category (config.h's table says which) */
static const cat_fill_fn cat_fill[SW_CAT_COUNT] = {
	[SW_CAT_METADATA] = fill_metadata,
	[SW_CAT_LINK_LOCAL] = fill_link_local,
	[SW_CAT_GATEWAYS] = fill_gateways,
	[SW_CAT_DESTINATIONS] = fill_destinations,
	[SW_CAT_LAN] = fill_lan,
	[SW_CAT_PRIVATE] = fill_private,
	[SW_CAT_SANDBOXES] = fill_sandboxes,
};

/* own: subnets of guarded interfaces (container-to-container stays) and
 * what is routed to a guarded interface without a gateway (a routed veth
 * has no address, its container's /32 is a route), and [allow] networks */
static int guarded_subnets(const struct sw_config *cfg, const struct sw_host *host,
			   struct work *w, struct sw_prefix *p, size_t *np)
{
	size_t n = 0;
	int rc;

	for (size_t i = 0; host && i < host->n_addrs; i++) {
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);
		struct sw_prefix q = host->addrs[i].local;

		if (!l || !sw_ruleset_guarded(cfg, l) || sw_prefix_is_v6_linklocal(&q))
			continue;
		sw_prefix_mask(&q);
		p[n++] = q;
	}
	if (host && host->n_routes && (rc = guarded_index(w, cfg, host)))
		return rc;
	for (size_t i = 0; host && i < host->n_routes; i++) {
		int oif = host->routes[i].oif;

		if (sw_prefix_is_v6_linklocal(&host->routes[i].dst) || !w->n_guarded ||
		    !bsearch(&oif, w->guarded, w->n_guarded, sizeof(oif), int_cmp))
			continue;
		p[n++] = host->routes[i].dst;
	}
	*np = n;
	return 0;
}

/* sandboxes: the guarded interfaces' subnets (own without [allow]
 * networks), judged in the forward hook */
static int fill_sandboxes(const struct sw_config *cfg, const struct sw_host *host,
			  struct work *w, const struct sw_prefix **out, size_t *n)
{
	return guarded_subnets(cfg, host, w, w->p, n);
}

static int own_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
		    const struct sw_host *host)
{
	struct sw_prefix *p = w->p;
	size_t n = 0;
	int rc;

	if ((rc = guarded_subnets(cfg, host, w, p, &n)))
		return rc;
	/* [allow] networks: left open by lan and private like the above */
	for (size_t i = 0; i < cfg->n_networks; i++)
		p[n++] = cfg->networks[i];
	if ((rc = addr_sets(m, w, "own", p, n)))
		return rc;
	return gate_note(w, 2, p, n);
}

/* The set categories' sets in rank order (own4/own6 where own's rank
 * is), then blocked4/blocked6. */
static int category_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
			 const struct sw_host *host)
{
	bool done[SW_CAT_COUNT] = { false }, own = false;
	int rc;

	for (;;) {
		const struct sw_prefix *out;
		size_t n = 0;
		int next = -1;

		for (int c = 0; c < SW_CAT_COUNT; c++)
			if (!done[c] && (sw_categories[c].match == SW_CAT_MATCH_SET ||
					 sw_categories[c].match == SW_CAT_MATCH_ROUTED) &&
			    (next < 0 || sw_categories[c].rank < sw_categories[next].rank))
				next = c;
		if (!own && (next < 0 || sw_categories[next].rank >= SW_CAT_RANK_OWN)) {
			own = true;
			if ((rc = own_sets(m, w, cfg, host)))
				return rc;
		}
		if (next < 0)
			break;
		done[next] = true;
		if (!cat_fill[next])
			return -EINVAL;         /* a set category needs its fill */
		out = w->p;
		if (cfg->block[next] && (rc = cat_fill[next](cfg, host, w, &out, &n)))
			return rc;
		if ((rc = cat_sets(m, w, next, out, n)))
			return rc;
	}
	/* gate4_a/b, gate6_a/b, gate_a/b: the fast path's gate */
	return gate_sets(m, w);
}

/* ---- the output path: [guard] users and cgroups ----------------------- */

unsigned sw_ruleset_cg_levels(const struct sw_config *cfg)
{
	unsigned levels = 0;

	for (size_t i = 0; i < cfg->n_cgroups; i++) {
		unsigned l = 1;

		for (const char *p = cfg->cgroups[i]; *p; p++)
			l += *p == '/';
		if (l <= SW_CG_MAX_LEVEL)
			levels |= 1u << l;
	}
	return levels;
}

int sw_ruleset_cg_fill(struct sw_set *s, const struct sw_cgroup *cg, size_t n, unsigned level)
{
	int err;

	for (size_t i = 0; i < n; i++) {
		struct sw_elem e;
		char text[SW_CG_PATH_MAX + 3];

		if (cg[i].level != level)
			continue;
		memset(&e, 0, sizeof(e));
		memcpy(e.key, &cg[i].id, sizeof(cg[i].id));
		if ((err = sw_set_add_elem(s, &e)))
			return err;
		/* nft takes a cgroup as its path below /sys/fs/cgroup */
		snprintf(text, sizeof(text), "\"%s\"", cg[i].path);
		if ((err = sw_set_add_text(s, text)))
			return err;
	}
	sw_set_sort(s);
	return 0;
}

/* set guard_uids { type uid; elements = { 40001 } } ([guard] users)
 * set guard_cg<L> { type cgroupsv2; elements = { "system.slice/docker-1.scope" } }
 *   one per level a [guard] cgroups pattern has */
static int output_sets(struct sw_model *m, const struct sw_config *cfg, const struct sw_host *host)
{
	unsigned levels = sw_ruleset_cg_levels(cfg);
	struct sw_set *s;
	int err;

	if (cfg->n_users) {
		if (!(s = new_set(m, SW_SET_UIDS, SW_TYPE_UID, 4, 0, "uid")))
			return -ENOSPC;
		for (size_t i = 0; i < cfg->n_users; i++) {
			struct sw_elem e;
			char text[16];

			memset(&e, 0, sizeof(e));
			memcpy(e.key, &cfg->users[i].uid, sizeof(cfg->users[i].uid));
			if ((err = sw_set_add_elem(s, &e)))
				return err;
			snprintf(text, sizeof(text), "%u", cfg->users[i].uid);
			if ((err = sw_set_add_text(s, text)))
				return err;
		}
	}
	for (unsigned l = 1; l <= SW_CG_MAX_LEVEL; l++) {
		char name[SW_NAME_MAX];

		if (!(levels & (1u << l)))
			continue;
		snprintf(name, sizeof(name), SW_SET_CG "%u", l);
		if (!(s = new_set(m, name, SW_TYPE_CGROUPV2, 8, 0, "cgroupsv2")))
			return -ENOSPC;
		if (host && (err = sw_ruleset_cg_fill(s, host->cgroups, host->n_cgroups, l)))
			return err;
	}
	return 0;
}

/* [ socket load cgroupv2 level L => reg 1 ] */
static void e_socket_cgroup(struct rb *b, unsigned level)
{
	struct nftnl_expr *e = expr(b, "socket");

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_KEY, NFT_SOCKET_CGROUPV2);
	nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_LEVEL, level);
	nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_DREG, NFT_REG_1);
	add_expr(b, e);
}

/* The output path, when [guard] users or cgroups names anything:
 *   chain output { type filter hook output priority -150; policy accept; }
 *     meta skuid @guard_uids jump guard_output
 *     socket cgroupv2 level L @guard_cg<L> jump guard_output   (per level)
 *   chain guard_output
 *     fib saddr type != local goto block_spoofed
 *     ct state established ct direction reply accept
 *     ...@allow4/6 accept, host_ports accept, then the categories
 * Priority -150 for the reasons prerouting has it: conntrack (-200) has
 * run, DNAT of locally generated packets (-100) has not. Only packets with
 * a socket of a guarded user or cgroup enter; the host's own processes
 * never do. */
static int output_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	unsigned levels = sw_ruleset_cg_levels(cfg);
	struct sw_chain *c;
	int err;

	if (!cfg->n_users && !levels)
		return 0;
	/* chain output { type filter hook output priority -150; policy accept; } */
	if (!(c = sw_model_add_chain(m, SW_CHAIN_OUTPUT)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_LOCAL_OUT;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	/* chain guard_output { } */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_OUTPUT))
		return -ENOSPC;

	if (cfg->n_users) {
		/* meta skuid @guard_uids jump guard_output */
		RULE(m, b, SW_CHAIN_OUTPUT, "output-users",
		     "meta skuid @" SW_SET_UIDS " jump " SW_CHAIN_GUARD_OUTPUT, {
			e_meta(b, NFT_META_SKUID, NFT_REG_1);
			e_lookup(b, NFT_REG_1, SW_SET_UIDS);
			e_verdict(b, NFT_JUMP, SW_CHAIN_GUARD_OUTPUT);
		});
	}
	for (unsigned l = 1; l <= SW_CG_MAX_LEVEL; l++) {
		char id[SW_NAME_MAX], set[SW_NAME_MAX], text[128];

		if (!(levels & (1u << l)))
			continue;
		/* socket cgroupv2 level L @guard_cg<L> jump guard_output */
		snprintf(set, sizeof(set), SW_SET_CG "%u", l);
		snprintf(id, sizeof(id), "output-cg%u", l);
		snprintf(text, sizeof(text), "socket cgroupv2 level %u @%s jump " SW_CHAIN_GUARD_OUTPUT,
			 l, set);
		RULE(m, b, SW_CHAIN_OUTPUT, id, text, {
			e_socket_cgroup(b, l);
			e_lookup(b, NFT_REG_1, set);
			e_verdict(b, NFT_JUMP, SW_CHAIN_GUARD_OUTPUT);
		});
	}
	/* fib saddr type != local goto block_spoofed: a socket's packets carry
	 * one of the host's addresses; a raw socket (CAP_NET_RAW in a
	 * host-network container) could forge another and prime conntrack,
	 * as a forged packet from a bridge could */
	RULE(m, b, SW_CHAIN_GUARD_OUTPUT, "out-spoofed", "fib saddr type != local goto block_spoofed", {
		struct nftnl_expr *e = expr(b, "fib");
		uint32_t local = RTN_LOCAL;

		if (e) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, NFTA_FIB_F_SADDR);
			nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
			nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
			add_expr(b, e);
		}
		e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &local, sizeof(local));
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	/* ct state established ct direction reply accept: answers to
	 * connections others opened to the guarded socket (a published port,
	 * pasta's or slirp4netns' port forwarding) */
	RULE(m, b, SW_CHAIN_GUARD_OUTPUT, "out-replies", "ct state established ct direction reply accept", {
		struct nftnl_expr *e;

		e_ct_established(b);
		if ((e = expr(b, "ct"))) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_DIRECTION);
			nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
			add_expr(b, e);
		}
		e_cmp_u8(b, NFT_REG_1, 1 /* IP_CT_DIR_REPLY */);
		e_verdict(b, NF_ACCEPT, NULL);
	});
	/* the fast path, as in guard (a destination outside the gate and not
	 * the host's meets only accepts below) */
	if ((err = gate_rules(m, b, cfg, SW_CHAIN_GUARD_OUTPUT, "out-", false)))
		return err;
	/* ip daddr . ip protocol . th dport @allow4_exact accept, then @allow4 (and ip6): DNS to
	 * the resolvers, [allow] destinations */
	if ((err = allow_rules(m, b, SW_CHAIN_GUARD_OUTPUT, "out-allow", "allow", NF_ACCEPT, NULL)))
		return err;
	/* fib daddr type local meta l4proto . th dport @host_ports accept */
	RULE(m, b, SW_CHAIN_GUARD_OUTPUT, "out-host_ports",
	     "fib daddr type local meta l4proto . th dport @host_ports accept", {
		e_fib_local(b);
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG32_01);
		e_lookup(b, NFT_REG_1, "host_ports");
		e_verdict(b, NF_ACCEPT, NULL);
	});
	/* the same categories as guard; `host` (fib daddr type local) covers
	 * 127.0.0.0/8 and ::1: loopback to the host's services */
	return category_rules(m, b, cfg, SW_CHAIN_GUARD_OUTPUT, true);
}

/* set between { type ifname . ifname; elements = { "docker0" . "br-x", "br-x" . "docker0" } }
 * [allow] between, both ways: the pairs whose routed traffic sandboxes
 * leaves alone */
static int between_set(struct sw_model *m, const struct sw_config *cfg)
{
	static const uint8_t f[] = { SW_IFNAMSIZ, SW_IFNAMSIZ };
	struct sw_set *s = new_concat_set(m, SW_SET_BETWEEN, (SW_TYPE_IFNAME << SW_TYPE_BITS) | SW_TYPE_IFNAME,
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

/* ---- the whole model ----------------------------------------------------- */

int sw_ruleset_build(const struct sw_config *cfg, const struct sw_host *host,
		     struct sw_model *m, char *err, size_t errlen)
{
	struct work *w = calloc(1, sizeof(*w));
	struct sw_prefix *p = NULL;
	int rc;

	sw_model_init(m, cfg->table);
	m->has_table = true;
	if (w) {
		/* one prefix per address, route, gateway or config entry at most */
		w->cap_p = FIXED_ENTRIES + cfg->n_destinations + cfg->n_networks +
			   (host ? host->n_addrs + host->n_routes + host->n_gateways : 0);
		p = w->p = calloc(w->cap_p, sizeof(*w->p));
	}
	if (!w || !p) {
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = ifname_set(m, w, cfg, host)))
		goto fail;

	/* every set category's <name>4/<name>6 in rank order, own4/own6
	 * before the first one after own; then blocked4/6, the union */
	if ((rc = category_sets(m, w, cfg, host)))
		goto fail;

	/* set nd6 { type ipv6_addr; flags interval; elements = { fe80::/10, ff02::/16 } } */
	if ((rc = nd_set(m, w)))
		goto fail;
	if ((rc = between_set(m, cfg)))
		goto fail;

	if ((rc = allow_sets(m, cfg, host)))
		goto fail;
	if ((rc = sandbox_sets(m, w, cfg, host)))
		goto fail;
	if ((rc = output_sets(m, cfg, host)))
		goto fail;
	if ((rc = build_rules(m, cfg)))
		goto fail;
	/* the compare walks sorted element lists on both sides */
	for (size_t i = 0; i < m->n_sets; i++)
		sw_set_sort(&m->sets[i]);
	work_free(w);
	return 0;
fail:
	work_free(w);
	snprintf(err, errlen, "cannot build the ruleset: %s", strerror(-rc));
	sw_model_free(m);
	return rc;
}

/* ---- the macvlan/ipvlan parents' table (netdev family) ---------------------
 *
 * A macvlan or ipvlan child in a container's namespace sends its frames
 * straight to its parent device's transmit queue: they never cross the
 * host's IP stack, so table inet <name> never sees them. table netdev
 * <name> hooks the parent itself, one pair of base chains per parent:
 *
 *   chain egress_<dev>   filter hook egress device <dev> priority -150
 *                        jump parent_guard
 *   chain ingress_<dev>  filter hook ingress device <dev> priority -150
 *                        ether saddr @parent_macs jump parent_guard
 *   chain parent_guard   the host's own frames return; the children's
 *                        meet the same categories as bridge traffic
 *   chain block_<cat>    counter name <cat>; drop
 *
 * The category sets are copies of table inet's (same elements, built by
 * sw_ruleset_build), so both tables block the same destinations.
 * docs/ruleset.md says why a child's frame cannot pass for the host's. */

#define ND_PRIO         SW_HOOK_PRIO
#define ND_GUARD        "parent_guard"
#define ND_PACKET       "packet_guard"
#define ND_MAX_PARENTS  ((SW_MAX_CHAINS - SW_CAT_COUNT - 1) / 2)

/* the sets parent_guard reads besides the categories', copied from table inet */
static const char *const nd_copied[] = {
	"allow4", "allow6", "allow4_exact", "allow6_exact", "nd6", "own4", "own6"
};

static bool is_parent(const struct sw_config *cfg, const struct sw_link *l)
{
	if (l->ifindex == 1 || l->loopback || !l->has_mac)
		return false;
	if (cfg->parents_auto && l->uplink)
		return true;
	for (size_t i = 0; i < cfg->n_parents; i++)
		if (name_match(cfg->parents[i], l->name))
			return true;
	return false;
}

bool sw_ruleset_macvlan_parent(const struct sw_config *cfg, const struct sw_link *l)
{
	return is_parent(cfg, l);
}

/* [guard] users: the uplinks and lo carry the packet-socket guard */
static bool is_packet_dev(const struct sw_config *cfg, const struct sw_link *l)
{
	return cfg->n_users && (l->uplink || l->loopback || l->ifindex == 1);
}

bool sw_ruleset_parents_on(const struct sw_config *cfg)
{
	return cfg->n_parents || cfg->parents_auto;
}

bool sw_ruleset_netdev_wanted(const struct sw_config *cfg)
{
	return sw_ruleset_parents_on(cfg) || cfg->n_users;
}

bool sw_ruleset_netdev_device(const struct sw_config *cfg, const struct sw_link *l)
{
	return is_parent(cfg, l) || is_packet_dev(cfg, l);
}

static int copy_set(struct sw_model *m, const struct sw_set *from)
{
	struct sw_set *s = sw_model_add_set(m, from->name);
	int err = 0;

	if (!s)
		return -ENOSPC;
	s->key_type = from->key_type;
	s->key_len = from->key_len;
	s->flags = from->flags;
	s->timeout_ms = from->timeout_ms;
	s->size = from->size;
	memcpy(s->concat, from->concat, sizeof(s->concat));
	s->n_concat = from->n_concat;
	s->type_text = from->type_text;
	s->text_concat = from->text_concat;
	for (size_t i = 0; i < from->n_elems && !err; i++)
		err = sw_set_add_elem(s, &from->elems[i]);
	for (size_t i = 0; i < from->n_text && !err; i++)
		err = sw_set_add_text(s, from->text[i]);
	return err;
}

/* set parent_macs { type ether_addr; elements = { <each parent's MAC> } } */
static int parent_macs_set(struct sw_model *m, const struct sw_config *cfg,
			   const struct sw_host *host)
{
	struct sw_set *s = new_set(m, "parent_macs", 9 /* TYPE_ETHERADDR */, 6, 0, "ether_addr");
	int err = 0;

	if (!s)
		return -ENOSPC;
	for (size_t i = 0; host && i < host->n_links && !err; i++) {
		const struct sw_link *l = &host->links[i];
		struct sw_elem e = { 0 };
		char text[24];
		bool dup = false;

		if (!is_parent(cfg, l))
			continue;
		memcpy(e.key, l->mac, 6);
		for (size_t j = 0; j < s->n_elems && !dup; j++)
			dup = !memcmp(s->elems[j].key, e.key, 6);
		if (dup)
			continue;       /* two parents with one address (a bond's slaves) */
		snprintf(text, sizeof(text), "%02x:%02x:%02x:%02x:%02x:%02x", l->mac[0], l->mac[1],
			 l->mac[2], l->mac[3], l->mac[4], l->mac[5]);
		if (!(err = sw_set_add_elem(s, &e)))
			err = sw_set_add_text(s, text);
	}
	return err;
}

/* set host_addrs4 / host_addrs6 { type ipv4_addr|ipv6_addr; flags interval; }:
 * every address of the host (link-local included, loopback not), exactly */
static int host_addr_sets(struct sw_model *m, const struct sw_host *host)
{
	struct work *w = calloc(1, sizeof(*w));
	size_t n = 0;
	int err;

	if (!w || !(w->p = calloc((host ? host->n_addrs : 0) + 1, sizeof(*w->p)))) {
		work_free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; host && i < host->n_addrs; i++) {
		struct sw_prefix q = host->addrs[i].local;

		if (sw_prefix_is_loopback(&q))
			continue;
		q.len = (uint8_t)(sw_family_addrlen(q.family) * 8);
		w->p[n++] = q;
	}
	err = addr_sets(m, w, "host_addrs", w->p, n);
	work_free(w);
	return err;
}

/* ether saddr @parent_macs: [ payload load 6b @ link header + 6 ] [ lookup ] */
static void e_parent_mac(struct rb *b)
{
	e_payload(b, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG_1);
	e_lookup(b, NFT_REG_1, "parent_macs");
}

/* meta protocol ip|ip6|arp (the sk_buff's protocol, in network order) */
static void e_protocol(struct rb *b, uint32_t op, uint16_t ethertype)
{
	uint16_t v = htons(ethertype);

	e_meta(b, NFT_META_PROTOCOL, NFT_REG_1);
	e_cmp(b, NFT_REG_1, op, &v, sizeof(v));
}

/* ether type ip|ip6|arp (what the wire carries) */
static void e_ethertype(struct rb *b, uint32_t op, uint16_t ethertype)
{
	uint16_t v = htons(ethertype);

	e_payload(b, NFT_PAYLOAD_LL_HEADER, 12, 2, NFT_REG_1);
	e_cmp(b, NFT_REG_1, op, &v, sizeof(v));
}

/* fib saddr type local */
static void e_fib_saddr_local(struct rb *b)
{
	struct nftnl_expr *e = expr(b, "fib");
	uint32_t local = RTN_LOCAL;

	if (!e)
		return;
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, NFTA_FIB_F_SADDR);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	add_expr(b, e);
	e_cmp(b, NFT_REG_1, NFT_CMP_EQ, &local, sizeof(local));
}

/* meta protocol ip|ip6, then the address at the network header => reg 1 */
/* meta protocol ip6 icmpv6 type TYPE ip6 hoplimit 255 ip6 daddr @nd6 accept */
static int nd_nd_rules(struct sw_model *m, struct rb *b)
{
	static const struct { const char *id, *text; uint8_t type; } nd[] = {
		{ "nd-solicit", "meta protocol ip6 icmpv6 type nd-neighbor-solicit ip6 hoplimit 255 ip6 daddr @nd6 accept", 135 },
		{ "nd-advert", "meta protocol ip6 icmpv6 type nd-neighbor-advert ip6 hoplimit 255 ip6 daddr @nd6 accept", 136 },
	};

	for (size_t i = 0; i < sizeof(nd) / sizeof(*nd); i++)
		RULE(m, b, ND_GUARD, nd[i].id, nd[i].text, {
			e_protocol(b, NFT_CMP_EQ, 0x86dd);
			e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
			e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6);
			e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, NFT_REG_1);
			e_cmp_u8(b, NFT_REG_1, nd[i].type);
			e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 7, 1, NFT_REG_1);
			e_cmp_u8(b, NFT_REG_1, 255);
			e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 24, 16, NFT_REG_1);
			e_lookup(b, NFT_REG_1, "nd6");
			e_verdict(b, NF_ACCEPT, NULL);
		});
	return 0;
}

/* chain block_<cat> { counter name "<cat>"; drop } (no log: NFLOG from a
 * netdev hook carries the link-layer frame, which nflog.c does not parse) */
static int nd_block_chain(struct sw_model *m, struct rb *b, const char *cat)
{
	char chain[SW_NAME_MAX], id[SW_NAME_MAX], text[128];

	snprintf(chain, sizeof(chain), "block_%s", cat);
	if (!sw_model_add_chain(m, chain) || sw_model_add_counter(m, cat))
		return -ENOSPC;
	snprintf(id, sizeof(id), "%s-count", cat);
	snprintf(text, sizeof(text), "counter name \"%s\"", cat);
	RULE(m, b, chain, id, text, {
		struct nftnl_expr *e = expr(b, "objref");
		if (e) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE, NFT_OBJECT_COUNTER);
			nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_IMM_NAME, cat);
			add_expr(b, e);
		}
	});
	snprintf(id, sizeof(id), "%s-drop", cat);
	RULE(m, b, chain, id, "drop", e_verdict(b, NF_DROP, NULL));
	return 0;
}

/* chain parent_guard: the host's frames return, the children's meet the
 * categories. Each return below is a door; docs/ruleset.md. */
static int nd_guard_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	int err;

	if (!sw_model_add_chain(m, ND_GUARD))
		return -ENOSPC;
	/* ether saddr @parent_macs fib saddr type local return: the host's
	 * stack, from an address of its own */
	RULE(m, b, ND_GUARD, "host-local", "ether saddr @parent_macs fib saddr type local return", {
		e_parent_mac(b);
		e_fib_saddr_local(b);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* (no ct here: the kernel refuses conntrack expressions in the netdev
	 * family, EPROTO; so the host's forwarded frames from a source of
	 * another network meet the categories like a child's, docs/ruleset.md) */
	/* ether saddr @parent_macs meta protocol ip ip saddr 0.0.0.0 return
	 * (and ip6 saddr ::): the host's DHCP client and duplicate address
	 * detection, sent before it has an address */
	for (int v6 = 0; v6 < 2; v6++) {
		static const uint8_t zero[16];

		RULE(m, b, ND_GUARD, v6 ? "host-unspec6" : "host-unspec4",
		     v6 ? "ether saddr @parent_macs meta protocol ip6 ip6 saddr :: return" :
			  "ether saddr @parent_macs meta protocol ip ip saddr 0.0.0.0 return", {
			e_parent_mac(b);
			e_protocol(b, NFT_CMP_EQ, v6 ? 0x86dd : 0x0800);
			e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, v6 ? 8 : 12, v6 ? 16 : 4, NFT_REG_1);
			e_cmp(b, NFT_REG_1, NFT_CMP_EQ, zero, v6 ? 16 : 4);
			e_verdict(b, NFT_RETURN, NULL);
		});
	}
	/* ether saddr @parent_macs meta protocol ip6 ip6 saddr @host_addrs6
	 * return: the host's link-local traffic (fib without an interface does
	 * not see a link-local address as local) */
	RULE(m, b, ND_GUARD, "host-addr6", "ether saddr @parent_macs meta protocol ip6 ip6 saddr @host_addrs6 return", {
		e_parent_mac(b);
		e_protocol(b, NFT_CMP_EQ, 0x86dd);
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 8, 16, NFT_REG_1);
		e_lookup(b, NFT_REG_1, "host_addrs6");
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* ether saddr @parent_macs ether type arp return: the host's ARP */
	RULE(m, b, ND_GUARD, "host-arp", "ether saddr @parent_macs ether type arp return", {
		e_parent_mac(b);
		e_ethertype(b, NFT_CMP_EQ, 0x0806);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* a child's frame from here on. It must not claim an address of the
	 * host in the LAN's neighbour caches (the answers to a forged host
	 * source would then come to it):
	 *   ether type arp arp saddr ip @host_addrs4 goto block_spoofed
	 *   meta protocol ip6 icmpv6 type nd-neighbor-advert @th,64,128 @host_addrs6 goto block_spoofed
	 *   meta protocol ip ip saddr @host_addrs4 goto block_spoofed (and ip6) */
	RULE(m, b, ND_GUARD, "arp-host", "ether type arp arp saddr ip @host_addrs4 goto block_spoofed", {
		e_ethertype(b, NFT_CMP_EQ, 0x0806);
		e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, 14, 4, NFT_REG_1);
		e_lookup(b, NFT_REG_1, "host_addrs4");
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	RULE(m, b, ND_GUARD, "na-host", "meta protocol ip6 icmpv6 type nd-neighbor-advert @th,64,128 @host_addrs6 goto block_spoofed", {
		e_protocol(b, NFT_CMP_EQ, 0x86dd);
		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_cmp_u8(b, NFT_REG_1, IPPROTO_ICMPV6);
		e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, NFT_REG_1);
		e_cmp_u8(b, NFT_REG_1, 136);
		e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 8, 16, NFT_REG_1);
		e_lookup(b, NFT_REG_1, "host_addrs6");
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	for (int v6 = 0; v6 < 2; v6++)
		RULE(m, b, ND_GUARD, v6 ? "saddr-host6" : "saddr-host4",
		     v6 ? "meta protocol ip6 ip6 saddr @host_addrs6 goto block_spoofed" :
			  "meta protocol ip ip saddr @host_addrs4 goto block_spoofed", {
			e_protocol(b, NFT_CMP_EQ, v6 ? 0x86dd : 0x0800);
			e_payload(b, NFT_PAYLOAD_NETWORK_HEADER, v6 ? 8 : 12, v6 ? 16 : 4, NFT_REG_1);
			e_lookup(b, NFT_REG_1, v6 ? "host_addrs6" : "host_addrs4");
			e_verdict(b, NFT_GOTO, "block_spoofed");
		});
	/* ether type arp return */
	RULE(m, b, ND_GUARD, "arp", "ether type arp return", {
		e_ethertype(b, NFT_CMP_EQ, 0x0806);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* ether type != ip ether type != ip6 goto block_spoofed; and the
	 * sk_buff's protocol must say the same (a raw socket sets it): only
	 * IPv4 and IPv6 reach the category rules, parsed as the wire will */
	RULE(m, b, ND_GUARD, "ethertype", "ether type != ip ether type != ip6 goto block_spoofed", {
		e_ethertype(b, NFT_CMP_NEQ, 0x0800);
		e_ethertype(b, NFT_CMP_NEQ, 0x86dd);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	RULE(m, b, ND_GUARD, "protocol4", "ether type ip meta protocol != ip goto block_spoofed", {
		e_ethertype(b, NFT_CMP_EQ, 0x0800);
		e_protocol(b, NFT_CMP_NEQ, 0x0800);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	RULE(m, b, ND_GUARD, "protocol6", "ether type ip6 meta protocol != ip6 goto block_spoofed", {
		e_ethertype(b, NFT_CMP_EQ, 0x86dd);
		e_protocol(b, NFT_CMP_NEQ, 0x86dd);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	/* meta l4proto tcp tcp flags & (syn | ack) != syn return: a TCP
	 * segment that opens no connection. Without conntrack here this is
	 * what lets the answers through to connections others opened (the
	 * LAN or a load balancer to a child, to a routed container whose
	 * traffic the host forwards without NAT); a child's own segments to
	 * a blocked place cannot start a connection without the SYN, so they
	 * are blind (docs/ruleset.md). A segment too short for its flags, and
	 * a later fragment, do not match and meet the categories. */
	RULE(m, b, ND_GUARD, "tcp-no-syn", "meta l4proto tcp tcp flags & (syn | ack) != syn return", {
		static const uint8_t mask = 0x12 /* syn | ack */;
		static const uint8_t syn = 0x02;
		static const uint8_t zero;
		struct nftnl_expr *bw;

		e_meta(b, NFT_META_L4PROTO, NFT_REG_1);
		e_cmp_u8(b, NFT_REG_1, IPPROTO_TCP);
		e_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 13, 1, NFT_REG_1);
		if ((bw = expr(b, "bitwise"))) {
			nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
			nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
			nftnl_expr_set_u32(bw, NFTNL_EXPR_BITWISE_LEN, 1);
			nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_MASK, &mask, 1);
			nftnl_expr_set(bw, NFTNL_EXPR_BITWISE_XOR, &zero, 1);
			add_expr(b, bw);
		}
		e_cmp(b, NFT_REG_1, NFT_CMP_NEQ, &syn, 1);
		e_verdict(b, NFT_RETURN, NULL);
	});
	/* meta protocol ip ip daddr . ip protocol . th dport @allow4 accept
	 * (ip6 likewise), then the categories in table inet's order: the same
	 * builders as guard's, with the address behind meta protocol */
	if ((err = nd_nd_rules(m, b)) ||
	    (err = allow_rules(m, b, ND_GUARD, "allow", "allow", NF_ACCEPT, NULL)) ||
	    (err = category_rules(m, b, cfg, ND_GUARD, false)))
		return err;
	for (int cat = 0; cat < SW_CAT_COUNT; cat++)
		if ((err = nd_block_chain(m, b, sw_category_name(cat))))
			return err;
	return 0;
}

/* chain packet_guard: a guarded user's frame that the IP stack did not
 * route (an AF_PACKET socket's: it has no route, skb->dst) is dropped.
 *   meta rtclassid >= 0 return      (loads only when the frame has a route)
 *   goto block_spoofed
 * The IP stack's frames of the user were judged by table inet's output
 * chain (with conntrack) and pass. docs/ruleset.md. */
static int nd_packet_rules(struct sw_model *m, struct rb *b)
{
	static const uint32_t zero;

	if (!sw_model_add_chain(m, ND_PACKET))
		return -ENOSPC;
	RULE(m, b, ND_PACKET, "packet-stack", "meta rtclassid >= 0 return", {
		e_meta(b, NFT_META_RTCLASSID, NFT_REG_1);
		e_cmp(b, NFT_REG_1, NFT_CMP_GTE, &zero, sizeof(zero));
		e_verdict(b, NFT_RETURN, NULL);
	});
	RULE(m, b, ND_PACKET, "packet-socket", "goto block_spoofed", {
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	return 0;
}

/* the base chains of one device: egress for a parent or a packet device
 * (an uplink or lo with [guard] users), ingress for a parent */
static int nd_dev_chains(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
			 const struct sw_link *l)
{
	const char *dev = l->name;
	bool parent = is_parent(cfg, l);

	for (int egress = 1; egress >= 0; egress--) {
		char name[SW_NAME_MAX];
		struct sw_chain *c;

		if (!egress && !parent)
			continue;
		snprintf(name, sizeof(name), "%s_%s", egress ? "egress" : "ingress", dev);
		/* chain egress_<dev> { type filter hook egress device "<dev>" priority -150; policy accept; } */
		if (!(c = sw_model_add_chain(m, name)))
			return -ENOSPC;
		c->base = true;
		c->hook = egress ? 1 /* NF_NETDEV_EGRESS */ : NF_NETDEV_INGRESS;
		c->prio = ND_PRIO;
		c->policy = NF_ACCEPT;
		snprintf(c->type, sizeof(c->type), "filter");
		snprintf(c->dev, sizeof(c->dev), "%s", dev);
		if (egress && is_packet_dev(cfg, l)) {
			/* meta skuid @guard_uids jump packet_guard: a guarded
			 * user's frame (its socket is of this namespace: a
			 * macvlan child's never matches) */
			RULE(m, b, name, "packet-users", "meta skuid @" SW_SET_UIDS " jump " ND_PACKET, {
				e_meta(b, NFT_META_SKUID, NFT_REG_1);
				e_lookup(b, NFT_REG_1, SW_SET_UIDS);
				e_verdict(b, NFT_JUMP, ND_PACKET);
			});
		}
		if (egress && parent) {
			/* jump parent_guard: every frame the device sends */
			RULE(m, b, name, "parent-egress", "jump " ND_GUARD, {
				e_verdict(b, NFT_JUMP, ND_GUARD);
			});
		} else if (!egress) {
			/* ether saddr @parent_macs jump parent_guard: an ipvlan
			 * child's frame to the host (l2 mode hands it to the
			 * parent's receive path with the shared address) */
			RULE(m, b, name, "parent-ingress", "ether saddr @parent_macs jump " ND_GUARD, {
				e_parent_mac(b);
				e_verdict(b, NFT_JUMP, ND_GUARD);
			});
		}
	}
	return 0;
}

size_t sw_ruleset_n_parents(const struct sw_config *cfg, const struct sw_host *host)
{
	size_t n = 0;

	for (size_t i = 0; host && i < host->n_links; i++)
		n += is_parent(cfg, &host->links[i]);
	return n;
}

int sw_ruleset_build_netdev(const struct sw_config *cfg, const struct sw_host *host,
			    const struct sw_model *inet, struct sw_model *m,
			    char *err, size_t errlen)
{
	struct rb rb = { .netdev = true };
	size_t n = sw_ruleset_n_parents(cfg, host);
	int rc = 0;

	sw_model_init(m, cfg->table);
	m->family = NFPROTO_NETDEV;
	m->has_table = true;
	/* (the uplinks and lo that [guard] users adds have one chain each; a
	 * model without room for them fails below with ENOSPC) */
	if (n > ND_MAX_PARENTS) {
		snprintf(err, errlen, "[guard] macvlan_parents names %zu devices on this host; "
			 "at most %d can be guarded", n, ND_MAX_PARENTS);
		sw_model_free(m);
		return -ENOSPC;
	}
	if (sw_ruleset_parents_on(cfg)) {
		for (size_t i = 0; i < sizeof(nd_copied) / sizeof(*nd_copied) && !rc; i++) {
			const struct sw_set *s = sw_model_find_set(inet, nd_copied[i]);

			rc = s ? copy_set(m, s) : -ENOENT;
		}
		/* every set category's <name>4 and <name>6 */
		for (int c = 0; c < SW_CAT_COUNT && !rc; c++)
			for (int v6 = 0; v6 < 2 && !rc && sw_categories[c].match == SW_CAT_MATCH_SET; v6++) {
				char name[SW_NAME_MAX];
				const struct sw_set *s;

				snprintf(name, sizeof(name), "%s%c", sw_categories[c].name, v6 ? '6' : '4');
				s = sw_model_find_set(inet, name);
				rc = s ? copy_set(m, s) : -ENOENT;
			}
		if (!rc)
			rc = parent_macs_set(m, cfg, host);
		if (!rc)
			rc = host_addr_sets(m, host);
		if (!rc)
			rc = nd_guard_rules(m, &rb, cfg);
	}
	if (cfg->n_users && !rc) {
		/* set guard_uids, a copy of table inet's; chain packet_guard */
		const struct sw_set *s = sw_model_find_set(inet, SW_SET_UIDS);

		rc = s ? copy_set(m, s) : -ENOENT;
		if (!rc)
			rc = nd_packet_rules(m, &rb);
		if (!rc && !sw_ruleset_parents_on(cfg))
			rc = nd_block_chain(m, &rb, sw_category_name(SW_CAT_SPOOFED));
	}
	for (size_t i = 0; host && i < host->n_links && !rc; i++)
		if (sw_ruleset_netdev_device(cfg, &host->links[i]))
			rc = nd_dev_chains(m, &rb, cfg, &host->links[i]);
	if (rc) {
		snprintf(err, errlen, "cannot build table netdev %s: %s", cfg->table, strerror(-rc));
		sw_model_free(m);
		return rc;
	}
	for (size_t i = 0; i < m->n_sets; i++)
		sw_set_sort(&m->sets[i]);
	return 0;
}
