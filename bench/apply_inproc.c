// SPDX-License-Identifier: GPL-2.0-or-later
/* apply_inproc: the in-process cost of applying the ruleset, without
 * process start, dynamic linking, config parsing or the host-state read.
 *
 *   apply_inproc CONF RUNS
 *
 * Loads CONF and builds the desired model once (sw_desired). Then, RUNS
 * rounds, each measuring with CLOCK_MONOTONIC (microseconds):
 *
 *   create_fresh   table removed first (own socket, untimed, closed, so no
 *                  deferred cleanup is pending); then [sw_nl_open + sw_apply]
 *                  until the last ACK: observe (finds no table) + one
 *                  add-only create batch.
 *   create_close   the sw_nl_close() that follows it.
 *   rewrite_fresh  table present and identical; [sw_nl_open + sw_apply]:
 *                  observe + full in-place rewrite (every chain flushed and
 *                  refilled, every set flushed and refilled; no table delete).
 *   rewrite_close  the sw_nl_close() that follows it.
 *   noop_fresh     [sw_nl_open + sw_reconcile] on an identical table:
 *                  observe + diff, nothing sent (what `sandwall apply` does
 *                  when the kernel matches, minus process and host read).
 *   noop_close     the sw_nl_close() that follows it.
 *   create_long    the same create on one socket opened once before the
 *                  loop (table removed first through another socket).
 *   rewrite_long   the same rewrite on that long-lived socket.
 *   noop_long      the same no-op on that long-lived socket.
 *
 * Prints one line per series: name n median p90 min max (microseconds).
 * Built by bench/apply into build/; not part of the product. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config_check.h"
#include "core/diff.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nl.h"
#include "sync/reconcile.h"

static struct sw_config cfg;
static struct sw_host host;
static struct sw_model want;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(const double *sorted, int n, double p)
{
	/* nearest-rank on the sorted samples */
	int i = (int)(p * (n - 1) + 0.5);

	return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static void report(const char *name, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf("%-14s n=%d median=%.1f p90=%.1f min=%.1f max=%.1f\n", name, n,
	       pct(v, n, 0.5), pct(v, n, 0.9), v[0], v[n - 1]);
}

static void die(const char *what, int rc, const char *err)
{
	fprintf(stderr, "apply_inproc: %s: %s\n", what, err && *err ? err : strerror(-rc));
	exit(2);
}

static void open_nl(struct sw_nl *nl)
{
	int rc = sw_nl_open(nl);

	if (rc)
		die("sw_nl_open", rc, NULL);
}

static void apply_once(struct sw_nl *nl)
{
	char err[SW_ERRLEN] = "";
	int rc = sw_apply(nl, &want, err, sizeof(err));

	if (rc)
		die("sw_apply", rc, err);
}

static void noop_once(struct sw_nl *nl)
{
	char err[SW_ERRLEN] = "";
	struct sw_diff d;
	bool repaired = false;
	int rc = sw_reconcile(nl, &want, &d, &repaired, err, sizeof(err));

	if (rc)
		die("sw_reconcile", rc, err);
	if (repaired || d.n)
		die("sw_reconcile", -EINVAL, "the table differed: not a no-op");
	sw_diff_free(&d);
}

/* Delete the table through a socket of its own, then close it: the close
 * waits for the kernel's deferred cleanup, so nothing is pending after. */
static void remove_table(void)
{
	char err[SW_ERRLEN] = "";
	struct sw_nl nl;
	bool absent;
	int rc;

	open_nl(&nl);
	if ((rc = sw_remove(&nl, want.table, &absent, err, sizeof(err))))
		die("sw_remove", rc, err);
	sw_nl_close(&nl);
}

enum { CF, CC, RF, RC, NF, NC, CL, RL, NL, NSERIES };
static const char *const names[NSERIES] = {
	"create_fresh", "create_close", "rewrite_fresh", "rewrite_close",
	"noop_fresh", "noop_close", "create_long", "rewrite_long", "noop_long",
};

/* Open a socket, run op, close it: the span to the last ACK and the close. */
static void on_fresh_socket(void (*op)(struct sw_nl *), double *span, double *close_us)
{
	struct sw_nl nl;
	double t0 = now_us(), t1, t2;

	open_nl(&nl);
	op(&nl);
	t1 = now_us();
	sw_nl_close(&nl);
	t2 = now_us();
	*span = t1 - t0;
	*close_us = t2 - t1;
}

int main(int argc, char **argv)
{
	char err[SW_ERRLEN] = "";
	double *v[NSERIES], t0;
	struct sw_nl nl, lnl;
	int n, rc;

	if (argc != 3 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: %s CONF RUNS\n", argv[0]);
		return 2;
	}
	if ((rc = sw_config_load(argv[1], &cfg, err, sizeof(err))))
		die("config", rc, err);
	if ((rc = sw_desired(&cfg, &host, &want, err, sizeof(err))))
		die("sw_desired", rc, err);
	for (int k = 0; k < NSERIES; k++)
		if (!(v[k] = calloc(n, sizeof(double))))
			die("calloc", -ENOMEM, NULL);

	/* warm-up (not recorded): one of each */
	remove_table();
	open_nl(&nl);
	apply_once(&nl);
	apply_once(&nl);
	noop_once(&nl);
	sw_nl_close(&nl);

	open_nl(&lnl);          /* the long-lived socket */
	for (int i = 0; i < n; i++) {
		/* fresh socket, create from empty */
		remove_table();
		on_fresh_socket(apply_once, &v[CF][i], &v[CC][i]);

		/* fresh socket, in-place rewrite of the identical table */
		on_fresh_socket(apply_once, &v[RF][i], &v[RC][i]);

		/* fresh socket, no-op (observe + diff) */
		on_fresh_socket(noop_once, &v[NF][i], &v[NC][i]);

		/* long-lived socket: create (table removed through another
		 * socket, whose close flushes the pending cleanup), rewrite,
		 * no-op */
		remove_table();
		t0 = now_us();
		apply_once(&lnl);
		v[CL][i] = now_us() - t0;
		t0 = now_us();
		apply_once(&lnl);
		v[RL][i] = now_us() - t0;
		t0 = now_us();
		noop_once(&lnl);
		v[NL][i] = now_us() - t0;
	}
	sw_nl_close(&lnl);

	printf("# microseconds; table inet %s: %zu chains, %zu rules, %zu sets, %zu counters\n",
	       want.table, want.n_chains, want.n_rules, want.n_sets, want.n_counters);
	for (int k = 0; k < NSERIES; k++) {
		report(names[k], v[k], n);
		free(v[k]);
	}
	sw_model_free(&want);
	sw_host_free(&host);
	sw_config_free(&cfg);
	return 0;
}
