// SPDX-License-Identifier: GPL-2.0-or-later
/* identity: the sandbox records and their bounded cache (see
 * include/host/identity.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "host/identity.h"
#include "lib/addr.h"
#include "lib/journal.h"

void sw_identity_clean(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	if (!len)
		return;
	for (; s && *s && i + 1 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		dst[i++] = ch <= ' ' || ch >= 0x7f || strchr("\"'=\\`", ch) ? '_' : (char)ch;
	}
	dst[i] = '\0';
}

bool sw_identity_has_addr(const struct sw_identity *id, int family, const uint8_t *addr)
{
	for (size_t i = 0; i < id->n_addrs; i++)
		if (id->family[i] == family && !memcmp(id->addr[i], addr, 16))
			return true;
	return false;
}

int sw_identity_add_addr(struct sw_identity *id, int family, const uint8_t *addr)
{
	if (sw_identity_has_addr(id, family, addr))
		return 0;
	if (id->n_addrs >= SW_ID_ADDRS)
		return -ENOSPC;
	id->family[id->n_addrs] = family;
	memcpy(id->addr[id->n_addrs], addr, 16);
	id->n_addrs++;
	return 0;
}

bool sw_identity_same_addrs(const struct sw_identity *a, const struct sw_identity *b)
{
	if (a->n_addrs != b->n_addrs)
		return false;
	for (size_t i = 0; i < a->n_addrs; i++)
		if (!sw_identity_has_addr(b, a->family[i], a->addr[i]))
			return false;
	return true;
}

void sw_identity_short(const struct sw_identity *id, char *buf, size_t len)
{
	snprintf(buf, len, "%.12s", id->id);
}

const char *sw_identity_name(const struct sw_identity *id)
{
	return id->name[0] ? id->name : id->comm[0] ? id->comm : "?";
}

static void str_if(struct sw_jw *w, const char *key, const char *v)
{
	if (v[0])
		sw_jw_str(w, key, v);
}

void sw_identity_json(const struct sw_identity *id, struct sw_jw *w, bool addrs)
{
	char a[INET6_ADDRSTRLEN];

	sw_jw_str(w, "runtime", id->runtime);
	str_if(w, "id", id->id);
	str_if(w, "name", id->name);
	str_if(w, "image", id->image);
	if (id->run[0] || id->k8s_ns[0] || id->k8s_pod[0]) {
		sw_jw_obj(w, "labels");
		str_if(w, "sandwall.run", id->run);
		str_if(w, "io.kubernetes.pod.namespace", id->k8s_ns);
		str_if(w, "io.kubernetes.pod.name", id->k8s_pod);
		sw_jw_end(w);
	}
	if (addrs) {
		sw_jw_arr(w, "addresses");
		for (size_t i = 0; i < id->n_addrs; i++)
			if (inet_ntop(id->family[i], id->addr[i], a, sizeof(a)))
				sw_jw_str(w, NULL, a);
		sw_jw_end(w);
	}
	str_if(w, "iif", id->iif);
	if (id->pid > 0)
		sw_jw_i64(w, "pid", id->pid);
	str_if(w, "comm", id->comm);
}

static void get_clean(const struct sw_jv *v, const char *key, char *dst, size_t len)
{
	const char *s;

	if (sw_jv_get_str(v, key, &s) == 0)
		sw_identity_clean(dst, len, s);
}

int sw_identity_from_json(const struct sw_jv *v, struct sw_identity *out)
{
	const struct sw_jv *labels, *addrs;
	int64_t pid = 0;

	memset(out, 0, sizeof(*out));
	if (!v || v->type != SW_JOBJ)
		return -EINVAL;
	get_clean(v, "runtime", out->runtime, sizeof(out->runtime));
	get_clean(v, "id", out->id, sizeof(out->id));
	get_clean(v, "name", out->name, sizeof(out->name));
	get_clean(v, "image", out->image, sizeof(out->image));
	get_clean(v, "iif", out->iif, sizeof(out->iif));
	get_clean(v, "comm", out->comm, sizeof(out->comm));
	if (sw_jv_get_i64(v, "pid", &pid) == 0 && pid > 0 && pid < INT32_MAX)
		out->pid = (int32_t)pid;
	if ((labels = sw_jv_get(v, "labels")) && labels->type == SW_JOBJ) {
		get_clean(labels, "sandwall.run", out->run, sizeof(out->run));
		get_clean(labels, "io.kubernetes.pod.namespace", out->k8s_ns, sizeof(out->k8s_ns));
		get_clean(labels, "io.kubernetes.pod.name", out->k8s_pod, sizeof(out->k8s_pod));
	}
	addrs = sw_jv_get(v, "addresses");
	for (size_t i = 0; addrs && addrs->type == SW_JARR && i < addrs->n; i++) {
		struct sw_prefix p;
		uint8_t a16[16] = { 0 };

		if (addrs->vals[i].type != SW_JSTR || strlen(addrs->vals[i].str) >= INET6_ADDRSTRLEN ||
		    sw_prefix_parse(addrs->vals[i].str, &p, NULL))
			continue;
		memcpy(a16, p.addr, sw_family_addrlen(p.family));
		sw_identity_add_addr(out, p.family, a16);
	}
	return out->runtime[0] ? 0 : -EINVAL;
}

void sw_identity_line(const struct sw_identity *id, time_t now, const char *reason,
		      uint64_t dropped, struct sw_jw *w)
{
	char when[32];

	sw_iso_utc((int64_t)now, when, sizeof(when));
	sw_jw_obj(w, NULL);
	sw_jw_str(w, "time", when);
	sw_jw_i64(w, "unix", (int64_t)now);
	sw_jw_str(w, "event", "identity");
	sw_jw_str(w, "reason", reason);
	sw_identity_json(id, w, true);
	sw_jw_u64(w, "dropped", dropped);
	sw_jw_end(w);
}

/* ---- identities.jsonl --------------------------------------------------- */

static uint64_t count_lines(const char *path)
{
	char buf[8192];
	uint64_t n = 0;
	ssize_t k;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	while (fd >= 0 && (k = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < k; i++)
			n += buf[i] == '\n';
	if (fd >= 0)
		close(fd);
	return n;
}

int sw_idlog_open(struct sw_idlog *l, const char *path, uint64_t max_bytes)
{
	char old[sizeof(l->j.path) + 4];
	int rc;

	memset(l, 0, sizeof(*l));
	l->j.fd = -1;
	if (strlen(path) >= sizeof(l->j.path))
		return -ENAMETOOLONG;
	snprintf(old, sizeof(old), "%s.1", path);
	l->lines_cur = count_lines(path);
	l->lines_prev = count_lines(old);
	rc = sw_journal_open(&l->j, path);
	snprintf(l->j.path, sizeof(l->j.path), "%s", path);
	l->j.max_bytes = max_bytes ? max_bytes : (1u << 20);
	return rc;
}

int sw_idlog_add(struct sw_idlog *l, const struct sw_identity *id, time_t now, const char *reason)
{
	uint64_t before = l->j.size;
	struct sw_jw w;
	const char *text;
	int rc;

	if (!l->j.path[0])
		return -EBADF;
	sw_jw_init(&w);
	sw_identity_line(id, now, reason, l->dropped, &w);
	text = sw_jw_text(&w);
	rc = text ? sw_journal_add(&l->j, text) : (w.err ? w.err : -EINVAL);
	sw_jw_free(&w);
	if (rc) {
		l->dropped++;
		return rc;
	}
	/* a rotation took PATH.1's lines away */
	if (l->j.size < before) {
		l->dropped += l->lines_prev;
		l->lines_prev = l->lines_cur;
		l->lines_cur = 0;
	}
	l->lines_cur++;
	return 0;
}

void sw_idlog_close(struct sw_idlog *l)
{
	if (l->j.path[0])
		sw_journal_close(&l->j);
	memset(l, 0, sizeof(*l));
	l->j.fd = -1;
}

/* ---- the cache --------------------------------------------------------- */

static bool same_record(const struct sw_identity *a, const struct sw_identity *b)
{
	if (strcmp(a->runtime, b->runtime))
		return false;
	if (a->id[0] || b->id[0])
		return !strcmp(a->id, b->id);
	return a->iif[0] && !strcmp(a->iif, b->iif);
}

/* the addresses of id leave every other record */
static void take_addrs(struct sw_idcache *c, const struct sw_idcache_ent *keep,
		       const struct sw_identity *id)
{
	for (size_t i = 0; i < c->n; i++) {
		struct sw_identity *o = &c->e[i].id;

		if (&c->e[i] == keep)
			continue;
		for (size_t k = 0; k < o->n_addrs;) {
			if (sw_identity_has_addr(id, o->family[k], o->addr[k])) {
				o->n_addrs--;
				o->family[k] = o->family[o->n_addrs];
				memcpy(o->addr[k], o->addr[o->n_addrs], 16);
			} else {
				k++;
			}
		}
	}
}

/* what id says replaces what e knew; what it does not say stays */
static void merge(struct sw_identity *e, const struct sw_identity *id)
{
	struct sw_identity old = *e;

	*e = *id;
	if (!id->n_addrs) {
		e->n_addrs = old.n_addrs;
		memcpy(e->family, old.family, sizeof(old.family));
		memcpy(e->addr, old.addr, sizeof(old.addr));
	}
	if (!id->name[0])
		memcpy(e->name, old.name, sizeof(old.name));
	if (!id->image[0])
		memcpy(e->image, old.image, sizeof(old.image));
	if (!id->iif[0])
		memcpy(e->iif, old.iif, sizeof(old.iif));
	if (!id->comm[0])
		memcpy(e->comm, old.comm, sizeof(old.comm));
	if (!id->pid)
		e->pid = old.pid;
}

enum sw_idput sw_idcache_put(struct sw_idcache *c, const struct sw_identity *id, int64_t now_us)
{
	struct sw_idcache_ent *e = NULL;
	enum sw_idput r = SW_IDPUT_NEW;

	for (size_t i = 0; i < c->n && !e; i++)
		if (same_record(&c->e[i].id, id))
			e = &c->e[i];
	if (e) {
		if (e->gone)
			e->id.n_addrs = 0;      /* back (a tap again): what it had is past */
		r = id->n_addrs && !sw_identity_same_addrs(&e->id, id) ? SW_IDPUT_ADDRS :
		    SW_IDPUT_SAME;
		merge(&e->id, id);
	} else {
		if (c->n < SW_ID_CACHE) {
			e = &c->e[c->n++];
		} else {
			/* the least recently seen record makes room */
			e = &c->e[0];
			for (size_t i = 1; i < c->n; i++)
				if (c->e[i].seen_us < e->seen_us)
					e = &c->e[i];
			c->evicted++;
		}
		e->id = *id;
	}
	e->seen_us = now_us;
	e->gone = false;
	take_addrs(c, e, &e->id);
	return r;
}

void sw_idcache_sweep(struct sw_idcache *c, const char *runtime, const struct sw_identity *keep,
		      size_t n_keep)
{
	for (size_t i = 0; i < c->n; i++) {
		bool listed = false;

		if (strcmp(c->e[i].id.runtime, runtime))
			continue;
		for (size_t k = 0; k < n_keep && !listed; k++)
			listed = same_record(&c->e[i].id, &keep[k]);
		if (!listed)
			c->e[i].gone = true;
	}
}

int sw_identity_lookup_addr(const struct sw_idcache *c, int family, const uint8_t *addr,
			    struct sw_identity *out)
{
	for (size_t i = 0; i < c->n; i++)
		if (!c->e[i].gone && sw_identity_has_addr(&c->e[i].id, family, addr)) {
			if (out)
				*out = c->e[i].id;
			return 0;
		}
	return -ENOENT;
}

void sw_idcache_gone_iif(struct sw_idcache *c, const char *iif, const char *runtime)
{
	for (size_t i = 0; iif && iif[0] && i < c->n; i++)
		if (!strcmp(c->e[i].id.iif, iif) && !strcmp(c->e[i].id.runtime, runtime))
			c->e[i].gone = true;
}

int sw_identity_lookup_iif(const struct sw_idcache *c, const char *iif, const char *runtime,
			   struct sw_identity *out)
{
	for (size_t i = 0; iif && iif[0] && i < c->n; i++)
		if (!c->e[i].gone && !strcmp(c->e[i].id.iif, iif) &&
		    !strcmp(c->e[i].id.runtime, runtime)) {
			if (out)
				*out = c->e[i].id;
			return 0;
		}
	return -ENOENT;
}

bool sw_idcache_miss_due(struct sw_idcache *c, int family, const uint8_t *addr, int64_t now_us,
			 int64_t min_us)
{
	size_t slot = c->n_miss;

	for (size_t i = 0; i < c->n_miss; i++)
		if (c->miss[i].family == family && !memcmp(c->miss[i].addr, addr, 16)) {
			if (now_us - c->miss[i].at_us < min_us)
				return false;
			slot = i;
			break;
		}
	if (slot == c->n_miss) {
		if (c->n_miss < SW_ID_MISSES) {
			c->n_miss++;
		} else {
			slot = 0;       /* the oldest ask makes room */
			for (size_t i = 1; i < c->n_miss; i++)
				if (c->miss[i].at_us < c->miss[slot].at_us)
					slot = i;
		}
	}
	c->miss[slot].family = family;
	memcpy(c->miss[slot].addr, addr, 16);
	c->miss[slot].at_us = now_us;
	return true;
}

void sw_idcache_miss_reset(struct sw_idcache *c)
{
	c->n_miss = 0;
}
