// SPDX-License-Identifier: GPL-2.0-or-later
/* receipt: the audit document (see include/cli/receipt.h); what it reads
 * is in receipt_read.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <linux/netfilter/nf_tables.h>

#include "cli/daemonctl.h"
#include "cli/key.h"
#include "cli/receipt.h"
#include "core/coverage.h"
#include "core/diff.h"
#include "core/export.h"
#include "core/ruleset.h"
#include "core/timeline.h"
#include "host/attempts.h"
#include "kernel/observe.h"
#include "lib/atomicfile.h"
#include "lib/control.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/sha256.h"
#include "sync/reconcile.h"

/* the journal's directory holds the daemon's other records */
static void sibling(const char *path, const char *name, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	out[0] = '\0';
	if (path[0] && slash)
		snprintf(out, len, "%.*s/%s", (int)(slash - path), path, name);
}

/* What the sandboxes tried to reach, every record; verify's own probes
 * apart (counted, not listed among them). */
static void print_attempts(FILE *out, const struct sw_jv *doc,
			   const struct sw_attempts_probes *probes)
{
	const struct sw_jv *list = sw_jv_get(doc, "attempts");
	size_t n_sbx = 0, n_ver = 0;
	int64_t ev = 0, c_ver = 0;

	if (!list || list->type != SW_JARR) {
		fprintf(out, "attempted         unknown (no record from sandwalld)\n");
		return;
	}
	sw_jv_get_i64(doc, "evicted", &ev);
	for (size_t i = 0; i < list->n; i++) {
		int64_t count = 0;

		sw_jv_get_i64(&list->vals[i], "count", &count);
		if (sw_receipt_by_verify(&list->vals[i], probes)) {
			n_ver++;
			c_ver += count;
		} else {
			n_sbx++;
		}
	}
	fprintf(out, "attempted         %zu distinct destination record(s) by the sandboxes%s\n", n_sbx,
	       ev ? " (and older ones pushed out: the list is not complete)" : "");
	for (size_t i = 0; i < list->n; i++) {
		const struct sw_jv *a = &list->vals[i];
		const char *cat = "?", *sbx = NULL, *dst = "?", *proto = NULL, *src = "?", *iif = NULL;
		const char *path = NULL;
		int64_t port = 0, count = 0;
		char tag[300];

		if (sw_receipt_by_verify(a, probes))
			continue;
		sw_jv_get_str(a, "category", &cat);
		sw_jv_get_str(a, "sandbox", &sbx);
		sw_jv_get_str(a, "dst", &dst);
		sw_jv_get_str(a, "src", &src);
		sw_jv_get_str(a, "iif", &iif);
		sw_jv_get_str(a, "path", &path);
		sw_jv_get_str(a, "proto", &proto);
		sw_jv_get_i64(a, "dport", &port);
		sw_jv_get_i64(a, "count", &count);
		sw_receipt_ident_tag(a, tag, sizeof(tag));
		fprintf(out, "                  %-12s %s%s%-20s %s", cat, sbx ? sbx : "", sbx ? " " : "", dst,
		       proto ? proto : "");
		if (port)
			fprintf(out, "/%lld", (long long)port);
		fprintf(out, " from %s%s %s%s x%lld\n", src, tag, iif ? "on " : path ? "via the " : "",
		       iif ? iif : path ? "output path" : "", (long long)count);
	}
	fprintf(out, "verify's probes   %zu record(s), %lld packet(s): verify's own, not the sandboxes'\n",
	       n_ver, (long long)c_ver);
}

/* The guarded interfaces now (patterns and detected ones), and why each
 * is guarded (pattern, bridge, routed veth, tap, ...). */
static void guarded_json(struct sw_jw *w, const struct sw_receipt_in *in)
{
	const struct sw_config *cfg = in->cfg;

	sw_jw_obj(w, "guarded");
	sw_jw_arr(w, "patterns");
	for (size_t i = 0; i < cfg->n_patterns; i++)
		sw_jw_str(w, NULL, cfg->patterns[i]);
	sw_jw_end(w);
	sw_jw_arr(w, "interfaces");
	for (size_t i = 0; i < in->host->n_links; i++)
		if (sw_ruleset_guarded(cfg, &in->host->links[i]))
			sw_jw_str(w, NULL, in->host->links[i].name);
	sw_jw_end(w);
	sw_jw_arr(w, "links");
	for (size_t i = 0; i < in->host->n_links; i++) {
		const struct sw_link *l = &in->host->links[i];
		enum sw_guard_why why = sw_ruleset_guard_why(cfg, l);

		if (why < SW_GUARD_PATTERN)
			continue;
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "name", l->name);
		sw_jw_str(w, "kind", sw_link_kind_name(l->kind));
		sw_jw_str(w, "why", sw_guard_why_name(why));
		sw_jw_end(w);
	}
	sw_jw_end(w);
	/* the output path: [guard] users, and the cgroups matched now */
	if (cfg->n_users) {
		sw_jw_arr(w, "users");
		for (size_t i = 0; i < cfg->n_users; i++)
			sw_jw_u64(w, NULL, cfg->users[i].uid);
		sw_jw_end(w);
	}
	if (cfg->n_cgroups) {
		sw_jw_arr(w, "cgroups");
		for (size_t i = 0; i < in->host->n_cgroups; i++)
			sw_jw_str(w, NULL, in->host->cgroups[i].path);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}

static void sandbox_verdicts_json(struct sw_jw *w, const struct sw_receipt_sbx *sv)
{
	if (!sv->list) {
		sw_jw_null(w, "sandboxes");
		return;
	}
	sw_jw_arr(w, "sandboxes");
	for (size_t i = 0; i < sv->list->n; i++) {
		const struct sw_jv *e = &sv->list->vals[i];
		const char *name = "", *egress = "", *verdict = "";
		int64_t blocked = 0, failed = 0;

		sw_jv_get_str(e, "name", &name);
		sw_jv_get_str(e, "egress", &egress);
		sw_jv_get_str(e, "verdict", &verdict);
		sw_jv_get_i64(e, "unlisted_blocked", &blocked);
		sw_jv_get_i64(e, "unlisted_failed", &failed);
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "name", name);
		sw_jw_str(w, "egress", egress);
		sw_jw_str(w, "verdict", verdict);
		sw_jw_i64(w, "unlisted_blocked", blocked);
		sw_jw_i64(w, "unlisted_failed", failed);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}

/* How the text shows a sandbox verdict of the record (a failure in capitals). */
static const char *verdict_text(const char *v)
{
	static const struct { const char *json, *text; } shown[] = {
		{ "not held", "NOT HELD" },
	};

	for (size_t i = 0; i < sizeof(shown) / sizeof(*shown); i++)
		if (!strcmp(v, shown[i].json))
			return shown[i].text;
	return v;
}

static void sandbox_verdicts_text(FILE *out, const struct sw_receipt_sbx *sv)
{
	for (size_t i = 0; sv->list && i < sv->list->n; i++) {
		const struct sw_jv *e = &sv->list->vals[i];
		const char *name = "", *egress = "", *verdict = "", *reason = NULL;

		sw_jv_get_str(e, "name", &name);
		sw_jv_get_str(e, "egress", &egress);
		sw_jv_get_str(e, "verdict", &verdict);
		sw_jv_get_str(e, "reason", &reason);
		fprintf(out, "  sandbox         %s (egress %s): %s%s%s%s\n", name, egress,
		       verdict_text(verdict), reason ? " (" : "",
		       reason ? reason : "", reason ? ")" : "");
	}
}

/* "1 h 2 min 3.004 s", "310 us" */
static void duration(int64_t us, char *buf, size_t len)
{
	if (us < 1000)
		snprintf(buf, len, "%lld us", (long long)us);
	else if (us < 60 * 1000000LL)
		snprintf(buf, len, "%.3f s", (double)us / 1e6);
	else if (us < 3600 * 1000000LL)
		snprintf(buf, len, "%lld min %lld s", (long long)(us / 60000000),
			 (long long)(us / 1000000 % 60));
	else
		snprintf(buf, len, "%lld h %lld min", (long long)(us / 3600000000LL),
			 (long long)(us / 60000000 % 60));
}

static void iso_us(int64_t us, char *buf, size_t len)
{
	sw_iso_utc(us / 1000000, buf, len);
}

/* /etc/machine-id, first line ("" when there is none) */
#define MAX_REASONS 64
struct reasons {
	char r[MAX_REASONS][384];
	size_t n, more;
};

__attribute__((format(printf, 2, 3)))
static void reason(struct reasons *rs, const char *fmt, ...)
{
	va_list ap;

	if (rs->n == MAX_REASONS) {
		rs->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(rs->r[rs->n++], sizeof(rs->r[0]), fmt, ap);
	va_end(ap);
}

static void gap_reason(struct reasons *rs, const struct sw_gap *g)
{
	char a[32], b[32], dur[48];

	iso_us(g->start_us, a, sizeof(a));
	iso_us(g->end_us, b, sizeof(b));
	duration(g->end_us - g->start_us, dur, sizeof(dur));
	reason(rs, "%s from %s to %s%s (%s)%s%s%s%s%s%s", sw_gap_kind_name(g->kind), a,
	       g->open ? "the window's end" : b, g->open ? ", still going" : "", dur,
	       g->what[0] ? ": " : "", g->what, g->who[0] ? "; by " : "", g->who,
	       g->ended_by[0] ? "; ended by " : "", g->ended_by);
}

static void gaps_json(struct sw_jw *w, const struct sw_timeline *tl)
{
	char t[32];

	sw_jw_obj(w, "timeline");
	sw_jw_u64(w, "events", tl->events);
	sw_jw_u64(w, "in_window", tl->in_window);
	sw_jw_u64(w, "malformed", tl->malformed);
	sw_jw_u64(w, "out_of_order", tl->out_of_order);
	sw_jw_u64(w, "drifts", tl->drifts);
	sw_jw_u64(w, "verifies", tl->verifies);
	sw_jw_u64(w, "verifies_passed", tl->verifies_passed);
	if (tl->first_us >= 0) {
		iso_us(tl->first_us, t, sizeof(t));
		sw_jw_str(w, "oldest_event", t);
		sw_jw_i64(w, "oldest_event_unix", tl->first_us / 1000000);
	} else {
		sw_jw_null(w, "oldest_event");
	}
	sw_jw_arr(w, "gaps");
	for (size_t i = 0; i < tl->n_gaps; i++) {
		const struct sw_gap *g = &tl->gaps[i];

		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", sw_gap_kind_name(g->kind));
		iso_us(g->start_us, t, sizeof(t));
		sw_jw_str(w, "start", t);
		sw_jw_i64(w, "start_unix", g->start_us / 1000000);
		sw_jw_i64(w, "start_us", g->start_us);
		iso_us(g->end_us, t, sizeof(t));
		sw_jw_str(w, "end", t);
		sw_jw_i64(w, "end_unix", g->end_us / 1000000);
		sw_jw_i64(w, "end_us", g->end_us);
		sw_jw_i64(w, "duration_us", g->end_us - g->start_us);
		sw_jw_bool(w, "open", g->open);
		sw_jw_str(w, "what", g->what);
		sw_jw_str(w, "who", g->who);
		sw_jw_str(w, "ended_by", g->ended_by);
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_end(w);
}

static void gaps_text(FILE *out, const struct sw_timeline *tl)
{
	char a[32], b[32], dur[48];

	if (!tl->n_gaps) {
		fprintf(out, "timeline          no gap in the window\n");
		return;
	}
	fprintf(out, "timeline          %zu gap(s):\n", tl->n_gaps);
	for (size_t i = 0; i < tl->n_gaps; i++) {
		const struct sw_gap *g = &tl->gaps[i];

		iso_us(g->start_us, a, sizeof(a));
		iso_us(g->end_us, b, sizeof(b));
		duration(g->end_us - g->start_us, dur, sizeof(dur));
		fprintf(out, "  %s .. %s  %-12s %-32s%s%s%s%s%s%s\n", a, g->open ? "(still going)       " : b,
		       dur, sw_gap_kind_name(g->kind), g->what[0] ? " " : "", g->what,
		       g->who[0] ? " by " : "", g->who, g->ended_by[0] ? ", ended by " : "",
		       g->ended_by);
	}
}

/* Everything one receipt holds, from the digests to the verdict (static
 * in sw_receipt_cmd: the reasons and the probe list are large). */
struct receipt {
	const struct sw_receipt_in *in;
	char cfg_sha[65], rules_sha[65];
	char reply[SW_CONTROL_REPMAX];  /* the daemon's status */
	char mid[64], from_s[32], to_s[32], table[80];
	char vpath[SW_PATH_MAX + 16], apath[SW_PATH_MAX + 16];
	char *journal, *vjson, *ajson;
	size_t jlen, vlen, alen;
	struct sw_jv attempts;
	struct sw_receipt_flows flows;
	struct sw_receipt_sbx sv;
	int64_t vtime, since, until;
	bool daemon, held, vpassed, have_verify, upto_now;
	struct reasons rs;
	struct sw_attempts_probes probes;
	struct sw_receipt_ids ids;      /* identities.jsonl in the window */
	struct sw_coverage cov;
	struct sw_timeline tl;
	struct sw_receipt_journal js;
	struct sw_jv lines;
	struct sw_model have;
	struct sw_diff d;
	struct utsname u;
	time_t now;
	FILE *out;                      /* stdout, or --output's buffer */
	char *obuf;
	size_t olen;
};

/* The host, and the digests: the config as read, the ruleset as nft
 * text. 0 or -EIO (said on stderr). */
static int receipt_digests(struct receipt *r)
{
	char *text, *rules = NULL;
	size_t len, rlen = 0;
	FILE *f;

	uname(&r->u);
	sw_receipt_machine_id(r->mid, sizeof(r->mid));
	text = sw_receipt_slurp(r->in->cfg->path, &len);
	if (text)
		sw_sha256_hex(text, len, r->cfg_sha);
	free(text);
	f = open_memstream(&rules, &rlen);
	if (!f || sw_export(r->in->want, f)) {
		if (f)
			fclose(f);
		free(rules);
		sw_err("cannot render the ruleset");
		return -EIO;
	}
	fclose(f);
	sw_sha256_hex(rules, rlen, r->rules_sha);
	free(rules);
	return 0;
}

/* What the kernel holds, and whether a daemon answers. 0 or -errno (said
 * on stderr). */
static int receipt_kernel(struct receipt *r)
{
	char err[SW_ERRLEN];
	int rc;

	if ((rc = sw_check(r->in->nl, r->in->want, &r->d, err, sizeof(err)))) {
		sw_err("%s%s", err, sw_cli_perm_hint(rc));
		return rc;
	}
	if ((rc = sw_observe_counters(r->in->nl, r->in->cfg->table, &r->have))) {
		sw_diff_free(&r->d);
		sw_err("cannot read the ruleset: %s%s", strerror(-rc), sw_cli_perm_hint(rc));
		return rc;
	}
	r->daemon = sw_control_call(r->in->control, "status", r->reply, sizeof(r->reply)) == 0 &&
		    !strncmp(r->reply, "ok\n", 3);
	return 0;
}

/* The journal (PATH.1 then PATH: every change of the boundary) and the
 * window's timeline: --since (default: the oldest event kept, to the
 * microsecond) .. --until (now). 0 or -errno (said on stderr). */
static int receipt_window(struct receipt *r)
{
	const struct sw_config *cfg = r->in->cfg;
	const char *journal;
	int64_t since_us;
	int rc;

	if (cfg->journal_path[0] && (rc = sw_journal_read(cfg->journal_path, &r->journal, &r->jlen))) {
		sw_err("cannot read the journal %s: %s", cfg->journal_path, strerror(-rc));
		return rc;
	}
	journal = r->journal ? r->journal : "";
	if (sw_receipt_read_journal(journal, r->jlen, &r->js, r->in->json ? &r->lines : NULL)) {
		sw_err("cannot read the journal: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r->until = r->in->until >= 0 ? r->in->until : (int64_t)r->now;
	if (sw_timeline_build(journal, r->jlen, cfg->table, 0, r->until * 1000000 + 999999, &r->tl)) {
		sw_err("cannot build the timeline: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	since_us = r->in->since >= 0 ? r->in->since * 1000000 : r->tl.first_us >= 0 ? r->tl.first_us :
		   r->until * 1000000;
	r->since = since_us / 1000000;
	sw_timeline_free(&r->tl);
	if (r->since > r->until) {
		sw_err("receipt: --since is after --until");
		return -EINVAL;
	}
	r->upto_now = r->until >= (int64_t)r->now - 1;
	if (sw_timeline_build(journal, r->jlen, cfg->table, since_us, r->until * 1000000 + 999999,
			      &r->tl)) {
		sw_err("cannot build the timeline: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* The network log beside the journal: the flows of the window. */
static void receipt_flows(struct receipt *r)
{
	if (sw_receipt_flows_load(r->in->cfg, r->since, r->until, &r->flows))
		sw_warn("the network log: %s (left out)", strerror(ENOMEM));
}

/* The records beside the journal: what the sandboxes tried to reach
 * (sandwalld, from NFLOG) and the last verify's details (its verdict is
 * in the journal); the coverage of the links now. */
static void receipt_records(struct receipt *r)
{
	const struct sw_config *cfg = r->in->cfg;

	sibling(cfg->journal_path, "attempts.json", r->apath, sizeof(r->apath));
	r->ajson = r->apath[0] ? sw_receipt_slurp(r->apath, &r->alen) : NULL;
	if (r->ajson && (sw_jv_parse(r->ajson, r->alen, &r->attempts, NULL) ||
			 !sw_jv_get(&r->attempts, "attempts") ||
			 sw_jv_get(&r->attempts, "attempts")->type != SW_JARR)) {
		sw_jv_free(&r->attempts);
		sw_warn("%s is no attempts record: left out", r->apath);
	}
	sibling(cfg->journal_path, "verify.json", r->vpath, sizeof(r->vpath));
	r->vjson = r->vpath[0] ? sw_receipt_slurp(r->vpath, &r->vlen) : NULL;
	r->have_verify = r->vjson && sw_receipt_read_verify(r->vjson, r->vlen, &r->vtime, &r->vpassed) == 0 &&
			 sw_receipt_read_sbx(r->vjson, r->vlen, &r->sv) == 0;
	sw_attempts_probes_read(r->vjson, r->vlen, &r->probes);
	sw_coverage(cfg, r->in->host, &r->cov);
	receipt_flows(r);
	{
		char ipath[SW_PATH_MAX + 32], *itext = NULL;
		size_t ilen = 0;

		sibling(cfg->journal_path, "identities.jsonl", ipath, sizeof(ipath));
		if (ipath[0] && sw_journal_read(ipath, &itext, &ilen) == 0 && ilen)
			sw_receipt_read_ids(itext, ilen, r->since, r->until, &r->ids);
		else
			r->ids.have_file = false;
		free(itext);
	}
}

/* Every reason, on the verdict's own lines: the gaps of the window, then
 * what is wrong now (when the window reaches now); and the verdict. */
static void receipt_reasons(struct receipt *r)
{
	const struct sw_config *cfg = r->in->cfg;
	struct reasons *rs = &r->rs;
	char e[128], n[32];

	for (size_t i = 0; i < r->tl.n_gaps; i++)
		gap_reason(rs, &r->tl.gaps[i]);
	if (!r->tl.verifies_passed)
		reason(rs, "no verify passed inside the window (%zu ran; run sandwall verify)",
		       r->tl.verifies);
	if (r->upto_now) {
		if (!r->have.has_table)
			reason(rs, "now: table inet %s is ABSENT", cfg->table);
		else if (r->d.n)
			reason(rs, "now: the kernel's table DIFFERS from the config (sandwall check)");
		if (!r->daemon)
			reason(rs, "now: sandwalld is not running (no answer on %s)", r->in->control);
		for (size_t i = 0; i < r->cov.n_links && i < SW_COV_MAX; i++)
			reason(rs, "now: %s (%s) faces containers and no [guard] entry covers it",
			       r->cov.links[i].name, r->cov.links[i].facing);
		if (r->daemon) {
			sw_cli_reply_get(r->reply, "journal_error", e, sizeof(e));
			sw_cli_reply_get(r->reply, "journal_errors", n, sizeof(n));
			if (e[0] && strcmp(e, "none"))
				reason(rs, "now: the record has a hole: journal writes fail (%s; %s "
				       "failed writes)", e, n);
			sw_cli_reply_get(r->reply, "attempts_errors", n, sizeof(n));
			if (n[0] && strcmp(n, "0"))
				reason(rs, "the record of attempts has a hole: %s failed writes of "
				       "attempts.json", n);
		}
	}
	r->held = rs->n == 0 && !rs->more;
	snprintf(r->table, sizeof(r->table), "inet/%s", cfg->table);
	sw_iso_utc(r->since, r->from_s, sizeof(r->from_s));
	sw_iso_utc(r->until, r->to_s, sizeof(r->to_s));
}

/* receipt --json: the records as they are, and the verify's own apart */
static void attempts_json(struct sw_jw *w, const struct receipt *r)
{
	const struct sw_jv *list;

	if (r->attempts.type != SW_JOBJ) {
		sw_jw_null(w, "attempted");
		return;
	}
	list = sw_jv_get(&r->attempts, "attempts");
	sw_jw_value(w, "attempted", &r->attempts);
	/* the same records, verify's own apart */
	for (int pass = 0; pass < 2; pass++) {
		sw_jw_arr(w, pass ? "attempted_by_verify" : "attempted_by_sandboxes");
		for (size_t i = 0; list && list->type == SW_JARR && i < list->n; i++)
			if (sw_receipt_by_verify(&list->vals[i], &r->probes) == (bool)pass)
				sw_jw_value(w, NULL, &list->vals[i]);
		sw_jw_end(w);
	}
}

/* receipt --json: one document. 0 or -errno (said on stderr). */
static int receipt_json(const struct receipt *r)
{
	const struct sw_config *cfg = r->in->cfg;
	char when[32];
	struct sw_jw w;
	int rc;

	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "host", r->u.nodename);
	sw_jw_str(&w, "machine_id", r->mid);
	sw_jw_str(&w, "kernel", r->u.release);
	sw_iso_utc((int64_t)r->now, when, sizeof(when));
	sw_jw_str(&w, "time", when);
	sw_jw_i64(&w, "time_unix", (int64_t)r->now);
	sw_jw_obj(&w, "window");
	sw_jw_i64(&w, "from", r->since);
	sw_jw_i64(&w, "to", r->until);
	sw_jw_str(&w, "from_utc", r->from_s);
	sw_jw_str(&w, "to_utc", r->to_s);
	sw_jw_end(&w);
	sw_jw_obj(&w, "config");
	sw_jw_str(&w, "path", cfg->path);
	sw_jw_str(&w, "sha256", r->cfg_sha);
	sw_jw_end(&w);
	sw_jw_obj(&w, "ruleset");
	sw_jw_str(&w, "table", r->table);
	sw_jw_str(&w, "sha256", r->rules_sha);
	sw_jw_bool(&w, "present", r->have.has_table);
	sw_jw_bool(&w, "kernel_matches", r->have.has_table && !r->d.n);
	sw_jw_u64(&w, "differences", r->d.n);
	sw_jw_bool(&w, "owner", r->have.table_flags & NFT_TABLE_F_OWNER);
	sw_jw_end(&w);
	guarded_json(&w, r->in);
	sw_jw_obj(&w, "coverage");
	sw_coverage_json(&r->cov, &w);
	sw_jw_end(&w);
	sw_jw_obj(&w, "blocked");
	for (int c = 0; c < SW_CAT_COUNT; c++) {
		int i = sw_model_find_counter(&r->have, sw_category_name(c));

		sw_jw_u64(&w, sw_category_name(c), i < 0 ? 0 : r->have.counter_pkts[i]);
	}
	sw_jw_end(&w);
	sw_jw_bool(&w, "daemon", r->daemon);
	sw_jw_obj(&w, "journal");
	sw_jw_str(&w, "path", cfg->journal_path);
	sw_jw_u64(&w, "events", r->js.events);
	sw_jw_u64(&w, "drifts", r->js.drifts);
	sw_jw_u64(&w, "unrepaired", r->js.unrepaired);
	sw_jw_u64(&w, "malformed", r->js.malformed);
	sw_jw_value(&w, "lines", &r->lines);
	sw_jw_end(&w);
	gaps_json(&w, &r->tl);
	attempts_json(&w, r);
	sw_receipt_flows_json(&w, &r->flows);
	sw_receipt_ids_json(&r->ids, &w);
	if (r->have_verify) {
		sw_jw_obj(&w, "verify");
		sw_jw_i64(&w, "time", r->vtime);
		sw_iso_utc(r->vtime, when, sizeof(when));
		sw_jw_str(&w, "time_utc", when);
		sw_jw_bool(&w, "passed", r->vpassed);
		sw_jw_bool(&w, "in_window", r->vtime >= r->since && r->vtime <= r->until);
		sandbox_verdicts_json(&w, &r->sv);
		sw_jw_end(&w);
	} else {
		sw_jw_null(&w, "verify");
	}
	sw_jw_str(&w, "verdict", r->held ? "held" : "not held");
	sw_jw_arr(&w, "reasons");
	for (size_t i = 0; i < r->rs.n; i++)
		sw_jw_str(&w, NULL, r->rs.r[i]);
	sw_jw_end(&w);
	sw_jw_end(&w);
	rc = sw_jw_print(&w, r->out);
	sw_jw_free(&w);
	if (rc) {
		sw_err("cannot write the receipt: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

/* receipt (text): what is guarded now, the output path, the counters */
static void guarded_text(const struct receipt *r)
{
	FILE *out = r->out;

	const struct sw_config *cfg = r->in->cfg;
	const struct sw_host *host = r->in->host;

	fprintf(out, "guarded           ");
	for (size_t i = 0; i < cfg->n_patterns; i++)
		fprintf(out, "%s ", cfg->patterns[i]);
	fprintf(out, "(now:");
	for (size_t i = 0; i < host->n_links; i++) {
		const struct sw_link *l = &host->links[i];
		enum sw_guard_why why = sw_ruleset_guard_why(cfg, l);

		if (why >= SW_GUARD_PATTERN)
			fprintf(out, " %s [%s]", l->name, sw_guard_why_name(why));
	}
	fprintf(out, ")\n");
	sw_coverage_print(&r->cov, cfg, out, "coverage          ");
	if (cfg->n_users || cfg->n_cgroups) {
		fprintf(out, "output path      ");
		for (size_t i = 0; i < cfg->n_users; i++)
			fprintf(out, " uid %u", cfg->users[i].uid);
		for (size_t i = 0; i < host->n_cgroups; i++)
			fprintf(out, " cgroup %s", host->cgroups[i].path);
		fprintf(out, "\n");
	}
	fprintf(out, "blocked packets  ");
	for (int c = 0; c < SW_CAT_COUNT; c++) {
		int i = sw_model_find_counter(&r->have, sw_category_name(c));

		fprintf(out, " %s=%llu", sw_category_name(c),
		       i < 0 ? 0ULL : (unsigned long long)r->have.counter_pkts[i]);
	}
}

/* receipt (text): one line per record, the verdict and its reasons */
static void receipt_text(const struct receipt *r)
{
	FILE *out = r->out;
	const struct sw_config *cfg = r->in->cfg;
	const struct sw_timeline *tl = &r->tl;
	char when[32];

	sw_iso_utc((int64_t)r->now, when, sizeof(when));
	fprintf(out, "sandwall receipt %s\n", when);
	fprintf(out, "host              %s (machine-id %s, kernel %s)\n", r->u.nodename,
	       r->mid[0] ? r->mid : "unknown", r->u.release);
	fprintf(out, "window            %s .. %s\n", r->from_s, r->to_s);
	fprintf(out, "config            %s sha256:%s\n", cfg->path, r->cfg_sha);
	fprintf(out, "ruleset           table inet %s sha256:%s\n", cfg->table, r->rules_sha);
	fprintf(out, "kernel            %s\n", !r->have.has_table ? "TABLE ABSENT" :
	       r->d.n ? "DIFFERS from the config (sandwall check)" : "holds exactly this ruleset");
	fprintf(out, "ownership         %s\n", !(r->have.table_flags & NFT_TABLE_F_OWNER) ? "not owned" :
	       r->daemon ? "owned by sandwalld" : "owned by a process, but no sandwalld answers");
	fprintf(out, "daemon            %s\n", r->daemon ? "running" : "not running");
	guarded_text(r);
	fprintf(out, "\njournal           %s: %zu event(s)", cfg->journal_path[0] ? cfg->journal_path :
	       "(off)", tl->events);
	if (tl->first_us >= 0) {
		iso_us(tl->first_us, when, sizeof(when));
		fprintf(out, ", the oldest at %s", when);
	}
	fprintf(out, "; in the window %zu, %zu drift(s), %zu verify run(s) (%zu passed)\n",
	       tl->in_window, tl->drifts, tl->verifies, tl->verifies_passed);
	if (tl->malformed)
		fprintf(out, "journal           %zu line(s) that are no event (holes in the record)\n",
		       tl->malformed);
	if (tl->out_of_order)
		fprintf(out, "journal           %zu line(s) out of time order (sorted)\n", tl->out_of_order);
	gaps_text(out, tl);
	print_attempts(out, &r->attempts, &r->probes);
	sw_receipt_flows_text(&r->flows, out, SW_RECEIPT_FLOWS_TEXT);
	sw_receipt_ids_text(out, &r->ids);
	if (r->have_verify) {
		sw_iso_utc(r->vtime, when, sizeof(when));
		fprintf(out, "last verify       %s at %s%s\n", r->vpassed ? "passed" : "FAILED", when,
		       r->vtime >= r->since && r->vtime <= r->until ? "" : " (outside the window)");
		sandbox_verdicts_text(out, &r->sv);
	} else if (r->vjson) {
		fprintf(out, "last verify       UNREADABLE record %s\n", r->vpath);
	} else {
		fprintf(out, "last verify       none (run sandwall verify)\n");
	}
	fprintf(out, "verdict           %s\n", r->held ? "HELD" : "NOT HELD");
	for (size_t i = 0; i < r->rs.n; i++)
		fprintf(out, "  because %s\n", r->rs.r[i]);
	if (r->rs.more)
		fprintf(out, "  and %zu more reason(s)\n", r->rs.more);
}

static void receipt_free(struct receipt *r)
{
	sw_timeline_free(&r->tl);
	sw_jv_free(&r->sv.doc);
	sw_jv_free(&r->attempts);
	sw_receipt_flows_free(&r->flows);
	free(r->ajson);
	sw_jv_free(&r->lines);
	free(r->journal);
	free(r->vjson);
	sw_diff_free(&r->d);
	sw_model_free(&r->have);
}

/* --output FILE: the buffer to FILE at once, then FILE.sig with --sign.
 * 0 or EXIT_ERR (said on stderr). */
static int receipt_output(struct receipt *r)
{
	int rc;

	if (fclose(r->out)) {
		r->out = NULL;
		sw_err("cannot write the receipt: %s", strerror(errno));
		return 2;
	}
	r->out = NULL;
	if ((rc = sw_atomic_write(r->in->output, r->obuf, r->olen, 0644))) {
		sw_err("cannot write the receipt to %s: %s", r->in->output, strerror(-rc));
		return 2;
	}
	return r->in->sign ? sw_cli_sign(r->in->cfg, r->in->output) : 0;
}

int sw_receipt_cmd(const struct sw_receipt_in *in)
{
	static struct receipt r;
	int code, rc;

	memset(&r, 0, sizeof(r));
	r.in = in;
	r.out = in->output ? open_memstream(&r.obuf, &r.olen) : stdout;
	if (!r.out) {
		sw_err("cannot write the receipt: %s", strerror(errno));
		return 2;
	}
	r.vtime = -1;
	r.now = time(NULL);
	code = 2;
	if (receipt_digests(&r) || receipt_kernel(&r)) {
		if (in->output)
			fclose(r.out);
		free(r.obuf);
		return code;
	}
	if (!receipt_window(&r)) {
		receipt_records(&r);
		receipt_reasons(&r);
		rc = 0;
		if (in->json)
			rc = receipt_json(&r);
		else
			receipt_text(&r);
		if (!rc)
			code = r.held ? 0 : 1;
		if (!rc && in->output && receipt_output(&r))
			code = 2;
	}
	if (in->output && r.out)
		fclose(r.out);
	free(r.obuf);
	receipt_free(&r);
	return code;
}
