/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_VERIFY_H
#define SANDWALL_VERIFY_H
/* verify: prove the boundary with real packets from the container side.
 * Plan (pure): the targets that must be blocked (metadata endpoints,
 * default gateways, LAN gateways, every host address x every listening
 * TCP port) and the canaries that must stay open. Run: from a throwaway
 * namespace on each guarded bridge, through a throwaway routed veth and a
 * throwaway tap when links of those kinds are guarded, or from an existing
 * namespace (--pid, --netns). From the throwaway namespaces also the
 * attacks of a hostile container (include/cli/attack.h): conntrack priming, ND
 * with a payload, broadcast and multicast to a canary on the host; and for
 * every [sandbox] with egress none or allowlist that a run's namespace
 * falls under (interface pattern or source), a connection to a destination
 * outside its allow list (a throwaway "sink" namespace verify routes from
 * the host) that must be blocked and counted by egress_<name>, and a probe
 * of each allowlisted address (reported open or unreachable). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "cli/attack.h"
#include "core/config.h"
#include "host/hoststate.h"
#include "lib/json.h"
#include "cli/probe.h"

#define SW_VERIFY_MAX   512
#define SW_VERIFY_BUDGET_MAX 64 /* budgets and max_connections up to this many
				 * connections are probed */

/* What a target proves. The names are the "category" of the text and JSON
 * output. */
enum sw_vcat {
	SW_VCAT_METADATA,
	SW_VCAT_GATEWAYS,
	SW_VCAT_LAN,
	SW_VCAT_HOST,
	SW_VCAT_EXPECT_OPEN,        /* a canary (--expect-open): must stay open */
	SW_VCAT_SPOOFED,            /* priming attacks */
	SW_VCAT_ND,                 /* NS with a payload */
	SW_VCAT_BROADCAST,          /* broadcast/multicast to the host's canary */
	SW_VCAT_EGRESS,             /* a sandbox's unlisted destination: must be blocked */
	SW_VCAT_ALLOWED,            /* a sandbox's allowlisted address: reported, never a failure */
	SW_VCAT_BUDGET,             /* a sandbox's budget: one connection over it must be counted */
	SW_VCAT_CONNS,              /* its max_connections ("max_connections"): the same */
	SW_VCAT_COUNT
};
const char *sw_vcat_name(enum sw_vcat c);
/* The block category a row of c tests (enum sw_category), or -1. */
int sw_vcat_category(enum sw_vcat c);

struct sw_verify_target {
	enum sw_vcat cat;
	bool must_block;            /* false: a canary that must stay open (or ALLOWED: a report) */
	int sandbox;                /* 1 + index in cfg->sandboxes (EGRESS/ALLOWED rows), 0: none */
	char sandbox_name[SW_SANDBOX_NAMELEN];
	struct sw_probe probe;      /* the target's address and port (attacks too) */
	struct sw_attack atk;       /* atk.kind != SW_ATK_NONE: an attack, not a TCP probe */
};

struct sw_verify {
	struct sw_verify_target t[SW_VERIFY_MAX];
	size_t n;
	char from[192];             /* "bridge docker0 as 172.17.255.254/16 and fd00::fffd/64", "pid 123" */
	char link[16];              /* the guarded link the run probes through ("" for --pid/--netns) */
	const char *why;            /* why that link is guarded (sw_guard_why_name), or NULL */
	const char *site;           /* "bridge", "routed veth", "tap"; NULL for --pid/--netns */
	uint32_t sandboxes;         /* bit i: cfg->sandboxes[i] applies to this run's namespace */
	uint32_t in_sandboxes;      /* bit i: the run's namespace is a source of cfg->sandboxes[i],
				     * whatever its egress (its chain counts and quarantines it) */
	struct sw_prefix src[2];    /* the run's own addresses (throwaway runs): its
				     * probes are told apart from the sandboxes' traffic */
	size_t n_src;
	/* the probe's own address was cut off (max_connections, a quarantine)
	 * while the targets that must be blocked were probed: their timeouts
	 * are no proof, and the run does not pass. cut_off_by: the counter
	 * that grew ("connections_agents") */
	bool cut_off;
	char cut_off_by[48];
};

/* Listening TCP ports of the current namespace (/proc/net/tcp, tcp6). */
int sw_verify_listening(uint16_t *ports, size_t max, size_t *n);
/* The plan. ports: the host's listening TCP ports. expect_open: "HOST:PORT"
 * or "HOST:tcp/PORT" ([V6]:PORT for IPv6). */
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
/* Does sandbox x let a new TCP connection to a:port through its policy
 * (dns = auto to a resolver on port 53, or an allow entry)? */
bool sw_verify_sandbox_allows(const struct sw_sandbox *x, const struct sw_host *host,
			      const struct sw_prefix *a, uint16_t port);
/* Add the sandbox rows of one run whose namespace sends from self4 (and
 * self6, family 0: none) through the guarded link ifname: for every
 * sandbox with egress none or allowlist that matches (an interface
 * pattern names ifname, or a source holds self4/self6) its bit in
 * v->sandboxes; canaries it does not allow become EGRESS targets that
 * must be blocked; when sink is given (family != 0) and not allowed, an
 * EGRESS attack (SW_ATK_EGRESS) to sink:sink_port counted by
 * egress_<name> (or budget_<name> when it has a budget), and for a
 * budget of at most SW_VERIFY_BUDGET_MAX a BUDGET attack of budget + 1
 * connections counted by budget_<name>, and for a max_connections N of at
 * most SW_VERIFY_BUDGET_MAX that the probe can prove
 * (sw_verify_conns_why_not) a CONNS attack of N + 1 connections to the
 * sink counted by connections_<name>; for allowlist,
 * each single-address TCP entry that no global target blocks as an
 * ALLOWED row. Returns 0 or -ENOSPC. */
int sw_verify_add_sandboxes(const struct sw_config *cfg, const struct sw_host *host,
			    struct sw_verify *v, const char *ifname, const struct sw_prefix *self4,
			    const struct sw_prefix *self6, const struct sw_prefix *sink,
			    uint16_t sink_port);
/* Why a sandbox's max_connections is not probed (NULL: it is, when a run
 * applies and there is a sink): above SW_VERIFY_BUDGET_MAX, or a
 * quarantine_on (egress; budget, when it has one) that the connections
 * under the cap would trip before the one over it is counted. */
const char *sw_verify_conns_why_not(const struct sw_sandbox *x);
/* Did it hold? (every must-block target blocked, every canary open) */
bool sw_verify_passed(const struct sw_verify *v);
/* A target's verdict. */
enum sw_vverdict {
	SW_VV_BLOCKED,
	SW_VV_OPEN,
	SW_VV_SKIPPED,              /* no route (e.g. no IPv6): proves nothing, fails nothing */
	SW_VV_UNREACHABLE,          /* an ALLOWED row that did not answer: a report */
	SW_VV_FAIL,
	SW_VV_COUNT
};
enum sw_vverdict sw_verify_verdict_of(const struct sw_verify_target *t);
/* Its name: "blocked", "open", "skipped", "unreachable", "FAIL" */
const char *sw_verify_verdict(const struct sw_verify_target *t);
/* Runs are numbered from 1 in the text and the JSON alike ("run N" lines,
 * runs[].run, guarded[].run, sandboxes[].first_run); run 0: unnumbered. */
/* One run as text (a table and a HELD/NOT HELD line). */
void sw_verify_text(const struct sw_verify *v, size_t run, FILE *f);
/* One run as a JSON object (an element of "runs"). */
void sw_verify_json(const struct sw_verify *v, size_t run, struct sw_jw *w);
/* Text, or the run's JSON object (no newline) for json. */
void sw_verify_print(const struct sw_verify *v, size_t run, FILE *f, bool json);
/* The [allow] entries marked `reopen` and the categories they reopen:
 * text lines, or with w the member "holes":[...] of the open object. */
void sw_verify_print_holes(const struct sw_config *cfg, const struct sw_host *host, FILE *f);
void sw_verify_holes_json(const struct sw_config *cfg, const struct sw_host *host, struct sw_jw *w);

struct sw_verify_opts {
	pid_t pid;                  /* probe from /proc/PID/ns/net */
	const char *netns;          /* probe from this namespace file */
	unsigned timeout_ms;
	char *expect_open[32];      /* SW_VERIFY_MAX_OPEN */
	size_t n_open;
	bool json;
	const char *record;         /* write the JSON result here ("" = no) */
	bool no_attacks;            /* --no-attacks: TCP probes only */
	bool has_uid;               /* --uid: probe as this user, from the host */
	uint32_t uid;
	const char *cgroup;         /* --cgroup: probe from this cgroup (below the
				     * cgroup2 root), from the host */
	const char *control;        /* the daemon's control socket (NULL: not asked) */
};

/* verify's command-line options, one table entry each: the CLI adds them
 * to its getopt table (val = SW_VERIFY_OPT_BASE + index) and hands every
 * one to sw_verify_opt. */
#define SW_VERIFY_OPT_BASE 0x1000
#define SW_VERIFY_MAX_OPEN 32
_Static_assert(sizeof(((struct sw_verify_opts *)0)->expect_open) ==
	       SW_VERIFY_MAX_OPEN * sizeof(char *), "expect_open size");
struct sw_verify_optdef {
	const char *name;           /* the long option */
	bool has_arg;
	const char *arg;            /* its argument in the help text, or NULL */
	const char *help;
	/* 0, or -EINVAL with the message in err */
	int (*set)(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen);
};
extern const struct sw_verify_optdef sw_verify_optdefs[];
extern const size_t sw_verify_n_optdefs;
/* Apply option number idx (an index in sw_verify_optdefs): 0 or -EINVAL
 * (err filled). */
int sw_verify_opt(struct sw_verify_opts *o, size_t idx, const char *arg, char *err, size_t errlen);

/* The whole command: returns the exit code (0 held, 1 not, 2 error). */
int sw_verify_cmd(const struct sw_config *cfg, const struct sw_verify_opts *o);

#endif
