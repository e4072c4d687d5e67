/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for cgwatch: the scan of a directory tree for [guard]
 * cgroups patterns (a plain tree under /tmp stands in for cgroupfs: the
 * scan only reads directories and their inode numbers). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sync/cgwatch.h"

static char root[64];
static const char *const dirs[] = { "a", "a/x", "a/y", "a/x/inner", "a/.hidden", "b", "c", "c/x" };

static int setup(void **state)
{
	char p[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/sw-cgw.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		if (mkdir(p, 0755))
			return -1;
	}
	/* a file whose name matches is no cgroup */
	snprintf(p, sizeof(p), "%s/a/zfile", root);
	fclose(fopen(p, "w"));
	return 0;
}

static int teardown(void **state)
{
	char p[128];

	(void)state;
	snprintf(p, sizeof(p), "%s/a/zfile", root);
	unlink(p);
	for (size_t i = sizeof(dirs) / sizeof(*dirs); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		rmdir(p);
	}
	rmdir(root);
	return 0;
}

static uint64_t ino(const char *rel)
{
	char p[128];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(stat(p, &st), 0);
	return (uint64_t)st.st_ino;
}

static void test_scan(void **state)
{
	static struct sw_config cfg;
	struct sw_cgroup cg[8];
	size_t n;

	(void)state;
	sw_config_defaults(&cfg);
	snprintf(cfg.cgroups[0], SW_CG_PATTERN_MAX, "a/*");
	snprintf(cfg.cgroups[1], SW_CG_PATTERN_MAX, "b");
	snprintf(cfg.cgroups[2], SW_CG_PATTERN_MAX, "?/x");
	cfg.n_cgroups = 3;
	assert_int_equal(sw_cg_scan(&cfg, root, cg, 8, &n), 0);
	/* b (level 1); a/x (twice matched, once listed), a/y, c/x (level 2);
	 * not a/.hidden (FNM_PERIOD), a/zfile (a file), a/x/inner (level 3) */
	assert_int_equal(n, 4);
	assert_int_equal(cg[0].level, 1);
	assert_string_equal(cg[0].path, "b");
	assert_int_equal(cg[0].id, ino("b"));
	assert_int_equal(cg[0].pattern, 1);
	for (size_t i = 1; i < 4; i++) {
		assert_int_equal(cg[i].level, 2);
		assert_true(cg[i].id > cg[i - 1].id || i == 1);
		assert_int_equal(cg[i].id, ino(cg[i].path));
		assert_true(!strcmp(cg[i].path, "a/x") || !strcmp(cg[i].path, "a/y") ||
			    !strcmp(cg[i].path, "c/x"));
		if (!strcmp(cg[i].path, "a/x"))
			assert_int_equal(cg[i].pattern, 0);
	}
	/* bounded: beyond max it fails (fail closed) */
	assert_int_equal(sw_cg_scan(&cfg, root, cg, 2, &n), -ENOSPC);
	/* no patterns: nothing, and nothing read */
	cfg.n_cgroups = 0;
	assert_int_equal(sw_cg_scan(&cfg, "/nonexistent", cg, 8, &n), 0);
	assert_int_equal(n, 0);
	/* a missing root is an error */
	cfg.n_cgroups = 1;
	assert_int_equal(sw_cg_scan(&cfg, "/nonexistent-sw", cg, 8, &n), -ENOENT);
}

static void test_root_env(void **state)
{
	char buf[256];

	(void)state;
	setenv(SW_CG_ROOT_ENV, "/some/where", 1);
	assert_int_equal(sw_cg_root(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/some/where");
	unsetenv(SW_CG_ROOT_ENV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_root_env),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
