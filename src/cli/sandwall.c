// SPDX-License-Identifier: GPL-2.0-or-later
/* sandwall: the CLI. A table of verbs (name, what it needs, handler,
 * help) and the dispatch: parses the command line and the config, hands
 * a verb to a running sandwalld where it does it, else calls the verb's
 * handler (apply.c, status.c, receipt.c, verify_cmd.c, the rest here).
 * Exit codes: 0 ok, 1 drift, 2 usage/config/system error. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/apply.h"
#include "cli/cli.h"
#include "cli/daemonctl.h"
#include "cli/key.h"
#include "cli/lint.h"
#include "cli/preview.h"
#include "cli/receipt.h"
#include "cli/run.h"
#include "cli/status.h"
#include "cli/verify.h"
#include "core/config_check.h"
#include "core/coverage.h"
#include "core/diff.h"
#include "core/export.h"
#include "core/holes.h"
#include "core/model.h"
#include "core/ruleset.h"
#include "kernel/nl.h"
#include "lib/control.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/log.h"
#include "sync/bindtable.h"
#include "sync/netdev.h"
#include "sync/quarantine.h"
#include "core/desired.h"
#include "sync/reconcile.h"

/* ---- the commands: one table entry each ---------------------------------- */

enum need {
	NEED_CONFIG,                    /* the config, checked */
	NEED_MODEL,                     /* and the host and the desired model */
	NEED_NONE,                      /* nothing (receipt --verify with --allowed-signers) */
};

static int run_check(struct sw_cli_run *x);
static int run_export(struct sw_cli_run *x);
static int run_remove(struct sw_cli_run *x);
static int run_remove(struct sw_cli_run *x);
static int run_verify(struct sw_cli_run *x);
static int run_receipt(struct sw_cli_run *x);
static int run_release(struct sw_cli_run *x);

static const struct verb {
	const char *name;
	enum need need;
	bool kernel;                    /* opens the nf_tables socket */
	int (*run)(struct sw_cli_run *x);
	const char *help;
	const char *daemon_req;         /* what a running sandwalld does for it
					 * when it runs the same config file */
	bool words;                     /* takes words of its own after it (its
					 * own parser; sandwall's options go before) */
} verbs[] = {
	{ .name = "apply", .need = NEED_MODEL, .kernel = true, .run = sw_cli_apply, .help =
	  "install or fix the ruleset atomically (one batch), then read it back;\n"
	  "            nothing is sent when the kernel already matches (--force rewrites it all)",
	  .daemon_req = "reload" },
	{ .name = "check", .need = NEED_MODEL, .kernel = true, .run = run_check,
	  .help = "compare the kernel with the config: 0 in sync, 1 drift (printed)" },
	{ .name = "export", .need = NEED_MODEL, .run = run_export,
	  .help = "print the ruleset as nft -f text" },
	{ .name = "remove", .need = NEED_CONFIG, .kernel = true, .run = run_remove,
	  .help = "delete the table" },
	{ .name = "status", .need = NEED_CONFIG, .kernel = true, .run = sw_cli_status,
	  .help = "counters per block category and sandbox, and the table's state" },
	{ .name = "verify", .need = NEED_CONFIG, .run = run_verify,
	  .help = "probe and attack from the container side: 0 = every target blocked" },
	{ .name = "receipt", .need = NEED_MODEL, .kernel = true, .run = run_receipt,
	  .help = "audit document: digests, counters, drift events, verify, verdict;\n"
	  "            --output FILE --sign signs it (FILE.sig), --verify FILE checks one" },
	{ .name = "lint", .need = NEED_CONFIG, .run = sw_cli_lint,
	  .help = "warnings about the config on this host: 0, or 1 with --strict when there are any" },
	{ .name = "key", .need = NEED_CONFIG, .run = sw_cli_key,
	  .help = "the receipt signing key (made on first use): public key and fingerprint" },
	{ .name = "release", .need = NEED_CONFIG, .kernel = true, .run = run_release, .words = true,
	  .help = "release ADDRESS|LINK: end its quarantine ([sandbox] quarantine_on)" },
	{ .name = "run", .need = NEED_MODEL, .kernel = true, .run = sw_cli_run, .words = true,
	  .help = "an eval run: preflight verify, the command, postflight, a signed receipt;\n"
	  "            run [--label L] [--timeout DUR] [--receipt FILE] -- CMD [ARG...],\n"
	  "            run start [--label L], run stop LABEL|ID (sandwall(8) RUNS)" },
};

/* receipt --verify FILE: no host, no kernel; no config either when the
 * signers are given (a receipt checked on another machine) */
static const struct verb receipt_verify = { .name = "receipt", .need = NEED_CONFIG,
					    .run = sw_cli_receipt_verify };

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
		"      --until TIME   receipt: the window's end (default: now)\n"
		"      --output FILE  receipt: write it to FILE (atomically), not stdout\n"
		"      --sign         receipt: with --output, sign FILE with the receipt key:\n"
		"                     FILE.sig (ssh-keygen -Y verify -n sandwall-receipt)\n"
		"      --verify FILE  receipt: check FILE against FILE.sig: 0 good, 1 bad\n"
		"      --allowed-signers [FILE]\n"
		"                     receipt --verify: the signers (ssh-keygen's allowed\n"
		"                     signers file; default: this host's key); key: print\n"
		"                     this host's line of such a file\n"
		"      --strict       lint: exit 1 when there is a warning\n"
		"      --preview FILE check: what applying FILE would change in the kernel (nothing sent)\n");
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
		"exit status: 0 ok, 1 drift (verify, receipt: not held; receipt --verify: a bad\n"
		"signature or signer), 2 usage, config or system error\n"
		"see sandwall(8) and sandwall.conf(5)\n");
}

/* Read the config; on error say why, and where there is none at the
 * default path, how to point at one. */
static int load_config(const struct sw_cli_opts *o, struct sw_config *cfg)
{
	char err[SW_ERRLEN];
	int rc = sw_config_load(o->config, cfg, err, sizeof(err));

	if (!rc)
		return 0;
	sw_err("%s", err);
	if (rc == -ENOENT && !o->config_given)
		sw_err("no config at the default path: point at one with -c FILE "
		       "(from a checkout: sandwall -c rules/sandwall.conf ...), or install "
		       "sandwall (make install, or its package), which puts one there");
	return rc;
}

static int load(const struct sw_cli_opts *o, struct sw_config *cfg, struct sw_host *host,
		struct sw_model *want)
{
	char err[SW_ERRLEN];
	int rc;

	if ((rc = load_config(o, cfg)))
		return rc;
	rc = sw_host_gather(cfg, host, true, err, sizeof(err));
	if (!rc)
		rc = sw_desired_build(&(struct sw_desired_in){ .cfg = cfg, .host = host }, want,
				      err, sizeof(err));
	if (rc)
		sw_err("%s", err);
	return rc;
}

static int open_nl(struct sw_nl *nl)
{
	int rc = sw_nl_open(nl);

	if (rc)
		sw_err("cannot open the netfilter netlink socket: %s%s", strerror(-rc),
		       sw_cli_perm_hint(rc));
	return rc;
}

static int cmd_check(struct sw_nl *nl, const struct sw_config *cfg, struct sw_model *want,
		     const struct sw_coverage *cov, bool json)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	int rc;

	if ((rc = sw_check(nl, want, &d, err, sizeof(err)))) {
		sw_cli_table_err(cfg, rc, err, "");
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
	bool absent = false;
	int rc;

	if ((rc = sw_remove(nl, table, &absent, err, sizeof(err)))) {
		sw_cli_table_err(cfg, rc, err, "");
		return EXIT_ERR;
	}
	printf(absent ? "table inet %s was not there\n" : "removed table inet %s\n", table);
	if (!absent)
		sw_cli_journal(cfg, SW_JE_REMOVED, "sandwall remove", 0);
	if ((rc = sw_netdev_remove(nl, table, &absent, err, sizeof(err)))) {
		sw_cli_table_err(cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (!absent)
		printf("removed table netdev %s\n", table);
	if ((rc = sw_bindtable_remove(nl, table, &absent, err, sizeof(err)))) {
		sw_cli_table_err(cfg, rc, err, "");
		return EXIT_ERR;
	}
	if (!absent)
		printf("removed table bridge %s\n", table);
	return 0;
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
	{ "output", required_argument, NULL, 'O' },
	{ "sign", no_argument, NULL, 'G' },
	{ "verify", required_argument, NULL, 'Y' },
	{ "allowed-signers", optional_argument, NULL, 'A' },
	{ "strict", no_argument, NULL, 'T' },
	{ "preview", required_argument, NULL, 'P' },
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

static bool is_verb(const char *name)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(*verbs); i++)
		if (!strcmp(verbs[i].name, name))
			return true;
	return false;
}

/* Options before and after the command; -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, const char *optstring, struct sw_cli_opts *o)
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
		case 'c': o->config = optarg; o->config_given = true; break;
		case 'j': o->json = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("sandwall " SW_VERSION "\n"); return 0;
		case 'C': o->control = optarg; break;
		case 'F': o->force = true; break;
		case 'L': o->accept_loss = true; break;
		case 'O': o->output = optarg; break;
		case 'G': o->sign = true; break;
		case 'Y': o->verify_file = optarg; break;
		case 'A':
			/* "--allowed-signers FILE" too, unless FILE is a command or an option */
			if (!optarg && optind < argc && argv[optind][0] != '-' && !is_verb(argv[optind]))
				optarg = argv[optind++];
			o->allowed_signers = optarg ? optarg : "";
			break;
		case 'T': o->strict = true; break;
		case 'P': o->preview = optarg; break;
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

static int run_check(struct sw_cli_run *x)
{
	char err[SW_ERRLEN];
	struct sw_diff d;
	struct sw_coverage cov;
	int rc, rc2;

	if (x->o->preview)
		return sw_cli_preview(x);       /* check --preview FILE */
	sw_coverage(x->cfg, x->host, &cov);
	rc = cmd_check(x->nl, x->cfg, x->want, &cov, x->o->json);

	if (rc == EXIT_ERR)
		return rc;
	if ((rc2 = sw_netdev_check(x->nl, x->cfg, x->host, x->want, &d, err, sizeof(err)))) {
		sw_cli_table_err(x->cfg, rc2, err, "");
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
		sw_cli_table_err(x->cfg, rc2, err, "");
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

static int run_export(struct sw_cli_run *x)
{
	return sw_cli_export(x, stdout) || fflush(stdout) ? EXIT_ERR : 0;
}

static int run_remove(struct sw_cli_run *x)
{
	char err[SW_ERRLEN];
	int rc;

	/* a config that apply refuses removes nothing either */
	if ((rc = sw_host_read(x->host)) || sw_config_check_host(x->cfg, x->host, err, sizeof(err))) {
		sw_err("%s%s", rc ? "cannot read the host's links, addresses and routes: " : "",
		       rc ? strerror(-rc) : err);
		return EXIT_ERR;
	}
	if (sw_cli_daemon_running(x->o) || sw_cli_owned(x->nl, x->cfg->table))
		return sw_cli_via_daemon(x->o, "remove", x->cfg->table);
	return cmd_remove(x->nl, x->cfg);
}

static int run_verify(struct sw_cli_run *x)
{
	return sw_cli_verify(x->o, x->cfg, NULL);
}

static int run_receipt(struct sw_cli_run *x)
{
	struct sw_receipt_in in = { x->cfg, x->host, x->want, x->nl, x->o->control, x->o->json,
				    x->o->since, x->o->until, x->o->output, x->o->sign };

	if (x->o->sign && !x->o->output) {
		sw_err("receipt --sign needs --output FILE (the signature is FILE.sig)");
		return EXIT_ERR;
	}

	return sw_receipt_cmd(&in);
}

/* release ADDRESS|LINK: through a running sandwalld (whose table it is),
 * else here, with its journal line */
static int run_release(struct sw_cli_run *x)
{
	char err[SW_ERRLEN] = "", req[SW_CONTROL_REQMAX * 2];
	struct sw_release r;
	size_t n = 0;
	int rc;

	if (x->argc != 1) {
		fprintf(stderr, "sandwall: usage: sandwall release ADDRESS|LINK\n");
		return EXIT_ERR;
	}
	if (sw_release_parse(x->argv[0], &r, err, sizeof(err))) {
		sw_err("%s", err);
		return EXIT_ERR;
	}
	if (sw_cli_daemon_running(x->o) || sw_cli_owned(x->nl, x->cfg->table)) {
		snprintf(req, sizeof(req), "release\ntarget=%s", r.text);
		return sw_cli_via_daemon(x->o, req, x->cfg->table);
	}
	if ((rc = sw_quarantine_release(x->nl, x->cfg, NULL, &r, &n, err, sizeof(err)))) {
		sw_cli_table_err(x->cfg, rc, err, "");
		return EXIT_ERR;
	}
	printf("%s %s\n", r.text, n ? "released" : "was not quarantined");
	if (n)
		sw_cli_journal(x->cfg, SW_JE_RELEASE, "sandwall release", 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct sw_cli_opts o = { .config = SW_DEFAULT_CONFIG, .control = SW_CONTROL_PATH,
			  .verify = { .timeout_ms = 1000 }, .since = -1, .until = -1 };
	struct sw_config cfg = { 0 };
	struct sw_host host = { 0 };
	struct sw_model want;
	struct sw_nl nl;
	struct sw_cli_run x = { .o = &o, .cfg = &cfg, .host = &host, .want = &want, .nl = &nl };
	const struct verb *v = NULL;
	enum need verb_need = NEED_CONFIG;
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
	for (size_t i = 0; i < sizeof(verbs) / sizeof(*verbs) && !v; i++)
		if (!strcmp(verbs[i].name, cmd))
			v = &verbs[i];
	if (!v) {
		fprintf(stderr, "sandwall: unknown command '%s' (try --help)\n", cmd);
		return EXIT_ERR;
	}
	if (v->words) {
		x.argc = argc - optind;
		x.argv = argv + optind;
	} else {
		if ((rc = parse_opts(argc, argv, "c:jvhV", &o)) >= 0)
			return rc;
		if (optind < argc) {
			fprintf(stderr, "sandwall: unexpected argument '%s'\n", argv[optind]);
			return EXIT_ERR;
		}
	}
	sw_log_set_verbose(o.verbose);
	if (v->run != run_receipt && (o.output || o.sign || o.verify_file)) {
		fprintf(stderr, "sandwall: --output, --sign and --verify are receipt's options\n");
		return EXIT_ERR;
	}
	if (o.allowed_signers && v->run != sw_cli_key && !o.verify_file) {
		fprintf(stderr, "sandwall: --allowed-signers is for key and receipt --verify\n");
		return EXIT_ERR;
	}
	verb_need = v->need;
	if (v->run == run_receipt && o.verify_file) {
		v = &receipt_verify;
		verb_need = v->need;
		if (o.allowed_signers && !o.config_given)
			verb_need = NEED_NONE;
	}

	/* A running sandwalld with this config does it (and checks the
	 * config, FILE:LINE in its reply): no second parse and build here,
	 * and no nf_tables socket, whose close would wait for the kernel to
	 * release what the daemon's commit replaced. */
	if ((v->daemon_req || v->run == run_remove) && sw_cli_daemon_stuck(&o))
		return EXIT_ERR;
	if (v->daemon_req && sw_cli_daemon_same_config(&o)) {
		/* the daemon's reload compares and repairs: it has no forced
		 * rewrite, so --force is refused rather than ignored */
		if (o.force) {
			sw_err("apply --force refused: sandwalld enforces %s and has no forced "
			       "rewrite (its reload repairs what differs); run `sandwall apply` "
			       "without --force, or stop sandwalld first", o.config);
			return EXIT_ERR;
		}
		rc = sw_cli_via_daemon(&o, v->run == sw_cli_apply ? sw_cli_reload_req(&o) : v->daemon_req, NULL);
		if (!rc && v->run == sw_cli_apply && !sw_config_load(o.config, &cfg, err, sizeof(err)) &&
		    !sw_host_read(&host))
			sw_cli_lint_warn(&cfg, &host);
		sw_host_free(&host);
		sw_config_free(&cfg);
		return rc;
	}
	/* Everything is validated before the kernel is touched. */
	if (verb_need == NEED_CONFIG && load_config(&o, &cfg)) {
		rc = EXIT_ERR;
	} else if (verb_need == NEED_MODEL && load(&o, &cfg, &host, &want)) {
		rc = EXIT_ERR;
	} else {
		if (v->kernel && open_nl(&nl)) {
			rc = EXIT_ERR;
		} else {
			rc = v->run(&x);
			if (v->kernel)
				sw_nl_close(&nl);
		}
		if (verb_need == NEED_MODEL)
			sw_model_free(&want);
	}
	sw_host_free(&host);
	sw_config_free(&cfg);
	return rc;
}
