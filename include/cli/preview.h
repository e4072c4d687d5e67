/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CLI_PREVIEW_H
#define SANDWALL_CLI_PREVIEW_H
/* check --preview FILE: what applying FILE would change in the kernel
 * (tables inet, netdev and bridge NAME), without changing it: FILE is
 * read and checked as apply would, its desired model built against this
 * host (core/desired.c) and compared with what the kernel holds
 * (core/diff.c, read only: sw_check). */
#include "cli/cli.h"

/* 0 nothing would change, EXIT_DRIFT something would (printed: "missing"
 * is what applying FILE adds, "extra" what it deletes, "changed" what it
 * rewrites), EXIT_ERR when FILE is refused or the kernel cannot be read. */
int sw_cli_preview(struct sw_cli_run *x);

#endif
