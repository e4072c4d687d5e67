/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_MODEL_H
#define SANDWALL_MODEL_H
/* model: one description of our nftables table, used for both sides of
 * the compare. The desired model is built from config + host state (pure,
 * see ruleset.h); the observed model is decoded from kernel dumps
 * (observe.h). Rules are kept as libnftnl objects plus a canonical string
 * of their expressions; sets keep their raw elements exactly as the
 * kernel stores them, plus (desired only) the nft text of each entry. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SW_NAME_MAX     64
#define SW_KEY_MAX      40      /* ipv6 . proto . port = 16 + 4 + 4 */
#define SW_MAX_CHAINS   128
#define SW_MAX_SETS     256
#define SW_MAX_OBJS     96
/* The table's user data (nft shows it as its comment): sandwall marks
 * every table it creates with it and changes no table without it
 * (reconcile.h). Same bytes as nft's `comment "sandwall/1"`. */
#define SW_TABLE_MARKER "sandwall/1"

struct nftnl_rule;

#ifndef NFT_TABLE_F_PERSIST
#define NFT_TABLE_F_PERSIST 0x4     /* Linux 6.9; older headers lack it */
#endif

/* nft datatype ids (nftables' enum datatypes), for the set key type. */
#define SW_TYPE_IPADDR        7
#define SW_TYPE_IP6ADDR       8
#define SW_TYPE_INET_PROTO    12
#define SW_TYPE_INET_SERVICE  13
#define SW_TYPE_IFNAME        41
#define SW_TYPE_UID           24      /* host byte order, 4 bytes */
#define SW_TYPE_CGROUPV2      46      /* host byte order, 8 bytes (a cgroup id) */
#define SW_TYPE_BITS          6   /* concat type = (t1 << 6) | t2 ... */

struct sw_elem {
	uint8_t key[SW_KEY_MAX];
	uint8_t key_end[SW_KEY_MAX];
	bool has_key_end;
	uint32_t flags;                 /* NFT_SET_ELEM_INTERVAL_END */
	uint64_t timeout_ms;            /* per-element timeout (sets with flags timeout), 0: none */
};

struct sw_set {
	char name[SW_NAME_MAX];
	uint32_t key_type;              /* nft datatype id (for nft's display) */
	uint32_t key_len;               /* bytes */
	uint32_t flags;                 /* NFT_SET_INTERVAL, NFT_SET_CONCAT, NFT_SET_EVAL|TIMEOUT */
	uint64_t timeout_ms;            /* default element timeout, 0: none */
	uint32_t size;                  /* maximum elements, 0: unbounded */
	uint8_t concat[4];              /* field lengths of a concatenation */
	uint8_t n_concat;
	const char *type_text;          /* "ipv4_addr . inet_proto . inet_service" */
	struct sw_elem *elems;
	size_t n_elems, cap_elems;
	char **text;                    /* desired only: nft text of each entry */
	size_t n_text, cap_text;
	bool text_concat;               /* desired only, instead of text: each element is
					 * an [allow] entry whose text sw_set_entry_text
					 * makes when asked (export): 10,000 entries cost
					 * no 10,000 strings on every build */
};

struct sw_chain {
	char name[SW_NAME_MAX];
	bool base;
	uint32_t hook;                  /* NF_INET_PRE_ROUTING */
	int32_t prio;
	uint32_t policy;                /* NF_ACCEPT / NF_DROP */
	char type[16];                  /* "filter" */
	char dev[16];                   /* netdev family: the hook's device (NFTA_HOOK_DEV), "" if none */
};

struct sw_rule {
	char chain[SW_NAME_MAX];
	char tag[SW_NAME_MAX];          /* our userdata comment, "" if none */
	char *canon;                    /* "[ meta load iifname => reg 1 ] [ ... ]" */
	char *text;                     /* desired only: nft text */
	uint64_t handle;                /* observed only */
	struct nftnl_rule *nl;          /* desired only: the object to send */
};

struct sw_model {
	uint32_t family;                /* NFPROTO_NETDEV for the netdev table; 0 means NFPROTO_INET */
	bool has_table;
	char table[SW_NAME_MAX];
	uint32_t table_flags;
	bool table_unmarked;            /* observed only: no SW_TABLE_MARKER comment */
	uint32_t table_use;             /* observed only: chains, sets, objects, flowtables */
	uint32_t genid;                 /* observed only */
	struct sw_chain chains[SW_MAX_CHAINS];
	size_t n_chains;
	struct sw_set sets[SW_MAX_SETS];
	size_t n_sets;
	char counters[SW_MAX_OBJS][SW_NAME_MAX];
	uint64_t counter_pkts[SW_MAX_OBJS], counter_bytes[SW_MAX_OBJS];
	size_t n_counters;
	struct sw_rule *rules;
	size_t n_rules, cap_rules;
};

void sw_model_init(struct sw_model *m, const char *table);
/* The model's table family: NFPROTO_INET unless set (the netdev table of
 * the macvlan/ipvlan parents, ruleset.h, is NFPROTO_NETDEV). */
static inline uint32_t sw_model_family(const struct sw_model *m)
{
	return m->family ? m->family : 1 /* NFPROTO_INET */;
}
void sw_model_free(struct sw_model *m);
/* to = from's table: chains, sets and their elements, counters, rules
 * (their canonical strings; no desired-only texts or libnftnl objects).
 * On -ENOMEM to holds part of it: sw_model_free it. */
int sw_model_copy(struct sw_model *to, const struct sw_model *from);

struct sw_chain *sw_model_add_chain(struct sw_model *m, const char *name);
struct sw_set *sw_model_add_set(struct sw_model *m, const char *name);
int sw_model_add_counter(struct sw_model *m, const char *name);
/* Takes ownership of nl (may be NULL), copies canon/text. */
int sw_model_add_rule(struct sw_model *m, const char *chain, const char *tag,
		      const char *canon, const char *text, struct nftnl_rule *nl);

struct sw_set *sw_model_find_set(const struct sw_model *m, const char *name);
/* A set the packet path fills (flags dynamic): its elements are state,
 * never compared, dumped or refilled. */
static inline bool sw_set_dynamic(const struct sw_set *s)
{
	return s->flags & 0x20 /* NFT_SET_EVAL */;
}
/* The comment in a rule's user data (a TLV list any process that can add
 * a rule shapes: every length checked), or NULL. */
const char *sw_udata_comment(const uint8_t *ud, size_t len);
struct sw_chain *sw_model_find_chain(const struct sw_model *m, const char *name);

/* "The same" for diff.c (what differs) and encode.c (what to rewrite):
 * one definition each. A chain's identity is what cannot change in place
 * (base or not, hook, priority, type, device); its policy can, and is
 * compared apart. A set's shape is its key, flags, timeout and size. */
bool sw_chain_same_hook(const struct sw_chain *a, const struct sw_chain *b);
bool sw_set_same_shape(const struct sw_set *a, const struct sw_set *b);
bool sw_elem_same(const struct sw_elem *a, const struct sw_elem *b, size_t key_len);
bool sw_rule_same(const struct sw_rule *a, const struct sw_rule *b);
int sw_model_find_counter(const struct sw_model *m, const char *name);

/* Room for n elements in all (no copy per doubling while 10,000 entries
 * go in): 0 or -ENOMEM. */
int sw_set_reserve(struct sw_set *s, size_t n);
int sw_set_add_elem(struct sw_set *s, const struct sw_elem *e);
int sw_set_add_text(struct sw_set *s, const char *text);
/* to's elements become a copy of from's (to's entry texts are dropped). */
int sw_set_copy_elems(struct sw_set *to, const struct sw_set *from);
/* Sort elements in key order (for compare and for stable output): key,
 * an interval's END before a start with the same key, then key_end. */
void sw_set_sort(struct sw_set *s);
void sw_elems_sort(struct sw_elem *v, size_t n, size_t key_len);
/* That order as a comparison (<0, 0, >0), for walks over sorted sets. */
int sw_elem_order(const struct sw_elem *x, const struct sw_elem *y, size_t key_len);
/* How many entries export lists, and entry i's nft text: s->text[i], or
 * made from element i of a text_concat set ("10.0.0.0/8 . tcp . 443"). */
size_t sw_set_n_entries(const struct sw_set *s);
int sw_set_entry_text(const struct sw_set *s, size_t i, char *buf, size_t len);
/* Human text of one raw element of set s ("10.0.0.0", "\"br-\"", ...). */
int sw_elem_format(const struct sw_set *s, const struct sw_elem *e, char *buf, size_t len);

/* Canonical string of a rule's expressions, as libnftnl prints them,
 * "[ expr ] [ expr ]". Returns a malloc'd string or NULL (-ENOMEM). */
char *sw_rule_canon(const struct nftnl_rule *r);
/* Our tag from the rule's userdata comment ("" if none). */
void sw_rule_tag(const struct nftnl_rule *r, char *tag, size_t len);

#endif
