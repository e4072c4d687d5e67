// SPDX-License-Identifier: GPL-2.0-or-later
/* resolver: the allowlists' hostnames, kept resolved (see include/host/resolver.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <linux/netfilter/nf_tables.h>

#include "kernel/commit.h"
#include "kernel/encode.h"
#include "lib/log.h"
#include "host/resolver.h"

#define DNS_PORT 53

int64_t sw_resolver_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void sw_resolver_set_servers(struct sw_resolver *r, const struct sw_config *cfg,
			     const struct sw_host *host)
{
	r->n_servers = 0;
	if (cfg->n_dns_servers) {
		memcpy(r->servers, cfg->dns_servers, cfg->n_dns_servers * sizeof(r->servers[0]));
		r->n_servers = cfg->n_dns_servers;
		return;
	}
	for (size_t i = 0; host && i < host->n_resolvers && r->n_servers < SW_MAX_DNS_SERVERS; i++)
		r->servers[r->n_servers++] = host->resolvers[i];
}

static size_t find_name(const struct sw_resolver *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_names && strcmp(r->names[i].name, name); i++)
		;
	return i;
}

int sw_resolver_init(struct sw_resolver *r, const struct sw_config *cfg,
		     const struct sw_host *host, const struct sw_resolver *old)
{
	size_t total = 0;

	memset(r, 0, sizeof(*r));
	r->fd[0] = r->fd[1] = -1;
	r->min_ttl = cfg->dns_min_ttl;
	r->max_ttl = cfg->dns_max_ttl;
	sw_resolver_set_servers(r, cfg, host);
	for (size_t s = 0; s < cfg->n_sandboxes; s++)
		if (cfg->sandboxes[s].egress == SW_EGRESS_ALLOWLIST)
			total += cfg->sandboxes[s].n_names;
	if (!total)
		return 0;
	r->names = calloc(total, sizeof(*r->names));
	r->uses = calloc(total, sizeof(*r->uses));
	if (!r->names || !r->uses) {
		sw_resolver_free(r);
		return -ENOMEM;
	}
	for (size_t s = 0; s < cfg->n_sandboxes; s++) {
		const struct sw_sandbox *x = &cfg->sandboxes[s];

		for (size_t k = 0; x->egress == SW_EGRESS_ALLOWLIST && k < x->n_names; k++) {
			struct sw_resolver_use *u = &r->uses[r->n_uses++];
			size_t i = find_name(r, x->names[k].name);

			if (i == r->n_names) {
				struct sw_resolver_name *n = &r->names[r->n_names++];
				size_t o = old ? find_name(old, x->names[k].name) : 0;

				snprintf(n->name, sizeof(n->name), "%s", x->names[k].name);
				if (old && o < old->n_names) {
					/* a reload keeps what is known: no gap */
					const struct sw_resolver_name *on = &old->names[o];

					memcpy(n->addrs, on->addrs, sizeof(n->addrs));
					n->n_addrs = on->n_addrs;
					n->next_ms = on->sent_ms ? 0 : on->next_ms;
					n->fails = on->fails;
					n->logged_ms = on->logged_ms;
				}
			}
			u->name = i;
			u->port = x->names[k].port;
			snprintf(u->set, sizeof(u->set), "sbx_%s_hosts", x->name);
		}
	}
	/* the new sandboxes' sets must get the names' addresses */
	for (size_t i = 0; i < r->n_names; i++)
		for (size_t a = 0; a < r->names[i].n_addrs; a++)
			r->names[i].addrs[a].kernel_ms = 0;
	r->dirty = true;
	return 0;
}

void sw_resolver_free(struct sw_resolver *r)
{
	sw_resolver_close(r);
	free(r->names);
	free(r->uses);
	r->names = NULL;
	r->uses = NULL;
	r->n_names = r->n_uses = 0;
}

uint32_t sw_resolver_clamp(const struct sw_resolver *r, uint32_t ttl)
{
	return ttl < r->min_ttl ? r->min_ttl : ttl > r->max_ttl ? r->max_ttl : ttl;
}

void sw_resolver_answer(struct sw_resolver *r, size_t i, const struct sw_dns_answer *a,
			int64_t now_ms)
{
	struct sw_resolver_name *n = &r->names[i];
	int family = a->qtype == SW_DNS_A ? AF_INET : AF_INET6;
	size_t alen = family == AF_INET ? 4 : 16;
	int qi = a->qtype == SW_DNS_A ? 0 : 1;

	n->q[qi].pending = false;
	n->q[qi].ok = true;
	r->answers++;
	for (size_t k = 0; k < a->n; k++) {
		uint32_t ttl = sw_resolver_clamp(r, a->a[k].ttl);
		int64_t exp = now_ms + (int64_t)ttl * 1000;
		size_t j;

		if (!n->round_ttl || ttl < n->round_ttl)
			n->round_ttl = ttl;
		for (j = 0; j < n->n_addrs; j++)
			if (n->addrs[j].family == family && !memcmp(n->addrs[j].addr, a->a[k].addr, alen))
				break;
		if (j == n->n_addrs) {
			if (n->n_addrs == SW_RESOLVER_MAXADDRS)
				continue;
			memset(&n->addrs[j], 0, sizeof(n->addrs[j]));
			n->addrs[j].family = family;
			memcpy(n->addrs[j].addr, a->a[k].addr, alen);
			n->n_addrs++;
			r->fresh++;
		} else if (exp <= n->addrs[j].expires_ms) {
			continue;       /* a lifetime is only ever extended */
		}
		n->addrs[j].expires_ms = exp;
		if (!r->last_answer_us)
			r->last_answer_us = now_us();
		r->dirty = true;
	}
}

void sw_resolver_failed(struct sw_resolver *r, size_t i, int qi, const char *why, int64_t now_ms)
{
	struct sw_resolver_name *n = &r->names[i];

	n->q[qi].pending = false;
	n->q[qi].ok = false;
	snprintf(n->error, sizeof(n->error), "%s %s", qi ? "AAAA" : "A", why);
}

/* seconds until the last of the name's addresses expires (0: none) */
static long kept_for(const struct sw_resolver_name *n, int64_t now_ms)
{
	int64_t last = 0;

	for (size_t a = 0; a < n->n_addrs; a++)
		if (n->addrs[a].expires_ms > last)
			last = n->addrs[a].expires_ms;
	return last > now_ms ? (long)((last - now_ms + 999) / 1000) : 0;
}

void sw_resolver_round_end(struct sw_resolver *r, size_t i, int64_t now_ms)
{
	struct sw_resolver_name *n = &r->names[i];
	bool ok = n->q[0].ok && n->q[1].ok;

	n->sent_ms = 0;
	n->q[0].pending = n->q[1].pending = false;
	r->rounds++;
	if (!ok) {
		unsigned shift = n->fails < 5 ? n->fails : 5;
		int64_t back = (int64_t)SW_RESOLVER_RETRY_MS << shift;

		n->fails++;
		r->failures++;
		n->next_ms = now_ms + (back < SW_RESOLVER_RETRY_MAX ? back : SW_RESOLVER_RETRY_MAX);
		/* once per streak, then at most every SW_RESOLVER_LOG_MS */
		if (!n->logged_ms || now_ms - n->logged_ms >= SW_RESOLVER_LOG_MS) {
			sw_warn("event=dns-failed name=%s error=\"%s\" failures=%u addrs=%zu "
				"action=%s kept_s=%ld", n->name, n->error, n->fails, n->n_addrs,
				n->n_addrs ? "kept-last-good" : "none-allowed", kept_for(n, now_ms));
			n->logged_ms = now_ms;
		}
	} else {
		uint32_t ttl = n->round_ttl ? n->round_ttl : r->min_ttl;
		/* 3/4 of the shortest lifetime, and early enough that a round
		 * that times out on one server can ask the next before it ends */
		int64_t every = (int64_t)ttl * 750, early = (int64_t)ttl * 1000 - 2 * SW_RESOLVER_TIMEOUT_MS;

		if (early < every)
			every = early;

		if (n->fails)
			sw_info("event=dns-recovered name=%s failures=%u addrs=%zu", n->name,
				n->fails, n->n_addrs);
		n->fails = 0;
		n->logged_ms = 0;
		n->next_ms = now_ms + (every > 500 ? every : 500);
	}
	n->round_ttl = 0;
	n->q[0].ok = n->q[1].ok = false;
}

size_t sw_resolver_expire(struct sw_resolver *r, int64_t now_ms)
{
	size_t gone = 0;

	for (size_t i = 0; i < r->n_names; i++) {
		struct sw_resolver_name *n = &r->names[i];
		size_t before = n->n_addrs, k = 0;

		for (size_t a = 0; a < n->n_addrs; a++)
			if (n->addrs[a].expires_ms > now_ms)
				n->addrs[k++] = n->addrs[a];
		n->n_addrs = k;
		gone += before - k;
		if (before && !k)
			sw_warn("event=dns-expired name=%s failures=%u (no address left: the entry "
				"allows nothing until the name resolves)", n->name, n->fails);
	}
	return gone;
}

int64_t sw_resolver_deadline(const struct sw_resolver *r)
{
	int64_t t = INT64_MAX;

	for (size_t i = 0; i < r->n_names; i++) {
		const struct sw_resolver_name *n = &r->names[i];
		int64_t due = n->sent_ms ? n->sent_ms + SW_RESOLVER_TIMEOUT_MS : n->next_ms;

		if (due < t)
			t = due;
		for (size_t a = 0; a < n->n_addrs; a++)
			if (n->addrs[a].expires_ms < t)
				t = n->addrs[a].expires_ms;
	}
	return t;
}

/* address . protocol . port, each field padded to 32 bits (the kernel's
 * register layout, as core/rs_sets.c builds its concatenations) */
static void host_key(struct sw_elem *e, const struct sw_resolver_addr *a, const struct sw_port *p)
{
	size_t alen = a->family == AF_INET ? 4 : 16;
	uint16_t be = htons(p->port);

	memset(e, 0, sizeof(*e));
	memcpy(e->key, a->addr, alen);
	e->key[alen] = p->proto;
	memcpy(e->key + alen + 4, &be, 2);
}

/* One element of a host set, merged over every name that gives it: two
 * names with the same address on the same sandbox and port are one
 * element, which lives as long as the longer of the two. */
struct hel {
	const char *set;                /* "sbx_<sandbox>_hosts" */
	int family;
	struct sw_elem e;               /* key; timeout_ms unused here */
	int64_t expires_ms;             /* the latest of its names' */
	bool dirty;                     /* one of its names' lifetimes is not in the kernel */
	bool present;                   /* the kernel holds it (some name pushed it, not expired) */
};

static int hel_cmp(const void *a, const void *b)
{
	const struct hel *x = a, *y = b;
	int c = strcmp(x->set, y->set);

	if (c)
		return c;
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return memcmp(x->e.key, y->e.key, sizeof(x->e.key));
}

/* The live elements of every host set, merged, sorted by set and key. */
static int collect(const struct sw_resolver *r, int64_t now_ms, struct hel **out, size_t *n_out)
{
	struct hel *v;
	size_t n = 0, cap = 0, k = 0;

	for (size_t u = 0; u < r->n_uses; u++)
		cap += r->names[r->uses[u].name].n_addrs;
	*out = NULL;
	*n_out = 0;
	if (!cap)
		return 0;
	if (!(v = calloc(cap, sizeof(*v))))
		return -ENOMEM;
	for (size_t u = 0; u < r->n_uses; u++) {
		const struct sw_resolver_name *nm = &r->names[r->uses[u].name];

		for (size_t a = 0; a < nm->n_addrs; a++) {
			const struct sw_resolver_addr *x = &nm->addrs[a];

			if (x->expires_ms - now_ms <= SW_RESOLVER_MARGIN_MS)
				continue;
			v[n].set = r->uses[u].set;
			v[n].family = x->family;
			host_key(&v[n].e, x, &r->uses[u].port);
			v[n].expires_ms = x->expires_ms;
			v[n].dirty = x->kernel_ms != x->expires_ms;
			v[n].present = x->kernel_ms - now_ms > SW_RESOLVER_MARGIN_MS;
			n++;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), hel_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && !hel_cmp(&v[k - 1], &v[i])) {
			if (v[i].expires_ms > v[k - 1].expires_ms)
				v[k - 1].expires_ms = v[i].expires_ms;
			v[k - 1].dirty |= v[i].dirty;
			v[k - 1].present |= v[i].present;
			continue;
		}
		v[k++] = v[i];
	}
	*out = v;
	*n_out = k;
	return 0;
}

static struct sw_set *host_set(struct sw_model *m, const char *base, int family)
{
	char name[SW_NAME_MAX];

	snprintf(name, sizeof(name), "%s%c", base, family == AF_INET ? '4' : '6');
	return sw_model_find_set(m, name);
}

int sw_resolver_elems(const struct sw_resolver *r, int64_t now_ms,
		      struct sw_desired_elem **out, size_t *n_out)
{
	struct sw_desired_elem *o = NULL;
	struct hel *v;
	size_t n;
	int err;

	*out = NULL;
	*n_out = 0;
	if ((err = collect(r, now_ms, &v, &n)))
		return err;
	if (n && !(o = calloc(n, sizeof(*o)))) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(o[i].set, sizeof(o[i].set), "%s%c", v[i].set,
			 v[i].family == AF_INET ? '4' : '6');
		o[i].e = v[i].e;
		o[i].e.timeout_ms = (uint64_t)(v[i].expires_ms - now_ms);
	}
	free(v);
	*out = o;
	*n_out = n;
	return 0;
}

int sw_resolver_fill(const struct sw_resolver *r, struct sw_model *m, int64_t now_ms)
{
	struct hel *v;
	size_t n;
	int err;

	for (size_t u = 0; u < r->n_uses; u++)
		for (int f = 0; f < 2; f++) {
			struct sw_set *s = host_set(m, r->uses[u].set, f ? AF_INET6 : AF_INET);

			if (s)
				s->n_elems = 0;
		}
	if ((err = collect(r, now_ms, &v, &n)))
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		struct sw_set *s = host_set(m, v[i].set, v[i].family);

		if (!s)
			continue;
		v[i].e.timeout_ms = (uint64_t)(v[i].expires_ms - now_ms);
		err = sw_set_add_elem(s, &v[i].e);
	}
	free(v);
	return err;
}

/* ---- I/O ---------------------------------------------------------------- */

int sw_resolver_open(struct sw_resolver *r)
{
	int rc = 0;

	/* both families, whatever the servers are now: resolv.conf may change */
	for (int f = 0; f < 2; f++) {
		if (r->fd[f] >= 0)
			continue;
		r->fd[f] = socket(f ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (r->fd[f] < 0)
			rc = -errno;
	}
	return r->fd[0] >= 0 || r->fd[1] >= 0 ? 0 : rc;
}

void sw_resolver_close(struct sw_resolver *r)
{
	for (int f = 0; f < 2; f++) {
		if (r->fd[f] >= 0)
			close(r->fd[f]);
		r->fd[f] = -1;
	}
}

static uint16_t new_id(void)
{
	uint16_t id;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
		id = (uint16_t)(rand() ^ (int)now_us());
	return id;
}

static socklen_t server_sa(const struct sw_prefix *p, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (p->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(DNS_PORT);
		memcpy(&s4->sin_addr, p->addr, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(DNS_PORT);
	memcpy(&s6->sin6_addr, p->addr, 16);
	return sizeof(*s6);
}

static void round_start(struct sw_resolver *r, size_t i, int64_t now_ms)
{
	struct sw_resolver_name *n = &r->names[i];

	n->sent_ms = now_ms;
	n->round_ttl = 0;
	memset(n->q, 0, sizeof(n->q));
	if (!r->n_servers) {
		sw_resolver_failed(r, i, 0, "no resolver (resolv.conf or [daemon] resolvers)", now_ms);
		sw_resolver_round_end(r, i, now_ms);
		return;
	}
	/* a failing server gives way to the next one */
	n->server = n->fails % r->n_servers;
	for (int qi = 0; qi < 2; qi++) {
		const struct sw_prefix *srv = &r->servers[n->server];
		int fd = r->fd[srv->family == AF_INET ? 0 : 1];
		uint8_t q[SW_DNS_QUERYMAX];
		struct sockaddr_storage ss;
		socklen_t sl = server_sa(srv, &ss);
		int len;

		n->q[qi].id = new_id();
		len = sw_dns_query(q, sizeof(q), n->q[qi].id, n->name, qi ? SW_DNS_AAAA : SW_DNS_A);
		if (len < 0 || fd < 0) {
			sw_resolver_failed(r, i, qi, len < 0 ? "cannot build the query" : "no socket",
					   now_ms);
			continue;
		}
		if (sendto(fd, q, (size_t)len, 0, (struct sockaddr *)&ss, sl) != len) {
			sw_resolver_failed(r, i, qi, strerror(errno), now_ms);
			continue;
		}
		n->q[qi].pending = true;
	}
	if (!n->q[0].pending && !n->q[1].pending)
		sw_resolver_round_end(r, i, now_ms);
}

void sw_resolver_send(struct sw_resolver *r, int64_t now_ms)
{
	for (size_t i = 0; i < r->n_names; i++) {
		struct sw_resolver_name *n = &r->names[i];

		if (n->sent_ms && now_ms - n->sent_ms >= SW_RESOLVER_TIMEOUT_MS) {
			for (int qi = 0; qi < 2; qi++)
				if (n->q[qi].pending)
					sw_resolver_failed(r, i, qi, "timeout", now_ms);
			sw_resolver_round_end(r, i, now_ms);
		}
		if (!n->sent_ms && now_ms >= n->next_ms)
			round_start(r, i, now_ms);
	}
}

/* Is the reply from the server the round asked, port 53? */
static bool from_server(const struct sw_prefix *srv, const struct sockaddr_storage *ss)
{
	if (srv->family == AF_INET && ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		return s4->sin_port == htons(DNS_PORT) && !memcmp(&s4->sin_addr, srv->addr, 4);
	}
	if (srv->family == AF_INET6 && ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		return s6->sin6_port == htons(DNS_PORT) && !memcmp(&s6->sin6_addr, srv->addr, 16);
	}
	return false;
}

static void on_reply(struct sw_resolver *r, const uint8_t *msg, size_t len,
		     const struct sockaddr_storage *ss, int64_t now_ms)
{
	struct sw_dns_answer ans;
	uint16_t id;

	if (len < 2)
		return;
	id = (uint16_t)(msg[0] << 8 | msg[1]);
	for (size_t i = 0; i < r->n_names; i++) {
		struct sw_resolver_name *n = &r->names[i];

		for (int qi = 0; qi < 2; qi++) {
			int rc;

			if (!n->sent_ms || !n->q[qi].pending || n->q[qi].id != id ||
			    !from_server(&r->servers[n->server], ss))
				continue;
			rc = sw_dns_parse(msg, len, id, n->name, qi ? SW_DNS_AAAA : SW_DNS_A, &ans);
			if (rc == -EBADMSG)
				continue;       /* not the answer to this question: wait on */
			if (rc)
				sw_resolver_failed(r, i, qi, rc == -EMSGSIZE ? "truncated" :
						   "server error", now_ms);
			else
				sw_resolver_answer(r, i, &ans, now_ms);
			if (!n->q[0].pending && !n->q[1].pending)
				sw_resolver_round_end(r, i, now_ms);
			return;
		}
	}
}

void sw_resolver_recv(struct sw_resolver *r, int fd, int64_t now_ms)
{
	uint8_t buf[SW_DNS_MSGMAX];

	for (;;) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&ss, &sl);

		if (n < 0)
			return;         /* EAGAIN: drained */
		if ((size_t)n > sizeof(buf))
			continue;       /* longer than any answer we read */
		on_reply(r, buf, (size_t)n, &ss, now_ms);
	}
}

/* One table's batch: for every element the kernel lacks or holds with an
 * older expiry: [delete element (when it holds it: kernels before 6.12
 * keep the old timeout on a plain add)] add element { key timeout T }.
 * One element per message, so a refused delete (the element went
 * meanwhile: ENOENT) names its element (err_index) and is left out on
 * the next try. */
static int push_table(struct sw_nl *nl, const char *table, struct hel *v, size_t n,
		      int64_t now_ms, uint64_t *commits)
{
	int rc = -EAGAIN;

	for (int tries = 0; tries < 8 && rc == -EAGAIN; tries++) {
		size_t *dels = malloc((n + 1) * sizeof(*dels)), nd = 0;
		struct sw_batch b;
		bool sent;

		/* unstamped: the kernel's elements are what they are; a delete
		 * of one that went is refused and left out on the next try */
		if (!dels || (rc = sw_batch_init(&b, nl, SW_GEN_NONE, 0))) {
			free(dels);
			return dels ? rc : -ENOMEM;
		}
		for (int pass = 0; pass < 2 && !rc; pass++)
			for (size_t i = 0; i < n && !rc; i++) {
				struct sw_set s = { .key_len = v[i].family == AF_INET ? 12 : 24 };

				if (!v[i].dirty || (pass == 0 && !v[i].present))
					continue;
				snprintf(s.name, sizeof(s.name), "%s%c", v[i].set,
					 v[i].family == AF_INET ? '4' : '6');
				v[i].e.timeout_ms = (uint64_t)(v[i].expires_ms - now_ms);
				if (pass == 0)
					dels[nd++] = i;
				rc = sw_encode_elems(&b, nl, table, &s, &v[i].e, 1,
						     pass ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM);
			}
		sent = !rc && b.n_msgs;
		if (sent)
			rc = sw_commit_send(&b, nl, NULL);
		else
			sw_batch_free(&b);
		if (sent && !rc)
			(*commits)++;
		if (rc == -ENOENT && nl->err_index >= 0 && (size_t)nl->err_index < nd) {
			v[dels[nl->err_index]].present = false;
			rc = -EAGAIN;
		}
		free(dels);
	}
	return rc;
}

int sw_resolver_push(struct sw_resolver *r, struct sw_nl *nl, const char *const *tables,
		     size_t n_tables, int64_t now_ms)
{
	struct hel *v = NULL;
	size_t n = 0;
	int rc = 0;

	if (!r->dirty)
		return 0;
	if ((rc = collect(r, now_ms, &v, &n)))
		return rc;
	/* the kernel's view may differ per table: each starts from ours */
	bool *present = malloc((n ? n : 1) * sizeof(*present));

	if (!present) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		present[i] = v[i].present;
	for (size_t t = 0; t < n_tables; t++) {
		int e;

		for (size_t i = 0; i < n; i++)
			v[i].present = present[i];
		e = push_table(nl, tables[t], v, n, now_ms, &r->commits);
		if (e) {
			r->push_failures++;
			sw_warn("event=dns-push-failed table=inet/%s error=\"%s\"%s%s%s%s%s",
				tables[t], strerror(-e), nl->errmsg[0] ? " kernel=" : "", nl->errmsg,
				nl->errobj[0] ? " refused=\"" : "", nl->errobj,
				nl->errobj[0] ? "\"" : "");
			rc = rc ? rc : e;
		}
	}
	free(present);
	free(v);
	/* done either way: a missing table gets them from the repair (fill) */
	for (size_t i = 0; i < r->n_names; i++)
		for (size_t a = 0; a < r->names[i].n_addrs; a++)
			r->names[i].addrs[a].kernel_ms = r->names[i].addrs[a].expires_ms;
	r->dirty = false;
	r->pushes++;
	if (r->last_answer_us)
		r->last_push_us = now_us() - r->last_answer_us;
	/* a new address is news (a lifetime extended is not): one line, with
	 * the time from the answer to the kernel's ACK */
	if (r->fresh && !rc)
		sw_info("event=dns-update new=%zu tables=%zu applied_us=%lld", r->fresh, n_tables,
			(long long)r->last_push_us);
	r->fresh = 0;
	r->last_answer_us = 0;
	return rc;
}

int sw_resolver_once(struct sw_resolver *r, unsigned timeout_ms)
{
	int64_t end = sw_resolver_now_ms() + timeout_ms;
	uint64_t want = r->rounds + r->n_names;
	int got = 0, rc;

	if (!r->n_names)
		return 0;
	if ((rc = sw_resolver_open(r)))
		return rc;
	for (size_t i = 0; i < r->n_names; i++)
		r->names[i].next_ms = 0;
	for (;;) {
		int64_t now = sw_resolver_now_ms(), dl;
		struct pollfd p[2];
		nfds_t np = 0;

		sw_resolver_send(r, now);
		if (r->rounds >= want || now >= end)
			break;
		dl = sw_resolver_deadline(r);
		if (dl > end)
			dl = end;
		for (int f = 0; f < 2; f++)
			if (r->fd[f] >= 0)
				p[np++] = (struct pollfd){ .fd = r->fd[f], .events = POLLIN };
		if (poll(p, np, dl > now ? (int)(dl - now) : 0) < 0 && errno != EINTR)
			break;
		now = sw_resolver_now_ms();
		for (nfds_t k = 0; k < np; k++)
			if (p[k].revents & POLLIN)
				sw_resolver_recv(r, p[k].fd, now);
	}
	for (size_t i = 0; i < r->n_names; i++)
		got += r->names[i].n_addrs > 0;
	return got;
}
