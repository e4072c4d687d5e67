// SPDX-License-Identifier: GPL-2.0-or-later
/* verify: probe the boundary from where the containers are (see
 * include/cli/verify.h): the whole command, and its options. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/verify_int.h"
#include "core/coverage.h"
#include "host/rawcap.h"
#include "kernel/nl.h"
#include "kernel/observe.h"
#include "lib/atomicfile.h"
#include "lib/control.h"
#include "lib/log.h"

static void record(const char *path, const char *json)
{
	char dir[SW_PATH_MAX], *slash;

	if (!path || !*path || !json)
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	if (sw_atomic_write(path, json, strlen(json), 0600))
		sw_debug("cannot record the verify result in %s", path);
}

/* Before any probe: the table, the daemon, the coverage of the links.
 * Printed first (text), they say why nothing below can be HELD. */
static void root_checks(const struct sw_config *cfg, const struct sw_host *host,
			const struct sw_verify_opts *o, struct verdict *vd)
{
	struct sw_coverage cov;
	char rep[SW_CONTROL_REPMAX];
	struct sw_nl nl;
	bool present = false;
	uint32_t flags = 0;
	int rc;

	if ((rc = sw_nl_open(&nl)) == 0) {
		rc = sw_observe_table(&nl, cfg->table, &present, &flags);
		sw_nl_close(&nl);
	}
	if (rc)
		sw_verify_verdict_add(vd, "cannot read table inet %s: %s", cfg->table, strerror(-rc));
	else if (!present)
		sw_verify_verdict_add(vd, "table inet %s is ABSENT: nothing blocks (sandwall apply)", cfg->table);
	if (o->control && (sw_control_call(o->control, "status", rep, sizeof(rep)) ||
			   strncmp(rep, "ok\n", 3)))
		snprintf(vd->note[vd->n_notes++], sizeof(vd->note[0]),
			 "sandwalld is not running (no answer on %s): nothing repairs drift", o->control);
	sw_coverage(cfg, host, &cov);
	vd->unguarded = sw_coverage_hole(&cov);
	for (size_t i = 0; i < cov.n_links && i < SW_COV_MAX; i++)
		sw_verify_verdict_add(vd, "%s (%s) faces containers and no [guard] entry covers it: UNGUARDED",
				      cov.links[i].name, cov.links[i].facing);
	if (cov.n_links > SW_COV_MAX)
		sw_verify_verdict_add(vd, "%zu more unguarded container-facing links", cov.n_links - SW_COV_MAX);
	for (size_t i = 0; i < cov.n_patterns && vd->n_notes < 4; i++)
		snprintf(vd->note[vd->n_notes++], sizeof(vd->note[0]),
			 "[guard] interfaces pattern \"%s\" matches no interface now (a typo?)",
			 cov.patterns[i]);
}

/* Everything one command holds, from the checks at the root to the
 * verdict (static in sw_verify_cmd: the host and the plans are large). */
struct vcmd {
	const struct sw_config *cfg;
	const struct sw_verify_opts *o;
	struct verdict vd;
	char *canaries[SW_VERIFY_MAX_OPEN];
	size_t n_canaries;
	struct attack_ctx ac;
	struct sw_host host;
	struct sw_verify plan, run;
	struct verify_state st;
	bool as_id;                     /* --uid / --cgroup: from the host */
	bool throwaway;                 /* the default mode: throwaway namespaces */
	bool attacks, sandboxes, have_ac;
	struct sink sink;
	struct link_rec *lr;
	uint16_t ports[128];
	size_t n_ports;
	const char *no_probe;
	int homefd;
	time_t t_start;
};

/* Before any probe: the root checks (printed first), the canaries and
 * the plan. 0 or -errno (said on stderr). */
static int verify_prepare(struct vcmd *c)
{
	const struct sw_config *cfg = c->cfg;
	const struct sw_verify_opts *o = c->o;
	char err[SW_ERRLEN];
	int rc;

	if (c->as_id && (o->pid || o->netns)) {
		sw_err("--uid and --cgroup probe from the host; not with --pid or --netns");
		return -EINVAL;
	}
	if (geteuid() != 0) {
		/* nothing can be probed: say so first, and claim nothing */
		printf("NOT HELD: not run as root (euid %u): nothing was probed\n", (unsigned)geteuid());
		sw_err("verify needs root (network namespaces, raw sockets, the nf_tables table)");
		return -EPERM;
	}
	if ((rc = sw_host_read(&c->host))) {
		sw_err("cannot read the host's links, addresses and routes: %s", strerror(-rc));
		return rc;
	}
	root_checks(cfg, &c->host, o, &c->vd);
	if (!o->json)
		sw_verify_root_print(&c->vd, stdout);
	/* the canaries: --expect-open, else [verify] canary */
	for (size_t i = 0; i < o->n_open && c->n_canaries < SW_VERIFY_MAX_OPEN; i++)
		c->canaries[c->n_canaries++] = o->expect_open[i];
	for (size_t i = 0; !o->n_open && i < cfg->n_canaries && c->n_canaries < SW_VERIFY_MAX_OPEN; i++)
		c->canaries[c->n_canaries++] = (char *)cfg->canaries[i];
	sw_verify_listening(c->ports, 128, &c->n_ports);
	if ((rc = sw_verify_plan(cfg, &c->host, c->ports, c->n_ports, c->canaries, c->n_canaries,
				 &c->plan, err, sizeof(err)))) {
		sw_err("%s", err);
		return rc;
	}
	if ((rc = sw_verify_lan_peers(cfg, &c->host, &c->plan)))
		sw_debug("verify: cannot read the neighbour table: %s", strerror(-rc));
	for (size_t b = 0; b < cfg->n_sandboxes; b++)
		c->sandboxes |= cfg->sandboxes[b].egress != SW_EGRESS_OPEN;
	return 0;
}

/* The JSON document, the host's namespace, the counters (attacks,
 * sandbox checks), the canary and the sink: 0 or -errno (said on stderr
 * but for -ENOMEM). */
static int verify_setup(struct vcmd *c)
{
	int rc;

	memset(&c->st, 0, sizeof(c->st));
	c->st.all = true;
	c->st.routed_run = c->st.tap_run = -1;
	sw_jw_init(&c->st.w);
	c->homefd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (c->homefd < 0) {
		rc = -errno;
		sw_err("cannot open the host network namespace: %s", strerror(-rc));
		return rc;
	}
	if (c->throwaway && (c->attacks || c->sandboxes)) {
		if ((rc = sw_verify_attack_setup(c->cfg, &c->host, &c->ac, c->attacks)))
			return rc;
		c->ac.control = c->o->control;
		c->have_ac = true;
	}
	if (c->throwaway && c->sandboxes)
		sw_verify_sink_setup(c->cfg, &c->host, c->homefd, c->o->timeout_ms, c->o->control,
				     &c->sink);
	else if (c->sandboxes)
		c->no_probe = "sandbox checks run from the throwaway namespaces only (not --pid or --netns)";
	if (!c->throwaway)
		c->sink.addr.family = 0;
	c->lr = calloc(c->host.n_links ? c->host.n_links : 1, sizeof(*c->lr));
	return c->lr ? 0 : -ENOMEM;
}

/* The head of the result: the JSON members before "runs" (and opens it),
 * the text lines before the first run. */
static void verify_head(struct vcmd *c)
{
	const struct sw_verify_opts *o = c->o;
	struct sw_jw *w = &c->st.w;

	sw_jw_obj(w, NULL);
	sw_jw_i64(w, "time", (int64_t)time(NULL));
	sw_jw_bool(w, "attacks", c->attacks);
	if (c->have_ac && c->attacks && (c->ac.canary4 >= 0 || c->ac.canary6 >= 0))
		sw_jw_u64(w, "canary_port", c->ac.canary_port);   /* its UDP canary: receipt tells them apart */
	if (!o->json && !c->attacks)
		printf("attacks: not run (%s)\n", o->no_attacks ? "--no-attacks" :
		       "only from the throwaway namespaces, not with --pid or --netns");
	if (!o->json && c->sandboxes && c->throwaway && !c->sink.addr.family)
		printf("sandboxes: no unlisted destination to try (%s)\n", c->sink.why_not);
	sw_verify_holes_json(c->cfg, &c->host, w);
	if (!o->json)
		sw_verify_print_holes(c->cfg, &c->host, stdout);
	sw_jw_arr(w, "runs");
}

/* No throwaway probes: each guarded link says why. */
static void links_not_probed(struct vcmd *c, const char *why_not)
{
	for (size_t i = 0; i < c->host.n_links; i++) {
		c->lr[i].run = -1;
		c->lr[i].why_not = why_not;
	}
}

/* --uid / --cgroup: one run from the host, as that identity. */
static int run_as_id(struct vcmd *c)
{
	const struct sw_verify_opts *o = c->o;
	struct sw_verify *run = &c->run;
	int rc;

	*run = c->plan;
	if (o->cgroup && o->has_uid)
		snprintf(run->from, sizeof(run->from), "uid %u in cgroup %s", o->uid, o->cgroup);
	else if (o->cgroup)
		snprintf(run->from, sizeof(run->from), "cgroup %s", o->cgroup);
	else
		snprintf(run->from, sizeof(run->from), "uid %u", o->uid);
	rc = sw_verify_plan_loopback(c->cfg, &c->host, c->ports, c->n_ports, run);
	if (!rc)
		rc = sw_verify_probe_as(run, o);
	if (rc)
		sw_err("%s: cannot probe: %s", run->from, strerror(-rc));
	else
		sw_verify_run_done(&c->st, c->cfg, run, o->json);
	links_not_probed(c, "--uid/--cgroup: the output path, no throwaway probes");
	return rc;
}

/* --pid / --netns: one run from that namespace. */
static int run_existing_ns(struct vcmd *c)
{
	const struct sw_verify_opts *o = c->o;
	struct sw_verify *run = &c->run;
	char path[64];
	const char *nspath = o->netns;
	int fd, rc;

	if (o->pid) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)o->pid);
		nspath = path;
	}
	fd = open(nspath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sw_err("cannot open %s: %s", nspath, strerror(errno));
		rc = -errno;
	} else {
		*run = c->plan;
		if (o->pid)
			snprintf(run->from, sizeof(run->from), "pid %d", (int)o->pid);
		else
			snprintf(run->from, sizeof(run->from), "netns %s", nspath);
		rc = sw_verify_probe_in(fd, c->homefd, run, o->timeout_ms, NULL);
		close(fd);
		if (!rc)
			sw_verify_run_done(&c->st, c->cfg, run, o->json);
	}
	links_not_probed(c, "--pid/--netns: no throwaway probes");
	return rc;
}

/* The runs of the mode chosen: 0 or -errno (-ENOENT: nothing to probe from). */
static int verify_runs(struct vcmd *c)
{
	struct run_in in;

	if (c->as_id)
		return run_as_id(c);
	if (!c->throwaway)
		return run_existing_ns(c);
	in = (struct run_in){ c->cfg, &c->host, c->homefd, c->o->timeout_ms,
			      c->have_ac ? &c->ac : NULL, &c->sink, c->attacks, c->o->control };
	return sw_verify_throwaway_runs(&c->st, &in, &c->plan, c->lr, c->o->json);
}

/* After the runs (rc: theirs): the summaries, the reasons, the one
 * verdict; the JSON printed and recorded. Returns the exit code. */
static int verify_finish(struct vcmd *c, int rc)
{
	const struct sw_config *cfg = c->cfg;
	const struct sw_verify_opts *o = c->o;
	struct verdict *vd = &c->vd;
	struct sw_jw *w = &c->st.w;
	bool held;

	sw_jw_end(w);           /* runs */
	sw_verify_guarded_out(&c->st, cfg, &c->host, c->lr, o->json);
	sw_verify_sandboxes_out(&c->st, cfg, &c->sink, c->no_probe, o->json);
	/* packet sockets: a guarded host-side process with CAP_NET_RAW is not held (rawcap.h) */
	if (sw_rawcap_out(cfg, "", w, o->json ? NULL : stdout))
		sw_verify_verdict_add(vd, "a guarded host-side process holds CAP_NET_RAW: its packet "
				      "sockets are not held");
	if (!c->n_canaries)
		sw_verify_verdict_add(vd, "no canary configured ([verify] canary = none, no --expect-open): "
				      "nothing proves the container side reaches anything");
	if (rc && rc != -ENOENT)
		sw_verify_verdict_add(vd, "the probes could not run: %s", strerror(-rc));
	else if (rc)
		sw_verify_verdict_add(vd, "no guarded link to probe from");
	if (!c->st.all)
		sw_verify_verdict_add(vd, "a target that must be blocked was reached, or a canary was "
				      "not (FAIL rows)");
	sw_jw_arr(w, "problems");
	for (size_t i = 0; i < vd->n; i++)
		sw_jw_str(w, NULL, vd->why[i]);
	sw_jw_end(w);
	held = sw_verify_verdict_out(vd, w, c->t_start, o->json);
	sw_jw_bool(w, "passed", held);
	sw_jw_end(w);
	if (!sw_jw_text(w)) {
		sw_err("verify: cannot write the JSON result: %s", strerror(-w->err));
		return 2;
	}
	if (o->json)
		sw_jw_print(w, stdout);
	if (!rc || rc == -ENOENT)
		record(o->record, sw_jw_text(w));
	/* an error is 2, except where nothing could be probed because the
	 * container-facing link is unguarded: that is NOT HELD (1) */
	return held ? 0 : rc && !(rc == -ENOENT && vd->unguarded) ? 2 : 1;
}

static void verify_cleanup(struct vcmd *c)
{
	sw_verify_sink_close(&c->sink);
	free(c->lr);
	sw_host_free(&c->host);
	sw_jw_free(&c->st.w);
	if (c->homefd >= 0)
		close(c->homefd);
	if (c->have_ac)
		sw_verify_attack_close(&c->ac);
}

int sw_verify_cmd(const struct sw_config *cfg, const struct sw_verify_opts *o)
{
	static struct vcmd c;
	int code;

	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.o = o;
	c.t_start = time(NULL);
	c.as_id = o->has_uid || o->cgroup;
	c.throwaway = !o->pid && !o->netns && !c.as_id;
	c.attacks = !o->no_attacks && c.throwaway;
	c.sink.nsfd = -1;
	c.homefd = -1;
	if (verify_prepare(&c)) {
		sw_host_free(&c.host);
		return 2;
	}
	code = 2;
	if (!verify_setup(&c)) {
		verify_head(&c);
		code = verify_finish(&c, verify_runs(&c));
	}
	verify_cleanup(&c);
	return code;
}

/* ---- options: one entry each ---------------------------------------------- */

static int opt_pid(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > 0x7fffffff) {
		snprintf(err, errlen, "bad --pid '%s'", arg);
		return -EINVAL;
	}
	o->pid = (pid_t)v;
	return 0;
}

static int opt_netns(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	o->netns = arg;
	return 0;
}

static int opt_open(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	if (o->n_open >= SW_VERIFY_MAX_OPEN) {
		snprintf(err, errlen, "at most %d --expect-open", SW_VERIFY_MAX_OPEN);
		return -EINVAL;
	}
	o->expect_open[o->n_open++] = (char *)arg;
	return 0;
}

static int opt_timeout(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < 10 || v > 60000) {
		snprintf(err, errlen, "bad --timeout '%s' (10..60000 ms)", arg);
		return -EINVAL;
	}
	o->timeout_ms = (unsigned)v;
	return 0;
}

static int opt_no_attacks(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	(void)arg;
	(void)err;
	(void)errlen;
	o->no_attacks = true;
	return 0;
}

static int opt_uid(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || *arg == '-' || v == 0 || v >= UINT32_MAX) {
		snprintf(err, errlen, "bad --uid '%s' (a number, not 0)", arg);
		return -EINVAL;
	}
	o->has_uid = true;
	o->uid = (uint32_t)v;
	return 0;
}

static int opt_cgroup(struct sw_verify_opts *o, const char *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	o->cgroup = arg;
	return 0;
}

const struct sw_verify_optdef sw_verify_optdefs[] = {
	{ "pid", true, "PID", "probe from that process's network namespace", opt_pid },
	{ "netns", true, "PATH", "probe from that namespace (e.g. /run/netns/NAME)", opt_netns },
	{ "expect-open", true, "HOST:PORT", "a canary that must stay reachable (repeatable)", opt_open },
	{ "timeout", true, "MS", "how long a probe waits (default 1000)", opt_timeout },
	{ "no-attacks", false, NULL, "TCP probes only (no priming, ND or broadcast attacks)",
	  opt_no_attacks },
	{ "uid", true, "UID", "probe from the host as that user ([guard] users)", opt_uid },
	{ "cgroup", true, "PATH", "probe from the host in that cgroup ([guard] cgroups)", opt_cgroup },
};
const size_t sw_verify_n_optdefs = sizeof(sw_verify_optdefs) / sizeof(*sw_verify_optdefs);

int sw_verify_opt(struct sw_verify_opts *o, size_t idx, const char *arg, char *err, size_t errlen)
{
	if (idx >= sw_verify_n_optdefs) {
		snprintf(err, errlen, "no such verify option");
		return -EINVAL;
	}
	return sw_verify_optdefs[idx].set(o, arg, err, errlen);
}
