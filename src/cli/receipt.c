// SPDX-License-Identifier: GPL-2.0-or-later
/* receipt: the audit document (see include/cli/receipt.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <netinet/in.h>
#include <linux/netfilter/nf_tables.h>

#include "lib/control.h"
#include "core/diff.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "core/export.h"
#include "lib/log.h"
#include "kernel/observe.h"
#include "cli/receipt.h"
#include "sync/reconcile.h"
#include "core/ruleset.h"
#include "lib/sha256.h"
#include "host/attempts.h"
#include "core/coverage.h"
#include "core/timeline.h"

#define MAX_FILE (4 << 20)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;

	*len = 0;
	if (!f)
		return NULL;
	buf = malloc(MAX_FILE + 1);
	if (buf) {
		*len = fread(buf, 1, MAX_FILE, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

int sw_receipt_read_journal(const char *text, size_t len, struct sw_receipt_journal *out,
			    struct sw_jv *lines)
{
	memset(out, 0, sizeof(*out));
	out->first = out->last_stop = -1;
	if (lines) {
		memset(lines, 0, sizeof(*lines));
		lines->type = SW_JARR;
	}
	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		struct sw_jv v, *vals;
		const char *ev;
		int64_t unix_time;

		pos += n + 1;
		if (n == 0)
			continue;
		if (sw_jv_parse(l, n, &v, NULL) || sw_jv_get_str(&v, "event", &ev) ||
		    sw_jv_get_i64(&v, "unix", &unix_time) || sw_jevent_parse(ev) == SW_JE_UNKNOWN) {
			sw_jv_free(&v);
			out->malformed++;
			continue;
		}
		out->events++;
		if (out->first < 0)
			out->first = unix_time;
		switch (sw_jevent_parse(ev)) {
		case SW_JE_DRIFT:
			out->drifts++;
			out->unrepaired = 0;    /* a later repair settles earlier failures */
			break;
		case SW_JE_REPAIRED:
			out->unrepaired = 0;
			break;
		case SW_JE_REPAIR_FAILED:
			out->unrepaired++;
			break;
		case SW_JE_STOP:
		case SW_JE_REMOVED:
			out->last_stop = unix_time;     /* a gap in the watch */
			break;
		default:
			break;
		}
		if (!lines) {
			sw_jv_free(&v);
			continue;
		}
		if (!(vals = reallocarray(lines->vals, lines->n + 1, sizeof(*vals)))) {
			sw_jv_free(&v);
			return -ENOMEM;
		}
		lines->vals = vals;
		lines->vals[lines->n++] = v;
	}
	return 0;
}

int sw_receipt_read_verify(const char *text, size_t len, int64_t *time_, bool *passed)
{
	struct sw_jv v;
	int rc = sw_jv_parse(text, len, &v, NULL);

	if (!rc && (sw_jv_get_i64(&v, "time", time_) || sw_jv_get_bool(&v, "passed", passed) ||
		    !sw_jv_get(&v, "runs") || sw_jv_get(&v, "runs")->type != SW_JARR))
		rc = -EINVAL;
	sw_jv_free(&v);
	return rc ? -EINVAL : 0;
}

/* KEY=VALUE of the daemon's status reply ("" when absent) */
static void reply_get(const char *reply, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = '\0';
	for (const char *p = reply; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + kl + 1, "\n"), p + kl + 1);
			return;
		}
}

static void sibling(const char *path, const char *name, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	out[0] = '\0';
	if (path[0] && slash)
		snprintf(out, len, "%.*s/%s", (int)(slash - path), path, name);
}

/* Is attempt a verify's own (its source or destination is one of
 * verify's probe addresses)? */
static bool attempt_by_verify(const struct sw_jv *a, const struct sw_attempts_probes *probes)
{
	const char *src = NULL, *dst = NULL, *by = NULL, *proto = NULL;
	struct sw_prefix ps, pd;
	uint8_t s16[16] = { 0 }, d16[16] = { 0 };
	int64_t port = 0;

	if (sw_jv_get_str(a, "by", &by) == 0 && !strcmp(by, "verify"))
		return true;            /* the daemon saw it to be verify's */
	sw_jv_get_str(a, "proto", &proto);
	sw_jv_get_i64(a, "dport", &port);
	if (proto && !strcmp(proto, "udp") && port > 0 && port < 65536 &&
	    sw_attempts_by_verify_port(probes, IPPROTO_UDP, (uint16_t)port))
		return true;
	sw_jv_get_str(a, "src", &src);
	sw_jv_get_str(a, "dst", &dst);
	if (!dst || sw_prefix_parse(dst, &pd, NULL))
		return false;
	memcpy(d16, pd.addr, sw_family_addrlen(pd.family));
	if (src && !sw_prefix_parse(src, &ps, NULL))
		memcpy(s16, ps.addr, sw_family_addrlen(ps.family));
	return sw_attempts_by_verify(probes, pd.family, s16, d16);
}

/* What the sandboxes tried to reach, every record; verify's own probes
 * apart (counted, not listed among them). */
static void print_attempts(const struct sw_jv *doc, const struct sw_attempts_probes *probes)
{
	const struct sw_jv *list = sw_jv_get(doc, "attempts");
	size_t n_sbx = 0, n_ver = 0;
	int64_t ev = 0, c_ver = 0;

	if (!list || list->type != SW_JARR) {
		printf("attempted         unknown (no record from sandwalld)\n");
		return;
	}
	sw_jv_get_i64(doc, "evicted", &ev);
	for (size_t i = 0; i < list->n; i++) {
		int64_t count = 0;

		sw_jv_get_i64(&list->vals[i], "count", &count);
		if (attempt_by_verify(&list->vals[i], probes)) {
			n_ver++;
			c_ver += count;
		} else {
			n_sbx++;
		}
	}
	printf("attempted         %zu distinct destination record(s) by the sandboxes%s\n", n_sbx,
	       ev ? " (and older ones pushed out: the list is not complete)" : "");
	for (size_t i = 0; i < list->n; i++) {
		const struct sw_jv *a = &list->vals[i];
		const char *cat = "?", *sbx = NULL, *dst = "?", *proto = NULL, *src = "?", *iif = NULL;
		const char *path = NULL;
		int64_t port = 0, count = 0;

		if (attempt_by_verify(a, probes))
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
		printf("                  %-12s %s%s%-20s %s", cat, sbx ? sbx : "", sbx ? " " : "", dst,
		       proto ? proto : "");
		if (port)
			printf("/%lld", (long long)port);
		printf(" from %s %s%s x%lld\n", src, iif ? "on " : path ? "via the " : "",
		       iif ? iif : path ? "output path" : "", (long long)count);
	}
	printf("verify's probes   %zu record(s), %lld packet(s): verify's own, not the sandboxes'\n",
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

/* The last verify's per-sandbox verdicts ("sandboxes" of verify.json, read
 * with the strict reader): each entry's name, egress and verdict must be
 * strings, or the record is not trusted (-EINVAL). */
struct sbx_verdicts {
	struct sw_jv doc;
	const struct sw_jv *list;       /* NULL: the record has none (an older verify) */
};

static int read_sandbox_verdicts(const char *text, size_t len, struct sbx_verdicts *out)
{
	const struct sw_jv *l;

	memset(out, 0, sizeof(*out));
	if (sw_jv_parse(text, len, &out->doc, NULL))
		return -EINVAL;
	l = sw_jv_get(&out->doc, "sandboxes");
	if (!l)
		return 0;
	if (l->type != SW_JARR)
		return -EINVAL;
	for (size_t i = 0; i < l->n; i++) {
		const char *s;

		if (sw_jv_get_str(&l->vals[i], "name", &s) || sw_jv_get_str(&l->vals[i], "egress", &s) ||
		    sw_jv_get_str(&l->vals[i], "verdict", &s))
			return -EINVAL;
	}
	out->list = l;
	return 0;
}

static void sandbox_verdicts_json(struct sw_jw *w, const struct sbx_verdicts *sv)
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

static void sandbox_verdicts_text(const struct sbx_verdicts *sv)
{
	for (size_t i = 0; sv->list && i < sv->list->n; i++) {
		const struct sw_jv *e = &sv->list->vals[i];
		const char *name = "", *egress = "", *verdict = "", *reason = NULL;

		sw_jv_get_str(e, "name", &name);
		sw_jv_get_str(e, "egress", &egress);
		sw_jv_get_str(e, "verdict", &verdict);
		sw_jv_get_str(e, "reason", &reason);
		printf("  sandbox         %s (egress %s): %s%s%s%s\n", name, egress,
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
static void machine_id(char *buf, size_t len)
{
	FILE *f = fopen("/etc/machine-id", "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

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

static void gaps_text(const struct sw_timeline *tl)
{
	char a[32], b[32], dur[48];

	if (!tl->n_gaps) {
		printf("timeline          no gap in the window\n");
		return;
	}
	printf("timeline          %zu gap(s):\n", tl->n_gaps);
	for (size_t i = 0; i < tl->n_gaps; i++) {
		const struct sw_gap *g = &tl->gaps[i];

		iso_us(g->start_us, a, sizeof(a));
		iso_us(g->end_us, b, sizeof(b));
		duration(g->end_us - g->start_us, dur, sizeof(dur));
		printf("  %s .. %s  %-12s %-32s%s%s%s%s%s%s\n", a, g->open ? "(still going)       " : b,
		       dur, sw_gap_kind_name(g->kind), g->what[0] ? " " : "", g->what,
		       g->who[0] ? " by " : "", g->who, g->ended_by[0] ? ", ended by " : "",
		       g->ended_by);
	}
}

int sw_receipt_cmd(const struct sw_receipt_in *in)
{
	const struct sw_config *cfg = in->cfg;
	char cfg_sha[65] = "", rules_sha[65] = "", err[SW_ERRLEN], vpath[SW_PATH_MAX + 16];
	char reply[SW_CONTROL_REPMAX], when[32], table[80], *cfgtext, *rules = NULL;
	char *journal = NULL, *vjson = NULL, *ajson = NULL, apath[SW_PATH_MAX + 16];
	char mid[64], from_s[32], to_s[32];
	size_t len, rlen = 0, jlen = 0, vlen = 0, alen = 0;
	struct sw_jv attempts = { 0 };
	struct sbx_verdicts sv = { 0 };
	int64_t vtime = -1, since, until, since_us;
	bool daemon, held, vpassed = false, have_verify = false, upto_now;
	static struct reasons rs;
	static struct sw_attempts_probes probes;
	struct sw_coverage cov;
	struct sw_timeline tl = { 0 };
	struct sw_receipt_journal js;
	struct sw_jv lines = { 0 };
	struct sw_model have;
	struct sw_diff d = { 0 };
	struct utsname u;
	time_t now = time(NULL);
	FILE *f;
	int rc, code = 2;

	memset(&rs, 0, sizeof(rs));
	uname(&u);
	machine_id(mid, sizeof(mid));
	/* digests: the config as read, the ruleset as nft text */
	cfgtext = slurp(cfg->path, &len);
	if (cfgtext)
		sw_sha256_hex(cfgtext, len, cfg_sha);
	free(cfgtext);
	f = open_memstream(&rules, &rlen);
	if (!f || sw_export(in->want, f)) {
		if (f)
			fclose(f);
		free(rules);
		sw_err("cannot render the ruleset");
		return 2;
	}
	fclose(f);
	sw_sha256_hex(rules, rlen, rules_sha);
	free(rules);
	/* what the kernel holds */
	if ((rc = sw_check(in->nl, in->want, &d, err, sizeof(err)))) {
		sw_err("%s", err);
		return 2;
	}
	if ((rc = sw_observe_counters(in->nl, cfg->table, &have))) {
		sw_diff_free(&d);
		sw_err("cannot read the ruleset: %s", strerror(-rc));
		return 2;
	}
	daemon = sw_control_call(in->control, "status", reply, sizeof(reply)) == 0 &&
		 !strncmp(reply, "ok\n", 3);
	/* the journal (PATH.1 then PATH): every change of the boundary */
	if (cfg->journal_path[0] && (rc = sw_journal_read(cfg->journal_path, &journal, &jlen))) {
		sw_err("cannot read the journal %s: %s", cfg->journal_path, strerror(-rc));
		goto out;
	}
	if (sw_receipt_read_journal(journal ? journal : "", jlen, &js, in->json ? &lines : NULL)) {
		sw_err("cannot read the journal: %s", strerror(ENOMEM));
		goto out;
	}
	/* the window: --since (default: the oldest event kept, to the
	 * microsecond) .. --until (now) */
	until = in->until >= 0 ? in->until : (int64_t)now;
	if (sw_timeline_build(journal ? journal : "", jlen, cfg->table, 0, until * 1000000 + 999999,
			      &tl)) {
		sw_err("cannot build the timeline: %s", strerror(ENOMEM));
		goto out;
	}
	since_us = in->since >= 0 ? in->since * 1000000 : tl.first_us >= 0 ? tl.first_us :
		   until * 1000000;
	since = since_us / 1000000;
	sw_timeline_free(&tl);
	if (since > until) {
		sw_err("receipt: --since is after --until");
		goto out;
	}
	upto_now = until >= (int64_t)now - 1;
	if (sw_timeline_build(journal ? journal : "", jlen, cfg->table, since_us,
			      until * 1000000 + 999999, &tl)) {
		sw_err("cannot build the timeline: %s", strerror(ENOMEM));
		goto out;
	}
	/* what the sandboxes tried to reach (sandwalld, from NFLOG) */
	sibling(cfg->journal_path, "attempts.json", apath, sizeof(apath));
	ajson = apath[0] ? slurp(apath, &alen) : NULL;
	if (ajson && (sw_jv_parse(ajson, alen, &attempts, NULL) ||
		      !sw_jv_get(&attempts, "attempts") ||
		      sw_jv_get(&attempts, "attempts")->type != SW_JARR)) {
		sw_jv_free(&attempts);
		sw_warn("%s is no attempts record: left out", apath);
	}
	/* the last verify's details (its verdict is in the journal) */
	sibling(cfg->journal_path, "verify.json", vpath, sizeof(vpath));
	vjson = vpath[0] ? slurp(vpath, &vlen) : NULL;
	have_verify = vjson && sw_receipt_read_verify(vjson, vlen, &vtime, &vpassed) == 0 &&
		      read_sandbox_verdicts(vjson, vlen, &sv) == 0;
	sw_attempts_probes_read(vjson, vlen, &probes);
	sw_coverage(cfg, in->host, &cov);

	/* every reason, on the verdict's own lines: the gaps of the window,
	 * then what is wrong now (when the window reaches now) */
	for (size_t i = 0; i < tl.n_gaps; i++)
		gap_reason(&rs, &tl.gaps[i]);
	if (!tl.verifies_passed)
		reason(&rs, "no verify passed inside the window (%zu ran; run sandwall verify)",
		       tl.verifies);
	if (upto_now) {
		if (!have.has_table)
			reason(&rs, "now: table inet %s is ABSENT", cfg->table);
		else if (d.n)
			reason(&rs, "now: the kernel's table DIFFERS from the config (sandwall check)");
		if (!daemon)
			reason(&rs, "now: sandwalld is not running (no answer on %s)", in->control);
		for (size_t i = 0; i < cov.n_links && i < SW_COV_MAX; i++)
			reason(&rs, "now: %s (%s) faces containers and no [guard] entry covers it",
			       cov.links[i].name, cov.links[i].facing);
		if (daemon) {
			char e[128], n[32];

			reply_get(reply, "journal_error", e, sizeof(e));
			reply_get(reply, "journal_errors", n, sizeof(n));
			if (e[0] && strcmp(e, "none"))
				reason(&rs, "now: the record has a hole: journal writes fail (%s; %s "
				       "failed writes)", e, n);
			reply_get(reply, "attempts_errors", n, sizeof(n));
			if (n[0] && strcmp(n, "0"))
				reason(&rs, "the record of attempts has a hole: %s failed writes of "
				       "attempts.json", n);
		}
	}
	held = rs.n == 0 && !rs.more;
	snprintf(table, sizeof(table), "inet/%s", cfg->table);
	sw_iso_utc(since, from_s, sizeof(from_s));
	sw_iso_utc(until, to_s, sizeof(to_s));

	if (in->json) {
		struct sw_jw w;

		sw_jw_init(&w);
		sw_jw_obj(&w, NULL);
		sw_jw_str(&w, "host", u.nodename);
		sw_jw_str(&w, "machine_id", mid);
		sw_jw_str(&w, "kernel", u.release);
		sw_iso_utc((int64_t)now, when, sizeof(when));
		sw_jw_str(&w, "time", when);
		sw_jw_i64(&w, "time_unix", (int64_t)now);
		sw_jw_obj(&w, "window");
		sw_jw_i64(&w, "from", since);
		sw_jw_i64(&w, "to", until);
		sw_jw_str(&w, "from_utc", from_s);
		sw_jw_str(&w, "to_utc", to_s);
		sw_jw_end(&w);
		sw_jw_obj(&w, "config");
		sw_jw_str(&w, "path", cfg->path);
		sw_jw_str(&w, "sha256", cfg_sha);
		sw_jw_end(&w);
		sw_jw_obj(&w, "ruleset");
		sw_jw_str(&w, "table", table);
		sw_jw_str(&w, "sha256", rules_sha);
		sw_jw_bool(&w, "present", have.has_table);
		sw_jw_bool(&w, "kernel_matches", have.has_table && !d.n);
		sw_jw_u64(&w, "differences", d.n);
		sw_jw_bool(&w, "owner", have.table_flags & NFT_TABLE_F_OWNER);
		sw_jw_end(&w);
		guarded_json(&w, in);
		sw_jw_obj(&w, "coverage");
		sw_coverage_json(&cov, &w);
		sw_jw_end(&w);
		sw_jw_obj(&w, "blocked");
		for (int c = 0; c < SW_CAT_COUNT; c++) {
			int i = sw_model_find_counter(&have, sw_category_name(c));

			sw_jw_u64(&w, sw_category_name(c), i < 0 ? 0 : have.counter_pkts[i]);
		}
		sw_jw_end(&w);
		sw_jw_bool(&w, "daemon", daemon);
		sw_jw_obj(&w, "journal");
		sw_jw_str(&w, "path", cfg->journal_path);
		sw_jw_u64(&w, "events", js.events);
		sw_jw_u64(&w, "drifts", js.drifts);
		sw_jw_u64(&w, "unrepaired", js.unrepaired);
		sw_jw_u64(&w, "malformed", js.malformed);
		sw_jw_value(&w, "lines", &lines);
		sw_jw_end(&w);
		gaps_json(&w, &tl);
		if (attempts.type == SW_JOBJ) {
			const struct sw_jv *list = sw_jv_get(&attempts, "attempts");

			sw_jw_value(&w, "attempted", &attempts);
			/* the same records, verify's own apart */
			for (int pass = 0; pass < 2; pass++) {
				sw_jw_arr(&w, pass ? "attempted_by_verify" : "attempted_by_sandboxes");
				for (size_t i = 0; list && list->type == SW_JARR && i < list->n; i++)
					if (attempt_by_verify(&list->vals[i], &probes) == (bool)pass)
						sw_jw_value(&w, NULL, &list->vals[i]);
				sw_jw_end(&w);
			}
		} else {
			sw_jw_null(&w, "attempted");
		}
		if (have_verify) {
			sw_jw_obj(&w, "verify");
			sw_jw_i64(&w, "time", vtime);
			sw_iso_utc(vtime, when, sizeof(when));
			sw_jw_str(&w, "time_utc", when);
			sw_jw_bool(&w, "passed", vpassed);
			sw_jw_bool(&w, "in_window", vtime >= since && vtime <= until);
			sandbox_verdicts_json(&w, &sv);
			sw_jw_end(&w);
		} else {
			sw_jw_null(&w, "verify");
		}
		sw_jw_str(&w, "verdict", held ? "held" : "not held");
		sw_jw_arr(&w, "reasons");
		for (size_t i = 0; i < rs.n; i++)
			sw_jw_str(&w, NULL, rs.r[i]);
		sw_jw_end(&w);
		sw_jw_end(&w);
		rc = sw_jw_print(&w, stdout);
		sw_jw_free(&w);
		if (rc) {
			sw_err("cannot write the receipt: %s", strerror(-rc));
			goto out;
		}
	} else {
		sw_iso_utc((int64_t)now, when, sizeof(when));
		printf("sandwall receipt %s\n", when);
		printf("host              %s (machine-id %s, kernel %s)\n", u.nodename,
		       mid[0] ? mid : "unknown", u.release);
		printf("window            %s .. %s\n", from_s, to_s);
		printf("config            %s sha256:%s\n", cfg->path, cfg_sha);
		printf("ruleset           table inet %s sha256:%s\n", cfg->table, rules_sha);
		printf("kernel            %s\n", !have.has_table ? "TABLE ABSENT" :
		       d.n ? "DIFFERS from the config (sandwall check)" : "holds exactly this ruleset");
		printf("ownership         %s\n", !(have.table_flags & NFT_TABLE_F_OWNER) ? "not owned" :
		       daemon ? "owned by sandwalld" : "owned by a process, but no sandwalld answers");
		printf("daemon            %s\n", daemon ? "running" : "not running");
		printf("guarded           ");
		for (size_t i = 0; i < cfg->n_patterns; i++)
			printf("%s ", cfg->patterns[i]);
		printf("(now:");
		for (size_t i = 0; i < in->host->n_links; i++) {
			const struct sw_link *l = &in->host->links[i];
			enum sw_guard_why why = sw_ruleset_guard_why(cfg, l);

			if (why >= SW_GUARD_PATTERN)
				printf(" %s [%s]", l->name, sw_guard_why_name(why));
		}
		printf(")\n");
		sw_coverage_print(&cov, cfg, stdout, "coverage          ");
		if (cfg->n_users || cfg->n_cgroups) {
			printf("output path      ");
			for (size_t i = 0; i < cfg->n_users; i++)
				printf(" uid %u", cfg->users[i].uid);
			for (size_t i = 0; i < in->host->n_cgroups; i++)
				printf(" cgroup %s", in->host->cgroups[i].path);
			printf("\n");
		}
		printf("blocked packets  ");
		for (int c = 0; c < SW_CAT_COUNT; c++) {
			int i = sw_model_find_counter(&have, sw_category_name(c));

			printf(" %s=%llu", sw_category_name(c),
			       i < 0 ? 0ULL : (unsigned long long)have.counter_pkts[i]);
		}
		printf("\njournal           %s: %zu event(s)", cfg->journal_path[0] ? cfg->journal_path :
		       "(off)", tl.events);
		if (tl.first_us >= 0) {
			iso_us(tl.first_us, when, sizeof(when));
			printf(", the oldest at %s", when);
		}
		printf("; in the window %zu, %zu drift(s), %zu verify run(s) (%zu passed)\n",
		       tl.in_window, tl.drifts, tl.verifies, tl.verifies_passed);
		if (tl.malformed)
			printf("journal           %zu line(s) that are no event (holes in the record)\n",
			       tl.malformed);
		if (tl.out_of_order)
			printf("journal           %zu line(s) out of time order (sorted)\n", tl.out_of_order);
		gaps_text(&tl);
		print_attempts(&attempts, &probes);
		if (have_verify) {
			sw_iso_utc(vtime, when, sizeof(when));
			printf("last verify       %s at %s%s\n", vpassed ? "passed" : "FAILED", when,
			       vtime >= since && vtime <= until ? "" : " (outside the window)");
			sandbox_verdicts_text(&sv);
		}
		else if (vjson)
			printf("last verify       UNREADABLE record %s\n", vpath);
		else
			printf("last verify       none (run sandwall verify)\n");
		printf("verdict           %s\n", held ? "HELD" : "NOT HELD");
		for (size_t i = 0; i < rs.n; i++)
			printf("  because %s\n", rs.r[i]);
		if (rs.more)
			printf("  and %zu more reason(s)\n", rs.more);
	}
	code = held ? 0 : 1;
out:
	sw_timeline_free(&tl);
	sw_jv_free(&sv.doc);
	sw_jv_free(&attempts);
	free(ajson);
	sw_jv_free(&lines);
	free(journal);
	free(vjson);
	sw_diff_free(&d);
	sw_model_free(&have);
	return code;
}
