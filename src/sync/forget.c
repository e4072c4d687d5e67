// SPDX-License-Identifier: GPL-2.0-or-later
/* forget: the conntrack walk after a re-create, on a worker thread (see
 * include/sync/forget.h). The worker touches only its own socket, its copy of
 * the model and its result fields; the event loop reads those after the
 * eventfd said the worker is done, and joins it. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "kernel/conntrack.h"
#include "sync/forget.h"
#include "kernel/nl.h"
#include "sync/reconcile.h"

struct sw_forget {
	const struct sw_nl_ops *ops;    /* NULL: the kernel (sw_nl_open) */
	void *ctx;
	int efd;
	bool running;           /* a thread was started and not yet joined */
	pthread_t th;
	struct sw_nl nl;        /* the worker's (opened with the first walk) */
	bool nl_open;
	struct sw_model want;   /* the worker's copy */
	int rc;
	size_t n;
};

int sw_forget_open(struct sw_forget **out)
{
	return sw_forget_open_ops(out, NULL, NULL);
}

int sw_forget_open_ops(struct sw_forget **out, const struct sw_nl_ops *ops, void *ctx)
{
	struct sw_forget *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->efd < 0) {
		int rc = -errno;

		free(f);
		return rc;
	}
	f->ops = ops;
	f->ctx = ctx;
	*out = f;
	return 0;
}

int sw_forget_fd(const struct sw_forget *f)
{
	return f ? f->efd : -1;
}

bool sw_forget_running(const struct sw_forget *f)
{
	return f && f->running;
}

static void *walk(void *arg)
{
	struct sw_forget *f = arg;
	uint64_t one = 1;

	/* at the loop's priority: at SCHED_IDLE (tried) the walk did not
	 * disturb the next repairs any less (the kernel walks its hash in
	 * one go), and on a busy host it would wait, and primed flows with it */
	f->n = 0;
	f->rc = sw_ct_forget_inbound(&f->nl, &f->want, &f->n);
	/* the event loop joins when it reads this */
	if (write(f->efd, &one, sizeof(one)) != sizeof(one))
		f->rc = f->rc ? f->rc : -EIO;
	return NULL;
}

int sw_forget_start(struct sw_forget *f, const struct sw_model *want)
{
	int rc;

	if (!f)
		return -EINVAL;
	if (f->running)
		return -EBUSY;
	if (!f->nl_open) {
		if ((rc = f->ops ? sw_nl_open_ops(&f->nl, f->ops, f->ctx) : sw_nl_open(&f->nl)))
			return rc;
		f->nl_open = true;
	}
	sw_model_free(&f->want);
	if ((rc = sw_model_copy(&f->want, want))) {
		sw_model_free(&f->want);
		return rc;
	}
	if ((rc = pthread_create(&f->th, NULL, walk, f))) {
		sw_model_free(&f->want);
		return -rc;
	}
	f->running = true;
	return 0;
}

int sw_forget_collect(struct sw_forget *f, int *rc, size_t *n, char *table, size_t len)
{
	uint64_t v;

	if (!f || !f->running || read(f->efd, &v, sizeof(v)) != sizeof(v))
		return -EAGAIN;
	pthread_join(f->th, NULL);
	f->running = false;
	*rc = f->rc;
	*n = f->n;
	snprintf(table, len, "%s", f->want.table);
	sw_model_free(&f->want);
	return 0;
}

void sw_forget_close(struct sw_forget *f)
{
	if (!f)
		return;
	if (f->running)
		pthread_join(f->th, NULL);
	sw_model_free(&f->want);
	if (f->nl_open)
		sw_nl_close(&f->nl);
	close(f->efd);
	free(f);
}
