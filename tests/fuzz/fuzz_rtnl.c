// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_rtnl: one rtnetlink datagram through the host-state parsers (links,
 * addresses, default routes with multipath) and the daemon's link-event
 * filter. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/events.h"
#include "host/hoststate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sw_host h;
	uint8_t *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	sw_host_clear(&h);
	sw_host_parse_rtnl(&h, buf, size);
	if (h.n_links > SW_MAX_LINKS || h.n_addrs > SW_MAX_ADDRS ||
	    h.n_gateways > SW_MAX_GATEWAYS)
		__builtin_trap();
	for (size_t i = 0; i < h.n_links; i++)
		if (strnlen(h.links[i].name, sizeof(h.links[i].name)) == sizeof(h.links[i].name))
			__builtin_trap();       /* names stay terminated */
	sw_events_parse_rt(buf, size);
	free(buf);
	return 0;
}
