/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_OBSERVE_H
#define SANDWALL_OBSERVE_H
/* observe: kernel -> observed model. GETGEN, dump our table (table,
 * counters, sets and their elements, chains, rules), GETGEN again; the
 * dump is replayed when the generation moved in between. */
#include "core/model.h"
#include "kernel/nl.h"

/* Fills m (initialised here). A missing table is not an error:
 * m->has_table is false. Returns 0 or -errno. */
int sw_observe(struct sw_nl *nl, const char *table, struct sw_model *m);
/* The same for the table of another family (NFPROTO_NETDEV: the parents'
 * table, ruleset.h). */
int sw_observe_family(struct sw_nl *nl, uint32_t family, const char *table, struct sw_model *m);

/* The generation, the table (flags) and its named counters, without sets
 * and rules (status, receipt, metrics). */
int sw_observe_counters(struct sw_nl *nl, const char *table, struct sw_model *m);
/* Only the table: is it there, and its flags (owner, persist, dormant). */
int sw_observe_table(struct sw_nl *nl, const char *table, bool *present, uint32_t *flags);

/* Decoders for single messages (also used by tests without a kernel). */
int sw_decode_table(const struct nlmsghdr *nlh, struct sw_model *m);
int sw_decode_chain(const struct nlmsghdr *nlh, struct sw_model *m);
int sw_decode_set(const struct nlmsghdr *nlh, struct sw_model *m);
int sw_decode_elems(const struct nlmsghdr *nlh, struct sw_model *m);
/* The same through libnftnl objects only: what sw_decode_elems falls back
 * to for elements other than key [, key end] [, flags] (tests compare the
 * two). */
int sw_decode_elems_nftnl(const struct nlmsghdr *nlh, struct sw_model *m);
int sw_decode_obj(const struct nlmsghdr *nlh, struct sw_model *m);
int sw_decode_rule(const struct nlmsghdr *nlh, struct sw_model *m);

#endif
