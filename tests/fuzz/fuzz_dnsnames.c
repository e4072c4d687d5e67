// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_dnsnames: one raw packet as NFLOG hands it out (IPv4 or IPv6, UDP
 * from 53, a DNS reply) through the packet parser, sw_dns_parse_reply and
 * the names table (dnsnames.c), then the reply alone through
 * sw_dns_parse_reply. Input: the packet. Checks: nothing read past it
 * (an exact-size copy, ASan), the payload inside the packet, every name
 * recorded findable and NUL-terminated, the table's counts bounded. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "host/dnsnames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sw_dnsnames table;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_dns_packet p;
	struct sw_dns_reply r;
	char out[SW_DNS_NAMELEN];
	uint8_t *buf = malloc(size ? size : 1);
	int n;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	sw_dnsnames_init(&table, 7);
	if (sw_dns_packet_parse(buf, size, &p) == 0) {
		if (p.msg < buf || p.msg + p.len > buf + size)
			__builtin_trap();
		n = sw_dnsnames_learn(&table, buf, size, 1000);
		if (n > SW_DNS_MAXADDRS || (n > 0 && table.stored != (uint64_t)n))
			__builtin_trap();
		/* each answer findable, unless a set overflowed (evicted counts it) */
		if (n > 0 && !table.evicted && sw_dns_parse_reply(p.msg, p.len, &r) == 0) {
			for (size_t i = 0; i < r.ans.n; i++)
				if (sw_dnsnames_get(&table, p.family, p.client, r.ans.a[i].addr, 1000, out) ||
				    strlen(out) >= SW_DNS_NAMELEN || strcmp(out, r.qname))
					__builtin_trap();
			if (sw_dnsnames_get(&table, p.family, p.client, r.ans.a[0].addr,
					    1000 + SW_DNSNAMES_TTL_MAX, out) == 0)
				__builtin_trap();
		}
	}
	if (sw_dns_parse_reply(buf, size, &r) == 0 &&
	    (r.ans.n > SW_DNS_MAXADDRS || !r.qname[0] || strlen(r.qname) >= SW_DNS_NAMELEN))
		__builtin_trap();
	free(buf);
	return 0;
}
