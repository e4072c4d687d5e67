/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_DAEMON_VLINKS_H
#define SANDWALL_DAEMON_VLINKS_H
/* vlinks: `sandwall verify`'s own throwaway links (its sink, its probes'
 * host sides), which the coverage check leaves out while that verify
 * runs. Right before it creates one, verify names it on the control
 * socket (request "verify-link", sandwalld(8)); the socket is root's
 * alone and the daemon takes the caller's pid from SO_PEERCRED. A name
 * is left out of the coverage only
 *   - when no link of that name existed when it was announced (the
 *     kernel's word: an existing link is never hidden),
 *   - on the first link of that name seen after the announcement (its
 *     ifindex); once that link is gone, the name is reported again,
 *   - while the announcing process lives (its pid with the same start
 *     time: a reused pid does not keep it),
 *   - and for at most SW_VLINK_MAX_US (SW_VLINK_UNSEEN_US when no link
 *     of the name ever came).
 * A host-side link named like verify's but not announced by a live
 * verify is reported as any other. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/host.h"

#define SW_VLINKS_MAX      16
#define SW_VLINK_UNSEEN_US (10 * 1000000LL)       /* announced, no link came: this long */
#define SW_VLINK_MAX_US    (30 * 60 * 1000000LL)  /* a verify's link at most this long */
#define SW_VLINK_CHECK_US  1000000                /* is the verify still alive: this often */

struct sw_vlink {
	char name[16];
	int64_t pid;            /* who announced it (the daemon's pid namespace) */
	uint64_t start;         /* its start time (/proc/PID/stat, clock ticks after boot) */
	int64_t since_us;       /* the announcement (CLOCK_MONOTONIC) */
	int ifindex;            /* the link it is: 0 until one of the name is seen */
	int stale_ifindex;      /* one of the name the daemon's view still held
				 * when it was announced (gone in the kernel): never it */
};

struct sw_vlinks {
	struct sw_vlink v[SW_VLINKS_MAX];
	size_t n;
	int64_t checked_us;     /* the last sw_vlinks_prune (CLOCK_MONOTONIC) */
};

/* The start time of process pid (field 22 of /proc/PID/stat): 0, or
 * -errno (-ESRCH: no such process). */
typedef int (*sw_vlinks_start_fn)(int64_t pid, uint64_t *start);
int sw_vlinks_proc_start(int64_t pid, uint64_t *start);

/* Process pid (started at start) is about to create the link name (h:
 * the daemon's view of the host; exists: a link of that name is in the
 * kernel now). 0, or -EINVAL (not a link name, no pid), -EEXIST (the link
 * exists), -EBUSY (another live verify announced the name), -ENOSPC (no
 * room: SW_VLINKS_MAX). The same process announcing the name again
 * starts it afresh. */
int sw_vlinks_add(struct sw_vlinks *v, const struct sw_host *h, const char *name, bool exists,
		  int64_t pid, uint64_t start, int64_t now_us);
/* At now_us, with h the daemon's view of the host: bind an entry to the
 * first link of its name seen (its ifindex), and forget those that no
 * longer hold: the process gone (or another with its pid), the time up,
 * the link seen and gone from h. */
void sw_vlinks_prune(struct sw_vlinks *v, const struct sw_host *h, int64_t now_us,
		     sw_vlinks_start_fn start_of);
/* Is l (name and ifindex) a link a live verify announced, as of the last
 * sw_vlinks_prune? */
bool sw_vlinks_own(const struct sw_vlinks *v, const struct sw_link *l);
/* us until the entries are to be checked again at now_us (0: now), or
 * -1 when there are none. */
int64_t sw_vlinks_due_us(const struct sw_vlinks *v, int64_t now_us);

#endif
