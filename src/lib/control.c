// SPDX-License-Identifier: GPL-2.0-or-later
/* control: root-only control socket (see include/lib/control.h). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "lib/control.h"

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

int sw_control_parse(const char *text, struct sw_control_req *req)
{
	size_t n = strcspn(text, "\r\n");
	const char *p = text + n;

	memset(req, 0, sizeof(*req));
	if (n == 0 || n >= sizeof(req->verb))
		return -EINVAL;
	memcpy(req->verb, text, n);
	/* key=value lines; unknown keys are a newer client's: ignored */
	while (*p) {
		p += strspn(p, "\r\n");
		n = strcspn(p, "\r\n");
		if (n > 9 && !strncmp(p, "deadline=", 9)) {
			int64_t v = 0;
			size_t i;

			for (i = 9; i < n && p[i] >= '0' && p[i] <= '9' && v < INT64_MAX / 10 - 9; i++)
				v = v * 10 + (p[i] - '0');
			if (i != n || v <= 0)
				return -EINVAL;
			req->deadline_ms = v;
		} else if (n == 15 && !strncmp(p, "accept_loss=yes", 15)) {
			req->accept_loss = true;
		} else if (n > 7 && !strncmp(p, "target=", 7)) {
			/* an address or an interface name: printable, no blank */
			if (n - 7 >= sizeof(req->target))
				return -EINVAL;
			for (size_t i = 7; i < n; i++)
				if (p[i] <= ' ' || p[i] > '~')
					return -EINVAL;
			memcpy(req->target, p + 7, n - 7);
			req->target[n - 7] = '\0';
		}
		p += n;
	}
	return 0;
}

int sw_control_accept(int lfd, struct sw_control_req *req)
{
	char buf[SW_CONTROL_REQMAX];
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
	n = recv(cfd, buf, sizeof(buf) - 1, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0) {
		err = -errno;
		goto fail;
	}
	if ((size_t)n >= sizeof(buf)) {
		err = -EMSGSIZE;
		goto fail;
	}
	buf[n] = '\0';
	if ((err = sw_control_parse(buf, req)))
		goto fail;
	return cfd;
fail:
	close(cfd);
	return err;
}

int64_t sw_control_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sw_control_live(int cfd, const struct sw_control_req *req, int64_t now_ms)
{
	struct pollfd pfd = { .fd = cfd, .events = POLLIN | POLLRDHUP };

	/* a client that gave up closed its end: the request stays readable
	 * in the queue, so only the hang-up tells */
	if (poll(&pfd, 1, 0) < 0)
		return -errno;
	if (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))
		return -ECONNRESET;
	if (req->deadline_ms && now_ms > req->deadline_ms - SW_CONTROL_MARGIN_MS)
		return -ETIME;
	return 0;
}

int sw_control_accepted(int cfd, const struct sw_control_req *req)
{
	static const char msg[] = "accepted\n";

	if (!req->deadline_ms)
		return 0;
	return send(cfd, msg, sizeof(msg) - 1, MSG_NOSIGNAL) < 0 ? -errno : 0;
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

/* Wait until abs_ms (CLOCK_REALTIME) for a message; its length or -errno. */
static ssize_t recv_until(int fd, char *buf, size_t len, int64_t abs_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		int64_t left = abs_ms - sw_control_now_ms();
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 1)
			break;
	}
	n = recv(fd, buf, len - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -ECONNRESET;
	buf[n] = '\0';
	return n;
}

int sw_control_call_ms(const char *path, const char *req, char *reply, size_t replylen,
		       int answer_ms, int done_ms)
{
	char msg[SW_CONTROL_REQMAX + 32];
	struct sockaddr_un sa;
	int64_t deadline;
	ssize_t n;
	int fd, err;

	if ((err = fill_addr(&sa, path)))
		return err;
	if (strlen(req) + 24 >= SW_CONTROL_REQMAX || replylen == 0 ||
	    answer_ms <= 0 || done_ms < 0)
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	deadline = sw_control_now_ms() + answer_ms;
	/* non-blocking: a daemon whose backlog is full (stopped, say) makes
	 * connect fail with EAGAIN at once instead of waiting */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = errno == EAGAIN ? -ETIMEDOUT : -errno;
		goto out;
	}
	if ((err = same_daemon(fd)))
		goto out;
	snprintf(msg, sizeof(msg), "%s\ndeadline=%lld\n", req, (long long)deadline);
	if (send(fd, msg, strlen(msg), MSG_NOSIGNAL) < 0) {
		err = errno == EAGAIN ? -ETIMEDOUT : -errno;
		goto out;
	}
	n = recv_until(fd, reply, replylen, deadline);
	if (n >= 0 && !strcmp(reply, "accepted\n")) {
		/* it runs: now wait for it to be done */
		n = recv_until(fd, reply, replylen, sw_control_now_ms() + done_ms);
		if (n == -ETIMEDOUT)
			n = -EINPROGRESS;
	}
	err = n < 0 ? (int)n : 0;
out:
	/* closing is the hang-up the daemon checks for before it executes */
	close(fd);
	return err;
}

int sw_control_call(const char *path, const char *req, char *reply, size_t replylen)
{
	return sw_control_call_ms(path, req, reply, replylen, SW_CONTROL_ANSWER_MS,
				  SW_CONTROL_DONE_MS);
}
