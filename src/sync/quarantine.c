// SPDX-License-Identifier: GPL-2.0-or-later
/* quarantine: release a quarantined source or link (see
 * include/sync/quarantine.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/netfilter/nf_tables.h>

#include "kernel/commit.h"
#include "kernel/encode.h"
#include "lib/addr.h"
#include "sync/quarantine.h"

int sw_release_parse(const char *what, struct sw_release *r, char *err, size_t errlen)
{
	size_t n = strlen(what);

	memset(r, 0, sizeof(*r));
	if (inet_pton(AF_INET, what, r->key) == 1) {
		r->family = AF_INET;
	} else if (inet_pton(AF_INET6, what, r->key) == 1) {
		r->family = AF_INET6;
	} else if (n && n < SW_IFNAMSIZ && strspn(what, "abcdefghijklmnopqrstuvwxyz"
						   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@") == n) {
		memcpy(r->key, what, n);
	} else {
		snprintf(err, errlen, "release: '%.64s' is no IPv4 or IPv6 address and no "
			 "interface name", what);
		return -EINVAL;
	}
	snprintf(r->text, sizeof(r->text), "%s", what);
	return 0;
}

struct one {
	const char *table;
	const struct sw_set *set;
	const struct sw_elem *e;
};

static int fill_one(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct one *o = arg;

	return sw_encode_elems(b, nl, o->table, o->set, o->e, 1, NFT_MSG_DELSETELEM);
}

int sw_quarantine_release(struct sw_nl *nl, const struct sw_config *cfg, const char *sandbox,
			  const struct sw_release *r, size_t *released, char *err, size_t errlen)
{
	struct sw_elem e = { 0 };
	size_t found = 0;

	*released = 0;
	memcpy(e.key, r->key, sizeof(r->key));
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];
		struct sw_set s = { .key_len = r->family == AF_INET ? 4 : r->family ? 16 : SW_IFNAMSIZ };
		struct one o = { cfg->table, &s, &e };
		int rc;

		if (!x->quarantine_on || (sandbox && strcmp(sandbox, x->name)))
			continue;
		found++;
		if (x->max_conns && r->family) {
			/* its max_connections count starts again: else its next
			 * connection is over at once and trips it again */
			snprintf(s.name, sizeof(s.name), "sbx_%s_conns%c", x->name,
				 r->family == AF_INET ? '4' : '6');
			rc = sw_commit(nl, SW_GEN_NONE, NULL, fill_one, &o);
			if (rc && rc != -ENOENT) {
				sw_commit_error(nl, "release", rc, err, errlen);
				return rc;
			}
		}
		snprintf(s.name, sizeof(s.name), "sbx_%s_%s", x->name,
			 r->family == AF_INET ? "q4" : r->family ? "q6" : "qif");
		/* unstamped: whatever the kernel holds; ENOENT: it held no such element */
		rc = sw_commit(nl, SW_GEN_NONE, NULL, fill_one, &o);
		if (!rc)
			(*released)++;
		else if (rc != -ENOENT) {
			sw_commit_error(nl, "release", rc, err, errlen);
			return rc;
		}
	}
	if (!found) {
		snprintf(err, errlen, "release: %s", sandbox ? "no [sandbox] of that name has "
			 "quarantine_on" : "no [sandbox] has quarantine_on");
		return -ENOENT;
	}
	return 0;
}

static int fill_flush(struct sw_batch *b, struct sw_nl *nl, const void *arg)
{
	const struct one *o = arg;

	return sw_encode_set_flush(b, nl, o->table, o->set);
}

int sw_conns_reset(struct sw_nl *nl, const struct sw_config *cfg, size_t *sets, char *err,
		   size_t errlen)
{
	*sets = 0;
	for (size_t i = 0; i < cfg->n_sandboxes; i++) {
		const struct sw_sandbox *x = &cfg->sandboxes[i];

		for (int v6 = 0; x->max_conns && v6 < 2; v6++) {
			struct sw_set s = { .key_len = v6 ? 16 : 4 };
			struct one o = { cfg->table, &s, NULL };
			int rc;

			snprintf(s.name, sizeof(s.name), "sbx_%s_conns%c", x->name, v6 ? '6' : '4');
			/* unstamped, as release: whatever the kernel holds */
			if ((rc = sw_commit(nl, SW_GEN_NONE, NULL, fill_flush, &o))) {
				sw_commit_error(nl, "reset max_connections", rc, err, errlen);
				return rc;
			}
			(*sets)++;
		}
	}
	return 0;
}
