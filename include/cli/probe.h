/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_PROBE_H
#define SANDWALL_PROBE_H
/* probe: TCP connection attempts, all in parallel, from the calling
 * thread's network namespace. SYN-ACK or RST means reachable; a timeout
 * or an ICMP "prohibited/unreachable" means blocked. */
#include <stddef.h>
#include <stdint.h>
#include "lib/addr.h"

enum sw_probe_result {
	SW_PROBE_PENDING,
	SW_PROBE_OPEN,          /* SYN-ACK: reachable */
	SW_PROBE_REFUSED,       /* RST: reachable */
	SW_PROBE_TIMEOUT,       /* blocked */
	SW_PROBE_PROHIBITED,    /* ICMP unreachable/prohibited: blocked */
	SW_PROBE_NOROUTE,       /* the namespace has no route (e.g. no IPv6) */
	SW_PROBE_ERROR,
};

struct sw_probe {
	struct sw_prefix addr;  /* full-length */
	uint16_t port;
	enum sw_probe_result result;
	int err;                /* errno of the attempt */
	unsigned ms;            /* time to the answer */
};

const char *sw_probe_result_name(enum sw_probe_result r);
static inline int sw_probe_reachable(const struct sw_probe *p)
{
	return p->result == SW_PROBE_OPEN || p->result == SW_PROBE_REFUSED;
}
/* Run all probes; returns 0 or -errno (setup failures only). */
int sw_probe_run(struct sw_probe *p, size_t n, unsigned timeout_ms);

#endif
