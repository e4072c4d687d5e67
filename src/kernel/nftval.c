// SPDX-License-Identifier: GPL-2.0-or-later
/* nftval: attribute checks ahead of libnftnl (see include/kernel/nftval.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nf_tables_compat.h>
#include <libmnl/libmnl.h>

#include "kernel/nftval.h"
#include "kernel/nlmsg.h"

#define MAX_DEPTH        8      /* expressions inside expressions (dynset) */
#define DATA_VALUE_MAX   64     /* union nftnl_data_reg: NFT_DATA_VALUE_MAXLEN */
#define CONCAT_MAX       16     /* struct nftnl_set: field_len[NFT_REG32_COUNT] */
#define NFTNL_ELEM_MAX   11     /* libnftnl 1.2.4's NFTA_SET_ELEM_MAX: tb[] size - 1 */
#define NFTNL_ELEM_PAD   8      /* NFTA_SET_ELEM_PAD */

/* What an attribute must look like. V_NONE: libnftnl does not read it. */
enum vkind {
	V_NONE = 0,
	V_U8, V_U16, V_U32, V_U64,
	V_STR,          /* at least one byte, NUL inside the attribute */
	V_BIN,          /* any bytes (libnftnl copies the payload length) */
	/* from here on: nests, empty or at least one attribute header long */
	V_NEST,         /* attributes under the nest's own policy */
	V_DATA,         /* a data register: NFTA_DATA_VALUE / NFTA_DATA_VERDICT */
	V_VERDICT,      /* NFTA_VERDICT_CODE (+ NFTA_VERDICT_CHAIN for jump/goto) */
	V_EXPR,         /* one expression: NFTA_EXPR_NAME + NFTA_EXPR_DATA */
	V_EXPR_LIST,    /* NFTA_LIST_ELEM expressions */
	V_ELEM_LIST,    /* NFTA_LIST_ELEM set elements */
	V_DEV_LIST,     /* NFTA_DEVICE_NAME strings */
	V_CONCAT,       /* NFTA_LIST_ELEM { NFTA_SET_FIELD_LEN } */
	V_OBJ_DATA,     /* depends on NFTA_OBJ_TYPE */
};

struct vnest;

struct vpol {
	uint8_t kind;
	const struct vnest *nest;       /* V_NEST */
};

struct vnest {
	const struct vpol *pol;         /* indexed by attribute type */
	uint16_t n;                     /* entries in pol */
	uint16_t strict_max;            /* 0, or: a type above it is refused */
};

struct vexpr {
	const char *name;
	struct vnest nest;
};

struct vctx {
	int depth;
	unsigned int fields;            /* NFTA_SET_FIELD_LEN seen in a concat */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NEST(p) { (p), ARRAY_SIZE(p), 0 }

/* ---- per-expression policies: libnftnl 1.2.4's expr/<name>.c callbacks,
 * with data registers and nested expressions spelled out. osf and
 * synproxy are left out on purpose (libnftnl checks the wrong attribute
 * numbers for them), so rules using them are refused. */
static const struct vpol pol_bitwise[] = {
	[NFTA_BITWISE_SREG] = { V_U32, NULL },
	[NFTA_BITWISE_DREG] = { V_U32, NULL },
	[NFTA_BITWISE_OP] = { V_U32, NULL },
	[NFTA_BITWISE_LEN] = { V_U32, NULL },
	[NFTA_BITWISE_MASK] = { V_DATA, NULL },
	[NFTA_BITWISE_XOR] = { V_DATA, NULL },
	[NFTA_BITWISE_DATA] = { V_DATA, NULL },
};
static const struct vpol pol_byteorder[] = {
	[NFTA_BYTEORDER_SREG] = { V_U32, NULL },
	[NFTA_BYTEORDER_DREG] = { V_U32, NULL },
	[NFTA_BYTEORDER_OP] = { V_U32, NULL },
	[NFTA_BYTEORDER_LEN] = { V_U32, NULL },
	[NFTA_BYTEORDER_SIZE] = { V_U32, NULL },
};
static const struct vpol pol_cmp[] = {
	[NFTA_CMP_SREG] = { V_U32, NULL },
	[NFTA_CMP_OP] = { V_U32, NULL },
	[NFTA_CMP_DATA] = { V_DATA, NULL },
};
static const struct vpol pol_connlimit[] = {
	[NFTA_CONNLIMIT_COUNT] = { V_U32, NULL },
	[NFTA_CONNLIMIT_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_counter[] = {
	[NFTA_COUNTER_BYTES] = { V_U64, NULL },
	[NFTA_COUNTER_PACKETS] = { V_U64, NULL },
};
static const struct vpol pol_ct[] = {
	[NFTA_CT_KEY] = { V_U32, NULL },
	[NFTA_CT_DREG] = { V_U32, NULL },
	[NFTA_CT_SREG] = { V_U32, NULL },
	[NFTA_CT_DIRECTION] = { V_U8, NULL },
};
static const struct vpol pol_dup[] = {
	[NFTA_DUP_SREG_ADDR] = { V_U32, NULL },
	[NFTA_DUP_SREG_DEV] = { V_U32, NULL },
};
static const struct vpol pol_dynset[] = {
	[NFTA_DYNSET_SREG_KEY] = { V_U32, NULL },
	[NFTA_DYNSET_SREG_DATA] = { V_U32, NULL },
	[NFTA_DYNSET_SET_ID] = { V_U32, NULL },
	[NFTA_DYNSET_OP] = { V_U32, NULL },
	[NFTA_DYNSET_FLAGS] = { V_U32, NULL },
	[NFTA_DYNSET_TIMEOUT] = { V_U64, NULL },
	[NFTA_DYNSET_SET_NAME] = { V_STR, NULL },
	[NFTA_DYNSET_EXPR] = { V_EXPR, NULL },
	[NFTA_DYNSET_EXPRESSIONS] = { V_EXPR_LIST, NULL },
};
static const struct vpol pol_exthdr[] = {
	[NFTA_EXTHDR_TYPE] = { V_U8, NULL },
	[NFTA_EXTHDR_DREG] = { V_U32, NULL },
	[NFTA_EXTHDR_SREG] = { V_U32, NULL },
	[NFTA_EXTHDR_OFFSET] = { V_U32, NULL },
	[NFTA_EXTHDR_LEN] = { V_U32, NULL },
	[NFTA_EXTHDR_OP] = { V_U32, NULL },
	[NFTA_EXTHDR_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_fib[] = {
	[NFTA_FIB_RESULT] = { V_U32, NULL },
	[NFTA_FIB_DREG] = { V_U32, NULL },
	[NFTA_FIB_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_flow_offload[] = {
	[NFTA_FLOW_TABLE_NAME] = { V_STR, NULL },
};
static const struct vpol pol_fwd[] = {
	[NFTA_FWD_SREG_DEV] = { V_U32, NULL },
	[NFTA_FWD_SREG_ADDR] = { V_U32, NULL },
	[NFTA_FWD_NFPROTO] = { V_U32, NULL },
};
static const struct vpol pol_hash[] = {
	[NFTA_HASH_SREG] = { V_U32, NULL },
	[NFTA_HASH_DREG] = { V_U32, NULL },
	[NFTA_HASH_LEN] = { V_U32, NULL },
	[NFTA_HASH_MODULUS] = { V_U32, NULL },
	[NFTA_HASH_SEED] = { V_U32, NULL },
	[NFTA_HASH_OFFSET] = { V_U32, NULL },
	[NFTA_HASH_TYPE] = { V_U32, NULL },
};
static const struct vpol pol_immediate[] = {
	[NFTA_IMMEDIATE_DREG] = { V_U32, NULL },
	[NFTA_IMMEDIATE_DATA] = { V_DATA, NULL },
};
static const struct vpol pol_last[] = {
	[NFTA_LAST_MSECS] = { V_U64, NULL },
	[NFTA_LAST_SET] = { V_U32, NULL },
};
static const struct vpol pol_limit[] = {
	[NFTA_LIMIT_RATE] = { V_U64, NULL },
	[NFTA_LIMIT_UNIT] = { V_U64, NULL },
	[NFTA_LIMIT_BURST] = { V_U32, NULL },
	[NFTA_LIMIT_TYPE] = { V_U32, NULL },
	[NFTA_LIMIT_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_log[] = {
	[NFTA_LOG_PREFIX] = { V_STR, NULL },
	[NFTA_LOG_GROUP] = { V_U16, NULL },
	[NFTA_LOG_QTHRESHOLD] = { V_U16, NULL },
	[NFTA_LOG_SNAPLEN] = { V_U32, NULL },
	[NFTA_LOG_LEVEL] = { V_U32, NULL },
	[NFTA_LOG_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_lookup[] = {
	[NFTA_LOOKUP_SREG] = { V_U32, NULL },
	[NFTA_LOOKUP_DREG] = { V_U32, NULL },
	[NFTA_LOOKUP_SET_ID] = { V_U32, NULL },
	[NFTA_LOOKUP_FLAGS] = { V_U32, NULL },
	[NFTA_LOOKUP_SET] = { V_STR, NULL },
};
static const struct vpol pol_masq[] = {
	[NFTA_MASQ_REG_PROTO_MIN] = { V_U32, NULL },
	[NFTA_MASQ_REG_PROTO_MAX] = { V_U32, NULL },
	[NFTA_MASQ_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_match[] = {
	[NFTA_MATCH_NAME] = { V_STR, NULL },
	[NFTA_MATCH_REV] = { V_U32, NULL },
	[NFTA_MATCH_INFO] = { V_BIN, NULL },
};
static const struct vpol pol_meta[] = {
	[NFTA_META_KEY] = { V_U32, NULL },
	[NFTA_META_DREG] = { V_U32, NULL },
	[NFTA_META_SREG] = { V_U32, NULL },
};
static const struct vpol pol_nat[] = {
	[NFTA_NAT_TYPE] = { V_U32, NULL },
	[NFTA_NAT_FAMILY] = { V_U32, NULL },
	[NFTA_NAT_REG_ADDR_MIN] = { V_U32, NULL },
	[NFTA_NAT_REG_ADDR_MAX] = { V_U32, NULL },
	[NFTA_NAT_REG_PROTO_MIN] = { V_U32, NULL },
	[NFTA_NAT_REG_PROTO_MAX] = { V_U32, NULL },
	[NFTA_NAT_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_numgen[] = {
	[NFTA_NG_DREG] = { V_U32, NULL },
	[NFTA_NG_MODULUS] = { V_U32, NULL },
	[NFTA_NG_TYPE] = { V_U32, NULL },
	[NFTA_NG_OFFSET] = { V_U32, NULL },
};
static const struct vpol pol_objref[] = {
	[NFTA_OBJREF_IMM_TYPE] = { V_U32, NULL },
	[NFTA_OBJREF_IMM_NAME] = { V_STR, NULL },
	[NFTA_OBJREF_SET_NAME] = { V_STR, NULL },
	[NFTA_OBJREF_SET_SREG] = { V_U32, NULL },
	[NFTA_OBJREF_SET_ID] = { V_U32, NULL },
};
static const struct vpol pol_payload[] = {
	[NFTA_PAYLOAD_SREG] = { V_U32, NULL },
	[NFTA_PAYLOAD_DREG] = { V_U32, NULL },
	[NFTA_PAYLOAD_BASE] = { V_U32, NULL },
	[NFTA_PAYLOAD_OFFSET] = { V_U32, NULL },
	[NFTA_PAYLOAD_LEN] = { V_U32, NULL },
	[NFTA_PAYLOAD_CSUM_TYPE] = { V_U32, NULL },
	[NFTA_PAYLOAD_CSUM_OFFSET] = { V_U32, NULL },
	[NFTA_PAYLOAD_CSUM_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_queue[] = {
	[NFTA_QUEUE_NUM] = { V_U16, NULL },
	[NFTA_QUEUE_TOTAL] = { V_U16, NULL },
	[NFTA_QUEUE_FLAGS] = { V_U16, NULL },
	[NFTA_QUEUE_SREG_QNUM] = { V_U32, NULL },
};
static const struct vpol pol_quota[] = {
	[NFTA_QUOTA_BYTES] = { V_U64, NULL },
	[NFTA_QUOTA_CONSUMED] = { V_U64, NULL },
	[NFTA_QUOTA_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_range[] = {
	[NFTA_RANGE_SREG] = { V_U32, NULL },
	[NFTA_RANGE_OP] = { V_U32, NULL },
	[NFTA_RANGE_FROM_DATA] = { V_DATA, NULL },
	[NFTA_RANGE_TO_DATA] = { V_DATA, NULL },
};
static const struct vpol pol_redir[] = {
	[NFTA_REDIR_REG_PROTO_MIN] = { V_U32, NULL },
	[NFTA_REDIR_REG_PROTO_MAX] = { V_U32, NULL },
	[NFTA_REDIR_FLAGS] = { V_U32, NULL },
};
static const struct vpol pol_reject[] = {
	[NFTA_REJECT_TYPE] = { V_U32, NULL },
	[NFTA_REJECT_ICMP_CODE] = { V_U8, NULL },
};
static const struct vpol pol_rt[] = {
	[NFTA_RT_KEY] = { V_U32, NULL },
	[NFTA_RT_DREG] = { V_U32, NULL },
};
static const struct vpol pol_socket[] = {
	[NFTA_SOCKET_KEY] = { V_U32, NULL },
	[NFTA_SOCKET_DREG] = { V_U32, NULL },
	[NFTA_SOCKET_LEVEL] = { V_U32, NULL },
};
static const struct vpol pol_target[] = {
	[NFTA_TARGET_NAME] = { V_STR, NULL },
	[NFTA_TARGET_REV] = { V_U32, NULL },
	[NFTA_TARGET_INFO] = { V_BIN, NULL },
};
static const struct vpol pol_tproxy[] = {
	[NFTA_TPROXY_FAMILY] = { V_U32, NULL },
	[NFTA_TPROXY_REG_ADDR] = { V_U32, NULL },
	[NFTA_TPROXY_REG_PORT] = { V_U32, NULL },
};
static const struct vpol pol_tunnel[] = {
	[NFTA_TUNNEL_KEY] = { V_U32, NULL },
	[NFTA_TUNNEL_DREG] = { V_U32, NULL },
};
static const struct vpol pol_xfrm[] = {
	[NFTA_XFRM_DREG] = { V_U32, NULL },
	[NFTA_XFRM_KEY] = { V_U32, NULL },
	[NFTA_XFRM_SPNUM] = { V_U32, NULL },
	[NFTA_XFRM_DIR] = { V_U8, NULL },
};

/* sorted by name: looked up with bsearch */
static const struct vexpr exprs[] = {
	{ "bitwise", NEST(pol_bitwise) },
	{ "byteorder", NEST(pol_byteorder) },
	{ "cmp", NEST(pol_cmp) },
	{ "connlimit", NEST(pol_connlimit) },
	{ "counter", NEST(pol_counter) },
	{ "ct", NEST(pol_ct) },
	{ "dup", NEST(pol_dup) },
	{ "dynset", NEST(pol_dynset) },
	{ "exthdr", NEST(pol_exthdr) },
	{ "fib", NEST(pol_fib) },
	{ "flow_offload", NEST(pol_flow_offload) },
	{ "fwd", NEST(pol_fwd) },
	{ "hash", NEST(pol_hash) },
	{ "immediate", NEST(pol_immediate) },
	{ "last", NEST(pol_last) },
	{ "limit", NEST(pol_limit) },
	{ "log", NEST(pol_log) },
	{ "lookup", NEST(pol_lookup) },
	{ "masq", NEST(pol_masq) },
	{ "match", NEST(pol_match) },
	{ "meta", NEST(pol_meta) },
	{ "nat", NEST(pol_nat) },
	{ "numgen", NEST(pol_numgen) },
	{ "objref", NEST(pol_objref) },
	{ "payload", NEST(pol_payload) },
	{ "queue", NEST(pol_queue) },
	{ "quota", NEST(pol_quota) },
	{ "range", NEST(pol_range) },
	{ "redir", NEST(pol_redir) },
	{ "reject", NEST(pol_reject) },
	{ "rt", NEST(pol_rt) },
	{ "socket", NEST(pol_socket) },
	{ "target", NEST(pol_target) },
	{ "tproxy", NEST(pol_tproxy) },
	{ "tunnel", NEST(pol_tunnel) },
	{ "xfrm", NEST(pol_xfrm) },
};

/* ---- object policies ---------------------------------------------------- */

static const struct vpol pol_data[] = {
	[NFTA_DATA_VALUE] = { V_BIN, NULL },
	[NFTA_DATA_VERDICT] = { V_VERDICT, NULL },
};
static const struct vnest nest_data = NEST(pol_data);

static const struct vpol pol_verdict[] = {
	[NFTA_VERDICT_CODE] = { V_U32, NULL },
	[NFTA_VERDICT_CHAIN] = { V_STR, NULL },
	[NFTA_VERDICT_CHAIN_ID] = { V_U32, NULL },
};
static const struct vnest nest_verdict = NEST(pol_verdict);

static const struct vpol pol_expr[] = {
	[NFTA_EXPR_NAME] = { V_STR, NULL },
	[NFTA_EXPR_DATA] = { V_NONE, NULL },    /* checked by name */
};
static const struct vnest nest_expr = NEST(pol_expr);

static const struct vpol pol_table[] = {
	[NFTA_TABLE_NAME] = { V_STR, NULL },
	[NFTA_TABLE_FLAGS] = { V_U32, NULL },
	[NFTA_TABLE_USE] = { V_U32, NULL },
	[NFTA_TABLE_HANDLE] = { V_U64, NULL },
	[NFTA_TABLE_USERDATA] = { V_BIN, NULL },
	[NFTA_TABLE_OWNER] = { V_U32, NULL },
};

static const struct vpol pol_hook[] = {
	[NFTA_HOOK_HOOKNUM] = { V_U32, NULL },
	[NFTA_HOOK_PRIORITY] = { V_U32, NULL },
	[NFTA_HOOK_DEV] = { V_STR, NULL },
	[NFTA_HOOK_DEVS] = { V_DEV_LIST, NULL },
};
static const struct vnest nest_hook = NEST(pol_hook);

static const struct vpol pol_counters[] = {
	[NFTA_COUNTER_BYTES] = { V_U64, NULL },
	[NFTA_COUNTER_PACKETS] = { V_U64, NULL },
};
static const struct vnest nest_counters = NEST(pol_counters);

static const struct vpol pol_chain[] = {
	[NFTA_CHAIN_TABLE] = { V_STR, NULL },
	[NFTA_CHAIN_HANDLE] = { V_U64, NULL },
	[NFTA_CHAIN_NAME] = { V_STR, NULL },
	[NFTA_CHAIN_HOOK] = { V_NEST, &nest_hook },
	[NFTA_CHAIN_POLICY] = { V_U32, NULL },
	[NFTA_CHAIN_USE] = { V_U32, NULL },
	[NFTA_CHAIN_TYPE] = { V_STR, NULL },
	[NFTA_CHAIN_COUNTERS] = { V_NEST, &nest_counters },
	[NFTA_CHAIN_FLAGS] = { V_U32, NULL },
	[NFTA_CHAIN_ID] = { V_U32, NULL },
	[NFTA_CHAIN_USERDATA] = { V_BIN, NULL },
};

static const struct vpol pol_desc[] = {
	[NFTA_SET_DESC_SIZE] = { V_U32, NULL },
	[NFTA_SET_DESC_CONCAT] = { V_CONCAT, NULL },
};
static const struct vnest nest_desc = NEST(pol_desc);

static const struct vpol pol_set[] = {
	[NFTA_SET_TABLE] = { V_STR, NULL },
	[NFTA_SET_NAME] = { V_STR, NULL },
	[NFTA_SET_FLAGS] = { V_U32, NULL },
	[NFTA_SET_KEY_TYPE] = { V_U32, NULL },
	[NFTA_SET_KEY_LEN] = { V_U32, NULL },
	[NFTA_SET_DATA_TYPE] = { V_U32, NULL },
	[NFTA_SET_DATA_LEN] = { V_U32, NULL },
	[NFTA_SET_POLICY] = { V_U32, NULL },
	[NFTA_SET_DESC] = { V_NEST, &nest_desc },
	[NFTA_SET_ID] = { V_U32, NULL },
	[NFTA_SET_TIMEOUT] = { V_U64, NULL },
	[NFTA_SET_GC_INTERVAL] = { V_U32, NULL },
	[NFTA_SET_USERDATA] = { V_BIN, NULL },
	[NFTA_SET_OBJ_TYPE] = { V_U32, NULL },
	[NFTA_SET_HANDLE] = { V_U64, NULL },
	[NFTA_SET_EXPR] = { V_EXPR, NULL },
	[NFTA_SET_EXPRESSIONS] = { V_EXPR_LIST, NULL },
};

static const struct vpol pol_elem[] = {
	[NFTA_SET_ELEM_KEY] = { V_DATA, NULL },
	[NFTA_SET_ELEM_DATA] = { V_DATA, NULL },
	[NFTA_SET_ELEM_FLAGS] = { V_U32, NULL },
	[NFTA_SET_ELEM_TIMEOUT] = { V_U64, NULL },
	[NFTA_SET_ELEM_EXPIRATION] = { V_U64, NULL },
	[NFTA_SET_ELEM_USERDATA] = { V_BIN, NULL },
	[NFTA_SET_ELEM_EXPR] = { V_EXPR, NULL },
	[NFTNL_ELEM_PAD] = { V_NONE, NULL },
	[NFTA_SET_ELEM_OBJREF] = { V_STR, NULL },
	[NFTA_SET_ELEM_KEY_END] = { V_DATA, NULL },
	[NFTA_SET_ELEM_EXPRESSIONS] = { V_EXPR_LIST, NULL },
};
/* libnftnl sizes its table for NFTA_SET_ELEM_MAX but admits types up to
 * NFTA_SET_MAX: anything above its max is refused here */
static const struct vnest nest_elem = { pol_elem, ARRAY_SIZE(pol_elem), NFTNL_ELEM_MAX };

static const struct vpol pol_elems[] = {
	[NFTA_SET_ELEM_LIST_TABLE] = { V_STR, NULL },
	[NFTA_SET_ELEM_LIST_SET] = { V_STR, NULL },
	[NFTA_SET_ELEM_LIST_ELEMENTS] = { V_ELEM_LIST, NULL },
	[NFTA_SET_ELEM_LIST_SET_ID] = { V_U32, NULL },
};

static const struct vpol pol_obj[] = {
	[NFTA_OBJ_TABLE] = { V_STR, NULL },
	[NFTA_OBJ_NAME] = { V_STR, NULL },
	[NFTA_OBJ_TYPE] = { V_U32, NULL },
	[NFTA_OBJ_DATA] = { V_OBJ_DATA, NULL },
	[NFTA_OBJ_USE] = { V_U32, NULL },
	[NFTA_OBJ_HANDLE] = { V_U64, NULL },
	[NFTA_OBJ_USERDATA] = { V_BIN, NULL },
};

static const struct vpol pol_compat[] = {
	[NFTA_RULE_COMPAT_PROTO] = { V_U32, NULL },
	[NFTA_RULE_COMPAT_FLAGS] = { V_U32, NULL },
};
static const struct vnest nest_compat = NEST(pol_compat);

static const struct vpol pol_rule[] = {
	[NFTA_RULE_TABLE] = { V_STR, NULL },
	[NFTA_RULE_CHAIN] = { V_STR, NULL },
	[NFTA_RULE_HANDLE] = { V_U64, NULL },
	[NFTA_RULE_EXPRESSIONS] = { V_EXPR_LIST, NULL },
	[NFTA_RULE_COMPAT] = { V_NEST, &nest_compat },
	[NFTA_RULE_POSITION] = { V_U64, NULL },
	[NFTA_RULE_USERDATA] = { V_BIN, NULL },
	[NFTA_RULE_ID] = { V_U32, NULL },
	[NFTA_RULE_POSITION_ID] = { V_U32, NULL },
};

/* Each object: its policy, the message types that carry it, and the
 * attributes that must be there (observe reads them unconditionally). */
static const struct {
	struct vnest nest;
	uint16_t new_type, del_type;
	uint16_t required[3];
} objs[] = {
	[SW_NFT_TABLE] = { NEST(pol_table), NFT_MSG_NEWTABLE, NFT_MSG_DELTABLE,
			   { NFTA_TABLE_NAME } },
	[SW_NFT_CHAIN] = { NEST(pol_chain), NFT_MSG_NEWCHAIN, NFT_MSG_DELCHAIN,
			   { NFTA_CHAIN_TABLE, NFTA_CHAIN_NAME } },
	[SW_NFT_SET] = { NEST(pol_set), NFT_MSG_NEWSET, NFT_MSG_DELSET,
			 { NFTA_SET_TABLE, NFTA_SET_NAME } },
	[SW_NFT_ELEMS] = { NEST(pol_elems), NFT_MSG_NEWSETELEM, NFT_MSG_DELSETELEM,
			   { NFTA_SET_ELEM_LIST_TABLE, NFTA_SET_ELEM_LIST_SET } },
	[SW_NFT_OBJ] = { NEST(pol_obj), NFT_MSG_NEWOBJ, NFT_MSG_DELOBJ,
			 { NFTA_OBJ_TABLE, NFTA_OBJ_NAME, NFTA_OBJ_TYPE } },
	[SW_NFT_RULE] = { NEST(pol_rule), NFT_MSG_NEWRULE, NFT_MSG_DELRULE,
			  { NFTA_RULE_TABLE, NFTA_RULE_CHAIN } },
};

/* ---- the walk ------------------------------------------------------------ */

static int check_nest(const uint8_t *p, size_t len, const struct vnest *n,
		      const struct nlattr **tb, struct vctx *c);

/* MNL_TYPE_NESTED as libnftnl validates it (exit(1) otherwise): empty,
 * or room for at least one attribute header */
static bool nest_len_ok(size_t l)
{
	return l == 0 || l >= NLA_HDRLEN;
}

static size_t plen(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static const uint8_t *pdata(const struct nlattr *a)
{
	return (const uint8_t *)a + NLA_HDRLEN;
}

static uint16_t atype(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static int cmp_expr(const void *key, const void *e)
{
	return strcmp(key, ((const struct vexpr *)e)->name);
}

/* An expression: a known name and its data under that name's policy. */
static int check_expr(const struct nlattr *a, struct vctx *c)
{
	const struct nlattr *tb[ARRAY_SIZE(pol_expr)] = { NULL };
	const struct vexpr *e;
	int err;

	if (++c->depth > MAX_DEPTH)
		return -EBADMSG;
	if ((err = check_nest(pdata(a), plen(a), &nest_expr, tb, c)))
		goto out;
	err = -EBADMSG;
	if (!tb[NFTA_EXPR_NAME])
		goto out;
	e = bsearch(pdata(tb[NFTA_EXPR_NAME]), exprs, ARRAY_SIZE(exprs), sizeof(exprs[0]),
		    cmp_expr);
	if (!e)
		goto out;
	if (tb[NFTA_EXPR_DATA] && !nest_len_ok(plen(tb[NFTA_EXPR_DATA])))
		goto out;
	err = 0;
	if (tb[NFTA_EXPR_DATA])
		err = check_nest(pdata(tb[NFTA_EXPR_DATA]), plen(tb[NFTA_EXPR_DATA]),
				 &e->nest, NULL, c);
out:
	c->depth--;
	return err;
}

/* Children of a list nest: every one of type `type`, each checked by fn. */
static int check_list(const struct nlattr *a, uint16_t type,
		      int (*fn)(const struct nlattr *, struct vctx *), struct vctx *c)
{
	const uint8_t *p = pdata(a);
	size_t len = plen(a), off = 0;
	int err;

	while (off + NLA_HDRLEN <= len) {
		const struct nlattr *k = (const struct nlattr *)(const void *)(p + off);

		if (k->nla_len < NLA_HDRLEN || k->nla_len > len - off || atype(k) != type)
			return -EBADMSG;
		if ((err = fn(k, c)))
			return err;
		off += NLA_ALIGN(k->nla_len);
	}
	return off < len && len - off >= NLA_HDRLEN ? -EBADMSG : 0;
}

static int check_elem(const struct nlattr *a, struct vctx *c)
{
	return check_nest(pdata(a), plen(a), &nest_elem, NULL, c);
}

static int check_dev(const struct nlattr *a, struct vctx *c)
{
	(void)c;
	return plen(a) && pdata(a)[plen(a) - 1] == '\0' ? 0 : -EBADMSG;
}

static const struct vpol pol_field[] = {
	[NFTA_SET_FIELD_LEN] = { V_U32, NULL },
};
static const struct vnest nest_field = NEST(pol_field);

static int check_field(const struct nlattr *a, struct vctx *c)
{
	const struct nlattr *tb[ARRAY_SIZE(pol_field)] = { NULL };
	const uint8_t *p = pdata(a);
	size_t off = 0;
	int err;

	if ((err = check_nest(p, plen(a), &nest_field, tb, c)))
		return err;
	/* libnftnl counts every FIELD_LEN, repeated ones too */
	while (off + NLA_HDRLEN <= plen(a)) {
		const struct nlattr *k = (const struct nlattr *)(const void *)(p + off);

		if (atype(k) == NFTA_SET_FIELD_LEN && ++c->fields > CONCAT_MAX)
			return -EBADMSG;
		off += NLA_ALIGN(k->nla_len);
	}
	return 0;
}

static int check_verdict(const struct nlattr *a, struct vctx *c)
{
	const struct nlattr *tb[ARRAY_SIZE(pol_verdict)] = { NULL };
	uint32_t code;
	int err;

	if ((err = check_nest(pdata(a), plen(a), &nest_verdict, tb, c)))
		return err;
	/* libnftnl reads these from an uninitialised table */
	if (!tb[NFTA_VERDICT_CODE])
		return -EBADMSG;
	memcpy(&code, pdata(tb[NFTA_VERDICT_CODE]), sizeof(code));
	code = ntohl(code);
	if ((code == (uint32_t)NFT_JUMP || code == (uint32_t)NFT_GOTO) && !tb[NFTA_VERDICT_CHAIN])
		return -EBADMSG;
	return 0;
}

static int check_attr(const struct nlattr *a, const struct vpol *p, struct vctx *c)
{
	size_t l = plen(a);

	if (p->kind >= V_NEST && !nest_len_ok(l))
		return -EBADMSG;
	switch ((enum vkind)p->kind) {
	case V_NONE:
	case V_BIN:
	case V_OBJ_DATA:        /* checked once the type is known */
		return 0;
	case V_U8:
		return l == 1 ? 0 : -EBADMSG;
	case V_U16:
		return l == 2 ? 0 : -EBADMSG;
	case V_U32:
		return l == 4 ? 0 : -EBADMSG;
	case V_U64:
		return l == 8 ? 0 : -EBADMSG;
	case V_STR:
		return l && pdata(a)[l - 1] == '\0' ? 0 : -EBADMSG;
	case V_NEST:
		return check_nest(pdata(a), l, p->nest, NULL, c);
	case V_DATA: {
		const struct nlattr *tb[ARRAY_SIZE(pol_data)] = { NULL };
		int err = check_nest(pdata(a), l, &nest_data, tb, c);

		if (err)
			return err;
		if (tb[NFTA_DATA_VALUE] &&
		    (!plen(tb[NFTA_DATA_VALUE]) || plen(tb[NFTA_DATA_VALUE]) > DATA_VALUE_MAX))
			return -EBADMSG;
		return 0;
	}
	case V_VERDICT:
		return check_verdict(a, c);
	case V_EXPR:
		return check_expr(a, c);
	case V_EXPR_LIST:
		return check_list(a, NFTA_LIST_ELEM, check_expr, c);
	case V_ELEM_LIST:
		return check_list(a, NFTA_LIST_ELEM, check_elem, c);
	case V_DEV_LIST:
		return check_list(a, NFTA_DEVICE_NAME, check_dev, c);
	case V_CONCAT:
		c->fields = 0;
		return check_list(a, NFTA_LIST_ELEM, check_field, c);
	}
	return -EBADMSG;
}

/* Every attribute in p[0..len): whole, of the kind its policy says; tb
 * (n->n entries, optional) gets the last one of each type as libnftnl
 * keeps it. Bytes after the last attribute must be shorter than a header. */
static int check_nest(const uint8_t *p, size_t len, const struct vnest *n,
		      const struct nlattr **tb, struct vctx *c)
{
	const struct nlattr *a;
	size_t off;
	int err;

	sw_nlattr_for_each(a, p, len, off) {
		uint16_t t = atype(a);

		if (n->strict_max && t > n->strict_max)
			return -EBADMSG;
		if (t < n->n) {
			if ((err = check_attr(a, &n->pol[t], c)))
				return err;
			if (tb)
				tb[t] = a;
		}
	}
	return len - off >= NLA_HDRLEN ? -EBADMSG : 0;
}

/* NFTA_OBJ_DATA is parsed by the object type's own parser: only counters
 * (what sandwall asks for) are let through with data. */
static int check_obj_data(const struct nlattr **tb, struct vctx *c)
{
	uint32_t type;

	if (!tb[NFTA_OBJ_DATA])
		return 0;
	memcpy(&type, pdata(tb[NFTA_OBJ_TYPE]), sizeof(type));
	if (ntohl(type) != NFT_OBJECT_COUNTER)
		return -EBADMSG;
	return check_nest(pdata(tb[NFTA_OBJ_DATA]), plen(tb[NFTA_OBJ_DATA]),
			  &nest_counters, NULL, c);
}

int sw_nft_validate(const struct nlmsghdr *nlh, enum sw_nft_obj kind)
{
	const struct nlattr *tb[ARRAY_SIZE(pol_set)] = { NULL };   /* the largest */
	struct vctx c = { 0 };
	uint16_t type;
	size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg));
	int err;

	_Static_assert(ARRAY_SIZE(pol_set) >= ARRAY_SIZE(pol_table) &&
		       ARRAY_SIZE(pol_set) >= ARRAY_SIZE(pol_chain) &&
		       ARRAY_SIZE(pol_set) >= ARRAY_SIZE(pol_elems) &&
		       ARRAY_SIZE(pol_set) >= ARRAY_SIZE(pol_obj) &&
		       ARRAY_SIZE(pol_set) >= ARRAY_SIZE(pol_rule), "tb too small");
	/* libmnl walks a message's attributes up to NLMSG_ALIGN(nlmsg_len):
	 * an unaligned length lets it read bytes past the message (and past
	 * the buffer, for the last one) that this walk never saw. The kernel
	 * pads every message it sends, so an unaligned one is refused. */
	if ((unsigned)kind >= ARRAY_SIZE(objs) || nlh->nlmsg_len < hdr ||
	    NLMSG_ALIGN(nlh->nlmsg_len) != nlh->nlmsg_len)
		return -EBADMSG;
	type = NFNL_MSG_TYPE(nlh->nlmsg_type);
	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES ||
	    (type != objs[kind].new_type && type != objs[kind].del_type))
		return -EBADMSG;
	err = check_nest((const uint8_t *)nlh + hdr, nlh->nlmsg_len - hdr, &objs[kind].nest,
			 tb, &c);
	if (err)
		return err;
	for (size_t i = 0; i < ARRAY_SIZE(objs[kind].required); i++) {
		uint16_t r = objs[kind].required[i];

		if (r && !tb[r])
			return -EBADMSG;
	}
	if (kind == SW_NFT_OBJ)
		return check_obj_data(tb, &c);
	return 0;
}
