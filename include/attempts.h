/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ATTEMPTS_H
#define SANDWALL_ATTEMPTS_H
/* attempts: what the sandboxes tried to reach. sandwalld folds every
 * blocked attempt it reads from NFLOG into one record per (category,
 * sandbox, destination, protocol, port, and for the output path the
 * socket's uid), at most SW_ATTEMPTS_MAX of them
 * (the least recently seen goes first, and is counted), and writes them as
 * a JSON document that `sandwall receipt` shows. The counts are of the
 * attempts the kernel logged: each category logs at most 10 a second
 * (burst 20), so under a flood they are a lower bound. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "json.h"
#include "nflog.h"

#define SW_ATTEMPTS_MAX 256

struct sw_attempt {
	char category[32];          /* "metadata", "egress" */
	char sandbox[24];           /* for egress and budget: the [sandbox NAME] */
	int family;
	uint8_t dst[16];
	uint8_t proto;
	uint16_t dport;
	bool output;                /* from a host socket (the output path) */
	bool has_uid;               /* output only: the socket's owner */
	uint32_t uid;
	uint64_t count;
	time_t first, last;
};

struct sw_attempts {
	struct sw_attempt a[SW_ATTEMPTS_MAX];
	size_t n;
	uint64_t evicted;           /* records pushed out by newer ones */
};

/* Count one blocked attempt seen at now. */
void sw_attempts_add(struct sw_attempts *t, const struct sw_blocked *b, time_t now);
/* {"evicted":N,"attempts":[{"category":..,"sandbox":..,"dst":..,"proto":..,
 * "dport":..,"path":"output","uid":..,"count":..,"first":..,"last":..}, ...]}
 * most counted first ("path" and "uid" only for the output path). */
void sw_attempts_json(const struct sw_attempts *t, struct sw_jw *w);
/* Write that document to path atomically (0600). 0 or -errno. */
int sw_attempts_write(const struct sw_attempts *t, const char *path);

#endif
