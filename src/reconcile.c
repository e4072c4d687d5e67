// SPDX-License-Identifier: GPL-2.0-or-later
/* reconcile: desired vs kernel, and the batches that fix it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "encode.h"
#include "observe.h"
#include "reconcile.h"
#include "ruleset.h"

int sw_desired(const struct sw_config *cfg, struct sw_host *host, struct sw_model *m,
	       char *err, size_t errlen)
{
	int rc;

	memset(host, 0, sizeof(*host));
	rc = sw_host_read(host);
	if (rc) {
		snprintf(err, errlen, "cannot read the host's links, addresses and routes: %s",
			 strerror(-rc));
		return rc;
	}
	return sw_ruleset_build(cfg, host, m, err, errlen);
}

static void kernel_error(struct sw_nl *nl, const char *what, int rc, char *err, size_t errlen)
{
	if (nl->errmsg[0])
		snprintf(err, errlen, "%s: %s (kernel: %s, message %d of the batch)", what,
			 strerror(-rc), nl->errmsg, nl->err_index);
	else if (nl->err_index >= 0)
		snprintf(err, errlen, "%s: %s (message %d of the batch)", what, strerror(-rc),
			 nl->err_index);
	else
		snprintf(err, errlen, "%s: %s", what, strerror(-rc));
}

/* Build with the current generation id, send, retry when it moved. */
static int send_with_retry(struct sw_nl *nl, const struct sw_model *m, const char *del_table,
			   const char *what, char *err, size_t errlen)
{
	int rc = -ERESTART;

	for (int i = 0; i < SW_APPLY_TRIES && rc == -ERESTART; i++) {
		struct sw_batch b;
		uint32_t genid;

		if ((rc = sw_nl_getgen(nl, &genid)))
			break;
		if ((rc = sw_batch_init(&b, nl, genid, true)) == 0) {
			rc = del_table ? sw_encode_delete(&b, nl, del_table)
				       : sw_encode_replace(&b, nl, m);
			if (!rc)
				rc = sw_batch_finish(&b, nl);
			if (!rc)
				rc = sw_nl_send_batch(nl, &b);
		}
		sw_batch_free(&b);
	}
	if (rc)
		kernel_error(nl, what, rc, err, errlen);
	return rc;
}

int sw_apply(struct sw_nl *nl, const struct sw_model *want, char *err, size_t errlen)
{
	return send_with_retry(nl, want, NULL, "cannot apply the ruleset", err, errlen);
}

int sw_remove(struct sw_nl *nl, const char *table, bool *absent, char *err, size_t errlen)
{
	int rc = send_with_retry(nl, NULL, table, "cannot delete the table", err, errlen);

	*absent = rc == -ENOENT;
	return *absent ? 0 : rc;
}

int sw_check(struct sw_nl *nl, const struct sw_model *want, struct sw_diff *d,
	     char *err, size_t errlen)
{
	struct sw_model have;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = sw_observe(nl, want->table, &have);
	if (rc) {
		kernel_error(nl, "cannot read the ruleset", rc, err, errlen);
		return rc;
	}
	rc = sw_diff(want, &have, d);
	sw_model_free(&have);
	if (rc)
		snprintf(err, errlen, "cannot compare: %s", strerror(-rc));
	return rc;
}

int sw_reconcile(struct sw_nl *nl, const struct sw_model *want, struct sw_diff *d,
		 bool *repaired, char *err, size_t errlen)
{
	struct sw_diff after;
	int rc;

	*repaired = false;
	if ((rc = sw_check(nl, want, d, err, errlen)) || d->n == 0)
		return rc;
	if ((rc = sw_apply(nl, want, err, errlen)))
		return rc;
	*repaired = true;
	if ((rc = sw_check(nl, want, &after, err, errlen)))
		return rc;
	if (after.n) {
		char s[512];

		sw_diff_summary(&after, s, sizeof(s));
		snprintf(err, errlen, "the kernel does not hold what was applied: %s", s);
		rc = -EIO;
	}
	sw_diff_free(&after);
	return rc;
}
