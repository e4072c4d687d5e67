/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMONCTL_H
#define SANDWALL_DAEMONCTL_H
/* The CLI and a running sandwalld: its status (asked once per run), the
 * requests it does instead of the CLI (over lib/control.h), and when the
 * CLI must stop rather than act behind its back. */
#include <stdbool.h>
#include <stddef.h>
#include "cli/cli.h"
#include "kernel/nl.h"

/* Is the table owned by a process (sandwalld)? Then writes go through it. */
bool sw_cli_owned(struct sw_nl *nl, const char *table);
/* KEY=VALUE of a control reply, in buf: true when there, else "" and false. */
bool sw_cli_reply_get(const char *reply, const char *key, char *buf, size_t len);
/* The same, "?" when absent; returns buf. */
const char *sw_cli_reply_field(const char *reply, const char *key, char *buf, size_t len);
/* The daemon's status, asked once per run: 0 with its reply;
 * -ENOENT/-ECONNREFUSED: none runs; -ETIMEDOUT: one is there but does not
 * answer; -EPROTO: it answered "error". */
int sw_cli_daemon_status_rc(const struct sw_cli_opts *o, char *reply, size_t len);
/* Does a daemon answer on the control socket? */
bool sw_cli_daemon_running(const struct sw_cli_opts *o);
/* A daemon that is there but does not answer (said on stderr): stop, exit 2. */
bool sw_cli_daemon_stuck(const struct sw_cli_opts *o);
/* Does a daemon answer whose config is the file o->config names? */
bool sw_cli_daemon_same_config(const struct sw_cli_opts *o);
/* The daemon's verb for apply, with its options. */
const char *sw_cli_reload_req(const struct sw_cli_opts *o);
/* apply while a sandwalld runs another file than o->config: refused (said
 * on stderr), exit 2. */
bool sw_cli_daemon_refuses_apply(const struct sw_cli_opts *o);
/* Ask the daemon to do req: 0 (its message on stdout) or EXIT_ERR. table:
 * for the message when no daemon answers; NULL when the daemon was just
 * seen running o->config. */
int sw_cli_via_daemon(const struct sw_cli_opts *o, const char *req, const char *table);

#endif
