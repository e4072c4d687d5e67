/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CLI_LINT_H
#define SANDWALL_CLI_LINT_H
/* lint: the config's warnings on this host (core/lint.h), as text or
 * JSON, and the same warnings on stderr after an apply. The cloud is read
 * from DMI: $SANDWALL_DMI_DIR (tests) or /sys/class/dmi/id, files
 * sys_vendor and product_name. */
#include "cli/cli.h"

/* The verb: 0 (no warning, or warnings without --strict), EXIT_DRIFT
 * (warnings with --strict) or EXIT_ERR (config or host error). */
int sw_cli_lint(struct sw_cli_run *x);
/* Every warning, once, on stderr: "sandwall: FILE:LINE: warning: ..." (apply). */
void sw_cli_lint_warn(const struct sw_config *cfg, const struct sw_host *host);

#endif
