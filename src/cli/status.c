// SPDX-License-Identifier: GPL-2.0-or-later
/* status (include/cli/status.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "cli/daemonctl.h"
#include "cli/doors.h"
#include "cli/status.h"
#include "core/coverage.h"
#include "core/ruleset.h"
#include "host/rawcap.h"
#include "kernel/observe.h"
#include "lib/control.h"
#include "lib/json.h"
#include "lib/log.h"
#include "sync/bindtable.h"
#include "sync/cgwatch.h"

/* Packets and bytes a sandbox's policy dropped (counter egress_<name>). */
static void sandbox_counter(const struct sw_model *have, const struct sw_sandbox *x,
			    uint64_t *pk, uint64_t *by)
{
	char name[8 + SW_SANDBOX_NAMELEN];
	int i;

	snprintf(name, sizeof(name), "egress_%s", x->name);
	i = sw_model_find_counter(have, name);
	*pk = i < 0 ? 0 : have->counter_pkts[i];
	*by = i < 0 ? 0 : have->counter_bytes[i];
}

/* The devices table netdev <name> hooks ([guard] macvlan_parents): their
 * macvlan/ipvlan children are guarded ("macvlan parent"). */
static void print_parents(const struct sw_config *cfg, const struct sw_host *host)
{
	bool first = true;

	for (size_t i = 0; host && i < host->n_links; i++) {
		const struct sw_link *l = &host->links[i];

		if (!sw_ruleset_macvlan_parent(cfg, l))
			continue;
		if (first)
			printf("guarded macvlan/ipvlan children (table netdev %s):\n", cfg->table);
		printf("  %-16s %-10s %s\n", l->name, sw_link_kind_name(l->kind),
		       cfg->parents_auto && l->uplink ? "macvlan parent (auto: default route)" : "macvlan parent");
		first = false;
	}
	if (first && host && cfg->n_parents)
		printf("guarded macvlan/ipvlan children: no device matches [guard] macvlan_parents now\n");
	if (cfg->parents_auto_no_egress)
		printf("guarded macvlan/ipvlan children: NOT on the uplinks: macvlan_parents = auto needs the "
		       "netdev egress hook (Linux 5.16), which this kernel lacks\n");
}

/* The same as JSON: the "guard" member of status. */
static void guard_json(struct sw_jw *w, const struct sw_config *cfg, const struct sw_host *host,
		       int host_err)
{
	sw_jw_obj(w, "guard");
	sw_jw_bool(w, "auto", cfg->auto_detect);
	sw_jw_bool(w, "all_bridges", cfg->all_bridges);
	sw_jw_arr(w, "patterns");
	for (size_t i = 0; i < cfg->n_patterns; i++)
		sw_jw_str(w, NULL, cfg->patterns[i]);
	sw_jw_end(w);
	sw_jw_arr(w, "runtime_names");
	for (size_t i = 0; cfg->auto_detect && i < sw_n_runtime_names; i++)
		sw_jw_str(w, NULL, sw_runtime_names[i]);
	sw_jw_end(w);
	for (int pass = 0; pass < 2; pass++) {
		const char *key = pass ? "excluded" : "interfaces";

		if (!host) {
			sw_jw_null(w, key);
			continue;
		}
		sw_jw_arr(w, key);
		for (size_t i = 0; i < host->n_links; i++) {
			const struct sw_link *l = &host->links[i];
			enum sw_guard_why why = sw_ruleset_guard_why(cfg, l);

			if (why == SW_GUARD_NO || (why >= SW_GUARD_PATTERN) == (bool)pass)
				continue;
			sw_jw_obj(w, NULL);
			sw_jw_str(w, "name", l->name);
			sw_jw_str(w, "kind", sw_link_kind_name(l->kind));
			sw_jw_str(w, "why", sw_guard_why_name(why));
			sw_jw_end(w);
		}
		sw_jw_end(w);
	}
	/* the devices table netdev <name> hooks */
	if (!host) {
		sw_jw_null(w, "macvlan_parents");
	} else {
		sw_jw_arr(w, "macvlan_parents");
		for (size_t i = 0; i < host->n_links; i++) {
			const struct sw_link *l = &host->links[i];

			if (!sw_ruleset_macvlan_parent(cfg, l))
				continue;
			sw_jw_obj(w, NULL);
			sw_jw_str(w, "name", l->name);
			sw_jw_str(w, "kind", sw_link_kind_name(l->kind));
			sw_jw_str(w, "why", cfg->parents_auto && l->uplink ? "macvlan parent (auto: default route)"
									    : "macvlan parent");
			sw_jw_end(w);
		}
		sw_jw_end(w);
	}
	sw_jw_bool(w, "macvlan_parents_auto", cfg->parents_auto);
	if (cfg->parents_auto_no_egress)
		sw_jw_str(w, "macvlan_parents_auto_off", "no netdev egress hook (Linux 5.16) in this kernel");
	if (!host) {
		sw_jw_str(w, "error", strerror(-host_err));
	} else {
		struct sw_coverage cov;

		sw_coverage(cfg, host, &cov);
		sw_jw_bool(w, "covered", !sw_coverage_hole(&cov));
		sw_coverage_json(&cov, w);
	}
	sw_jw_end(w);
}

/* What is guarded on this host and why; with auto, what it leaves out
 * (lo, the default-route interfaces). host NULL: it could not be read. */
static void print_guard(const struct sw_config *cfg, const struct sw_host *host, int host_err)
{
	printf("guard: %s", cfg->auto_detect ? "auto" : "");
	for (size_t i = 0; i < cfg->n_patterns; i++)
		printf("%s%s", i || cfg->auto_detect ? " " : "", cfg->patterns[i]);
	printf("%s\n", cfg->all_bridges ? " (and all_bridges)" : "");
	if (!host) {
		printf("guarded interfaces: cannot read the host's links: %s\n", strerror(-host_err));
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		bool first = true;

		for (size_t i = 0; i < host->n_links; i++) {
			const struct sw_link *l = &host->links[i];
			enum sw_guard_why why = sw_ruleset_guard_why(cfg, l);

			if (why == SW_GUARD_NO || (why >= SW_GUARD_PATTERN) == (bool)pass)
				continue;
			if (first)
				printf(pass ? "left out by auto (never guarded):\n" : "guarded interfaces:\n");
			first = false;
			printf("  %-16s %-10s %s\n", l->name, sw_link_kind_name(l->kind),
			       sw_guard_why_name(why));
		}
		if (first && !pass)
			printf("guarded interfaces: none now (patterns guard the names they match as they appear)\n");
	}
	print_parents(cfg, host);
	{
		struct sw_coverage cov;

		sw_coverage(cfg, host, &cov);
		sw_coverage_print(&cov, cfg, stdout, "");
	}
}

/* The output path ([guard] users and cgroups): the cgroups that match now
 * (a scan of the cgroup tree). *cg is malloc'd (NULL: no patterns). */
static int guard_output_scan(const struct sw_config *cfg, struct sw_cgroup **cg, size_t *n,
			     char *root, size_t rootlen)
{
	int rc;

	*cg = NULL;
	*n = 0;
	root[0] = '\0';
	if (!cfg->n_cgroups)
		return 0;
	if (!(*cg = calloc(SW_MAX_CGROUPS, sizeof(**cg))))
		return -ENOMEM;
	if ((rc = sw_cg_root(root, rootlen)))
		return rc;
	return sw_cg_scan(cfg, root, *cg, SW_MAX_CGROUPS, n);
}

/* status --json: "guard_output": the users and the matching cgroups, and why */
static void guard_output_json(struct sw_jw *w, const struct sw_config *cfg)
{
	struct sw_cgroup *cg;
	char root[4096];
	size_t n;
	int rc;

	if (!cfg->n_users && !cfg->n_cgroups)
		return;
	rc = guard_output_scan(cfg, &cg, &n, root, sizeof(root));
	sw_jw_obj(w, "guard_output");
	sw_jw_arr(w, "users");
	for (size_t i = 0; i < cfg->n_users; i++) {
		sw_jw_obj(w, NULL);
		sw_jw_u64(w, "uid", cfg->users[i].uid);
		sw_jw_str(w, "name", cfg->users[i].name);
		sw_jw_str(w, "why", "user");
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_arr(w, "cgroups");
	for (size_t i = 0; !rc && i < n; i++) {
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "path", cg[i].path);
		sw_jw_u64(w, "id", cg[i].id);
		sw_jw_u64(w, "level", cg[i].level);
		sw_jw_str(w, "pattern", cfg->cgroups[cg[i].pattern]);
		sw_jw_str(w, "why", "cgroup");
		sw_jw_end(w);
	}
	sw_jw_end(w);
	if (rc)
		sw_jw_str(w, "error", strerror(-rc));
	sw_jw_end(w);
	free(cg);
}

/* The same as text, after the guarded interfaces. */
static void print_guard_output(const struct sw_config *cfg)
{
	struct sw_cgroup *cg;
	char root[4096];
	size_t n;
	int rc;

	if (!cfg->n_users && !cfg->n_cgroups)
		return;
	rc = guard_output_scan(cfg, &cg, &n, root, sizeof(root));
	printf("guarded on the output path (traffic that starts on the host):\n");
	for (size_t i = 0; i < cfg->n_users; i++) {
		char who[64];

		if (cfg->users[i].name[0])
			snprintf(who, sizeof(who), "%s (uid %u)", cfg->users[i].name, cfg->users[i].uid);
		else
			snprintf(who, sizeof(who), "%u", cfg->users[i].uid);
		printf("  %-40s user\n", who);
	}
	if (rc)
		printf("  cgroups: cannot read the cgroup tree%s%s: %s\n", root[0] ? " at " : "", root,
		       strerror(-rc));
	for (size_t i = 0; !rc && i < n; i++)
		printf("  %-40s cgroup (pattern %s, id %llu, level %u)\n",
		       cg[i].path[0] ? cg[i].path : "(path too long)", cfg->cgroups[cg[i].pattern],
		       (unsigned long long)cg[i].id, cg[i].level);
	if (!rc && cfg->n_cgroups && !n)
		printf("  no cgroup matches a pattern now\n");
	free(cg);
}

/* status: table netdev <name> ([guard] macvlan_parents). *nd is malloc'd
 * (a model is large): NULL when nothing is configured and no table of ours
 * is left, or when it cannot be read (the error is returned). */
static int netdev_status_read(struct sw_nl *nl, const struct sw_config *cfg, struct sw_model **nd)
{
	int rc;

	*nd = calloc(1, sizeof(**nd));
	if (!*nd)
		return -ENOMEM;
	if ((rc = sw_observe_family(nl, NFPROTO_NETDEV, cfg->table, *nd))) {
		free(*nd);
		*nd = NULL;
		return rc;
	}
	if (!sw_ruleset_netdev_wanted(cfg) && !(*nd)->has_table) {
		sw_model_free(*nd);
		free(*nd);
		*nd = NULL;
	}
	return 0;
}

static void netdev_status_free(struct sw_model *nd)
{
	if (nd)
		sw_model_free(nd);
	free(nd);
}

static const char *netdev_hook_name(uint32_t hook)
{
	return hook == NF_NETDEV_INGRESS ? "ingress" : hook == 1 /* NF_NETDEV_EGRESS */ ? "egress" : "?";
}

/* status --json: "netdev": {"table","configured","present","hooks":[{"device",
 * "hook","chain"}],"counters":{NAME:{"packets","bytes"}}}; nothing when
 * neither configured nor present; "error" when it could not be read. */
static void netdev_json(struct sw_jw *w, const struct sw_config *cfg, const struct sw_model *nd,
			int nd_err)
{
	char t[8 + SW_TABLE_MAXLEN];

	if (!nd && !nd_err)
		return;
	snprintf(t, sizeof(t), "netdev/%s", cfg->table);
	sw_jw_obj(w, "netdev");
	sw_jw_str(w, "table", t);
	sw_jw_bool(w, "configured", sw_ruleset_netdev_wanted(cfg));
	if (!nd) {
		sw_jw_str(w, "error", strerror(-nd_err));
		sw_jw_end(w);
		return;
	}
	sw_jw_bool(w, "present", nd->has_table);
	sw_jw_arr(w, "hooks");
	for (size_t i = 0; i < nd->n_chains; i++) {
		const struct sw_chain *c = &nd->chains[i];

		if (!c->base)
			continue;
		sw_jw_obj(w, NULL);
		sw_jw_str(w, "device", c->dev);
		sw_jw_str(w, "hook", netdev_hook_name(c->hook));
		sw_jw_str(w, "chain", c->name);
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_obj(w, "counters");
	for (size_t i = 0; i < nd->n_counters; i++) {
		sw_jw_obj(w, nd->counters[i]);
		sw_jw_u64(w, "packets", nd->counter_pkts[i]);
		sw_jw_u64(w, "bytes", nd->counter_bytes[i]);
		sw_jw_end(w);
	}
	sw_jw_end(w);
	sw_jw_end(w);
}

/* The same as text, after the inet counters. */
static void print_netdev(const struct sw_config *cfg, const struct sw_model *nd, int nd_err)
{
	bool first = true;

	if (!nd && !nd_err)
		return;
	if (!nd) {
		printf("table netdev %s: cannot read it: %s\n", cfg->table, strerror(-nd_err));
		return;
	}
	printf("table netdev %s: %s%s", cfg->table, nd->has_table ? "present" : "ABSENT",
	       sw_ruleset_netdev_wanted(cfg) ? "" :
	       " ([guard] macvlan_parents and users are empty: a leftover)");
	for (size_t i = 0; i < nd->n_chains; i++) {
		const struct sw_chain *c = &nd->chains[i];

		if (!c->base)
			continue;
		printf("%s%s %s", first ? ", hooks " : ", ", c->dev[0] ? c->dev : "?",
		       netdev_hook_name(c->hook));
		first = false;
	}
	if (nd->has_table && first)
		printf(", no device hooked");
	printf("\n");
	for (size_t i = 0; i < nd->n_counters; i++) {
		char label[8 + SW_NAME_MAX];

		snprintf(label, sizeof(label), "netdev:%s", nd->counters[i]);
		printf("%-14s %-8s %12llu %14llu\n", label, "yes",
		       (unsigned long long)nd->counter_pkts[i], (unsigned long long)nd->counter_bytes[i]);
	}
}

/* status (text): table bridge <name>, the ports' bindings, when a sandbox
 * keys on a source or a table of ours is left */
static void print_bindtable(struct sw_nl *nl, const struct sw_config *cfg)
{
	struct sw_model *bt = calloc(1, sizeof(*bt));
	const struct sw_set *s4, *s6;
	int rc = bt ? sw_observe_family(nl, NFPROTO_BRIDGE, cfg->table, bt) : -ENOMEM, i;

	if (rc) {
		if (sw_portbind_wanted(cfg))
			printf("table bridge %s: cannot read it: %s\n", cfg->table, strerror(-rc));
		free(bt);
		return;
	}
	if (bt->has_table || sw_portbind_wanted(cfg)) {
		s4 = sw_model_find_set(bt, "bind4");
		s6 = sw_model_find_set(bt, "bind6");
		printf("table bridge %s: %s, %zu IPv4 and %zu IPv6 port bindings%s\n", cfg->table,
		       bt->has_table ? "present" : "ABSENT", s4 ? s4->n_elems : 0,
		       s6 ? s6->n_elems : 0,
		       sw_portbind_wanted(cfg) ? "" : " (no sandbox keys on a source: a leftover)");
		if ((i = sw_model_find_counter(bt, SW_BT_COUNTER)) >= 0)
			printf("%-14s %-8s %12llu %14llu\n", "bridge:" SW_BT_COUNTER, "yes",
			       (unsigned long long)bt->counter_pkts[i],
			       (unsigned long long)bt->counter_bytes[i]);
	}
	sw_model_free(bt);
	free(bt);
}

/* status --json: one document through the writer. reply: the daemon's
 * answer to "status" (NULL: no daemon); keys: the fields taken from it.
 * 1 when packet sockets are not held (rawcap.h), else 0. */
static int status_json(const struct sw_config *cfg, const struct sw_model *have,
			const struct sw_host *host, int host_err, const char *reply,
			const char *const *keys, size_t n_keys, const struct sw_model *nd, int nd_err)
{
	char t[8 + SW_TABLE_MAXLEN], v[256];
	struct sw_jw w;
	int rc, nh;

	snprintf(t, sizeof(t), "inet/%s", cfg->table);
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "table", t);
	sw_jw_bool(&w, "present", have->has_table);
	sw_jw_u64(&w, "generation", have->genid);
	sw_jw_bool(&w, "owner", have->table_flags & NFT_TABLE_F_OWNER);
	sw_jw_bool(&w, "persist", have->table_flags & NFT_TABLE_F_PERSIST);
	if (!reply) {
		sw_jw_null(&w, "daemon");
	} else {
		sw_jw_obj(&w, "daemon");
		for (size_t k = 0; k < n_keys; k++) {
			const char *val = sw_cli_reply_field(reply, keys[k], v, sizeof(v));
			char *end;
			unsigned long long n;

			/* counters and ids as numbers, the rest as strings */
			errno = 0;
			n = strtoull(val, &end, 10);
			if (*val >= '0' && *val <= '9' && !*end && !errno)
				sw_jw_u64(&w, keys[k], n);
			else
				sw_jw_str(&w, keys[k], val);
		}
		sw_jw_end(&w);
	}
	sw_jw_obj(&w, "categories");
	for (int c = 0; c < SW_CAT_COUNT; c++) {
		int i = sw_model_find_counter(have, sw_category_name(c));

		sw_jw_obj(&w, sw_category_name(c));
		sw_jw_bool(&w, "enabled", cfg->block[c]);
		sw_jw_u64(&w, "packets", i < 0 ? 0 : have->counter_pkts[i]);
		sw_jw_u64(&w, "bytes", i < 0 ? 0 : have->counter_bytes[i]);
		sw_jw_end(&w);
	}
	sw_jw_end(&w);
	guard_json(&w, cfg, host, host_err);
	guard_output_json(&w, cfg);
	netdev_json(&w, cfg, nd, nd_err);
	nh = sw_rawcap_out(cfg, "", &w, NULL);  /* packet sockets (rawcap.h) */
	sw_jw_arr(&w, "sandboxes");
	for (size_t b = 0; b < cfg->n_sandboxes; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];
		uint64_t pk, by;

		sandbox_counter(have, x, &pk, &by);
		sw_jw_obj(&w, NULL);
		sw_jw_str(&w, "name", x->name);
		sw_jw_str(&w, "egress", sw_egress_name(x->egress));
		sw_jw_str(&w, "dns", x->dns == SW_DNS_AUTO ? "auto" : "none");
		sw_jw_u64(&w, "packets", pk);
		sw_jw_u64(&w, "bytes", by);
		sw_jw_end(&w);
	}
	sw_jw_end(&w);
	sw_cli_doors_json(cfg, host, &w);
	sw_jw_end(&w);
	if ((rc = sw_jw_print(&w, stdout)))
		sw_err("cannot write the answer: %s", strerror(-rc));
	sw_jw_free(&w);
	return nh;
}

static int cmd_status(struct sw_nl *nl, const struct sw_config *cfg, const struct sw_cli_opts *o)
{
	static const char *const keys[] = { "pid", "uptime", "mode", "paused", "drifts", "repairs",
					     "repair_failures", "resyncs", "enobufs", "blocked_logged",
					     "dns_names", "dns_failures", "last_drift",
					     "journal_errors", "journal_error", "attempts_errors",
					     "unguarded", "identities", "identity_lookups",
					     "identity_api_errors", "identities_dropped" };
	char reply[SW_CONTROL_REPMAX], v[256];
	bool json = o->json, daemon;
	struct sw_host *host = calloc(1, sizeof(*host));
	struct sw_model have, *nd;
	int rc, host_err, nd_err, raw_nh = 0, d_rc;

	d_rc = sw_cli_daemon_status_rc(o, reply, sizeof(reply));
	daemon = d_rc == 0;
	host_err = host ? sw_host_read_links_addrs_routes(host) : -ENOMEM;
	if (!host_err && sw_host_read_resolvers(host))
		host->n_resolvers = 0;  /* the DNS door: "none now", the rest still shown */
	if (host_err) {
		if (host)
			sw_host_free(host);
		free(host);
		host = NULL;
	}
	if ((rc = sw_observe_counters(nl, cfg->table, &have))) {
		sw_err("cannot read the ruleset: %s%s", strerror(-rc), sw_cli_perm_hint(rc));
		if (host)
			sw_host_free(host);
		free(host);
		return EXIT_ERR;
	}
	nd_err = netdev_status_read(nl, cfg, &nd);
	if (json) {
		raw_nh = status_json(cfg, &have, host, host_err, daemon ? reply : NULL, keys,
			    sizeof(keys) / sizeof(*keys), nd, nd_err);
	} else {
		printf("table inet %s: %s (generation %u)%s%s\n", cfg->table,
		       have.has_table ? "present" : "ABSENT", have.genid,
		       have.table_flags & NFT_TABLE_F_OWNER ? ", owned" : "",
		       have.table_flags & NFT_TABLE_F_PERSIST ? ", persist" : "");
		if (daemon)
			for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++)
				printf("daemon %-16s %s\n", keys[k],
				       sw_cli_reply_field(reply, keys[k], v, sizeof(v)));
		else if (d_rc == -ETIMEDOUT)
			printf("daemon: not answering on %s (no reply within %d ms)\n", o->control,
			       SW_CONTROL_ANSWER_MS);
		else if (d_rc == -EPROTO)
			printf("daemon: refused the request on %s\n", o->control);
		else
			printf("daemon: not running (no answer on %s)\n", o->control);
		print_guard(cfg, host, host_err);
		print_guard_output(cfg);
		printf("%-14s %-8s %12s %14s\n", "category", "enabled", "packets", "bytes");
		for (int c = 0; c < SW_CAT_COUNT; c++) {
			int i = sw_model_find_counter(&have, sw_category_name(c));

			printf("%-14s %-8s %12llu %14llu\n", sw_category_name(c),
			       cfg->block[c] ? "yes" : "no",
			       i < 0 ? 0ULL : (unsigned long long)have.counter_pkts[i],
			       i < 0 ? 0ULL : (unsigned long long)have.counter_bytes[i]);
		}
		for (size_t b = 0; b < cfg->n_sandboxes; b++) {
			const struct sw_sandbox *x = &cfg->sandboxes[b];
			char label[8 + SW_SANDBOX_NAMELEN];
			uint64_t pk, by;

			sandbox_counter(&have, x, &pk, &by);
			snprintf(label, sizeof(label), "egress:%s", x->name);
			printf("%-14s %-8s %12llu %14llu\n", label, sw_egress_name(x->egress),
			       (unsigned long long)pk, (unsigned long long)by);
		}
		print_netdev(cfg, nd, nd_err);
		print_bindtable(nl, cfg);
	}
	if (!json)
		sw_cli_doors_print(cfg, host, stdout);
	rc = have.has_table ? 0 : EXIT_DRIFT;
	/* guarded host-side processes with CAP_NET_RAW: not held (rawcap.h) */
	if (!json)
		raw_nh = sw_rawcap_out(cfg, "", NULL, stdout);
	if (raw_nh)
		rc = EXIT_DRIFT;
	if (host) {
		struct sw_coverage cov;

		sw_coverage(cfg, host, &cov);
		if (sw_coverage_hole(&cov))
			rc = EXIT_DRIFT;        /* a container-facing link is unguarded */
	}
	/* a daemon that is there but does not answer is an error, not a
	 * state to print past */
	if (d_rc == -ETIMEDOUT || d_rc == -EPROTO) {
		sw_err("sandwalld is %s on %s", d_rc == -EPROTO ? "refusing requests" :
		       "not answering", o->control);
		rc = EXIT_ERR;
	}
	netdev_status_free(nd);
	sw_model_free(&have);
	if (host)
		sw_host_free(host);
	free(host);
	return rc;
}

int sw_cli_status(struct sw_cli_run *x)
{
	return cmd_status(x->nl, x->cfg, x->o);
}
