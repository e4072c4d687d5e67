/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NOTIFY_H
#define SANDWALL_NOTIFY_H
/* notify: the sd_notify protocol (READY=1, WATCHDOG=1, STATUS=...) without
 * libsystemd: one datagram to $NOTIFY_SOCKET. A no-op outside systemd. */
#include <stdint.h>

int sw_notify(const char *state);
/* The same with a descriptor attached (SCM_RIGHTS): "FDSTORE=1\nFDNAME=x"
 * hands it to the service manager's file descriptor store, which keeps
 * it open across a restart and passes it back (sw_listen_fd). */
int sw_notify_fd(const char *state, int fd);
/* A descriptor the service manager passed in by name (LISTEN_PID is us,
 * LISTEN_FDS, LISTEN_FDNAMES; sd_listen_fds(3)): the fd (made
 * close-on-exec), or -ENOENT. */
int sw_listen_fd(const char *name);
/* Watchdog interval in microseconds from $WATCHDOG_USEC (0: none). */
uint64_t sw_notify_watchdog_usec(void);

#endif
