// SPDX-License-Identifier: GPL-2.0-or-later
/* lint: warnings about a config on this host (see include/core/lint.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/coverage.h"
#include "core/holes.h"
#include "core/lint.h"

__attribute__((format(printf, 4, 5)))
static void warn(struct sw_lint *l, const char *id, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (l->n < SW_LINT_MAX) {
		struct sw_lint_warn *w = &l->w[l->n];

		w->id = id;
		w->line = line;
		va_start(ap, fmt);
		vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
		va_end(ap);
	}
	l->n++;
}

const char *sw_lint_cloud(const char *sys_vendor, const char *product_name)
{
	static const struct { const char *word, *cloud; } clouds[] = {
		{ "Amazon", "AWS" }, { "Google", "Google Cloud" },
		{ "Microsoft", "Azure" }, { "Alibaba", "Alibaba Cloud" },
		{ "OpenStack", "OpenStack" }, { "DigitalOcean", "DigitalOcean" },
		{ "Hetzner", "Hetzner Cloud" }, { "Oracle", "Oracle Cloud" },
		{ "Tencent", "Tencent Cloud" }, { "Scaleway", "Scaleway" },
		{ "Linode", "Linode" }, { "Vultr", "Vultr" }, { "Exoscale", "Exoscale" },
	};
	const char *v[2] = { sys_vendor, product_name };

	for (size_t i = 0; i < sizeof(clouds) / sizeof(*clouds); i++)
		for (int k = 0; k < 2; k++)
			if (v[k] && strcasestr(v[k], clouds[i].word))
				return clouds[i].cloud;
	return NULL;
}

static void lint_coverage(const struct sw_lint_in *in, struct sw_lint *l)
{
	const struct sw_config *cfg = in->cfg;
	struct sw_coverage cov;
	size_t shown;

	sw_coverage(cfg, in->host, &cov);
	for (size_t i = 0; i < cov.n_patterns; i++)
		warn(l, "guard-pattern-unmatched", cfg->interfaces_line,
		     "[guard] interfaces pattern \"%s\" matches no interface now (a typo?)",
		     cov.patterns[i]);
	shown = cov.n_links < SW_COV_MAX ? cov.n_links : SW_COV_MAX;
	for (size_t i = 0; i < shown; i++)
		warn(l, "guard-unguarded", cfg->interfaces_line,
		     "%s (%s) faces containers and no [guard] entry covers it: UNGUARDED "
		     "(add it to [guard] interfaces, or interfaces = auto)",
		     cov.links[i].name, cov.links[i].facing);
	if (cov.n_links > shown)
		warn(l, "guard-unguarded", cfg->interfaces_line,
		     "... and %zu more unguarded container-facing links", cov.n_links - shown);
}

static void lint_reopen(const struct sw_lint_in *in, struct sw_lint *l)
{
	const struct sw_config *cfg = in->cfg;

	for (size_t i = 0; i < cfg->n_allows; i++) {
		const struct sw_allow *a = &cfg->allows[i];
		struct sw_hole h[SW_MAX_HOLES];
		char e[128], what[256] = "";
		size_t n, o = 0;

		if (!a->reopen)
			continue;
		sw_allow_format(a, e, sizeof(e));
		n = sw_allow_holes(cfg, in->host, a, h, SW_MAX_HOLES);
		for (size_t k = 0; k < n && o < sizeof(what); k++) {
			char p[SW_ADDR_STRLEN];
			int w;

			sw_prefix_format(&h[k].blocked, p, sizeof(p));
			w = snprintf(what + o, sizeof(what) - o, "%s%s (%s)", k ? ", " : "",
				     sw_category_name(h[k].cat), p);
			o += w > 0 ? (size_t)w : 0;
		}
		if (n)
			warn(l, "allow-reopen", a->line,
			     "[allow] destinations entry '%s reopen' reopens %s to every sandbox", e, what);
		else
			warn(l, "allow-reopen", a->line,
			     "[allow] destinations entry '%s reopen' is marked reopen but reopens no "
			     "enabled block category now", e);
	}
}

void sw_lint(const struct sw_lint_in *in, struct sw_lint *out)
{
	const struct sw_config *cfg = in->cfg;

	memset(out, 0, sizeof(*out));
	if (in->host)
		lint_coverage(in, out);
	if (in->cloud && !cfg->block[SW_CAT_PRIVATE])
		warn(out, "private-off-cloud",
		     cfg->cat_line[SW_CAT_PRIVATE] ? cfg->cat_line[SW_CAT_PRIVATE] : cfg->section_line[1],
		     "[block] private = no on a cloud VM (%s): the sandboxes reach the VPC, peered "
		     "networks and VPN routes; keep private = yes and open what they need with "
		     "[allow] networks or destinations", in->cloud);
	lint_reopen(in, out);
}

size_t sw_lint_print(const struct sw_lint *l, const struct sw_config *cfg, FILE *f,
		     const char *prefix)
{
	size_t shown = l->n < SW_LINT_MAX ? l->n : SW_LINT_MAX;

	for (size_t i = 0; i < shown; i++) {
		const struct sw_lint_warn *w = &l->w[i];

		if (w->line)
			fprintf(f, "%s%s:%u: warning: %s [%s]\n", prefix, cfg->path, w->line, w->msg, w->id);
		else
			fprintf(f, "%s%s: warning: %s [%s]\n", prefix, cfg->path, w->msg, w->id);
	}
	if (l->n > shown)
		fprintf(f, "%s%s: ... and %zu more warnings\n", prefix, cfg->path, l->n - shown);
	return l->n;
}

void sw_lint_json(const struct sw_lint *l, const struct sw_config *cfg, struct sw_jw *w)
{
	size_t shown = l->n < SW_LINT_MAX ? l->n : SW_LINT_MAX;

	sw_jw_u64(w, "n_warnings", l->n);
	sw_jw_arr(w, "warnings");
	for (size_t i = 0; i < shown; i++) {
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "id", l->w[i].id);
		sw_jw_str(w, "file", cfg->path);
		if (l->w[i].line)
			sw_jw_u64(w, "line", l->w[i].line);
		else
			sw_jw_null(w, "line");
		sw_jw_str(w, "message", l->w[i].msg);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}
