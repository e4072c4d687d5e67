/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CONFIG_CHECK_H
#define SANDWALL_CONFIG_CHECK_H
/* config_check: the config as the programs read it: parsed (core/config.h)
 * and checked as a whole against the block categories that do not depend
 * on the host, i.e. an [allow] destinations entry that reopens one of
 * them without saying `reopen` is refused (core/holes.h; those that need
 * the host are sw_config_check_host's). */
#include <stddef.h>
#include "core/config.h"

/* Parse a file. On error returns -EINVAL (bad content) or -errno (cannot
 * read) and writes "FILE:LINE: what is wrong" (or "FILE: strerror") to err.
 * cfg is fully written only on success; on failure it is left as defaults. */
int sw_config_load(const char *path, struct sw_config *cfg, char *err, size_t errlen);
/* Same, from a string; name is used in messages in place of the file. */
int sw_config_parse_string(const char *text, const char *name,
			   struct sw_config *cfg, char *err, size_t errlen);

#endif
