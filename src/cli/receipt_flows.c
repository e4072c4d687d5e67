// SPDX-License-Identifier: GPL-2.0-or-later
/* receipt_flows: the network log's flows in the receipt's window (see
 * include/cli/receipt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/receipt.h"
#include "lib/journal.h"

static int keep(struct sw_receipt_flows *f, struct sw_jv *v)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct sw_jv *p = realloc(f->list, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->list = p;
		f->cap = cap;
	}
	f->list[f->n++] = *v;
	return 0;
}

static void count_state(struct sw_receipt_flows *f, const struct sw_jv *v)
{
	const char *state = "";

	sw_jv_get_str(v, "state", &state);
	if (!strcmp(state, "open"))
		f->open++;
	else if (!strcmp(state, "gone"))
		f->gone++;
	else
		f->closed++;
}

static bool in_window(const struct sw_jv *v, int64_t since, int64_t until)
{
	int64_t first, last;

	if (sw_jv_get_i64(v, "first", &first) || sw_jv_get_i64(v, "last", &last))
		return false;
	return last >= since && first <= until;
}

/* One line: 1 kept, 0 not (counted or outside), -ENOMEM. *last_open:
 * the latest "open" line's time. */
static int one_line(struct sw_receipt_flows *f, const char *s, size_t n, int64_t since,
		    int64_t until, int64_t *last_open)
{
	struct sw_jv v;
	const char *ev, *state;
	int64_t t, count;

	if (sw_jv_parse(s, n, &v, NULL) || v.type != SW_JOBJ || sw_jv_get_str(&v, "event", &ev) ||
	    sw_jv_get_i64(&v, "unix", &t)) {
		sw_jv_free(&v);
		f->malformed++;
		return 0;
	}
	if (f->oldest < 0 || t < f->oldest)
		f->oldest = t;
	if (!strcmp(ev, "flow") && !sw_jv_get_str(&v, "state", &state) && !strcmp(state, "open") &&
	    t > *last_open)
		*last_open = t;
	if (!strcmp(ev, "flow") && in_window(&v, since, until)) {
		count_state(f, &v);
		if (keep(f, &v) == 0)
			return 1;
		sw_jv_free(&v);
		return -ENOMEM;
	}
	if ((!strcmp(ev, "flows-dropped") || !strcmp(ev, "flows-lost")) && t >= since && t <= until &&
	    !sw_jv_get_i64(&v, "count", &count) && count > 0)
		*(ev[6] == 'd' ? &f->dropped : &f->lost) += (uint64_t)count;
	else if (strcmp(ev, "flow") && strcmp(ev, "flows-dropped") && strcmp(ev, "flows-lost") &&
		 strcmp(ev, "hole"))
		f->malformed++;
	sw_jv_free(&v);
	return 0;
}

static int read_open(struct sw_receipt_flows *f, const char *text, size_t len, int64_t since,
		     int64_t until, int64_t last_open)
{
	struct sw_jv doc;
	const struct sw_jv *list;
	int64_t t;
	int rc = 0;

	if (sw_jv_parse(text, len, &doc, NULL) || sw_jv_get_i64(&doc, "unix", &t) ||
	    !(list = sw_jv_get(&doc, "flows")) || list->type != SW_JARR) {
		sw_jv_free(&doc);
		f->malformed++;
		return 0;
	}
	/* the stop wrote these as lines already */
	if (t <= last_open) {
		sw_jv_free(&doc);
		return 0;
	}
	for (size_t i = 0; !rc && i < list->n; i++) {
		struct sw_jv *v = &list->vals[i];

		if (v->type != SW_JOBJ || !in_window(v, since, until))
			continue;
		count_state(f, v);
		if (!(rc = keep(f, v)))
			memset(v, 0, sizeof(*v));   /* moved: not freed with doc */
	}
	sw_jv_free(&doc);
	return rc;
}

int sw_receipt_read_flows(const char *log, size_t loglen, const char *open_json, size_t openlen,
			  int64_t since, int64_t until, struct sw_receipt_flows *out)
{
	int64_t last_open = -1;
	size_t i = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->have_log = log != NULL;
	out->oldest = -1;
	while (log && i < loglen) {
		const char *nl = memchr(log + i, '\n', loglen - i);
		size_t n = nl ? (size_t)(nl - (log + i)) : loglen - i;

		if (n && (rc = one_line(out, log + i, n, since, until, &last_open)) < 0)
			break;
		rc = 0;
		i += n + 1;
	}
	if (!rc && open_json)
		rc = read_open(out, open_json, openlen, since, until, last_open);
	if (rc)
		sw_receipt_flows_free(out);
	return rc;
}

void sw_receipt_flows_free(struct sw_receipt_flows *f)
{
	for (size_t i = 0; i < f->n; i++)
		sw_jv_free(&f->list[i]);
	free(f->list);
	memset(f, 0, sizeof(*f));
}

void sw_receipt_flows_json(struct sw_jw *w, const struct sw_receipt_flows *f)
{
	sw_jw_obj(w, "flows");
	sw_jw_bool(w, "recorded", f->have_log);
	if (f->oldest >= 0)
		sw_jw_i64(w, "oldest_record", f->oldest);
	else
		sw_jw_null(w, "oldest_record");
	sw_jw_u64(w, "count", f->n);
	sw_jw_u64(w, "closed", f->closed);
	sw_jw_u64(w, "open", f->open);
	sw_jw_u64(w, "gone", f->gone);
	sw_jw_u64(w, "dropped", f->dropped);
	sw_jw_u64(w, "lost_events", f->lost);
	sw_jw_u64(w, "malformed", f->malformed);
	sw_jw_arr(w, "list");
	for (size_t i = 0; i < f->n; i++)
		sw_jw_value(w, NULL, &f->list[i]);
	sw_jw_end(w);
	sw_jw_end(w);
}

/* "1029 B" or "unknown" (no conntrack accounting: never 0) */
static const char *bytes(const struct sw_jv *v, const char *key, char *buf, size_t len)
{
	int64_t n;

	if (sw_jv_get_i64(v, key, &n))
		return "? B";
	snprintf(buf, len, "%lld B", (long long)n);
	return buf;
}

void sw_receipt_flow_name(const struct sw_jv *v, char *out, size_t len)
{
	const char *s = NULL;
	size_t o = 0;

	if (len)
		out[0] = '\0';
	if (len < 8 || sw_jv_get_str(v, "name", &s) || !s || !*s)
		return;
	out[o++] = ' ';
	out[o++] = '(';
	for (; *s && o + 2 < len; s++)
		out[o++] = *s > 0x20 && *s < 0x7f ? *s : '?';
	out[o++] = ')';
	out[o] = '\0';
}

void sw_receipt_flows_text(const struct sw_receipt_flows *f, FILE *out, size_t max)
{
	if (!f->have_log && !f->n) {
		fprintf(out, "flows             none recorded ([log] flows)\n");
		return;
	}
	fprintf(out, "flows             %zu allowed flow(s) in the window (%zu closed, %zu open, "
		"%zu gone)\n", f->n, f->closed, f->open, f->gone);
	if (f->oldest >= 0) {
		char iso[32];

		sw_iso_utc(f->oldest, iso, sizeof(iso));
		fprintf(out, "flows             recorded since %s (older records rotated out)\n", iso);
	}
	if (f->dropped || f->lost)
		fprintf(out, "flows             NOT COMPLETE: %llu new flow(s) dropped (the table was "
			"full, [log] max_flows), %llu event loss(es)\n",
			(unsigned long long)f->dropped, (unsigned long long)f->lost);
	for (size_t i = 0; i < f->n && i < max; i++) {
		const struct sw_jv *v = &f->list[i];
		const char *src = "?", *dst = "?", *proto = "?", *verdict = "?", *state = "?";
		char ob[32], rb[32], name[136];
		int64_t dport = 0;

		sw_jv_get_str(v, "src", &src);
		sw_jv_get_str(v, "dst", &dst);
		sw_jv_get_str(v, "proto", &proto);
		sw_jv_get_str(v, "verdict", &verdict);
		sw_jv_get_str(v, "state", &state);
		sw_jv_get_i64(v, "dport", &dport);
		sw_receipt_flow_name(v, name, sizeof(name));
		fprintf(out, "  %s -> %s%s%s:%lld/%s%s  out %s, in %s  %s (%s)\n", src,
			strchr(dst, ':') ? "[" : "", dst, strchr(dst, ':') ? "]" : "", (long long)dport,
			proto, name, bytes(v, "orig_bytes", ob, sizeof(ob)),
			bytes(v, "reply_bytes", rb, sizeof(rb)), verdict, state);
	}
	if (f->n > max)
		fprintf(out, "  and %zu more (receipt --json lists them all)\n", f->n - max);
}

int sw_receipt_flows_load(const struct sw_config *cfg, int64_t since, int64_t until,
			  struct sw_receipt_flows *out)
{
	char path[SW_PATH_MAX + 32], *log = NULL, *open = NULL;
	const char *slash = strrchr(cfg->journal_path, '/');
	size_t loglen = 0, openlen = 0;
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	out->oldest = -1;
	if (!cfg->journal_path[0] || !slash)
		return 0;
	snprintf(path, sizeof(path), "%.*s/flows.jsonl", (int)(slash - cfg->journal_path),
		 cfg->journal_path);
	if (!stat(path, &st) && sw_journal_read(path, &log, &loglen))
		log = NULL;
	snprintf(path, sizeof(path), "%.*s/flows-open.json", (int)(slash - cfg->journal_path),
		 cfg->journal_path);
	open = sw_receipt_slurp(path, &openlen);
	rc = sw_receipt_read_flows(log, loglen, open, openlen, since, until, out);
	free(log);
	free(open);
	return rc;
}
