// SPDX-License-Identifier: GPL-2.0-or-later
/* check --preview (include/cli/preview.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/preview.h"
#include "core/config_check.h"
#include "core/desired.h"
#include "core/diff.h"
#include "core/holes.h"
#include "core/ruleset.h"
#include "lib/json.h"
#include "lib/log.h"
#include "sync/bindtable.h"
#include "sync/netdev.h"
#include "sync/reconcile.h"

struct preview {
	struct sw_config cfg;
	struct sw_host host;
	struct sw_model want;
	bool built;
	struct sw_diff d[3];    /* inet, netdev, bridge */
	bool have[3];
};

static const char *const family[3] = { "inet", "netdev", "bridge" };

/* Read FILE, the host, build and compare: 0 or EXIT_ERR (said). */
static int compare(struct sw_nl *nl, const char *path, struct preview *p)
{
	char err[SW_ERRLEN];
	int rc;

	if ((rc = sw_config_load(path, &p->cfg, err, sizeof(err))) ||
	    (rc = sw_host_gather(&p->cfg, &p->host, true, err, sizeof(err))) ||
	    (rc = sw_desired_build(&(struct sw_desired_in){ .cfg = &p->cfg, .host = &p->host },
				   &p->want, err, sizeof(err)))) {
		sw_err("%s (nothing compared)", err);
		return EXIT_ERR;
	}
	p->built = true;
	if ((rc = sw_check(nl, &p->want, &p->d[0], err, sizeof(err))))
		goto fail;
	p->have[0] = true;
	if ((rc = sw_netdev_check(nl, &p->cfg, &p->host, &p->want, &p->d[1], err, sizeof(err))))
		goto fail;
	p->have[1] = true;
	if ((rc = sw_bindtable_check(nl, &p->cfg, &p->host, &p->d[2], err, sizeof(err))))
		goto fail;
	p->have[2] = true;
	return 0;
fail:
	sw_err("cannot compare the kernel with %s: %s", path, err);
	return EXIT_ERR;
}

static void print_json(const struct preview *p, const char *path, size_t n)
{
	char t[8 + SW_TABLE_MAXLEN];
	struct sw_jw w;
	int rc;

	snprintf(t, sizeof(t), "inet/%s", p->cfg.table);
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "table", t);
	sw_jw_str(&w, "preview", path);
	sw_jw_bool(&w, "changes", n > 0);
	sw_jw_u64(&w, "n_changes", n);
	sw_diff_json(&p->d[0], &w, "inet");
	sw_diff_json(&p->d[1], &w, "netdev");
	sw_diff_json(&p->d[2], &w, "bridge");
	sw_jw_end(&w);
	if ((rc = sw_jw_print(&w, stdout)))
		sw_err("cannot write the answer: %s", strerror(-rc));
	sw_jw_free(&w);
}

int sw_cli_preview(struct sw_cli_run *x)
{
	const char *path = x->o->preview;
	struct preview *p = calloc(1, sizeof(*p));
	size_t n = 0;
	int rc;

	if (!p) {
		sw_err("%s", strerror(ENOMEM));
		return EXIT_ERR;
	}
	if (!(rc = compare(x->nl, path, p))) {
		for (int i = 0; i < 3; i++)
			n += p->d[i].n;
		if (x->o->json) {
			print_json(p, path, n);
		} else if (!n) {
			printf("applying %s would change nothing: the kernel holds what it installs\n", path);
		} else {
			printf("applying %s would change %zu objects (missing: it adds them; extra: it "
			       "deletes them; changed: it rewrites them):\n", path, n);
			for (int i = 0; i < 3; i++) {
				if (!p->d[i].n)
					continue;
				printf("table %s %s (%zu):\n", family[i], p->cfg.table, p->d[i].n);
				sw_diff_print(&p->d[i], stdout);
			}
		}
		rc = n ? EXIT_DRIFT : 0;
	}
	for (int i = 0; i < 3; i++)
		if (p->have[i])
			sw_diff_free(&p->d[i]);
	if (p->built)
		sw_model_free(&p->want);
	sw_host_free(&p->host);
	sw_config_free(&p->cfg);
	free(p);
	return rc;
}
