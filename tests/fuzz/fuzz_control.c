// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_control: both ends of the control protocol over a real socket in a
 * private directory. The first byte picks the end:
 *   even: the input is what a client sends; the server reads it with
 *         sw_control_accept() (request bounded and terminated) and replies;
 *   odd:  the input is what a server replies; the client reads it with
 *         sw_control_call() (reply bounded and terminated). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lib/control.h"

static char ctl_path[108];
static int lfd = -1;

struct srv {
	const uint8_t *data;
	size_t size;
};

static void *server(void *arg)
{
	struct srv *s = arg;
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	int cfd;

	if (poll(&pfd, 1, 5000) != 1)
		return NULL;
	cfd = accept(lfd, NULL, NULL);
	if (cfd < 0)
		return NULL;
	send(cfd, s->data, s->size, MSG_NOSIGNAL);
	close(cfd);
	return NULL;
}

static char ctl_dir[] = "/tmp/swfuzz-ctl-XXXXXX";

static void cleanup(void)
{
	close(lfd);
	unlink(ctl_path);
	rmdir(ctl_dir);
}

static void init(void)
{
	if (!mkdtemp(ctl_dir))
		__builtin_trap();
	atexit(cleanup);
	snprintf(ctl_path, sizeof(ctl_path), "%s/control", ctl_dir);
	lfd = sw_control_listen(ctl_path);
	if (lfd < 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (lfd < 0)
		init();
	if (size < 1 || size > 8192)
		return 0;
	if (!(data[0] & 1)) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		struct sw_control_req req;
		char rep[16];
		int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), cfd;

		if (c < 0)
			return 0;
		memcpy(sa.sun_path, ctl_path, strlen(ctl_path) + 1);
		if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
		    send(c, data + 1, size - 1, MSG_NOSIGNAL) >= 0) {
			memset(&req, 'A', sizeof(req));
			cfd = sw_control_accept(lfd, &req);
			if (cfd >= 0) {
				if (strnlen(req.verb, sizeof(req.verb)) == sizeof(req.verb) ||
				    !req.verb[0] || strpbrk(req.verb, "\r\n") || req.deadline_ms < 0)
					__builtin_trap();
				sw_control_live(cfd, &req, sw_control_now_ms());
				sw_control_reply(cfd, "ok\n");
				recv(c, rep, sizeof(rep), MSG_DONTWAIT);
			}
		}
		close(c);
	} else {
		struct srv s = { data + 1, size - 1 };
		char reply[SW_CONTROL_REPMAX];
		pthread_t t;

		if (pthread_create(&t, NULL, server, &s))
			return 0;
		memset(reply, 'A', sizeof(reply));
		/* short waits: a reply of "accepted" would else wait for the rest */
		if (sw_control_call_ms(ctl_path, "status", reply, sizeof(reply), 500, 200) == 0 &&
		    strnlen(reply, sizeof(reply)) == sizeof(reply))
			__builtin_trap();
		pthread_join(t, NULL);
	}
	return 0;
}
