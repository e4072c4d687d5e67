/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_LOGKIND_H
#define SANDWALL_LOGKIND_H
/* logkind: what each of sandwall's NFLOG lines is. The ruleset logs with
 * the prefix "sandwall:<word>[:<sandbox>] " (sw_logkind_prefix) and
 * sandwalld reads the word back (sw_logkind_of): both from the one table
 * here, so a line is told apart by its kind, never by comparing the word
 * at each reader. Pure, no kernel. */
#include <stdbool.h>
#include <stddef.h>
#include "core/category.h"

enum sw_logkind {
	SW_LK_CATEGORY,         /* a category's block chain: "<category>" (metadata, host, ...) */
	SW_LK_EGRESS,           /* a sandbox's egress policy: "egress:<sandbox>" */
	SW_LK_QUARANTINE,       /* a quarantined source: "quarantine:<sandbox>" */
	SW_LK_CONNS,            /* over max_connections: "connections:<sandbox>" */
	SW_LK_BUDGET,           /* over its budget: "budget:<sandbox>" */
	SW_LK_TRIPPED,          /* a quarantine tripped (sbx_<sandbox>_trip): "tripped:<sandbox>" */
	SW_LK_DNS,              /* a DNS reply for the network log's names: "dns" */
	SW_LK_COUNT
};

struct sw_logkind_info {
	const char *word;       /* the prefix's first word (NULL: a category's name) */
	bool per_sandbox;       /* ":<sandbox>" follows */
	const char *event;      /* sandwalld's event= for it (NULL: none of its own) */
	const char *why;        /* a quarantine it trips, in the receipt's words (NULL: its name) */
};
extern const struct sw_logkind_info sw_logkinds[SW_LK_COUNT];

#define SW_LOG_PREFIX "sandwall:"

/* "sandwall:<word>[:<what>] " into buf: what is the category's name for
 * SW_LK_CATEGORY, the sandbox's for the per-sandbox kinds, unused else.
 * 0, -EINVAL (no name where one is needed), -ENAMETOOLONG. */
int sw_logkind_prefix(enum sw_logkind k, const char *what, char *buf, size_t len);
/* The kind of a prefix's first word ("connections", "metadata"), the
 * category in *cat for SW_LK_CATEGORY (cat may be NULL); -ENOENT for a
 * word that is none of them. */
int sw_logkind_of(const char *word, enum sw_category *cat);

#endif
