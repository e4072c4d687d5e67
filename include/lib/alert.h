/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ALERT_H
#define SANDWALL_ALERT_H
/* alert: key=value event lines through the log module, at most `per_sec`
 * a second; the rest are counted and reported as event=suppressed. */
#include <stdbool.h>
#include <stdint.h>

struct sw_alert {
	const char *name;        /* "events", "blocked": named in event=suppressed */
	unsigned per_sec;
	int64_t window;          /* monotonic second of the current window */
	unsigned sent;
	unsigned suppressed;
};

void sw_alert_init(struct sw_alert *a, unsigned per_sec, const char *name);
void sw_alert(struct sw_alert *a, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Report what was suppressed once its window is over. */
void sw_alert_flush(struct sw_alert *a);
/* Is a summary waiting for its window to end? */
bool sw_alert_pending(const struct sw_alert *a);

#endif
