/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_VERIFY_H
#define SANDWALL_VERIFY_H
/* verify: prove the boundary with real packets from the container side.
 * Plan (pure): the targets that must be blocked (metadata endpoints,
 * default gateways, LAN gateways, every host address x every listening
 * TCP port) and the canaries that must stay open. Run: from a throwaway
 * namespace on each guarded bridge, or from an existing one (--pid,
 * --netns). From the throwaway namespaces also the attacks of a hostile
 * container (include/attack.h): conntrack priming, ND with a payload,
 * broadcast and multicast to a canary on the host. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "attack.h"
#include "config.h"
#include "hoststate.h"
#include "probe.h"

#define SW_VERIFY_MAX   512

struct sw_verify_target {
	char category[16];          /* metadata, gateways, lan, host, expect-open,
				     * spoofed, nd, broadcast */
	bool must_block;            /* false: a canary that must stay open */
	struct sw_probe probe;      /* the target's address and port (attacks too) */
	struct sw_attack atk;       /* atk.kind != SW_ATK_NONE: an attack, not a TCP probe */
};

struct sw_verify {
	struct sw_verify_target t[SW_VERIFY_MAX];
	size_t n;
	char from[192];             /* "bridge docker0 as 172.17.255.254/16 and fd00::fffd/64", "pid 123" */
};

/* Listening TCP ports of the current namespace (/proc/net/tcp, tcp6). */
int sw_verify_listening(uint16_t *ports, size_t max, size_t *n);
/* The plan. ports: the host's listening TCP ports. expect_open: "HOST:PORT". */
int sw_verify_plan(const struct sw_config *cfg, const struct sw_host *host,
		   const uint16_t *ports, size_t n_ports,
		   char *const *expect_open, size_t n_open,
		   struct sw_verify *v, char *err, size_t errlen);
/* Append the attacks of one throwaway-namespace run to v (after its
 * plan): for IPv4 (and IPv6 when v6) the first metadata, gateways and
 * host target each primed with a forged TCP SYN and a forged UDP datagram
 * (category spoofed; IPv4 also through the broadcast MAC), for IPv6 an NS
 * with a payload to the first metadata/gateways/lan target (category nd,
 * counted by that category), and UDP to each of bcast (directed
 * broadcasts), 255.255.255.255 and 224.0.0.1 (canary4) and ff02::1
 * (canary6) on canary_port, each family with its control (the host to
 * 127.0.0.1 or ::1, which must be heard). Returns 0 or -ENOSPC. */
int sw_verify_add_attacks(struct sw_verify *v, bool v6, const struct sw_prefix *bcast,
			  size_t n_bcast, bool canary4, bool canary6, uint16_t canary_port);
/* Did it hold? (every must-block target blocked, every canary open) */
bool sw_verify_passed(const struct sw_verify *v);
void sw_verify_print(const struct sw_verify *v, size_t n_runs, FILE *f, bool json);
/* The [allow] entries marked `reopen` and the categories they reopen:
 * text lines, or a JSON member "holes":[...], (with its comma). */
void sw_verify_print_holes(const struct sw_config *cfg, const struct sw_host *host, FILE *f,
			   bool json);

struct sw_verify_opts {
	pid_t pid;                  /* probe from /proc/PID/ns/net */
	const char *netns;          /* probe from this namespace file */
	unsigned timeout_ms;
	char *const *expect_open;
	size_t n_open;
	bool json;
	const char *record;         /* write the JSON result here ("" = no) */
	bool no_attacks;            /* --no-attacks: TCP probes only */
	bool has_uid;               /* --uid: probe as this user, from the host */
	uint32_t uid;
	const char *cgroup;         /* --cgroup: probe from this cgroup (below the
				     * cgroup2 root), from the host */
};

/* The whole command: returns the exit code (0 held, 1 not, 2 error). */
int sw_verify_cmd(const struct sw_config *cfg, const struct sw_verify_opts *o);

#endif
