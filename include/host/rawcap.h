/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RAWCAP_H
#define SANDWALL_RAWCAP_H
/* rawcap: the guarded host-side processes ([guard] users, [guard] cgroups)
 * that hold CAP_NET_RAW. Such a process can open packet sockets, which the
 * output path never sees: table netdev stops a guarded user's AF_PACKET
 * frames on the uplinks and lo, but the kernel has no cgroup match in the
 * netdev family, and nothing stops AF_PACKET on other interfaces or
 * AF_XDP (docs/threat-model.md). So the boundary is not held for them:
 * status, verify and the receipt say so, with the fix (--cap-drop NET_RAW). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"

#define SW_RAWCAP_MAX   16      /* processes listed; the rest only counted */
#define SW_CAP_NET_RAW  13

struct sw_rawcap_proc {
	int pid;
	uint32_t uid;               /* the effective uid */
	bool by_user;               /* a [guard] users uid, else a [guard] cgroups match */
	char comm[16];
	char cgroup[256];           /* its cgroup v2 path ("0::" line), without the leading '/' */
};

struct sw_rawcap_report {
	size_t n;                   /* guarded processes with CAP_NET_RAW, all of them */
	size_t n_listed;            /* in procs[] (at most SW_RAWCAP_MAX) */
	size_t scanned;             /* guarded processes looked at */
	struct sw_rawcap_proc procs[SW_RAWCAP_MAX];
};

/* Read PROC/<pid>/status and cgroup of every process (PROC = root + "/proc",
 * root "" for the real one; a fake tree in tests). A process is guarded
 * when its real, effective or filesystem uid is in [guard] users, or its
 * cgroup is or is below one a [guard] cgroups pattern matches. Processes
 * that vanish during the scan are skipped. 0 or -errno (no /proc). */
int sw_rawcap_scan(const struct sw_config *cfg, const char *root, struct sw_rawcap_report *r);

/* Does a cgroup path ("system.slice/docker-1.scope/inner") match a [guard]
 * cgroups pattern ("system.slice/docker-*.scope"): each of the pattern's
 * components matches the path's (fnmatch), the path may go deeper. */
bool sw_rawcap_cgroup_match(const char *pattern, const char *path);

/* One line per process, "pid 42 (comm) uid 0 cgroup X: CAP_NET_RAW", to f
 * with prefix; then the fix. Nothing when r->n == 0. */
void sw_rawcap_print(const struct sw_rawcap_report *r, const char *prefix, void *file);

/* status and verify: scan, write "packet_sockets" into w (may be NULL)
 * and the text to file (a FILE *, may be NULL). 1 when not held (a
 * guarded process holds CAP_NET_RAW, or the scan failed), 0 when held or
 * nothing is guarded ([guard] users and cgroups empty: nothing written). */
struct sw_jw;
int sw_rawcap_out(const struct sw_config *cfg, const char *root, struct sw_jw *w, void *file);

#endif
