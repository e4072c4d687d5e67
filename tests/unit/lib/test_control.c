// SPDX-License-Identifier: GPL-2.0-or-later
/* test_control: the daemon's control socket, both ends, over a real UNIX
 * socket in a temporary directory (no network, no kernel tables). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <sched.h>
#include "lib/control.h"

struct t {
	char dir[64];
	char path[96];
	int lfd;
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	snprintf(t->dir, sizeof(t->dir), "/tmp/swctlXXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/run/control", t->dir);
	t->lfd = sw_control_listen(t->path);
	assert_true(t->lfd >= 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;
	char sub[160];

	close(t->lfd);
	unlink(t->path);
	snprintf(sub, sizeof(sub), "%s/run", t->dir);
	rmdir(sub);
	rmdir(t->dir);
	free(t);
	return 0;
}

/* A client in a child process; its exit code says what it got. */
static pid_t client(const char *path, const char *req, const char *want_prefix)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char reply[SW_CONTROL_REPMAX];
		int rc = sw_control_call(path, req, reply, sizeof(reply));

		if (rc)
			_exit(rc == -ECONNRESET ? 3 : 2);
		_exit(strncmp(reply, want_prefix, strlen(want_prefix)) ? 1 : 0);
	}
	return pid;
}

static int wait_exit(pid_t pid)
{
	int st = 0;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_round_trip(void **state)
{
	struct t *t = *state;
	struct sw_control_req req;
	struct stat st;
	pid_t pid = client(t->path, "status", "ok\npid=");
	int cfd;

	/* root only: the directory 0700 and the socket 0600 */
	assert_int_equal(stat(t->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	do
		cfd = sw_control_accept(t->lfd, &req);
	while (cfd == -EAGAIN);
	assert_true(cfd >= 0);
	assert_string_equal(req.verb, "status");
	/* the client says until when it waits */
	assert_true(req.deadline_ms > sw_control_now_ms());
	assert_true(req.deadline_ms <= sw_control_now_ms() + SW_CONTROL_ANSWER_MS);
	assert_int_equal(sw_control_live(cfd, &req, sw_control_now_ms()), 0);
	assert_int_equal(sw_control_reply(cfd, "ok\npid=42\n"), 0);
	assert_int_equal(wait_exit(pid), 0);
}

static void test_oversized_request_refused(void **state)
{
	struct t *t = *state;
	char big[200], reply[64];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* the client refuses to send it at all */
	assert_int_equal(sw_control_call(t->path, big, reply, sizeof(reply)), -EINVAL);
}

static void test_oversized_datagram_dropped(void **state)
{
	struct t *t = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sw_control_req req;
	char big[SW_CONTROL_REQMAX * 2];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), cfd;

	/* a raw client that ignores the limit: the server drops it */
	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.90s", t->path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	memset(big, 'y', sizeof(big));
	assert_int_equal(send(fd, big, sizeof(big), 0), (ssize_t)sizeof(big));
	do
		cfd = sw_control_accept(t->lfd, &req);
	while (cfd == -EAGAIN);
	assert_int_equal(cfd, -EMSGSIZE);
	close(fd);
}

static void test_silent_client_dropped(void **state)
{
	struct t *t = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sw_control_req req;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), cfd;

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.90s", t->path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	do
		cfd = sw_control_accept(t->lfd, &req);
	while (cfd == -EAGAIN);
	assert_int_equal(cfd, -ETIMEDOUT);
	close(fd);
}

static void test_no_daemon(void **state)
{
	char reply[64];

	(void)state;
	assert_int_equal(sw_control_call("/tmp/sw-no-such-dir/control", "status", reply,
					 sizeof(reply)), -ENOENT);
}

static void test_non_root_refused(void **state)
{
	struct t *t = *state;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	/* the directory lets nobody else in: connect fails before a byte */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char reply[64];

		if (setgid(65534) || setuid(65534))
			_exit(9);
		_exit(sw_control_call(t->path, "remove", reply, sizeof(reply)) == -EACCES ? 0 : 1);
	}
	assert_int_equal(wait_exit(pid), 0);
}

/* A daemon of another network namespace answering on the same path must
 * not take this namespace's commands (tests and hosts with several). */
static void test_other_netns_refused(void **state)
{
	struct t *t = *state;
	pid_t pid;

	if (geteuid() != 0)
		skip();         /* unshare needs CAP_SYS_ADMIN; CI runs as root */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char reply[64];

		if (unshare(CLONE_NEWNET))
			_exit(9);
		_exit(sw_control_call(t->path, "remove", reply, sizeof(reply)) == -EXDEV ? 0 : 1);
	}
	assert_int_equal(wait_exit(pid), 0);
}

/* With the directory and socket open to all, a non-root client gets in as
 * far as the socket: the daemon must refuse it by its credentials. */
static void test_server_refuses_non_root(void **state)
{
	struct t *t = *state;
	struct sw_control_req req;
	char sub[160];
	pid_t pid;
	int cfd;

	if (geteuid() != 0)
		skip();
	snprintf(sub, sizeof(sub), "%s/run", t->dir);
	assert_int_equal(chmod(t->dir, 0755), 0);
	assert_int_equal(chmod(sub, 0755), 0);
	assert_int_equal(chmod(t->path, 0666), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (setgid(65534) || setuid(65534) || fd < 0)
			_exit(9);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", t->path);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			_exit(8);
		/* the daemon may have refused and closed already: no matter */
		(void)!send(fd, "remove", 6, MSG_NOSIGNAL);
		sleep(1);
		_exit(0);
	}
	do
		cfd = sw_control_accept(t->lfd, &req);
	while (cfd == -EAGAIN);
	assert_int_equal(cfd, -EPERM);          /* refused by its credentials */
	assert_int_equal(wait_exit(pid), 0);
}


static void test_parse(void **state)
{
	struct sw_control_req r;

	(void)state;
	assert_int_equal(sw_control_parse("status", &r), 0);
	assert_string_equal(r.verb, "status");
	assert_int_equal(r.deadline_ms, 0);      /* an older client: no deadline */
	assert_int_equal(sw_control_parse("remove\ndeadline=1733000000123\n", &r), 0);
	assert_string_equal(r.verb, "remove");
	assert_int_equal(r.deadline_ms, 1733000000123LL);
	/* a newer client's keys are ignored, a bad deadline is not */
	assert_int_equal(sw_control_parse("reload\nfuture=1\ndeadline=5\n", &r), 0);
	assert_int_equal(r.deadline_ms, 5);
	assert_int_equal(sw_control_parse("remove\ndeadline=12x\n", &r), -EINVAL);
	assert_int_equal(sw_control_parse("remove\ndeadline=-1\n", &r), -EINVAL);
	assert_int_equal(sw_control_parse("remove\ndeadline=0\n", &r), -EINVAL);
	assert_int_equal(sw_control_parse("remove\ndeadline=99999999999999999999999\n", &r),
			 -EINVAL);
	assert_int_equal(sw_control_parse("", &r), -EINVAL);
	assert_int_equal(sw_control_parse("\ndeadline=5", &r), -EINVAL);
}

/* A raw client: connect, send text, keep the fd. */
static int raw_client(const char *path, const char *text)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.90s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, text, strlen(text), 0), (ssize_t)strlen(text));
	return fd;
}

/* The daemon's check before it executes: the deadline (less the margin)
 * and the hang-up, each alone. */
static void test_live_deadline_and_hangup(void **state)
{
	struct t *t = *state;
	struct sw_control_req req;
	char text[64];
	int64_t now = sw_control_now_ms();
	int fd, cfd;

	snprintf(text, sizeof(text), "remove\ndeadline=%lld\n", (long long)(now + 1000));
	fd = raw_client(t->path, text);
	cfd = sw_control_accept(t->lfd, &req);
	assert_true(cfd >= 0);
	assert_int_equal(sw_control_live(cfd, &req, now), 0);
	/* a daemon that resumes past the deadline, client still waiting */
	assert_int_equal(sw_control_live(cfd, &req, now + 1001), -ETIME);
	/* within the margin: too late to answer in time, so not run */
	assert_int_equal(sw_control_live(cfd, &req, now + 1000 - SW_CONTROL_MARGIN_MS + 1), -ETIME);
	/* the client gives up: hung up, whatever the clock says */
	close(fd);
	assert_int_equal(sw_control_live(cfd, &req, now), -ECONNRESET);
	close(cfd);

	/* queued while the daemon was stopped and abandoned before accept:
	 * the request is still readable, the hang-up tells */
	fd = raw_client(t->path, "remove");
	close(fd);
	cfd = sw_control_accept(t->lfd, &req);
	assert_true(cfd >= 0);
	assert_string_equal(req.verb, "remove");
	assert_int_equal(req.deadline_ms, 0);
	assert_int_equal(sw_control_live(cfd, &req, sw_control_now_ms()), -ECONNRESET);
	close(cfd);
}

/* A daemon that never answers (stopped): the client gives up at its
 * deadline with -ETIMEDOUT, and its request then expires unexecuted. */
static void test_call_times_out(void **state)
{
	struct t *t = *state;
	struct sw_control_req req;
	char reply[64];
	int64_t t0 = sw_control_now_ms();
	int cfd;

	assert_int_equal(sw_control_call_ms(t->path, "remove", reply, sizeof(reply), 300, 1000),
			 -ETIMEDOUT);
	assert_true(sw_control_now_ms() - t0 >= 290);
	assert_true(sw_control_now_ms() - t0 < 2000);
	cfd = sw_control_accept(t->lfd, &req);
	assert_true(cfd >= 0);
	assert_string_equal(req.verb, "remove");
	assert_int_not_equal(sw_control_live(cfd, &req, sw_control_now_ms()), 0);
	close(cfd);
}

/* accepted, then done: the client waits past the answer deadline for the
 * work; accepted and never done: -EINPROGRESS, not "nothing was done". */
static void test_call_accepted(void **state)
{
	struct t *t = *state;
	pid_t pid = fork();
	struct sw_control_req req;
	int cfd;

	assert_true(pid >= 0);
	if (pid == 0) {
		char reply[64];
		int a = sw_control_call_ms(t->path, "reload", reply, sizeof(reply), 500, 3000);

		if (a || strcmp(reply, "ok\n"))
			_exit(1);
		_exit(sw_control_call_ms(t->path, "reload", reply, sizeof(reply), 500, 300) ==
		      -EINPROGRESS ? 0 : 2);
	}
	do
		cfd = sw_control_accept(t->lfd, &req);
	while (cfd == -EAGAIN);
	assert_true(cfd >= 0);
	assert_int_equal(sw_control_live(cfd, &req, sw_control_now_ms()), 0);
	assert_int_equal(sw_control_accepted(cfd, &req), 0);
	usleep(800 * 1000);             /* longer than the answer deadline */
	assert_int_equal(sw_control_reply(cfd, "ok\n"), 0);
	do
		cfd = sw_control_accept(t->lfd, &req);
	while (cfd == -EAGAIN);
	assert_true(cfd >= 0);
	assert_int_equal(sw_control_accepted(cfd, &req), 0);
	assert_int_equal(wait_exit(pid), 0);
	close(cfd);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_round_trip),
		T(test_oversized_request_refused),
		T(test_oversized_datagram_dropped),
		T(test_silent_client_dropped),
		T(test_no_daemon),
		T(test_non_root_refused),
		T(test_other_netns_refused),
		T(test_server_refuses_non_root),
		T(test_parse),
		T(test_live_deadline_and_hangup),
		T(test_call_times_out),
		T(test_call_accepted),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
