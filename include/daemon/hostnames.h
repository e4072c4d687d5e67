/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_HOSTNAMES_H
#define SANDWALL_DAEMON_HOSTNAMES_H
/* hostnames: the allowlists' hostnames in the loop: the resolver's
 * sockets and timer (host/resolver.h), and the addresses it learns sent
 * to the sets of the table (and of the twin). */
#include "daemon/state.h"

/* (Re)build the resolver from the config, keeping what old knew (NULL at
 * start), and register its sockets. 0 or -errno (logged). */
int sw_hostnames_setup(struct sw_daemon *d, struct sw_resolver *old);
/* The resolver's turn: drop what expired, start the rounds that are
 * due, send new addresses to the sets, and sleep until the next deadline.
 * Never blocks: the sockets are non-blocking, the batch is one ACK. */
void sw_hostnames_tick(struct sw_daemon *d);
/* Answers came: read them, then the resolver's turn. */
void sw_hostnames_read(struct sw_daemon *d);

#endif
