/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for hoststate: resolv.conf parsing, the resolver file reader
 * and the link lookup. No kernel needed. */
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

#include "hoststate.h"

/* Assert that p is exactly the full-length address text. */
static void assert_addr(const struct sw_prefix *p, const char *text)
{
	uint8_t want[16] = { 0 };

	if (strchr(text, ':')) {
		assert_int_equal(inet_pton(AF_INET6, text, want), 1);
		assert_int_equal(p->family, AF_INET6);
		assert_int_equal(p->len, 128);
	} else {
		assert_int_equal(inet_pton(AF_INET, text, want), 1);
		assert_int_equal(p->family, AF_INET);
		assert_int_equal(p->len, 32);
	}
	assert_memory_equal(p->addr, want, p->family == AF_INET ? 4 : 16);
}

static size_t parse(const char *text, struct sw_prefix *out, size_t max, bool *stub)
{
	size_t n = 99;

	assert_int_equal(sw_resolv_parse(text, out, max, &n, stub), 0);
	return n;
}

static void test_comments_and_options(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	bool stub = true;
	size_t n = parse("# generated\n"
			 "; another comment\n"
			 "search example.com corp\n"
			 "options ndots:2 timeout:1\n"
			 "nameserver 8.8.8.8\n"
			 "  nameserver\t1.1.1.1   # trailing comment\n"
			 "nameserver 9.9.9.9;semicolon comment\n"
			 "#nameserver 5.5.5.5\n"
			 "domain example.com\n",
			 r, SW_MAX_RESOLVERS, &stub);

	(void)state;
	assert_int_equal(n, 3);
	assert_addr(&r[0], "8.8.8.8");
	assert_addr(&r[1], "1.1.1.1");
	assert_addr(&r[2], "9.9.9.9");
	assert_false(stub);
}

static void test_ipv6_and_zone(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	size_t n = parse("nameserver 2001:4860:4860::8888\n"
			 "nameserver fe80::1%eth0\n"
			 "nameserver fd00:ec2::253 # aws\n"
			 "nameserver 192.0.2.53\r\n",
			 r, SW_MAX_RESOLVERS, NULL);

	(void)state;
	assert_int_equal(n, 4);
	assert_addr(&r[0], "2001:4860:4860::8888");
	assert_addr(&r[1], "fe80::1");
	assert_addr(&r[2], "fd00:ec2::253");
	assert_addr(&r[3], "192.0.2.53");
}

static void test_stub(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	bool stub = false;
	size_t n = parse("# This is /run/systemd/resolve/stub-resolv.conf\n"
			 "nameserver 127.0.0.53\n"
			 "options edns0 trust-ad\n"
			 "search .\n",
			 r, SW_MAX_RESOLVERS, &stub);

	(void)state;
	assert_int_equal(n, 0);
	assert_true(stub);

	/* stub among real servers: the stub is still skipped */
	stub = false;
	n = parse("nameserver 10.0.0.2\nnameserver 127.0.0.53\n", r, SW_MAX_RESOLVERS, &stub);
	assert_int_equal(n, 1);
	assert_addr(&r[0], "10.0.0.2");
	assert_true(stub);
}

static void test_loopback_skipped(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	bool stub = true;
	size_t n = parse("nameserver 127.0.0.1\n"
			 "nameserver ::1\n"
			 "nameserver 127.1.2.3\n"
			 "nameserver ::ffff:127.0.0.1\n"
			 "nameserver 0.0.0.0\n"
			 "nameserver ::\n"
			 "nameserver 128.0.0.1\n"
			 "nameserver 2001:db8::1",          /* no final newline */
			 r, SW_MAX_RESOLVERS, &stub);

	(void)state;
	assert_int_equal(n, 2);
	assert_addr(&r[0], "128.0.0.1");
	assert_addr(&r[1], "2001:db8::1");
	assert_false(stub);
}

static void test_malformed_lines(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	size_t n = parse("nameserver\n"
			 "nameserver   \n"
			 "nameserver 300.1.1.1\n"
			 "nameserver 10.0.0.0/8\n"
			 "nameserver 10.0.0.7/32\n"
			 "nameservers 1.2.3.4\n"
			 "nameserver1.2.3.4\n"
			 "NAMESERVER 1.2.3.4\n"
			 "nameserver foo.example\n"
			 "nameserver 1.2.3.4%eth0\n"
			 "nameserver 1.2.3\n"
			 "nameserver 2001:db8::1::2\n"
			 "nameserver 0123456789012345678901234567890123456789012345678901234567890123456789\n"
			 "\n"
			 "garbage\n"
			 "nameserver 10.0.0.1\n",
			 r, SW_MAX_RESOLVERS, NULL);

	(void)state;
	assert_int_equal(n, 1);
	assert_addr(&r[0], "10.0.0.1");
}

static void test_duplicates(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS];
	size_t n = parse("nameserver 10.0.0.1\nnameserver 10.0.0.1\n"
			 "nameserver fe80::1%eth0\nnameserver fe80::1%eth1\n",
			 r, SW_MAX_RESOLVERS, NULL);

	(void)state;
	assert_int_equal(n, 2);
	assert_addr(&r[0], "10.0.0.1");
	assert_addr(&r[1], "fe80::1");
}

static void test_max_capacity(void **state)
{
	struct sw_prefix r[SW_MAX_RESOLVERS + 1], sentinel;
	char text[2048] = "", line[64];
	size_t n;

	(void)state;
	for (int i = 1; i <= SW_MAX_RESOLVERS + 4; i++) {
		snprintf(line, sizeof(line), "nameserver 192.0.2.%d\n", i);
		strcat(text, line);
	}
	memset(&sentinel, 0xa5, sizeof(sentinel));
	r[SW_MAX_RESOLVERS] = sentinel;
	n = parse(text, r, SW_MAX_RESOLVERS, NULL);
	assert_int_equal(n, SW_MAX_RESOLVERS);
	assert_addr(&r[0], "192.0.2.1");
	assert_addr(&r[SW_MAX_RESOLVERS - 1], "192.0.2.16");
	assert_memory_equal(&r[SW_MAX_RESOLVERS], &sentinel, sizeof(sentinel));

	/* a small buffer: first two kept, nothing written past it */
	r[2] = sentinel;
	n = parse(text, r, 2, NULL);
	assert_int_equal(n, 2);
	assert_addr(&r[0], "192.0.2.1");
	assert_addr(&r[1], "192.0.2.2");
	assert_memory_equal(&r[2], &sentinel, sizeof(sentinel));

	/* max 0: nothing stored, stub still reported */
	{
		bool stub = false;

		n = parse("nameserver 1.1.1.1\nnameserver 127.0.0.53\n", NULL, 0, &stub);
		assert_int_equal(n, 0);
		assert_true(stub);
	}
}

static void test_empty_and_invalid(void **state)
{
	struct sw_prefix r[2];
	size_t n = 5;

	(void)state;
	assert_int_equal(parse("", r, 2, NULL), 0);
	assert_int_equal(parse("\n\n\n", r, 2, NULL), 0);
	assert_int_equal(sw_resolv_parse(NULL, r, 2, &n, NULL), -EINVAL);
	assert_int_equal(sw_resolv_parse("", r, 2, NULL, NULL), -EINVAL);
}

static struct sw_host *new_host(void)
{
	struct sw_host *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	return h;
}

static void test_read_resolvers_file(void **state)
{
	char path[] = "/tmp/sw_test_resolv_XXXXXX";
	const char text[] = "nameserver 203.0.113.7\nnameserver 2001:db8::53\nnameserver 127.0.0.1\n";
	struct sw_host *h = new_host();
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);

	h->n_resolvers = 7;
	assert_int_equal(setenv("SANDWALL_RESOLV_CONF", path, 1), 0);
	assert_int_equal(sw_host_read_resolvers(h), 0);
	assert_int_equal(h->n_resolvers, 2);
	assert_addr(&h->resolvers[0], "203.0.113.7");
	assert_addr(&h->resolvers[1], "2001:db8::53");

	/* a missing file is not an error: no resolvers */
	unlink(path);
	h->n_resolvers = 7;
	assert_int_equal(sw_host_read_resolvers(h), 0);
	assert_int_equal(h->n_resolvers, 0);
	unsetenv("SANDWALL_RESOLV_CONF");
	free(h);
}

static void test_link_lookup(void **state)
{
	struct sw_host *h = new_host();
	const struct sw_link *l;

	(void)state;
	h->links[0] = (struct sw_link){ .ifindex = 1, .name = "lo", .up = true };
	h->links[1] = (struct sw_link){ .ifindex = 7, .name = "docker0", .is_bridge = true };
	h->links[2] = (struct sw_link){ .ifindex = 3, .name = "eth0", .up = true };
	h->n_links = 2;

	l = sw_host_link(h, 7);
	assert_non_null(l);
	assert_ptr_equal(l, &h->links[1]);
	assert_string_equal(l->name, "docker0");
	assert_true(l->is_bridge);
	assert_false(l->up);
	assert_ptr_equal(sw_host_link(h, 1), &h->links[0]);
	assert_null(sw_host_link(h, 3));      /* beyond n_links */
	assert_null(sw_host_link(h, 0));
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comments_and_options),
		cmocka_unit_test(test_ipv6_and_zone),
		cmocka_unit_test(test_stub),
		cmocka_unit_test(test_loopback_skipped),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_max_capacity),
		cmocka_unit_test(test_empty_and_invalid),
		cmocka_unit_test(test_read_resolvers_file),
		cmocka_unit_test(test_link_lookup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
