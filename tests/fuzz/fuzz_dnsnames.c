// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_dnsnames: one raw packet as NFLOG hands it out (IPv4 or IPv6, UDP
 * or TCP from 53, DNS replies: over TCP each behind its 2-byte length)
 * through the packet parser, sw_dns_parse_reply and the names table
 * (dnsnames.c), then the input alone through sw_dns_parse_reply. Input:
 * the packet. Checks: nothing read past it (an exact-size copy, ASan),
 * every message inside the packet and after the one before it, every name
 * of the last message recorded findable and NUL-terminated, the table's
 * counts bounded. */
#include <errno.h>
#include <stdbool.h>
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
		struct sw_dns_packet q = p;
		struct sw_dns_reply last = { .id = 0 };
		const uint8_t *end = buf;
		size_t msgs = 0;
		bool any = false;
		int rc;

		/* each message inside the packet, after the one before it; the
		 * last one of the packet's family is what the table holds last */
		do {
			if (q.msg < end || q.msg + q.len > buf + size || q.rest > size)
				__builtin_trap();
			end = q.msg + q.len;
			if (++msgs > size)
				__builtin_trap();       /* each message costs at least its prefix */
			if (sw_dns_parse_reply(q.msg, q.len, &r) == 0 && r.ans.n &&
			    r.ans.qtype == (p.family == AF_INET ? SW_DNS_A : SW_DNS_AAAA)) {
				last = r;
				any = true;
			}
		} while (!(rc = sw_dns_packet_next(&q)));
		if (rc != -ENODATA && rc != -EBADMSG)
			__builtin_trap();
		n = sw_dnsnames_learn(&table, buf, size, 1000);
		if (n > (int)(msgs * SW_DNS_MAXADDRS) || (n > 0 && table.stored != (uint64_t)n))
			__builtin_trap();
		/* each answer findable, unless a set overflowed (evicted counts it) */
		if (n > 0 && !table.evicted && any) {
			for (size_t i = 0; i < last.ans.n; i++)
				if (sw_dnsnames_get(&table, p.family, p.client, last.ans.a[i].addr, 1000, out) ||
				    strlen(out) >= SW_DNS_NAMELEN || strcmp(out, last.qname))
					__builtin_trap();
			if (sw_dnsnames_get(&table, p.family, p.client, last.ans.a[0].addr,
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
