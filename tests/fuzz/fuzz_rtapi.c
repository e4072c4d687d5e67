// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_rtapi: a runtime API's answer (as a list and as an inspect), and
 * the same bytes as /proc/PID/cgroup, fdinfo and DOCKER_HOST text, through
 * rtapi.h's parsers; every record must come out bounded and clean, and
 * survive the JSON round trip (identity.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/identity.h"
#include "host/rtapi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || strchr("\"'=\\`", s[i]))
			__builtin_trap();
}

static void check(const struct sw_identity *id)
{
	struct sw_identity back;
	struct sw_jw w;
	struct sw_jv v;
	const char *text;

	check_str(id->runtime, sizeof(id->runtime));
	check_str(id->name, sizeof(id->name));
	check_str(id->image, sizeof(id->image));
	check_str(id->run, sizeof(id->run));
	check_str(id->k8s_ns, sizeof(id->k8s_ns));
	check_str(id->k8s_pod, sizeof(id->k8s_pod));
	if (id->n_addrs > SW_ID_ADDRS)
		__builtin_trap();
	sw_jw_init(&w);
	sw_identity_line(id, 0, "new", 0, &w);
	if ((text = sw_jw_text(&w)) && sw_jv_parse(text, strlen(text), &v, NULL) == 0) {
		if (id->runtime[0] && sw_identity_from_json(&v, &back))
			__builtin_trap();
		if (id->runtime[0] && (strcmp(back.name, id->name) || strcmp(back.image, id->image) ||
				       !sw_identity_same_addrs(&back, id)))
			__builtin_trap();
		sw_jv_free(&v);
	}
	sw_jw_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sw_identity out[8];
	struct sw_identity one;
	char *buf = malloc(size + 1), ifn[16];
	size_t n = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (sw_rtapi_parse_list(buf, size, "docker", out, 8, &n) == 0) {
		if (n > 8)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			check(&out[i]);
	} else if (n) {
		__builtin_trap();
	}
	if (sw_rtapi_parse_inspect(buf, size, "podman", &one) == 0)
		check(&one);
	memset(&one, 0, sizeof(one));
	if (sw_rtapi_parse_cgroup(buf, size, &one) == 0) {
		check_str(one.id, sizeof(one.id));
		check(&one);
	}
	if (sw_rtapi_parse_fdinfo(buf, size, ifn, sizeof(ifn)) == 0 && strnlen(ifn, 16) == 16)
		__builtin_trap();
	{
		char p[108];

		if (sw_rtapi_host_env(buf, p, sizeof(p)) == 0 && (p[0] != '/' || strnlen(p, 108) == 108))
			__builtin_trap();
	}
	free(buf);
	return 0;
}
