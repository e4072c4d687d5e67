// SPDX-License-Identifier: GPL-2.0-or-later
/* logkind: every log prefix the ruleset writes is read back as its kind */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/logkind.h"

/* the word of a prefix as sandwalld's NFLOG reader cuts it: after
 * "sandwall:", up to ':' or ' ' */
static void word_of(const char *prefix, char *out, size_t len)
{
	const char *c = prefix + strlen(SW_LOG_PREFIX);

	assert_int_equal(strncmp(prefix, SW_LOG_PREFIX, strlen(SW_LOG_PREFIX)), 0);
	snprintf(out, len, "%.*s", (int)strcspn(c, ": "), c);
}

static void test_prefixes(void **state)
{
	char p[64];

	(void)state;
	assert_int_equal(sw_logkind_prefix(SW_LK_CATEGORY, "metadata", p, sizeof(p)), 0);
	assert_string_equal(p, "sandwall:metadata ");
	assert_int_equal(sw_logkind_prefix(SW_LK_CONNS, "agents", p, sizeof(p)), 0);
	assert_string_equal(p, "sandwall:connections:agents ");
	assert_int_equal(sw_logkind_prefix(SW_LK_BUDGET, "agents", p, sizeof(p)), 0);
	assert_string_equal(p, "sandwall:budget:agents ");
	assert_int_equal(sw_logkind_prefix(SW_LK_EGRESS, "a", p, sizeof(p)), 0);
	assert_string_equal(p, "sandwall:egress:a ");
	assert_int_equal(sw_logkind_prefix(SW_LK_QUARANTINE, "a", p, sizeof(p)), 0);
	assert_string_equal(p, "sandwall:quarantine:a ");
	assert_int_equal(sw_logkind_prefix(SW_LK_TRIPPED, "a", p, sizeof(p)), 0);
	assert_string_equal(p, "sandwall:tripped:a ");
	assert_int_equal(sw_logkind_prefix(SW_LK_DNS, NULL, p, sizeof(p)), 0);
	assert_string_equal(p, "sandwall:dns ");
	/* a per-sandbox kind or a category needs its name; too long is refused */
	assert_int_equal(sw_logkind_prefix(SW_LK_CONNS, NULL, p, sizeof(p)), -EINVAL);
	assert_int_equal(sw_logkind_prefix(SW_LK_CATEGORY, "", p, sizeof(p)), -EINVAL);
	assert_int_equal(sw_logkind_prefix(SW_LK_COUNT, "a", p, sizeof(p)), -EINVAL);
	assert_int_equal(sw_logkind_prefix(SW_LK_CONNS, "agents", p, 20), -ENAMETOOLONG);
}

/* what the ruleset writes, sandwalld reads as the same kind */
static void test_round_trip(void **state)
{
	char p[64], w[32];
	enum sw_category cat = SW_CAT_COUNT;

	(void)state;
	for (int k = 0; k < SW_LK_COUNT; k++) {
		if (k == SW_LK_CATEGORY)
			continue;
		assert_int_equal(sw_logkind_prefix((enum sw_logkind)k, "sbx", p, sizeof(p)), 0);
		word_of(p, w, sizeof(w));
		assert_int_equal(sw_logkind_of(w, NULL), k);
	}
	for (int c = 0; c < SW_CAT_COUNT; c++) {
		assert_int_equal(sw_logkind_prefix(SW_LK_CATEGORY, sw_category_name((enum sw_category)c), p,
						   sizeof(p)), 0);
		word_of(p, w, sizeof(w));
		assert_int_equal(sw_logkind_of(w, &cat), SW_LK_CATEGORY);
		assert_int_equal(cat, c);
	}
	assert_int_equal(sw_logkind_of("metadat", NULL), -ENOENT);
	assert_int_equal(sw_logkind_of("", NULL), -ENOENT);
	/* the events and the receipt's words of their own */
	assert_string_equal(sw_logkinds[SW_LK_CONNS].event, "max-connections");
	assert_string_equal(sw_logkinds[SW_LK_BUDGET].event, "budget");
	assert_null(sw_logkinds[SW_LK_CATEGORY].event);
	assert_string_equal(sw_logkinds[SW_LK_CONNS].why, "max_connections exceeded");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
