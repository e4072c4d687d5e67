// SPDX-License-Identifier: GPL-2.0-or-later
/* probe: parallel non-blocking TCP connects (see include/cli/probe.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "cli/probe.h"

const char *sw_probe_result_name(enum sw_probe_result r)
{
	static const char *const names[] = {
		"pending", "open", "refused", "timeout", "prohibited", "no-route", "error",
	};

	return (unsigned)r < sizeof(names) / sizeof(*names) ? names[r] : "?";
}

static unsigned ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

static enum sw_probe_result classify(int err)
{
	switch (err) {
	case 0: return SW_PROBE_OPEN;
	case ECONNREFUSED: return SW_PROBE_REFUSED;
	case ETIMEDOUT: return SW_PROBE_TIMEOUT;
	case EHOSTUNREACH: case EACCES: case EPERM: return SW_PROBE_PROHIBITED;
	case ENETUNREACH: case EADDRNOTAVAIL: case EAFNOSUPPORT: return SW_PROBE_NOROUTE;
	default: return SW_PROBE_ERROR;
	}
}

int sw_probe_run(struct sw_probe *p, size_t n, unsigned timeout_ms)
{
	struct pollfd *pfd = calloc(n ? n : 1, sizeof(*pfd));
	struct timespec t0;
	size_t pending = 0;

	if (!pfd)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n; i++) {
		struct sockaddr_storage ss;
		socklen_t sl;
		int fd;

		memset(&ss, 0, sizeof(ss));
		if (p[i].addr.family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			s4->sin_port = htons(p[i].port);
			memcpy(&s4->sin_addr, p[i].addr.addr, 4);
			sl = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons(p[i].port);
			memcpy(&s6->sin6_addr, p[i].addr.addr, 16);
			sl = sizeof(*s6);
		}
		pfd[i].fd = -1;
		fd = socket(p[i].addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			p[i].err = errno;
			p[i].result = classify(errno);
			continue;
		}
		if (connect(fd, (struct sockaddr *)&ss, sl) == 0 || errno != EINPROGRESS) {
			p[i].err = errno == EINPROGRESS ? 0 : errno;
			p[i].result = classify(p[i].err);
			p[i].ms = ms_since(&t0);
			close(fd);
			continue;
		}
		pfd[i].fd = fd;
		pfd[i].events = POLLOUT;
		p[i].result = SW_PROBE_PENDING;
		pending++;
	}
	while (pending) {
		unsigned el = ms_since(&t0);
		int r;

		if (el >= timeout_ms)
			break;
		r = poll(pfd, n, (int)(timeout_ms - el));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			/* no answer could be waited for: that proves nothing */
			for (size_t i = 0; i < n; i++)
				if (pfd[i].fd >= 0) {
					p[i].result = SW_PROBE_ERROR;
					p[i].err = errno;
					close(pfd[i].fd);
					pfd[i].fd = -1;
				}
			break;
		}
		if (r == 0)
			break;
		for (size_t i = 0; i < n; i++) {
			int soerr = 0;
			socklen_t len = sizeof(soerr);

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			getsockopt(pfd[i].fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
			p[i].err = soerr;
			p[i].result = classify(soerr);
			p[i].ms = ms_since(&t0);
			close(pfd[i].fd);
			pfd[i].fd = -1;
			pending--;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (pfd[i].fd < 0)
			continue;
		p[i].result = SW_PROBE_TIMEOUT;
		p[i].err = ETIMEDOUT;
		p[i].ms = timeout_ms;
		close(pfd[i].fd);
	}
	free(pfd);
	return 0;
}
