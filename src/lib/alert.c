// SPDX-License-Identifier: GPL-2.0-or-later
/* alert: rate-limited event lines. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "lib/alert.h"
#include "lib/log.h"

static int64_t now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

void sw_alert_init(struct sw_alert *a, unsigned per_sec, const char *name)
{
	a->name = name;
	a->per_sec = per_sec ? per_sec : 1;
	a->window = now_sec();
	a->sent = a->suppressed = 0;
}

void sw_alert_flush(struct sw_alert *a)
{
	int64_t now = now_sec();

	if (now == a->window)
		return;
	if (a->suppressed)
		sw_log(LOG_WARNING, "event=suppressed lines=%s count=%u seconds=%lld", a->name,
		       a->suppressed, (long long)(now - a->window));
	a->window = now;
	a->sent = a->suppressed = 0;
}

bool sw_alert_pending(const struct sw_alert *a)
{
	return a->suppressed > 0;
}

void sw_alert(struct sw_alert *a, int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	sw_alert_flush(a);
	/* critical lines are never suppressed */
	if (a->sent >= a->per_sec && prio > LOG_CRIT) {
		a->suppressed++;
		return;
	}
	a->sent++;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sw_log(prio, "%s", line);
}
