// SPDX-License-Identifier: GPL-2.0-or-later
/* notify: sd_notify without libsystemd. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "lib/notify.h"

/* $NOTIFY_SOCKET as an address; 0, 1 when unset (a no-op), or -EINVAL. */
static int notify_addr(struct sockaddr_un *sa, socklen_t *len)
{
	const char *path = getenv("NOTIFY_SOCKET");

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!path || !*path)
		return 1;
	if ((path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa->sun_path))
		return -EINVAL;
	memcpy(sa->sun_path, path, strlen(path));
	if (sa->sun_path[0] == '@')
		sa->sun_path[0] = '\0';      /* abstract namespace */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	return 0;
}

int sw_notify_fd(const char *state, int fd)
{
	struct sockaddr_un sa;
	socklen_t len = 0;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)state, .iov_len = strlen(state) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int s, err = notify_addr(&sa, &len);

	if (err)
		return err > 0 ? 0 : err;
	msg.msg_name = &sa;
	msg.msg_namelen = len;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (sendmsg(s, &msg, MSG_NOSIGNAL) < 0)
		err = -errno;
	close(s);
	return err;
}

int sw_notify(const char *state)
{
	return sw_notify_fd(state, -1);
}

int sw_listen_fd(const char *name)
{
	const char *pid = getenv("LISTEN_PID"), *nfds = getenv("LISTEN_FDS");
	const char *names = getenv("LISTEN_FDNAMES");
	char *end;
	long n;

	if (!pid || !nfds || !names || strtol(pid, &end, 10) != getpid() || *end)
		return -ENOENT;
	n = strtol(nfds, &end, 10);
	if (*end || n <= 0 || n > 64)
		return -ENOENT;
	/* names: colon-separated, one per descriptor from fd 3 on */
	for (long i = 0; i < n && names; i++) {
		size_t l = strcspn(names, ":");

		if (l == strlen(name) && !strncmp(names, name, l)) {
			int fd = 3 + (int)i, fl = fcntl(fd, F_GETFD);

			if (fl < 0)
				return -ENOENT;
			fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
			return fd;
		}
		names = names[l] ? names + l + 1 : NULL;
	}
	return -ENOENT;
}

uint64_t sw_notify_watchdog_usec(void)
{
	const char *s = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	char *end;
	unsigned long long v;

	if (!s)
		return 0;
	if (pid && strtol(pid, NULL, 10) != getpid())
		return 0;
	v = strtoull(s, &end, 10);
	return *end ? 0 : v;
}
