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
#include "control.h"

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
	char req[SW_CONTROL_REQMAX];
	struct stat st;
	pid_t pid = client(t->path, "status", "ok\npid=");
	int cfd;

	/* root only: the directory 0700 and the socket 0600 */
	assert_int_equal(stat(t->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	do
		cfd = sw_control_accept(t->lfd, req, sizeof(req));
	while (cfd == -EAGAIN);
	assert_true(cfd >= 0);
	assert_string_equal(req, "status");
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
	char req[SW_CONTROL_REQMAX], big[SW_CONTROL_REQMAX * 2];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), cfd;

	/* a raw client that ignores the limit: the server drops it */
	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.90s", t->path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	memset(big, 'y', sizeof(big));
	assert_int_equal(send(fd, big, sizeof(big), 0), (ssize_t)sizeof(big));
	do
		cfd = sw_control_accept(t->lfd, req, sizeof(req));
	while (cfd == -EAGAIN);
	assert_int_equal(cfd, -EMSGSIZE);
	close(fd);
}

static void test_silent_client_dropped(void **state)
{
	struct t *t = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[SW_CONTROL_REQMAX];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), cfd;

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.90s", t->path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	do
		cfd = sw_control_accept(t->lfd, req, sizeof(req));
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
	char req[SW_CONTROL_REQMAX], sub[160];
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
		cfd = sw_control_accept(t->lfd, req, sizeof(req));
	while (cfd == -EAGAIN);
	assert_int_equal(cfd, -EPERM);          /* refused by its credentials */
	assert_int_equal(wait_exit(pid), 0);
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
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
