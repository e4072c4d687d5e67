/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for incremental host tracking: rtnetlink events applied to
 * struct sw_host as deltas (hoststate.c), checked against a fresh full
 * dump of the same fake kernel (fake_rtnl.h) after every step, with the
 * number of dumps counted (deltas cost none); ENOBUFS -> a full dump; and
 * the commit that follows (sw_update_sets against the stateful nf_tables
 * fake, fake_nft.h): element deltas only, no dump of the table, stamped
 * with the generation, refused when anything moved. No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_kernel.h"
#include "fake_nft.h"
#include "fake_rtnl.h"
#include "core/config_check.h"
#include "core/desired.h"
#include "core/diff.h"
#include "sync/hostfast.h"
#include "host/hoststate.h"
#include "sync/reconcile.h"

struct ht {
	struct fr k;
	struct sw_nl dump, ev;
	struct sw_host *h, *fresh;
	unsigned added, removed;        /* on_link calls */
	char last[16];
};

static void on_link(const struct sw_link *l, bool added, void *data)
{
	struct ht *t = data;

	if (added)
		t->added++;
	else
		t->removed++;
	snprintf(t->last, sizeof(t->last), "%s", l->name);
}

/* lo 1, eth0 2 (default via 10.0.0.1), docker0 3 (bridge, 172.17.0.1/16),
 * vethc1 5 (port of docker0), cali1 6 (a routed container: 172.29.0.5/32
 * dev cali1, no address); listed out of ifindex order */
static int setup(void **state)
{
	struct ht *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->h = calloc(1, sizeof(*t->h));
	t->fresh = calloc(1, sizeof(*t->fresh));
	assert_non_null(t->h);
	assert_non_null(t->fresh);
	fr_init(&t->k);
	fr_add_link(&t->k, fr_mklink(3, "docker0", "bridge", true, 0), false);
	fr_add_link(&t->k, fr_mklink(1, "lo", NULL, true, 0), false);
	fr_add_link(&t->k, fr_mklink(5, "vethc1", "veth", true, 3), false);
	fr_add_link(&t->k, fr_mklink(2, "eth0", NULL, true, 0), false);
	fr_add_link(&t->k, fr_mklink(6, "cali1", "veth", true, 0), false);
	fr_add_addr(&t->k, fr_mkaddr(1, "127.0.0.1", 8), false);
	fr_add_addr(&t->k, fr_mkaddr(2, "10.0.0.2", 24), false);
	fr_add_addr(&t->k, fr_mkaddr(3, "172.17.0.1", 16), false);
	fr_add_route(&t->k, fr_mkroute(NULL, 0, 2, "10.0.0.1"), false);
	fr_add_route(&t->k, fr_mkroute("10.0.0.0", 24, 2, NULL), false);
	fr_add_route(&t->k, fr_mkroute("172.17.0.0", 16, 3, NULL), false);
	fr_add_route(&t->k, fr_mkroute("172.29.0.5", 32, 6, NULL), false);
	assert_int_equal(sw_nl_open_ops(&t->dump, &fr_dump_ops, &t->k), 0);
	assert_int_equal(sw_nl_open_ops(&t->ev, &fr_ev_ops, &t->k), 0);
	assert_int_equal(sw_host_dump(&t->dump, t->h), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct ht *t = *state;

	sw_nl_close(&t->dump);
	sw_nl_close(&t->ev);
	fr_free(&t->k);
	sw_host_free(t->h);
	sw_host_free(t->fresh);
	free(t->h);
	free(t->fresh);
	free(t);
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct sw_addr));
}

static int route_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct sw_route));
}

static int gw_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct sw_gateway));
}

/* the tracked host equals a fresh full dump of the fake kernel (links in
 * ifindex order with their classification; addresses, routes and gateways
 * as sets) */
static void assert_tracked(struct ht *t)
{
	struct sw_host *a = t->h, *b = t->fresh;
	size_t dumps = t->k.n_dumps;

	sw_host_clear(b);
	assert_int_equal(sw_host_dump(&t->dump, b), 0);
	t->k.n_dumps = dumps;           /* this check's own dumps do not count */
	assert_int_equal(a->n_links, b->n_links);
	for (size_t i = 0; i < a->n_links; i++) {
		assert_int_equal(a->links[i].ifindex, b->links[i].ifindex);
		assert_string_equal(a->links[i].name, b->links[i].name);
		assert_int_equal(a->links[i].kind, b->links[i].kind);
		assert_int_equal(a->links[i].up, b->links[i].up);
		assert_int_equal(a->links[i].master, b->links[i].master);
		assert_int_equal(a->links[i].master_bridge, b->links[i].master_bridge);
		assert_int_equal(a->links[i].uplink, b->links[i].uplink);
	}
	assert_int_equal(a->n_addrs, b->n_addrs);
	assert_int_equal(a->n_routes, b->n_routes);
	assert_int_equal(a->n_gateways, b->n_gateways);
	assert_int_equal(a->n_uplinks, b->n_uplinks);
	qsort(a->addrs, a->n_addrs, sizeof(*a->addrs), addr_cmp);
	qsort(b->addrs, b->n_addrs, sizeof(*b->addrs), addr_cmp);
	assert_memory_equal(a->addrs, b->addrs, a->n_addrs * sizeof(*a->addrs));
	qsort(a->routes, a->n_routes, sizeof(*a->routes), route_cmp);
	qsort(b->routes, b->n_routes, sizeof(*b->routes), route_cmp);
	assert_memory_equal(a->routes, b->routes, a->n_routes * sizeof(*a->routes));
	qsort(a->gateways, a->n_gateways, sizeof(*a->gateways), gw_cmp);
	qsort(b->gateways, b->n_gateways, sizeof(*b->gateways), gw_cmp);
	assert_memory_equal(a->gateways, b->gateways, a->n_gateways * sizeof(*a->gateways));
}

static int track(struct ht *t, struct sw_host_delta *dl)
{
	memset(dl, 0, sizeof(*dl));
	dl->on_link = on_link;
	dl->data = t;
	return sw_host_track(&t->ev, &t->dump, t->h, dl);
}

static bool has_route(const struct sw_host *h, const char *dst, int oif)
{
	struct sw_prefix p;

	assert_int_equal(sw_prefix_parse(dst, &p, NULL), 0);
	for (size_t i = 0; i < h->n_routes; i++)
		if (h->routes[i].oif == oif && sw_prefix_equal(&h->routes[i].dst, &p))
			return true;
	return false;
}

static void test_dump(void **state)
{
	struct ht *t = *state;
	const struct sw_link *l;

	assert_int_equal(t->h->n_links, 5);
	for (size_t i = 1; i < t->h->n_links; i++)      /* sorted by ifindex */
		assert_true(t->h->links[i - 1].ifindex < t->h->links[i].ifindex);
	assert_non_null(l = sw_host_link(t->h, 5));
	assert_string_equal(l->name, "vethc1");
	assert_true(l->master_bridge);
	assert_true(sw_host_link(t->h, 2)->uplink);
	assert_null(sw_host_link(t->h, 4));
	assert_int_equal(t->h->n_addrs, 3);
	assert_int_equal(t->h->n_gateways, 1);
	assert_int_equal(t->h->gateways[0].oif, 2);
	assert_int_equal(t->h->n_routes, 3);
	assert_true(has_route(t->h, "172.29.0.5/32", 6));
	assert_int_equal(t->k.n_dumps, 4);      /* links, addresses, v4 and v6 routes */
}

/* A new bridge: link, address, connected route: three deltas, no dump. */
static void test_new_bridge(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;
	size_t dumps = t->k.n_dumps;

	fr_add_link(&t->k, fr_mklink(9, "br-new", "bridge", true, 0), true);
	fr_add_addr(&t->k, fr_mkaddr(9, "172.20.0.1", 16), true);
	fr_add_route(&t->k, fr_mkroute("172.20.0.0", 16, 9, NULL), true);
	assert_int_equal(track(t, &dl), 0);
	assert_int_equal(dl.changes, 3);
	assert_false(dl.lost);
	assert_int_equal(t->added, 1);
	assert_string_equal(t->last, "br-new");
	assert_int_equal(t->k.n_dumps, dumps);
	assert_tracked(t);
	/* a port enslaved to it: classified as a bridge port at once */
	fr_add_link(&t->k, fr_mklink(10, "vethc2", "veth", true, 9), true);
	assert_int_equal(track(t, &dl), 0);
	assert_true(sw_host_link(t->h, 10)->master_bridge);
	assert_tracked(t);
}

/* Carrier, statistics, a port's state: the same link again is no change. */
static void test_same_link_is_no_change(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;

	fr_add_link(&t->k, fr_mklink(3, "docker0", "bridge", true, 0), true);
	fr_add_addr(&t->k, fr_mkaddr(3, "172.17.0.1", 16), false);
	fr_addr_ev(&t->k, RTM_NEWADDR, &t->k.addrs[2]);         /* known already */
	t->k.n_addrs--;
	assert_int_equal(track(t, &dl), 0);
	assert_int_equal(dl.changes, 0);
	assert_int_equal(t->added + t->removed, 0);
	assert_tracked(t);
}

/* A link deleted: its addresses and the routes through it go too (the
 * kernel flushes IPv4 routes without a word). */
static void test_dellink(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;
	size_t dumps = t->k.n_dumps;

	fr_del_link(&t->k, 3, true);
	fr_del_link(&t->k, 6, true);
	assert_int_equal(track(t, &dl), 0);
	assert_int_equal(dl.changes, 2);
	assert_int_equal(t->removed, 2);
	assert_null(sw_host_link(t->h, 3));
	assert_false(has_route(t->h, "172.17.0.0/16", 3));
	assert_false(has_route(t->h, "172.29.0.5/32", 6));
	assert_false(sw_host_link(t->h, 5)->master_bridge);     /* its master is gone */
	assert_int_equal(t->k.n_dumps, dumps);
	assert_tracked(t);
}

/* A link going down loses its routes, silently in the kernel. */
static void test_link_down_drops_routes(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;

	t->k.n_routes = 0;
	fr_add_route(&t->k, fr_mkroute(NULL, 0, 2, "10.0.0.1"), false);
	fr_add_route(&t->k, fr_mkroute("10.0.0.0", 24, 2, NULL), false);
	fr_add_route(&t->k, fr_mkroute("172.29.0.5", 32, 6, NULL), false);
	fr_add_link(&t->k, fr_mklink(3, "docker0", "bridge", false, 0), true);
	assert_int_equal(track(t, &dl), 0);
	assert_int_equal(dl.changes, 1);
	assert_false(sw_host_link(t->h, 3)->up);
	assert_false(has_route(t->h, "172.17.0.0/16", 3));
	assert_tracked(t);
}

/* Addresses and connected routes removed by their own events. */
static void test_deladdr_delroute(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;
	struct fr_addr a = t->k.addrs[2];
	struct fr_route r = t->k.routes[2];

	t->k.n_addrs = 2;               /* 172.17.0.1/16 is the last one */
	fr_addr_ev(&t->k, RTM_DELADDR, &a);
	memmove(&t->k.routes[2], &t->k.routes[3], sizeof(r));
	t->k.n_routes--;
	fr_route_ev(&t->k, RTM_DELROUTE, &r);
	fr_addr_ev(&t->k, RTM_DELADDR, &a);             /* twice: a no-op */
	assert_int_equal(track(t, &dl), 0);
	assert_int_equal(dl.changes, 2);
	assert_int_equal(t->h->n_addrs, 2);
	assert_tracked(t);
}

/* A default route replaced (NLM_F_REPLACE names only the new one): the
 * routes are read again, two dumps, not the links and addresses. */
static void test_default_route_rereads_routes(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;
	size_t dumps = t->k.n_dumps;

	t->k.routes[0] = fr_mkroute(NULL, 0, 2, "10.0.0.254");
	fr_route_ev(&t->k, RTM_NEWROUTE, &t->k.routes[0]);
	assert_int_equal(track(t, &dl), 0);
	assert_false(dl.routes_stale);          /* done */
	assert_int_equal(t->k.n_dumps, dumps + 2);
	assert_int_equal(t->h->n_gateways, 1);
	assert_tracked(t);
	/* the uplink deleted: its default route went without a word */
	dumps = t->k.n_dumps;
	fr_del_link(&t->k, 2, true);
	assert_int_equal(track(t, &dl), 0);
	assert_int_equal(t->k.n_dumps, dumps + 2);
	assert_int_equal(t->h->n_gateways, 0);
	assert_tracked(t);
}

/* Events were lost: the tracker says so and a full dump brings in what
 * no event told (br-lost), and what came before the loss. */
static void test_enobufs_full_dump(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;

	fr_add_link(&t->k, fr_mklink(11, "br-seen", "bridge", true, 0), true);
	fr_lost(&t->k);
	fr_add_link(&t->k, fr_mklink(12, "br-lost", "bridge", true, 0), false);
	fr_add_addr(&t->k, fr_mkaddr(12, "172.21.0.1", 16), false);
	assert_int_equal(track(t, &dl), -ENOBUFS);
	assert_true(dl.lost);
	assert_null(sw_host_link(t->h, 12));
	/* the daemon's resync: one full dump */
	assert_int_equal(sw_host_dump(&t->dump, t->h), 0);
	assert_non_null(sw_host_link(t->h, 11));
	assert_non_null(sw_host_link(t->h, 12));
	assert_tracked(t);
	/* and the subscriber goes on from there */
	fr_del_link(&t->k, 12, true);
	assert_int_equal(track(t, &dl), 0);
	assert_null(sw_host_link(t->h, 12));
	assert_tracked(t);
}

/* A dump the kernel marks inconsistent (NLM_F_DUMP_INTR, then the rest
 * of it): -EINTR, and the socket is left clean, so the retry on the same
 * transport reads its own answer; the read-again of the routes retries. */
static void test_interrupted_dump(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl;

	t->k.intr_dumps = 1;
	assert_int_equal(sw_host_dump(&t->dump, t->h), -EINTR);
	assert_int_equal(t->k.intr_dumps, 0);
	assert_false(t->k.answer_ready);        /* read to its end */
	assert_int_equal(sw_host_dump(&t->dump, t->h), 0);
	assert_tracked(t);
	/* a default route moved; the first route dump is interrupted */
	t->k.routes[0] = fr_mkroute(NULL, 0, 2, "10.0.0.254");
	fr_route_ev(&t->k, RTM_NEWROUTE, &t->k.routes[0]);
	fr_add_route(&t->k, fr_mkroute("10.0.1.0", 24, 2, NULL), false);
	t->k.intr_dumps = 1;
	assert_int_equal(track(t, &dl), 0);
	assert_int_equal(t->k.intr_dumps, 0);
	assert_tracked(t);
}

/* A truncated message is refused, never read past its end. */
static void test_malformed(void **state)
{
	struct ht *t = *state;
	struct sw_host_delta dl = { 0 };
	uint8_t buf[1024] = { 0 };
	struct fr_link l = fr_mklink(13, "br-x", "bridge", true, 0);
	size_t len = fr_put_link(buf, RTM_NEWLINK, 0, 0, &l);

	((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)len + 64;
	assert_true(sw_host_apply_rtnl(t->h, buf, len, &dl) < 0);
	assert_null(sw_host_link(t->h, 13));
}

/* ---- the commit ------------------------------------------------------------ */

/* private off: a new bridge in 172.16/12 would change the gate (private
 * less own), which is two commits (test_gate.c); here only its elements */
#define CONF "[guard]\ninterfaces = docker0\nall_bridges = yes\n[block]\nprivate = no\n[log]\nblocked = no\n"

static struct sw_config cfg;

static void desired(const struct sw_host *h, struct sw_model *m)
{
	char err[SW_ERRLEN] = "";
	int rc = sw_desired_build(&(struct sw_desired_in){ .cfg = &cfg, .host = h }, m, err, sizeof(err));

	if (rc)
		fail_msg("desired: %s", err);
}

static bool kernel_has_elem_batch_only(const struct fn *k)
{
	for (size_t i = 0; i < k->n_log; i++)
		if (k->log[i].type != NFT_MSG_NEWSETELEM && k->log[i].type != NFT_MSG_DELSETELEM)
			return false;
	return k->n_log > 0;
}

static void test_commit_by_deltas(void **state)
{
	struct ht *t = *state;
	struct fn *k = calloc(1, sizeof(*k));
	struct sw_nl nft;
	struct sw_model want, next;
	struct sw_hint hint = { 0 };
	struct sw_diff d;
	struct sw_host_delta dl;
	char err[SW_ERRLEN] = "";
	bool repaired;
	uint32_t gen;
	size_t gets, batches;

	assert_non_null(k);
	assert_int_equal(sw_config_parse_string(CONF, "test.conf", &cfg, err, sizeof(err)), 0);
	fn_init(k);
	assert_int_equal(sw_nl_open_ops(&nft, &fn_ops, k), 0);
	desired(t->h, &want);
	assert_int_equal(sw_reconcile_hint(&nft, &want, &hint, &d, &repaired, err, sizeof(err)), 0);
	sw_diff_free(&d);
	assert_true(repaired);
	assert_int_equal(hint.synced_genid, k->genid);  /* read back at that generation */
	gen = hint.synced_genid;

	/* a bridge comes: only its elements travel, no dump, no flush */
	fr_add_link(&t->k, fr_mklink(9, "br-new", "bridge", true, 0), true);
	fr_add_addr(&t->k, fr_mkaddr(9, "172.20.0.1", 16), true);
	assert_int_equal(track(t, &dl), 0);
	desired(t->h, &next);
	gets = k->n_gets[NFT_MSG_GETSET] + k->n_gets[NFT_MSG_GETSETELEM] + k->n_gets[NFT_MSG_GETRULE];
	batches = k->n_batches;
	assert_int_equal(sw_update_sets(&nft, &next, &want, &gen, &d, err, sizeof(err)), 0);
	assert_true(d.n > 0);
	sw_diff_free(&d);
	assert_int_equal(k->n_batches, batches + 1);
	assert_int_equal(k->n_gets[NFT_MSG_GETSET] + k->n_gets[NFT_MSG_GETSETELEM] +
			 k->n_gets[NFT_MSG_GETRULE], gets);
	assert_true(kernel_has_elem_batch_only(k));
	assert_int_equal(gen, k->genid);
	assert_int_equal(sw_check(&nft, &next, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
	sw_diff_free(&d);
	sw_model_free(&want);
	want = next;

	/* nothing moved: nothing is sent */
	desired(t->h, &next);
	batches = k->n_batches;
	assert_int_equal(sw_update_sets(&nft, &next, &want, &gen, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(k->n_batches, batches);
	sw_diff_free(&d);
	sw_model_free(&next);

	/* another process committed meanwhile: the generation refuses the
	 * delta and the kernel keeps what it had */
	fn_t_add_table(k, "other", 0, true);
	fr_del_link(&t->k, 9, true);
	assert_int_equal(track(t, &dl), 0);
	desired(t->h, &next);
	assert_int_equal(sw_update_sets(&nft, &next, &want, &gen, &d, err, sizeof(err)), -ERESTART);
	sw_diff_free(&d);
	assert_int_equal(sw_check(&nft, &want, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
	sw_diff_free(&d);
	sw_model_free(&next);

	/* more than elements (the log rules of [log] blocked): not by deltas,
	 * nothing sent */
	assert_int_equal(sw_config_parse_string("[guard]\ninterfaces = docker0\nall_bridges = yes\n",
						"test.conf", &cfg, err, sizeof(err)), 0);
	desired(t->h, &next);
	gen = k->genid;
	batches = k->n_batches;
	assert_int_equal(sw_update_sets(&nft, &next, &want, &gen, &d, err, sizeof(err)), -ESTALE);
	assert_int_equal(k->n_batches, batches);
	sw_diff_free(&d);
	sw_model_free(&next);

	sw_model_free(&want);
	sw_nl_close(&nft);
	fn_free(k);
	free(k);
}

/* ---- the fast path for new links ----------------------------------------------- */

struct fast_case {
	const char *conf;
	struct fr_link link;
	bool adds;              /* the link brings elements of its own */
};

/* For each config: the desired model in the fake kernel; a new link
 * arrives; the fast path's additions, committed, leave the kernel equal
 * to the patched model, and the patched model equal to a full rebuild. */
static void test_fast_path_matches_full(void **state)
{
	static const struct fast_case cases[] = {
		{ CONF, { 9, "br-new", "bridge", true, 0, 0, 0 }, true },
		{ CONF, { 9, "docker0x", "veth", true, 0, 0, 0 }, false },
		/* guarded by a pattern already: its exact name into guard_links */
		{ "[guard]\ninterfaces = br-*\n", { 9, "br-new", "bridge", true, 0, 0, 0 }, true },
		{ "[guard]\ninterfaces = auto\n", { 9, "mybr", "bridge", true, 0, 0, 0 }, true },
		/* a tun named like a tap: guarded by the runtime name tap*, so
		 * its exact name goes into guard_links too */
		{ "[guard]\ninterfaces = auto\n", { 9, "tap7", "tun", true, 0, 0, 0 }, true },
		{ "[guard]\ninterfaces = eth9 docker0\nall_bridges = yes\n"
		  "[sandbox web]\ninterfaces = br-web*\negress = none\n",
		  { 9, "br-web1", "bridge", true, 0, 0, 0 }, true },
	};
	struct ht *t = *state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct fn *k = calloc(1, sizeof(*k));
		struct sw_nl nft;
		struct sw_model want, base, full;
		struct sw_hint hint = { 0 };
		struct sw_diff d;
		struct sw_fast f;
		struct sw_host_delta dl;
		char err[SW_ERRLEN] = "";
		bool repaired;
		uint32_t gen;
		int rc;

		assert_non_null(k);
		if (sw_config_parse_string(cases[c].conf, "test.conf", &cfg, err, sizeof(err)))
			fail_msg("case %zu: %s", c, err);
		fn_init(k);
		assert_int_equal(sw_nl_open_ops(&nft, &fn_ops, k), 0);
		assert_int_equal(sw_fast_base(&cfg, &base, err, sizeof(err)), 0);
		desired(t->h, &want);
		assert_int_equal(sw_reconcile_hint(&nft, &want, &hint, &d, &repaired, err,
						   sizeof(err)), 0);
		sw_diff_free(&d);
		gen = hint.synced_genid;

		fr_add_link(&t->k, cases[c].link, true);
		assert_int_equal(track(t, &dl), 0);
		assert_int_equal(dl.n_new, 1);
		assert_int_equal(dl.changes, 1);
		rc = sw_fast_plan(&cfg, t->h, dl.new_idx, dl.n_new, &base, &want, &f);
		if (rc)
			fail_msg("case %zu: plan %d", c, rc);
		assert_int_equal(f.n > 0, cases[c].adds);
		assert_int_equal(sw_fast_commit(&nft, want.table, &f, &gen, err, sizeof(err)), 0);
		assert_int_equal(gen, k->genid);
		/* the kernel holds the patched model ... */
		assert_int_equal(sw_check(&nft, &want, &d, err, sizeof(err)), 0);
		assert_int_equal(d.n, 0);
		sw_diff_free(&d);
		/* ... which is what the whole rebuild gives */
		desired(t->h, &full);
		assert_int_equal(sw_diff(&full, &want, &d), 0);
		if (d.n) {
			sw_diff_print(&d, stderr);
			fail_msg("case %zu: the fast path differs from the full build", c);
		}
		sw_diff_free(&d);
		sw_model_free(&full);
		sw_model_free(&want);
		sw_model_free(&base);
		sw_nl_close(&nft);
		fn_free(k);
		free(k);
		/* the next case starts from the same host */
		fr_del_link(&t->k, cases[c].link.ifindex, true);
		assert_int_equal(track(t, &dl), 0);
	}
}

/* A link the base would lose something for (an excluded name that a
 * runtime pattern covers: auto puts the names in one by one then) is no
 * plain addition: the fast path declines and sends nothing. */
static void test_fast_path_declines(void **state)
{
	struct ht *t = *state;
	struct sw_model want, base;
	struct sw_fast f;
	struct sw_link *l;
	char err[SW_ERRLEN] = "";
	int idx = 9;

	assert_int_equal(sw_config_parse_string("[guard]\ninterfaces = auto\n", "test.conf", &cfg,
						err, sizeof(err)), 0);
	fr_add_link(&t->k, fr_mklink(9, "vnet0", "veth", true, 0), false);
	assert_int_equal(sw_host_dump(&t->dump, t->h), 0);
	l = (struct sw_link *)sw_host_link(t->h, 9);
	l->uplink = true;       /* as if a default route went through it */
	assert_int_equal(sw_fast_base(&cfg, &base, err, sizeof(err)), 0);
	desired(t->h, &want);
	assert_int_equal(sw_fast_plan(&cfg, t->h, &idx, 1, &base, &want, &f), -ESTALE);
	assert_int_equal(f.n, 0);
	/* and an ifindex it does not know */
	idx = 77;
	assert_int_equal(sw_fast_plan(&cfg, t->h, &idx, 1, &base, &want, &f), -ESTALE);
	sw_model_free(&want);
	sw_model_free(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_bridge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_link_is_no_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dellink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_down_drops_routes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deladdr_delroute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_route_rereads_routes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enobufs_full_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_by_deltas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_matches_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_declines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
