// SPDX-License-Identifier: GPL-2.0-or-later
/* What receipt reads (include/cli/receipt.h): the daemon's journal, the
 * last verify's record and its per-sandbox verdicts, and which attempts
 * of attempts.json are verify's own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "cli/receipt.h"
#include "lib/addr.h"
#include "lib/journal.h"
#include "lib/json.h"

#define MAX_FILE (4 << 20)

/* The file's text, NUL-terminated (at most MAX_FILE bytes; NULL when it
 * cannot be read). */
char *sw_receipt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;

	*len = 0;
	if (!f)
		return NULL;
	buf = malloc(MAX_FILE + 1);
	if (buf) {
		*len = fread(buf, 1, MAX_FILE, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

int sw_receipt_read_journal(const char *text, size_t len, struct sw_receipt_journal *out,
			    struct sw_jv *lines)
{
	memset(out, 0, sizeof(*out));
	out->first = out->last_stop = -1;
	if (lines) {
		memset(lines, 0, sizeof(*lines));
		lines->type = SW_JARR;
	}
	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		struct sw_jv v, *vals;
		const char *ev;
		int64_t unix_time;

		pos += n + 1;
		if (n == 0)
			continue;
		if (sw_jv_parse(l, n, &v, NULL) || sw_jv_get_str(&v, "event", &ev) ||
		    sw_jv_get_i64(&v, "unix", &unix_time) || sw_jevent_parse(ev) == SW_JE_UNKNOWN) {
			sw_jv_free(&v);
			out->malformed++;
			continue;
		}
		out->events++;
		if (out->first < 0)
			out->first = unix_time;
		switch (sw_jevent_parse(ev)) {
		case SW_JE_DRIFT:
			out->drifts++;
			out->unrepaired = 0;    /* a later repair settles earlier failures */
			break;
		case SW_JE_REPAIRED:
			out->unrepaired = 0;
			break;
		case SW_JE_REPAIR_FAILED:
			out->unrepaired++;
			break;
		case SW_JE_STOP:
		case SW_JE_REMOVED:
			out->last_stop = unix_time;     /* a gap in the watch */
			break;
		default:
			break;
		}
		if (!lines) {
			sw_jv_free(&v);
			continue;
		}
		if (!(vals = reallocarray(lines->vals, lines->n + 1, sizeof(*vals)))) {
			sw_jv_free(&v);
			return -ENOMEM;
		}
		lines->vals = vals;
		lines->vals[lines->n++] = v;
	}
	return 0;
}

int sw_receipt_read_verify(const char *text, size_t len, int64_t *time_, bool *passed)
{
	struct sw_jv v;
	int rc = sw_jv_parse(text, len, &v, NULL);

	if (!rc && (sw_jv_get_i64(&v, "time", time_) || sw_jv_get_bool(&v, "passed", passed) ||
		    !sw_jv_get(&v, "runs") || sw_jv_get(&v, "runs")->type != SW_JARR))
		rc = -EINVAL;
	sw_jv_free(&v);
	return rc ? -EINVAL : 0;
}

/* The last verify's per-sandbox verdicts ("sandboxes" of verify.json, read
 * with the strict reader): each entry's name, egress and verdict must be
 * strings, or the record is not trusted (-EINVAL). */
int sw_receipt_read_sbx(const char *text, size_t len, struct sw_receipt_sbx *out)
{
	const struct sw_jv *l;

	memset(out, 0, sizeof(*out));
	if (sw_jv_parse(text, len, &out->doc, NULL))
		return -EINVAL;
	l = sw_jv_get(&out->doc, "sandboxes");
	if (!l)
		return 0;
	if (l->type != SW_JARR)
		return -EINVAL;
	for (size_t i = 0; i < l->n; i++) {
		const char *s;

		if (sw_jv_get_str(&l->vals[i], "name", &s) || sw_jv_get_str(&l->vals[i], "egress", &s) ||
		    sw_jv_get_str(&l->vals[i], "verdict", &s))
			return -EINVAL;
	}
	out->list = l;
	return 0;
}

/* Is attempt a verify's own (its source or destination is one of
 * verify's probe addresses)? */
bool sw_receipt_by_verify(const struct sw_jv *a, const struct sw_attempts_probes *probes)
{
	const char *src = NULL, *dst = NULL, *by = NULL, *proto = NULL;
	struct sw_prefix ps, pd;
	uint8_t s16[16] = { 0 }, d16[16] = { 0 };
	int64_t port = 0;

	if (sw_jv_get_str(a, "by", &by) == 0 && !strcmp(by, "verify"))
		return true;            /* the daemon saw it to be verify's */
	sw_jv_get_str(a, "proto", &proto);
	sw_jv_get_i64(a, "dport", &port);
	if (proto && !strcmp(proto, "udp") && port > 0 && port < 65536 &&
	    sw_attempts_by_verify_port(probes, IPPROTO_UDP, (uint16_t)port))
		return true;
	sw_jv_get_str(a, "src", &src);
	sw_jv_get_str(a, "dst", &dst);
	if (!dst || sw_prefix_parse(dst, &pd, NULL))
		return false;
	memcpy(d16, pd.addr, sw_family_addrlen(pd.family));
	if (src && !sw_prefix_parse(src, &ps, NULL))
		memcpy(s16, ps.addr, sw_family_addrlen(ps.family));
	return sw_attempts_by_verify(probes, pd.family, s16, d16);
}

void sw_receipt_machine_id(char *buf, size_t len)
{
	FILE *f = fopen("/etc/machine-id", "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}
