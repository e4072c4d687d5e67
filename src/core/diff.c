// SPDX-License-Identifier: GPL-2.0-or-later
/* diff: compare two models object by object. Ownership flags are the
 * daemon's business and not compared; the dormant flag is (a dormant
 * table filters nothing), and so is the table's marker. Rules are compared per chain, in order, by
 * their canonical expression string and tag; handles are ignored. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/nf_tables.h>

#include "core/diff.h"
#include "lib/json.h"

static int add(struct sw_diff *d, enum sw_diff_kind k, const char *object,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int add(struct sw_diff *d, enum sw_diff_kind k, const char *object,
	       const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct sw_diff_item *n = realloc(d->items, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->items = n;
		d->cap = cap;
	}
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	d->items[d->n].kind = k;
	d->items[d->n].object = object;
	d->items[d->n].desc = s;
	d->items[d->n].set = NULL;
	d->n++;
	return 0;
}

const char *sw_diff_kind_name(enum sw_diff_kind k)
{
	return k == SW_DIFF_MISSING ? "missing" : k == SW_DIFF_EXTRA ? "extra" : "changed";
}

/* "inet", "netdev" for the parents' table, "bridge" for the ports' bindings */
static const char *fam_word(const struct sw_model *m)
{
	return sw_model_family(m) == 5 /* NFPROTO_NETDEV */ ? "netdev" :
	       sw_model_family(m) == 7 /* NFPROTO_BRIDGE */ ? "bridge" : "inet";
}

static int diff_chains(const struct sw_model *w, const struct sw_model *h, struct sw_diff *d)
{
	int err = 0;

	for (size_t i = 0; i < w->n_chains && !err; i++) {
		const struct sw_chain *a = &w->chains[i];
		const struct sw_chain *b = sw_model_find_chain(h, a->name);

		if (!b)
			err = add(d, SW_DIFF_MISSING, "chain", "chain %s", a->name);
		else if (!sw_chain_same_hook(a, b) || (a->base && a->policy != b->policy))
			err = add(d, SW_DIFF_CHANGED, "chain",
				  "chain %s (hook %u priority %d policy %s, want hook %u priority %d policy %s)",
				  a->name, b->hook, b->prio, b->policy == 1 ? "accept" : "drop",
				  a->hook, a->prio, a->policy == 1 ? "accept" : "drop");
	}
	for (size_t i = 0; i < h->n_chains && !err; i++)
		if (!sw_model_find_chain(w, h->chains[i].name))
			err = add(d, SW_DIFF_EXTRA, "chain", "chain %s", h->chains[i].name);
	return err;
}

static int diff_counters(const struct sw_model *w, const struct sw_model *h, struct sw_diff *d)
{
	int err = 0;

	for (size_t i = 0; i < w->n_counters && !err; i++)
		if (sw_model_find_counter(h, w->counters[i]) < 0)
			err = add(d, SW_DIFF_MISSING, "counter", "counter %s", w->counters[i]);
	for (size_t i = 0; i < h->n_counters && !err; i++)
		if (sw_model_find_counter(w, h->counters[i]) < 0)
			err = add(d, SW_DIFF_EXTRA, "counter", "counter %s", h->counters[i]);
	return err;
}

/* Both element lists are sorted: walk them together. */
static int diff_elems(const struct sw_set *a, const struct sw_set *b, struct sw_diff *d)
{
	size_t i = 0, j = 0, len = a->key_len < SW_KEY_MAX ? a->key_len : SW_KEY_MAX;
	char text[256];
	int err = 0;

	while ((i < a->n_elems || j < b->n_elems) && !err) {
		int c;

		if (i < a->n_elems && j < b->n_elems && sw_elem_same(&a->elems[i], &b->elems[j], a->key_len)) {
			i++, j++;
			continue;
		}
		if (i >= a->n_elems)
			c = 1;
		else if (j >= b->n_elems)
			c = -1;
		else {
			c = memcmp(a->elems[i].key, b->elems[j].key, len);
			if (!c)
				c = a->elems[i].flags > b->elems[j].flags ? -1 : 1;
		}
		if (c < 0) {
			sw_elem_format(a, &a->elems[i++], text, sizeof(text));
			err = add(d, SW_DIFF_MISSING, "element", "set %s element %s", a->name, text);
		} else {
			sw_elem_format(a, &b->elems[j++], text, sizeof(text));
			err = add(d, SW_DIFF_EXTRA, "element", "set %s element %s", a->name, text);
		}
		if (!err)
			d->items[d->n - 1].set = a->name;
	}
	return err;
}

static int diff_sets(const struct sw_model *w, const struct sw_model *h, struct sw_diff *d)
{
	int err = 0;

	for (size_t i = 0; i < w->n_sets && !err; i++) {
		const struct sw_set *a = &w->sets[i];
		const struct sw_set *b = sw_model_find_set(h, a->name);

		if (!b)
			err = add(d, SW_DIFF_MISSING, "set", "set %s", a->name);
		else if (!sw_set_same_shape(a, b))
			err = add(d, SW_DIFF_CHANGED, "set", "set %s (type/flags differ)", a->name);
		else if (!sw_set_dynamic(a))
			err = diff_elems(a, b, d);
	}
	for (size_t i = 0; i < h->n_sets && !err; i++)
		if (!sw_model_find_set(w, h->sets[i].name))
			err = add(d, SW_DIFF_EXTRA, "set", "set %s", h->sets[i].name);
	return err;
}

static const char *rule_name(const struct sw_rule *r, char *buf, size_t len)
{
	if (r->text)
		snprintf(buf, len, "%s", r->text);
	else if (r->tag[0])
		snprintf(buf, len, "%s (comment \"%s\") handle %llu", r->canon, r->tag,
			 (unsigned long long)r->handle);
	else
		snprintf(buf, len, "%s handle %llu", r->canon, (unsigned long long)r->handle);
	return buf;
}

/* Rules of one chain, in order. */
static int diff_chain_rules(const struct sw_model *w, const struct sw_model *h,
			    const char *chain, struct sw_diff *d)
{
	const struct sw_rule *a[256], *b[256];
	size_t na = 0, nb = 0;
	bool used_b[256] = { false }, in_order = true;
	char text[1024];
	int err = 0;

	for (size_t i = 0; i < w->n_rules && na < 256; i++)
		if (!strcmp(w->rules[i].chain, chain))
			a[na++] = &w->rules[i];
	for (size_t i = 0; i < h->n_rules && nb < 256; i++)
		if (!strcmp(h->rules[i].chain, chain))
			b[nb++] = &h->rules[i];
	if (na == nb) {
		size_t i;

		for (i = 0; i < na && sw_rule_same(a[i], b[i]); i++)
			;
		if (i == na)
			return 0;
	}
	for (size_t i = 0; i < na && !err; i++) {
		size_t j;

		for (j = 0; j < nb && (used_b[j] || !sw_rule_same(a[i], b[j])); j++)
			;
		if (j == nb) {
			err = add(d, SW_DIFF_MISSING, "rule", "rule in chain %s: %s", chain,
				  rule_name(a[i], text, sizeof(text)));
			in_order = false;
		} else {
			used_b[j] = true;
		}
	}
	for (size_t j = 0; j < nb && !err; j++)
		if (!used_b[j]) {
			err = add(d, SW_DIFF_EXTRA, "rule", "rule in chain %s: %s", chain,
				  rule_name(b[j], text, sizeof(text)));
			in_order = false;
		}
	if (!err && in_order)
		err = add(d, SW_DIFF_CHANGED, "rule", "rule order in chain %s", chain);
	return err;
}

static int diff_rules(const struct sw_model *w, const struct sw_model *h, struct sw_diff *d)
{
	int err = 0;

	for (size_t i = 0; i < w->n_chains && !err; i++)
		err = diff_chain_rules(w, h, w->chains[i].name, d);
	/* rules in chains we do not have are reported with the extra chain */
	return err;
}

int sw_diff(const struct sw_model *w, const struct sw_model *h, struct sw_diff *d)
{
	int err;

	memset(d, 0, sizeof(*d));
	if (!h->has_table)
		return add(d, SW_DIFF_MISSING, "table", "table %s %s", fam_word(w), w->table);
	/* the marker cannot be added to a live table: repaired by replacing
	 * it (reconcile.c, which refuses a table that is not ours at all) */
	if (h->table_unmarked && !w->table_unmarked)
		if ((err = add(d, SW_DIFF_CHANGED, "table", "table %s %s (no comment \"%s\": not marked as sandwall's)",
			       fam_word(w), w->table, SW_TABLE_MARKER)))
			return err;
	if ((w->table_flags & NFT_TABLE_F_DORMANT) != (h->table_flags & NFT_TABLE_F_DORMANT))
		if ((err = add(d, SW_DIFF_CHANGED, "table", "table %s %s (dormant flag)", fam_word(w), w->table)))
			return err;
	if ((err = diff_chains(w, h, d)) || (err = diff_counters(w, h, d)) ||
	    (err = diff_sets(w, h, d)) || (err = diff_rules(w, h, d)))
		return err;
	return 0;
}

void sw_diff_free(struct sw_diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->items[i].desc);
	free(d->items);
	memset(d, 0, sizeof(*d));
}

void sw_diff_print(const struct sw_diff *d, FILE *f)
{
	for (size_t i = 0; i < d->n; i++)
		fprintf(f, "%s %s\n", sw_diff_kind_name(d->items[i].kind), d->items[i].desc);
}

void sw_diff_json(const struct sw_diff *d, struct sw_jw *w, const char *key)
{
	sw_jw_arr(w, key);
	for (size_t i = 0; i < d->n; i++) {
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "kind", sw_diff_kind_name(d->items[i].kind));
		sw_jw_str(w, "object", d->items[i].object);
		sw_jw_str(w, "what", d->items[i].desc);
		sw_jw_end(w);
	}
	sw_jw_end(w);
}

void sw_diff_summary(const struct sw_diff *d, char *buf, size_t len)
{
	size_t n[3] = { 0, 0, 0 };

	if (d->n == 1) {
		snprintf(buf, len, "%s %s", sw_diff_kind_name(d->items[0].kind), d->items[0].desc);
		return;
	}
	for (size_t i = 0; i < d->n; i++)
		n[d->items[i].kind]++;
	snprintf(buf, len, "%zu missing, %zu extra, %zu changed; first: %s %s", n[0], n[1], n[2],
		 d->n ? sw_diff_kind_name(d->items[0].kind) : "", d->n ? d->items[0].desc : "");
}
