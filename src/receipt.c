// SPDX-License-Identifier: GPL-2.0-or-later
/* receipt: the audit document (see include/receipt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <linux/netfilter/nf_tables.h>

#include "control.h"
#include "diff.h"
#include "journal.h"
#include "json.h"
#include "export.h"
#include "log.h"
#include "observe.h"
#include "receipt.h"
#include "reconcile.h"
#include "ruleset.h"
#include "sha256.h"

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

static void sibling(const char *path, const char *name, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	out[0] = '\0';
	if (path[0] && slash)
		snprintf(out, len, "%.*s/%s", (int)(slash - path), path, name);
}

/* The first lines of what the sandboxes tried to reach. */
static void print_attempts(const struct sw_jv *doc)
{
	const struct sw_jv *list = sw_jv_get(doc, "attempts");
	int64_t ev = 0;

	if (!list || list->type != SW_JARR) {
		printf("attempted         unknown (no record from sandwalld)\n");
		return;
	}
	sw_jv_get_i64(doc, "evicted", &ev);
	printf("attempted         %zu destination(s)%s\n", list->n,
	       ev ? " (and older ones pushed out)" : "");
	for (size_t i = 0; i < list->n && i < 10; i++) {
		const struct sw_jv *a = &list->vals[i];
		const char *cat = "?", *sbx = NULL, *dst = "?", *proto = NULL;
		int64_t port = 0, count = 0;

		sw_jv_get_str(a, "category", &cat);
		sw_jv_get_str(a, "sandbox", &sbx);
		sw_jv_get_str(a, "dst", &dst);
		sw_jv_get_str(a, "proto", &proto);
		sw_jv_get_i64(a, "dport", &port);
		sw_jv_get_i64(a, "count", &count);
		printf("                  %-12s %s%s%-20s %s", cat, sbx ? sbx : "", sbx ? " " : "", dst,
		       proto ? proto : "");
		if (port)
			printf("/%lld", (long long)port);
		printf(" x%lld\n", (long long)count);
	}
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

int sw_receipt_cmd(const struct sw_receipt_in *in)
{
	const struct sw_config *cfg = in->cfg;
	char cfg_sha[65] = "", rules_sha[65] = "", err[SW_ERRLEN], vpath[SW_PATH_MAX + 16];
	char reply[SW_CONTROL_REPMAX], when[32], table[80], *cfgtext, *rules = NULL;
	char *journal = NULL, *vjson = NULL, *ajson = NULL, apath[SW_PATH_MAX + 16];
	size_t len, rlen = 0, jlen = 0, vlen = 0, alen = 0;
	struct sw_jv attempts = { 0 };
	struct sbx_verdicts sv = { 0 };
	int64_t vtime = -1;
	bool daemon, held, vpassed = false, have_verify = false, stale;
	struct sw_receipt_journal js;
	struct sw_jv lines = { 0 };
	struct sw_model have;
	struct sw_diff d = { 0 };
	struct utsname u;
	time_t now = time(NULL);
	FILE *f;
	int rc, code = 2;

	uname(&u);
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
	/* the daemon's journal: drift events, and whether each was repaired */
	journal = cfg->journal_path[0] ? slurp(cfg->journal_path, &jlen) : NULL;
	if (sw_receipt_read_journal(journal ? journal : "", jlen, &js, in->json ? &lines : NULL)) {
		sw_err("cannot read the journal: %s", strerror(ENOMEM));
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
	/* the last verify */
	sibling(cfg->journal_path, "verify.json", vpath, sizeof(vpath));
	vjson = vpath[0] ? slurp(vpath, &vlen) : NULL;
	have_verify = vjson && sw_receipt_read_verify(vjson, vlen, &vtime, &vpassed) == 0 &&
		      read_sandbox_verdicts(vjson, vlen, &sv) == 0;
	stale = have_verify && vtime < js.last_stop;
	/* a verify from before the daemon last stopped says nothing about now;
	 * a journal with lines that are no events cannot be trusted */
	held = have.has_table && d.n == 0 && !js.unrepaired && !js.malformed && have_verify &&
	       vpassed && !stale;
	snprintf(table, sizeof(table), "inet/%s", cfg->table);

	if (in->json) {
		struct sw_jw w;

		sw_jw_init(&w);
		sw_jw_obj(&w, NULL);
		sw_jw_str(&w, "host", u.nodename);
		sw_jw_str(&w, "kernel", u.release);
		sw_jw_obj(&w, "window");
		sw_jw_i64(&w, "from", js.first);
		sw_jw_i64(&w, "to", (int64_t)now);
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
		sw_jw_obj(&w, "blocked");
		for (int c = 0; c < SW_CAT_COUNT; c++) {
			int i = sw_model_find_counter(&have, sw_category_name(c));

			sw_jw_u64(&w, sw_category_name(c), i < 0 ? 0 : have.counter_pkts[i]);
		}
		sw_jw_end(&w);
		sw_jw_bool(&w, "daemon", daemon);
		sw_jw_obj(&w, "journal");
		sw_jw_u64(&w, "events", js.events);
		sw_jw_u64(&w, "drifts", js.drifts);
		sw_jw_u64(&w, "unrepaired", js.unrepaired);
		sw_jw_u64(&w, "malformed", js.malformed);
		sw_jw_value(&w, "lines", &lines);
		sw_jw_end(&w);
		if (attempts.type == SW_JOBJ)
			sw_jw_value(&w, "attempted", &attempts);
		else
			sw_jw_null(&w, "attempted");
		if (have_verify) {
			sw_jw_obj(&w, "verify");
			sw_jw_i64(&w, "time", vtime);
			sw_jw_bool(&w, "passed", vpassed);
			sw_jw_bool(&w, "stale", stale);
			sandbox_verdicts_json(&w, &sv);
			sw_jw_end(&w);
		} else {
			sw_jw_null(&w, "verify");
		}
		sw_jw_str(&w, "verdict", held ? "held" : "not held");
		sw_jw_end(&w);
		rc = sw_jw_print(&w, stdout);
		sw_jw_free(&w);
		if (rc) {
			sw_err("cannot write the receipt: %s", strerror(-rc));
			goto out;
		}
	} else {
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		printf("sandwall receipt %s\n", when);
		printf("host              %s (kernel %s)\n", u.nodename, u.release);
		printf("window            %lld .. %lld (unix seconds)\n", (long long)js.first,
		       (long long)now);
		printf("config            %s sha256:%s\n", cfg->path, cfg_sha);
		printf("ruleset           table inet %s sha256:%s\n", cfg->table, rules_sha);
		printf("kernel            %s\n", !have.has_table ? "TABLE ABSENT" :
		       d.n ? "DIFFERS from the config (sandwall check)" : "holds exactly this ruleset");
		printf("ownership         %s\n", have.table_flags & NFT_TABLE_F_OWNER ?
		       "owned by sandwalld" : "not owned");
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
		printf("\ndrift events      %zu (%zu unrepaired) in %zu journal events\n", js.drifts,
		       js.unrepaired, js.events);
		if (js.malformed)
			printf("journal           %zu MALFORMED line(s): not trusted\n", js.malformed);
		print_attempts(&attempts);
		if (have_verify) {
			printf("last verify       %s at %lld%s\n", vpassed ? "passed" : "FAILED",
			       (long long)vtime, stale ? " (before the daemon last stopped: stale)" : "");
			sandbox_verdicts_text(&sv);
		}
		else if (vjson)
			printf("last verify       UNREADABLE record %s\n", vpath);
		else
			printf("last verify       none (run sandwall verify)\n");
		printf("verdict           %s\n", held ? "HELD" : "NOT HELD");
	}
	code = held ? 0 : 1;
out:
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
