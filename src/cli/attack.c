// SPDX-License-Identifier: GPL-2.0-or-later
/* attack: raw-packet attacks for `sandwall verify` (see include/cli/attack.h).
 * Every socket here is opened in the calling thread's network namespace
 * (the probe's), except the canary and control sockets, which the caller
 * opened in the host's namespace and passes in. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "cli/attack.h"

#define SW_ATK_PAYLOAD "sandwall-verify"

/* ------------------------------------------------------------ names */

const char *sw_attack_kind_name(enum sw_attack_kind k)
{
	static const char *const names[] = {
		[SW_ATK_NONE] = "none", [SW_ATK_PRIME_TCP] = "prime-tcp",
		[SW_ATK_PRIME_UDP] = "prime-udp", [SW_ATK_ND] = "nd-payload",
		[SW_ATK_BCAST] = "broadcast", [SW_ATK_CANARY] = "canary-control",
		[SW_ATK_EGRESS] = "egress", [SW_ATK_BUDGET] = "budget",
		[SW_ATK_CONNS] = "max_connections",
	};

	return (unsigned)k < sizeof(names) / sizeof(*names) ? names[k] : "?";
}

const char *sw_attack_result_name(enum sw_attack_result r)
{
	static const char *const names[] = {
		"pending", "counted", "silent", "heard", "uncounted", "reached", "unproven", "error",
	};

	return (unsigned)r < sizeof(names) / sizeof(*names) ? names[r] : "?";
}

bool sw_attack_held(const struct sw_attack *a)
{
	if (a->kind == SW_ATK_CANARY)
		return a->result == SW_ATK_HEARD;
	return a->result == SW_ATK_COUNTED || a->result == SW_ATK_SILENT;
}

int sw_attack_ifmac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		rc = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return rc;
}

/* ------------------------------------------------------------ running */

static unsigned ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

/* Not secret, only unlikely to repeat: getrandom, else time and pid. */
static uint32_t rnd32(void)
{
	struct timespec t;
	uint32_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint32_t)t.tv_nsec ^ (uint32_t)getpid() << 16;
}

uint16_t sw_attack_prime_base(unsigned lo, unsigned hi, size_t n, uint32_t r)
{
	unsigned below, above;

	if (n >= 65536 - 1024 || lo > hi || hi > 65535)
		return 0;
	below = lo > 1024 + n ? lo - 1024 - (unsigned)n : 0;   /* bases in [1024, lo - n) */
	above = hi + n < 65535 ? 65535 - hi - (unsigned)n : 0; /* bases in (hi, 65536 - n) */
	if (!below && !above)       /* no room outside: any run above 1024 */
		return (uint16_t)(1024 + r % (65536u - 1024 - (unsigned)n));
	r %= below + above;
	return (uint16_t)(r < below ? 1024 + r : hi + 1 + (r - below));
}

/* The current namespace's ephemeral port range (32768..60999 if unread). */
static void ephemeral_range(unsigned *lo, unsigned *hi)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");

	*lo = 32768;
	*hi = 60999;
	if (!f)
		return;
	if (fscanf(f, "%u %u", lo, hi) != 2 || *lo > *hi || *hi > 65535) {
		*lo = 32768;
		*hi = 60999;
	}
	fclose(f);
}

static socklen_t sockaddr_of(const struct sw_prefix *a, uint16_t port, unsigned scope,
			     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->addr, 4);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_scope_id = scope;
		memcpy(&s6->sin6_addr, a->addr, 16);
		return sizeof(*s6);
	}
}

/* per priming attack: the listener that holds the port (TCP), the socket
 * on the primed port, and a control socket from an unprimed port */
struct slot {
	int lst, fd, ctl;
	uint16_t lport;
	bool reached, ctl_reached;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A socket bound to SELF:port (0: any port). TCP sockets share the port
 * with the listener (SO_REUSEPORT), as the attacker's do. */
static int bound_socket(const struct sw_prefix *self, uint16_t port, int type, bool reuse)
{
	struct sockaddr_storage ss;
	socklen_t sl = sockaddr_of(self, port, 0, &ss);
	int one = 1, fd = socket(self->family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (reuse && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		      setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)))) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* The forged SYN reaches this port too where the host lets it through:
 * a listener that drops everything (classic BPF "ret #0") keeps the
 * probe's own kernel from resetting it, so the primed flow stays open. */
static int drop_all_listener(const struct sw_prefix *self, uint16_t port)
{
	struct sock_filter ins = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &ins };
	int fd = bound_socket(self, port, SOCK_STREAM, true);

	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 || listen(fd, 4) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* What the attack's counters hold: counter, plus counter2 when it has
 * one (a sandbox's policy may drop the packet before the category does). */
static int attack_count(const struct sw_attack_env *env, const struct sw_attack *a, uint64_t *sum)
{
	uint64_t c = 0;
	int rc = env->count(env->count_arg, a->counter, sum);

	if (!rc && a->counter2[0] && env->count(env->count_arg, a->counter2, &c) == 0)
		*sum += c;
	return rc;
}

/* Wait until the counters have grown by want (or evidence_ms passed). */
static uint64_t counted_since(const struct sw_attack_env *env, const struct sw_attack *a, uint64_t c0,
			      uint64_t want, int *err)
{
	/* the host counts a frame from the veth within microseconds; the
	 * wait is also the time a flow needs to be primed where it can be */
	unsigned wait = env->evidence_ms < 300 ? env->evidence_ms : 300;
	struct timespec t0;
	uint64_t c = c0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = attack_count(env, a, &c);

		if (rc) {
			*err = -rc;
			return 0;
		}
		if (c >= c0 + want || ms_since(&t0) >= wait)
			return c >= c0 ? c - c0 : 0;
		usleep(5 * 1000);
	}
}

/* Phase 1: one frame per priming/ND attack, each counted on its own. */
static void send_forged(const struct sw_attack_env *env, int pfd, int ifindex,
			const uint8_t smac[6], struct sw_attack *a, struct slot *s)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const struct sw_prefix *self = a->target.family == AF_INET6 ? &env->self6 : &env->self4;
	struct sw_frame f = { .ttl = 64 };
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex, .sll_halen = 6 };
	uint8_t buf[SW_FRAME_MAX];
	struct timespec t0;
	uint64_t c0 = 0;
	size_t len;
	int rc;

	memcpy(f.dmac, a->bcast_mac ? bcast : env->gwmac, 6);
	memcpy(f.smac, smac, 6);
	f.seq = rnd32();
	f.payload = (const uint8_t *)SW_ATK_PAYLOAD;
	f.plen = strlen(SW_ATK_PAYLOAD);
	if (a->kind == SW_ATK_ND) {
		/* from the probe's own address: nothing forged but the payload */
		f.kind = SW_FRAME_NS;
		f.src = *self;
		f.dst = a->target;
		f.nd_target = a->target;
		f.ttl = 255;
	} else {
		/* TARGET:PORT -> SELF:lport, as if the target had opened it */
		f.kind = a->kind == SW_ATK_PRIME_TCP ? SW_FRAME_TCP_SYN : SW_FRAME_UDP;
		f.src = a->target;
		f.dst = *self;
		f.sport = a->port;
		f.dport = s->lport;
		rc = a->kind == SW_ATK_PRIME_TCP ? drop_all_listener(self, s->lport)
						 : bound_socket(self, s->lport, SOCK_DGRAM, true);
		if (rc < 0)
			goto fail;
		if (a->kind == SW_ATK_PRIME_TCP)
			s->lst = rc;
		else
			s->fd = rc;
	}
	f.src.len = f.dst.len = (uint8_t)(sw_family_addrlen(f.src.family) * 8);
	if ((rc = sw_frame_build(&f, buf, sizeof(buf), &len)))
		goto fail;
	if ((rc = attack_count(env, a, &c0))) {
		/* no table, or no such counter: nothing can count it */
		a->result = SW_ATK_UNCOUNTED;
		a->err = -rc;
		return;
	}
	memcpy(ll.sll_addr, f.dmac, 6);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sendto(pfd, buf, len, 0, (struct sockaddr *)&ll, sizeof(ll)) < 0) {
		rc = -errno;
		goto fail;
	}
	a->counted = counted_since(env, a, c0, 1, &a->err);
	a->ms = ms_since(&t0);
	if (!a->counted)
		a->result = SW_ATK_UNCOUNTED;
	else if (a->kind == SW_ATK_ND)
		a->result = SW_ATK_COUNTED;
	return;
fail:
	a->result = SW_ATK_ERROR;
	a->err = -rc;
}

static void reset(const struct sw_attack_env *env)
{
	if (env->reset)
		env->reset(env->reset_arg);
}

/* the begin (it resets too) or the end of a phase judged by silence,
 * the count watched (attack.h: not the quarantine) */
static void watch(const struct sw_attack_env *env, bool end)
{
	if (env->watch)
		env->watch(env->watch_arg, end, false);
	else if (!end)
		reset(env);
}

/* Phase 2: connect (send) from the primed port and, as a control, from
 * a port nobody primed; all in parallel. */
static void follow_up(const struct sw_attack_env *env, struct sw_attack *a, struct slot *s, size_t n,
		      size_t lo, size_t hi)
{
	struct pollfd *pfd = calloc(2 * n + 1, sizeof(*pfd));
	struct timespec t0;
	size_t pending = 0;

	if (!pfd) {
		for (size_t i = lo; i < hi; i++)
			if (s[i].lport && a[i].result == SW_ATK_PENDING)
				a[i].result = SW_ATK_ERROR;
		return;
	}
	for (size_t j = 0; j < 2 * n; j++)
		pfd[j].fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = lo; i < hi; i++) {
		const struct sw_prefix *self = a[i].target.family == AF_INET6 ? &env->self6 : &env->self4;
		bool tcp = a[i].kind == SW_ATK_PRIME_TCP;
		struct sockaddr_storage ss;
		socklen_t sl = sockaddr_of(&a[i].target, a[i].port, 0, &ss);
		char junk[64];

		pfd[2 * i].fd = pfd[2 * i + 1].fd = -1;
		if (!s[i].lport || (a[i].kind != SW_ATK_PRIME_TCP && a[i].kind != SW_ATK_PRIME_UDP) ||
		    a[i].result == SW_ATK_ERROR)
			continue;
		if (tcp)
			s[i].fd = bound_socket(self, s[i].lport, SOCK_STREAM, true);
		else   /* the forged datagram itself may sit in the queue */
			while (recv(s[i].fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0)
				;
		s[i].ctl = bound_socket(self, 0, tcp ? SOCK_STREAM : SOCK_DGRAM, false);
		for (int k = 0; k < 2; k++) {
			int fd = k ? s[i].ctl : s[i].fd;

			if (fd < 0)
				continue;
			if (connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS)
				continue;       /* no route: not reached */
			if (!tcp && send(fd, SW_ATK_PAYLOAD, strlen(SW_ATK_PAYLOAD), 0) < 0 &&
			    errno != ECONNREFUSED)
				continue;
			pfd[2 * i + k].fd = fd;
			pfd[2 * i + k].events = tcp ? POLLOUT : POLLIN;
			pending++;
		}
		if (s[i].fd < 0 || s[i].ctl < 0) {
			a[i].result = SW_ATK_ERROR;
			a[i].err = -(s[i].fd < 0 ? s[i].fd : s[i].ctl);
		}
	}
	while (pending) {
		unsigned el = ms_since(&t0);
		int r;

		if (el >= env->timeout_ms)
			break;
		r = poll(pfd, 2 * n, (int)(env->timeout_ms - el));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (size_t j = 0; j < 2 * n; j++) {
			bool reached;
			int soerr = 0;
			socklen_t len = sizeof(soerr);
			char b[64];

			if (pfd[j].fd < 0 || !pfd[j].revents)
				continue;
			if (pfd[j].events == POLLOUT) {
				/* SYN-ACK or RST: the target answered */
				getsockopt(pfd[j].fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
				reached = soerr == 0 || soerr == ECONNREFUSED;
			} else {
				/* an answer, or ICMP port unreachable from the target */
				reached = recv(pfd[j].fd, b, sizeof(b), MSG_DONTWAIT) >= 0 ||
					  errno == ECONNREFUSED;
			}
			if (j & 1)
				s[j / 2].ctl_reached = reached;
			else
				s[j / 2].reached = reached;
			pfd[j].fd = -1;
			pending--;
		}
	}
	for (size_t i = lo; i < hi; i++) {
		if (!s[i].lport || (a[i].result != SW_ATK_PENDING && a[i].result != SW_ATK_UNCOUNTED))
			continue;
		a[i].ms = ms_since(&t0);
		/* reached from the primed port, not from another: a reply */
		if (s[i].reached && !s[i].ctl_reached)
			a[i].result = SW_ATK_REACHED;
		else if (a[i].result == SW_ATK_PENDING)
			a[i].result = SW_ATK_COUNTED;
	}
	free(pfd);
}

/* The follow-ups in rounds the probe's own count cannot cut off (two
 * connections each: the primed port's and the control's, env->batch at
 * a time), each watched. */
static void follow_rounds(const struct sw_attack_env *env, struct sw_attack *a, struct slot *s,
			  size_t n)
{
	size_t per = env->batch > 1 ? env->batch / 2 : env->batch ? 1 : n;

	for (size_t lo = 0, hi; lo < n; lo = hi) {
		size_t k[2] = { 0, 0 };      /* each family has a count of its own */

		for (hi = lo; hi < n; hi++) {
			size_t *f = &k[a[hi].target.family == AF_INET6];

			if (s[hi].lport && *f == per)
				break;
			*f += s[hi].lport != 0;
		}
		watch(env, false);
		follow_up(env, a, s, n, lo, hi);
		/* a socket still connecting sends its SYN again, a new
		 * connection to the count: closed before the next round */
		for (size_t i = lo; i < hi; i++) {
			close_fd(&s[i].fd);
			close_fd(&s[i].ctl);
		}
		watch(env, true);
	}
}

/* Last phases: a sandbox's unlisted destination (kind EGRESS: one
 * connection), its budget (kind BUDGET: tries connections) and its
 * max_connections (kind CONNS: tries connections). Every
 * connection of the kind at once from the probe's own address; one that
 * connects (SYN-ACK or RST) got through; otherwise the attack's counters,
 * read before and after, must have grown. */
static void egress(const struct sw_attack_env *env, struct sw_attack *a, size_t n,
		   enum sw_attack_kind kind)
{
	size_t total = 0, pending = 0;
	struct pollfd *pfd = NULL;
	size_t *owner = NULL;
	uint64_t *c0 = calloc(n ? n : 1, sizeof(*c0));
	struct timespec t0;

	for (size_t i = 0; i < n; i++)
		if (a[i].kind == kind)
			total += a[i].tries ? a[i].tries : 1;
	if (!total)
		goto out;
	pfd = calloc(total, sizeof(*pfd));
	owner = calloc(total, sizeof(*owner));
	if (!pfd || !owner || !c0) {
		for (size_t i = 0; i < n; i++) {
			if (a[i].kind != kind)
				continue;
			a[i].result = SW_ATK_ERROR;
			a[i].err = ENOMEM;
		}
		goto out;
	}
	total = 0;
	for (size_t i = 0; i < n; i++) {
		struct sockaddr_storage ss;
		socklen_t sl;
		int rc;

		if (a[i].kind != kind)
			continue;
		/* no table or no such counter: still tried (it may get through) */
		if ((rc = attack_count(env, &a[i], &c0[i]))) {
			a[i].err = -rc;
			c0[i] = UINT64_MAX;     /* nothing to compare with */
		}
		sl = sockaddr_of(&a[i].target, a[i].port, 0, &ss);
		for (unsigned k = 0; k < (a[i].tries ? a[i].tries : 1); k++) {
			int fd = socket(a[i].target.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

			if (fd < 0) {
				a[i].result = SW_ATK_ERROR;
				a[i].err = errno;
				break;
			}
			if (connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
				a[i].err = errno;       /* no route: not reached; the counter decides */
				close(fd);
				continue;
			}
			pfd[total].fd = fd;
			pfd[total].events = POLLOUT;
			owner[total++] = i;
			pending++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (pending) {
		unsigned el = ms_since(&t0);
		int r;

		if (el >= env->timeout_ms)
			break;
		r = poll(pfd, total, (int)(env->timeout_ms - el));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (size_t j = 0; j < total; j++) {
			struct sw_attack *x = &a[owner[j]];
			int soerr = 0;
			socklen_t len = sizeof(soerr);

			if (pfd[j].fd < 0 || !pfd[j].revents)
				continue;
			getsockopt(pfd[j].fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
			if (soerr == 0 || soerr == ECONNREFUSED) {
				if (x->result == SW_ATK_PENDING)
					x->ms = ms_since(&t0);
				x->result = SW_ATK_REACHED;
			} else {
				x->err = soerr;         /* unreachable/prohibited: the counter decides */
			}
			close(pfd[j].fd);
			pfd[j].fd = -1;
			pending--;
		}
	}
	for (size_t j = 0; j < total; j++)
		if (pfd[j].fd >= 0)
			close(pfd[j].fd);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = 0;
		int rc;

		if (a[i].kind != kind || a[i].result != SW_ATK_PENDING)
			continue;
		a[i].ms = ms_since(&t0);
		/* the SYNs met the chain long before the connections timed out */
		rc = attack_count(env, &a[i], &c);
		if (rc)
			a[i].err = -rc;
		a[i].counted = !rc && c0[i] != UINT64_MAX && c > c0[i] ? c - c0[i] : 0;
		a[i].result = a[i].counted ? SW_ATK_COUNTED : SW_ATK_UNCOUNTED;
	}
out:
	free(pfd);
	free(owner);
	free(c0);
}

/* One round of phase 3: from a[next] on, the controls and at most
 * env->batch broadcasts (0: all), sent; then the canaries listened to
 * for the whole window. Where the next round starts. */
static size_t bcast_round(const struct sw_attack_env *env, int ifindex, struct sw_attack *a,
			  size_t n, size_t next, int s4, int s6, uint32_t nonce, bool *heard_ctl)
{
	size_t in_round[2] = { 0, 0 }, sent = 0, i;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = next; i < n; i++) {
		bool v6 = a[i].target.family == AF_INET6;
		struct sockaddr_storage ss;
		socklen_t sl;
		char msg[48];
		int fd;

		if (a[i].kind != SW_ATK_BCAST && a[i].kind != SW_ATK_CANARY)
			continue;
		/* each family has a count of its own */
		if (a[i].kind == SW_ATK_BCAST && env->batch && in_round[v6] == env->batch)
			break;
		in_round[v6] += a[i].kind == SW_ATK_BCAST;
		/* a link-scope destination needs the probe's interface */
		sl = sockaddr_of(&a[i].target, env->canary_port,
				 v6 && a[i].target.addr[0] == 0xff ? (unsigned)ifindex : 0, &ss);
		snprintf(msg, sizeof(msg), "swv:%08x:%zu", nonce, i);
		if (a[i].kind == SW_ATK_CANARY)
			fd = v6 ? env->control6 : env->control4;
		else
			fd = v6 ? s6 : s4;
		if (fd < 0 || (v6 ? env->canary6 : env->canary4) < 0) {
			a[i].result = SW_ATK_ERROR;
			a[i].err = EBADF;
			continue;
		}
		if (sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&ss, sl) < 0) {
			a[i].result = SW_ATK_ERROR;
			a[i].err = errno;
			continue;
		}
		sent++;
	}
	/* listen for the whole window: silence is the answer */
	while (sent) {
		struct pollfd p[2] = { { .fd = env->canary4, .events = POLLIN },
				       { .fd = env->canary6, .events = POLLIN } };
		unsigned el = ms_since(&t0);

		if (el >= env->evidence_ms || poll(p, 2, (int)(env->evidence_ms - el)) <= 0)
			break;
		for (int k = 0; k < 2; k++) {
			char b[64];
			ssize_t r;

			while (p[k].fd >= 0 && (r = recv(p[k].fd, b, sizeof(b) - 1, MSG_DONTWAIT)) >= 0) {
				unsigned got_nonce;
				size_t idx;

				b[r] = '\0';
				if (sscanf(b, "swv:%8x:%zu", &got_nonce, &idx) != 2 || got_nonce != nonce ||
				    idx >= n || a[idx].result != SW_ATK_PENDING)
					continue;       /* someone else's datagram */
				a[idx].result = SW_ATK_HEARD;
				a[idx].ms = ms_since(&t0);
				if (a[idx].kind == SW_ATK_CANARY)
					heard_ctl[a[idx].target.family == AF_INET6] = true;
			}
		}
	}
	return i;
}

/* Phase 3: broadcast and multicast to the host's canary, with the
 * host's own datagram to its canary as the control; in rounds that the
 * probe's own count cannot cut off, each watched. */
static void broadcast(const struct sw_attack_env *env, int ifindex, struct sw_attack *a, size_t n)
{
	int s4 = -1, s6 = -1, one = 1;
	uint32_t nonce = 0;
	bool heard_ctl[2] = { false, false }, any = false;

	for (size_t i = 0; i < n; i++)
		any |= a[i].kind == SW_ATK_BCAST || a[i].kind == SW_ATK_CANARY;
	if (!any)
		return;
	nonce = rnd32();
	s4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s4 >= 0 && (setsockopt(s4, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)) ||
			setsockopt(s4, SOL_SOCKET, SO_BINDTODEVICE, env->ifname, (socklen_t)strlen(env->ifname))))
		close_fd(&s4);
	s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s6 >= 0 && setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof(ifindex)))
		close_fd(&s6);
	for (size_t next = 0; next < n;) {
		watch(env, false);
		next = bcast_round(env, ifindex, a, n, next, s4, s6, nonce, heard_ctl);
		watch(env, true);
	}
	for (size_t i = 0; i < n; i++) {
		if ((a[i].kind != SW_ATK_BCAST && a[i].kind != SW_ATK_CANARY) ||
		    a[i].result != SW_ATK_PENDING)
			continue;
		a[i].ms = env->evidence_ms;
		if (a[i].kind == SW_ATK_CANARY)
			a[i].result = SW_ATK_SILENT;        /* the control failed */
		else    /* silence proves something only where the canary works */
			a[i].result = heard_ctl[a[i].target.family == AF_INET6] ? SW_ATK_SILENT
										 : SW_ATK_UNPROVEN;
	}
	close_fd(&s4);
	close_fd(&s6);
}

int sw_attack_run(const struct sw_attack_env *env, struct sw_attack *a, size_t n)
{
	struct slot *s = calloc(n ? n : 1, sizeof(*s));
	uint8_t smac[6];
	uint16_t base = 0;
	unsigned lo, hi;
	int pfd = -1, ifindex, rc = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s[i].lst = s[i].fd = s[i].ctl = -1;
	ifindex = (int)if_nametoindex(env->ifname);
	if (!ifindex || (rc = sw_attack_ifmac(env->ifname, smac))) {
		rc = rc ? rc : -ENODEV;
		goto out;
	}
	pfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);  /* send only */
	if (pfd < 0) {
		rc = -errno;
		goto out;
	}
	/* the primed ports: a random run outside the ephemeral range */
	ephemeral_range(&lo, &hi);
	base = sw_attack_prime_base(lo, hi, n, rnd32());
	if (!base) {
		rc = -E2BIG;
		goto out;
	}
	reset(env);
	for (size_t i = 0; i < n; i++) {
		a[i].result = SW_ATK_PENDING;
		a[i].counted = 0;
		a[i].err = 0;
		a[i].ms = 0;
		if (a[i].kind != SW_ATK_PRIME_TCP && a[i].kind != SW_ATK_PRIME_UDP && a[i].kind != SW_ATK_ND)
			continue;
		if ((a[i].target.family == AF_INET6 ? env->self6 : env->self4).family != a[i].target.family) {
			a[i].result = SW_ATK_ERROR;
			a[i].err = EAFNOSUPPORT;
			continue;
		}
		s[i].lport = a[i].kind == SW_ATK_ND ? 0 : (uint16_t)(base + i);
		send_forged(env, pfd, ifindex, smac, &a[i], &s[i]);
	}
	/* the follow-ups and the broadcasts are judged by silence: watched
	 * (a silence the probe's own cut-off made fails the run) */
	follow_rounds(env, a, s, n);
	broadcast(env, ifindex, a, n);      /* watched round by round */
	/* last: nothing of the phases above is still in flight (the
	 * follow-ups' SYNs are retransmitted while their sockets live) */
	for (size_t i = 0; i < n; i++) {
		close_fd(&s[i].lst);
		close_fd(&s[i].fd);
		close_fd(&s[i].ctl);
	}
	reset(env);
	egress(env, a, n, SW_ATK_EGRESS);
	reset(env);
	egress(env, a, n, SW_ATK_BUDGET);     /* after: it exhausts the budget */
	reset(env);
	/* the very last: the connection over max_connections quarantines the
	 * probe's address (verify releases it after the run) */
	egress(env, a, n, SW_ATK_CONNS);
out:
	for (size_t i = 0; i < n; i++) {
		close_fd(&s[i].lst);
		close_fd(&s[i].fd);
		close_fd(&s[i].ctl);
	}
	if (pfd >= 0)
		close(pfd);
	free(s);
	return rc;
}
