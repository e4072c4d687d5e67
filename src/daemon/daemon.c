// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon: keep the boundary in place (see include/daemon/daemon.h).
 *
 * The parts, each with its header in include/daemon/: state (what they
 * share), setup (start and end), loop (the epoll loop and its deadlines),
 * repair (the tables compared and repaired), track (what the events say
 * moved), reload, request (the control socket), blocklog (blocked
 * attempts), hostnames (the resolver), owner (the hold on the table),
 * report (what is told: alerts, journal, status, metrics). */
#include <stdio.h>
#include <syslog.h>

#include "core/config_check.h"
#include "daemon/daemon.h"
#include "daemon/loop.h"
#include "daemon/setup.h"
#include "daemon/state.h"
#include "lib/log.h"

int sw_daemon_run(const struct sw_daemon_args *a)
{
	/* 0.8 MB (the cgroup watcher's scratch, a config twice): never on the stack */
	static struct sw_daemon d;
	char err[SW_ERRLEN];
	int rc;

	d.config_path = a->config_path;
	d.control_path = a->control_path;
	/* the facility comes from the config: read it once for the log,
	 * into d.cfg (sw_setup loads it there again), not into a second
	 * struct sw_config (40 KiB) on the stack, which would stay
	 * resident for the daemon's life */
	sw_log_init("sandwalld", true, false, LOG_DAEMON);
	sw_log_set_kv(true);                    /* every line key=value, for the SRE's tools */
	if (sw_config_load(d.config_path, &d.cfg, err, sizeof(err))) {
		sw_err("%s", err);
		return 2;
	}
	sw_log_init("sandwalld", a->foreground, true, d.cfg.log_facility);
	sw_log_set_stamp(a->foreground);        /* -f: each stderr line with its UTC time */
	d.foreground = a->foreground;
	sw_log_set_verbose(a->verbose);
	if (sw_setup(&d)) {
		sw_teardown(&d);
		return 2;
	}
	rc = sw_loop_run(&d);
	sw_teardown(&d);
	return rc;
}
