// SPDX-License-Identifier: GPL-2.0-or-later
/* cgwatch: the cgroups [guard] cgroups names (see include/sync/cgwatch.h).
 *
 * A cgroup's id, which `socket cgroupv2 level L` loads, is the inode
 * number of its directory in cgroupfs (what nft's cgroupsv2 type takes
 * from stat()). A pattern of L components matches cgroups at level L; the
 * rule matches every socket whose cgroup has that one as its ancestor at
 * level L, so a container's sub-cgroups are covered too. Only directories
 * on a pattern's path are read or watched. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "sync/cgwatch.h"
#include "kernel/commit.h"
#include "kernel/encode.h"
#include "core/ruleset.h"

int sw_cg_root(char *buf, size_t len)
{
	const char *env = getenv(SW_CG_ROOT_ENV);
	char line[4096];
	FILE *f;
	int rc = -ENOENT;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return -errno;
	/* "36 25 0:31 / /sys/fs/cgroup rw,... - cgroup2 cgroup2 rw" */
	while (rc && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - "), *mp = line;

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		for (int i = 0; i < 4 && mp; i++)
			mp = strchr(mp, ' ') ? strchr(mp, ' ') + 1 : NULL;
		if (!mp || !strchr(mp, ' '))
			continue;
		*strchr(mp, ' ') = '\0';
		if (strchr(mp, '\\'))
			continue;       /* an escaped blank in the path: not ours to guess */
		snprintf(buf, len, "%s", mp);
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* Component k of a pattern into buf (empty when it has fewer). */
static unsigned comp(const char *pattern, unsigned k, char *buf, size_t len)
{
	unsigned n = 0;
	const char *p = pattern;

	buf[0] = '\0';
	for (;;) {
		size_t l = strcspn(p, "/");

		if (n == k)
			snprintf(buf, len, "%.*s", (int)l, p);
		n++;
		if (!p[l])
			return n;
		p += l + 1;
	}
}

struct walk {
	const struct sw_config *cfg;
	unsigned ncomp[SW_MAX_CG_PATTERNS];
	struct sw_cgroup *out;
	size_t max, n;
	int ifd;                        /* inotify fd to add watches to, or -1 */
	size_t watches;
};

static int cg_cmp(const void *a, const void *b)
{
	const struct sw_cgroup *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int watch(struct walk *w, int dfd)
{
	char p[64];

	if (w->ifd < 0)
		return 0;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", dfd);
	if (inotify_add_watch(w->ifd, p, IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
			      IN_ONLYDIR) < 0)
		return -errno;
	w->watches++;
	return 0;
}

/* dfd: the directory at rel (depth components below the root); active:
 * the patterns whose first depth components match rel. Takes dfd. */
static int walk_dir(struct walk *w, int dfd, const char *rel, unsigned depth, uint64_t active)
{
	DIR *d;
	struct dirent *e;
	int rc;

	if ((rc = watch(w, dfd))) {
		close(dfd);
		return rc;
	}
	if (!(d = fdopendir(dfd))) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	while (!rc && (e = readdir(d))) {
		uint64_t next = 0;
		bool match = false, deeper = false;
		char pc[SW_CG_PATTERN_MAX], path[SW_CG_PATH_MAX];
		unsigned pat = 0;
		struct stat st;

		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		for (unsigned i = 0; i < w->cfg->n_cgroups; i++) {
			if (!(active & (1ull << i)) || w->ncomp[i] <= depth)
				continue;
			comp(w->cfg->cgroups[i], depth, pc, sizeof(pc));
			if (fnmatch(pc, e->d_name, FNM_PERIOD))
				continue;
			next |= 1ull << i;
			if (w->ncomp[i] == depth + 1 && !match) {
				match = true;
				pat = i;
			}
			deeper |= w->ncomp[i] > depth + 1;
		}
		if (!next)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;       /* gone meanwhile: a container stopped */
			rc = -errno;
			break;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
		    (int)sizeof(path))
			path[0] = '\0';         /* too long to show; still guarded by id */
		if (match) {
			struct sw_cgroup *c;

			if (w->n == w->max) {
				rc = -ENOSPC;
				break;
			}
			c = &w->out[w->n++];
			memset(c, 0, sizeof(*c));
			c->id = (uint64_t)st.st_ino;
			c->level = (uint8_t)(depth + 1);
			c->pattern = (uint8_t)pat;
			snprintf(c->path, sizeof(c->path), "%s", path);
		}
		if (deeper && path[0]) {
			int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (sub < 0) {
				if (errno != ENOENT)
					rc = -errno;
				continue;
			}
			rc = walk_dir(w, sub, path, depth + 1, next);
		}
	}
	closedir(d);
	return rc;
}

static int walk_root(const struct sw_config *cfg, const char *root, int ifd, struct sw_cgroup *cg,
		     size_t max, size_t *n, size_t *watches)
{
	struct walk w = { .cfg = cfg, .out = cg, .max = max, .ifd = ifd };
	char pc[SW_CG_PATTERN_MAX];
	int fd, rc;

	*n = 0;
	if (!cfg->n_cgroups)
		return 0;
	for (size_t i = 0; i < cfg->n_cgroups; i++)
		w.ncomp[i] = comp(cfg->cgroups[i], 0, pc, sizeof(pc));
	if ((fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	rc = walk_dir(&w, fd, "", 0, (1ull << cfg->n_cgroups) - 1);
	if (!rc && w.n > 1)
		qsort(w.out, w.n, sizeof(*w.out), cg_cmp);
	*n = w.n;
	if (watches)
		*watches = w.watches;
	return rc;
}

int sw_cg_scan(const struct sw_config *cfg, const char *root, struct sw_cgroup *cg,
	       size_t max, size_t *n)
{
	return walk_root(cfg, root, -1, cg, max, n, NULL);
}

int sw_cg_scan_host(const struct sw_config *cfg, struct sw_host *host)
{
	char root[4096];
	int rc;

	host->n_cgroups = 0;
	if (!cfg->n_cgroups)
		return 0;
	if ((rc = sw_cg_root(root, sizeof(root))) == -ENOENT)
		return 0;       /* no cgroup2 mounted: no runtime uses it */
	if (rc)
		return rc;
	if ((rc = sw_host_room_cgroups(host, SW_MAX_CGROUPS)))
		return rc;
	return sw_cg_scan(cfg, root, host->cgroups, SW_MAX_CGROUPS, &host->n_cgroups);
}

int sw_cgwatch_open(struct sw_cgwatch *w, const struct sw_config *cfg)
{
	size_t n;
	int rc;

	w->fd = -1;
	w->n_dirs = 0;
	if (!cfg->n_cgroups)
		return 0;
	if ((rc = sw_cg_root(w->root, sizeof(w->root))))
		return rc;
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return -errno;
	rc = walk_root(cfg, w->root, w->fd, w->scratch, SW_MAX_CGROUPS, &n, &w->n_dirs);
	if (rc)
		sw_cgwatch_close(w);
	return rc;
}

void sw_cgwatch_close(struct sw_cgwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

int sw_cgwatch_read(struct sw_cgwatch *w, const struct sw_config *cfg, bool *changed)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;

	*changed = false;
	while ((len = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p + sizeof(struct inotify_event) <= buf + len;) {
			const struct inotify_event *ev = (const void *)p;

			if (p + sizeof(*ev) + ev->len > buf + len)
				break;
			w->events++;
			if ((ev->mask & IN_ISDIR) || (ev->mask & IN_Q_OVERFLOW))
				*changed = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (len < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static bool same_cgroups(const struct sw_cgroup *a, size_t na, const struct sw_cgroup *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].id != b[i].id || a[i].level != b[i].level)
			return false;
	return true;
}

static void set_clear(struct sw_set *s)
{
	for (size_t i = 0; i < s->n_text; i++)
		free(s->text[i]);
	free(s->text);
	free(s->elems);
	s->text = NULL;
	s->elems = NULL;
	s->n_text = s->cap_text = s->n_elems = s->cap_elems = 0;
}

int sw_cgwatch_update(struct sw_cgwatch *w, const struct sw_config *cfg, struct sw_host *host,
		      struct sw_model *want, struct sw_nl *nl, uint32_t *genid, bool *sent)
{
	struct sw_set fresh[SW_CG_MAX_LEVEL + 1];
	struct sw_batch b;
	size_t n;
	int rc;

	*sent = false;
	memset(fresh, 0, sizeof(fresh));
	w->rescans++;
	if ((rc = walk_root(cfg, w->root, w->fd, w->scratch, SW_MAX_CGROUPS, &n, &w->n_dirs)))
		return rc;
	if (same_cgroups(w->scratch, n, host->cgroups, host->n_cgroups))
		return 0;
	if ((rc = sw_host_room_cgroups(host, n)))       /* before anything is sent */
		return rc;
	/* stamped when the generation is known: the daemon's last verified */
	if ((rc = sw_batch_init(&b, nl, SW_GEN_IF_KNOWN, *genid))) {
		sw_batch_free(&b);
		goto out;
	}
	/* delete element / add element per level set: the cgroups that went
	 * and came, nothing else */
	for (unsigned l = 1; l <= SW_CG_MAX_LEVEL && !rc; l++) {
		char name[SW_NAME_MAX];
		const struct sw_set *old;

		snprintf(name, sizeof(name), SW_SET_CG "%u", l);
		if (!(old = sw_model_find_set(want, name)))
			continue;
		memcpy(fresh[l].name, old->name, sizeof(old->name));
		fresh[l].key_type = old->key_type;
		fresh[l].key_len = old->key_len;
		fresh[l].flags = old->flags;
		fresh[l].type_text = old->type_text;
		if (!(rc = sw_ruleset_cg_fill(&fresh[l], w->scratch, n, l)))
			rc = sw_encode_set_delta(&b, nl, want->table, &fresh[l], old);
	}
	/* nothing that went or came: nothing sent; else, on success, *genid
	 * (if known) is our batch's generation */
	*sent = !rc && b.n_msgs;
	if (*sent)
		rc = sw_commit_send(&b, nl, genid);
	else
		sw_batch_free(&b);
	*sent = *sent && !rc;
	if (rc)
		goto out;
	w->deltas++;
	for (unsigned l = 1; l <= SW_CG_MAX_LEVEL; l++) {
		struct sw_set *old;
		char name[SW_NAME_MAX];

		snprintf(name, sizeof(name), SW_SET_CG "%u", l);
		if (!(old = sw_model_find_set(want, name)))
			continue;
		set_clear(old);
		old->elems = fresh[l].elems;
		old->n_elems = fresh[l].n_elems;
		old->cap_elems = fresh[l].cap_elems;
		old->text = fresh[l].text;
		old->n_text = fresh[l].n_text;
		old->cap_text = fresh[l].cap_text;
		memset(&fresh[l], 0, sizeof(fresh[l]));
	}
	memcpy(host->cgroups, w->scratch, n * sizeof(*host->cgroups));
	host->n_cgroups = n;
out:
	for (unsigned l = 0; l <= SW_CG_MAX_LEVEL; l++)
		set_clear(&fresh[l]);
	return rc;
}
