// SPDX-License-Identifier: GPL-2.0-or-later
/* lock: one daemon per table and per control socket (see include/lib/lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "lib/lock.h"

static int table_addr(const char *table, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = strlen(SW_LOCK_PREFIX) + strlen(table);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!*table || n + 1 > sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	/* sun_path[0] = '\0': the abstract namespace, no terminating NUL */
	memcpy(sa->sun_path + 1, SW_LOCK_PREFIX, strlen(SW_LOCK_PREFIX));
	memcpy(sa->sun_path + 1 + strlen(SW_LOCK_PREFIX), table, strlen(table));
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	return 0;
}

/* The pid and user of the process listening on sa (0 and -1: unknown). */
static void holder_of(const struct sockaddr_un *sa, socklen_t len, pid_t *pid, uid_t *uid)
{
	struct ucred cred = { 0 };
	socklen_t clen = sizeof(cred);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	*pid = 0;
	*uid = (uid_t)-1;
	if (fd < 0)
		return;
	if (connect(fd, (const struct sockaddr *)sa, len) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0) {
		*pid = cred.pid;
		*uid = cred.uid;
	}
	close(fd);
}

int sw_lock_table(const char *table, pid_t *holder, uid_t *uid)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd, err;

	*holder = 0;
	*uid = (uid_t)-1;
	if ((err = table_addr(table, &sa, &len)))
		return err;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) < 0) {
		err = errno == EADDRINUSE ? -EEXIST : -errno;
		close(fd);
		if (err == -EEXIST)
			holder_of(&sa, len, holder, uid);
		return err;
	}
	if (listen(fd, 4) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* The pid written in an open lock file (0: none readable). */
static pid_t pid_in(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long v;
	char *end;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, &end, 10);
	return v > 0 && (*end == '\n' || !*end) ? (pid_t)v : 0;
}

int sw_lock_control(const char *control_path, pid_t *holder)
{
	char path[4096], dir[4096], *slash, buf[24];
	int fd, err, n;

	*holder = 0;
	if (snprintf(path, sizeof(path), "%s.lock", control_path) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", control_path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -errno;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK ? -EEXIST : -errno;
		if (err == -EEXIST)
			*holder = pid_in(fd);
		close(fd);
		return err;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}
