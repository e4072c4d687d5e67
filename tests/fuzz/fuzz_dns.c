// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_dns: one UDP reply through the stub's strict parser (dns.c), and
 * what it yields through the resolver's bookkeeping (resolver.c, fake
 * clock). Input: byte 0 picks the question (name and A/AAAA), the rest
 * is the reply; its first two bytes are taken as our query id, so the
 * fuzzer gets past the id check into the records. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dns.h"
#include "lib/log.h"
#include "host/resolver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"pypi.org", "files.pythonhosted.org", "a.example", "x.io",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_resolver_name rn;
	struct sw_resolver r;
	struct sw_dns_answer a;
	char out[SW_DNS_NAMELEN];
	const uint8_t *msg;
	const char *name;
	uint16_t qtype, id;
	uint8_t *buf;
	size_t len, off = 12;

	if (size < 1)
		return 0;
	sw_log_init("fuzz_dns", false, false, 0);       /* the expiry line: quiet */
	name = names[data[0] & 3];
	qtype = data[0] & 4 ? SW_DNS_AAAA : SW_DNS_A;
	len = size - 1;
	/* an exact-size copy: ASan sees any read past the message */
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	msg = buf;
	id = len >= 2 ? (uint16_t)(msg[0] << 8 | msg[1]) : 0;
	if (sw_dns_parse(msg, len, id, name, qtype, &a) == 0) {
		if (a.n > SW_DNS_MAXADDRS || a.chain > SW_DNS_MAXCHAIN)
			__builtin_trap();
		for (size_t i = 0; i < a.n; i++)
			if (a.a[i].ttl & 0x80000000u)
				__builtin_trap();
		/* the answer through the resolver: clamp, merge, expire */
		memset(&r, 0, sizeof(r));
		memset(&rn, 0, sizeof(rn));
		strcpy(rn.name, name);
		r.names = &rn;
		r.n_names = 1;
		r.min_ttl = 30;
		r.max_ttl = 3600;
		r.fd[0] = r.fd[1] = -1;
		sw_resolver_answer(&r, 0, &a, 1000);
		if (rn.n_addrs > SW_RESOLVER_MAXADDRS)
			__builtin_trap();
		for (size_t i = 0; i < rn.n_addrs; i++)
			if (rn.addrs[i].expires_ms < 1000 + 30000 || rn.addrs[i].expires_ms > 1000 + 3600000)
				__builtin_trap();
		sw_resolver_expire(&r, 1000 + 3600000);
		if (rn.n_addrs)
			__builtin_trap();
	}
	if (len > 12 && sw_dns_name_read(msg, len, &off, out) == 0 &&
	    (strlen(out) > SW_DNS_NAMELEN - 1 || off > len))
		__builtin_trap();
	free(buf);
	return 0;
}
