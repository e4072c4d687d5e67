// SPDX-License-Identifier: GPL-2.0-or-later
/* attempts: what the sandboxes tried to reach (see include/attempts.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "atomicfile.h"
#include "attempts.h"

void sw_attempts_add(struct sw_attempts *t, const struct sw_blocked *b, time_t now)
{
	const char *cat = b->category, *sbx = b->sandbox;
	bool out = sw_blocked_is_output(b), has_uid = out && b->has_uid;
	uint32_t uid = has_uid ? b->uid : 0;
	struct sw_attempt *a = NULL;

	for (size_t i = 0; i < t->n && !a; i++)
		if (t->a[i].family == b->family && t->a[i].proto == b->proto &&
		    t->a[i].dport == b->dport && !memcmp(t->a[i].dst, b->dst, 16) &&
		    t->a[i].output == out && t->a[i].has_uid == has_uid && t->a[i].uid == uid &&
		    !strcmp(t->a[i].category, cat) && !strcmp(t->a[i].sandbox, sbx))
			a = &t->a[i];
	if (!a) {
		if (t->n < SW_ATTEMPTS_MAX) {
			a = &t->a[t->n++];
		} else {
			/* the least recently seen record makes room */
			a = &t->a[0];
			for (size_t i = 1; i < t->n; i++)
				if (t->a[i].last < a->last)
					a = &t->a[i];
			t->evicted++;
		}
		memset(a, 0, sizeof(*a));
		snprintf(a->category, sizeof(a->category), "%s", cat);
		snprintf(a->sandbox, sizeof(a->sandbox), "%s", sbx);
		a->family = b->family;
		memcpy(a->dst, b->dst, 16);
		a->proto = b->proto;
		a->dport = b->dport;
		a->output = out;
		a->has_uid = has_uid;
		a->uid = uid;
		a->first = now;
	}
	a->count++;
	a->last = now;
}

static int by_count(const void *x, const void *y)
{
	const struct sw_attempt *a = *(const struct sw_attempt *const *)x;
	const struct sw_attempt *b = *(const struct sw_attempt *const *)y;

	return a->count > b->count ? -1 : a->count < b->count ? 1 :
	       a->last > b->last ? -1 : a->last < b->last;
}

void sw_attempts_json(const struct sw_attempts *t, struct sw_jw *w)
{
	const struct sw_attempt *order[SW_ATTEMPTS_MAX];
	char d[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < t->n; i++)
		order[i] = &t->a[i];
	qsort(order, t->n, sizeof(order[0]), by_count);
	sw_jw_obj(w, NULL);
	sw_jw_u64(w, "evicted", t->evicted);
	sw_jw_arr(w, "attempts");
	for (size_t i = 0; i < t->n; i++) {
		const struct sw_attempt *a = order[i];

		inet_ntop(a->family, a->dst, d, sizeof(d));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "category", a->category);
		if (a->sandbox[0])
			sw_jw_str(w, "sandbox", a->sandbox);
		sw_jw_str(w, "dst", d);
		if (a->proto == IPPROTO_TCP || a->proto == IPPROTO_UDP)
			sw_jw_str(w, "proto", a->proto == IPPROTO_TCP ? "tcp" : "udp");
		else
			sw_jw_u64(w, "proto", a->proto);
		if (a->dport)
			sw_jw_u64(w, "dport", a->dport);
		if (a->output)
			sw_jw_str(w, "path", "output");
		if (a->has_uid)
			sw_jw_u64(w, "uid", a->uid);
		sw_jw_u64(w, "count", a->count);
		sw_jw_i64(w, "first", (int64_t)a->first);
		sw_jw_i64(w, "last", (int64_t)a->last);
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_end(w);
}

int sw_attempts_write(const struct sw_attempts *t, const char *path)
{
	struct sw_jw w;
	const char *text;
	int err;

	sw_jw_init(&w);
	sw_attempts_json(t, &w);
	text = sw_jw_text(&w);
	err = text ? sw_atomic_write(path, text, strlen(text), 0600) : (w.err ? w.err : -EINVAL);
	sw_jw_free(&w);
	return err;
}
