/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CONFIG_H
#define SANDWALL_CONFIG_H
/* config: the INI file (inih) -> struct sw_config. Pure, no kernel. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/addr.h"
#include "lib/dns.h"

#define SW_DEFAULT_CONFIG   "/etc/sandwall/sandwall.conf"
#define SW_IFNAMSIZ         16
#define SW_GUARD_AUTO       "auto"  /* [guard] interfaces keyword: detect (ruleset.c) */
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

enum sw_category {
	SW_CAT_SPOOFED,         /* forged source addresses: always on, no config key */
	SW_CAT_METADATA,
	SW_CAT_LINK_LOCAL,
	SW_CAT_HOST,
	SW_CAT_GATEWAYS,
	SW_CAT_LAN,
	SW_CAT_PRIVATE,
	SW_CAT_DESTINATIONS,
	SW_CAT_SANDBOXES,       /* routed traffic to another guarded interface's subnets */
	SW_CAT_COUNT
};
/* "metadata", "link_local", ... (the config key and counter name) */
const char *sw_category_name(enum sw_category c);

/* How the config switches a category on. */
enum sw_cat_key {
	SW_CAT_KEY_NONE,        /* always on, no key (spoofed) */
	SW_CAT_KEY_BOOL,        /* [block] NAME = yes|no */
	SW_CAT_KEY_LIST,        /* on when [block] NAME lists entries (its own parser) */
};

/* How the guard chain finds what a category blocks (ruleset.c). */
enum sw_cat_match {
	SW_CAT_MATCH_SPOOF,     /* fib saddr . iif oif missing, before every accept */
	SW_CAT_MATCH_LOCAL,     /* fib daddr type local (+ the input hook's broadcast) */
	SW_CAT_MATCH_SET,       /* ip daddr @<name>4, ip6 daddr @<name>6 */
	SW_CAT_MATCH_ROUTED,    /* in the forward hook: ip daddr @<name>4 routed out of another
				 * interface than it came in on (fib daddr . iif oif missing),
				 * iifname . oifname not in @between */
};

#define SW_CAT_V4 1u
#define SW_CAT_V6 2u

/* One entry per category. Its name is the [block] key, the named counter,
 * the chain block_<name> and the log prefix "sandwall:<name> ". Adding a
 * category is one entry here (and, for SW_CAT_MATCH_SET, its fill function
 * in ruleset.c's cat_fill[], which says what it blocks): the [block] key,
 * the default, the sets, the guard rule in rank order, the union for the
 * fast path, the counter and the block chain follow. */
struct sw_category_info {
	const char *name;
	enum sw_cat_key key;
	bool default_on;
	enum sw_cat_match match;
	unsigned families;      /* SW_CAT_V4 | SW_CAT_V6: where it can block */
	/* where it sits in the guard chain (lower first; the first category
	 * that matches counts the packet); from SW_CAT_RANK_OWN on, after the
	 * guarded subnets' return (container-to-container stays open) */
	unsigned rank;
	/* verify's plan: probe one address of each entry (0: the category
	 * has no addresses of its own to probe, e.g. spoofed) */
	bool probed;
};
#define SW_CAT_RANK_OWN 100
extern const struct sw_category_info sw_categories[SW_CAT_COUNT];
/* The entry of c (NULL when out of range). */
const struct sw_category_info *sw_category_info(enum sw_category c);
/* The category of a name ("metadata"), or -ENOENT. */
int sw_category_lookup(const char *name);
/* prefix of every category's log line and chain */
#define SW_CAT_CHAIN_PREFIX "block_"

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
	struct sw_prefix destinations[SW_MAX_DESTS];
	size_t n_destinations;
	bool destinations_sorted;                /* by family, address, length: the parser sorts */
	/* [allow] */
	enum sw_dns_mode dns;
	struct sw_port host_ports[SW_MAX_HOST_PORTS];
	size_t n_host_ports;
	struct sw_allow allows[SW_MAX_ALLOWS];
	size_t n_allows;
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
	/* [daemon] */
	unsigned resync_interval;                /* seconds, 1..86400, default 30 */
	enum sw_owner_mode owner;
	char metrics_path[SW_PATH_MAX];          /* Prometheus textfile, "" = off */
	char journal_path[SW_PATH_MAX];          /* drift journal (JSON lines), "" = off */
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
	/* [sandbox NAME] sections, in file order */
	struct sw_sandbox sandboxes[SW_MAX_SANDBOXES];
	size_t n_sandboxes;
	/* what the file itself gave (sw_config_loss): a reload must not
	 * fall back to defaults without being told */
	uint64_t given_keys;                     /* bit per key (config.c keys[]) */
	uint32_t given_cats;                     /* bit per category: its [block] switch */
	unsigned section_line[7];                /* [guard] [block] [allow] [log] [daemon] [nft] [verify]; 0: absent */
	unsigned n_lines;                        /* lines in the file */
	bool ends_in_newline;                    /* the last line is complete (or the file is empty) */
};

/* Fill every field with the documented default. */
void sw_config_defaults(struct sw_config *cfg);
/* Parse a file. On error returns -EINVAL (bad content) or -errno (cannot
 * read) and writes "FILE:LINE: what is wrong" (or "FILE: strerror") to err.
 * cfg is fully written only on success; on failure it is left as defaults. */
int sw_config_load(const char *path, struct sw_config *cfg, char *err, size_t errlen);
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

/* Same, from a string; name is used in messages in place of the file. */
int sw_config_parse_string(const char *text, const char *name,
			   struct sw_config *cfg, char *err, size_t errlen);

#endif
