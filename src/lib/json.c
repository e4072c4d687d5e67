// SPDX-License-Identifier: GPL-2.0-or-later
/* json: one writer, one strict reader (see include/lib/json.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

/* ---- writer ------------------------------------------------------------ */

void sw_jw_init(struct sw_jw *w)
{
	memset(w, 0, sizeof(*w));
	w->first[0] = true;
}

void sw_jw_free(struct sw_jw *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

static void put(struct sw_jw *w, const char *s, size_t n)
{
	if (w->err)
		return;
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		char *b;

		while (w->len + n + 1 > cap)
			cap *= 2;
		if (!(b = realloc(w->buf, cap))) {
			w->err = -ENOMEM;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void puts_(struct sw_jw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void putf(struct sw_jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct sw_jw *w, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		w->err = w->err ? w->err : -EINVAL;
	else
		put(w, tmp, (size_t)n);
}

/* A JSON string: quotes, backslash and control characters escaped; bytes
 * >= 0x80 are passed through (the caller's text is UTF-8 or opaque). */
static void put_string(struct sw_jw *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	put(w, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[7] = "\\u00";

		switch (c) {
		case '"':  put(w, "\\\"", 2); break;
		case '\\': put(w, "\\\\", 2); break;
		case '\n': put(w, "\\n", 2); break;
		case '\r': put(w, "\\r", 2); break;
		case '\t': put(w, "\\t", 2); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				e[4] = hex[c >> 4];
				e[5] = hex[c & 15];
				put(w, e, 6);
			} else {
				put(w, (const char *)&c, 1);
			}
		}
	}
	put(w, "\"", 1);
}

/* The separator and the key before a value at the current level. */
static void member(struct sw_jw *w, const char *key)
{
	unsigned d = w->depth;

	if (w->err)
		return;
	if (d == 0 ? (!w->first[0] || key) : (w->in_obj[d] != (key != NULL))) {
		w->err = -EINVAL;       /* a key where none belongs, or none where one must be */
		return;
	}
	if (!w->first[d])
		put(w, ",", 1);
	w->first[d] = false;
	if (key) {
		put_string(w, key, strlen(key));
		put(w, ":", 1);
	}
}

static void open_(struct sw_jw *w, const char *key, bool obj)
{
	member(w, key);
	if (w->err)
		return;
	if (w->depth + 1 >= SW_JSON_DEPTH) {
		w->err = -EINVAL;
		return;
	}
	w->depth++;
	w->first[w->depth] = true;
	w->in_obj[w->depth] = obj;
	put(w, obj ? "{" : "[", 1);
}

void sw_jw_obj(struct sw_jw *w, const char *key) { open_(w, key, true); }
void sw_jw_arr(struct sw_jw *w, const char *key) { open_(w, key, false); }

void sw_jw_end(struct sw_jw *w)
{
	if (w->err)
		return;
	if (w->depth == 0) {
		w->err = -EINVAL;
		return;
	}
	put(w, w->in_obj[w->depth] ? "}" : "]", 1);
	w->depth--;
}

void sw_jw_strn(struct sw_jw *w, const char *key, const char *v, size_t n)
{
	member(w, key);
	if (!w->err)
		put_string(w, v, n);
}

void sw_jw_str(struct sw_jw *w, const char *key, const char *v)
{
	if (!v) {
		sw_jw_null(w, key);
		return;
	}
	sw_jw_strn(w, key, v, strlen(v));
}

void sw_jw_u64(struct sw_jw *w, const char *key, uint64_t v)
{
	member(w, key);
	putf(w, "%" PRIu64, v);
}

void sw_jw_i64(struct sw_jw *w, const char *key, int64_t v)
{
	member(w, key);
	putf(w, "%" PRId64, v);
}

void sw_jw_dbl(struct sw_jw *w, const char *key, double v)
{
	member(w, key);
	if (isfinite(v))
		putf(w, "%.6f", v);
	else
		puts_(w, "null");
}

void sw_jw_bool(struct sw_jw *w, const char *key, bool v)
{
	member(w, key);
	puts_(w, v ? "true" : "false");
}

void sw_jw_null(struct sw_jw *w, const char *key)
{
	member(w, key);
	puts_(w, "null");
}

void sw_jw_value(struct sw_jw *w, const char *key, const struct sw_jv *v)
{
	switch (v->type) {
	case SW_JNULL: sw_jw_null(w, key); break;
	case SW_JBOOL: sw_jw_bool(w, key, v->b); break;
	case SW_JSTR: sw_jw_str(w, key, v->str); break;
	case SW_JNUM:
		if (v->num >= -9223372036854775808.0 && v->num < 9223372036854775808.0 &&
		    v->num == (double)(int64_t)v->num)
			sw_jw_i64(w, key, (int64_t)v->num);
		else
			sw_jw_dbl(w, key, v->num);
		break;
	case SW_JARR:
	case SW_JOBJ:
		if (v->type == SW_JOBJ)
			sw_jw_obj(w, key);
		else
			sw_jw_arr(w, key);
		for (size_t i = 0; i < v->n; i++)
			sw_jw_value(w, v->type == SW_JOBJ ? v->keys[i] : NULL, &v->vals[i]);
		sw_jw_end(w);
		break;
	}
}

const char *sw_jw_text(const struct sw_jw *w)
{
	return w->err || w->depth || !w->buf ? NULL : w->buf;
}

int sw_jw_print(const struct sw_jw *w, FILE *f)
{
	const char *t = sw_jw_text(w);

	if (!t)
		return w->err ? w->err : -EINVAL;
	return fprintf(f, "%s\n", t) < 0 ? -EIO : 0;
}

void sw_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* ---- reader ------------------------------------------------------------ */

struct rd {
	const char *s;
	size_t len, pos;
	int err;
};

static void ws(struct rd *r)
{
	while (r->pos < r->len && strchr(" \t\r\n", r->s[r->pos]) && r->s[r->pos])
		r->pos++;
}

static int bad(struct rd *r, int err)
{
	if (!r->err)
		r->err = err;
	return r->err;
}

static int hexdig(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void utf8(char *o, size_t *n, uint32_t cp)
{
	if (cp < 0x80) {
		o[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		o[(*n)++] = (char)(0xc0 | cp >> 6);
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		o[(*n)++] = (char)(0xe0 | cp >> 12);
		o[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		o[(*n)++] = (char)(0xf0 | cp >> 18);
		o[(*n)++] = (char)(0x80 | (cp >> 12 & 0x3f));
		o[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

static int u4(struct rd *r, uint32_t *cp)
{
	*cp = 0;
	if (r->len - r->pos < 4)
		return bad(r, -EINVAL);
	for (int i = 0; i < 4; i++) {
		int h = hexdig(r->s[r->pos++]);

		if (h < 0)
			return bad(r, -EINVAL);
		*cp = *cp << 4 | (uint32_t)h;
	}
	return 0;
}

/* A string at r->pos (the opening quote); a NUL inside is refused. */
static int string(struct rd *r, char **out)
{
	size_t start = ++r->pos, n = 0;
	char *o;

	/* the decoded text is never longer than the source */
	while (r->pos < r->len && r->s[r->pos] != '"') {
		if (r->s[r->pos] == '\\')
			r->pos++;
		r->pos++;
	}
	if (r->pos >= r->len)
		return bad(r, -EINVAL);
	if (!(o = malloc(r->pos - start + 1)))
		return bad(r, -ENOMEM);
	for (size_t i = start; i < r->pos; ) {
		unsigned char c = (unsigned char)r->s[i++];
		uint32_t cp, lo;

		if (c < 0x20)
			goto fail;
		if (c != '\\') {
			o[n++] = (char)c;
			continue;
		}
		switch (r->s[i++]) {
		case '"': o[n++] = '"'; break;
		case '\\': o[n++] = '\\'; break;
		case '/': o[n++] = '/'; break;
		case 'b': o[n++] = '\b'; break;
		case 'f': o[n++] = '\f'; break;
		case 'n': o[n++] = '\n'; break;
		case 'r': o[n++] = '\r'; break;
		case 't': o[n++] = '\t'; break;
		case 'u': {
			struct rd sub = { r->s, r->pos, i, 0 };

			if (u4(&sub, &cp))
				goto fail;
			i = sub.pos;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (i + 6 > r->pos || r->s[i] != '\\' || r->s[i + 1] != 'u')
					goto fail;
				sub.pos = i + 2;
				if (u4(&sub, &lo) || lo < 0xdc00 || lo > 0xdfff)
					goto fail;
				i = sub.pos;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				goto fail;
			}
			if (cp == 0 || n + 4 > r->pos - start)
				goto fail;      /* no NUL; and no room (cannot happen) */
			utf8(o, &n, cp);
			break;
		}
		default:
			goto fail;
		}
	}
	o[n] = '\0';
	r->pos++;
	*out = o;
	return 0;
fail:
	free(o);
	return bad(r, -EINVAL);
}

static bool digit(const struct rd *r)
{
	return r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9';
}

/* -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? and nothing looser */
static int number(struct rd *r, double *out)
{
	size_t start = r->pos;
	char tmp[64], *end;

	if (r->pos < r->len && r->s[r->pos] == '-')
		r->pos++;
	if (!digit(r))
		return bad(r, -EINVAL);
	if (r->s[r->pos++] != '0')
		while (digit(r))
			r->pos++;
	if (r->pos < r->len && r->s[r->pos] == '.') {
		r->pos++;
		if (!digit(r))
			return bad(r, -EINVAL);
		while (digit(r))
			r->pos++;
	}
	if (r->pos < r->len && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
		r->pos++;
		if (r->pos < r->len && (r->s[r->pos] == '+' || r->s[r->pos] == '-'))
			r->pos++;
		if (!digit(r))
			return bad(r, -EINVAL);
		while (digit(r))
			r->pos++;
	}
	if (r->pos - start >= sizeof(tmp))
		return bad(r, -EINVAL);
	memcpy(tmp, r->s + start, r->pos - start);
	tmp[r->pos - start] = '\0';
	errno = 0;
	*out = strtod(tmp, &end);
	if (*end || errno || !isfinite(*out))
		return bad(r, -EINVAL);
	return 0;
}

static int lit(struct rd *r, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n))
		return bad(r, -EINVAL);
	r->pos += n;
	return 0;
}

static int push(struct sw_jv *v, char *key, struct sw_jv *item)
{
	size_t cap;
	struct sw_jv *vals;

	if (v->type == SW_JOBJ && sw_jv_get(v, key))
		return -EINVAL;         /* a key twice: which one would count? */
	/* grow by powers of two: 4, 8, 16, ... */
	if (v->n == 0 || (v->n >= 4 && (v->n & (v->n - 1)) == 0)) {
		cap = v->n ? v->n * 2 : 4;
		if (!(vals = reallocarray(v->vals, cap, sizeof(*vals))))
			return -ENOMEM;
		v->vals = vals;
		if (v->type == SW_JOBJ) {
			char **keys = reallocarray(v->keys, cap, sizeof(*keys));

			if (!keys)
				return -ENOMEM;
			v->keys = keys;
		}
	}
	if (v->type == SW_JOBJ)
		v->keys[v->n] = key;
	v->vals[v->n++] = *item;
	return 0;
}

static int value(struct rd *r, struct sw_jv *v, unsigned depth)
{
	memset(v, 0, sizeof(*v));
	ws(r);
	if (depth >= SW_JSON_DEPTH)
		return bad(r, -E2BIG);
	if (r->pos >= r->len)
		return bad(r, -EINVAL);
	switch (r->s[r->pos]) {
	case 'n': return lit(r, "null");
	case 't': v->type = SW_JBOOL; v->b = true; return lit(r, "true");
	case 'f': v->type = SW_JBOOL; return lit(r, "false");
	case '"': v->type = SW_JSTR; return string(r, &v->str);
	case '[':
	case '{': {
		bool obj = r->s[r->pos] == '{';
		char close = obj ? '}' : ']';

		v->type = obj ? SW_JOBJ : SW_JARR;
		r->pos++;
		ws(r);
		if (r->pos < r->len && r->s[r->pos] == close) {
			r->pos++;
			return 0;
		}
		for (;;) {
			struct sw_jv item;
			char *key = NULL;
			int err;

			ws(r);
			if (obj) {
				if (r->pos >= r->len || r->s[r->pos] != '"' || string(r, &key))
					return bad(r, -EINVAL);
				ws(r);
				if (r->pos >= r->len || r->s[r->pos] != ':') {
					free(key);
					return bad(r, -EINVAL);
				}
				r->pos++;
			}
			if (value(r, &item, depth + 1)) {
				free(key);
				sw_jv_free(&item);
				return r->err;
			}
			if ((err = push(v, key, &item))) {
				free(key);
				sw_jv_free(&item);
				return bad(r, err);
			}
			ws(r);
			if (r->pos < r->len && r->s[r->pos] == ',') {
				r->pos++;
				continue;
			}
			if (r->pos < r->len && r->s[r->pos] == close) {
				r->pos++;
				return 0;
			}
			return bad(r, -EINVAL);
		}
	}
	default:
		v->type = SW_JNUM;
		return number(r, &v->num);
	}
}

int sw_jv_parse(const char *text, size_t len, struct sw_jv *v, size_t *where)
{
	struct rd r = { text, len, 0, 0 };

	memset(v, 0, sizeof(*v));
	if (len > SW_JSON_MAX)
		r.err = -E2BIG;
	else if (!value(&r, v, 0)) {
		ws(&r);
		if (r.pos != r.len)
			bad(&r, -EINVAL);       /* trailing bytes (a NUL included) */
	}
	if (r.err) {
		sw_jv_free(v);
		if (where)
			*where = r.pos;
	}
	return r.err;
}

void sw_jv_free(struct sw_jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		sw_jv_free(&v->vals[i]);
	}
	free(v->keys);
	free(v->vals);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

const struct sw_jv *sw_jv_get(const struct sw_jv *v, const char *key)
{
	if (!v || v->type != SW_JOBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->vals[i];
	return NULL;
}

int sw_jv_get_bool(const struct sw_jv *v, const char *key, bool *out)
{
	const struct sw_jv *m = sw_jv_get(v, key);

	if (!m)
		return -ENOENT;
	if (m->type != SW_JBOOL)
		return -EINVAL;
	*out = m->b;
	return 0;
}

int sw_jv_get_str(const struct sw_jv *v, const char *key, const char **out)
{
	const struct sw_jv *m = sw_jv_get(v, key);

	if (!m)
		return -ENOENT;
	if (m->type != SW_JSTR)
		return -EINVAL;
	*out = m->str;
	return 0;
}

int sw_jv_get_i64(const struct sw_jv *v, const char *key, int64_t *out)
{
	const struct sw_jv *m = sw_jv_get(v, key);

	if (!m)
		return -ENOENT;
	/* out of int64_t's range (4.2e22): the cast itself would be undefined */
	if (m->type != SW_JNUM || !(m->num >= -9223372036854775808.0 && m->num < 9223372036854775808.0) ||
	    m->num != (double)(int64_t)m->num)
		return -EINVAL;
	*out = (int64_t)m->num;
	return 0;
}
