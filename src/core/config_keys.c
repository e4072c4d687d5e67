/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_keys: the keys of the global sections ([guard] [block] [allow]
 * [log] [daemon] [nft] [verify]) and their value parsers; each set_*
 * parses one key line into the config, 1 or 0 after sw_cfg_fail. */
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/config_parse.h"
#include "core/guard.h"
#include "lib/grow.h"

/* Strict unsigned decimal in [min, max]: digits only, no sign, no spaces. */
int sw_cfg_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -EINVAL;
	}
	if (v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

int sw_cfg_bool(const char *s, bool *b)
{
	static const char *const t[] = { "yes", "true", "on", "1" }, *const f[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, t[i]))
			return *b = true, 0;
		if (!strcasecmp(s, f[i]))
			return *b = false, 0;
	}
	return -EINVAL;
}

/* "tcp/53" */
int sw_cfg_port(const char *s, struct sw_port *p)
{
	unsigned long v;

	if (!strncasecmp(s, "tcp/", 4))
		p->proto = IPPROTO_TCP;
	else if (!strncasecmp(s, "udp/", 4))
		p->proto = IPPROTO_UDP;
	else
		return -EINVAL;
	if (sw_cfg_uint(s + 4, 1, 65535, &v) < 0)
		return -EINVAL;
	p->port = (uint16_t)v;
	return 0;
}

static int set_bool(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	if (sw_cfg_bool(v, (bool *)((char *)c->cfg + k->off)) < 0)
		return sw_cfg_fail(c, "bad boolean '%s' for [%s] %s (use yes or no)", v, k->section, k->name);
	return 1;
}

const char *sw_cfg_pattern_error(const char *s)
{
	size_t n = strlen(s);
	const char *star = strchr(s, '*');

	if (n >= SW_IFNAMSIZ)
		return "longer than 15 characters";
	if (!strcmp(s, "*"))
		return "'*' alone matches every interface (see all_bridges)";
	if (star && star != s + n - 1)
		return "'*' only at the end";
	for (; *s && *s != '*'; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.:@-", *s))
			return "allowed characters are A-Z a-z 0-9 _ . : @ - and a final '*'";
	return NULL;
}

#define TOO_MANY(c, k, max) \
	sw_cfg_fail(c, "too many entries in [%s] %s (max %d)", (k)->section, (k)->name, max)

static int set_patterns(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		size_t i;

		if (!strcmp(t, SW_GUARD_AUTO)) {
			cfg->auto_detect = true;
			continue;
		}
		if ((why = sw_cfg_pattern_error(t)))
			return sw_cfg_fail(c, "bad interface pattern '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (sw_name_match(t, "lo"))
			return sw_cfg_fail(c, "interface pattern '%s' in [%s] %s matches the loopback interface lo: "
					   "guarding it would cut the host off from itself", t, k->section, k->name);
		for (i = 0; i < cfg->n_patterns && strcmp(cfg->patterns[i], t); i++)
			;
		if (i < cfg->n_patterns)
			continue;
		if (cfg->n_patterns == SW_MAX_PATTERNS)
			return TOO_MANY(c, k, SW_MAX_PATTERNS);
		strcpy(cfg->patterns[cfg->n_patterns++], t);
	}
	return 1;
}

/* [guard] users = NAME|UID ...: a number as it is, a name looked up now
 * (getpwnam); root is refused (the host's own traffic) */
static int set_users(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		struct sw_guard_user u = { 0 };
		unsigned long n;
		size_t i;

		if (sw_cfg_uint(t, 0, UINT32_MAX - 1, &n) == 0) {
			u.uid = (uint32_t)n;
		} else {
			struct passwd pw, *r = NULL;
			char buf[1024];

			if (strlen(t) >= SW_USER_NAMELEN || getpwnam_r(t, &pw, buf, sizeof(buf), &r) || !r)
				return sw_cfg_fail(c, "unknown user '%s' in [%s] %s (a name from the password "
						   "database or a number)", t, k->section, k->name);
			u.uid = (uint32_t)pw.pw_uid;
			snprintf(u.name, sizeof(u.name), "%s", t);
		}
		if (u.uid == 0)
			return sw_cfg_fail(c, "user '%s' in [%s] %s is root: guarding it would cut the host "
					   "off from its own services", t, k->section, k->name);
		for (i = 0; i < cfg->n_users && cfg->users[i].uid != u.uid; i++)
			;
		if (i < cfg->n_users)
			continue;
		if (cfg->n_users == SW_MAX_GUARD_USERS)
			return TOO_MANY(c, k, SW_MAX_GUARD_USERS);
		cfg->users[cfg->n_users++] = u;
	}
	return 1;
}

/* A cgroup pattern: components separated by '/', each a shell pattern
 * without '/' , never "." or "..", at most SW_CG_MAX_LEVEL of them. */
static const char *cgroup_pattern_error(const char *s)
{
	size_t n = strlen(s), depth = 1;

	if (n >= SW_CG_PATTERN_MAX)
		return "longer than 127 characters";
	if (s[0] == '/' || (n && s[n - 1] == '/') || strstr(s, "//"))
		return "relative to the cgroup2 root, components separated by one '/'";
	for (const char *p = s; *p; p++) {
		if (*p == '/')
			depth++;
		if (!isgraph((unsigned char)*p) || *p == '\\')
			return "no blanks, control characters or backslashes";
	}
	if (depth > SW_CG_MAX_LEVEL)
		return "more than 8 components";
	for (const char *p = s; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL) {
		size_t l = strcspn(p, "/");

		if ((l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return "'.' and '..' are no cgroups";
		if (l == 1 && p[0] == '*' && depth == 1)
			return "'*' alone matches every top-level cgroup, the host's own included";
	}
	return NULL;
}

static int set_cgroups(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		size_t i;

		if ((why = cgroup_pattern_error(t)))
			return sw_cfg_fail(c, "bad cgroup pattern '%s' in [%s] %s: %s", t, k->section, k->name, why);
		for (i = 0; i < cfg->n_cgroups && strcmp(cfg->cgroups[i], t); i++)
			;
		if (i < cfg->n_cgroups)
			continue;
		if (cfg->n_cgroups == SW_MAX_CG_PATTERNS)
			return TOO_MANY(c, k, SW_MAX_CG_PATTERNS);
		snprintf(cfg->cgroups[cfg->n_cgroups++], SW_CG_PATTERN_MAX, "%s", t);
	}
	return 1;
}

/* [guard] except: exact names (the kernel's set guard_except is a hash) */
static int set_except(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		size_t i;

		if ((why = sw_cfg_pattern_error(t)))
			return sw_cfg_fail(c, "bad interface name '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (strchr(t, '*'))
			return sw_cfg_fail(c, "interface pattern '%s' in [%s] %s: name interfaces one by one "
					   "(no '*')", t, k->section, k->name);
		for (i = 0; i < cfg->n_except && strcmp(cfg->except[i], t); i++)
			;
		if (i < cfg->n_except)
			continue;
		if (cfg->n_except == SW_MAX_EXCEPT)
			return TOO_MANY(c, k, SW_MAX_EXCEPT);
		strcpy(cfg->except[cfg->n_except++], t);
	}
	return 1;
}

/* [guard] macvlan_parents: names or trailing-'*' patterns, never lo */
static int set_parents(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		size_t i;

		/* auto: the uplinks (the default); none: no parent at all */
		if (!strcmp(t, "auto") || !strcmp(t, "none")) {
			if (t[0] == 'n' && (cfg->n_parents || cfg->parents_auto || strtok_r(NULL, SW_CFG_LIST_SEP, &save)))
				return sw_cfg_fail(c, "[%s] %s: 'none' stands alone", k->section, k->name);
			cfg->parents_auto = t[0] == 'a';
			continue;
		}
		if ((why = sw_cfg_pattern_error(t)))
			return sw_cfg_fail(c, "bad interface pattern '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (sw_name_match(t, "lo"))
			return sw_cfg_fail(c, "interface pattern '%s' in [%s] %s matches the loopback interface lo, "
					   "which has no macvlan or ipvlan children", t, k->section, k->name);
		for (i = 0; i < cfg->n_parents && strcmp(cfg->parents[i], t); i++)
			;
		if (i < cfg->n_parents)
			continue;
		if (cfg->n_parents == SW_MAX_PARENTS)
			return TOO_MANY(c, k, SW_MAX_PARENTS);
		strcpy(cfg->parents[cfg->n_parents++], t);
	}
	return 1;
}

/* ::ffff:a.b.c.d never matches: packets carry the IPv4 address itself. */
bool sw_cfg_v4_mapped(const struct sw_prefix *p)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	return p->family == AF_INET6 && p->len >= 96 && !memcmp(p->addr, mapped, sizeof(mapped));
}

const char *sw_cfg_hostname_hint(const char *word)
{
	const char *why;

	/* digits and dots, colons or a '/' are an address gone wrong */
	if (strspn(word, "0123456789.") == strlen(word) || strchr(word, ':') || strchr(word, '/') ||
	    !strchr(word, '.') || !sw_dns_name_valid(word, &why))
		return "";
	return " (a hostname: this key takes addresses only; hostnames go in a [sandbox NAME] "
	       "allow list, which sandwalld resolves)";
}

#define V4_MAPPED(c, t, k) \
	sw_cfg_fail(c, "v4-mapped address '%s' in [%s] %s never matches (packets carry the IPv4 " \
		    "address itself): write it as IPv4", t, (k)->section, (k)->name)

static int set_dests(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	struct sw_prefix p;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		if (sw_prefix_parse(t, &p, &why) < 0)
			return sw_cfg_fail(c, "bad CIDR '%s' in [%s] %s: %s%s", t, k->section, k->name, why,
					   sw_cfg_hostname_hint(t));
		if (sw_cfg_v4_mapped(&p))
			return V4_MAPPED(c, t, k);
		/* duplicates go after the parse (dedup_lists): one sort, not n^2 */
		if (cfg->n_destinations == SW_MAX_DESTS)
			return TOO_MANY(c, k, SW_MAX_DESTS);
		if (SW_GROW(cfg->destinations, cfg->cap_destinations, cfg->n_destinations,
			    SW_MAX_DESTS))
			return sw_cfg_fail(c, "%s", strerror(ENOMEM));
		cfg->destinations[cfg->n_destinations++] = p;
	}
	return 1;
}

/* [allow] between = A:B ...: exact interface names, both ways */
static int set_between(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		/* interface names may hold ':' themselves: the last one splits */
		char *colon = strrchr(t, ':'), pair[2][SW_IFNAMSIZ];
		const char *why = NULL;
		size_t i;

		if (!colon || colon == t || !colon[1] || (size_t)(colon - t) >= SW_IFNAMSIZ)
			return sw_cfg_fail(c, "bad pair '%s' in [%s] %s (use IFACE:IFACE, e.g. docker0:br-x)",
					   t, k->section, k->name);
		snprintf(pair[0], sizeof(pair[0]), "%.*s", (int)(colon - t), t);
		snprintf(pair[1], sizeof(pair[1]), "%s", colon + 1);
		for (int j = 0; j < 2 && !why; j++)
			if ((why = sw_cfg_pattern_error(pair[j])) || (strchr(pair[j], '*') && (why = "no '*': name interfaces")))
				return sw_cfg_fail(c, "bad interface '%s' in [%s] %s: %s", pair[j], k->section, k->name, why);
		if (strlen(colon + 1) >= SW_IFNAMSIZ)
			return sw_cfg_fail(c, "bad pair '%s' in [%s] %s: a name is at most %d characters",
					   t, k->section, k->name, SW_IFNAMSIZ - 1);
		for (i = 0; i < cfg->n_between; i++)
			if ((!strcmp(cfg->between[i][0], pair[0]) && !strcmp(cfg->between[i][1], pair[1])) ||
			    (!strcmp(cfg->between[i][0], pair[1]) && !strcmp(cfg->between[i][1], pair[0])))
				break;
		if (i < cfg->n_between)
			continue;
		if (cfg->n_between == SW_MAX_BETWEEN)
			return TOO_MANY(c, k, SW_MAX_BETWEEN);
		memcpy(cfg->between[cfg->n_between++], pair, sizeof(pair));
	}
	return 1;
}

/* [allow] networks: CIDRs that lan and private leave open (own) */
static int set_networks(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	struct sw_prefix p;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		size_t i;

		if (sw_prefix_parse(t, &p, &why) < 0)
			return sw_cfg_fail(c, "bad CIDR '%s' in [%s] %s: %s%s", t, k->section, k->name, why,
					   sw_cfg_hostname_hint(t));
		if (sw_cfg_v4_mapped(&p))
			return V4_MAPPED(c, t, k);
		for (i = 0; i < cfg->n_networks; i++)
			if (sw_prefix_equal(&cfg->networks[i], &p))
				break;
		if (i < cfg->n_networks)
			continue;
		if (cfg->n_networks == SW_MAX_NETWORKS)
			return TOO_MANY(c, k, SW_MAX_NETWORKS);
		cfg->networks[cfg->n_networks++] = p;
	}
	return 1;
}

static int set_host_ports(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	struct sw_port p;
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		size_t i;

		if (sw_cfg_port(t, &p) < 0)
			return sw_cfg_fail(c, "bad port '%s' in [%s] %s (use tcp/PORT or udp/PORT, PORT 1..65535)",
					   t, k->section, k->name);
		for (i = 0; i < cfg->n_host_ports; i++)
			if (cfg->host_ports[i].proto == p.proto && cfg->host_ports[i].port == p.port)
				break;
		if (i < cfg->n_host_ports)
			continue;
		if (cfg->n_host_ports == SW_MAX_HOST_PORTS)
			return TOO_MANY(c, k, SW_MAX_HOST_PORTS);
		cfg->host_ports[cfg->n_host_ports++] = p;
	}
	return 1;
}

/* "CIDR PROTO/PORT [reopen], CIDR PROTO/PORT [reopen]"; empty entries
 * are skipped. Whether an entry needs `reopen` is checked at the end
 * (check_holes), once every [block] key is known. */
static int set_allows(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	char *save, *e;

	for (e = strtok_r(v, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char *s2, *a = strtok_r(e, " \t", &s2), *port, *word, *extra;
		struct sw_allow al = { .line = (unsigned)c->line };
		const char *why;

		if (!a)
			continue;
		port = strtok_r(NULL, " \t", &s2);
		word = strtok_r(NULL, " \t", &s2);
		extra = strtok_r(NULL, " \t", &s2);
		if (!port || extra || (word && strcasecmp(word, "reopen")))
			return sw_cfg_fail(c, "bad entry '%s%s%s%s%s' in [%s] %s (use CIDR PROTO/PORT [reopen], comma separated)",
					   a, port ? " " : "", port ? port : "", word ? " " : "", word ? word : "",
					   k->section, k->name);
		al.reopen = word != NULL;
		if (sw_prefix_parse(a, &al.dst, &why) < 0)
			return sw_cfg_fail(c, "bad CIDR '%s' in [%s] %s: %s%s", a, k->section, k->name, why,
					   sw_cfg_hostname_hint(a));
		if (sw_cfg_v4_mapped(&al.dst))
			return V4_MAPPED(c, a, k);
		if (sw_cfg_port(port, &al.port) < 0)
			return sw_cfg_fail(c, "bad port '%s' in [%s] %s (use tcp/PORT or udp/PORT, PORT 1..65535)",
					   port, k->section, k->name);
		/* duplicates go after the parse (dedup_lists): one sort, not n^2 */
		if (cfg->n_allows == SW_MAX_ALLOWS)
			return TOO_MANY(c, k, SW_MAX_ALLOWS);
		if (SW_GROW(cfg->allows, cfg->cap_allows, cfg->n_allows, SW_MAX_ALLOWS))
			return sw_cfg_fail(c, "%s", strerror(ENOMEM));
		cfg->allows[cfg->n_allows++] = al;
	}
	return 1;
}

static int set_dns(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	if (!strcasecmp(v, "auto"))
		c->cfg->dns = SW_DNS_AUTO;
	else if (!strcasecmp(v, "none"))
		c->cfg->dns = SW_DNS_NONE;
	else
		return sw_cfg_fail(c, "bad value '%s' for [%s] %s (use auto or none)", v, k->section, k->name);
	return 1;
}

static int set_facility(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	static const struct { const char *name; int fac; } f[] = {
		{ "daemon", LOG_DAEMON }, { "user", LOG_USER }, { "auth", LOG_AUTH },
		{ "authpriv", LOG_AUTHPRIV }, { "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 },
		{ "local2", LOG_LOCAL2 }, { "local3", LOG_LOCAL3 }, { "local4", LOG_LOCAL4 },
		{ "local5", LOG_LOCAL5 }, { "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcasecmp(v, f[i].name))
			return c->cfg->log_facility = f[i].fac, 1;
	return sw_cfg_fail(c, "bad facility '%s' for [%s] %s (use daemon, user, auth, authpriv or local0..local7)",
			   v, k->section, k->name);
}

static int set_group(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	unsigned long n;

	if (sw_cfg_uint(v, 0, 65535, &n) < 0)
		return sw_cfg_fail(c, "bad NFLOG group '%s' for [%s] %s (use 0..65535)", v, k->section, k->name);
	if (!strcmp(k->name, "names_group"))
		c->cfg->log_names_group = (uint16_t)n;
	else
		c->cfg->log_group = (uint16_t)n;
	return 1;
}

/* [log] max_flows (1..1048576 open flows kept), flow_interval (1..3600 s) */
static int set_flows_num(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	bool max = !strcmp(k->name, "max_flows");
	unsigned long n;

	if (sw_cfg_uint(v, 1, max ? 1048576 : 3600, &n) < 0)
		return sw_cfg_fail(c, "bad value '%s' for [%s] %s (use 1..%s)", v, k->section, k->name,
				   max ? "1048576 flows" : "3600 seconds");
	if (max)
		c->cfg->log_max_flows = (unsigned)n;
	else
		c->cfg->log_flow_interval = (unsigned)n;
	return 1;
}

static int set_resync(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	unsigned long n;

	if (sw_cfg_uint(v, 1, 86400, &n) < 0)
		return sw_cfg_fail(c, "bad interval '%s' for [%s] %s (use 1..86400 seconds)", v,
				   k->section, k->name);
	c->cfg->resync_interval = (unsigned)n;
	return 1;
}

/* dns_min_ttl, dns_max_ttl: seconds, 1..604800 (a week) */
static int set_dns_ttl(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	unsigned long n;

	if (sw_cfg_uint(v, 1, 604800, &n) < 0)
		return sw_cfg_fail(c, "bad TTL bound '%s' for [%s] %s (use 1..604800 seconds)", v, k->section,
				   k->name);
	if (!strcmp(k->name, "dns_min_ttl"))
		c->cfg->dns_min_ttl = (unsigned)n;
	else
		c->cfg->dns_max_ttl = (unsigned)n;
	return 1;
}

/* resolvers = ADDR ...: the servers sandwalld asks for hostname
 * allowlists (port 53); empty: the host's (resolv.conf) */
static int set_dns_servers(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		struct sw_prefix p;
		const char *why = NULL;

		if (sw_prefix_parse(t, &p, &why) < 0 || p.len != sw_family_addrlen(p.family) * 8)
			return sw_cfg_fail(c, "bad address '%s' for [%s] %s: %s", t, k->section, k->name,
					   why ? why : "an address, not a prefix");
		if (c->cfg->n_dns_servers == SW_MAX_DNS_SERVERS)
			return sw_cfg_fail(c, "too many entries in [%s] %s (max %d)", k->section, k->name,
					   SW_MAX_DNS_SERVERS);
		c->cfg->dns_servers[c->cfg->n_dns_servers++] = p;
	}
	return 1;
}

static int set_owner(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	bool b;

	if (!strcasecmp(v, "auto"))
		c->cfg->owner = SW_OWNER_AUTO;
	else if (!strcasecmp(v, "twin"))
		c->cfg->owner = SW_OWNER_TWIN;
	else if (sw_cfg_bool(v, &b) == 0)
		c->cfg->owner = b ? SW_OWNER_YES : SW_OWNER_NO;
	else
		return sw_cfg_fail(c, "bad value '%s' for [%s] %s (use auto, yes, twin or no)", v,
				   k->section, k->name);
	return 1;
}

/* Is the directory /tmp/sandwall-NAME that path starts with a real
 * directory of ours that no one else may write? */
static bool tmp_dir_ok(const char *path)
{
	const char *slash = strchr(path + strlen(SW_TMP_STATE_PREFIX), '/');
	char dir[SW_PATH_MAX];
	struct stat st;

	if (!slash || slash == path + strlen(SW_TMP_STATE_PREFIX))
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

static bool below(const char *path, const char *const *dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/* Why a path is not the absolute name of a file, or NULL: no "", ".",
 * ".." component, no trailing '/'. */
static const char *shape_error(const char *v)
{
	const char *s = v + 1;

	if (v[0] != '/')
		return "not an absolute path";
	if (strlen(v) >= SW_PATH_MAX)
		return "longer than 255 characters";
	for (;;) {
		const char *e = strchr(s, '/');
		size_t l = e ? (size_t)(e - s) : strlen(s);

		if (!l)
			return e ? "an empty component ('//')" : "a directory, not a file (trailing '/')";
		if ((l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.'))
			return "a '.' or '..' component";
		if (!e)
			break;
		s = e + 1;
	}
	return NULL;
}

/* Why a journal or metrics path is refused, or NULL. It names a file
 * below a state directory. */
static const char *path_error(const char *v, bool metrics)
{
	static const char *const state[] = SW_STATE_DIRS, *const textfile[] = SW_METRICS_DIRS;
	const char *why = shape_error(v);

	if (why)
		return why;
	if (below(v, state, sizeof(state) / sizeof(*state)) ||
	    (metrics && below(v, textfile, sizeof(textfile) / sizeof(*textfile))))
		return NULL;
	if (!strncmp(v, SW_TMP_STATE_PREFIX, strlen(SW_TMP_STATE_PREFIX)))
		return tmp_dir_ok(v) ? NULL : "in a " SW_TMP_STATE_PREFIX "* directory that is not "
		       "the user's own or that others may write";
	return metrics ? "outside the sandwall state and node_exporter textfile directories" :
	       "outside /run/sandwall, /var/lib/sandwall and /var/log/sandwall";
}

/* A file in a state directory, or empty for "off". */
static int set_path(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	bool metrics = !strcmp(k->name, "metrics");
	char *dst = metrics ? c->cfg->metrics_path : c->cfg->journal_path;
	const char *why;

	if (*v && (why = path_error(v, metrics)))
		return sw_cfg_fail(c, "bad path '%s' for [%s] %s: %s (see sandwall.conf(5); empty for off)",
				   v, k->section, k->name, why);
	snprintf(dst, SW_PATH_MAX, "%s", v);
	return 1;
}

/* [daemon] receipt_key: any absolute file name (the key is checked when
 * it is used: lib/sign.h) */
static int set_key_path(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	const char *why = shape_error(v);

	if (why)
		return sw_cfg_fail(c, "bad path '%s' for [%s] %s: %s (see sandwall.conf(5))", v,
				   k->section, k->name, why);
	snprintf(c->cfg->receipt_key, SW_PATH_MAX, "%s", v);
	return 1;
}

static int set_table(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	size_t n = strlen(v), i = 0;

	if (n >= 1 && n <= 32 && isalpha((unsigned char)v[0]))
		for (i = 1; i < n && (isalnum((unsigned char)v[i]) || v[i] == '_' || v[i] == '-'); i++)
			;
	if (n == 0 || i != n)
		return sw_cfg_fail(c, "bad table name '%s' for [%s] %s (1..32 of A-Z a-z 0-9 _ -, starting with a letter)",
				   v, k->section, k->name);
	memcpy(c->cfg->table, v, n + 1);
	return 1;
}

/* [verify] canary = HOST:PORT ... | none: what verify proves open */
static int set_canaries(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	char *save, *t;

	for (t = strtok_r(v, SW_CFG_LIST_SEP, &save); t; t = strtok_r(NULL, SW_CFG_LIST_SEP, &save)) {
		struct sw_prefix a;
		uint16_t port;

		if (!strcasecmp(t, "none"))
			continue;
		if (strlen(t) >= SW_CANARY_LEN || sw_hostport_parse(t, &a, &port))
			return sw_cfg_fail(c, "bad canary '%s' for [%s] %s (use ADDRESS:PORT or [V6]:PORT, "
					   "or none)", t, k->section, k->name);
		if (c->cfg->n_canaries == SW_MAX_CANARIES)
			return sw_cfg_fail(c, "too many entries in [%s] %s (max %d)", k->section, k->name,
					   SW_MAX_CANARIES);
		snprintf(c->cfg->canaries[c->cfg->n_canaries++], SW_CANARY_LEN, "%s", t);
	}
	return 1;
}

/* [identity] docker_socket, podman_socket: an absolute path a unix socket
 * can have (sun_path), or empty for DOCKER_HOST / CONTAINER_HOST and then
 * the default */
static int set_socket(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v)
{
	char *dst = !strcmp(k->name, "docker_socket") ? c->cfg->docker_socket :
		    c->cfg->podman_socket;

	if (*v && (v[0] != '/' || strlen(v) >= 108 || strstr(v, "/../") || strpbrk(v, " \t")))
		return sw_cfg_fail(c, "bad socket path '%s' for [%s] %s (an absolute path of at most "
				   "107 characters, or empty for the default)", v, k->section, k->name);
	snprintf(dst, SW_PATH_MAX, "%s", v);
	return 1;
}

#define BOOL(sec, name, field) { sec, name, set_bool, offsetof(struct sw_config, field), false, 0 }
const struct sw_cfg_key sw_cfg_keys[] = {
	{ "guard", "interfaces", set_patterns, 0, true, offsetof(struct sw_config, interfaces_line) },
	{ "guard", "all_bridges", set_bool, offsetof(struct sw_config, all_bridges), false,
	  offsetof(struct sw_config, all_bridges_line) },
	{ "guard", "users", set_users, 0, true, 0 },
	{ "guard", "cgroups", set_cgroups, 0, true, 0 },
	{ "guard", "macvlan_parents", set_parents, 0, true, 0 },
	{ "guard", "except", set_except, 0, true, 0 },
	{ "block", "destinations", set_dests, 0, true, 0 },
	{ "allow", "dns", set_dns, 0, false, 0 },
	{ "allow", "host_ports", set_host_ports, 0, true, 0 },
	{ "allow", "destinations", set_allows, 0, true, 0 },
	{ "allow", "networks", set_networks, 0, true, 0 },
	{ "allow", "between", set_between, 0, true, 0 },
	BOOL("log", "blocked", log_blocked),
	{ "log", "facility", set_facility, 0, false, 0 },
	{ "log", "group", set_group, 0, false, 0 },
	{ "log", "names_group", set_group, 0, false, 0 },
	BOOL("log", "flows", log_flows),
	{ "log", "max_flows", set_flows_num, 0, false, 0 },
	{ "log", "flow_interval", set_flows_num, 0, false, 0 },
	{ "daemon", "resync_interval", set_resync, 0, false, 0 },
	{ "daemon", "owner", set_owner, 0, false, 0 },
	{ "daemon", "metrics", set_path, 0, false, 0 },
	{ "daemon", "journal", set_path, 0, false, 0 },
	{ "daemon", "receipt_key", set_key_path, 0, false, 0 },
	{ "daemon", "dns_min_ttl", set_dns_ttl, 0, false, offsetof(struct sw_config, dns_ttl_line) },
	{ "daemon", "dns_max_ttl", set_dns_ttl, 0, false, offsetof(struct sw_config, dns_ttl_line) },
	{ "daemon", "resolvers", set_dns_servers, 0, true, 0 },
	{ "nft", "table", set_table, 0, false, offsetof(struct sw_config, table_line) },
	{ "verify", "canary", set_canaries, 0, true, 0 },
	BOOL("identity", "enabled", identity),
	{ "identity", "docker_socket", set_socket, 0, false, 0 },
	{ "identity", "podman_socket", set_socket, 0, false, 0 },
};
_Static_assert(sizeof(sw_cfg_keys) / sizeof(sw_cfg_keys[0]) <= sizeof(unsigned long) * 8 &&
	       sizeof(sw_cfg_keys) / sizeof(sw_cfg_keys[0]) <= 64, "seen bits");
const size_t sw_cfg_n_keys = sizeof(sw_cfg_keys) / sizeof(sw_cfg_keys[0]);

/* Empty a list key when it is first given: the value replaces the default. */
void sw_cfg_list_reset(struct sw_config *cfg, const struct sw_cfg_key *k)
{
	if (k->set == set_patterns) {
		cfg->n_patterns = 0;
		cfg->auto_detect = false;
	} else if (k->set == set_dests)
		cfg->n_destinations = 0;
	else if (k->set == set_parents) {
		cfg->n_parents = 0;
		cfg->parents_auto = false;
	} else if (k->set == set_except)
		cfg->n_except = 0;
	else if (k->set == set_host_ports)
		cfg->n_host_ports = 0;
	else if (k->set == set_allows)
		cfg->n_allows = 0;
	else if (k->set == set_networks)
		cfg->n_networks = 0;
	else if (k->set == set_between)
		cfg->n_between = 0;
	else if (k->set == set_users)
		cfg->n_users = 0;
	else if (k->set == set_cgroups)
		cfg->n_cgroups = 0;
	else if (k->set == set_dns_servers)
		cfg->n_dns_servers = 0;
	else if (k->set == set_canaries)
		cfg->n_canaries = 0;
}

bool sw_cfg_drop_tightens(const struct sw_cfg_key *k)
{
	/* [identity] names sandboxes, it guards nothing */
	return k->set == set_allows || k->set == set_host_ports || k->set == set_socket ||
	       !strcmp(k->section, "identity");
}
