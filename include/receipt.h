/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RECEIPT_H
#define SANDWALL_RECEIPT_H
/* receipt: one audit document for a run: host, kernel, time window,
 * sha256 of the config and of the ruleset, guarded interfaces, blocked
 * counts, drift events from the daemon's journal, the last verify result,
 * and a verdict that says "held" only when the kernel holds the ruleset,
 * no drift went unrepaired and the last verify passed. */
#include <stdbool.h>
#include "config.h"
#include "hoststate.h"
#include "model.h"
#include "nl.h"

struct sw_receipt_in {
	const struct sw_config *cfg;
	const struct sw_host *host;
	const struct sw_model *want;
	struct sw_nl *nl;
	const char *control;        /* the daemon's control socket */
	bool json;
};

/* Returns the exit code: 0 held, 1 not held, 2 error. */
int sw_receipt_cmd(const struct sw_receipt_in *in);

#endif
