// SPDX-License-Identifier: GPL-2.0-or-later
/* sandwall: the CLI. Parses the command line and the config, then calls
 * the shared core (reconcile, observe, export). Exit codes: 0 ok,
 * 1 drift, 2 usage/config/system error. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "sync/cgwatch.h"
#include "core/config_check.h"
#include "lib/control.h"
#include "core/coverage.h"
#include "core/diff.h"
#include "core/export.h"
#include "core/holes.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/log.h"
#include "core/model.h"
#include "kernel/nl.h"
#include "kernel/observe.h"
#include "sync/netdev.h"
#include "sync/bindtable.h"
#include "sync/reconcile.h"
#include "host/resolver.h"
#include "host/rawcap.h"
#include "cli/receipt.h"
#include "core/ruleset.h"
#include "cli/verify.h"

#define EXIT_DRIFT 1
#define EXIT_ERR   2

struct opts {
	bool force;
	bool accept_loss;               /* apply: a config that drops what the running one
					 * gave, or an empty file (sw_config_loss) */
	struct sw_verify_opts verify;   /* verify's options (sw_verify_optdefs) */
	const char *config;
	const char *control;
	bool json;
	bool verbose;
	int64_t since, until;           /* receipt's window (-1: not given) */
};

/* ---- the commands: one table entry each ---------------------------------- */

/* What a command gets, ready. */
struct run {
	struct opts *o;
	struct sw_config *cfg;
	struct sw_host *host;
	struct sw_model *want;          /* NEED_MODEL only */
	struct sw_nl *nl;               /* kernel commands only */
};

enum need {
	NEED_CONFIG,                    /* the config, checked */
	NEED_MODEL,                     /* and the host and the desired model */
};

static int run_apply(struct run *x);
static int run_check(struct run *x);
static int run_export(struct run *x);
static int run_remove(struct run *x);
static int run_status(struct run *x);
static int run_verify(struct run *x);
static int run_receipt(struct run *x);

static const struct verb {
	const char *name;
	enum need need;
	bool kernel;                    /* opens the nf_tables socket */
	int (*run)(struct run *x);
	const char *help;
	const char *daemon_req;         /* what a running sandwalld does for it
					 * when it runs the same config file */
} verbs[] = {
	{ "apply", NEED_MODEL, true, run_apply,
	  "install or fix the ruleset atomically (one batch), then read it back;\n"
	  "            nothing is sent when the kernel already matches (--force rewrites it all)",
	  "reload" },
	{ "check", NEED_MODEL, true, run_check,
	  "compare the kernel with the config: 0 in sync, 1 drift (printed)", NULL },
	{ "export", NEED_MODEL, false, run_export, "print the ruleset as nft -f text", NULL },
	{ "remove", NEED_CONFIG, true, run_remove, "delete the table", NULL },
	{ "status", NEED_CONFIG, true, run_status,
	  "counters per block category and sandbox, and the table's state", NULL },
	{ "verify", NEED_CONFIG, false, run_verify,
	  "probe and attack from the container side: 0 = every target blocked", NULL },
	{ "receipt", NEED_MODEL, true, run_receipt,
	  "audit document: digests, counters, drift events, verify, verdict", NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sandwall [-c FILE] [--json] COMMAND\n"
		"\n"
		"Keep containers and micro-VMs away from cloud metadata, the host's\n"
		"gateways and LAN, and services bound on the host (nftables table).\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(*verbs); i++)
		fprintf(f, "  %-9s %s\n", verbs[i].name, verbs[i].help);
	fprintf(f,
		"\n"
		"options:\n"
		"  -c, --config FILE  config file (default " SW_DEFAULT_CONFIG ")\n"
		"  -j, --json         machine-readable output (check, status, verify, receipt)\n"
		"      --force        apply: rewrite the table even when it matches\n"
		"      --accept-loss  apply: also a config that drops sections or keys the\n"
		"                     daemon's config gave, or an empty file\n"
		"      --since TIME   receipt: the window's start (ISO 8601 UTC or unix seconds;\n"
		"                     default: the oldest journal event kept)\n"
		"      --until TIME   receipt: the window's end (default: now)\n");
	for (size_t i = 0; i < sw_verify_n_optdefs; i++) {
		char opt[48];

		snprintf(opt, sizeof(opt), "--%s%s%s", sw_verify_optdefs[i].name,
			 sw_verify_optdefs[i].arg ? " " : "", sw_verify_optdefs[i].arg ? sw_verify_optdefs[i].arg : "");
		fprintf(f, "      %-14s verify: %s\n", opt, sw_verify_optdefs[i].help);
	}
	fprintf(f,
		"  -v, --verbose      more messages on stderr\n"
		"      --control PATH the daemon's control socket (default " SW_CONTROL_PATH ")\n"
		"  -h, --help         this text\n"
		"  -V, --version      print the version\n"
		"\n"
		"exit status: 0 ok, 1 drift, 2 usage, config or system error\n"
		"see sandwall(8) and sandwall.conf(5)\n");
}

static int load(const struct opts *o, struct sw_config *cfg, struct sw_host *host,
		struct sw_model *want)
{
	char err[SW_ERRLEN];
	int rc;

	rc = sw_config_load(o->config, cfg, err, sizeof(err));
	if (rc) {
		sw_err("%s", err);
		return rc;
	}
	rc = sw_desired(cfg, host, want, err, sizeof(err));
	if (rc)
		sw_err("%s", err);
	return rc;
}

static int open_nl(struct sw_nl *nl)
{
	int rc = sw_nl_open(nl);

	if (rc)
		sw_err("cannot open the netfilter netlink socket: %s%s", strerror(-rc),
		       rc == -EPERM ? " (run as root / CAP_NET_ADMIN)" : "");
	return rc;
}

static size_t count_elems(const struct sw_model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_sets; i++)
		n += m->sets[i].n_elems;
	return n;
}

/* Is the table owned by a process (sandwalld)? Then writes go through it. */
static bool owned(struct sw_nl *nl, const char *table)
{
	bool present = false;
	uint32_t flags = 0;

	return sw_observe_table(nl, table, &present, &flags) == 0 && present &&
	       (flags & NFT_TABLE_F_OWNER);
}

static const char *reply_field(const char *reply, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = reply; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, "\n");

			snprintf(buf, len, "%.*s", (int)n, p + kl + 1);
			return buf;
		}
	}
	snprintf(buf, len, "?");
	return buf;
}

/* The daemon's status, asked once per run (a daemon that does not answer
 * costs SW_CONTROL_ANSWER_MS once, not once per question): 0 with its
 * reply; -ENOENT/-ECONNREFUSED: none runs; -ETIMEDOUT: one is there but
 * does not answer; -EPROTO: it answered "error". */
static int daemon_status_rc(const struct opts *o, char *reply, size_t len)
{
	static char cached[SW_CONTROL_REPMAX];
	static int rc = 1;              /* 1: not asked yet */

	if (rc == 1) {
		rc = sw_control_call(o->control, "status", cached, sizeof(cached));
		if (!rc && strncmp(cached, "ok\n", 3))
			rc = -EPROTO;
		if (rc)
			cached[0] = '\0';
	}
	snprintf(reply, len, "%s", cached);
	return rc;
}

/* Does a daemon answer on the control socket? Its status in reply. */
static bool daemon_status(const struct opts *o, char *reply, size_t len)
{
	return daemon_status_rc(o, reply, len) == 0;
}

static bool daemon_running(const struct opts *o)
{
	char reply[SW_CONTROL_REPMAX];

	return daemon_status(o, reply, sizeof(reply));
}

/* A daemon that is there (its socket accepts) but does not answer: the
 * CLI stops there, exit 2, instead of acting behind its back. */
static bool daemon_stuck(const struct opts *o)
{
	char reply[SW_CONTROL_REPMAX];
	int rc = daemon_status_rc(o, reply, sizeof(reply));

	if (rc != -ETIMEDOUT)
		return false;
	sw_err("sandwalld is not answering on %s (no reply within %d ms); nothing was done",
	       o->control, SW_CONTROL_ANSWER_MS);
	return true;
}

/* Does a daemon answer whose config is the file o->config names? (Not
 * when no daemon answers, the file is another, or a path does not
 * resolve.) */
static bool daemon_same_config(const struct opts *o)
{
	char reply[SW_CONTROL_REPMAX], theirs[PATH_MAX], a[PATH_MAX], b[PATH_MAX];

	if (!daemon_status(o, reply, sizeof(reply)))
		return false;
	reply_field(reply, "config", theirs, sizeof(theirs));
	return realpath(o->config, a) && realpath(theirs, b) && !strcmp(a, b);
}

/* The daemon's verb for apply, with its options. */
static const char *reload_req(const struct opts *o)
{
	return o->accept_loss ? "reload\naccept_loss=yes" : "reload";
}

/* apply while a sandwalld answers that runs another file than o->config
 * (main hands the same file to the daemon): refused, exit 2, since the
 * daemon would keep enforcing its own file and revert this one as drift. */
static bool daemon_refuses_apply(const struct opts *o)
{
	char reply[SW_CONTROL_REPMAX], theirs[PATH_MAX];

	if (!daemon_status(o, reply, sizeof(reply)))
		return false;
	reply_field(reply, "config", theirs, sizeof(theirs));
	sw_err("apply refused: sandwalld (pid %s) enforces %s, not %s; it would undo this apply "
	       "as drift. Edit %s and run `sandwall -c %s apply` (or `systemctl reload "
	       "sandwalld`), or stop sandwalld first",
	       reply_field(reply, "pid", (char[16]){ 0 }, 16), theirs, o->config, theirs, theirs);
	return true;
}

/* Ask the daemon that owns the table to do it. table: for the message when
 * no daemon answers; NULL when the daemon was just seen running o->config. */
static int via_daemon(const struct opts *o, const char *req, const char *table)
{
	char reply[SW_CONTROL_REPMAX], msg[512], cfgpath[512];
	int rc = sw_control_call(o->control, req, reply, sizeof(reply));

	if (rc == -ETIMEDOUT) {
		sw_err("sandwalld did not answer on %s within %d ms; the request expires "
		       "unexecuted: nothing was done", o->control, SW_CONTROL_ANSWER_MS);
		return EXIT_ERR;
	}
	if (rc == -EINPROGRESS) {
		sw_err("sandwalld accepted '%.*s' but did not finish within %d s; it may still "
		       "complete (see sandwall status)", (int)strcspn(req, "\n"), req,
		       SW_CONTROL_DONE_MS / 1000);
		return EXIT_ERR;
	}
	if (rc) {
		if (table)
			sw_err("table inet %s is owned by a running process (sandwalld) and no "
			       "daemon answers on %s: %s", table, o->control, strerror(-rc));
		else
			sw_err("sandwalld stopped answering on %s: %s", o->control, strerror(-rc));
		return EXIT_ERR;
	}
	reply_field(reply, "message", msg, sizeof(msg));
	if (strncmp(reply, "ok\n", 3)) {
		sw_err("sandwalld: %s", msg);
		return EXIT_ERR;
	}
	if (table && !strncmp(req, "reload", 6)) {
		char st[SW_CONTROL_REPMAX];

		if (daemon_status(o, st, sizeof(st)) &&
		    strcmp(reply_field(st, "config", cfgpath, sizeof(cfgpath)), o->config))
			sw_warn("note: sandwalld reloaded its own config %s, not %s", cfgpath, o->config);
	}
	printf("sandwalld: %s\n", msg);
	return 0;
}

/* An error of apply, check or remove. -EEXIST: the table is another
 * tool's (reconcile.c); the message then points at the config key. */
static void table_err(const struct sw_config *cfg, int rc, const char *err, const char *tail)
{
	char line[16] = "";

	if (rc != -EEXIST) {
		sw_err("%s%s", err, tail);
		return;
	}
	if (cfg->table_line)
		snprintf(line, sizeof(line), ":%u", cfg->table_line);
	sw_err("%s%s: [nft] table = %s%s: %s", cfg->path, line, cfg->table,
	       cfg->table_line ? "" : " (the default)", err);
}

/* The CLI's own change of the boundary (apply, remove) or a verify, in
 * the journal with its own uid and pid (a daemon writes its own lines). */
static void cli_journal(const struct sw_config *cfg, enum sw_jevent e, const char *by,
			int verify_code)
{
	struct sw_jw w;
	int rc = -ENOMEM;

	if (!cfg->journal_path[0])
		return;
	sw_journal_begin(&w, e, cfg->table, time(NULL));
	sw_jw_str(&w, "by", by);
	sw_journal_who(&w, (int64_t)getuid(), (int64_t)getpid(), "sandwall");
	if (e == SW_JE_VERIFY) {
		sw_jw_bool(&w, "passed", verify_code == 0);
		sw_jw_i64(&w, "exit", verify_code);
	}
	sw_jw_end(&w);
	if (!sw_jw_text(&w) || (rc = sw_journal_append(cfg->journal_path, sw_jw_text(&w))))
		sw_warn("warning: cannot write the journal %s: %s: the record has a hole",
			cfg->journal_path, sw_jw_text(&w) ? strerror(-rc) : "out of memory");
	sw_jw_free(&w);
}

static int cmd_apply(struct sw_nl *nl, const struct sw_config *cfg, struct sw_model *want,
		     bool force)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	bool repaired = false;
	int rc;

	if (force) {
		/* rewrite every chain in place, then read back */
		if ((rc = sw_apply(nl, want, err, sizeof(err)))) {
			table_err(cfg, rc, err, "; the kernel kept its previous ruleset");
			return EXIT_ERR;
		}
		if ((rc = sw_check(nl, want, &d, err, sizeof(err)))) {
			sw_err("applied, but %s", err);
			return EXIT_ERR;
		}
		if (d.n) {
			sw_err("applied, but the kernel does not hold the same ruleset:");
			sw_diff_print(&d, stderr);
			sw_diff_free(&d);
			return EXIT_ERR;
		}
		repaired = true;
	} else if ((rc = sw_reconcile(nl, want, &d, &repaired, err, sizeof(err)))) {
		table_err(cfg, rc, err, repaired ? "" : "; the kernel kept its previous ruleset");
		sw_diff_free(&d);
		return EXIT_ERR;
	}
	if (repaired)
		cli_journal(cfg, SW_JE_APPLIED, force ? "sandwall apply --force" : "sandwall apply", 0);
	if (!repaired)
		printf("table inet %s already in place: %zu chains, %zu rules, %zu sets, %zu elements\n",
		       want->table, want->n_chains, want->n_rules, want->n_sets, count_elems(want));
	else
		printf("applied table inet %s (%s): %zu chains, %zu rules, %zu sets, %zu elements; read back identical\n",
		       want->table, force ? "rewritten" : d.n == 1 && d.items[0].kind == SW_DIFF_MISSING &&
		       !strcmp(d.items[0].object, "table") ?
		       "created" : "updated", want->n_chains, want->n_rules, want->n_sets, count_elems(want));
	sw_diff_free(&d);
	return 0;
}

static int cmd_check(struct sw_nl *nl, const struct sw_config *cfg, struct sw_model *want,
		     const struct sw_coverage *cov, bool json)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	int rc;

	if ((rc = sw_check(nl, want, &d, err, sizeof(err)))) {
		table_err(cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (json) {
		struct sw_jw w;
		char t[8 + SW_TABLE_MAXLEN];

		snprintf(t, sizeof(t), "inet/%s", want->table);
		sw_jw_init(&w);
		sw_jw_obj(&w, NULL);
		sw_jw_str(&w, "table", t);
		sw_jw_bool(&w, "in_sync", !d.n);
		sw_diff_json(&d, &w, "drift");
		sw_jw_bool(&w, "covered", !sw_coverage_hole(cov));
		sw_coverage_json(cov, &w);
		sw_jw_end(&w);
		if ((rc = sw_jw_print(&w, stdout)))
			sw_err("cannot write the answer: %s", strerror(-rc));
		sw_jw_free(&w);
	} else if (d.n) {
		printf("drift in table inet %s (%zu differences):\n", want->table, d.n);
		sw_diff_print(&d, stdout);
	} else {
		printf("table inet %s matches the config\n", want->table);
	}
	if (!json)
		sw_coverage_print(cov, cfg, stdout, "");
	rc = d.n || sw_coverage_hole(cov) ? EXIT_DRIFT : 0;
	sw_diff_free(&d);
	return rc;
}

static int cmd_remove(struct sw_nl *nl, const struct sw_config *cfg)
{
	const char *table = cfg->table;
	char err[SW_ERRLEN];
	bool absent;
	int rc;

	if ((rc = sw_remove(nl, table, &absent, err, sizeof(err)))) {
		table_err(cfg, rc, err, "");
		return EXIT_ERR;
	}
	printf(absent ? "table inet %s was not there\n" : "removed table inet %s\n", table);
	if (!absent)
		cli_journal(cfg, SW_JE_REMOVED, "sandwall remove", 0);
	if ((rc = sw_netdev_remove(nl, table, &absent, err, sizeof(err)))) {
		table_err(cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (!absent)
		printf("removed table netdev %s\n", table);
	if ((rc = sw_bindtable_remove(nl, table, &absent, err, sizeof(err)))) {
		table_err(cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (!absent)
		printf("removed table bridge %s\n", table);
	return 0;
}

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
			const char *val = reply_field(reply, keys[k], v, sizeof(v));
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
	sw_jw_end(&w);
	if ((rc = sw_jw_print(&w, stdout)))
		sw_err("cannot write the answer: %s", strerror(-rc));
	sw_jw_free(&w);
	return nh;
}

static int cmd_status(struct sw_nl *nl, const struct sw_config *cfg, const struct opts *o)
{
	static const char *const keys[] = { "pid", "uptime", "mode", "paused", "drifts", "repairs",
					     "repair_failures", "resyncs", "enobufs", "blocked_logged",
					     "dns_names", "dns_failures", "last_drift",
					     "journal_errors", "journal_error", "attempts_errors",
					     "unguarded" };
	char reply[SW_CONTROL_REPMAX], v[256];
	bool json = o->json, daemon;
	struct sw_host *host = calloc(1, sizeof(*host));
	struct sw_model have, *nd;
	int rc, host_err, nd_err, raw_nh = 0, d_rc;

	d_rc = daemon_status_rc(o, reply, sizeof(reply));
	daemon = d_rc == 0;
	host_err = host ? sw_host_read_links_addrs_routes(host) : -ENOMEM;
	if (host_err) {
		free(host);
		host = NULL;
	}
	if ((rc = sw_observe_counters(nl, cfg->table, &have))) {
		sw_err("cannot read the ruleset: %s", strerror(-rc));
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
				printf("daemon %-16s %s\n", keys[k], reply_field(reply, keys[k], v, sizeof(v)));
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
	free(host);
	return rc;
}

static int cmd_verify(const struct opts *o, const struct sw_config *cfg)
{
	struct sw_verify_opts vo = o->verify;
	char record[SW_PATH_MAX + 16] = "";
	const char *slash = strrchr(cfg->journal_path, '/');

	/* the last result sits next to the daemon's journal, for `receipt` */
	if (cfg->journal_path[0] && slash)
		snprintf(record, sizeof(record), "%.*s/verify.json",
			 (int)(slash - cfg->journal_path), cfg->journal_path);
	vo.record = record;
	vo.json = o->json;
	vo.control = o->control;
	if (vo.pid && vo.netns) {
		fprintf(stderr, "sandwall: --pid and --netns exclude each other\n");
		return EXIT_ERR;
	}
	{
		int code = sw_verify_cmd(cfg, &vo);

		if (code != 2 || geteuid() == 0)
			cli_journal(cfg, SW_JE_VERIFY, "sandwall verify", code);
		return code;
	}
}

static const struct option longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "control", required_argument, NULL, 'C' },
	{ "force", no_argument, NULL, 'F' },
	{ "accept-loss", no_argument, NULL, 'L' },
	{ "since", required_argument, NULL, 'S' },
	{ "until", required_argument, NULL, 'U' },
};

/* longopts, then verify's options (val SW_VERIFY_OPT_BASE + index), then the end */
static struct option all_opts[sizeof(longopts) / sizeof(*longopts) + 16 + 1];

static const struct option *options(void)
{
	size_t n = sizeof(longopts) / sizeof(*longopts);

	if (all_opts[0].name)
		return all_opts;
	memcpy(all_opts, longopts, sizeof(longopts));
	for (size_t i = 0; i < sw_verify_n_optdefs && i < 16; i++)
		all_opts[n + i] = (struct option){ sw_verify_optdefs[i].name,
			sw_verify_optdefs[i].has_arg ? required_argument : no_argument, NULL,
			SW_VERIFY_OPT_BASE + (int)i };
	return all_opts;
}

/* Options before and after the command; -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, const char *optstring, struct opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, optstring, options(), NULL)) != -1) {
		char err[SW_ERRLEN];

		if (c >= SW_VERIFY_OPT_BASE && (size_t)(c - SW_VERIFY_OPT_BASE) < sw_verify_n_optdefs) {
			if (sw_verify_opt(&o->verify, (size_t)(c - SW_VERIFY_OPT_BASE), optarg, err,
					  sizeof(err))) {
				fprintf(stderr, "sandwall: %s\n", err);
				return EXIT_ERR;
			}
			continue;
		}
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'j': o->json = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("sandwall " SW_VERSION "\n"); return 0;
		case 'C': o->control = optarg; break;
		case 'F': o->force = true; break;
		case 'L': o->accept_loss = true; break;
		case 'S':
		case 'U':
			if (sw_time_parse(optarg, c == 'S' ? &o->since : &o->until)) {
				fprintf(stderr, "sandwall: bad --%s '%s' (ISO 8601 UTC such as "
					"2026-12-02T08:30:00Z, or unix seconds)\n",
					c == 'S' ? "since" : "until", optarg);
				return EXIT_ERR;
			}
			break;
		default: usage(stderr); return EXIT_ERR;
		}
	}
	return -1;
}

/* table netdev <name>, the macvlan/ipvlan parents' guard (netdev.h),
 * after table inet <name> */
static int netdev_apply(struct run *x)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	bool repaired = false;
	size_t n = 0;
	int rc = sw_netdev_reconcile(x->nl, x->cfg, x->host, x->want, x->o->force, &d, &repaired,
				     &n, err, sizeof(err));

	sw_diff_free(&d);
	if (rc) {
		table_err(x->cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (sw_ruleset_parents_on(x->cfg))
		printf("%s table netdev %s: %zu macvlan/ipvlan parent(s) guarded\n",
		       repaired ? "applied" : "in place:", x->cfg->table, n);
	else if (x->cfg->n_users)
		printf("%s table netdev %s: the guarded users' packet sockets stopped on the uplinks and lo\n",
		       repaired ? "applied" : "in place:", x->cfg->table);
	else if (repaired)
		printf("removed table netdev %s ([guard] macvlan_parents and users are empty)\n", x->cfg->table);
	return 0;
}

/* table bridge <name>, each bridge port bound to its own addresses
 * (bindtable.h), after table inet <name> */
static int bindtable_apply(struct run *x)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	bool repaired = false;
	size_t n = 0;
	int rc = sw_bindtable_reconcile(x->nl, x->cfg, x->host, x->o->force, &d, &repaired, &n,
					err, sizeof(err));

	sw_diff_free(&d);
	if (rc) {
		table_err(x->cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (sw_portbind_wanted(x->cfg))
		printf("%s table bridge %s: %zu bridge port(s) bound to their addresses\n",
		       repaired ? "applied" : "in place:", x->cfg->table, n);
	else if (repaired)
		printf("removed table bridge %s (no sandbox keys on a source)\n", x->cfg->table);
	return 0;
}

/* Without sandwalld, apply resolves the allowlists' hostnames once
 * (waiting SW_APPLY_DNS_MS at most) so that they work at once; their
 * elements then time out with their clamped TTL, as nobody refreshes them
 * (docs/config.md: run sandwalld for hostnames). */
#define SW_APPLY_DNS_MS 3000

/* apply: what no guard covers, as warnings on stderr (after the table) */
static void coverage_warn(const struct sw_config *cfg, const struct sw_host *host)
{
	struct sw_coverage cov;

	sw_coverage(cfg, host, &cov);
	sw_coverage_print(&cov, cfg, stderr, "sandwall: warning: ");
}

static int run_apply(struct run *x)
{
	struct sw_resolver r;
	int rc;

	if (daemon_refuses_apply(x->o))
		return EXIT_ERR;
	if (owned(x->nl, x->want->table))
		return via_daemon(x->o, reload_req(x->o), x->want->table);
	/* an empty file is far likelier a truncated one than a wish for every
	 * default (rules/sandwall.conf spells those out) */
	if (sw_config_is_empty(x->cfg) && !x->o->accept_loss) {
		sw_err("%s:1: the file is empty (no section): refused, nothing was changed (to "
		       "apply every default anyway: --accept-loss)", x->cfg->path);
		return EXIT_ERR;
	}
	if ((rc = sw_resolver_init(&r, x->cfg, x->host, NULL))) {
		sw_err("cannot set up the resolver: %s", strerror(-rc));
		return EXIT_ERR;
	}
	if (r.n_names) {
		int got = sw_resolver_once(&r, SW_APPLY_DNS_MS);

		if (got < (int)r.n_names)
			sw_warn("%d of %zu allowlist hostnames resolved; the others allow nothing "
				"until sandwalld resolves them", got < 0 ? 0 : got, r.n_names);
		sw_resolver_fill(&r, x->want, sw_resolver_now_ms());
	}
	rc = cmd_apply(x->nl, x->cfg, x->want, x->o->force);
	if (!rc && r.n_names) {
		const char *t = x->want->table;

		/* the table was already in place: its host sets get them now */
		if (sw_resolver_push(&r, x->nl, &t, 1, sw_resolver_now_ms()))
			rc = EXIT_ERR;
	}
	sw_resolver_free(&r);
	if (!rc)
		rc = netdev_apply(x);
	if (!rc)
		coverage_warn(x->cfg, x->host);
	return rc ? rc : bindtable_apply(x);
}

static int run_check(struct run *x)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	struct sw_coverage cov;
	int rc, rc2;

	sw_coverage(x->cfg, x->host, &cov);
	rc = cmd_check(x->nl, x->cfg, x->want, &cov, x->o->json);

	if (rc == EXIT_ERR)
		return rc;
	if ((rc2 = sw_netdev_check(x->nl, x->cfg, x->host, x->want, &d, err, sizeof(err)))) {
		table_err(x->cfg, rc2, err, "");
		return EXIT_ERR;
	}
	if (d.n) {
		/* JSON keeps its one object on stdout: the netdev drift goes to stderr */
		FILE *f = x->o->json ? stderr : stdout;

		fprintf(f, "drift in table netdev %s (%zu differences):\n", x->cfg->table, d.n);
		sw_diff_print(&d, f);
		rc = EXIT_DRIFT;
	} else if (sw_ruleset_netdev_wanted(x->cfg) && !x->o->json) {
		printf("table netdev %s matches the config\n", x->cfg->table);
	}
	sw_diff_free(&d);
	if ((rc2 = sw_bindtable_check(x->nl, x->cfg, x->host, &d, err, sizeof(err)))) {
		table_err(x->cfg, rc2, err, "");
		return EXIT_ERR;
	}
	if (d.n) {
		FILE *f = x->o->json ? stderr : stdout;

		fprintf(f, "drift in table bridge %s (%zu differences):\n", x->cfg->table, d.n);
		sw_diff_print(&d, f);
		rc = EXIT_DRIFT;
	} else if (sw_portbind_wanted(x->cfg) && !x->o->json) {
		printf("table bridge %s matches the config\n", x->cfg->table);
	}
	sw_diff_free(&d);
	return rc;
}

static int run_export(struct run *x)
{
	char err[SW_ERRLEN];
	struct sw_model bt;
	int rc;

	if (sw_export(x->want, stdout))
		return EXIT_ERR;
	/* table bridge <name> after it, when a sandbox keys on a source */
	if (sw_portbind_wanted(x->cfg)) {
		if ((rc = sw_bindtable_want(x->cfg, x->host, &bt, err, sizeof(err)))) {
			table_err(x->cfg, rc, err, "");
			return EXIT_ERR;
		}
		rc = sw_export(&bt, stdout);
		sw_model_free(&bt);
		if (rc)
			return EXIT_ERR;
	}
	return fflush(stdout) ? EXIT_ERR : 0;
}

static int run_remove(struct run *x)
{
	char err[SW_ERRLEN];
	int rc;

	/* a config that apply refuses removes nothing either */
	if ((rc = sw_host_read(x->host)) || sw_config_check_host(x->cfg, x->host, err, sizeof(err))) {
		sw_err("%s%s", rc ? "cannot read the host's links, addresses and routes: " : "",
		       rc ? strerror(-rc) : err);
		return EXIT_ERR;
	}
	if (daemon_running(x->o) || owned(x->nl, x->cfg->table))
		return via_daemon(x->o, "remove", x->cfg->table);
	return cmd_remove(x->nl, x->cfg);
}

static int run_status(struct run *x)
{
	return cmd_status(x->nl, x->cfg, x->o);
}

static int run_verify(struct run *x)
{
	return cmd_verify(x->o, x->cfg);
}

static int run_receipt(struct run *x)
{
	struct sw_receipt_in in = { x->cfg, x->host, x->want, x->nl, x->o->control, x->o->json,
				    x->o->since, x->o->until };

	return sw_receipt_cmd(&in);
}

int main(int argc, char **argv)
{
	struct opts o = { .config = SW_DEFAULT_CONFIG, .control = SW_CONTROL_PATH,
			  .verify = { .timeout_ms = 1000 }, .since = -1, .until = -1 };
	static struct sw_config cfg;
	static struct sw_host host;
	struct sw_model want;
	struct sw_nl nl;
	struct run x = { &o, &cfg, &host, &want, &nl };
	const struct verb *v = NULL;
	char err[SW_ERRLEN];
	const char *cmd;
	int rc;

	sw_log_init("sandwall", true, false, LOG_USER);
	if (getenv("SANDWALL_CONTROL"))
		o.control = getenv("SANDWALL_CONTROL");
	if ((rc = parse_opts(argc, argv, "+c:jvhV", &o)) >= 0)
		return rc;
	/* options may also follow the command: sandwall check --json */
	if (optind >= argc) {
		usage(stderr);
		return EXIT_ERR;
	}
	cmd = argv[optind++];
	if ((rc = parse_opts(argc, argv, "c:jvhV", &o)) >= 0)
		return rc;
	if (optind < argc) {
		fprintf(stderr, "sandwall: unexpected argument '%s'\n", argv[optind]);
		return EXIT_ERR;
	}
	sw_log_set_verbose(o.verbose);
	for (size_t i = 0; i < sizeof(verbs) / sizeof(*verbs) && !v; i++)
		if (!strcmp(verbs[i].name, cmd))
			v = &verbs[i];
	if (!v) {
		fprintf(stderr, "sandwall: unknown command '%s' (try --help)\n", cmd);
		return EXIT_ERR;
	}

	/* A running sandwalld with this config does it (and checks the
	 * config, FILE:LINE in its reply): no second parse and build here,
	 * and no nf_tables socket, whose close would wait for the kernel to
	 * release what the daemon's commit replaced. */
	if ((v->daemon_req || v->run == run_remove) && daemon_stuck(&o))
		return EXIT_ERR;
	if (v->daemon_req && daemon_same_config(&o)) {
		/* the daemon's reload compares and repairs: it has no forced
		 * rewrite, so --force is refused rather than ignored */
		if (o.force) {
			sw_err("apply --force refused: sandwalld enforces %s and has no forced "
			       "rewrite (its reload repairs what differs); run `sandwall apply` "
			       "without --force, or stop sandwalld first", o.config);
			return EXIT_ERR;
		}
		rc = via_daemon(&o, v->run == run_apply ? reload_req(&o) : v->daemon_req, NULL);
		if (!rc && v->run == run_apply && !sw_config_load(o.config, &cfg, err, sizeof(err)) &&
		    !sw_host_read(&host))
			coverage_warn(&cfg, &host);
		return rc;
	}
	/* Everything is validated before the kernel is touched. */
	if (v->need == NEED_CONFIG && sw_config_load(o.config, &cfg, err, sizeof(err))) {
		sw_err("%s", err);
		return EXIT_ERR;
	}
	if (v->need == NEED_MODEL && load(&o, &cfg, &host, &want))
		return EXIT_ERR;
	if (v->kernel && open_nl(&nl)) {
		rc = EXIT_ERR;
	} else {
		rc = v->run(&x);
		if (v->kernel)
			sw_nl_close(&nl);
	}
	if (v->need == NEED_MODEL)
		sw_model_free(&want);
	return rc;
}
