/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_SSHSIG_H
#define SANDWALL_SSHSIG_H
/* sshsig: OpenSSH's signature format (PROTOCOL.sshsig) for ed25519 keys,
 * so that `ssh-keygen -Y verify` checks what sandwall signs. Encoding is
 * pure; signing and verifying are libsodium's crypto_sign (ed25519,
 * deterministic: one key and one message give one signature).
 *
 * The armored form: "-----BEGIN SSH SIGNATURE-----", base64 lines of 70
 * characters, "-----END SSH SIGNATURE-----". The blob: "SSHSIG", uint32
 * version 1, string publickey, string namespace, string reserved (""),
 * string hash_algorithm ("sha512"), string signature; ed25519 signs
 * "SSHSIG" || string namespace || string reserved || string hash_algorithm
 * || string H(message). Strings are a uint32 length (big endian) and the
 * bytes. */
#include <stddef.h>
#include <stdint.h>

#define SW_SSHSIG_NAMESPACE "sandwall-receipt"
#define SW_ED25519_PK       32
#define SW_ED25519_SK       64              /* libsodium's: seed || public key */
#define SW_ED25519_SIG      64
#define SW_SSH_PUBBLOB_LEN  51              /* string "ssh-ed25519", string pk */
#define SW_SSH_PUBTEXT_LEN  (12 + 68 + 1)   /* "ssh-ed25519 " base64(blob) NUL */
#define SW_SSH_FPR_LEN      (7 + 43 + 1)    /* "SHA256:" base64 without padding, NUL */
#define SW_SSHSIG_MAX_TEXT  65536           /* a longer signature file is refused */
#define SW_SSHSIG_NS_MAX    64

/* The public key blob: string "ssh-ed25519", string pk. */
void sw_ssh_pubblob(const uint8_t pk[SW_ED25519_PK], uint8_t out[SW_SSH_PUBBLOB_LEN]);
/* "ssh-ed25519 AAAA..." (no comment). */
void sw_ssh_pubtext(const uint8_t pk[SW_ED25519_PK], char out[SW_SSH_PUBTEXT_LEN]);
/* What ssh-keygen -l prints: "SHA256:" and the blob's digest in base64. */
void sw_ssh_fingerprint(const uint8_t pk[SW_ED25519_PK], char out[SW_SSH_FPR_LEN]);

/* The bytes the key signs for a message whose sha512 is hash. 0, or
 * -ENAMETOOLONG when ns is longer than SW_SSHSIG_NS_MAX. */
int sw_sshsig_signed_data(const char *ns, const uint8_t hash[64], uint8_t *out, size_t cap,
			  size_t *len);
/* The armored signature (malloc'd, NUL-terminated, *len without the NUL)
 * from the public key, the namespace and the raw ed25519 signature. 0,
 * -ENAMETOOLONG or -ENOMEM. */
int sw_sshsig_armor(const uint8_t pk[SW_ED25519_PK], const char *ns,
		    const uint8_t sig[SW_ED25519_SIG], char **out, size_t *len);
/* Sign msg with sk (libsodium's 64-byte secret key) and armor it. 0,
 * -ENAMETOOLONG, -ENOMEM or -EIO (libsodium refused). */
int sw_sshsig_sign(const uint8_t sk[SW_ED25519_SK], const char *ns, const void *msg, size_t len,
		   char **out, size_t *outlen);

/* A parsed signature. */
struct sw_sshsig {
	uint8_t pk[SW_ED25519_PK];
	char ns[SW_SSHSIG_NS_MAX + 1];
	char hash[8];                   /* "sha512" or "sha256" */
	uint8_t sig[SW_ED25519_SIG];
};
/* Read an armored signature (bytes from outside: every length checked).
 * 0; -EBADMSG when it is no SSHSIG (armor, base64, magic, a length past
 * the end, bytes after the signature, a field of the wrong size);
 * -ENOTSUP for another version, key type, signature type or hash. */
int sw_sshsig_parse(const char *text, size_t len, struct sw_sshsig *out);
/* Check a parsed signature over msg in namespace ns: 0 good; -EBADMSG
 * when the signature does not match the message (changed, or another
 * key's); -EPROTO when its namespace is not ns. */
int sw_sshsig_verify(const struct sw_sshsig *s, const char *ns, const void *msg, size_t len);

/* Find pk in an allowed-signers text (ssh-keygen(1) ALLOWED SIGNERS:
 * "PRINCIPALS [OPTIONS] ssh-ed25519 BASE64 [COMMENT]" per line) for
 * namespace ns: a line with namespaces="..." must list ns; lines with
 * cert-authority, valid-after or valid-before are not used (refused
 * rather than half-checked). 0 with the line's principals in principal
 * (cut to cap), or -ENOENT. */
int sw_ssh_allowed_find(const char *text, size_t len, const uint8_t pk[SW_ED25519_PK],
			const char *ns, char *principal, size_t cap);

#endif
