// SPDX-License-Identifier: GPL-2.0-or-later
/* state: the helpers the daemon's parts share (see include/daemon/state.h). */
#include <errno.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "daemon/state.h"

int64_t sw_daemon_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

const char *sw_daemon_pid_str(pid_t pid, char *buf, size_t len)
{
	if (pid > 0)
		snprintf(buf, len, "%d", (int)pid);
	else
		snprintf(buf, len, "unknown");
	return buf;
}

void sw_daemon_arm(int fd, unsigned first_ms, unsigned every_ms)
{
	struct itimerspec it = {
		.it_value = { first_ms / 1000, (long)(first_ms % 1000) * 1000000 },
		.it_interval = { every_ms / 1000, (long)(every_ms % 1000) * 1000000 },
	};

	timerfd_settime(fd, 0, &it, NULL);
}

int sw_daemon_watch(struct sw_daemon *d, int fd, enum sw_slot slot)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u32 = slot };

	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

int sw_daemon_min_timeout(int a, int b)
{
	return a < 0 ? b : b < 0 || a < b ? a : b;
}

int sw_daemon_ms_until(int64_t due_us, int64_t now_us)
{
	int64_t left = due_us - now_us;

	return left <= 0 ? 0 : (int)((left + 999) / 1000);
}
