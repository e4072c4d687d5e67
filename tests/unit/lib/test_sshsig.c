/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for sshsig.c: the encoder gives, byte for byte, what
 * `ssh-keygen -Y sign -n sandwall-receipt` gave for the same key (its
 * seed taken from an OpenSSH private key file) and message: ed25519 is
 * deterministic. The decoder accepts it, and refuses a changed message,
 * another namespace, a truncated text, a wrong magic, bad lengths, bytes
 * after the signature, another version or key type. The allowed-signers
 * reader finds the key, honours namespaces= and skips what it cannot
 * check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "lib/sshsig.h"

static const char msg[] = "hello receipt\n";
static const char seed_hex[] = "36de9e728ca6fd5212f04ce154b1a7053242e3e5c8ad560aef819a3d75c75616";
/* ssh-keygen -Y sign -f k -n sandwall-receipt m (OpenSSH 9.2p1) */
static const char golden[] =
	"-----BEGIN SSH SIGNATURE-----\n"
	"U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAg0IXuz1LfW6DkFfORD7qhXkgTjR\n"
	"CAZB3sHGycOM0aJiEAAAAQc2FuZHdhbGwtcmVjZWlwdAAAAAAAAAAGc2hhNTEyAAAAUwAA\n"
	"AAtzc2gtZWQyNTUxOQAAAEDlPgN1Hp3eql6jrwULrIBd7Pjk7nmloyp9Jjevoho9Uy9aUN\n"
	"7buytylrpXvKIE4OhV1MB4u9je7nPYrWSpf/IA\n"
	"-----END SSH SIGNATURE-----\n";
static const char pubtext[] =
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINCF7s9S31ug5BXzkQ+6oV5IE40QgGQd7BxsnDjNGiYh";

static void keypair(uint8_t pk[32], uint8_t sk[64])
{
	uint8_t seed[32];

	assert_int_equal(sodium_hex2bin(seed, sizeof(seed), seed_hex, 64, NULL, NULL, NULL), 0);
	assert_int_equal(crypto_sign_seed_keypair(pk, sk, seed), 0);
}

static void test_encoder_matches_ssh_keygen(void **state)
{
	uint8_t pk[32], sk[64];
	char pub[SW_SSH_PUBTEXT_LEN], fpr[SW_SSH_FPR_LEN], *out = NULL;
	size_t len = 0;

	(void)state;
	keypair(pk, sk);
	sw_ssh_pubtext(pk, pub);
	assert_string_equal(pub, pubtext);
	sw_ssh_fingerprint(pk, fpr);
	assert_string_equal(fpr, "SHA256:FonBxs1/PM7xZrj0z/G09vXVOPgz6wTQmH5P5lLIKCk");
	assert_int_equal(sw_sshsig_sign(sk, SW_SSHSIG_NAMESPACE, msg, strlen(msg), &out, &len), 0);
	assert_int_equal(len, strlen(out));
	assert_string_equal(out, golden);
	free(out);
}

/* Every base64 line is 70 characters but the last, for any message. */
static void test_armor_lines(void **state)
{
	uint8_t pk[32], sk[64];
	char *out = NULL, *line;
	size_t len;

	(void)state;
	keypair(pk, sk);
	assert_int_equal(sw_sshsig_sign(sk, "x", "", 0, &out, &len), 0);
	assert_true(!strncmp(out, "-----BEGIN SSH SIGNATURE-----\n", 30));
	line = out + 30;
	for (char *nl; (nl = strchr(line, '\n')) && strncmp(line, "-----END", 8); line = nl + 1)
		if (strncmp(nl + 1, "-----END", 8))
			assert_int_equal(nl - line, 70);
	assert_string_equal(line, "-----END SSH SIGNATURE-----\n");
	free(out);
	assert_int_equal(sw_sshsig_sign(sk, "01234567890123456789012345678901234567890123456789"
					"0123456789abcdef", "", 0, &out, &len), -ENAMETOOLONG);
}

static void test_decoder_good(void **state)
{
	struct sw_sshsig s;
	uint8_t pk[32], sk[64];
	char changed[sizeof(msg)];

	(void)state;
	keypair(pk, sk);
	assert_int_equal(sw_sshsig_parse(golden, strlen(golden), &s), 0);
	assert_memory_equal(s.pk, pk, 32);
	assert_string_equal(s.ns, "sandwall-receipt");
	assert_string_equal(s.hash, "sha512");
	assert_int_equal(sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, msg, strlen(msg)), 0);
	/* one byte changed, one byte more, one less */
	for (size_t i = 0; i < strlen(msg); i++) {
		memcpy(changed, msg, sizeof(msg));
		changed[i] ^= 1;
		assert_int_equal(sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, changed, strlen(msg)), -EBADMSG);
	}
	assert_int_equal(sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, msg, strlen(msg) - 1), -EBADMSG);
	assert_int_equal(sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, msg, sizeof(msg)), -EBADMSG);
	/* the wrong namespace */
	assert_int_equal(sw_sshsig_verify(&s, "file", msg, strlen(msg)), -EPROTO);
	/* another key's signature */
	s.pk[0] ^= 1;
	assert_int_equal(sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, msg, strlen(msg)), -EBADMSG);
	/* CRLF lines and surrounding blank lines are still the same signature */
	{
		char crlf[1024];
		size_t o = 0;

		crlf[o++] = '\n';
		for (const char *p = golden; *p; p++) {
			if (*p == '\n')
				crlf[o++] = '\r';
			crlf[o++] = *p;
		}
		crlf[o++] = '\n';
		assert_int_equal(sw_sshsig_parse(crlf, o, &s), 0);
		assert_int_equal(sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, msg, strlen(msg)), 0);
	}
}

/* Every prefix of the text is refused, and so is the text with a byte
 * dropped from its base64 (a length then points past the end). */
static void test_decoder_truncated(void **state)
{
	struct sw_sshsig s;
	char buf[sizeof(golden) + 8];

	(void)state;
	for (size_t n = 0; n < strlen(golden) - 1; n++)
		if (sw_sshsig_parse(golden, n, &s) == 0)
			fail_msg("a prefix of %zu bytes parsed", n);
	assert_int_equal(sw_sshsig_parse(golden, strlen(golden) - 1, &s), 0); /* no final newline */
	assert_int_equal(sw_sshsig_parse("", 0, &s), -EBADMSG);
	assert_int_equal(sw_sshsig_parse("garbage before\n", 15, &s), -EBADMSG);
	snprintf(buf, sizeof(buf), "x%s", golden);
	assert_int_equal(sw_sshsig_parse(buf, strlen(buf), &s), -EBADMSG);
}

/* Re-armor a blob (with the encoder's line format). */
static char *armor(const uint8_t *blob, size_t n)
{
	char b64[1024], *t = malloc(2048);
	size_t o = 0, l;

	sodium_bin2base64(b64, sizeof(b64), blob, n, sodium_base64_VARIANT_ORIGINAL);
	l = strlen(b64);
	o += (size_t)sprintf(t, "-----BEGIN SSH SIGNATURE-----\n");
	for (size_t i = 0; i < l; i += 70)
		o += (size_t)sprintf(t + o, "%.70s\n", b64 + i);
	sprintf(t + o, "-----END SSH SIGNATURE-----\n");
	return t;
}

static int parse_blob(const uint8_t *blob, size_t n)
{
	struct sw_sshsig s;
	char *t = armor(blob, n);
	int rc = sw_sshsig_parse(t, strlen(t), &s);

	free(t);
	return rc;
}

/* The golden blob: magic at 0, version at 6, the key's string at 10
 * (51 bytes: "ssh-ed25519" at 18, pk's length at 29), the namespace's at
 * 65, reserved at 85, hash at 89, the signature's at 99 (its type at
 * 103, the 64 bytes' length at 118). */
static void test_decoder_fields(void **state)
{
	uint8_t blob[400], b[401];
	size_t n;

	(void)state;
	assert_int_equal(sodium_base642bin(blob, sizeof(blob), golden + 30, strlen(golden) - 30 - 28,
					   "\n", &n, NULL, sodium_base64_VARIANT_ORIGINAL), 0);
	assert_int_equal(n, 186);
	assert_int_equal(parse_blob(blob, n), 0);
#define MUTATE(off, val, want) do { memcpy(b, blob, n); b[off] = (val); \
		assert_int_equal(parse_blob(b, n), want); } while (0)
	MUTATE(0, 'X', -EBADMSG);               /* wrong magic */
	MUTATE(5, 'g', -EBADMSG);
	MUTATE(9, 2, -ENOTSUP);                 /* version 2 */
	MUTATE(6, 1, -ENOTSUP);                 /* version 2^24 + 1 */
	MUTATE(13, 52, -EBADMSG);               /* the key's string past the end of its field */
	MUTATE(10, 0x80, -EBADMSG);             /* a length of 2^31 + 51 */
	MUTATE(13, 50, -EBADMSG);               /* the key's string one byte short */
	MUTATE(20, 'X', -ENOTSUP);              /* "ssX-ed25519": another key type */
	MUTATE(32, 31, -EBADMSG);               /* a 31-byte key */
	MUTATE(68, 200, -EBADMSG);              /* the namespace past the end */
	MUTATE(68, 0, -EBADMSG);                /* an empty namespace */
	MUTATE(92, 200, -EBADMSG);              /* reserved past the end */
	MUTATE(93 + 5, '3', -ENOTSUP);          /* "sha513" */
	MUTATE(102, 0x54, -EBADMSG);            /* the signature's string a byte long */
	MUTATE(121, 63, -EBADMSG);              /* a 63-byte signature */
	MUTATE(107, 'X', -ENOTSUP);             /* another signature type */
#undef MUTATE
	/* a byte after the signature */
	memcpy(b, blob, n);
	b[n] = 0;
	assert_int_equal(parse_blob(b, n + 1), -EBADMSG);
	/* cut anywhere */
	for (size_t k = 0; k < n; k++)
		if (parse_blob(blob, k) == 0)
			fail_msg("a blob cut to %zu bytes parsed", k);
	/* bad base64 */
	{
		char *t = armor(blob, n);

		t[40] = '!';
		{
			struct sw_sshsig s;

			assert_int_equal(sw_sshsig_parse(t, strlen(t), &s), -EBADMSG);
		}
		free(t);
	}
}

static int find(const char *text, char *who, size_t cap)
{
	uint8_t pk[32], sk[64];

	keypair(pk, sk);
	return sw_ssh_allowed_find(text, strlen(text), pk, SW_SSHSIG_NAMESPACE, who, cap);
}

static void test_allowed_signers(void **state)
{
	const char *key = pubtext + 12;
	char text[1024], who[64];

	(void)state;
	snprintf(text, sizeof(text), "# comment\n\nother@x ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
		 "sandwall@h namespaces=\"sandwall-receipt\" ssh-ed25519 %s comment\n", key);
	assert_int_equal(find(text, who, sizeof(who)), 0);
	assert_string_equal(who, "sandwall@h");
	snprintf(text, sizeof(text), "a@b,c@d ssh-ed25519 %s\r\n", key);
	assert_int_equal(find(text, who, sizeof(who)), 0);
	assert_string_equal(who, "a@b,c@d");
	snprintf(text, sizeof(text), "a@b namespaces=\"git,file\" ssh-ed25519 %s\n", key);
	assert_int_equal(find(text, who, sizeof(who)), -ENOENT);
	snprintf(text, sizeof(text), "a@b namespaces=\"git,sandwall-receipt\" ssh-ed25519 %s\n", key);
	assert_int_equal(find(text, who, sizeof(who)), 0);
	snprintf(text, sizeof(text), "a@b valid-before=\"20300101\" ssh-ed25519 %s\n", key);
	assert_int_equal(find(text, who, sizeof(who)), -ENOENT);
	snprintf(text, sizeof(text), "a@b cert-authority ssh-ed25519 %s\n", key);
	assert_int_equal(find(text, who, sizeof(who)), -ENOENT);
	snprintf(text, sizeof(text), "a@b ssh-rsa %s\n", key);
	assert_int_equal(find(text, who, sizeof(who)), -ENOENT);
	snprintf(text, sizeof(text), "a@b ssh-ed25519 %.20s\n", key);
	assert_int_equal(find(text, who, sizeof(who)), -ENOENT);
	assert_int_equal(find("", who, sizeof(who)), -ENOENT);
	assert_int_equal(find("a@b namespaces=\"x ssh-ed25519", who, sizeof(who)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoder_matches_ssh_keygen),
		cmocka_unit_test(test_armor_lines),
		cmocka_unit_test(test_decoder_good),
		cmocka_unit_test(test_decoder_truncated),
		cmocka_unit_test(test_decoder_fields),
		cmocka_unit_test(test_allowed_signers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
