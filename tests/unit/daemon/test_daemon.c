// SPDX-License-Identifier: GPL-2.0-or-later
/* The daemon's decisions that need no kernel: its deadlines and backoffs,
 * which path a host change takes, what a control request does given the
 * state, whether a reload may go on, the journal's crash verdict, how the
 * nf_tables transactions of one read are told apart, and the lines it
 * logs about the host and blocked attempts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/config_check.h"
#include "daemon/blocklog.h"
#include "daemon/loop.h"
#include "daemon/reload.h"
#include "daemon/repair.h"
#include "daemon/report.h"
#include "daemon/request.h"
#include "daemon/state.h"
#include "daemon/track.h"
#include "lib/lock.h"
#include "lib/log.h"
#include "sync/hostfast.h"
#include "testutil.h"

/* 8.9 MB: static, zeroed before each test */
static struct sw_daemon d;

static int setup(void **state)
{
	(void)state;
	memset(&d, 0, sizeof(d));
	sw_config_defaults(&d.cfg);
	sw_alert_init(&d.alert, 1000, "events");
	sw_alert_init(&d.alert_blocked, 1000, "blocked");
	d.epfd = d.ctlfd = d.lockfd = d.spare_fd = -1;
	d.req_uid = d.req_pid = -1;
	return 0;
}


static void config(const char *text)
{
	char err[SW_ERRLEN];

	if (sw_config_parse_string(text, "test.conf", &d.cfg, err, sizeof(err)))
		fail_msg("config: %s", err);
}

static struct sw_link *add_link(struct sw_host *h, int ifindex, const char *name,
				enum sw_link_kind kind)
{
	struct sw_link *l;

	assert_int_equal(sw_host_room_links(h), 0);
	l = &h->links[h->n_links++];
	memset(l, 0, sizeof(*l));
	l->ifindex = ifindex;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = kind;
	l->is_bridge = kind == SW_LINK_BRIDGE;
	l->up = true;
	l->netnsid = -1;
	return l;
}

/* ---- deadlines and backoffs ------------------------------------------- */

/* The resync timer: soon after lost events, sooner after a failed repair
 * than the interval, the interval otherwise. */
static void test_resync_ms(void **state)
{
	(void)state;
	d.cfg.resync_interval = 30;
	assert_int_equal(sw_repair_resync_ms(&d), 30000);
	d.retry = true;
	assert_int_equal(sw_repair_resync_ms(&d), 100);
	d.resync_soon = true;           /* lost events win over the retry */
	assert_int_equal(sw_repair_resync_ms(&d), 5);
	d.retry = false;
	assert_int_equal(sw_repair_resync_ms(&d), 5);
}

/* A burst of removals: 20 ms after the event, or 4 times the last
 * rebuild's cost, never later than 100 ms after the burst's first event,
 * never sooner than already due. */
static void test_settle_due(void **state)
{
	(void)state;
	d.host_t0 = 1000000;
	assert_int_equal(sw_track_settle_due(&d, 1000000), 1020000);
	d.full_cost_us = 10000;         /* 4 x 10 ms beats 20 ms */
	assert_int_equal(sw_track_settle_due(&d, 1000000), 1040000);
	/* 90 ms into the burst: capped at its first event + 100 ms */
	assert_int_equal(sw_track_settle_due(&d, 1090000), 1100000);
	d.full_cost_us = 0;
	d.update_due_us = 1060000;      /* already later: kept */
	assert_int_equal(sw_track_settle_due(&d, 1000000), 1060000);
	d.update_due_us = 1010000;      /* sooner: moved */
	assert_int_equal(sw_track_settle_due(&d, 1000000), 1020000);
}

static void test_timeouts(void **state)
{
	(void)state;
	assert_int_equal(sw_daemon_min_timeout(-1, -1), -1);
	assert_int_equal(sw_daemon_min_timeout(-1, 5), 5);
	assert_int_equal(sw_daemon_min_timeout(5, -1), 5);
	assert_int_equal(sw_daemon_min_timeout(3, 5), 3);
	assert_int_equal(sw_daemon_min_timeout(5, 3), 3);
	assert_int_equal(sw_daemon_min_timeout(0, 3), 0);
	assert_int_equal(sw_daemon_ms_until(1000, 1000), 0);
	assert_int_equal(sw_daemon_ms_until(900, 1000), 0);
	assert_int_equal(sw_daemon_ms_until(1001, 1000), 1);       /* rounded up */
	assert_int_equal(sw_daemon_ms_until(3000, 1000), 2);
	assert_int_equal(sw_daemon_ms_until(3001, 1000), 3);

	/* the host: nothing deferred, the coverage's deadline alone */
	assert_int_equal(sw_loop_timeout(&d, 0, -1), -1);
	assert_int_equal(sw_loop_timeout(&d, 0, 250), 250);
	/* a deferred update 2.5 ms away: 3 ms, or the coverage when sooner */
	d.host_dirty = true;
	d.update_due_us = 12500;
	assert_int_equal(sw_loop_timeout(&d, 10000, -1), 3);
	assert_int_equal(sw_loop_timeout(&d, 10000, 1), 1);
	assert_int_equal(sw_loop_timeout(&d, 10000, 7), 3);
	assert_int_equal(sw_loop_timeout(&d, 13000, 7), 0);
	/* flows to forget and no walk running: at once */
	d.forget_pending = true;
	assert_int_equal(sw_loop_timeout(&d, 10000, 250), 0);
	d.host_dirty = false;
	assert_int_equal(sw_loop_timeout(&d, 10000, -1), 0);

	/* the control socket's backoff */
	assert_int_equal(sw_request_timeout(&d, 0), -1);
	d.ctl_sleeping = true;
	d.ctl_wake_us = 5000000 + SW_CTL_BACKOFF_MS * 1000;
	assert_int_equal(sw_request_timeout(&d, 5000000), SW_CTL_BACKOFF_MS);
	assert_int_equal(sw_request_timeout(&d, 5000000 + SW_CTL_BACKOFF_MS * 1000 - 1), 1);
	assert_int_equal(sw_request_timeout(&d, 6000000), 0);

	/* a second's summaries and attempts.json: to the next second, +5 ms */
	assert_int_equal(sw_blocklog_timeout_at(&d, 250000000), -1);
	d.attempts_dirty = true;
	assert_int_equal(sw_blocklog_timeout_at(&d, 250000000), 755);
	assert_int_equal(sw_blocklog_timeout_at(&d, 999999999), 6);
	d.attempts_dirty = false;
	d.alert.suppressed = 3;         /* a suppressed-lines summary waits */
	assert_int_equal(sw_blocklog_timeout_at(&d, 0), 1005);
}

/* A re-created table's primed flows: forgotten when no event waits, or
 * SW_FORGET_MAX_US after the re-create at the latest. */
static void test_forget_due(void **state)
{
	(void)state;
	assert_false(sw_loop_forget_due(&d, true, 0));
	d.forget_pending = true;
	d.forget_since_us = 1000000;
	assert_true(sw_loop_forget_due(&d, true, 1000000));
	assert_false(sw_loop_forget_due(&d, false, 1000000));
	assert_false(sw_loop_forget_due(&d, false, 1000000 + SW_FORGET_MAX_US - 1));
	assert_true(sw_loop_forget_due(&d, false, 1000000 + SW_FORGET_MAX_US));
}

/* ---- which path a change takes ----------------------------------------- */

static void test_fast_path_gate(void **state)
{
	struct sw_host_delta dl = { .changes = 2, .n_new = 2 };

	(void)state;
	/* the generation at which the kernel holds want is unknown */
	assert_false(sw_track_deltas_ok(&d));
	d.synced_gen = 7;
	assert_true(sw_track_deltas_ok(&d));
	assert_false(sw_track_fast_ok(&d, &dl));        /* no model of a bare host */
	d.fast_base_ok = true;
	assert_true(sw_track_fast_ok(&d, &dl));
	d.retry = true;                 /* a failed repair pending */
	assert_false(sw_track_deltas_ok(&d));
	assert_false(sw_track_fast_ok(&d, &dl));
	d.retry = false;
	d.paused = true;                /* after `sandwall remove` */
	assert_false(sw_track_deltas_ok(&d));
	assert_false(sw_track_fast_ok(&d, &dl));
	d.paused = false;
	d.twin = true;                  /* mode twin: the observed path */
	assert_false(sw_track_deltas_ok(&d));
	assert_false(sw_track_fast_ok(&d, &dl));
	d.twin = false;
	dl.changes = 3;                 /* more than new links */
	assert_false(sw_track_fast_ok(&d, &dl));
	dl.changes = dl.n_new = SW_FAST_MAX_LINKS;
	assert_true(sw_track_fast_ok(&d, &dl));
	dl.changes = dl.n_new = SW_FAST_MAX_LINKS + 1;
	assert_false(sw_track_fast_ok(&d, &dl));
	dl.changes = dl.n_new = 1;
	dl.routes_stale = true;
	assert_false(sw_track_fast_ok(&d, &dl));
}

/* The parents' signature moves with a parent's name, MAC or index, not
 * with another link. */
static void test_parents_sig(void **state)
{
	static struct sw_host h;
	struct sw_link *eth, *br;
	uint64_t none, s0;

	(void)state;
	config("[guard]\nmacvlan_parents = eth*\n");
	memset(&h, 0, sizeof(h));
	none = sw_repair_parents_sig(&d.cfg, &h);
	eth = add_link(&h, 2, "eth0", SW_LINK_OTHER);
	eth->has_mac = true;
	memcpy(eth->mac, "\x02\x00\x00\x00\x00\x01", 6);
	br = add_link(&h, 3, "br0", SW_LINK_BRIDGE);
	br->has_mac = true;
	s0 = sw_repair_parents_sig(&d.cfg, &h);
	assert_true(s0 != none);
	memcpy(br->mac, "\x02\x00\x00\x00\x00\x09", 6);
	br->ifindex = 30;
	assert_true(sw_repair_parents_sig(&d.cfg, &h) == s0);
	eth->mac[5] = 2;
	assert_true(sw_repair_parents_sig(&d.cfg, &h) != s0);
	eth->mac[5] = 1;
	eth->ifindex = 20;
	assert_true(sw_repair_parents_sig(&d.cfg, &h) != s0);
	eth->ifindex = 2;
	assert_true(sw_repair_parents_sig(&d.cfg, &h) == s0);
	eth->has_mac = false;           /* no MAC: no parent the table hooks */
	assert_true(sw_repair_parents_sig(&d.cfg, &h) == none);
	sw_host_free(&h);
}

/* One read's transactions: ours skipped, the first of another process
 * names the culprit with its messages, another table's moves the
 * generation in sync along when it is the next one. */
static void test_on_txn(void **state)
{
	uint8_t rec[8], msgs[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	uint32_t synced = 5;
	struct sw_drift dr = { .synced = &synced, .rec = rec, .rec_cap = sizeof(rec) };
	struct sw_nft_txn t = { .genid = 6 };

	(void)state;
	sw_track_on_txn(&t, &dr);               /* another table's, right after */
	assert_int_equal(synced, 6);
	assert_false(dr.seen);
	t.genid = 8;                            /* not the next: a commit was missed */
	sw_track_on_txn(&t, &dr);
	assert_int_equal(synced, 6);
	t.genid = 7;
	t.rec = msgs;
	t.rec_len = 2;                          /* it named our table too */
	sw_track_on_txn(&t, &dr);
	assert_int_equal(synced, 6);
	t.rec_len = 0;
	synced = 0;                             /* unknown stays unknown */
	sw_track_on_txn(&t, &dr);
	assert_int_equal(synced, 0);

	t.touched = true;
	t.pid = (uint32_t)getpid();             /* our own batch */
	sw_track_on_txn(&t, &dr);
	assert_false(dr.seen);
	assert_int_equal(dr.n, 0);

	t.pid = 42;
	t.rec_len = 3;
	snprintf(t.change, sizeof(t.change), "delete table");
	sw_track_on_txn(&t, &dr);
	t.pid = 43;
	t.rec_len = 9;
	snprintf(t.change, sizeof(t.change), "add rule");
	sw_track_on_txn(&t, &dr);
	assert_true(dr.seen);
	assert_int_equal(dr.n, 2);
	assert_int_equal(dr.txn.pid, 42);       /* the first names the culprit */
	assert_string_equal(dr.txn.change, "delete table");
	assert_ptr_equal(dr.txn.rec, rec);      /* copied out of the reused buffer */
	assert_int_equal(dr.txn.rec_len, 3);
	assert_memory_equal(rec, msgs, 3);
	assert_false(dr.txn.rec_lost);

	/* messages that do not fit, or no buffer: lost (observe instead) */
	memset(&dr, 0, sizeof(dr));
	dr.synced = &synced;
	dr.rec = rec;
	dr.rec_cap = sizeof(rec);
	sw_track_on_txn(&t, &dr);
	assert_true(dr.txn.rec_lost);
	assert_int_equal(dr.txn.rec_len, 0);
	dr.seen = false;
	dr.rec = NULL;
	t.rec_len = 1;
	sw_track_on_txn(&t, &dr);
	assert_true(dr.txn.rec_lost);
}

/* ---- control requests --------------------------------------------------- */

static void test_status_reply(void **state)
{
	char rep[SW_CONTROL_REPMAX];

	(void)state;
	d.mode = "owner+persist";
	d.config_path = "/etc/sandwall/sandwall.conf";
	d.started = 1000;
	d.drifts = 3;
	d.repairs = 4;
	d.repair_failures = 1;
	d.resyncs = 9;
	d.updates = 12;
	d.ev.enobufs = 2;
	d.blocked_seen = 17;
	d.resolver.n_names = 2;
	d.resolver.failures = 5;
	d.resolver.last_push_us = 812;
	d.attempts_errors = 6;
	d.n_unguarded = 1;
	sw_request_status(&d, 77, 1042, rep, sizeof(rep));
	assert_string_equal(rep,
			    "ok\npid=77\nuptime=42\nmode=owner+persist\npaused=no\n"
			    "config=/etc/sandwall/sandwall.conf\ndrifts=3\nrepairs=4\n"
			    "repair_failures=1\nresyncs=9\nupdates=12\nenobufs=2\nblocked_logged=17\n"
			    "dns_names=2\ndns_failures=5\ndns_last_update_us=812\nlast_drift=none\n"
			    "last_drift_at=0\njournal_errors=0\njournal_error=none\nattempts_errors=6\n"
			    "unguarded=1\n"
			    "identities=0\nidentity_lookups=0\nidentity_api_errors=0\nidentities_dropped=0\n");
	d.paused = true;
	snprintf(d.last_drift, sizeof(d.last_drift), "delete table by pid 42 (nft)");
	d.last_drift_at = 1040;
	d.journal.errors = 2;
	d.journal.failing = true;
	d.journal.last_err = -ENOSPC;
	sw_request_status(&d, 77, 1042, rep, sizeof(rep));
	assert_non_null(strstr(rep, "\npaused=yes\n"));
	assert_non_null(strstr(rep, "\nlast_drift=delete table by pid 42 (nft)\nlast_drift_at=1040\n"));
	assert_non_null(strstr(rep, "\njournal_errors=2\njournal_error=No space left on device\n"));
}

static void test_request_verbs(void **state)
{
	struct sw_control_req req = { .verb = "status" };
	char rep[SW_CONTROL_REPMAX], want[64];

	(void)state;
	assert_true(sw_request_mutates("reload"));
	assert_true(sw_request_mutates("remove"));
	assert_true(sw_request_mutates("release"));
	assert_true(sw_request_mutates("reset-connections"));
	assert_false(sw_request_mutates("status"));
	assert_false(sw_request_mutates("flows"));
	assert_false(sw_request_mutates("reloadx"));
	assert_false(sw_request_mutates(""));
	d.mode = "watch";
	d.config_path = "test.conf";
	assert_int_equal(sw_request_run(&d, &req, rep, sizeof(rep)), 0);
	snprintf(want, sizeof(want), "ok\npid=%d\n", (int)getpid());
	assert_memory_equal(rep, want, strlen(want));
	snprintf(req.verb, sizeof(req.verb), "%s", "flush-everything-and-then-some-more-text");
	assert_int_equal(sw_request_run(&d, &req, rep, sizeof(rep)), 0);
	assert_string_equal(rep, "error\nmessage=unknown request "
			    "'flush-everything-and-then-some-m'\n");
}

/* A request whose client gave up is not executed: the client is told,
 * and so is the log. A live one is answered, and its sender named. */
static void test_request_serve(void **state)
{
	struct sw_control_req req = { .verb = "remove", .deadline_ms = 1 };
	char rep[SW_CONTROL_REPMAX] = "", *log;
	int sv[2];
	ssize_t n;

	(void)state;
	d.mode = "watch";
	d.config_path = "test.conf";
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	tu_cap_start();
	sw_request_serve(&d, sv[0], &req);      /* closes sv[0] */
	log = tu_cap_end();
	n = recv(sv[1], rep, sizeof(rep) - 1, 0);
	assert_true(n > 0);
	rep[n] = '\0';
	assert_string_equal(rep, "error\nmessage=request expired before it ran; nothing was done\n");
	assert_string_equal(log, "test_daemon: event=control-expired request=remove "
			    "reason=deadline action=not-executed\n");
	assert_false(d.paused);                 /* not removed */
	assert_int_equal(d.req_pid, -1);
	free(log);
	close(sv[1]);

	/* the client hung up */
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	close(sv[1]);
	req.deadline_ms = 0;
	tu_cap_start();
	sw_request_serve(&d, sv[0], &req);
	log = tu_cap_end();
	assert_string_equal(log, "test_daemon: event=control-expired request=remove "
			    "reason=client-gone action=not-executed\n");
	assert_false(d.paused);
	free(log);

	/* status: answered, the sender named */
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	snprintf(req.verb, sizeof(req.verb), "status");
	req.deadline_ms = sw_control_now_ms() + 60000;
	sw_request_serve(&d, sv[0], &req);
	n = recv(sv[1], rep, sizeof(rep) - 1, 0);
	assert_true(n > 0);
	rep[n] = '\0';
	assert_memory_equal(rep, "ok\npid=", 7);     /* no "accepted": it changes nothing */
	assert_int_equal(d.req_pid, getpid());
	assert_int_equal(d.req_uid, getuid());
	close(sv[1]);
}

/* ---- reload --------------------------------------------------------------- */

static void test_reload_allowed(void **state)
{
	static struct sw_config old;
	char err[SW_ERRLEN] = "", text[128], table[32];
	int newlock = 99, held;
	pid_t pid;
	uid_t uid;

	(void)state;
	config("[daemon]\nresync_interval = 30\n");
	assert_int_equal(sw_config_copy(&old, &d.cfg), 0);
	/* the same file: allowed, no new lock */
	assert_int_equal(sw_reload_allowed(&d, &old, false, &newlock, err, sizeof(err)), 0);
	assert_int_equal(newlock, -1);
	/* a key the running config gives is gone: refused, unless accepted */
	config("[daemon]\nowner = auto\n");
	assert_true(sw_reload_allowed(&d, &old, false, &newlock, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "[daemon] resync_interval is missing"));
	assert_int_equal(newlock, -1);
	err[0] = '\0';
	assert_int_equal(sw_reload_allowed(&d, &old, true, &newlock, err, sizeof(err)), 0);
	assert_int_equal(newlock, -1);
	assert_string_equal(err, "");

	/* a new table: its lock is taken */
	snprintf(table, sizeof(table), "swtd%d", (int)getpid());
	snprintf(text, sizeof(text), "[daemon]\nresync_interval = 30\n[nft]\ntable = %s\n", table);
	config(text);
	assert_int_equal(sw_reload_allowed(&d, &old, false, &newlock, err, sizeof(err)), 0);
	assert_true(newlock >= 0);
	close(newlock);
	/* one that another daemon holds: refused when its holder is root (a
	 * sandwalld), else a squatter's name, gone on without */
	held = sw_lock_table(table, &pid, &uid);
	assert_true(held >= 0);
	if (geteuid() == 0) {
		char want[SW_ERRLEN];

		assert_int_equal(sw_reload_allowed(&d, &old, false, &newlock, err, sizeof(err)),
				 -EEXIST);
		snprintf(want, sizeof(want), "test.conf:4: [nft] table = %s: another sandwalld "
			 "(pid %d) guards that table in this network namespace", table,
			 (int)getpid());
		assert_string_equal(err, want);
	} else {
		assert_int_equal(sw_reload_allowed(&d, &old, false, &newlock, err, sizeof(err)), 0);
		assert_int_equal(newlock, -1);
	}
	close(held);
}

/* ---- the journal's crash verdict ------------------------------------------ */

static bool crashed(const char *journal, int64_t *last)
{
	static char text[1024];

	snprintf(text, sizeof(text), "%s", journal);
	*last = 0;
	return sw_report_crashed(text, strlen(text), "x", last);
}

#define JL(unix, event, table) \
	"{\"time\":\"t\",\"unix\":" #unix ",\"event\":\"" event "\",\"table\":\"inet/" table "\"}"

static void test_crashed_before(void **state)
{
	int64_t last;

	(void)state;
	assert_false(crashed("", &last));
	assert_int_equal(last, 0);
	/* started, never stopped: crashed, last seen at the newest line */
	assert_true(crashed(JL(100, "start", "x") "\n", &last));
	assert_int_equal(last, 100);
	assert_true(crashed(JL(100, "start", "x") "\n" JL(105, "drift", "x") "\n"
			    "not json\n\n" JL(107, "drift", "y") "\n", &last));
	assert_int_equal(last, 105);
	/* the last start or stop decides; the newest line is the last seen */
	assert_false(crashed(JL(100, "start", "x") "\n" JL(110, "stop", "x") "\n", &last));
	assert_int_equal(last, 110);
	assert_true(crashed(JL(100, "stop", "x") "\n" JL(110, "start", "x") "\n"
			    JL(111, "applied", "x"), &last));      /* no final newline */
	assert_int_equal(last, 111);
	/* another table's start after our stop is not ours */
	assert_false(crashed(JL(100, "start", "x") "\n" JL(110, "stop", "x") "\n"
			     JL(120, "start", "y") "\n", &last));
	assert_int_equal(last, 110);
	/* only lines of ours that are no start or stop: nothing decided */
	assert_false(crashed(JL(100, "drift", "x") "\n", &last));
	assert_int_equal(last, 100);
}

/* ---- what the daemon logs about the host and blocked attempts ---------------- */

static void gateway(struct sw_host *h, const char *addr)
{
	const char *why;

	assert_int_equal(sw_prefix_parse(addr, &h->gateways[h->n_gateways++].addr, &why), 0);
}

static void test_gateway_lines(void **state)
{
	static struct sw_host old, new;
	char *log;

	(void)state;
	memset(&old, 0, sizeof(old));
	memset(&new, 0, sizeof(new));
	gateway(&old, "10.0.0.1");
	gateway(&old, "fe80::1");
	gateway(&new, "10.0.0.254");
	gateway(&new, "fe80::1");
	gateway(&new, "192.0.2.1");
	tu_cap_start();
	sw_report_gateways(&d, old.gateways, old.n_gateways, &new);
	sw_report_gateways(&d, new.gateways, new.n_gateways, &old);
	sw_report_gateways(&d, old.gateways, old.n_gateways, &old);     /* no change */
	log = tu_cap_end();
	assert_string_equal(log,
			    "test_daemon: event=gateway action=change addr=10.0.0.254 old=10.0.0.1\n"
			    "test_daemon: event=gateway action=add addr=192.0.2.1\n"
			    "test_daemon: event=gateway action=change addr=10.0.0.1 old=10.0.0.254\n"
			    "test_daemon: event=gateway action=del addr=192.0.2.1\n");
	free(log);
	sw_host_free(&old);
	sw_host_free(&new);
}

static void test_link_lines(void **state)
{
	static struct sw_host old, new;
	char *log;

	(void)state;
	config("[guard]\ninterfaces = br-* tap-vm*\nmacvlan_parents = eth*\n");
	memset(&old, 0, sizeof(old));
	memset(&new, 0, sizeof(new));
	add_link(&old, 1, "lo", SW_LINK_OTHER)->loopback = true;
	add_link(&old, 4, "br-b", SW_LINK_BRIDGE);
	add_link(&old, 5, "veth9", SW_LINK_VETH);               /* not guarded */
	add_link(&old, 6, "tap-vm1", SW_LINK_TAP);
	add_link(&new, 1, "lo", SW_LINK_OTHER)->loopback = true;
	add_link(&new, 3, "br-a", SW_LINK_BRIDGE);
	add_link(&new, 4, "br-b", SW_LINK_BRIDGE);
	add_link(&new, 7, "eth1", SW_LINK_OTHER)->has_mac = true;
	tu_cap_start();
	sw_report_host_changes(&d, &old, &new);
	log = tu_cap_end();
	/* by name: br-a came, eth1 came (a parent), tap-vm1 went */
	assert_string_equal(log,
			    "test_daemon: event=bridge action=add ifname=br-a kind=bridge "
			    "why=\"pattern\"\n"
			    "test_daemon: event=macvlan-parent action=add ifname=eth1 kind=other\n"
			    "test_daemon: event=guarded-link action=del ifname=tap-vm1 kind=tap "
			    "why=\"pattern\"\n");
	free(log);
	sw_host_free(&old);
	sw_host_free(&new);
}

static void test_blocked_lines(void **state)
{
	struct sw_blocked b = { .category = "egress", .sandbox = "box", .family = AF_INET,
				.proto = IPPROTO_TCP, .dport = 443, .iif = 5 };
	char *log;

	(void)state;
	add_link(&d.host, 5, "veth1", SW_LINK_VETH);
	inet_pton(AF_INET, "10.0.0.2", b.src);
	inet_pton(AF_INET, "192.0.2.9", b.dst);
	tu_cap_start();
	sw_blocklog_one(&b, &d);
	sw_blocklog_one(&b, &d);                /* within the second: no line */
	b.dst[3] = 10;                          /* another destination: its own line */
	snprintf(b.category, sizeof(b.category), "budget");
	sw_blocklog_one(&b, &d);
	b.dst[3] = 11;
	b.has_hook = true;
	b.hook = NF_INET_LOCAL_OUT;             /* from a host socket */
	b.has_uid = true;
	b.uid = 1000;
	b.sandbox[0] = '\0';
	snprintf(b.category, sizeof(b.category), "metadata");
	sw_blocklog_one(&b, &d);
	log = tu_cap_end();
	assert_string_equal(log,
			    "test_daemon: event=blocked category=egress sandbox=box src=10.0.0.2 "
			    "dst=192.0.2.9 proto=tcp dport=443 iif=veth1\n"
			    "test_daemon: event=budget sandbox=box src=10.0.0.2 dst=192.0.2.10 "
			    "proto=tcp dport=443 iif=veth1\n"
			    "test_daemon: event=blocked category=metadata src=10.0.0.2 dst=192.0.2.11 "
			    "proto=tcp dport=443 path=output uid=1000\n");
	assert_int_equal(d.blocked_seen, 4);    /* every one counted */
	assert_true(d.attempts_dirty);
	assert_true(d.attempts.n > 0);
	free(log);
	sw_host_free(&d.host);
}

/* a tripped quarantine waits for its block chain's line (the why); one
 * that never gets it is reported at the end of the read without it */
static void test_quarantine_why(void **state)
{
	struct sw_blocked t = { .category = "tripped", .sandbox = "box", .family = AF_INET,
				.proto = IPPROTO_TCP, .dport = 80, .iif = 5 };
	struct sw_blocked c = t;
	char *log;

	(void)state;
	add_link(&d.host, 5, "veth1", SW_LINK_VETH);
	inet_pton(AF_INET, "10.0.0.7", t.src);
	inet_pton(AF_INET, "192.0.2.20", t.dst);
	c = t;
	snprintf(c.category, sizeof(c.category), "connections");
	tu_cap_start();
	sw_blocklog_one(&t, &d);
	sw_blocklog_one(&c, &d);
	sw_blocklog_one(&t, &d);                /* no line of its block chain follows */
	sw_blocklog_pending(&d);
	sw_blocklog_pending(&d);                /* once */
	log = tu_cap_end();
	assert_string_equal(log,
			    "test_daemon: event=quarantine sandbox=box src=10.0.0.7 dst=192.0.2.20 "
			    "proto=tcp dport=80 iif=veth1 on=connections action=cut-off-until-release\n"
			    "test_daemon: event=max-connections sandbox=box src=10.0.0.7 dst=192.0.2.20 "
			    "proto=tcp dport=80 iif=veth1\n"
			    "test_daemon: event=quarantine sandbox=box src=10.0.0.7 dst=192.0.2.20 "
			    "proto=tcp dport=80 iif=veth1 on=? action=cut-off-until-release\n");
	free(log);
	sw_host_free(&d.host);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_resync_ms, setup),
		cmocka_unit_test_setup(test_settle_due, setup),
		cmocka_unit_test_setup(test_timeouts, setup),
		cmocka_unit_test_setup(test_forget_due, setup),
		cmocka_unit_test_setup(test_fast_path_gate, setup),
		cmocka_unit_test_setup(test_parents_sig, setup),
		cmocka_unit_test_setup(test_on_txn, setup),
		cmocka_unit_test_setup(test_status_reply, setup),
		cmocka_unit_test_setup(test_request_verbs, setup),
		cmocka_unit_test_setup(test_request_serve, setup),
		cmocka_unit_test_setup(test_reload_allowed, setup),
		cmocka_unit_test_setup(test_crashed_before, setup),
		cmocka_unit_test_setup(test_gateway_lines, setup),
		cmocka_unit_test_setup(test_link_lines, setup),
		cmocka_unit_test_setup(test_blocked_lines, setup),
		cmocka_unit_test_setup(test_quarantine_why, setup),
	};

	sw_log_init("test_daemon", true, false, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
