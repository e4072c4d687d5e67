/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_parse: the INI file -> struct sw_config, parsed with inih.
 *
 * inih (Debian 55) gives the handler no line numbers, so we feed it through
 * our own line reader, which counts lines, refuses over-long lines, checks
 * section headers and tells the handler whether the current line is an
 * indented continuation (lists may span lines; scalars may not). The first
 * error by line wins: ours, or inih's own ("syntax error"). The keys are
 * config_keys.c's, the [sandbox NAME] sections config_sandbox.c's. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "core/config_parse.h"
#include "core/guard.h"
#include "lib/sort.h"

#define MAX_FILE  SW_CONFIG_MAX

const char *const sw_cfg_sections[SW_CFG_N_SECTIONS] = {
	"guard", "block", "allow", "log", "daemon", "nft", "verify", "identity",
};
_Static_assert(SW_CFG_N_SECTIONS ==
	       sizeof(((struct sw_config *)0)->section_line) / sizeof(unsigned), "section_line");

int sw_cfg_fail(struct sw_cfg_ctx *c, const char *fmt, ...)
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

/* inih's find_chars_or_comment: first of chars, or a ';' after whitespace. */
static const char *find_or_comment(const char *s, const char *chars)
{
	bool was_space = false;

	for (; *s && !strchr(chars, *s) && !(was_space && *s == ';'); s++)
		was_space = isspace((unsigned char)*s);
	return s;
}

void sw_cfg_strip_comment(char *s)
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
	for (size_t i = 0; i < SW_CFG_N_SECTIONS; i++)
		if (strlen(sw_cfg_sections[i]) == n && !memcmp(sw_cfg_sections[i], s, n))
			return (int)i;
	return -1;
}

static bool section_known(const char *s, size_t n)
{
	return section_index(s, n) >= 0;
}

/* Classify a line the way inih will, to track continuations and check
 * section headers (inih tells the handler about neither). */
static void classify(struct sw_cfg_ctx *c, const char *line)
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
		if (sw_cfg_is_sandbox(s + 1, (size_t)(e - s - 1))) {
			sw_cfg_sandbox_open(c, s + 1, (size_t)(e - s - 1));
			for (e++; isspace((unsigned char)*e); e++)
				;
			if (*e && *e != ';' && *e != '#')
				sw_cfg_fail(c, "syntax error");
			return;
		}
		if ((i = section_index(s + 1, (size_t)(e - s - 1))) < 0) {
			char name[64];
			const char *near;

			snprintf(name, sizeof(name), "%.*s", (int)(e - s - 1), s + 1);
			near = sw_cfg_suggest(name, sw_cfg_sections, SW_CFG_N_SECTIONS);
			sw_cfg_fail(c, "unknown section [%.*s]%s%s%s", (int)(e - s - 1), s + 1,
				    near ? " (did you mean [" : "", near ? near : "", near ? "]?)" : "");
			return;
		}
		if (c->section_line[i]) {
			sw_cfg_fail(c, "section [%s] repeated (first at line %d): give each section once",
				    sw_cfg_sections[i], c->section_line[i]);
			return;
		}
		c->section_line[i] = c->line;
		c->cfg->section_line[i] = (unsigned)c->line;
		for (e++; isspace((unsigned char)*e); e++)
			;
		if (*e && *e != ';' && *e != '#')
			sw_cfg_fail(c, "syntax error");
		return;
	}
	e = find_or_comment(s, "=:");
	if (*e == '=' || *e == ':')
		c->prev_key = true;
}

/* ini_reader over the text: one line per call, counting lines. */
static char *reader(char *buf, int num, void *stream)
{
	struct sw_cfg_ctx *c = stream;
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
	if (len > SW_CFG_LINE_MAX || n >= (size_t)num) {
		sw_cfg_fail(c, "line too long (max %d characters)", SW_CFG_LINE_MAX);
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
static int block_key(struct sw_cfg_ctx *c, enum sw_category cat, const char *name,
		     const char *value)
{
	char v[SW_CFG_LINE_MAX + 3];

	if (c->cont)
		return sw_cfg_fail(c, "continuation line for '%s' in [block] (only lists may span lines)", name);
	if (c->cat_seen & (1u << cat))
		return sw_cfg_fail(c, "duplicate key '%s' in [block]", name);
	c->cat_seen |= 1u << cat;
	c->cfg->given_cats |= 1u << cat;
	c->cfg->cat_line[cat] = (unsigned)c->line;
	snprintf(v, sizeof(v), "%s", value);
	sw_cfg_strip_comment(v);
	if (sw_cfg_bool(v, &c->cfg->block[cat]) < 0)
		return sw_cfg_fail(c, "bad boolean '%s' for [block] %s (use yes or no)", v, name);
	return 1;
}
_Static_assert(SW_CAT_COUNT <= 32, "cat_seen bits");

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct sw_cfg_ctx *c = user;
	char v[SW_CFG_LINE_MAX + 3];
	size_t i, vlen;

	/* a continuation line of a global list (10,000 [allow] entries) */
	if (c->cont && c->list_key) {
		i = c->list_key - 1;
		goto value;
	}
	c->list_key = 0;
	if (!*section && !c->had_section)
		return sw_cfg_fail(c, "key '%s' outside any section", name);
	if (sw_cfg_is_sandbox(section, strlen(section)))
		return sw_cfg_sandbox_key(c, name, value);
	if (!section_known(section, strlen(section)))
		return 1;       /* reported at its header */
	if (!strcmp(section, "block") && (i = (size_t)sw_category_lookup(name)) < SW_CAT_COUNT &&
	    sw_categories[i].key == SW_CAT_KEY_BOOL)
		return block_key(c, (enum sw_category)i, name, value);
	for (i = 0; i < sw_cfg_n_keys; i++)
		if (!strcmp(sw_cfg_keys[i].section, section) && !strcmp(sw_cfg_keys[i].name, name))
			break;
	if (i == sw_cfg_n_keys) {
		char hint[80];

		return c->cont ? 1 : sw_cfg_fail(c, "unknown key '%s' in [%s]%s", name, section,
						 sw_cfg_key_hint(section, name, hint, sizeof(hint)));
	}
	if (c->cont && !sw_cfg_keys[i].list)
		return sw_cfg_fail(c, "continuation line for '%s' in [%s] (only lists may span lines)",
				   name, section);
	if (!c->cont) {
		if (c->seen & (1UL << i))
			return sw_cfg_fail(c, "duplicate key '%s' in [%s]", name, section);
		c->seen |= 1UL << i;
		c->cfg->given_keys |= (uint64_t)1 << i;
		sw_cfg_list_reset(c->cfg, &sw_cfg_keys[i]);
		if (sw_cfg_keys[i].line_off)
			*(unsigned *)((char *)c->cfg + sw_cfg_keys[i].line_off) = (unsigned)c->line;
		if (sw_cfg_keys[i].list)
			c->list_key = (unsigned)i + 1;
	}
value:
	/* what snprintf "%s" would copy, without its cost (once per line) */
	vlen = strnlen(value, sizeof(v) - 1);
	memcpy(v, value, vlen);
	v[vlen] = '\0';
	sw_cfg_strip_comment(v);
	return sw_cfg_keys[i].set(c, &sw_cfg_keys[i], v);
}

/* Levenshtein distance, case folded, of two short words (longer: far) */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[33];

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (tolower((unsigned char)a[i - 1]) !=
							   tolower((unsigned char)b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *sw_cfg_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bd = SIZE_MAX, len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, cands[i]);

		if (d < bd)
			bd = d, best = cands[i];
	}
	return bd <= 2 && bd * 2 < len ? best : NULL;
}

const char *sw_cfg_key_hint(const char *section, const char *name, char *buf, size_t len)
{
	const char *cands[64 + SW_CAT_COUNT], *near;
	size_t n = 0;

	for (size_t i = 0; i < sw_cfg_n_keys && n < 64; i++)
		if (!strcmp(sw_cfg_keys[i].section, section))
			cands[n++] = sw_cfg_keys[i].name;
	for (int i = 0; !strcmp(section, "block") && i < SW_CAT_COUNT; i++)
		if (sw_categories[i].key == SW_CAT_KEY_BOOL)
			cands[n++] = sw_category_name((enum sw_category)i);
	near = sw_cfg_suggest(name, cands, n);
	snprintf(buf, len, "%s%s%s", near ? " (did you mean '" : "", near ? near : "",
		 near ? "'?)" : "");
	return buf;
}

int sw_cfg_set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
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

/* The refusals that need the whole file: [guard] except against its
 * interfaces, an empty [guard], then check's (config_check.c: [allow]
 * entries that reopen an enabled block category without saying so). */
static int check_whole(struct sw_cfg_ctx *c, sw_config_check_fn check)
{
	const struct sw_config *cfg = c->cfg;
	char msg[SW_ERRLEN];
	unsigned line = 0;

	if (dedup_lists(c->cfg))
		return sw_cfg_fail(c, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < cfg->n_except; i++)
		for (size_t j = 0; j < cfg->n_patterns; j++)
			if (sw_name_match(cfg->patterns[j], cfg->except[i]))
				return sw_cfg_fail(c, "[guard] except names %s, which [guard] interfaces "
						   "pattern '%s' guards: say one or the other",
						   cfg->except[i], cfg->patterns[j]);
	if (!cfg->n_patterns && !cfg->all_bridges && !cfg->auto_detect) {
		c->line = (int)cfg->interfaces_line;
		return sw_cfg_fail(c, "[guard] interfaces is empty and all_bridges is off: nothing "
				   "would be guarded (use auto, or name the container interfaces, e.g. "
				   "docker0 br-*)");
	}
	/* one group would hand the network log's DNS replies to the
	 * blocked-attempt log */
	if (cfg->log_flows && cfg->log_names_group == cfg->log_group)
		return sw_cfg_fail(c, "[log] names_group = %u is [log] group: give the network "
				   "log's DNS replies a group of their own", cfg->log_group);
	if (check && check(cfg, &line, msg, sizeof(msg))) {
		c->line = (int)line;
		return sw_cfg_fail(c, "%s", msg);
	}
	return 1;
}

int sw_config_parse(const char *text, const char *name, sw_config_check_fn check,
		    struct sw_config *cfg, char *err, size_t errlen)
{
	struct sw_cfg_ctx *c;
	int ret, rc;

	if (!name)
		name = "(string)";
	if (err && errlen)
		err[0] = '\0';
	/* parsed in place: the destination and allow arrays of the last
	 * parse are kept and grown, not allocated again */
	sw_config_defaults(cfg);
	c = calloc(1, sizeof(*c));
	if (!c)
		return sw_cfg_set_err(err, errlen, -ENOMEM, "%s: %s", name, strerror(ENOMEM));
	c->cfg = cfg;
	snprintf(c->cfg->path, sizeof(c->cfg->path), "%s", name);
	c->name = name;
	c->pos = text ? text : "";
	if (strnlen(c->pos, SW_CONFIG_MAX + 1) > SW_CONFIG_MAX) {
		free(c);
		sw_config_defaults(cfg);        /* the path too */
		return sw_cfg_set_err(err, errlen, -EFBIG, "%s: larger than %d bytes, the limit for a config",
				      name, SW_CONFIG_MAX);
	}
	ret = ini_parse_stream(reader, c, handler, c);
	if (ret == 0 && !c->err_line && check_whole(c, check) == 1)
		sw_cfg_check_sandboxes(c);
	if (c->err_line && (ret <= 0 || c->err_line <= ret))
		rc = sw_cfg_set_err(err, errlen, -EINVAL, "%s:%d: %s", name, c->err_line, c->msg);
	else if (ret > 0)
		rc = sw_cfg_set_err(err, errlen, -EINVAL, "%s:%d: syntax error", name, ret);
	else if (ret < 0)
		rc = sw_cfg_set_err(err, errlen, -ENOMEM, "%s: %s", name, strerror(ENOMEM));
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

int sw_config_read(const char *path, sw_config_check_fn check, struct sw_config *cfg, char *err,
		   size_t errlen)
{
	char *text = NULL, *nul;
	size_t len = 0;
	int rc, line = 1;

	rc = read_file(path, &text, &len);
	if (rc == -EFBIG) {
		sw_config_defaults(cfg);
		return sw_cfg_set_err(err, errlen, rc, "%s: larger than %d bytes, the limit for a config",
				      path, SW_CONFIG_MAX);
	}
	if (rc < 0) {
		sw_config_defaults(cfg);
		return sw_cfg_set_err(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	nul = memchr(text, '\0', len);
	if (nul) {
		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		sw_config_defaults(cfg);
		rc = sw_cfg_set_err(err, errlen, -EINVAL, "%s:%d: NUL byte", path, line);
	} else {
		rc = sw_config_parse(text, path, check, cfg, err, errlen);
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
