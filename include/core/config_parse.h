/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CONFIG_PARSE_H
#define SANDWALL_CONFIG_PARSE_H
/* config_parse: what the parts of the config parser share, and only they
 * (config_parse.c reads the lines and sections, config_keys.c the keys of
 * the global sections, config_sandbox.c the [sandbox NAME] sections,
 * config_loss.c compares two parses). Not for other users: they call the
 * functions of core/config.h and core/config_check.h. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"

#define SW_CFG_LINE_MAX 197     /* inih's 200-byte buffer minus "\r\n\0" */

struct sw_cfg_ctx;
/* A key of a global section. */
struct sw_cfg_key {
	const char *section, *name;
	int (*set)(struct sw_cfg_ctx *c, const struct sw_cfg_key *k, char *v);
	size_t off;             /* bool keys: offset of the bool in sw_config */
	bool list;              /* may continue on indented lines */
	size_t line_off;        /* where to note the key's line (0: nowhere) */
};

/* One parse. */
struct sw_cfg_ctx {
	struct sw_config *cfg;  /* the caller's: parsed in place, defaults on error */
	const char *name, *pos; /* file name for messages, reader position */
	int line, err_line;
	bool cont, prev_key, had_section, stop;
	unsigned list_key;      /* 1 + the keys[] index of the list the last key line
				 * set (0: none): its continuation lines skip the lookup */
	unsigned long seen;     /* bit per keys[] entry */
	unsigned cat_seen;      /* bit per category: its [block] key was given */
	int section_line[8];    /* per sections[]: where it was opened (0: not yet) */
	char msg[SW_ERRLEN];
};

/* The global sections, in the order of sw_config.section_line. */
#define SW_CFG_N_SECTIONS 8
extern const char *const sw_cfg_sections[SW_CFG_N_SECTIONS];

/* Record the first error (by line); returns 0 so a handler can return it. */
__attribute__((format(printf, 2, 3)))
int sw_cfg_fail(struct sw_cfg_ctx *c, const char *fmt, ...);
/* Write fmt to err (when given) and return rc. */
__attribute__((format(printf, 4, 5)))
int sw_cfg_set_err(char *err, size_t errlen, int rc, const char *fmt, ...);
/* Cut a ';' or '#' comment that follows whitespace, then trailing space. */
void sw_cfg_strip_comment(char *s);

/* What separates the words of a list key, everywhere: spaces, tabs and
 * commas alike ("10.0.0.0/8, 192.168.0.0/16" and "10.0.0.0/8 192.168.0.0/16"
 * are the same list). Entries of several words ([allow] destinations,
 * [sandbox] allow: "CIDR PROTO/PORT") are separated by commas only. */
#define SW_CFG_LIST_SEP " \t,"

/* config_keys.c: the value parsers (0 or -EINVAL) */
int sw_cfg_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);
int sw_cfg_bool(const char *s, bool *b);
int sw_cfg_port(const char *s, struct sw_port *p);      /* "tcp/53" */
/* Why an interface name or trailing-'*' pattern is refused, or NULL. */
const char *sw_cfg_pattern_error(const char *s);
/* ::ffff:a.b.c.d: never matches (packets carry the IPv4 address itself) */
bool sw_cfg_v4_mapped(const struct sw_prefix *p);
/* The keys of the global sections (bit i of given_keys is entry i). */
extern const struct sw_cfg_key sw_cfg_keys[];
extern const size_t sw_cfg_n_keys;
/* Empty a list key when it is first given: the value replaces the default. */
void sw_cfg_list_reset(struct sw_config *cfg, const struct sw_cfg_key *k);
/* Does dropping k only take access away (its default allows nothing)? */
bool sw_cfg_drop_tightens(const struct sw_cfg_key *k);

/* The word of cands[0..n) nearest to word (edit distance, case folded),
 * when it is near enough to be a typo of it (at most 2 edits, and fewer
 * than half of word's length); else NULL. */
const char *sw_cfg_suggest(const char *word, const char *const *cands, size_t n);
/* " (did you mean 'KEY'?)" for an unknown key of a global section
 * (section "block": the categories too), or "" when none is near. */
const char *sw_cfg_key_hint(const char *section, const char *name, char *buf, size_t len);
/* What to add to a "bad CIDR" refusal: when word is a hostname, that
 * only [sandbox NAME] allow takes hostnames; else "". */
const char *sw_cfg_hostname_hint(const char *word);

/* config_sandbox.c: [sandbox NAME] */
enum { SBX_INTERFACES, SBX_SOURCES, SBX_EGRESS, SBX_ALLOW, SBX_DNS, SBX_BUDGET,
       SBX_BUDGET_SOURCES, SBX_QUARANTINE_ON, SBX_MAX_CONNECTIONS, SBX_KEYS };
struct sw_cfg_sbx_key {
	const char *name;
	bool list;
};
extern const struct sw_cfg_sbx_key sw_cfg_sbx_keys[SBX_KEYS];
/* Is the section header text s (n bytes) "sandbox NAME"? */
bool sw_cfg_is_sandbox(const char *s, size_t n);
/* A new [sandbox NAME] section from its header line. */
void sw_cfg_sandbox_open(struct sw_cfg_ctx *c, const char *s, size_t n);
/* A key line of the current [sandbox NAME]: 1, or 0 after sw_cfg_fail. */
int sw_cfg_sandbox_key(struct sw_cfg_ctx *c, const char *name, const char *value);
/* What the sandbox sections (and the TTL bounds) must say as a whole. */
int sw_cfg_check_sandboxes(struct sw_cfg_ctx *c);

#endif
