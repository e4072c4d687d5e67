// SPDX-License-Identifier: GPL-2.0-or-later
/* hostfast: the new-link path, a new link guarded without rebuilding the
 * whole desired model (see include/sync/hostfast.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/nf_tables.h>

#include "core/diff.h"
#include "kernel/commit.h"
#include "kernel/encode.h"
#include "core/gate.h"
#include "sync/hostfast.h"
#include "core/ruleset.h"

static void tiny_free(struct sw_host *t)
{
	if (t)
		sw_host_free(t);
	free(t);
}

/* A host with lo and, if given, these links (classified as given). */
static struct sw_host *tiny_host(const struct sw_host *host, const int *idx, size_t n)
{
	struct sw_host *t = calloc(1, sizeof(*t));

	if (!t || sw_host_room_links(t)) {
		tiny_free(t);
		return NULL;
	}
	t->links[0] = (struct sw_link){ .ifindex = 1, .name = "lo", .up = true, .loopback = true };
	t->n_links = 1;
	for (size_t i = 0; i < n; i++) {
		const struct sw_link *l = sw_host_link(host, idx[i]);

		if (!l || l->ifindex == 1 || sw_host_room_links(t)) {
			tiny_free(t);
			return NULL;
		}
		t->links[t->n_links++] = *l;
	}
	return t;
}

int sw_fast_base(const struct sw_config *cfg, struct sw_model *base, char *err, size_t errlen)
{
	struct sw_host *t = tiny_host(NULL, NULL, 0);
	int rc;

	if (!t) {
		snprintf(err, errlen, "cannot build the base model: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	rc = sw_ruleset_build(cfg, t, base, err, errlen);
	tiny_free(t);
	return rc;
}

static bool is_end(const struct sw_elem *e)
{
	return e->flags & NFT_SET_ELEM_INTERVAL_END;
}

static bool key_zero(const struct sw_elem *e, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (e->key[i])
			return false;
	return true;
}

/* One range of an interval set: start, and the END element (hi: the
 * first key past it), or none (open to the largest key). */
struct ival {
	const struct sw_elem *lo, *hi;
};

/* The ranges of a sorted interval set (the leading zero END that marks
 * "nothing below the first range" skipped). -ESTALE when the elements are
 * not start/END pairs. */
static int ivals_of(const struct sw_set *s, size_t len, struct ival **out, size_t *n)
{
	size_t i = 0, k = 0;
	struct ival *v = malloc((s->n_elems / 2 + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (s->n_elems && is_end(&s->elems[0]) && key_zero(&s->elems[0], len))
		i = 1;
	while (i < s->n_elems) {
		if (is_end(&s->elems[i]) || s->elems[i].has_key_end) {
			free(v);
			return -ESTALE;
		}
		v[k].lo = &s->elems[i++];
		v[k].hi = i < s->n_elems ? &s->elems[i++] : NULL;
		if (v[k].hi && !is_end(v[k].hi)) {
			free(v);
			return -ESTALE;
		}
		k++;
	}
	*out = v;
	*n = k;
	return 0;
}

static bool same_ival(const struct ival *a, const struct ival *b, size_t len)
{
	return !sw_elem_order(a->lo, b->lo, len) &&
	       (a->hi && b->hi ? !sw_elem_order(a->hi, b->hi, len) : !a->hi && !b->hi);
}

/* First element of w whose key is not below key. */
static size_t lower(const struct sw_set *w, const struct sw_elem *key, size_t len)
{
	size_t lo = 0, hi = w->n_elems;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(w->elems[mid].key, key->key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct adds {
	struct sw_elem *v;
	size_t n, cap;
};

static int push(struct adds *a, const struct sw_elem *e)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		struct sw_elem *nv = realloc(a->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = *e;
	return 0;
}

/* A new range [lo, hi) against the desired set w: covered by a range of
 * w (nothing to add), or clear of every range with room on both sides
 * (its two elements, and the leading zero END if w lacks it), or neither
 * (-ESTALE: touching or partly overlapping ranges are the full build's
 * business). */
static int add_ival(const struct sw_set *w, const struct ival *r, size_t len, struct adds *a,
		    bool *zero_added)
{
	size_t n = w->n_elems, p = lower(w, r->lo, len);
	const struct sw_elem *at = p < n ? &w->elems[p] : NULL;
	const struct sw_elem *prev = p ? &w->elems[p - 1] : NULL;
	int err;

	if (at && !memcmp(at->key, r->lo->key, len)) {
		/* a range of w starts here: covered if it reaches as far */
		if (is_end(at) || !r->hi)
			return -ESTALE;
		if (p + 1 < n && is_end(&w->elems[p + 1]) &&
		    memcmp(w->elems[p + 1].key, r->hi->key, len) >= 0)
			return 0;
		return -ESTALE;
	}
	if (prev && !is_end(prev)) {
		/* inside a range of w that starts below */
		if (!r->hi)
			return at ? -ESTALE : 0;
		if (at && is_end(at) && memcmp(at->key, r->hi->key, len) >= 0)
			return 0;
		return -ESTALE;
	}
	/* between ranges: the next one must start past our end */
	if (!r->hi || (at && memcmp(at->key, r->hi->key, len) <= 0))
		return -ESTALE;
	if (key_zero(r->lo, len))
		return -ESTALE;         /* a range from zero has no leading END */
	if (!*zero_added && !(n && is_end(&w->elems[0]) && key_zero(&w->elems[0], len))) {
		struct sw_elem z = { .flags = NFT_SET_ELEM_INTERVAL_END };

		if ((err = push(a, &z)))
			return err;
		*zero_added = true;
	}
	if ((err = push(a, r->lo)) || (err = push(a, r->hi)))
		return err;
	return 0;
}

/* The additions to w for set s1 (one link's model) over s0 (the base). */
static int set_adds(const struct sw_set *s1, const struct sw_set *s0, const struct sw_set *w,
		    struct adds *a)
{
	size_t len = s1->key_len < SW_KEY_MAX ? s1->key_len : SW_KEY_MAX;
	int err = 0;

	if (s1->key_len != w->key_len || s1->flags != w->flags || s1->key_len != s0->key_len ||
	    sw_set_dynamic(w))
		return -ESTALE;
	if (s1->flags & NFT_SET_INTERVAL) {
		struct ival *v1 = NULL, *v0 = NULL;
		size_t n1 = 0, n0 = 0, j = 0;
		bool zero_added = false;

		if (!(err = ivals_of(s1, len, &v1, &n1)) && !(err = ivals_of(s0, len, &v0, &n0)))
			for (size_t i = 0; i < n1 && !err; i++) {
				/* both sorted: the base's ranges are skipped in one walk */
				while (j < n0 && sw_elem_order(v0[j].lo, v1[i].lo, len) < 0)
					j++;
				if (j < n0 && same_ival(&v0[j], &v1[i], len))
					continue;
				err = add_ival(w, &v1[i], len, a, &zero_added);
			}
		free(v1);
		free(v0);
		return err;
	}
	for (size_t i = 0, j = 0; i < s1->n_elems && !err; i++) {
		const struct sw_elem *e = &s1->elems[i];
		size_t p;

		if (e->has_key_end)
			return -ESTALE;
		while (j < s0->n_elems && sw_elem_order(&s0->elems[j], e, len) < 0)
			j++;
		if (j < s0->n_elems && !sw_elem_order(&s0->elems[j], e, len))
			continue;
		p = lower(w, e, len);
		while (p < w->n_elems && !memcmp(w->elems[p].key, e->key, len) &&
		       sw_elem_order(&w->elems[p], e, len))
			p++;
		if (p < w->n_elems && !sw_elem_order(&w->elems[p], e, len))
			continue;
		err = push(a, e);
	}
	return err;
}

/* Insert the (sorted) additions into w's sorted elements, in place. */
static int insert_sorted(struct sw_set *w, const struct sw_elem *a, size_t na)
{
	size_t len = w->key_len < SW_KEY_MAX ? w->key_len : SW_KEY_MAX, i, j, k;

	if (w->n_elems + na > w->cap_elems) {
		struct sw_elem *nv = realloc(w->elems, (w->n_elems + na) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		w->elems = nv;
		w->cap_elems = w->n_elems + na;
	}
	/* merge from the back: each element moves at most once */
	i = w->n_elems;
	j = na;
	k = w->n_elems + na;
	while (j > 0) {
		if (i > 0 && sw_elem_order(&w->elems[i - 1], &a[j - 1], len) > 0)
			w->elems[--k] = w->elems[--i];
		else
			w->elems[--k] = a[--j];
	}
	w->n_elems += na;
	return 0;
}

void sw_fast_free(struct sw_fast *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->s[i].elems);
	f->n = 0;
}

int sw_fast_plan(const struct sw_config *cfg, const struct sw_host *host, const int *idx,
		 size_t n_idx, const struct sw_model *base, const struct sw_model *want,
		 struct sw_fast *f)
{
	struct sw_host *t;
	struct sw_model one;
	struct sw_diff d = { 0 };
	char err[256];
	int rc;

	memset(f, 0, sizeof(*f));
	if (!n_idx || n_idx > SW_FAST_MAX_LINKS)
		return -ESTALE;
	if (!(t = tiny_host(host, idx, n_idx)))
		return -ESTALE;
	rc = sw_ruleset_build(cfg, t, &one, err, sizeof(err));
	tiny_free(t);
	if (rc)
		return -ESTALE;
	if ((rc = sw_diff(&one, base, &d)))
		goto out;
	/* only elements the link brings: nothing it takes away, no rule */
	for (size_t i = 0; i < d.n && !rc; i++)
		if (!d.items[i].set || d.items[i].kind != SW_DIFF_MISSING)
			rc = -ESTALE;
	for (size_t i = 0; i < d.n && !rc; i++) {
		const char *name = d.items[i].set;
		const struct sw_set *s1 = sw_model_find_set(&one, name);
		const struct sw_set *s0 = sw_model_find_set(base, name);
		struct sw_set *w = sw_model_find_set(want, name);
		struct adds a = { 0 };
		bool seen = false;

		for (size_t j = 0; j < f->n && !seen; j++)
			seen = !strcmp(f->s[j].set->name, name);
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(d.items[j].set, name);
		if (seen)
			continue;
		/* the gate changes only through sw_gate_settle: the buffer not
		 * selected is filled in a commit of its own, then selected */
		if (!s1 || !s0 || !w || sw_gate_buffer(name)) {
			rc = -ESTALE;
			break;
		}
		rc = set_adds(s1, s0, w, &a);
		if (!rc && a.n) {
			sw_elems_sort(a.v, a.n, w->key_len);
			f->s[f->n].set = w;
			f->s[f->n].elems = a.v;         /* the additions only */
			f->s[f->n].n_elems = a.n;
			f->s[f->n++].added = a.n;
			a.v = NULL;
		}
		free(a.v);
	}
out:
	sw_diff_free(&d);
	sw_model_free(&one);
	if (rc)
		sw_fast_free(f);
	return rc;
}

struct fast_fill {
	const char *table;
	const struct sw_fast *f;
};

/* add element inet T S { ... }: the additions against nothing */
static int fill_adds(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct fast_fill *a = arg;
	int rc = 0;

	for (size_t i = 0; i < a->f->n && !rc; i++) {
		struct sw_set u = *a->f->s[i].set, none = *a->f->s[i].set;

		u.elems = a->f->s[i].elems;
		u.n_elems = a->f->s[i].n_elems;
		none.elems = NULL;
		none.n_elems = 0;
		rc = sw_encode_set_delta(b, nl, a->table, &u, &none);
	}
	return rc;
}

int sw_fast_commit(struct sw_nl *nl, const char *table, struct sw_fast *f, uint32_t *genid,
		   char *err, size_t errlen)
{
	struct fast_fill a = { table, f };
	int rc;

	if (!f->n)
		return 0;
	/* stamped with the generation the kernel was last seen at; on
	 * success *genid is the one this commit made */
	rc = sw_commit(nl, SW_GEN_REQUIRE, genid, fill_adds, &a);
	if (rc) {
		snprintf(err, errlen, "cannot add the new link's elements: %s%s%s", strerror(-rc),
			 nl->errmsg[0] ? " (kernel: " : "", nl->errmsg[0] ? nl->errmsg : "");
		if (nl->errmsg[0])
			strncat(err, ")", errlen - strlen(err) - 1);
		if (nl->errobj[0])
			snprintf(err + strlen(err), errlen - strlen(err), ": %s", nl->errobj);
		return rc;
	}
	/* the kernel holds them: so does the desired model (a failure here
	 * leaves the model short, and the rebuild that follows puts it right) */
	for (size_t i = 0; i < f->n && !rc; i++)
		rc = insert_sorted(f->s[i].set, f->s[i].elems, f->s[i].n_elems);
	sw_fast_free(f);
	if (rc)
		snprintf(err, errlen, "cannot note the new link's elements: %s", strerror(-rc));
	return rc;
}
