// SPDX-License-Identifier: GPL-2.0-or-later
/* sort: a stable sort that is O(n) on sorted input (include/sort.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

/* How many leading elements are in order. */
static size_t sorted_prefix(const char *p, size_t n, size_t size, sw_cmp_fn cmp, void *arg)
{
	size_t i = 1;

	while (i < n && cmp(p + (i - 1) * size, p + i * size, arg) <= 0)
		i++;
	return n ? i : 0;
}

int sw_sorted(const void *base, size_t n, size_t size, sw_cmp_fn cmp, void *arg)
{
	return sorted_prefix(base, n, size, cmp, arg) == n;
}

void sw_sort(void *base, size_t n, size_t size, sw_cmp_fn cmp, void *arg)
{
	char *p = base, *tmp, *out;
	size_t k = sorted_prefix(p, n, size, cmp, arg), i, j;

	if (k == n)
		return;
	/* a sorted list with a few entries appended (the resolvers' port 53
	 * after the allowlist, say): sort the tail, then one merge */
	if (k < n / 2 || n > SIZE_MAX / size || !(tmp = malloc(n * size))) {
		qsort_r(base, n, size, cmp, arg);       /* stable: glibc's merge sort */
		return;
	}
	sw_sort(p + k * size, n - k, size, cmp, arg);
	for (i = 0, j = k, out = tmp; i < k || j < n; out += size) {
		/* ties from the left first: stable */
		const char *src = j >= n || (i < k && cmp(p + i * size, p + j * size, arg) <= 0) ?
					  p + i++ * size : p + j++ * size;

		memcpy(out, src, size);
	}
	memcpy(base, tmp, n * size);
	free(tmp);
}
