// SPDX-License-Identifier: GPL-2.0-or-later
/* control: root-only control socket (see include/control.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "control.h"

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

int sw_control_listen(const char *path)
{
	struct sockaddr_un sa;
	char dir[sizeof(sa.sun_path)], *slash;
	int fd, err;

	if ((err = fill_addr(&sa, path)))
		return err;
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -errno;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	/* umask-independent: the socket is root's alone */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0600) < 0 ||
	    listen(fd, 8) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int sw_control_accept(int lfd, char *req, size_t reqlen)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct pollfd pfd;
	ssize_t n;
	int cfd, err;

	cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0)
		return -errno;
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 || cred.uid != 0) {
		err = -EPERM;
		goto fail;
	}
	pfd.fd = cfd;
	pfd.events = POLLIN;
	/* a client that says nothing at once is dropped: the daemon's loop
	 * must not wait on it */
	if (poll(&pfd, 1, 10) != 1) {
		err = -ETIMEDOUT;
		goto fail;
	}
	n = recv(cfd, req, reqlen - 1, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0) {
		err = -errno;
		goto fail;
	}
	if ((size_t)n >= reqlen) {
		err = -EMSGSIZE;
		goto fail;
	}
	req[n] = '\0';
	req[strcspn(req, "\r\n")] = '\0';
	return cfd;
fail:
	close(cfd);
	return err;
}

int sw_control_reply(int cfd, const char *reply)
{
	size_t len = strnlen(reply, SW_CONTROL_REPMAX - 1);
	int err = send(cfd, reply, len, MSG_NOSIGNAL) < 0 ? -errno : 0;

	close(cfd);
	return err;
}

/* The peer must be root and guard this network namespace: a daemon of
 * another namespace (a test's, a container host's) answering on the same
 * path must not take this namespace's commands. -EPERM (not root) or
 * -EXDEV (another namespace, or one that cannot be told). */
static int same_daemon(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct stat mine, theirs;
	char path[64];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (cred.uid != 0)
		return -EPERM;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)cred.pid);
	if (cred.pid <= 0 || stat("/proc/self/ns/net", &mine) < 0 || stat(path, &theirs) < 0)
		return -EXDEV;
	return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino ? 0 : -EXDEV;
}

int sw_control_call(const char *path, const char *req, char *reply, size_t replylen)
{
	struct sockaddr_un sa;
	struct pollfd pfd;
	ssize_t n;
	int fd, err;

	if ((err = fill_addr(&sa, path)))
		return err;
	if (strlen(req) >= SW_CONTROL_REQMAX || replylen == 0)
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	if ((err = same_daemon(fd)))
		goto out;
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
		err = -errno;
		goto out;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1) {
		err = -ETIMEDOUT;
		goto out;
	}
	n = recv(fd, reply, replylen - 1, 0);
	if (n <= 0) {
		err = n < 0 ? -errno : -ECONNRESET;
		goto out;
	}
	reply[n] = '\0';
	err = 0;
out:
	close(fd);
	return err;
}
