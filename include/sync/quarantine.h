/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_QUARANTINE_H
#define SANDWALL_QUARANTINE_H
/* quarantine: taking a source (or a link) out of the quarantine sets the
 * packet path fills ([sandbox] quarantine_on, rs_sandbox.c): `sandwall
 * release`, and the end of a run. What is released is an IPv4 or IPv6
 * address (sets sbx_NAME_q4 / q6) or an interface name (sbx_NAME_qif), in
 * every sandbox that has quarantine_on (or only in one, by name). */
#include <stddef.h>
#include "core/config.h"
#include "kernel/nl.h"

/* What to release: an address or a link name. 0, or -EINVAL (said in err). */
struct sw_release {
	int family;                     /* AF_INET, AF_INET6, or 0 for a link */
	uint8_t key[16];                /* the address, or the name (NUL-padded) */
	char text[48];
};
int sw_release_parse(const char *what, struct sw_release *r, char *err, size_t errlen);

/* Delete r from the quarantine sets of table inet cfg->table (sandbox: a
 * [sandbox] name, or NULL for every one), and an address from its
 * max_connections set too (its count starts again). *released: how many
 * quarantine sets held it. 0 (also when none held it), or -errno with err
 * filled. */
int sw_quarantine_release(struct sw_nl *nl, const struct sw_config *cfg, const char *sandbox,
			  const struct sw_release *r, size_t *released, char *err, size_t errlen);

/* Empty the max_connections sets (sbx_NAME_conns4 / 6) of every sandbox
 * that has max_connections: each source's count starts again (a run's
 * start). *sets: how many were emptied. 0, or -errno with err filled. */
int sw_conns_reset(struct sw_nl *nl, const struct sw_config *cfg, size_t *sets, char *err,
		   size_t errlen);

#endif
