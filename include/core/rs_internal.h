/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RS_INTERNAL_H
#define SANDWALL_RS_INTERNAL_H
/* rs_internal: what the parts of the ruleset (include/core/ruleset.h)
 * share: the scratch space of one build and each part's entry points.
 *   ruleset.c     sw_ruleset_build: the sets, then the rules
 *   rs_sets.c     address, interface-name, gate, allow and between sets
 *   rs_fills.c    what each set category blocks; own; the category sets
 *   rs_chains.c   the chain layout of table inet: hooks, guard, blocks
 *   rs_sandbox.c  [sandbox NAME]: its sets, dispatch and policy chains
 *   rs_output.c   the output path of [guard] users and cgroups
 *   rs_netdev.c   table netdev: the macvlan/ipvlan parents, packet sockets
 *   nftexpr.c     the rule builders (include/core/nftexpr.h)
 *   ivals.c       intervals (include/core/ivals.h)
 * Which links are guarded is core/guard.h's; the fixed networks and the
 * lan subnets are core/nets.h's (the hole checks use them too). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/ivals.h"
#include "core/nftexpr.h"

struct sw_allow;
struct sw_config;
struct sw_host;
struct sw_model;
struct sw_set;

/* room for the compiled-in metadata list and the fixed ranges, on top of
 * what the host and the config bring (those are sized at build time) */
#define FIXED_ENTRIES 256
#define SW_HOST_ELEMS     65535  /* resolved address . proto . port per sandbox and family */

/* Scratch space for one build, sized for this host and config. */
struct work {
	struct ivals a, b;
	struct sw_prefix *p;
	size_t cap_p;
	int *guarded;           /* ifindexes of the guarded links, sorted */
	size_t n_guarded;
	/* what goes into the gate: pre[0] every category before own,
	 * pre[1] those after it (lan, private), pre[2] own */
	struct sw_prefix *pre[3];
	size_t n_pre[3], cap_pre[3];
};

void rs_work_free(struct work *w);

/* rs_sets.c */
struct sw_set *rs_new_set(struct sw_model *m, const char *name, uint32_t type, uint32_t klen,
			  uint32_t flags, const char *type_text);
struct sw_set *rs_new_concat_set(struct sw_model *m, const char *name, uint32_t type,
				 uint32_t klen, uint32_t flags, const char *type_text,
				 const uint8_t *fields, uint8_t n);
/* set <base>4 { type ipv4_addr; flags interval; } and <base>6 likewise */
int rs_addr_sets(struct sw_model *m, struct work *w, const char *base,
		 const struct sw_prefix *p, size_t n);
/* Note n prefixes for the gate: list 0 (blocks before own), 1 (after
 * own: lan, private) or 2 (own itself). */
int rs_gate_note(struct work *w, int list, const struct sw_prefix *p, size_t n);
int rs_gate_sets(struct sw_model *m, struct work *w);
int rs_ifname_fill(struct sw_set *s, struct ivals *iv);
int rs_ifname_set(struct sw_model *m, struct work *w, const struct sw_config *cfg,
		  const struct sw_host *host);
int rs_concat_sets(struct sw_model *m, const char *base, struct sw_allow *all, size_t n,
		   bool exact);
/* udp and tcp port 53 of every resolver the host uses, appended to all */
size_t rs_add_resolvers(struct sw_allow *all, size_t n, const struct sw_host *host);
int rs_allow_sets(struct sw_model *m, const struct sw_config *cfg, const struct sw_host *host);
int rs_nd_set(struct sw_model *m, struct work *w);
int rs_between_set(struct sw_model *m, const struct sw_config *cfg);

/* rs_fills.c */
int rs_category_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
		     const struct sw_host *host);

/* rs_sandbox.c */
int rs_sandbox_sets(struct sw_model *m, struct work *w, const struct sw_config *cfg,
		    const struct sw_host *host);
int rs_sandbox_dispatch(struct sw_model *m, struct rb *b, const struct sw_config *cfg);
int rs_sandbox_chains(struct sw_model *m, struct rb *b, const struct sw_config *cfg);
/* In block chain `chain`, after its counter: a jump to the trip chain of
 * every sandbox whose quarantine_on has bit (own >= 0: only that
 * sandbox's, its own block chain). 0 or -errno. */
int rs_sandbox_trips(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		     const char *chain, uint32_t bit, int own);

/* rs_chains.c */
int rs_concat_rules(struct sw_model *m, struct rb *b, const char *chain, const char *id,
		    const char *set, int verdict, const char *target);
int rs_allow_rules(struct sw_model *m, struct rb *b, const char *chain, const char *id,
		   const char *set, int verdict, const char *target);
/* counter name "<cat>" (id <cat>-count), the first rule of block_<cat> */
int rs_counter_rule(struct sw_model *m, struct rb *b, const char *chain, const char *cat);
/* fib daddr type local meta l4proto . th dport @host_ports accept */
int rs_host_ports_rule(struct sw_model *m, struct rb *b, const char *chain, const char *id);
/* the gate's fast path (fallback false) or its fallback drop, ids <pre>... */
int rs_gate_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		  const char *chain, const char *pre, bool fallback);
int rs_category_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg,
		      const char *chain, bool gated);
int rs_build_rules(struct sw_model *m, const struct sw_config *cfg);

/* rs_output.c */
int rs_output_sets(struct sw_model *m, const struct sw_config *cfg, const struct sw_host *host);
int rs_output_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg);

#endif
