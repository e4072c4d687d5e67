/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RECEIPT_H
#define SANDWALL_RECEIPT_H
/* receipt: one audit document for a run: host, kernel, time window,
 * sha256 of the config and of the ruleset, guarded interfaces, blocked
 * counts, drift events from the daemon's journal, the last verify result,
 * and a verdict that says "held" only when the kernel holds the ruleset,
 * no drift went unrepaired and the last verify passed. */
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "host/attempts.h"
#include "kernel/nl.h"
#include "lib/json.h"

struct sw_receipt_in {
	const struct sw_config *cfg;
	const struct sw_host *host;
	struct sw_model *want;    /* its gate follows the kernel (sw_check) */
	struct sw_nl *nl;
	const char *control;        /* the daemon's control socket */
	bool json;
	int64_t since, until;       /* the window, unix seconds (-1: the oldest event kept, now) */
	const char *output;         /* --output FILE: written there (atomically), not stdout */
	bool sign;                  /* with output: FILE.sig too (sw_cli_sign) */
};

/* Returns the exit code: 0 held, 1 not held, 2 error. */
int sw_receipt_cmd(const struct sw_receipt_in *in);

/* What the daemon's journal says (JSON lines, see journal.h). */
struct sw_receipt_journal {
	size_t events, drifts;
	size_t unrepaired;          /* repair failures not settled by a later repair */
	size_t malformed;           /* lines that are no journal event: not trusted */
	int64_t first;              /* unix time of the first event, -1 if none */
	int64_t last_stop;          /* of the last stop or remove (a gap), -1 if none */
};
/* Read journal text (lines); each good line's parsed object is appended
 * to lines (a SW_JARR value the caller frees) when lines is not NULL.
 * Returns 0 or -ENOMEM. */
int sw_receipt_read_journal(const char *text, size_t len, struct sw_receipt_journal *out,
			    struct sw_jv *lines);
/* Read the last verify record: its time and verdict. 0, or -EINVAL when it
 * is no verify record. */
int sw_receipt_read_verify(const char *text, size_t len, int64_t *time, bool *passed);

/* ---- what the command reads (receipt_read.c) ------------------------------ */

/* A file's text, NUL-terminated, malloc'd (at most 4 MiB); NULL when it
 * cannot be read. */
char *sw_receipt_slurp(const char *path, size_t *len);
/* The last verify's per-sandbox verdicts ("sandboxes" of verify.json, read
 * with the strict reader). */
struct sw_receipt_sbx {
	struct sw_jv doc;
	const struct sw_jv *list;       /* NULL: the record has none (an older verify) */
};
/* 0, or -EINVAL when an entry's name, egress or verdict is no string (the
 * record is not trusted). out->doc is the caller's to free. */
int sw_receipt_read_sbx(const char *text, size_t len, struct sw_receipt_sbx *out);
/* Is attempt (an element of attempts.json's "attempts") a verify's own:
 * the daemon said so, its UDP port is verify's canary, or its source or
 * destination is one of verify's probe addresses? */
bool sw_receipt_by_verify(const struct sw_jv *a, const struct sw_attempts_probes *probes);

/* /etc/machine-id's first line ("" when it cannot be read). */
void sw_receipt_machine_id(char *buf, size_t len);

/* ---- the network log (receipt_flows.c) ------------------------------------ */

/* The flows of the window from flows.jsonl (and flows.jsonl.1): each
 * "flow" line whose [first, last] meets [since, until], and the
 * "flows-dropped" / "flows-lost" lines of the window summed; then the
 * open flows of flows-open.json, unless the daemon's stop already wrote
 * them as "open" lines (a line at or after the snapshot's time). */
struct sw_receipt_flows {
	struct sw_jv *list;             /* parsed flow records, in file order */
	size_t n, cap;
	size_t closed, open, gone;      /* by "state" */
	uint64_t dropped, lost;         /* in the window */
	size_t malformed;               /* lines that are no record */
	bool have_log;                  /* flows.jsonl (or .1) was there */
	int64_t oldest;                 /* the oldest line kept (unix; -1: none): before
					 * it, rotation took the records */
};
/* 0 or -ENOMEM. Either text may be NULL. */
int sw_receipt_read_flows(const char *log, size_t loglen, const char *open_json, size_t openlen,
			  int64_t since, int64_t until, struct sw_receipt_flows *out);
void sw_receipt_flows_free(struct sw_receipt_flows *f);
/* The same from the files beside cfg's journal (flows.jsonl, .1, and
 * flows-open.json): 0 or -ENOMEM; no log is none. */
int sw_receipt_flows_load(const struct sw_config *cfg, int64_t since, int64_t until,
			  struct sw_receipt_flows *out);
/* "flows": {"recorded","oldest_record","count","closed","open","gone","dropped","lost_events",
 * "malformed","list":[..]} */
void sw_receipt_flows_json(struct sw_jw *w, const struct sw_receipt_flows *f);
/* The text section: the count, at most max flows, "and M more". */
void sw_receipt_flows_text(const struct sw_receipt_flows *f, FILE *out, size_t max);
/* A flow record's "name" (what the sandbox's DNS answer said dst was) as
 * " (NAME)" for a terminal, printable ASCII only; "" when it has none. */
void sw_receipt_flow_name(const struct sw_jv *v, char *out, size_t len);
#define SW_RECEIPT_FLOWS_TEXT 20
/* ---- the sandboxes (receipt_ident.c): identities.jsonl ------------------- */

#define SW_RECEIPT_IDS 256
/* The sandboxes sandwalld saw (identities.jsonl, then .1) with a line
 * inside [since, until]: one per runtime and id (its last line there). */
struct sw_receipt_ids {
	struct sw_identity id[SW_RECEIPT_IDS];
	int64_t when[SW_RECEIPT_IDS];
	size_t n;
	size_t more;                /* beyond SW_RECEIPT_IDS: not listed */
	bool have_file;
};
/* text: the lines (PATH.1 then PATH). Malformed lines are skipped. */
void sw_receipt_read_ids(const char *text, size_t len, int64_t since, int64_t until,
			 struct sw_receipt_ids *out);
/* " [NAME RUNTIME SHORTID IMAGE]" for an attempt's "identity" ("" without). */
void sw_receipt_ident_tag(const struct sw_jv *attempt, char *buf, size_t len);
void sw_receipt_ids_text(FILE *out, const struct sw_receipt_ids *ids);
/* "sandboxes_seen": [...] (null when there is no file). */
void sw_receipt_ids_json(const struct sw_receipt_ids *ids, struct sw_jw *w);

#endif
