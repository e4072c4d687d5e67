/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for rtapi and identity: the runtimes' answers parsed (good,
 * truncated, hostile), DOCKER_HOST / CONTAINER_HOST, cgroup and fdinfo
 * text, the bounded cache, the attempts' identity. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/attempts.h"
#include "host/identity.h"
#include "host/rtapi.h"

#define ID64 "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"
#define ID64B "aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999"

static const char docker_list[] =
	"[{\"Id\":\"" ID64 "\",\"Names\":[\"/agent-7\"],\"Image\":\"swt-busybox:1\","
	"\"Labels\":{\"sandwall.run\":\"it-7\",\"other\":\"x\",\"io.kubernetes.pod.namespace\":\"ns1\","
	"\"io.kubernetes.pod.name\":\"pod-a\"},\"State\":\"running\",\"NetworkSettings\":{\"Networks\":"
	"{\"bridge\":{\"IPAddress\":\"172.17.0.2\",\"GlobalIPv6Address\":\"fd00:17::2\"},"
	"\"swtnet\":{\"IPAddress\":\"172.18.0.5\",\"GlobalIPv6Address\":\"\"}}}},"
	"{\"Id\":\"short\",\"Names\":[\"/bad\"]},{\"Id\":\"abcdef\",\"Names\":[\"/tiny\"]},"
	"{\"Id\":\"" ID64B "\",\"Names\":[\"/web\"],\"Image\":\"nginx\",\"Labels\":null,"
	"\"NetworkSettings\":{\"Networks\":{\"host\":{\"IPAddress\":\"\"}}}}]";

static void test_parse_list(void **state)
{
	static struct sw_identity out[8];
	uint8_t a[16] = { 0 };
	size_t n;

	assert_int_equal(sw_rtapi_parse_list(docker_list, strlen(docker_list), "docker", out, 8, &n), 0);
	assert_int_equal(n, 2);         /* the ids that are no ids are skipped */
	assert_string_equal(out[0].runtime, "docker");
	assert_string_equal(out[0].id, ID64);
	assert_string_equal(out[0].name, "agent-7");
	assert_string_equal(out[0].image, "swt-busybox:1");
	assert_string_equal(out[0].run, "it-7");
	assert_string_equal(out[0].k8s_ns, "ns1");
	assert_string_equal(out[0].k8s_pod, "pod-a");
	assert_int_equal(out[0].n_addrs, 3);
	inet_pton(AF_INET, "172.18.0.5", a);
	assert_true(sw_identity_has_addr(&out[0], AF_INET, a));
	inet_pton(AF_INET6, "fd00:17::2", a);
	assert_true(sw_identity_has_addr(&out[0], AF_INET6, a));
	assert_string_equal(out[1].name, "web");
	assert_int_equal(out[1].n_addrs, 0);
	assert_string_equal(out[1].run, "");
	/* max bounds what is taken */
	assert_int_equal(sw_rtapi_parse_list(docker_list, strlen(docker_list), "docker", out, 1, &n), 0);
	assert_int_equal(n, 1);
}

static void test_parse_inspect(void **state)
{
	static const char insp[] =
		"{\"Id\":\"" ID64 "\",\"Name\":\"/agent-7\",\"State\":{\"Pid\":4242,\"Running\":true},"
		"\"Config\":{\"Image\":\"swt-busybox:1\",\"Labels\":{\"sandwall.run\":\"r1\"}},"
		"\"NetworkSettings\":{\"IPAddress\":\"172.17.0.2\",\"Networks\":{\"bridge\":"
		"{\"IPAddress\":\"172.17.0.2\"}}}}";
	struct sw_identity id;

	assert_int_equal(sw_rtapi_parse_inspect(insp, strlen(insp), "podman", &id), 0);
	assert_string_equal(id.runtime, "podman");
	assert_string_equal(id.name, "agent-7");
	assert_string_equal(id.image, "swt-busybox:1");
	assert_string_equal(id.run, "r1");
	assert_int_equal(id.pid, 4242);
	assert_int_equal(id.n_addrs, 1);  /* the same address twice: once */
	/* wrong types: skipped, never trusted */
	static const char wrong[] = "{\"Id\":\"" ID64 "\",\"Name\":7,\"State\":{\"Pid\":\"x\"},"
				    "\"Config\":[1,2],\"NetworkSettings\":{\"Networks\":[\"a\"],"
				    "\"IPAddress\":{\"x\":1}}}";
	assert_int_equal(sw_rtapi_parse_inspect(wrong, strlen(wrong), "docker", &id), 0);
	assert_string_equal(id.name, "");
	assert_int_equal(id.pid, 0);
	assert_int_equal(id.n_addrs, 0);
	/* missing or bad id, no object */
	assert_int_equal(sw_rtapi_parse_inspect("{\"Name\":\"/x\"}", 13, "docker", &id), -EINVAL);
	assert_int_equal(sw_rtapi_parse_inspect("[]", 2, "docker", &id), -EINVAL);
	assert_int_equal(sw_rtapi_parse_inspect(NULL, 0, "docker", &id), -EINVAL);
	assert_string_equal(id.runtime, "");
}

static void test_hostile(void **state)
{
	static struct sw_identity out[4];
	size_t n, len = strlen(docker_list);
	char *deep, *huge;

	/* every truncation of a good answer: refused or parsed, never more */
	for (size_t cut = 0; cut < len; cut++) {
		int rc = sw_rtapi_parse_list(docker_list, cut, "docker", out, 4, &n);

		assert_true(rc == -EINVAL || rc == 0);
		assert_true(n <= 4);
		if (rc)
			assert_int_equal(n, 0);
	}
	/* nesting deeper than the reader takes */
	deep = malloc(20000);
	assert_non_null(deep);
	for (size_t i = 0; i < 5000; i++)
		deep[i] = '[';
	for (size_t i = 0; i < 5000; i++)
		deep[5000 + i] = ']';
	assert_int_equal(sw_rtapi_parse_list(deep, 10000, "docker", out, 4, &n), -E2BIG);
	free(deep);
	/* a huge name and image, a hostile one: cut to the field, cleaned */
	huge = malloc(300000);
	assert_non_null(huge);
	n = (size_t)snprintf(huge, 300000, "[{\"Id\":\"%s\",\"Names\":[\"/", ID64);
	memset(huge + n, 'A', 200000);
	n += 200000;
	n += (size_t)snprintf(huge + n, 300000 - n, "\"],\"Image\":\"evil image=\\\"x\\\"\\n"
			      "sandbox_name=root\\u0000\"}]");
	{
		int rc = sw_rtapi_parse_list(huge, n, "docker", out, 4, &n);

		/* \u0000 is refused by the reader: the whole answer goes */
		assert_true(rc == 0 || rc == -EINVAL);
	}
	/* without it: taken, cut to the field, cleaned */
	n = strlen(huge);
	memcpy(strstr(huge, "\\u0000"), "ZZZZZZ", 6);
	assert_int_equal(sw_rtapi_parse_list(huge, strlen(huge), "docker", out, 4, &n), 0);
	assert_int_equal(n, 1);
	free(huge);
	{
		assert_int_equal(strlen(out[0].name), sizeof(out[0].name) - 1);
		assert_null(strpbrk(out[0].image, " =\"\n"));
	}
	/* a clean hostile image */
	static const char inj[] = "[{\"Id\":\"" ID64 "\",\"Image\":\"a b=c\\\"d\\nsandbox_name=x\"}]";
	assert_int_equal(sw_rtapi_parse_list(inj, strlen(inj), "docker", out, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].image, "a_b_c_d_sandbox_name_x");
	/* not an array, garbage, empty */
	assert_int_equal(sw_rtapi_parse_list("{}", 2, "docker", out, 4, &n), -EINVAL);
	assert_int_equal(sw_rtapi_parse_list("nope", 4, "docker", out, 4, &n), -EINVAL);
	assert_int_equal(sw_rtapi_parse_list("", 0, "docker", out, 4, &n), -EINVAL);
	/* an address field that is no address, or too long */
	static const char bad_addr[] = "[{\"Id\":\"" ID64 "\",\"NetworkSettings\":{\"Networks\":"
				       "{\"b\":{\"IPAddress\":\"999.1.1.1\",\"GlobalIPv6Address\":"
				       "\"fd00::1/64\"}}}}]";
	assert_int_equal(sw_rtapi_parse_list(bad_addr, strlen(bad_addr), "docker", out, 4, &n), 0);
	assert_int_equal(out[0].n_addrs, 0);
	/* an id of upper-case hex, of 65 characters: no id */
	assert_false(sw_rtapi_id_ok("3F4E5D6C7B8A"));
	assert_false(sw_rtapi_id_ok(ID64 "0"));
	assert_true(sw_rtapi_id_ok(ID64));
}

static void test_host_env(void **state)
{
	char p[108];

	assert_int_equal(sw_rtapi_host_env("unix:///run/user/1000/docker.sock", p, sizeof(p)), 0);
	assert_string_equal(p, "/run/user/1000/docker.sock");
	assert_int_equal(sw_rtapi_host_env(NULL, p, sizeof(p)), -ENOENT);
	assert_int_equal(sw_rtapi_host_env("", p, sizeof(p)), -ENOENT);
	assert_int_equal(sw_rtapi_host_env("tcp://10.0.0.1:2375", p, sizeof(p)), -EPROTONOSUPPORT);
	assert_int_equal(sw_rtapi_host_env("ssh://core@host/run/podman/podman.sock", p, sizeof(p)),
			 -EPROTONOSUPPORT);
	assert_int_equal(sw_rtapi_host_env("unix://relative.sock", p, sizeof(p)), -EINVAL);
	{
		char longp[300] = "unix:///";

		memset(longp + 8, 'x', 200);
		longp[208] = '\0';
		assert_int_equal(sw_rtapi_host_env(longp, p, sizeof(p)), -EINVAL);
	}
}

static void cg(const char *text, int rc, const char *rt, const char *id, const char *name)
{
	struct sw_identity out;

	memset(&out, 0, sizeof(out));
	assert_int_equal(sw_rtapi_parse_cgroup(text, strlen(text), &out), rc);
	if (rc)
		return;
	assert_string_equal(out.runtime, rt);
	assert_string_equal(out.id, id);
	if (name)
		assert_string_equal(out.name, name);
}

static void test_cgroup(void **state)
{
	cg("0::/system.slice/docker-" ID64 ".scope\n", 0, "docker", ID64, NULL);
	cg("12:memory:/docker/" ID64 "\n11:cpu:/docker/" ID64 "\n", 0, "docker", ID64, NULL);
	cg("0::/machine.slice/libpod-" ID64 ".scope/container\n", 0, "podman", ID64, NULL);
	/* podman's monitor is no container */
	cg("0::/machine.slice/libpod-conmon-" ID64 ".scope\n", -ENOENT, NULL, NULL, NULL);
	cg("0::/lxc.payload.web1/init.scope\n", 0, "lxc", "web1", "web1");
	cg("4:pids:/lxc/web2\n", 0, "lxc", "web2", "web2");
	cg("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
	   "1a2b3c4d_1111_2222_3333_444455556666.slice/cri-containerd-" ID64 ".scope\n",
	   0, "cgroup", "1a2b3c4d-1111-2222-3333-444455556666", NULL);
	cg("0::/swt123-docker/" ID64 "\n", 0, "cgroup", ID64, NULL);
	cg("0::/user.slice/user-1000.slice/session-2.scope\n", -ENOENT, NULL, NULL, NULL);
	cg("0::/system.slice/docker-" ID64 "x.scope\n", -ENOENT, NULL, NULL, NULL);
	cg("garbage without colons\n::\n", -ENOENT, NULL, NULL, NULL);
	cg("", -ENOENT, NULL, NULL, NULL);
	/* a hostile lxc name is cleaned */
	cg("0::/lxc.payload.a b=c\n", 0, "lxc", "a_b_c", "a_b_c");
}

static void test_fdinfo(void **state)
{
	char n[16];
	static const char fi[] = "pos:\t0\nflags:\t0104002\nmnt_id:\t25\nino:\t1042\niff:\ttap0\n";

	assert_int_equal(sw_rtapi_parse_fdinfo(fi, strlen(fi), n, sizeof(n)), 0);
	assert_string_equal(n, "tap0");
	assert_int_equal(sw_rtapi_parse_fdinfo("pos:\t0\n", 7, n, sizeof(n)), -ENOENT);
	assert_int_equal(sw_rtapi_parse_fdinfo("iff:\t\n", 6, n, sizeof(n)), -ENOENT);
	assert_int_equal(sw_rtapi_parse_fdinfo("iff:\tthisnameistoolong0\n", 24, n, sizeof(n)),
			 -ENOENT);
	assert_int_equal(sw_rtapi_parse_fdinfo("iff:\tfc-tap1", 12, n, sizeof(n)), 0);
	assert_string_equal(n, "fc-tap1");
}

static struct sw_identity mk(const char *rt, const char *id, const char *name, const char *a4)
{
	struct sw_identity r;
	uint8_t a[16] = { 0 };

	memset(&r, 0, sizeof(r));
	snprintf(r.runtime, sizeof(r.runtime), "%s", rt);
	snprintf(r.id, sizeof(r.id), "%s", id);
	snprintf(r.name, sizeof(r.name), "%s", name);
	if (a4) {
		inet_pton(AF_INET, a4, a);
		sw_identity_add_addr(&r, AF_INET, a);
	}
	return r;
}

static void test_cache(void **state)
{
	static struct sw_idcache c;
	struct sw_identity a = mk("docker", ID64, "agent-7", "172.17.0.2"), b, got;
	uint8_t ip[16] = { 0 };
	char idbuf[80];

	memset(&c, 0, sizeof(c));
	inet_pton(AF_INET, "172.17.0.2", ip);
	assert_int_equal(sw_identity_lookup_addr(&c, AF_INET, ip, &got), -ENOENT);
	assert_int_equal(sw_idcache_put(&c, &a, 1), SW_IDPUT_NEW);
	assert_int_equal(sw_idcache_put(&c, &a, 2), SW_IDPUT_SAME);
	assert_int_equal(sw_identity_lookup_addr(&c, AF_INET, ip, &got), 0);
	assert_string_equal(got.name, "agent-7");
	/* the address goes to a new container: the old one loses it */
	b = mk("docker", ID64B, "agent-8", "172.17.0.2");
	assert_int_equal(sw_idcache_put(&c, &b, 3), SW_IDPUT_NEW);
	assert_int_equal(sw_identity_lookup_addr(&c, AF_INET, ip, &got), 0);
	assert_string_equal(got.name, "agent-8");
	assert_int_equal(c.e[0].id.n_addrs, 0);
	/* its addresses change */
	b = mk("docker", ID64B, "agent-8", "172.17.0.3");
	assert_int_equal(sw_idcache_put(&c, &b, 4), SW_IDPUT_ADDRS);
	/* a runtime's list without it: gone, lookups skip it */
	inet_pton(AF_INET, "172.17.0.3", ip);
	sw_idcache_sweep(&c, "docker", &a, 1);
	assert_int_equal(sw_identity_lookup_addr(&c, AF_INET, ip, &got), -ENOENT);
	assert_int_equal(c.n, 2);
	/* bounded: the least recently seen goes, counted */
	for (int i = 0; i < SW_ID_CACHE + 10; i++) {
		char a4[32];

		snprintf(idbuf, sizeof(idbuf), "%064x", i + 1);
		snprintf(a4, sizeof(a4), "10.1.%d.%d", i / 256, i % 256);
		b = mk("podman", idbuf, "x", a4);
		sw_idcache_put(&c, &b, 100 + i);
	}
	assert_int_equal(c.n, SW_ID_CACHE);
	assert_int_equal(c.evicted, 12);
	inet_pton(AF_INET, "10.1.0.0", ip);
	assert_int_equal(sw_identity_lookup_addr(&c, AF_INET, ip, NULL), -ENOENT);
	inet_pton(AF_INET, "10.1.1.9", ip);
	assert_int_equal(sw_identity_lookup_addr(&c, AF_INET, ip, NULL), 0);
	/* misses: one ask per address and interval, bounded, reset by a link */
	assert_true(sw_idcache_miss_due(&c, AF_INET, ip, 1000, 3000));
	assert_false(sw_idcache_miss_due(&c, AF_INET, ip, 2000, 3000));
	assert_true(sw_idcache_miss_due(&c, AF_INET, ip, 4001, 3000));
	for (int i = 0; i < 2 * SW_ID_MISSES; i++) {
		ip[3] = (uint8_t)i;
		sw_idcache_miss_due(&c, AF_INET, ip, 5000 + i, 3000);
	}
	assert_int_equal(c.n_miss, SW_ID_MISSES);
	assert_false(sw_idcache_miss_due(&c, AF_INET, ip, 5000 + 2 * SW_ID_MISSES, 3000));
	sw_idcache_miss_reset(&c);
	assert_true(sw_idcache_miss_due(&c, AF_INET, ip, 5000 + 2 * SW_ID_MISSES, 3000));
	/* a micro-VM: found by its tap, until the tap goes; back, it starts
	 * without the old addresses */
	memset(&c, 0, sizeof(c));
	b = mk("microvm", "", "", "10.77.0.2");
	snprintf(b.iif, sizeof(b.iif), "swtvm0");
	snprintf(b.comm, sizeof(b.comm), "firecracker");
	sw_idcache_put(&c, &b, 1);
	assert_int_equal(sw_identity_lookup_iif(&c, "swtvm0", "microvm", &got), 0);
	assert_string_equal(got.comm, "firecracker");
	assert_int_equal(sw_identity_lookup_iif(&c, "swtvm1", "microvm", NULL), -ENOENT);
	assert_int_equal(sw_identity_lookup_iif(&c, "swtvm0", "docker", NULL), -ENOENT);
	sw_idcache_gone_iif(&c, "swtvm0", "microvm");
	assert_int_equal(sw_identity_lookup_iif(&c, "swtvm0", "microvm", NULL), -ENOENT);
	b.n_addrs = 0;
	assert_int_equal(sw_idcache_put(&c, &b, 2), SW_IDPUT_SAME);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.e[0].id.n_addrs, 0);
}

static void test_json_round_trip_and_attempts(void **state)
{
	static struct sw_attempts t;
	struct sw_identity a = mk("docker", ID64, "agent-7", "172.17.0.2"), b, back;
	struct sw_blocked blk;
	struct sw_jw w;
	struct sw_jv v;
	const struct sw_jv *list;

	snprintf(a.image, sizeof(a.image), "swt-busybox:1");
	snprintf(a.run, sizeof(a.run), "it-7");
	sw_jw_init(&w);
	sw_identity_line(&a, 1764750000, "new", 3, &w);
	assert_non_null(sw_jw_text(&w));
	assert_int_equal(sw_jv_parse(sw_jw_text(&w), strlen(sw_jw_text(&w)), &v, NULL), 0);
	assert_int_equal(sw_identity_from_json(&v, &back), 0);
	assert_string_equal(back.id, ID64);
	assert_string_equal(back.run, "it-7");
	assert_int_equal(back.n_addrs, 1);
	assert_true(sw_identity_same_addrs(&a, &back));
	{
		const char *tm;

		assert_int_equal(sw_jv_get_str(&v, "time", &tm), 0);
		assert_string_equal(tm, "2025-12-03T08:20:00Z");
	}
	sw_jv_free(&v);
	sw_jw_free(&w);
	/* attempts: the identity goes with the record; a reused address gets
	 * a record of its own */
	memset(&t, 0, sizeof(t));
	memset(&blk, 0, sizeof(blk));
	snprintf(blk.category, sizeof(blk.category), "metadata");
	blk.family = AF_INET;
	inet_pton(AF_INET, "172.17.0.2", blk.src);
	inet_pton(AF_INET, "169.254.169.254", blk.dst);
	blk.proto = 6;
	blk.dport = 80;
	sw_attempts_add_ident(&t, &blk, "docker0", NULL, 10);
	assert_int_equal(sw_attempts_identify(&t, AF_INET, blk.src, &a), 1);
	sw_attempts_add_ident(&t, &blk, "docker0", &a, 11);
	assert_int_equal(t.n, 1);
	b = mk("docker", ID64B, "agent-8", "172.17.0.2");
	sw_attempts_add_ident(&t, &blk, "docker0", &b, 12);
	assert_int_equal(t.n, 2);
	assert_int_equal(sw_attempts_identify(&t, AF_INET, blk.src, &b), 0);
	sw_jw_init(&w);
	sw_attempts_json(&t, &w);
	assert_int_equal(sw_jv_parse(sw_jw_text(&w), strlen(sw_jw_text(&w)), &v, NULL), 0);
	list = sw_jv_get(&v, "attempts");
	assert_int_equal(list->n, 2);
	assert_int_equal(sw_identity_from_json(sw_jv_get(&list->vals[0], "identity"), &back), 0);
	assert_string_equal(back.name, "agent-7");   /* counted twice: first */
	assert_int_equal(sw_identity_from_json(sw_jv_get(&list->vals[1], "identity"), &back), 0);
	assert_string_equal(back.name, "agent-8");
	sw_jv_free(&v);
	sw_jw_free(&w);
}

/* identities.jsonl: rotated at max_bytes, what a rotation dropped counted */
static void test_idlog(void **state)
{
	char dir[] = "/tmp/sw-idlog-XXXXXX", path[64], old[80];
	struct sw_idlog l;
	struct sw_identity a = mk("docker", ID64, "agent-7", "172.17.0.2");
	char *text;
	size_t len;
	uint64_t kept;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/identities.jsonl", dir);
	snprintf(old, sizeof(old), "%s.1", path);
	assert_int_equal(sw_idlog_open(&l, path, 1000), 0);
	for (int i = 0; i < 30; i++)
		assert_int_equal(sw_idlog_add(&l, &a, 1764750000 + i, "new"), 0);
	/* ~200 bytes a line, 1000 a file: rotated several times; the lines of
	 * every PATH.1 replaced are counted */
	assert_true(l.dropped > 0);
	assert_int_equal(l.dropped + l.lines_cur + l.lines_prev, 30);
	kept = l.lines_cur + l.lines_prev;
	sw_idlog_close(&l);
	/* reopened: the files' lines are counted again */
	assert_int_equal(sw_idlog_open(&l, path, 1000), 0);
	assert_int_equal(l.lines_cur + l.lines_prev, kept);
	assert_int_equal(sw_journal_read(path, &text, &len), 0);
	{
		size_t lines = 0;

		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		assert_int_equal(lines, l.lines_cur + l.lines_prev);
		assert_non_null(strstr(text, "\"dropped\":"));
	}
	free(text);
	sw_idlog_close(&l);
	unlink(path);
	unlink(old);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_list),
		cmocka_unit_test(test_parse_inspect),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_host_env),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_fdinfo),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_json_round_trip_and_attempts),
		cmocka_unit_test(test_idlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
