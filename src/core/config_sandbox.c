/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_sandbox: the [sandbox NAME] sections (an isolation level for some
 * sandbox networks) and what they must say as a whole. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/category.h"
#include "core/config_parse.h"
#include "lib/grow.h"

#define SBX_WORD "sandbox"

/* "sandbox NAME" (one or more blanks between) */
bool sw_cfg_is_sandbox(const char *s, size_t n)
{
	return n > strlen(SBX_WORD) && !strncmp(s, SBX_WORD, strlen(SBX_WORD)) &&
	       (s[strlen(SBX_WORD)] == ' ' || s[strlen(SBX_WORD)] == '\t');
}

/* A new [sandbox NAME] section from its header line. */
void sw_cfg_sandbox_open(struct sw_cfg_ctx *c, const char *s, size_t n)
{
	struct sw_config *cfg = c->cfg;
	struct sw_sandbox *b;
	size_t i = strlen(SBX_WORD), len;
	const char *name;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	name = s + i;
	len = n - i;
	while (len && (name[len - 1] == ' ' || name[len - 1] == '\t'))
		len--;
	for (i = 0; i < len && (isalnum((unsigned char)name[i]) || name[i] == '_'); i++)
		;
	if (!len || len >= SW_SANDBOX_NAMELEN || i != len) {
		sw_cfg_fail(c, "bad sandbox name '%.*s' (1..%d of A-Z a-z 0-9 _)", (int)len, name,
			    SW_SANDBOX_NAMELEN - 1);
		return;
	}
	for (i = 0; i < cfg->n_sandboxes; i++)
		if (strlen(cfg->sandboxes[i].name) == len && !memcmp(cfg->sandboxes[i].name, name, len)) {
			sw_cfg_fail(c, "section [sandbox %.*s] repeated (first at line %u): give each "
				    "section once", (int)len, name, cfg->sandboxes[i].line);
			return;
		}
	if (cfg->n_sandboxes == SW_MAX_SANDBOXES) {
		sw_cfg_fail(c, "too many [sandbox] sections (max %d)", SW_MAX_SANDBOXES);
		return;
	}
	if (SW_GROW(cfg->sandboxes, cfg->cap_sandboxes, cfg->n_sandboxes, SW_MAX_SANDBOXES)) {
		sw_cfg_fail(c, "%s", strerror(ENOMEM));
		return;
	}
	b = &cfg->sandboxes[cfg->n_sandboxes++];
	memset(b, 0, sizeof(*b));
	memcpy(b->name, name, len);
	b->line = (unsigned)c->line;
	b->egress = SW_EGRESS_OPEN;
	b->dns = SW_DNS_AUTO;
}

const struct sw_cfg_sbx_key sw_cfg_sbx_keys[SBX_KEYS] = {
	[SBX_INTERFACES] = { "interfaces", true }, [SBX_SOURCES] = { "sources", true },
	[SBX_EGRESS] = { "egress", false }, [SBX_ALLOW] = { "allow", true },
	[SBX_DNS] = { "dns", false }, [SBX_BUDGET] = { "budget", false },
	[SBX_BUDGET_SOURCES] = { "budget_sources", false },
	[SBX_QUARANTINE_ON] = { "quarantine_on", true },
	[SBX_MAX_CONNECTIONS] = { "max_connections", false },
};

_Static_assert(SW_CAT_COUNT <= 16, "quarantine_on: a bit per category below SW_Q_EGRESS");

/* quarantine_on = CATEGORY ...: a block category, egress or budget */
static int sbx_quarantine(struct sw_cfg_ctx *c, struct sw_sandbox *b, const char *t)
{
	int cat;

	if (!strcmp(t, "egress")) {
		b->quarantine_on |= SW_Q_EGRESS;
		return 1;
	}
	if (!strcmp(t, "budget")) {
		b->quarantine_on |= SW_Q_BUDGET;
		return 1;
	}
	cat = sw_category_lookup(t);
	if (cat == SW_CAT_SPOOFED)
		return sw_cfg_fail(c, "[sandbox %s] quarantine_on = spoofed: a forged source names no "
				   "sandbox to cut off", b->name);
	if (cat < 0)
		return sw_cfg_fail(c, "bad category '%s' in [sandbox %s] quarantine_on (use egress, "
				   "budget or a block category: metadata link_local host gateways lan "
				   "private destinations sandboxes)", t, b->name);
	b->quarantine_on |= 1u << cat;
	return 1;
}

/* budget = N/second|minute|hour, N 1..1000000 */
static int sbx_budget(struct sw_cfg_ctx *c, struct sw_sandbox *b, const char *v)
{
	static const struct { const char *unit; uint32_t seconds; } units[] = {
		{ "second", 1 }, { "minute", 60 }, { "hour", 3600 },
	};
	const char *slash = strchr(v, '/');
	unsigned long n;
	char *end;

	if (slash && slash > v && isdigit((unsigned char)*v)) {
		errno = 0;
		n = strtoul(v, &end, 10);
		for (size_t i = 0; !errno && end == slash && n >= 1 && n <= 1000000 &&
				   i < sizeof(units) / sizeof(*units); i++)
			if (!strcasecmp(slash + 1, units[i].unit)) {
				b->budget = (uint32_t)n;
				b->budget_unit = units[i].seconds;
				return 1;
			}
	}
	return sw_cfg_fail(c, "bad value '%s' for [sandbox %s] budget (use N/second, N/minute or N/hour, "
			   "N 1..1000000: new connections per source address)", v, b->name);
}

static int sbx_pattern(struct sw_cfg_ctx *c, struct sw_sandbox *b, const char *t)
{
	const char *why;

	if ((why = sw_cfg_pattern_error(t)))
		return sw_cfg_fail(c, "bad interface pattern '%s' in [sandbox %s] interfaces: %s", t,
				   b->name, why);
	for (size_t i = 0; i < b->n_patterns; i++)
		if (!strcmp(b->patterns[i], t))
			return 1;
	if (b->n_patterns == SW_MAX_SBX_PATTERNS)
		return sw_cfg_fail(c, "too many entries in [sandbox %s] interfaces (max %d)", b->name,
				   SW_MAX_SBX_PATTERNS);
	strcpy(b->patterns[b->n_patterns++], t);
	return 1;
}

static int sbx_source(struct sw_cfg_ctx *c, struct sw_sandbox *b, const char *t)
{
	struct sw_prefix p;
	const char *why;

	if (sw_prefix_parse(t, &p, &why) < 0)
		return sw_cfg_fail(c, "bad CIDR '%s' in [sandbox %s] sources: %s%s", t, b->name, why,
				   sw_cfg_hostname_hint(t));
	if (sw_cfg_v4_mapped(&p))
		return sw_cfg_fail(c, "'%s' in [sandbox %s] sources is an IPv4-mapped IPv6 address: "
				   "write it as IPv4", t, b->name);
	if (b->n_sources == SW_MAX_SBX_SOURCES)
		return sw_cfg_fail(c, "too many entries in [sandbox %s] sources (max %d)", b->name,
				   SW_MAX_SBX_SOURCES);
	b->source_lines[b->n_sources] = (unsigned)c->line;
	b->sources[b->n_sources++] = p;
	return 1;
}

/* "HOSTNAME PROTO/PORT": resolved by sandwalld into sbx_<name>_hosts4/6 */
static int sbx_name(struct sw_cfg_ctx *c, struct sw_sandbox *b, const char *a,
		    const struct sw_port *port)
{
	struct sw_name_allow *n;
	const char *why;

	if (!sw_dns_name_valid(a, &why))
		return sw_cfg_fail(c, "bad hostname '%s' in [sandbox %s] allow: %s", a, b->name, why);
	for (size_t i = 0; i < b->n_names; i++)
		if (!strcasecmp(b->names[i].name, a) && b->names[i].port.proto == port->proto &&
		    b->names[i].port.port == port->port)
			return 1;
	if (b->n_names == SW_MAX_SBX_NAMES)
		return sw_cfg_fail(c, "too many hostnames in [sandbox %s] allow (max %d)", b->name,
				   SW_MAX_SBX_NAMES);
	n = &b->names[b->n_names++];
	for (size_t i = 0; a[i]; i++)
		n->name[i] = (char)tolower((unsigned char)a[i]);
	n->name[strlen(a)] = '\0';
	n->port = *port;
	n->line = (unsigned)c->line;
	return 1;
}

/* An address or CIDR has digits, dots, colons and a '/' only (hex in v6):
 * everything else that is no CIDR is read as a hostname. */
static bool looks_like_cidr(const char *a)
{
	return strspn(a, "0123456789.") == strlen(a) || strchr(a, ':') || strchr(a, '/');
}

/* "CIDR PROTO/PORT" or "HOSTNAME PROTO/PORT", comma separated (no reopen:
 * a policy opens nothing) */
static int sbx_allow(struct sw_cfg_ctx *c, struct sw_sandbox *b, char *e)
{
	char *s2, *a = strtok_r(e, " \t", &s2), *port, *extra;
	struct sw_allow al = { .line = (unsigned)c->line };
	const char *why;

	if (!a)
		return 1;
	port = strtok_r(NULL, " \t", &s2);
	extra = strtok_r(NULL, " \t", &s2);
	if (!port || extra)
		return sw_cfg_fail(c, "bad entry '%s%s%s' in [sandbox %s] allow (use CIDR PROTO/PORT or "
				   "HOSTNAME PROTO/PORT, comma separated; a policy can only take access "
				   "away, so there is no reopen)",
				   a, port ? " " : "", port ? port : "", b->name);
	if (sw_prefix_parse(a, &al.dst, &why) < 0 && looks_like_cidr(a))
		return sw_cfg_fail(c, "bad CIDR '%s' in [sandbox %s] allow: %s", a, b->name, why);
	if (al.dst.family && sw_cfg_v4_mapped(&al.dst))
		return sw_cfg_fail(c, "'%s' in [sandbox %s] allow is an IPv4-mapped IPv6 address: write "
				   "it as IPv4", a, b->name);
	if (sw_cfg_port(port, &al.port) < 0)
		return sw_cfg_fail(c, "bad port '%s' in [sandbox %s] allow (use tcp/PORT or udp/PORT, "
				   "PORT 1..65535)", port, b->name);
	if (!al.dst.family)
		return sbx_name(c, b, a, &al.port);
	for (size_t i = 0; i < b->n_allows; i++)
		if (sw_prefix_equal(&b->allows[i].dst, &al.dst) &&
		    b->allows[i].port.proto == al.port.proto && b->allows[i].port.port == al.port.port)
			return 1;
	if (b->n_allows == SW_MAX_SBX_ALLOWS)
		return sw_cfg_fail(c, "too many entries in [sandbox %s] allow (max %d)", b->name,
				   SW_MAX_SBX_ALLOWS);
	b->allows[b->n_allows++] = al;
	return 1;
}

int sw_cfg_sandbox_key(struct sw_cfg_ctx *c, const char *name, const char *value)
{
	struct sw_sandbox *b;
	char v[SW_CFG_LINE_MAX + 3], *save, *t;
	int k, rc = 1;

	if (!c->cfg->n_sandboxes)
		return 1;       /* its header was refused */
	b = &c->cfg->sandboxes[c->cfg->n_sandboxes - 1];
	for (k = 0; k < SBX_KEYS && strcmp(sw_cfg_sbx_keys[k].name, name); k++)
		;
	if (k == SBX_KEYS) {
		const char *cands[SBX_KEYS], *near;

		for (int j = 0; j < SBX_KEYS; j++)
			cands[j] = sw_cfg_sbx_keys[j].name;
		near = sw_cfg_suggest(name, cands, SBX_KEYS);
		return c->cont ? 1 : sw_cfg_fail(c, "unknown key '%s' in [sandbox %s]%s%s%s (interfaces, sources, "
						 "egress, allow, dns, budget, budget_sources, quarantine_on, "
						 "max_connections)", name, b->name,
						 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	}
	if (c->cont && !sw_cfg_sbx_keys[k].list)
		return sw_cfg_fail(c, "continuation line for '%s' in [sandbox %s] (only lists may span lines)",
				   name, b->name);
	if (!c->cont) {
		if (b->seen & (1u << k))
			return sw_cfg_fail(c, "duplicate key '%s' in [sandbox %s]", name, b->name);
		b->seen |= 1u << k;
	}
	snprintf(v, sizeof(v), "%s", value);
	sw_cfg_strip_comment(v);
	switch (k) {
	case SBX_INTERFACES:
		for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t && rc == 1; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save))
			rc = sbx_pattern(c, b, t);
		return rc;
	case SBX_SOURCES:
		for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t && rc == 1; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save))
			rc = sbx_source(c, b, t);
		return rc;
	case SBX_ALLOW:
		for (t = strtok_r(v, ",", &save); t && rc == 1; t = strtok_r(NULL, ",", &save))
			rc = sbx_allow(c, b, t);
		return rc;
	case SBX_EGRESS:
		for (int e = 0; e < SW_EGRESS_COUNT; e++)
			if (!strcasecmp(v, sw_egress_name((enum sw_egress)e))) {
				b->egress = (enum sw_egress)e;
				return 1;
			}
		return sw_cfg_fail(c, "bad value '%s' for [sandbox %s] egress (use open, none or allowlist)",
				   v, b->name);
	case SBX_BUDGET:
		return sbx_budget(c, b, v);
	case SBX_QUARANTINE_ON:
		for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t && rc == 1; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save))
			rc = sbx_quarantine(c, b, t);
		return rc;
	case SBX_BUDGET_SOURCES: {
		/* budget_sources = N, 16..1048576: how many sources the budget
		 * tracks at once; a new source past that is dropped */
		unsigned long n;
		char *end;

		errno = 0;
		n = strtoul(v, &end, 10);
		if (!isdigit((unsigned char)*v) || errno || *end || n < SW_BUDGET_SOURCES_MIN ||
		    n > SW_BUDGET_SOURCES_MAX)
			return sw_cfg_fail(c, "bad value '%s' for [sandbox %s] budget_sources (use N, %d..%d: "
					   "source addresses the budget tracks at once)", v, b->name,
					   SW_BUDGET_SOURCES_MIN, SW_BUDGET_SOURCES_MAX);
		b->budget_sources = (uint32_t)n;
		return 1;
	}
	case SBX_MAX_CONNECTIONS: {
		/* max_connections = N, 1..SW_MAX_CONNS_MAX: new connections per
		 * source in a run; the one past them quarantines the source */
		unsigned long n;
		char *end;

		errno = 0;
		n = strtoul(v, &end, 10);
		if (!isdigit((unsigned char)*v) || errno || *end || n < 1 || n > SW_MAX_CONNS_MAX)
			return sw_cfg_fail(c, "bad value '%s' for [sandbox %s] max_connections (use N, "
					   "1..%d: new connections per source address and run)", v,
					   b->name, SW_MAX_CONNS_MAX);
		b->max_conns = (uint32_t)n;
		b->quarantine_on |= SW_Q_CONNS;
		return 1;
	}
	case SBX_DNS:
		if (!strcasecmp(v, "auto") || !strcasecmp(v, "none")) {
			b->dns = !strcasecmp(v, "auto") ? SW_DNS_AUTO : SW_DNS_NONE;
			return 1;
		}
		return sw_cfg_fail(c, "bad value '%s' for [sandbox %s] dns (use auto or none)", v, b->name);
	}
	return 1;
}

/* What a sandbox section must say as a whole. */
int sw_cfg_check_sandboxes(struct sw_cfg_ctx *c)
{
	for (size_t i = 0; i < c->cfg->n_sandboxes; i++) {
		const struct sw_sandbox *b = &c->cfg->sandboxes[i];

		c->line = (int)b->line;
		if (!b->n_patterns && !b->n_sources)
			return sw_cfg_fail(c, "[sandbox %s] names no interfaces and no sources: it would apply "
					   "to nothing", b->name);
		if (b->budget_sources && !b->budget)
			return sw_cfg_fail(c, "[sandbox %s] sets budget_sources but no budget", b->name);
		if ((b->quarantine_on & SW_Q_BUDGET) && !b->budget)
			return sw_cfg_fail(c, "[sandbox %s] quarantine_on = budget but it has no budget",
					   b->name);
		if ((b->quarantine_on & SW_Q_EGRESS) && b->egress == SW_EGRESS_OPEN &&
		    b->dns != SW_DNS_NONE)
			return sw_cfg_fail(c, "[sandbox %s] quarantine_on = egress but egress = open "
					   "blocks nothing of its own", b->name);
		if ((b->quarantine_on & ((1u << SW_CAT_COUNT) - 1)) && b->egress != SW_EGRESS_OPEN)
			return sw_cfg_fail(c, "[sandbox %s] quarantine_on names a block category, but "
					   "with egress = %s its traffic meets its own block first "
					   "(counted as egress_%s): use quarantine_on = egress",
					   b->name, sw_egress_name(b->egress), b->name);
		if ((b->n_allows || b->n_names) && b->egress != SW_EGRESS_ALLOWLIST)
			return sw_cfg_fail(c, "[sandbox %s] lists allow entries but egress is %s: allow is "
					   "for egress = allowlist", b->name, sw_egress_name(b->egress));
	}
	if (c->cfg->dns_min_ttl > c->cfg->dns_max_ttl) {
		c->line = (int)c->cfg->dns_ttl_line;
		return sw_cfg_fail(c, "[daemon] dns_min_ttl (%u) is above dns_max_ttl (%u)",
				   c->cfg->dns_min_ttl, c->cfg->dns_max_ttl);
	}
	return 1;
}
