/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_H
#define SANDWALL_DAEMON_H
/* daemon: sandwalld's entry; its epoll loop (loop.h) serves nf_tables
 * events (repair drift, name the process), rtnetlink events (update the
 * sets), signalfd (HUP reload, TERM/INT exit leaving the rules), timerfd
 * (resync backstop, watchdog), and the control socket. The state and the
 * parts are private to the daemon (state.h). */
#include <stdbool.h>

/* What the command line asks for. */
struct sw_daemon_args {
	const char *config_path;
	const char *control_path;
	bool foreground;                /* -f: log to stderr too */
	bool verbose;                   /* -v: debug messages */
};

/* Start the log (its facility from the config), load the config, take
 * the table, run until TERM/INT. Returns the exit code (0, or 2 when it
 * cannot start). */
int sw_daemon_run(const struct sw_daemon_args *a);

#endif
