/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_JOURNAL_H
#define SANDWALL_JOURNAL_H
/* journal: the audit trail of every change of the boundary (JSON lines)
 * that `sandwall receipt` reads. Kept on disk (default
 * /var/lib/sandwall/journal.jsonl), appended with one write(2) per line
 * on an O_APPEND descriptor, so that the daemon and the CLI can both add
 * lines and a crash loses at most the line being written. Bounded by
 * size: when a line would take the file past max_bytes, the file is
 * renamed to PATH.1 (the older one goes) and a new one starts, so the two
 * files hold between max_bytes and 2 * max_bytes of the most recent
 * events. A reader reads PATH.1 then PATH; what fell off is before the
 * first event kept, and a receipt says that part is unknown. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "lib/json.h"

#define SW_JOURNAL_MAX_BYTES (8u << 20)   /* per file; two files are kept */
#define SW_JOURNAL_LINE_MAX  4096         /* a longer event is cut to a marker */

struct sw_journal {
	char path[256];
	int fd;                 /* O_APPEND, or -1 (opened again at the next add) */
	uint64_t max_bytes;     /* 0: SW_JOURNAL_MAX_BYTES */
	uint64_t size;          /* of the current file, as written */
	/* writes that failed (disk full, EMFILE): the record has a hole */
	uint64_t errors;        /* every failed write, counted */
	uint64_t lost;          /* lines lost in the current episode */
	int last_err;           /* -errno of the last failure (0: none yet) */
	bool failing;           /* an episode is going on (the last write failed) */
	time_t failing_since;
};

/* The kinds of journal lines ("event" member), one table in journal.c. */
enum sw_jevent {
	SW_JE_START,            /* the daemon started (mode, pid) */
	SW_JE_STOP,             /* it stopped; the rules stay */
	SW_JE_REMOVED,          /* the table was removed (`sandwall remove`, CLI or daemon) */
	SW_JE_DRIFT,            /* another process changed the table; repaired */
	SW_JE_REPAIRED,         /* a repair that had failed succeeded on a retry */
	SW_JE_REPAIR_FAILED,    /* a repair failed; retried on the timer */
	SW_JE_APPLIED,          /* the ruleset was applied (CLI apply, daemon reload) */
	SW_JE_RELOAD,           /* the daemon reloaded its config (who asked) */
	SW_JE_UNGUARDED,        /* a container-facing link no guard covers appeared */
	SW_JE_COVERED,          /* it is covered again (or gone) */
	SW_JE_ABSENT,           /* the table was seen absent (not by our own remove) */
	SW_JE_PRESENT,          /* it is there again */
	SW_JE_VERIFY,           /* a verify ran (passed or not) */
	SW_JE_HOLE,             /* writes to the journal failed: events are missing */
	SW_JE_RUN_START,        /* `sandwall run` opened a run (run id, label, who) */
	SW_JE_RUN_STOP,         /* it closed (the command's status, the verdict) */
	SW_JE_QUARANTINE,       /* a source (or link) tripped a [sandbox] quarantine_on */
	SW_JE_RELEASE,          /* it was released (`sandwall release`, the end of a run) */
	SW_JE_COUNT,
	SW_JE_UNKNOWN = SW_JE_COUNT,
};
const char *sw_jevent_name(enum sw_jevent e);
enum sw_jevent sw_jevent_parse(const char *name);
/* Is e a kind only a running sandwalld writes, so that a line of it
 * proves the daemon ran (not start or stop, nor a kind the CLI writes)? */
bool sw_jevent_while_running(enum sw_jevent e);

/* Start a journal line in w: {"time":..,"unix":..,"us":..,"event":..,"table":..
 * (the caller adds members, then sw_journal_add_jw closes and appends).
 * now_us: the event's time in microseconds since the epoch (0: now). */
void sw_journal_begin(struct sw_jw *w, enum sw_jevent e, const char *table, time_t now);
void sw_journal_begin_us(struct sw_jw *w, enum sw_jevent e, const char *table, int64_t now_us);
/* Who did it: "uid" and "pid" (and "comm" when given) members. */
void sw_journal_who(struct sw_jw *w, int64_t uid, int64_t pid, const char *comm);
int sw_journal_add_jw(struct sw_journal *j, struct sw_jw *w);

/* Open for appending (creates the file and its directory, 0600). A file
 * that cannot be opened now is opened again at the next add. */
int sw_journal_open(struct sw_journal *j, const char *path);
/* Append one JSON object (without newline): 0 or -errno (then counted in
 * j->errors, j->failing set; the next success ends the episode and
 * appends a "hole" event saying how many lines were lost since when). */
int sw_journal_add(struct sw_journal *j, const char *json);
void sw_journal_close(struct sw_journal *j);

/* One line by a process that does not keep the journal open (the CLI's
 * apply and remove, verify): open, append, rotate if due, close. */
int sw_journal_append(const char *path, const char *json);

/* Read PATH.1 then PATH into one malloc'd buffer (*text, *len). Missing
 * files read as empty. 0 or -errno. */
int sw_journal_read(const char *path, char **text, size_t *len);

/* "2026-12-02T08:30:00Z" */
void sw_iso_utc(int64_t unix_s, char *buf, size_t len);
/* ISO 8601 UTC ("2026-12-02T08:30:00Z", also without Z or with seconds
 * omitted) or unix seconds: 0 or -EINVAL. */
int sw_time_parse(const char *s, int64_t *unix_s);

#endif
