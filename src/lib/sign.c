// SPDX-License-Identifier: GPL-2.0-or-later
/* sign: the receipt key (OpenSSH's openssh-key-v1 format) and FILE.sig
 * (see include/lib/sign.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sodium.h>

#include "lib/atomicfile.h"
#include "lib/sign.h"
#include "lib/sshsig.h"

#define KEY_MAGIC     "openssh-key-v1"          /* and its NUL: 15 bytes */
#define KEY_MAGIC_LEN 15
#define KEY_BEGIN     "-----BEGIN OPENSSH PRIVATE KEY-----"
#define KEY_END       "-----END OPENSSH PRIVATE KEY-----"
#define KEYTYPE       "ssh-ed25519"
#define WRAP          70
#define BLOCK         8                         /* cipher "none": padding to 8 bytes */
/* magic, "none", "none", "", 1 key, the public blob, the private part */
#define PRIV_MAX      (8 + 4 + 11 + 4 + 32 + 4 + 64 + 4 + SW_SIGN_COMMENT_MAX + BLOCK)
#define KEYBLOB_MAX   (KEY_MAGIC_LEN + 8 + 8 + 4 + 4 + 4 + SW_SSH_PUBBLOB_LEN + 4 + PRIV_MAX)

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

void sw_sign_identity(char out[SW_SIGN_ID_LEN])
{
	char host[65] = "";

	if (gethostname(host, sizeof(host) - 1) || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(out, SW_SIGN_ID_LEN, "sandwall@%s", host);
}

/* begin, base64 of blob in lines of WRAP, end: malloc'd */
static int armor(const char *begin, const char *end, const uint8_t *blob, size_t n, char **out,
		 size_t *len)
{
	size_t bl = sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL), o = 0;
	char *b64 = malloc(bl), *t;

	if (!b64)
		return -ENOMEM;
	sodium_bin2base64(b64, bl, blob, n, sodium_base64_VARIANT_ORIGINAL);
	bl = strlen(b64);
	t = malloc(strlen(begin) + bl + bl / WRAP + strlen(end) + 4);
	if (!t) {
		free(b64);
		return -ENOMEM;
	}
	o += (size_t)sprintf(t, "%s\n", begin);
	for (size_t i = 0; i < bl; i += WRAP) {
		size_t l = bl - i < WRAP ? bl - i : WRAP;

		memcpy(t + o, b64 + i, l);
		o += l;
		t[o++] = '\n';
	}
	o += (size_t)sprintf(t + o, "%s\n", end);
	sodium_memzero(b64, bl);
	free(b64);
	*out = t;
	*len = o;
	return 0;
}

int sw_sign_key_format(const uint8_t sk[SW_ED25519_SK], const char *comment, uint32_t check,
		       char **out, size_t *len)
{
	uint8_t blob[KEYBLOB_MAX], priv[PRIV_MAX], pub[SW_SSH_PUBBLOB_LEN];
	struct wbuf w = { blob, 0, sizeof(blob), false }, p = { priv, 0, sizeof(priv), false };
	int rc;

	if (strlen(comment) > SW_SIGN_COMMENT_MAX)
		return -ENAMETOOLONG;
	sw_ssh_pubblob(sk + 32, pub);
	put_u32(&p, check);
	put_u32(&p, check);
	put_str(&p, KEYTYPE, strlen(KEYTYPE));
	put_str(&p, sk + 32, SW_ED25519_PK);
	put_str(&p, sk, SW_ED25519_SK);
	put_str(&p, comment, strlen(comment));
	for (uint8_t i = 1; p.n % BLOCK; i++)
		put(&p, &i, 1);
	put(&w, KEY_MAGIC, KEY_MAGIC_LEN);
	put_str(&w, "none", 4);
	put_str(&w, "none", 4);
	put_str(&w, "", 0);
	put_u32(&w, 1);
	put_str(&w, pub, sizeof(pub));
	put_str(&w, priv, p.n);
	rc = w.over || p.over ? -ENOSPC : armor(KEY_BEGIN, KEY_END, blob, w.n, out, len);
	sodium_memzero(priv, sizeof(priv));
	sodium_memzero(blob, sizeof(blob));
	return rc;
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

/* a string of exactly n bytes */
static int get_fixed(struct rbuf *r, uint8_t *out, size_t n)
{
	struct rbuf s;
	int rc;

	if ((rc = get_str(r, &s)))
		return rc;
	if (s.n != n)
		return -EBADMSG;
	memcpy(out, s.p, n);
	return 0;
}

/* The base64 between the armor lines, only blank space around them. */
static int dearmor(const char *text, size_t len, uint8_t *out, size_t cap, size_t *n)
{
	const char *b, *e, *end = text + len;

	if (len > SW_SIGN_KEY_MAX || memchr(text, '\0', len))
		return -EBADMSG;
	b = memmem(text, len, KEY_BEGIN, strlen(KEY_BEGIN));
	if (!b)
		return -EBADMSG;
	for (const char *p = text; p < b; p++)
		if (!strchr(" \t\r\n", *p))
			return -EBADMSG;
	b += strlen(KEY_BEGIN);
	e = memmem(b, (size_t)(end - b), KEY_END, strlen(KEY_END));
	if (!e)
		return -EBADMSG;
	for (const char *p = e + strlen(KEY_END); p < end; p++)
		if (!strchr(" \t\r\n", *p))
			return -EBADMSG;
	if (sodium_base642bin(out, cap, b, (size_t)(e - b), " \t\r\n", n, NULL,
			      sodium_base64_VARIANT_ORIGINAL))
		return -EBADMSG;
	return 0;
}

/* The private part: check words, the key (twice the public key), the
 * comment, the padding 1, 2, 3, ... */
static int parse_priv(struct rbuf *r, const uint8_t pub[SW_ED25519_PK], uint8_t sk[SW_ED25519_SK],
		      char *comment, size_t cap)
{
	uint8_t pk[SW_ED25519_PK], derived[SW_ED25519_PK], tmp[SW_ED25519_SK];
	struct rbuf t, c;
	uint32_t c1, c2;
	int rc;

	if (r->n % BLOCK)
		return -EBADMSG;
	if ((rc = get_u32(r, &c1)) || (rc = get_u32(r, &c2)))
		return rc;
	if (c1 != c2)
		return -EBADMSG;                /* an encrypted key read with a wrong key, or damage */
	if ((rc = get_str(r, &t)))
		return rc;
	if (!str_is(&t, KEYTYPE))
		return -ENOTSUP;
	if ((rc = get_fixed(r, pk, sizeof(pk))) || (rc = get_fixed(r, sk, SW_ED25519_SK)) ||
	    (rc = get_str(r, &c)))
		return rc;
	if (c.n > SW_SIGN_COMMENT_MAX || memchr(c.p, '\0', c.n) || r->n >= BLOCK)
		return -EBADMSG;
	for (size_t i = 0; i < r->n; i++)
		if (r->p[i] != i + 1)
			return -EBADMSG;
	/* the public key three times: in the public blob, the private part
	 * and the secret key's second half; and the seed must make it */
	if (memcmp(pk, pub, sizeof(pk)) || memcmp(sk + 32, pk, sizeof(pk)) ||
	    crypto_sign_seed_keypair(derived, tmp, sk) || memcmp(derived, pk, sizeof(pk))) {
		sodium_memzero(tmp, sizeof(tmp));
		return -EBADMSG;
	}
	sodium_memzero(tmp, sizeof(tmp));
	if (cap)
		snprintf(comment, cap, "%.*s", (int)c.n, (const char *)c.p);
	return 0;
}

static int parse_blob(struct rbuf *r, uint8_t sk[SW_ED25519_SK], uint8_t pk[SW_ED25519_PK],
		      char *comment, size_t cap)
{
	struct rbuf cipher, kdf, opts, pub, priv, t;
	uint32_t nkeys;
	int rc;

	if (r->n < KEY_MAGIC_LEN || memcmp(r->p, KEY_MAGIC, KEY_MAGIC_LEN))
		return -EBADMSG;
	r->p += KEY_MAGIC_LEN;
	r->n -= KEY_MAGIC_LEN;
	if ((rc = get_str(r, &cipher)) || (rc = get_str(r, &kdf)) || (rc = get_str(r, &opts)) ||
	    (rc = get_u32(r, &nkeys)))
		return rc;
	if (!str_is(&cipher, "none") || !str_is(&kdf, "none") || opts.n || nkeys != 1)
		return -ENOTSUP;                /* encrypted, or more keys */
	if ((rc = get_str(r, &pub)) || (rc = get_str(&pub, &t)))
		return rc;
	if (!str_is(&t, KEYTYPE))
		return -ENOTSUP;
	if ((rc = get_fixed(&pub, pk, SW_ED25519_PK)))
		return rc;
	if (pub.n || (rc = get_str(r, &priv)))
		return pub.n ? -EBADMSG : rc;
	if (r->n)
		return -EBADMSG;                /* bytes after the private part */
	return parse_priv(&priv, pk, sk, comment, cap);
}

int sw_sign_key_parse(const char *text, size_t len, uint8_t sk[SW_ED25519_SK],
		      uint8_t pk[SW_ED25519_PK], char *comment, size_t cap)
{
	uint8_t blob[KEYBLOB_MAX + 1];
	struct rbuf r;
	size_t n;
	int rc;

	if (sodium_init() < 0)
		return -EIO;
	/* one byte of room more than the largest good blob: a longer one fails */
	rc = dearmor(text, len, blob, sizeof(blob), &n);
	if (!rc) {
		r = (struct rbuf){ blob, n };
		rc = parse_blob(&r, sk, pk, comment, cap);
	}
	if (rc)
		sodium_memzero(sk, SW_ED25519_SK);
	sodium_memzero(blob, sizeof(blob));
	return rc;
}

/* ---- files --------------------------------------------------------------- */

static int read_fd(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	size_t n = 0, cap;
	char *buf;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size < 0 || (uint64_t)st.st_size > max)
		return -EFBIG;
	cap = (size_t)st.st_size + 1;   /* it may grow while read: never past max */
	if (!(buf = malloc(cap + 1)))
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			char *nb;

			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			if (!(nb = realloc(buf, cap + 1))) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
	}
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int sw_sign_slurp(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), rc;

	if (fd < 0)
		return -errno;
	rc = read_fd(fd, max, out, len);
	close(fd);
	return rc;
}

/* The key file: a regular file of ours that only we may read. */
static int read_key(const char *path, uint8_t sk[SW_ED25519_SK], uint8_t pk[SW_ED25519_PK])
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st))
		rc = -errno;
	else if (!S_ISREG(st.st_mode) || (st.st_mode & (S_IRWXG | S_IRWXO)) ||
		 st.st_uid != geteuid())
		rc = -EPERM;
	else
		rc = read_fd(fd, SW_SIGN_KEY_MAX, &text, &len);
	close(fd);
	if (!rc)
		rc = sw_sign_key_parse(text, len, sk, pk, NULL, 0);
	if (text) {
		sodium_memzero(text, len);
		free(text);
	}
	return rc;
}

/* Every missing directory above path, 0700. */
static int make_dirs(const char *path)
{
	char dir[4096];
	size_t n = strlen(path);

	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n + 1);
	for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

/* A file that did not exist, with all its bytes or not at all:
 * PATH.tmp.PID, fsync, link() (which fails when PATH appeared). */
static int write_new(const char *path, const char *data, size_t len, mode_t mode)
{
	char tmp[4096];
	int fd, err = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	while (len && !err) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno != EINTR)
			err = -errno;
		if (w > 0) {
			data += w;
			len -= (size_t)w;
		}
	}
	if (!err && (fchmod(fd, mode) || fsync(fd)))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && link(tmp, path))
		err = -errno;
	unlink(tmp);
	return err;
}

static int write_pub(const char *path, const uint8_t pk[SW_ED25519_PK])
{
	char pubpath[4096], text[SW_SSH_PUBTEXT_LEN + SW_SIGN_ID_LEN + 2], id[SW_SIGN_ID_LEN];
	char pub[SW_SSH_PUBTEXT_LEN];
	int n;

	if ((size_t)snprintf(pubpath, sizeof(pubpath), "%s.pub", path) >= sizeof(pubpath))
		return -ENAMETOOLONG;
	sw_ssh_pubtext(pk, pub);
	sw_sign_identity(id);
	n = snprintf(text, sizeof(text), "%s %s\n", pub, id);
	return sw_atomic_write(pubpath, text, (size_t)n, 0644);
}

static int key_create(const char *path, uint8_t sk[SW_ED25519_SK], uint8_t pk[SW_ED25519_PK])
{
	char id[SW_SIGN_ID_LEN], *text = NULL;
	size_t len = 0;
	int rc;

	if ((rc = make_dirs(path)))
		return rc;
	crypto_sign_keypair(pk, sk);
	sw_sign_identity(id);
	if ((rc = sw_sign_key_format(sk, id, randombytes_random(), &text, &len)))
		return rc;
	rc = write_new(path, text, len, 0600);
	sodium_memzero(text, len);
	free(text);
	return rc;
}

int sw_sign_key_load(const char *path, bool create, uint8_t sk[SW_ED25519_SK],
		     uint8_t pk[SW_ED25519_PK], bool *created)
{
	char pubpath[4096];
	struct stat st;
	int rc;

	if (created)
		*created = false;
	if (sodium_init() < 0)
		return -EIO;
	rc = read_key(path, sk, pk);
	if (rc == -ENOENT && create) {
		rc = key_create(path, sk, pk);
		if (rc == -EEXIST)              /* another process made it meanwhile */
			rc = read_key(path, sk, pk);
		else if (!rc && created)
			*created = true;
	}
	if (!rc && create && (size_t)snprintf(pubpath, sizeof(pubpath), "%s.pub", path) <
	    sizeof(pubpath) && lstat(pubpath, &st) && errno == ENOENT)
		rc = write_pub(path, pk);
	if (rc)
		sodium_memzero(sk, SW_ED25519_SK);
	return rc;
}

/* ---- signatures ---------------------------------------------------------- */

int sw_sign_file(const char *key_path, const char *file, char *sig_path, size_t cap)
{
	uint8_t sk[SW_ED25519_SK], pk[SW_ED25519_PK];
	char *msg = NULL, *sig = NULL;
	size_t len = 0, slen = 0;
	int rc;

	if ((size_t)snprintf(sig_path, cap, "%s" SW_SIGN_SIG_SUFFIX, file) >= cap)
		return -ENAMETOOLONG;
	if ((rc = sw_sign_slurp(file, SW_SIGN_FILE_MAX, &msg, &len)))
		return rc;
	rc = sw_sign_key_load(key_path, true, sk, pk, NULL);
	if (!rc)
		rc = sw_sshsig_sign(sk, SW_SSHSIG_NAMESPACE, msg, len, &sig, &slen);
	sodium_memzero(sk, sizeof(sk));
	if (!rc)
		rc = sw_atomic_write(sig_path, sig, slen, 0644);
	free(sig);
	free(msg);
	return rc;
}

static int read_sig(const char *sig_file, struct sw_sshsig *s)
{
	char *text = NULL;
	size_t len = 0;
	int rc = sw_sign_slurp(sig_file, SW_SSHSIG_MAX_TEXT, &text, &len);

	if (rc == -ENOENT)
		return -ENODATA;
	if (rc == -EFBIG)
		return -EBADMSG;                /* no signature is that long */
	if (!rc)
		rc = sw_sshsig_parse(text, len, s);
	free(text);
	return rc;
}

int sw_sign_signer(const char *sig_file, uint8_t pk[SW_ED25519_PK])
{
	struct sw_sshsig s;
	int rc = read_sig(sig_file, &s);

	if (!rc)
		memcpy(pk, s.pk, SW_ED25519_PK);
	return rc;
}

int sw_sign_verify_file(const char *file, const char *sig_file, const char *allowed,
			const uint8_t *pk, char *principal, size_t cap)
{
	char *msg = NULL, id[SW_SIGN_ID_LEN];
	struct sw_sshsig s;
	size_t len = 0;
	int rc;

	if (cap)
		principal[0] = '\0';
	if (!allowed && !pk)
		return -EINVAL;
	if ((rc = read_sig(sig_file, &s)))
		return rc;
	if ((rc = sw_sign_slurp(file, SW_SIGN_FILE_MAX, &msg, &len)))
		return rc == -ENOENT ? -ENODATA : rc;
	rc = sw_sshsig_verify(&s, SW_SSHSIG_NAMESPACE, msg, len);
	free(msg);
	if (rc)
		return rc;
	if (pk && sodium_memcmp(s.pk, pk, SW_ED25519_PK))
		return -EBADMSG;
	if (allowed)
		return sw_ssh_allowed_find(allowed, strlen(allowed), s.pk, SW_SSHSIG_NAMESPACE,
					   principal, cap);
	sw_sign_identity(id);
	if (cap)
		snprintf(principal, cap, "%s", id);
	return 0;
}
