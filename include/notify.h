/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NOTIFY_H
#define SANDWALL_NOTIFY_H
/* notify: the sd_notify protocol (READY=1, WATCHDOG=1, STATUS=...) without
 * libsystemd: one datagram to $NOTIFY_SOCKET. A no-op outside systemd. */
#include <stdint.h>

int sw_notify(const char *state);
/* Watchdog interval in microseconds from $WATCHDOG_USEC (0: none). */
uint64_t sw_notify_watchdog_usec(void);

#endif
