/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for conntrack: which side of a flow is the sandbox's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>

#include "kernel/conntrack.h"
#include "fake_kernel.h"

static bool side(const struct sw_model *m, const char *text)
{
	uint8_t a[16];
	int family = strchr(text, ':') ? AF_INET6 : AF_INET;

	assert_int_equal(inet_pton(family, text, a), 1);
	return sw_ct_sandbox_side(m, family, a);
}

static void test_sandbox_side(void **state)
{
	struct sw_model m;
	struct sw_host h = { 0 };

	(void)state;
	tk_host(&h);
	tk_addr(&h, 3, "fd00:17::1/64");
	tk_build_host("", &h, &m);
	/* own4 is 172.17.0.0/16 + 172.18.0.0/16, merged into one range */
	assert_true(side(&m, "172.17.0.2"));
	assert_true(side(&m, "172.17.0.0"));
	assert_true(side(&m, "172.18.255.255"));
	assert_false(side(&m, "172.19.0.0"));
	assert_false(side(&m, "172.16.255.255"));
	assert_false(side(&m, "169.254.169.254"));
	assert_false(side(&m, "10.0.0.50"));
	assert_false(side(&m, "0.0.0.0"));
	assert_false(side(&m, "255.255.255.255"));
	/* own6 fd00:17::/64, and link-local always */
	assert_true(side(&m, "fd00:17::2"));
	assert_true(side(&m, "fd00:17::ffff:ffff:ffff:ffff"));
	assert_false(side(&m, "fd00:18::"));
	assert_false(side(&m, "fd00:ec2::254"));
	assert_true(side(&m, "fe80::1"));
	assert_false(side(&m, "::"));
	assert_false(sw_ct_sandbox_side(&m, AF_PACKET, (const uint8_t *)"xxxx"));
	sw_model_free(&m);
	sw_host_free(&h);
}

static void test_no_own_sets(void **state)
{
	struct sw_model m;
	struct sw_host h = { 0 };

	(void)state;
	/* no address on any guarded interface: nothing on the IPv4 sandbox side */
	memset(&h, 0, sizeof(h));
	tk_link(&h, 2, "eth0", false);
	tk_addr(&h, 2, "10.0.0.2/24");
	tk_build_host("", &h, &m);
	assert_false(side(&m, "172.17.0.2"));
	assert_false(side(&m, "10.0.0.2"));
	sw_model_free(&m);
	sw_host_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sandbox_side),
		cmocka_unit_test(test_no_own_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
