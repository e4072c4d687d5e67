// SPDX-License-Identifier: GPL-2.0-or-later
/* rawcap: guarded host-side processes that hold CAP_NET_RAW (rawcap.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "host/rawcap.h"

bool sw_rawcap_cgroup_match(const char *pattern, const char *path)
{
	char pc[SW_CG_PATTERN_MAX], qc[256];

	while (*pattern) {
		size_t pl = strcspn(pattern, "/"), ql = strcspn(path, "/");

		if (!*path || pl >= sizeof(pc) || ql >= sizeof(qc))
			return false;
		memcpy(pc, pattern, pl);
		pc[pl] = 0;
		memcpy(qc, path, ql);
		qc[ql] = 0;
		if (fnmatch(pc, qc, FNM_PERIOD))
			return false;
		pattern += pl + (pattern[pl] == '/');
		path += ql + (path[ql] == '/');
	}
	return true;
}

/* read a small file under dfd into buf (NUL-terminated); 0 or -errno */
static int read_at(int dfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t k;

	if (fd < 0)
		return -errno;
	while (n + 1 < len && (k = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)k;
	close(fd);
	buf[n] = 0;
	return 0;
}

/* the value after "Key:\t" in a status text, or NULL */
static const char *field(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return p + kl + 1;
	return NULL;
}

static bool guarded_uid(const struct sw_config *cfg, const uint32_t *ids, int n)
{
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < cfg->n_users; j++)
			if (ids[i] == cfg->users[j].uid)
				return true;
	return false;
}

/* the scanner's own namespaces, "net:[4026531840]" (readlink of ns/X) */
struct self_ns {
	char net[64], user[64];
};

static void ns_link(int dfd, const char *name, char *buf, size_t len)
{
	ssize_t n = readlinkat(dfd, name, buf, len - 1);

	buf[n > 0 ? n : 0] = 0;
}

/* A process whose network namespace is not the host's (a bridged
 * container in a matching cgroup; a rootless sandbox of a guarded user)
 * opens its packet sockets there, where the container's interfaces are
 * guarded; one in a user namespace of its own has no capability over the
 * host's network namespace. Unreadable links count as the host's. */
static bool host_side(int dfd, const struct self_ns *self)
{
	char net[64], user[64];

	ns_link(dfd, "ns/net", net, sizeof(net));
	ns_link(dfd, "ns/user", user, sizeof(user));
	return (!net[0] || !self->net[0] || !strcmp(net, self->net)) &&
	       (!user[0] || !self->user[0] || !strcmp(user, self->user));
}

/* one process directory; 1 counted as guarded with the cap, 0 not, <0 gone */
static int one(const struct sw_config *cfg, int dfd, int pid, const struct self_ns *self,
	       struct sw_rawcap_report *r)
{
	char st[4096], cg[1024], cgpath[256] = "";
	uint32_t ids[4] = { 0 };
	unsigned long long eff;
	const char *v;
	bool by_user, by_cg = false;
	int n = 0;

	if (read_at(dfd, "status", st, sizeof(st)) || read_at(dfd, "cgroup", cg, sizeof(cg)))
		return -ENOENT;
	if ((v = field(st, "Uid")))
		n = sscanf(v, "%" SCNu32 "%" SCNu32 "%" SCNu32 "%" SCNu32, &ids[0], &ids[1], &ids[2], &ids[3]);
	by_user = n > 0 && guarded_uid(cfg, ids, n);
	/* the cgroup v2 line: "0::/system.slice/docker-1.scope" */
	for (char *p = cg; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "0::/", 4))
			continue;
		size_t l = strcspn(p + 4, "\n");

		if (l < sizeof(cgpath)) {
			memcpy(cgpath, p + 4, l);
			cgpath[l] = 0;
		}
		break;
	}
	for (size_t i = 0; i < cfg->n_cgroups && !by_cg && cgpath[0]; i++)
		by_cg = sw_rawcap_cgroup_match(cfg->cgroups[i], cgpath);
	if ((!by_user && !by_cg) || !host_side(dfd, self))
		return 0;
	r->scanned++;
	if (!(v = field(st, "CapEff")) || sscanf(v, "%llx", &eff) != 1 ||
	    !(eff & (1ull << SW_CAP_NET_RAW)))
		return 0;
	if (r->n_listed < SW_RAWCAP_MAX) {
		struct sw_rawcap_proc *p = &r->procs[r->n_listed++];

		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->uid = n > 1 ? ids[1] : ids[0];
		p->by_user = by_user;
		if ((v = field(st, "Name"))) {
			v += strspn(v, " \t");
			snprintf(p->comm, sizeof(p->comm), "%.*s", (int)strcspn(v, "\n"), v);
		}
		snprintf(p->cgroup, sizeof(p->cgroup), "%s", cgpath);
	}
	r->n++;
	return 1;
}

static int pid_cmp(const void *a, const void *b)
{
	const struct sw_rawcap_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int sw_rawcap_scan(const struct sw_config *cfg, const char *root, struct sw_rawcap_report *r)
{
	struct self_ns self = { "", "" };
	char path[4096];
	struct dirent *e;
	DIR *d;
	int sfd;

	memset(r, 0, sizeof(*r));
	if (!cfg->n_users && !cfg->n_cgroups)
		return 0;
	snprintf(path, sizeof(path), "%s/proc", root ? root : "");
	if (!(d = opendir(path)))
		return -errno;
	if ((sfd = openat(dirfd(d), "self", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		ns_link(sfd, "ns/net", self.net, sizeof(self.net));
		ns_link(sfd, "ns/user", self.user, sizeof(self.user));
		close(sfd);
	}
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		int dfd;

		if (!isdigit((unsigned char)e->d_name[0]) || *end || pid <= 0 || pid > INT32_MAX)
			continue;
		if ((dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;       /* gone */
		one(cfg, dfd, (int)pid, &self, r);
		close(dfd);
	}
	closedir(d);
	qsort(r->procs, r->n_listed, sizeof(*r->procs), pid_cmp);
	return 0;
}

void sw_rawcap_print(const struct sw_rawcap_report *r, const char *prefix, void *file)
{
	FILE *f = file;

	if (!r->n)
		return;
	for (size_t i = 0; i < r->n_listed; i++) {
		const struct sw_rawcap_proc *p = &r->procs[i];

		fprintf(f, "%spid %d (%s) uid %" PRIu32 " %s %s: holds CAP_NET_RAW\n", prefix, p->pid,
			p->comm, p->uid, p->by_user ? "guarded user, cgroup" : "guarded cgroup",
			p->cgroup[0] ? p->cgroup : "/");
	}
	if (r->n > r->n_listed)
		fprintf(f, "%s... and %zu more\n", prefix, r->n - r->n_listed);
	fprintf(f, "%sfix: drop the capability (docker/podman run --cap-drop NET_RAW, "
		"Kubernetes securityContext.capabilities.drop: [NET_RAW], systemd "
		"CapabilityBoundingSet=~CAP_NET_RAW)\n", prefix);
}

int sw_rawcap_out(const struct sw_config *cfg, const char *root, struct sw_jw *w, void *file)
{
	struct sw_rawcap_report r;
	FILE *f = file;
	int rc;

	if (!cfg->n_users && !cfg->n_cgroups)
		return 0;
	rc = sw_rawcap_scan(cfg, root, &r);
	if (w) {
		sw_jw_obj(w, "packet_sockets");
		sw_jw_bool(w, "held", !rc && !r.n);
		if (rc)
			sw_jw_str(w, "error", strerror(-rc));
		sw_jw_u64(w, "guarded_processes", r.scanned);
		sw_jw_arr(w, "cap_net_raw");
		for (size_t i = 0; i < r.n_listed; i++) {
			sw_jw_obj(w, NULL);
			sw_jw_u64(w, "pid", (uint64_t)r.procs[i].pid);
			sw_jw_str(w, "comm", r.procs[i].comm);
			sw_jw_u64(w, "uid", r.procs[i].uid);
			sw_jw_str(w, "by", r.procs[i].by_user ? "user" : "cgroup");
			sw_jw_str(w, "cgroup", r.procs[i].cgroup);
			sw_jw_end(w);
		}
		sw_jw_end(w);
		sw_jw_u64(w, "cap_net_raw_count", r.n);
		if (rc || r.n)
			sw_jw_str(w, "fix", "--cap-drop NET_RAW");
		sw_jw_end(w);
	}
	if (f && rc)
		fprintf(f, "packet sockets: NOT HELD: cannot read the processes: %s\n", strerror(-rc));
	else if (f && r.n)
		fprintf(f, "packet sockets: NOT HELD: %zu guarded host-side process(es) hold CAP_NET_RAW: "
			"their packet sockets (AF_PACKET, AF_XDP) pass below the output path\n", r.n);
	else if (f)
		fprintf(f, "packet sockets: held (none of the %zu guarded host-side processes holds "
			"CAP_NET_RAW)\n", r.scanned);
	if (f)
		sw_rawcap_print(&r, "  ", f);
	return rc || r.n;
}
