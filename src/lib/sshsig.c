// SPDX-License-Identifier: GPL-2.0-or-later
/* sshsig: the SSHSIG format of OpenSSH for ed25519 (see include/lib/sshsig.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sodium.h>

#include "lib/sshsig.h"

#define MAGIC      "SSHSIG"
#define MAGIC_LEN  6
#define KEYTYPE    "ssh-ed25519"
#define BEGIN      "-----BEGIN SSH SIGNATURE-----"
#define END        "-----END SSH SIGNATURE-----"
#define WRAP       70
/* the blob: magic, version, pubkey, ns, reserved, hash, signature */
#define BLOB_MAX   (MAGIC_LEN + 4 + 4 + SW_SSH_PUBBLOB_LEN + 4 + SW_SSHSIG_NS_MAX + 4 + 4 + 6 + \
		    4 + 4 + 11 + 4 + SW_ED25519_SIG)

/* ---- writing ------------------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t n, cap;
	bool over;
};

static void put(struct wbuf *w, const void *d, size_t n)
{
	if (w->over || n > w->cap - w->n) {
		w->over = true;
		return;
	}
	memcpy(w->p + w->n, d, n);
	w->n += n;
}

static void put_u32(struct wbuf *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	put(w, b, 4);
}

static void put_str(struct wbuf *w, const void *d, size_t n)
{
	put_u32(w, (uint32_t)n);
	put(w, d, n);
}

void sw_ssh_pubblob(const uint8_t pk[SW_ED25519_PK], uint8_t out[SW_SSH_PUBBLOB_LEN])
{
	struct wbuf w = { out, 0, SW_SSH_PUBBLOB_LEN, false };

	put_str(&w, KEYTYPE, strlen(KEYTYPE));
	put_str(&w, pk, SW_ED25519_PK);
}

void sw_ssh_pubtext(const uint8_t pk[SW_ED25519_PK], char out[SW_SSH_PUBTEXT_LEN])
{
	uint8_t blob[SW_SSH_PUBBLOB_LEN];

	sw_ssh_pubblob(pk, blob);
	memcpy(out, KEYTYPE " ", 12);
	sodium_bin2base64(out + 12, SW_SSH_PUBTEXT_LEN - 12, blob, sizeof(blob),
			  sodium_base64_VARIANT_ORIGINAL);
}

void sw_ssh_fingerprint(const uint8_t pk[SW_ED25519_PK], char out[SW_SSH_FPR_LEN])
{
	uint8_t blob[SW_SSH_PUBBLOB_LEN], d[crypto_hash_sha256_BYTES];

	sw_ssh_pubblob(pk, blob);
	crypto_hash_sha256(d, blob, sizeof(blob));
	memcpy(out, "SHA256:", 7);
	sodium_bin2base64(out + 7, SW_SSH_FPR_LEN - 7, d, sizeof(d),
			  sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
}

int sw_sshsig_signed_data(const char *ns, const uint8_t hash[64], uint8_t *out, size_t cap,
			  size_t *len)
{
	struct wbuf w = { out, 0, cap, false };

	if (strlen(ns) > SW_SSHSIG_NS_MAX)
		return -ENAMETOOLONG;
	put(&w, MAGIC, MAGIC_LEN);
	put_str(&w, ns, strlen(ns));
	put_str(&w, "", 0);
	put_str(&w, "sha512", 6);
	put_str(&w, hash, 64);
	if (w.over)
		return -ENOSPC;
	*len = w.n;
	return 0;
}

int sw_sshsig_armor(const uint8_t pk[SW_ED25519_PK], const char *ns,
		    const uint8_t sig[SW_ED25519_SIG], char **out, size_t *len)
{
	uint8_t blob[BLOB_MAX], pub[SW_SSH_PUBBLOB_LEN], sblob[4 + 11 + 4 + SW_ED25519_SIG];
	struct wbuf w = { blob, 0, sizeof(blob), false }, s = { sblob, 0, sizeof(sblob), false };
	char b64[sodium_base64_ENCODED_LEN(BLOB_MAX, sodium_base64_VARIANT_ORIGINAL)];
	size_t n, o = 0;
	char *t;

	if (strlen(ns) > SW_SSHSIG_NS_MAX)
		return -ENAMETOOLONG;
	sw_ssh_pubblob(pk, pub);
	put_str(&s, KEYTYPE, strlen(KEYTYPE));
	put_str(&s, sig, SW_ED25519_SIG);
	put(&w, MAGIC, MAGIC_LEN);
	put_u32(&w, 1);
	put_str(&w, pub, sizeof(pub));
	put_str(&w, ns, strlen(ns));
	put_str(&w, "", 0);
	put_str(&w, "sha512", 6);
	put_str(&w, sblob, s.n);
	if (w.over || s.over)
		return -ENOSPC;
	sodium_bin2base64(b64, sizeof(b64), blob, w.n, sodium_base64_VARIANT_ORIGINAL);
	n = strlen(b64);
	t = malloc(sizeof(BEGIN) + n + n / WRAP + 2 + sizeof(END) + 1);
	if (!t)
		return -ENOMEM;
	o += (size_t)sprintf(t, "%s\n", BEGIN);
	for (size_t i = 0; i < n; i += WRAP) {
		size_t l = n - i < WRAP ? n - i : WRAP;

		memcpy(t + o, b64 + i, l);
		o += l;
		t[o++] = '\n';
	}
	o += (size_t)sprintf(t + o, "%s\n", END);
	*out = t;
	*len = o;
	return 0;
}

int sw_sshsig_sign(const uint8_t sk[SW_ED25519_SK], const char *ns, const void *msg, size_t len,
		   char **out, size_t *outlen)
{
	uint8_t h[crypto_hash_sha512_BYTES], data[MAGIC_LEN + 4 + SW_SSHSIG_NS_MAX + 4 + 4 + 6 + 4 + 64];
	uint8_t sig[SW_ED25519_SIG];
	size_t n;
	int rc;

	if (sodium_init() < 0)
		return -EIO;
	crypto_hash_sha512(h, msg, len);
	if ((rc = sw_sshsig_signed_data(ns, h, data, sizeof(data), &n)))
		return rc;
	if (crypto_sign_detached(sig, NULL, data, n, sk))
		return -EIO;
	return sw_sshsig_armor(sk + 32, ns, sig, out, outlen);
}

/* ---- reading ------------------------------------------------------------- */

struct rbuf {
	const uint8_t *p;
	size_t n;
};

static int get_u32(struct rbuf *r, uint32_t *v)
{
	if (r->n < 4)
		return -EBADMSG;
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->n -= 4;
	return 0;
}

/* a string: its bytes stay in the buffer */
static int get_str(struct rbuf *r, struct rbuf *s)
{
	uint32_t l;

	if (get_u32(r, &l) || l > r->n)
		return -EBADMSG;
	s->p = r->p;
	s->n = l;
	r->p += l;
	r->n -= l;
	return 0;
}

static bool str_is(const struct rbuf *s, const char *want)
{
	return s->n == strlen(want) && !memcmp(s->p, want, s->n);
}

/* string "ssh-ed25519", string of size bytes (a key or a signature) */
static int get_typed(struct rbuf *r, uint8_t *out, size_t size)
{
	struct rbuf t, v, outer;
	int rc;

	if ((rc = get_str(r, &outer)) || (rc = get_str(&outer, &t)))
		return rc;
	if (!str_is(&t, KEYTYPE))
		return -ENOTSUP;
	if ((rc = get_str(&outer, &v)))
		return rc;
	if (v.n != size || outer.n)
		return -EBADMSG;
	memcpy(out, v.p, size);
	return 0;
}

/* The base64 between the armor lines, decoded into out. */
static int dearmor(const char *text, size_t len, uint8_t *out, size_t cap, size_t *n)
{
	const char *b, *e, *end = text + len;

	if (len > SW_SSHSIG_MAX_TEXT || memchr(text, '\0', len))
		return -EBADMSG;
	b = memmem(text, len, BEGIN, strlen(BEGIN));
	if (!b)
		return -EBADMSG;
	for (const char *p = text; p < b; p++)
		if (!strchr(" \t\r\n", *p))
			return -EBADMSG;
	b += strlen(BEGIN);
	e = memmem(b, (size_t)(end - b), END, strlen(END));
	if (!e)
		return -EBADMSG;
	for (const char *p = e + strlen(END); p < end; p++)
		if (!strchr(" \t\r\n", *p))
			return -EBADMSG;
	if (sodium_base642bin(out, cap, b, (size_t)(e - b), " \t\r\n", n, NULL,
			      sodium_base64_VARIANT_ORIGINAL))
		return -EBADMSG;
	return 0;
}

int sw_sshsig_parse(const char *text, size_t len, struct sw_sshsig *out)
{
	uint8_t blob[BLOB_MAX + 1];
	struct rbuf r, ns, res, hash;
	uint32_t ver;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	/* one byte of room more than the largest good blob: a longer one fails */
	if ((rc = dearmor(text, len, blob, sizeof(blob), &n)))
		return rc;
	r = (struct rbuf){ blob, n };
	if (r.n < MAGIC_LEN || memcmp(r.p, MAGIC, MAGIC_LEN))
		return -EBADMSG;
	r.p += MAGIC_LEN;
	r.n -= MAGIC_LEN;
	if ((rc = get_u32(&r, &ver)))
		return rc;
	if (ver != 1)
		return -ENOTSUP;
	if ((rc = get_typed(&r, out->pk, SW_ED25519_PK)) || (rc = get_str(&r, &ns)) ||
	    (rc = get_str(&r, &res)) || (rc = get_str(&r, &hash)))
		return rc;
	if (ns.n == 0 || ns.n > SW_SSHSIG_NS_MAX || memchr(ns.p, '\0', ns.n))
		return -EBADMSG;
	if (!str_is(&hash, "sha512") && !str_is(&hash, "sha256"))
		return -ENOTSUP;
	if ((rc = get_typed(&r, out->sig, SW_ED25519_SIG)))
		return rc;
	if (r.n)
		return -EBADMSG;        /* bytes after the signature */
	memcpy(out->ns, ns.p, ns.n);
	memcpy(out->hash, hash.p, hash.n);
	(void)res;                      /* reserved: ignored, as OpenSSH does; it is signed */
	return 0;
}

int sw_sshsig_verify(const struct sw_sshsig *s, const char *ns, const void *msg, size_t len)
{
	uint8_t h[64], data[MAGIC_LEN + 4 + SW_SSHSIG_NS_MAX + 4 + 4 + 6 + 4 + 64];
	struct wbuf w = { data, 0, sizeof(data), false };
	size_t hl = 64;

	if (strcmp(s->ns, ns))
		return -EPROTO;
	if (sodium_init() < 0)
		return -EIO;
	if (!strcmp(s->hash, "sha256")) {
		crypto_hash_sha256(h, msg, len);
		hl = 32;
	} else {
		crypto_hash_sha512(h, msg, len);
	}
	put(&w, MAGIC, MAGIC_LEN);
	put_str(&w, s->ns, strlen(s->ns));
	put_str(&w, "", 0);
	put_str(&w, s->hash, strlen(s->hash));
	put_str(&w, h, hl);
	if (w.over || crypto_sign_verify_detached(s->sig, data, w.n, s->pk))
		return -EBADMSG;
	return 0;
}

/* ---- allowed signers ----------------------------------------------------- */

/* The next whitespace-separated token of [*p, end), quotes kept whole. */
static bool token(const char **p, const char *end, const char **t, size_t *n)
{
	const char *s = *p;
	bool q = false;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*t = s;
	while (s < end && (q || (*s != ' ' && *s != '\t'))) {
		if (*s == '"')
			q = !q;
		s++;
	}
	*n = (size_t)(s - *t);
	*p = s;
	return *n > 0 && !q;
}

/* Is ns in the comma-separated list [l, l+n)? */
static bool ns_listed(const char *l, size_t n, const char *ns)
{
	size_t w = strlen(ns);

	for (const char *e = l + n; l <= e;) {
		const char *c = memchr(l, ',', (size_t)(e - l));
		size_t k = c ? (size_t)(c - l) : (size_t)(e - l);

		if ((k == w && !memcmp(l, ns, w)) || (k == 1 && *l == '*'))
			return true;
		if (!c)
			break;
		l = c + 1;
	}
	return false;
}

/* The options field: true when the line may be used for ns. */
static bool options_ok(const char *o, size_t n, const char *ns)
{
	static const char nsopt[] = "namespaces=\"";
	const char *e = o + n;

	while (o < e) {
		const char *s = o;
		bool q = false;

		while (o < e && (q || *o != ',')) {
			if (*o == '"')
				q = !q;
			o++;
		}
		if ((size_t)(o - s) > strlen(nsopt) && !strncasecmp(s, nsopt, strlen(nsopt)) &&
		    o[-1] == '"') {
			if (!ns_listed(s + strlen(nsopt), (size_t)(o - s) - strlen(nsopt) - 1, ns))
				return false;
		} else if ((o - s == 14 && !strncasecmp(s, "cert-authority", 14)) ||
			   (o - s >= 12 && !strncasecmp(s, "valid-after=", 12)) ||
			   (o - s >= 13 && !strncasecmp(s, "valid-before=", 13))) {
			return false;
		}
		o += o < e;
	}
	return true;
}

/* One line: its key is pk, for ns. */
static bool line_matches(const char *p, const char *end, const uint8_t pk[SW_ED25519_PK],
			 const char *ns, const char **pr, size_t *prn)
{
	uint8_t want[SW_SSH_PUBBLOB_LEN], got[SW_SSH_PUBBLOB_LEN + 1];
	const char *t;
	size_t n, bl;

	if (!token(&p, end, pr, prn) || **pr == '#' || !token(&p, end, &t, &n))
		return false;
	if (!(n == strlen(KEYTYPE) && !memcmp(t, KEYTYPE, n))) {
		if (!options_ok(t, n, ns) || !token(&p, end, &t, &n))
			return false;
		if (!(n == strlen(KEYTYPE) && !memcmp(t, KEYTYPE, n)))
			return false;
	}
	if (!token(&p, end, &t, &n) || sodium_base642bin(got, sizeof(got), t, n, NULL, &bl, NULL,
							 sodium_base64_VARIANT_ORIGINAL))
		return false;
	sw_ssh_pubblob(pk, want);
	return bl == sizeof(want) && !memcmp(got, want, bl);
}

int sw_ssh_allowed_find(const char *text, size_t len, const uint8_t pk[SW_ED25519_PK],
			const char *ns, char *principal, size_t cap)
{
	const char *end = text + len;

	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *pr;
		size_t prn;

		if (le > p && le[-1] == '\r')
			le--;
		if (line_matches(p, le, pk, ns, &pr, &prn)) {
			if (cap)
				snprintf(principal, cap, "%.*s", (int)prn, pr);
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}
