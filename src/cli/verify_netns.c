// SPDX-License-Identifier: GPL-2.0-or-later
/* verify's throwaway network: anonymous namespaces (gone with their last
 * file descriptor, so nothing is left behind even on a crash), the veth,
 * routed veth and tap a probe stands behind, the sink, and what the
 * attacks need on the host's side (the canary sockets, the nf_tables
 * socket for the counters). See include/cli/verify_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_tun.h>

#include "cli/verify_int.h"
#include "core/ruleset.h"
#include "kernel/nl.h"
#include "kernel/rtlink.h"
#include "lib/addr.h"
#include "lib/control.h"
#include "lib/log.h"

static bool host_has_addr(const struct sw_host *h, const struct sw_prefix *c)
{
	size_t alen = sw_family_addrlen(c->family);

	for (size_t j = 0; j < h->n_addrs; j++)
		if (h->addrs[j].local.family == c->family && !memcmp(h->addrs[j].local.addr, c->addr, alen))
			return true;
	return false;
}

/* A free address in the bridge's subnet of this family: from the top
 * down, not the host's, not in the neighbour table; inside within when
 * it is given (a sandbox's source prefix). */
int sw_verify_free_addr(const struct sw_host *h, const struct sw_link *br, int family,
			const struct sw_prefix *within, struct sw_prefix *out, struct sw_prefix *gw)
{
	size_t alen = sw_family_addrlen(family);

	for (size_t i = 0; i < h->n_addrs; i++) {
		const struct sw_addr *a = &h->addrs[i];
		struct sw_prefix net, range;
		uint8_t nfirst[16], nlast[16];

		/* room for candidates; no IPv6 link-local (it needs a scope) */
		if (a->ifindex != br->ifindex || a->local.family != family ||
		    a->local.len > alen * 8 - 3 || (family == AF_INET6 && a->local.addr[0] == 0xfe &&
						     (a->local.addr[1] & 0xc0) == 0x80))
			continue;
		*gw = a->local;
		gw->len = (uint8_t)(alen * 8);
		net = a->local;
		sw_prefix_mask(&net);
		range = net;
		if (within) {
			if (within->family != family)
				continue;
			if (within->len > net.len) {
				range = *within;
				sw_prefix_mask(&range);
				if (!sw_prefix_contains(&net, &range))
					continue;
			} else if (!sw_prefix_contains(within, &net)) {
				continue;
			}
		}
		sw_prefix_range(&net, nfirst, nlast);
		/* the top of the bridge's subnet minus 2 (as before), or the top
		 * of a smaller source prefix */
		for (unsigned k = within && range.len > net.len ? 0 : 2; k < 64; k++) {
			struct sw_prefix c = range;
			uint8_t first[16];
			int used = 0;
			uint32_t low;

			sw_prefix_range(&range, first, c.addr);
			memcpy(&low, c.addr + alen - 4, 4);
			low = htonl(ntohl(low) - k);
			memcpy(c.addr + alen - 4, &low, 4);
			c.len = (uint8_t)(alen * 8);
			if (!sw_prefix_contains(&range, &c))
				break;
			if (!memcmp(c.addr, nfirst, alen) || !memcmp(c.addr, nlast, alen) ||
			    host_has_addr(h, &c) || sw_rt_neigh_used(br->ifindex, &c, &used) || used)
				continue;
			*out = c;
			out->len = a->local.len;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

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

void sw_verify_go_home(int homefd)
{
	if (setns(homefd, CLONE_NEWNET) < 0) {
		sw_err("cannot return to the host network namespace: %s", strerror(errno));
		exit(2);        /* never go on in the wrong namespace */
	}
}

/* A new, anonymous network namespace: gone when *nsfd is closed. */
int sw_verify_new_ns(int homefd, int *nsfd)
{
	int e;

	if (unshare(CLONE_NEWNET) < 0)
		return -errno;
	*nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	e = errno;
	if (*nsfd >= 0)
		no_dad();       /* /proc/sys/net is the namespace of the opener */
	sw_verify_go_home(homefd);
	return *nsfd < 0 ? -e : 0;
}

/* In the namespace nsfd: lo and ifname up, addr with a default route via
 * gw, or (gw NULL) addr and an on-link default route, which the host's
 * proxy ARP answers (the routed style of Calico and of routed micro-VMs);
 * addr6/gw6 when addr6 is given. */
int sw_verify_ns_setup(int nsfd, int homefd, const char *ifname, const struct sw_prefix *addr,
		       const struct sw_prefix *gw, const struct sw_prefix *addr6,
		       const struct sw_prefix *gw6)
{
	static const struct sw_prefix any4 = { .family = AF_INET };
	int rc;

	if (setns(nsfd, CLONE_NEWNET) < 0)
		return -errno;
	rc = sw_rt_link_up("lo", 0);
	if (!rc)
		rc = sw_rt_link_up(ifname, 0);
	if (!rc)
		rc = sw_rt_addr_add(ifname, addr);
	if (!rc)
		rc = gw ? sw_rt_default_route(ifname, gw) : sw_rt_route_add(ifname, &any4);
	if (!rc && addr6)
		rc = sw_rt_addr_add(ifname, addr6);
	if (!rc && addr6)
		rc = sw_rt_default_route(ifname, gw6);
	sw_verify_go_home(homefd);
	return rc;
}

int sw_verify_links_ready(int nsfd, int homefd, const char *ifname, const char *hname,
			  unsigned ms)
{
	/* a fresh veth drops what it sends until the link watch has run
	 * (it may wait up to a second): the first ARP of a probe that starts
	 * at once is lost, and its retry comes after the probe's timeout */
	for (unsigned waited = 0;; waited += 5) {
		int in = -1, out = -1;

		if (setns(nsfd, CLONE_NEWNET) < 0)
			return -errno;
		sw_rt_link_oper(ifname, &in);
		sw_verify_go_home(homefd);
		sw_rt_link_oper(hname, &out);
		if (in == IF_OPER_UP && out == IF_OPER_UP)
			return 0;
		if (waited >= ms)
			return -ETIMEDOUT;
		usleep(5000);
	}
}

/* The host's side of a routed link: up, proxy ARP on, a /32 route to
 * what sits behind it. */
int sw_verify_routed_host_side(const char *hname, const struct sw_prefix *behind)
{
	char path[96];
	int fd, rc;

	if ((rc = sw_rt_link_up(hname, 0)))
		return rc;
	/* net.ipv4.conf.<hname>.proxy_arp = 1 and
	 * net.ipv4.neigh.<hname>.proxy_delay = 0 (answered at once, not
	 * after up to 0.8 s): our own link only */
	for (int k = 0; k < 2 && !rc; k++) {
		snprintf(path, sizeof(path), k ? "/proc/sys/net/ipv4/neigh/%s/proxy_delay" :
			 "/proc/sys/net/ipv4/conf/%s/proxy_arp", hname);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		rc = write(fd, k ? "0" : "1", 1) == 1 ? 0 : -EIO;
		close(fd);
	}
	if (!rc) {
		struct sw_prefix r = *behind;

		r.len = 32;
		rc = sw_rt_route_add(hname, &r);
	}
	return rc;
}

/* ---- the sink: an unlisted destination for the sandboxes' checks ---------- */

/* May the sink take c? Not the host's, not routed by it to anything but
 * the default route, nothing the config blocks, allows or names. */
static bool sink_candidate(const struct sw_config *cfg, const struct sw_host *h,
			   const struct sw_prefix *c, uint16_t port)
{
	for (size_t i = 0; i < h->n_addrs; i++) {
		struct sw_prefix net = h->addrs[i].local;

		sw_prefix_mask(&net);
		if (net.family == c->family && sw_prefix_contains(&net, c))
			return false;
	}
	for (size_t i = 0; i < h->n_routes; i++)
		if (h->routes[i].dst.family == c->family && sw_prefix_contains(&h->routes[i].dst, c))
			return false;
	for (size_t i = 0; i < cfg->n_destinations; i++)
		if (cfg->destinations[i].family == c->family && sw_prefix_contains(&cfg->destinations[i], c))
			return false;
	if (sw_verify_allowed(cfg, h, c, port, false))
		return false;
	for (size_t b = 0; b < cfg->n_sandboxes; b++) {
		const struct sw_sandbox *x = &cfg->sandboxes[b];

		for (size_t i = 0; i < x->n_allows; i++)
			if (x->allows[i].dst.family == c->family && sw_prefix_contains(&x->allows[i].dst, c))
				return false;
		for (size_t i = 0; i < x->n_sources; i++)
			if (x->sources[i].family == c->family && sw_prefix_contains(&x->sources[i], c))
				return false;
	}
	return true;
}

void sw_verify_sink_close(struct sink *k)
{
	if (k->hname[0])
		sw_rt_link_del(k->hname);
	k->hname[0] = '\0';
	if (k->nsfd >= 0)
		close(k->nsfd);
	k->nsfd = -1;
}

void sw_verify_announce(const char *control, const char *name)
{
	char req[64], reply[256];
	int rc;

	if (!control)
		return;
	snprintf(req, sizeof(req), "verify-link\ntarget=%s", name);
	rc = sw_control_call(control, req, reply, sizeof(reply));
	if (rc || strncmp(reply, "ok\n", 3))
		sw_debug("verify: sandwalld does not leave %s out of its coverage: %s", name,
			 rc ? strerror(-rc) : reply);
}

/* The sink: a throwaway namespace holding one address of TEST-NET-1
 * (192.0.2.0/24, RFC 5737: never routed on the internet) behind a routed
 * veth; nothing listens, so a connection that gets there is answered
 * with a reset (reachable). The host reaching it is the control. */
int sw_verify_sink_setup(const struct sw_config *cfg, const struct sw_host *h, int homefd,
			 unsigned timeout_ms, const char *control, struct sink *k)
{
	struct sw_probe ctl;
	int rc;

	memset(k, 0, sizeof(*k));
	k->nsfd = -1;
	k->port = 80;
	for (unsigned i = 0; i < 254 && !k->addr.family; i++) {
		struct sw_prefix c;

		/* the same address run after run (receipts compare), unless taken */
		sw_prefix_parse("192.0.2.0", &c, NULL);
		c.addr[3] = (uint8_t)(1 + (76 + i) % 254);
		if (sink_candidate(cfg, h, &c, k->port))
			k->addr = c;
	}
	if (!k->addr.family) {
		snprintf(k->why_not, sizeof(k->why_not), "no free address in 192.0.2.0/24 for the sink");
		return -EADDRNOTAVAIL;
	}
	if ((rc = sw_verify_new_ns(homefd, &k->nsfd)))
		goto fail;
	snprintf(k->hname, sizeof(k->hname), "swv%uk", (unsigned)getpid() % 1000000);
	/* a routed veth of nobody's guard: sandwalld would report it */
	sw_verify_announce(control, k->hname);
	rc = sw_rt_veth_add(k->hname, "sink", k->nsfd);
	if (rc) {
		k->hname[0] = '\0';
		goto fail;
	}
	if ((rc = sw_verify_ns_setup(k->nsfd, homefd, "sink", &k->addr, NULL, NULL, NULL)) ||
	    (rc = sw_verify_routed_host_side(k->hname, &k->addr)))
		goto fail;
	/* the control: the host reaches the sink (a fresh link may drop the
	 * first SYN: three tries) */
	for (int tries = 0; tries < 3; tries++) {
		memset(&ctl, 0, sizeof(ctl));
		ctl.addr = k->addr;
		ctl.port = k->port;
		rc = sw_probe_run(&ctl, 1, timeout_ms < 1000 ? 1000 : timeout_ms);
		if (rc || sw_probe_reachable(&ctl))
			break;
	}
	if (!rc && !sw_probe_reachable(&ctl)) {
		snprintf(k->why_not, sizeof(k->why_not), "the host cannot reach verify's sink (%s)",
			 sw_probe_result_name(ctl.result));
		sw_verify_sink_close(k);
		k->addr.family = 0;
		return -EHOSTUNREACH;
	}
	if (!rc)
		return 0;
fail:
	snprintf(k->why_not, sizeof(k->why_not), "cannot set up verify's sink: %s", strerror(-rc));
	sw_verify_sink_close(k);
	k->addr.family = 0;
	return rc;
}

/* ---- where a probe can stand: the guarded links' kinds --------------------- */

/* How verify can attach a throwaway probe next to a guarded link. */
enum site_kind sw_verify_site_of(const struct sw_link *l)
{
	if (l->is_bridge)
		return SITE_BRIDGE;
	if (l->kind == SW_LINK_VETH && l->peer_netns && !l->master_bridge)
		return SITE_ROUTED;
	if (l->kind == SW_LINK_TAP && !l->master_bridge)
		return SITE_TAP;
	return SITE_NONE;
}

/* Why a guarded link of no probe-able kind is not probed. */
const char *sw_verify_no_site_reason(const struct sw_link *l)
{
	static const char *const by_kind[SW_LINK_KIND_COUNT] = {
		[SW_LINK_TUN] = "a tun (layer 3) device: no Ethernet to attach a probe to; use --netns",
		[SW_LINK_MACVLAN] = "a macvlan: verify has no probe for it; use --netns",
		[SW_LINK_IPVLAN] = "an ipvlan: verify has no probe for it; use --netns",
	};

	if (l->master_bridge)
		return "a bridge port: its traffic arrives on (and is probed through) its bridge";
	if ((unsigned)l->kind < SW_LINK_KIND_COUNT && by_kind[l->kind])
		return by_kind[l->kind];
	return "verify attaches probes to bridges, routed veths and taps only; use --netns";
}

/* The name of a throwaway routed veth or tap, so that it takes the path
 * that guards the host's real links of its kind. With auto, a neutral
 * name ("swv" + the pid) classified like any other link of the kind (a
 * tap; a veth whose peer is in another namespace): the kernel guards it
 * by its kind (meta iifkind), as it guards a real tap or routed veth from
 * its first packet, so a break of that path fails verify. Without auto,
 * the real links are guarded by the config's patterns only: a name one
 * of them covers. -ENOENT when neither applies. */
int sw_verify_pick_name(const struct sw_config *cfg, const struct sw_host *h, enum site_kind kind,
			char out[16])
{
	for (size_t i = 0; i <= cfg->n_patterns; i++) {
		char prefix[SW_IFNAMSIZ] = "";
		struct sw_link fake;
		enum sw_guard_why why;
		bool clash = false;
		size_t plen;

		if (i == cfg->n_patterns) {
			if (!cfg->auto_detect)
				continue;
		} else {
			const char *p = cfg->patterns[i];

			if (cfg->auto_detect)
				continue;
			plen = strnlen(p, SW_IFNAMSIZ);
			if (!plen || p[plen - 1] != '*' || plen > 9)
				continue;
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(plen - 1), p);
		}
		plen = strlen(prefix);
		/* prefix + "swv" + the pid, cut at 15 characters */
		{
			char full[48];

			snprintf(full, sizeof(full), "%sswv%u", prefix, (unsigned)getpid());
			snprintf(out, 16, "%.15s", full);
		}
		memset(&fake, 0, sizeof(fake));
		snprintf(fake.name, sizeof(fake.name), "%s", out);
		fake.ifindex = -1;
		fake.netnsid = -1;
		fake.kind = kind == SITE_TAP ? SW_LINK_TAP : SW_LINK_VETH;
		fake.peer_netns = kind != SITE_TAP;
		why = sw_ruleset_guard_why(cfg, &fake);
		if (cfg->auto_detect ? why != (kind == SITE_TAP ? SW_GUARD_TAP : SW_GUARD_ROUTED_VETH)
				     : why != SW_GUARD_PATTERN)
			continue;
		/* a pattern that would cover the uplink or lo is left out of
		 * the kernel's set; a name that exists is taken */
		for (size_t j = 0; j < h->n_links && !clash; j++)
			clash = !strcmp(h->links[j].name, out) ||
				(plen && (h->links[j].uplink || sw_link_is_loopback(&h->links[j])) &&
				 !strncmp(h->links[j].name, prefix, plen));
		if (!clash)
			return 0;
	}
	return -ENOENT;
}

/* The address of a throwaway routed probe: next to what sits behind a
 * guarded link of that kind (a route of it or an address of it), so that
 * it is routed (and NATed) like that link's containers: a free address
 * of the same /24, from the top. */
int sw_verify_routed_addr(const struct sw_config *cfg, const struct sw_host *h, enum site_kind kind,
			  struct sw_prefix *out)
{
	struct sw_prefix seed = { 0 };

	for (size_t i = 0; i < h->n_links && !seed.family; i++) {
		const struct sw_link *l = &h->links[i];

		if (sw_verify_site_of(l) != kind || !sw_ruleset_guarded(cfg, l))
			continue;
		for (size_t r = 0; r < h->n_routes && !seed.family; r++)
			if (h->routes[r].oif == l->ifindex && h->routes[r].dst.family == AF_INET)
				seed = h->routes[r].dst;
		for (size_t a = 0; a < h->n_addrs && !seed.family; a++)
			if (h->addrs[a].ifindex == l->ifindex && h->addrs[a].local.family == AF_INET)
				seed = h->addrs[a].local;
	}
	if (!seed.family)
		return -ENOENT;
	for (unsigned k = 254; k >= 2; k--) {
		struct sw_prefix c = seed;
		bool taken = false;

		c.addr[3] = (uint8_t)k;
		c.len = 32;
		/* nothing the host routes or is connected to: the /32 route
		 * verify adds must not take an address away from anyone */
		taken = host_has_addr(h, &c);
		for (size_t r = 0; r < h->n_routes && !taken; r++)
			taken = h->routes[r].dst.family == AF_INET && sw_prefix_contains(&h->routes[r].dst, &c);
		for (size_t a = 0; a < h->n_addrs && !taken; a++) {
			struct sw_prefix net = h->addrs[a].local;

			sw_prefix_mask(&net);
			taken = net.family == AF_INET && sw_prefix_contains(&net, &c);
		}
		if (!taken) {
			*out = c;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

/* The frame pump of a throwaway tap: what a VMM does with virtio-net.
 * A child process copies every frame between the host's tap and the
 * probe namespace's; it dies with verify (PDEATHSIG) or when killed. */
pid_t sw_verify_tap_pump(int a, int b)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		struct pollfd p[2] = { { .fd = a, .events = POLLIN }, { .fd = b, .events = POLLIN } };
		uint8_t buf[65536];

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			_exit(1);
		for (int i = 0; i < 2; i++) {
			ssize_t r;

			if (!(p[i].revents & POLLIN))
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r > 0 && write(i ? a : b, buf, (size_t)r) < 0)
				continue;       /* a frame lost, as on a wire */
		}
	}
}

/* open("/dev/net/tun") + TUNSETIFF name, tap, no packet info. */
int sw_verify_tap_open(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
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

void sw_verify_attack_close(struct attack_ctx *ac)
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

/* Everything the attacks and the sandbox checks need on the host's side,
 * or an error. */
int sw_verify_attack_setup(const struct sw_config *cfg, const struct sw_host *h, struct attack_ctx *ac,
			   bool attacks)
{
	static struct sw_nl nl;
	int rc;

	memset(ac, 0, sizeof(*ac));
	ac->canary4 = ac->canary6 = ac->control4 = ac->control6 = -1;
	ac->table = cfg->table;
	ac->cfg = cfg;
	ac->attacks = attacks;
	ac->m = malloc(sizeof(*ac->m));
	if (!ac->m)
		return -ENOMEM;
	if ((rc = sw_nl_open(&nl))) {
		sw_err("verify: cannot open the netfilter netlink socket: %s", strerror(-rc));
		goto fail;
	}
	ac->nl = &nl;
	if (attacks && (rc = canary_open(cfg, ac))) {
		sw_err("verify: cannot open the canary socket: %s", strerror(-rc));
		goto fail;
	}
	bcast_list(cfg, h, ac);
	return 0;
fail:
	sw_verify_attack_close(ac);
	return rc;
}
