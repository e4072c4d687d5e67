/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_IVALS_H
#define SANDWALL_IVALS_H
/* ivals: intervals of keys (addresses, interface names) for the interval
 * sets the ruleset builds: merged, subtracted and written into a set the
 * way nft writes them. Private to the ruleset's parts (rs_internal.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/addr.h"
#include "core/model.h"

struct ival {
	uint8_t lo[16], hi[16];
};

/* A growing list of intervals of klen-byte keys (no fixed limit). */
struct ivals {
	struct ival *v;
	size_t n, cap;
	size_t klen;
};

int ivals_add_prefix(struct ivals *iv, const struct sw_prefix *p);
/* One name or pattern ("br-*": every name that starts with "br-") as an
 * interval of ifname keys (iv->klen: the ifname length, 16). */
int ivals_add_ifname(struct ivals *iv, const char *name);
/* append [lo, hi] */
int ivals_push(struct ivals *out, const uint8_t *lo, const uint8_t *hi);
/* Sort and merge overlapping intervals (adjacent ones too when asked). */
void ivals_merge(struct ivals *iv, bool adjacent);
/* out += x minus y (both merged and sorted) */
int ivals_subtract(struct ivals *out, const struct ivals *x, const struct ivals *y);
/* Merge iv, then fill the interval set s the way nft does for a
 * non-concatenated interval set; with family (AF_INET, AF_INET6), also
 * each range's nft text. 0 or -errno. */
int ivals_fill_set(struct sw_set *s, struct ivals *iv, int family, bool merge_adjacent);

#endif
