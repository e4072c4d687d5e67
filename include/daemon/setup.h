/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_SETUP_H
#define SANDWALL_DAEMON_SETUP_H
/* setup: the daemon's start (the config, the instance locks, the
 * subscriptions before the first dump, the owning socket, the table
 * taken, then the loop's descriptors) and its end (the rules left in
 * place). */
#include "daemon/state.h"

/* d: config_path, control_path and foreground set, the rest zero.
 * 0 or -errno (logged); sw_teardown either way. */
int sw_setup(struct sw_daemon *d);
/* Close and free what sw_setup opened (closing the owner socket leaves a
 * persist table in place). */
void sw_teardown(struct sw_daemon *d);

#endif
