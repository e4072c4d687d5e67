/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_H
#define SANDWALL_DAEMON_H
/* daemon: sandwalld's epoll loop. nf_tables events (repair drift, name the
 * process), rtnetlink events (update the sets), signalfd (HUP reload,
 * TERM/INT exit leaving the rules), timerfd (resync backstop, watchdog),
 * and the control socket. */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "lib/alert.h"
#include "sync/cgwatch.h"
#include "host/attempts.h"
#include "core/config.h"
#include "core/coverage.h"
#include "host/events.h"
#include "host/hoststate.h"
#include "lib/journal.h"
#include "lib/limiter.h"
#include "core/model.h"
#include "kernel/nflog.h"
#include "kernel/nl.h"
#include "core/portbind.h"
#include "host/resolver.h"


#define SW_TXN_REC (64 * 1024)

struct sw_forget;

struct sw_daemon {
	/* set by the caller */
	const char *config_path;
	const char *control_path;
	bool foreground;                /* -f: log to stderr too */
	/* state */
	struct sw_config cfg;
	struct sw_host host;
	struct sw_model want;
	struct sw_nl nl;                /* long-lived: it owns the table */
	struct sw_events ev;
	struct sw_alert alert;
	struct sw_alert alert_blocked;  /* its own budget: a container's probing
					 * must not crowd out drift alerts */
	struct sw_nflog nflog;          /* blocked attempts (when [log] blocked) */
	struct sw_limiter blocked;      /* event=blocked: one a second per src/dst */
	struct sw_attempts attempts;    /* what the sandboxes tried to reach */
	bool attempts_dirty;
	time_t attempts_written;
	uint64_t blocked_seen;
	struct sw_journal journal;      /* drift events for `sandwall receipt` */
	struct sw_cgwatch cgw;          /* [guard] cgroups: the cgroup tree (inotify) */
	struct sw_resolver resolver;    /* the allowlists' hostnames (resolver.h) */
	int dnsfd;                      /* timerfd: the resolver's next deadline */
	struct sw_host host_prev;       /* scratch: the host before an update */
	struct sw_config cfg_prev;      /* scratch: the config before a reload */
	int64_t last_repair_us;
	int epfd, sigfd, tfd, wdfd, ctlfd;
	int lockfd;                     /* the table's instance lock (lock.h) */
	int ctl_lockfd;                 /* the control socket's lock: we may unlink it */
	int spare_fd;                   /* a reserve descriptor for accept at EMFILE */
	bool fd_starved;                /* accept failed for want of descriptors */
	bool ctl_sleeping;              /* the listeners are out of epoll until ctl_wake_us */
	int64_t ctl_wake_us;
	uint32_t own_flags;             /* NFT_TABLE_F_OWNER | NFT_TABLE_F_PERSIST or 0 */
	const char *mode;               /* "owner+persist", "owner", "twin", "watch" */
	bool twin;                      /* mode twin: table <table>_twin, owned by
					 * our socket, holds the blocks while the
					 * unowned table is tampered with */
	bool paused;                    /* after `sandwall remove` */
	bool stop;
	time_t started;
	uint64_t drifts, repairs, repair_failures, resyncs, updates;
	char last_drift[256];
	time_t last_drift_at;
	bool retry;                     /* a repair failed: try again soon */
	bool resync_soon;               /* events were lost: resync on the timer */
	/* incremental host tracking (rtnetlink deltas, see handle_rt) */
	struct sw_nl rtdump;            /* NETLINK_ROUTE requests: stale routes */
	struct sw_nl bind_ev;           /* address changes in the bridge ports' peer
					 * namespaces (portbind.h): rebind */
	struct sw_nl bind_nl;           /* their addresses read (strict checking) */
	struct sw_binds binds;          /* the bindings table bridge holds */
	uint64_t parents_sig;           /* the macvlan parents netdev_sync last saw */
	uint32_t synced_gen;            /* the generation at which the kernel was
					 * seen to hold want (0: unknown) */
	bool host_dirty;                /* host moved; want not yet rebuilt */
	int64_t host_t0;                /* when the first of those events came */
	int64_t update_due_us;          /* bursts: the next host update not before */
	struct sw_model fast_base;      /* the model of a host with only lo (hostfast.h) */
	bool fast_base_ok;
	bool fast_base_stale;           /* the config changed: rebuild before use */
	int64_t full_cost_us;           /* the last rebuild of the whole model */
	uint8_t *txn_rec;               /* SW_TXN_REC bytes: the messages of the
					 * transaction being repaired (events.h rec) */
	struct sw_forget *forget;       /* the conntrack walk's worker (forget.h), or NULL */
	bool forget_pending;            /* a re-created table's primed flows still to forget */
	int64_t forget_since_us;        /* since when (CLOCK_MONOTONIC) */
	/* coverage (coverage.h): the unguarded container-facing links last
	 * reported, by name (event=unguarded when one comes or is covered) */
	char unguarded[SW_COV_MAX][16];
	size_t n_unguarded;
	/* seen unguarded, not yet reported: a link that is unguarded for less
	 * than SW_COV_GRACE_US (a veth between its creation or removal and its
	 * bridge) is not reported; one that stays is, from when it was seen */
	char cov_pending[SW_COV_MAX][16];
	int64_t cov_pending_since[SW_COV_MAX];   /* CLOCK_REALTIME, us */
	size_t n_cov_pending;
	/* attempts.json writes (the journal keeps its own: journal.h) */
	uint64_t attempts_errors;
	bool attempts_failing;
	bool journal_warned;            /* the journal's failing episode was logged */
	/* who asked for what is being done (control socket SO_PEERCRED, the
	 * signal's sender): -1 when unknown */
	int64_t req_uid, req_pid;
};

/* Load the config, take the table, run until TERM/INT. Returns the exit
 * code (0, or 2 when it cannot start). */
int sw_daemon_run(struct sw_daemon *d);

#endif
