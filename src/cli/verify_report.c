// SPDX-License-Identifier: GPL-2.0-or-later
/* verify's result: the verdict of each target and run, and their text
 * and JSON; the per-sandbox and per-link summaries and the one verdict
 * of the whole command (include/cli/verify_int.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "cli/verify_int.h"
#include "core/holes.h"
#include "core/ruleset.h"
#include "lib/addr.h"
#include "lib/json.h"

const char sw_verify_site_bridge[] = "bridge", sw_verify_site_routed[] = "routed veth",
	   sw_verify_site_tap[] = "tap";

/* A row that is a report, never a pass or a failure. */
static bool report_only(const struct sw_verify_target *t)
{
	return t->cat == SW_VCAT_ALLOWED;
}

bool sw_verify_passed(const struct sw_verify *v)
{
	if (v->cut_off)
		return false;
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_probe *p = &v->t[i].probe;

		if (report_only(&v->t[i]))
			continue;
		if (v->t[i].atk.kind != SW_ATK_NONE) {
			if (!sw_attack_held(&v->t[i].atk))
				return false;
			continue;
		}

		/* an attempt that could not be made proves nothing */
		if (v->t[i].must_block ? sw_probe_reachable(p) || p->result == SW_PROBE_ERROR ||
					 p->result == SW_PROBE_PENDING
				       : !sw_probe_reachable(p))
			return false;
	}
	return true;
}

enum sw_vverdict sw_verify_verdict_of(const struct sw_verify_target *t)
{
	if (report_only(t))
		return sw_probe_reachable(&t->probe) ? SW_VV_OPEN : SW_VV_UNREACHABLE;
	if (t->atk.kind != SW_ATK_NONE)
		return !sw_attack_held(&t->atk) ? SW_VV_FAIL : t->must_block ? SW_VV_BLOCKED : SW_VV_OPEN;
	if (t->probe.result == SW_PROBE_NOROUTE)
		return t->must_block ? SW_VV_SKIPPED : SW_VV_FAIL;
	if (t->must_block)
		return sw_probe_reachable(&t->probe) || t->probe.result == SW_PROBE_ERROR ? SW_VV_FAIL
											   : SW_VV_BLOCKED;
	return sw_probe_reachable(&t->probe) ? SW_VV_OPEN : SW_VV_FAIL;
}

const char *sw_verify_verdict(const struct sw_verify_target *t)
{
	static const char *const names[SW_VV_COUNT] = {
		[SW_VV_BLOCKED] = "blocked", [SW_VV_OPEN] = "open", [SW_VV_SKIPPED] = "skipped",
		[SW_VV_UNREACHABLE] = "unreachable", [SW_VV_FAIL] = "FAIL",
	};

	return names[sw_verify_verdict_of(t)];
}

/* The attack in words, for the text table's last column. */
static void attack_words(const struct sw_attack *a, const char *gw, char *buf, size_t len)
{
	switch (a->kind) {
	case SW_ATK_PRIME_TCP:
	case SW_ATK_PRIME_UDP:
		snprintf(buf, len, "%s: forged %s from the target to %s, %s +%llu", sw_attack_kind_name(a->kind),
			 a->kind == SW_ATK_PRIME_TCP ? "SYN" : "datagram",
			 a->bcast_mac ? "ff:ff:ff:ff:ff:ff" : gw, a->counter,
			 (unsigned long long)a->counted);
		break;
	case SW_ATK_ND:
		snprintf(buf, len, "%s: NS hop limit 255 with option 253, %s +%llu", sw_attack_kind_name(a->kind),
			 a->counter, (unsigned long long)a->counted);
		break;
	case SW_ATK_BCAST:
		snprintf(buf, len, "%s: UDP to the host's canary: %s", sw_attack_kind_name(a->kind),
			 a->result == SW_ATK_HEARD ? "it heard it" : a->result == SW_ATK_SILENT ?
			 "it heard nothing" : "no proof (its control failed)");
		break;
	case SW_ATK_CANARY:
		snprintf(buf, len, "%s: the host to its own canary: %s", sw_attack_kind_name(a->kind),
			 a->result == SW_ATK_HEARD ? "heard (the canary works)" : "NOT heard");
		break;
	case SW_ATK_BUDGET:
	case SW_ATK_CONNS:
		snprintf(buf, len, "%s: %u TCP connections at once to the sink, %s +%llu",
			 sw_attack_kind_name(a->kind), a->tries, a->counter, (unsigned long long)a->counted);
		break;
	case SW_ATK_EGRESS:
		snprintf(buf, len, "%s: TCP to an unlisted destination (verify's sink), %s%s%s +%llu",
			 sw_attack_kind_name(a->kind), a->counter, a->counter2[0] ? "+" : "", a->counter2,
			 (unsigned long long)a->counted);
		break;
	default:
		buf[0] = '\0';
	}
	if (a->err && a->result != SW_ATK_COUNTED && a->result != SW_ATK_SILENT &&
	    a->result != SW_ATK_HEARD) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (%s)", strerror(a->err));
	}
}

/* Through a bridge (or from an existing namespace, whose gateway is
 * usually a bridge)? */
static bool bridge_site(const struct sw_verify *v)
{
	return !v->site || v->site == sw_verify_site_bridge;
}

void sw_verify_json(const struct sw_verify *v, size_t run, struct sw_jw *w)
{
	char a[SW_ADDR_STRLEN];

	sw_jw_obj(w, NULL);
	if (run)
		sw_jw_u64(w, "run", run);
	sw_jw_str(w, "from", v->from);
	if (v->link[0]) {
		sw_jw_str(w, "link", v->link);
		sw_jw_str(w, "kind", v->site);
		sw_jw_str(w, "why", v->why);
	}
	sw_jw_bool(w, "passed", sw_verify_passed(v));
	if (v->cut_off)
		sw_jw_str(w, "probe_cut_off_by", v->cut_off_by);
	sw_jw_arr(w, "sources");
	for (size_t i = 0; i < v->n_src && i < 2; i++) {
		char s[SW_ADDR_STRLEN];
		struct sw_prefix p = v->src[i];

		p.len = (uint8_t)(sw_family_addrlen(p.family) * 8);
		sw_prefix_format(&p, s, sizeof(s));
		sw_jw_str(w, NULL, s);
	}
	sw_jw_end(w);
	sw_jw_arr(w, "targets");
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_verify_target *t = &v->t[i];
		bool atk = t->atk.kind != SW_ATK_NONE;

		sw_prefix_format(&t->probe.addr, a, sizeof(a));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "category", sw_vcat_name(t->cat));
		sw_jw_str(w, "address", a);
		sw_jw_u64(w, "port", t->probe.port);
		sw_jw_bool(w, "must_block", t->must_block);
		sw_jw_str(w, "result", atk ? sw_attack_result_name(t->atk.result)
					   : sw_probe_result_name(t->probe.result));
		sw_jw_str(w, "verdict", sw_verify_verdict(t));
		sw_jw_u64(w, "ms", atk ? t->atk.ms : t->probe.ms);
		if (t->sandbox > 0)
			sw_jw_str(w, "sandbox", t->sandbox_name);
		if (atk)
			sw_jw_str(w, "attack", sw_attack_kind_name(t->atk.kind));
		if (t->atk.kind == SW_ATK_PRIME_TCP || t->atk.kind == SW_ATK_PRIME_UDP)
			sw_jw_str(w, "frame_to", t->atk.bcast_mac ? "broadcast-mac" :
					  bridge_site(v) ? "bridge-mac" : "link-mac");
		if (t->atk.counter[0]) {
			sw_jw_str(w, "counter", t->atk.counter);
			sw_jw_u64(w, "counted", t->atk.counted);
		}
		if (t->atk.counter2[0])
			sw_jw_str(w, "counter2", t->atk.counter2);
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_end(w);
}

void sw_verify_text(const struct sw_verify *v, size_t run, FILE *f)
{
	const char *gw = bridge_site(v) ? "the bridge MAC" : "the link's MAC";
	char a[SW_ADDR_STRLEN];

	if (run)
		fprintf(f, "run %zu\n", run);
	fprintf(f, "probing from %s\n%-12s %-40s %-8s %-10s %-5s %s\n", v->from, "category",
		"target", "verdict", "result", "ms", "attack");
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_verify_target *t = &v->t[i];
		bool atk = t->atk.kind != SW_ATK_NONE;
		char target[SW_ADDR_STRLEN + 16], words[192];

		sw_prefix_format(&t->probe.addr, a, sizeof(a));
		snprintf(target, sizeof(target), t->probe.addr.family == AF_INET6 ? "[%s]:%u" : "%s:%u",
			 a, t->probe.port);
		if (!atk) {
			fprintf(f, "%-12s %-40s %-8s %-10s %-5u%s%s\n", sw_vcat_name(t->cat), target,
				sw_verify_verdict(t), sw_probe_result_name(t->probe.result), t->probe.ms,
				t->sandbox > 0 ? " sandbox " : "", t->sandbox > 0 ? t->sandbox_name : "");
			continue;
		}
		attack_words(&t->atk, gw, words, sizeof(words));
		fprintf(f, "%-12s %-40s %-8s %-10s %-5u %s%s%s\n", sw_vcat_name(t->cat), target,
			sw_verify_verdict(t), sw_attack_result_name(t->atk.result), t->atk.ms, words,
			t->sandbox > 0 ? ", sandbox " : "", t->sandbox > 0 ? t->sandbox_name : "");
	}
	{
		size_t nc = 0;

		for (size_t i = 0; i < v->n; i++)
			nc += v->t[i].cat == SW_VCAT_EXPECT_OPEN;
		if (v->cut_off)
			fprintf(f, "%s: the probe's own address was cut off (%s) while the targets "
				"that must be blocked were probed: their timeouts prove nothing\n",
				v->from, v->cut_off_by);
		fprintf(f, "%s: %s\n", v->from, !sw_verify_passed(v) ? "NOT HELD (see FAIL lines)" :
			nc ? "every target blocked, every canary open" :
			"every target blocked, but no canary was probed: nothing proven open");
	}
}

void sw_verify_print(const struct sw_verify *v, size_t run, FILE *f, bool json)
{
	struct sw_jw w;

	if (!json) {
		sw_verify_text(v, run, f);
		return;
	}
	sw_jw_init(&w);
	sw_verify_json(v, run, &w);
	if (sw_jw_text(&w))
		fputs(sw_jw_text(&w), f);
	sw_jw_free(&w);
}

/* The reopen holes of [allow]: for the text and the JSON alike. */
static size_t holes_of(const struct sw_config *cfg, const struct sw_host *host, size_t i,
		       struct sw_hole *h)
{
	return cfg->allows[i].reopen ? sw_allow_holes(cfg, host, &cfg->allows[i], h, SW_MAX_HOLES) : 0;
}

void sw_verify_print_holes(const struct sw_config *cfg, const struct sw_host *host, FILE *f)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], p[SW_ADDR_STRLEN];
	bool first = true;

	for (size_t i = 0; i < cfg->n_allows; i++) {
		size_t n = holes_of(cfg, host, i, h);

		if (!n)
			continue;
		sw_allow_format(&cfg->allows[i], e, sizeof(e));
		fprintf(f, "%s%s:%u: %s reopens", first ? "deliberate holes ([allow] "
			"destinations ... reopen):\n" : "", cfg->path, cfg->allows[i].line, e);
		for (size_t j = 0; j < n; j++) {
			sw_prefix_format(&h[j].blocked, p, sizeof(p));
			fprintf(f, "%s %s (%s)", j ? "," : "", sw_category_name(h[j].cat), p);
		}
		fputc('\n', f);
		first = false;
	}
}

void sw_verify_holes_json(const struct sw_config *cfg, const struct sw_host *host, struct sw_jw *w)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128];

	sw_jw_arr(w, "holes");
	for (size_t i = 0; i < cfg->n_allows; i++) {
		size_t n = holes_of(cfg, host, i, h);

		if (!n)
			continue;
		sw_allow_format(&cfg->allows[i], e, sizeof(e));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "entry", e);
		sw_jw_u64(w, "line", cfg->allows[i].line);
		sw_jw_arr(w, "reopens");
		for (size_t j = 0; j < n; j++)
			sw_jw_str(w, NULL, sw_category_name(h[j].cat));
		sw_jw_end(w);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}

enum sbx_verdict { SBX_OPEN, SBX_NOT_PROBED, SBX_UNPROVEN, SBX_HELD, SBX_NOT_HELD };

static enum sbx_verdict sbx_verdict(const struct sw_sandbox *x, const struct sbx_rec *r)
{
	if (x->egress == SW_EGRESS_OPEN)
		return SBX_OPEN;
	if (!r->runs)
		return SBX_NOT_PROBED;
	if (r->runs_failed || r->unlisted_failed || r->budget_failed || r->conns_failed)
		return SBX_NOT_HELD;
	return r->unlisted_blocked ? SBX_HELD : SBX_UNPROVEN;
}

static const char *const sbx_verdict_names[] = {
	[SBX_OPEN] = "open policy", [SBX_NOT_PROBED] = "not probed", [SBX_UNPROVEN] = "unproven",
	[SBX_HELD] = "held", [SBX_NOT_HELD] = "not held",
};

/* The per-sandbox verdicts: JSON member "sandboxes" and the text. */
void sw_verify_sandboxes_out(struct verify_state *st, const struct sw_config *cfg,
			     const struct sink *sink, const char *no_probe, bool json)
{
	char a[SW_ADDR_STRLEN] = "";

	if (sink->addr.family)
		sw_prefix_format(&sink->addr, a, sizeof(a));
	sw_jw_arr(&st->w, "sandboxes");
	if (!json && cfg->n_sandboxes)
		printf("sandboxes:\n");
	for (size_t b = 0; b < cfg->n_sandboxes; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];
		const struct sbx_rec *r = &st->sbx[b];
		enum sbx_verdict vd = sbx_verdict(x, r);
		const char *reason = NULL, *conns_not = sw_verify_conns_why_not(x);

		if (vd == SBX_NOT_PROBED)
			reason = no_probe ? no_probe : "no throwaway probe matched its interfaces or sources";
		else if (vd == SBX_UNPROVEN)
			reason = sink->addr.family ? "no unlisted destination was tried" : sink->why_not;
		sw_jw_obj(&st->w, NULL);
		sw_jw_str(&st->w, "name", x->name);
		sw_jw_str(&st->w, "egress", sw_egress_name(x->egress));
		sw_jw_str(&st->w, "verdict", sbx_verdict_names[vd]);
		sw_jw_u64(&st->w, "runs", r->runs);
		if (r->runs)
			sw_jw_u64(&st->w, "first_run", (uint64_t)r->first_run + 1);
		if (sink->addr.family)
			sw_jw_str(&st->w, "unlisted", a);
		sw_jw_u64(&st->w, "unlisted_blocked", r->unlisted_blocked);
		sw_jw_u64(&st->w, "unlisted_failed", r->unlisted_failed);
		sw_jw_u64(&st->w, "allowed_open", r->allowed_open);
		sw_jw_u64(&st->w, "allowed_unreachable", r->allowed_unreachable);
		if (x->budget) {
			sw_jw_u64(&st->w, "budget_counted", r->budget_counted);
			sw_jw_u64(&st->w, "budget_failed", r->budget_failed);
		}
		if (x->max_conns) {
			sw_jw_u64(&st->w, "max_connections_counted", r->conns_counted);
			sw_jw_u64(&st->w, "max_connections_failed", r->conns_failed);
			if (conns_not)
				sw_jw_str(&st->w, "max_connections_not_probed", conns_not);
		}
		if (reason)
			sw_jw_str(&st->w, "reason", reason);
		sw_jw_end(&st->w);
		if (json)
			continue;
		printf("  %-16s egress %-9s %s", x->name, sw_egress_name(x->egress),
		       vd == SBX_NOT_HELD ? "NOT HELD" : sbx_verdict_names[vd]);
		if (vd == SBX_HELD || vd == SBX_NOT_HELD)
			printf(" (%zu run(s); unlisted %s:%u blocked %zu, FAIL %zu; allowed open %zu, "
			       "unreachable %zu)", r->runs, a, sink->port, r->unlisted_blocked,
			       r->unlisted_failed, r->allowed_open, r->allowed_unreachable);
		if ((vd == SBX_HELD || vd == SBX_NOT_HELD) && x->budget > SW_VERIFY_BUDGET_MAX)
			printf(" (budget %u: above %d, not probed)", x->budget, SW_VERIFY_BUDGET_MAX);
		else if ((vd == SBX_HELD || vd == SBX_NOT_HELD) && x->budget)
			printf(" (budget %u: one over it counted %zu, FAIL %zu)", x->budget,
			       r->budget_counted, r->budget_failed);
		if ((vd == SBX_HELD || vd == SBX_NOT_HELD) && x->max_conns && conns_not)
			printf(" (max_connections %u: %s)", x->max_conns, conns_not);
		else if ((vd == SBX_HELD || vd == SBX_NOT_HELD) && x->max_conns)
			printf(" (max_connections %u: one over it counted %zu, FAIL %zu)", x->max_conns,
			       r->conns_counted, r->conns_failed);
		if (reason)
			printf(" (%s)", reason);
		printf("\n");
	}
	sw_jw_end(&st->w);
}

/* Every guarded link, why, and which run probed it (or why none did). */
void sw_verify_guarded_out(struct verify_state *st, const struct sw_config *cfg,
			   const struct sw_host *h, const struct link_rec *lr, bool json)
{
	bool any = false;

	sw_jw_arr(&st->w, "guarded");
	for (size_t i = 0; i < h->n_links; i++) {
		const struct sw_link *l = &h->links[i];
		enum sw_guard_why why = sw_ruleset_guard_why(cfg, l);

		if (why < SW_GUARD_PATTERN)
			continue;
		sw_jw_obj(&st->w, NULL);
		sw_jw_str(&st->w, "name", l->name);
		sw_jw_str(&st->w, "kind", sw_link_kind_name(l->kind));
		sw_jw_str(&st->w, "why", sw_guard_why_name(why));
		if (lr[i].run >= 0)
			sw_jw_u64(&st->w, "run", (uint64_t)lr[i].run + 1);
		else
			sw_jw_null(&st->w, "run");
		if (lr[i].run < 0 && lr[i].why_not)
			sw_jw_str(&st->w, "reason", lr[i].why_not);
		sw_jw_end(&st->w);
		if (json)
			continue;
		if (!any)
			printf("guarded links:\n");
		any = true;
		printf("  %-16s %-8s %-13s ", l->name, sw_link_kind_name(l->kind), sw_guard_why_name(why));
		if (lr[i].run >= 0)
			printf("probed (run %d)\n", lr[i].run + 1);
		else
			printf("not probed: %s\n", lr[i].why_not ? lr[i].why_not : "-");
	}
	sw_jw_end(&st->w);
}

__attribute__((format(printf, 2, 3)))
void sw_verify_verdict_add(struct verdict *vd, const char *fmt, ...)
{
	va_list ap;

	if (vd->n == VERDICT_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(vd->why[vd->n++], sizeof(vd->why[0]), fmt, ap);
	va_end(ap);
}

void sw_verify_root_print(const struct verdict *vd, FILE *f)
{
	for (size_t i = 0; i < vd->n; i++)
		fprintf(f, "NOT HELD: %s\n", vd->why[i]);
	for (size_t i = 0; i < vd->n_notes; i++)
		fprintf(f, "note: %s\n", vd->note[i]);
}

static void iso_utc(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

/* The last lines (text) and members (JSON) of the result: one verdict. */
bool sw_verify_verdict_out(const struct verdict *vd, struct sw_jw *w, time_t t, bool json)
{
	char when[32];
	bool held = vd->n == 0;

	iso_utc(t, when, sizeof(when));
	sw_jw_str(w, "time_utc", when);
	sw_jw_str(w, "verdict", held ? "held" : "not held");
	sw_jw_arr(w, "reasons");
	for (size_t i = 0; i < vd->n; i++)
		sw_jw_str(w, NULL, vd->why[i]);
	sw_jw_end(w);
	sw_jw_arr(w, "notes");
	for (size_t i = 0; i < vd->n_notes; i++)
		sw_jw_str(w, NULL, vd->note[i]);
	sw_jw_end(w);
	if (!json) {
		printf("verdict at %s: %s\n", when, held ?
		       "HELD (every target blocked, every canary open)" : "NOT HELD");
		for (size_t i = 0; i < vd->n; i++)
			printf("  because %s\n", vd->why[i]);
	}
	return held;
}
