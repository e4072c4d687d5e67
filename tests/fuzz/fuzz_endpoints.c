// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_endpoints: list text (the rules/metadata.list format) through the
 * endpoint-list parser, with a small capacity so -ENOSPC is reached. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/endpoints.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_prefix out[16];
	unsigned bad = 0;
	size_t n = 0;
	char *s;

	if (size > 64 * 1024)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (sw_endpoints_parse(s, out, 16, &n, &bad) == 0 && n > 16)
		__builtin_trap();
	free(s);
	return 0;
}
