// SPDX-License-Identifier: GPL-2.0-or-later
/* ivals: address and interface-name intervals, merged and subtracted, and
 * written into an interval set the way nft does (include/core/ivals.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>

#include "core/ivals.h"
#include "lib/sort.h"

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

int ivals_add_prefix(struct ivals *iv, const struct sw_prefix *p)
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
void ivals_merge(struct ivals *iv, bool adjacent)
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
int ivals_fill_set(struct sw_set *s, struct ivals *iv, int family,
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

/* k - 1; false when k was 0 */
static bool key_dec(uint8_t *k, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (k[i]--)
			return true;
	return false;
}

/* append [lo, hi] to out */
int ivals_push(struct ivals *out, const uint8_t *lo, const uint8_t *hi)
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
int ivals_subtract(struct ivals *out, const struct ivals *x, const struct ivals *y)
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

/* One name or pattern ("br-*": every name that starts with "br-") as an
 * interval of ifname keys. */
int ivals_add_ifname(struct ivals *iv, const char *name)
{
	size_t len = strnlen(name, iv->klen - 1);
	int err;

	if ((err = ivals_grow(iv)))
		return err;
	memset(&iv->v[iv->n], 0, sizeof(iv->v[0]));
	if (len && name[len - 1] == '*') {
		memcpy(iv->v[iv->n].lo, name, len - 1);
		memcpy(iv->v[iv->n].hi, name, len - 1);
		memset(iv->v[iv->n].hi + len - 1, 0xff, iv->klen - (len - 1));
	} else {
		memcpy(iv->v[iv->n].lo, name, len);
		memcpy(iv->v[iv->n].hi, name, len);
	}
	iv->n++;
	return 0;
}
