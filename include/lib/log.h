/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_LOG_H
#define SANDWALL_LOG_H
/* log: the one place messages leave the program. Foreground/CLI: stderr.
 * Daemon: the system log -- journald's native protocol where its socket
 * is, with SANDWALL_EVENT=NAME for a line "event=NAME ...", else syslog --
 * and stderr too with -f, each line stamped "time=ISO8601 ". */
#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

void sw_log_init(const char *ident, bool to_stderr, bool to_syslog, int facility);
void sw_log_close(void);
void sw_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define sw_err(...)   sw_log(LOG_ERR, __VA_ARGS__)
#define sw_warn(...)  sw_log(LOG_WARNING, __VA_ARGS__)
#define sw_info(...)  sw_log(LOG_INFO, __VA_ARGS__)
#define sw_debug(...) sw_log(LOG_DEBUG, __VA_ARGS__)
void sw_log_set_verbose(bool verbose);
/* Start each stderr line with "time=2026-12-03T12:00:00.123456Z " (UTC). */
void sw_log_set_stamp(bool stamp);
/* Every line key=value (the daemon): a message that does not start with
 * "key=" goes out as level=LEVEL msg="..." (sw_log_kv). */
void sw_log_set_kv(bool kv);
/* msg starts with a key=value pair ("event=...", "time=..."). */
bool sw_log_is_kv(const char *msg);
/* msg as key=value into out (cap bytes, NUL-terminated): itself when it is
 * already, else level=LEVEL msg="TEXT" with '"' and '\' escaped and
 * control characters made blanks, cut at cap. Its length. Pure. */
size_t sw_log_kv(char *out, size_t cap, int prio, const char *msg);
/* One journald native entry (KEY=value lines; MESSAGE last, its newlines
 * made blanks) into out: its length, or 0 when it does not fit. Pure but
 * for getpid(). */
size_t sw_log_journal_entry(char *out, size_t cap, int prio, int facility, const char *ident,
			    const char *msg);

#endif
