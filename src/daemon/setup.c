// SPDX-License-Identifier: GPL-2.0-or-later
/* setup: the daemon's start and end (see include/daemon/setup.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>

#include "core/config_check.h"
#include "daemon/blocklog.h"
#include "daemon/flowlog.h"
#include "daemon/hostnames.h"
#include "daemon/owner.h"
#include "daemon/repair.h"
#include "daemon/setup.h"
#include "daemon/track.h"
#include "host/portread.h"
#include "lib/control.h"
#include "lib/lock.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "sync/forget.h"
#include "daemon/ident.h"

#define ALERTS_PER_SEC   20

/* The long-lived nf_tables socket, which owns the table (and the twin):
 * the one a previous run handed to the service manager's fd store if
 * there is one, so that the table is owned across a restart (no instant
 * in which another process may delete it), else a new one. */
#define SW_FDNAME_OWNER "nft-owner"
static int nl_open_owner(struct sw_daemon *d)
{
	int fd = sw_listen_fd(SW_FDNAME_OWNER), rc;

	if (fd >= 0) {
		if ((rc = sw_nl_adopt(&d->nl, fd)) == 0) {
			sw_info("adopted the nf_tables socket of the previous run (fd store): the "
				"table stayed owned");
			return 0;
		}
		sw_warn("cannot use the stored nf_tables socket: %s; opening a new one",
			strerror(-rc));
		close(fd);
	}
	return sw_nl_open(&d->nl);
}

/* Hand the owning socket to the service manager's fd store (systemd:
 * FileDescriptorStoreMax=), where it outlives us: a kill -9 leaves the
 * table owned until the restarted daemon takes the socket back. */
static void owner_store(struct sw_daemon *d)
{
	int rc;

	if (!(d->own_flags & NFT_TABLE_F_OWNER) && !d->twin)
		return;
	if (!getenv("NOTIFY_SOCKET"))
		return;
	rc = sw_notify_fd("FDSTORE=1\nFDNAME=" SW_FDNAME_OWNER, mnl_socket_get_fd(d->nl.sock));
	if (rc)
		sw_warn("cannot hand the owning socket to the service manager: %s (a restart "
			"leaves the table unowned until it is taken again)", strerror(-rc));
	else
		sw_debug("owning socket handed to the service manager's fd store");
}

/* The instance locks (lock.h): the table's in this network namespace,
 * then the control socket's. -EEXIST: another daemon has one (named). */
static int take_locks(struct sw_daemon *d)
{
	char who[16];
	uid_t uid;
	pid_t pid;

	d->lockfd = sw_lock_table(d->cfg.table, &pid, &uid);
	if (d->lockfd == -EEXIST && uid == 0) {
		sw_err("another sandwalld (pid %s) already guards table inet %s in this network "
		       "namespace; exiting", sw_daemon_pid_str(pid, who, sizeof(who)), d->cfg.table);
		return -EEXIST;
	}
	if (d->lockfd == -EEXIST) {
		/* any user may bind an abstract name: not a daemon's, not a
		 * reason to leave the table unguarded */
		sw_warn("the lock name of table inet %s is held by pid %s, not a root process: "
			"going on without it", d->cfg.table, sw_daemon_pid_str(pid, who, sizeof(who)));
		d->lockfd = -1;
	} else if (d->lockfd < 0) {
		sw_err("cannot take the lock of table inet %s: %s", d->cfg.table,
		       strerror(-d->lockfd));
		return d->lockfd;
	}
	d->ctl_lockfd = sw_lock_control(d->control_path, &pid);
	if (d->ctl_lockfd == -EEXIST) {
		sw_err("another sandwalld (pid %s) already serves the control socket %s; exiting",
		       sw_daemon_pid_str(pid, who, sizeof(who)), d->control_path);
		return -EEXIST;
	}
	if (d->ctl_lockfd < 0)
		sw_warn("cannot lock the control socket %s: %s (no control socket)",
			d->control_path, strerror(-d->ctl_lockfd));
	return 0;
}

/* The config, the locks, the subscriptions and the sockets, and the
 * tables taken. */
static int start_tables(struct sw_daemon *d)
{
	char err[SW_ERRLEN];
	int rc = sw_config_load(d->config_path, &d->cfg, err, sizeof(err));

	if (rc) {
		sw_err("%s", err);
		return rc;
	}
	if (sw_config_is_empty(&d->cfg))
		sw_warn("%s is empty (no section): running with every default", d->config_path);
	/* one daemon per table and per control socket, before anything else */
	if ((rc = take_locks(d)))
		return rc;
	/* the reserve for accept at the descriptor limit (request.c):
	 * early, so that at a low limit the operator's way in comes first */
	d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sw_alert_init(&d->alert, ALERTS_PER_SEC, "events");
	sw_alert_init(&d->alert_blocked, ALERTS_PER_SEC, "blocked");
	if (d->cfg.journal_path[0] && (rc = sw_journal_open(&d->journal, d->cfg.journal_path)))
		sw_warn("cannot read the journal %s: %s", d->cfg.journal_path, strerror(-rc));
	/* subscribe before the first dump, so no change falls in between */
	if ((rc = sw_events_open(&d->ev))) {
		sw_err("cannot subscribe to netlink events: %s", strerror(-rc));
		return rc;
	}
	/* without it every repair observes first */
	d->txn_rec = malloc(SW_TXN_REC);
	/* without it the conntrack walk runs in the loop (forget_tick, loop.c) */
	if ((rc = sw_forget_open(&d->forget)))
		sw_warn("no worker for the conntrack walk after a re-create: %s", strerror(-rc));
	if ((rc = nl_open_owner(d))) {
		sw_err("cannot open the netfilter netlink socket: %s", strerror(-rc));
		return rc;
	}
	if ((rc = sw_nl_open_route(&d->rtdump, 0))) {
		sw_err("cannot open the rtnetlink socket: %s", strerror(-rc));
		return rc;
	}
	if ((rc = sw_repair_build_want(d, &d->want, false)))
		return rc;
	sw_track_fast_base(d);
	if ((rc = sw_owner_take(d)))
		return rc;
	owner_store(d);
	sw_repair_netdev(d);
	if ((rc = sw_portbind_open_events(&d->bind_ev)))
		sw_warn("no events from the bridge ports' namespaces: %s (bindings follow on the "
			"resync timer only)", strerror(-rc));
	sw_repair_bindtable(d, NULL, 0, true);
	return 0;
}

/* The loop's descriptors: signals, timers, the control socket, the other
 * sources, all in epoll. */
static int start_loop(struct sw_daemon *d)
{
	sigset_t mask;
	uint64_t wd;
	int rc;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->sigfd < 0 || d->tfd < 0 || d->epfd < 0) {
		rc = -errno;
		sw_err("cannot set up the event loop: %s", strerror(errno));
		return rc;
	}
	d->ctlfd = d->ctl_lockfd >= 0 ? sw_control_listen(d->control_path) : -ENOLCK;
	if (d->ctlfd < 0)
		sw_warn("no control socket at %s: %s (the CLI cannot reach the daemon)",
			d->control_path, strerror(-d->ctlfd));
	sw_repair_arm_resync(d);
	sw_blocklog_setup(d);
	sw_flowlog_setup(d);
	sw_track_cgroup_setup(d);
	sw_ident_setup(d);
	d->dnsfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d->dnsfd < 0 || sw_daemon_watch(d, d->dnsfd, SLOT_DNS_TIMER) < 0) {
		rc = -errno;
		sw_err("cannot set up the resolver's timer: %s", strerror(errno));
		return rc;
	}
	if ((rc = sw_hostnames_setup(d, NULL)))
		return rc;
	if ((wd = sw_notify_watchdog_usec())) {
		d->wdfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (d->wdfd >= 0)
			sw_daemon_arm(d->wdfd, (unsigned)(wd / 2000), (unsigned)(wd / 2000));
	}
	struct { int fd; enum sw_slot id; } fds[] = {
		{ sw_events_nft_fd(&d->ev), SLOT_NFT }, { sw_events_rt_fd(&d->ev), SLOT_RT },
		{ d->sigfd, SLOT_SIGNAL }, { d->tfd, SLOT_RESYNC }, { d->wdfd, SLOT_WATCHDOG },
		{ d->ctlfd, SLOT_CONTROL }, { sw_forget_fd(d->forget), SLOT_FORGET },
		{ d->bind_ev.rbuf ? sw_nl_fd(&d->bind_ev) : -1, SLOT_BIND },
		{ d->lockfd, SLOT_LOCK },
	};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (fds[i].fd >= 0 && sw_daemon_watch(d, fds[i].fd, fds[i].id) < 0) {
			rc = -errno;
			sw_err("epoll: %s", strerror(errno));
			return rc;
		}
	}
	return 0;
}

int sw_setup(struct sw_daemon *d)
{
	int rc;

	d->cgw.fd = -1;
	d->epfd = d->sigfd = d->tfd = d->wdfd = d->ctlfd = d->dnsfd = d->flowfd = -1;
	d->lockfd = d->ctl_lockfd = d->spare_fd = -1;
	d->resolver.fd[0] = d->resolver.fd[1] = -1;
	d->started = time(NULL);
	d->req_uid = d->req_pid = -1;
	if ((rc = start_tables(d)))
		return rc;
	return start_loop(d);
}

void sw_teardown(struct sw_daemon *d)
{
	int fds[] = { d->epfd, d->sigfd, d->tfd, d->wdfd, d->ctlfd, d->dnsfd, d->spare_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* only the owner of the control socket (its lock) unlinks it */
	if (d->ctlfd >= 0 && d->ctl_lockfd >= 0)
		unlink(d->control_path);
	if (d->ctl_lockfd >= 0)
		close(d->ctl_lockfd);
	if (d->lockfd >= 0)
		close(d->lockfd);
	d->ctlfd = d->ctl_lockfd = d->lockfd = d->spare_fd = -1;
	sw_flowlog_stop(d);
	sw_events_close(&d->ev);
	free(d->txn_rec);
	d->txn_rec = NULL;
	sw_ident_close(d);              /* waits for a lookup that runs */
	sw_forget_close(d->forget);     /* waits for a walk that runs */
	d->forget = NULL;
	sw_cgwatch_close(&d->cgw);
	if (d->nflog.sock)
		sw_nflog_close(&d->nflog);
	/* closing the owner socket leaves a persist table in place */
	if (d->nl.rbuf)
		sw_nl_close(&d->nl);
	if (d->rtdump.rbuf)
		sw_nl_close(&d->rtdump);
	if (d->bind_ev.rbuf)
		sw_nl_close(&d->bind_ev);
	if (d->bind_nl.rbuf)
		sw_nl_close(&d->bind_nl);
	sw_binds_free(&d->binds);
	sw_host_free(&d->host);
	sw_host_free(&d->host_prev);
	sw_config_free(&d->cfg);
	sw_config_free(&d->cfg_prev);
	sw_model_free(&d->want);
	if (d->fast_base_ok)
		sw_model_free(&d->fast_base);
	sw_resolver_free(&d->resolver);
	sw_journal_close(&d->journal);
}
