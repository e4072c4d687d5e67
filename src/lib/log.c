/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log: the one place messages leave the program: stderr ("ident: msg")
 * and/or syslog. LOG_DEBUG is dropped unless verbose. errno is preserved,
 * so callers may log before returning -errno. The only global state. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

static char log_ident[64] = "sandwall";
static bool log_stderr = true, log_syslog, log_verbose;

void sw_log_init(const char *ident, bool to_stderr, bool to_syslog, int facility)
{
	sw_log_close();
	if (ident)
		snprintf(log_ident, sizeof(log_ident), "%s", ident);
	log_stderr = to_stderr;
	log_syslog = to_syslog;
	if (log_syslog)
		openlog(log_ident, LOG_PID | LOG_NDELAY, facility);
}

void sw_log_close(void)
{
	if (log_syslog)
		closelog();
	log_syslog = false;
}

void sw_log_set_verbose(bool verbose)
{
	log_verbose = verbose;
}

void sw_log(int prio, const char *fmt, ...)
{
	int saved = errno;
	char buf[2048];
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
	if (log_stderr)
		fprintf(stderr, "%s: %s\n", log_ident, buf);
	if (log_syslog)
		syslog(prio, "%s", buf);
	errno = saved;
}
