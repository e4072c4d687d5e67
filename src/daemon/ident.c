// SPDX-License-Identifier: GPL-2.0-or-later
/* ident: sandbox identity in the daemon (see include/daemon/ident.h).
 * The worker touches only the job's inputs and outputs in struct
 * sw_ident while it runs (and its own netlink socket); the loop reads
 * them after the eventfd said the worker is done, and joins it. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "daemon/ident.h"
#include "daemon/state.h"
#include "host/idprobe.h"
#include "host/portread.h"
#include "host/rtapi.h"
#include "kernel/nl.h"
#include "lib/log.h"

#define DUES      8             /* refresh times kept */
#define RECENT    16            /* links that appeared lately (the fallback probes them) */
#define RECENT_US (5 * 1000000)

static const int64_t schedule_us[] = { 0, 200000, 500000, 1000000, 2000000, 4000000 };

struct runtime_api {
	const char *name;
	char sock[108];
	struct sw_identity got[SW_RTAPI_MAX_LIST];
	size_t n;
	int rc;
};

struct sw_ident {
	int efd;
	bool running;
	pthread_t th;
	struct sw_nl nl;                /* the worker's (strict checking) */
	bool nl_open;
	/* the job (written by the loop before the start, read by the worker) */
	struct runtime_api api[2];      /* docker, podman */
	struct sw_idprobe_link links[RECENT];
	size_t n_links;
	/* its results (written by the worker) */
	struct sw_identity probed[RECENT];
	size_t n_probed;
	/* the loop's */
	int64_t due[DUES];
	size_t n_due;
	struct { struct sw_idprobe_link l; int64_t since_us; } recent[RECENT];
	size_t n_recent;
	struct sw_idcache cache;
	struct sw_idlog log;            /* identities.jsonl */
	uint64_t jobs, api_errors;
	int64_t job_t0, job_us, last_link_us;   /* the last lookup's start and length */
	int last_rc[2];
};

/* ---- the worker --------------------------------------------------------- */

static void *work(void *arg)
{
	struct sw_ident *w = arg;
	uint64_t one = 1;
	bool any = false;

	for (size_t i = 0; i < 2; i++) {
		struct runtime_api *a = &w->api[i];

		a->n = 0;
		a->rc = sw_rtapi_list(a->sock, a->name, SW_RTAPI_TIMEOUT_MS, a->got,
				      SW_RTAPI_MAX_LIST, &a->n);
		any |= a->rc == 0;
	}
	/* the kernel's view of the links that came lately: veths when no API
	 * answered, taps always (no runtime API knows a micro-VM) */
	w->n_probed = 0;
	for (size_t i = 0; i < w->n_links; i++)
		if ((w->links[i].tap || (!any && w->nl_open)) &&
		    sw_idprobe_link(w->nl_open ? &w->nl : NULL, "/proc", &w->links[i],
				    &w->probed[w->n_probed]) == 0)
			w->n_probed++;
	if (write(w->efd, &one, sizeof(one)) != sizeof(one))
		w->n_probed = 0;
	return NULL;
}

/* ---- identities.jsonl --------------------------------------------------- */

static void jsonl_open(struct sw_daemon *d, struct sw_ident *w)
{
	const char *slash = strrchr(d->cfg.journal_path, '/');
	char path[SW_PATH_MAX + 32];
	int rc;

	path[0] = '\0';
	if (slash)
		snprintf(path, sizeof(path), "%.*s/identities.jsonl",
			 (int)(slash - d->cfg.journal_path), d->cfg.journal_path);
	if (!strcmp(path, w->log.j.path))
		return;
	sw_idlog_close(&w->log);
	if (path[0] && (rc = sw_idlog_open(&w->log, path, SW_IDENT_JSONL_MAX)))
		sw_warn("cannot open %s: %s", path, strerror(-rc));
}

static void jsonl_add(struct sw_ident *w, const struct sw_identity *id, const char *reason)
{
	sw_idlog_add(&w->log, id, time(NULL), reason);
}

/* ---- the loop's side ---------------------------------------------------- */

static void due_add(struct sw_ident *w, int64_t at)
{
	for (size_t i = 0; i < w->n_due; i++)
		if (w->due[i] == at)
			return;
	if (w->n_due < DUES) {
		w->due[w->n_due++] = at;
		return;
	}
	/* full: the latest goes (the sooner ones matter more) */
	size_t late = 0;

	for (size_t i = 1; i < w->n_due; i++)
		if (w->due[i] > w->due[late])
			late = i;
	if (at < w->due[late])
		w->due[late] = at;
}

static void resolve_sock(char *dst, size_t len, const char *cfg, const char *env_name,
			 const char *def)
{
	const char *env = getenv(env_name);
	int rc;

	if (cfg[0]) {
		snprintf(dst, len, "%s", cfg);
		return;
	}
	if ((rc = sw_rtapi_host_env(env, dst, len)) == 0)
		return;
	if (rc != -ENOENT)
		sw_warn("%s=%s: %s; using %s", env_name, env, rc == -EPROTONOSUPPORT ?
			"only unix:// sockets are asked (ignored)" : "no usable unix:// path (ignored)",
			def);
	snprintf(dst, len, "%s", def);
}

void sw_ident_setup(struct sw_daemon *d)
{
	struct sw_ident *w = d->ident;
	int rc;

	if (!d->cfg.identity) {
		sw_ident_close(d);
		return;
	}
	if (!w) {
		if (!(w = calloc(1, sizeof(*w))))
			return;
		w->log.j.fd = -1;
		if ((w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
		    sw_daemon_watch(d, w->efd, SLOT_IDENT) < 0) {
			sw_warn("sandbox identity off: %s", strerror(errno));
			if (w->efd >= 0)
				close(w->efd);
			free(w);
			return;
		}
		if ((rc = sw_portbind_open(&w->nl)))
			sw_warn("no fallback for sandbox identity (rtnetlink): %s", strerror(-rc));
		w->nl_open = rc == 0;
		d->ident = w;
	}
	/* the job's sockets change only while no worker runs */
	if (!w->running) {
		w->api[0].name = "docker";
		w->api[1].name = "podman";
		resolve_sock(w->api[0].sock, sizeof(w->api[0].sock), d->cfg.docker_socket,
			     "DOCKER_HOST", SW_DOCKER_SOCK);
		resolve_sock(w->api[1].sock, sizeof(w->api[1].sock), d->cfg.podman_socket,
			     "CONTAINER_HOST", SW_PODMAN_SOCK);
	}
	jsonl_open(d, w);
	sw_debug("identity: docker %s, podman %s", w->api[0].sock, w->api[1].sock);
	due_add(w, sw_daemon_now_us());
}

void sw_ident_close(struct sw_daemon *d)
{
	struct sw_ident *w = d->ident;

	if (!w)
		return;
	if (w->running)
		pthread_join(w->th, NULL);
	if (d->epfd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, w->efd, NULL);
	close(w->efd);
	if (w->nl_open)
		sw_nl_close(&w->nl);
	sw_idlog_close(&w->log);
	free(w);
	d->ident = NULL;
}

int sw_ident_fd(const struct sw_daemon *d)
{
	return d->ident ? d->ident->efd : -1;
}

static bool counts(const struct sw_link *l)
{
	return (l->kind == SW_LINK_VETH && l->peer_netns) || l->kind == SW_LINK_TAP;
}

void sw_ident_link(struct sw_daemon *d, const struct sw_link *l, bool added)
{
	struct sw_ident *w = d->ident;
	int64_t now = sw_daemon_now_us();

	if (!w || !counts(l))
		return;
	if (added) {
		size_t slot = w->n_recent < RECENT ? w->n_recent++ : 0;

		for (size_t i = 1; slot == 0 && w->n_recent == RECENT && i < RECENT; i++)
			if (w->recent[i].since_us < w->recent[slot].since_us)
				slot = i;
		memset(&w->recent[slot], 0, sizeof(w->recent[slot]));
		w->recent[slot].l.ifindex = l->ifindex;
		snprintf(w->recent[slot].l.name, sizeof(w->recent[slot].l.name), "%s", l->name);
		w->recent[slot].l.tap = l->kind == SW_LINK_TAP;
		w->recent[slot].l.netnsid = l->peer_netns ? l->netnsid : -1;
		w->recent[slot].l.peer_ifindex = l->peer_ifindex;
		w->recent[slot].since_us = now;
		w->last_link_us = now;
		/* a new sandbox may hold an address an old one had: ask again */
		sw_idcache_miss_reset(&w->cache);
		for (size_t i = 0; i < sizeof(schedule_us) / sizeof(*schedule_us); i++)
			due_add(w, now + schedule_us[i]);
	} else {
		if (l->kind == SW_LINK_TAP)
			sw_idcache_gone_iif(&w->cache, l->name, "microvm");
		due_add(w, now);        /* the runtime's list says who went */
	}
}

int sw_ident_lookup(struct sw_daemon *d, int family, const uint8_t *src, const char *iif,
		    struct sw_identity *out)
{
	struct sw_ident *w = d->ident;
	int64_t now = sw_daemon_now_us();

	if (!w)
		return -ENOENT;
	if (sw_identity_lookup_addr(&w->cache, family, src, out) == 0)
		return 0;
	/* a routed tap: the micro-VM behind it sends from addresses the host
	 * cannot read; the first one seen on its tap becomes its own */
	if (iif && sw_identity_lookup_iif(&w->cache, iif, "microvm", out) == 0 &&
	    sw_identity_add_addr(out, family, src) == 0) {
		if (sw_idcache_put(&w->cache, out, now) == SW_IDPUT_ADDRS)
			jsonl_add(w, out, "addresses");
		return 0;
	}
	if (sw_idcache_miss_due(&w->cache, family, src, now, SW_IDENT_MISS_US))
		due_add(w, now);
	return -ENOENT;
}

static void start_job(struct sw_ident *w, int64_t now)
{
	int rc;

	w->n_links = 0;
	for (size_t i = 0; i < w->n_recent; i++)
		if (now - w->recent[i].since_us <= RECENT_US)
			w->links[w->n_links++] = w->recent[i].l;
	if ((rc = pthread_create(&w->th, NULL, work, w))) {
		sw_warn("identity lookup not started: %s", strerror(rc));
		return;
	}
	w->running = true;
	w->job_t0 = now;
	w->jobs++;
}

void sw_ident_tick(struct sw_daemon *d)
{
	struct sw_ident *w = d->ident;
	int64_t now = sw_daemon_now_us();
	bool due = false;

	if (!w || w->running)
		return;
	for (size_t i = 0; i < w->n_due;) {
		if (w->due[i] <= now) {
			due = true;
			w->due[i] = w->due[--w->n_due];
		} else {
			i++;
		}
	}
	if (due)
		start_job(w, now);
}

int sw_ident_timeout(const struct sw_daemon *d, int64_t now_us)
{
	const struct sw_ident *w = d->ident;
	int t = -1;

	if (!w || w->running)
		return -1;      /* the eventfd wakes the loop */
	for (size_t i = 0; i < w->n_due; i++)
		t = sw_daemon_min_timeout(t, sw_daemon_ms_until(w->due[i], now_us));
	return t;
}

/* One record into the cache: logged when new or moved, and given to the
 * attempts from its addresses that name no sandbox yet. */
static void merge_one(struct sw_daemon *d, struct sw_ident *w, const struct sw_identity *id,
		      int64_t now)
{
	enum sw_idput r = sw_idcache_put(&w->cache, id, now);
	struct sw_identity cur;
	char sid[16];

	if (r != SW_IDPUT_SAME) {
		/* lookup_us: the lookup that named it; after_link_us: since the
		 * last sandbox link appeared */
		sw_identity_short(id, sid, sizeof(sid));
		sw_alert(&d->alert, LOG_INFO, "event=identity reason=%s runtime=%s container=%s "
			 "sandbox_name=%s image=%s addrs=%zu iif=%s lookup_us=%lld after_link_us=%lld",
			 r == SW_IDPUT_NEW ? "new" : "addresses", id->runtime, sid[0] ? sid : "?",
			 id->name[0] ? id->name : id->comm[0] ? id->comm : "?",
			 id->image[0] ? id->image : "?", id->n_addrs, id->iif[0] ? id->iif : "?",
			 (long long)w->job_us,
			 (long long)(w->last_link_us ? now - w->last_link_us : -1));
		jsonl_add(w, id, r == SW_IDPUT_NEW ? "new" : "addresses");
	}
	for (size_t i = 0; i < id->n_addrs; i++)
		if (sw_identity_lookup_addr(&w->cache, id->family[i], id->addr[i], &cur) == 0 &&
		    sw_attempts_identify(&d->attempts, id->family[i], id->addr[i], &cur))
			d->attempts_dirty = true;
}

void sw_ident_read(struct sw_daemon *d)
{
	struct sw_ident *w = d->ident;
	int64_t now = sw_daemon_now_us();
	uint64_t v;

	if (!w || !w->running || read(w->efd, &v, sizeof(v)) != sizeof(v))
		return;
	pthread_join(w->th, NULL);
	w->running = false;
	w->job_us = now - w->job_t0;
	for (size_t i = 0; i < 2; i++) {
		struct runtime_api *a = &w->api[i];

		if (a->rc && a->rc != -ENOENT) {
			w->api_errors++;
			if (a->rc != w->last_rc[i])
				sw_warn("identity: %s API at %s: %s", a->name, a->sock, strerror(-a->rc));
		}
		w->last_rc[i] = a->rc;
		if (a->rc)
			continue;
		for (size_t k = 0; k < a->n; k++)
			if (a->got[k].n_addrs)      /* a sandbox is known by its addresses */
				merge_one(d, w, &a->got[k], now);
		sw_idcache_sweep(&w->cache, a->name, a->got, a->n);
	}
	for (size_t i = 0; i < w->n_probed; i++)
		merge_one(d, w, &w->probed[i], now);
	sw_ident_tick(d);       /* what came due meanwhile */
}

void sw_ident_stats(const struct sw_daemon *d, uint64_t *records, uint64_t *jobs,
		    uint64_t *api_errors, uint64_t *dropped)
{
	const struct sw_ident *w = d->ident;

	*records = w ? w->cache.n : 0;
	*jobs = w ? w->jobs : 0;
	*api_errors = w ? w->api_errors : 0;
	*dropped = w ? w->log.dropped : 0;
}
