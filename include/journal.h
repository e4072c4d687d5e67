/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_JOURNAL_H
#define SANDWALL_JOURNAL_H
/* journal: the daemon's bounded record of events (JSON lines: start,
 * drift, repair-failed, removed, stop) that `sandwall receipt` reads.
 * Kept in memory as a ring of the last SW_JOURNAL_MAX lines and rewritten
 * atomically on each event. */
#include <stddef.h>
#include <time.h>
#include "json.h"

#define SW_JOURNAL_MAX 512

struct sw_journal {
	char path[256];
	char *lines[SW_JOURNAL_MAX];
	size_t first, n;
};

/* The kinds of journal lines ("event" member), one table in journal.c. */
enum sw_jevent {
	SW_JE_START,            /* the daemon started (mode, pid) */
	SW_JE_STOP,             /* it stopped; the rules stay */
	SW_JE_REMOVED,          /* `sandwall remove` through the daemon */
	SW_JE_DRIFT,            /* another process changed the table; repaired */
	SW_JE_REPAIRED,         /* a repair that had failed succeeded on a retry */
	SW_JE_REPAIR_FAILED,    /* a repair failed; retried on the timer */
	SW_JE_COUNT,
	SW_JE_UNKNOWN = SW_JE_COUNT,
};
const char *sw_jevent_name(enum sw_jevent e);
enum sw_jevent sw_jevent_parse(const char *name);

/* Start a journal line in w: {"time":..,"unix":..,"event":..,"table":..
 * (the caller adds members, then sw_journal_add_jw closes and appends). */
void sw_journal_begin(struct sw_jw *w, enum sw_jevent e, const char *table, time_t now);
int sw_journal_add_jw(struct sw_journal *j, struct sw_jw *w);

/* Load what an earlier run left (a restart continues the journal). */
int sw_journal_open(struct sw_journal *j, const char *path);
/* Append one JSON object (without newline); the oldest falls off. */
int sw_journal_add(struct sw_journal *j, const char *json);
void sw_journal_close(struct sw_journal *j);

#endif
