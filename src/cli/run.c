// SPDX-License-Identifier: GPL-2.0-or-later
/* run: the words of `sandwall run` and a run's state file (see
 * include/cli/run.h; the verb itself is run_cmd.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/run.h"
#include "lib/atomicfile.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/log.h"


bool sw_run_label_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > SW_RUN_LABEL_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

int sw_run_duration(const char *s, int64_t *ms)
{
	static const struct { const char *unit; int64_t ms; } units[] = {
		{ "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "h", 3600000 },
	};
	char *end;
	unsigned long long v;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > 7ULL * 24 * 3600 * 1000)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (!strcmp(end, units[i].unit)) {
			*ms = (int64_t)v * units[i].ms;
			return *ms >= 1 && *ms <= 7LL * 24 * 3600 * 1000 ? 0 : -EINVAL;
		}
	return -EINVAL;
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]: its value (and *i moved),
 * or NULL when argv[*i] is not that option (*missing set when it is, but
 * no value follows). */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

int sw_run_parse(int argc, char **argv, struct sw_run_args *a, char *err, size_t len)
{
	int i = 0;

	memset(a, 0, sizeof(*a));
	a->mode = SW_RUN_WRAP;
	a->label = "run";
	if (argc > 0 && (!strcmp(argv[0], "start") || !strcmp(argv[0], "stop"))) {
		a->mode = argv[0][2] == 'a' ? SW_RUN_START : SW_RUN_STOP;
		i = 1;
	}
	for (; i < argc; i++) {
		const char *v;
		bool missing = false;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if ((v = opt_value(argc, argv, &i, "--label", &missing))) {
			if (!sw_run_label_ok(v)) {
				snprintf(err, len, "bad --label '%s' (1 to %d of A-Z a-z 0-9 . _ -)", v,
					 SW_RUN_LABEL_MAX);
				return -EINVAL;
			}
			a->label = v;
		} else if ((v = opt_value(argc, argv, &i, "--timeout", &missing))) {
			if (sw_run_duration(v, &a->timeout_ms)) {
				snprintf(err, len, "bad --timeout '%s' (such as 90, 90s, 500ms, 5m, 2h; "
					 "at most 7 days)", v);
				return -EINVAL;
			}
		} else if ((v = opt_value(argc, argv, &i, "--receipt", &missing))) {
			if (!v[0]) {
				snprintf(err, len, "empty --receipt");
				return -EINVAL;
			}
			a->receipt = v;
		} else if (missing) {
			snprintf(err, len, "%s needs a value", argv[i]);
			return -EINVAL;
		} else if (argv[i][0] == '-') {
			snprintf(err, len, "run: unknown option '%s' (sandwall's own options, such as "
				 "-c FILE, go before the word run)", argv[i]);
			return -EINVAL;
		} else if (a->mode == SW_RUN_STOP && !a->stop) {
			a->stop = argv[i];
		} else {
			break;
		}
	}
	if (a->mode == SW_RUN_WRAP) {
		if (i >= argc) {
			snprintf(err, len, "run: no command (sandwall run [--label L] [--timeout DUR] "
				 "[--receipt FILE] -- CMD [ARG...])");
			return -EINVAL;
		}
		a->cmd = argv + i;
		return 0;
	}
	if (i < argc) {
		snprintf(err, len, "run %s: unexpected '%s'", a->mode == SW_RUN_START ? "start" : "stop",
			 argv[i]);
		return -EINVAL;
	}
	if (a->mode == SW_RUN_STOP && !a->stop) {
		snprintf(err, len, "run stop: which run? (sandwall run stop LABEL|ID)");
		return -EINVAL;
	}
	if (a->mode == SW_RUN_STOP && a->timeout_ms) {
		snprintf(err, len, "run stop: --timeout belongs to a run that wraps a command");
		return -EINVAL;
	}
	return 0;
}

/* ---- the state file ------------------------------------------------------- */

static const char *const counts_names[] = {
	[SW_RUN_COUNTS_NONE] = "none", [SW_RUN_COUNTS_RESET] = "reset",
	[SW_RUN_COUNTS_SHARED] = "shared", [SW_RUN_COUNTS_FAILED] = "failed",
};

const char *sw_run_counts_name(enum sw_run_counts c)
{
	return (size_t)c < sizeof(counts_names) / sizeof(counts_names[0]) ? counts_names[c] : "?";
}

/* "counts" of a state file (none when absent: a run opened before it was
 * recorded). 0 or -EINVAL. */
static int counts_of(const struct sw_jv *v, enum sw_run_counts *c)
{
	const char *s;

	*c = SW_RUN_COUNTS_NONE;
	if (!sw_jv_get(v, "max_connections_counts"))
		return 0;
	if (sw_jv_get_str(v, "max_connections_counts", &s))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(counts_names) / sizeof(counts_names[0]); i++)
		if (!strcmp(s, counts_names[i])) {
			*c = (enum sw_run_counts)i;
			return 0;
		}
	return -EINVAL;
}

bool sw_run_may_start(const struct sw_run *r)
{
	return r->pre == 0 && r->daemon_start && r->counts != SW_RUN_COUNTS_FAILED;
}

void sw_run_json(const struct sw_run *r, struct sw_jw *w)
{
	char t[32];

	sw_jw_str(w, "id", r->id);
	sw_jw_str(w, "label", r->label);
	sw_jw_i64(w, "start_us", r->start_us);
	sw_iso_utc(r->start_us / 1000000, t, sizeof(t));
	sw_jw_str(w, "start", t);
	sw_jw_i64(w, "stop_us", r->stop_us);
	if (r->stop_us) {
		sw_iso_utc(r->stop_us / 1000000, t, sizeof(t));
		sw_jw_str(w, "stop", t);
	} else {
		sw_jw_null(w, "stop");
	}
	sw_jw_u64(w, "uid", r->uid);
	sw_jw_i64(w, "pid", r->pid);
	sw_jw_str(w, "command", r->cmd);
	sw_jw_bool(w, "wrapped", r->wrapped);
	sw_jw_bool(w, "started", r->started);
	sw_jw_bool(w, "timed_out", r->timed_out);
	sw_jw_i64(w, "timeout_ms", r->timeout_ms);
	sw_jw_i64(w, "status", r->status);
	sw_jw_i64(w, "signal", r->signal);
	sw_jw_i64(w, "preflight", r->pre);
	sw_jw_i64(w, "postflight", r->post);
	sw_jw_bool(w, "daemon_start", r->daemon_start);
	sw_jw_bool(w, "daemon_stop", r->daemon_stop);
	sw_jw_str(w, "max_connections_counts", sw_run_counts_name(r->counts));
	if (r->counts == SW_RUN_COUNTS_SHARED)
		sw_jw_str(w, "counts_shared_with", r->counts_with);
	sw_jw_str(w, "mode", r->mode);
	sw_jw_str(w, "receipt", r->receipt);
}

int sw_run_save(const char *path, const struct sw_run *r)
{
	struct sw_jw w;
	int rc;

	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_str(&w, "record", "sandwall-run");
	sw_run_json(r, &w);
	sw_jw_end(&w);
	rc = sw_jw_text(&w) ? sw_atomic_write(path, sw_jw_text(&w), strlen(sw_jw_text(&w)), 0600) :
	     -ENOMEM;
	sw_jw_free(&w);
	return rc;
}

static int get_str(const struct sw_jv *v, const char *k, char *out, size_t cap)
{
	const char *s;

	if (sw_jv_get_str(v, k, &s) || strlen(s) >= cap)
		return -EINVAL;
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

int sw_run_load(const char *path, struct sw_run *r)
{
	char buf[16384];
	struct sw_jv v;
	int64_t n[10];
	const char *rec;
	ssize_t len;
	int fd, rc = -EINVAL;

	memset(r, 0, sizeof(*r));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len < 0)
		return -EIO;
	if ((size_t)len == sizeof(buf) || sw_jv_parse(buf, (size_t)len, &v, NULL))
		return -EINVAL;
	if (!sw_jv_get_str(&v, "record", &rec) && !strcmp(rec, "sandwall-run") &&
	    !get_str(&v, "id", r->id, sizeof(r->id)) &&
	    !get_str(&v, "label", r->label, sizeof(r->label)) &&
	    !get_str(&v, "command", r->cmd, sizeof(r->cmd)) &&
	    !get_str(&v, "mode", r->mode, sizeof(r->mode)) &&
	    !get_str(&v, "receipt", r->receipt, sizeof(r->receipt)) &&
	    !sw_jv_get_i64(&v, "start_us", &n[0]) && !sw_jv_get_i64(&v, "stop_us", &n[1]) &&
	    !sw_jv_get_i64(&v, "uid", &n[2]) && !sw_jv_get_i64(&v, "pid", &n[3]) &&
	    !sw_jv_get_i64(&v, "timeout_ms", &n[4]) && !sw_jv_get_i64(&v, "status", &n[5]) &&
	    !sw_jv_get_i64(&v, "signal", &n[6]) && !sw_jv_get_i64(&v, "preflight", &n[7]) &&
	    !sw_jv_get_i64(&v, "postflight", &n[8]) &&
	    !sw_jv_get_bool(&v, "wrapped", &r->wrapped) &&
	    !sw_jv_get_bool(&v, "started", &r->started) &&
	    !sw_jv_get_bool(&v, "timed_out", &r->timed_out) &&
	    !sw_jv_get_bool(&v, "daemon_start", &r->daemon_start) &&
	    !sw_jv_get_bool(&v, "daemon_stop", &r->daemon_stop) &&
	    !counts_of(&v, &r->counts) &&
	    (r->counts != SW_RUN_COUNTS_SHARED ||
	     !get_str(&v, "counts_shared_with", r->counts_with, sizeof(r->counts_with))) &&
	    sw_run_label_ok(r->label) && n[0] > 0 && n[1] >= 0 && n[2] >= 0 && n[2] <= UINT32_MAX &&
	    n[3] >= 0 && n[3] <= INT32_MAX && n[7] >= -1 && n[7] <= 2 && n[8] >= -1 && n[8] <= 2 &&
	    n[5] >= -1 && n[5] <= 255 && n[6] >= 0 && n[6] < 128) {
		r->start_us = n[0];
		r->stop_us = n[1];
		r->uid = (uint32_t)n[2];
		r->pid = (int32_t)n[3];
		r->timeout_ms = n[4];
		r->status = (int)n[5];
		r->signal = (int)n[6];
		r->pre = (int)n[7];
		r->post = (int)n[8];
		rc = 0;
	}
	sw_jv_free(&v);
	return rc;
}
