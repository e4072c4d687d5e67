/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_GROW_H
#define SANDWALL_GROW_H
/* grow: arrays that follow what they hold (a host's links, a config's
 * destinations): a pointer, a count and a capacity, doubled when full,
 * with a hard upper limit where one is a safety bound. */
#include <stddef.h>

/* Room for one more element in the array *pp points to (n in use, *cap
 * allocated, size bytes each), doubling its capacity: 0, -ENOSPC when n
 * has reached max (the limit: nothing changes), or -ENOMEM. */
int sw_grow(void *pp, size_t *cap, size_t n, size_t size, size_t max);
#define SW_GROW(arr, cap, n, max) sw_grow(&(arr), &(cap), (n), sizeof(*(arr)), (max))

/* Room for need elements in all (the same, for a copy of a whole array). */
int sw_grow_to(void *pp, size_t *cap, size_t need, size_t size);
#define SW_GROW_TO(arr, cap, need) sw_grow_to(&(arr), &(cap), (need), sizeof(*(arr)))

#endif
