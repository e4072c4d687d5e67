/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ATTEMPTS_H
#define SANDWALL_ATTEMPTS_H
/* attempts: what the sandboxes tried to reach. sandwalld folds every
 * blocked attempt it reads from NFLOG into one record per (category,
 * sandbox, destination, protocol, port, and for the output path the
 * socket's uid), at most SW_ATTEMPTS_MAX of them
 * (the least recently seen goes first, and is counted), and writes them as
 * a JSON document that `sandwall receipt` shows. The counts are of the
 * attempts the kernel logged: each category logs at most 10 a second
 * (burst 20), so under a flood they are a lower bound. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "lib/json.h"
#include "kernel/nflog.h"
#include "host/identity.h"

#define SW_ATTEMPTS_MAX 256

struct sw_attempt {
	char category[32];          /* "metadata", "egress" */
	uint8_t src[16];            /* the packet's source (family as dst) */
	char iif[16];               /* the input interface's name ("" for the output path) */
	bool by_verify;             /* seen to be verify's own probe (sw_attempts_mark) */
	char sandbox[24];           /* for egress and budget: the [sandbox NAME] */
	int family;
	uint8_t dst[16];
	uint8_t proto;
	uint16_t dport;
	bool output;                /* from a host socket (the output path) */
	bool has_uid;               /* output only: the socket's owner */
	uint32_t uid;
	uint64_t count;
	time_t first, last;
	struct sw_identity ident;   /* the sandbox it came from, when known (identity.h) */
};

struct sw_attempts {
	struct sw_attempt a[SW_ATTEMPTS_MAX];
	size_t n;
	uint64_t evicted;           /* records pushed out by newer ones */
};

/* Count one blocked attempt seen at now (iif: the input interface's
 * name, or NULL). Records are kept per source and interface too. */
void sw_attempts_add(struct sw_attempts *t, const struct sw_blocked *b, time_t now);
struct sw_attempt *sw_attempts_add_iif(struct sw_attempts *t, const struct sw_blocked *b,
				      const char *iif, time_t now);
/* The same with the sandbox it came from (NULL or unset: not known yet):
 * a record that names another sandbox is not counted into (an address
 * reused by a later container gets a record of its own); one that names
 * none yet takes it. */
struct sw_attempt *sw_attempts_add_ident(struct sw_attempts *t, const struct sw_blocked *b,
					 const char *iif, const struct sw_identity *id,
					 time_t now);
/* Give the records from family/src that name no sandbox yet this
 * identity; how many got it. */
size_t sw_attempts_identify(struct sw_attempts *t, int family, const uint8_t *src,
			    const struct sw_identity *id);

/* verify's own probe addresses, from its record (verify.json): each run's
 * "sources" and each sandbox's "unlisted" sink. An attempt whose source
 * or destination is one of them, or UDP to its "canary_port", is
 * verify's, not a sandbox's. */
#define SW_ATTEMPTS_PROBES 64
struct sw_attempts_probes {
	int family[SW_ATTEMPTS_PROBES];
	uint8_t addr[SW_ATTEMPTS_PROBES][16];
	size_t n;
	uint16_t canary_port;       /* UDP: verify's broadcast/multicast canary (0: none) */
};
void sw_attempts_probes_read(const char *verify_json, size_t len, struct sw_attempts_probes *p);
bool sw_attempts_by_verify(const struct sw_attempts_probes *p, int family, const uint8_t *src,
			   const uint8_t *dst);
/* Mark the records that are verify's by p (a mark stays: a later verify
 * picks other addresses and ports). */
void sw_attempts_mark(struct sw_attempts *t, const struct sw_attempts_probes *p);
/* ... or UDP to its canary port (the broadcast and multicast attacks,
 * sent from the throwaway namespace's link-local address) */
bool sw_attempts_by_verify_port(const struct sw_attempts_probes *p, uint8_t proto,
				uint16_t dport);
/* {"evicted":N,"attempts":[{"category":..,"sandbox":..,"src":..,"iif":..,
 * "dst":..,"proto":..,"dport":..,"path":"output","uid":..,"by":..,"count":..,
 * "first":..,"last":..,"identity":{sw_identity_json}}, ...]} most counted first ("path" and "uid" only
 * for the output path; "by": "verify" or "sandbox" when probes is given). */
void sw_attempts_json(const struct sw_attempts *t, struct sw_jw *w);
void sw_attempts_json_by(const struct sw_attempts *t, const struct sw_attempts_probes *probes,
			 struct sw_jw *w);
/* Write that document to path atomically (0600). 0 or -errno. */
int sw_attempts_write(const struct sw_attempts *t, const char *path);
int sw_attempts_write_by(const struct sw_attempts *t, const struct sw_attempts_probes *probes,
			 const char *path);

#endif
