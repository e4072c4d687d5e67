// SPDX-License-Identifier: GPL-2.0-or-later
/* receipt_ident: the sandboxes a receipt names, from identities.jsonl
 * beside the journal and the attempts' "identity" (see
 * include/cli/receipt.h, docs/json.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "cli/receipt.h"
#include "lib/journal.h"

static void one_line(const char *l, size_t n, int64_t since, int64_t until,
		     struct sw_receipt_ids *out)
{
	struct sw_identity id;
	const char *ev;
	int64_t t;
	struct sw_jv v;
	size_t k;

	if (sw_jv_parse(l, n, &v, NULL))
		return;
	if (sw_jv_get_str(&v, "event", &ev) || strcmp(ev, "identity") ||
	    sw_jv_get_i64(&v, "unix", &t) || t < since || t > until ||
	    sw_identity_from_json(&v, &id)) {
		sw_jv_free(&v);
		return;
	}
	sw_jv_free(&v);
	for (k = 0; k < out->n; k++)
		if (!strcmp(out->id[k].runtime, id.runtime) && !strcmp(out->id[k].id, id.id) &&
		    (id.id[0] || !strcmp(out->id[k].iif, id.iif)))
			break;
	if (k == out->n) {
		if (out->n == SW_RECEIPT_IDS) {
			out->more++;
			return;
		}
		out->n++;
	}
	out->id[k] = id;
	out->when[k] = t;
}

void sw_receipt_read_ids(const char *text, size_t len, int64_t since, int64_t until,
			 struct sw_receipt_ids *out)
{
	const char *p = text, *end = text + len;

	out->n = out->more = 0;
	out->have_file = text != NULL;
	while (text && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n && n < SW_JOURNAL_LINE_MAX)
			one_line(p, n, since, until, out);
		p += n + 1;
	}
}

void sw_receipt_ident_tag(const struct sw_jv *attempt, char *buf, size_t len)
{
	struct sw_identity id;
	char sid[16];

	buf[0] = '\0';
	if (sw_identity_from_json(sw_jv_get(attempt, "identity"), &id))
		return;
	sw_identity_short(&id, sid, sizeof(sid));
	snprintf(buf, len, " [%s %s%s%s%s%s]", sw_identity_name(&id), id.runtime, sid[0] ? " " : "",
		 sid, id.image[0] ? " " : "", id.image);
}

void sw_receipt_ids_text(FILE *out, const struct sw_receipt_ids *ids)
{
	char when[32], a[64];

	if (!ids->have_file) {
		fprintf(out, "sandboxes seen    unknown (no identities.jsonl from sandwalld)\n");
		return;
	}
	fprintf(out, "sandboxes seen    %zu in the window%s\n", ids->n,
	       ids->more ? " (more not listed)" : "");
	for (size_t i = 0; i < ids->n; i++) {
		const struct sw_identity *id = &ids->id[i];

		sw_iso_utc(ids->when[i], when, sizeof(when));
		a[0] = '\0';
		if (id->n_addrs)
			inet_ntop(id->family[0], id->addr[0], a, sizeof(a));
		fprintf(out, "                  %s %s %s%s%s%s%s%s%s at %s\n",
		       sw_identity_name(id), id->runtime,
		       id->id[0] ? id->id : "-", id->image[0] ? " image " : "", id->image,
		       a[0] ? " addr " : "", a, id->run[0] ? " run " : "", id->run, when);
	}
}

void sw_receipt_ids_json(const struct sw_receipt_ids *ids, struct sw_jw *w)
{
	char when[32];

	if (!ids->have_file) {
		sw_jw_null(w, "sandboxes_seen");
		return;
	}
	sw_jw_arr(w, "sandboxes_seen");
	for (size_t i = 0; i < ids->n; i++) {
		sw_jw_obj(w, NULL);
		sw_iso_utc(ids->when[i], when, sizeof(when));
		sw_jw_str(w, "time", when);
		sw_jw_i64(w, "unix", ids->when[i]);
		sw_identity_json(&ids->id[i], w, true);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}
