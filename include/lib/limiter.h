/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_LIMITER_H
#define SANDWALL_LIMITER_H
/* limiter: at most one line per key and window (the daemon's
 * event=blocked lines: one a second per source and destination). A fixed
 * table of hashed slots: a key that collides with another takes its slot
 * (more lines, never fewer). */
#include <stdint.h>

#define SW_LIMITER_SLOTS 128
#define SW_LIMITER_KEY   36

struct sw_limiter_slot {
	uint8_t key[SW_LIMITER_KEY];
	int64_t last_us;
	unsigned suppressed;
};

struct sw_limiter {
	struct sw_limiter_slot slot[SW_LIMITER_SLOTS];
};

/* May a line for key go out at now_us? Returns -1 (no: counted), or the
 * number of lines suppressed for this key since its last one. */
long sw_limiter_admit(struct sw_limiter *l, const uint8_t key[SW_LIMITER_KEY], int64_t now_us,
		      int64_t window_us);

#endif
