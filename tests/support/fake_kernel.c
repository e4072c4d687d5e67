/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_kernel: what fake_kernel.h declares, compiled once into build/libswtest.a. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_kernel.h"

/* ---- the host ------------------------------------------------------------ */

struct sw_link *tk_new_link(struct sw_host *h)
{
	assert_int_equal(sw_host_room_links(h), 0);
	memset(&h->links[h->n_links], 0, sizeof(*h->links));
	return &h->links[h->n_links++];
}

struct sw_addr *tk_new_addr(struct sw_host *h)
{
	assert_int_equal(sw_host_room_addrs(h), 0);
	memset(&h->addrs[h->n_addrs], 0, sizeof(*h->addrs));
	return &h->addrs[h->n_addrs++];
}

struct sw_route *tk_new_route(struct sw_host *h)
{
	assert_int_equal(sw_host_room_routes(h), 0);
	memset(&h->routes[h->n_routes], 0, sizeof(*h->routes));
	return &h->routes[h->n_routes++];
}

void tk_link(struct sw_host *h, int idx, const char *name, bool bridge)
{
	struct sw_link *l = tk_new_link(h);

	l->ifindex = idx;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->is_bridge = bridge;
	l->kind = bridge ? SW_LINK_BRIDGE : SW_LINK_OTHER;
	l->up = true;
}

void tk_addr(struct sw_host *h, int idx, const char *text)
{
	struct sw_addr *a = tk_new_addr(h);
	char buf[64];
	char *slash;
	uint8_t len;

	/* the address itself with the prefix length of the address (host bits kept) */
	snprintf(buf, sizeof(buf), "%s", text);
	slash = strchr(buf, '/');
	assert_non_null(slash);
	*slash = '\0';
	len = (uint8_t)atoi(slash + 1);
	assert_int_equal(sw_prefix_parse(buf, &a->local, NULL), 0);
	a->local.len = len;
	a->ifindex = idx;
}

void tk_gateway(struct sw_host *h, const char *text, int oif)
{
	struct sw_gateway *g = &h->gateways[h->n_gateways++];

	assert_int_equal(sw_prefix_parse(text, &g->addr, NULL), 0);
	g->oif = oif;
}

/* lo 1, eth0 2, docker0 3 (bridge), br-0a1b2c3d4e5f 4 (bridge); gateways
 * 10.0.0.1 and fd00:10::1; resolver 169.254.169.253. */
void tk_host(struct sw_host *h)
{
	sw_host_clear(h);
	tk_link(h, 1, "lo", false);
	tk_link(h, 2, "eth0", false);
	tk_link(h, 3, "docker0", true);
	tk_link(h, 4, "br-0a1b2c3d4e5f", true);
	tk_addr(h, 1, "127.0.0.1/8");
	tk_addr(h, 2, "10.0.0.2/24");
	tk_addr(h, 2, "fd00:10::2/64");
	tk_addr(h, 3, "172.17.0.1/16");
	tk_addr(h, 4, "172.18.0.1/16");
	tk_gateway(h, "10.0.0.1", 2);
	tk_gateway(h, "fd00:10::1", 2);
	assert_int_equal(sw_prefix_parse("169.254.169.253", &h->resolvers[0], NULL), 0);
	h->n_resolvers = 1;
	sw_host_classify(h);
}

/* Build the desired model from config text and host h (tk_host() if NULL). */
void tk_build_host(const char *conf, const struct sw_host *h, struct sw_model *m)
{
	static struct sw_config cfg;
	static struct sw_host def;
	char err[SW_ERRLEN] = "";
	int rc;

	rc = sw_config_parse_string(conf, "test.conf", &cfg, err, sizeof(err));
	if (rc)
		fail_msg("config: %s", err);
	if (!h) {
		tk_host(&def);
		h = &def;
	}
	rc = sw_ruleset_build(&cfg, h, m, err, sizeof(err));
	if (rc)
		fail_msg("build: %s", err);
}

void tk_build(const char *conf, struct sw_model *m)
{
	tk_build_host(conf, NULL, m);
}

/* ---- the fake kernel ------------------------------------------------------ */

void fk_init(struct fk *k)
{
	memset(k, 0, sizeof(*k));
	for (int i = 0; i < 4; i++)
		k->fail_index[i] = -1;
}

void fk_free(struct fk *k)
{
	for (size_t i = k->qhead; i < k->qtail; i++)
		free(k->q[i]);
	free(k->last);
	memset(k, 0, sizeof(*k));
}

/* A new empty datagram at the tail of the queue; returns its index. */
size_t fk_dgram(struct fk *k)
{
	assert_true(k->qtail < FK_QMAX);
	k->q[k->qtail] = calloc(1, FK_DGRAM);
	assert_non_null(k->q[k->qtail]);
	k->qlen[k->qtail] = 0;
	return k->qtail++;
}

/* Append one message to datagram d: header + payload (may be NULL/0). */
struct nlmsghdr *fk_put(struct fk *k, size_t d, uint16_t type, uint16_t flags,
			uint32_t seq, uint32_t pid)
{
	struct nlmsghdr *nlh;

	assert_true(k->qlen[d] + 4096 < FK_DGRAM);
	nlh = mnl_nlmsg_put_header(k->q[d] + k->qlen[d]);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	return nlh;
}

void fk_done(struct fk *k, size_t d, struct nlmsghdr *nlh)
{
	k->qlen[d] += NLMSG_ALIGN(nlh->nlmsg_len);
}

/* NLMSG_ERROR for seq: error 0 is an ACK; msg adds NLMSGERR_ATTR_MSG
 * (capped: no echo of the request; uncapped: the request header echoed,
 * orig may be NULL then an empty header is echoed). */
void fk_put_err(struct fk *k, size_t d, uint32_t seq, int error,
		const char *msg, bool capped, const struct nlmsghdr *orig)
{
	struct nlmsghdr *nlh = fk_put(k, d, NLMSG_ERROR, 0, seq, 0);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = error;
	if (orig)
		e->msg = *orig;
	else
		e->msg.nlmsg_len = sizeof(e->msg);
	e->msg.nlmsg_seq = seq;
	if (!capped && orig && orig->nlmsg_len > sizeof(*orig)) {
		/* the kernel echoes the whole request when not capped */
		size_t plen = orig->nlmsg_len - sizeof(*orig);
		void *p = mnl_nlmsg_put_extra_header(nlh, MNL_ALIGN(plen));

		memcpy(p, orig + 1, plen);
	}
	if (capped)
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	if (msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	fk_done(k, d, nlh);
}

/* NFT_MSG_NEWGEN with NFTA_GEN_ID for seq. */
void fk_put_newgen(struct fk *k, size_t d, uint32_t seq, uint32_t genid)
{
	struct nlmsghdr *nlh = fk_put(k, d, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN, 0,
				      seq, 0);
	struct nfgenmsg *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons((uint16_t)(genid & 0xffff));
	mnl_attr_put_u32(nlh, NFTA_GEN_ID, htonl(genid));
	mnl_attr_put_u32(nlh, NFTA_GEN_PROC_PID, htonl(4242));
	mnl_attr_put_strz(nlh, NFTA_GEN_PROC_NAME, "nft");
	fk_done(k, d, nlh);
}

int fk_fail_slot(const struct fk *k, int index)
{
	for (int i = 0; i < 4; i++)
		if (k->fail_index[i] == index)
			return i;
	return -1;
}

/* Answer a batch the way the kernel does: one NLMSG_ERROR per inner
 * message that asked for an ACK, or one error on the BEGIN seq. */
void fk_answer_batch(struct fk *k, const uint8_t *buf, size_t len)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	const struct nlmsghdr *msgs[4096];
	size_t n = 0, d;
	int rest = (int)len;
	int index = 0;

	if (k->no_answer)
		return;
	if (k->restarts) {
		if (k->restarts > 0)
			k->restarts--;
		fk_put_err(k, fk_dgram(k), nlh->nlmsg_seq, -ERESTART, NULL, true, nlh);
		return;
	}
	if (k->begin_err) {
		fk_put_err(k, fk_dgram(k), nlh->nlmsg_seq, k->begin_err, NULL, true, nlh);
		return;
	}
	for (; mnl_nlmsg_ok(nlh, rest); nlh = mnl_nlmsg_next(nlh, &rest))
		if (nlh->nlmsg_flags & NLM_F_ACK) {
			assert_true(n < sizeof(msgs) / sizeof(msgs[0]));
			msgs[n++] = nlh;
		}
	d = fk_dgram(k);
	if (k->stale_first)
		fk_put_err(k, d, msgs[0]->nlmsg_seq - 1000, -ENOENT, "stale answer", true, NULL);
	for (size_t i = 0; i < n; i++, index++) {
		int slot = fk_fail_slot(k, index);

		if (k->skip_ack && i + 1 == k->skip_ack)
			continue;
		if (k->acks_per_dgram && i && i % k->acks_per_dgram == 0)
			d = fk_dgram(k);
		if (slot >= 0)
			fk_put_err(k, d, msgs[i]->nlmsg_seq, k->fail_err[slot], k->fail_msg[slot],
				   !k->uncapped, msgs[i]);
		else
			fk_put_err(k, d, msgs[i]->nlmsg_seq, 0, NULL, true, msgs[i]);
	}
}

ssize_t fk_send(void *ctx, const void *buf, size_t len)
{
	struct fk *k = ctx;
	const struct nlmsghdr *nlh = buf;

	k->n_sends++;
	if (k->send_err)
		return k->send_err;
	assert_true(len >= sizeof(*nlh));
	if (nlh->nlmsg_type == NFNL_MSG_BATCH_BEGIN) {
		k->n_batches++;
		free(k->last);
		k->last = malloc(len);
		assert_non_null(k->last);
		memcpy(k->last, buf, len);
		k->last_len = len;
		fk_answer_batch(k, buf, len);
	} else if (nlh->nlmsg_type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETGEN)) {
		k->n_getgens++;
		if (!k->no_answer)
			fk_put_newgen(k, fk_dgram(k), nlh->nlmsg_seq, k->genid);
	} else if (nlh->nlmsg_type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETTABLE)) {
		/* the fake kernel holds no table: ENOENT, as the kernel says */
		if (!k->no_answer)
			fk_put_err(k, fk_dgram(k), nlh->nlmsg_seq, -ENOENT, NULL, true, nlh);
	}
	return (ssize_t)len;
}

ssize_t fk_recv(void *ctx, void *buf, size_t len, int timeout_ms)
{
	struct fk *k = ctx;
	size_t n;

	(void)timeout_ms;
	k->n_recvs++;
	if (k->qhead == k->qtail)
		return k->recv_err;     /* 0: timeout */
	n = k->qlen[k->qhead];
	assert_true(n <= len);
	memcpy(buf, k->q[k->qhead], n);
	free(k->q[k->qhead]);
	k->q[k->qhead++] = NULL;
	return (ssize_t)n;
}

const struct sw_nl_ops fk_ops = { .send = fk_send, .recv = fk_recv };

size_t fk_pending(const struct fk *k)
{
	return k->qtail - k->qhead;
}
