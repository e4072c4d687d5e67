/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_SIGN_H
#define SANDWALL_SIGN_H
/* sign: the host's ed25519 receipt key and detached SSHSIG signatures of
 * files (lib/sshsig.h), so that `ssh-keygen -Y verify -n sandwall-receipt`
 * checks a receipt offline.
 *
 * The key file is OpenSSH's unencrypted private key format
 * ("openssh-key-v1", PROTOCOL.key): `ssh-keygen -y -f KEY` prints its
 * public key, and KEY.pub beside it holds "ssh-ed25519 AAAA...
 * sandwall@HOSTNAME". It is made on first use (mode 0600, owned by the
 * user that made it; missing directories made 0700), and refused when it
 * is no regular file (a symlink included), when its group or others may
 * read or write it, or when another user owns it. Every length in it is
 * checked.
 *
 * A signature is FILE.sig: the armored SSHSIG of the file's bytes in the
 * namespace "sandwall-receipt", written atomically. The signer's identity
 * (the principal of an allowed-signers line) is "sandwall@HOSTNAME". */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/sshsig.h"

#define SW_SIGN_DEFAULT_KEY  "/var/lib/sandwall/receipt_ed25519"
#define SW_SIGN_KEY_MAX      4096              /* a longer key file is refused */
#define SW_SIGN_FILE_MAX     (64u << 20)       /* a longer file is not signed or checked */
#define SW_SIGN_ALLOWED_MAX  (1u << 20)        /* an allowed-signers file */
#define SW_SIGN_COMMENT_MAX  255               /* the key's comment */
#define SW_SIGN_ID_LEN       (9 + 64 + 1)      /* "sandwall@" HOST_NAME_MAX NUL */
#define SW_SIGN_SIG_SUFFIX   ".sig"

/* "sandwall@HOSTNAME" (the host's name now; "sandwall@localhost" when it
 * has none). */
void sw_sign_identity(char out[SW_SIGN_ID_LEN]);

/* The host key at path (sk: libsodium's 64 bytes, seed || pk). When it is
 * missing and create is set, a new one is made (and KEY.pub; *created set,
 * when created is not NULL); with create, a missing KEY.pub is written
 * again. 0; -ENOENT (no key, create not set); -EPERM (not a regular file,
 * a symlink, group or world may read or write it, or another user owns
 * it); -EFBIG (longer than SW_SIGN_KEY_MAX); -EBADMSG (no openssh-key-v1
 * ed25519 key: armor, base64, a length, the check words, the padding, or a
 * public key that is not the secret key's); -ENOTSUP (encrypted, or
 * another key type or count); else -errno. */
int sw_sign_key_load(const char *path, bool create, uint8_t sk[SW_ED25519_SK],
		     uint8_t pk[SW_ED25519_PK], bool *created);

/* The key file's text, pure (bytes from outside: every length checked):
 * the return codes of sw_sign_key_load for its content. comment gets the
 * key's comment (cut to cap), when cap is not 0. */
int sw_sign_key_parse(const char *text, size_t len, uint8_t sk[SW_ED25519_SK],
		      uint8_t pk[SW_ED25519_PK], char *comment, size_t cap);
/* The key file's text for sk (malloc'd, NUL-terminated; *len without the
 * NUL): what OpenSSH writes, check words given. 0, -ENAMETOOLONG (a
 * comment over SW_SIGN_COMMENT_MAX) or -ENOMEM. */
int sw_sign_key_format(const uint8_t sk[SW_ED25519_SK], const char *comment, uint32_t check,
		       char **out, size_t *len);

/* Sign file's bytes with the key at key_path (made on first use) and
 * write FILE.sig atomically (mode 0644); its path in sig_path. 0; the
 * codes of sw_sign_key_load; -ENAMETOOLONG (FILE.sig does not fit cap);
 * -EFBIG (file longer than SW_SIGN_FILE_MAX); else -errno. */
int sw_sign_file(const char *key_path, const char *file, char *sig_path, size_t cap);

/* Check sig_file (FILE.sig) against file's bytes, for the namespace
 * sandwall-receipt, and its signer: listed in allowed (an allowed-signers
 * text, NUL-terminated) when it is not NULL, and pk when pk is not NULL
 * (one of them at least). 0 good, with the signer's principals in
 * principal (allowed's line; else sw_sign_identity), cut to cap; -EBADMSG
 * (no signature, the file changed, or another key than pk); -EPROTO
 * (another namespace); -ENOENT (the signer is not in allowed for the
 * namespace); -ENOTSUP (a signature of another kind); -ENODATA (file or
 * sig_file does not exist); -EFBIG (file longer than SW_SIGN_FILE_MAX);
 * -EINVAL (neither allowed nor pk); else -errno. */
int sw_sign_verify_file(const char *file, const char *sig_file, const char *allowed,
			const uint8_t *pk, char *principal, size_t cap);

/* The public key sig_file names (unchecked: for messages). 0, -ENODATA
 * (no such file) or the codes of sw_sshsig_parse. */
int sw_sign_signer(const char *sig_file, uint8_t pk[SW_ED25519_PK]);

/* A whole regular file, NUL-terminated, malloc'd (*len without the NUL):
 * 0, -EFBIG when it is longer than max, -EINVAL when it is no regular
 * file, else -errno. */
int sw_sign_slurp(const char *path, size_t max, char **out, size_t *len);

#endif
