/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_VERIFY_INT_H
#define SANDWALL_VERIFY_INT_H
/* verify's parts, for each other only (include/cli/verify.h is the
 * public face):
 *   verify_plan.c    which targets, per category and per run
 *   verify_netns.c   the throwaway namespaces and links, the sink, the
 *                    host side of the attacks (canary, counters' socket)
 *   verify_run.c     the runs: through a bridge, a routed veth or a tap,
 *                    from an existing namespace, as a uid or cgroup
 *   verify_report.c  verdicts, and the text and JSON of runs and results
 *   verify_cmd.c     the whole command and its options */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <sys/types.h>
#include "cli/verify.h"
#include "core/config.h"
#include "core/model.h"
#include "host/hoststate.h"
#include "kernel/nl.h"
#include "lib/json.h"

/* ---- the plan (verify_plan.c) -------------------------------------------- */

/* Does the config open a new TCP connection to a:port (dns = auto, an
 * [allow] entry, or host_ports when host_addr)? */
bool sw_verify_allowed(const struct sw_config *cfg, const struct sw_host *host,
		       const struct sw_prefix *a, uint16_t port, bool host_addr);
/* --uid / --cgroup: the host's loopback x every listening port. */
int sw_verify_plan_loopback(const struct sw_config *cfg, const struct sw_host *host,
			    const uint16_t *ports, size_t n_ports, struct sw_verify *v);
/* The LAN peers of the neighbour table: 0 or -errno. */
int sw_verify_lan_peers(const struct sw_config *cfg, const struct sw_host *host, struct sw_verify *v);

/* ---- namespaces, links, the sink, the attacks' host side (verify_netns.c) - */

/* What the attacks and the sandbox checks need from the host's side. */
struct attack_ctx {
	struct sw_nl *nl;               /* nfnetlink, in the host's namespace */
	const char *table;
	struct sw_model *m;             /* scratch for the counters */
	int canary4, canary6, control4, control6;
	uint16_t canary_port;
	struct sw_prefix bcast[32];     /* the guarded bridges' directed broadcasts */
	size_t n_bcast;
	bool attacks;                   /* run the attacks (not --no-attacks) */
	const struct sw_config *cfg;    /* for the quarantine's release (quarantine_reset) */
	const char *control;            /* the daemon's control socket (NULL: not asked) */
	struct sw_prefix self[2];       /* the run's own addresses */
	size_t n_self;
	int homefd, nsfd;               /* the host's namespace; the probe's while its
					 * attacks run (-1: at home) */
};

/* The sink: an unlisted destination for the sandboxes' checks. */
struct sink {
	struct sw_prefix addr;          /* family 0: none */
	uint16_t port;
	int nsfd;
	char hname[16];
	char why_not[128];              /* when there is none */
};

enum site_kind { SITE_NONE, SITE_BRIDGE, SITE_ROUTED, SITE_TAP };

/* v->site of a run (compared by address) */
extern const char sw_verify_site_bridge[], sw_verify_site_routed[], sw_verify_site_tap[];

int sw_verify_free_addr(const struct sw_host *h, const struct sw_link *br, int family,
			const struct sw_prefix *within, struct sw_prefix *out, struct sw_prefix *gw);
/* Back to the host's namespace, or exit(2). */
void sw_verify_go_home(int homefd);
int sw_verify_new_ns(int homefd, int *nsfd);
/* Wait (up to ms) until the probe's end ifname (in nsfd) and the host's
 * end hname are both operationally up: 0, or -ETIMEDOUT (the probes then
 * tell). Back home either way. */
int sw_verify_links_ready(int nsfd, int homefd, const char *ifname, const char *hname,
			  unsigned ms);
int sw_verify_ns_setup(int nsfd, int homefd, const char *ifname, const struct sw_prefix *addr,
		       const struct sw_prefix *gw, const struct sw_prefix *addr6,
		       const struct sw_prefix *gw6);
int sw_verify_routed_host_side(const char *hname, const struct sw_prefix *behind);
/* Tell sandwalld on control (NULL: none) that verify is about to create
 * the host-side link name, so that its coverage check leaves that link
 * out while this verify runs (sandwalld(8) verify-link). Without a
 * sandwalld that takes it nothing changes: the link is what it is. */
void sw_verify_announce(const char *control, const char *name);
int sw_verify_sink_setup(const struct sw_config *cfg, const struct sw_host *h, int homefd,
			 unsigned timeout_ms, const char *control, struct sink *k);
void sw_verify_sink_close(struct sink *k);
enum site_kind sw_verify_site_of(const struct sw_link *l);
const char *sw_verify_no_site_reason(const struct sw_link *l);
int sw_verify_pick_name(const struct sw_config *cfg, const struct sw_host *h, enum site_kind kind,
			char out[16]);
int sw_verify_routed_addr(const struct sw_config *cfg, const struct sw_host *h, enum site_kind kind,
			  struct sw_prefix *out);
pid_t sw_verify_tap_pump(int a, int b);
int sw_verify_tap_open(const char *name);
int sw_verify_attack_setup(const struct sw_config *cfg, const struct sw_host *h, struct attack_ctx *ac,
			   bool attacks);
void sw_verify_attack_close(struct attack_ctx *ac);

/* ---- the runs (verify_run.c) ---------------------------------------------- */

struct run_in {
	const struct sw_config *cfg;
	const struct sw_host *h;
	int homefd;
	unsigned timeout_ms;
	struct attack_ctx *ac;          /* NULL: no counters (no attacks, no sandbox checks) */
	const struct sink *sink;
	bool attacks;
	const char *control;            /* sandwalld's control socket (NULL: not asked) */
};

/* What became of a guarded link, and of a sandbox, across the runs. */
struct link_rec {
	int run;                        /* the run that probed it (or its kind), -1: none */
	const char *why_not;
};

struct sbx_rec {
	size_t runs, runs_failed;
	size_t unlisted_blocked, unlisted_failed, allowed_open, allowed_unreachable;
	size_t budget_counted, budget_failed;
	size_t conns_counted, conns_failed;     /* max_connections */
	int first_run;
};

struct verify_state {
	struct sw_jw w;                 /* the JSON document */
	size_t runs;
	bool all;                       /* every run passed */
	struct sbx_rec sbx[SW_MAX_SANDBOXES];
	char routed_why_not[160], tap_why_not[160];
	int routed_run, tap_run;
};

int sw_verify_probe_in(int nsfd, int homefd, struct sw_verify *v, unsigned timeout_ms,
		       const struct sw_attack_env *env);
void sw_verify_run_done(struct verify_state *st, const struct sw_config *cfg, const struct sw_verify *v,
			bool json);
int sw_verify_throwaway_runs(struct verify_state *st, const struct run_in *in,
			     const struct sw_verify *plan, struct link_rec *lr, bool json);
int sw_verify_probe_as(struct sw_verify *v, const struct sw_verify_opts *o);

/* ---- the result (verify_report.c) ----------------------------------------- */

#define VERDICT_MAX 12
struct verdict {
	char why[VERDICT_MAX][256];     /* reasons it is NOT HELD */
	size_t n;
	char note[4][256];              /* root notes that do not fail it */
	size_t n_notes;
	bool unguarded;                 /* a container-facing link is not guarded */
};

__attribute__((format(printf, 2, 3)))
void sw_verify_verdict_add(struct verdict *vd, const char *fmt, ...);
void sw_verify_root_print(const struct verdict *vd, FILE *f);
bool sw_verify_verdict_out(const struct verdict *vd, struct sw_jw *w, time_t t, bool json);
void sw_verify_sandboxes_out(struct verify_state *st, const struct sw_config *cfg,
			     const struct sink *sink, const char *no_probe, bool json);
void sw_verify_guarded_out(struct verify_state *st, const struct sw_config *cfg,
			   const struct sw_host *h, const struct link_rec *lr, bool json);

#endif
