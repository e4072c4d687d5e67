/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_FORGET_H
#define SANDWALL_FORGET_H
/* forget: the daemon's conntrack walk after a re-created table
 * (conntrack.h), on a thread of its own.
 *
 * The kernel walks its whole conntrack hash for the dump, shared by every
 * namespace (262,144 buckets on a 24 GiB host: ~11 ms in one sendto()),
 * however few entries this namespace holds. In the event loop that walk
 * made the next tamper's repair wait for it. The worker does it on a
 * netfilter socket of its own, with a copy of the model (the guarded
 * subnets), and says when it is done through an eventfd; the event loop
 * logs the result. One walk at a time: a re-create while one runs starts
 * another after it (flows primed in the second gap may sit in buckets
 * the first had passed). */
#include <stdbool.h>
#include <stddef.h>
#include "core/model.h"
#include "kernel/nl.h"

struct sw_forget;

/* The worker's state and its eventfd (nothing runs yet). _ops: the
 * worker's socket on another transport (tests: the fake kernel, which
 * only the worker touches while it runs). */
int sw_forget_open(struct sw_forget **f);
int sw_forget_open_ops(struct sw_forget **f, const struct sw_nl_ops *ops, void *ctx);
void sw_forget_close(struct sw_forget *f);  /* waits for a walk that runs */
int sw_forget_fd(const struct sw_forget *f);
bool sw_forget_running(const struct sw_forget *f);
/* Start a walk for want (copied): 0, -EBUSY while one runs, or -errno
 * (then nothing runs: the caller walks itself). */
int sw_forget_start(struct sw_forget *f, const struct sw_model *want);
/* After the eventfd said so: the walk's result (0 or -errno), how many
 * flows went, and for which table. -EAGAIN: none finished. */
int sw_forget_collect(struct sw_forget *f, int *rc, size_t *n, char *table, size_t len);

#endif
