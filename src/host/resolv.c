/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resolv: the host's DNS resolvers, from resolv.conf (sw_resolv_parse,
 * sw_host_read_resolvers; see include/host/hoststate.h). Resolvers are an
 * allow list: extra ones are dropped. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "host/hoststate.h"

#define RESOLV_MAX_BYTES  (1u << 20)
#define RESOLV_DEFAULT    "/etc/resolv.conf"
#define RESOLV_RESOLVED   "/run/systemd/resolve/resolv.conf"

static bool is_loopback_or_any(const struct sw_prefix *p)
{
	static const uint8_t any6[16], lo6[16] = { [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (p->family == AF_INET)
		return p->addr[0] == 127 || memcmp(p->addr, any6, 4) == 0;
	if (memcmp(p->addr, any6, 16) == 0 || memcmp(p->addr, lo6, 16) == 0)
		return true;
	return memcmp(p->addr, mapped, 12) == 0 && p->addr[12] == 127;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Parse one line (without its '\n'). Returns 1 and fills *p for a usable
 * "nameserver ADDR" line, 0 otherwise. */
static int parse_line(const char *s, const char *end, struct sw_prefix *p)
{
	static const char kw[] = "nameserver";
	char tok[SW_ADDR_STRLEN];
	const char *a;
	size_t n;

	while (s < end && is_space(*s))
		s++;
	if ((size_t)(end - s) <= sizeof(kw) - 1 || memcmp(s, kw, sizeof(kw) - 1) != 0 ||
	    !is_space(s[sizeof(kw) - 1]))
		return 0;
	for (s += sizeof(kw) - 1; s < end && is_space(*s); s++)
		;
	for (a = s; s < end && !is_space(*s) && *s != '#' && *s != ';'; s++)
		;
	n = (size_t)(s - a);
	if (n == 0 || n >= sizeof(tok) || memchr(a, '/', n))
		return 0;
	memcpy(tok, a, n);
	tok[n] = '\0';
	if (strchr(tok, ':')) {           /* fe80::1%eth0: drop the zone */
		char *z = strchr(tok, '%');
		if (z)
			*z = '\0';
	}
	return sw_prefix_parse(tok, p, NULL) == 0;
}

/* Entries beyond max are ignored: the list only narrows what is allowed,
 * and the C library itself uses the first few servers only. */
int sw_resolv_parse(const char *text, struct sw_prefix *out, size_t max,
		    size_t *n, bool *saw_stub)
{
	static const uint8_t stub[4] = { 127, 0, 0, 53 };
	const char *s = text, *eol;

	if (!text || !n || (max && !out))
		return -EINVAL;
	*n = 0;
	if (saw_stub)
		*saw_stub = false;
	for (; *s; s = *eol ? eol + 1 : eol) {
		struct sw_prefix p;
		size_t i;

		eol = strchrnul(s, '\n');
		if (!parse_line(s, eol, &p))
			continue;
		if (p.family == AF_INET && memcmp(p.addr, stub, 4) == 0 && saw_stub)
			*saw_stub = true;
		if (is_loopback_or_any(&p))
			continue;
		for (i = 0; i < *n && !sw_prefix_equal(&out[i], &p); i++)
			;
		if (i == *n && *n < max)
			out[(*n)++] = p;
	}
	return 0;
}

/* Read a whole small text file, NUL-terminated. -ENOENT if missing. */
static int read_text(const char *path, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf = NULL, *nb;
	int fd, err = 0;
	ssize_t r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!buf || len + 1 >= cap) {
			if (buf)
				cap *= 2;
			if (cap > RESOLV_MAX_BYTES) {
				err = -EFBIG;
				break;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Parse one file and merge its servers into h (deduplicated). A missing
 * file is not an error. */
static int read_resolv_file(struct sw_host *h, const char *path, bool *saw_stub)
{
	struct sw_prefix tmp[SW_MAX_RESOLVERS];
	size_t n = 0;
	char *text;
	int err = read_text(path, &text);

	if (saw_stub)
		*saw_stub = false;
	if (err == -ENOENT || err == -ENOTDIR)
		return 0;
	if (err)
		return err;
	err = sw_resolv_parse(text, tmp, SW_MAX_RESOLVERS, &n, saw_stub);
	free(text);
	for (size_t i = 0; !err && i < n; i++) {
		size_t j;

		for (j = 0; j < h->n_resolvers && !sw_prefix_equal(&h->resolvers[j], &tmp[i]); j++)
			;
		if (j == h->n_resolvers && h->n_resolvers < SW_MAX_RESOLVERS)
			h->resolvers[h->n_resolvers++] = tmp[i];
	}
	return err;
}

int sw_host_read_resolvers(struct sw_host *h)
{
	const char *path = secure_getenv("SANDWALL_RESOLV_CONF");
	bool stub = false;
	int err;

	h->n_resolvers = 0;
	if (!path || !*path)
		path = RESOLV_DEFAULT;
	err = read_resolv_file(h, path, &stub);
	if (!err && stub)
		err = read_resolv_file(h, RESOLV_RESOLVED, NULL);
	if (err)
		h->n_resolvers = 0;
	return err;
}
