/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_LINT_H
#define SANDWALL_LINT_H
/* lint: what a config that parses may still get wrong on this host, as
 * warnings (`sandwall lint`, and after `apply`). Pure: the config, the
 * host and what the caller read of the machine (the DMI vendor). Each
 * warning has a stable id, the line it is about (0: the file as a whole)
 * and a message:
 *   guard-pattern-unmatched  a [guard] interfaces pattern matches no interface
 *   guard-unguarded          a container-facing link that no guard covers
 *   private-off-cloud        [block] private = no on a cloud VM (the VPC and
 *                            peered networks are open to the sandboxes)
 *   allow-reopen             an [allow] destinations entry marked reopen, and
 *                            the categories it reopens
 * An unknown key (with its did-you-mean) and a hostname where only
 * addresses are taken are refusals of the parser, not warnings. */
#include <stddef.h>
#include <stdio.h>
#include "core/config.h"
#include "core/host.h"
#include "lib/json.h"

#define SW_LINT_MAX     128     /* warnings kept; beyond, only counted */
#define SW_LINT_MSGLEN  320

struct sw_lint_warn {
	const char *id;
	unsigned line;
	char msg[SW_LINT_MSGLEN];
};

struct sw_lint {
	struct sw_lint_warn w[SW_LINT_MAX];
	size_t n;               /* all of them (may exceed SW_LINT_MAX) */
};

struct sw_lint_in {
	const struct sw_config *cfg;
	const struct sw_host *host;     /* NULL: no host checks */
	const char *cloud;              /* the cloud the machine runs in (sw_lint_cloud), or NULL */
};

/* Every warning, in a fixed order (by check, then by line). */
void sw_lint(const struct sw_lint_in *in, struct sw_lint *out);
/* The cloud a DMI sys_vendor or product_name names ("Amazon EC2",
 * "Google", "Microsoft Corporation", ...): its short name, or NULL. */
const char *sw_lint_cloud(const char *sys_vendor, const char *product_name);
/* One line each: "PREFIXFILE:LINE: warning: MESSAGE [ID]"; the count. */
size_t sw_lint_print(const struct sw_lint *l, const struct sw_config *cfg, FILE *f,
		     const char *prefix);
/* {"warnings":[{"id","file","line","message"}]} members in the open object
 * ("line" null for the file as a whole). */
void sw_lint_json(const struct sw_lint *l, const struct sw_config *cfg, struct sw_jw *w);

#endif
