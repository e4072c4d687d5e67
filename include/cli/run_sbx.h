/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RUN_SBX_H
#define SANDWALL_RUN_SBX_H
/* run_sbx: a run's sandboxes: every source that made a blocked attempt
 * (attempts.json) or opened an allowed flow (the network log) inside the
 * run's window, verify's own probes apart, one entry per source address
 * and interface, named by its identity where a record has one. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/receipt.h"
#include "host/attempts.h"
#include "lib/json.h"

struct sw_run_sbx_in {
	const struct sw_jv *attempts;           /* attempts.json (NULL: none) */
	const struct sw_receipt_flows *flows;   /* the window's flows (NULL: none) */
	const struct sw_attempts_probes *probes; /* verify's probes (preflight, postflight) */
	size_t n_probes;
	int64_t since, until;                   /* the window, unix seconds */
	const char *run_id;                     /* this run's (the sandwall.run label) */
	const struct sw_jv *identities;         /* identities.jsonl's records (SW_JARR, or NULL) */
	bool overlapped;                        /* another run was open during the window */
};

struct sw_run_sbx {
	const char *src, *iif;                  /* point into the records */
	const struct sw_jv *identity;           /* the first record's that has one, else
						 * identities.jsonl's for its address, or NULL */
	bool labelled;                          /* its identity says sandwall.run = this run */
};
struct sw_run_sbxs {
	struct sw_run_sbx *v;
	size_t n;
};

/* Is src (text) one of verify's probe addresses? */
bool sw_run_by_verify(const struct sw_attempts_probes *probes, size_t n, const char *src);
/* Flows first seen in the window's first second or before it (open
 * before the run: not the run's, counted apart). */
size_t sw_run_flows_before(const struct sw_run_sbx_in *in);
/* 0 or -ENOMEM. A source whose identity carries another run's
 * sandwall.run label is that run's, not this one's: left out. */
int sw_run_sbx_collect(const struct sw_run_sbx_in *in, struct sw_run_sbxs *out);
/* "sandboxes": [{src, iif, identity, attempts[], flows[]}] */
void sw_run_sbx_json(struct sw_jw *w, const struct sw_run_sbx_in *in, const struct sw_run_sbxs *s);
/* The text: each sandbox, its blocked attempts and allowed flows (at most max lines). */
void sw_run_sbx_text(FILE *f, const struct sw_run_sbx_in *in, const struct sw_run_sbxs *s,
		     size_t max);
void sw_run_sbxs_free(struct sw_run_sbxs *s);

#endif
