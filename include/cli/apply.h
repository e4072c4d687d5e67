/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CLI_APPLY_H
#define SANDWALL_CLI_APPLY_H
/* apply without a daemon that runs the same config (sandwall.c hands
 * those to it): refused while another config's daemon runs, through the
 * daemon when it owns the table, else table inet <name> reconciled (or
 * rewritten with --force) and read back, the allowlists' hostnames
 * resolved once, then table netdev and table bridge <name>. */
#include "cli/cli.h"
#include "core/config.h"
#include "host/hoststate.h"

/* The verb: 0 or EXIT_ERR. */
int sw_cli_apply(struct sw_cli_run *x);

#endif
