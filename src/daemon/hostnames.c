// SPDX-License-Identifier: GPL-2.0-or-later
/* hostnames: the resolver in the loop (see include/daemon/hostnames.h). */
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "daemon/hostnames.h"
#include "lib/log.h"
#include "sync/reconcile.h"

void sw_hostnames_tick(struct sw_daemon *d)
{
	char twin[SW_NAME_MAX + sizeof(SW_TWIN_SUFFIX)];
	const char *tables[2] = { d->cfg.table, twin };
	int64_t now = sw_resolver_now_ms(), next;
	struct itimerspec it = { 0 };

	if (!d->resolver.n_names)
		return;
	sw_resolver_expire(&d->resolver, now);
	sw_resolver_send(&d->resolver, now);
	if (!d->paused && d->resolver.dirty) {
		uint64_t commits = d->resolver.commits;

		sw_resolver_push(&d->resolver, &d->nl, tables,
				 d->twin && !sw_twin_name(d->cfg.table, twin, sizeof(twin)) ? 2 : 1, now);
		/* each of our commits moves the generation host updates start
		 * from (a wrong guess only costs them a dump: ERESTART) */
		for (; d->synced_gen && commits < d->resolver.commits; commits++)
			d->synced_gen = sw_gen_after(d->synced_gen);
	}
	next = sw_resolver_deadline(&d->resolver);
	if (next == INT64_MAX)
		return;
	next = next > now ? next - now : 1;
	it.it_value.tv_sec = next / 1000;
	it.it_value.tv_nsec = (long)(next % 1000) * 1000000;
	timerfd_settime(d->dnsfd, 0, &it, NULL);
}

void sw_hostnames_read(struct sw_daemon *d)
{
	int64_t now = sw_resolver_now_ms();

	for (int f = 0; f < 2; f++)
		if (d->resolver.fd[f] >= 0)
			sw_resolver_recv(&d->resolver, d->resolver.fd[f], now);
	sw_hostnames_tick(d);
}

int sw_hostnames_setup(struct sw_daemon *d, struct sw_resolver *old)
{
	struct sw_resolver r;
	int rc = sw_resolver_init(&r, &d->cfg, &d->host, old);

	if (rc) {
		sw_err("cannot set up the resolver: %s", strerror(-rc));
		return rc;
	}
	if (old) {
		for (int f = 0; f < 2; f++)
			if (old->fd[f] >= 0)
				epoll_ctl(d->epfd, EPOLL_CTL_DEL, old->fd[f], NULL);
		sw_resolver_free(old);
	}
	d->resolver = r;
	if (!r.n_names)
		return 0;
	if ((rc = sw_resolver_open(&d->resolver))) {
		sw_err("cannot open the resolver's sockets: %s", strerror(-rc));
		return rc;
	}
	for (int f = 0; f < 2; f++)
		if (d->resolver.fd[f] >= 0)
			sw_daemon_watch(d, d->resolver.fd[f], SLOT_DNS);
	sw_daemon_arm(d->dnsfd, 1, 0);
	return 0;
}
