// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/pps_send.c: the UDP blaster of bench/pps (built into build/pps_send,
 * never into the source tree).
 *
 *   pps_send DST_ADDR DST_PORT MILLISECONDS [SPORTS [PAYLOAD [BATCH]]]
 *
 * Opens SPORTS (default 16) IPv4 UDP sockets bound to source ports
 * 40000..40000+SPORTS-1, each connected to DST_ADDR:DST_PORT, and for
 * MILLISECONDS sends PAYLOAD-byte datagrams (default 18: 8 UDP + 20 IPv4 + 14
 * Ethernet + 18 = 60 bytes on the veth, 64 with the FCS a wire would add)
 * with sendmmsg(), BATCH (default 64) per call, one socket after the other.
 * Each source port is one conntrack entry and one flow hash. Single thread:
 * on a veth path the whole forwarding path (bridge, routing, netfilter, the
 * next veth, the sink's prerouting) runs in softirq on the sending CPU, so
 * this measures one core's worth of packet path.
 *
 * Prints one line: "sent N errors E seconds S cpu C": S measured with
 * CLOCK_MONOTONIC, C the process's CPU time (CLOCK_PROCESS_CPUTIME_ID, in
 * seconds). Without IRQ time accounting, C includes the softirq work the
 * kernel runs inline when the send re-enables bottom halves: the forwarding
 * path; what it defers to ksoftirqd is not in C.
 * Exit 0, or 1 with one message on stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sendmmsg */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SPORTS  256
#define MAX_PAYLOAD 1472
#define MAX_BATCH   1024
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

static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct mmsghdr msgs[MAX_BATCH];
	static struct iovec iov[MAX_BATCH];
	static char payload[MAX_PAYLOAD];
	int fds[MAX_SPORTS];
	unsigned long port, ms, nsports = 16, plen = 18, batch = 64, i;
	unsigned long long sent = 0, errors = 0;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	double t0, t1, c0, c1, end;
	int nfds = 0, rc = 1;

	if (argc < 4 || argc > 7 ||
	    inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1 ||
	    parse_uint(argv[2], 1, 65535, &port) ||
	    parse_uint(argv[3], 1, 3600000, &ms) ||
	    (argc > 4 && parse_uint(argv[4], 1, MAX_SPORTS, &nsports)) ||
	    (argc > 5 && parse_uint(argv[5], 0, MAX_PAYLOAD, &plen)) ||
	    (argc > 6 && parse_uint(argv[6], 1, MAX_BATCH, &batch))) {
		fprintf(stderr, "usage: pps_send DST_ADDR DST_PORT MILLISECONDS [SPORTS(1..%d) [PAYLOAD(0..%d) [BATCH(1..%d)]]]\n",
			MAX_SPORTS, MAX_PAYLOAD, MAX_BATCH);
		return 2;
	}
	dst.sin_port = htons((unsigned short)port);
	memset(payload, 0xa5, sizeof(payload));

	for (i = 0; i < nsports; i++) {
		struct sockaddr_in src = { .sin_family = AF_INET,
					   .sin_port = htons((unsigned short)(SPORT_BASE + i)) };
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			perror("pps_send: socket");
			goto out;
		}
		fds[nfds++] = fd;
		if (bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0 ||
		    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			fprintf(stderr, "pps_send: bind/connect port %lu: %s\n",
				SPORT_BASE + i, strerror(errno));
			goto out;
		}
	}
	/* connected sockets: no msg_name; every message is the same payload */
	for (i = 0; i < batch; i++) {
		iov[i].iov_base = payload;
		iov[i].iov_len = plen;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_s(CLOCK_MONOTONIC);
	end = t0 + (double)ms / 1e3;
	for (i = 0;; i = (i + 1) % (unsigned long)nfds) {
		int n = sendmmsg(fds[i], msgs, (unsigned int)batch, 0);

		if (n > 0)
			sent += (unsigned long long)n;
		else if (n < 0 && (errno == ENOBUFS || errno == EAGAIN ||
				   errno == ECONNREFUSED || errno == EINTR))
			errors++;   /* a full queue or a stray ICMP error: keep going */
		else if (n < 0) {
			perror("pps_send: sendmmsg");
			goto out;
		}
		if (i == (unsigned long)nfds - 1 && now_s(CLOCK_MONOTONIC) >= end)
			break;
	}
	t1 = now_s(CLOCK_MONOTONIC);
	c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	printf("sent %llu errors %llu seconds %.6f cpu %.6f\n", sent, errors, t1 - t0, c1 - c0);
	rc = 0;
out:
	while (nfds > 0)
		close(fds[--nfds]);
	return rc;
}
