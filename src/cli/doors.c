// SPDX-License-Identifier: GPL-2.0-or-later
/* doors (include/cli/doors.h). */
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include "cli/doors.h"
#include "core/holes.h"

static const char *proto(const struct sw_port *p)
{
	return p->proto == IPPROTO_TCP ? "tcp" : "udp";
}

static const char *budget_unit(uint32_t s)
{
	return s == 1 ? "second" : s == 60 ? "minute" : s == 3600 ? "hour" : "window";
}

/* What entry a reopens: "metadata (169.254.169.254), link_local (...)"
 * in buf ("" when nothing); the holes in h, their count returned. */
static size_t reopens(const struct sw_config *cfg, const struct sw_host *host,
		      const struct sw_allow *a, struct sw_hole *h, char *buf, size_t len)
{
	size_t n = sw_allow_holes(cfg, host, a, h, SW_MAX_HOLES), o = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < n && o < len; k++) {
		char p[SW_ADDR_STRLEN];
		int w;

		sw_prefix_format(&h[k].blocked, p, sizeof(p));
		w = snprintf(buf + o, len - o, "%s%s (%s)", k ? ", " : "", sw_category_name(h[k].cat), p);
		o += w > 0 ? (size_t)w : 0;
	}
	return n;
}

static void print_sandbox(const struct sw_sandbox *b, FILE *f)
{
	char e[128];

	fprintf(f, "  %-10s %s (line %u): egress %s, dns %s", "sandbox", b->name, b->line,
		sw_egress_name(b->egress), b->dns == SW_DNS_AUTO ? "auto" : "none");
	for (size_t i = 0; i < b->n_patterns; i++)
		fprintf(f, "%s%s", i ? " " : ", interfaces ", b->patterns[i]);
	for (size_t i = 0; i < b->n_sources; i++) {
		sw_prefix_format(&b->sources[i], e, sizeof(e));
		fprintf(f, "%s%s", i ? " " : ", sources ", e);
	}
	if (b->egress == SW_EGRESS_ALLOWLIST) {
		fprintf(f, ", allow");
		for (size_t i = 0; i < b->n_allows; i++) {
			sw_allow_format(&b->allows[i], e, sizeof(e));
			fprintf(f, "%s %s", i ? "," : "", e);
		}
		for (size_t i = 0; i < b->n_names; i++)
			fprintf(f, "%s %s %s/%u", i || b->n_allows ? "," : "", b->names[i].name,
				proto(&b->names[i].port), b->names[i].port.port);
		if (!b->n_allows && !b->n_names)
			fprintf(f, " nothing");
	}
	if (b->budget)
		fprintf(f, ", budget %u new connections per source per %s", b->budget,
			budget_unit(b->budget_unit));
	if (b->max_conns)
		fprintf(f, ", max %u connections per source per run (then quarantined)", b->max_conns);
	fprintf(f, "\n");
}

void sw_cli_doors_print(const struct sw_config *cfg, const struct sw_host *host, FILE *f)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], what[512];

	fprintf(f, "open doors:\n");
	if (cfg->dns == SW_DNS_AUTO) {
		fprintf(f, "  %-10s udp/53 tcp/53 to the host's resolvers ([allow] dns = auto):", "dns");
		for (size_t i = 0; host && i < host->n_resolvers; i++) {
			sw_prefix_format(&host->resolvers[i], e, sizeof(e));
			fprintf(f, " %s", e);
		}
		fprintf(f, "%s\n", !host ? " (cannot read the host)" : host->n_resolvers ? "" : " none now");
	}
	for (size_t i = 0; i < cfg->n_allows; i++) {
		const struct sw_allow *a = &cfg->allows[i];

		sw_allow_format(a, e, sizeof(e));
		fprintf(f, "  %-10s %s%s (line %u)", "allow", e, a->reopen ? " reopen" : "", a->line);
		if (a->reopen && reopens(cfg, host, a, h, what, sizeof(what)))
			fprintf(f, ": reopens %s", what);
		fprintf(f, "\n");
	}
	for (size_t i = 0; i < cfg->n_host_ports; i++)
		fprintf(f, "  %-10s %s/%u to the host itself\n", "host_port", proto(&cfg->host_ports[i]),
			cfg->host_ports[i].port);
	for (size_t i = 0; i < cfg->n_networks; i++) {
		sw_prefix_format(&cfg->networks[i], e, sizeof(e));
		fprintf(f, "  %-10s %s (lan and private leave it open)\n", "network", e);
	}
	for (size_t i = 0; i < cfg->n_between; i++)
		fprintf(f, "  %-10s %s:%s (routed, both ways)\n", "between", cfg->between[i][0],
			cfg->between[i][1]);
	for (size_t i = 0; i < cfg->n_sandboxes; i++)
		print_sandbox(&cfg->sandboxes[i], f);
}

static void sandbox_json(const struct sw_sandbox *b, struct sw_jw *w)
{
	char e[128];

	sw_jw_obj(w, NULL);
	sw_jw_str(w, "kind", "sandbox");
	sw_jw_str(w, "name", b->name);
	sw_jw_u64(w, "line", b->line);
	sw_jw_str(w, "egress", sw_egress_name(b->egress));
	sw_jw_str(w, "dns", b->dns == SW_DNS_AUTO ? "auto" : "none");
	sw_jw_arr(w, "interfaces");
	for (size_t i = 0; i < b->n_patterns; i++)
		sw_jw_str(w, NULL, b->patterns[i]);
	sw_jw_end(w);
	sw_jw_arr(w, "sources");
	for (size_t i = 0; i < b->n_sources; i++) {
		sw_prefix_format(&b->sources[i], e, sizeof(e));
		sw_jw_str(w, NULL, e);
	}
	sw_jw_end(w);
	sw_jw_arr(w, "allow");
	for (size_t i = 0; i < b->n_allows; i++) {
		sw_allow_format(&b->allows[i], e, sizeof(e));
		sw_jw_str(w, NULL, e);
	}
	for (size_t i = 0; i < b->n_names; i++) {
		snprintf(e, sizeof(e), "%s %s/%u", b->names[i].name, proto(&b->names[i].port),
			 b->names[i].port.port);
		sw_jw_str(w, NULL, e);
	}
	sw_jw_end(w);
	if (!b->budget) {
		sw_jw_null(w, "budget");
	} else {
		sw_jw_obj(w, "budget");
		sw_jw_u64(w, "connections", b->budget);
		sw_jw_str(w, "per", budget_unit(b->budget_unit));
		sw_jw_u64(w, "sources", b->budget_sources ? b->budget_sources : SW_BUDGET_SOURCES);
		sw_jw_end(w);
	}
	if (b->max_conns)
		sw_jw_u64(w, "max_connections", b->max_conns);
	else
		sw_jw_null(w, "max_connections");
	sw_jw_end(w);
}

void sw_cli_doors_json(const struct sw_config *cfg, const struct sw_host *host, struct sw_jw *w)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], what[512];

	sw_jw_arr(w, "doors");
	if (cfg->dns == SW_DNS_AUTO) {
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", "dns");
		sw_jw_arr(w, "ports");
		sw_jw_str(w, NULL, "udp/53");
		sw_jw_str(w, NULL, "tcp/53");
		sw_jw_end(w);
		if (!host) {
			sw_jw_null(w, "resolvers");
		} else {
			sw_jw_arr(w, "resolvers");
			for (size_t i = 0; i < host->n_resolvers; i++) {
				sw_prefix_format(&host->resolvers[i], e, sizeof(e));
				sw_jw_str(w, NULL, e);
			}
			sw_jw_end(w);
		}
		sw_jw_end(w);
	}
	for (size_t i = 0; i < cfg->n_allows; i++) {
		const struct sw_allow *a = &cfg->allows[i];
		size_t n;

		sw_allow_format(a, e, sizeof(e));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", "allow");
		sw_jw_str(w, "entry", e);
		sw_jw_u64(w, "line", a->line);
		sw_jw_bool(w, "reopen", a->reopen);
		n = a->reopen ? reopens(cfg, host, a, h, what, sizeof(what)) : 0;
		sw_jw_arr(w, "reopens");
		for (size_t k = 0; k < n; k++) {
			sw_prefix_format(&h[k].blocked, e, sizeof(e));
			sw_jw_obj(w, NULL);
			sw_jw_str(w, "category", sw_category_name(h[k].cat));
			sw_jw_str(w, "blocked", e);
			sw_jw_end(w);
		}
		sw_jw_end(w);
		sw_jw_end(w);
	}
	for (size_t i = 0; i < cfg->n_host_ports; i++) {
		snprintf(e, sizeof(e), "%s/%u", proto(&cfg->host_ports[i]), cfg->host_ports[i].port);
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", "host_port");
		sw_jw_str(w, "port", e);
		sw_jw_end(w);
	}
	for (size_t i = 0; i < cfg->n_networks; i++) {
		sw_prefix_format(&cfg->networks[i], e, sizeof(e));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", "network");
		sw_jw_str(w, "cidr", e);
		sw_jw_end(w);
	}
	for (size_t i = 0; i < cfg->n_between; i++) {
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", "between");
		sw_jw_str(w, "a", cfg->between[i][0]);
		sw_jw_str(w, "b", cfg->between[i][1]);
		sw_jw_end(w);
	}
	for (size_t i = 0; i < cfg->n_sandboxes; i++)
		sandbox_json(&cfg->sandboxes[i], w);
	sw_jw_end(w);
}
