/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_SORT_H
#define SANDWALL_SORT_H
/* sort: qsort_r for sandwall's lists (config entries, set elements,
 * intervals), O(n) when they are already in order (configs are often
 * written in order, and elements built from sorted entries come out in
 * key order); when m entries follow a sorted list (the resolvers' port 53
 * after the allowlist), each moved into place for m <= 16, else the tail
 * sorted and merged, O(n + m log m); else qsort_r. Ties keep their order
 * in these cases; callers must not depend on it. */
#include <stddef.h>

typedef int (*sw_cmp_fn)(const void *a, const void *b, void *arg);

/* Without memory for the merge, qsort_r in place. */
void sw_sort(void *base, size_t n, size_t size, sw_cmp_fn cmp, void *arg);
/* Is base[0..n) in order (no element greater than the next)? */
int sw_sorted(const void *base, size_t n, size_t size, sw_cmp_fn cmp, void *arg);

#endif
