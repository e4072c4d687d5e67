/* SPDX-License-Identifier: GPL-2.0-or-later */
/* grow: see lib/grow.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define GROW_FIRST 16   /* elements of a first allocation */

int sw_grow_to(void *pp, size_t *cap, size_t need, size_t size)
{
	void *p, *np;
	size_t c = *cap;

	if (need <= c)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c = c ? c * 2 : GROW_FIRST;
	}
	if (c > SIZE_MAX / size)
		return -ENOMEM;
	/* the pointer's own type is the caller's: copied, never aliased */
	memcpy(&p, pp, sizeof(p));
	if (!(np = realloc(p, c * size)))
		return -ENOMEM;
	memcpy(pp, &np, sizeof(np));
	*cap = c;
	return 0;
}

int sw_grow(void *pp, size_t *cap, size_t n, size_t size, size_t max)
{
	if (n >= max)
		return -ENOSPC;
	return sw_grow_to(pp, cap, n + 1, size);
}
