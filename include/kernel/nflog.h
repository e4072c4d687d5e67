/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NFLOG_H
#define SANDWALL_NFLOG_H
/* nflog: blocked attempts. The block_<category> chains send drops (rate
 * limited in the kernel) to an NFLOG group with the prefix
 * "sandwall:<category> " (a sandbox's policy: "sandwall:<category>:<name> ");
 * this module binds that group through
 * nfnetlink_log and turns each packet into a struct sw_blocked. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/addr.h"

struct mnl_socket;

struct sw_blocked {
	char category[32];          /* "metadata", "egress", "budget" */
	char sandbox[24];           /* egress and budget: the [sandbox NAME] ("" else) */
	int family;                 /* AF_INET / AF_INET6 */
	uint8_t src[16], dst[16];
	uint8_t proto;              /* IPPROTO_* */
	uint16_t dport;             /* 0 when not TCP/UDP */
	uint32_t iif;               /* ifindex (0: none, e.g. the output hook) */
	uint32_t oif;               /* ifindex of the output device (0: none) */
	uint8_t hook;               /* NF_INET_* the packet was logged at (NFULA_PACKET_HDR) */
	bool has_hook;
	/* the owner of the packet's socket (NFULA_UID/GID: nfnetlink_log
	 * sends them whenever the packet has a full socket with a file; no
	 * flag on the log rule is needed). Only meaningful at the output
	 * hook: at input, early demux may have attached the receiving
	 * socket. The cgroup is not carried by NFLOG. */
	bool has_uid, has_gid;
	uint32_t uid, gid;
	/* the copied packet (NFULA_PAYLOAD, network header first): inside the
	 * datagram, its length the attribute's own (checked against the
	 * message); valid only during the callback. NULL, 0 when none. */
	const uint8_t *payload;
	size_t payload_len;
};

/* The packet came from a host socket ([guard] users, [guard] cgroups):
 * logged at the output hook. */
bool sw_blocked_is_output(const struct sw_blocked *b);

/* Parse one datagram of NFULNL_MSG_PACKET messages; entries whose prefix
 * is not ours are skipped. Returns how many entries were written. */
size_t sw_nflog_parse(const void *buf, size_t len, struct sw_blocked *out, size_t max);
/* "src=.. dst=.. proto=tcp dport=80" part of the event line. */
void sw_blocked_format(const struct sw_blocked *b, char *buf, size_t len);

struct sw_nflog {
	struct mnl_socket *sock;
	uint16_t group;
	uint32_t seq;
	unsigned lost;              /* ENOBUFS: log lines the kernel dropped */
	uint8_t *buf;
};

/* Bind the group (copy the first 128 bytes of each packet). -EBUSY when
 * another process has bound it. */
int sw_nflog_open(struct sw_nflog *l, uint16_t group);
/* The same with the first copy bytes of each packet (1..65535: the
 * network log's DNS replies want the whole datagram) and, when qthresh is
 * not 0, the kernel's queue threshold (1: each packet sent at once; the
 * default batches up to 100 packets or 1 s, and the network log needs
 * an answer before the conntrack event of the flow it named). */
int sw_nflog_open_copy(struct sw_nflog *l, uint16_t group, uint32_t copy, uint32_t qthresh);
void sw_nflog_close(struct sw_nflog *l);
int sw_nflog_fd(const struct sw_nflog *l);
/* Drain without blocking; cb for each blocked attempt. */
int sw_nflog_read(struct sw_nflog *l, void (*cb)(const struct sw_blocked *b, void *data),
		  void *data);

#endif
