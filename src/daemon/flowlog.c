// SPDX-License-Identifier: GPL-2.0-or-later
/* flowlog: the network log, conntrack's allowed flows into flows.jsonl
 * (see include/daemon/flowlog.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/timerfd.h>

#include "core/logkind.h"
#include "daemon/flowlog.h"
#include "daemon/report.h"
#include "kernel/conntrack.h"
#include "lib/atomicfile.h"
#include "lib/log.h"

void sw_flowlog_path(const struct sw_daemon *d, const char *name, char *buf, size_t len)
{
	const char *slash = strrchr(d->cfg.journal_path, '/');

	if (!slash) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "%.*s/%s", (int)(slash - d->cfg.journal_path), d->cfg.journal_path, name);
}

/* One line into flows.jsonl (w holds a whole object). A failed write is
 * the journal's hole: counted there, said by a "hole" line after. */
static void add_line(struct sw_daemon *d, struct sw_jw *w)
{
	const char *text = sw_jw_text(w);

	if (text)
		sw_journal_add(&d->flowj, text);
	sw_jw_free(w);
}

static void write_flow(struct sw_daemon *d, const struct sw_flow *f, const char *state)
{
	struct sw_jw w;

	sw_jw_init(&w);
	sw_flow_json(&w, NULL, f, state, (int64_t)time(NULL));
	add_line(d, &w);
	d->flows_logged++;
}

/* "flows-dropped" / "flows-lost": how many since the last such line */
static void write_bound(struct sw_daemon *d, const char *event, uint64_t n, uint64_t total)
{
	struct sw_jw w;
	char iso[32];
	time_t now = time(NULL);

	sw_iso_utc(now, iso, sizeof(iso));
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "time", iso);
	sw_jw_i64(&w, "unix", (int64_t)now);
	sw_jw_str(&w, "event", event);
	sw_jw_u64(&w, "count", n);
	sw_jw_u64(&w, "total", total);
	sw_jw_u64(&w, "max_flows", d->flowtab.max);
	sw_jw_end(&w);
	add_line(d, &w);
}

static void on_flow(const struct sw_ct_flow *f, void *data)
{
	struct sw_daemon *d = data;
	int64_t now = (int64_t)time(NULL);
	char iif[16] = "";

	if (f->kind == SW_CT_DUMPED)
		d->flow_dump_n++;

	/* only what a sandbox opened: its ORIGINAL source on the sandbox
	 * side, and not one of the host's own addresses there */
	if (!sw_ct_sandbox_side(&d->want, f->family, f->src) ||
	    sw_flow_from_host(&d->host, f->family, f->src))
		return;
	if (f->kind == SW_CT_DESTROY) {
		struct sw_flow out;

		if (sw_flowtab_end(&d->flowtab, f, now, &out) == 0)
			write_flow(d, &out, "closed");
		return;
	}
	if (!sw_flowtab_find(&d->flowtab, f))
		sw_flow_iif(&d->host, f->family, f->src, iif, sizeof(iif));
	/* first seen: the name the sandbox's own DNS answer gave dst */
	if (sw_flowtab_seen(&d->flowtab, f, iif, now) == 1 && d->names) {
		char name[SW_DNS_NAMELEN];

		if (sw_dnsnames_get(d->names, f->family, f->src, f->dst, now, name) == 0)
			sw_flowtab_name(&d->flowtab, f, name);
	}
}

/* One NFLOG packet of the names group: a DNS reply toward a sandbox.
 * Refused ones (malformed, truncated, a fragment, a message split over
 * TCP segments) are counted, not said: the sandbox writes them. A TCP
 * segment without data learns 0 and is no refusal. */
static void on_name(const struct sw_blocked *b, void *data)
{
	struct sw_daemon *d = data;
	int n;

	if (sw_logkind_of(b->category, NULL) != SW_LK_DNS || !b->payload)
		return;
	n = sw_dnsnames_learn(d->names, b->payload, b->payload_len, (int64_t)time(NULL));
	if (n < 0)
		d->names_refused++;
	else
		d->names_learned += (uint64_t)n;
}

void sw_flowlog_names_read(struct sw_daemon *d)
{
	int rc;

	if (!d->names_log.sock || !d->names)
		return;
	rc = sw_nflog_read(&d->names_log, on_name, d);
	if (rc < 0)
		sw_err("network log: DNS replies (NFLOG group %u): %s", d->names_log.group, strerror(-rc));
}

/* the whole reply we read (SW_DNS_MSGMAX) behind its headers (UDP or TCP) */
#define NAMES_COPY (SW_DNS_MSGMAX + SW_DNS_PACKET_HEADROOM)

static void names_close(struct sw_daemon *d)
{
	/* closing the socket takes it out of the epoll set */
	if (d->names_log.sock)
		sw_nflog_close(&d->names_log);
	free(d->names);
	d->names = NULL;
}

/* The names group ([log] names_group), with the network log: a failure
 * only costs the flow records their names (said once). */
static void names_open(struct sw_daemon *d)
{
	uint64_t seed = 0;
	int rc;

	if (d->names_log.sock && d->names_log.group == d->cfg.log_names_group)
		return;
	names_close(d);
	if (!(d->names = malloc(sizeof(*d->names)))) {
		sw_warn("network log: no memory for the DNS names; flows are logged without names");
		return;
	}
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)sw_daemon_now_us();
	sw_dnsnames_init(d->names, seed);
	rc = sw_nflog_open_copy(&d->names_log, d->cfg.log_names_group, NAMES_COPY, 1);
	if (!rc && sw_daemon_watch(d, sw_nflog_fd(&d->names_log), SLOT_NAMES) < 0)
		rc = -errno;
	if (rc) {
		sw_warn("network log: cannot read NFLOG group %u (flows are logged without names): %s",
			d->cfg.log_names_group, strerror(-rc));
		names_close(d);
	}
}

static void on_gone(const struct sw_flow *f, void *data)
{
	struct sw_daemon *d = data;

	write_flow(d, f, "gone");
	d->flows_gone++;
}

struct open_ctx {
	struct sw_jw *w;
	struct sw_daemon *d;
	bool lines;                     /* at stop: each as a line too */
};

static void open_one(const struct sw_flow *f, void *data)
{
	struct open_ctx *c = data;
	int64_t now = (int64_t)time(NULL);

	sw_flow_json(c->w, NULL, f, "open", now);
	if (c->lines)
		write_flow(c->d, f, "open");
}

/* flows-open.json: the open flows and the bounds, atomically */
static void write_open(struct sw_daemon *d, bool lines)
{
	struct open_ctx c;
	struct sw_jw w;
	char path[SW_PATH_MAX + 32], iso[32];
	time_t now = time(NULL);
	const char *text;
	int rc;

	sw_flowlog_path(d, "flows-open.json", path, sizeof(path));
	if (!path[0])
		return;
	sw_iso_utc(now, iso, sizeof(iso));
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "time", iso);
	sw_jw_i64(&w, "unix", (int64_t)now);
	sw_jw_u64(&w, "max_flows", d->flowtab.max);
	sw_jw_u64(&w, "open", d->flowtab.n);
	sw_jw_u64(&w, "dropped", d->flowtab.dropped);
	sw_jw_u64(&w, "untracked", d->flowtab.untracked);
	sw_jw_u64(&w, "lost_events", d->ctev.overruns);
	sw_jw_u64(&w, "dumped", d->flow_dump_n);
	sw_jw_i64(&w, "dump_us", d->flow_dump_us);
	sw_jw_str(&w, "counters", d->flow_acct == 1 ? "kernel" : "unknown");
	sw_jw_arr(&w, "flows");
	c.w = &w;
	c.d = d;
	c.lines = lines;
	sw_flowtab_each(&d->flowtab, open_one, &c);
	sw_jw_end(&w);
	sw_jw_end(&w);
	text = sw_jw_text(&w);
	rc = text ? sw_atomic_write(path, text, strlen(text), 0600) : -ENOMEM;
	if (rc)
		sw_warn("cannot write %s: %s", path, strerror(-rc));
	sw_jw_free(&w);
}

static void say_bounds(struct sw_daemon *d)
{
	if (d->flowtab.dropped > d->flows_dropped_said) {
		d->flows_said_at = time(NULL);
		write_bound(d, "flows-dropped", d->flowtab.dropped - d->flows_dropped_said,
			    d->flowtab.dropped);
		d->flows_dropped_said = d->flowtab.dropped;
	}
	if (d->ctev.overruns > d->flows_lost_said) {
		write_bound(d, "flows-lost", d->ctev.overruns - d->flows_lost_said, d->ctev.overruns);
		d->flows_lost_said = d->ctev.overruns;
	}
}

/* Read the events queued first (a flow that ended before the dump is
 * closed by its own event, not swept), then the dump: updates, the flows
 * it no longer has are gone, flows-open.json. */
static void dump(struct sw_daemon *d)
{
	uint64_t bad = 0;
	int64_t t0;
	int rc;

	sw_flowlog_read(d);
	d->flows_resync = false;
	sw_flowtab_dump_begin(&d->flowtab);
	d->flow_dump_n = 0;
	t0 = sw_daemon_now_us();
	rc = sw_ct_dump(&d->ctdump, on_flow, d, &bad);
	d->flow_dump_us = sw_daemon_now_us() - t0;
	d->ctev.bad += bad;
	if (rc) {
		sw_warn("network log: conntrack dump failed: %s (open flows not updated)", strerror(-rc));
		return;
	}
	/* the dump deletes the expired entries it meets: their DESTROY
	 * events are queued now, and close them before the sweep */
	sw_flowlog_read(d);
	sw_flowtab_dump_end(&d->flowtab, on_gone, d);
	say_bounds(d);
	write_open(d, false);
	sw_report_metrics(d, true);     /* the flow counters with each dump */
}

void sw_flowlog_read(struct sw_daemon *d)
{
	int rc;

	if (!d->flows_on)
		return;
	sw_flowlog_names_read(d);       /* the answers before the flows they named */
	rc = sw_ctev_read(&d->ctev, on_flow, d);
	if (rc == -ENOBUFS) {
		/* events lost: said, and a dump finds what is open now */
		say_bounds(d);
		d->flows_resync = true;
	} else if (rc < 0)
		sw_err("network log: conntrack events: %s", strerror(-rc));
}

void sw_flowlog_tick(struct sw_daemon *d)
{
	uint64_t ticks;

	if (read(d->flowfd, &ticks, sizeof(ticks)) > 0 && d->flows_on)
		dump(d);
}

bool sw_flowlog_dump_now(struct sw_daemon *d)
{
	if (!d->flows_on)
		return false;
	dump(d);
	return true;
}

void sw_flowlog_flush(struct sw_daemon *d)
{
	if (!d->flows_on)
		return;
	if (d->flows_resync)
		dump(d);
	/* a flood into a full table: one line a second at most (the rest
	 * with the next one, the next dump or the stop) */
	if (d->flowtab.dropped > d->flows_dropped_said && time(NULL) != d->flows_said_at)
		say_bounds(d);
}

static void close_all(struct sw_daemon *d)
{
	/* closing a descriptor takes it out of the epoll set (none is dup'ed) */
	if (d->ctev.sock)
		sw_ctev_close(&d->ctev);
	if (d->ctdump.rbuf)
		sw_nl_close(&d->ctdump);
	if (d->flowfd >= 0)
		close(d->flowfd);       /* leaves the epoll set with it */
	d->flowfd = -1;
	names_close(d);
	sw_flowtab_free(&d->flowtab);
	sw_journal_close(&d->flowj);
	d->flows_on = false;
}

void sw_flowlog_stop(struct sw_daemon *d)
{
	if (!d->flows_on)
		return;
	sw_flowlog_read(d);
	say_bounds(d);
	write_open(d, true);
	close_all(d);
}

/* Accounting in this namespace: on when it is off (the start line says so). */
static void acct_on(struct sw_daemon *d, char *note, size_t len)
{
	bool was = false;
	int rc = sw_ct_acct(true, &was);

	if (rc) {
		d->flow_acct = rc;
		snprintf(note, len, "unavailable");
		sw_warn("network log: cannot turn on conntrack accounting "
			"(net.netfilter.nf_conntrack_acct): %s; flows are logged without bytes "
			"(\"counters\":\"unknown\")", strerror(-rc));
		return;
	}
	d->flow_acct = 1;
	snprintf(note, len, "%s", was ? "on" : "turned-on");
}

static int open_all(struct sw_daemon *d, char *acct, size_t alen)
{
	char path[SW_PATH_MAX + 32];
	unsigned ms = d->cfg.log_flow_interval * 1000u;
	int rc;

	sw_flowlog_path(d, "flows.jsonl", path, sizeof(path));
	if (!path[0])
		return -ENOENT;
	acct_on(d, acct, alen);
	if ((rc = sw_flowtab_init(&d->flowtab, d->cfg.log_max_flows)) ||
	    (rc = sw_ctev_open(&d->ctev)) || (rc = sw_nl_open(&d->ctdump)))
		return rc;
	if ((rc = sw_journal_open(&d->flowj, path)))
		sw_warn("cannot open %s: %s (tried again at each line)", path, strerror(-rc));
	d->flowfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d->flowfd < 0)
		return -errno;
	sw_daemon_arm(d->flowfd, ms, ms);
	if (sw_daemon_watch(d, sw_ctev_fd(&d->ctev), SLOT_CT) < 0 ||
	    sw_daemon_watch(d, d->flowfd, SLOT_CT_TIMER) < 0)
		return -errno;
	return 0;
}

void sw_flowlog_setup(struct sw_daemon *d)
{
	char acct[16] = "";
	bool evoff = false;
	int rc;

	if (!d->cfg.log_flows || !d->cfg.journal_path[0]) {
		sw_flowlog_stop(d);
		snprintf(d->flow_note, sizeof(d->flow_note), " flows=off");
		return;
	}
	if (d->flows_on) {
		unsigned ms = d->cfg.log_flow_interval * 1000u;
		char path[SW_PATH_MAX + 32];

		sw_daemon_arm(d->flowfd, ms, ms);
		/* the journal moved: flows.jsonl goes with it */
		sw_flowlog_path(d, "flows.jsonl", path, sizeof(path));
		if (strcmp(path, d->flowj.path)) {
			sw_journal_close(&d->flowj);
			if ((rc = sw_journal_open(&d->flowj, path)))
				sw_warn("cannot open %s: %s (tried again at each line)", path, strerror(-rc));
		}
		names_open(d);          /* [log] names_group may have moved */
		if (d->cfg.log_max_flows != d->flowtab.max)
			sw_info("network log: [log] max_flows = %u takes effect at the next start "
				"(%zu kept now)", d->cfg.log_max_flows, d->flowtab.max);
		return;
	}
	if ((rc = open_all(d, acct, sizeof(acct)))) {
		sw_warn("network log off: %s", strerror(-rc));
		close_all(d);
		snprintf(d->flow_note, sizeof(d->flow_note), " flows=failed");
		return;
	}
	d->flows_on = true;
	names_open(d);
	if (sw_ct_events_off(&evoff) == 0 && evoff)
		sw_warn("network log: conntrack events are off (net.netfilter.nf_conntrack_events = 0): "
			"flows are seen by the dumps only, every %u s", d->cfg.log_flow_interval);
	snprintf(d->flow_note, sizeof(d->flow_note), " flows=on flow_acct=%s%s max_flows=%zu rcvbuf=%d",
		 acct, evoff ? " flow_events=off" : "", d->flowtab.max, d->ctev.rcvbuf);
	dump(d);        /* the flows open before the start */
}
