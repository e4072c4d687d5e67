// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_nflog: one NFLOG datagram through the blocked-attempt parser and
 * the line the journal gets. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/nflog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_blocked b[8];
	uint8_t *buf = malloc(size ? size : 1);
	size_t n;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	n = sw_nflog_parse(buf, size, b, 8);
	if (n > 8)
		__builtin_trap();
	for (size_t i = 0; i < n; i++) {
		char line[256];

		if (strnlen(b[i].category, sizeof(b[i].category)) == sizeof(b[i].category))
			__builtin_trap();
		/* the copied packet lies inside the datagram */
		if (b[i].payload && (b[i].payload < (const uint8_t *)buf ||
				     b[i].payload + b[i].payload_len > (const uint8_t *)buf + size))
			__builtin_trap();
		sw_blocked_format(&b[i], line, sizeof(line));
	}
	free(buf);
	return 0;
}
