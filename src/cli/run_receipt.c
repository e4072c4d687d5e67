// SPDX-License-Identifier: GPL-2.0-or-later
/* run_receipt: the receipt of one run (include/cli/run.h): what it reads
 * (the journal's window, its two verify records, the attempts of its
 * sandboxes, the config and the ruleset), the verdict (core/runverdict.c),
 * the JSON (docs/json.md) and its text rendering, each signed. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "cli/key.h"
#include "cli/receipt.h"
#include "cli/run.h"
#include "cli/run_sbx.h"
#include "core/logkind.h"
#include "core/runverdict.h"
#include "core/timeline.h"
#include "host/attempts.h"
#include "lib/atomicfile.h"
#include "lib/control.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/sha256.h"

#define TEXT_MAX_ATTEMPTS 50    /* attempts listed in the text (all of them in the JSON) */
#define MAX_BROKEN        8
#define RUN_PROBES        34    /* this run's two verify records and 32 others' */
#define RUN_PROBE_LAG     5     /* s: another verify's record this long before the run counts */

struct runrec {
	const struct sw_run *run;
	const char *cfg_path, *table;
	struct utsname u;
	char mid[64], host[256];
	char *cfg_text, *rules, *journal;
	size_t cfg_len, rules_len, jlen;
	char cfg_sha[65], rules_sha[65];
	struct sw_timeline tl;
	bool have_tl;
	struct sw_jv pre, post;         /* the verify records (type 0: none) */
	struct sw_jv att;               /* attempts.json */
	struct sw_attempts_probes probes[RUN_PROBES];  /* 0, 1: this run's pre and post */
	size_t n_probes;
	struct sw_receipt_flows flows;
	struct sw_run_sbx_in sin;
	struct sw_run_sbxs sbx;
	struct sw_jv ids;               /* identities.jsonl's lines (SW_JARR) */
	const char *att_error;
	char broken[MAX_BROKEN][160];
	const char *brokenp[MAX_BROKEN];
	size_t n_broken;
	struct sw_run_verdict v;
};

static void slurp_json(const char *path, struct sw_jv *out, char **text, size_t *len)
{
	*text = sw_receipt_slurp(path, len);
	memset(out, 0, sizeof(*out));
	if (*text && sw_jv_parse(*text, *len, out, NULL))
		memset(out, 0, sizeof(*out));
}

/* attempts.json beside the journal */
static void read_attempts(const struct sw_config *cfg, struct runrec *rr)
{
	const char *slash = strrchr(cfg->journal_path, '/');
	char path[4200], *text;
	size_t len;

	snprintf(path, sizeof(path), "%.*s/attempts.json", (int)(slash - cfg->journal_path),
		 cfg->journal_path);
	if (access(path, F_OK))
		return;             /* no attempt recorded yet: none */
	slurp_json(path, &rr->att, &text, &len);
	if (!sw_jv_get(&rr->att, "attempts") || sw_jv_get(&rr->att, "attempts")->type != SW_JARR)
		rr->att_error = "attempts.json is unreadable: the sandboxes' attempts are unknown";
	free(text);
}

/* what a verify record says of the guarded host-side processes */
static void assumptions_of(struct runrec *rr, const struct sw_jv *rec, const char *which)
{
	const struct sw_jv *ps = sw_jv_get(rec, "packet_sockets"), *list;
	bool held = true;

	if (!ps || sw_jv_get_bool(ps, "held", &held) || held || rr->n_broken == MAX_BROKEN)
		return;
	list = sw_jv_get(ps, "cap_net_raw");
	snprintf(rr->broken[rr->n_broken], sizeof(rr->broken[0]),
		 "at the %s, %zu guarded host-side process(es) held CAP_NET_RAW (packet sockets "
		 "pass no table)", which, list && list->type == SW_JARR ? list->n : 0);
	rr->brokenp[rr->n_broken] = rr->broken[rr->n_broken];
	rr->n_broken++;
}

/* The JSON lines of a file beside the journal (NAME.1 then NAME) as one
 * SW_JARR value; malformed lines are left out. 0 or -ENOMEM. */
static int read_lines(const struct sw_config *cfg, const char *name, struct sw_jv *out)
{
	const char *slash = strrchr(cfg->journal_path, '/');
	char path[4200], *text = NULL;
	size_t len = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->type = SW_JARR;
	snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - cfg->journal_path), cfg->journal_path,
		 name);
	if (sw_journal_read(path, &text, &len))
		return 0;       /* none: nothing named */
	for (const char *l = text, *end = text + len; !rc && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);
		struct sw_jv v, *vals;

		if (n && !sw_jv_parse(l, n, &v, NULL)) {
			if ((vals = reallocarray(out->vals, out->n + 1, sizeof(*vals)))) {
				out->vals = vals;
				out->vals[out->n++] = v;
			} else {
				sw_jv_free(&v);
				rc = -ENOMEM;
			}
		}
		l += n + 1;
	}
	free(text);
	return rc;
}

/* Another run open during r's window (its run-start before r's stop, and
 * no run-stop of it before r's start)? */
static bool overlapped(const char *text, size_t len, const char *table, const struct sw_run *r)
{
	char want[80], starts[64][SW_RUN_ID_LEN];
	const char *end = text ? text + len : NULL;
	bool open[64] = { false };
	size_t n = 0;
	bool any = false;

	snprintf(want, sizeof(want), "inet/%s", table);
	for (const char *l = text; l && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l)), *ev, *t, *id;
		size_t len1 = nl ? (size_t)(nl - l) : (size_t)(end - l);
		int64_t us = 0;
		struct sw_jv v;

		if (len1 && !sw_jv_parse(l, len1, &v, NULL)) {
			if (!sw_jv_get_str(&v, "event", &ev) && !sw_jv_get_str(&v, "table", &t) &&
			    !strcmp(t, want) && !sw_jv_get_str(&v, "run", &id) && strcmp(id, r->id) &&
			    !sw_jv_get_i64(&v, "us", &us)) {
				size_t k;

				for (k = 0; k < n && strcmp(starts[k], id); k++)
					;
				if (!strcmp(ev, "run-start") && us <= r->stop_us && k == n && n < 64) {
					snprintf(starts[n], sizeof(starts[n]), "%s", id);
					open[n++] = true;
				} else if (!strcmp(ev, "run-stop") && k < n && us < r->start_us) {
					open[k] = false;
				}
			}
			sw_jv_free(&v);
		}
		l += len1 + 1;
	}
	for (size_t k = 0; k < n; k++)
		any |= open[k];
	return any;
}

/* The probe addresses of every other verify record written while the run
 * was open (overlapping runs' preflights and postflights, a `sandwall
 * verify`) or in the RUN_PROBE_LAG seconds before it began (the previous
 * run's postflight: sandwalld stamps what it reads from NFLOG after the
 * record is written, and a run's window is in whole seconds, so that
 * postflight's last attacks can carry this run's first second): their
 * probes are no sandbox of this run. */
static void other_probes(const struct sw_config *cfg, const char *dir, struct runrec *rr)
{
	const char *slash = strrchr(cfg->journal_path, '/');
	char path[4400], own[2][SW_RUN_ID_LEN + 16];
	struct dirent *e;
	struct stat st;
	DIR *d;

	snprintf(own[0], sizeof(own[0]), "%s.pre.json", rr->run->id);
	snprintf(own[1], sizeof(own[1]), "%s.post.json", rr->run->id);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			snprintf(path, sizeof(path), "%.*s/verify.json", (int)(slash - cfg->journal_path),
				 cfg->journal_path);
			d = NULL;
		} else if (!(d = opendir(dir))) {
			return;
		}
		while (rr->n_probes < RUN_PROBES) {
			char *text;
			size_t len, n;

			if (d) {
				if (!(e = readdir(d)))
					break;
				n = strlen(e->d_name);
				if (!strcmp(e->d_name, own[0]) || !strcmp(e->d_name, own[1]) ||
				    !((n > 9 && !strcmp(e->d_name + n - 9, ".pre.json")) ||
				      (n > 10 && !strcmp(e->d_name + n - 10, ".post.json"))))
					continue;
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			}
			/* written after the run began, or just before */
			if (!stat(path, &st) &&
			    (int64_t)st.st_mtime + RUN_PROBE_LAG >= rr->run->start_us / 1000000 &&
			    (text = sw_receipt_slurp(path, &len))) {
				sw_attempts_probes_read(text, len, &rr->probes[rr->n_probes++]);
				free(text);
			}
			if (!d)
				break;
		}
		if (d)
			closedir(d);
	}
}

static int gather(struct sw_cli_run *x, struct runrec *rr, const char *dir)
{
	const struct sw_config *cfg = x->cfg;
	const struct sw_run *r = rr->run;
	char path[4400], *text;
	size_t len;
	FILE *f;
	int rc;

	rr->cfg_path = cfg->path;
	rr->table = cfg->table;
	uname(&rr->u);
	if (gethostname(rr->host, sizeof(rr->host) - 1))
		snprintf(rr->host, sizeof(rr->host), "%s", rr->u.nodename);
	sw_receipt_machine_id(rr->mid, sizeof(rr->mid));
	if (!(rr->cfg_text = sw_receipt_slurp(cfg->path, &rr->cfg_len))) {
		sw_err("cannot read %s again for the receipt", cfg->path);
		return -EIO;
	}
	sw_sha256_hex(rr->cfg_text, rr->cfg_len, rr->cfg_sha);
	if (!(f = open_memstream(&rr->rules, &rr->rules_len)))
		return -ENOMEM;
	rc = sw_cli_export(x, f);
	if (fclose(f) || rc) {
		sw_err("cannot render the ruleset for the receipt");
		return -EIO;
	}
	sw_sha256_hex(rr->rules, rr->rules_len, rr->rules_sha);
	if (!sw_journal_read(cfg->journal_path, &rr->journal, &rr->jlen) &&
	    !sw_timeline_build(rr->journal, rr->jlen, cfg->table, r->start_us, r->stop_us, &rr->tl))
		rr->have_tl = true;
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s.%s.json", dir, r->id, i ? "post" : "pre");
		slurp_json(path, i ? &rr->post : &rr->pre, &text, &len);
		sw_attempts_probes_read(text, text ? len : 0, &rr->probes[i]);
		free(text);
		assumptions_of(rr, i ? &rr->post : &rr->pre, i ? "postflight" : "preflight");
	}
	rr->n_probes = 2;
	other_probes(cfg, dir, rr);
	read_attempts(cfg, rr);
	if (sw_receipt_flows_load(cfg, r->start_us / 1000000, r->stop_us / 1000000, &rr->flows))
		return -ENOMEM;
	if (read_lines(cfg, "identities.jsonl", &rr->ids))
		return -ENOMEM;
	rr->sin = (struct sw_run_sbx_in){ .attempts = rr->att.type == SW_JOBJ ? &rr->att : NULL,
					  .flows = &rr->flows, .probes = rr->probes, .n_probes = rr->n_probes,
					  .since = r->start_us / 1000000, .until = r->stop_us / 1000000,
					  .run_id = r->id, .identities = &rr->ids,
					  .overlapped = overlapped(rr->journal, rr->jlen, cfg->table, r) };
	if (sw_run_sbx_collect(&rr->sin, &rr->sbx))
		return -ENOMEM;
	sw_run_verdict(&(struct sw_run_facts){ .pre = r->pre, .post = r->post,
		       .daemon_start = r->daemon_start, .daemon_stop = r->daemon_stop,
		       .counts_failed = r->counts == SW_RUN_COUNTS_FAILED,
		       .started = r->started || !r->wrapped, .tl = rr->have_tl ? &rr->tl : NULL,
		       .broken = rr->brokenp, .n_broken = rr->n_broken,
		       .record_error = rr->att_error ? rr->att_error :
				       rr->flows.have_log && (rr->flows.dropped || rr->flows.lost) ?
				       "the network log dropped flows or lost events in the window" :
				       NULL }, &rr->v);
	return 0;
}

/* Each quarantine line of the journal inside the run's window: cb(line). */
static void each_quarantine(const char *text, size_t len, const char *table, const struct sw_run *r,
			    void (*cb)(const struct sw_jv *q, void *arg), void *arg)
{
	char want[80];
	const char *end = text ? text + len : NULL;

	snprintf(want, sizeof(want), "inet/%s", table);
	for (const char *l = text; l && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l)), *ev, *t;
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);
		int64_t us = 0, unix_s = 0;
		struct sw_jv v;

		if (n && !sw_jv_parse(l, n, &v, NULL)) {
			if (!sw_jv_get_str(&v, "event", &ev) && !strcmp(ev, "quarantine") &&
			    !sw_jv_get_str(&v, "table", &t) && !strcmp(t, want) &&
			    !sw_jv_get_i64(&v, "unix", &unix_s)) {
				if (sw_jv_get_i64(&v, "us", &us))
					us = unix_s * 1000000;
				if (us >= r->start_us && us <= r->stop_us)
					cb(&v, arg);
			}
			sw_jv_free(&v);
		}
		l += n + 1;
	}
}

struct q_out {
	const struct runrec *rr;
	struct sw_jw *w;
	FILE *f;
	size_t n;
};

/* a quarantine verify's own probe tripped (it releases them itself) */
static bool q_by_verify(const struct runrec *rr, const struct sw_jv *q)
{
	const char *src;

	return !sw_jv_get_str(q, "src", &src) && sw_run_by_verify(rr->probes, rr->n_probes, src);
}

static void q_json(const struct sw_jv *q, void *arg)
{
	struct q_out *o = arg;

	if (!q_by_verify(o->rr, q))
		sw_jw_value(o->w, NULL, q);
}

static void q_text(const struct sw_jv *q, void *arg)
{
	struct q_out *t = arg;
	const char *when = "?", *sbx = "?", *src = "?", *iif = "", *dst = "?", *on = "";
	char why[64];
	int64_t port = 0;
	int k;

	sw_jv_get_str(q, "time", &when);
	sw_jv_get_str(q, "on", &on);
	sw_jv_get_str(q, "sandbox", &sbx);
	sw_jv_get_str(q, "src", &src);
	sw_jv_get_str(q, "iif", &iif);
	sw_jv_get_str(q, "dst", &dst);
	sw_jv_get_i64(q, "dport", &port);
	if (q_by_verify(t->rr, q))
		return;
	/* why: its max_connections was exceeded, or an attempt in one of
	 * its quarantine_on categories (the journal's "on": a log kind's
	 * word, core/logkind.h) */
	if ((k = sw_logkind_of(on, NULL)) >= 0 && sw_logkinds[k].why)
		snprintf(why, sizeof(why), "%s", sw_logkinds[k].why);
	else
		snprintf(why, sizeof(why), "quarantine_on%s%.32s", on[0] ? " = " : "", on);
	fprintf(t->f, "  %s QUARANTINED at %s ([sandbox %s] %s), after an attempt to "
		"%s port %lld via %s\n", src, when, sbx, why, dst, (long long)port, iif[0] ? iif : "?");
	t->n++;
}

static void q_release(const struct sw_jv *q, void *arg)
{
	const char *control = arg, *src;
	char req[160], reply[512];

	if (sw_jv_get_str(q, "src", &src))
		return;
	snprintf(req, sizeof(req), "release\ntarget=%.64s", src);
	if (sw_control_call(control, req, reply, sizeof(reply)) || strncmp(reply, "ok\n", 3))
		sw_warn("warning: the run's end could not release %s (sandwall release %s)", src, src);
	else
		fprintf(stderr, "sandwall run: released %s (quarantined during the run)\n", src);
}

void sw_run_release_quarantines(struct sw_cli_run *x, const struct sw_run *r)
{
	char *text = NULL;
	size_t len = 0;

	if (sw_journal_read(x->cfg->journal_path, &text, &len))
		return;
	each_quarantine(text, len, x->cfg->table, r, q_release, (void *)x->o->control);
	free(text);
}

static void iso_us(int64_t us, char *out, size_t len)
{
	char s[32];

	sw_iso_utc(us / 1000000, s, sizeof(s));
	snprintf(out, len, "%.19s.%06lldZ", s, (long long)(us % 1000000));
}

static void flight_json(struct sw_jw *w, const char *key, int code, const struct sw_jv *rec)
{
	sw_jw_obj(w, key);
	sw_jw_i64(w, "exit", code);
	sw_jw_str(w, "result", code == 0 ? "held" : code == 1 ? "not held" : code == 2 ? "error" :
		  "not run");
	if (rec->type == SW_JOBJ)
		sw_jw_value(w, "verify", rec);
	else
		sw_jw_null(w, "verify");
	sw_jw_end(w);
}

static void gaps_json(struct sw_jw *w, const struct runrec *rr)
{
	char t[40];

	sw_jw_arr(w, "gaps");
	for (size_t i = 0; rr->have_tl && i < rr->tl.n_gaps; i++) {
		const struct sw_gap *g = &rr->tl.gaps[i];

		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", sw_gap_kind_name(g->kind));
		iso_us(g->start_us, t, sizeof(t));
		sw_jw_str(w, "start", t);
		iso_us(g->end_us, t, sizeof(t));
		sw_jw_str(w, "end", t);
		sw_jw_bool(w, "open", g->open);
		sw_jw_str(w, "what", g->what);
		sw_jw_str(w, "who", g->who);
		sw_jw_str(w, "ended_by", g->ended_by);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}

static int receipt_json(const struct runrec *rr, struct sw_jw *w)
{
	const struct sw_run *r = rr->run;
	char t[40];

	sw_jw_init(w);
	sw_jw_obj(w, NULL);
	sw_jw_str(w, "receipt", "sandwall-run/1");
	sw_jw_obj(w, "run");
	sw_run_json(r, w);
	sw_jw_end(w);
	sw_jw_obj(w, "host");
	sw_jw_str(w, "hostname", rr->host);
	sw_jw_str(w, "machine_id", rr->mid);
	sw_jw_str(w, "kernel", rr->u.release);
	sw_jw_str(w, "sandwall", SW_VERSION);
	sw_jw_end(w);
	sw_jw_obj(w, "window");
	iso_us(r->start_us, t, sizeof(t));
	sw_jw_str(w, "from", t);
	iso_us(r->stop_us, t, sizeof(t));
	sw_jw_str(w, "to", t);
	sw_jw_i64(w, "from_us", r->start_us);
	sw_jw_i64(w, "to_us", r->stop_us);
	sw_jw_end(w);
	sw_jw_obj(w, "config");
	sw_jw_str(w, "path", rr->cfg_path);
	sw_jw_str(w, "sha256", rr->cfg_sha);
	sw_jw_strn(w, "text", rr->cfg_text, rr->cfg_len);
	sw_jw_end(w);
	sw_jw_obj(w, "ruleset");
	sw_jw_str(w, "sha256", rr->rules_sha);
	sw_jw_strn(w, "text", rr->rules, rr->rules_len);
	sw_jw_str(w, "ownership", r->mode[0] ? r->mode : "unknown");
	sw_jw_end(w);
	flight_json(w, "preflight", r->pre, &rr->pre);
	flight_json(w, "postflight", r->post, &rr->post);
	gaps_json(w, rr);
	sw_run_sbx_json(w, &rr->sin, &rr->sbx);
	sw_jw_obj(w, "network_log");
	sw_jw_bool(w, "recorded", rr->flows.have_log);
	sw_jw_u64(w, "flows", rr->flows.n);
	sw_jw_u64(w, "open_before_the_run", sw_run_flows_before(&rr->sin));
	sw_jw_u64(w, "dropped", rr->flows.dropped);
	sw_jw_u64(w, "lost_events", rr->flows.lost);
	sw_jw_bool(w, "complete", rr->flows.have_log && !rr->flows.dropped && !rr->flows.lost);
	sw_jw_end(w);
	sw_jw_arr(w, "quarantines");
	{
		struct q_out o = { .rr = rr, .w = w };

		each_quarantine(rr->journal, rr->jlen, rr->table, r, q_json, &o);
	}
	sw_jw_end(w);
	sw_jw_arr(w, "assumptions_broken");
	for (size_t i = 0; i < rr->n_broken; i++)
		sw_jw_str(w, NULL, rr->broken[i]);
	sw_jw_end(w);
	sw_jw_str(w, "verdict", rr->v.contained ? "contained" : "not contained");
	sw_jw_bool(w, "contained", rr->v.contained);
	sw_jw_arr(w, "reasons");
	for (size_t i = 0; i < rr->v.n; i++)
		sw_jw_str(w, NULL, rr->v.reason[i]);
	sw_jw_end(w);
	sw_jw_u64(w, "reasons_more", rr->v.more);
	sw_jw_end(w);
	return sw_jw_text(w) ? 0 : -ENOMEM;
}

static void text_flight(FILE *f, const char *name, int code)
{
	fprintf(f, "%-18s%s\n", name, code == 0 ? "HELD" : code == 1 ? "NOT HELD" :
		code == 2 ? "ERROR (could not run)" : "not run");
}

static void receipt_text(const struct runrec *rr, FILE *f)
{
	const struct sw_run *r = rr->run;
	char a[40], b[40];

	iso_us(r->start_us, a, sizeof(a));
	iso_us(r->stop_us, b, sizeof(b));
	fprintf(f, "sandwall run receipt\n");
	fprintf(f, "%-18s%s (label %s), opened by uid %u pid %d\n", "run", r->id, r->label, r->uid,
		r->pid);
	fprintf(f, "%-18s%s (machine-id %s, kernel %s, sandwall %s)\n", "host", rr->host,
		rr->mid[0] ? rr->mid : "unknown", rr->u.release, SW_VERSION);
	fprintf(f, "%-18s%s .. %s (%.1f s)\n", "window", a, b,
		(double)(r->stop_us - r->start_us) / 1e6);
	if (!r->wrapped)
		fprintf(f, "%-18snone of its own (run start / run stop)\n", "command");
	else if (!r->started)
		fprintf(f, "%-18s%s: NOT STARTED\n", "command", r->cmd);
	else if (r->signal)
		fprintf(f, "%-18s%s: killed by signal %d%s\n", "command", r->cmd, r->signal,
			r->timed_out ? " at the timeout" : "");
	else
		fprintf(f, "%-18s%s: exited %d%s\n", "command", r->cmd, r->status,
			r->timed_out ? " after the timeout" : "");
	fprintf(f, "%-18ssha256:%s (%zu bytes, embedded in the JSON receipt)\n", "config",
		rr->cfg_sha, rr->cfg_len);
	fprintf(f, "%-18ssha256:%s (as sandwall export prints it, embedded in the JSON receipt)\n",
		"ruleset", rr->rules_sha);
	fprintf(f, "%-18s%s\n", "ownership", r->mode[0] ? r->mode : "unknown");
	text_flight(f, "preflight verify", r->pre);
	text_flight(f, "postflight verify", r->post);
	fprintf(f, "%-18sanswered %s, %s\n", "sandwalld", r->daemon_start ? "at the start" :
		"NOT at the start", r->daemon_stop ? "at the end" : "NOT at the end");
	if (r->counts == SW_RUN_COUNTS_RESET)
		fprintf(f, "%-18scounts started again at the run's start\n", "max_connections");
	else if (r->counts == SW_RUN_COUNTS_SHARED)
		fprintf(f, "%-18scounts shared with run %s (open when this one began)\n",
			"max_connections", r->counts_with);
	else if (r->counts == SW_RUN_COUNTS_FAILED)
		fprintf(f, "%-18scounts NOT started again (sandwalld refused): the command was not "
			"started\n", "max_connections");
	if (!rr->have_tl)
		fprintf(f, "%-18sUNREADABLE\n", "journal");
	else
		fprintf(f, "%-18s%zu gap(s) in the window%s\n", "timeline", rr->tl.n_gaps,
			rr->tl.n_gaps ? " (reasons below)" : ": the boundary was in place and watched");
	sw_run_sbx_text(f, &rr->sin, &rr->sbx, TEXT_MAX_ATTEMPTS);
	fprintf(f, "%-18s%s\n", "network log", !rr->flows.have_log ? "NOT RECORDED ([log] flows = no, "
		"or no sandwalld)" : rr->flows.dropped || rr->flows.lost ? "NOT COMPLETE (flows dropped "
		"or events lost: see the JSON receipt)" : "every allowed flow of the window");
	{
		struct q_out qt = { .rr = rr, .f = f };

		each_quarantine(rr->journal, rr->jlen, rr->table, r, q_text, &qt);
		fprintf(f, "%-18s%zu source(s) cut off by a tripwire%s\n", "quarantines", qt.n,
			qt.n ? " (above; released at the end of the run)" : "");
	}
	fprintf(f, "%-18s%s\n", "verdict", rr->v.contained ? "CONTAINED" : "NOT CONTAINED");
	for (size_t i = 0; i < rr->v.n; i++)
		fprintf(f, "  because %s\n", rr->v.reason[i]);
	if (rr->v.more)
		fprintf(f, "  and %zu more reason(s)\n", rr->v.more);
}

/* write data to path (0600), then its signature path.sig (the receipt
 * key): an unsigned receipt is no receipt (-EIO) */
static int put(const struct sw_config *cfg, const char *path, const char *data, size_t len)
{
	int rc = sw_atomic_write(path, data, len, 0600);

	if (rc) {
		sw_err("cannot write the receipt %s: %s", path, strerror(-rc));
		return rc;
	}
	return sw_cli_sign(cfg, path) ? -EIO : 0;
}

int sw_run_receipt(struct sw_cli_run *x, const struct sw_run *r, const char *dir, bool *contained)
{
	struct runrec *rr = calloc(1, sizeof(*rr));
	char txtpath[4200], *text = NULL;
	size_t tlen = 0;
	struct sw_jw w = { 0 };
	FILE *f;
	int rc;

	if (!rr)
		return -ENOMEM;
	rr->run = r;
	if (!(rc = gather(x, rr, dir)) && !(rc = receipt_json(rr, &w)) &&
	    !(rc = put(x->cfg, r->receipt, sw_jw_text(&w), strlen(sw_jw_text(&w))))) {
		snprintf(txtpath, sizeof(txtpath), "%s.txt", r->receipt);
		if (!(f = open_memstream(&text, &tlen))) {
			rc = -ENOMEM;
		} else {
			receipt_text(rr, f);
			rc = fclose(f) ? -EIO : put(x->cfg, txtpath, text, tlen);
			if (!rc)
				fputs(text, stderr);
		}
	}
	*contained = rr->v.contained;
	sw_jw_free(&w);
	free(text);
	if (rr->have_tl)
		sw_timeline_free(&rr->tl);
	sw_jv_free(&rr->pre);
	sw_jv_free(&rr->post);
	sw_jv_free(&rr->att);
	sw_receipt_flows_free(&rr->flows);
	sw_run_sbxs_free(&rr->sbx);
	sw_jv_free(&rr->ids);
	free(rr->cfg_text);
	free(rr->rules);
	free(rr->journal);
	free(rr);
	return rc;
}
