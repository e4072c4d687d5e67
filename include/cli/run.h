/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RUN_H
#define SANDWALL_RUN_H
/* run: an eval run inside the boundary (sandwall(8) RUNS).
 *
 *   sandwall run [--label L] [--timeout DUR] [--receipt FILE] -- CMD [ARG...]
 *   sandwall run start [--label L] [--receipt FILE]
 *   sandwall run stop LABEL|ID
 *
 * A run opens with a run-start line in the journal and a preflight verify
 * (attacks included); when that does not hold, or no sandwalld answers,
 * the command is not started. The command runs with its own stdio (and
 * SANDWALL_RUN, SANDWALL_RUN_LABEL in its environment); on its exit or at
 * the timeout (SIGTERM, SIGKILL 10 s later) the run closes with a
 * postflight verify and a run-stop line, and the run receipt is written
 * (JSON at FILE, text at FILE.txt, each signed: FILE.sig, FILE.txt.sig)
 * over the run's window. The state of an open run is DIR/runs/ID.json,
 * DIR the journal's directory. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cli/cli.h"

/* The exit status of `sandwall run` (wrap and stop). */
enum sw_run_exit {
	SW_RUN_EXIT_CONTAINED = 0,      /* contained, and the command exited 0 */
	SW_RUN_EXIT_PREFLIGHT = 1,      /* the preflight did not hold: the command was not started */
	SW_RUN_EXIT_ERROR = 2,          /* usage, config or system error: no run, or no receipt */
	SW_RUN_EXIT_BREACH = 3,         /* the run is not contained (the command ran) */
	SW_RUN_EXIT_CMD_FAILED = 4,     /* contained, but the command failed, was killed or timed out */
};

#define SW_RUN_ID_LEN    40

/* [sandbox] max_connections counts at a run's start */
enum sw_run_counts {
	SW_RUN_COUNTS_NONE,             /* no sandbox has max_connections */
	SW_RUN_COUNTS_RESET,            /* sandwalld started every source's count again */
	SW_RUN_COUNTS_SHARED,           /* another run was open: its counts go on (shared_with) */
	SW_RUN_COUNTS_FAILED,           /* sandwalld did not: the command is not started */
};
const char *sw_run_counts_name(enum sw_run_counts c);
#define SW_RUN_LABEL_MAX 64

/* One run, as recorded in DIR/runs/ID.json and in its receipt. */
struct sw_run {
	char id[SW_RUN_ID_LEN];         /* "20261203T114501Z-3f9a0c21" */
	char label[SW_RUN_LABEL_MAX + 1];
	int64_t start_us, stop_us;      /* stop_us 0: open */
	uint32_t uid;
	int32_t pid;                    /* the sandwall that opened it */
	char cmd[1024];                 /* the command line as given (shell-quoted words) */
	bool wrapped;                   /* a command of its own (not run start/stop) */
	bool started;
	bool timed_out;
	int64_t timeout_ms;
	int status;                     /* exit status, or -1 */
	int signal;                     /* killed by, or 0 */
	int pre, post;                  /* verify exits: 0 held, 1 not, 2 error, -1 not run */
	bool daemon_start, daemon_stop;
	enum sw_run_counts counts;      /* max_connections at the start */
	char counts_with[SW_RUN_ID_LEN]; /* SHARED: the run that was open */
	char mode[32];                  /* the daemon's ownership mode at the start */
	char receipt[4096];             /* where the receipt goes */
};

struct sw_run_args {
	enum { SW_RUN_WRAP, SW_RUN_START, SW_RUN_STOP } mode;
	const char *label;
	int64_t timeout_ms;             /* 0: none */
	const char *receipt;            /* NULL: DIR/runs/ID.receipt.json */
	const char *stop;               /* run stop: a label or a run id */
	char **cmd;                     /* wrap: the command, NULL-terminated */
};

/* Parse the words after "run" (argv[0] is the first of them). 0, or
 * -EINVAL with the message in err. */
int sw_run_parse(int argc, char **argv, struct sw_run_args *a, char *err, size_t len);
/* "90", "90s", "500ms", "5m", "2h": milliseconds in 1 ms .. 7 days. */
int sw_run_duration(const char *s, int64_t *ms);
/* A label: 1..64 of [A-Za-z0-9._-]. */
bool sw_run_label_ok(const char *s);

/* The state file of a run: read and written with every length checked.
 * 0, -EINVAL (no run record), -errno. */
int sw_run_save(const char *path, const struct sw_run *r);
int sw_run_load(const char *path, struct sw_run *r);
void sw_run_json(const struct sw_run *r, struct sw_jw *w);
/* Whether the command may start: the preflight held, sandwalld answered
 * and the max_connections counts are this run's. */
bool sw_run_may_start(const struct sw_run *r);

/* The verb (sandwall.c's verb table): the exit status above. */
int sw_cli_run(struct sw_cli_run *x);

/* The run receipt (run_receipt.c): build it over [start, stop], write
 * JSON to r->receipt and text to r->receipt.txt, sign both; *contained
 * the verdict. 0 or -errno (said on stderr). */
int sw_run_receipt(struct sw_cli_run *x, const struct sw_run *r, const char *dir,
		   bool *contained);

/* Release, through sandwalld, every source the journal says was
 * quarantined inside run r's window (the run has ended). */
void sw_run_release_quarantines(struct sw_cli_run *x, const struct sw_run *r);

#endif
