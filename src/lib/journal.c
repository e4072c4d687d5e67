// SPDX-License-Identifier: GPL-2.0-or-later
/* journal: the on-disk audit trail, appended (see include/lib/journal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "lib/journal.h"

static uint64_t max_of(const struct sw_journal *j)
{
	return j->max_bytes ? j->max_bytes : SW_JOURNAL_MAX_BYTES;
}

static void mkparent(const char *path)
{
	char dir[256], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
}

static int reopen(struct sw_journal *j)
{
	struct stat st;

	if (j->fd >= 0)
		return 0;
	mkparent(j->path);
	j->fd = open(j->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (j->fd < 0)
		return -errno;
	j->size = fstat(j->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	/* a line torn by a crash ends here, so the next one stays whole */
	if (j->size) {
		int rfd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		char last = '\n';

		if (rfd >= 0) {
			if (pread(rfd, &last, 1, (off_t)j->size - 1) == 1 && last != '\n' &&
			    write(j->fd, "\n", 1) == 1)
				j->size++;
			close(rfd);
		}
	}
	return 0;
}

/* PATH -> PATH.1 (the older PATH.1 goes), a new PATH */
static int rotate(struct sw_journal *j)
{
	char old[sizeof(j->path) + 4];

	snprintf(old, sizeof(old), "%s.1", j->path);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (rename(j->path, old) < 0 && errno != ENOENT)
		return -errno;
	return reopen(j);
}

/* one write(2) of the whole line: O_APPEND puts it after every other
 * writer's line; a short write (disk full) is a failure */
static int write_line(struct sw_journal *j, const char *json)
{
	size_t n = strlen(json);
	char *buf;
	ssize_t w;
	int rc;

	if ((rc = reopen(j)))
		return rc;
	if (j->size && j->size + n + 1 > max_of(j) && (rc = rotate(j)))
		return rc;
	if (!(buf = malloc(n + 1)))
		return -ENOMEM;
	memcpy(buf, json, n);
	buf[n] = '\n';
	w = write(j->fd, buf, n + 1);
	rc = w < 0 ? -errno : (size_t)w != n + 1 ? -ENOSPC : 0;
	free(buf);
	if (w > 0)
		j->size += (uint64_t)w;
	if (w > 0 && (size_t)w != n + 1 && ftruncate(j->fd, (off_t)(j->size - (uint64_t)w)) == 0)
		j->size -= (uint64_t)w;     /* no torn line left behind when it can be helped */
	if (rc == -EMFILE || rc == -ENFILE || rc == -EBADF) {
		close(j->fd);
		j->fd = -1;
	}
	return rc;
}

int sw_journal_open(struct sw_journal *j, const char *path)
{
	memset(j, 0, sizeof(*j));
	j->fd = -1;
	snprintf(j->path, sizeof(j->path), "%s", path);
	return path[0] ? reopen(j) : 0;
}

int sw_journal_add(struct sw_journal *j, const char *json)
{
	int rc;

	if (!j->path[0])
		return 0;
	if (j->failing) {
		/* the episode ends when a write works again: say first what is missing */
		struct sw_jw w;
		char when[32];

		sw_journal_begin(&w, SW_JE_HOLE, "", time(NULL));
		sw_iso_utc(j->failing_since, when, sizeof(when));
		sw_jw_str(&w, "since", when);
		sw_jw_i64(&w, "since_unix", (int64_t)j->failing_since);
		sw_jw_u64(&w, "lost", j->lost);
		sw_jw_str(&w, "error", strerror(-j->last_err));
		sw_jw_end(&w);
		if (!sw_jw_text(&w) || write_line(j, sw_jw_text(&w))) {
			sw_jw_free(&w);
			goto failed;
		}
		sw_jw_free(&w);
		j->failing = false;
		j->lost = 0;
	}
	if (!(rc = write_line(j, json)))
		return 0;
	j->last_err = rc;
failed:
	if (!j->failing) {
		j->failing = true;
		j->failing_since = time(NULL);
	}
	if (!j->last_err)
		j->last_err = -EIO;
	j->errors++;
	j->lost++;
	return j->last_err;
}

void sw_journal_close(struct sw_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	memset(j, 0, sizeof(*j));
	j->fd = -1;
}

int sw_journal_append(const char *path, const char *json)
{
	struct sw_journal j;
	int rc;

	if (!path || !path[0])
		return 0;
	if ((rc = sw_journal_open(&j, path)) == 0)
		rc = write_line(&j, json);
	sw_journal_close(&j);
	return rc;
}

static int slurp_into(const char *path, char **buf, size_t *len, size_t *cap)
{
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (*len + n + 2 > *cap) {
			size_t nc = (*cap ? *cap * 2 : 1 << 16) + n + 2;
			char *b = realloc(*buf, nc);

			if (!b) {
				fclose(f);
				return -ENOMEM;
			}
			*buf = b;
			*cap = nc;
		}
		memcpy(*buf + *len, chunk, n);
		*len += n;
	}
	fclose(f);
	/* a torn last line of PATH.1 must not glue onto PATH's first */
	if (*len && (*buf)[*len - 1] != '\n')
		(*buf)[(*len)++] = '\n';
	return 0;
}

int sw_journal_read(const char *path, char **text, size_t *len)
{
	char old[300];
	size_t cap = 0;
	int rc;

	*text = NULL;
	*len = 0;
	snprintf(old, sizeof(old), "%s.1", path);
	if ((rc = slurp_into(old, text, len, &cap)) || (rc = slurp_into(path, text, len, &cap))) {
		free(*text);
		*text = NULL;
		*len = 0;
		return rc;
	}
	if (!*text && !(*text = calloc(1, 1)))
		return -ENOMEM;
	(*text)[*len] = '\0';
	return 0;
}

/* Each kind's name, and whether only a running sandwalld writes it (so
 * that such a line proves the daemon ran): not start and stop (the edges
 * themselves), nor what the CLI writes too (applied, removed, verify, the
 * runs). */
static const struct {
	const char *name;
	bool running;
} jevents[SW_JE_COUNT] = {
	[SW_JE_START] = { "start", false }, [SW_JE_STOP] = { "stop", false },
	[SW_JE_REMOVED] = { "removed", false }, [SW_JE_DRIFT] = { "drift", true },
	[SW_JE_REPAIRED] = { "repaired", true }, [SW_JE_REPAIR_FAILED] = { "repair-failed", true },
	[SW_JE_APPLIED] = { "applied", false }, [SW_JE_RELOAD] = { "reload", true },
	[SW_JE_UNGUARDED] = { "unguarded", true }, [SW_JE_COVERED] = { "covered", true },
	[SW_JE_ABSENT] = { "table-absent", true }, [SW_JE_PRESENT] = { "table-present", true },
	[SW_JE_VERIFY] = { "verify", false }, [SW_JE_HOLE] = { "hole", true },
	[SW_JE_RUN_START] = { "run-start", false }, [SW_JE_RUN_STOP] = { "run-stop", false },
	[SW_JE_QUARANTINE] = { "quarantine", true }, [SW_JE_RELEASE] = { "release", false },
};

const char *sw_jevent_name(enum sw_jevent e)
{
	return (unsigned)e < SW_JE_COUNT ? jevents[e].name : "unknown";
}

bool sw_jevent_while_running(enum sw_jevent e)
{
	return (unsigned)e < SW_JE_COUNT && jevents[e].running;
}

enum sw_jevent sw_jevent_parse(const char *name)
{
	for (int e = 0; name && e < SW_JE_COUNT; e++)
		if (!strcmp(jevents[e].name, name))
			return (enum sw_jevent)e;
	return SW_JE_UNKNOWN;
}

void sw_iso_utc(int64_t unix_s, char *buf, size_t len)
{
	time_t t = (time_t)unix_s;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%lld", (long long)unix_s);
}

int sw_time_parse(const char *s, int64_t *unix_s)
{
	struct tm tm;
	const char *end;
	char *e;
	long long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &e, 10);
	if (!errno && !*e && e != s && v >= 0) {
		*unix_s = v;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, "%Y-%m-%dT%H:%M", &tm);
	}
	if (!end || (*end && strcmp(end, "Z") && strcmp(end, "+00:00")))
		return -EINVAL;
	*unix_s = (int64_t)timegm(&tm);
	return 0;
}

void sw_journal_begin_us(struct sw_jw *w, enum sw_jevent e, const char *table, int64_t now_us)
{
	char when[32], t[80];

	if (!now_us) {
		struct timeval tv;

		gettimeofday(&tv, NULL);
		now_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
	}
	sw_iso_utc(now_us / 1000000, when, sizeof(when));
	snprintf(t, sizeof(t), "inet/%s", table);
	sw_jw_init(w);
	sw_jw_obj(w, NULL);
	sw_jw_str(w, "time", when);
	sw_jw_i64(w, "unix", now_us / 1000000);
	sw_jw_i64(w, "us", now_us);
	sw_jw_str(w, "event", sw_jevent_name(e));
	if (table && *table)
		sw_jw_str(w, "table", t);
}

void sw_journal_begin(struct sw_jw *w, enum sw_jevent e, const char *table, time_t now)
{
	struct timeval tv;
	int64_t us;

	gettimeofday(&tv, NULL);
	us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
	/* a caller's own second wins (tests pass fixed times) */
	if ((int64_t)now != tv.tv_sec)
		us = (int64_t)now * 1000000;
	sw_journal_begin_us(w, e, table, us);
}

void sw_journal_who(struct sw_jw *w, int64_t uid, int64_t pid, const char *comm)
{
	if (uid >= 0)
		sw_jw_i64(w, "uid", uid);
	if (pid > 0)
		sw_jw_i64(w, "pid", pid);
	if (comm && *comm)
		sw_jw_str(w, "comm", comm);
}

int sw_journal_add_jw(struct sw_journal *j, struct sw_jw *w)
{
	const char *text;
	int err;

	sw_jw_end(w);
	text = sw_jw_text(w);
	err = text ? sw_journal_add(j, text) : (w->err ? w->err : -EINVAL);
	sw_jw_free(w);
	return err;
}
