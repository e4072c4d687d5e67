/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for sort.c: the same order as qsort_r for sorted input, a
 * sorted list with a short tail (moved in one by one) and a long one
 * (merged), reversed and random lists, with ties; ties keep their order
 * where sort.h says so. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"

struct item {
	uint32_t key;
	uint32_t pos;           /* where it was before the sort */
	char pad[28];           /* an element the size of an [allow] entry */
};

static int calls;

static int by_key(const void *a, const void *b, void *arg)
{
	const struct item *x = a, *y = b;

	(void)arg;
	calls++;
	return (x->key > y->key) - (x->key < y->key);
}

enum shape { SORTED, TAIL, TAIL_LONG, REVERSED, RANDOM, N_SHAPES };

static void fill(struct item *v, size_t n, enum shape s, unsigned *seed, uint32_t range)
{
	for (size_t i = 0; i < n; i++) {
		*seed = *seed * 1103515245u + 12345u;
		switch (s) {
		case SORTED: v[i].key = (uint32_t)(i * range / (n ? n : 1)); break;
		case TAIL: v[i].key = i + 3 < n ? (uint32_t)(i * range / n) : (*seed >> 8) % range; break;
		case TAIL_LONG: v[i].key = i + n / 4 < n ? (uint32_t)(i * range / n) : (*seed >> 8) % range; break;
		case REVERSED: v[i].key = (uint32_t)((n - i) * range / n); break;
		default: v[i].key = (*seed >> 8) % range; break;
		}
		v[i].pos = (uint32_t)i;
		memset(v[i].pad, (int)i, sizeof(v[i].pad));
	}
}

static void test_same_as_qsort(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 7, 64, 1000, 10003 };
	unsigned seed = 7;

	(void)state;
	for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
		size_t n = sizes[si];

		for (int s = 0; s < N_SHAPES; s++) {
			for (uint32_t range = 2; range <= 1u << 20; range <<= 9) {
				struct item *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1, sizeof(*b));

				assert_non_null(a);
				assert_non_null(b);
				fill(a, n, (enum shape)s, &seed, range);
				memcpy(b, a, n * sizeof(*a));
				sw_sort(a, n, sizeof(*a), by_key, NULL);
				qsort_r(b, n, sizeof(*b), by_key, NULL);     /* glibc: stable */
				assert_int_equal(sw_sorted(a, n, sizeof(*a), by_key, NULL), 1);
				/* the same keys, each element whole (pad follows pos) */
				for (size_t i = 0; i < n; i++) {
					assert_int_equal(a[i].key, b[i].key);
					assert_int_equal((unsigned char)a[i].pad[5], (uint8_t)a[i].pos);
				}
				/* the O(n) shapes keep ties in their order */
				if (s == SORTED || s == TAIL || s == TAIL_LONG)
					for (size_t i = 1; i < n; i++)
						if (a[i - 1].key == a[i].key)
							assert_true(a[i - 1].pos < a[i].pos);
				free(a);
				free(b);
			}
		}
	}
}

/* Sorted input costs n - 1 comparisons, a short tail about n more. */
static void test_linear_when_sorted(void **state)
{
	enum { N = 10000 };
	struct item *v = calloc(N, sizeof(*v));
	unsigned seed = 1;

	(void)state;
	assert_non_null(v);
	fill(v, N, SORTED, &seed, 1u << 30);
	calls = 0;
	sw_sort(v, N, sizeof(*v), by_key, NULL);
	assert_int_equal(calls, N - 1);
	fill(v, N, TAIL, &seed, 1u << 30);
	calls = 0;
	sw_sort(v, N, sizeof(*v), by_key, NULL);
	assert_true(calls < 2 * N + 16);
	assert_int_equal(sw_sorted(v, N, sizeof(*v), by_key, NULL), 1);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_qsort),
		cmocka_unit_test(test_linear_when_sorted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
