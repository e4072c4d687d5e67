// SPDX-License-Identifier: GPL-2.0-or-later
/* verify's runs: one throwaway namespace per guarded bridge, one
 * throwaway routed veth and tap, a bridge run inside a sandbox's source;
 * probing from an existing namespace; and as a uid or in a cgroup from
 * the host (include/cli/verify_int.h). The veth on the bridge is deleted
 * on every path. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>

#include "cli/verify_int.h"
#include "core/diff.h"
#include "core/ruleset.h"
#include "kernel/observe.h"
#include "kernel/rtlink.h"
#include "lib/control.h"
#include "lib/log.h"
#include "sync/bindtable.h"
#include "sync/quarantine.h"
#include "sync/cgwatch.h"


/* Does the block of row t trip a quarantine (env's trip_cats,
 * trip_egress)? */
static bool trips(const struct sw_attack_env *env, const struct sw_verify_target *t)
{
	int cat = sw_vcat_category(t->cat);

	if (t->cat == SW_VCAT_EGRESS)
		return env->trip_egress;
	return cat >= 0 && (env->trip_cats & (1u << cat));
}

/* The plain probes p[0..n) (rows[k]: p[k]'s row), in batches a cut-off of
 * the probe's own address cannot spoil (env->watch around each: a batch
 * that a cut-off dropped fails the run): a row whose block trips a
 * quarantine alone, the others at most env->batch at a time. Without a
 * watch, all at once. 0 or -errno. */
static int probe_phase(const struct sw_attack_env *env, const struct sw_verify *v,
		       struct sw_probe *p, const size_t *rows, size_t n, unsigned timeout_ms)
{
	static struct sw_probe b[SW_VERIFY_MAX];
	size_t idx[SW_VERIFY_MAX];
	bool done[SW_VERIFY_MAX] = { false };
	int rc = 0;

	if (!env || !env->watch)
		return sw_probe_run(p, n, timeout_ms);
	while (!rc) {
		size_t nb = 0, fam[2] = { 0, 0 };
		bool alone;

		for (size_t i = 0; i < n && !nb; i++)
			if (!done[i] && trips(env, &v->t[rows[i]]))
				idx[nb++] = i;
		alone = nb > 0;
		/* each family has a count of its own */
		for (size_t i = 0; i < n && !alone; i++) {
			size_t *f = &fam[p[i].addr.family == AF_INET6];

			if (!done[i] && (!env->batch || *f < env->batch)) {
				idx[nb++] = i;
				(*f)++;
			}
		}
		if (!nb)
			break;
		for (size_t k = 0; k < nb; k++) {
			b[k] = p[idx[k]];
			done[idx[k]] = true;
		}
		env->watch(env->watch_arg, false, true);
		rc = sw_probe_run(b, nb, timeout_ms);
		env->watch(env->watch_arg, true, true);
		for (size_t k = 0; k < nb; k++)
			p[idx[k]] = b[k];
	}
	return rc;
}

/* Probe from the namespace behind fd (and run the attacks when env is
 * given), then come back. */
int sw_verify_probe_in(int nsfd, int homefd, struct sw_verify *v, unsigned timeout_ms,
		       const struct sw_attack_env *env)
{
	static struct sw_probe p[SW_VERIFY_MAX];
	static struct sw_attack a[SW_VERIFY_MAX];
	static size_t rows[SW_VERIFY_MAX];
	size_t np = 0, na = 0, nopen = 0;
	int rc;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < v->n; i++) {
			if (v->t[i].atk.kind == SW_ATK_NONE && v->t[i].must_block == (pass == 1)) {
				rows[np] = i;
				p[np++] = v->t[i].probe;
			} else if (pass == 1 && v->t[i].atk.kind != SW_ATK_NONE) {
				a[na++] = v->t[i].atk;
			}
			if (pass == 0)
				nopen = np;
		}
	if (setns(nsfd, CLONE_NEWNET) < 0)
		return -errno;
	/* what must stay open first (canaries, allowlisted rows): a blocked
	 * probe may trip a quarantine that would then drop them; the
	 * quarantine itself is a block. Then the targets that must be
	 * blocked, each batch from a probe whose count starts again: a
	 * target the probe's own cut-off dropped timed out for that, not for
	 * its rule */
	rc = probe_phase(env, v, p, rows, nopen, timeout_ms);
	if (!rc)
		rc = probe_phase(env, v, p + nopen, rows + nopen, np - nopen, timeout_ms);
	if (!rc && env && na)
		rc = sw_attack_run(env, a, na);
	if (setns(homefd, CLONE_NEWNET) < 0) {
		sw_err("cannot return to the host network namespace: %s", strerror(errno));
		exit(2);        /* never go on in the wrong namespace */
	}
	np = na = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < v->n; i++) {
			if (v->t[i].atk.kind == SW_ATK_NONE && v->t[i].must_block == (pass == 1))
				v->t[i].probe = p[np++];
			else if (pass == 1 && v->t[i].atk.kind != SW_ATK_NONE)
				v->t[i].atk = a[na++];
		}
	return rc;
}

/* What table bridge <name> dropped because a frame's source was not its
 * port's (bindtable.h): 0 without the table. A forged source dies there,
 * before table inet's counters see it. */
static uint64_t unbound_pkts(struct sw_nl *nl, const char *table)
{
	struct sw_model *m = calloc(1, sizeof(*m));
	uint64_t n = 0;
	int i;

	if (m && !sw_observe_family(nl, NFPROTO_BRIDGE, table, m)) {
		if (m->has_table && (i = sw_model_find_counter(m, SW_BT_COUNTER)) >= 0)
			n = m->counter_pkts[i];
		sw_model_free(m);
	}
	free(m);
	return n;
}

static int count_cb(void *arg, const char *counter, uint64_t *pkts)
{
	const struct attack_ctx *ac = arg;
	int rc = sw_observe_counters(ac->nl, ac->table, ac->m), i;

	if (!rc) {
		i = sw_model_find_counter(ac->m, counter);
		if (!ac->m->has_table || i < 0)
			rc = -ENOENT;
		else
			*pkts = ac->m->counter_pkts[i] + unbound_pkts(ac->nl, ac->table);
	}
	sw_model_free(ac->m);
	return rc;
}

/* In a sandbox's namespace its policy drops a packet of an attack that
 * the forged-source check lets through (ND with a payload) before the
 * category would: the first matching policy's egress counter counts too. */
static void sandbox_counters(const struct sw_config *cfg, struct sw_verify *v, size_t from)
{
	for (size_t b = 0; b < cfg->n_sandboxes && b < 32; b++) {
		if (!(v->sandboxes & (1u << b)))
			continue;
		for (size_t i = from; i < v->n; i++)
			if (v->t[i].atk.kind == SW_ATK_ND && !v->t[i].atk.counter2[0])
				snprintf(v->t[i].atk.counter2, sizeof(v->t[i].atk.counter2), "egress_%s",
					 cfg->sandboxes[b].name);
		return;
	}
}

/* The run's own addresses out of every quarantine set (its probes
 * tripped them, [sandbox] quarantine_on): through sandwalld when it
 * answers (the table is its own), else here. */
static void quarantine_reset(void *arg)
{
	const struct attack_ctx *ac = arg;
	bool any = false, away;

	for (size_t i = 0; i < ac->cfg->n_sandboxes; i++)
		any |= ac->cfg->sandboxes[i].quarantine_on != 0;
	if (!any)
		return;
	/* sandwalld takes commands from its own namespace only: from the
	 * probe's, go home for the call and back */
	away = ac->nsfd >= 0;
	if (away && setns(ac->homefd, CLONE_NEWNET) < 0) {
		sw_err("cannot return to the host network namespace: %s", strerror(errno));
		exit(2);
	}
	for (size_t i = 0; i < ac->n_self; i++) {
		char a[SW_ADDR_STRLEN], req[96], reply[256], err[SW_ERRLEN];
		struct sw_release r;
		size_t n;
		int crc;

		if (!inet_ntop(ac->self[i].family, ac->self[i].addr, a, sizeof(a)))
			continue;
		if (sw_release_parse(a, &r, err, sizeof(err)))
			continue;
		snprintf(req, sizeof(req), "release\ntarget=%s", a);
		crc = ac->control ? sw_control_call(ac->control, req, reply, sizeof(reply)) : -ENOENT;
		if (!crc && !strncmp(reply, "ok\n", 3))
			continue;
		if (sw_quarantine_release(ac->nl, ac->cfg, NULL, &r, &n, err, sizeof(err)))
			sw_warn("verify: cannot release its probe %s from the quarantine: %s (sandwalld: "
				"%s)", a, err, crc ? strerror(-crc) : reply);
	}
	if (away && setns(ac->nsfd, CLONE_NEWNET) < 0) {
		sw_err("cannot enter the probe's network namespace again: %s", strerror(errno));
		exit(2);
	}
}

/* What cuts a run's probe off (its sandboxes' connections_NAME and
 * quarantine_NAME), read around each phase judged by silence. */
#define CUTOFF_MAX 16
static struct cutoff {
	struct attack_ctx *ac;
	struct sw_verify *v;
	char name[CUTOFF_MAX][48];
	bool is_q[CUTOFF_MAX];          /* a quarantine's counter, not a count's */
	size_t n;
	uint64_t c0[CUTOFF_MAX];
} cutoff;

static void cut_off(struct sw_verify *v, const char *by)
{
	if (v->cut_off)
		return;
	v->cut_off = true;
	snprintf(v->cut_off_by, sizeof(v->cut_off_by), "%s", by);
}

/* The counters in one read of the table's (without the bridge table's
 * drops count_cb adds: another source's forged frame is not the probe
 * cut off): 0 or -errno. */
static int cutoff_read(const struct cutoff *c, uint64_t *out)
{
	int rc, k;

	memset(out, 0, sizeof(*out) * CUTOFF_MAX);
	if ((rc = sw_observe_counters(c->ac->nl, c->ac->table, c->ac->m)) == 0)
		for (size_t i = 0; i < c->n; i++)
			if ((k = sw_model_find_counter(c->ac->m, c->name[i])) >= 0)
				out[i] = c->ac->m->counter_pkts[k];
	sw_model_free(c->ac->m);
	return rc;
}

static void cutoff_watch(void *arg, bool end, bool quarantine)
{
	struct cutoff *c = arg;
	uint64_t c1[CUTOFF_MAX];

	if (!end) {
		quarantine_reset(c->ac);        /* the count starts again */
		if (cutoff_read(c, c->c0))
			cut_off(c->v, "its counters unreadable");
		return;
	}
	if (cutoff_read(c, c1)) {
		cut_off(c->v, "its counters unreadable");
		return;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c1[i] > c->c0[i] && (quarantine || !c->is_q[i]))
			cut_off(c->v, c->name[i]);
}

/* The watch of a run whose namespace is a source of sandboxes with a
 * max_connections or a quarantine (v->in_sandboxes): their counters, the
 * categories whose block trips one, the batch its smallest count allows
 * (the probe's own connections count: N at a time from a count started
 * again is never cut off). */
static void cutoff_setup(const struct sw_config *cfg, struct sw_verify *v, struct attack_ctx *ac,
			 struct sw_attack_env *env)
{
	memset(&cutoff, 0, sizeof(cutoff));
	cutoff.ac = ac;
	cutoff.v = v;
	for (size_t b = 0; b < cfg->n_sandboxes && b < 32; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];

		if (!(v->in_sandboxes & (1u << b)))
			continue;
		if (x->max_conns && cutoff.n < CUTOFF_MAX) {
			snprintf(cutoff.name[cutoff.n++], sizeof(cutoff.name[0]), "connections_%s", x->name);
			if (!env->batch || x->max_conns < env->batch)
				env->batch = x->max_conns;
		}
		if (x->quarantine_on && cutoff.n < CUTOFF_MAX) {
			cutoff.is_q[cutoff.n] = true;
			snprintf(cutoff.name[cutoff.n++], sizeof(cutoff.name[0]), "quarantine_%s", x->name);
		}
		env->trip_cats |= x->quarantine_on & ((1u << SW_CAT_COUNT) - 1);
		env->trip_egress |= (x->quarantine_on & SW_Q_EGRESS) != 0;
	}
	if (cutoff.n) {
		env->watch = cutoff_watch;
		env->watch_arg = &cutoff;
	}
}

/* Everything of a run once its namespace is wired: the sandbox rows, the
 * attacks, the probes. hname: what the host sees the packets arrive on. */
static int run_wired(const struct run_in *in, struct sw_verify *v, int nsfd, const char *cname,
		     const char *hname, const char *mac_of, const struct sw_prefix *addr,
		     const struct sw_prefix *addr6)
{
	struct sw_attack_env env;
	struct attack_ctx *ac = in->ac;
	int rc;

	if (sw_verify_add_sandboxes(in->cfg, in->h, v, hname, addr, addr6,
				    ac && in->sink ? &in->sink->addr : NULL, in->sink ? in->sink->port : 0))
		sw_warn("verify: more than %d targets; not every sandbox check is run", SW_VERIFY_MAX);
	if (!ac)
		return sw_verify_probe_in(nsfd, in->homefd, v, in->timeout_ms, NULL);
	memset(&env, 0, sizeof(env));
	snprintf(env.ifname, sizeof(env.ifname), "%s", cname);
	env.self4 = *addr;
	if (addr6)
		env.self6 = *addr6;
	env.canary4 = ac->canary4;
	env.canary6 = ac->canary6;
	env.control4 = ac->control4;
	env.control6 = ac->control6;
	env.canary_port = ac->canary_port;
	env.timeout_ms = in->timeout_ms;
	/* silence is waited for: long enough on a busy host */
	env.evidence_ms = in->timeout_ms < 250 ? 250 : in->timeout_ms > 1000 ? 1000 : in->timeout_ms;
	env.count = count_cb;
	env.count_arg = ac;
	env.reset = quarantine_reset;
	env.reset_arg = ac;
	cutoff_setup(in->cfg, v, ac, &env);
	ac->homefd = in->homefd;
	ac->nsfd = nsfd;        /* the attacks run in it: the reset goes home and back */
	ac->n_self = 0;
	ac->self[ac->n_self++] = *addr;
	if (addr6)
		ac->self[ac->n_self++] = *addr6;
	/* the frames go to the host side's own MAC, as a container's do */
	rc = sw_attack_ifmac(mac_of, env.gwmac);
	if (rc) {
		sw_err("%s: cannot read its MAC address: %s", mac_of, strerror(-rc));
		return rc;
	}
	if (in->attacks) {
		size_t n0 = v->n;

		if (sw_verify_add_attacks(v, addr6 != NULL, ac->bcast, ac->n_bcast, ac->canary4 >= 0,
					  ac->canary6 >= 0, ac->canary_port))
			sw_warn("verify: more than %d targets; not every attack is run", SW_VERIFY_MAX);
		sandbox_counters(in->cfg, v, n0);
	}
	/* let the link leave its learning state */
	usleep(50 * 1000);
	rc = sw_verify_probe_in(nsfd, in->homefd, v, in->timeout_ms, &env);
	ac->nsfd = -1;          /* home again */
	quarantine_reset(ac);   /* the probe leaves nothing quarantined behind */
	return rc;
}

/* "<what> as <address> [and <address6>]" */
static void describe(struct sw_verify *v, const char *what, const struct sw_prefix *addr,
		     const struct sw_prefix *addr6)
{
	char a[SW_ADDR_STRLEN], a6[SW_ADDR_STRLEN];

	sw_prefix_format(addr, a, sizeof(a));
	v->n_src = 0;
	v->src[v->n_src++] = *addr;
	if (addr6)
		v->src[v->n_src++] = *addr6;
	if (addr6) {
		sw_prefix_format(addr6, a6, sizeof(a6));
		snprintf(v->from, sizeof(v->from), "%s as %s and %s", what, a, a6);
	} else {
		snprintf(v->from, sizeof(v->from), "%s as %s", what, a);
	}
}

/* table bridge <name> in line with the host as it is now (a probe's port
 * bound to its addresses, or its binding gone with it), when a sandbox
 * keys on a source: without it the probe's own frames would drop at the
 * bridge and every "blocked" would be the binding's. */
static void probe_bind(const struct run_in *in)
{
	struct sw_host *h;
	struct sw_diff d;
	struct sw_nl nl;
	char err[256];
	bool repaired;

	if (!sw_portbind_wanted(in->cfg) || !(h = calloc(1, sizeof(*h))))
		return;
	if (!sw_host_read_links_addrs_routes(h) && !sw_nl_open(&nl)) {
		if (sw_bindtable_reconcile(&nl, in->cfg, h, false, &d, &repaired, NULL, err,
					   sizeof(err)))
			sw_warn("verify: table bridge %s: %s", in->cfg->table, err);
		sw_diff_free(&d);
		sw_nl_close(&nl);
	}
	sw_host_free(h);
	free(h);
}

/* One throwaway namespace on one bridge (within: its address in a
 * sandbox's source prefix). */
static int probe_bridge(const struct run_in *in, const struct sw_link *br,
			const struct sw_prefix *within, struct sw_verify *v)
{
	const struct sw_host *h = in->h;
	char hname[16], cname[16];
	struct sw_prefix addr, gw, addr6, gw6;
	bool v6;
	int nsfd = -1, rc;

	if ((rc = sw_verify_free_addr(h, br, AF_INET, within, &addr, &gw)))
		return rc;
	/* IPv6 too where the bridge has a global or ULA subnet */
	v6 = !within && sw_verify_free_addr(h, br, AF_INET6, NULL, &addr6, &gw6) == 0;
	snprintf(hname, sizeof(hname), "swv%uh", (unsigned)getpid() % 1000000);
	snprintf(cname, sizeof(cname), "swv%uc", (unsigned)getpid() % 1000000);
	if ((rc = sw_verify_new_ns(in->homefd, &nsfd)))
		return rc;
	/* a routed veth until it is on the bridge */
	sw_verify_announce(in->control, hname);
	rc = sw_rt_veth_add(hname, cname, nsfd);
	if (!rc)
		rc = sw_rt_link_up(hname, br->ifindex);
	if (!rc)
		rc = sw_verify_ns_setup(nsfd, in->homefd, cname, &addr, &gw, v6 ? &addr6 : NULL, &gw6);
	if (!rc && sw_verify_links_ready(nsfd, in->homefd, cname, hname, 2000))
		sw_debug("verify: %s / %s not up after 2 s; probing anyway", hname, cname);
	if (!rc)
		probe_bind(in);
	if (!rc) {
		char what[32];

		snprintf(what, sizeof(what), "bridge %s", br->name);
		describe(v, what, &addr, v6 ? &addr6 : NULL);
		snprintf(v->link, sizeof(v->link), "%s", br->name);
		v->why = sw_guard_why_name(sw_ruleset_guard_why(in->cfg, br));
		v->site = sw_verify_site_bridge;
		rc = run_wired(in, v, nsfd, cname, br->name, br->name, &addr, v6 ? &addr6 : NULL);
	}
	sw_rt_link_del(hname);
	probe_bind(in);                 /* its binding goes with it */
	/* the host learnt the probe's addresses on the bridge: forget them,
	 * or they would look taken to the next run */
	sw_rt_neigh_del(br->ifindex, &addr);
	if (v6)
		sw_rt_neigh_del(br->ifindex, &addr6);
	close(nsfd);
	return rc;
}

/* One throwaway routed veth or tap, guarded as the host's own (sw_verify_pick_name),
 * with the probe behind it at a /32 (on-link default route, proxy ARP on
 * the host's side). stands_for: the guarded link it is of the kind of. */
static int probe_routed(const struct run_in *in, enum site_kind kind, const struct sw_link *stands_for,
			struct sw_verify *v, char *why_not, size_t wlen)
{
	char hname[16], cname[16] = "eth0", what[96];
	struct sw_prefix addr;
	int nsfd = -1, tfd = -1, cfd = -1, rc;
	pid_t pump = -1;

	if (sw_verify_pick_name(in->cfg, in->h, kind, hname)) {
		snprintf(why_not, wlen, "no name for a throwaway %s guarded as the host's are "
			 "(auto, or a pattern with '*'; or use --netns)",
			 kind == SITE_TAP ? "tap" : "routed veth");
		return -ENOENT;
	}
	if ((rc = sw_verify_routed_addr(in->cfg, in->h, kind, &addr))) {
		snprintf(why_not, wlen, "no IPv4 route or address of a guarded %s to put a probe next to",
			 kind == SITE_TAP ? "tap" : "routed veth");
		return rc;
	}
	if ((rc = sw_verify_new_ns(in->homefd, &nsfd)))
		goto out;
	sw_verify_announce(in->control, hname);
	if (kind == SITE_TAP) {
		if ((tfd = sw_verify_tap_open(hname)) < 0) {
			rc = tfd;
			goto out;
		}
		if (setns(nsfd, CLONE_NEWNET) < 0) {
			rc = -errno;
			goto out;
		}
		cfd = sw_verify_tap_open(cname);
		sw_verify_go_home(in->homefd);
		if (cfd < 0) {
			rc = cfd;
			goto out;
		}
		if ((pump = sw_verify_tap_pump(tfd, cfd)) < 0) {
			rc = -errno;
			goto out;
		}
	} else if ((rc = sw_rt_veth_add(hname, cname, nsfd))) {
		hname[0] = '\0';
		goto out;
	}
	if ((rc = sw_verify_routed_host_side(hname, &addr)) ||
	    (rc = sw_verify_ns_setup(nsfd, in->homefd, cname, &addr, NULL, NULL, NULL)))
		goto out;
	if (kind != SITE_TAP && sw_verify_links_ready(nsfd, in->homefd, cname, hname, 2000))
		sw_debug("verify: %s / %s not up after 2 s; probing anyway", hname, cname);
	snprintf(what, sizeof(what), "%s %s (a throwaway %s, as %s)",
		 kind == SITE_TAP ? "tap" : "routed veth", hname, kind == SITE_TAP ? "tap" : "veth",
		 stands_for->name);
	describe(v, what, &addr, NULL);
	snprintf(v->link, sizeof(v->link), "%s", hname);
	v->why = sw_guard_why_name(sw_ruleset_guard_why(in->cfg, stands_for));
	v->site = kind == SITE_TAP ? sw_verify_site_tap : sw_verify_site_routed;
	rc = run_wired(in, v, nsfd, cname, hname, hname, &addr, NULL);
out:
	if (rc && why_not[0] == '\0')
		snprintf(why_not, wlen, "cannot set up a throwaway %s: %s",
			 kind == SITE_TAP ? "tap" : "routed veth", strerror(-rc));
	if (pump > 0) {
		kill(pump, SIGKILL);
		waitpid(pump, NULL, 0);
	}
	if (cfd >= 0)
		close(cfd);
	if (tfd >= 0)
		close(tfd);     /* the tap goes with its last file descriptor */
	else if (hname[0] && kind != SITE_TAP)
		sw_rt_link_del(hname);
	if (nsfd >= 0)
		close(nsfd);
	return rc;
}

/* A finished run: printed, written to the JSON, counted per sandbox. */
void sw_verify_run_done(struct verify_state *st, const struct sw_config *cfg, const struct sw_verify *v,
			bool json)
{
	bool passed = sw_verify_passed(v);

	if (!json)
		sw_verify_text(v, st->runs + 1, stdout);
	sw_verify_json(v, st->runs + 1, &st->w);
	st->all &= passed;
	for (size_t b = 0; b < cfg->n_sandboxes && b < 32; b++) {
		struct sbx_rec *r = &st->sbx[b];

		if (!(v->sandboxes & (1u << b)))
			continue;
		if (!r->runs)
			r->first_run = (int)st->runs;
		r->runs++;
		r->runs_failed += !passed;
		for (size_t i = 0; i < v->n; i++) {
			const struct sw_verify_target *t = &v->t[i];
			bool fail = sw_verify_verdict_of(t) == SW_VV_FAIL;

			if (t->sandbox != (int)b + 1)
				continue;
			if (t->cat == SW_VCAT_EGRESS && t->atk.kind == SW_ATK_EGRESS) {
				r->unlisted_blocked += !fail;
				r->unlisted_failed += fail;
			} else if (t->atk.kind == SW_ATK_BUDGET) {
				r->budget_counted += !fail;
				r->budget_failed += fail;
			} else if (t->atk.kind == SW_ATK_CONNS) {
				r->conns_counted += !fail;
				r->conns_failed += fail;
			} else if (t->cat == SW_VCAT_ALLOWED) {
				r->allowed_open += sw_probe_reachable(&t->probe);
				r->allowed_unreachable += !sw_probe_reachable(&t->probe);
			}
		}
	}
	st->runs++;
}

/* The default mode: a run per guarded bridge, one through a throwaway
 * routed veth and one through a throwaway tap when links of those kinds
 * are guarded, and one for each sandbox no run matched that a bridge
 * subnet holds a source of. Returns 0 or -errno (set-up failures). */
int sw_verify_throwaway_runs(struct verify_state *st, const struct run_in *in,
			     const struct sw_verify *plan, struct link_rec *lr, bool json)
{
	static struct sw_verify run;
	const struct sw_host *h = in->h;
	const struct sw_config *cfg = in->cfg;
	bool bridges = false;
	int rc = 0;

	for (size_t i = 0; i < h->n_links && !rc; i++) {
		const struct sw_link *l = &h->links[i];

		lr[i].run = -1;
		lr[i].why_not = NULL;
		if (!sw_ruleset_guarded(cfg, l))
			continue;
		switch (sw_verify_site_of(l)) {
		case SITE_BRIDGE:
			if (!l->up) {
				lr[i].why_not = "down";
				continue;
			}
			run = *plan;
			rc = probe_bridge(in, l, NULL, &run);
			if (rc == -EADDRNOTAVAIL) {
				sw_warn("bridge %s: no IPv4 subnet with a free address; not probed", l->name);
				lr[i].why_not = "no IPv4 subnet with a free address";
				rc = 0;
				continue;
			}
			if (rc) {
				sw_err("bridge %s: cannot set up the probe namespace: %s", l->name, strerror(-rc));
				break;
			}
			lr[i].run = (int)st->runs;
			bridges = true;
			sw_verify_run_done(st, cfg, &run, json);
			break;
		case SITE_ROUTED:
		case SITE_TAP: {
			enum site_kind k = sw_verify_site_of(l);
			int *done = k == SITE_TAP ? &st->tap_run : &st->routed_run;
			char *why_not = k == SITE_TAP ? st->tap_why_not : st->routed_why_not;

			/* one throwaway of each kind stands for all of that kind */
			if (*done == -1) {
				run = *plan;
				why_not[0] = '\0';
				if (probe_routed(in, k, l, &run, why_not, sizeof(st->tap_why_not)) == 0) {
					*done = (int)st->runs;
					sw_verify_run_done(st, cfg, &run, json);
				} else {
					*done = -2;
					sw_warn("%s: not probed: %s", l->name, why_not);
				}
			}
			lr[i].run = *done >= 0 ? *done : -1;
			lr[i].why_not = why_not;
			break;
		}
		default:
			lr[i].why_not = sw_verify_no_site_reason(l);
		}
	}
	/* a sandbox chosen by source that no run fell under: a bridge run
	 * from inside one of its sources */
	for (size_t b = 0; !rc && b < cfg->n_sandboxes && b < 32; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];
		bool done = st->sbx[b].runs > 0;

		for (size_t s = 0; !done && x->egress != SW_EGRESS_OPEN && s < x->n_sources; s++) {
			for (size_t i = 0; !done && i < h->n_links; i++) {
				const struct sw_link *l = &h->links[i];
				int r;

				if (sw_verify_site_of(l) != SITE_BRIDGE || !l->up || !sw_ruleset_guarded(cfg, l) ||
				    x->sources[s].family != AF_INET)
					continue;
				run = *plan;
				r = probe_bridge(in, l, &x->sources[s], &run);
				if (r == -EADDRNOTAVAIL)
					continue;
				if (r) {
					sw_err("bridge %s: cannot set up the probe namespace: %s", l->name,
					       strerror(-r));
					rc = r;
					break;
				}
				bridges = true;
				sw_verify_run_done(st, cfg, &run, json);
				done = true;
			}
		}
	}
	if (!rc && !st->runs) {
		sw_err("no guarded bridge is up with an IPv4 subnet%s; use --pid or --netns",
		       bridges ? "" : " (nor a routed veth or tap to copy)");
		rc = -ENOENT;
	}
	return rc;
}

/* --uid / --cgroup: the output path ([guard] users, cgroups). A child
 * takes the identity (writes itself into the cgroup's cgroup.procs, drops
 * to the uid and gid), probes from the host's own namespace and sends the
 * results back through a pipe. The plan gains the host's loopback
 * (127.0.0.1 and ::1 x every listening port not in host_ports), which the
 * output path blocks too. */
static int join_cgroup(const char *cg)
{
	char root[4096], path[8192], pid[24];
	int fd, rc = 0;

	while (*cg == '/')
		cg++;
	if (!*cg || strstr(cg, ".."))
		return -EINVAL;
	if ((rc = sw_cg_root(root, sizeof(root))))
		return rc;
	snprintf(path, sizeof(path), "%s/%s/cgroup.procs", root, cg);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, pid, strlen(pid)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Exactly len bytes, or -EIO (the child died or wrote less). */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		got += (size_t)r;
	}
	return 0;
}

int sw_verify_probe_as(struct sw_verify *v, const struct sw_verify_opts *o)
{
	static struct sw_probe p[SW_VERIFY_MAX];
	size_t np = 0;
	int fds[2], rc = 0, status;
	pid_t pid;

	for (size_t i = 0; i < v->n; i++)
		if (v->t[i].atk.kind == SW_ATK_NONE)
			p[np++] = v->t[i].probe;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		if (o->cgroup)
			rc = join_cgroup(o->cgroup);
		if (!rc && o->has_uid && (setgroups(0, NULL) < 0 || setgid(o->uid) < 0 ||
					  setuid(o->uid) < 0))
			rc = -errno;
		if (!rc)
			rc = sw_probe_run(p, np, o->timeout_ms);
		if (write(fds[1], &rc, sizeof(rc)) != sizeof(rc) ||
		    (!rc && write(fds[1], p, np * sizeof(*p)) != (ssize_t)(np * sizeof(*p))))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read_full(fds[0], &rc, sizeof(rc)))
		rc = -EIO;
	else if (!rc && read_full(fds[0], p, np * sizeof(*p)))
		rc = -EIO;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (rc)
		return rc;
	np = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->t[i].atk.kind == SW_ATK_NONE)
			v->t[i].probe = p[np++];
	return 0;
}
