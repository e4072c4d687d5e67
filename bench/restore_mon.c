// SPDX-License-Identifier: GPL-2.0-or-later
/* restore_mon: the measuring half of bench/restore. Three modes:
 *
 *   restore_mon monitor [-T TABLE] -t WHO -r WHO [-o PAIRS] [-l GENLOG] [-R READYFILE]
 *       Subscribes to NFNLGRP_NFTABLES and stamps every NFT_MSG_NEWGEN with
 *       CLOCK_MONOTONIC (us) at receipt, with its NFTA_GEN_PROC_PID/_NAME and
 *       whether the transaction touched table inet TABLE (every nf_tables
 *       object message names its table in attribute 1; family in nfgenmsg).
 *       A transaction of the tamperer (-t) that touched the table is paired
 *       with the next one of the repairer (-r) that touched it; the delay is
 *       the repair generation minus the tamper generation. WHO is a pid
 *       (digits) or a process name (comm). Runs until SIGTERM/SIGINT, then
 *       prints count, p50/p90/p99/max, per tamper kind, and ENOBUFS seen.
 *       No kernel timestamp exists for netlink, so a stamp is taken at
 *       receipt: a transaction whose first datagram was already queued when
 *       the monitor came to read it is counted as late (run it with chrt -f).
 *
 *   restore_mon tamper N [-T TABLE] [-k KINDS] [-w TIMEOUT_MS] [-s SLEEP_US] [-C] [-o LOG]
 *       N tampers with table inet TABLE over ONE netfilter socket (-C: a
 *       fresh socket per tamper, closed before waiting), kinds in rotation
 *       (comma list; default all but nft):
 *         deltable   delete table
 *         flushchain flush chain guard (DELRULE, table+chain, no handle)
 *         delrule    delete the guard rule that looks up @metadata4 (by handle)
 *         insaccept  insert "accept" at the head of chain guard
 *         delelem    delete element 169.254.169.254 from set metadata4
 *         flushset   flush set metadata4 (DELSETELEM without elements)
 *         policy     chain prerouting policy drop
 *         addallow   add 169.254.169.254 . udp . 53 to set allow4
 *         nft        run `nft delete table inet TABLE` (a process per tamper)
 *       After a tamper the kernel accepted, it waits (on its own event
 *       subscription) for the next generation from another process that
 *       touches the table (timeout -w, default 1000 ms), then sleeps -s us
 *       (default 2000). Prints what the kernel answered, per kind.
 *       The process names itself "sw_tamper" (comm) for the monitor. -o: one
 *       line per tamper, "KIND ERRNO REPAIRED" (ERRNO 0: accepted).
 *
 *   restore_mon flood PPS ADDR:PORT [ADDR:PORT...]
 *       UDP datagrams at PPS in total, round robin over the destinations,
 *       until SIGTERM/SIGINT; prints how many were sent to each.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#define RCVBUF      (64 << 20)
#define BUFSZ       (256 * 1024)

extern char **environ;

static volatile sig_atomic_t stop;
static void on_stop(int sig) { (void)sig; stop = 1; }

static void catch_stop(void)
{
	struct sigaction sa = { .sa_handler = on_stop };   /* no SA_RESTART: recv returns EINTR */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	fprintf(stderr, "restore_mon: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* ---- nf_tables events ---------------------------------------------------- */

static const struct { uint16_t type; const char *what; } kinds_seen[] = {
	{ NFT_MSG_DELTABLE, "delete table" },      { NFT_MSG_NEWTABLE, "change table" },
	{ NFT_MSG_DELCHAIN, "delete chain" },      { NFT_MSG_NEWCHAIN, "add or change chain" },
	{ NFT_MSG_DELSET, "delete set" },          { NFT_MSG_NEWSET, "add set" },
	{ NFT_MSG_DELOBJ, "delete counter" },      { NFT_MSG_NEWOBJ, "add counter" },
	{ NFT_MSG_DELRULE, "delete rule" },        { NFT_MSG_NEWRULE, "add rule" },
	{ NFT_MSG_DELSETELEM, "delete element" },  { NFT_MSG_NEWSETELEM, "add element" },
};
#define N_KINDS_SEEN (sizeof(kinds_seen) / sizeof(kinds_seen[0]))

struct txn {
	bool touched;
	int worst;          /* index into kinds_seen */
	uint32_t pid;
	char comm[32];
};

static bool names_table(const struct nlmsghdr *nlh, const char *table)
{
	const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*g)) || g->nfgen_family != NFPROTO_INET)
		return false;
	mnl_attr_for_each(a, nlh, sizeof(*g))
		if (mnl_attr_get_type(a) == 1 && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			return !strcmp(mnl_attr_get_str(a), table);
	return false;
}

typedef void (*gen_cb)(const struct txn *t, int64_t at, void *data);

/* One datagram; cb on every NEWGEN (touched or not). */
static void parse_events(const void *buf, size_t len, const char *table, struct txn *cur,
			 int64_t at, gen_cb cb, void *data)
{
	const struct nlmsghdr *nlh = buf;
	int left = (int)len;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		uint16_t type;

		if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES)
			continue;
		type = NFNL_MSG_TYPE(nlh->nlmsg_type);
		if (type == NFT_MSG_NEWGEN) {
			const struct nlattr *a;

			mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
				if (mnl_attr_get_type(a) == NFTA_GEN_PROC_PID &&
				    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
					cur->pid = ntohl(mnl_attr_get_u32(a));
				else if (mnl_attr_get_type(a) == NFTA_GEN_PROC_NAME &&
					 mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
					snprintf(cur->comm, sizeof(cur->comm), "%s", mnl_attr_get_str(a));
			}
			cb(cur, at, data);
			memset(cur, 0, sizeof(*cur));
			continue;
		}
		for (size_t i = 0; i < N_KINDS_SEEN; i++) {
			if (kinds_seen[i].type != type)
				continue;
			if (names_table(nlh, table)) {
				if (!cur->touched || (int)i < cur->worst)
					cur->worst = (int)i;
				cur->touched = true;
			}
			break;
		}
	}
}

static struct mnl_socket *subscribe(bool nonblock)
{
	struct mnl_socket *s = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0));
	unsigned grp = NFNLGRP_NFTABLES;
	int size = RCVBUF;

	if (!s)
		die("netlink socket");
	if (mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0)
		die("bind");
	if (mnl_socket_setsockopt(s, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
		die("NETLINK_ADD_MEMBERSHIP NFNLGRP_NFTABLES");
	if (setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return s;
}

/* ---- monitor -------------------------------------------------------------- */

struct who {
	uint32_t pid;       /* 0: match by comm */
	char comm[32];
};

static void parse_who(const char *s, struct who *w)
{
	memset(w, 0, sizeof(*w));
	if (s[0] && strspn(s, "0123456789") == strlen(s))
		w->pid = (uint32_t)strtoul(s, NULL, 10);
	else
		snprintf(w->comm, sizeof(w->comm), "%s", s);
}

static bool is_who(const struct who *w, const struct txn *t)
{
	return w->pid ? t->pid == w->pid : !strcmp(t->comm, w->comm);
}

struct pair { int64_t us; int kind; bool late; };

struct mon {
	struct who tamper, repair;
	bool pending, pending_late;
	bool new_txn, txn_late;     /* first datagram of this transaction was already queued */
	int64_t pending_at;
	int pending_kind;
	struct pair *pairs;
	size_t n, cap;
	unsigned long gens, touched, tampers, repairs, superseded, lone_repairs, others;
	unsigned long late_tampers, late_repairs;
	char other_comm[64];
	FILE *genlog, *pairlog;
};

static void mon_gen(const struct txn *t, int64_t at, void *data)
{
	struct mon *m = data;

	bool late = m->txn_late;

	m->gens++;
	m->new_txn = true;
	if (m->genlog)
		fprintf(m->genlog, "%lld pid=%u comm=%s touched=%d late=%d change=\"%s\"\n", (long long)at,
			t->pid, t->comm, t->touched, late, t->touched ? kinds_seen[t->worst].what : "");
	if (!t->touched)
		return;
	m->touched++;
	if (is_who(&m->tamper, t)) {
		m->tampers++;
		if (m->pending)
			m->superseded++;        /* a tamper before the last was repaired */
		m->pending = true;
		m->pending_late = late;
		m->late_tampers += late;
		m->pending_at = at;
		m->pending_kind = t->worst;
	} else if (is_who(&m->repair, t)) {
		m->repairs++;
		m->late_repairs += late;
		if (!m->pending) {
			m->lone_repairs++;
			return;
		}
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 1024;
			m->pairs = realloc(m->pairs, m->cap * sizeof(*m->pairs));
			if (!m->pairs)
				die("realloc");
		}
		m->pairs[m->n++] = (struct pair){ at - m->pending_at, m->pending_kind, late || m->pending_late };
		if (m->pairlog)
			fprintf(m->pairlog, "%lld %d %s\n", (long long)(at - m->pending_at),
				late || m->pending_late, kinds_seen[m->pending_kind].what);
		m->pending = false;
	} else {
		m->others++;
		snprintf(m->other_comm, sizeof(m->other_comm), "%u/%s", t->pid, t->comm);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t quant(const int64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

static void stats_line(const char *label, int64_t *v, size_t n)
{
	double sum = 0;

	if (!n) {
		printf("%s count=0\n", label);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	printf("%s count=%zu min=%lld p50=%lld p90=%lld p99=%lld max=%lld mean=%.0f\n", label, n,
	       (long long)v[0], (long long)quant(v, n, .5), (long long)quant(v, n, .9),
	       (long long)quant(v, n, .99), (long long)v[n - 1], sum / (double)n);
}

static int run_monitor(int argc, char **argv)
{
	const char *table = "sandwall", *pairs = NULL, *genlog = NULL, *ready = NULL;
	struct mon m = { .new_txn = true };
	struct txn cur = { 0 };
	unsigned long enobufs = 0;
	bool have_t = false, have_r = false;
	uint8_t *buf = malloc(BUFSZ);
	struct mnl_socket *s;
	int c;

	while ((c = getopt(argc, argv, "T:t:r:o:l:R:")) != -1) {
		switch (c) {
		case 'T': table = optarg; break;
		case 't': parse_who(optarg, &m.tamper); have_t = true; break;
		case 'r': parse_who(optarg, &m.repair); have_r = true; break;
		case 'o': pairs = optarg; break;
		case 'l': genlog = optarg; break;
		case 'R': ready = optarg; break;
		default: return 2;
		}
	}
	if (!have_t || !have_r || !buf) {
		fprintf(stderr, "usage: restore_mon monitor [-T TABLE] -t WHO -r WHO [-o PAIRS] [-l GENLOG] [-R READY]\n");
		return 2;
	}
	if (pairs && !(m.pairlog = fopen(pairs, "w")))
		die(pairs);
	if (genlog && !(m.genlog = fopen(genlog, "w")))
		die(genlog);
	catch_stop();
	s = subscribe(false);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0)
			die(ready);
		close(fd);
	}
	while (!stop) {
		struct sockaddr_nl sa;
		struct iovec iov = { buf, BUFSZ };
		struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1 };
		/* Queued already (DONTWAIT succeeds) at the first datagram of a
		 * transaction: the monitor was busy or descheduled when it came,
		 * so its stamp is late. Counted, not hidden. */
		bool queued = true;
		ssize_t n = recvmsg(mnl_socket_get_fd(s), &mh, MSG_DONTWAIT);
		int64_t at;

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			queued = false;
			n = recvmsg(mnl_socket_get_fd(s), &mh, 0);
		}
		at = now_us();

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				enobufs++;
				memset(&cur, 0, sizeof(cur));
				m.pending = false;
				continue;
			}
			die("recvmsg");
		}
		if (sa.nl_pid != 0 || (mh.msg_flags & MSG_TRUNC))
			continue;
		if (m.new_txn) {
			m.txn_late = queued;
			m.new_txn = false;
		}
		parse_events(buf, (size_t)n, table, &cur, at, mon_gen, &m);
	}

	int64_t *all = malloc((m.n + 1) * sizeof(int64_t)), *one = malloc((m.n + 1) * sizeof(int64_t));
	size_t k;

	if (!all || !one)
		die("malloc");
	for (size_t i = 0; i < m.n; i++)
		all[i] = m.pairs[i].us;
	printf("monitor gens=%lu touched=%lu tampers=%lu repairs=%lu paired=%zu unrepaired=%lu "
	       "lone_repairs=%lu others=%lu%s%s enobufs=%lu late_tampers=%lu late_repairs=%lu\n",
	       m.gens, m.touched, m.tampers, m.repairs, m.n, m.superseded + (m.pending ? 1 : 0),
	       m.lone_repairs, m.others, m.others ? " last_other=" : "", m.others ? m.other_comm : "",
	       enobufs, m.late_tampers, m.late_repairs);
	stats_line("delay_us all", all, m.n);
	k = 0;
	for (size_t i = 0; i < m.n; i++)
		if (!m.pairs[i].late)
			one[k++] = m.pairs[i].us;
	stats_line("delay_us on-time", one, k);
	for (size_t kd = 0; kd < N_KINDS_SEEN; kd++) {
		char label[80];

		k = 0;
		for (size_t i = 0; i < m.n; i++)
			if (m.pairs[i].kind == (int)kd)
				one[k++] = m.pairs[i].us;
		if (!k)
			continue;
		snprintf(label, sizeof(label), "delay_us kind=\"%s\"", kinds_seen[kd].what);
		stats_line(label, one, k);
	}
	if (m.pairlog)
		fclose(m.pairlog);
	if (m.genlog)
		fclose(m.genlog);
	mnl_socket_close(s);
	return 0;
}

/* ---- tamper --------------------------------------------------------------- */

enum { K_DELTABLE, K_FLUSHCHAIN, K_DELRULE, K_INSACCEPT, K_DELELEM, K_FLUSHSET, K_POLICY,
       K_ADDALLOW, K_NFT, K_MAX };
static const char *const kind_names[K_MAX] = {
	"deltable", "flushchain", "delrule", "insaccept", "delelem", "flushset", "policy",
	"addallow", "nft",
};

struct tamper {
	const char *table;
	struct mnl_socket *nl;
	uint32_t portid, seq;
	char *buf;
};

static void tnl_open(struct tamper *t)
{
	t->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!t->nl || mnl_socket_bind(t->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netfilter socket");
	t->portid = mnl_socket_get_portid(t->nl);
}

/* Receive until the answer to seq; returns 0 or -errno. */
static int read_ack(struct tamper *t, uint32_t seq, mnl_cb_t cb, void *data)
{
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(t->nl, t->buf, BUFSZ);
		int rc;

		if (n < 0)
			return -errno;
		rc = mnl_cb_run(t->buf, (size_t)n, seq, t->portid, cb, data);
		if (rc == MNL_CB_ERROR)
			return -errno;
		if (rc == MNL_CB_STOP)
			return 0;
	}
}

struct handle_find { uint64_t handle; bool found; };

static int expr_is_meta4(struct nftnl_expr *e, void *data)
{
	const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);

	if (name && !strcmp(name, "lookup") && nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_SET) &&
	    !strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET), "metadata4"))
		*(bool *)data = true;
	return 0;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct handle_find *h = data;
	struct nftnl_rule *r = nftnl_rule_alloc();
	bool hit = false;

	if (r && nftnl_rule_nlmsg_parse(nlh, r) == 0) {
		nftnl_expr_foreach(r, expr_is_meta4, &hit);
		if (hit && !h->found) {
			h->handle = nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE);
			h->found = true;
		}
	}
	nftnl_rule_free(r);
	return MNL_CB_OK;
}

/* The handle of the guard rule that looks up @metadata4 (not timed). */
static int find_meta4_rule(struct tamper *t, uint64_t *handle)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct handle_find h = { 0 };
	uint32_t seq = ++t->seq;
	struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(t->buf, NFT_MSG_GETRULE, NFPROTO_INET,
						     NLM_F_DUMP, seq);
	int rc;

	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, t->table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, "guard");
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	if (mnl_socket_sendto(t->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	rc = read_ack(t, seq, rule_cb, &h);
	if (rc)
		return rc;
	*handle = h.handle;
	return h.found ? 0 : -ENOENT;
}

/* One batch with one message; 0 or -errno from the kernel. */
static int tamper_once(struct tamper *t, int kind)
{
	struct mnl_nlmsg_batch *b;
	uint16_t fl = NLM_F_ACK;
	uint32_t seq0 = ++t->seq, seq;
	struct nlmsghdr *nlh;
	uint64_t handle = 0;
	int rc;

	if (kind == K_DELRULE && find_meta4_rule(t, &handle) < 0)
		kind = K_FLUSHCHAIN;    /* the rule is not there: flush instead */
	b = mnl_nlmsg_batch_start(t->buf, BUFSZ);
	nftnl_batch_begin(mnl_nlmsg_batch_current(b), seq0);
	mnl_nlmsg_batch_next(b);
	seq = ++t->seq;

	switch (kind) {
	case K_DELTABLE: {
		struct nftnl_table *x = nftnl_table_alloc();

		nftnl_table_set_str(x, NFTNL_TABLE_NAME, t->table);
		nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b), NFT_MSG_DELTABLE, NFPROTO_INET, fl, seq);
		nftnl_table_nlmsg_build_payload(nlh, x);
		nftnl_table_free(x);
		break;
	}
	case K_FLUSHCHAIN:
	case K_DELRULE:
	case K_INSACCEPT: {
		struct nftnl_rule *r = nftnl_rule_alloc();
		uint16_t type = NFT_MSG_DELRULE;

		nftnl_rule_set_str(r, NFTNL_RULE_TABLE, t->table);
		nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, "guard");
		if (kind == K_DELRULE)
			nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, handle);
		if (kind == K_INSACCEPT) {
			struct nftnl_expr *e = nftnl_expr_alloc("immediate");

			nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
			nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, NF_ACCEPT);
			nftnl_rule_add_expr(r, e);
			type = NFT_MSG_NEWRULE;
			fl |= NLM_F_CREATE;     /* no NLM_F_APPEND: at the head */
		}
		nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b), type, NFPROTO_INET, fl, seq);
		nftnl_rule_nlmsg_build_payload(nlh, r);
		nftnl_rule_free(r);
		break;
	}
	case K_DELELEM:
	case K_FLUSHSET:
	case K_ADDALLOW: {
		struct nftnl_set *s = nftnl_set_alloc();
		uint16_t type = NFT_MSG_DELSETELEM;

		nftnl_set_set_str(s, NFTNL_SET_TABLE, t->table);
		nftnl_set_set_str(s, NFTNL_SET_NAME, kind == K_ADDALLOW ? "allow4" : "metadata4");
		if (kind == K_DELELEM) {
			/* 169.254.169.254/32 as an interval: start, and end+1 flagged END */
			struct nftnl_set_elem *e1 = nftnl_set_elem_alloc(), *e2 = nftnl_set_elem_alloc();
			uint32_t a = htonl(0xa9fea9fe), z = htonl(0xa9fea9ff);

			nftnl_set_elem_set(e1, NFTNL_SET_ELEM_KEY, &a, sizeof(a));
			nftnl_set_elem_set(e2, NFTNL_SET_ELEM_KEY, &z, sizeof(z));
			nftnl_set_elem_set_u32(e2, NFTNL_SET_ELEM_FLAGS, NFT_SET_ELEM_INTERVAL_END);
			nftnl_set_elem_add(s, e1);
			nftnl_set_elem_add(s, e2);
		} else if (kind == K_ADDALLOW) {
			/* ipv4_addr . inet_proto . inet_service, each in a 4-byte slot */
			uint8_t key[12] = { 169, 254, 169, 254, IPPROTO_UDP, 0, 0, 0, 0, 53, 0, 0 };
			struct nftnl_set_elem *e = nftnl_set_elem_alloc();

			nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, sizeof(key));
			nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY_END, key, sizeof(key));
			nftnl_set_elem_add(s, e);
			type = NFT_MSG_NEWSETELEM;
			fl |= NLM_F_CREATE;
		}
		nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b), type, NFPROTO_INET, fl, seq);
		nftnl_set_elems_nlmsg_build_payload(nlh, s);
		nftnl_set_free(s);
		break;
	}
	case K_POLICY: {
		struct nftnl_chain *c = nftnl_chain_alloc();

		nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, t->table);
		nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, "prerouting");
		nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
		nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_PRE_ROUTING);
		nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, -150);
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_DROP);
		nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b), NFT_MSG_NEWCHAIN, NFPROTO_INET,
					    fl | NLM_F_CREATE, seq);
		nftnl_chain_nlmsg_build_payload(nlh, c);
		nftnl_chain_free(c);
		break;
	}
	default:
		return -EINVAL;
	}
	mnl_nlmsg_batch_next(b);
	nftnl_batch_end(mnl_nlmsg_batch_current(b), ++t->seq);
	mnl_nlmsg_batch_next(b);
	rc = mnl_socket_sendto(t->nl, mnl_nlmsg_batch_head(b), mnl_nlmsg_batch_size(b)) < 0 ? -errno : 0;
	mnl_nlmsg_batch_stop(b);
	if (rc)
		return rc;
	return read_ack(t, seq, NULL, NULL);
}

static int tamper_nft(const char *table, pid_t *child)
{
	char *argv[] = { "nft", "delete", "table", "inet", (char *)table, NULL };
	const char *paths[] = { "/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft" };
	int st, rc = ENOENT;

	for (size_t i = 0; i < 3 && rc == ENOENT; i++)
		rc = posix_spawn(child, paths[i], NULL, NULL, argv, environ);
	if (rc)
		return -rc;
	if (waitpid(*child, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EPERM;  /* nft prints why */
}

struct waitfor { uint32_t self, child; bool done; };

static void tamper_gen(const struct txn *t, int64_t at, void *data)
{
	struct waitfor *w = data;

	(void)at;
	if (t->touched && t->pid != w->self && t->pid != w->child)
		w->done = true;
}

/* Wait for another process's generation on our table; false on timeout. */
static bool wait_repair(struct mnl_socket *ev, const char *table, struct txn *cur, uint32_t child,
			int timeout_ms, uint8_t *buf, unsigned long *enobufs)
{
	struct waitfor w = { (uint32_t)getpid(), child, false };
	int64_t end = now_us() + (int64_t)timeout_ms * 1000;

	while (!w.done) {
		int64_t left = end - now_us();
		struct pollfd p = { mnl_socket_get_fd(ev), POLLIN, 0 };
		ssize_t n;

		if (left <= 0 || stop)
			return false;
		if (poll(&p, 1, (int)((left + 999) / 1000)) <= 0)
			continue;
		while ((n = recv(mnl_socket_get_fd(ev), buf, BUFSZ, 0)) > 0) {
			parse_events(buf, (size_t)n, table, cur, 0, tamper_gen, &w);
			if (w.done)
				break;
		}
		if (n < 0 && errno == ENOBUFS) {
			(*enobufs)++;
			memset(cur, 0, sizeof(*cur));
		}
	}
	return true;
}

static int run_tamper(int argc, char **argv)
{
	struct tamper t = { .table = "sandwall" };
	int kinds[K_MAX], nk = 0, timeout_ms = 1000, c;
	long sleep_us = 2000, n;
	bool fresh = false;
	char *kspec = NULL;
	FILE *log = NULL;
	unsigned long sent[K_MAX] = { 0 }, ok[K_MAX] = { 0 }, eperm[K_MAX] = { 0 }, other[K_MAX] = { 0 };
	unsigned long repaired[K_MAX] = { 0 }, timeouts[K_MAX] = { 0 }, enobufs = 0;
	int last_err[K_MAX] = { 0 };
	int64_t *lat;
	size_t nlat = 0;
	struct txn cur = { 0 };
	uint8_t *evbuf;
	struct mnl_socket *ev;

	if (argc < 2 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: restore_mon tamper N [-T TABLE] [-k KINDS] [-w MS] [-s US] [-C] [-o LOG]\n");
		return 2;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "T:k:w:s:Co:")) != -1) {
		switch (c) {
		case 'T': t.table = optarg; break;
		case 'k': kspec = optarg; break;
		case 'w': timeout_ms = atoi(optarg); break;
		case 's': sleep_us = atol(optarg); break;
		case 'C': fresh = true; break;
		case 'o':
			if (!(log = fopen(optarg, "w")))
				die(optarg);
			break;
		default: return 2;
		}
	}
	if (kspec) {
		for (char *save = NULL, *k = strtok_r(kspec, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
			int i;

			for (i = 0; i < K_MAX && strcmp(kind_names[i], k); i++)
				;
			if (i == K_MAX || nk == K_MAX) {
				fprintf(stderr, "restore_mon: unknown tamper kind '%s'\n", k);
				return 2;
			}
			kinds[nk++] = i;
		}
	} else {
		for (int i = 0; i < K_NFT; i++)
			kinds[nk++] = i;
	}
	prctl(PR_SET_NAME, "sw_tamper");
	catch_stop();
	t.buf = malloc(BUFSZ);
	evbuf = malloc(BUFSZ);
	lat = malloc((size_t)n * sizeof(*lat));
	if (!t.buf || !evbuf || !lat)
		die("malloc");
	ev = subscribe(true);
	if (!fresh)
		tnl_open(&t);
	for (long i = 0; i < n && !stop; i++) {
		int k = kinds[i % nk], rc;
		pid_t child = 0;
		int64_t t0;

		while (recv(mnl_socket_get_fd(ev), evbuf, BUFSZ, 0) > 0 || errno == ENOBUFS)
			;       /* nothing pending from before */
		memset(&cur, 0, sizeof(cur));
		if (fresh)
			tnl_open(&t);
		t0 = now_us();
		rc = k == K_NFT ? tamper_nft(t.table, &child) : tamper_once(&t, k);
		if (fresh) {
			mnl_socket_close(t.nl);
			t.nl = NULL;
		}
		sent[k]++;
		if (rc == 0)
			ok[k]++;
		else if (rc == -EPERM)
			eperm[k]++;
		else {
			other[k]++;
			last_err[k] = -rc;
		}
		bool rep = false;

		if (rc == 0) {
			if ((rep = wait_repair(ev, t.table, &cur, (uint32_t)child, timeout_ms, evbuf, &enobufs))) {
				repaired[k]++;
				lat[nlat++] = now_us() - t0;
			} else {
				timeouts[k]++;
			}
		}
		if (log)
			fprintf(log, "%s %d %d\n", kind_names[k], -rc, rep);
		if (sleep_us > 0)
			usleep((useconds_t)sleep_us);
	}
	unsigned long tot[6] = { 0 };

	for (int k = 0; k < K_MAX; k++) {
		if (!sent[k])
			continue;
		printf("tamper kind=%s sent=%lu accepted=%lu eperm=%lu other_errors=%lu%s%s repaired=%lu timeouts=%lu\n",
		       kind_names[k], sent[k], ok[k], eperm[k], other[k], other[k] ? " last_error=" : "",
		       other[k] ? strerror(last_err[k]) : "", repaired[k], timeouts[k]);
		tot[0] += sent[k]; tot[1] += ok[k]; tot[2] += eperm[k]; tot[3] += other[k];
		tot[4] += repaired[k]; tot[5] += timeouts[k];
	}
	printf("tamper total sent=%lu accepted=%lu eperm=%lu other_errors=%lu repaired=%lu timeouts=%lu enobufs=%lu socket=%s\n",
	       tot[0], tot[1], tot[2], tot[3], tot[4], tot[5], enobufs, fresh ? "fresh-per-tamper" : "one");
	stats_line("tamperer_view_us (send -> repair NEWGEN read)", lat, nlat);
	if (log)
		fclose(log);
	if (t.nl)
		mnl_socket_close(t.nl);
	mnl_socket_close(ev);
	return 0;
}

/* ---- flood ---------------------------------------------------------------- */

static int run_flood(int argc, char **argv)
{
	struct sockaddr_in dst[16];
	unsigned long count[16] = { 0 };
	int nd = 0, fd;
	long pps;
	char payload[32] = "sandwall-bench";
	struct timespec next;

	if (argc < 3 || (pps = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: restore_mon flood PPS ADDR:PORT [ADDR:PORT...]\n");
		return 2;
	}
	for (int i = 2; i < argc && nd < 16; i++) {
		char a[64], *colon;

		snprintf(a, sizeof(a), "%s", argv[i]);
		if (!(colon = strrchr(a, ':')))
			return 2;
		*colon = 0;
		memset(&dst[nd], 0, sizeof(dst[nd]));
		dst[nd].sin_family = AF_INET;
		dst[nd].sin_port = htons((uint16_t)atoi(colon + 1));
		if (inet_pton(AF_INET, a, &dst[nd].sin_addr) != 1)
			return 2;
		nd++;
	}
	catch_stop();
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	/* pace in 1 ms ticks */
	long per_tick = pps / 1000 > 0 ? pps / 1000 : 1;
	unsigned long i = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		for (long j = 0; j < per_tick; j++, i++) {
			int d = (int)(i % (unsigned long)nd);

			if (sendto(fd, payload, sizeof(payload), 0, (struct sockaddr *)&dst[d], sizeof(dst[d])) >= 0)
				count[d]++;
		}
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	for (int d = 0; d < nd; d++) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &dst[d].sin_addr, a, sizeof(a));
		printf("flood dst=%s:%u sent=%lu\n", a, ntohs(dst[d].sin_port), count[d]);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "monitor"))
		return run_monitor(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "tamper"))
		return run_tamper(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "flood"))
		return run_flood(argc - 1, argv + 1);
	fprintf(stderr, "usage: restore_mon monitor|tamper|flood ... (see bench/restore_mon.c)\n");
	return 2;
}
