/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CLI_H
#define SANDWALL_CLI_H
/* What the CLI's commands share (src/cli/sandwall.c is the verb table and
 * the dispatch): the options, what a command gets, the exit codes, and
 * the errors and journal lines of the commands that change the boundary. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/verify.h"
#include "core/config.h"
#include "core/model.h"
#include "host/hoststate.h"
#include "kernel/nl.h"
#include "lib/journal.h"

#define EXIT_DRIFT 1
#define EXIT_ERR   2

struct sw_cli_opts {
	bool force;
	bool accept_loss;               /* apply: a config that drops what the running one
					 * gave, or an empty file (sw_config_loss) */
	struct sw_verify_opts verify;   /* verify's options (sw_verify_optdefs) */
	const char *config;
	bool config_given;              /* -c: not the default path */
	const char *control;
	bool json;
	bool verbose;
	int64_t since, until;           /* receipt's window (-1: not given) */
	const char *output;             /* receipt --output FILE */
	bool sign;                      /* receipt --sign: FILE.sig too (cli/key.h) */
	const char *verify_file;        /* receipt --verify FILE */
	const char *allowed_signers;    /* --allowed-signers [FILE]: "" without FILE (key) */
	bool strict;                    /* lint: warnings make the exit code 1 */
	const char *preview;            /* check --preview FILE: compare the kernel with FILE */
};

/* What a command gets, ready (sandwall.c's main fills it from the verb's
 * needs). */
struct sw_cli_run {
	struct sw_cli_opts *o;
	struct sw_config *cfg;
	struct sw_host *host;
	struct sw_model *want;          /* NEED_MODEL only */
	struct sw_nl *nl;               /* kernel commands only */
	int argc;                       /* a verb that takes words of its own (run): */
	char **argv;                    /* those after the verb */
};

/* An error of apply, check or remove. -EEXIST: the table is another
 * tool's (reconcile.c); the message then points at the config key. */
void sw_cli_table_err(const struct sw_config *cfg, int rc, const char *err, const char *tail);
/* What to add to an error rc of the kernel: " (sandwall needs root ...)"
 * when it is -EPERM and the CLI does not run as root, else "". */
const char *sw_cli_perm_hint(int rc);
/* The CLI's own change of the boundary (apply, remove) or a verify
 * (verify_code: its exit code), in the journal with its own uid and pid. */
void sw_cli_journal(const struct sw_config *cfg, enum sw_jevent e, const char *by,
		    int verify_code);

/* verify as `sandwall verify` runs it, its result written to record (NULL:
 * verify.json beside the journal), a verify line in the journal. The
 * exit code: 0 held, 1 not, 2 error. */
int sw_cli_verify(const struct sw_cli_opts *o, const struct sw_config *cfg, const char *record);
/* The ruleset as `sandwall export` prints it (table inet, and table bridge
 * when a sandbox keys on a source) to f. 0 or -errno (said on stderr). */
int sw_cli_export(struct sw_cli_run *x, FILE *f);

#endif
