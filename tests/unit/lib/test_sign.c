/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for sign.c: the key file is OpenSSH's (a key ssh-keygen made
 * parses to its public key, and is written again byte for byte); a key is
 * made on first use (0600, directories 0700, KEY.pub) and loaded again;
 * a key others may read, a symlink, a directory, a file too long are
 * refused; every cut and every changed byte of a key file is refused (but
 * the comment's); a signed file verifies, and fails after one changed
 * byte, in another namespace, with another key, or with a signer not in
 * the allowed signers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sodium.h>

#include "lib/sign.h"
#include "lib/sshsig.h"

/* ssh-keygen -q -t ed25519 -N '' -C sandwall@golden -f k (OpenSSH 9.2p1) */
static const char golden[] =
	"-----BEGIN OPENSSH PRIVATE KEY-----\n"
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
	"QyNTUxOQAAACDvcxvEQyF7vwnphscF8oaXiVVqeA899r5j9YdnI6mmywAAAJgUTEU0FExF\n"
	"NAAAAAtzc2gtZWQyNTUxOQAAACDvcxvEQyF7vwnphscF8oaXiVVqeA899r5j9YdnI6mmyw\n"
	"AAAEDqqvH+jEphfQtNr8BQ72xZVTbhxOl7x01pbt24evzCfe9zG8RDIXu/CemGxwXyhpeJ\n"
	"VWp4Dz32vmP1h2cjqabLAAAAD3NhbmR3YWxsQGdvbGRlbgECAwQFBg==\n"
	"-----END OPENSSH PRIVATE KEY-----\n";
static const char golden_pub[] =
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO9zG8RDIXu/CemGxwXyhpeJVWp4Dz32vmP1h2cjqabL";
static const char golden_fpr[] = "SHA256:5PtbhLS3fh8mJB1/isnM/plcv/2hYPlHeXuW8vwyoJg";
/* the blob: check words at 98 and 102, the comment's 15 bytes at 229 */
#define CHECK_OFF   98
#define COMMENT_OFF 229
#define COMMENT_LEN 15

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/swsign-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(p);
}

/* the test's own temp directory, made by setup */
static int teardown(void **state)
{
	(void)state;
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void path(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

static void put_file(const char *p, const void *data, size_t n, mode_t mode)
{
	FILE *f;

	unlink(p);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static size_t golden_blob(uint8_t *blob, size_t cap)
{
	size_t n;

	assert_int_equal(sodium_base642bin(blob, cap, golden + 36, strlen(golden) - 36 - 34, "\n",
					   &n, NULL, sodium_base64_VARIANT_ORIGINAL), 0);
	return n;
}

static int parse_blob(const uint8_t *blob, size_t n, char *comment, size_t cap)
{
	uint8_t sk[64], pk[32];
	char *text = malloc(4096);
	char b64[2048];
	size_t o = 0, l;
	int rc;

	sodium_bin2base64(b64, sizeof(b64), blob, n, sodium_base64_VARIANT_ORIGINAL);
	l = strlen(b64);
	o += (size_t)sprintf(text, "-----BEGIN OPENSSH PRIVATE KEY-----\n");
	for (size_t i = 0; i < l; i += 70)
		o += (size_t)sprintf(text + o, "%.70s\n", b64 + i);
	o += (size_t)sprintf(text + o, "-----END OPENSSH PRIVATE KEY-----\n");
	rc = sw_sign_key_parse(text, o, sk, pk, comment, cap);
	free(text);
	return rc;
}

/* ssh-keygen's file: its public key, its comment; and written again from
 * the secret key and its check words, the same bytes. */
static void test_golden(void **state)
{
	uint8_t sk[64], pk[32], blob[512];
	char pub[SW_SSH_PUBTEXT_LEN], fpr[SW_SSH_FPR_LEN], comment[64], *out = NULL;
	size_t len = 0, n;
	uint32_t check;

	(void)state;
	assert_int_equal(sw_sign_key_parse(golden, strlen(golden), sk, pk, comment, sizeof(comment)), 0);
	sw_ssh_pubtext(pk, pub);
	assert_string_equal(pub, golden_pub);
	sw_ssh_fingerprint(pk, fpr);
	assert_string_equal(fpr, golden_fpr);
	assert_string_equal(comment, "sandwall@golden");
	assert_memory_equal(sk + 32, pk, 32);
	n = golden_blob(blob, sizeof(blob));
	assert_int_equal(n, 250);
	check = (uint32_t)blob[CHECK_OFF] << 24 | (uint32_t)blob[CHECK_OFF + 1] << 16 |
		(uint32_t)blob[CHECK_OFF + 2] << 8 | blob[CHECK_OFF + 3];
	assert_int_equal(sw_sign_key_format(sk, "sandwall@golden", check, &out, &len), 0);
	assert_int_equal(len, strlen(golden));
	assert_string_equal(out, golden);
	free(out);
	/* CRLF and blank lines around it are the same key */
	{
		char crlf[1024];
		size_t o = 0;

		crlf[o++] = '\n';
		for (const char *p = golden; *p; p++) {
			if (*p == '\n')
				crlf[o++] = '\r';
			crlf[o++] = *p;
		}
		assert_int_equal(sw_sign_key_parse(crlf, o, sk, pk, NULL, 0), 0);
	}
}

/* Every cut of the text, every cut of the blob, and every byte of the
 * blob changed (but the comment's) is refused. */
static void test_corrupt(void **state)
{
	uint8_t blob[512], b[512], sk[64], pk[32];
	char comment[64];
	size_t n;

	(void)state;
	for (size_t k = 0; k + 1 < strlen(golden); k++)
		if (sw_sign_key_parse(golden, k, sk, pk, NULL, 0) == 0)
			fail_msg("a key text cut to %zu bytes parsed", k);
	n = golden_blob(blob, sizeof(blob));
	assert_int_equal(parse_blob(blob, n, NULL, 0), 0);
	for (size_t k = 0; k < n; k++)
		if (parse_blob(blob, k, NULL, 0) == 0)
			fail_msg("a key blob cut to %zu bytes parsed", k);
	for (size_t i = 0; i < n; i++) {
		for (unsigned bit = 0; bit < 8; bit += 7) {
			int rc;

			memcpy(b, blob, n);
			b[i] ^= (uint8_t)(1u << bit);
			rc = parse_blob(b, n, comment, sizeof(comment));
			if (i >= COMMENT_OFF && i < COMMENT_OFF + COMMENT_LEN && b[i])
				assert_int_equal(rc, 0);        /* only the comment changed */
			else if (rc == 0)
				fail_msg("a key blob with byte %zu ^ 0x%x parsed", i, 1u << bit);
		}
	}
	/* one byte more, in the padding or after the private part */
	memcpy(b, blob, n);
	b[n] = 7;
	assert_int_equal(parse_blob(b, n + 1, NULL, 0), -EBADMSG);
	/* an encrypted key ("nonf" for the cipher), a second key */
	memcpy(b, blob, n);
	b[22] = 'f';
	assert_int_equal(parse_blob(b, n, NULL, 0), -ENOTSUP);
	memcpy(b, blob, n);
	b[38] = 2;
	assert_int_equal(parse_blob(b, n, NULL, 0), -ENOTSUP);
	/* a length of 2^31 + 51 for the public key */
	memcpy(b, blob, n);
	b[39] = 0x80;
	assert_int_equal(parse_blob(b, n, NULL, 0), -EBADMSG);
	assert_int_equal(sw_sign_key_parse("", 0, sk, pk, NULL, 0), -EBADMSG);
}

/* Made on first use, loaded again; KEY.pub beside it. */
static void test_create_load(void **state)
{
	uint8_t sk[64], pk[32], sk2[64], pk2[32];
	char key[256], sub[128], pub[512], want[512], text[SW_SSH_PUBTEXT_LEN], id[SW_SIGN_ID_LEN];
	struct stat st;
	bool created = true;
	FILE *f;

	(void)state;
	path(sub, sizeof(sub), "a/b");
	snprintf(key, sizeof(key), "%s/receipt_ed25519", sub);
	assert_int_equal(sw_sign_key_load(key, false, sk, pk, &created), -ENOENT);
	assert_false(created);
	assert_int_equal(sw_sign_key_load(key, true, sk, pk, &created), 0);
	assert_true(created);
	assert_int_equal(lstat(key, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0077, 0);
	assert_memory_equal(sk + 32, pk, 32);
	/* KEY.pub: the public key and the identity */
	snprintf(pub, sizeof(pub), "%s.pub", key);
	f = fopen(pub, "r");
	assert_non_null(f);
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	sw_ssh_pubtext(pk, text);
	sw_sign_identity(id);
	assert_true(!strncmp(id, "sandwall@", 9));
	snprintf(pub, sizeof(pub), "%s %s\n", text, id);
	assert_string_equal(want, pub);
	/* loaded again: the same key, not made again */
	assert_int_equal(sw_sign_key_load(key, true, sk2, pk2, &created), 0);
	assert_false(created);
	assert_memory_equal(sk, sk2, 64);
	assert_memory_equal(pk, pk2, 32);
	assert_int_equal(sw_sign_key_load(key, false, sk2, pk2, NULL), 0);
	assert_memory_equal(pk, pk2, 32);
	/* a missing KEY.pub comes back */
	snprintf(pub, sizeof(pub), "%s.pub", key);
	assert_int_equal(unlink(pub), 0);
	assert_int_equal(sw_sign_key_load(key, true, sk2, pk2, NULL), 0);
	assert_int_equal(stat(pub, &st), 0);
}

/* What sw_sign_key_load refuses. */
static void test_refused(void **state)
{
	uint8_t sk[64], pk[32];
	char key[128], link_path[128], big[SW_SIGN_KEY_MAX + 2];

	(void)state;
	path(key, sizeof(key), "k");
	put_file(key, golden, strlen(golden), 0600);
	assert_int_equal(sw_sign_key_load(key, false, sk, pk, NULL), 0);
	assert_int_equal(chmod(key, 0644), 0);
	assert_int_equal(sw_sign_key_load(key, true, sk, pk, NULL), -EPERM);
	assert_int_equal(chmod(key, 0640), 0);
	assert_int_equal(sw_sign_key_load(key, false, sk, pk, NULL), -EPERM);
	assert_int_equal(chmod(key, 0602), 0);
	assert_int_equal(sw_sign_key_load(key, false, sk, pk, NULL), -EPERM);
	assert_int_equal(chmod(key, 0400), 0);
	assert_int_equal(sw_sign_key_load(key, false, sk, pk, NULL), 0);
	/* a symlink to a good key, a directory */
	path(link_path, sizeof(link_path), "link");
	assert_int_equal(symlink(key, link_path), 0);
	assert_int_equal(sw_sign_key_load(link_path, true, sk, pk, NULL), -EPERM);
	path(link_path, sizeof(link_path), "adir");
	assert_int_equal(mkdir(link_path, 0700), 0);
	assert_int_equal(sw_sign_key_load(link_path, true, sk, pk, NULL), -EPERM);
	/* too long; cut on disk; garbage */
	memset(big, ' ', sizeof(big));
	memcpy(big, golden, strlen(golden));
	put_file(key, big, sizeof(big), 0600);
	assert_int_equal(sw_sign_key_load(key, true, sk, pk, NULL), -EFBIG);
	put_file(key, golden, strlen(golden) - 40, 0600);
	assert_int_equal(sw_sign_key_load(key, true, sk, pk, NULL), -EBADMSG);
	put_file(key, "x", 1, 0600);
	assert_int_equal(sw_sign_key_load(key, true, sk, pk, NULL), -EBADMSG);
	put_file(key, "", 0, 0600);
	assert_int_equal(sw_sign_key_load(key, true, sk, pk, NULL), -EBADMSG);
}

static void test_sign_verify(void **state)
{
	uint8_t sk[64], pk[32], other[32], osk[64], signer[32];
	char key[128], file[128], sig[160], who[128], allowed[512], text[SW_SSH_PUBTEXT_LEN];
	char id[SW_SIGN_ID_LEN], *s = NULL;
	static const char body[] = "sandwall receipt\nverdict HELD\n";
	size_t slen;

	(void)state;
	path(key, sizeof(key), "sv/key");
	path(file, sizeof(file), "receipt.txt");
	put_file(file, body, strlen(body), 0644);
	assert_int_equal(sw_sign_file(key, file, sig, sizeof(sig)), 0);
	assert_int_equal(strlen(sig), strlen(file) + 4);
	assert_string_equal(sig + strlen(file), ".sig");
	assert_int_equal(sw_sign_key_load(key, false, sk, pk, NULL), 0);
	assert_int_equal(sw_sign_signer(sig, signer), 0);
	assert_memory_equal(signer, pk, 32);
	/* good: against the key, and against an allowed-signers line */
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), 0);
	sw_sign_identity(id);
	assert_string_equal(who, id);
	sw_ssh_pubtext(pk, text);
	snprintf(allowed, sizeof(allowed), "auditor@x namespaces=\"sandwall-receipt\" %s\n", text);
	assert_int_equal(sw_sign_verify_file(file, sig, allowed, NULL, who, sizeof(who)), 0);
	assert_string_equal(who, "auditor@x");
	assert_int_equal(sw_sign_verify_file(file, sig, allowed, pk, who, sizeof(who)), 0);
	/* one byte changed, one byte more */
	put_file(file, "sandwall receipt\nverdict HELE\n", strlen(body), 0644);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), -EBADMSG);
	assert_int_equal(sw_sign_verify_file(file, sig, allowed, NULL, who, sizeof(who)), -EBADMSG);
	put_file(file, "sandwall receipt\nverdict HELD\n\n", strlen(body) + 1, 0644);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), -EBADMSG);
	put_file(file, body, strlen(body), 0644);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), 0);
	/* another key than the host's; a signer not allowed */
	crypto_sign_keypair(other, osk);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, other, who, sizeof(who)), -EBADMSG);
	sw_ssh_pubtext(other, text);
	snprintf(allowed, sizeof(allowed), "auditor@x %s\n", text);
	assert_int_equal(sw_sign_verify_file(file, sig, allowed, NULL, who, sizeof(who)), -ENOENT);
	sw_ssh_pubtext(pk, text);
	snprintf(allowed, sizeof(allowed), "auditor@x namespaces=\"git\" %s\n", text);
	assert_int_equal(sw_sign_verify_file(file, sig, allowed, NULL, who, sizeof(who)), -ENOENT);
	assert_int_equal(sw_sign_verify_file(file, sig, "", NULL, who, sizeof(who)), -ENOENT);
	/* the wrong namespace: the same key and bytes, signed as "file" */
	assert_int_equal(sw_sshsig_sign(sk, "file", body, strlen(body), &s, &slen), 0);
	put_file(sig, s, slen, 0644);
	free(s);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), -EPROTO);
	/* no signature, garbage, neither key nor list */
	put_file(sig, "garbage\n", 8, 0644);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), -EBADMSG);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, NULL, who, sizeof(who)), -EINVAL);
	unlink(sig);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), -ENODATA);
	assert_int_equal(sw_sign_signer(sig, signer), -ENODATA);
	assert_int_equal(sw_sign_file(key, file, sig, sizeof(sig)), 0);
	unlink(file);
	assert_int_equal(sw_sign_verify_file(file, sig, NULL, pk, who, sizeof(who)), -ENODATA);
	assert_int_equal(sw_sign_file(key, file, sig, sizeof(sig)), -ENOENT);
	assert_int_equal(sw_sign_file(key, file, sig, 8), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_create_load),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_sign_verify),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
