// SPDX-License-Identifier: GPL-2.0-or-later
/* verify: probe the boundary from where the containers are (see
 * include/verify.h). The throwaway namespace is anonymous: it dies with
 * its last file descriptor, so nothing is left behind even on a crash;
 * the veth on the bridge is deleted on every path. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "atomicfile.h"
#include "cgwatch.h"
#include "diff.h"
#include "endpoints.h"
#include "holes.h"
#include "log.h"
#include "model.h"
#include "nl.h"
#include "observe.h"
#include "ruleset.h"
#include "rtlink.h"
#include "verify.h"

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int sw_verify_listening(uint16_t *ports, size_t max, size_t *n)
{
	static const char *const files[] = { "/proc/self/net/tcp", "/proc/self/net/tcp6" };

	*n = 0;
	for (size_t f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "re");
		char line[512];

		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp)) {
			char *colon, *st;
			unsigned port = 0;
			bool dup = false;

			/* "  0: 00000000:1F90 00000000:0000 0A ..." : state 0A = LISTEN */
			colon = strchr(line, ':');
			if (!colon || !(colon = strchr(colon + 1, ':')))
				continue;
			for (int i = 1; i <= 4 && hexval(colon[i]) >= 0; i++)
				port = port * 16 + (unsigned)hexval(colon[i]);
			st = colon + 5;
			while (*st == ' ')
				st++;
			st = strchr(st, ' ');
			if (!st || strncmp(st + 1, "0A", 2) || !port)
				continue;
			for (size_t i = 0; i < *n && !dup; i++)
				dup = ports[i] == port;
			if (!dup && *n < max)
				ports[(*n)++] = (uint16_t)port;
		}
		fclose(fp);
	}
	return 0;
}

static bool allowed(const struct sw_config *cfg, const struct sw_host *host,
		    const struct sw_prefix *a, uint16_t port, bool host_addr)
{
	/* dns = auto opens tcp/53 to the resolvers */
	for (size_t i = 0; cfg->dns == SW_DNS_AUTO && port == 53 && i < host->n_resolvers; i++)
		if (sw_prefix_contains(&host->resolvers[i], a))
			return true;
	for (size_t i = 0; i < cfg->n_allows; i++)
		if (cfg->allows[i].port.proto == IPPROTO_TCP && cfg->allows[i].port.port == port &&
		    sw_prefix_contains(&cfg->allows[i].dst, a))
			return true;
	for (size_t i = 0; host_addr && i < cfg->n_host_ports; i++)
		if (cfg->host_ports[i].proto == IPPROTO_TCP && cfg->host_ports[i].port == port)
			return true;
	return false;
}

static int add(struct sw_verify *v, const char *cat, bool must_block, const struct sw_prefix *a,
	       uint16_t port)
{
	struct sw_verify_target *t;

	for (size_t i = 0; i < v->n; i++)
		if (sw_prefix_equal(&v->t[i].probe.addr, a) && v->t[i].probe.port == port)
			return 0;       /* once, under its first category */
	if (v->n >= SW_VERIFY_MAX)
		return -ENOSPC;
	t = &v->t[v->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->category, sizeof(t->category), "%s", cat);
	t->must_block = must_block;
	t->probe.addr = *a;
	t->probe.port = port;
	return 0;
}

static bool v6_linklocal(const struct sw_prefix *p)
{
	return p->family == AF_INET6 && p->addr[0] == 0xfe && (p->addr[1] & 0xc0) == 0x80;
}

int sw_verify_plan(const struct sw_config *cfg, const struct sw_host *host,
		   const uint16_t *ports, size_t n_ports,
		   char *const *expect_open, size_t n_open,
		   struct sw_verify *v, char *err, size_t errlen)
{
	struct sw_prefix meta[64];
	size_t n_meta = 0;
	int rc;

	v->n = 0;
	/* metadata endpoints (port 80: where IMDS answers) */
	if ((rc = sw_endpoints_metadata(meta, 64, &n_meta)))
		goto fail;
	for (size_t i = 0; i < n_meta; i++)
		/* a link-local v6 endpoint lives on the host's link, not on the
		 * containers' bridge: fe80::/10 is covered by link_local */
		if (!v6_linklocal(&meta[i]) && !allowed(cfg, host, &meta[i], 80, false) &&
		    (rc = add(v, "metadata", true, &meta[i], 80)))
			goto fail;
	/* default gateways (a link-local one lives on the uplink's link only) */
	for (size_t i = 0; i < host->n_gateways; i++)
		if (!v6_linklocal(&host->gateways[i].addr) &&
		    !allowed(cfg, host, &host->gateways[i].addr, 80, false) &&
		    (rc = add(v, "gateways", true, &host->gateways[i].addr, 80)))
			goto fail;
	/* the LAN: the first address of each connected, non-guarded subnet */
	for (size_t i = 0; i < host->n_addrs; i++) {
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);
		struct sw_prefix q = host->addrs[i].local, first;
		size_t alen = sw_family_addrlen(q.family);

		if (!l || sw_ruleset_guarded(cfg, l) || !strcmp(l->name, "lo") || v6_linklocal(&q) ||
		    q.len >= alen * 8 - 1)
			continue;
		sw_prefix_mask(&q);
		first = q;
		first.len = (uint8_t)(alen * 8);
		sw_key_inc(first.addr, alen);
		/* not one of the host's own addresses (those are host targets) */
		for (size_t j = 0; j < host->n_addrs && first.len; j++)
			if (host->addrs[j].local.family == first.family &&
			    !memcmp(host->addrs[j].local.addr, first.addr, alen))
				first.len = 0;
		if (first.len && !allowed(cfg, host, &first, 80, false) &&
		    (rc = add(v, "lan", true, &first, 80)))
			goto fail;
	}
	/* the host: every address x every listening port (1 if none: a closed
	 * port answers RST when nothing blocks it) */
	for (size_t i = 0; i < host->n_addrs; i++) {
		struct sw_prefix a = host->addrs[i].local;
		const struct sw_link *l = sw_host_link(host, host->addrs[i].ifindex);

		a.len = (uint8_t)(sw_family_addrlen(a.family) * 8);
		if ((l && !strcmp(l->name, "lo")) || v6_linklocal(&a) ||
		    (a.family == AF_INET && a.addr[0] == 127))
			continue;
		for (size_t p = 0; p <= n_ports; p++) {
			uint16_t port = p < n_ports ? ports[p] : 1;

			if (p == n_ports && n_ports)
				break;
			if (!allowed(cfg, host, &a, port, true) && (rc = add(v, "host", true, &a, port)) == -ENOSPC) {
				sw_warn("verify: more than %d targets; the rest are not probed", SW_VERIFY_MAX);
				goto canaries;
			}
		}
	}
canaries:
	for (size_t i = 0; i < n_open; i++) {
		char hostpart[128], *colon, *pend;
		struct sw_prefix a;
		long port;

		snprintf(hostpart, sizeof(hostpart), "%s", expect_open[i]);
		colon = strrchr(hostpart, ':');
		if (hostpart[0] == '[') {       /* [v6]:port */
			char *end = strchr(hostpart, ']');

			if (!end || end[1] != ':') {
				colon = NULL;
			} else {
				*end = '\0';
				colon = end + 1;
				memmove(hostpart, hostpart + 1, strlen(hostpart));
			}
		}
		if (!colon) {
			snprintf(err, errlen, "bad --expect-open '%s' (use HOST:PORT or [V6]:PORT)",
				 expect_open[i]);
			return -EINVAL;
		}
		*colon = '\0';
		port = strtol(colon + 1, &pend, 10);
		if (sw_prefix_parse(hostpart, &a, NULL) || a.len != sw_family_addrlen(a.family) * 8 ||
		    port < 1 || port > 65535 || *pend || pend == colon + 1) {
			snprintf(err, errlen, "bad --expect-open '%s' (use an address and a port)",
				 expect_open[i]);
			return -EINVAL;
		}
		for (size_t j = 0; j < v->n; j++)
			if (v->t[j].must_block && sw_prefix_equal(&v->t[j].probe.addr, &a) &&
			    v->t[j].probe.port == port) {
				snprintf(err, errlen, "--expect-open '%s' is a %s target that must be blocked",
					 expect_open[i], v->t[j].category);
				return -EINVAL;
			}
		if (v->n >= SW_VERIFY_MAX)
			return -ENOSPC;
		memset(&v->t[v->n], 0, sizeof(v->t[0]));
		snprintf(v->t[v->n].category, sizeof(v->t[0].category), "expect-open");
		v->t[v->n].probe.addr = a;
		v->t[v->n].probe.port = (uint16_t)port;
		v->n++;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot plan the probes: %s", strerror(-rc));
	return rc;
}

static int add_attack(struct sw_verify *v, const char *cat, enum sw_attack_kind k, bool bcast_mac,
		      const struct sw_prefix *a, uint16_t port, const char *counter)
{
	struct sw_verify_target *t;

	if (v->n >= SW_VERIFY_MAX)
		return -ENOSPC;
	t = &v->t[v->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->category, sizeof(t->category), "%s", cat);
	t->must_block = k != SW_ATK_CANARY;
	t->probe.addr = *a;
	t->probe.addr.len = (uint8_t)(sw_family_addrlen(a->family) * 8);
	t->probe.port = port;
	t->atk.kind = k;
	t->atk.bcast_mac = bcast_mac;
	t->atk.target = t->probe.addr;
	t->atk.port = port;
	snprintf(t->atk.counter, sizeof(t->atk.counter), "%s", counter);
	return 0;
}

/* The first must-block TCP-probe target of this family in one of cats. */
static const struct sw_verify_target *first_target(const struct sw_verify *v, size_t n, int family,
						   const char *const *cats, size_t n_cats)
{
	for (size_t c = 0; c < n_cats; c++)
		for (size_t i = 0; i < n; i++)
			if (v->t[i].must_block && v->t[i].atk.kind == SW_ATK_NONE &&
			    v->t[i].probe.addr.family == family && !strcmp(v->t[i].category, cats[c]))
				return &v->t[i];
	return NULL;
}

int sw_verify_add_attacks(struct sw_verify *v, bool v6, const struct sw_prefix *bcast,
			  size_t n_bcast, bool canary4, bool canary6, uint16_t canary_port)
{
	static const char *const prime_cats[] = { "metadata", "gateways", "host" };
	static const char *const nd_cats[] = { "metadata", "gateways", "lan" };
	static const char *const v4_groups[] = { "255.255.255.255", "224.0.0.1" };
	const size_t n_plan = v->n;
	struct sw_prefix a;
	int rc = 0;

	/* priming: forged source = the target, destination = the probe */
	for (int f = 0; f < (v6 ? 2 : 1) && !rc; f++) {
		int family = f ? AF_INET6 : AF_INET;

		for (size_t c = 0; c < 3 && !rc; c++) {
			const struct sw_verify_target *t = first_target(v, n_plan, family, &prime_cats[c], 1);

			if (!t)
				continue;
			a = t->probe.addr;
			rc = add_attack(v, "spoofed", SW_ATK_PRIME_TCP, false, &a, t->probe.port, "spoofed");
			if (!rc)
				rc = add_attack(v, "spoofed", SW_ATK_PRIME_UDP, false, &a, t->probe.port, "spoofed");
			/* the bridge path: br_netfilter runs the IP hooks on a
			 * flooded frame without any routing check */
			if (!rc && family == AF_INET)
				rc = add_attack(v, "spoofed", SW_ATK_PRIME_TCP, true, &a, t->probe.port, "spoofed");
			if (!rc && family == AF_INET)
				rc = add_attack(v, "spoofed", SW_ATK_PRIME_UDP, true, &a, t->probe.port, "spoofed");
		}
	}
	/* ND with a payload, counted by the category that blocks the target */
	if (v6 && !rc) {
		const struct sw_verify_target *t = first_target(v, n_plan, AF_INET6, nd_cats, 3);

		if (t)
			rc = add_attack(v, "nd", SW_ATK_ND, false, &t->probe.addr, 0, t->category);
	}
	/* broadcast and multicast to the host's canary, after its control */
	if (canary4 && !rc) {
		sw_prefix_parse("127.0.0.1", &a, NULL);
		rc = add_attack(v, "broadcast", SW_ATK_CANARY, false, &a, canary_port, "");
		for (size_t i = 0; i < n_bcast && !rc; i++)
			if (bcast[i].family == AF_INET)
				rc = add_attack(v, "broadcast", SW_ATK_BCAST, false, &bcast[i], canary_port, "");
		for (size_t i = 0; i < 2 && !rc; i++) {
			sw_prefix_parse(v4_groups[i], &a, NULL);
			rc = add_attack(v, "broadcast", SW_ATK_BCAST, false, &a, canary_port, "");
		}
	}
	if (canary6 && !rc) {
		sw_prefix_parse("::1", &a, NULL);
		rc = add_attack(v, "broadcast", SW_ATK_CANARY, false, &a, canary_port, "");
		sw_prefix_parse("ff02::1", &a, NULL);
		if (!rc)
			rc = add_attack(v, "broadcast", SW_ATK_BCAST, false, &a, canary_port, "");
	}
	return rc;
}

bool sw_verify_passed(const struct sw_verify *v)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_probe *p = &v->t[i].probe;

		if (v->t[i].atk.kind != SW_ATK_NONE) {
			if (!sw_attack_held(&v->t[i].atk))
				return false;
			continue;
		}

		/* an attempt that could not be made proves nothing */
		if (v->t[i].must_block ? sw_probe_reachable(p) || p->result == SW_PROBE_ERROR ||
					 p->result == SW_PROBE_PENDING
				       : !sw_probe_reachable(p))
			return false;
	}
	return true;
}

static const char *verdict(const struct sw_verify_target *t)
{
	if (t->atk.kind != SW_ATK_NONE)
		return !sw_attack_held(&t->atk) ? "FAIL" : t->must_block ? "blocked" : "open";
	if (t->probe.result == SW_PROBE_NOROUTE)
		return t->must_block ? "skipped" : "FAIL";
	if (t->must_block)
		return sw_probe_reachable(&t->probe) || t->probe.result == SW_PROBE_ERROR ? "FAIL" : "blocked";
	return sw_probe_reachable(&t->probe) ? "open" : "FAIL";
}

/* The attack in words, for the text table's last column. */
static void attack_words(const struct sw_attack *a, char *buf, size_t len)
{
	switch (a->kind) {
	case SW_ATK_PRIME_TCP:
	case SW_ATK_PRIME_UDP:
		snprintf(buf, len, "%s: forged %s from the target to %s, %s +%llu", sw_attack_kind_name(a->kind),
			 a->kind == SW_ATK_PRIME_TCP ? "SYN" : "datagram",
			 a->bcast_mac ? "ff:ff:ff:ff:ff:ff" : "the bridge MAC", a->counter,
			 (unsigned long long)a->counted);
		break;
	case SW_ATK_ND:
		snprintf(buf, len, "%s: NS hop limit 255 with option 253, %s +%llu", sw_attack_kind_name(a->kind),
			 a->counter, (unsigned long long)a->counted);
		break;
	case SW_ATK_BCAST:
		snprintf(buf, len, "%s: UDP to the host's canary: %s", sw_attack_kind_name(a->kind),
			 a->result == SW_ATK_HEARD ? "it heard it" : a->result == SW_ATK_SILENT ?
			 "it heard nothing" : "no proof (its control failed)");
		break;
	case SW_ATK_CANARY:
		snprintf(buf, len, "%s: the host to its own canary: %s", sw_attack_kind_name(a->kind),
			 a->result == SW_ATK_HEARD ? "heard (the canary works)" : "NOT heard");
		break;
	default:
		buf[0] = '\0';
	}
	if (a->err && a->result != SW_ATK_COUNTED && a->result != SW_ATK_SILENT &&
	    a->result != SW_ATK_HEARD) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (%s)", strerror(a->err));
	}
}

void sw_verify_print(const struct sw_verify *v, size_t run, FILE *f, bool json)
{
	char a[SW_ADDR_STRLEN];

	if (json) {
		fprintf(f, "%s{\"from\":", run ? "," : "");
		sw_json_str(f, v->from);
		fprintf(f, ",\"passed\":%s,\"targets\":[", sw_verify_passed(v) ? "true" : "false");
		for (size_t i = 0; i < v->n; i++) {
			const struct sw_verify_target *t = &v->t[i];
			bool atk = t->atk.kind != SW_ATK_NONE;

			sw_prefix_format(&t->probe.addr, a, sizeof(a));
			fprintf(f, "%s{\"category\":\"%s\",\"address\":\"%s\",\"port\":%u,"
				"\"must_block\":%s,\"result\":\"%s\",\"verdict\":\"%s\",\"ms\":%u",
				i ? "," : "", t->category, a, t->probe.port,
				t->must_block ? "true" : "false",
				atk ? sw_attack_result_name(t->atk.result) : sw_probe_result_name(t->probe.result),
				verdict(t), atk ? t->atk.ms : t->probe.ms);
			if (atk)
				fprintf(f, ",\"attack\":\"%s\"", sw_attack_kind_name(t->atk.kind));
			if (t->atk.kind == SW_ATK_PRIME_TCP || t->atk.kind == SW_ATK_PRIME_UDP)
				fprintf(f, ",\"frame_to\":\"%s\"", t->atk.bcast_mac ? "broadcast-mac" : "bridge-mac");
			if (t->atk.counter[0])
				fprintf(f, ",\"counter\":\"%s\",\"counted\":%llu", t->atk.counter,
					(unsigned long long)t->atk.counted);
			fputc('}', f);
		}
		fprintf(f, "]}");
		return;
	}
	fprintf(f, "probing from %s\n%-12s %-40s %-8s %-10s %-5s %s\n", v->from, "category",
		"target", "verdict", "result", "ms", "attack");
	for (size_t i = 0; i < v->n; i++) {
		const struct sw_verify_target *t = &v->t[i];
		bool atk = t->atk.kind != SW_ATK_NONE;
		char target[SW_ADDR_STRLEN + 16], words[160];

		sw_prefix_format(&t->probe.addr, a, sizeof(a));
		snprintf(target, sizeof(target), t->probe.addr.family == AF_INET6 ? "[%s]:%u" : "%s:%u",
			 a, t->probe.port);
		if (!atk) {
			fprintf(f, "%-12s %-40s %-8s %-10s %u\n", t->category, target, verdict(t),
				sw_probe_result_name(t->probe.result), t->probe.ms);
			continue;
		}
		attack_words(&t->atk, words, sizeof(words));
		fprintf(f, "%-12s %-40s %-8s %-10s %-5u %s\n", t->category, target, verdict(t),
			sw_attack_result_name(t->atk.result), t->atk.ms, words);
	}
	fprintf(f, "%s: %s\n", v->from, sw_verify_passed(v) ? "HELD (every target blocked, every canary open)"
							    : "NOT HELD (see FAIL lines)");
}

/* Probe from the namespace behind fd (and run the attacks when env is
 * given), then come back. */
static int probe_in(int nsfd, int homefd, struct sw_verify *v, unsigned timeout_ms,
		    const struct sw_attack_env *env)
{
	static struct sw_probe p[SW_VERIFY_MAX];
	static struct sw_attack a[SW_VERIFY_MAX];
	size_t np = 0, na = 0;
	int rc;

	for (size_t i = 0; i < v->n; i++) {
		if (v->t[i].atk.kind == SW_ATK_NONE)
			p[np++] = v->t[i].probe;
		else
			a[na++] = v->t[i].atk;
	}
	if (setns(nsfd, CLONE_NEWNET) < 0)
		return -errno;
	rc = sw_probe_run(p, np, timeout_ms);
	if (!rc && env && na)
		rc = sw_attack_run(env, a, na);
	if (setns(homefd, CLONE_NEWNET) < 0) {
		sw_err("cannot return to the host network namespace: %s", strerror(errno));
		exit(2);        /* never go on in the wrong namespace */
	}
	np = na = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (v->t[i].atk.kind == SW_ATK_NONE)
			v->t[i].probe = p[np++];
		else
			v->t[i].atk = a[na++];
	}
	return rc;
}

/* --uid / --cgroup: the output path ([guard] users, cgroups). A child
 * takes the identity (writes itself into the cgroup's cgroup.procs, drops
 * to the uid and gid), probes from the host's own namespace and sends the
 * results back through a pipe. The plan gains the host's loopback
 * (127.0.0.1 and ::1 x every listening port not in host_ports), which the
 * output path blocks too. */
static int join_cgroup(const char *cg)
{
	char root[4096], path[8192], pid[24];
	int fd, rc = 0;

	while (*cg == '/')
		cg++;
	if (!*cg || strstr(cg, ".."))
		return -EINVAL;
	if ((rc = sw_cg_root(root, sizeof(root))))
		return rc;
	snprintf(path, sizeof(path), "%s/%s/cgroup.procs", root, cg);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, pid, strlen(pid)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int plan_loopback(const struct sw_config *cfg, const struct sw_host *host,
			 const uint16_t *ports, size_t n_ports, struct sw_verify *v)
{
	static const char *const lo[] = { "127.0.0.1", "::1" };
	int rc;

	for (size_t i = 0; i < 2; i++) {
		struct sw_prefix a;

		sw_prefix_parse(lo[i], &a, NULL);
		for (size_t p = 0; p < n_ports; p++)
			if (!allowed(cfg, host, &a, ports[p], true) &&
			    (rc = add(v, "host", true, &a, ports[p])) == -ENOSPC)
				return rc;
	}
	return 0;
}

/* Exactly len bytes, or -EIO (the child died or wrote less). */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		got += (size_t)r;
	}
	return 0;
}

static int probe_as(struct sw_verify *v, const struct sw_verify_opts *o)
{
	static struct sw_probe p[SW_VERIFY_MAX];
	size_t np = 0;
	int fds[2], rc = 0, status;
	pid_t pid;

	for (size_t i = 0; i < v->n; i++)
		if (v->t[i].atk.kind == SW_ATK_NONE)
			p[np++] = v->t[i].probe;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		if (o->cgroup)
			rc = join_cgroup(o->cgroup);
		if (!rc && o->has_uid && (setgroups(0, NULL) < 0 || setgid(o->uid) < 0 ||
					  setuid(o->uid) < 0))
			rc = -errno;
		if (!rc)
			rc = sw_probe_run(p, np, o->timeout_ms);
		if (write(fds[1], &rc, sizeof(rc)) != sizeof(rc) ||
		    (!rc && write(fds[1], p, np * sizeof(*p)) != (ssize_t)(np * sizeof(*p))))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read_full(fds[0], &rc, sizeof(rc)))
		rc = -EIO;
	else if (!rc && read_full(fds[0], p, np * sizeof(*p)))
		rc = -EIO;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (rc)
		return rc;
	np = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->t[i].atk.kind == SW_ATK_NONE)
			v->t[i].probe = p[np++];
	return 0;
}

/* What the attacks need from the host's side (NULL: no attacks). */
struct attack_ctx {
	struct sw_nl *nl;               /* nfnetlink, in the host's namespace */
	const char *table;
	struct sw_model *m;             /* scratch for the counters */
	int canary4, canary6, control4, control6;
	uint16_t canary_port;
	struct sw_prefix bcast[32];     /* the guarded bridges' directed broadcasts */
	size_t n_bcast;
};

static int count_cb(void *arg, const char *counter, uint64_t *pkts)
{
	const struct attack_ctx *ac = arg;
	int rc = sw_observe_counters(ac->nl, ac->table, ac->m), i;

	if (!rc) {
		i = sw_model_find_counter(ac->m, counter);
		if (!ac->m->has_table || i < 0)
			rc = -ENOENT;
		else
			*pkts = ac->m->counter_pkts[i];
	}
	sw_model_free(ac->m);
	return rc;
}

/* A free address in the bridge's subnet of this family: from the top
 * down, not the host's, not in the neighbour table. */
static int free_addr(const struct sw_host *h, const struct sw_link *br, int family,
		     struct sw_prefix *out, struct sw_prefix *gw)
{
	size_t alen = sw_family_addrlen(family);

	for (size_t i = 0; i < h->n_addrs; i++) {
		const struct sw_addr *a = &h->addrs[i];
		struct sw_prefix net;

		/* room for candidates; no IPv6 link-local (it needs a scope) */
		if (a->ifindex != br->ifindex || a->local.family != family ||
		    a->local.len > alen * 8 - 3 || (family == AF_INET6 && a->local.addr[0] == 0xfe &&
						     (a->local.addr[1] & 0xc0) == 0x80))
			continue;
		*gw = a->local;
		gw->len = (uint8_t)(alen * 8);
		net = a->local;
		sw_prefix_mask(&net);
		for (unsigned k = 2; k < 64; k++) {
			struct sw_prefix c = net;
			uint8_t first[16];
			bool mine = false;
			int used = 0;
			uint32_t low;

			/* the last address of the subnet, minus k (stays inside:
			 * the subnet has at least 8 addresses) */
			sw_prefix_range(&net, first, c.addr);
			memcpy(&low, c.addr + alen - 4, 4);
			low = htonl(ntohl(low) - k);
			memcpy(c.addr + alen - 4, &low, 4);
			c.len = (uint8_t)(alen * 8);
			if (!sw_prefix_contains(&net, &c))
				break;
			for (size_t j = 0; j < h->n_addrs && !mine; j++)
				mine = h->addrs[j].local.family == family &&
				       !memcmp(h->addrs[j].local.addr, c.addr, alen);
			if (mine || sw_rt_neigh_used(br->ifindex, &c, &used) || used)
				continue;
			*out = c;
			out->len = a->local.len;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

/* One throwaway namespace on one bridge. */
/* In a fresh namespace: its interfaces get usable IPv6 link-local
 * addresses at once (ff02::1 is sent from one), like the probe's global
 * address (nodad). */
static void no_dad(void)
{
	static const char *const files[] = {
		"/proc/sys/net/ipv6/conf/default/accept_dad", "/proc/sys/net/ipv6/conf/all/accept_dad",
	};

	for (size_t i = 0; i < 2; i++) {
		int fd = open(files[i], O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (write(fd, "0", 1) != 1)
				sw_debug("verify: cannot write %s", files[i]);
			close(fd);
		}
	}
}

static int probe_bridge(const struct sw_host *h, const struct sw_link *br, int homefd,
			struct sw_verify *v, unsigned timeout_ms, struct attack_ctx *ac)
{
	struct sw_attack_env env;
	char hname[16], cname[16], a[SW_ADDR_STRLEN];
	struct sw_prefix addr, gw, addr6, gw6;
	bool v6;
	int nsfd = -1, rc;

	if ((rc = free_addr(h, br, AF_INET, &addr, &gw)))
		return rc;
	/* IPv6 too where the bridge has a global or ULA subnet */
	v6 = free_addr(h, br, AF_INET6, &addr6, &gw6) == 0;
	snprintf(hname, sizeof(hname), "swv%uh", (unsigned)getpid() % 1000000);
	snprintf(cname, sizeof(cname), "swv%uc", (unsigned)getpid() % 1000000);
	/* a new, anonymous namespace: gone when nsfd is closed */
	if (unshare(CLONE_NEWNET) < 0)
		return -errno;
	nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ac)
		no_dad();       /* /proc/sys/net is the namespace of the opener */
	if (setns(homefd, CLONE_NEWNET) < 0) {
		sw_err("cannot return to the host network namespace: %s", strerror(errno));
		exit(2);
	}
	if (nsfd < 0)
		return -errno;
	rc = sw_rt_veth_add(hname, cname, nsfd);
	if (!rc)
		rc = sw_rt_link_up(hname, br->ifindex);
	if (!rc) {
		if (setns(nsfd, CLONE_NEWNET) < 0) {
			rc = -errno;
		} else {
			rc = sw_rt_link_up("lo", 0);
			if (!rc)
				rc = sw_rt_link_up(cname, 0);
			if (!rc)
				rc = sw_rt_addr_add(cname, &addr);
			if (!rc)
				rc = sw_rt_default_route(cname, &gw);
			if (!rc && v6)
				rc = sw_rt_addr_add(cname, &addr6);
			if (!rc && v6)
				rc = sw_rt_default_route(cname, &gw6);
			if (setns(homefd, CLONE_NEWNET) < 0) {
				sw_err("cannot return to the host network namespace: %s", strerror(errno));
				exit(2);
			}
		}
	}
	if (!rc) {
		sw_prefix_format(&addr, a, sizeof(a));
		if (v6) {
			char a6[SW_ADDR_STRLEN];

			sw_prefix_format(&addr6, a6, sizeof(a6));
			snprintf(v->from, sizeof(v->from), "bridge %s as %s and %s", br->name, a, a6);
		} else {
			snprintf(v->from, sizeof(v->from), "bridge %s as %s", br->name, a);
		}
		if (ac) {
			memset(&env, 0, sizeof(env));
			snprintf(env.ifname, sizeof(env.ifname), "%s", cname);
			env.self4 = addr;
			if (v6)
				env.self6 = addr6;
			env.canary4 = ac->canary4;
			env.canary6 = ac->canary6;
			env.control4 = ac->control4;
			env.control6 = ac->control6;
			env.canary_port = ac->canary_port;
			env.timeout_ms = timeout_ms;
			/* silence is waited for: long enough on a busy host */
			env.evidence_ms = timeout_ms < 250 ? 250 : timeout_ms > 1000 ? 1000 : timeout_ms;
			env.count = count_cb;
			env.count_arg = ac;
			/* the frames go to the bridge's own MAC, as a container's do */
			rc = sw_attack_ifmac(br->name, env.gwmac);
			if (rc)
				sw_err("bridge %s: cannot read its MAC address: %s", br->name, strerror(-rc));
			else if (sw_verify_add_attacks(v, v6, ac->bcast, ac->n_bcast, ac->canary4 >= 0,
						       ac->canary6 >= 0, ac->canary_port))
				sw_warn("verify: more than %d targets; not every attack is run", SW_VERIFY_MAX);
		}
		/* let the bridge port leave its learning state */
		usleep(50 * 1000);
		if (!rc)
			rc = probe_in(nsfd, homefd, v, timeout_ms, ac ? &env : NULL);
	}
	sw_rt_link_del(hname);
	/* the host learnt the probe's addresses on the bridge: forget them,
	 * or they would look taken to the next run */
	sw_rt_neigh_del(br->ifindex, &addr);
	if (v6)
		sw_rt_neigh_del(br->ifindex, &addr6);
	close(nsfd);
	return rc;
}

static void record(const char *path, const char *json)
{
	char dir[SW_PATH_MAX], *slash;

	if (!path || !*path)
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	if (sw_atomic_write(path, json, strlen(json), 0600))
		sw_debug("cannot record the verify result in %s", path);
}

void sw_verify_print_holes(const struct sw_config *cfg, const struct sw_host *host, FILE *f,
			   bool json)
{
	struct sw_hole h[SW_MAX_HOLES];
	char e[128], p[SW_ADDR_STRLEN];
	bool first = true;

	if (json)
		fputs("\"holes\":[", f);
	for (size_t i = 0; i < cfg->n_allows; i++) {
		size_t n = cfg->allows[i].reopen ?
			   sw_allow_holes(cfg, host, &cfg->allows[i], h, SW_MAX_HOLES) : 0;

		if (!n)
			continue;
		/* the entry is an address and tcp/udp/PORT: nothing to escape */
		sw_allow_format(&cfg->allows[i], e, sizeof(e));
		if (json)
			fprintf(f, "%s{\"entry\":\"%s\",\"line\":%u,\"reopens\":[", first ? "" : ",",
				e, cfg->allows[i].line);
		else
			fprintf(f, "%s%s:%u: %s reopens", first ? "deliberate holes ([allow] "
				"destinations ... reopen):\n" : "", cfg->path, cfg->allows[i].line, e);
		for (size_t j = 0; j < n; j++) {
			sw_prefix_format(&h[j].blocked, p, sizeof(p));
			if (json)
				fprintf(f, "%s\"%s\"", j ? "," : "", sw_category_name(h[j].cat));
			else
				fprintf(f, "%s %s (%s)", j ? "," : "", sw_category_name(h[j].cat), p);
		}
		fputs(json ? "]}" : "\n", f);
		first = false;
	}
	if (json)
		fputs("],", f);
}

static bool host_port_udp(const struct sw_config *cfg, uint16_t port)
{
	for (size_t i = 0; i < cfg->n_host_ports; i++)
		if (cfg->host_ports[i].proto == IPPROTO_UDP && cfg->host_ports[i].port == port)
			return true;
	return false;
}

/* The canary: UDP sockets bound to 0.0.0.0:PORT and [::]:PORT in the host's
 * namespace (a free port that [allow] host_ports does not open), and
 * unbound sockets for the control. IPv6 is optional. */
static int canary_open(const struct sw_config *cfg, struct attack_ctx *ac)
{
	int one = 1;

	for (int tries = 0; tries < 16; tries++) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
		socklen_t sl = sizeof(s4);

		ac->canary4 = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (ac->canary4 < 0)
			return -errno;
		if (bind(ac->canary4, (struct sockaddr *)&s4, sizeof(s4)) < 0 ||
		    getsockname(ac->canary4, (struct sockaddr *)&s4, &sl) < 0) {
			int e = -errno;

			close(ac->canary4);
			ac->canary4 = -1;
			return e;
		}
		ac->canary_port = ntohs(s4.sin_port);
		if (host_port_udp(cfg, ac->canary_port)) {
			close(ac->canary4);
			ac->canary4 = -1;
			continue;
		}
		ac->canary6 = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		s6.sin6_port = s4.sin_port;
		if (ac->canary6 >= 0 &&
		    (setsockopt(ac->canary6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) ||
		     bind(ac->canary6, (struct sockaddr *)&s6, sizeof(s6)) < 0)) {
			bool busy = errno == EADDRINUSE;

			close(ac->canary6);
			ac->canary6 = -1;
			if (busy) {
				close(ac->canary4);
				ac->canary4 = -1;
				continue;
			}
		}
		ac->control4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (ac->canary6 >= 0)
			ac->control6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		return 0;
	}
	return -EADDRINUSE;
}

static void attack_close(struct attack_ctx *ac)
{
	int *fds[] = { &ac->canary4, &ac->canary6, &ac->control4, &ac->control6 };

	for (size_t i = 0; i < sizeof(fds) / sizeof(*fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (ac->nl) {
		sw_nl_close(ac->nl);
		ac->nl = NULL;
	}
	free(ac->m);
	ac->m = NULL;
}

/* The directed broadcast addresses of every guarded bridge's IPv4
 * subnets (172.17.255.255, and the other bridges' too: the host takes
 * those as well). */
static void bcast_list(const struct sw_config *cfg, const struct sw_host *h, struct attack_ctx *ac)
{
	const size_t max = sizeof(ac->bcast) / sizeof(*ac->bcast);

	ac->n_bcast = 0;
	for (size_t i = 0; i < h->n_addrs && ac->n_bcast < max; i++) {
		const struct sw_link *l = sw_host_link(h, h->addrs[i].ifindex);
		struct sw_prefix net = h->addrs[i].local, b;
		uint8_t first[16];
		bool dup = false;

		if (!l || !l->is_bridge || !sw_ruleset_guarded(cfg, l) || net.family != AF_INET ||
		    net.len > 30)
			continue;
		sw_prefix_mask(&net);
		b = net;
		sw_prefix_range(&net, first, b.addr);
		b.len = 32;
		for (size_t j = 0; j < ac->n_bcast && !dup; j++)
			dup = sw_prefix_equal(&ac->bcast[j], &b);
		if (!dup)
			ac->bcast[ac->n_bcast++] = b;
	}
}

/* Everything the attacks need on the host's side, or an error. */
static int attack_setup(const struct sw_config *cfg, const struct sw_host *h, struct attack_ctx *ac)
{
	static struct sw_nl nl;
	int rc;

	memset(ac, 0, sizeof(*ac));
	ac->canary4 = ac->canary6 = ac->control4 = ac->control6 = -1;
	ac->table = cfg->table;
	ac->m = malloc(sizeof(*ac->m));
	if (!ac->m)
		return -ENOMEM;
	if ((rc = sw_nl_open(&nl))) {
		sw_err("verify: cannot open the netfilter netlink socket: %s", strerror(-rc));
		goto fail;
	}
	ac->nl = &nl;
	if ((rc = canary_open(cfg, ac))) {
		sw_err("verify: cannot open the canary socket: %s", strerror(-rc));
		goto fail;
	}
	bcast_list(cfg, h, ac);
	return 0;
fail:
	attack_close(ac);
	return rc;
}

int sw_verify_cmd(const struct sw_config *cfg, const struct sw_verify_opts *o)
{
	static struct attack_ctx ac;
	bool attacks = !o->no_attacks && !o->pid && !o->netns && !o->has_uid && !o->cgroup;
	static struct sw_host host;
	static struct sw_verify plan, run;
	uint16_t ports[128];
	size_t n_ports = 0, runs = 0;
	char err[SW_ERRLEN], *json = NULL;
	size_t json_len = 0;
	FILE *jf;
	bool all = true;
	int homefd, rc;

	if ((rc = sw_host_read(&host))) {
		sw_err("cannot read the host's links, addresses and routes: %s", strerror(-rc));
		return 2;
	}
	sw_verify_listening(ports, 128, &n_ports);
	if (sw_verify_plan(cfg, &host, ports, n_ports, o->expect_open, o->n_open, &plan,
			   err, sizeof(err))) {
		sw_err("%s", err);
		return 2;
	}
	if (attacks && attack_setup(cfg, &host, &ac))
		return 2;
	homefd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (homefd < 0) {
		sw_err("cannot open the host network namespace: %s", strerror(errno));
		if (attacks)
			attack_close(&ac);
		return 2;
	}
	jf = open_memstream(&json, &json_len);
	if (!jf) {
		close(homefd);
		if (attacks)
			attack_close(&ac);
		return 2;
	}
	fprintf(jf, "{\"time\":%lld,\"attacks\":%s,", (long long)time(NULL), attacks ? "true" : "false");
	if (!o->json && !attacks)
		printf("attacks: not run (%s)\n", o->no_attacks ? "--no-attacks" :
		       "only from the throwaway namespaces, not with --pid or --netns");
	sw_verify_print_holes(cfg, &host, jf, true);
	if (!o->json)
		sw_verify_print_holes(cfg, &host, stdout, false);
	fprintf(jf, "\"runs\":[");
	if (o->has_uid || o->cgroup) {
		run = plan;
		if (o->cgroup && o->has_uid)
			snprintf(run.from, sizeof(run.from), "uid %u in cgroup %s", o->uid, o->cgroup);
		else if (o->cgroup)
			snprintf(run.from, sizeof(run.from), "cgroup %s", o->cgroup);
		else
			snprintf(run.from, sizeof(run.from), "uid %u", o->uid);
		rc = plan_loopback(cfg, &host, ports, n_ports, &run);
		if (!rc)
			rc = probe_as(&run, o);
		if (rc)
			sw_err("%s: cannot probe: %s", run.from, strerror(-rc));
		else {
			sw_verify_print(&run, runs, o->json ? jf : stdout, o->json);
			if (!o->json)
				sw_verify_print(&run, runs, jf, true);
			all = sw_verify_passed(&run);
			runs++;
		}
	} else if (o->pid || o->netns) {
		char path[64];
		const char *nspath = o->netns;
		int fd;

		if (o->pid) {
			snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)o->pid);
			nspath = path;
		}
		fd = open(nspath, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			sw_err("cannot open %s: %s", nspath, strerror(errno));
			rc = -errno;
		} else {
			run = plan;
			snprintf(run.from, sizeof(run.from), "%s %s", o->pid ? "pid" : "netns",
				 o->pid ? path + 6 : nspath);
			if (o->pid)
				snprintf(run.from, sizeof(run.from), "pid %d", (int)o->pid);
			rc = probe_in(fd, homefd, &run, o->timeout_ms, NULL);
			close(fd);
			if (!rc) {
				sw_verify_print(&run, runs, o->json ? jf : stdout, o->json);
				if (!o->json)
					sw_verify_print(&run, runs, jf, true);
				all = sw_verify_passed(&run);
				runs++;
			}
		}
	} else {
		for (size_t i = 0; i < host.n_links; i++) {
			const struct sw_link *l = &host.links[i];

			if (!l->is_bridge || !l->up || !sw_ruleset_guarded(cfg, l))
				continue;
			run = plan;
			rc = probe_bridge(&host, l, homefd, &run, o->timeout_ms, attacks ? &ac : NULL);
			if (rc == -EADDRNOTAVAIL) {
				sw_warn("bridge %s: no IPv4 subnet with a free address; not probed", l->name);
				rc = 0;
				continue;
			}
			if (rc) {
				sw_err("bridge %s: cannot set up the probe namespace: %s", l->name,
				       strerror(-rc));
				break;
			}
			sw_verify_print(&run, runs, o->json ? jf : stdout, o->json);
			if (!o->json)
				sw_verify_print(&run, runs, jf, true);
			all &= sw_verify_passed(&run);
			runs++;
		}
		if (!rc && !runs) {
			sw_err("no guarded bridge is up with an IPv4 subnet; use --pid or --netns");
			rc = -ENOENT;
		}
	}
	fprintf(jf, "],\"passed\":%s}", !rc && all ? "true" : "false");
	fclose(jf);
	if (o->json && json)
		printf("%s\n", json);
	if (!rc)
		record(o->record, json);
	free(json);
	close(homefd);
	if (attacks)
		attack_close(&ac);
	if (rc)
		return 2;
	return all ? 0 : 1;
}
