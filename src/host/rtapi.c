// SPDX-License-Identifier: GPL-2.0-or-later
/* rtapi: the runtimes' answers, DOCKER_HOST / CONTAINER_HOST, cgroup and
 * fdinfo text, parsed (see include/host/rtapi.h). Pure: no sockets, no
 * files; tests/unit/host/test_rtapi.c and tests/fuzz/fuzz_rtapi.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "host/rtapi.h"
#include "lib/addr.h"

bool sw_rtapi_id_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')) || n >= 64)
			return false;
	return n >= 12;
}

static void clean_member(const struct sw_jv *v, const char *key, char *dst, size_t len)
{
	const char *s;

	if (sw_jv_get_str(v, key, &s) == 0)
		sw_identity_clean(dst, len, s);
}

static void add_addr_str(struct sw_identity *id, const struct sw_jv *net, const char *key)
{
	const char *s;
	struct sw_prefix p;
	uint8_t a16[16] = { 0 };

	if (sw_jv_get_str(net, key, &s) || !s[0] || strlen(s) > 45 || strchr(s, '/') ||
	    sw_prefix_parse(s, &p, NULL))
		return;
	memcpy(a16, p.addr, sw_family_addrlen(p.family));
	sw_identity_add_addr(id, p.family, a16);
}

/* NetworkSettings: {"Networks":{"NAME":{"IPAddress":..,"GlobalIPv6Address":..}}}
 * (and the top-level IPAddress of an inspect's default bridge) */
static void take_networks(struct sw_identity *id, const struct sw_jv *ns)
{
	const struct sw_jv *nets;

	if (!ns || ns->type != SW_JOBJ)
		return;
	add_addr_str(id, ns, "IPAddress");
	add_addr_str(id, ns, "GlobalIPv6Address");
	nets = sw_jv_get(ns, "Networks");
	for (size_t i = 0; nets && nets->type == SW_JOBJ && i < nets->n; i++) {
		add_addr_str(id, &nets->vals[i], "IPAddress");
		add_addr_str(id, &nets->vals[i], "GlobalIPv6Address");
	}
}

static void take_labels(struct sw_identity *id, const struct sw_jv *labels)
{
	if (!labels || labels->type != SW_JOBJ)
		return;
	clean_member(labels, "sandwall.run", id->run, sizeof(id->run));
	clean_member(labels, "io.kubernetes.pod.namespace", id->k8s_ns, sizeof(id->k8s_ns));
	clean_member(labels, "io.kubernetes.pod.name", id->k8s_pod, sizeof(id->k8s_pod));
}

static void take_name(struct sw_identity *id, const char *name)
{
	sw_identity_clean(id->name, sizeof(id->name), name[0] == '/' ? name + 1 : name);
}

/* the members both answers share: Id; 0 or -EINVAL (no valid id) */
static int take_common(const struct sw_jv *c, const char *runtime, struct sw_identity *id)
{
	const char *s;

	memset(id, 0, sizeof(*id));
	if (c->type != SW_JOBJ || sw_jv_get_str(c, "Id", &s) || !sw_rtapi_id_ok(s))
		return -EINVAL;
	snprintf(id->id, sizeof(id->id), "%s", s);
	sw_identity_clean(id->runtime, sizeof(id->runtime), runtime);
	take_networks(id, sw_jv_get(c, "NetworkSettings"));
	return 0;
}

static void take_list_entry(const struct sw_jv *c, struct sw_identity *id)
{
	const struct sw_jv *names = sw_jv_get(c, "Names");
	const char *s;

	if (names && names->type == SW_JARR && names->n && names->vals[0].type == SW_JSTR)
		take_name(id, names->vals[0].str);
	else if (sw_jv_get_str(c, "Name", &s) == 0)
		take_name(id, s);
	clean_member(c, "Image", id->image, sizeof(id->image));
	take_labels(id, sw_jv_get(c, "Labels"));
}

int sw_rtapi_parse_list(const char *body, size_t len, const char *runtime,
			struct sw_identity *out, size_t max, size_t *n)
{
	struct sw_jv v;
	int rc;

	*n = 0;
	if (!body || (rc = sw_jv_parse(body, len, &v, NULL)))
		return body ? rc : -EINVAL;
	if (v.type != SW_JARR) {
		sw_jv_free(&v);
		return -EINVAL;
	}
	for (size_t i = 0; i < v.n && *n < max; i++) {
		if (take_common(&v.vals[i], runtime, &out[*n]))
			continue;
		take_list_entry(&v.vals[i], &out[*n]);
		(*n)++;
	}
	sw_jv_free(&v);
	return 0;
}

int sw_rtapi_parse_inspect(const char *body, size_t len, const char *runtime,
			   struct sw_identity *out)
{
	const struct sw_jv *cfg, *state;
	const char *s;
	int64_t pid;
	struct sw_jv v;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!body || (rc = sw_jv_parse(body, len, &v, NULL)))
		return body ? rc : -EINVAL;
	if ((rc = take_common(&v, runtime, out)))
		goto out;
	if (sw_jv_get_str(&v, "Name", &s) == 0)
		take_name(out, s);
	if ((cfg = sw_jv_get(&v, "Config")) && cfg->type == SW_JOBJ) {
		clean_member(cfg, "Image", out->image, sizeof(out->image));
		take_labels(out, sw_jv_get(cfg, "Labels"));
	}
	if (!out->image[0])
		clean_member(&v, "ImageName", out->image, sizeof(out->image));   /* podman */
	if ((state = sw_jv_get(&v, "State")) && sw_jv_get_i64(state, "Pid", &pid) == 0 &&
	    pid > 0 && pid < INT32_MAX)
		out->pid = (int32_t)pid;
out:
	sw_jv_free(&v);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

int sw_rtapi_host_env(const char *value, char *path, size_t len)
{
	const char *p;

	if (!value || !value[0])
		return -ENOENT;
	if (strncmp(value, "unix://", 7))
		return -EPROTONOSUPPORT;
	p = value + 7;
	if (p[0] != '/' || strlen(p) >= len || strlen(p) >= 108)    /* sun_path */
		return -EINVAL;
	snprintf(path, len, "%s", p);
	return 0;
}

/* ---- /proc/PID/cgroup ------------------------------------------------ */

static bool hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* "PREFIX<64 hex>SUFFIX" (suffix "" or ".scope"): the id into out */
static bool scope_id(const char *c, size_t n, const char *prefix, char *out, size_t len)
{
	size_t pl = strlen(prefix);

	if (n < pl + 64 || strncmp(c, prefix, pl) || !hex_run(c + pl, 64))
		return false;
	if (n != pl + 64 && !(n == pl + 64 + 6 && !strncmp(c + pl + 64, ".scope", 6)))
		return false;
	snprintf(out, len, "%.64s", c + pl);
	return true;
}

/* kubepods: "pod<UID>" (cgroupfs) or "kubepods-<qos>-pod<UID_>.slice" (systemd) */
static bool pod_uid(const char *c, size_t n, char *out, size_t len)
{
	const char *p = NULL;
	size_t k = 0, m;

	for (size_t i = 0; i + 3 <= n; i++)
		if (!strncmp(c + i, "pod", 3) && (i == 0 || c[i - 1] == '-'))
			p = c + i + 3;
	if (!p)
		return false;
	m = n - (size_t)(p - c);
	if (m > 6 && !strncmp(p + m - 6, ".slice", 6))
		m -= 6;
	if (m < 32 || m > 36 || len < m + 1)
		return false;
	for (size_t i = 0; i < m; i++) {
		char ch = p[i] == '_' ? '-' : p[i];

		if (!(hex_run(&ch, 1) || ch == '-'))
			return false;
		out[k++] = ch;
	}
	out[k] = '\0';
	return true;
}

/* One path component: does it name a container? (the caller takes the
 * deepest). prev: the component before it. */
static bool component(const char *c, size_t n, const char *prev, size_t pn, bool in_kubepods,
		      struct sw_identity *id)
{
	char tmp[80];

	if (scope_id(c, n, "docker-", tmp, sizeof(tmp)) ||
	    (pn == 6 && !strncmp(prev, "docker", 6) && scope_id(c, n, "", tmp, sizeof(tmp)))) {
		snprintf(id->runtime, sizeof(id->runtime), "docker");
	} else if (scope_id(c, n, "libpod-", tmp, sizeof(tmp))) {
		snprintf(id->runtime, sizeof(id->runtime), "podman");
	} else if (n > 12 && !strncmp(c, "lxc.payload.", 12)) {
		snprintf(id->runtime, sizeof(id->runtime), "lxc");
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(n - 12), c + 12);
		sw_identity_clean(id->name, sizeof(id->name), tmp);
		snprintf(tmp, sizeof(tmp), "%s", id->name);     /* its name is its id */
	} else if (pn == 3 && !strncmp(prev, "lxc", 3) && n < sizeof(tmp)) {
		snprintf(id->runtime, sizeof(id->runtime), "lxc");
		snprintf(tmp, sizeof(tmp), "%.*s", (int)n, c);
		sw_identity_clean(id->name, sizeof(id->name), tmp);
		snprintf(tmp, sizeof(tmp), "%s", id->name);
	} else if (in_kubepods && pod_uid(c, n, tmp, sizeof(tmp))) {
		snprintf(id->runtime, sizeof(id->runtime), "cgroup");
	} else if (n == 64 && hex_run(c, 64) && strcmp(id->runtime, "cgroup")) {
		/* a bare id below a --cgroup-parent: some runtime's */
		snprintf(id->runtime, sizeof(id->runtime), "cgroup");
		snprintf(tmp, sizeof(tmp), "%.64s", c);
	} else {
		return false;
	}
	snprintf(id->id, sizeof(id->id), "%s", tmp);
	return true;
}

static bool path_match(const char *path, size_t plen, struct sw_identity *id)
{
	const char *prev = "", *c = path, *end = path + plen;
	size_t pn = 0;
	bool any = false, kube = false;

	while (c < end) {
		const char *e = memchr(c, '/', (size_t)(end - c));
		size_t n = e ? (size_t)(e - c) : (size_t)(end - c);

		if (n >= 8 && !strncmp(c, "kubepods", 8))
			kube = true;
		if (n && component(c, n, prev, pn, kube, id))
			any = true;
		prev = c;
		pn = n;
		c += n + 1;
	}
	return any;
}

int sw_rtapi_parse_cgroup(const char *text, size_t len, struct sw_identity *out)
{
	const char *p = text, *end = text + len;
	struct sw_identity best = { 0 };
	bool found = false;

	while (text && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *c1, *c2;
		struct sw_identity id = { 0 };

		/* "HIERARCHY:CONTROLLERS:PATH" */
		if ((c1 = memchr(p, ':', (size_t)(le - p))) &&
		    (c2 = memchr(c1 + 1, ':', (size_t)(le - c1 - 1))) &&
		    path_match(c2 + 1, (size_t)(le - c2 - 1), &id) &&
		    (!found || !strcmp(best.runtime, "cgroup"))) {
			best = id;
			found = true;
		}
		p = le + 1;
	}
	if (!found)
		return -ENOENT;
	snprintf(out->runtime, sizeof(out->runtime), "%s", best.runtime);
	snprintf(out->id, sizeof(out->id), "%s", best.id);
	if (best.name[0])
		snprintf(out->name, sizeof(out->name), "%s", best.name);
	return 0;
}

int sw_rtapi_parse_fdinfo(const char *text, size_t len, char *ifname, size_t n)
{
	const char *p = text, *end = text + len;

	while (text && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (le - p > 4 && !strncmp(p, "iff:", 4)) {
			const char *s = p + 4;
			size_t k;

			while (s < le && (*s == '\t' || *s == ' '))
				s++;
			k = (size_t)(le - s);
			if (!k || k >= 16 || k >= n || memchr(s, '/', k) || memchr(s, '\0', k))
				return -ENOENT;
			memcpy(ifname, s, k);
			ifname[k] = '\0';
			for (size_t i = 0; i < k; i++)
				if ((unsigned char)ifname[i] <= ' ' || (unsigned char)ifname[i] >= 0x7f)
					return -ENOENT;
			return 0;
		}
		p = le + 1;
	}
	return -ENOENT;
}
