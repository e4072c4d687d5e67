// SPDX-License-Identifier: GPL-2.0-or-later
/* runverdict: a run's verdict from its record (see include/core/runverdict.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/runverdict.h"
#include "lib/journal.h"

static void reason(struct sw_run_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void reason(struct sw_run_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->n == SW_RUN_REASONS) {
		v->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(v->reason[v->n++], SW_RUN_REASON_LEN, fmt, ap);
	va_end(ap);
}

static void iso_us(int64_t us, char *out, size_t len)
{
	char s[32];

	sw_iso_utc(us / 1000000, s, sizeof(s));
	/* "2026-12-03T10:00:01Z" -> "2026-12-03T10:00:01.250000Z" */
	if (strlen(s) == 20)
		snprintf(out, len, "%.19s.%06lldZ", s, (long long)(us % 1000000));
	else
		snprintf(out, len, "%s", s);
}

void sw_run_gap_text(const struct sw_gap *g, char *out, size_t len)
{
	char a[40], b[40];

	iso_us(g->start_us, a, sizeof(a));
	iso_us(g->end_us, b, sizeof(b));
	snprintf(out, len, "%s %s .. %s%s%s%s%s%s%s%s", sw_gap_kind_name(g->kind), a,
		 g->open ? "the end of the run" : b, g->what[0] ? ": " : "", g->what,
		 g->who[0] ? " (" : "", g->who, g->who[0] ? ")" : "",
		 g->ended_by[0] ? ", ended by " : "", g->ended_by);
}

static const char *verify_said(int code)
{
	return code == 1 ? "did not hold" : code == 2 ? "could not run" : "was not run";
}

void sw_run_verdict(const struct sw_run_facts *f, struct sw_run_verdict *v)
{
	char g[SW_RUN_REASON_LEN];

	memset(v, 0, sizeof(*v));
	if (f->pre != 0)
		reason(v, "preflight verify %s (exit %d): the command was %s", verify_said(f->pre),
		       f->pre, f->started ? "started anyway" : "not started");
	else if (!f->started)
		reason(v, "the command was not started");
	if (f->started && f->post != 0)
		reason(v, "postflight verify %s (exit %d)", verify_said(f->post), f->post);
	if (!f->daemon_start)
		reason(v, "sandwalld did not answer at the start of the run: nothing watched the table");
	if (f->counts_failed)
		reason(v, "sandwalld did not start the max_connections counts again at the start of "
		       "the run: the counts were not the run's own");
	if (!f->daemon_stop)
		reason(v, "sandwalld did not answer at the end of the run");
	if (!f->tl) {
		reason(v, "the journal could not be read: the window has no record");
	} else {
		for (size_t i = 0; i < f->tl->n_gaps; i++) {
			sw_run_gap_text(&f->tl->gaps[i], g, sizeof(g));
			reason(v, "%s", g);
		}
		if (f->tl->malformed)
			reason(v, "the journal holds %zu line(s) that are no event", f->tl->malformed);
	}
	for (size_t i = 0; i < f->n_broken; i++)
		reason(v, "assumption not met: %s", f->broken[i]);
	if (f->record_error)
		reason(v, "the record is incomplete: %s", f->record_error);
	v->contained = v->n == 0 && v->more == 0;
}
