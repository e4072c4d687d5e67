/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config: the defaults of struct sw_config and what can be told from one
 * without the file (see include/core/config.h; the parser is
 * config_parse.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "core/config.h"
#include "lib/grow.h"

/* cfg's fields from src (a whole struct), cfg's own arrays kept */
static void keep_arrays(struct sw_config *cfg, const struct sw_config *src)
{
	struct sw_prefix *d = cfg->destinations;
	struct sw_allow *a = cfg->allows;
	struct sw_sandbox *b = cfg->sandboxes;
	size_t cd = cfg->cap_destinations, ca = cfg->cap_allows, cb = cfg->cap_sandboxes;

	if (cfg != src)
		memcpy(cfg, src, sizeof(*cfg));
	cfg->destinations = d;
	cfg->cap_destinations = cd;
	cfg->allows = a;
	cfg->cap_allows = ca;
	cfg->sandboxes = b;
	cfg->cap_sandboxes = cb;
}

void sw_config_free(struct sw_config *cfg)
{
	free(cfg->destinations);
	free(cfg->allows);
	free(cfg->sandboxes);
	memset(cfg, 0, sizeof(*cfg));
}

int sw_config_copy(struct sw_config *dst, const struct sw_config *src)
{
	if (dst == src)
		return 0;
	keep_arrays(dst, src);
	if (SW_GROW_TO(dst->destinations, dst->cap_destinations, src->n_destinations) ||
	    SW_GROW_TO(dst->allows, dst->cap_allows, src->n_allows) ||
	    SW_GROW_TO(dst->sandboxes, dst->cap_sandboxes, src->n_sandboxes)) {
		sw_config_free(dst);
		return -ENOMEM;
	}
	if (src->n_destinations)
		memcpy(dst->destinations, src->destinations,
		       src->n_destinations * sizeof(*src->destinations));
	if (src->n_allows)
		memcpy(dst->allows, src->allows, src->n_allows * sizeof(*src->allows));
	if (src->n_sandboxes)
		memcpy(dst->sandboxes, src->sandboxes, src->n_sandboxes * sizeof(*src->sandboxes));
	return 0;
}

void sw_config_defaults(struct sw_config *cfg)
{
	static const struct sw_config zero;

	keep_arrays(cfg, &zero);
	cfg->auto_detect = true;        /* [guard] interfaces = auto */
	cfg->parents_auto = true;       /* [guard] macvlan_parents = auto: the uplinks */
	for (int c = 0; c < SW_CAT_COUNT; c++)
		cfg->block[c] = sw_categories[c].default_on;
	cfg->dns = SW_DNS_AUTO;
	cfg->log_blocked = true;
	cfg->log_facility = LOG_DAEMON;
	cfg->log_group = 3210;
	cfg->log_names_group = 3211;
	cfg->log_flows = true;
	cfg->log_max_flows = 4096;
	cfg->log_flow_interval = 30;
	cfg->resync_interval = 30;
	cfg->owner = SW_OWNER_AUTO;
	cfg->dns_min_ttl = SW_DNS_MIN_TTL;
	cfg->dns_max_ttl = SW_DNS_MAX_TTL;
	strcpy(cfg->journal_path, SW_DEFAULT_JOURNAL);
	strcpy(cfg->receipt_key, SW_DEFAULT_RECEIPT_KEY);
	strcpy(cfg->table, "sandwall");
	strcpy(cfg->canaries[0], SW_DEFAULT_CANARY);
	cfg->n_canaries = 1;
	cfg->identity = true;
}

bool sw_config_is_empty(const struct sw_config *cfg)
{
	for (size_t i = 0; i < sizeof(cfg->section_line) / sizeof(*cfg->section_line); i++)
		if (cfg->section_line[i])
			return false;
	return !cfg->n_sandboxes;
}

static const char *const egress_names[SW_EGRESS_COUNT] = {
	[SW_EGRESS_OPEN] = "open", [SW_EGRESS_NONE] = "none", [SW_EGRESS_ALLOWLIST] = "allowlist",
};

const char *sw_egress_name(enum sw_egress e)
{
	return (unsigned)e < SW_EGRESS_COUNT ? egress_names[e] : "unknown";
}
