// SPDX-License-Identifier: GPL-2.0-or-later
/* test_notify: sd_notify with a descriptor (the fd store) and sd_listen_fds
 * by name, against a socket of the test's own (no systemd). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <cmocka.h>

#include "lib/notify.h"

/* FDSTORE=1 with SCM_RIGHTS: the receiver gets the same open file. */
static void test_notify_fd(void **state)
{
	char dir[] = "/tmp/swnotifyXXXXXX", path[64], buf[128];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr a; } u;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			      .msg_controllen = sizeof(u.b) };
	struct stat a, b;
	struct cmsghdr *c;
	int srv, fd, got;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	srv = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(srv >= 0);
	assert_int_equal(bind(srv, (struct sockaddr *)&sa, sizeof(sa)), 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);

	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(sw_notify_fd("FDSTORE=1\nFDNAME=x", fd), 0);    /* no-op */
	setenv("NOTIFY_SOCKET", "relative", 1);
	assert_int_equal(sw_notify_fd("FDSTORE=1", fd), -EINVAL);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(sw_notify_fd("FDSTORE=1\nFDNAME=nft-owner", fd), 0);
	n = recvmsg(srv, &msg, MSG_DONTWAIT);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "FDSTORE=1\nFDNAME=nft-owner");
	c = CMSG_FIRSTHDR(&msg);
	assert_non_null(c);
	got = -1;
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&got, CMSG_DATA(c), sizeof(int));
	assert_true(got >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(fstat(got, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	/* plain sd_notify: no descriptor */
	assert_int_equal(sw_notify("READY=1"), 0);
	msg.msg_controllen = sizeof(u.b);
	n = recvmsg(srv, &msg, MSG_DONTWAIT);
	assert_int_equal(n, 7);
	assert_int_equal(msg.msg_controllen, 0);
	unsetenv("NOTIFY_SOCKET");
	close(got);
	close(fd);
	close(srv);
	unlink(path);
	rmdir(dir);
}

/* LISTEN_FDS/LISTEN_FDNAMES by name, only for our pid. */
static void test_listen_fd(void **state)
{
	char pid[16];
	int a, b;

	(void)state;
	/* fds 3 and 4 as a service manager passes them */
	a = open("/dev/null", O_RDONLY);
	b = open("/dev/null", O_RDONLY);
	assert_true(a >= 0 && b >= 0);
	assert_int_equal(dup2(a, 3), 3);
	assert_int_equal(dup2(b, 4), 4);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	unsetenv("LISTEN_PID");
	assert_int_equal(sw_listen_fd("nft-owner"), -ENOENT);
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "2", 1);
	setenv("LISTEN_FDNAMES", "other:nft-owner", 1);
	assert_int_equal(sw_listen_fd("nft-owner"), 4);
	assert_true(fcntl(4, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(sw_listen_fd("other"), 3);
	assert_int_equal(sw_listen_fd("nft"), -ENOENT);         /* whole names only */
	assert_int_equal(sw_listen_fd("missing"), -ENOENT);
	setenv("LISTEN_FDNAMES", "nft-owner", 1);               /* fewer names than fds */
	assert_int_equal(sw_listen_fd("nft-owner"), 3);
	setenv("LISTEN_FDS", "1x", 1);
	assert_int_equal(sw_listen_fd("nft-owner"), -ENOENT);
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_PID", "1", 1);                            /* another process's */
	assert_int_equal(sw_listen_fd("nft-owner"), -ENOENT);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	close(3);
	close(4);
	if (a != 3 && a != 4)
		close(a);
	if (b != 3 && b != 4)
		close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notify_fd),
		cmocka_unit_test(test_listen_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
