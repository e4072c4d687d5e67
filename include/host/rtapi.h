/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_HOST_RTAPI_H
#define SANDWALL_HOST_RTAPI_H
/* rtapi: the container runtimes' APIs, as far as identity.h needs them:
 * Docker's Engine API and Podman's Docker-compatible one over their unix
 * sockets (GET /containers/json, GET /containers/ID/json), and the pure
 * parsing of what they answer, of DOCKER_HOST / CONTAINER_HOST, of
 * /proc/PID/cgroup and of /proc/PID/fdinfo. The parsers take hostile
 * input: the reader (lib/json.h) caps size and depth, every string is
 * cleaned and cut (identity.h), wrong types and missing members are
 * skipped, never trusted. */
#include <stdbool.h>
#include <stddef.h>
#include "host/identity.h"

#define SW_RTAPI_MAX_BODY   (1u << 20)  /* bytes of a response kept (SW_JSON_MAX) */
#define SW_RTAPI_TIMEOUT_MS 200         /* connect and whole transfer */
#define SW_RTAPI_MAX_LIST   256         /* containers taken from one list */

#define SW_DOCKER_SOCK "/var/run/docker.sock"
#define SW_PODMAN_SOCK "/run/podman/podman.sock"

/* GET /containers/json: up to max records into out (*n), runtime as
 * given ("docker", "podman"). Entries that are no objects or carry no
 * valid id are skipped. 0, -EINVAL (not a JSON array) or -E2BIG/-ENOMEM. */
int sw_rtapi_parse_list(const char *body, size_t len, const char *runtime,
			struct sw_identity *out, size_t max, size_t *n);
/* GET /containers/ID/json: one record (and its State.Pid in out->pid).
 * 0, -EINVAL (no object, no valid Id), -E2BIG/-ENOMEM. */
int sw_rtapi_parse_inspect(const char *body, size_t len, const char *runtime,
			   struct sw_identity *out);
/* A container id as the APIs give it: 12..64 lowercase hex. */
bool sw_rtapi_id_ok(const char *s);

/* DOCKER_HOST / CONTAINER_HOST: "unix:///path" -> path. 0; -ENOENT when
 * value is NULL or empty (use the default); -EPROTONOSUPPORT for another
 * scheme (tcp://, ssh://, npipe://: ignored, the caller warns); -EINVAL
 * for a unix:// without an absolute path or one too long. */
int sw_rtapi_host_env(const char *value, char *path, size_t len);

/* /proc/PID/cgroup text -> runtime and id in out ("docker" from
 * docker-ID.scope or /docker/ID, "podman" from libpod-ID.scope,
 * "lxc" from lxc.payload.NAME or /lxc/NAME, "cgroup" with the pod UID
 * from kubepods...podUID.slice or /kubepods/.../podUID; the deepest
 * match of any line). 0 or -ENOENT (none of them). */
int sw_rtapi_parse_cgroup(const char *text, size_t len, struct sw_identity *out);
/* /proc/PID/fdinfo/FD text: the tun/tap device the descriptor is
 * attached to ("iff:\tNAME"). 0 or -ENOENT. */
int sw_rtapi_parse_fdinfo(const char *text, size_t len, char *ifname, size_t n);

/* The transport (rtapi_curl.c, libcurl): GET path over the unix socket
 * sock, within timeout_ms for connect and transfer. *body (malloc'd,
 * NUL-terminated, at most SW_RTAPI_MAX_BODY) and *len on 0; -ENOENT (no
 * socket there), -ETIMEDOUT, -ECONNREFUSED, -EFBIG (a longer body), -EIO
 * (HTTP status not 200, transport error), -ENOMEM. */
int sw_rtapi_get(const char *sock, const char *path, long timeout_ms, char **body, size_t *len);
/* List one runtime's containers (its socket, runtime name): 0 with up to
 * max records, or -errno as above. */
int sw_rtapi_list(const char *sock, const char *runtime, long timeout_ms,
		  struct sw_identity *out, size_t max, size_t *n);

#endif
