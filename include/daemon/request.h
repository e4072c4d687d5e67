/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_REQUEST_H
#define SANDWALL_DAEMON_REQUEST_H
/* request: the CLI's requests on the control socket (lib/control.h:
 * reload, remove, status) and the instance lock's listener (lib/lock.h),
 * served at the descriptor limit too. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include "daemon/state.h"
#include "lib/control.h"

/* The descriptor limit: accept needs one more descriptor, and a listener
 * left readable would wake the loop forever (level-triggered). The spare
 * descriptor is given up to make room, the client served in its place
 * and the spare taken again; when even that fails, the listeners sleep
 * for SW_CTL_BACKOFF_MS instead of spinning. */
#define SW_CTL_BACKOFF_MS 200

/* A client on the control socket: accept it and serve its request. */
void sw_request_accept(struct sw_daemon *d);
/* Serve one client's request r on cfd (closed after the reply): not
 * executed when the client gave up (its deadline passed, it hung up);
 * "accepted" first for one that changes something. */
void sw_request_serve(struct sw_daemon *d, int cfd, const struct sw_control_req *r);
/* What the request does given the state, and its reply in rep (d->req_uid
 * and req_pid name who asked). 0 or -errno: it failed. */
int sw_request_run(struct sw_daemon *d, const struct sw_control_req *req, char *rep, size_t len);
/* Does the request change something (remove, reload)? Those are
 * "accepted" when they start and answered when done. */
bool sw_request_mutates(const char *verb);
/* The reply to "status" (pid: ours, now: unix seconds). */
void sw_request_status(const struct sw_daemon *d, pid_t pid, time_t now, char *rep, size_t len);

/* Someone asked the instance lock who holds it (lock.h): it read our pid
 * from the connection; nothing to say. */
void sw_request_lock(struct sw_daemon *d);
/* The listeners back after SW_CTL_BACKOFF_MS (the loop's timeout). */
void sw_request_wake(struct sw_daemon *d);
/* The loop's timeout for that at now (CLOCK_MONOTONIC us): ms, or -1
 * while the listeners are not asleep. */
int sw_request_timeout(const struct sw_daemon *d, int64_t now);

#endif
