// SPDX-License-Identifier: GPL-2.0-or-later
/* rawcap: guarded processes holding CAP_NET_RAW, over a fake /proc tree. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "core/config_check.h"
#include "host/rawcap.h"

static char root[64];
static struct sw_config cfg;
static char err[SW_ERRLEN];

#define CAPS_DOCKER "00000000a80425fb"   /* docker's default set: CAP_NET_RAW (bit 13) in it */
#define CAPS_NORAW  "00000000a80405fb"   /* the same, --cap-drop NET_RAW */

static void put(const char *pid, const char *file, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/proc/%s", root, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/%s/%s", root, pid, file);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

static void ns(const char *pid, const char *net, const char *user)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/proc/%s/ns", root, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/%s/ns/net", root, pid);
	assert_int_equal(symlink(net, p), 0);
	snprintf(p, sizeof(p), "%s/proc/%s/ns/user", root, pid);
	assert_int_equal(symlink(user, p), 0);
}

static void proc(const char *pid, const char *name, unsigned uid, const char *caps, const char *cg)
{
	char st[512], c[512];

	snprintf(st, sizeof(st), "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t%s\n"
		 "Uid:\t%u\t%u\t%u\t%u\nGid:\t0\t0\t0\t0\nCapInh:\t0000000000000000\n"
		 "CapPrm:\t%s\nCapEff:\t%s\nCapBnd:\t%s\n", name, pid, uid, uid, uid, uid, caps, caps, caps);
	put(pid, "status", st);
	snprintf(c, sizeof(c), "12:pids:/%s\n0::/%s\n", cg, cg);
	put(pid, "cgroup", c);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/sw-rawcap.XXXXXX");
	assert_non_null(mkdtemp(root));
	char p[128];

	snprintf(p, sizeof(p), "%s/proc", root);
	mkdir(p, 0755);
	proc("1", "systemd", 0, "000001ffffffffff", "init.scope");
	proc("200", "curl", 0, CAPS_DOCKER, "system.slice/docker-abc.scope");
	proc("201", "sh", 0, CAPS_NORAW, "system.slice/docker-def.scope");
	proc("202", "python3", 0, CAPS_DOCKER, "system.slice/docker-abc.scope/inner");
	proc("300", "pasta", 40001, "0000000000000000", "user.slice/user-40001.slice");
	proc("301", "ping", 40001, "0000000000002000", "user.slice/user-40001.slice");
	proc("400", "sshd", 0, "000001ffffffffff", "system.slice/ssh.service");
	put("self", "status", "Name:\tnot-a-pid\n");
	ns("self", "net:[1]", "user:[1]");
	ns("200", "net:[1]", "user:[1]");
	/* a bridged container in the same cgroup pattern (its own netns), and
	 * one in a user namespace of its own: neither counts */
	proc("203", "nginx", 0, CAPS_DOCKER, "system.slice/docker-abc.scope");
	ns("203", "net:[2]", "user:[1]");
	proc("204", "rootless", 0, CAPS_DOCKER, "system.slice/docker-abc.scope");
	ns("204", "net:[1]", "user:[9]");
	put("999", "status", "Name:\tno cgroup file\nCapEff:\t0000000000002000\nUid:\t40001\t40001\t40001\t40001\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void conf(const char *text)
{
	if (sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("config: %s", err);
}

static void test_match(void **state)
{
	(void)state;
	assert_true(sw_rawcap_cgroup_match("system.slice/docker-*.scope", "system.slice/docker-1.scope"));
	assert_true(sw_rawcap_cgroup_match("system.slice/docker-*.scope", "system.slice/docker-1.scope/x"));
	assert_false(sw_rawcap_cgroup_match("system.slice/docker-*.scope", "system.slice"));
	assert_false(sw_rawcap_cgroup_match("system.slice/docker-*.scope", "system.slice/ssh.service"));
	assert_false(sw_rawcap_cgroup_match("system.slice/*", "system.slice/.hidden"));
	assert_false(sw_rawcap_cgroup_match("a/b", "ab"));
}

static void test_scan(void **state)
{
	struct sw_rawcap_report r;

	(void)state;
	/* nothing guarded: nothing read */
	conf("");
	assert_int_equal(sw_rawcap_scan(&cfg, root, &r), 0);
	assert_int_equal(r.n, 0);
	/* a cgroup pattern: 200 and 202 (below it) hold the cap, 201 dropped it */
	conf("[guard]\ncgroups = system.slice/docker-*.scope\n");
	assert_int_equal(sw_rawcap_scan(&cfg, root, &r), 0);
	assert_int_equal(r.scanned, 3);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.n_listed, 2);
	assert_int_equal(r.procs[0].pid, 200);
	assert_string_equal(r.procs[0].comm, "curl");
	assert_string_equal(r.procs[0].cgroup, "system.slice/docker-abc.scope");
	assert_false(r.procs[0].by_user);
	assert_int_equal(r.procs[1].pid, 202);
	/* a user: 301 (ping with file caps) holds it, 300 not; 999 has no cgroup file */
	conf("[guard]\nusers = 40001\n");
	assert_int_equal(sw_rawcap_scan(&cfg, root, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.procs[0].pid, 301);
	assert_int_equal(r.procs[0].uid, 40001);
	assert_true(r.procs[0].by_user);
	/* both */
	conf("[guard]\nusers = 40001\ncgroups = system.slice/docker-*.scope\n");
	assert_int_equal(sw_rawcap_scan(&cfg, root, &r), 0);
	assert_int_equal(r.n, 3);
	/* no such tree */
	assert_int_equal(sw_rawcap_scan(&cfg, "/nonexistent-sw", &r), -ENOENT);
}

static void test_many(void **state)
{
	struct sw_rawcap_report r;
	char pid[16];

	(void)state;
	for (int i = 0; i < SW_RAWCAP_MAX + 4; i++) {
		snprintf(pid, sizeof(pid), "%d", 1000 + i);
		proc(pid, "worker", 0, CAPS_DOCKER, "system.slice/docker-many.scope");
	}
	conf("[guard]\ncgroups = system.slice/docker-many.scope\n");
	assert_int_equal(sw_rawcap_scan(&cfg, root, &r), 0);
	assert_int_equal(r.n, SW_RAWCAP_MAX + 4);
	assert_int_equal(r.n_listed, SW_RAWCAP_MAX);
	for (size_t i = 1; i < r.n_listed; i++)
		assert_true(r.procs[i - 1].pid < r.procs[i].pid);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		sw_rawcap_print(&r, "  ", f);
		fclose(f);
		assert_non_null(strstr(buf, "  pid 1000 (worker) uid 0 guarded cgroup system.slice/docker-many.scope: holds CAP_NET_RAW\n"));
		assert_non_null(strstr(buf, "... and 4 more"));
		assert_non_null(strstr(buf, "--cap-drop NET_RAW"));
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
