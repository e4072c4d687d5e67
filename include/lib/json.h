/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_JSON_H
#define SANDWALL_JSON_H
/* json: the one writer behind every JSON document sandwall prints or
 * stores (--json, the journal, the receipt, the verify record), and one
 * strict reader for what it reads back. The writer escapes every string
 * (RFC 8259); the reader refuses anything malformed, too deep or too big. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SW_JSON_DEPTH   32          /* nesting, writer and reader */
#define SW_JSON_MAX     (1u << 20)  /* bytes the reader accepts */

/* ---- writer ------------------------------------------------------------ */

struct sw_jv;

struct sw_jw {
	char *buf;
	size_t len, cap;
	int err;                        /* first error (-ENOMEM, -EINVAL), sticky */
	unsigned depth;
	bool first[SW_JSON_DEPTH];      /* nothing written yet at this level */
	bool in_obj[SW_JSON_DEPTH];     /* object (keys) or array */
};

void sw_jw_init(struct sw_jw *w);
void sw_jw_free(struct sw_jw *w);
/* key is required inside an object and must be NULL inside an array or
 * at the top level. */
void sw_jw_obj(struct sw_jw *w, const char *key);      /* { */
void sw_jw_arr(struct sw_jw *w, const char *key);      /* [ */
void sw_jw_end(struct sw_jw *w);                       /* } or ] */
void sw_jw_str(struct sw_jw *w, const char *key, const char *v);   /* NULL: null */
void sw_jw_strn(struct sw_jw *w, const char *key, const char *v, size_t n);
void sw_jw_u64(struct sw_jw *w, const char *key, uint64_t v);
void sw_jw_i64(struct sw_jw *w, const char *key, int64_t v);
void sw_jw_dbl(struct sw_jw *w, const char *key, double v);  /* %.6f; not finite: null */
void sw_jw_bool(struct sw_jw *w, const char *key, bool v);
void sw_jw_null(struct sw_jw *w, const char *key);
/* A parsed value, written back (numbers as integers when they are). */
void sw_jw_value(struct sw_jw *w, const char *key, const struct sw_jv *v);
/* The document (NUL-terminated), or NULL after an error or while a
 * container is still open. */
const char *sw_jw_text(const struct sw_jw *w);
/* Write the document and a newline to f: 0 or -errno. */
int sw_jw_print(const struct sw_jw *w, FILE *f);
/* The older escaper, outside the writer: s quoted, every control
 * character as \u00XX. Nothing in the tree prints through it any more
 * (its test is in tests/unit/core/test_diff.c); new code uses the writer. */
void sw_json_str(FILE *f, const char *s);

/* ---- reader ------------------------------------------------------------ */

enum sw_jtype { SW_JNULL, SW_JBOOL, SW_JNUM, SW_JSTR, SW_JARR, SW_JOBJ };

struct sw_jv {
	enum sw_jtype type;
	bool b;
	double num;
	char *str;                      /* SW_JSTR (NUL-terminated, no NUL inside) */
	char **keys;                    /* SW_JOBJ: keys[i] names vals[i] */
	struct sw_jv *vals;             /* SW_JARR and SW_JOBJ */
	size_t n;
};

/* Parse exactly one JSON value (whitespace around it allowed). Returns 0,
 * -EINVAL (malformed, with *where the byte offset), -E2BIG (too big or too
 * deep) or -ENOMEM. v is empty (SW_JNULL) on failure. */
int sw_jv_parse(const char *text, size_t len, struct sw_jv *v, size_t *where);
void sw_jv_free(struct sw_jv *v);
/* Member of an object (NULL if absent or v is no object). */
const struct sw_jv *sw_jv_get(const struct sw_jv *v, const char *key);
/* Typed member access: 0, -ENOENT (absent) or -EINVAL (other type). */
int sw_jv_get_bool(const struct sw_jv *v, const char *key, bool *out);
int sw_jv_get_str(const struct sw_jv *v, const char *key, const char **out);
int sw_jv_get_i64(const struct sw_jv *v, const char *key, int64_t *out);

#endif
