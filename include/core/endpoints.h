/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ENDPOINTS_H
#define SANDWALL_ENDPOINTS_H
/* endpoints: the built-in address lists (rules/NAME.list, compiled in). */
#include <stddef.h>
#include "lib/addr.h"

extern const char sw_metadata_list[];   /* generated from rules/metadata.list */

/* Parse list text (one prefix per line, '#' comments). Returns 0, -EINVAL
 * with *bad_line set, or -ENOSPC. */
int sw_endpoints_parse(const char *text, struct sw_prefix *out, size_t max,
		       size_t *n, unsigned *bad_line);
/* The metadata endpoints, from the compiled-in list. */
int sw_endpoints_metadata(struct sw_prefix *out, size_t max, size_t *n);

#endif
