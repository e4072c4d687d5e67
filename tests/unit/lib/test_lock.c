// SPDX-License-Identifier: GPL-2.0-or-later
/* test_lock: the instance locks, both kinds, held twice in one process (a
 * table name of our own pid, so that parallel runs do not meet). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "lib/lock.h"

static void test_table_lock(void **state)
{
	char table[32];
	pid_t pid;
	uid_t uid;
	int a, b;

	(void)state;
	snprintf(table, sizeof(table), "swunit%d", (int)getpid());
	a = sw_lock_table(table, &pid, &uid);
	assert_true(a >= 0);
	b = sw_lock_table(table, &pid, &uid);
	assert_int_equal(b, -EEXIST);
	assert_int_equal(pid, getpid());                /* named by SO_PEERCRED */
	assert_int_equal(uid, geteuid());
	/* another table is another lock */
	snprintf(table, sizeof(table), "swunit%dx", (int)getpid());
	b = sw_lock_table(table, &pid, &uid);
	assert_true(b >= 0);
	close(b);
	/* released with the descriptor (the kernel does it when a daemon dies) */
	close(a);
	snprintf(table, sizeof(table), "swunit%d", (int)getpid());
	a = sw_lock_table(table, &pid, &uid);
	assert_true(a >= 0);
	close(a);
	assert_int_equal(sw_lock_table("", &pid, &uid), -ENAMETOOLONG);
}

static void test_control_lock(void **state)
{
	char dir[] = "/tmp/swlockXXXXXX", path[64], lock[80];
	pid_t pid, child;
	int a, st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run/control", dir);
	a = sw_lock_control(path, &pid);
	assert_true(a >= 0);
	/* another process: refused, the holder's pid read from the file */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t p = 0;
		int rc = sw_lock_control(path, &p);

		_exit(rc == -EEXIST && p == getppid() ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(a);
	/* free again */
	a = sw_lock_control(path, &pid);
	assert_true(a >= 0);
	close(a);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	unlink(lock);
	snprintf(lock, sizeof(lock), "%s/run", dir);
	rmdir(lock);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_lock),
		cmocka_unit_test(test_control_lock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
