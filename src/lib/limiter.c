// SPDX-License-Identifier: GPL-2.0-or-later
/* limiter: one line per key and window (see include/lib/limiter.h). */
#include <stdbool.h>
#include <string.h>

#include "lib/limiter.h"

long sw_limiter_admit(struct sw_limiter *l, const uint8_t key[SW_LIMITER_KEY], int64_t now_us,
		      int64_t window_us)
{
	struct sw_limiter_slot *s;
	uint32_t h = 2166136261u;       /* FNV-1a */
	long sup = 0;
	bool same;

	for (size_t i = 0; i < SW_LIMITER_KEY; i++)
		h = (h ^ key[i]) * 16777619u;
	s = &l->slot[h % SW_LIMITER_SLOTS];
	same = !memcmp(s->key, key, SW_LIMITER_KEY);
	if (same && s->last_us && now_us - s->last_us < window_us) {
		s->suppressed++;
		return -1;
	}
	if (same)
		sup = (long)s->suppressed;
	memcpy(s->key, key, SW_LIMITER_KEY);
	s->last_us = now_us;
	s->suppressed = 0;
	return sup;
}
