/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_JOURNAL_H
#define SANDWALL_JOURNAL_H
/* journal: the daemon's bounded record of events (JSON lines: start,
 * drift, repair-failed, removed, stop) that `sandwall receipt` reads.
 * Kept in memory as a ring of the last SW_JOURNAL_MAX lines and rewritten
 * atomically on each event. */
#include <stddef.h>

#define SW_JOURNAL_MAX 512

struct sw_journal {
	char path[256];
	char *lines[SW_JOURNAL_MAX];
	size_t first, n;
};

/* Load what an earlier run left (a restart continues the journal). */
int sw_journal_open(struct sw_journal *j, const char *path);
/* Append one JSON object (without newline); the oldest falls off. */
int sw_journal_add(struct sw_journal *j, const char *json);
void sw_journal_close(struct sw_journal *j);

#endif
