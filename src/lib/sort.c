// SPDX-License-Identifier: GPL-2.0-or-later
/* sort: a stable sort that is O(n) on sorted input (include/lib/sort.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"

#define SORT_INSERT_MAX 16      /* appended elements moved in one by one */
#define SORT_ELEM_MAX   256     /* ... when an element fits on the stack */

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
	/* a handful appended (the resolvers' port 53 after the allowlist):
	 * each moved into place, no second buffer to fault in */
	if (n - k <= SORT_INSERT_MAX && size <= SORT_ELEM_MAX && k >= n / 2) {
		for (i = k; i < n; i++) {
			char e[SORT_ELEM_MAX];
			size_t lo = 0, hi = i;

			/* after every element not greater: ties keep their order */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (cmp(p + mid * size, p + i * size, arg) <= 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo == i)
				continue;
			memcpy(e, p + i * size, size);
			memmove(p + (lo + 1) * size, p + lo * size, (i - lo) * size);
			memcpy(p + lo * size, e, size);
		}
		return;
	}
	/* a sorted list with more appended: sort the tail, then one merge */
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
