// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_sshsig: what a receipt's check reads from outside. The first byte
 * picks the reader, the rest is its text (in a heap buffer of its exact
 * size: ASan catches a read one byte past it):
 *   0: sw_sshsig_parse (an armored SSHSIG); a parsed one must have a
 *      terminated namespace and hash, and sw_sshsig_verify runs on it;
 *   1: sw_ssh_allowed_find (an allowed-signers text) for two keys, the
 *      principal bounded by its cap (a small one and a large one);
 *   2: sw_sign_key_parse (an openssh-key-v1 key file); a parsed key must be
 *      consistent (sk's second half is pk), and written again with
 *      sw_sign_key_format it must parse to the same key. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sign.h"
#include "lib/sshsig.h"

/* the key of the allowed-signers seeds (tests/unit/lib/test_sshsig.c) */
static const uint8_t ss_pk_a[32] = {
	0xd0, 0x85, 0xee, 0xcf, 0x52, 0xdf, 0x5b, 0xa0, 0xe4, 0x15, 0xf3, 0x91, 0x0f, 0xba, 0xa1, 0x5e,
	0x48, 0x13, 0x8d, 0x10, 0x80, 0x64, 0x1d, 0xec, 0x1c, 0x6c, 0x9c, 0x38, 0xcd, 0x1a, 0x26, 0x21,
};

static void ss_one_sig(const char *t, size_t n)
{
	struct sw_sshsig s;

	if (sw_sshsig_parse(t, n, &s))
		return;
	if (strnlen(s.ns, sizeof(s.ns)) == sizeof(s.ns) || strnlen(s.hash, sizeof(s.hash)) == sizeof(s.hash))
		__builtin_trap();
	(void)sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, t, n);
}

static void ss_one_allowed(const char *t, size_t n)
{
	static const uint8_t zero[32];
	char small[4], big[256];

	for (int k = 0; k < 2; k++) {
		const uint8_t *pk = k ? zero : ss_pk_a;

		memset(small, 'A', sizeof(small));
		memset(big, 'A', sizeof(big));
		if (sw_ssh_allowed_find(t, n, pk, SW_SSHSIG_NAMESPACE, small, sizeof(small)) == 0 &&
		    strnlen(small, sizeof(small)) == sizeof(small))
			__builtin_trap();
		if (sw_ssh_allowed_find(t, n, pk, SW_SSHSIG_NAMESPACE, big, sizeof(big)) == 0 &&
		    strnlen(big, sizeof(big)) == sizeof(big))
			__builtin_trap();
	}
}

static void ss_one_key(const char *t, size_t n)
{
	uint8_t sk[64], pk[32], sk2[64], pk2[32];
	char comment[SW_SIGN_COMMENT_MAX + 1], c2[SW_SIGN_COMMENT_MAX + 1], *out = NULL;
	size_t len = 0;

	if (sw_sign_key_parse(t, n, sk, pk, comment, sizeof(comment)))
		return;
	if (memcmp(sk + 32, pk, 32) || strnlen(comment, sizeof(comment)) == sizeof(comment))
		__builtin_trap();
	if (sw_sign_key_format(sk, comment, 0x01020304, &out, &len))
		__builtin_trap();
	if (sw_sign_key_parse(out, len, sk2, pk2, c2, sizeof(c2)) || memcmp(sk, sk2, 64) ||
	    memcmp(pk, pk2, 32) || strcmp(comment, c2))
		__builtin_trap();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t;

	if (size < 1 || size > SW_SSHSIG_MAX_TEXT + 2)
		return 0;
	t = malloc(size - 1 ? size - 1 : 1);
	if (!t)
		return 0;
	memcpy(t, data + 1, size - 1);
	switch (data[0] % 3) {
	case 0: ss_one_sig(t, size - 1); break;
	case 1: ss_one_allowed(t, size - 1); break;
	default: ss_one_key(t, size - 1); break;
	}
	free(t);
	return 0;
}
