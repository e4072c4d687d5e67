/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CLI_STATUS_H
#define SANDWALL_CLI_STATUS_H
/* status: the table's state, the daemon's, what is guarded and why (the
 * links, the output path, the macvlan/ipvlan parents), the counters per
 * block category and sandbox, table netdev and table bridge <name>; as
 * text or one JSON document. */
#include "cli/cli.h"

/* The verb: 0, EXIT_DRIFT (no table, a hole, a packet socket not held)
 * or EXIT_ERR. */
int sw_cli_status(struct sw_cli_run *x);

#endif
