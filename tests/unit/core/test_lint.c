/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lint.c: every warning from a config that has it, on the
 * hand-made host (fake_kernel.h: tk_host, with a container on
 * br-0a1b2c3d4e5f so that it faces containers), with its id and line; none
 * from the shipped rules/sandwall.conf, on a cloud VM too; the cloud from
 * DMI strings; the parser's did-you-mean and hostname hints. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/config_check.h"
#include "core/lint.h"
#include "fake_kernel.h"
#include "testutil.h"

static struct sw_config cfg;
static struct sw_host host;
static struct sw_lint out;
static char err[SW_ERRLEN];

/* tk_host and a port on br-0a1b2c3d4e5f (ifindex 4) and docker0 (3) */
static void mk_host(void)
{
	struct sw_link *l;

	tk_host(&host);
	for (int m = 3; m <= 4; m++) {
		l = tk_new_link(&host);
		l->ifindex = 10 + m;
		snprintf(l->name, sizeof(l->name), "veth%d", m);
		l->kind = SW_LINK_VETH;
		l->up = true;
		l->master = m;
	}
	sw_host_classify(&host);
}

static void lint(const char *text, const char *cloud)
{
	if (sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("config: %s", err);
	mk_host();
	sw_lint(&(struct sw_lint_in){ .cfg = &cfg, .host = &host, .cloud = cloud }, &out);
}

/* The one warning of lint: id, line, and a word of its message. */
static void assert_one(const char *id, unsigned line, const char *word)
{
	if (out.n != 1)
		fail_msg("%zu warnings, want 1 (%s); first: %s", out.n, id, out.n ? out.w[0].msg : "");
	assert_string_equal(out.w[0].id, id);
	assert_int_equal(out.w[0].line, line);
	if (!strstr(out.w[0].msg, word))
		fail_msg("'%s' not in: %s", word, out.w[0].msg);
}

static void test_pattern_unmatched(void **state)
{
	lint("[guard]\ninterfaces = auto dokcer0\n", NULL);
	assert_one("guard-pattern-unmatched", 2, "\"dokcer0\"");
}

static void test_unguarded(void **state)
{
	lint("[guard]\n\ninterfaces = docker0\n", NULL);
	assert_one("guard-unguarded", 3, "br-0a1b2c3d4e5f (bridge with ports)");
}

static void test_private_off_cloud(void **state)
{
	lint("[block]\nmetadata = yes\nprivate = no\n", "AWS");
	assert_one("private-off-cloud", 3, "(AWS)");
	/* not on a machine that is no cloud VM, nor with private on */
	lint("[block]\nmetadata = yes\nprivate = no\n", NULL);
	assert_int_equal(out.n, 0);
	lint("[block]\nprivate = yes\n", "AWS");
	assert_int_equal(out.n, 0);
}

static void test_reopen(void **state)
{
	lint("[allow]\ndestinations = 8.8.8.8 tcp/53,\n"
	     "  203.0.113.5 tcp/80,\n  169.254.169.254 tcp/80 reopen\n", NULL);
	assert_one("allow-reopen", 4, "reopens metadata (169.254.169.254)");
	assert_non_null(strstr(out.w[0].msg, "link_local (169.254.0.0/16)"));
	/* the host's categories too: the gateway */
	lint("[allow]\ndestinations = 10.0.0.1 tcp/3128 reopen\n", NULL);
	assert_one("allow-reopen", 2, "gateways (10.0.0.1)");
	/* reopen that reopens nothing is still named */
	lint("[allow]\ndestinations = 203.0.113.5 tcp/80 reopen\n", NULL);
	assert_one("allow-reopen", 2, "reopens no enabled block category");
}

/* the shipped config: no warning on the test host, on a cloud VM too */
static void test_shipped_clean(void **state)
{
	char path[4096];

	tu_path(path, "%s/../../../rules/sandwall.conf", tu_corpus_dir());
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), 0);
	mk_host();
	sw_lint(&(struct sw_lint_in){ .cfg = &cfg, .host = &host, .cloud = "AWS" }, &out);
	if (out.n)
		fail_msg("shipped config: %s [%s]", out.w[0].msg, out.w[0].id);
}

static void test_cloud(void **state)
{
	assert_string_equal(sw_lint_cloud("Amazon EC2", ""), "AWS");
	assert_string_equal(sw_lint_cloud("", "Google Compute Engine"), "Google Cloud");
	assert_string_equal(sw_lint_cloud("Microsoft Corporation", "Virtual Machine"), "Azure");
	assert_null(sw_lint_cloud("QEMU", "Standard PC (Q35 + ICH9, 2009)"));
	assert_null(sw_lint_cloud("", ""));
	assert_null(sw_lint_cloud(NULL, NULL));
}

/* unknown keys keep their refusal and gain a did-you-mean */
static void test_did_you_mean(void **state)
{
	static const struct { const char *text, *want; } v[] = {
		{ "[guard]\ninterface = auto\n", "t.conf:2: unknown key 'interface' in [guard] (did you mean 'interfaces'?)" },
		{ "[block]\nmetdata = yes\n", "t.conf:2: unknown key 'metdata' in [block] (did you mean 'metadata'?)" },
		{ "[allow]\nhost_port = tcp/22\n", "t.conf:2: unknown key 'host_port' in [allow] (did you mean 'host_ports'?)" },
		{ "[guard]\nfrobnicate = 1\n", "t.conf:2: unknown key 'frobnicate' in [guard]" },
		{ "[gaurd]\n", "t.conf:1: unknown section [gaurd] (did you mean [guard]?)" },
		{ "[sandbox a]\ninterfaces = br-a\negres = none\n",
		  "t.conf:3: unknown key 'egres' in [sandbox a] (did you mean 'egress'?) (interfaces, "
		  "sources, egress, allow, dns, budget, budget_sources, quarantine_on, max_connections)" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		assert_int_equal(sw_config_parse_string(v[i].text, "t.conf", &cfg, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, v[i].want);
	}
}

/* a hostname where only addresses go: the refusal says where they go */
static void test_hostname_hint(void **state)
{
	static const char *const v[] = {
		"[allow]\ndestinations = pypi.org tcp/443\n",
		"[allow]\nnetworks = example.com\n",
		"[block]\ndestinations = evil.example.net\n",
		"[sandbox a]\ninterfaces = br-a\nsources = agent.internal\n",
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		assert_int_equal(sw_config_parse_string(v[i], "t.conf", &cfg, err, sizeof(err)), -EINVAL);
		if (!strstr(err, "a hostname: this key takes addresses only; hostnames go in a "
			    "[sandbox NAME] allow list"))
			fail_msg("no hint: %s", err);
	}
	/* an address gone wrong gets no such hint */
	assert_int_equal(sw_config_parse_string("[allow]\nnetworks = 10.0.0.300/8\n", "t.conf",
						&cfg, err, sizeof(err)), -EINVAL);
	assert_null(strstr(err, "hostname"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_unmatched),
		cmocka_unit_test(test_unguarded),
		cmocka_unit_test(test_private_off_cloud),
		cmocka_unit_test(test_reopen),
		cmocka_unit_test(test_shipped_clean),
		cmocka_unit_test(test_cloud),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_hostname_hint),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	sw_config_free(&cfg);
	sw_host_free(&host);
	return rc;
}
