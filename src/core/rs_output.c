// SPDX-License-Identifier: GPL-2.0-or-later
/* rs_output: the output path of [guard] users and cgroups, its sets and
 * chains (include/core/rs_internal.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>

#include "core/rs_internal.h"
#include "core/ruleset.h"

unsigned sw_ruleset_cg_levels(const struct sw_config *cfg)
{
	unsigned levels = 0;

	for (size_t i = 0; i < cfg->n_cgroups; i++) {
		unsigned l = 1;

		for (const char *p = cfg->cgroups[i]; *p; p++)
			l += *p == '/';
		if (l <= SW_CG_MAX_LEVEL)
			levels |= 1u << l;
	}
	return levels;
}

int sw_ruleset_cg_fill(struct sw_set *s, const struct sw_cgroup *cg, size_t n, unsigned level)
{
	int err;

	for (size_t i = 0; i < n; i++) {
		struct sw_elem e;
		char text[SW_CG_PATH_MAX + 3];

		if (cg[i].level != level)
			continue;
		memset(&e, 0, sizeof(e));
		memcpy(e.key, &cg[i].id, sizeof(cg[i].id));
		if ((err = sw_set_add_elem(s, &e)))
			return err;
		/* nft takes a cgroup as its path below /sys/fs/cgroup */
		snprintf(text, sizeof(text), "\"%s\"", cg[i].path);
		if ((err = sw_set_add_text(s, text)))
			return err;
	}
	sw_set_sort(s);
	return 0;
}

/* set guard_uids { type uid; elements = { 40001 } } ([guard] users)
 * set guard_cg<L> { type cgroupsv2; elements = { "system.slice/docker-1.scope" } }
 *   one per level a [guard] cgroups pattern has */
int rs_output_sets(struct sw_model *m, const struct sw_config *cfg, const struct sw_host *host)
{
	unsigned levels = sw_ruleset_cg_levels(cfg);
	struct sw_set *s;
	int err;

	if (cfg->n_users) {
		if (!(s = rs_new_set(m, SW_SET_UIDS, SW_TYPE_UID, 4, 0, "uid")))
			return -ENOSPC;
		for (size_t i = 0; i < cfg->n_users; i++) {
			struct sw_elem e;
			char text[16];

			memset(&e, 0, sizeof(e));
			memcpy(e.key, &cfg->users[i].uid, sizeof(cfg->users[i].uid));
			if ((err = sw_set_add_elem(s, &e)))
				return err;
			snprintf(text, sizeof(text), "%u", cfg->users[i].uid);
			if ((err = sw_set_add_text(s, text)))
				return err;
		}
	}
	for (unsigned l = 1; l <= SW_CG_MAX_LEVEL; l++) {
		char name[SW_NAME_MAX];

		if (!(levels & (1u << l)))
			continue;
		snprintf(name, sizeof(name), SW_SET_CG "%u", l);
		if (!(s = rs_new_set(m, name, SW_TYPE_CGROUPV2, 8, 0, "cgroupsv2")))
			return -ENOSPC;
		if (host && (err = sw_ruleset_cg_fill(s, host->cgroups, host->n_cgroups, l)))
			return err;
	}
	return 0;
}

/* The output path, when [guard] users or cgroups names anything:
 *   chain output { type filter hook output priority -150; policy accept; }
 *     meta skuid @guard_uids jump guard_output
 *     socket cgroupv2 level L @guard_cg<L> jump guard_output   (per level)
 *   chain guard_output
 *     fib saddr type != local goto block_spoofed
 *     ct state established ct direction reply accept
 *     ...@allow4/6 accept, host_ports accept, then the categories
 * Priority -150 for the reasons prerouting has it: conntrack (-200) has
 * run, DNAT of locally generated packets (-100) has not. Only packets with
 * a socket of a guarded user or cgroup enter; the host's own processes
 * never do. */
int rs_output_rules(struct sw_model *m, struct rb *b, const struct sw_config *cfg)
{
	unsigned levels = sw_ruleset_cg_levels(cfg);
	struct sw_chain *c;
	int err;

	if (!cfg->n_users && !levels)
		return 0;
	/* chain output { type filter hook output priority -150; policy accept; } */
	if (!(c = sw_model_add_chain(m, SW_CHAIN_OUTPUT)))
		return -ENOSPC;
	c->base = true;
	c->hook = NF_INET_LOCAL_OUT;
	c->prio = SW_HOOK_PRIO;
	c->policy = NF_ACCEPT;
	snprintf(c->type, sizeof(c->type), "filter");
	/* chain guard_output { } */
	if (!sw_model_add_chain(m, SW_CHAIN_GUARD_OUTPUT))
		return -ENOSPC;

	if (cfg->n_users) {
		/* meta skuid @guard_uids jump guard_output */
		RULE(m, b, SW_CHAIN_OUTPUT, "output-users", {
			e_meta(b, NFT_META_SKUID, NFT_REG_1);
			e_lookup(b, NFT_REG_1, SW_SET_UIDS);
			e_verdict(b, NFT_JUMP, SW_CHAIN_GUARD_OUTPUT);
		});
	}
	for (unsigned l = 1; l <= SW_CG_MAX_LEVEL; l++) {
		char id[SW_NAME_MAX], set[SW_NAME_MAX];

		if (!(levels & (1u << l)))
			continue;
		/* socket cgroupv2 level L @guard_cg<L> jump guard_output */
		snprintf(set, sizeof(set), SW_SET_CG "%u", l);
		snprintf(id, sizeof(id), "output-cg%u", l);
		RULE(m, b, SW_CHAIN_OUTPUT, id, {
			e_socket_cgroup(b, l);
			e_lookup(b, NFT_REG_1, set);
			e_verdict(b, NFT_JUMP, SW_CHAIN_GUARD_OUTPUT);
		});
	}
	/* fib saddr type != local goto block_spoofed: a socket's packets carry
	 * one of the host's addresses; a raw socket (CAP_NET_RAW in a
	 * host-network container) could forge another and prime conntrack,
	 * as a forged packet from a bridge could */
	RULE(m, b, SW_CHAIN_GUARD_OUTPUT, "out-spoofed", {
		e_fib_local(b, true, NFT_CMP_NEQ);
		e_verdict(b, NFT_GOTO, "block_spoofed");
	});
	/* ct state established ct direction reply accept: answers to
	 * connections others opened to the guarded socket (a published port,
	 * pasta's or slirp4netns' port forwarding) */
	RULE(m, b, SW_CHAIN_GUARD_OUTPUT, "out-replies", {
		e_ct_established(b);
		e_ct_direction(b, 1 /* IP_CT_DIR_REPLY */);
		e_verdict(b, NF_ACCEPT, NULL);
	});
	/* the fast path, as in guard (a destination outside the gate and not
	 * the host's meets only accepts below) */
	if ((err = rs_gate_rules(m, b, cfg, SW_CHAIN_GUARD_OUTPUT, "out-", false)))
		return err;
	/* ip daddr . ip protocol . th dport @allow4_exact accept, then @allow4 (and ip6): DNS to
	 * the resolvers, [allow] destinations */
	if ((err = rs_allow_rules(m, b, SW_CHAIN_GUARD_OUTPUT, "out-allow", "allow", NF_ACCEPT, NULL)))
		return err;
	/* fib daddr type local meta l4proto . th dport @host_ports accept */
	if ((err = rs_host_ports_rule(m, b, SW_CHAIN_GUARD_OUTPUT, "out-host_ports")))
		return err;
	/* the same categories as guard; `host` (fib daddr type local) covers
	 * 127.0.0.0/8 and ::1: loopback to the host's services */
	return rs_category_rules(m, b, cfg, SW_CHAIN_GUARD_OUTPUT, true);
}

