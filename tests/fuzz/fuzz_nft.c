// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_nft: one nf_tables datagram, as the kernel would send a dump answer
 * or an event, through the event parser, every observe decoder (which
 * validate before libnftnl parses) and the diff against a desired model;
 * set elements also through libnftnl's decoder alone, which must agree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>

#include "core/config_check.h"
#include "core/diff.h"
#include "lib/json.h"
#include "host/events.h"
#include "fuzz_host.h"
#include "core/model.h"
#include "kernel/nlmsg.h"
#include "kernel/observe.h"
#include "core/ruleset.h"

static int (*const decoders[])(const struct nlmsghdr *, struct sw_model *) = {
	sw_decode_table, sw_decode_chain, sw_decode_set,
	sw_decode_elems, sw_decode_obj, sw_decode_rule,
};

static void txn_cb(const struct sw_nft_txn *t, void *data)
{
	(void)t;
	(*(int *)data)++;
}

/* sw_decode_elems reads plain elements itself and leaves the rest to
 * libnftnl: on any message it must do what libnftnl's decoder alone does
 * (the same return, the same elements in every set of want's names). */
static void elems_differential(const struct nlmsghdr *nlh, const struct sw_model *want)
{
	static struct sw_model a, b;
	int ra, rb;

	sw_model_init(&a, want->table);
	sw_model_init(&b, want->table);
	for (size_t i = 0; i < want->n_sets; i++)
		if (!sw_model_add_set(&a, want->sets[i].name) ||
		    !sw_model_add_set(&b, want->sets[i].name))
			__builtin_trap();
	ra = sw_decode_elems(nlh, &a);
	rb = sw_decode_elems_nftnl(nlh, &b);
	if (ra != rb)
		__builtin_trap();
	for (size_t i = 0; i < a.n_sets; i++) {
		const struct sw_set *x = &a.sets[i], *y = &b.sets[i];

		if (x->n_elems != y->n_elems)
			__builtin_trap();
		for (size_t j = 0; j < x->n_elems; j++)
			if (memcmp(x->elems[j].key, y->elems[j].key, SW_KEY_MAX) ||
			    memcmp(x->elems[j].key_end, y->elems[j].key_end, SW_KEY_MAX) ||
			    x->elems[j].flags != y->elems[j].flags ||
			    x->elems[j].has_key_end != y->elems[j].has_key_end)
				__builtin_trap();
	}
	sw_model_free(&a);
	sw_model_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sw_model want;
	static bool have_want;
	const struct nlmsghdr *nlh;
	struct sw_nft_txn txn;
	struct sw_model have;
	struct sw_diff d;
	uint8_t *buf;
	size_t off;
	int n = 0;

	if (!have_want) {
		static struct sw_config cfg;
		static struct sw_host host;
		char err[256];

		fh_host(&host);
		if (sw_config_parse_string("", "fuzz.conf", &cfg, err, sizeof(err)) ||
		    sw_ruleset_build(&cfg, &host, &want, err, sizeof(err)))
			__builtin_trap();
		have_want = true;
	}
	/* a receive buffer is aligned; the fuzzer's copy need not be */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	memset(&txn, 0, sizeof(txn));
	sw_events_parse_nft(buf, size, want.table, &txn, txn_cb, &n);

	sw_model_init(&have, want.table);
	sw_nlmsg_for_each(nlh, buf, size, off) {
		uint16_t t = NFNL_MSG_TYPE(nlh->nlmsg_type);
		int k;

		switch (t) {
		case NFT_MSG_NEWTABLE: k = 0; break;
		case NFT_MSG_NEWCHAIN: k = 1; break;
		case NFT_MSG_NEWSET: k = 2; break;
		case NFT_MSG_NEWSETELEM: k = 3; break;
		case NFT_MSG_NEWOBJ: k = 4; break;
		case NFT_MSG_NEWRULE: k = 5; break;
		default: k = nlh->nlmsg_type % 6; break;   /* a mismatched type too */
		}
		decoders[k](nlh, &have);
		if (k == 3)
			elems_differential(nlh, &want);
	}
	for (size_t i = 0; i < have.n_sets; i++)
		sw_set_sort(&have.sets[i]);
	if (sw_diff(&want, &have, &d) == 0) {
		char sum[256];
		FILE *f = fopen("/dev/null", "w");
		struct sw_jw w;

		sw_diff_summary(&d, sum, sizeof(sum));
		if (f) {
			sw_diff_print(&d, f);
			fclose(f);
		}
		sw_jw_init(&w);
		sw_diff_json(&d, &w, NULL);
		sw_jw_free(&w);
		sw_diff_free(&d);
	}
	sw_model_free(&have);
	free(buf);
	return 0;
}
