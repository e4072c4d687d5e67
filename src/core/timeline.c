// SPDX-License-Identifier: GPL-2.0-or-later
/* timeline: the journal's events over a window, as gaps (timeline.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/journal.h"
#include "lib/json.h"
#include "core/timeline.h"

static const char *const gap_names[SW_GAP_COUNT] = {
	[SW_GAP_UNKNOWN] = "unknown (before the oldest event kept)",
	[SW_GAP_DAEMON] = "daemon not running",
	[SW_GAP_ABSENT] = "table absent",
	[SW_GAP_DRIFT] = "drift not yet repaired",
	[SW_GAP_REPAIR] = "repair failed",
	[SW_GAP_UNGUARDED] = "unguarded container-facing link",
	[SW_GAP_VERIFY] = "verify failed",
	[SW_GAP_HOLE] = "hole in the record",
};

const char *sw_gap_kind_name(enum sw_gap_kind k)
{
	return (unsigned)k < SW_GAP_COUNT ? gap_names[k] : "?";
}

struct ev {
	int64_t us;
	size_t pos;             /* file order */
	bool bad;               /* no event: a hole between its neighbours */
	enum sw_jevent e;
	bool passed, ok;
	int64_t restored_us, since_us;
	char key[16];           /* ifname */
	char what[128];
	char who[96];
};

static void who_of(const struct sw_jv *v, char *buf, size_t len)
{
	const char *by = NULL, *comm = NULL;
	int64_t uid = -1, pid = 0;
	size_t o = 0;
	int k;

	sw_jv_get_str(v, "by", &by);
	sw_jv_get_str(v, "comm", &comm);
	sw_jv_get_i64(v, "uid", &uid);
	sw_jv_get_i64(v, "pid", &pid);
	buf[0] = '\0';
	if (by && (k = snprintf(buf + o, len - o, "%s", by)) > 0)
		o += (size_t)k < len - o ? (size_t)k : len - o - 1;
	if (uid >= 0 && o < len && (k = snprintf(buf + o, len - o, "%suid %lld", o ? ", " : "",
						    (long long)uid)) > 0)
		o += (size_t)k < len - o ? (size_t)k : len - o - 1;
	if (pid > 0 && o < len && (k = snprintf(buf + o, len - o, "%spid %lld", o ? " " : "",
						   (long long)pid)) > 0)
		o += (size_t)k < len - o ? (size_t)k : len - o - 1;
	if (comm && o < len)
		snprintf(buf + o, len - o, "%s(%s)", o ? " " : "", comm);
}

/* one line: 1 kept, 0 another table's, -EINVAL no event */
static int parse_line(const char *l, size_t n, const char *table, struct ev *x)
{
	const char *name, *t = NULL, *s = NULL;
	struct sw_jv v;
	int64_t unix_s, us;
	char want[80];
	int rc = 1;

	memset(x, 0, sizeof(*x));
	if (sw_jv_parse(l, n, &v, NULL))
		return -EINVAL;
	if (sw_jv_get_str(&v, "event", &name) || sw_jv_get_i64(&v, "unix", &unix_s) ||
	    (x->e = sw_jevent_parse(name)) == SW_JE_UNKNOWN) {
		sw_jv_free(&v);
		return -EINVAL;
	}
	x->us = sw_jv_get_i64(&v, "us", &us) == 0 && us / 1000000 == unix_s ? us : unix_s * 1000000;
	snprintf(want, sizeof(want), "inet/%s", table);
	if (sw_jv_get_str(&v, "table", &t) == 0 && strcmp(t, want))
		rc = 0;
	sw_jv_get_bool(&v, "passed", &x->passed);
	x->ok = !(sw_jv_get_str(&v, "result", &s) == 0 && !strcmp(s, "failed"));
	sw_jv_get_i64(&v, "restored_us", &x->restored_us);
	if (sw_jv_get_i64(&v, "since_unix", &x->since_us) == 0)
		x->since_us *= 1000000;
	else
		x->since_us = x->us;
	if (sw_jv_get_str(&v, "ifname", &s) == 0)
		snprintf(x->key, sizeof(x->key), "%s", s);
	if (sw_jv_get_str(&v, "change", &s) == 0)
		snprintf(x->what, sizeof(x->what), "%s", s);
	else if (x->e == SW_JE_UNGUARDED && sw_jv_get_str(&v, "facing", &s) == 0)
		snprintf(x->what, sizeof(x->what), "%s (%s)", x->key, s);
	else if (x->e == SW_JE_HOLE) {
		int64_t lost = 0;
		const char *err = "?";

		sw_jv_get_i64(&v, "lost", &lost);
		sw_jv_get_str(&v, "error", &err);
		snprintf(x->what, sizeof(x->what), "%lld event(s) not written: %s", (long long)lost, err);
	}
	who_of(&v, x->who, sizeof(x->who));
	sw_jv_free(&v);
	return rc;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int gap_cmp(const void *a, const void *b)
{
	const struct sw_gap *x = a, *y = b;

	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

struct builder {
	struct sw_timeline *tl;
	size_t cap;
	int err;
};

/* a finished span (open: not over) goes in when it touches the window */
static void put(struct builder *b, enum sw_gap_kind k, int64_t start, int64_t end, bool open,
		const char *what, const char *who, const char *ended_by)
{
	struct sw_timeline *tl = b->tl;
	struct sw_gap *g;

	if (open)
		end = tl->until_us;
	if (start > tl->until_us || end < tl->since_us || (end == tl->since_us && start < end))
		return;
	if (tl->n_gaps == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 16;
		struct sw_gap *ng = realloc(tl->gaps, nc * sizeof(*ng));

		if (!ng) {
			b->err = -ENOMEM;
			return;
		}
		tl->gaps = ng;
		b->cap = nc;
	}
	g = &tl->gaps[tl->n_gaps++];
	memset(g, 0, sizeof(*g));
	g->kind = k;
	g->start_us = start < tl->since_us ? tl->since_us : start;
	g->end_us = end > tl->until_us ? tl->until_us : end;
	g->open = open || end > tl->until_us;
	snprintf(g->what, sizeof(g->what), "%s", what ? what : "");
	snprintf(g->who, sizeof(g->who), "%s", who ? who : "");
	snprintf(g->ended_by, sizeof(g->ended_by), "%s", !g->open && ended_by ? ended_by : "");
}

/* an open span: where it started, what and who */
struct span {
	bool on;
	int64_t start;
	char what[128], who[96];
	char key[16];
};

static void span_open(struct span *s, const struct ev *x, int64_t start, const char *what)
{
	if (s->on)
		return;
	s->on = true;
	s->start = start;
	snprintf(s->what, sizeof(s->what), "%s", what);
	snprintf(s->who, sizeof(s->who), "%s", x ? x->who : "");
	snprintf(s->key, sizeof(s->key), "%s", x ? x->key : "");
}

static void span_close(struct builder *b, struct span *s, enum sw_gap_kind k, int64_t end,
		       const char *ended_by)
{
	if (!s->on)
		return;
	put(b, k, s->start, end, false, s->what, s->who, ended_by);
	s->on = false;
}

#define MAX_UNGUARDED 64

/* Every line of this table (and every line that is no event), in file
 * order, into *evs: 0 or -ENOMEM. */
static int read_events(const char *text, size_t len, const char *table, struct sw_timeline *tl,
		       struct ev **evs, size_t *n)
{
	size_t cap = 0, lineno = 0;

	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t ln = nl ? (size_t)(nl - l) : len - pos;
		struct ev x;
		int rc;

		pos += ln + 1;
		if (!ln)
			continue;
		rc = parse_line(l, ln, table, &x);
		if (rc == 0)
			continue;
		x.pos = lineno++;
		x.bad = rc < 0;
		if (x.bad)
			tl->malformed++;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct ev *ne = realloc(*evs, nc * sizeof(*ne));

			if (!ne)
				return -ENOMEM;
			*evs = ne;
			cap = nc;
		}
		(*evs)[(*n)++] = x;
	}
	return 0;
}

/* A line that is no event: a hole from the event before it to the one
 * after it (file order); out-of-order lines counted. */
static void place_bad_lines(struct sw_timeline *tl, struct ev *evs, size_t n)
{
	int64_t max_us = INT64_MIN;

	for (size_t i = 0; i < n; i++) {
		if (!evs[i].bad) {
			if (evs[i].us < max_us)
				tl->out_of_order++;
			else
				max_us = evs[i].us;
			continue;
		}
		int64_t before = INT64_MIN, after = INT64_MIN;

		for (size_t j = i; j-- > 0 && before == INT64_MIN;)
			if (!evs[j].bad)
				before = evs[j].us;
		for (size_t j = i + 1; j < n && after == INT64_MIN; j++)
			if (!evs[j].bad)
				after = evs[j].us;
		if (before == INT64_MIN)
			before = after;
		if (after == INT64_MIN)
			after = before;
		evs[i].us = before;
		evs[i].since_us = before;
		evs[i].restored_us = after;     /* its end */
	}
}

/* The walk over the events in time order: what is going on. */
struct walk {
	struct builder b;
	struct span daemon, absent, repair, verify;
	struct span ung[MAX_UNGUARDED];
	int64_t last_us;
	bool running, seen_daemon;
};

static void walk_unguarded(struct walk *w, const struct ev *x)
{
	struct span *free_slot = NULL;
	bool known = false;

	for (size_t k = 0; k < MAX_UNGUARDED && !known; k++) {
		known = w->ung[k].on && !strcmp(w->ung[k].key, x->key);
		if (!w->ung[k].on && !free_slot)
			free_slot = &w->ung[k];
	}
	if (!known && free_slot)
		span_open(free_slot, x, x->us, x->what[0] ? x->what : x->key);
}

static void walk_ungs_close(struct walk *w, int64_t us, const char *key, const char *by)
{
	for (size_t k = 0; k < MAX_UNGUARDED; k++)
		if (w->ung[k].on && (!key || !strcmp(w->ung[k].key, key)))
			span_close(&w->b, &w->ung[k], SW_GAP_UNGUARDED, us, by);
}

static void walk_event(struct walk *w, struct sw_timeline *tl, const struct ev *x)
{
	bool in = x->us >= tl->since_us && x->us <= tl->until_us;

	switch (x->e) {
	case SW_JE_START:
		if (w->running && w->seen_daemon)
			/* no stop since the last start: it crashed */
			put(&w->b, SW_GAP_DAEMON, w->last_us, x->us, false,
			    "crashed (no stop line after its last event)", "", x->who);
		span_close(&w->b, &w->daemon, SW_GAP_DAEMON, x->us, x->who);
		span_close(&w->b, &w->absent, SW_GAP_ABSENT, x->us, x->who);
		walk_ungs_close(w, x->us, NULL, "daemon restart");
		w->running = w->seen_daemon = true;
		break;
	case SW_JE_STOP:
		walk_ungs_close(w, x->us, NULL, "daemon stop");
		span_open(&w->daemon, x, x->us, "sandwalld stopped");
		w->running = false;
		w->seen_daemon = true;
		break;
	case SW_JE_REMOVED:
	case SW_JE_ABSENT:
		span_open(&w->absent, x, x->us, x->e == SW_JE_REMOVED ? "removed" : "seen absent");
		break;
	case SW_JE_APPLIED:
	case SW_JE_PRESENT:
		span_close(&w->b, &w->absent, SW_GAP_ABSENT, x->us, x->who);
		break;
	case SW_JE_DRIFT:
		tl->drifts += in;
		put(&w->b, SW_GAP_DRIFT, x->us - (x->restored_us > 0 ? x->restored_us : 0), x->us,
		    false, x->what, x->who, "sandwalld repair");
		span_close(&w->b, &w->repair, SW_GAP_REPAIR, x->us, "sandwalld repair");
		break;
	case SW_JE_REPAIR_FAILED:
		span_open(&w->repair, x, x->us, x->what);
		break;
	case SW_JE_REPAIRED:
		span_close(&w->b, &w->repair, SW_GAP_REPAIR, x->us, "sandwalld retry");
		break;
	case SW_JE_UNGUARDED:
		walk_unguarded(w, x);
		break;
	case SW_JE_COVERED:
		walk_ungs_close(w, x->us, x->key, x->who);
		break;
	case SW_JE_VERIFY:
		if (in) {
			tl->verifies++;
			tl->verifies_passed += x->passed;
			tl->last_verify_us = x->us;
			tl->last_verify_passed = x->passed;
		}
		if (x->passed)
			span_close(&w->b, &w->verify, SW_GAP_VERIFY, x->us, x->who);
		else
			span_open(&w->verify, x, x->us, "verify did not pass");
		break;
	case SW_JE_HOLE:
		put(&w->b, SW_GAP_HOLE, x->since_us, x->us, false, x->what, "", "");
		break;
	default:
		break;
	}
}

/* What is still going on at the window's end, and before the record. */
static void walk_end(struct walk *w, struct sw_timeline *tl)
{
	struct { struct span *s; enum sw_gap_kind k; } still[] = {
		{ &w->daemon, SW_GAP_DAEMON }, { &w->absent, SW_GAP_ABSENT },
		{ &w->repair, SW_GAP_REPAIR }, { &w->verify, SW_GAP_VERIFY },
	};

	for (size_t k = 0; k < sizeof(still) / sizeof(*still); k++)
		if (still[k].s->on)
			put(&w->b, still[k].k, still[k].s->start, 0, true, still[k].s->what,
			    still[k].s->who, NULL);
	for (size_t k = 0; k < MAX_UNGUARDED; k++)
		if (w->ung[k].on)
			put(&w->b, SW_GAP_UNGUARDED, w->ung[k].start, 0, true, w->ung[k].what,
			    w->ung[k].who, NULL);
	if (tl->first_us < 0 || tl->since_us < tl->first_us)
		put(&w->b, SW_GAP_UNKNOWN, tl->since_us, tl->first_us < 0 ? tl->until_us : tl->first_us,
		    tl->first_us < 0, tl->first_us < 0 ? "no journal events" : "", "", "");
}

int sw_timeline_build(const char *text, size_t len, const char *table, int64_t since_us,
		      int64_t until_us, struct sw_timeline *tl)
{
	static const struct walk w0;
	struct walk *w = NULL;
	struct ev *evs = NULL;
	size_t n = 0;
	int rc;

	memset(tl, 0, sizeof(*tl));
	tl->since_us = since_us;
	tl->until_us = until_us;
	tl->first_us = -1;
	tl->last_verify_us = -1;
	if (!(w = malloc(sizeof(*w))) || (rc = read_events(text, len, table, tl, &evs, &n))) {
		free(w);
		free(evs);
		return -ENOMEM;
	}
	*w = w0;
	w->b.tl = tl;
	w->last_us = INT64_MIN;
	place_bad_lines(tl, evs, n);
	if (n)
		qsort(evs, n, sizeof(*evs), ev_cmp);
	/* until a start (or a line only a running daemon writes) says otherwise */
	span_open(&w->daemon, NULL, INT64_MIN, "sandwalld not seen running");
	for (size_t i = 0; i < n; i++) {
		struct ev *x = &evs[i];

		if (x->bad) {
			if (x->us != INT64_MIN)
				put(&w->b, SW_GAP_HOLE, x->since_us, x->restored_us, false,
				    "a line that is no event (torn or corrupt)", "", "");
			continue;
		}
		tl->events++;
		if (tl->first_us < 0 || x->us < tl->first_us)
			tl->first_us = x->us;
		if (x->us >= since_us && x->us <= until_us)
			tl->in_window++;
		if (!w->seen_daemon && sw_jevent_while_running(x->e)) {
			/* the daemon wrote it: it ran since before the oldest event kept */
			span_close(&w->b, &w->daemon, SW_GAP_DAEMON, tl->first_us, "");
			w->running = w->seen_daemon = true;
		}
		walk_event(w, tl, x);
		w->last_us = x->us;
	}
	walk_end(w, tl);
	free(evs);
	rc = w->b.err;
	free(w);
	if (rc) {
		sw_timeline_free(tl);
		return rc;
	}
	if (tl->n_gaps)
		qsort(tl->gaps, tl->n_gaps, sizeof(*tl->gaps), gap_cmp);
	tl->held = !tl->n_gaps && tl->verifies_passed > 0;
	return 0;
}

void sw_timeline_free(struct sw_timeline *tl)
{
	free(tl->gaps);
	tl->gaps = NULL;
	tl->n_gaps = 0;
}
