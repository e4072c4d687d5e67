/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_FAKE_NFT_H
#define SANDWALL_FAKE_NFT_H
/* fake_nft: a stateful nf_tables "kernel" behind struct sw_nl_ops.
 *
 * It keeps tables (name, flags, owner portid, user data), counters (with
 * counts a test can bump), sets and their elements, chains (hook,
 * priority, policy) and rules (ordered per chain, with handles, stored as
 * the NEWRULE message that was sent so that libnftnl rebuilds the same
 * expressions and user data for the dump). A batch is applied to a copy
 * of the state and committed only if every message succeeded (all or
 * nothing); every message is answered with an NLMSG_ERROR (0 or -errno:
 * ENOENT, EEXIST with NLM_F_EXCL, EPERM for a table owned by another
 * portid, EOPNOTSUPP for flag changes the kernel refuses); a BATCH_BEGIN
 * with a stale generation gets ERESTART. Each commit bumps the
 * generation. Dumps (GETGEN, GETTABLE, GETOBJ, GETSET, GETSETELEM,
 * GETCHAIN, GETRULE, filtered by table and set) are answered from the
 * state, built with libnftnl; ctnetlink dumps and deletes work on a list
 * of conntrack entries (fn_ct_add).
 *
 * Faults: fail message N of the next batch, drop the answers to the Nth
 * request, ENOBUFS on the Nth recv, and a hook called before each request
 * and after each commit (where a test plays "another process" with the
 * fn_t_* helpers, each of which bumps the generation like a commit).
 *
 * A commit that removes every table holding blocks (a non-dormant table
 * with a base chain and a rule) that was there before it -- deleted, even
 * if re-added in the same batch -- counts as a gap (k->gaps): the
 * takeover through <table>_handover must never have one.
 *
 * Defined in fake_nft.c, compiled once into build/libswtest.a (the tests
 * include fake_kernel.h too for tk_build). */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include <libnftnl/chain.h>
#include <libnftnl/set.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>

#include "core/model.h"
#include "kernel/nl.h"
#include "nft_canon.h"

#ifndef NFT_TABLE_F_OWNER
#define NFT_TABLE_F_OWNER 0x2
#endif

#define FN_NAME     64
#define FN_TABLES   8
#define FN_CHAINS   96
#define FN_SETS     160
#define FN_OBJS     96
#define FN_ELEMS    4096
#define FN_RULES    640
#define FN_RULE_MAX 1536        /* one NEWRULE message as sent */
#define FN_UD       256
#define FN_DGRAM    (48 * 1024)
#define FN_MSG_MAX  (16 * 1024)
#define FN_LOG      1024        /* messages of the last batch recorded */
#define FN_PORTID   4242        /* sw_nl_open_ops' portid */

struct fn_table {
	char name[FN_NAME];
	uint32_t flags;
	uint32_t owner;                 /* portid when NFT_TABLE_F_OWNER */
	uint8_t ud[FN_UD];
	uint32_t udlen;
	bool has_ud;
	uint64_t handle;
};

struct fn_chain {
	char table[FN_NAME], name[FN_NAME];
	bool base;
	uint32_t hook, policy;
	int32_t prio;
	char type[16];
	uint64_t handle;
};

struct fn_set {
	char table[FN_NAME], name[FN_NAME];
	uint32_t key_type, key_len, flags;
	uint8_t concat[8];
	uint32_t n_concat;
	uint32_t sid;                   /* unique: the elements refer to it */
};

struct fn_elem {
	uint32_t sid;
	uint8_t key[SW_KEY_MAX], key_end[SW_KEY_MAX];
	uint32_t klen;
	bool has_end;
	uint32_t flags;
};

struct fn_obj {
	char table[FN_NAME], name[FN_NAME];
	uint64_t pkts, bytes;
};

struct fn_rule {
	char table[FN_NAME], chain[FN_NAME];
	uint64_t handle;
	uint32_t len;
	uint8_t msg[FN_RULE_MAX];
};

struct fn_state {
	struct fn_table tables[FN_TABLES];
	size_t n_tables;
	struct fn_chain chains[FN_CHAINS];
	size_t n_chains;
	struct fn_set sets[FN_SETS];
	size_t n_sets;
	struct fn_elem elems[FN_ELEMS];
	size_t n_elems;
	struct fn_obj objs[FN_OBJS];
	size_t n_objs;
	struct fn_rule rules[FN_RULES];  /* in order; a chain's rules in this order */
	size_t n_rules;
	uint64_t next_handle;
	uint32_t next_sid;
};

/* One message of the last batch: its type and the object it names. */
struct fn_logged {
	uint16_t type;                  /* NFT_MSG_* */
	uint16_t flags;
	char table[FN_NAME];
	char name[FN_NAME];             /* chain, set (also for elements and rule's chain), object */
};

enum fn_when { FN_BEFORE, FN_COMMIT };

/* A conntrack entry (ctnetlink): addresses of both directions. */
#define FN_CT 16
struct fn_ct {
	uint8_t family;                 /* AF_INET, AF_INET6 */
	uint8_t osrc[16], odst[16];     /* CTA_TUPLE_ORIG */
	uint8_t rsrc[16], rdst[16];     /* CTA_TUPLE_REPLY */
};

struct fn {
	struct fn_state *s;
	uint32_t genid;
	uint32_t portid;                /* who is sending (FN_PORTID) */
	/* answers waiting for recv() */
	uint8_t **q;
	size_t *qlen;
	size_t qhead, qtail, qcap;
	/* what was seen */
	size_t n_sends, n_recvs, n_batches, n_commits, n_getgens, n_ct_dumps;
	size_t n_gets[NFT_MSG_MAX];
	size_t gaps;
	struct fn_logged log[FN_LOG];   /* the last batch (committed or not) */
	size_t n_log;
	int last_batch_err;             /* first error of the last batch, 0 */
	/* conntrack */
	struct fn_ct ct[FN_CT];
	size_t n_ct, n_ct_deleted;
	/* faults */
	int fail_index;                 /* next batch: this inner message fails (-1 off) */
	int fail_err;
	size_t drop_send;               /* no answer at all to send number N (1-based, 0 off) */
	size_t enobufs_recv;            /* recv number N returns -ENOBUFS (0 off) */
	uint32_t no_table_flags;        /* a new table with any of these: -EOPNOTSUPP (an older kernel) */
	void (*hook)(struct fn *k, enum fn_when when, uint16_t type, void *arg);
	void *hook_arg;
};

/* ---- setup ----------------------------------------------------------------- */

void fn_init(struct fn *k);

void fn_free(struct fn *k);

/* ---- lookups --------------------------------------------------------------- */

struct fn_table *fn_table(struct fn_state *s, const char *name);

struct fn_chain *fn_chain(struct fn_state *s, const char *t, const char *name);

struct fn_set *fn_set(struct fn_state *s, const char *t, const char *name);

struct fn_obj *fn_obj(struct fn_state *s, const char *t, const char *name);

/* The same, for objects that must be there: a missing one fails the test. */
struct fn_table *fn_tab(struct fn_state *s, const char *name);

struct fn_set *fn_st(struct fn_state *s, const char *t, const char *name);

struct fn_obj *fn_ob(struct fn_state *s, const char *t, const char *name);

/* Remove element i of an array of n (keeps the order). */
#define FN_DEL(arr, n, i) \
	do { memmove(&(arr)[i], &(arr)[(i) + 1], ((n) - (i) - 1) * sizeof((arr)[0])); (n)--; } while (0)

size_t fn_n_rules(struct fn_state *s, const char *t, const char *chain);

size_t fn_n_elems(struct fn_state *s, const struct fn_set *set);

void fn_flush_rules(struct fn_state *s, const char *t, const char *chain);

void fn_flush_elems(struct fn_state *s, uint32_t sid);

void fn_drop_chain(struct fn_state *s, struct fn_chain *c);

void fn_drop_set(struct fn_state *s, struct fn_set *set);

void fn_drop_table(struct fn_state *s, struct fn_table *t);

/* chains + sets + objects: the kernel's NFTA_TABLE_USE */
uint32_t fn_table_use(struct fn_state *s, const char *t);

/* Does table t hold blocks: awake, a base chain, a rule? */
bool fn_guarded(struct fn_state *s, const struct fn_table *t);

/* ---- attributes of a message ----------------------------------------------- */

const struct nlattr *fn_attr(const struct nlmsghdr *nlh, uint16_t type);

const char *fn_attr_str(const struct nlmsghdr *nlh, uint16_t type);

/* ---- answers ---------------------------------------------------------------- */

size_t fn_dgram(struct fn *k);

/* Room for one message at the end of the current answer datagram. */
void *fn_room(struct fn *k, bool fresh);

void fn_sent(struct fn *k, struct nlmsghdr *nlh);

/* NLMSG_ERROR (capped: the request header echoed) for the request */
void fn_err(struct fn *k, const struct nlmsghdr *req, uint32_t seq, int error);

void fn_done(struct fn *k, uint32_t seq);

struct nlmsghdr *fn_reply_hdr(struct fn *k, uint16_t type, uint32_t seq, bool multi);

void fn_reply_table(struct fn *k, const struct fn_table *t, uint32_t seq, bool multi);

void fn_reply_chain(struct fn *k, const struct fn_chain *c, uint32_t seq);

struct nftnl_set *fn_nset(const struct fn_set *s);

void fn_reply_set(struct fn *k, const struct fn_set *s, uint32_t seq);

/* the set's elements, 64 a message */
void fn_reply_elems(struct fn *k, const struct fn_set *s, uint32_t seq);

void fn_reply_obj(struct fn *k, const struct fn_obj *o, uint32_t seq);

/* the rule as it was stored (canonical), with its handle, as NEWRULE */
void fn_reply_rule(struct fn *k, const struct fn_rule *r, uint32_t seq);

void fn_answer_get(struct fn *k, const struct nlmsghdr *req);

void fn_answer_gen(struct fn *k, const struct nlmsghdr *req);

/* ---- ctnetlink ------------------------------------------------------------------- */

void fn_ct_tuple(struct nlmsghdr *nlh, uint16_t type, uint8_t family,
		 const uint8_t *src, const uint8_t *dst);

/* conntrack -L: every entry as IPCTNL_MSG_CT_NEW */
void fn_ct_dump(struct fn *k, const struct nlmsghdr *req);

/* conntrack -D by the original tuple: 0 or ENOENT */
int fn_ct_delete(struct fn *k, const struct nlmsghdr *req);

/* A flow from osrc to odst (replies from rsrc to rdst), addresses as text. */
void fn_ct_add(struct fn *k, const char *osrc, const char *odst,
	       const char *rsrc, const char *rdst);

/* ---- batches ----------------------------------------------------------------- */

/* May portid change table t? */
int fn_may(const struct fn *k, const struct fn_table *t);

int fn_newtable(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh);

/* the table a message names (attribute 1), checked for ownership */
int fn_table_of(struct fn *k, struct fn_state *s, const char *name,
		struct fn_table **t);

int fn_newchain(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh);

int fn_newset(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh);

bool fn_elem_eq(const struct fn_elem *a, const struct fn_elem *b);

/* NEWSETELEM (add) or DELSETELEM (delete; none listed: flush) */
int fn_setelem(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh, bool add);

int fn_newobj(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh);

/* Append (NLM_F_APPEND) or insert at the front a rule stored as the message itself. */
int fn_put_rule(struct fn_state *s, const char *table, const char *chain,
		const struct nlmsghdr *nlh, bool append);

int fn_newrule(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh);

int fn_del(struct fn *k, struct fn_state *s, uint16_t type, const struct nlmsghdr *nlh);

/* What the message names, for the log. */
void fn_note(struct fn *k, const struct nlmsghdr *nlh, uint16_t type);

int fn_apply(struct fn *k, struct fn_state *s, const struct nlmsghdr *nlh, uint16_t type);

/* The gap check: a commit must leave untouched at least one of the
 * tables that held blocks before it. */
void fn_check_gap(struct fn *k, struct fn_state *before, struct fn_state *after);

void fn_batch(struct fn *k, const uint8_t *buf, size_t len);

ssize_t fn_send(void *ctx, const void *buf, size_t len);

ssize_t fn_recv(void *ctx, void *buf, size_t len, int timeout_ms);

extern const struct sw_nl_ops fn_ops;

/* ---- the last batch ------------------------------------------------------------ */

/* Messages of this type in the last batch (naming `name`, NULL: any). */
size_t fn_count(const struct fn *k, uint16_t type, const char *name);

/* ---- another process (each bumps the generation, like a commit) -------------- */

struct fn_table *fn_t_table(struct fn *k, const char *name);

void fn_t_del_table(struct fn *k, const char *t);

/* A table made by another tool: no marker (unless marked), these flags. */
void fn_t_add_table(struct fn *k, const char *name, uint32_t flags, bool marked);

void fn_t_flags(struct fn *k, const char *t, uint32_t flags);

/* Lose the marker (an older sandwall's table, or restored without it). */
void fn_t_unmark(struct fn *k, const char *t);

void fn_t_flush_chain(struct fn *k, const char *t, const char *chain);

/* delete rule: the idx-th rule of the chain */
void fn_t_del_rule(struct fn *k, const char *t, const char *chain, size_t idx);

/* add rule inet T C counter (no comment): another tool's rule */
void fn_t_add_rogue_rule(struct fn *k, const char *t, const char *chain);

/* delete element: the idx-th element of the set */
void fn_t_del_elem(struct fn *k, const char *t, const char *set, size_t idx);

void fn_t_del_chain(struct fn *k, const char *t, const char *chain);

void fn_t_del_set(struct fn *k, const char *t, const char *set);

void fn_t_del_obj(struct fn *k, const char *t, const char *name);

/* add chain inet T <name> (a regular chain) */
void fn_t_add_chain(struct fn *k, const char *t, const char *name);

/* add set inet T <name> { type ipv4_addr; } */
void fn_t_add_set(struct fn *k, const char *t, const char *name);

/* add counter inet T <name> */
void fn_t_add_obj(struct fn *k, const char *t, const char *name);

/* Packets counted by the kernel (no generation change: not a commit). */
void fn_bump_counter(struct fn *k, const char *t, const char *name,
		     uint64_t pkts, uint64_t bytes);

/* The socket of portid closed: its owned tables go, unless persistent
 * (then they lose their owner: orphans). */
void fn_close_portid(struct fn *k, uint32_t portid);

#endif
