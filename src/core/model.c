// SPDX-License-Identifier: GPL-2.0-or-later
/* model: storage for the table description shared by the desired and the
 * observed side (see include/core/model.h). No kernel I/O here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>
#include <libnftnl/udata.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "lib/addr.h"
#include "core/model.h"
#include "lib/sort.h"

void sw_model_init(struct sw_model *m, const char *table)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->table, sizeof(m->table), "%s", table);
}

static void set_free(struct sw_set *s)
{
	for (size_t i = 0; i < s->n_text; i++)
		free(s->text[i]);
	free(s->text);
	free(s->elems);
}

void sw_model_free(struct sw_model *m)
{
	for (size_t i = 0; i < m->n_sets; i++)
		set_free(&m->sets[i]);
	for (size_t i = 0; i < m->n_rules; i++) {
		free(m->rules[i].canon);
		free(m->rules[i].text);
		if (m->rules[i].nl)
			nftnl_rule_free(m->rules[i].nl);
	}
	free(m->rules);
	memset(m, 0, sizeof(*m));
}

int sw_model_copy(struct sw_model *to, const struct sw_model *from)
{
	*to = *from;
	to->rules = NULL;
	to->n_rules = to->cap_rules = 0;
	for (size_t i = 0; i < to->n_sets; i++) {
		struct sw_set *s = &to->sets[i];

		s->elems = NULL;
		s->n_elems = s->cap_elems = 0;
		s->text = NULL;
		s->n_text = s->cap_text = 0;
		s->text_concat = false;
	}
	for (size_t i = 0; i < from->n_sets; i++) {
		const struct sw_set *f = &from->sets[i];
		struct sw_set *s = &to->sets[i];

		if (!f->n_elems)
			continue;
		if (!(s->elems = malloc(f->n_elems * sizeof(*s->elems))))
			return -ENOMEM;
		memcpy(s->elems, f->elems, f->n_elems * sizeof(*s->elems));
		s->n_elems = s->cap_elems = f->n_elems;
	}
	if (!from->n_rules)
		return 0;
	if (!(to->rules = calloc(from->n_rules, sizeof(*to->rules))))
		return -ENOMEM;
	to->cap_rules = from->n_rules;
	for (size_t i = 0; i < from->n_rules; i++) {
		struct sw_rule *r = &to->rules[i];

		*r = from->rules[i];
		r->text = NULL;
		r->nl = NULL;
		r->handle = 0;
		if (!(r->canon = strdup(from->rules[i].canon)))
			return -ENOMEM;
		to->n_rules++;
	}
	return 0;
}

struct sw_chain *sw_model_add_chain(struct sw_model *m, const char *name)
{
	struct sw_chain *c;

	if (m->n_chains >= SW_MAX_CHAINS)
		return NULL;
	c = &m->chains[m->n_chains++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	return c;
}

struct sw_set *sw_model_add_set(struct sw_model *m, const char *name)
{
	struct sw_set *s;

	if (m->n_sets >= SW_MAX_SETS)
		return NULL;
	s = &m->sets[m->n_sets++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

int sw_model_add_counter(struct sw_model *m, const char *name)
{
	if (m->n_counters >= SW_MAX_OBJS)
		return -ENOSPC;
	snprintf(m->counters[m->n_counters], SW_NAME_MAX, "%s", name);
	m->counter_pkts[m->n_counters] = 0;
	m->counter_bytes[m->n_counters] = 0;
	m->n_counters++;
	return 0;
}

int sw_model_add_rule(struct sw_model *m, const char *chain, const char *tag,
		      const char *canon, const char *text, struct nftnl_rule *nl)
{
	struct sw_rule *r;

	if (m->n_rules == m->cap_rules) {
		size_t cap = m->cap_rules ? m->cap_rules * 2 : 32;
		struct sw_rule *n = realloc(m->rules, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->rules = n;
		m->cap_rules = cap;
	}
	r = &m->rules[m->n_rules];
	memset(r, 0, sizeof(*r));
	snprintf(r->chain, sizeof(r->chain), "%s", chain);
	snprintf(r->tag, sizeof(r->tag), "%s", tag ? tag : "");
	r->canon = strdup(canon ? canon : "");
	r->text = text ? strdup(text) : NULL;
	if (!r->canon || (text && !r->text)) {
		free(r->canon);
		free(r->text);
		return -ENOMEM;
	}
	r->nl = nl;
	m->n_rules++;
	return 0;
}

struct sw_set *sw_model_find_set(const struct sw_model *m, const char *name)
{
	for (size_t i = 0; i < m->n_sets; i++)
		if (!strcmp(m->sets[i].name, name))
			return (struct sw_set *)&m->sets[i];
	return NULL;
}

struct sw_chain *sw_model_find_chain(const struct sw_model *m, const char *name)
{
	for (size_t i = 0; i < m->n_chains; i++)
		if (!strcmp(m->chains[i].name, name))
			return (struct sw_chain *)&m->chains[i];
	return NULL;
}

int sw_model_find_counter(const struct sw_model *m, const char *name)
{
	for (size_t i = 0; i < m->n_counters; i++)
		if (!strcmp(m->counters[i], name))
			return (int)i;
	return -1;
}

int sw_set_reserve(struct sw_set *s, size_t n)
{
	struct sw_elem *e;

	if (n > SIZE_MAX / sizeof(*e))
		return -ENOMEM;
	if (n > s->cap_elems) {
		if (!(e = realloc(s->elems, n * sizeof(*e))))
			return -ENOMEM;
		s->elems = e;
		s->cap_elems = n;
	}
	return 0;
}

int sw_set_add_elem(struct sw_set *s, const struct sw_elem *e)
{
	if (s->n_elems == s->cap_elems) {
		size_t cap = s->cap_elems ? s->cap_elems * 2 : 16;
		struct sw_elem *n = realloc(s->elems, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->elems = n;
		s->cap_elems = cap;
	}
	s->elems[s->n_elems++] = *e;
	return 0;
}

int sw_set_add_text(struct sw_set *s, const char *text)
{
	char *t;

	if (s->n_text == s->cap_text) {
		size_t cap = s->cap_text ? s->cap_text * 2 : 16;
		char **n = realloc(s->text, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->text = n;
		s->cap_text = cap;
	}
	t = strdup(text);
	if (!t)
		return -ENOMEM;
	s->text[s->n_text++] = t;
	return 0;
}

int sw_elem_order(const struct sw_elem *x, const struct sw_elem *y, size_t key_len)
{
	size_t len = key_len < SW_KEY_MAX ? key_len : SW_KEY_MAX;
	int r = memcmp(x->key, y->key, len);

	if (r)
		return r;
	/* an interval's END before a start with the same key: the order
	 * nft sends touching ranges in, and the one the kernel accepts */
	if (x->flags != y->flags)
		return x->flags > y->flags ? -1 : 1;
	if (x->has_key_end != y->has_key_end)
		return x->has_key_end ? 1 : -1;
	return x->has_key_end ? memcmp(x->key_end, y->key_end, len) : 0;
}

static int elem_cmp(const void *a, const void *b, void *arg)
{
	return sw_elem_order(a, b, *(const size_t *)arg);
}

void sw_elems_sort(struct sw_elem *v, size_t n, size_t key_len)
{
	sw_sort(v, n, sizeof(*v), elem_cmp, &key_len);
}

/* to's elements become a copy of from's (to's entry texts go: they were
 * the old elements'). 0 or -ENOMEM (to unchanged). */
int sw_set_copy_elems(struct sw_set *to, const struct sw_set *from)
{
	struct sw_elem *v = NULL;

	if (to == from)
		return 0;
	if (from->n_elems && !(v = malloc(from->n_elems * sizeof(*v))))
		return -ENOMEM;
	if (from->n_elems)
		memcpy(v, from->elems, from->n_elems * sizeof(*v));
	for (size_t i = 0; i < to->n_text; i++)
		free(to->text[i]);
	free(to->text);
	to->text = NULL;
	to->n_text = to->cap_text = 0;
	free(to->elems);
	to->elems = v;
	to->n_elems = to->cap_elems = from->n_elems;
	return 0;
}

void sw_set_sort(struct sw_set *s)
{
	sw_elems_sort(s->elems, s->n_elems, s->key_len);
}

/* Append one key field (an address, a name, a protocol or a port). */
static size_t field_format(const struct sw_set *s, const uint8_t *k, uint32_t flen,
			   unsigned field, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	int n;

	if (s->key_type == SW_TYPE_IFNAME) {
		char name[17];

		memcpy(name, k, 16);
		name[16] = '\0';
		for (size_t i = 0; name[i]; i++)
			if (name[i] < 0x20 || name[i] > 0x7e)
				name[i] = '?';
		n = snprintf(buf, len, "\"%s\"", name);
	} else if (s->key_type == SW_TYPE_UID && flen == 4) {
		uint32_t uid;

		memcpy(&uid, k, sizeof(uid));
		n = snprintf(buf, len, "uid %u", uid);
	} else if (s->key_type == SW_TYPE_CGROUPV2 && flen == 8) {
		uint64_t id;

		memcpy(&id, k, sizeof(id));
		n = snprintf(buf, len, "cgroup id %llu", (unsigned long long)id);
	} else if (flen == 4 && field == 0) {
		n = snprintf(buf, len, "%s", inet_ntop(AF_INET, k, a, sizeof(a)));
	} else if (flen == 16) {
		n = snprintf(buf, len, "%s", inet_ntop(AF_INET6, k, a, sizeof(a)));
	} else if (flen == 1) {
		n = snprintf(buf, len, "%u", k[0]);
	} else if (flen == 2) {
		n = snprintf(buf, len, "%u", (unsigned)(k[0] << 8 | k[1]));
	} else {
		n = snprintf(buf, len, "0x%02x%02x%02x%02x", k[0], k[1], k[2], k[3]);
	}
	return n < 0 ? 0 : (size_t)n;
}

static size_t key_format(const struct sw_set *s, const uint8_t *k, char *buf, size_t len)
{
	size_t off = 0, pos = 0;

	if (s->n_concat == 0)
		return field_format(s, k, s->key_len, 0, buf, len);
	for (unsigned f = 0; f < s->n_concat && off < len; f++) {
		uint32_t fl = s->concat[f];

		if (f)
			off += (size_t)snprintf(buf + off, len - off, " . ");
		if (off < len)
			off += field_format(s, k + pos, fl, f, buf + off, len - off);
		pos += (fl + 3) & ~3u;
	}
	return off;
}

size_t sw_set_n_entries(const struct sw_set *s)
{
	return s->n_text ? s->n_text : s->text_concat ? s->n_elems : 0;
}

int sw_set_entry_text(const struct sw_set *s, size_t i, char *buf, size_t len)
{
	const struct sw_elem *e;
	struct sw_prefix p = { 0 };
	char a[SW_ADDR_STRLEN];
	size_t alen, bits = 0;
	uint16_t port;
	int n;

	if (s->n_text)
		return i < s->n_text && snprintf(buf, len, "%s", s->text[i]) < (int)len ? 0 : -ENOSPC;
	if (!s->text_concat || i >= s->n_elems || s->n_concat != 3 ||
	    (s->concat[0] != 4 && s->concat[0] != 16))
		return -EINVAL;
	e = &s->elems[i];
	alen = s->concat[0];
	/* an interval's prefix length: the bits its start and end share */
	if (e->has_key_end)
		while (bits < alen * 8 && !((e->key[bits / 8] ^ e->key_end[bits / 8]) &
					    (0x80 >> (bits % 8))))
			bits++;
	else
		bits = alen * 8;
	p.family = alen == 4 ? AF_INET : AF_INET6;
	p.len = (uint8_t)bits;
	memcpy(p.addr, e->key, alen);
	memcpy(&port, e->key + alen + 4, 2);
	if (sw_prefix_format(&p, a, sizeof(a)))
		return -EINVAL;
	n = snprintf(buf, len, "%s . %s . %u", a, e->key[alen] == IPPROTO_TCP ? "tcp" : "udp",
		     ntohs(port));
	return n >= 0 && (size_t)n < len ? 0 : -ENOSPC;
}

int sw_elem_format(const struct sw_set *s, const struct sw_elem *e, char *buf, size_t len)
{
	size_t off;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	off = key_format(s, e->key, buf, len);
	if (e->has_key_end && off < len) {
		off += (size_t)snprintf(buf + off, len - off, " - ");
		if (off < len)
			off += key_format(s, e->key_end, buf + off, len - off);
	}
	if ((e->flags & 1) && off < len)
		snprintf(buf + off, len - off, " [end]");
	return 0;
}

static int expr_cb(struct nftnl_expr *e, void *data)
{
	char **out = data;
	char tmp[1024];
	size_t have = *out ? strlen(*out) : 0;
	char *n;
	int l;

	l = nftnl_expr_snprintf(tmp, sizeof(tmp), e, NFTNL_OUTPUT_DEFAULT, 0);
	if (l < 0)
		return -1;
	/* libnftnl returns the length it wanted, not what fit: a hostile
	 * rule (a long log prefix) prints past tmp */
	if ((size_t)l >= sizeof(tmp))
		l = (int)sizeof(tmp) - 1;
	/* a dynset's zero timeout is the set's own (the kernel dumps it
	 * whether or not it was sent; it refuses one for a set without
	 * timeouts): one form for both */
	if (!strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_NAME), "dynset")) {
		char *z = strstr(tmp, "timeout 0ms ");

		if (z) {
			memmove(z, z + 12, strlen(z + 12) + 1);
			l = (int)strlen(tmp);
		}
	}
	/* libnftnl prints "name args "; keep the "[ name args ]" form */
	while (l > 0 && tmp[l - 1] == ' ')
		tmp[--l] = '\0';
	n = realloc(*out, have + (size_t)l + 8 + strlen(nftnl_expr_get_str(e, NFTNL_EXPR_NAME)));
	if (!n)
		return -1;
	*out = n;
	sprintf(n + have, "%s[ %s %s ]", have ? " " : "",
		nftnl_expr_get_str(e, NFTNL_EXPR_NAME), tmp);
	return 0;
}

char *sw_rule_canon(const struct nftnl_rule *r)
{
	char *out = NULL;

	if (nftnl_expr_foreach((struct nftnl_rule *)r, expr_cb, &out) < 0) {
		free(out);
		return NULL;
	}
	return out ? out : strdup("");
}

/* Rule user data is a TLV list (type byte, length byte, value) that any
 * process able to add a rule to the table can shape; libnftnl's
 * nftnl_udata_parse() trusts each length byte, so walk it here: a header
 * and its value must both fit in what is left, and the comment must end
 * in its own NUL. A malformed list has no comment. */
#define UDATA_RULE_COMMENT 0    /* NFTNL_UDATA_RULE_COMMENT */

const char *sw_udata_comment(const uint8_t *ud, size_t len)
{
	const char *comment = NULL;
	size_t off = 0;

	while (off < len) {
		uint8_t type, vlen;

		if (len - off < 2)
			return NULL;
		type = ud[off];
		vlen = ud[off + 1];
		if ((size_t)vlen > len - off - 2)
			return NULL;
		if (type == UDATA_RULE_COMMENT && vlen > 0 && ud[off + 2 + vlen - 1] == '\0')
			comment = (const char *)ud + off + 2;
		off += 2 + (size_t)vlen;
	}
	return comment;
}

void sw_rule_tag(const struct nftnl_rule *r, char *tag, size_t len)
{
	const char *comment;
	const void *ud;
	uint32_t udlen = 0;

	tag[0] = '\0';
	if (!nftnl_rule_is_set(r, NFTNL_RULE_USERDATA))
		return;
	ud = nftnl_rule_get_data(r, NFTNL_RULE_USERDATA, &udlen);
	if (!ud || !udlen || !(comment = sw_udata_comment(ud, udlen)))
		return;
	snprintf(tag, len, "%s", comment);
}

bool sw_chain_same_hook(const struct sw_chain *a, const struct sw_chain *b)
{
	return a->base == b->base && (!a->base || (a->hook == b->hook && a->prio == b->prio &&
						   !strcmp(a->type, b->type) &&
						   !strcmp(a->dev, b->dev)));
}

bool sw_set_same_shape(const struct sw_set *a, const struct sw_set *b)
{
	return a->key_type == b->key_type && a->key_len == b->key_len && a->flags == b->flags &&
	       a->timeout_ms == b->timeout_ms && a->size == b->size;
}

bool sw_elem_same(const struct sw_elem *a, const struct sw_elem *b, size_t key_len)
{
	size_t len = key_len < SW_KEY_MAX ? key_len : SW_KEY_MAX;

	return a->flags == b->flags && a->has_key_end == b->has_key_end &&
	       !memcmp(a->key, b->key, len) &&
	       (!a->has_key_end || !memcmp(a->key_end, b->key_end, len));
}

bool sw_rule_same(const struct sw_rule *a, const struct sw_rule *b)
{
	return !strcmp(a->tag, b->tag) && !strcmp(a->canon, b->canon);
}
