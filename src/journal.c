// SPDX-License-Identifier: GPL-2.0-or-later
/* journal: bounded JSON-lines event record (see include/journal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "journal.h"

static int push(struct sw_journal *j, const char *line)
{
	char *copy = strdup(line);

	if (!copy)
		return -ENOMEM;
	if (j->n == SW_JOURNAL_MAX) {
		free(j->lines[j->first]);
		j->lines[j->first] = copy;
		j->first = (j->first + 1) % SW_JOURNAL_MAX;
	} else {
		j->lines[(j->first + j->n++) % SW_JOURNAL_MAX] = copy;
	}
	return 0;
}

int sw_journal_open(struct sw_journal *j, const char *path)
{
	char line[2048];
	FILE *f;

	memset(j, 0, sizeof(*j));
	snprintf(j->path, sizeof(j->path), "%s", path);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '{' && push(j, line)) {
			fclose(f);
			return -ENOMEM;
		}
	}
	fclose(f);
	return 0;
}

int sw_journal_add(struct sw_journal *j, const char *json)
{
	size_t len = 0, off = 0;
	char *buf;
	int err;

	if ((err = push(j, json)))
		return err;
	if (!j->path[0])
		return 0;
	for (size_t i = 0; i < j->n; i++)
		len += strlen(j->lines[(j->first + i) % SW_JOURNAL_MAX]) + 1;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < j->n; i++) {
		const char *l = j->lines[(j->first + i) % SW_JOURNAL_MAX];
		size_t n = strlen(l);

		memcpy(buf + off, l, n);
		off += n;
		buf[off++] = '\n';
	}
	err = sw_atomic_write(j->path, buf, off, 0600);
	free(buf);
	return err;
}

void sw_journal_close(struct sw_journal *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->lines[(j->first + i) % SW_JOURNAL_MAX]);
	memset(j, 0, sizeof(*j));
}

static const char *const jevent_names[SW_JE_COUNT] = {
	[SW_JE_START] = "start", [SW_JE_STOP] = "stop", [SW_JE_REMOVED] = "removed",
	[SW_JE_DRIFT] = "drift", [SW_JE_REPAIRED] = "repaired",
	[SW_JE_REPAIR_FAILED] = "repair-failed",
};

const char *sw_jevent_name(enum sw_jevent e)
{
	return (unsigned)e < SW_JE_COUNT ? jevent_names[e] : "unknown";
}

enum sw_jevent sw_jevent_parse(const char *name)
{
	for (int e = 0; name && e < SW_JE_COUNT; e++)
		if (!strcmp(jevent_names[e], name))
			return (enum sw_jevent)e;
	return SW_JE_UNKNOWN;
}

void sw_journal_begin(struct sw_jw *w, enum sw_jevent e, const char *table, time_t now)
{
	char when[32], t[80];
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(t, sizeof(t), "inet/%s", table);
	sw_jw_init(w);
	sw_jw_obj(w, NULL);
	sw_jw_str(w, "time", when);
	sw_jw_i64(w, "unix", (int64_t)now);
	sw_jw_str(w, "event", sw_jevent_name(e));
	sw_jw_str(w, "table", t);
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
