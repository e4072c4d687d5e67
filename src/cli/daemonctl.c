// SPDX-License-Identifier: GPL-2.0-or-later
/* The CLI and a running sandwalld (include/cli/daemonctl.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/nf_tables.h>

#include "cli/daemonctl.h"
#include "kernel/observe.h"
#include "lib/control.h"
#include "lib/log.h"

/* Is the table owned by a process (sandwalld)? Then writes go through it. */
bool sw_cli_owned(struct sw_nl *nl, const char *table)
{
	bool present = false;
	uint32_t flags = 0;

	return sw_observe_table(nl, table, &present, &flags) == 0 && present &&
	       (flags & NFT_TABLE_F_OWNER);
}

bool sw_cli_reply_get(const char *reply, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = reply; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, "\n");

			snprintf(buf, len, "%.*s", (int)n, p + kl + 1);
			return true;
		}
	}
	if (len)
		buf[0] = '\0';
	return false;
}

const char *sw_cli_reply_field(const char *reply, const char *key, char *buf, size_t len)
{
	if (!sw_cli_reply_get(reply, key, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

/* The daemon's status, asked once per run (a daemon that does not answer
 * costs SW_CONTROL_ANSWER_MS once, not once per question): 0 with its
 * reply; -ENOENT/-ECONNREFUSED: none runs; -ETIMEDOUT: one is there but
 * does not answer; -EPROTO: it answered "error". */
int sw_cli_daemon_status_rc(const struct sw_cli_opts *o, char *reply, size_t len)
{
	static char cached[SW_CONTROL_REPMAX];
	static int rc = 1;              /* 1: not asked yet */

	if (rc == 1) {
		rc = sw_control_call(o->control, "status", cached, sizeof(cached));
		if (!rc && strncmp(cached, "ok\n", 3))
			rc = -EPROTO;
		if (rc)
			cached[0] = '\0';
	}
	snprintf(reply, len, "%s", cached);
	return rc;
}

/* Does a daemon answer on the control socket? Its status in reply. */
static bool daemon_status(const struct sw_cli_opts *o, char *reply, size_t len)
{
	return sw_cli_daemon_status_rc(o, reply, len) == 0;
}

bool sw_cli_daemon_running(const struct sw_cli_opts *o)
{
	char reply[SW_CONTROL_REPMAX];

	return daemon_status(o, reply, sizeof(reply));
}

/* A daemon that is there (its socket accepts) but does not answer: the
 * CLI stops there, exit 2, instead of acting behind its back. */
bool sw_cli_daemon_stuck(const struct sw_cli_opts *o)
{
	char reply[SW_CONTROL_REPMAX];
	int rc = sw_cli_daemon_status_rc(o, reply, sizeof(reply));

	if (rc != -ETIMEDOUT)
		return false;
	sw_err("sandwalld is not answering on %s (no reply within %d ms); nothing was done",
	       o->control, SW_CONTROL_ANSWER_MS);
	return true;
}

/* Does a daemon answer whose config is the file o->config names? (Not
 * when no daemon answers, the file is another, or a path does not
 * resolve.) */
bool sw_cli_daemon_same_config(const struct sw_cli_opts *o)
{
	char reply[SW_CONTROL_REPMAX], theirs[PATH_MAX], a[PATH_MAX], b[PATH_MAX];

	if (!daemon_status(o, reply, sizeof(reply)))
		return false;
	sw_cli_reply_field(reply, "config", theirs, sizeof(theirs));
	return realpath(o->config, a) && realpath(theirs, b) && !strcmp(a, b);
}

/* The daemon's verb for apply, with its options. */
const char *sw_cli_reload_req(const struct sw_cli_opts *o)
{
	return o->accept_loss ? "reload\naccept_loss=yes" : "reload";
}

/* apply while a sandwalld answers that runs another file than o->config
 * (main hands the same file to the daemon): refused, exit 2, since the
 * daemon would keep enforcing its own file and revert this one as drift. */
bool sw_cli_daemon_refuses_apply(const struct sw_cli_opts *o)
{
	char reply[SW_CONTROL_REPMAX], theirs[PATH_MAX];

	if (!daemon_status(o, reply, sizeof(reply)))
		return false;
	sw_cli_reply_field(reply, "config", theirs, sizeof(theirs));
	sw_err("apply refused: sandwalld (pid %s) enforces %s, not %s; it would undo this apply "
	       "as drift. Edit %s and run `sandwall -c %s apply` (or `systemctl reload "
	       "sandwalld`), or stop sandwalld first",
	       sw_cli_reply_field(reply, "pid", (char[16]){ 0 }, 16), theirs, o->config, theirs, theirs);
	return true;
}

/* Ask the daemon that owns the table to do it. table: for the message when
 * no daemon answers; NULL when the daemon was just seen running o->config. */
int sw_cli_via_daemon(const struct sw_cli_opts *o, const char *req, const char *table)
{
	char reply[SW_CONTROL_REPMAX], msg[512], cfgpath[512];
	int rc = sw_control_call(o->control, req, reply, sizeof(reply));

	if (rc == -ETIMEDOUT) {
		sw_err("sandwalld did not answer on %s within %d ms; the request expires "
		       "unexecuted: nothing was done", o->control, SW_CONTROL_ANSWER_MS);
		return EXIT_ERR;
	}
	if (rc == -EINPROGRESS) {
		sw_err("sandwalld accepted '%.*s' but did not finish within %d s; it may still "
		       "complete (see sandwall status)", (int)strcspn(req, "\n"), req,
		       SW_CONTROL_DONE_MS / 1000);
		return EXIT_ERR;
	}
	if (rc) {
		if (table)
			sw_err("table inet %s is owned by a running process (sandwalld) and no "
			       "daemon answers on %s: %s", table, o->control, strerror(-rc));
		else
			sw_err("sandwalld stopped answering on %s: %s", o->control, strerror(-rc));
		return EXIT_ERR;
	}
	sw_cli_reply_field(reply, "message", msg, sizeof(msg));
	if (strncmp(reply, "ok\n", 3)) {
		sw_err("sandwalld: %s", msg);
		return EXIT_ERR;
	}
	if (table && !strncmp(req, "reload", 6)) {
		char st[SW_CONTROL_REPMAX];

		if (daemon_status(o, st, sizeof(st)) &&
		    strcmp(sw_cli_reply_field(st, "config", cfgpath, sizeof(cfgpath)), o->config))
			sw_warn("note: sandwalld reloaded its own config %s, not %s", cfgpath, o->config);
	}
	printf("sandwalld: %s\n", msg);
	return 0;
}
