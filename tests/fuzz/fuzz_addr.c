// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_addr: address/prefix text through the strict and loose parsers
 * (and the IPv4 one against inet_pton),
 * formatting back, masking, ranges and containment. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "lib/addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_prefix p, q, r;
	const char *why = NULL;
	char *s, out[128];

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	{
		/* the hand-written IPv4 parser agrees with inet_pton, bytes too */
		uint8_t a[4] = { 0 }, b[4] = { 0 };
		size_t n = strlen(s);
		int ours = sw_ipv4_parse(s, n, a) == 0, libc = inet_pton(AF_INET, s, b) == 1;

		if (ours != libc || (ours && memcmp(a, b, 4)))
			__builtin_trap();
	}
	if (sw_prefix_parse(s, &p, &why) == 0) {
		uint8_t first[16], last[16];
		size_t alen = sw_family_addrlen(p.family);

		if (!alen || p.len > alen * 8)
			__builtin_trap();
		if (sw_prefix_format(&p, out, sizeof(out)) == 0) {
			/* what we print parses back to the same prefix */
			if (sw_prefix_parse(out, &q, NULL) || !sw_prefix_equal(&p, &q))
				__builtin_trap();
		}
		r = p;
		sw_prefix_mask(&r);
		if (!sw_prefix_contains(&r, &p))
			__builtin_trap();
		sw_prefix_range(&p, first, last);
		if (sw_key_cmp(first, last, alen) > 0)
			__builtin_trap();
		sw_key_inc(last, alen);
	}
	if (sw_prefix_parse_loose(s, &q, &why) == 0)
		sw_prefix_format(&q, out, sizeof(out));
	free(s);
	return 0;
}
