/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the refusals that keep a config from opening what it
 * closes (holes.c) and from writing where it should not (config.c): an
 * [allow] entry that overlaps host, gateways or lan without `reopen`, a
 * guarded loopback or default-route interface, the /tmp/sandwall-*
 * state directories, the size limit; and what `verify` lists as the
 * deliberate holes. The host is hand-made (fake_kernel.h: tk_host). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/endpoints.h"
#include "fake_kernel.h"
#include "core/holes.h"
#include "lib/grow.h"
#include "cli/receipt.h"
#include "lib/json.h"
#include "cli/verify.h"

static struct sw_config cfg;
static struct sw_host host;
static char err[SW_ERRLEN];

static void conf(const char *text)
{
	if (sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)))
		fail_msg("config: %s", err);
	tk_host(&host);
}

/* The host check refuses with exactly msg ("t.conf:LINE: ..."). */
static void assert_host_bad(const char *text, const char *msg)
{
	conf(text);
	memset(err, 0, sizeof(err));
	assert_int_equal(sw_config_check_host(&cfg, &host, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, msg);
}

static void assert_host_ok(const char *text)
{
	conf(text);
	if (sw_config_check_host(&cfg, &host, err, sizeof(err)))
		fail_msg("refused: %s", err);
}

/* overlap is "one contains the other", whichever is shorter */
static void test_overlap_definition(void **state)
{
	static const char *const v[] = {
		"10.0.0.0/8", "10.1.0.0/16", "10.1.2.3", "11.0.0.0/8", "0.0.0.0/0", "10.0.0.0/7",
		"10.1.2.3/32", "10.1.2.2/31", "fd00::/8", "fd00::1", "::/0", "fe80::/10", "10.1.2.4",
	};
	size_t n = sizeof(v) / sizeof(*v);

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			struct sw_prefix a, b;

			assert_int_equal(sw_prefix_parse_loose(v[i], &a, NULL), 0);
			assert_int_equal(sw_prefix_parse_loose(v[j], &b, NULL), 0);
			assert_int_equal(sw_prefix_overlap(&a, &b),
					 a.family == b.family &&
					 (sw_prefix_contains(&a, &b) || sw_prefix_contains(&b, &a)));
		}
}

static void test_allow_host_categories(void **state)
{
	(void)state;
	/* the default config on the test host is fine */
	assert_host_ok("");
	/* 10.0.0.0/24 is the LAN of eth0 (not guarded) */
	/* (private, on by default, would refuse it without the host: off
	 * here, the host's LAN is what is tested) */
	assert_host_bad("[block]\nprivate = no\n[allow]\ndestinations = 10.0.0.5 tcp/3128\n",
			"t.conf:4: [allow] destinations entry '10.0.0.5 tcp/3128' reopens lan "
			"(10.0.0.0/24 on this host), which [block] closes; if that is intended, "
			"say so: '10.0.0.5 tcp/3128 reopen'");
	assert_host_ok("[allow]\ndestinations = 10.0.0.5 tcp/3128 reopen\n");
	/* ... and not refused when lan is not blocked */
	assert_host_ok("[block]\nlan = no\nprivate = no\n[allow]\ndestinations = 10.0.0.5 tcp/3128\n");
	/* the host's own address */
	assert_host_bad("[block]\nprivate = no\n[allow]\ndestinations = 203.0.113.9 tcp/1,\n  10.0.0.2 tcp/22\n",
			"t.conf:5: [allow] destinations entry '10.0.0.2 tcp/22' reopens host "
			"(10.0.0.2 on this host), which [block] closes; if that is intended, "
			"say so: '10.0.0.2 tcp/22 reopen'");
	/* the gateway (lan is off, so gateways is the first category hit) */
	assert_host_bad("[block]\nlan = no\nprivate = no\n[allow]\ndestinations = fd00:10::1 udp/53\n",
			"t.conf:5: [allow] destinations entry 'fd00:10::1 udp/53' reopens gateways "
			"(fd00:10::1 on this host), which [block] closes; if that is intended, "
			"say so: 'fd00:10::1 udp/53 reopen'");
	/* the internet is no hole */
	assert_host_ok("[allow]\ndestinations = 203.0.113.0/24 tcp/443, 2001:db8::/32 tcp/443\n");
	/* a container on a guarded bridge is not lan (but the bridge address
	 * is the host); private, checked without the host, wants reopen */
	assert_host_ok("[block]\nprivate = no\n[allow]\ndestinations = 172.18.0.2 tcp/80\n");
	assert_host_ok("[allow]\ndestinations = 172.18.0.2 tcp/80 reopen\n");
}

static void test_holes_list(void **state)
{
	struct sw_hole h[SW_MAX_HOLES];
	char text[256];
	size_t n;

	(void)state;
	conf("[block]\nprivate = yes\ndestinations = 198.51.100.0/24\n"
	     "[allow]\ndestinations = 0.0.0.0/0 tcp/443 reopen, 203.0.113.1 tcp/1\n");
	n = sw_allow_holes(&cfg, &host, &cfg.allows[0], h, SW_MAX_HOLES);
	/* every enabled category, once, in order */
	assert_int_equal(n, 7);
	assert_int_equal(h[0].cat, SW_CAT_METADATA);
	assert_int_equal(h[1].cat, SW_CAT_LINK_LOCAL);
	assert_int_equal(h[2].cat, SW_CAT_HOST);
	assert_int_equal(h[3].cat, SW_CAT_GATEWAYS);
	assert_int_equal(h[4].cat, SW_CAT_LAN);
	assert_int_equal(h[5].cat, SW_CAT_PRIVATE);
	assert_int_equal(h[6].cat, SW_CAT_DESTINATIONS);
	/* without the host: only what does not depend on it */
	assert_int_equal(sw_allow_holes(&cfg, NULL, &cfg.allows[0], h, SW_MAX_HOLES), 4);
	assert_int_equal(sw_allow_holes(&cfg, &host, &cfg.allows[1], h, SW_MAX_HOLES), 0);
	sw_allow_format(&cfg.allows[0], text, sizeof(text));
	assert_string_equal(text, "0.0.0.0/0 tcp/443");
}

/* verify lists the entries marked `reopen`, as text and as JSON. */
static void test_verify_lists_holes(void **state)
{
	char *out = NULL, doc[1024];
	size_t len = 0;
	int64_t t = 0;
	bool passed = false;
	struct sw_jw w;
	FILE *f;

	(void)state;
	conf("[allow]\ndestinations = 169.254.169.254 tcp/80 reopen,\n"
	     "  203.0.113.1 tcp/1 reopen, 10.0.0.5 tcp/3128 reopen\n");
	assert_non_null(f = open_memstream(&out, &len));
	sw_verify_print_holes(&cfg, &host, f);
	fclose(f);
	assert_string_equal(out, "deliberate holes ([allow] destinations ... reopen):\n"
			    "t.conf:2: 169.254.169.254 tcp/80 reopens metadata (169.254.169.254), "
			    "link_local (169.254.0.0/16)\n"
			    "t.conf:3: 10.0.0.5 tcp/3128 reopens lan (10.0.0.0/24), private (10.0.0.0/8)\n");
	free(out);
	/* the JSON member, in the record verify writes, which receipt's
	 * strict reader reads back */
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_jw_i64(&w, "time", 7);
	sw_verify_holes_json(&cfg, &host, &w);
	sw_jw_arr(&w, "runs");
	sw_jw_end(&w);
	sw_jw_bool(&w, "passed", true);
	sw_jw_end(&w);
	assert_non_null(sw_jw_text(&w));
	snprintf(doc, sizeof(doc), "%s", sw_jw_text(&w));
	sw_jw_free(&w);
	assert_string_equal(doc, "{\"time\":7,\"holes\":[{\"entry\":\"169.254.169.254 tcp/80\",\"line\":2,"
			    "\"reopens\":[\"metadata\",\"link_local\"]},{\"entry\":\"10.0.0.5 tcp/3128\","
			    "\"line\":3,\"reopens\":[\"lan\",\"private\"]}],\"runs\":[],\"passed\":true}");
	assert_int_equal(sw_receipt_read_verify(doc, strlen(doc), &t, &passed), 0);
	assert_int_equal(t, 7);
	assert_true(passed);
	/* none: nothing printed, an empty JSON list */
	conf("");
	out = NULL;
	assert_non_null(f = open_memstream(&out, &len));
	sw_verify_print_holes(&cfg, &host, f);
	fclose(f);
	assert_string_equal(out, "");
	free(out);
	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_verify_holes_json(&cfg, &host, &w);
	sw_jw_end(&w);
	assert_string_equal(sw_jw_text(&w), "{\"holes\":[]}");
	sw_jw_free(&w);
}

static void test_guard_host(void **state)
{
	(void)state;
	/* eth0 carries the default routes */
	assert_host_bad("[guard]\ninterfaces = docker0\n  e*\n",
			"t.conf:2: [guard] interfaces guards eth0, which carries the default route: "
			"guarding it would cut the host off (and lock its operator out); name only "
			"the container interfaces");
	/* a bridge that carries the default route, guarded by all_bridges */
	conf("[guard]\ninterfaces = docker0\nall_bridges = yes\n");
	tk_gateway(&host, "172.18.0.254", 4);
	sw_host_classify(&host);
	assert_int_equal(sw_config_check_host(&cfg, &host, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:3: [guard] all_bridges guards br-0a1b2c3d4e5f, which carries "
			    "the default route: guarding it would cut the host off (and lock its "
			    "operator out); name only the container interfaces");
	/* the loopback is ifindex 1, whatever its name */
	conf("[guard]\ninterfaces = docker0 loop*\n");
	snprintf(host.links[0].name, sizeof(host.links[0].name), "loopback");
	assert_int_equal(sw_config_check_host(&cfg, &host, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:2: [guard] interfaces guards loopback, the loopback interface: "
			    "guarding it would cut the host off (and lock its operator out); name only "
			    "the container interfaces");
	/* with auto (the default), a bridge that carries the default route is
	 * left out silently: no refusal, and it is not guarded */
	conf("");
	tk_gateway(&host, "172.17.0.254", 3);
	sw_host_classify(&host);
	assert_int_equal(sw_config_check_host(&cfg, &host, err, sizeof(err)), 0);
	assert_int_equal(sw_ruleset_guard_why(&cfg, &host.links[2]), SW_GUARD_EX_UPLINK);
	assert_false(sw_ruleset_guarded(&cfg, &host.links[2]));
	/* named explicitly, it is refused as before, with the line */
	conf("[guard]\ninterfaces = auto docker0\n");
	tk_gateway(&host, "172.17.0.254", 3);
	sw_host_classify(&host);
	assert_int_equal(sw_config_check_host(&cfg, &host, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:2: [guard] interfaces guards docker0, which carries the default "
			    "route: guarding it would cut the host off (and lock its operator out); "
			    "name only the container interfaces");
	/* all_bridges on a host whose bridges carry no default route is fine */
	assert_host_ok("[guard]\nall_bridges = yes\n");
}

/* /tmp/sandwall-NAME/...: only a real directory of ours that no one else
 * may write. */
static void test_tmp_state_dir(void **state)
{
	char dir[] = "/tmp/sandwall-unit.XXXXXX", link[64], text[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(text, sizeof(text), "[daemon]\njournal = %s/j.jsonl\nmetrics = %s/m.prom\n", dir, dir);
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), 0);
	assert_int_equal(strncmp(cfg.journal_path, dir, strlen(dir)), 0);
	/* group- or world-writable: refused */
	assert_int_equal(chmod(dir, 0770), 0);
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2: bad path"));
	assert_int_equal(chmod(dir, 0703), 0);
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), -EINVAL);
	assert_int_equal(chmod(dir, 0700), 0);
	/* a symlink to it is not it */
	snprintf(link, sizeof(link), "%s-link", dir);
	assert_int_equal(symlink(dir, link), 0);
	snprintf(text, sizeof(text), "[daemon]\njournal = %s/j.jsonl\n", link);
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), -EINVAL);
	assert_int_equal(unlink(link), 0);
	/* the directory itself is no file */
	snprintf(text, sizeof(text), "[daemon]\njournal = %s\n", dir);
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), -EINVAL);
	assert_int_equal(rmdir(dir), 0);
	/* gone: refused */
	snprintf(text, sizeof(text), "[daemon]\njournal = %s/j.jsonl\n", dir);
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), -EINVAL);
}

/* SW_CONFIG_MAX bytes parse; one more is refused, from a string and from a file. */
static void test_size_limit(void **state)
{
	static char text[SW_CONFIG_MAX + 2];
	char path[] = "/tmp/sandwall-unit-conf.XXXXXX";
	int fd;

	(void)state;
	memset(text, '\n', SW_CONFIG_MAX);
	memcpy(text, "[nft]\ntable = big\n", 18);
	text[SW_CONFIG_MAX] = '\0';
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.table, "big");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, SW_CONFIG_MAX), SW_CONFIG_MAX);
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), 0);
	text[SW_CONFIG_MAX] = '\n';
	text[SW_CONFIG_MAX + 1] = '\0';
	assert_int_equal(sw_config_parse_string(text, "t.conf", &cfg, err, sizeof(err)), -EFBIG);
	assert_string_equal(err, "t.conf: larger than 2097152 bytes, the limit for a config");
	assert_string_equal(cfg.table, "sandwall");     /* defaults */
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	assert_int_equal(sw_config_load(path, &cfg, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, ": larger than 2097152 bytes, the limit for a config"));
	unlink(path);
}

static int cmp_prefix(const void *a, const void *b)
{
	return sw_prefix_order(a, b);
}

/* The search in sorted destinations finds exactly what the scan finds:
 * random nested and disjoint prefixes, v4 and v6, against random entries. */
static void test_dest_search(void **state)
{
	static struct sw_config sorted, scan;
	char err2[SW_ERRLEN];
	unsigned seed = 12345;
	size_t agree = 0, found = 0;

	(void)state;
	sw_config_defaults(&sorted);
	for (int i = 0; i < 2000; i++) {
		struct sw_prefix *p;

		assert_int_equal(SW_GROW(sorted.destinations, sorted.cap_destinations,
					 sorted.n_destinations, SW_MAX_DESTS), 0);
		p = &sorted.destinations[sorted.n_destinations++];

		seed = seed * 1103515245 + 12345;
		memset(p, 0, sizeof(*p));
		p->family = (seed >> 7) % 4 ? AF_INET : AF_INET6;
		for (int b = 0; b < 16; b++)
			p->addr[b] = (uint8_t)((seed >> (b % 24)) ^ (uint32_t)(i * 7 + b));
		p->addr[0] = (uint8_t)(p->family == AF_INET ? 10 : 0xfd);
		p->len = (uint8_t)(8 + (seed >> 11) % (p->family == AF_INET ? 25 : 121));
		sw_prefix_mask(p);
	}
	assert_int_equal(sw_config_copy(&scan, &sorted), 0);
	/* the parser sorts; the scan path takes them as they are */
	assert_int_equal(sw_config_parse_string("", "t.conf", &cfg, err2, sizeof(err2)), 0);
	qsort(sorted.destinations, sorted.n_destinations, sizeof(sorted.destinations[0]),
	      cmp_prefix);
	sorted.destinations_sorted = true;
	scan.destinations_sorted = false;
	for (int i = 0; i < 20000; i++) {
		struct sw_allow a = { .port = { IPPROTO_TCP, 443 } };
		struct sw_hole h1[4], h2[4];
		size_t n1, n2;

		seed = seed * 1103515245 + 12345;
		a.dst = sorted.destinations[seed % sorted.n_destinations];
		/* wider, narrower, or beside an entry */
		a.dst.len = (uint8_t)(a.dst.len + (int)((seed >> 9) % 9) - 4);
		if (a.dst.len > (a.dst.family == AF_INET ? 32 : 128))
			a.dst.len = a.dst.family == AF_INET ? 32 : 128;
		a.dst.addr[(seed >> 13) % 4 + (a.dst.family == AF_INET ? 0 : 12)] ^= (uint8_t)(seed >> 17);
		sw_prefix_mask(&a.dst);
		n1 = sw_allow_holes(&sorted, NULL, &a, h1, 4);
		n2 = sw_allow_holes(&scan, NULL, &a, h2, 4);
		agree += (n1 > 0 && h1[n1 - 1].cat == SW_CAT_DESTINATIONS) ==
			 (n2 > 0 && h2[n2 - 1].cat == SW_CAT_DESTINATIONS);
		found += n1 > 0 && h1[n1 - 1].cat == SW_CAT_DESTINATIONS;
	}
	assert_int_equal(agree, 20000);
	assert_true(found > 1000 && found < 19000);     /* both outcomes were tried */
	sw_config_free(&sorted);
	sw_config_free(&scan);
}

/* The first-byte shortcut (holes.c: an entry whose first byte no fixed
 * list reaches skips them) finds what comparing with every prefix of
 * metadata, link_local and private finds, for every first byte, both
 * families and lengths around 8. */
static void test_first_byte_shortcut(void **state)
{
	static const char *const fixed[] = {
		"169.254.0.0/16", "fe80::/10", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
		"100.64.0.0/10", "fc00::/7",
	};
	static const unsigned lens4[] = { 0, 1, 5, 7, 8, 9, 12, 16, 24, 32 };
	static const unsigned lens6[] = { 0, 3, 7, 8, 10, 16, 64, 128 };
	struct sw_prefix meta[256], list[256 + 8];
	size_t n_meta = 0, n = 0, checked = 0, hits = 0;

	(void)state;
	assert_int_equal(sw_endpoints_metadata(meta, 256, &n_meta), 0);
	for (size_t i = 0; i < n_meta; i++)
		list[n++] = meta[i];
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		assert_int_equal(sw_prefix_parse(fixed[i], &list[n++], NULL), 0);
	conf("[block]\nprivate = yes\nhost = no\ngateways = no\nlan = no\n");
	for (int fam = 0; fam < 2; fam++) {
		const unsigned *lens = fam ? lens6 : lens4;
		size_t nl = fam ? sizeof(lens6) / sizeof(*lens6) : sizeof(lens4) / sizeof(*lens4);

		for (unsigned b = 0; b < 256; b++) {
			for (size_t li = 0; li < nl; li++) {
				struct sw_allow a = { .port = { IPPROTO_TCP, 80 } };
				struct sw_hole h[SW_MAX_HOLES];
				bool want = false;

				a.dst.family = fam ? AF_INET6 : AF_INET;
				a.dst.len = (uint8_t)lens[li];
				memset(a.dst.addr, 0, sizeof(a.dst.addr));
				a.dst.addr[0] = (uint8_t)b;
				/* inside metadata's and the lists' own ranges too */
				a.dst.addr[1] = fam ? 0x80 : 254;
				a.dst.addr[2] = 169;
				a.dst.addr[3] = 254;
				sw_prefix_mask(&a.dst);
				for (size_t i = 0; i < n; i++)
					want |= sw_prefix_overlap(&a.dst, &list[i]);
				assert_int_equal(sw_allow_holes(&cfg, NULL, &a, h, SW_MAX_HOLES) > 0, want);
				checked++;
				hits += want;
			}
		}
	}
	/* both answers came up */
	assert_true(hits > 0 && hits < checked);
}

/* The same shortcut in the host check: an entry refused for host,
 * gateways or lan exactly when sw_allow_holes finds one of them there. */
static void test_first_byte_shortcut_host(void **state)
{
	static const unsigned lens[] = { 0, 4, 8, 16, 24, 32, 64, 128 };
	size_t checked = 0, refused = 0;

	(void)state;
	conf("[block]\nhost = yes\ngateways = yes\nlan = yes\n[allow]\n"
	     "destinations = 203.0.113.1 tcp/1\n");
	for (int fam = 0; fam < 2; fam++) {
		for (unsigned b = 0; b < 256; b++) {
			for (size_t li = 0; li < sizeof(lens) / sizeof(*lens); li++) {
				struct sw_hole h[SW_MAX_HOLES];
				struct sw_allow *a = &cfg.allows[0];
				bool want = false;
				size_t n;

				if (!fam && lens[li] > 32)
					continue;
				memset(&a->dst, 0, sizeof(a->dst));
				a->dst.family = fam ? AF_INET6 : AF_INET;
				a->dst.len = (uint8_t)lens[li];
				a->dst.addr[0] = (uint8_t)b;
				/* inside tk_host's subnets for the right first byte */
				memcpy(a->dst.addr + 1, fam ? (const uint8_t[]){ 0x00, 0x00, 0x10 } :
							      (const uint8_t[]){ 0, 0, 2 }, 3);
				sw_prefix_mask(&a->dst);
				a->reopen = false;
				n = sw_allow_holes(&cfg, &host, a, h, SW_MAX_HOLES);
				for (size_t j = 0; j < n; j++)
					want |= h[j].cat == SW_CAT_HOST || h[j].cat == SW_CAT_GATEWAYS ||
						h[j].cat == SW_CAT_LAN;
				assert_int_equal(sw_config_check_host(&cfg, &host, err, sizeof(err)) != 0,
						 want);
				checked++;
				refused += want;
			}
		}
	}
	assert_true(refused > 0 && refused < checked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_definition),
		cmocka_unit_test(test_allow_host_categories),
		cmocka_unit_test(test_holes_list),
		cmocka_unit_test(test_verify_lists_holes),
		cmocka_unit_test(test_guard_host),
		cmocka_unit_test(test_tmp_state_dir),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_dest_search),
		cmocka_unit_test(test_first_byte_shortcut),
		cmocka_unit_test(test_first_byte_shortcut_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
