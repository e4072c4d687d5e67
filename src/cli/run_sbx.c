// SPDX-License-Identifier: GPL-2.0-or-later
/* run_sbx: a run's sandboxes (include/cli/run_sbx.h): every source that
 * made a blocked attempt or opened an allowed flow inside the window,
 * verify's own probes apart, each with its identity, its attempts and its
 * flows. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/receipt.h"
#include "cli/run_sbx.h"
#include "host/identity.h"
#include "lib/journal.h"

bool sw_run_by_verify(const struct sw_attempts_probes *probes, size_t n, const char *src)
{
	uint8_t a[16] = { 0 };
	int fam = strchr(src, ':') ? AF_INET6 : AF_INET;

	if (inet_pton(fam, src, a) != 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (sw_attempts_by_verify(&probes[i], fam, a, a))
			return true;
	return false;
}

static bool attempt_in(const struct sw_run_sbx_in *in, const struct sw_jv *a)
{
	int64_t first = 0, last = 0;

	sw_jv_get_i64(a, "first", &first);
	sw_jv_get_i64(a, "last", &last);
	if (last < in->since || first > in->until)
		return false;
	for (size_t i = 0; i < in->n_probes; i++)
		if (sw_receipt_by_verify(a, &in->probes[i]))
			return false;
	return true;
}

/* a flow verify's probes opened (its addresses, its canary port) */
static bool flow_by_verify(const struct sw_run_sbx_in *in, const struct sw_jv *f)
{
	for (size_t i = 0; i < in->n_probes; i++)
		if (sw_receipt_by_verify(f, &in->probes[i]))
			return true;
	return false;
}

/* a flow the run's sandboxes opened: first seen after the run's first
 * second (the records have seconds; a flow sandwalld found open when it
 * started, or at the dump in that second, was there before: the command
 * starts after the preflight, seconds later) */
static bool flow_in(const struct sw_run_sbx_in *in, const struct sw_jv *f)
{
	int64_t first = 0;

	sw_jv_get_i64(f, "first", &first);
	return first > in->since && first <= in->until && !flow_by_verify(in, f);
}

size_t sw_run_flows_before(const struct sw_run_sbx_in *in)
{
	size_t n = 0;

	for (size_t i = 0; in->flows && i < in->flows->n; i++) {
		int64_t first = 0;

		sw_jv_get_i64(&in->flows->list[i], "first", &first);
		n += first <= in->since && !flow_by_verify(in, &in->flows->list[i]);
	}
	return n;
}

static const char *str_of(const struct sw_jv *v, const char *k)
{
	const char *s;

	return sw_jv_get_str(v, k, &s) ? "" : s;
}

static int add_key(struct sw_run_sbxs *o, const struct sw_jv *rec)
{
	const char *src = str_of(rec, "src"), *iif = str_of(rec, "iif");
	const struct sw_jv *id = sw_jv_get(rec, "identity");
	struct sw_run_sbx *v;

	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].src, src) && !strcmp(o->v[i].iif, iif)) {
			if (!o->v[i].identity && id && id->type == SW_JOBJ)
				o->v[i].identity = id;
			return 0;
		}
	if (!(v = reallocarray(o->v, o->n + 1, sizeof(*v))))
		return -ENOMEM;
	o->v = v;
	o->v[o->n++] = (struct sw_run_sbx){ src, iif, id && id->type == SW_JOBJ ? id : NULL, false };
	return 0;
}

/* identities.jsonl's last record, up to the window's end, that lists src */
static const struct sw_jv *identity_of(const struct sw_run_sbx_in *in, const char *src)
{
	const struct sw_jv *best = NULL;

	for (size_t i = 0; in->identities && i < in->identities->n; i++) {
		const struct sw_jv *r = &in->identities->vals[i], *a = sw_jv_get(r, "addresses");
		int64_t t = 0;

		if (sw_jv_get_i64(r, "unix", &t) || t > in->until || !a || a->type != SW_JARR)
			continue;
		for (size_t j = 0; j < a->n; j++)
			if (a->vals[j].type == SW_JSTR && !strcmp(a->vals[j].str, src))
				best = r;
	}
	return best;
}

/* the run a sandbox's identity is labelled for ("" none) */
static const char *run_label(const struct sw_jv *id)
{
	const struct sw_jv *l = id ? sw_jv_get(id, "labels") : NULL;
	const char *run;

	return l && !sw_jv_get_str(l, "sandwall.run", &run) ? run : "";
}

int sw_run_sbx_collect(const struct sw_run_sbx_in *in, struct sw_run_sbxs *out)
{
	const struct sw_jv *list = in->attempts ? sw_jv_get(in->attempts, "attempts") : NULL;
	size_t k = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !rc && list && list->type == SW_JARR && i < list->n; i++)
		if (attempt_in(in, &list->vals[i]))
			rc = add_key(out, &list->vals[i]);
	for (size_t i = 0; !rc && in->flows && i < in->flows->n; i++)
		if (flow_in(in, &in->flows->list[i]))
			rc = add_key(out, &in->flows->list[i]);
	/* named where a record knows it; another run's sandboxes left out */
	for (size_t i = 0; !rc && i < out->n; i++) {
		struct sw_run_sbx *x = &out->v[i];
		const char *label;

		if (!x->identity)
			x->identity = identity_of(in, x->src);
		label = run_label(x->identity);
		if (label[0] && in->run_id && strcmp(label, in->run_id))
			continue;
		x->labelled = label[0] != '\0';
		out->v[k++] = *x;
	}
	out->n = k;
	return rc;
}

static bool same(const struct sw_run_sbx *s, const struct sw_jv *rec)
{
	return !strcmp(s->src, str_of(rec, "src")) && !strcmp(s->iif, str_of(rec, "iif"));
}

void sw_run_sbx_json(struct sw_jw *w, const struct sw_run_sbx_in *in, const struct sw_run_sbxs *s)
{
	const struct sw_jv *list = in->attempts ? sw_jv_get(in->attempts, "attempts") : NULL;

	sw_jw_arr(w, "sandboxes");
	for (size_t k = 0; k < s->n; k++) {
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "src", s->v[k].src);
		sw_jw_str(w, "iif", s->v[k].iif);
		if (s->v[k].identity)
			sw_jw_value(w, "identity", s->v[k].identity);
		else
			sw_jw_null(w, "identity");
		/* why it is this run's: its label, or its traffic in the window
		 * (shared when another run was open too) */
		sw_jw_str(w, "attribution", s->v[k].labelled ? "label" :
			  in->overlapped ? "window, shared with another run" : "window");
		sw_jw_arr(w, "attempts");
		for (size_t i = 0; list && list->type == SW_JARR && i < list->n; i++)
			if (attempt_in(in, &list->vals[i]) && same(&s->v[k], &list->vals[i]))
				sw_jw_value(w, NULL, &list->vals[i]);
		sw_jw_end(w);
		sw_jw_arr(w, "flows");
		for (size_t i = 0; in->flows && i < in->flows->n; i++)
			if (flow_in(in, &in->flows->list[i]) && same(&s->v[k], &in->flows->list[i]))
				sw_jw_value(w, NULL, &in->flows->list[i]);
		sw_jw_end(w);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}

/* " = RUNTIME NAME (IMAGE) SHORTID", a micro-VM's " = microvm COMM pid
 * PID" (the strings cleaned as sandwalld's records are) */
static void name_of(const struct sw_run_sbx *s, char *out, size_t len)
{
	struct sw_identity id;
	char sid[16], pid[24] = "";

	out[0] = '\0';
	if (!s->identity || sw_identity_from_json(s->identity, &id))
		return;
	sw_identity_short(&id, sid, sizeof(sid));
	if (id.pid > 0)
		snprintf(pid, sizeof(pid), " pid %d", (int)id.pid);
	snprintf(out, len, " = %s %s%s%s%s%s%s%s", id.runtime, sw_identity_name(&id),
		 id.image[0] ? " (" : "", id.image, id.image[0] ? ")" : "", sid[0] ? " " : "",
		 sid, pid);
}

static void counts(const struct sw_jv *f, const char *dir, char *out, size_t len)
{
	char k[32];
	int64_t p = -1, b = -1;

	snprintf(k, sizeof(k), "%s_packets", dir);
	sw_jv_get_i64(f, k, &p);
	snprintf(k, sizeof(k), "%s_bytes", dir);
	sw_jv_get_i64(f, k, &b);
	if (p < 0 || b < 0)
		snprintf(out, len, "? bytes");
	else
		snprintf(out, len, "%lld bytes in %lld packets", (long long)b, (long long)p);
}

void sw_run_sbx_text(FILE *f, const struct sw_run_sbx_in *in, const struct sw_run_sbxs *s,
		     size_t max)
{
	const struct sw_jv *list = in->attempts ? sw_jv_get(in->attempts, "attempts") : NULL;
	size_t shown = 0, total = 0;

	fprintf(f, "%-18s%zu (every source that was blocked or opened a flow in the window; "
		"verify's own probes apart)\n", "sandboxes", s->n);
	for (size_t k = 0; k < s->n; k++) {
		char who[320];       /* name_of: every field at its longest */

		name_of(&s->v[k], who, sizeof(who));
		fprintf(f, "  %s%s%s%s\n", s->v[k].src, s->v[k].iif[0] ? " via " : "", s->v[k].iif, who);
		for (size_t i = 0; list && list->type == SW_JARR && i < list->n; i++) {
			const struct sw_jv *a = &list->vals[i];
			int64_t port = 0, count = 0;

			if (!attempt_in(in, a) || !same(&s->v[k], a) || total++ >= max)
				continue;
			shown++;
			sw_jv_get_i64(a, "dport", &port);
			sw_jv_get_i64(a, "count", &count);
			fprintf(f, "    BLOCKED  %s:%lld/%s (%s), %lld packet(s)\n", str_of(a, "dst"),
				(long long)port, str_of(a, "proto"), str_of(a, "category"), (long long)count);
		}
		for (size_t i = 0; in->flows && i < in->flows->n; i++) {
			const struct sw_jv *fl = &in->flows->list[i];
			char out_c[64], in_c[64], name[136];
			int64_t port = 0;

			if (!flow_in(in, fl) || !same(&s->v[k], fl) || total++ >= max)
				continue;
			shown++;
			sw_jv_get_i64(fl, "dport", &port);
			counts(fl, "orig", out_c, sizeof(out_c));
			counts(fl, "reply", in_c, sizeof(in_c));
			sw_receipt_flow_name(fl, name, sizeof(name));
			fprintf(f, "    ALLOWED  %s:%lld/%s%s, sent %s, received %s, %s .. %s (%s)\n",
				str_of(fl, "dst"), (long long)port, str_of(fl, "proto"), name, out_c, in_c,
				str_of(fl, "first_time"), str_of(fl, "last_time"), str_of(fl, "state"));
		}
	}
	if (total > shown)
		fprintf(f, "  and %zu more attempt(s) and flow(s) (in the JSON receipt)\n", total - shown);
}

void sw_run_sbxs_free(struct sw_run_sbxs *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
