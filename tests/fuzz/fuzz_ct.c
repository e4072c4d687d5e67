// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_ct: one ctnetlink datagram (conntrack events or dump replies)
 * through the network log's parser, each flow into the flow table and
 * its record. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "host/flowtab.h"
#include "kernel/ctevents.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_ct_flow f[16];
	struct sw_flowtab t;
	uint8_t *buf = malloc(size ? size : 1);
	size_t n, bad = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	n = sw_ct_parse(buf, size, f, 16, &bad);
	if (n > 16)
		__builtin_trap();
	if (sw_flowtab_init(&t, 4) == 0) {
		for (size_t i = 0; i < n; i++) {
			struct sw_flow out;
			struct sw_jw w;

			if (f[i].family != AF_INET && f[i].family != AF_INET6)
				__builtin_trap();
			if (!f[i].has_counters && (f[i].orig_bytes || f[i].reply_bytes))
				__builtin_trap();     /* a count made up */
			if (f[i].kind == SW_CT_DESTROY) {
				if (sw_flowtab_end(&t, &f[i], 2, &out) == 0) {
					sw_jw_init(&w);
					sw_flow_json(&w, NULL, &out, "closed", 3);
					sw_jw_free(&w);
				}
			} else {
				sw_flowtab_seen(&t, &f[i], "eth0", 1);
			}
		}
		sw_flowtab_free(&t);
	}
	free(buf);
	return 0;
}
