// SPDX-License-Identifier: GPL-2.0-or-later
/* apply_inproc: the in-process cost of `sandwall apply`, without process
 * start, dynamic linking, config parsing or the host-state read.
 *
 *   apply_inproc CONF RUNS
 *
 * Loads CONF, builds the desired model once (sw_desired), then measures
 * with CLOCK_MONOTONIC:
 *   fresh     RUNS x: [sw_nl_open + sw_apply] -> until the last ACK is read;
 *             then sw_nl_close() timed on its own (the table existed, so the
 *             apply replaced objects: the close waits for the kernel's
 *             deferred cleanup).
 *   daemon    one socket opened once, RUNS x sw_apply (what a long-lived
 *             daemon pays for a full repair).
 *   first     RUNS x: remove the table (own socket, untimed), then
 *             [open + apply] and close() timed, with no existing table:
 *             the close() has nothing to wait for.
 * Prints one line per series: name n median p90 min max (microseconds).
 * Built by bench/apply into build/; not part of the product. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "hoststate.h"
#include "model.h"
#include "nl.h"
#include "reconcile.h"

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

static void apply_once(struct sw_nl *nl)
{
	char err[SW_ERRLEN] = "";
	int rc = sw_apply(nl, &want, err, sizeof(err));

	if (rc)
		die("sw_apply", rc, err);
}

static void remove_table(void)
{
	char err[SW_ERRLEN] = "";
	struct sw_nl nl;
	bool absent;
	int rc;

	if ((rc = sw_nl_open(&nl)))
		die("sw_nl_open", rc, NULL);
	if ((rc = sw_remove(&nl, want.table, &absent, err, sizeof(err))))
		die("sw_remove", rc, err);
	sw_nl_close(&nl);
}

int main(int argc, char **argv)
{
	char err[SW_ERRLEN] = "";
	double *a, *c, *d, *fa, *fc, t0, t1, t2;
	struct sw_nl nl;
	int n, rc;

	if (argc != 3 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: %s CONF RUNS\n", argv[0]);
		return 2;
	}
	if ((rc = sw_config_load(argv[1], &cfg, err, sizeof(err))))
		die("config", rc, err);
	if ((rc = sw_desired(&cfg, &host, &want, err, sizeof(err))))
		die("sw_desired", rc, err);
	a = calloc(n, sizeof(*a));
	c = calloc(n, sizeof(*c));
	d = calloc(n, sizeof(*d));
	fa = calloc(n, sizeof(*fa));
	fc = calloc(n, sizeof(*fc));
	if (!a || !c || !d || !fa || !fc)
		die("calloc", -ENOMEM, NULL);

	/* warm-up: make sure the table exists, so every timed apply replaces */
	if ((rc = sw_nl_open(&nl)))
		die("sw_nl_open", rc, NULL);
	apply_once(&nl);
	sw_nl_close(&nl);

	for (int i = 0; i < n; i++) {
		/* fresh socket per apply, replacing the existing table */
		t0 = now_us();
		if ((rc = sw_nl_open(&nl)))
			die("sw_nl_open", rc, NULL);
		apply_once(&nl);
		t1 = now_us();
		sw_nl_close(&nl);
		t2 = now_us();
		a[i] = t1 - t0;
		c[i] = t2 - t1;

		/* first apply: no table before it */
		remove_table();
		t0 = now_us();
		if ((rc = sw_nl_open(&nl)))
			die("sw_nl_open", rc, NULL);
		apply_once(&nl);
		t1 = now_us();
		sw_nl_close(&nl);
		t2 = now_us();
		fa[i] = t1 - t0;
		fc[i] = t2 - t1;
	}

	/* long-lived socket: open once, apply (replace) n times */
	if ((rc = sw_nl_open(&nl)))
		die("sw_nl_open", rc, NULL);
	for (int i = 0; i < n; i++) {
		t0 = now_us();
		apply_once(&nl);
		d[i] = now_us() - t0;
	}
	sw_nl_close(&nl);

	printf("# microseconds; table inet %s: %zu chains, %zu rules, %zu sets\n", want.table,
	       want.n_chains, want.n_rules, want.n_sets);
	report("replace_apply", a, n);   /* open .. last ACK, table existed */
	report("replace_close", c, n);   /* close() after a replacing apply */
	report("first_apply", fa, n);    /* open .. last ACK, no table before */
	report("first_close", fc, n);    /* close() after a first apply */
	report("daemon_apply", d, n);    /* long-lived socket, replace */
	sw_model_free(&want);
	free(a);
	free(c);
	free(d);
	free(fa);
	free(fc);
	return 0;
}
