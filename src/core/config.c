/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config: the INI file -> struct sw_config, parsed with inih.
 *
 * inih (Debian 55) gives the handler no line numbers, so we feed it through
 * our own line reader, which counts lines, refuses over-long lines, checks
 * section headers and tells the handler whether the current line is an
 * indented continuation (lists may span lines; scalars may not). The first
 * error by line wins: ours, or inih's own ("syntax error"). Everything is
 * parsed into a temporary and copied out only on success. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>
#include <fnmatch.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "core/config.h"
#include "core/holes.h"
#include "lib/sort.h"

#define MAX_FILE  SW_CONFIG_MAX
#define LINE_MAX_CHARS 197      /* inih's 200-byte buffer minus "\r\n\0" */

struct ctx;
struct key {
	const char *section, *name;
	int (*set)(struct ctx *c, const struct key *k, char *v);
	size_t off;             /* bool keys: offset of the bool in sw_config */
	bool list;              /* may continue on indented lines */
	size_t line_off;        /* where to note the key's line (0: nowhere) */
};

struct ctx {
	struct sw_config *cfg;  /* the caller's: parsed in place, defaults on error */
	const char *name, *pos; /* file name for messages, reader position */
	int line, err_line;
	bool cont, prev_key, had_section, stop;
	unsigned list_key;      /* 1 + the keys[] index of the list the last key line
				 * set (0: none): its continuation lines skip the lookup */
	unsigned long seen;     /* bit per keys[] entry */
	unsigned cat_seen;      /* bit per category: its [block] key was given */
	int section_line[7];    /* per sections[]: where it was opened (0: not yet) */
	char msg[SW_ERRLEN];
};

static const char *const sections[] = { "guard", "block", "allow", "log", "daemon", "nft", "verify" };

/* The categories, in enum order; `rank` gives the guard chain's order. */
const struct sw_category_info sw_categories[SW_CAT_COUNT] = {
	[SW_CAT_SPOOFED] = { "spoofed", SW_CAT_KEY_NONE, true, SW_CAT_MATCH_SPOOF,
			     SW_CAT_V4 | SW_CAT_V6, 0, false },
	[SW_CAT_METADATA] = { "metadata", SW_CAT_KEY_BOOL, true, SW_CAT_MATCH_SET,
			      SW_CAT_V4 | SW_CAT_V6, 10, true },
	[SW_CAT_LINK_LOCAL] = { "link_local", SW_CAT_KEY_BOOL, true, SW_CAT_MATCH_SET,
				SW_CAT_V4 | SW_CAT_V6, 20, true },
	[SW_CAT_HOST] = { "host", SW_CAT_KEY_BOOL, true, SW_CAT_MATCH_LOCAL,
			  SW_CAT_V4 | SW_CAT_V6, 30, true },
	[SW_CAT_GATEWAYS] = { "gateways", SW_CAT_KEY_BOOL, true, SW_CAT_MATCH_SET,
			      SW_CAT_V4 | SW_CAT_V6, 40, true },
	[SW_CAT_LAN] = { "lan", SW_CAT_KEY_BOOL, true, SW_CAT_MATCH_SET,
			 SW_CAT_V4 | SW_CAT_V6, SW_CAT_RANK_OWN + 10, true },
	[SW_CAT_PRIVATE] = { "private", SW_CAT_KEY_BOOL, true, SW_CAT_MATCH_SET,
			     SW_CAT_V4 | SW_CAT_V6, SW_CAT_RANK_OWN + 20, true },
	[SW_CAT_DESTINATIONS] = { "destinations", SW_CAT_KEY_LIST, false, SW_CAT_MATCH_SET,
				  SW_CAT_V4 | SW_CAT_V6, 50, true },
	/* judged in the forward hook (its own chain), so its rank orders
	 * nothing in guard */
	[SW_CAT_SANDBOXES] = { "sandboxes", SW_CAT_KEY_BOOL, true, SW_CAT_MATCH_ROUTED,
			       SW_CAT_V4 | SW_CAT_V6, 60, false },
};

const struct sw_category_info *sw_category_info(enum sw_category c)
{
	return (unsigned)c < SW_CAT_COUNT ? &sw_categories[c] : NULL;
}

const char *sw_category_name(enum sw_category c)
{
	return (unsigned)c < SW_CAT_COUNT ? sw_categories[c].name : "unknown";
}

int sw_category_lookup(const char *name)
{
	for (int c = 0; c < SW_CAT_COUNT; c++)
		if (!strcmp(sw_categories[c].name, name))
			return c;
	return -ENOENT;
}

void sw_config_defaults(struct sw_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->auto_detect = true;        /* [guard] interfaces = auto */
	cfg->parents_auto = true;       /* [guard] macvlan_parents = auto: the uplinks */
	for (int c = 0; c < SW_CAT_COUNT; c++)
		cfg->block[c] = sw_categories[c].default_on;
	cfg->dns = SW_DNS_AUTO;
	cfg->log_blocked = true;
	cfg->log_facility = LOG_DAEMON;
	cfg->log_group = 3210;
	cfg->resync_interval = 30;
	cfg->owner = SW_OWNER_AUTO;
	cfg->dns_min_ttl = SW_DNS_MIN_TTL;
	cfg->dns_max_ttl = SW_DNS_MAX_TTL;
	strcpy(cfg->journal_path, SW_DEFAULT_JOURNAL);
	strcpy(cfg->table, "sandwall");
	strcpy(cfg->canaries[0], SW_DEFAULT_CANARY);
	cfg->n_canaries = 1;
}

/* Record the first error (by line); returns 0 so a handler can return it. */
__attribute__((format(printf, 2, 3)))
static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err_line)
		return 0;
	c->err_line = c->line;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return 0;
}

/* Strict unsigned decimal in [min, max]: digits only, no sign, no spaces. */
static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
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

static int parse_bool(const char *s, bool *b)
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
static int parse_port(const char *s, struct sw_port *p)
{
	unsigned long v;

	if (!strncasecmp(s, "tcp/", 4))
		p->proto = IPPROTO_TCP;
	else if (!strncasecmp(s, "udp/", 4))
		p->proto = IPPROTO_UDP;
	else
		return -EINVAL;
	if (parse_uint(s + 4, 1, 65535, &v) < 0)
		return -EINVAL;
	p->port = (uint16_t)v;
	return 0;
}

static int set_bool(struct ctx *c, const struct key *k, char *v)
{
	if (parse_bool(v, (bool *)((char *)c->cfg + k->off)) < 0)
		return fail(c, "bad boolean '%s' for [%s] %s (use yes or no)", v, k->section, k->name);
	return 1;
}

static const char *pattern_error(const char *s)
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
	fail(c, "too many entries in [%s] %s (max %d)", (k)->section, (k)->name, max)

static int set_patterns(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t i;

		if (!strcmp(t, SW_GUARD_AUTO)) {
			cfg->auto_detect = true;
			continue;
		}
		if ((why = pattern_error(t)))
			return fail(c, "bad interface pattern '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (!fnmatch(t, "lo", 0))
			return fail(c, "interface pattern '%s' in [%s] %s matches the loopback interface lo: "
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
static int set_users(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		struct sw_guard_user u = { 0 };
		unsigned long n;
		size_t i;

		if (parse_uint(t, 0, UINT32_MAX - 1, &n) == 0) {
			u.uid = (uint32_t)n;
		} else {
			struct passwd pw, *r = NULL;
			char buf[1024];

			if (strlen(t) >= SW_USER_NAMELEN || getpwnam_r(t, &pw, buf, sizeof(buf), &r) || !r)
				return fail(c, "unknown user '%s' in [%s] %s (a name from the password "
					    "database or a number)", t, k->section, k->name);
			u.uid = (uint32_t)pw.pw_uid;
			snprintf(u.name, sizeof(u.name), "%s", t);
		}
		if (u.uid == 0)
			return fail(c, "user '%s' in [%s] %s is root: guarding it would cut the host "
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

static int set_cgroups(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t i;

		if ((why = cgroup_pattern_error(t)))
			return fail(c, "bad cgroup pattern '%s' in [%s] %s: %s", t, k->section, k->name, why);
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
static int set_except(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t i;

		if ((why = pattern_error(t)))
			return fail(c, "bad interface name '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (strchr(t, '*'))
			return fail(c, "interface pattern '%s' in [%s] %s: name interfaces one by one "
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
static int set_parents(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t i;

		/* auto: the uplinks (the default); none: no parent at all */
		if (!strcmp(t, "auto") || !strcmp(t, "none")) {
			if (t[0] == 'n' && (cfg->n_parents || cfg->parents_auto || strtok_r(NULL, " \t", &save)))
				return fail(c, "[%s] %s: 'none' stands alone", k->section, k->name);
			cfg->parents_auto = t[0] == 'a';
			continue;
		}
		if ((why = pattern_error(t)))
			return fail(c, "bad interface pattern '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (!fnmatch(t, "lo", 0))
			return fail(c, "interface pattern '%s' in [%s] %s matches the loopback interface lo, "
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
static bool v4_mapped(const struct sw_prefix *p)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	return p->family == AF_INET6 && p->len >= 96 && !memcmp(p->addr, mapped, sizeof(mapped));
}

#define V4_MAPPED(c, t, k) \
	fail(c, "v4-mapped address '%s' in [%s] %s never matches (packets carry the IPv4 " \
	     "address itself): write it as IPv4", t, (k)->section, (k)->name)

static int set_dests(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	struct sw_prefix p;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (sw_prefix_parse(t, &p, &why) < 0)
			return fail(c, "bad CIDR '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (v4_mapped(&p))
			return V4_MAPPED(c, t, k);
		/* duplicates go after the parse (dedup_lists): one sort, not n^2 */
		if (cfg->n_destinations == SW_MAX_DESTS)
			return TOO_MANY(c, k, SW_MAX_DESTS);
		cfg->destinations[cfg->n_destinations++] = p;
	}
	return 1;
}

/* [allow] between = A:B ...: exact interface names, both ways */
static int set_between(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		/* interface names may hold ':' themselves: the last one splits */
		char *colon = strrchr(t, ':'), pair[2][SW_IFNAMSIZ];
		const char *why = NULL;
		size_t i;

		if (!colon || colon == t || !colon[1] || (size_t)(colon - t) >= SW_IFNAMSIZ)
			return fail(c, "bad pair '%s' in [%s] %s (use IFACE:IFACE, e.g. docker0:br-x)",
				    t, k->section, k->name);
		snprintf(pair[0], sizeof(pair[0]), "%.*s", (int)(colon - t), t);
		snprintf(pair[1], sizeof(pair[1]), "%s", colon + 1);
		for (int j = 0; j < 2 && !why; j++)
			if ((why = pattern_error(pair[j])) || (strchr(pair[j], '*') && (why = "no '*': name interfaces")))
				return fail(c, "bad interface '%s' in [%s] %s: %s", pair[j], k->section, k->name, why);
		if (strlen(colon + 1) >= SW_IFNAMSIZ)
			return fail(c, "bad pair '%s' in [%s] %s: a name is at most %d characters",
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
static int set_networks(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	struct sw_prefix p;
	const char *why;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t i;

		if (sw_prefix_parse(t, &p, &why) < 0)
			return fail(c, "bad CIDR '%s' in [%s] %s: %s", t, k->section, k->name, why);
		if (v4_mapped(&p))
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

static int set_host_ports(struct ctx *c, const struct key *k, char *v)
{
	struct sw_config *cfg = c->cfg;
	struct sw_port p;
	char *save, *t;

	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t i;

		if (parse_port(t, &p) < 0)
			return fail(c, "bad port '%s' in [%s] %s (use tcp/PORT or udp/PORT, PORT 1..65535)",
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
static int set_allows(struct ctx *c, const struct key *k, char *v)
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
			return fail(c, "bad entry '%s%s%s%s%s' in [%s] %s (use CIDR PROTO/PORT [reopen], comma separated)",
				    a, port ? " " : "", port ? port : "", word ? " " : "", word ? word : "",
				    k->section, k->name);
		al.reopen = word != NULL;
		if (sw_prefix_parse(a, &al.dst, &why) < 0)
			return fail(c, "bad CIDR '%s' in [%s] %s: %s", a, k->section, k->name, why);
		if (v4_mapped(&al.dst))
			return V4_MAPPED(c, a, k);
		if (parse_port(port, &al.port) < 0)
			return fail(c, "bad port '%s' in [%s] %s (use tcp/PORT or udp/PORT, PORT 1..65535)",
				    port, k->section, k->name);
		/* duplicates go after the parse (dedup_lists): one sort, not n^2 */
		if (cfg->n_allows == SW_MAX_ALLOWS)
			return TOO_MANY(c, k, SW_MAX_ALLOWS);
		cfg->allows[cfg->n_allows++] = al;
	}
	return 1;
}

static int set_dns(struct ctx *c, const struct key *k, char *v)
{
	if (!strcasecmp(v, "auto"))
		c->cfg->dns = SW_DNS_AUTO;
	else if (!strcasecmp(v, "none"))
		c->cfg->dns = SW_DNS_NONE;
	else
		return fail(c, "bad value '%s' for [%s] %s (use auto or none)", v, k->section, k->name);
	return 1;
}

static int set_facility(struct ctx *c, const struct key *k, char *v)
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
	return fail(c, "bad facility '%s' for [%s] %s (use daemon, user, auth, authpriv or local0..local7)",
		    v, k->section, k->name);
}

static int set_group(struct ctx *c, const struct key *k, char *v)
{
	unsigned long n;

	if (parse_uint(v, 0, 65535, &n) < 0)
		return fail(c, "bad NFLOG group '%s' for [%s] %s (use 0..65535)", v, k->section, k->name);
	c->cfg->log_group = (uint16_t)n;
	return 1;
}

static int set_resync(struct ctx *c, const struct key *k, char *v)
{
	unsigned long n;

	if (parse_uint(v, 1, 86400, &n) < 0)
		return fail(c, "bad interval '%s' for [%s] %s (use 1..86400 seconds)", v, k->section, k->name);
	c->cfg->resync_interval = (unsigned)n;
	return 1;
}

/* dns_min_ttl, dns_max_ttl: seconds, 1..604800 (a week) */
static int set_dns_ttl(struct ctx *c, const struct key *k, char *v)
{
	unsigned long n;

	if (parse_uint(v, 1, 604800, &n) < 0)
		return fail(c, "bad TTL bound '%s' for [%s] %s (use 1..604800 seconds)", v, k->section,
			    k->name);
	if (!strcmp(k->name, "dns_min_ttl"))
		c->cfg->dns_min_ttl = (unsigned)n;
	else
		c->cfg->dns_max_ttl = (unsigned)n;
	return 1;
}

/* resolvers = ADDR ...: the servers sandwalld asks for hostname
 * allowlists (port 53); empty: the host's (resolv.conf) */
static int set_dns_servers(struct ctx *c, const struct key *k, char *v)
{
	char *save, *t;

	for (t = strtok_r(v, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		struct sw_prefix p;
		const char *why = NULL;

		if (sw_prefix_parse(t, &p, &why) < 0 || p.len != sw_family_addrlen(p.family) * 8)
			return fail(c, "bad address '%s' for [%s] %s: %s", t, k->section, k->name,
				    why ? why : "an address, not a prefix");
		if (c->cfg->n_dns_servers == SW_MAX_DNS_SERVERS)
			return fail(c, "too many entries in [%s] %s (max %d)", k->section, k->name,
				    SW_MAX_DNS_SERVERS);
		c->cfg->dns_servers[c->cfg->n_dns_servers++] = p;
	}
	return 1;
}

static int set_owner(struct ctx *c, const struct key *k, char *v)
{
	bool b;

	if (!strcasecmp(v, "auto"))
		c->cfg->owner = SW_OWNER_AUTO;
	else if (!strcasecmp(v, "twin"))
		c->cfg->owner = SW_OWNER_TWIN;
	else if (parse_bool(v, &b) == 0)
		c->cfg->owner = b ? SW_OWNER_YES : SW_OWNER_NO;
	else
		return fail(c, "bad value '%s' for [%s] %s (use auto, yes, twin or no)", v, k->section, k->name);
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

/* Why a journal or metrics path is refused, or NULL. It names a file
 * (no "", ".", ".." component, no trailing '/') below a state directory. */
static const char *path_error(const char *v, bool metrics)
{
	static const char *const state[] = SW_STATE_DIRS, *const textfile[] = SW_METRICS_DIRS;
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
static int set_path(struct ctx *c, const struct key *k, char *v)
{
	bool metrics = !strcmp(k->name, "metrics");
	char *dst = metrics ? c->cfg->metrics_path : c->cfg->journal_path;
	const char *why;

	if (*v && (why = path_error(v, metrics)))
		return fail(c, "bad path '%s' for [%s] %s: %s (see sandwall.conf(5); empty for off)",
			    v, k->section, k->name, why);
	snprintf(dst, SW_PATH_MAX, "%s", v);
	return 1;
}

static int set_table(struct ctx *c, const struct key *k, char *v)
{
	size_t n = strlen(v), i = 0;

	if (n >= 1 && n <= 32 && isalpha((unsigned char)v[0]))
		for (i = 1; i < n && (isalnum((unsigned char)v[i]) || v[i] == '_' || v[i] == '-'); i++)
			;
	if (n == 0 || i != n)
		return fail(c, "bad table name '%s' for [%s] %s (1..32 of A-Z a-z 0-9 _ -, starting with a letter)",
			    v, k->section, k->name);
	memcpy(c->cfg->table, v, n + 1);
	return 1;
}

/* [verify] canary = HOST:PORT ... | none: what verify proves open */
static int set_canaries(struct ctx *c, const struct key *k, char *v)
{
	char *save, *t;

	for (t = strtok_r(v, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		struct sw_prefix a;
		uint16_t port;

		if (!strcasecmp(t, "none"))
			continue;
		if (strlen(t) >= SW_CANARY_LEN || sw_hostport_parse(t, &a, &port))
			return fail(c, "bad canary '%s' for [%s] %s (use ADDRESS:PORT or [V6]:PORT, "
				    "or none)", t, k->section, k->name);
		if (c->cfg->n_canaries == SW_MAX_CANARIES)
			return fail(c, "too many entries in [%s] %s (max %d)", k->section, k->name,
				    SW_MAX_CANARIES);
		snprintf(c->cfg->canaries[c->cfg->n_canaries++], SW_CANARY_LEN, "%s", t);
	}
	return 1;
}

#define BOOL(sec, name, field) { sec, name, set_bool, offsetof(struct sw_config, field), false, 0 }
static const struct key keys[] = {
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
	{ "daemon", "resync_interval", set_resync, 0, false, 0 },
	{ "daemon", "owner", set_owner, 0, false, 0 },
	{ "daemon", "metrics", set_path, 0, false, 0 },
	{ "daemon", "journal", set_path, 0, false, 0 },
	{ "daemon", "dns_min_ttl", set_dns_ttl, 0, false, offsetof(struct sw_config, dns_ttl_line) },
	{ "daemon", "dns_max_ttl", set_dns_ttl, 0, false, offsetof(struct sw_config, dns_ttl_line) },
	{ "daemon", "resolvers", set_dns_servers, 0, true, 0 },
	{ "nft", "table", set_table, 0, false, offsetof(struct sw_config, table_line) },
	{ "verify", "canary", set_canaries, 0, true, 0 },
};
_Static_assert(sizeof(keys) / sizeof(keys[0]) <= sizeof(unsigned long) * 8 &&
	       sizeof(keys) / sizeof(keys[0]) <= 64, "seen bits");
_Static_assert(sizeof(sections) / sizeof(sections[0]) ==
	       sizeof(((struct sw_config *)0)->section_line) / sizeof(unsigned), "section_line");

/* Empty a list key when it is first given: the value replaces the default. */
static void list_reset(struct sw_config *cfg, const struct key *k)
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

/* ---- [sandbox NAME] ------------------------------------------------------ */

static const char *const egress_names[SW_EGRESS_COUNT] = {
	[SW_EGRESS_OPEN] = "open", [SW_EGRESS_NONE] = "none", [SW_EGRESS_ALLOWLIST] = "allowlist",
};

const char *sw_egress_name(enum sw_egress e)
{
	return (unsigned)e < SW_EGRESS_COUNT ? egress_names[e] : "unknown";
}

#define SBX_WORD "sandbox"

static void strip_comment(char *s);

/* "sandbox NAME" (one or more blanks between) */
static bool is_sandbox(const char *s, size_t n)
{
	return n > strlen(SBX_WORD) && !strncmp(s, SBX_WORD, strlen(SBX_WORD)) &&
	       (s[strlen(SBX_WORD)] == ' ' || s[strlen(SBX_WORD)] == '\t');
}

/* A new [sandbox NAME] section from its header line. */
static void sandbox_open(struct ctx *c, const char *s, size_t n)
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
		fail(c, "bad sandbox name '%.*s' (1..%d of A-Z a-z 0-9 _)", (int)len, name,
		     SW_SANDBOX_NAMELEN - 1);
		return;
	}
	for (i = 0; i < cfg->n_sandboxes; i++)
		if (strlen(cfg->sandboxes[i].name) == len && !memcmp(cfg->sandboxes[i].name, name, len)) {
			fail(c, "section [sandbox %.*s] repeated (first at line %u): give each "
			     "section once", (int)len, name, cfg->sandboxes[i].line);
			return;
		}
	if (cfg->n_sandboxes == SW_MAX_SANDBOXES) {
		fail(c, "too many [sandbox] sections (max %d)", SW_MAX_SANDBOXES);
		return;
	}
	b = &cfg->sandboxes[cfg->n_sandboxes++];
	memset(b, 0, sizeof(*b));
	memcpy(b->name, name, len);
	b->line = (unsigned)c->line;
	b->egress = SW_EGRESS_OPEN;
	b->dns = SW_DNS_AUTO;
}

enum { SBX_INTERFACES, SBX_SOURCES, SBX_EGRESS, SBX_ALLOW, SBX_DNS, SBX_BUDGET,
       SBX_BUDGET_SOURCES, SBX_KEYS };
static const struct { const char *name; bool list; } sbx_keys[SBX_KEYS] = {
	[SBX_INTERFACES] = { "interfaces", true }, [SBX_SOURCES] = { "sources", true },
	[SBX_EGRESS] = { "egress", false }, [SBX_ALLOW] = { "allow", true },
	[SBX_DNS] = { "dns", false }, [SBX_BUDGET] = { "budget", false },
	[SBX_BUDGET_SOURCES] = { "budget_sources", false },
};

/* budget = N/second|minute|hour, N 1..1000000 */
static int sbx_budget(struct ctx *c, struct sw_sandbox *b, const char *v)
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
	return fail(c, "bad value '%s' for [sandbox %s] budget (use N/second, N/minute or N/hour, "
		    "N 1..1000000: new connections per source address)", v, b->name);
}

static int sbx_pattern(struct ctx *c, struct sw_sandbox *b, const char *t)
{
	const char *why;

	if ((why = pattern_error(t)))
		return fail(c, "bad interface pattern '%s' in [sandbox %s] interfaces: %s", t,
			    b->name, why);
	for (size_t i = 0; i < b->n_patterns; i++)
		if (!strcmp(b->patterns[i], t))
			return 1;
	if (b->n_patterns == SW_MAX_SBX_PATTERNS)
		return fail(c, "too many entries in [sandbox %s] interfaces (max %d)", b->name,
			    SW_MAX_SBX_PATTERNS);
	strcpy(b->patterns[b->n_patterns++], t);
	return 1;
}

static int sbx_source(struct ctx *c, struct sw_sandbox *b, const char *t)
{
	struct sw_prefix p;
	const char *why;

	if (sw_prefix_parse(t, &p, &why) < 0)
		return fail(c, "bad CIDR '%s' in [sandbox %s] sources: %s", t, b->name, why);
	if (v4_mapped(&p))
		return fail(c, "'%s' in [sandbox %s] sources is an IPv4-mapped IPv6 address: "
			    "write it as IPv4", t, b->name);
	if (b->n_sources == SW_MAX_SBX_SOURCES)
		return fail(c, "too many entries in [sandbox %s] sources (max %d)", b->name,
			    SW_MAX_SBX_SOURCES);
	b->source_lines[b->n_sources] = (unsigned)c->line;
	b->sources[b->n_sources++] = p;
	return 1;
}

/* "HOSTNAME PROTO/PORT": resolved by sandwalld into sbx_<name>_hosts4/6 */
static int sbx_name(struct ctx *c, struct sw_sandbox *b, const char *a, const struct sw_port *port)
{
	struct sw_name_allow *n;
	const char *why;

	if (!sw_dns_name_valid(a, &why))
		return fail(c, "bad hostname '%s' in [sandbox %s] allow: %s", a, b->name, why);
	for (size_t i = 0; i < b->n_names; i++)
		if (!strcasecmp(b->names[i].name, a) && b->names[i].port.proto == port->proto &&
		    b->names[i].port.port == port->port)
			return 1;
	if (b->n_names == SW_MAX_SBX_NAMES)
		return fail(c, "too many hostnames in [sandbox %s] allow (max %d)", b->name,
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
static int sbx_allow(struct ctx *c, struct sw_sandbox *b, char *e)
{
	char *s2, *a = strtok_r(e, " \t", &s2), *port, *extra;
	struct sw_allow al = { .line = (unsigned)c->line };
	const char *why;

	if (!a)
		return 1;
	port = strtok_r(NULL, " \t", &s2);
	extra = strtok_r(NULL, " \t", &s2);
	if (!port || extra)
		return fail(c, "bad entry '%s%s%s' in [sandbox %s] allow (use CIDR PROTO/PORT or "
			    "HOSTNAME PROTO/PORT, comma separated; a policy can only take access "
			    "away, so there is no reopen)",
			    a, port ? " " : "", port ? port : "", b->name);
	if (sw_prefix_parse(a, &al.dst, &why) < 0 && looks_like_cidr(a))
		return fail(c, "bad CIDR '%s' in [sandbox %s] allow: %s", a, b->name, why);
	if (al.dst.family && v4_mapped(&al.dst))
		return fail(c, "'%s' in [sandbox %s] allow is an IPv4-mapped IPv6 address: write "
			    "it as IPv4", a, b->name);
	if (parse_port(port, &al.port) < 0)
		return fail(c, "bad port '%s' in [sandbox %s] allow (use tcp/PORT or udp/PORT, "
			    "PORT 1..65535)", port, b->name);
	if (!al.dst.family)
		return sbx_name(c, b, a, &al.port);
	for (size_t i = 0; i < b->n_allows; i++)
		if (sw_prefix_equal(&b->allows[i].dst, &al.dst) &&
		    b->allows[i].port.proto == al.port.proto && b->allows[i].port.port == al.port.port)
			return 1;
	if (b->n_allows == SW_MAX_SBX_ALLOWS)
		return fail(c, "too many entries in [sandbox %s] allow (max %d)", b->name,
			    SW_MAX_SBX_ALLOWS);
	b->allows[b->n_allows++] = al;
	return 1;
}

static int sandbox_key(struct ctx *c, const char *name, const char *value)
{
	struct sw_sandbox *b;
	char v[LINE_MAX_CHARS + 3], *save, *t;
	int k, rc = 1;

	if (!c->cfg->n_sandboxes)
		return 1;       /* its header was refused */
	b = &c->cfg->sandboxes[c->cfg->n_sandboxes - 1];
	for (k = 0; k < SBX_KEYS && strcmp(sbx_keys[k].name, name); k++)
		;
	if (k == SBX_KEYS)
		return c->cont ? 1 : fail(c, "unknown key '%s' in [sandbox %s] (interfaces, sources, "
					  "egress, allow, dns, budget, budget_sources)", name, b->name);
	if (c->cont && !sbx_keys[k].list)
		return fail(c, "continuation line for '%s' in [sandbox %s] (only lists may span lines)",
			    name, b->name);
	if (!c->cont) {
		if (b->seen & (1u << k))
			return fail(c, "duplicate key '%s' in [sandbox %s]", name, b->name);
		b->seen |= 1u << k;
	}
	snprintf(v, sizeof(v), "%s", value);
	strip_comment(v);
	switch (k) {
	case SBX_INTERFACES:
		for (t = strtok_r(v, " \t", &save); t && rc == 1; t = strtok_r(NULL, " \t", &save))
			rc = sbx_pattern(c, b, t);
		return rc;
	case SBX_SOURCES:
		for (t = strtok_r(v, " \t,", &save); t && rc == 1; t = strtok_r(NULL, " \t,", &save))
			rc = sbx_source(c, b, t);
		return rc;
	case SBX_ALLOW:
		for (t = strtok_r(v, ",", &save); t && rc == 1; t = strtok_r(NULL, ",", &save))
			rc = sbx_allow(c, b, t);
		return rc;
	case SBX_EGRESS:
		for (int e = 0; e < SW_EGRESS_COUNT; e++)
			if (!strcasecmp(v, egress_names[e])) {
				b->egress = (enum sw_egress)e;
				return 1;
			}
		return fail(c, "bad value '%s' for [sandbox %s] egress (use open, none or allowlist)",
			    v, b->name);
	case SBX_BUDGET:
		return sbx_budget(c, b, v);
	case SBX_BUDGET_SOURCES: {
		/* budget_sources = N, 16..1048576: how many sources the budget
		 * tracks at once; a new source past that is dropped */
		unsigned long n;
		char *end;

		errno = 0;
		n = strtoul(v, &end, 10);
		if (!isdigit((unsigned char)*v) || errno || *end || n < SW_BUDGET_SOURCES_MIN ||
		    n > SW_BUDGET_SOURCES_MAX)
			return fail(c, "bad value '%s' for [sandbox %s] budget_sources (use N, %d..%d: "
				    "source addresses the budget tracks at once)", v, b->name,
				    SW_BUDGET_SOURCES_MIN, SW_BUDGET_SOURCES_MAX);
		b->budget_sources = (uint32_t)n;
		return 1;
	}
	case SBX_DNS:
		if (!strcasecmp(v, "auto") || !strcasecmp(v, "none")) {
			b->dns = !strcasecmp(v, "auto") ? SW_DNS_AUTO : SW_DNS_NONE;
			return 1;
		}
		return fail(c, "bad value '%s' for [sandbox %s] dns (use auto or none)", v, b->name);
	}
	return 1;
}

/* What a sandbox section must say as a whole. */
static int check_sandboxes(struct ctx *c)
{
	for (size_t i = 0; i < c->cfg->n_sandboxes; i++) {
		const struct sw_sandbox *b = &c->cfg->sandboxes[i];

		c->line = (int)b->line;
		if (!b->n_patterns && !b->n_sources)
			return fail(c, "[sandbox %s] names no interfaces and no sources: it would apply "
				    "to nothing", b->name);
		if (b->budget_sources && !b->budget)
			return fail(c, "[sandbox %s] sets budget_sources but no budget", b->name);
		if ((b->n_allows || b->n_names) && b->egress != SW_EGRESS_ALLOWLIST)
			return fail(c, "[sandbox %s] lists allow entries but egress is %s: allow is "
				    "for egress = allowlist", b->name, sw_egress_name(b->egress));
	}
	if (c->cfg->dns_min_ttl > c->cfg->dns_max_ttl) {
		c->line = (int)c->cfg->dns_ttl_line;
		return fail(c, "[daemon] dns_min_ttl (%u) is above dns_max_ttl (%u)",
			    c->cfg->dns_min_ttl, c->cfg->dns_max_ttl);
	}
	return 1;
}

/* inih's find_chars_or_comment: first of chars, or a ';' after whitespace. */
static const char *find_or_comment(const char *s, const char *chars)
{
	bool was_space = false;

	for (; *s && !strchr(chars, *s) && !(was_space && *s == ';'); s++)
		was_space = isspace((unsigned char)*s);
	return s;
}

/* Cut a ';' or '#' comment that follows whitespace, then trailing space. */
static void strip_comment(char *s)
{
	char *e = s;

	/* a ';' or '#' after a blank starts a comment (strpbrk: most lines
	 * have neither) */
	while ((e = strpbrk(e, ";#")) && !(e > s && isspace((unsigned char)e[-1])))
		e++;
	if (!e)
		e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
}

static int section_index(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (strlen(sections[i]) == n && !memcmp(sections[i], s, n))
			return (int)i;
	return -1;
}

static bool section_known(const char *s, size_t n)
{
	return section_index(s, n) >= 0;
}

/* Classify a line the way inih will, to track continuations and check
 * section headers (inih tells the handler about neither). */
static void classify(struct ctx *c, const char *line)
{
	const char *s = line, *e;
	int i;

	if (c->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == ';' || *s == '#')
		return;
	if (c->prev_key && s > line) {
		c->cont = true;
		return;
	}
	if (*s == '[') {
		e = find_or_comment(s + 1, "]");
		if (*e != ']')
			return;         /* inih reports it */
		c->prev_key = false;
		c->had_section = true;
		if (is_sandbox(s + 1, (size_t)(e - s - 1))) {
			sandbox_open(c, s + 1, (size_t)(e - s - 1));
			for (e++; isspace((unsigned char)*e); e++)
				;
			if (*e && *e != ';' && *e != '#')
				fail(c, "syntax error");
			return;
		}
		if ((i = section_index(s + 1, (size_t)(e - s - 1))) < 0) {
			fail(c, "unknown section [%.*s]", (int)(e - s - 1), s + 1);
			return;
		}
		if (c->section_line[i]) {
			fail(c, "section [%s] repeated (first at line %d): give each section once",
			     sections[i], c->section_line[i]);
			return;
		}
		c->section_line[i] = c->line;
		c->cfg->section_line[i] = (unsigned)c->line;
		for (e++; isspace((unsigned char)*e); e++)
			;
		if (*e && *e != ';' && *e != '#')
			fail(c, "syntax error");
		return;
	}
	e = find_or_comment(s, "=:");
	if (*e == '=' || *e == ':')
		c->prev_key = true;
}

/* ini_reader over the text: one line per call, counting lines. */
static char *reader(char *buf, int num, void *stream)
{
	struct ctx *c = stream;
	const char *nl;
	size_t n, len;

	if (c->stop || !*c->pos)
		return NULL;
	nl = strchr(c->pos, '\n');
	n = nl ? (size_t)(nl - c->pos) + 1 : strlen(c->pos);
	c->line++;
	c->cont = false;
	for (len = n; len && (c->pos[len - 1] == '\n' || c->pos[len - 1] == '\r'); len--)
		;
	if (len > LINE_MAX_CHARS || n >= (size_t)num) {
		fail(c, "line too long (max %d characters)", LINE_MAX_CHARS);
		c->stop = true;
		return NULL;
	}
	memcpy(buf, c->pos, n);
	buf[n] = '\0';
	c->pos += n;
	classify(c, buf);
	return buf;
}

/* [block] <category> = yes|no, for every category with a switch */
static int block_key(struct ctx *c, enum sw_category cat, const char *name, const char *value)
{
	char v[LINE_MAX_CHARS + 3];

	if (c->cont)
		return fail(c, "continuation line for '%s' in [block] (only lists may span lines)", name);
	if (c->cat_seen & (1u << cat))
		return fail(c, "duplicate key '%s' in [block]", name);
	c->cat_seen |= 1u << cat;
	c->cfg->given_cats |= 1u << cat;
	snprintf(v, sizeof(v), "%s", value);
	strip_comment(v);
	if (parse_bool(v, &c->cfg->block[cat]) < 0)
		return fail(c, "bad boolean '%s' for [block] %s (use yes or no)", v, name);
	return 1;
}
_Static_assert(SW_CAT_COUNT <= 32, "cat_seen bits");

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *c = user;
	char v[LINE_MAX_CHARS + 3];
	size_t i, vlen;

	/* a continuation line of a global list (10,000 [allow] entries) */
	if (c->cont && c->list_key) {
		i = c->list_key - 1;
		goto value;
	}
	c->list_key = 0;
	if (!*section && !c->had_section)
		return fail(c, "key '%s' outside any section", name);
	if (is_sandbox(section, strlen(section)))
		return sandbox_key(c, name, value);
	if (!section_known(section, strlen(section)))
		return 1;       /* reported at its header */
	if (!strcmp(section, "block") && (i = (size_t)sw_category_lookup(name)) < SW_CAT_COUNT &&
	    sw_categories[i].key == SW_CAT_KEY_BOOL)
		return block_key(c, (enum sw_category)i, name, value);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, name))
			break;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return c->cont ? 1 : fail(c, "unknown key '%s' in [%s]", name, section);
	if (c->cont && !keys[i].list)
		return fail(c, "continuation line for '%s' in [%s] (only lists may span lines)", name, section);
	if (!c->cont) {
		if (c->seen & (1UL << i))
			return fail(c, "duplicate key '%s' in [%s]", name, section);
		c->seen |= 1UL << i;
		c->cfg->given_keys |= (uint64_t)1 << i;
		list_reset(c->cfg, &keys[i]);
		if (keys[i].line_off)
			*(unsigned *)((char *)c->cfg + keys[i].line_off) = (unsigned)c->line;
		if (keys[i].list)
			c->list_key = (unsigned)i + 1;
	}
value:
	/* what snprintf "%s" would copy, without its cost (once per line) */
	vlen = strnlen(value, sizeof(v) - 1);
	memcpy(v, value, vlen);
	v[vlen] = '\0';
	strip_comment(v);
	return keys[i].set(c, &keys[i], v);
}

static int set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int prefix_cmp(const void *a, const void *b, void *arg)
{
	(void)arg;
	return sw_prefix_order(a, b);
}

/* Indices into a list, ordered by the entry and then by position: equal
 * entries end up side by side, the first one given first. */
static int allow_idx_cmp(const void *a, const void *b, void *arg)
{
	const struct sw_allow *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int r = sw_prefix_order(&v[i].dst, &v[j].dst);

	if (r)
		return r;
	if (v[i].port.proto != v[j].port.proto)
		return v[i].port.proto < v[j].port.proto ? -1 : 1;
	if (v[i].port.port != v[j].port.port)
		return v[i].port.port < v[j].port.port ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The long lists once each: destinations (sorted), and allow entries in
 * the order given (a repeated entry is "reopen" if any copy said so). One sort of
 * indices, not a scan per entry. -ENOMEM leaves the lists as they are. */
static int dedup_lists(struct sw_config *cfg)
{
	size_t n = cfg->n_destinations > cfg->n_allows ? cfg->n_destinations : cfg->n_allows;
	size_t *idx = n > 1 ? malloc(n * sizeof(*idx)) : NULL, out;
	bool *drop = n > 1 ? calloc(n, sizeof(*drop)) : NULL;

	if (n > 1 && (!idx || !drop)) {
		free(idx);
		free(drop);
		return -ENOMEM;
	}
	/* destinations: sorted (order means nothing in a block list) so that
	 * the hole checks can search them */
	if (cfg->n_destinations > 1) {
		sw_sort(cfg->destinations, cfg->n_destinations, sizeof(cfg->destinations[0]),
			prefix_cmp, NULL);
		out = 0;
		for (size_t i = 0; i < cfg->n_destinations; i++)
			if (!out || sw_prefix_order(&cfg->destinations[out - 1], &cfg->destinations[i]))
				cfg->destinations[out++] = cfg->destinations[i];
		cfg->n_destinations = out;
	}
	cfg->destinations_sorted = true;
	if (cfg->n_allows > 1) {
		struct sw_allow *v = cfg->allows;
		size_t first = 0;

		for (size_t i = 0; i < cfg->n_allows; i++)
			idx[i] = i;
		sw_sort(idx, cfg->n_allows, sizeof(*idx), allow_idx_cmp, v);
		for (size_t i = 1; i < cfg->n_allows; i++) {
			const struct sw_allow *p = &v[idx[i - 1]], *q = &v[idx[i]];

			if (!sw_prefix_order(&p->dst, &q->dst) && p->port.proto == q->port.proto &&
			    p->port.port == q->port.port) {
				drop[idx[i]] = true;
				v[idx[first]].reopen |= q->reopen;
			} else {
				first = i;
			}
		}
		out = 0;
		for (size_t i = 0; i < cfg->n_allows; i++)
			if (!drop[i])
				v[out++] = v[i];
		cfg->n_allows = out;
	}
	free(idx);
	free(drop);
	return 0;
}

/* The refusals that need the whole file: an empty [guard], and [allow]
 * entries that reopen an enabled block category without saying so
 * (those that need the host are checked by sw_config_check_host). */
static int check_whole(struct ctx *c)
{
	const struct sw_config *cfg = c->cfg;
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], p[SW_ADDR_STRLEN];

	if (dedup_lists(c->cfg))
		return fail(c, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < cfg->n_except; i++)
		for (size_t j = 0; j < cfg->n_patterns; j++)
			if (!fnmatch(cfg->patterns[j], cfg->except[i], 0))
				return fail(c, "[guard] except names %s, which [guard] interfaces pattern '%s' "
					    "guards: say one or the other", cfg->except[i], cfg->patterns[j]);
	if (!cfg->n_patterns && !cfg->all_bridges && !cfg->auto_detect) {
		c->line = (int)cfg->interfaces_line;
		return fail(c, "[guard] interfaces is empty and all_bridges is off: nothing would be "
			    "guarded (use auto, or name the container interfaces, e.g. docker0 br-*)");
	}
	for (size_t i = 0; i < cfg->n_allows; i++) {
		const struct sw_allow *a = &cfg->allows[i];

		if (a->reopen || !sw_allow_holes(cfg, NULL, a, h, 1))
			continue;
		sw_allow_format(a, e, sizeof(e));
		sw_prefix_format(&h[0].blocked, p, sizeof(p));
		c->line = (int)a->line;
		return fail(c, "[allow] destinations entry '%s' reopens %s (%s), which [block] closes; "
			    "if that is intended, say so: '%s reopen'", e, sw_category_name(h[0].cat),
			    p, e);
	}
	return 1;
}

int sw_config_parse_string(const char *text, const char *name,
			   struct sw_config *cfg, char *err, size_t errlen)
{
	struct ctx *c;
	int ret, rc;

	if (!name)
		name = "(string)";
	if (err && errlen)
		err[0] = '\0';
	/* parsed in place: a 10,000-entry config is 1.4 MB, which a copy
	 * would write twice (and fault in fresh in the daemon) */
	sw_config_defaults(cfg);
	c = calloc(1, sizeof(*c));
	if (!c)
		return set_err(err, errlen, -ENOMEM, "%s: %s", name, strerror(ENOMEM));
	c->cfg = cfg;
	snprintf(c->cfg->path, sizeof(c->cfg->path), "%s", name);
	c->name = name;
	c->pos = text ? text : "";
	if (strnlen(c->pos, SW_CONFIG_MAX + 1) > SW_CONFIG_MAX) {
		free(c);
		sw_config_defaults(cfg);        /* the path too */
		return set_err(err, errlen, -EFBIG, "%s: larger than %d bytes, the limit for a config",
			       name, SW_CONFIG_MAX);
	}
	ret = ini_parse_stream(reader, c, handler, c);
	if (ret == 0 && !c->err_line && check_whole(c) == 1)
		check_sandboxes(c);
	if (c->err_line && (ret <= 0 || c->err_line <= ret))
		rc = set_err(err, errlen, -EINVAL, "%s:%d: %s", name, c->err_line, c->msg);
	else if (ret > 0)
		rc = set_err(err, errlen, -EINVAL, "%s:%d: syntax error", name, ret);
	else if (ret < 0)
		rc = set_err(err, errlen, -ENOMEM, "%s: %s", name, strerror(ENOMEM));
	else
		rc = 0;
	if (rc == 0) {
		const char *t = text ? text : "";
		size_t len = strlen(t);
		unsigned lines = 0;

		for (const char *q = t; (q = memchr(q, '\n', (size_t)(t + len - q))); q++)
			lines++;
		c->cfg->block[SW_CAT_DESTINATIONS] = c->cfg->n_destinations > 0;
		c->cfg->ends_in_newline = !len || t[len - 1] == '\n';
		c->cfg->n_lines = lines + !c->cfg->ends_in_newline;
		snprintf(c->cfg->path, sizeof(c->cfg->path), "%s", name);
	} else {
		sw_config_defaults(cfg);
	}
	free(c);
	return rc;
}

/* Read a whole (small) file into a NUL-terminated buffer. */
static int read_file(const char *path, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nb;
	int fd, e;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		free(buf);
		return e;
	}
	for (;;) {
		if (len > MAX_FILE) {
			e = -EFBIG;
			goto out;
		}
		if (len + 1 == cap) {
			if (!(nb = realloc(buf, cap * 2))) {
				e = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = -errno;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
out:
	close(fd);
	free(buf);
	return e;
}

/* The netdev egress hook is Linux 5.16 (CONFIG_NETFILTER_EGRESS): from the
 * release's numbers; one that cannot be read counts as new enough */
static bool kernel_has_egress(void)
{
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return true;
	return maj > 5 || (maj == 5 && min >= 16);
}

int sw_config_load(const char *path, struct sw_config *cfg, char *err, size_t errlen)
{
	char *text = NULL, *nul;
	size_t len = 0;
	int rc, line = 1;

	rc = read_file(path, &text, &len);
	if (rc == -EFBIG) {
		sw_config_defaults(cfg);
		return set_err(err, errlen, rc, "%s: larger than %d bytes, the limit for a config",
			       path, SW_CONFIG_MAX);
	}
	if (rc < 0) {
		sw_config_defaults(cfg);
		return set_err(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	nul = memchr(text, '\0', len);
	if (nul) {
		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		sw_config_defaults(cfg);
		rc = set_err(err, errlen, -EINVAL, "%s:%d: NUL byte", path, line);
	} else {
		rc = sw_config_parse_string(text, path, cfg, err, errlen);
	}
	free(text);
	/* macvlan_parents = auto (the default) needs the egress hook: off on an
	 * older kernel, said by status (named parents still fail the apply) */
	if (!rc && cfg->parents_auto && !kernel_has_egress()) {
		cfg->parents_auto = false;
		cfg->parents_auto_no_egress = true;
	}
	return rc;
}

bool sw_config_is_empty(const struct sw_config *cfg)
{
	for (size_t i = 0; i < sizeof(cfg->section_line) / sizeof(*cfg->section_line); i++)
		if (cfg->section_line[i])
			return false;
	return !cfg->n_sandboxes;
}

/* "FILE:LINE: what; refused" for a loss; line: where in the new file. */
__attribute__((format(printf, 5, 6)))
static int loss(const struct sw_config *new, unsigned line, char *err, size_t errlen,
		const char *fmt, ...)
{
	char what[SW_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return set_err(err, errlen, -ENODATA, "%s:%u: %s; a reload would fall back to the "
		       "defaults there, so it is refused and the rules in force stay (to apply it "
		       "anyway: sandwall apply --accept-loss)", new->path, line ? line : 1, what);
}

/* Keys whose absence only takes access away (their default allows
 * nothing): dropping them loses no protection. */
static bool drop_tightens(const struct key *k)
{
	return k->set == set_allows || k->set == set_host_ports;
}

/* Did old give a key of section sec whose drop loses protection? */
static bool section_protects(const struct sw_config *old, size_t sec)
{
	if (sec == 1 && old->given_cats)        /* [block] switches */
		return true;
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if ((old->given_keys & ((uint64_t)1 << i)) && !drop_tightens(&keys[i]) &&
		    !strcmp(keys[i].section, sections[sec]))
			return true;
	return false;
}

int sw_config_loss(const struct sw_config *old, const struct sw_config *new, char *err,
		   size_t errlen)
{
	const size_t nsec = sizeof(sections) / sizeof(*sections);
	unsigned last = new->n_lines ? new->n_lines : 1;

	if (sw_config_is_empty(new) && !sw_config_is_empty(old))
		return loss(new, 1, err, errlen, "the file is empty (no section), the running "
			    "config is not");
	if (old->ends_in_newline && !new->ends_in_newline)
		return loss(new, last, err, errlen, "the last line has no newline: the file looks "
			    "cut short");
	for (size_t i = 0; i < nsec; i++)
		if (old->section_line[i] && !new->section_line[i] && section_protects(old, i))
			return loss(new, last, err, errlen, "section [%s] is missing (the running "
				    "config has it at line %u)", sections[i], old->section_line[i]);
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		size_t sec;

		if (!(old->given_keys & ((uint64_t)1 << i)) || (new->given_keys & ((uint64_t)1 << i)) ||
		    drop_tightens(&keys[i]))
			continue;
		for (sec = 0; sec < nsec && strcmp(sections[sec], keys[i].section); sec++)
			;
		return loss(new, sec < nsec && new->section_line[sec] ? new->section_line[sec] : last,
			    err, errlen, "[%s] %s is missing (the running config gives it)",
			    keys[i].section, keys[i].name);
	}
	for (int cat = 0; cat < SW_CAT_COUNT; cat++)
		if ((old->given_cats & (1u << cat)) && !(new->given_cats & (1u << cat)))
			return loss(new, new->section_line[1] ? new->section_line[1] : last, err,
				    errlen, "[block] %s is missing (the running config gives it)",
				    sw_category_name(cat));
	for (size_t i = 0; i < old->n_sandboxes; i++) {
		size_t j;

		for (j = 0; j < new->n_sandboxes; j++)
			if (!strcmp(old->sandboxes[i].name, new->sandboxes[j].name))
				break;
		if (j == new->n_sandboxes)
			return loss(new, last, err, errlen, "section [sandbox %s] is missing (the "
				    "running config has it at line %u)", old->sandboxes[i].name,
				    old->sandboxes[i].line);
		for (int k = 0; k < SBX_KEYS; k++)
			if (k != SBX_ALLOW && (old->sandboxes[i].seen & (1u << k)) &&
			    !(new->sandboxes[j].seen & (1u << k)))
				return loss(new, new->sandboxes[j].line, err, errlen, "[sandbox %s] %s "
					    "is missing (the running config gives it)",
					    old->sandboxes[i].name, sbx_keys[k].name);
	}
	return 0;
}
