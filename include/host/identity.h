/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_HOST_IDENTITY_H
#define SANDWALL_HOST_IDENTITY_H
/* identity: which sandbox an address belongs to (issue 26). A record
 * names the runtime, the container's full id, its name and image, the
 * labels of interest and its addresses; sandwalld resolves it when a
 * sandbox's link appears or its address is first seen (rtapi.h: the
 * runtimes' APIs; idprobe.h: the kernel's view when no API answers),
 * keeps it in a bounded cache (here), stamps it into each attempt record
 * and logs it to identities.jsonl (docs/json.md), so that a container
 * removed with --rm is still named afterwards.
 *
 * Every string in a record is sanitized (sw_identity_clean): printable
 * ASCII without blanks, quotes, '=' or '\\', cut to its field; a record
 * can go into a key=value log line as it is. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "lib/journal.h"
#include "lib/json.h"

#define SW_ID_ADDRS     8       /* addresses kept per record */
#define SW_ID_CACHE     256     /* records in the cache */
#define SW_ID_MISSES    64      /* addresses whose last miss is remembered */

struct sw_identity {
	char runtime[12];       /* "docker", "podman", "lxc", "microvm", "cgroup", "unknown" */
	char id[80];            /* full container id (64 hex), pod UID, lxc name; "" unknown */
	char name[64];          /* "agent-7" (without Docker's leading '/') */
	char image[128];
	char run[64];           /* label sandwall.run */
	char k8s_ns[64];        /* label io.kubernetes.pod.namespace */
	char k8s_pod[64];       /* label io.kubernetes.pod.name */
	size_t n_addrs;
	int family[SW_ID_ADDRS];
	uint8_t addr[SW_ID_ADDRS][16];
	char iif[16];           /* the host-side interface (veth, tap), "" unknown */
	int32_t pid;            /* a process of it (fallbacks), 0 unknown */
	char comm[16];          /* micro-VM: its process's name */
};

/* A record is set when it names something (runtime set). */
static inline bool sw_identity_set(const struct sw_identity *id)
{
	return id->runtime[0] != '\0';
}

/* Copy s into dst (len bytes with the NUL), every character that is not
 * printable ASCII, or is a blank, '"', '\'', '=', '\\' or '`', as '_'. */
void sw_identity_clean(char *dst, size_t len, const char *s);
/* Add an address (deduplicated; beyond SW_ID_ADDRS dropped): 0 or -ENOSPC. */
int sw_identity_add_addr(struct sw_identity *id, int family, const uint8_t *addr);
bool sw_identity_has_addr(const struct sw_identity *id, int family, const uint8_t *addr);
/* The same container, same addresses (order aside). */
bool sw_identity_same_addrs(const struct sw_identity *a, const struct sw_identity *b);
/* The first 12 characters of the id ("" when none). */
void sw_identity_short(const struct sw_identity *id, char *buf, size_t len);
/* What a line calls it: its name, else its process's name (a micro-VM's
 * monitor), else "?". */
const char *sw_identity_name(const struct sw_identity *id);

/* The record as JSON members of the open object of w:
 * "runtime","id","name","image","labels":{...},"addresses":[...],"iif","pid","comm"
 * (empty fields left out; addrs: with the addresses). */
void sw_identity_json(const struct sw_identity *id, struct sw_jw *w, bool addrs);
/* A parsed record back (the inverse of sw_identity_json; the receipt).
 * Strings cleaned and cut as above. 0 or -EINVAL (no runtime). */
int sw_identity_from_json(const struct sw_jv *v, struct sw_identity *out);
/* One identities.jsonl line: {"time":ISO,"unix":N,"event":"identity",
 * "reason":"new"|"addresses", <sw_identity_json with addresses>,
 * "dropped":N}. */
void sw_identity_line(const struct sw_identity *id, time_t now, const char *reason,
		      uint64_t dropped, struct sw_jw *w);

/* ---- identities.jsonl --------------------------------------------------- */

/* The on-disk record: sw_identity_line lines through lib/journal.h (one
 * write per line, PATH -> PATH.1 at max_bytes). dropped counts the lines
 * lost: those of a PATH.1 that a rotation replaced, and failed writes. */
struct sw_idlog {
	struct sw_journal j;
	uint64_t lines_cur, lines_prev;     /* in PATH and in PATH.1 */
	uint64_t dropped;
};

/* Open (the files' lines counted as they are); max_bytes 0: 1 MiB. A file
 * that cannot be opened now is opened again at the next add. 0 or -errno. */
int sw_idlog_open(struct sw_idlog *l, const char *path, uint64_t max_bytes);
int sw_idlog_add(struct sw_idlog *l, const struct sw_identity *id, time_t now, const char *reason);
void sw_idlog_close(struct sw_idlog *l);

/* ---- the cache --------------------------------------------------------- */

struct sw_idcache_ent {
	struct sw_identity id;
	int64_t seen_us;        /* last confirmed (CLOCK_MONOTONIC) */
	bool gone;              /* its runtime's last answer no longer listed it */
};

struct sw_idcache {
	struct sw_idcache_ent e[SW_ID_CACHE];
	size_t n;
	uint64_t evicted;       /* records pushed out by newer ones */
	struct {
		int family;
		uint8_t addr[16];
		int64_t at_us;
	} miss[SW_ID_MISSES];   /* the last refresh asked for an address */
	size_t n_miss;
};

/* What sw_idcache_put did with a record. */
enum sw_idput { SW_IDPUT_SAME, SW_IDPUT_NEW, SW_IDPUT_ADDRS };

/* Put a record (matched by runtime and id, or for records without an id
 * by runtime and iif): new, or its addresses changed, or the same. The
 * addresses it holds are taken away from every other record (an address
 * belongs to one sandbox at a time). The least recently seen record makes
 * room when the cache is full (counted). */
enum sw_idput sw_idcache_put(struct sw_idcache *c, const struct sw_identity *id, int64_t now_us);
/* A runtime answered with its whole list: its records not in keep (ids)
 * are gone (lookups skip them, they stay for the record until evicted). */
void sw_idcache_sweep(struct sw_idcache *c, const char *runtime, const struct sw_identity *keep,
		      size_t n_keep);
/* The live record holding family/addr: 0 and *out, or -ENOENT. */
int sw_identity_lookup_addr(const struct sw_idcache *c, int family, const uint8_t *addr,
			    struct sw_identity *out);
/* The records of runtime on interface iif are gone (a tap went away). */
void sw_idcache_gone_iif(struct sw_idcache *c, const char *iif, const char *runtime);
/* The live record of runtime whose interface is iif: 0 and *out, or -ENOENT. */
int sw_identity_lookup_iif(const struct sw_idcache *c, const char *iif, const char *runtime,
			   struct sw_identity *out);
/* A miss on family/addr at now_us: may a refresh be asked for (none was
 * for this address within min_us)? Remembers the ask when it says yes. */
bool sw_idcache_miss_due(struct sw_idcache *c, int family, const uint8_t *addr, int64_t now_us,
			 int64_t min_us);
/* Forget every remembered miss (a new link: the next miss asks again). */
void sw_idcache_miss_reset(struct sw_idcache *c);

#endif
