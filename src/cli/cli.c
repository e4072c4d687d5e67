// SPDX-License-Identifier: GPL-2.0-or-later
/* What the CLI's commands share (include/cli/cli.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/export.h"
#include "core/portbind.h"
#include "sync/bindtable.h"
#include "lib/json.h"
#include "lib/log.h"

const char *sw_cli_perm_hint(int rc)
{
	return rc == -EPERM && geteuid() != 0 ?
	       " (sandwall needs root, or CAP_NET_ADMIN: run it with sudo)" : "";
}

/* An error of apply, check or remove. -EEXIST: the table is another
 * tool's (reconcile.c); the message then points at the config key. */
void sw_cli_table_err(const struct sw_config *cfg, int rc, const char *err, const char *tail)
{
	char line[16] = "";

	if (rc != -EEXIST) {
		sw_err("%s%s%s", err, sw_cli_perm_hint(rc), tail);
		return;
	}
	if (cfg->table_line)
		snprintf(line, sizeof(line), ":%u", cfg->table_line);
	sw_err("%s%s: [nft] table = %s%s: %s", cfg->path, line, cfg->table,
	       cfg->table_line ? "" : " (the default)", err);
}

/* The CLI's own change of the boundary (apply, remove) or a verify, in
 * the journal with its own uid and pid (a daemon writes its own lines). */
void sw_cli_journal(const struct sw_config *cfg, enum sw_jevent e, const char *by,
		    int verify_code)
{
	struct sw_jw w;
	int rc = -ENOMEM;

	if (!cfg->journal_path[0])
		return;
	sw_journal_begin(&w, e, cfg->table, time(NULL));
	sw_jw_str(&w, "by", by);
	sw_journal_who(&w, (int64_t)getuid(), (int64_t)getpid(), "sandwall");
	if (e == SW_JE_VERIFY) {
		sw_jw_bool(&w, "passed", verify_code == 0);
		sw_jw_i64(&w, "exit", verify_code);
	}
	sw_jw_end(&w);
	if (!sw_jw_text(&w) || (rc = sw_journal_append(cfg->journal_path, sw_jw_text(&w))))
		sw_warn("warning: cannot write the journal %s: %s: the record has a hole",
			cfg->journal_path, sw_jw_text(&w) ? strerror(-rc) : "out of memory");
	sw_jw_free(&w);
}

int sw_cli_verify(const struct sw_cli_opts *o, const struct sw_config *cfg, const char *record)
{
	struct sw_verify_opts vo = o->verify;
	char path[SW_PATH_MAX + 16] = "";
	const char *slash = strrchr(cfg->journal_path, '/');
	int code;

	/* the last result sits next to the daemon's journal, for `receipt` */
	if (record)
		snprintf(path, sizeof(path), "%s", record);
	else if (cfg->journal_path[0] && slash)
		snprintf(path, sizeof(path), "%.*s/verify.json", (int)(slash - cfg->journal_path),
			 cfg->journal_path);
	vo.record = path;
	vo.json = o->json;
	vo.control = o->control;
	if (vo.pid && vo.netns) {
		fprintf(stderr, "sandwall: --pid and --netns exclude each other\n");
		return EXIT_ERR;
	}
	code = sw_verify_cmd(cfg, &vo);
	if (code != 2 || geteuid() == 0)
		sw_cli_journal(cfg, SW_JE_VERIFY, record ? "sandwall run" : "sandwall verify", code);
	return code;
}

int sw_cli_export(struct sw_cli_run *x, FILE *f)
{
	char err[SW_ERRLEN];
	struct sw_model bt;
	int rc;

	if ((rc = sw_export(x->want, f)))
		return rc;
	/* table bridge <name> after it, when a sandbox keys on a source */
	if (sw_portbind_wanted(x->cfg)) {
		if ((rc = sw_bindtable_want(x->cfg, x->host, &bt, err, sizeof(err)))) {
			sw_cli_table_err(x->cfg, rc, err, "");
			return rc;
		}
		rc = sw_export(&bt, f);
		sw_model_free(&bt);
	}
	return rc;
}
