/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CGWATCH_H
#define SANDWALL_CGWATCH_H
/* cgwatch: the cgroups that [guard] cgroups names. A scan of the cgroup2
 * tree finds the matching cgroups (their ids go into the guard_cg<level>
 * sets); the daemon watches the directories on the patterns' paths with
 * inotify and sends element deltas as containers start and stop. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"
#include "host/hoststate.h"
#include "core/model.h"
#include "kernel/nl.h"

#define SW_CG_ROOT_ENV  "SANDWALL_CGROUP_ROOT"

/* The cgroup2 root: $SANDWALL_CGROUP_ROOT, else the first cgroup2 mount in
 * /proc/self/mountinfo (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a
 * hybrid host). 0, or -ENOENT when there is none. */
int sw_cg_root(char *buf, size_t len);
/* Find every cgroup a pattern matches, into cg[] (sorted by level and id,
 * each once): 0, -ENOSPC beyond max, or -errno. No patterns: 0, none. */
int sw_cg_scan(const struct sw_config *cfg, const char *root, struct sw_cgroup *cg,
	       size_t max, size_t *n);
/* sw_cg_scan into host->cgroups at the default root (a host without a
 * cgroup2 mount has none). */
int sw_cg_scan_host(const struct sw_config *cfg, struct sw_host *host);

struct sw_cgwatch {
	int fd;                         /* inotify, -1 when closed */
	char root[4096];
	size_t n_dirs;                  /* directories watched */
	struct sw_cgroup scratch[SW_MAX_CGROUPS];
	uint64_t events, rescans, deltas;
};
/* Watch the root and every directory on a pattern's path (depth below the
 * deepest pattern). -errno; nothing to watch (no patterns) is 0 with fd -1. */
int sw_cgwatch_open(struct sw_cgwatch *w, const struct sw_config *cfg);
void sw_cgwatch_close(struct sw_cgwatch *w);
/* Read the queued events (non-blocking) and add watches below new
 * directories; *changed says the scan must be redone. 0 or -errno
 * (-ENOBUFS: the queue overflowed, rescan). */
int sw_cgwatch_read(struct sw_cgwatch *w, const struct sw_config *cfg, bool *changed);
/* Rescan, and when the matching cgroups differ from host->cgroups, send
 * the element deltas of the guard_cg<level> sets in one batch and update
 * host and want (the desired model) to match. *genid, when not 0, is the
 * generation at which the kernel held want: the batch is stamped with it
 * (ERESTART if anything moved since) and *genid becomes the batch's own.
 * *sent says a batch went out. On an error neither host nor want changes
 * (the caller falls back to a full compare). */
int sw_cgwatch_update(struct sw_cgwatch *w, const struct sw_config *cfg, struct sw_host *host,
		      struct sw_model *want, struct sw_nl *nl, uint32_t *genid, bool *sent);

#endif
