/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ATTACK_H
#define SANDWALL_ATTACK_H
/* attack: the raw-packet attacks of a hostile root in a container with
 * CAP_NET_RAW (docs/threat-model.md) that `sandwall verify` runs from its
 * throwaway probe namespace:
 *   - conntrack reply priming: an Ethernet frame to the bridge's MAC (or
 *     to ff:ff:ff:ff:ff:ff) with a TCP SYN or UDP datagram whose source is
 *     forged to TARGET:PORT and whose destination is the probe itself,
 *     then a connection from that port to the target;
 *   - an ICMPv6 neighbour solicitation (hop limit 255) to a blocked
 *     address, carrying a payload option;
 *   - UDP to broadcast and multicast addresses, listened for by a canary
 *     socket in the host's namespace;
 *   - for a sandbox policy: a plain connection to a destination it does
 *     not list, which its egress counter must count; one more than its
 *     budget, which its budget counter must count; and one more than its
 *     max_connections, which its connections counter must count (last:
 *     the connection over it quarantines the probe's address).
 * The evidence is read in the host's namespace through a callback: the
 * named counter of the category that must drop the packet grows, and
 * nothing reaches. Frame builders are pure (unit-tested). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/addr.h"

#define SW_FRAME_MAX 1514

enum sw_frame_kind {
	SW_FRAME_TCP_SYN,       /* 20-byte header + MSS option */
	SW_FRAME_UDP,
	SW_FRAME_NS,            /* ICMPv6 neighbour solicitation + option 253 */
};

struct sw_frame {
	enum sw_frame_kind kind;
	uint8_t dmac[6], smac[6];
	struct sw_prefix src, dst;      /* same family, full-length */
	struct sw_prefix nd_target;     /* NS: the target address */
	uint16_t sport, dport;          /* TCP, UDP */
	uint32_t seq;                   /* TCP: sequence number; IPv4: also the id */
	uint8_t ttl;                    /* TTL or hop limit */
	const uint8_t *payload;         /* UDP data, or the NS option's data */
	size_t plen;
};

/* The Internet checksum (RFC 1071) of data, added to sum (host order
 * partial sum of 16-bit words), folded and complemented. */
uint16_t sw_inet_csum(const void *data, size_t len, uint32_t sum);
/* Ethernet + IPv4/IPv6 + TCP/UDP/ICMPv6 into buf, checksums filled in.
 * Returns 0 and *len, or -EINVAL (bad kind or families), -EMSGSIZE. */
int sw_frame_build(const struct sw_frame *f, uint8_t *buf, size_t size, size_t *len);

enum sw_attack_kind {
	SW_ATK_NONE,            /* not an attack (a TCP probe) */
	SW_ATK_PRIME_TCP,       /* forged SYN from the target, then connect from its port */
	SW_ATK_PRIME_UDP,       /* forged datagram from the target, then send from its port */
	SW_ATK_ND,              /* NS with a payload option, hop limit 255, to the target */
	SW_ATK_BCAST,           /* UDP to a broadcast/multicast address: the canary must not hear it */
	SW_ATK_CANARY,          /* control: the host sends to its own canary (must hear it) */
	SW_ATK_EGRESS,          /* a TCP connection from the probe's own address to a
				 * destination a sandbox does not list: must not connect,
				 * and counter (or counter2) must count it */
	SW_ATK_BUDGET,          /* tries such connections at once: none may connect and the
				 * sandbox's budget counter must count at least one */
	SW_ATK_CONNS,           /* the same for max_connections (tries = N + 1), counted by
				 * connections_<name>; the last phase of all */
};

enum sw_attack_result {
	SW_ATK_PENDING,
	SW_ATK_COUNTED,         /* the table counted it and nothing reached: blocked */
	SW_ATK_SILENT,          /* the canary heard nothing: blocked */
	SW_ATK_HEARD,           /* the canary heard it: open (control) or FAIL */
	SW_ATK_UNCOUNTED,       /* the table's counter did not grow: FAIL */
	SW_ATK_REACHED,         /* the primed connection reached the target: FAIL */
	SW_ATK_UNPROVEN,        /* the canary's control failed: FAIL (proves nothing) */
	SW_ATK_ERROR,
};

struct sw_attack {
	enum sw_attack_kind kind;
	bool bcast_mac;                 /* prime: frame to ff:ff:ff:ff:ff:ff (bridge path) */
	struct sw_prefix target;        /* full-length */
	uint16_t port;
	unsigned tries;                 /* BUDGET, CONNS: how many connections (EGRESS: 1) */
	char counter[32];               /* the named counter that must count it */
	char counter2[32];              /* another counter that may count it instead (a
					 * sandbox's egress_<name> or budget_<name>), "" if none */
	enum sw_attack_result result;
	uint64_t counted;               /* what that counter gained */
	int err;                        /* errno of a failed step */
	unsigned ms;
};

/* Reads one named counter of our table (in the host's namespace). */
typedef int (*sw_attack_count_fn)(void *arg, const char *counter, uint64_t *pkts);

struct sw_attack_env {
	char ifname[16];                /* the probe's interface, in the probe namespace */
	uint8_t gwmac[6];               /* the bridge's MAC */
	struct sw_prefix self4, self6;  /* the probe's addresses (family 0: none) */
	int canary4, canary6;           /* host-namespace UDP sockets on canary_port, or -1 */
	int control4, control6;         /* host-namespace UDP sockets for the control, or -1 */
	uint16_t canary_port;
	unsigned timeout_ms;            /* how long a follow-up connection waits */
	unsigned evidence_ms;           /* how long a counter or the canary is waited for */
	sw_attack_count_fn count;
	void *count_arg;
	/* called before each phase that sends from the probe's own address
	 * (NULL: none): verify takes the probe out of the quarantine its
	 * earlier probes tripped ([sandbox] quarantine_on), so that each
	 * phase is counted by its own category */
	void (*reset)(void *arg);
	void *reset_arg;
	/* around each phase that sends from the probe's own address and is
	 * judged by silence (NULL: none): the begin (end false) starts the
	 * probe's count again and reads what cuts it off (a sandbox's
	 * max_connections; with quarantine also its quarantine), the end
	 * reads it again; verify fails the run when it grew: that silence was
	 * the cut-off's, not its rules'. The follow-ups and the broadcasts
	 * watch the count only: two connections to one target (a follow-up
	 * and its control), or datagrams to one category, trip a quarantine
	 * on the first and meet it with the next, whatever the rules */
	void (*watch)(void *arg, bool end, bool quarantine);
	void *watch_arg;
	/* the plain probes in batches a cut-off does not spoil: at most
	 * batch at a time (0: all at once), and a target whose block trips a
	 * quarantine alone */
	unsigned batch;
	uint32_t trip_cats;             /* bit per enum sw_category that trips one */
	bool trip_egress;               /* its egress policy's block trips one */
};

const char *sw_attack_kind_name(enum sw_attack_kind k);
const char *sw_attack_result_name(enum sw_attack_result r);
/* Is this result a pass? (control: heard; the others: counted or silent) */
bool sw_attack_held(const struct sw_attack *a);
/* The MAC address of ifname in the current network namespace. */
int sw_attack_ifmac(const char *ifname, uint8_t mac[6]);
/* The first of n primed ports: a run outside [lo, hi], the ephemeral
 * range the probe's plain connections take their source ports from, so
 * that a primed conntrack entry (TARGET:80 -> probe:PORT, left when the
 * boundary is broken) can never be met by a later plain probe from the
 * same port and turn it into a reply (it would FAIL for the wrong
 * reason). Ports below 1024 are not used. r is a random number. With no
 * room outside the range, any run above 1024. 0: bad arguments (n too
 * large for the port space, lo > hi). */
uint16_t sw_attack_prime_base(unsigned lo, unsigned hi, size_t n, uint32_t r);
/* Run every attack from the current network namespace (the probe's).
 * Returns 0 or -errno (setup failures only; per-attack failures are in
 * their result). */
int sw_attack_run(const struct sw_attack_env *env, struct sw_attack *a, size_t n);

#endif
