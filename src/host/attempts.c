// SPDX-License-Identifier: GPL-2.0-or-later
/* attempts: what the sandboxes tried to reach (see include/host/attempts.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "lib/atomicfile.h"
#include "lib/addr.h"
#include "host/attempts.h"

void sw_attempts_add(struct sw_attempts *t, const struct sw_blocked *b, time_t now)
{
	sw_attempts_add_iif(t, b, NULL, now);
}

struct sw_attempt *sw_attempts_add_iif(struct sw_attempts *t, const struct sw_blocked *b,
				      const char *iif, time_t now)
{
	return sw_attempts_add_ident(t, b, iif, NULL, now);
}

static bool ident_fits(const struct sw_identity *rec, const struct sw_identity *id)
{
	return !id || !sw_identity_set(id) || !sw_identity_set(rec) ||
	       (!strcmp(rec->runtime, id->runtime) &&
		(rec->id[0] || id->id[0] ? !strcmp(rec->id, id->id) : !strcmp(rec->iif, id->iif)));
}

struct sw_attempt *sw_attempts_add_ident(struct sw_attempts *t, const struct sw_blocked *b,
					 const char *iif, const struct sw_identity *id,
					 time_t now)
{
	const char *cat = b->category, *sbx = b->sandbox;
	bool out = sw_blocked_is_output(b), has_uid = out && b->has_uid;
	uint32_t uid = has_uid ? b->uid : 0;
	struct sw_attempt *a = NULL;

	for (size_t i = 0; i < t->n && !a; i++)
		if (t->a[i].family == b->family && t->a[i].proto == b->proto &&
		    t->a[i].dport == b->dport && !memcmp(t->a[i].dst, b->dst, 16) &&
		    !memcmp(t->a[i].src, b->src, 16) && !strcmp(t->a[i].iif, iif ? iif : "") &&
		    t->a[i].output == out && t->a[i].has_uid == has_uid && t->a[i].uid == uid &&
		    !strcmp(t->a[i].category, cat) && !strcmp(t->a[i].sandbox, sbx) &&
		    ident_fits(&t->a[i].ident, id))
			a = &t->a[i];
	if (!a) {
		if (t->n < SW_ATTEMPTS_MAX) {
			a = &t->a[t->n++];
		} else {
			/* the least recently seen record makes room */
			a = &t->a[0];
			for (size_t i = 1; i < t->n; i++)
				if (t->a[i].last < a->last)
					a = &t->a[i];
			t->evicted++;
		}
		memset(a, 0, sizeof(*a));
		snprintf(a->category, sizeof(a->category), "%s", cat);
		snprintf(a->sandbox, sizeof(a->sandbox), "%s", sbx);
		a->family = b->family;
		memcpy(a->dst, b->dst, 16);
		memcpy(a->src, b->src, 16);
		snprintf(a->iif, sizeof(a->iif), "%s", iif ? iif : "");
		a->proto = b->proto;
		a->dport = b->dport;
		a->output = out;
		a->has_uid = has_uid;
		a->uid = uid;
		a->first = now;
	}
	if (id && sw_identity_set(id) && !sw_identity_set(&a->ident))
		a->ident = *id;
	a->count++;
	a->last = now;
	return a;
}

size_t sw_attempts_identify(struct sw_attempts *t, int family, const uint8_t *src,
			    const struct sw_identity *id)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (!sw_identity_set(&t->a[i].ident) && !t->a[i].output &&
		    t->a[i].family == family && !memcmp(t->a[i].src, src, 16)) {
			t->a[i].ident = *id;
			n++;
		}
	return n;
}

static int by_count(const void *x, const void *y)
{
	const struct sw_attempt *a = *(const struct sw_attempt *const *)x;
	const struct sw_attempt *b = *(const struct sw_attempt *const *)y;

	return a->count > b->count ? -1 : a->count < b->count ? 1 :
	       a->last > b->last ? -1 : a->last < b->last;
}

void sw_attempts_json(const struct sw_attempts *t, struct sw_jw *w)
{
	sw_attempts_json_by(t, NULL, w);
}

void sw_attempts_json_by(const struct sw_attempts *t, const struct sw_attempts_probes *probes,
			 struct sw_jw *w)
{
	const struct sw_attempt *order[SW_ATTEMPTS_MAX];
	char d[INET6_ADDRSTRLEN], src[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < t->n; i++)
		order[i] = &t->a[i];
	qsort(order, t->n, sizeof(order[0]), by_count);
	sw_jw_obj(w, NULL);
	sw_jw_u64(w, "evicted", t->evicted);
	sw_jw_arr(w, "attempts");
	for (size_t i = 0; i < t->n; i++) {
		const struct sw_attempt *a = order[i];

		inet_ntop(a->family, a->dst, d, sizeof(d));
		inet_ntop(a->family, a->src, src, sizeof(src));
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "category", a->category);
		if (a->sandbox[0])
			sw_jw_str(w, "sandbox", a->sandbox);
		sw_jw_str(w, "src", src);
		if (a->iif[0])
			sw_jw_str(w, "iif", a->iif);
		sw_jw_str(w, "dst", d);
		if (a->proto == IPPROTO_TCP || a->proto == IPPROTO_UDP)
			sw_jw_str(w, "proto", a->proto == IPPROTO_TCP ? "tcp" : "udp");
		else
			sw_jw_u64(w, "proto", a->proto);
		if (a->dport)
			sw_jw_u64(w, "dport", a->dport);
		if (a->output)
			sw_jw_str(w, "path", "output");
		if (a->has_uid)
			sw_jw_u64(w, "uid", a->uid);
		if (probes)
			sw_jw_str(w, "by", a->by_verify ||
				  sw_attempts_by_verify(probes, a->family, a->src, a->dst) ||
				  sw_attempts_by_verify_port(probes, a->proto, a->dport) ?
				  "verify" : "sandbox");
		sw_jw_u64(w, "count", a->count);
		sw_jw_i64(w, "first", (int64_t)a->first);
		sw_jw_i64(w, "last", (int64_t)a->last);
		if (sw_identity_set(&a->ident)) {
			sw_jw_obj(w, "identity");
			sw_identity_json(&a->ident, w, false);
			sw_jw_end(w);
		}
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_end(w);
}

int sw_attempts_write(const struct sw_attempts *t, const char *path)
{
	return sw_attempts_write_by(t, NULL, path);
}

int sw_attempts_write_by(const struct sw_attempts *t, const struct sw_attempts_probes *probes,
			 const char *path)
{
	struct sw_jw w;
	const char *text;
	int err;

	sw_jw_init(&w);
	sw_attempts_json_by(t, probes, &w);
	text = sw_jw_text(&w);
	err = text ? sw_atomic_write(path, text, strlen(text), 0600) : (w.err ? w.err : -EINVAL);
	sw_jw_free(&w);
	return err;
}

static void probe_add(struct sw_attempts_probes *p, const char *text)
{
	struct sw_prefix a;
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", text);
	buf[strcspn(buf, "/")] = '\0';
	if (p->n == SW_ATTEMPTS_PROBES || sw_prefix_parse(buf, &a, NULL))
		return;
	p->family[p->n] = a.family;
	memset(p->addr[p->n], 0, 16);
	memcpy(p->addr[p->n], a.addr, sw_family_addrlen(a.family));
	p->n++;
}

void sw_attempts_probes_read(const char *verify_json, size_t len, struct sw_attempts_probes *p)
{
	const struct sw_jv *runs, *sbx;
	struct sw_jv v;

	memset(p, 0, sizeof(*p));
	if (!verify_json || sw_jv_parse(verify_json, len, &v, NULL))
		return;
	runs = sw_jv_get(&v, "runs");
	for (size_t i = 0; runs && runs->type == SW_JARR && i < runs->n; i++) {
		const struct sw_jv *src = sw_jv_get(&runs->vals[i], "sources");

		for (size_t k = 0; src && src->type == SW_JARR && k < src->n; k++)
			if (src->vals[k].type == SW_JSTR)
				probe_add(p, src->vals[k].str);
	}
	{
		int64_t port = 0;

		if (sw_jv_get_i64(&v, "canary_port", &port) == 0 && port > 0 && port < 65536)
			p->canary_port = (uint16_t)port;
	}
	sbx = sw_jv_get(&v, "sandboxes");
	for (size_t i = 0; sbx && sbx->type == SW_JARR && i < sbx->n; i++) {
		const char *u;

		if (sw_jv_get_str(&sbx->vals[i], "unlisted", &u) == 0)
			probe_add(p, u);
	}
	sw_jv_free(&v);
}

bool sw_attempts_by_verify(const struct sw_attempts_probes *p, int family, const uint8_t *src,
			   const uint8_t *dst)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->family[i] == family &&
		    (!memcmp(p->addr[i], src, 16) || !memcmp(p->addr[i], dst, 16)))
			return true;
	return false;
}

bool sw_attempts_by_verify_port(const struct sw_attempts_probes *p, uint8_t proto,
				uint16_t dport)
{
	return p && p->canary_port && proto == IPPROTO_UDP && dport == p->canary_port;
}

void sw_attempts_mark(struct sw_attempts *t, const struct sw_attempts_probes *p)
{
	for (size_t i = 0; i < t->n; i++)
		t->a[i].by_verify |= sw_attempts_by_verify(p, t->a[i].family, t->a[i].src, t->a[i].dst) ||
				     sw_attempts_by_verify_port(p, t->a[i].proto, t->a[i].dport);
}
