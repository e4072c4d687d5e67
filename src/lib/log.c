/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log: the one place messages leave the program: stderr ("ident: msg",
 * with "time=ISO8601 " first when stamped: the daemon's -f) and/or the
 * system log: journald's native protocol where its socket is (the fields
 * PRIORITY, SYSLOG_IDENTIFIER, SYSLOG_FACILITY, MESSAGE and, for a line
 * "event=NAME ...", SANDWALL_EVENT=NAME), syslog(3) otherwise. LOG_DEBUG
 * is dropped unless verbose. errno is preserved, so callers may log before
 * returning -errno. The only global state. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "lib/log.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static char log_ident[64] = "sandwall";
static bool log_stderr = true, log_syslog, log_verbose, log_stamp, log_kv;
static int log_facility = LOG_USER, log_journal = -1;

/* journald's socket (SANDWALL_JOURNAL_SOCKET names another, for tests):
 * a datagram socket connected to it, or -1 (syslog then) */
static int journal_open(void)
{
	const char *path = getenv("SANDWALL_JOURNAL_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (!path || !path[0])
		path = JOURNAL_SOCKET;
	if (strlen(path) >= sizeof(sa.sun_path) || stat(path, &st) || !S_ISSOCK(st.st_mode))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void sw_log_init(const char *ident, bool to_stderr, bool to_syslog, int facility)
{
	sw_log_close();
	if (ident)
		snprintf(log_ident, sizeof(log_ident), "%s", ident);
	log_stderr = to_stderr;
	log_syslog = to_syslog;
	log_facility = facility;
	if (log_syslog && (log_journal = journal_open()) < 0)
		openlog(log_ident, LOG_PID | LOG_NDELAY, facility);
}

void sw_log_close(void)
{
	if (log_journal >= 0)
		close(log_journal);
	else if (log_syslog)
		closelog();
	log_journal = -1;
	log_syslog = false;
}

void sw_log_set_verbose(bool verbose)
{
	log_verbose = verbose;
}

void sw_log_set_stamp(bool stamp)
{
	log_stamp = stamp;
}

void sw_log_set_kv(bool kv)
{
	log_kv = kv;
}

bool sw_log_is_kv(const char *msg)
{
	/* a key: [a-z0-9_.-]+ right before '=' */
	size_t k = strspn(msg, "abcdefghijklmnopqrstuvwxyz0123456789_.-");

	return k > 0 && msg[k] == '=';
}

size_t sw_log_kv(char *out, size_t cap, int prio, const char *msg)
{
	static const char *const level[8] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
	};
	size_t n;
	int len;

	if (!cap)
		return 0;
	if (sw_log_is_kv(msg)) {
		n = strlen(msg);
		if (n >= cap)
			n = cap - 1;
		memcpy(out, msg, n);
		out[n] = '\0';
		return n;
	}
	len = snprintf(out, cap, "level=%s msg=\"", level[LOG_PRI(prio)]);
	if (len < 0 || (size_t)len >= cap) {
		out[0] = '\0';
		return 0;
	}
	n = (size_t)len;
	/* the text as one quoted value: quotes and backslashes escaped, a
	 * newline or a control character made a blank */
	for (const char *c = msg; *c && n + 4 < cap; c++) {
		if (*c == '"' || *c == '\\')
			out[n++] = '\\';
		out[n++] = (unsigned char)*c < 0x20 ? ' ' : *c;
	}
	out[n++] = '"';
	out[n] = '\0';
	return n;
}

size_t sw_log_journal_entry(char *out, size_t cap, int prio, int facility, const char *ident,
			    const char *msg)
{
	/* "event=NAME ..." (or "... event=NAME") names the event */
	const char *ev = !strncmp(msg, "event=", 6) ? msg : strstr(msg, " event=");
	char event[64] = "";
	size_t n, e;
	int len;

	if (ev) {
		ev += ev == msg ? 6 : 7;
		e = strcspn(ev, " \"");
		if (e && e < sizeof(event)) {
			memcpy(event, ev, e);
			event[e] = '\0';
		}
	}
	len = snprintf(out, cap, "PRIORITY=%d\nSYSLOG_FACILITY=%d\nSYSLOG_IDENTIFIER=%s\n"
		       "SYSLOG_PID=%d\n%s%s%sMESSAGE=", LOG_PRI(prio), LOG_FAC(facility), ident,
		       (int)getpid(), event[0] ? "SANDWALL_EVENT=" : "", event, event[0] ? "\n" : "");
	if (len < 0 || (size_t)len >= cap)
		return 0;
	n = (size_t)len;
	/* MESSAGE's value on one line: a newline inside would end the field */
	for (const char *c = msg; *c && n + 2 < cap; c++)
		out[n++] = *c == '\n' ? ' ' : *c;
	out[n++] = '\n';
	out[n] = '\0';
	return n;
}

static void stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	if ((size_t)snprintf(buf, len, "time=%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ ", tm.tm_year + 1900,
			     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			     ts.tv_nsec / 1000) >= len)
		buf[0] = '\0';
}

void sw_log(int prio, const char *fmt, ...)
{
	int saved = errno;
	char buf[2048], entry[2560], when[80] = "";
	size_t n;
	va_list ap;

	if (LOG_PRI(prio) == LOG_DEBUG && !log_verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (log_kv && !sw_log_is_kv(buf)) {
		char kv[sizeof(buf)];

		sw_log_kv(kv, sizeof(kv), prio, buf);
		memcpy(buf, kv, sizeof(buf));
	}
	if (log_stderr) {
		if (log_stamp)
			stamp(when, sizeof(when));
		fprintf(stderr, "%s: %s%s\n", log_ident, when, buf);
	}
	if (log_syslog) {
		n = log_journal >= 0 ? sw_log_journal_entry(entry, sizeof(entry), prio, log_facility,
							     log_ident, buf) : 0;
		if (!n || send(log_journal, entry, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			syslog(prio, "%s", buf);
	}
	errno = saved;
}
