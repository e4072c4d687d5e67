// SPDX-License-Identifier: GPL-2.0-or-later
/* run_cmd: the verb `sandwall run` (include/cli/run.h): open a run,
 * preflight, the command with its timeout, postflight, close, receipt. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sodium.h>

#include "cli/daemonctl.h"
#include "cli/run.h"
#include "lib/control.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/log.h"

#define KILL_GRACE_MS 10000

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* DIR/runs, DIR the journal's directory (created 0700). 0, -ENOENT when
 * the journal is off, -errno. */
static int runs_dir(const struct sw_config *cfg, char *dir, size_t len)
{
	const char *slash = strrchr(cfg->journal_path, '/');

	if (!cfg->journal_path[0] || !slash) {
		sw_err("a run needs the journal ([daemon] journal in %s): it is its record", cfg->path);
		return -ENOENT;
	}
	if ((size_t)snprintf(dir, len, "%.*s/runs", (int)(slash - cfg->journal_path),
			     cfg->journal_path) >= len)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		sw_err("cannot make %s: %s", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

static void make_id(char *id, size_t len, int64_t us)
{
	time_t t = (time_t)(us / 1000000);
	uint8_t rnd[4];
	struct tm tm;
	char when[20];

	randombytes_buf(rnd, sizeof(rnd));
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(id, len, "%s-%02x%02x%02x%02x", when, rnd[0], rnd[1], rnd[2], rnd[3]);
}

/* The words as a shell would need them ('...' where not plain). */
static void quote_cmd(char **cmd, char *out, size_t cap)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; cmd && cmd[i] && o + 4 < cap; i++) {
		bool plain = cmd[i][0] != '\0' && strspn(cmd[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-") == strlen(cmd[i]);

		if (i)
			out[o++] = ' ';
		if (!plain)
			out[o++] = '\'';
		for (const char *c = cmd[i]; *c && o + 6 < cap; c++) {
			if (*c == '\'' && !plain) {
				memcpy(out + o, "'\\''", 4);
				o += 4;
			} else {
				out[o++] = *c;
			}
		}
		if (!plain)
			out[o++] = '\'';
		out[o] = '\0';
	}
}

/* Does sandwalld answer? Its ownership mode in mode. */
static bool daemon_answers(const struct sw_cli_opts *o, char *mode, size_t len)
{
	char reply[SW_CONTROL_REPMAX];

	if (sw_control_call(o->control, "status", reply, sizeof(reply)) || strncmp(reply, "ok\n", 3))
		return false;
	if (!sw_cli_reply_get(reply, "mode", mode, len))
		snprintf(mode, len, "unknown");
	return true;
}

/* A verify with attacks, its record DIR/ID.WHICH.json; its text on
 * stderr (the command's stdout is its own). The verify's exit code. */
static int flight(struct sw_cli_run *x, const char *dir, const struct sw_run *r, const char *which)
{
	char record[4200];
	int saved, code;

	snprintf(record, sizeof(record), "%s/%s.%s.json", dir, r->id, which);
	fprintf(stderr, "sandwall run %s: %s verify\n", r->id, which);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	code = sw_cli_verify(x->o, x->cfg, record);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return code;
}

static void journal_run(const struct sw_config *cfg, const struct sw_run *r, enum sw_jevent e)
{
	struct sw_jw w;
	int rc = -ENOMEM;

	sw_journal_begin_us(&w, e, cfg->table, e == SW_JE_RUN_START ? r->start_us : r->stop_us);
	sw_jw_str(&w, "by", "sandwall run");
	sw_journal_who(&w, (int64_t)getuid(), (int64_t)getpid(), "sandwall");
	sw_jw_str(&w, "run", r->id);
	sw_jw_str(&w, "label", r->label);
	if (e == SW_JE_RUN_START) {
		sw_jw_str(&w, "command", r->cmd);
	} else {
		sw_jw_bool(&w, "started", r->started);
		sw_jw_i64(&w, "status", r->status);
		sw_jw_i64(&w, "signal", r->signal);
		sw_jw_bool(&w, "timed_out", r->timed_out);
		sw_jw_i64(&w, "preflight", r->pre);
		sw_jw_i64(&w, "postflight", r->post);
	}
	sw_jw_end(&w);
	if (!sw_jw_text(&w) || (rc = sw_journal_append(cfg->journal_path, sw_jw_text(&w))))
		sw_warn("warning: cannot write the journal %s: %s: the run's record has a hole",
			cfg->journal_path, sw_jw_text(&w) ? strerror(-rc) : "out of memory");
	sw_jw_free(&w);
}

/* Start the command (its own stdio; SANDWALL_RUN in its environment);
 * forward SIGINT, SIGTERM, SIGHUP and SIGQUIT to it; at the timeout
 * SIGTERM, then SIGKILL after KILL_GRACE_MS. Fills started, status,
 * signal, timed_out. 0 or -errno. */
static int exec_cmd(struct sw_run *r, char **cmd)
{
	sigset_t set, old;
	int64_t deadline = 0;
	int pfd[2], st = 0, err = 0;
	bool termed = false;
	ssize_t n;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	sigprocmask(SIG_BLOCK, &set, &old);
	fflush(NULL);
	if ((pid = fork()) < 0) {
		err = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		setenv("SANDWALL_RUN", r->id, 1);
		setenv("SANDWALL_RUN_LABEL", r->label, 1);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0) {
			/* the parent sees status 127 either way */
		}
		_exit(err == ENOENT ? 127 : 126);
	}
	close(pfd[1]);
	n = read(pfd[0], &err, sizeof(err));
	close(pfd[0]);
	r->started = n != (ssize_t)sizeof(err);
	if (!r->started)
		sw_err("run: cannot run %s: %s", cmd[0], strerror(err));
	if (r->timeout_ms)
		deadline = mono_ms() + r->timeout_ms;
	for (;;) {
		struct timespec ts = { 1, 0 };
		int64_t left;
		int sig;

		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (deadline) {
			left = deadline - mono_ms();
			if (left <= 0) {
				if (!termed) {
					sw_warn("run %s: timed out after %lld ms: SIGTERM to pid %d", r->id,
						(long long)r->timeout_ms, (int)pid);
					kill(pid, SIGTERM);
					r->timed_out = termed = true;
					deadline = mono_ms() + KILL_GRACE_MS;
				} else {
					sw_warn("run %s: pid %d still there: SIGKILL", r->id, (int)pid);
					kill(pid, SIGKILL);
					deadline = 0;
				}
				continue;
			}
			if (left < 1000)
				ts = (struct timespec){ 0, left * 1000000 };
		}
		sig = sigtimedwait(&set, NULL, &ts);
		if (sig > 0 && sig != SIGCHLD)
			kill(pid, sig);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return 0;
}

/* Close run r (its state file at path): postflight, run-stop, receipt.
 * The exit status of sw_run_exit. */
static int close_run(struct sw_cli_run *x, const char *dir, const char *path, struct sw_run *r)
{
	bool contained = false;
	char mode[32];
	int rc;

	r->post = sw_run_may_start(r) && (r->started || !r->wrapped) ? flight(x, dir, r, "post") : -1;
	r->daemon_stop = daemon_answers(x->o, mode, sizeof(mode));
	r->stop_us = now_us();
	journal_run(x->cfg, r, SW_JE_RUN_STOP);
	/* the flows still open go into flows-open.json now, for the receipt */
	if (r->daemon_stop) {
		char reply[256];

		if (sw_control_call(x->o->control, "flows", reply, sizeof(reply)) || strncmp(reply, "ok\n", 3))
			sw_warn("warning: sandwalld did not write the open flows out: the receipt may "
				"miss flows still open");
	}
	if (sw_run_save(path, r))
		sw_warn("warning: cannot write %s", path);
	if ((rc = sw_run_receipt(x, r, dir, &contained)))
		return SW_RUN_EXIT_ERROR;
	sw_run_release_quarantines(x, r);
	fprintf(stderr, "sandwall run %s (label %s): %s; ", r->id, r->label,
		contained ? "CONTAINED" : "NOT CONTAINED");
	if (!r->wrapped)
		fprintf(stderr, "no command of its own");
	else if (!r->started)
		fprintf(stderr, "the command was not started");
	else if (r->signal)
		fprintf(stderr, "the command was killed by signal %d%s", r->signal,
			r->timed_out ? " (timed out)" : "");
	else
		fprintf(stderr, "the command exited %d%s", r->status, r->timed_out ? " (timed out)" : "");
	fprintf(stderr, "; receipt %s\n", r->receipt);
	if (!sw_run_may_start(r))
		return SW_RUN_EXIT_PREFLIGHT;
	if (!contained)
		return SW_RUN_EXIT_BREACH;
	if (r->wrapped && (r->status != 0 || r->signal || r->timed_out))
		return SW_RUN_EXIT_CMD_FAILED;
	return SW_RUN_EXIT_CONTAINED;
}

/* Another run open in dir (its state file says so): its id in other. */
static bool other_run_open(const char *dir, const char *self, char *other, size_t len)
{
	struct dirent *e;
	bool found = false;
	DIR *d = opendir(dir);

	while (d && !found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char p[4400];
		struct sw_run c;

		if (n < 6 || strcmp(e->d_name + n - 5, ".json") || strchr(e->d_name, '.') != e->d_name + n - 5)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (sw_run_load(p, &c) || c.stop_us || !strcmp(c.id, self))
			continue;
		snprintf(other, len, "%s", c.id);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

/* [sandbox] max_connections counts per run: at its start (the preflight's
 * probes counted too) every source's count starts again, unless another
 * run is open (its sources keep their counts: overlapping runs share them,
 * sandwall(8) RUNS). What became of them (FAILED said). */
static enum sw_run_counts reset_conns(struct sw_cli_run *x, const char *dir, struct sw_run *r)
{
	char reply[SW_CONTROL_REPMAX], other[SW_RUN_ID_LEN];
	bool any = false;

	for (size_t i = 0; i < x->cfg->n_sandboxes; i++)
		any |= x->cfg->sandboxes[i].max_conns != 0;
	if (!any)
		return SW_RUN_COUNTS_NONE;
	if (other_run_open(dir, r->id, other, sizeof(other))) {
		fprintf(stderr, "sandwall run %s: run %s is open: max_connections counts go on from "
			"its start\n", r->id, other);
		snprintf(r->counts_with, sizeof(r->counts_with), "%s", other);
		return SW_RUN_COUNTS_SHARED;
	}
	if (sw_control_call(x->o->control, "reset-connections", reply, sizeof(reply)) ||
	    strncmp(reply, "ok\n", 3)) {
		char msg[256] = "no answer";

		sw_cli_reply_get(reply, "message", msg, sizeof(msg));
		sw_err("run %s: sandwalld did not start the max_connections counts again (%s): the "
		       "run is not started", r->id, msg);
		return SW_RUN_COUNTS_FAILED;
	}
	return SW_RUN_COUNTS_RESET;
}

/* Open a run: its state, run-start, the preflight (and whether a daemon
 * watches). 0 or -errno. */
static int open_run(struct sw_cli_run *x, const struct sw_run_args *a, const char *dir,
		    struct sw_run *r, char *path, size_t plen)
{
	memset(r, 0, sizeof(*r));
	r->start_us = now_us();
	make_id(r->id, sizeof(r->id), r->start_us);
	snprintf(r->label, sizeof(r->label), "%s", a->label);
	r->uid = (uint32_t)getuid();
	r->pid = (int32_t)getpid();
	r->wrapped = a->mode == SW_RUN_WRAP;
	r->timeout_ms = a->timeout_ms;
	r->status = -1;
	r->pre = r->post = -1;
	quote_cmd(a->cmd, r->cmd, sizeof(r->cmd));
	if ((size_t)(a->receipt ? snprintf(r->receipt, sizeof(r->receipt), "%s", a->receipt) :
		     snprintf(r->receipt, sizeof(r->receipt), "%s/%s.receipt.json", dir, r->id)) >=
	    sizeof(r->receipt) || (size_t)snprintf(path, plen, "%s/%s.json", dir, r->id) >= plen)
		return -ENAMETOOLONG;
	journal_run(x->cfg, r, SW_JE_RUN_START);
	r->daemon_start = daemon_answers(x->o, r->mode, sizeof(r->mode));
	if (!r->daemon_start)
		sw_err("run %s: sandwalld does not answer on %s: nothing would repair the table "
		       "during the run", r->id, x->o->control);
	r->pre = flight(x, dir, r, "pre");
	if (r->pre == 0 && r->daemon_start)
		r->counts = reset_conns(x, dir, r);
	return sw_run_save(path, r);
}

/* run stop KEY: the open run with that id, or the one open run with that
 * label. 0 with its state path, or -errno (said). */
static int find_run(const char *dir, const char *key, struct sw_run *r, char *path, size_t plen)
{
	struct sw_run c;
	struct dirent *e;
	size_t found = 0;
	DIR *d;

	if (strlen(key) < SW_RUN_ID_LEN && strchr(key, '-') && !strchr(key, '/')) {
		snprintf(path, plen, "%s/%s.json", dir, key);
		if (!sw_run_load(path, r) && !strcmp(r->id, key)) {
			if (r->stop_us) {
				sw_err("run %s is closed already (its receipt: %s)", key, r->receipt);
				return -EALREADY;
			}
			return 0;
		}
	}
	if (!(d = opendir(dir)))
		return -errno;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char p[4400];

		if (n < 6 || strcmp(e->d_name + n - 5, ".json") || strchr(e->d_name, '.') != e->d_name + n - 5)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (sw_run_load(p, &c) || c.stop_us || strcmp(c.label, key))
			continue;
		if (found++)
			break;
		*r = c;
		snprintf(path, plen, "%s", p);
	}
	closedir(d);
	if (found == 1)
		return 0;
	if (found > 1)
		sw_err("run stop %s: several open runs have that label: give the run id", key);
	else
		sw_err("run stop %s: no open run with that id or label in %s", key, dir);
	return found ? -EEXIST : -ENOENT;
}

int sw_cli_run(struct sw_cli_run *x)
{
	struct sw_run_args a;
	struct sw_run r;
	char err[SW_ERRLEN], dir[4096], path[4400];

	if (sw_run_parse(x->argc, x->argv, &a, err, sizeof(err))) {
		fprintf(stderr, "sandwall: %s\n", err);
		return SW_RUN_EXIT_ERROR;
	}
	if (geteuid() != 0) {
		sw_err("run needs root (its verify probes from network namespaces): run it with sudo");
		return SW_RUN_EXIT_ERROR;
	}
	if (runs_dir(x->cfg, dir, sizeof(dir)))
		return SW_RUN_EXIT_ERROR;
	if (a.mode == SW_RUN_STOP) {
		if (find_run(dir, a.stop, &r, path, sizeof(path)))
			return SW_RUN_EXIT_ERROR;
		return close_run(x, dir, path, &r);
	}
	if (open_run(x, &a, dir, &r, path, sizeof(path))) {
		sw_err("cannot write the run's state %s", path);
		return SW_RUN_EXIT_ERROR;
	}
	if (!sw_run_may_start(&r)) {
		sw_err("run %s: %s: %s", r.id, r.pre != 0 ? "the preflight did not hold" :
		       !r.daemon_start ? "no sandwalld watches the table" :
		       "the max_connections counts are not the run's own",
		       r.wrapped ? "the command is not started" : "the run is closed");
		return close_run(x, dir, path, &r);
	}
	if (a.mode == SW_RUN_START) {
		printf("run %s label %s open since the preflight held; close it with: sandwall run "
		       "stop %s\n", r.id, r.label, r.label);
		return 0;
	}
	if (exec_cmd(&r, a.cmd))
		sw_err("run %s: cannot start the command: %s", r.id, strerror(errno));
	return close_run(x, dir, path, &r);
}
