/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_TESTUTIL_H
#define SANDWALL_TESTUTIL_H
/* testutil: small helpers shared by the cmocka unit tests. Include after
 * <cmocka.h>. */
#include <stdio.h>
#include <stdlib.h>

/* The config corpus: $SW_TEST_DIR, else tests/unit/config (run from the
 * repository root). */
static inline const char *tu_corpus_dir(void)
{
	const char *d = getenv("SW_TEST_DIR");

	return d && *d ? d : "tests/unit/config";
}

/* Path join into a caller buffer; fails the test on truncation. */
#define tu_path(buf, ...) \
	assert_true((size_t)snprintf(buf, sizeof(buf), __VA_ARGS__) < sizeof(buf))

#endif
