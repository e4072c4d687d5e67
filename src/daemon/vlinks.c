// SPDX-License-Identifier: GPL-2.0-or-later
/* vlinks: verify's own throwaway links, left out of the coverage check
 * while that verify runs (include/daemon/vlinks.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "daemon/vlinks.h"

int sw_vlinks_proc_start(int64_t pid, uint64_t *start)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	size_t n;
	FILE *f;

	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
	if (!(f = fopen(path, "re")))
		return errno == ENOENT ? -ESRCH : -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": the command may hold blanks and ')', so
	 * the fields count from its last ')': state is field 3, starttime 22 */
	if (!(p = strrchr(buf, ')')))
		return -EINVAL;
	/* p: the blank before field 3; one blank on per field */
	p++;
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &v) != 1)
		return -EINVAL;
	*start = v;
	return 0;
}

/* A name the kernel takes for a link (dev_valid_name): 1 to 15 bytes,
 * not "." or "..", no '/', ':' or blank. */
static bool link_name_ok(const char *name)
{
	size_t n = strnlen(name, SW_IFNAMSIZ);

	if (n == 0 || n >= SW_IFNAMSIZ || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/' || name[i] == ':' || name[i] <= ' ' || name[i] > '~')
			return false;
	return true;
}

static const struct sw_link *by_name(const struct sw_host *h, const char *name)
{
	for (size_t i = 0; i < h->n_links; i++)
		if (!strncmp(h->links[i].name, name, sizeof(h->links[i].name)))
			return &h->links[i];
	return NULL;
}

static void drop(struct sw_vlinks *v, size_t i)
{
	v->v[i] = v->v[--v->n];
}

int sw_vlinks_add(struct sw_vlinks *v, const struct sw_host *h, const char *name, bool exists,
		  int64_t pid, uint64_t start, int64_t now_us)
{
	const struct sw_link *stale;
	struct sw_vlink *e = NULL;

	if (!link_name_ok(name) || pid <= 0)
		return -EINVAL;
	if (exists)
		return -EEXIST;
	for (size_t i = 0; i < v->n && !e; i++) {
		if (strcmp(v->v[i].name, name))
			continue;
		if (v->v[i].pid != pid || v->v[i].start != start)
			return -EBUSY;
		e = &v->v[i];
	}
	if (!e) {
		if (v->n == SW_VLINKS_MAX)
			return -ENOSPC;
		e = &v->v[v->n++];
	}
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->pid = pid;
	e->start = start;
	e->since_us = now_us;
	/* the kernel has no such link now, the daemon's view may still
	 * (its deletion's event not yet read): that one is not verify's */
	stale = by_name(h, name);
	e->stale_ifindex = stale ? stale->ifindex : 0;
	return 0;
}

void sw_vlinks_prune(struct sw_vlinks *v, const struct sw_host *h, int64_t now_us,
		     sw_vlinks_start_fn start_of)
{
	v->checked_us = now_us;
	for (size_t i = v->n; i-- > 0;) {
		struct sw_vlink *e = &v->v[i];
		const struct sw_link *l = by_name(h, e->name);
		uint64_t start = 0;
		bool keep;

		/* the first link of the name seen after the announcement is
		 * verify's (none existed then) */
		if (!e->ifindex && l && l->ifindex != e->stale_ifindex)
			e->ifindex = l->ifindex;
		keep = now_us - e->since_us < (e->ifindex ? SW_VLINK_MAX_US : SW_VLINK_UNSEEN_US);
		/* seen, then gone (or the name is another link's now): done */
		if (keep && e->ifindex)
			keep = l && l->ifindex == e->ifindex;
		if (keep)
			keep = start_of(e->pid, &start) == 0 && start == e->start;
		if (!keep)
			drop(v, i);
	}
}

bool sw_vlinks_own(const struct sw_vlinks *v, const struct sw_link *l)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].ifindex && v->v[i].ifindex == l->ifindex &&
		    !strncmp(v->v[i].name, l->name, sizeof(l->name)))
			return true;
	return false;
}

int64_t sw_vlinks_due_us(const struct sw_vlinks *v, int64_t now_us)
{
	int64_t left;

	if (!v->n)
		return -1;
	left = v->checked_us + SW_VLINK_CHECK_US - now_us;
	return left < 0 ? 0 : left;
}
