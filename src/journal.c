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
