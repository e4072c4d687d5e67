/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_RELOAD_H
#define SANDWALL_DAEMON_RELOAD_H
/* reload: SIGHUP or `sandwall reload`: the config read again and, when
 * it may be, put in force (a bad one keeps the rules in force). */
#include <stdbool.h>
#include <stddef.h>
#include "daemon/state.h"

/* Read the config again and bring the tables to it: as set element
 * deltas when only elements changed, else compared and repaired; a new
 * table name takes its lock and removes the old table. msg: one line for
 * the client. 0 or -errno (the rules in force are kept when the config
 * cannot be read or is not allowed). */
int sw_reload(struct sw_daemon *d, bool accept_loss, char *msg, size_t len);
/* What a reload may not do unasked (d->cfg the new config, old the one in
 * force): lose sections or keys (sw_config_loss), or take a table another
 * daemon guards. 0, with *newlock the new table's instance lock (or -1:
 * same table); else -errno with the reason in err. */
int sw_reload_allowed(struct sw_daemon *d, const struct sw_config *old, bool accept_loss,
		      int *newlock, char *err, size_t len);

#endif
