/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for category.c: the fixed lists of link_local and private,
 * parsed, and none for the categories without one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/category.h"

static void assert_list(enum sw_category c, const char *const *want, size_t n)
{
	struct sw_prefix p[SW_CAT_MAX_FIXED];
	char buf[SW_ADDR_STRLEN];

	assert_int_equal(sw_category_fixed(c, p, SW_CAT_MAX_FIXED), n);
	assert_int_equal(sw_categories[c].n_fixed, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sw_prefix_format(&p[i], buf, sizeof(buf)), 0);
		assert_string_equal(buf, want[i]);
	}
}

static void test_fixed_lists(void **state)
{
	static const char *const ll[] = { "169.254.0.0/16", "fe80::/10" };
	static const char *const priv[] = {
		"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7",
	};
	struct sw_prefix p[SW_CAT_MAX_FIXED];

	(void)state;
	assert_list(SW_CAT_LINK_LOCAL, ll, 2);
	assert_list(SW_CAT_PRIVATE, priv, 5);
	for (int c = 0; c < SW_CAT_COUNT; c++)
		if (c != SW_CAT_LINK_LOCAL && c != SW_CAT_PRIVATE) {
			assert_int_equal(sw_category_fixed((enum sw_category)c, p, SW_CAT_MAX_FIXED), 0);
			assert_null(sw_categories[c].fixed);
		}
	/* at most max, and nothing for a category out of range */
	assert_int_equal(sw_category_fixed(SW_CAT_PRIVATE, p, 2), 2);
	assert_int_equal(sw_category_fixed(SW_CAT_COUNT, p, SW_CAT_MAX_FIXED), 0);
	assert_string_equal(sw_category_name(SW_CAT_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
