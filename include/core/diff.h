/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DIFF_H
#define SANDWALL_DIFF_H
/* diff: desired vs observed model. Drives `check` (print), the daemon
 * (repair) and the tests (assert). */
#include <stdbool.h>
#include <stdio.h>
#include "core/model.h"

enum sw_diff_kind { SW_DIFF_MISSING, SW_DIFF_EXTRA, SW_DIFF_CHANGED };

struct sw_diff_item {
	enum sw_diff_kind kind;
	const char *object;     /* "table", "chain", "set", "element", "counter", "rule" */
	char *desc;             /* e.g. "set metadata4 element 169.254.169.254" */
	const char *set;        /* for elements: the set's name (in the desired model) */
};

struct sw_diff {
	struct sw_diff_item *items;
	size_t n, cap;
};

/* Returns 0 (d->n == 0 means no drift) or -ENOMEM. */
int sw_diff(const struct sw_model *want, const struct sw_model *have, struct sw_diff *d);
void sw_diff_free(struct sw_diff *d);
const char *sw_diff_kind_name(enum sw_diff_kind k);   /* "missing", "extra", "changed" */
/* "missing set metadata4 element 169.254.169.254" lines. */
void sw_diff_print(const struct sw_diff *d, FILE *f);
struct sw_jw;
/* The same as a JSON array member key of w: [{"kind","object","what"}]. */
void sw_diff_json(const struct sw_diff *d, struct sw_jw *w, const char *key);
/* One short line for alerts: the item itself when there is one
 * ("missing table inet sandwall"), else "N missing, N extra, N changed;
 * first: ...". */
void sw_diff_summary(const struct sw_diff *d, char *buf, size_t len);

#endif
