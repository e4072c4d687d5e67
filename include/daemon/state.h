/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_STATE_H
#define SANDWALL_DAEMON_STATE_H
/* state: sandwalld's state, shared by the parts of the daemon (setup,
 * the loop, repair, tracking, reload, requests, report, owner) and by
 * nothing else: daemon.h is the program's entry. The helpers the parts
 * share (the clock, timers, epoll) are here too. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
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
#include "kernel/ctevents.h"
#include "host/flowtab.h"
#include "host/dnsnames.h"
#include "kernel/nl.h"
#include "core/portbind.h"
#include "host/resolver.h"
#include "daemon/vlinks.h"

#define SW_TXN_REC (64 * 1024)

struct sw_forget;
struct sw_ident;

struct sw_daemon {
	/* from the command line (struct sw_daemon_args) */
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
	/* a quarantine tripped, not yet reported: its block chain logs the
	 * packet (with the category, the quarantine's why) right after the
	 * trip chain logged "tripped" */
	struct sw_blocked q_pending;
	char q_pending_iif[16];
	bool q_pending_on;
	struct sw_journal journal;      /* drift events for `sandwall receipt` */
	/* the network log ([log] flows, daemon/flowlog.h) */
	struct sw_ctev ctev;            /* conntrack NEW and DESTROY events */
	struct sw_nl ctdump;            /* conntrack dumps */
	struct sw_flowtab flowtab;      /* the open flows the sandboxes opened */
	struct sw_journal flowj;        /* flows.jsonl beside the journal */
	struct sw_nflog names_log;      /* the DNS replies routed to the sandboxes ([log] names_group) */
	struct sw_dnsnames *names;      /* what they answered (host/dnsnames.h) */
	uint64_t names_learned, names_refused;
	int flowfd;                     /* timerfd: the periodic dump */
	bool flows_on;
	bool flows_resync;              /* events were lost: dump at once */
	int flow_acct;                  /* accounting: 1 on, 0 off, -errno could not tell */
	char flow_note[96];             /* " flows=on flow_acct=..." for the start line */
	uint64_t flows_logged, flows_gone, flows_dropped_said, flows_lost_said;
	time_t flows_said_at;           /* the last flows-dropped line: at most one a second */
	uint64_t flow_dump_n;            /* entries the last dump gave */
	int64_t flow_dump_us;           /* and how long it took */
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
	/* incremental host tracking (rtnetlink deltas, see sw_track_rt) */
	struct sw_nl rtdump;            /* NETLINK_ROUTE requests: stale routes */
	struct sw_nl bind_ev;           /* address changes in the bridge ports' peer
					 * namespaces (portbind.h): rebind */
	struct sw_nl bind_nl;           /* their addresses read (strict checking) */
	struct sw_binds binds;          /* the bindings table bridge holds */
	uint64_t parents_sig;           /* the macvlan parents sw_repair_netdev last saw */
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
	struct sw_ident *ident;         /* sandbox identity (daemon/ident.h), or NULL: off */
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
	/* verify's own throwaway links, as a live verify announced them
	 * (vlinks.h): left out of the coverage */
	struct sw_vlinks vlinks;
	/* attempts.json writes (the journal keeps its own: journal.h) */
	uint64_t attempts_errors;
	bool attempts_failing;
	bool journal_warned;            /* the journal's failing episode was logged */
	/* who asked for what is being done (control socket SO_PEERCRED, the
	 * signal's sender): -1 when unknown */
	int64_t req_uid, req_pid;
};

/* The epoll slots, one per source (epoll_event.data.u32). */
enum sw_slot {
	SLOT_NFT = 1,           /* nf_tables events: drift */
	SLOT_RT,                /* rtnetlink events: the host moved */
	SLOT_SIGNAL,            /* HUP reload, TERM/INT stop */
	SLOT_RESYNC,            /* timer: full compare, retries, coalesced ENOBUFS */
	SLOT_WATCHDOG,          /* systemd watchdog */
	SLOT_CONTROL,           /* the CLI's control socket */
	SLOT_NFLOG,             /* blocked attempts */
	SLOT_CGROUP,            /* [guard] cgroups: cgroups came or went (inotify) */
	SLOT_DNS,               /* the resolver's UDP sockets: answers */
	SLOT_DNS_TIMER,         /* the resolver's next round, timeout or expiry */
	SLOT_FORGET,            /* the conntrack walk's worker is done (forget.h) */
	SLOT_BIND,              /* an address changed in a bridge port's peer namespace */
	SLOT_LOCK,              /* the instance lock: a second daemon asks who holds it */
	SLOT_CT,                /* conntrack events: the network log */
	SLOT_CT_TIMER,          /* the network log's periodic dump */
	SLOT_IDENT,             /* the identity worker is done (ident.h) */
	SLOT_NAMES,             /* the network log's DNS replies (NFLOG) */
};

/* CLOCK_MONOTONIC in microseconds. */
int64_t sw_daemon_now_us(void);
/* A pid for a message ("unknown" when 0). */
const char *sw_daemon_pid_str(pid_t pid, char *buf, size_t len);
/* Arm a timerfd: first after first_ms, then every every_ms (0: once). */
void sw_daemon_arm(int fd, unsigned first_ms, unsigned every_ms);
/* Add fd to the loop's epoll set under slot (EPOLLIN). 0 or -errno. */
int sw_daemon_watch(struct sw_daemon *d, int fd, enum sw_slot slot);
/* The sooner of two epoll timeouts (-1: none). */
int sw_daemon_min_timeout(int a, int b);
/* Milliseconds from now_us until due_us, rounded up (0 when past). */
int sw_daemon_ms_until(int64_t due_us, int64_t now_us);

#endif
