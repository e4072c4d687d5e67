/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_LOG_H
#define SANDWALL_LOG_H
/* log: the one place messages leave the program. Foreground/CLI: stderr.
 * Daemon: syslog (and stderr too with -f). */
#include <stdbool.h>
#include <syslog.h>

void sw_log_init(const char *ident, bool to_stderr, bool to_syslog, int facility);
void sw_log_close(void);
void sw_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define sw_err(...)   sw_log(LOG_ERR, __VA_ARGS__)
#define sw_warn(...)  sw_log(LOG_WARNING, __VA_ARGS__)
#define sw_info(...)  sw_log(LOG_INFO, __VA_ARGS__)
#define sw_debug(...) sw_log(LOG_DEBUG, __VA_ARGS__)
void sw_log_set_verbose(bool verbose);

#endif
