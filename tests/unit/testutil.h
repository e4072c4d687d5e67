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

/* ---- what the log says meanwhile: stderr into a file, read back -------- */
#include <unistd.h>

static int tu_cap_saved = -1;
static char tu_cap_path[64];

static inline void tu_cap_start(void)
{
	int fd;

	snprintf(tu_cap_path, sizeof(tu_cap_path), "/tmp/sw-test-cap-XXXXXX");
	fd = mkstemp(tu_cap_path);
	assert_true(fd >= 0);
	fflush(stderr);
	tu_cap_saved = dup(2);
	assert_true(tu_cap_saved >= 0);
	assert_true(dup2(fd, 2) == 2);
	close(fd);
}

/* What stderr got since tu_cap_start (the caller frees it). */
static inline char *tu_cap_end(void)
{
	char *buf = calloc(1, 1 << 16);
	FILE *f;

	fflush(stderr);
	assert_true(dup2(tu_cap_saved, 2) == 2);
	close(tu_cap_saved);
	assert_non_null(buf);
	assert_non_null(f = fopen(tu_cap_path, "r"));
	assert_true(fread(buf, 1, (1 << 16) - 1, f) < (1 << 16) - 1);
	fclose(f);
	unlink(tu_cap_path);
	return buf;
}

/* ---- the desired model (include core/model.h first) ------------------- */
#ifdef SANDWALL_MODEL_H
#include <string.h>

/* The set, or the test fails. */
static inline const struct sw_set *tu_set(const struct sw_model *m, const char *name)
{
	const struct sw_set *s = sw_model_find_set(m, name);

	if (!s)
		fail_msg("no set %s", name);
	return s;
}

/* The rule with this tag ("sandwall:..."), or NULL. */
static inline const struct sw_rule *tu_rule(const struct sw_model *m, const char *tag)
{
	for (size_t i = 0; i < m->n_rules; i++)
		if (!strcmp(m->rules[i].tag, tag))
			return &m->rules[i];
	return NULL;
}

/* The tags of chain's rules in order (at most max in tags): how many. */
static inline size_t tu_chain_rules(const struct sw_model *m, const char *chain,
				    const char **tags, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_rules; i++)
		if (!strcmp(m->rules[i].chain, chain)) {
			if (n < max)
				tags[n] = m->rules[i].tag;
			n++;
		}
	return n;
}
#endif

#endif
