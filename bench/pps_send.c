// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/pps_send.c: the UDP blaster of bench/pps (built into build/pps_send,
 * never into the source tree).
 *
 *   pps_send DST_ADDR DST_PORT TOTAL_MS SLICE_MS SPORTS NETNS...
 *
 * For each named network namespace (/run/netns/NETNS, one per ruleset under
 * test), opens SPORTS IPv4 UDP sockets inside it (setns, then socket: a
 * socket stays in the namespace it was created in), bound to source ports
 * 40000..40000+SPORTS-1 and connected to DST_ADDR:DST_PORT. Then it blasts
 * in slices of SLICE_MS: one slice per namespace per cycle, the order
 * rotating by one every cycle (cycle k starts with namespace k mod N), until
 * TOTAL_MS have passed. A first cycle is a warm-up and not reported.
 *
 * Datagrams carry 18 bytes of payload: 8 UDP + 20 IPv4 + 14 Ethernet + 18 =
 * 60 bytes on the veth, the 64-byte minimum frame with the FCS a wire adds.
 * sendmmsg() sends BATCH (64) per call, one socket after the other: each
 * source port is one conntrack entry and one flow hash. Single thread: on a
 * veth path the whole forwarding path (bridge, routing, netfilter, the next
 * veth, the sink's prerouting) runs in softirq inline in the sending thread,
 * so this measures one core's worth of packet path.
 *
 * Prints one line per slice: "CYCLE NS_INDEX SENT ERRORS WALL_NS CPU_NS",
 * WALL from CLOCK_MONOTONIC, CPU from CLOCK_THREAD_CPUTIME_ID (without IRQ
 * time accounting it includes the softirq work run inline; what the kernel
 * defers to ksoftirqd is not in it). Exit 0, or 1 with one message on
 * stderr (2 for usage).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sendmmsg, setns */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_NS      16
#define MAX_SPORTS  64
#define BATCH       64
#define PAYLOAD     18
#define SPORT_BASE  40000

static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* SPORTS sockets in namespace NAME, connected to DST; 0 or -errno */
static int open_sockets(const char *name, const struct sockaddr_in *dst,
			unsigned long nsports, int *fds)
{
	char path[256];
	unsigned long i;
	int nsfd, rc = 0;

	if (snprintf(path, sizeof(path), "/run/netns/%s", name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
		rc = -errno;
		fprintf(stderr, "pps_send: netns %s: %s\n", name, strerror(errno));
		goto out;
	}
	for (i = 0; i < nsports; i++) {
		struct sockaddr_in src = { .sin_family = AF_INET,
					   .sin_port = htons((unsigned short)(SPORT_BASE + i)) };

		fds[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fds[i] < 0 ||
		    bind(fds[i], (struct sockaddr *)&src, sizeof(src)) < 0 ||
		    connect(fds[i], (const struct sockaddr *)dst, sizeof(*dst)) < 0) {
			rc = -errno;
			fprintf(stderr, "pps_send: netns %s, port %lu: %s\n",
				name, SPORT_BASE + i, strerror(errno));
			goto out;
		}
	}
out:
	if (nsfd >= 0)
		close(nsfd);
	return rc;
}

int main(int argc, char **argv)
{
	static struct mmsghdr msgs[BATCH];
	static struct iovec iov[BATCH];
	static char payload[PAYLOAD];
	static int fds[MAX_NS][MAX_SPORTS];
	unsigned long port, total_ms, slice_ms, nsports, i, j, k;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	long long start, stop;
	int nns, rc = 1;

	memset(fds, -1, sizeof(fds));
	nns = argc - 6;
	if (argc < 7 || nns > MAX_NS ||
	    inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1 ||
	    parse_uint(argv[2], 1, 65535, &port) ||
	    parse_uint(argv[3], 1, 3600000, &total_ms) ||
	    parse_uint(argv[4], 1, 60000, &slice_ms) ||
	    parse_uint(argv[5], 1, MAX_SPORTS, &nsports)) {
		fprintf(stderr, "usage: pps_send DST_ADDR DST_PORT TOTAL_MS SLICE_MS SPORTS(1..%d) NETNS... (1..%d)\n",
			MAX_SPORTS, MAX_NS);
		return 2;
	}
	dst.sin_port = htons((unsigned short)port);
	memset(payload, 0xa5, sizeof(payload));
	for (j = 0; j < (unsigned long)nns; j++)
		if (open_sockets(argv[6 + j], &dst, nsports, fds[j]) < 0)
			goto out;
	/* connected sockets: no msg_name; every message is the same payload */
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = payload;
		iov[i].iov_len = sizeof(payload);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	start = now_ns(CLOCK_MONOTONIC);
	stop = start + (long long)total_ms * 1000000LL;
	/* cycle 0 is the warm-up (neighbours, conntrack entries, caches) */
	for (k = 0; k == 0 || now_ns(CLOCK_MONOTONIC) < stop; k++) {
		for (j = 0; j < (unsigned long)nns; j++) {
			unsigned long n = (j + k) % (unsigned long)nns;
			unsigned long long sent = 0, errors = 0;
			long long w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			long long end = w0 + (long long)slice_ms * 1000000LL, w1, c1;

			for (i = 0;; i = (i + 1) % nsports) {
				int m = sendmmsg(fds[n][i], msgs, BATCH, 0);

				if (m > 0)
					sent += (unsigned long long)m;
				else if (m < 0 && (errno == ENOBUFS || errno == EAGAIN ||
						   errno == ECONNREFUSED || errno == EINTR))
					errors++;   /* a full queue or a stray ICMP error */
				else if (m < 0) {
					perror("pps_send: sendmmsg");
					goto out;
				}
				if ((w1 = now_ns(CLOCK_MONOTONIC)) >= end)
					break;
			}
			c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			if (k > 0)
				printf("%lu %lu %llu %llu %lld %lld\n", k, n, sent, errors,
				       w1 - w0, c1 - c0);
			else
				printf("# warm-up %lu %llu\n", n, sent);
		}
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	for (j = 0; j < MAX_NS; j++)
		for (i = 0; i < MAX_SPORTS; i++)
			if (fds[j][i] >= 0)
				close(fds[j][i]);
	return rc;
}
