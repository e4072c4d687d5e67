// SPDX-License-Identifier: GPL-2.0-or-later
/* verify's own throwaway links (daemon/vlinks.h): announced by a live
 * verify, left out of sandwalld's coverage check by name and ifindex
 * while that verify runs; a link of the same name that is not the one
 * announced (it existed before, it came after, its verify is gone, its
 * time is up) is reported as any other. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "daemon/report.h"
#include "daemon/request.h"
#include "daemon/state.h"
#include "daemon/vlinks.h"
#include "testutil.h"

/* the processes the fake /proc knows: pid -> start time (0: gone) */
static uint64_t fake_start[8];

static int fake_start_of(int64_t pid, uint64_t *start)
{
	if (pid <= 0 || pid >= 8 || !fake_start[pid])
		return -ESRCH;
	*start = fake_start[pid];
	return 0;
}

static void add_link(struct sw_host *h, int ifindex, const char *name, bool routed)
{
	struct sw_link *l;

	assert_int_equal(sw_host_room_links(h), 0);
	l = &h->links[h->n_links++];
	memset(l, 0, sizeof(*l));
	l->ifindex = ifindex;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->up = true;
	l->kind = SW_LINK_VETH;
	l->peer_netns = routed;
	l->netnsid = routed ? 3 : -1;
}

static void del_link(struct sw_host *h, int ifindex)
{
	for (size_t i = 0; i < h->n_links; i++)
		if (h->links[i].ifindex == ifindex) {
			memmove(&h->links[i], &h->links[i + 1], (h->n_links - i - 1) * sizeof(h->links[0]));
			h->n_links--;
			return;
		}
}

static const struct sw_link *link_of(const struct sw_host *h, int ifindex)
{
	const struct sw_link *l = sw_host_link(h, ifindex);

	assert_non_null(l);
	return l;
}

static void test_bound_while_alive(void **state)
{
	struct sw_vlinks v = { 0 };
	struct sw_host h = { 0 };
	int64_t t = 1000000;

	(void)state;
	fake_start[1] = 500;
	assert_int_equal(sw_vlinks_add(&v, &h, "swv1k", false, 1, 500, t), 0);
	/* the link comes: the first of the name seen is verify's */
	add_link(&h, 10, "swv1k", true);
	sw_vlinks_prune(&v, &h, t + 1000, fake_start_of);
	assert_true(sw_vlinks_own(&v, link_of(&h, 10)));
	assert_int_equal(sw_vlinks_due_us(&v, t + 1000), SW_VLINK_CHECK_US);
	/* 20 minutes on, verify still runs: still its */
	sw_vlinks_prune(&v, &h, t + 20 * 60 * 1000000LL, fake_start_of);
	assert_true(sw_vlinks_own(&v, link_of(&h, 10)));
	/* verify gone (its pid another process's now): reported again */
	fake_start[1] = 900;
	sw_vlinks_prune(&v, &h, t + 20 * 60 * 1000000LL + 1, fake_start_of);
	assert_false(sw_vlinks_own(&v, link_of(&h, 10)));
	assert_int_equal(v.n, 0);
	assert_int_equal(sw_vlinks_due_us(&v, t), -1);
	sw_host_free(&h);
}

static void test_bounded(void **state)
{
	struct sw_vlinks v = { 0 };
	struct sw_host h = { 0 };
	int64_t t = 5000000;

	(void)state;
	fake_start[2] = 7;
	assert_int_equal(sw_vlinks_add(&v, &h, "swv2k", false, 2, 7, t), 0);
	add_link(&h, 11, "swv2k", true);
	sw_vlinks_prune(&v, &h, t + SW_VLINK_MAX_US - 1, fake_start_of);
	assert_true(sw_vlinks_own(&v, link_of(&h, 11)));
	/* a verify alive for longer than the bound: its link counts again */
	sw_vlinks_prune(&v, &h, t + SW_VLINK_MAX_US, fake_start_of);
	assert_false(sw_vlinks_own(&v, link_of(&h, 11)));
	/* announced, never came: dropped after SW_VLINK_UNSEEN_US; the
	 * link of the name that comes later is not covered by it */
	assert_int_equal(sw_vlinks_add(&v, &h, "swv2h", false, 2, 7, t), 0);
	sw_vlinks_prune(&v, &h, t + SW_VLINK_UNSEEN_US, fake_start_of);
	assert_int_equal(v.n, 0);
	add_link(&h, 12, "swv2h", true);
	sw_vlinks_prune(&v, &h, t + SW_VLINK_UNSEEN_US + 1, fake_start_of);
	assert_false(sw_vlinks_own(&v, link_of(&h, 12)));
	sw_host_free(&h);
}

static void test_name_alone_is_not_enough(void **state)
{
	struct sw_vlinks v = { 0 };
	struct sw_host h = { 0 };
	int64_t t = 1;

	(void)state;
	fake_start[3] = 42;
	/* a link of that name exists (the kernel says so): refused */
	assert_int_equal(sw_vlinks_add(&v, &h, "swv3k", true, 3, 42, t), -EEXIST);
	assert_int_equal(v.n, 0);
	/* names the kernel would not take, no caller */
	assert_int_equal(sw_vlinks_add(&v, &h, "", false, 3, 42, t), -EINVAL);
	assert_int_equal(sw_vlinks_add(&v, &h, "a/b", false, 3, 42, t), -EINVAL);
	assert_int_equal(sw_vlinks_add(&v, &h, "0123456789abcdef", false, 3, 42, t), -EINVAL);
	assert_int_equal(sw_vlinks_add(&v, &h, "swv3k", false, 0, 42, t), -EINVAL);
	/* the daemon's view still holds an old swv3k the kernel deleted:
	 * that one is never verify's; the new one is */
	add_link(&h, 20, "swv3k", true);
	assert_int_equal(sw_vlinks_add(&v, &h, "swv3k", false, 3, 42, t), 0);
	sw_vlinks_prune(&v, &h, t + 1, fake_start_of);
	assert_false(sw_vlinks_own(&v, link_of(&h, 20)));
	del_link(&h, 20);
	add_link(&h, 21, "swv3k", true);
	sw_vlinks_prune(&v, &h, t + 2, fake_start_of);
	assert_true(sw_vlinks_own(&v, link_of(&h, 21)));
	/* another live verify cannot take the name; the same one renews it */
	fake_start[4] = 43;
	assert_int_equal(sw_vlinks_add(&v, &h, "swv3k", false, 4, 43, t + 3), -EBUSY);
	/* verify deleted it, a runtime's link of the same name comes while
	 * verify still runs: that one is reported */
	del_link(&h, 21);
	sw_vlinks_prune(&v, &h, t + 4, fake_start_of);
	assert_int_equal(v.n, 0);
	add_link(&h, 22, "swv3k", true);
	sw_vlinks_prune(&v, &h, t + 5, fake_start_of);
	assert_false(sw_vlinks_own(&v, link_of(&h, 22)));
	/* the same name and index as an entry's: only that pair */
	assert_int_equal(sw_vlinks_add(&v, &h, "swv3c", false, 3, 42, t + 6), 0);
	add_link(&h, 23, "swv3c", true);
	sw_vlinks_prune(&v, &h, t + 7, fake_start_of);
	{
		struct sw_link other = *link_of(&h, 23);

		other.ifindex = 24;
		assert_false(sw_vlinks_own(&v, &other));
	}
	/* room for SW_VLINKS_MAX */
	for (int i = (int)v.n; i < SW_VLINKS_MAX; i++) {
		char name[16];

		snprintf(name, sizeof(name), "swvx%d", i);
		assert_int_equal(sw_vlinks_add(&v, &h, name, false, 3, 42, t), 0);
	}
	assert_int_equal(sw_vlinks_add(&v, &h, "swvfull", false, 3, 42, t), -ENOSPC);
	sw_host_free(&h);
}

static void test_proc_start(void **state)
{
	uint64_t a = 0, b = 0;
	char *big;

	(void)state;

	assert_int_equal(sw_vlinks_proc_start(getpid(), &a), 0);
	/* the process grows (its vsize, the field after starttime, changes):
	 * its start time does not */
	assert_non_null(big = malloc(64 << 20));
	big[0] = 1;
	assert_int_equal(sw_vlinks_proc_start(getpid(), &b), 0);
	free(big);
	assert_true(a > 0 && a == b);
	/* a child started later: a later start (or the same tick) */
	{
		pid_t c = fork();
		uint64_t s = 0;

		if (c == 0) {
			pause();
			_exit(0);
		}
		assert_true(c > 0);
		assert_int_equal(sw_vlinks_proc_start(c, &s), 0);
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		assert_true(s >= a);
		assert_int_equal(sw_vlinks_proc_start(c, &s), -ESRCH);
	}
	assert_int_equal(sw_vlinks_proc_start(0, &a), -ESRCH);
	assert_int_equal(sw_vlinks_proc_start(0x7ffffff0, &a), -ESRCH);
}

/* ---- through the daemon: the request and the coverage's alert ---------- */

static struct sw_daemon d;      /* large: static */

static int dsetup(void **state)
{
	(void)state;
	memset(&d, 0, sizeof(d));
	sw_config_defaults(&d.cfg);
	d.cfg.auto_detect = false;      /* [guard] interfaces = docker0: routed veths unguarded */
	d.cfg.n_patterns = 1;
	snprintf(d.cfg.patterns[0], sizeof(d.cfg.patterns[0]), "docker0");
	sw_alert_init(&d.alert, 1000, "events");
	d.epfd = d.ctlfd = d.lockfd = d.spare_fd = -1;
	d.req_uid = 0;
	d.req_pid = getpid();
	return 0;
}

static int dteardown(void **state)
{
	(void)state;
	sw_host_free(&d.host);
	return 0;
}

/* the links as if they had been unguarded for longer than the grace */
static void past_grace(void)
{
	int64_t long_ago;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	long_ago = (int64_t)ts.tv_sec * 1000000 - 2 * SW_COV_GRACE_US;
	d.n_cov_pending = 0;
	for (size_t i = 0; i < d.host.n_links && d.n_cov_pending < SW_COV_MAX; i++) {
		snprintf(d.cov_pending[d.n_cov_pending], sizeof(d.cov_pending[0]), "%s", d.host.links[i].name);
		d.cov_pending_since[d.n_cov_pending++] = long_ago;
	}
}

static void test_request_and_coverage(void **state)
{
	struct sw_control_req req = { .verb = "verify-link", .target = "swv999k" };
	char rep[SW_CONTROL_REPMAX], *log;

	(void)state;
	assert_false(sw_request_mutates("verify-link"));
	/* a link that exists ("lo": in every namespace) is never taken */
	snprintf(req.target, sizeof(req.target), "lo");
	tu_cap_start();
	sw_request_run(&d, &req, rep, sizeof(rep));
	log = tu_cap_end();
	assert_string_equal(rep, "error\nmessage=a link of that name exists: it is reported as any other\n");
	assert_non_null(strstr(log, "event=verify-link ifname=lo pid="));
	free(log);
	/* a caller that cannot be told (its pid unknown) */
	snprintf(req.target, sizeof(req.target), "swv999k");
	d.req_pid = -1;
	sw_request_run(&d, &req, rep, sizeof(rep));
	assert_int_equal(strncmp(rep, "error\n", 6), 0);
	assert_int_equal(d.vlinks.n, 0);
	/* this process announces swv999k, then "creates" it; an unannounced
	 * swv998k (verify's pattern, nobody's announcement) comes too */
	d.req_pid = getpid();
	tu_cap_start();
	sw_request_run(&d, &req, rep, sizeof(rep));
	add_link(&d.host, 30, "swv999k", true);
	add_link(&d.host, 31, "swv998k", true);
	past_grace();
	sw_report_coverage(&d);
	log = tu_cap_end();
	assert_int_equal(strncmp(rep, "ok\n", 3), 0);
	assert_null(strstr(log, "ifname=swv999k kind"));
	assert_non_null(strstr(log, "event=unguarded ifname=swv998k kind=veth facing=\"routed veth\" "
				    "state=unguarded"));
	assert_int_equal(d.n_unguarded, 1);
	assert_string_equal(d.unguarded[0], "swv998k");
	free(log);
	/* the coverage looks again within SW_VLINK_CHECK_US (is the verify alive) */
	assert_true(sw_report_coverage_due_ms(&d) >= 0 &&
		    sw_report_coverage_due_ms(&d) <= SW_VLINK_CHECK_US / 1000);
	/* verify's link goes, one of the same name comes while verify runs:
	 * reported once the grace is over */
	del_link(&d.host, 30);
	sw_report_coverage(&d);
	assert_int_equal(d.vlinks.n, 0);
	add_link(&d.host, 32, "swv999k", true);
	past_grace();
	tu_cap_start();
	sw_report_coverage(&d);
	log = tu_cap_end();
	assert_non_null(strstr(log, "event=unguarded ifname=swv999k kind=veth"));
	assert_int_equal(d.n_unguarded, 2);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_while_alive),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_name_alone_is_not_enough),
		cmocka_unit_test(test_proc_start),
		cmocka_unit_test_setup_teardown(test_request_and_coverage, dsetup, dteardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
