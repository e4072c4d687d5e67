// SPDX-License-Identifier: GPL-2.0-or-later
/* key: `sandwall key`, signing a written file, `sandwall receipt --verify`
 * (see include/cli/key.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sodium.h>

#include "cli/key.h"
#include "lib/log.h"
#include "lib/sign.h"
#include "lib/sshsig.h"

/* Why the key at path cannot be used (rc from sw_sign_key_load). */
static void key_error(const char *path, int rc)
{
	switch (rc) {
	case -EPERM:
		sw_err("refused the receipt key %s: it must be a regular file (not a symbolic "
		       "link) owned by uid %u that only its owner may read (chmod 600 %s)", path,
		       (unsigned)geteuid(), path);
		break;
	case -EACCES:
		sw_err("cannot open the receipt key %s: %s%s", path, strerror(-rc),
		       geteuid() ? " (the receipt key is root's: run it with sudo)" : "");
		break;
	case -EBADMSG:
		sw_err("%s is no OpenSSH ed25519 private key, or it is damaged: move it away, "
		       "and sandwall makes a new one (receipts it signed then need the old "
		       "public key to check)", path);
		break;
	case -ENOTSUP:
		sw_err("%s is an encrypted key or no ed25519 key: sandwall signs with an "
		       "unencrypted ed25519 key (ssh-keygen -t ed25519 -N '')", path);
		break;
	case -EFBIG:
		sw_err("%s is longer than %u bytes: no receipt key", path, SW_SIGN_KEY_MAX);
		break;
	default:
		sw_err("cannot use the receipt key %s: %s", path, strerror(-rc));
	}
}

/* The key, made when missing (said on stderr). */
static int load_key(const struct sw_config *cfg, uint8_t sk[SW_ED25519_SK],
		    uint8_t pk[SW_ED25519_PK])
{
	bool created = false;
	int rc = sw_sign_key_load(cfg->receipt_key, true, sk, pk, &created);

	if (rc) {
		key_error(cfg->receipt_key, rc);
		return EXIT_ERR;
	}
	if (created)
		fprintf(stderr, "sandwall: made a new receipt key %s (and %s.pub)\n",
			cfg->receipt_key, cfg->receipt_key);
	return 0;
}

int sw_cli_key(struct sw_cli_run *x)
{
	uint8_t sk[SW_ED25519_SK], pk[SW_ED25519_PK];
	char pub[SW_SSH_PUBTEXT_LEN], fpr[SW_SSH_FPR_LEN], id[SW_SIGN_ID_LEN];
	int rc;

	if (x->o->json) {
		sw_err("key has no --json");
		return EXIT_ERR;
	}
	if (x->o->allowed_signers && x->o->allowed_signers[0]) {
		sw_err("key --allowed-signers takes no file: it prints the line to put in one");
		return EXIT_ERR;
	}
	rc = load_key(x->cfg, sk, pk);
	sodium_memzero(sk, sizeof(sk));
	if (rc)
		return rc;
	sw_ssh_pubtext(pk, pub);
	sw_ssh_fingerprint(pk, fpr);
	sw_sign_identity(id);
	if (x->o->allowed_signers)
		printf("%s namespaces=\"%s\" %s\n", id, SW_SSHSIG_NAMESPACE, pub);
	else
		printf("%s %s\n256 %s %s (ED25519)\n", pub, id, fpr, id);
	return fflush(stdout) ? EXIT_ERR : 0;
}

int sw_cli_sign(const struct sw_config *cfg, const char *file)
{
	uint8_t sk[SW_ED25519_SK], pk[SW_ED25519_PK];
	char sig[SW_PATH_MAX + 4096], fpr[SW_SSH_FPR_LEN], id[SW_SIGN_ID_LEN];
	int rc = load_key(cfg, sk, pk);

	sodium_memzero(sk, sizeof(sk));
	if (rc)
		return rc;
	if ((rc = sw_sign_file(cfg->receipt_key, file, sig, sizeof(sig)))) {
		if (rc == -EPERM || rc == -EBADMSG || rc == -ENOTSUP)
			key_error(cfg->receipt_key, rc);
		else
			sw_err("cannot sign %s: %s", file, strerror(-rc));
		return EXIT_ERR;
	}
	sw_ssh_fingerprint(pk, fpr);
	sw_sign_identity(id);
	fprintf(stderr, "sandwall: signed %s: %s (ED25519 %s, %s; check with sandwall receipt "
		"--verify %s, or ssh-keygen -Y verify -n %s)\n", file, sig, fpr, id, file,
		SW_SSHSIG_NAMESPACE);
	return 0;
}

/* The exit code and the message of a failed check. */
static int verify_fail(const char *file, const char *sig, int rc, const char *allowed_path,
		       const uint8_t *host_pk)
{
	uint8_t signer[SW_ED25519_PK];
	char fpr[SW_SSH_FPR_LEN] = "an unknown key", hfpr[SW_SSH_FPR_LEN];
	bool named = sw_sign_signer(sig, signer) == 0;
	struct stat st;

	if (named)
		sw_ssh_fingerprint(signer, fpr);
	switch (rc) {
	case -EBADMSG:
		if (!named)
			printf("BAD signature: %s is no SSH signature (SSHSIG)\n", sig);
		else if (host_pk && sodium_memcmp(signer, host_pk, SW_ED25519_PK)) {
			sw_ssh_fingerprint(host_pk, hfpr);
			printf("BAD signer: %s is signed by another key (ED25519 %s) than this "
			       "host's (ED25519 %s)\n", file, fpr, hfpr);
		} else {
			printf("BAD signature: %s does not match %s (ED25519 %s): it changed after "
			       "it was signed\n", file, sig, fpr);
		}
		return 1;
	case -EPROTO:
		printf("BAD signature: %s is a signature for another namespace than %s (ED25519 "
		       "%s)\n", sig, SW_SSHSIG_NAMESPACE, fpr);
		return 1;
	case -ENOENT:
		printf("BAD signer: ED25519 %s (the key of %s) is not in %s for namespace %s\n", fpr,
		       sig, allowed_path, SW_SSHSIG_NAMESPACE);
		return 1;
	case -ENODATA:
		sw_err("cannot check %s: %s does not exist", file,
		       stat(file, &st) ? file : sig);
		return EXIT_ERR;
	case -ENOTSUP:
		sw_err("cannot check %s: %s is a signature of another kind than ed25519 with "
		       "sha512 or sha256", file, sig);
		return EXIT_ERR;
	default:
		sw_err("cannot check %s against %s: %s", file, sig, strerror(-rc));
		return EXIT_ERR;
	}
}

int sw_cli_receipt_verify(struct sw_cli_run *x)
{
	const struct sw_cli_opts *o = x->o;
	uint8_t sk[SW_ED25519_SK], pk[SW_ED25519_PK], signer[SW_ED25519_PK];
	char sig[SW_PATH_MAX + 4096], who[512], fpr[SW_SSH_FPR_LEN], *allowed = NULL;
	const char *file = o->verify_file;
	size_t len = 0;
	int rc;

	if (o->json || o->output || o->sign) {
		sw_err("receipt --verify takes no %s", o->json ? "--json" : o->output ? "--output" :
		       "--sign");
		return EXIT_ERR;
	}
	if ((size_t)snprintf(sig, sizeof(sig), "%s" SW_SIGN_SIG_SUFFIX, file) >= sizeof(sig)) {
		sw_err("%s: name too long", file);
		return EXIT_ERR;
	}
	if (o->allowed_signers) {
		if (!o->allowed_signers[0]) {
			sw_err("receipt --verify: --allowed-signers needs a FILE");
			return EXIT_ERR;
		}
		if ((rc = sw_sign_slurp(o->allowed_signers, SW_SIGN_ALLOWED_MAX, &allowed, &len))) {
			sw_err("cannot read the allowed signers %s: %s", o->allowed_signers,
			       rc == -EFBIG ? "longer than 1 MiB" : strerror(-rc));
			return EXIT_ERR;
		}
	} else if ((rc = sw_sign_key_load(x->cfg->receipt_key, false, sk, pk, NULL))) {
		if (rc == -ENOENT)
			sw_err("no receipt key at %s ([daemon] receipt_key): this host signed nothing; "
			       "check another host's receipt with --allowed-signers FILE",
			       x->cfg->receipt_key);
		else
			key_error(x->cfg->receipt_key, rc);
		return EXIT_ERR;
	}
	sodium_memzero(sk, sizeof(sk));
	rc = sw_sign_verify_file(file, sig, allowed, allowed ? NULL : pk, who, sizeof(who));
	if (rc) {
		rc = verify_fail(file, sig, rc, o->allowed_signers, allowed ? NULL : pk);
	} else {
		sw_sign_signer(sig, signer);
		sw_ssh_fingerprint(signer, fpr);
		printf("good signature: %s by %s (ED25519 %s), namespace %s%s\n", file, who, fpr,
		       SW_SSHSIG_NAMESPACE, allowed ? "" : ", this host's receipt key");
	}
	free(allowed);
	return rc;
}
