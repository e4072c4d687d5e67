// SPDX-License-Identifier: GPL-2.0-or-later
/* gate: which of the fast path's two buffers is live (include/core/gate.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>

#include "core/gate.h"

static const char *const sel_names[2] = { SW_GATE_SEL_A, SW_GATE_SEL_B };

void sw_gate_set_name(char *buf, size_t len, int v6, enum sw_gate_buf which)
{
	snprintf(buf, len, SW_GATE_PREFIX "%c_%c", v6 ? '6' : '4', which == SW_GATE_B ? 'b' : 'a');
}

enum sw_gate_buf sw_gate_live(const struct sw_model *m)
{
	const struct sw_set *a = sw_model_find_set(m, SW_GATE_SEL_A);
	const struct sw_set *b = sw_model_find_set(m, SW_GATE_SEL_B);
	bool on_a = a && a->n_elems, on_b = b && b->n_elems;

	if (on_a == on_b)
		return SW_GATE_NONE;
	return on_a ? SW_GATE_A : SW_GATE_B;
}

bool sw_gate_buffer(const char *name)
{
	char n[SW_NAME_MAX];

	for (int x = 0; x < 4; x++) {
		sw_gate_set_name(n, sizeof(n), x & 1, x & 2 ? SW_GATE_B : SW_GATE_A);
		if (!strcmp(n, name))
			return true;
	}
	return false;
}

/* does have's buffer `which` hold the elements of want's sets d[0..1]? */
static bool holds(const struct sw_model *have, enum sw_gate_buf which, struct sw_set *const d[2])
{
	char n[SW_NAME_MAX];

	for (int v6 = 0; v6 < 2; v6++) {
		const struct sw_set *h;

		sw_gate_set_name(n, sizeof(n), v6, which);
		h = sw_model_find_set(have, n);
		if (!h || !sw_set_same_shape(h, d[v6]) || h->n_elems != d[v6]->n_elems)
			return false;
		for (size_t i = 0; i < h->n_elems; i++)
			if (!sw_elem_same(&h->elems[i], &d[v6]->elems[i], h->key_len))
				return false;
	}
	return true;
}

int sw_gate_select(struct sw_model *m, enum sw_gate_buf which)
{
	static const uint8_t protos[2] = { NFPROTO_IPV4, NFPROTO_IPV6 };
	static const char *const texts[2] = { "ipv4", "ipv6" };

	for (int i = 0; i < 2; i++) {
		struct sw_set *s = sw_model_find_set(m, sel_names[i]);
		struct sw_set empty = { .elems = NULL };
		int rc;

		if (!s)
			return -ENOENT;
		if ((rc = sw_set_copy_elems(s, &empty)))
			return rc;
		for (int p = 0; p < 2 && (int)which == i; p++) {
			struct sw_elem e = { .key = { protos[p] } };

			if ((rc = sw_set_add_elem(s, &e)) || (rc = sw_set_add_text(s, texts[p])))
				return rc;
		}
	}
	return 0;
}

int sw_gate_settle(struct sw_model *want, const struct sw_model *have, struct sw_gate_plan *plan)
{
	enum sw_gate_buf live = sw_gate_live(want), hlive, target;
	struct sw_set *d[2], *idle[2], *t[2];
	struct sw_set copy[2] = { { .elems = NULL } };
	char n[SW_NAME_MAX];
	int rc = 0;

	plan->target = SW_GATE_NONE;
	plan->phase1 = false;
	if (live == SW_GATE_NONE)
		return 0;       /* no gate (netdev), or not a desired model */
	for (int v6 = 0; v6 < 2; v6++) {
		sw_gate_set_name(n, sizeof(n), v6, live);
		d[v6] = sw_model_find_set(want, n);
		sw_gate_set_name(n, sizeof(n), v6, live == SW_GATE_A ? SW_GATE_B : SW_GATE_A);
		idle[v6] = sw_model_find_set(want, n);
		if (!d[v6] || !idle[v6])
			return 0;
	}
	hlive = have && have->has_table ? sw_gate_live(have) : SW_GATE_NONE;
	if (hlive != SW_GATE_NONE && holds(have, hlive, d))
		target = hlive;
	else if (hlive != SW_GATE_NONE)
		target = hlive == SW_GATE_A ? SW_GATE_B : SW_GATE_A;
	else if (have && have->has_table && holds(have, SW_GATE_B, d) && !holds(have, SW_GATE_A, d))
		target = SW_GATE_B;
	else
		target = SW_GATE_A;
	plan->target = target;
	if (have && have->has_table && !holds(have, target, d)) {
		/* phase 1 only where have has the target's sets: a set made in
		 * the same batch as the flip only gains elements */
		for (int v6 = 0; v6 < 2; v6++) {
			sw_gate_set_name(n, sizeof(n), v6, target);
			plan->phase1 |= sw_model_find_set(have, n) != NULL;
		}
	}
	/* want's gate into the target buffer, have's elements into the other */
	for (int v6 = 0; v6 < 2 && !rc; v6++) {
		copy[v6].key_len = d[v6]->key_len;
		rc = sw_set_copy_elems(&copy[v6], d[v6]);
	}
	for (int v6 = 0; v6 < 2 && !rc; v6++) {
		const struct sw_set *h;
		struct sw_set *other;

		sw_gate_set_name(n, sizeof(n), v6, target);
		t[v6] = sw_model_find_set(want, n);
		other = t[v6] == d[v6] ? idle[v6] : d[v6];
		if ((rc = sw_set_copy_elems(t[v6], &copy[v6])))
			break;
		h = have && have->has_table ? sw_model_find_set(have, other->name) : NULL;
		if (h && sw_set_same_shape(h, other))
			rc = sw_set_copy_elems(other, h);
	}
	if (!rc)
		rc = sw_gate_select(want, target);
	for (int v6 = 0; v6 < 2; v6++)
		free(copy[v6].elems);
	return rc;
}
