/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fuzz_regress: replay every input under tests/fuzz/regress/<harness>/
 * (each one crashed, hung or tripped a sanitizer once) and the seed corpora
 * under tests/fuzz/corpus/<harness>/ through the same harness code the
 * fuzzers run, compiled here without libFuzzer. A crash fails the suite;
 * `make asan` replays them under ASan/UBSan. Also: every nf_tables message
 * captured from a real kernel (corpus/fuzz_nft, tests/fuzz/capture.sh)
 * passes the validator and decodes -- the checks refuse no real message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* the harnesses, each entry point renamed */
#define LLVMFuzzerTestOneInput fuzz_addr_one
#include "../../fuzz/fuzz_addr.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_config_one
#include "../../fuzz/fuzz_config.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_control_one
#include "../../fuzz/fuzz_control.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dns_one
#include "../../fuzz/fuzz_dns.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_endpoints_one
#include "../../fuzz/fuzz_endpoints.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_nflog_one
#include "../../fuzz/fuzz_nflog.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_nft_one
#include "../../fuzz/fuzz_nft.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_rtnl_one
#include "../../fuzz/fuzz_rtnl.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sshsig_one
#include "../../fuzz/fuzz_sshsig.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_rtapi_one
#define check rtapi_check
#define check_str rtapi_check_str
#include "../../fuzz/fuzz_rtapi.c"
#undef check
#undef check_str
#undef LLVMFuzzerTestOneInput

#ifndef FUZZ_DIR
#define FUZZ_DIR "tests/fuzz"
#endif

static const struct {
	const char *name;
	int (*one)(const uint8_t *, size_t);
} harnesses[] = {
	{ "fuzz_addr", fuzz_addr_one },
	{ "fuzz_config", fuzz_config_one },
	{ "fuzz_control", fuzz_control_one },
	{ "fuzz_dns", fuzz_dns_one },
	{ "fuzz_endpoints", fuzz_endpoints_one },
	{ "fuzz_nflog", fuzz_nflog_one },
	{ "fuzz_nft", fuzz_nft_one },
	{ "fuzz_rtnl", fuzz_rtnl_one },
	{ "fuzz_sshsig", fuzz_sshsig_one },
	{ "fuzz_rtapi", fuzz_rtapi_one },
};

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(1 << 20);
	size_t n;

	assert_non_null(f);
	assert_non_null(b);
	n = fread(b, 1, 1 << 20, f);
	assert_false(ferror(f));
	fclose(f);
	*len = n;
	return b;
}

/* Run fn on every regular file of dir; returns how many. */
static size_t each_file(const char *dir, void (*fn)(const char *path, void *arg), void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[1024];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		fn(path, arg);
		n++;
	}
	closedir(d);
	return n;
}

static void replay_one(const char *path, void *arg)
{
	int (*one)(const uint8_t *, size_t) = arg;
	size_t len;
	uint8_t *b = slurp(path, &len);

	one(b, len);
	free(b);
}

static void test_replay(void **state)
{
	size_t regress = 0, corpus = 0;

	(void)state;
	alarm(120);
	for (size_t i = 0; i < sizeof(harnesses) / sizeof(harnesses[0]); i++) {
		char dir[256];
		size_t n;

		snprintf(dir, sizeof(dir), FUZZ_DIR "/regress/%s", harnesses[i].name);
		regress += each_file(dir, replay_one, (void *)harnesses[i].one);
		snprintf(dir, sizeof(dir), FUZZ_DIR "/corpus/%s", harnesses[i].name);
		n = each_file(dir, replay_one, (void *)harnesses[i].one);
		if (!n)
			fail_msg("no seed corpus for %s in %s", harnesses[i].name, dir);
		corpus += n;
	}
	alarm(0);
	print_message("replayed %zu regression inputs and %zu seeds\n", regress, corpus);
	assert_true(regress > 0);
}

/* captured dump answers: every NEW* message validates and decodes */
static void decode_captured(const char *path, void *arg)
{
	size_t len, off, *count = arg;
	uint8_t *b = slurp(path, &len);
	const struct nlmsghdr *nlh;
	struct sw_model m;

	sw_model_init(&m, "sandwall");
	sw_nlmsg_for_each(nlh, b, len, off) {
		int k = -1, rc;

		if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES)
			continue;
		switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
		case NFT_MSG_NEWTABLE: k = 0; break;
		case NFT_MSG_NEWCHAIN: k = 1; break;
		case NFT_MSG_NEWSET: k = 2; break;
		case NFT_MSG_NEWSETELEM: k = 3; break;
		case NFT_MSG_NEWOBJ: k = 4; break;
		case NFT_MSG_NEWRULE: k = 5; break;
		}
		if (k < 0)
			continue;
		if (k == 3 && !m.n_sets) {
			/* elements of a set we have not seen: give it one */
			const struct nlattr *a;

			mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
				if (mnl_attr_get_type(a) == NFTA_SET_ELEM_LIST_SET)
					assert_non_null(sw_model_add_set(&m, mnl_attr_get_str(a)));
		}
		rc = decoders[k](nlh, &m);
		if (rc)
			fail_msg("%s: message type %u refused: %s", path, NFNL_MSG_TYPE(nlh->nlmsg_type),
				 strerror(-rc));
		(*count)++;
	}
	assert_int_equal(off, len);
	sw_model_free(&m);
	free(b);
}

static void test_kernel_messages_decode(void **state)
{
	size_t msgs = 0;

	(void)state;
	each_file(FUZZ_DIR "/corpus/fuzz_nft", decode_captured, &msgs);
	print_message("%zu captured kernel messages decoded\n", msgs);
	assert_true(msgs >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_kernel_messages_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
