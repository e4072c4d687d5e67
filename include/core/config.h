/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CONFIG_H
#define SANDWALL_CONFIG_H
/* config: the INI file (inih) -> struct sw_config. Pure, no kernel.
 * config.c holds the defaults, config_parse.c the reader and sections,
 * config_keys.c the keys, config_sandbox.c [sandbox NAME], config_loss.c
 * sw_config_loss; the checks that need the hole search are config_check.h's
 * (sw_config_load, sw_config_parse_string: what the programs call). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/category.h"
#include "lib/addr.h"
#include "lib/dns.h"

#define SW_DEFAULT_CONFIG   "/etc/sandwall/sandwall.conf"
#define SW_IFNAMSIZ         16
#define SW_GUARD_AUTO       "auto"  /* [guard] interfaces keyword: detect (guard.c) */
#define SW_MAX_PATTERNS     64
#define SW_MAX_PARENTS      16      /* [guard] macvlan_parents */
#define SW_MAX_EXCEPT       64      /* [guard] except */
#define SW_MAX_BETWEEN      64      /* [allow] between pairs */
#define SW_MAX_DESTS        16384
#define SW_MAX_HOST_PORTS   64
#define SW_MAX_ALLOWS       16384
#define SW_MAX_NETWORKS     1024    /* [allow] networks */
#define SW_TABLE_MAXLEN     64
#define SW_ERRLEN           512
#define SW_PATH_MAX         256
#define SW_DEFAULT_CANARY   "1.1.1.1:443"   /* an internet address: must stay open */
#define SW_MAX_CANARIES     8
#define SW_CANARY_LEN       64
#define SW_DEFAULT_JOURNAL  "/var/lib/sandwall/journal.jsonl"
#define SW_DEFAULT_RECEIPT_KEY "/var/lib/sandwall/receipt_ed25519" /* lib/sign.h */
#define SW_CONFIG_MAX       (2 << 20) /* bytes: a larger config file is refused */
/* journal and metrics must be files below one of these directories, or
 * below a directory /tmp/sandwall-NAME that belongs to the user running
 * sandwall and that no one else may write (tests, trial runs). */
#define SW_STATE_DIRS       { "/run/sandwall/", "/var/lib/sandwall/", "/var/log/sandwall/" }
/* metrics may also go to node_exporter's textfile directories */
#define SW_METRICS_DIRS     { "/var/lib/prometheus/node-exporter/", "/var/lib/node_exporter/", \
			      "/var/lib/node-exporter/" }
#define SW_TMP_STATE_PREFIX "/tmp/sandwall-"
/* [guard] users and cgroups: the output path (cgwatch.h, docs/ruleset.md) */
#define SW_MAX_GUARD_USERS  64
#define SW_USER_NAMELEN     33      /* a login name, as getpwnam knows it */
#define SW_MAX_CG_PATTERNS  32
#define SW_CG_PATTERN_MAX   128     /* "system.slice/docker-*.scope" */
#define SW_CG_MAX_LEVEL     8       /* components of a pattern: one set per level */

enum sw_dns_mode { SW_DNS_AUTO, SW_DNS_NONE };
/* [daemon] owner: auto = the strongest the kernel has (owner+persist, else
 * twin, else watch); yes = owner even without persist; twin = force the
 * owned twin next to an unowned table; no = watch only */
enum sw_owner_mode { SW_OWNER_AUTO, SW_OWNER_YES, SW_OWNER_NO, SW_OWNER_TWIN };

struct sw_port {            /* "tcp/53" */
	uint8_t proto;      /* IPPROTO_TCP or IPPROTO_UDP */
	uint16_t port;      /* host byte order, 1..65535 */
};

struct sw_allow {           /* "10.0.0.5 tcp/3128", "169.254.169.254 tcp/80 reopen" */
	struct sw_prefix dst;
	struct sw_port port;
	bool reopen;            /* may reopen an enabled block category (holes.h) */
	unsigned line;          /* where it was given, for messages */
};

/* [sandbox NAME]: an isolation level for some sandbox networks, on top of
 * the global blocks (a policy only takes access away). */
#define SW_MAX_SANDBOXES      16
#define SW_Q_EGRESS             (1u << 16)  /* quarantine_on = egress (its own policy's block) */
#define SW_Q_BUDGET             (1u << 17)  /* quarantine_on = budget */
#define SW_Q_CONNS              (1u << 18)  /* max_connections, exceeded (always quarantines) */
#define SW_CONNS_UNIT           604800   /* its bucket refills one a week */
#define SW_MAX_CONNS_MAX        30000    /* max_connections: N weeks of nanoseconds fit
					  * the kernel's 64-bit token count (nft_limit) */
#define SW_QUARANTINE_ELEMS     65535    /* quarantined sources per sandbox and family */
#define SW_BUDGET_SOURCES       65535    /* sources a budget tracks at once, by default */
#define SW_BUDGET_SOURCES_MIN   16
#define SW_BUDGET_SOURCES_MAX   1048576
#define SW_SANDBOX_NAMELEN    17        /* 1..16 of A-Z a-z 0-9 _ (chain names) */
#define SW_MAX_SBX_PATTERNS   16
#define SW_MAX_SBX_SOURCES    64
#define SW_MAX_SBX_ALLOWS     256
#define SW_MAX_SBX_NAMES      64        /* hostname entries per sandbox */
#define SW_MAX_DNS_SERVERS    4         /* [daemon] resolvers */
#define SW_DNS_MIN_TTL        30        /* [daemon] dns_min_ttl default, seconds */
#define SW_DNS_MAX_TTL        3600      /* [daemon] dns_max_ttl default, seconds */

struct sw_name_allow {      /* "pypi.org tcp/443": resolved by sandwalld (resolver.h) */
	char name[SW_DNS_NAMELEN];      /* lower case, RFC 1123 */
	struct sw_port port;
	unsigned line;
};

enum sw_egress {
	SW_EGRESS_OPEN,         /* the global blocks only */
	SW_EGRESS_NONE,         /* replies and (dns = auto) DNS to the resolvers only */
	SW_EGRESS_ALLOWLIST,    /* replies, DNS, and what `allow` lists */
	SW_EGRESS_COUNT
};
const char *sw_egress_name(enum sw_egress e);

struct sw_sandbox {
	char name[SW_SANDBOX_NAMELEN];
	unsigned line;                           /* of its section header */
	char patterns[SW_MAX_SBX_PATTERNS][SW_IFNAMSIZ]; /* interfaces = br-agents* ... */
	size_t n_patterns;
	struct sw_prefix sources[SW_MAX_SBX_SOURCES];    /* sources = 172.30.0.0/24 ... */
	size_t n_sources;
	unsigned source_lines[SW_MAX_SBX_SOURCES];       /* the line of each */
	enum sw_egress egress;
	enum sw_dns_mode dns;
	struct sw_allow allows[SW_MAX_SBX_ALLOWS];
	size_t n_allows;
	struct sw_name_allow names[SW_MAX_SBX_NAMES];   /* allow entries by hostname */
	size_t n_names;
	uint32_t budget;                         /* new connections per source and window, 0: none */
	uint32_t budget_unit;                    /* the window in seconds: 1, 60 or 3600 */
	uint32_t budget_sources;                 /* budget_sources = N (0: SW_BUDGET_SOURCES) */
	uint32_t max_conns;                      /* max_connections = N per source and run, 0: none */
	uint32_t quarantine_on;                  /* bit per category (1 << SW_CAT_*), SW_Q_EGRESS,
						  * SW_Q_BUDGET, SW_Q_CONNS: a blocked attempt
						  * in one cuts the source off (rs_sandbox.c) */
	unsigned seen;                           /* keys given (bit per key) */
};

struct sw_config {
	char path[4096];                         /* file it came from */
	/* [guard] */
	char patterns[SW_MAX_PATTERNS][SW_IFNAMSIZ]; /* "docker0", "br-*" (only a trailing '*') */
	size_t n_patterns;
	bool auto_detect;                        /* "auto" in interfaces (the default) */
	/* [guard] except = NAME ...: interfaces auto never guards (by kind,
	 * detection or runtime name): a LAN bridge, a second uplink */
	char except[SW_MAX_EXCEPT][SW_IFNAMSIZ];
	size_t n_except;
	bool all_bridges;
	unsigned interfaces_line, all_bridges_line;  /* 0: not in the file */
	/* [guard] users = NAME|UID ...: their sockets' traffic (rootless
	 * runtimes: slirp4netns, pasta) meets the blocks on the output path */
	struct sw_guard_user {
		uint32_t uid;
		char name[SW_USER_NAMELEN];          /* as written; "" for a number */
	} users[SW_MAX_GUARD_USERS];
	size_t n_users;
	/* [guard] cgroups = PATTERN ...: cgroup v2 paths relative to the root,
	 * a shell pattern per component (host-network containers) */
	char cgroups[SW_MAX_CG_PATTERNS][SW_CG_PATTERN_MAX];
	size_t n_cgroups;
	/* macvlan_parents = eth1 ens*: devices whose macvlan/ipvlan children
	 * are guarded by netdev-family hooks on the device (ruleset.h) */
	char parents[SW_MAX_PARENTS][SW_IFNAMSIZ];
	size_t n_parents;
	/* "auto" among them, or the key not given (the default): every uplink
	 * (the output interface of a default route) is a parent too; "none"
	 * or an empty value: only the names */
	bool parents_auto;
	/* sw_config_load cleared parents_auto: the running kernel is older than
	 * 5.16 and has no netdev egress hook (auto alone must not make every
	 * apply fail there); status says so */
	bool parents_auto_no_egress;
	/* [block]: block[c] for every category; SW_CAT_DESTINATIONS is on
	 * exactly when the destinations list is non-empty. */
	bool block[SW_CAT_COUNT];
	struct sw_prefix *destinations;          /* grows, up to SW_MAX_DESTS (lib/grow.h) */
	size_t n_destinations, cap_destinations;
	bool destinations_sorted;                /* by family, address, length: the parser sorts */
	/* [allow] */
	enum sw_dns_mode dns;
	struct sw_port host_ports[SW_MAX_HOST_PORTS];
	size_t n_host_ports;
	struct sw_allow *allows;                 /* grows, up to SW_MAX_ALLOWS */
	size_t n_allows, cap_allows;
	/* [allow] networks = CIDR ...: left open by lan and private, like the
	 * guarded subnets (a Kubernetes node's pod and service CIDRs); every
	 * other category still blocks inside them */
	struct sw_prefix networks[SW_MAX_NETWORKS];
	size_t n_networks;
	/* [allow] between = A:B ...: guarded interfaces whose sandboxes may
	 * reach each other by routing (both ways), despite [block] sandboxes */
	char between[SW_MAX_BETWEEN][2][SW_IFNAMSIZ];
	size_t n_between;
	/* [log] */
	bool log_blocked;
	int log_facility;                        /* LOG_DAEMON, LOG_LOCAL0.. */
	uint16_t log_group;                      /* NFLOG group, default 3210 */
	uint16_t log_names_group;                /* NFLOG group of the DNS replies the network log reads, default 3211 */
	bool log_flows;                          /* the network log (flows.jsonl), default yes */
	unsigned log_max_flows;                  /* open flows kept, 1..1048576, default 4096 */
	unsigned log_flow_interval;              /* seconds between conntrack dumps, 1..3600, 30 */
	/* [daemon] */
	unsigned resync_interval;                /* seconds, 1..86400, default 30 */
	enum sw_owner_mode owner;
	char metrics_path[SW_PATH_MAX];          /* Prometheus textfile, "" = off */
	char journal_path[SW_PATH_MAX];          /* drift journal (JSON lines), "" = off */
	char receipt_key[SW_PATH_MAX];           /* the ed25519 key receipts are signed with */
	unsigned dns_min_ttl, dns_max_ttl;       /* hostname allowlists: TTL bounds, seconds */
	struct sw_prefix dns_servers[SW_MAX_DNS_SERVERS]; /* resolvers = ...; none: resolv.conf's */
	size_t n_dns_servers;
	unsigned dns_ttl_line;                   /* of dns_max_ttl (or dns_min_ttl), for messages */
	/* [nft] */
	char table[SW_TABLE_MAXLEN];             /* default "sandwall" */
	unsigned table_line;                     /* 0: not in the file */
	/* [verify] canary: TCP destinations verify proves open ("ADDRESS:PORT",
	 * "[V6]:PORT"); none: no canary, and verify never says HELD */
	char canaries[SW_MAX_CANARIES][SW_CANARY_LEN];
	size_t n_canaries;
	/* [identity]: which sandbox an attempt came from (host/identity.h) */
	bool identity;                           /* enabled = yes (the default) */
	char docker_socket[SW_PATH_MAX];         /* "" : DOCKER_HOST, else /var/run/docker.sock */
	char podman_socket[SW_PATH_MAX];         /* "" : CONTAINER_HOST, else /run/podman/podman.sock */
	/* [sandbox NAME] sections, in file order */
	struct sw_sandbox *sandboxes;            /* grows, up to SW_MAX_SANDBOXES */
	size_t n_sandboxes, cap_sandboxes;
	/* what the file itself gave (sw_config_loss): a reload must not
	 * fall back to defaults without being told */
	uint64_t given_keys;                     /* bit per key (config_keys.c sw_cfg_keys[]) */
	uint32_t given_cats;                     /* bit per category: its [block] switch */
	unsigned cat_line[SW_CAT_COUNT];         /* the line of each [block] switch (0: not given) */
	unsigned section_line[8];                /* [guard] [block] [allow] [log] [daemon] [nft] [verify] [identity]; 0: absent */
	unsigned n_lines;                        /* lines in the file */
	bool ends_in_newline;                    /* the last line is complete (or the file is empty) */
};

/* Fill every field with the documented default. cfg is zeroed or a
 * config filled before: its destination, allow and sandbox arrays are
 * kept for the next parse (sw_config_free frees them). */
void sw_config_defaults(struct sw_config *cfg);
/* Free the arrays; cfg is zeroed after. */
void sw_config_free(struct sw_config *cfg);
/* dst (zeroed or filled before) becomes a copy of src with arrays of its
 * own: 0 or -ENOMEM (dst is then zeroed). Never copy one by assignment. */
int sw_config_copy(struct sw_config *dst, const struct sw_config *src);
/* A whole-file check from above the parser (config_check.c: the [allow]
 * entries that reopen a block category), run after the [guard] checks and
 * before the [sandbox] ones: 0, or nonzero with the line it is about in
 * *line and "what is wrong" in msg. */
typedef int (*sw_config_check_fn)(const struct sw_config *cfg, unsigned *line, char *msg,
				  size_t len);
/* Parse text (name is used in messages in place of the file) with check
 * (NULL: none). On error returns -EINVAL (bad content) or -ENOMEM, -EFBIG
 * and writes "NAME:LINE: what is wrong" (or "NAME: why") to err. cfg is
 * fully written only on success; on failure it is left as defaults. */
int sw_config_parse(const char *text, const char *name, sw_config_check_fn check,
		    struct sw_config *cfg, char *err, size_t errlen);
/* Read a file and sw_config_parse it; -errno when it cannot be read
 * ("FILE: strerror" in err). macvlan_parents = auto is switched off
 * (parents_auto_no_egress) on a kernel without the netdev egress hook. */
int sw_config_read(const char *path, sw_config_check_fn check, struct sw_config *cfg, char *err,
		   size_t errlen);
/* Does new lose what old (the config in force) gave? A section, key or
 * [sandbox NAME] old had and new lacks, an empty file, or a last line cut
 * short (no newline where old had one): a reload would fall back to the
 * defaults without being asked. Allow lists ([allow] destinations and
 * host_ports, a sandbox's allow) may go: their absence allows nothing. 0 when nothing is lost; -ENODATA with
 * "FILE:LINE: what is lost" in err (the first loss found). */
int sw_config_loss(const struct sw_config *old, const struct sw_config *new, char *err,
		   size_t errlen);
/* The file gave no section at all (empty, blank or only comments). */
bool sw_config_is_empty(const struct sw_config *cfg);

#endif
