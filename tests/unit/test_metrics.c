/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the audit plumbing: the Prometheus textfile (golden text,
 * exposition format, atomic write), the daemon's bounded journal (ring of
 * SW_JOURNAL_MAX lines, file rewrite, reopen continues) and SHA-256 (FIPS
 * 180-4 / NIST vectors, including the 1,000,000 x 'a' vector). Files go to a
 * private temporary directory that is removed afterwards. No kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "journal.h"
#include "metrics.h"
#include "sha256.h"

/* ---- temporary directory ---------------------------------------------------- */

static char tmpdir[256];

static int tmp_setup(void **state)
{
	const char *base = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/sw-unit-metrics.XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int tmp_teardown(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];

	(void)state;
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
				unlink(p);
			}
		closedir(d);
	}
	rmdir(tmpdir);
	return 0;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	assert_true((size_t)snprintf(buf, len, "%s/%s", tmpdir, name) < len);
	unlink(buf);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int c;

	assert_non_null(f);
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		buf[n++] = (char)c;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Files in tmpdir whose name starts with prefix (leftover temporaries). */
static int count_files(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* ---- metrics ------------------------------------------------------------------ */

static const char golden[] =
	"# HELP sandwall_up 1 while sandwalld runs and the table is in place.\n"
	"# TYPE sandwall_up gauge\n"
	"sandwall_up 1\n"
	"# HELP sandwall_owner 1 while the table is owned by sandwalld (others get EPERM).\n"
	"# TYPE sandwall_owner gauge\n"
	"sandwall_owner 0\n"
	"# HELP sandwall_blocked_packets_total Packets dropped, per block category.\n"
	"# TYPE sandwall_blocked_packets_total counter\n"
	"sandwall_blocked_packets_total{category=\"spoofed\"} 0\n"
	"sandwall_blocked_packets_total{category=\"metadata\"} 11\n"
	"sandwall_blocked_packets_total{category=\"link_local\"} 2\n"
	"sandwall_blocked_packets_total{category=\"host\"} 3\n"
	"sandwall_blocked_packets_total{category=\"gateways\"} 4\n"
	"sandwall_blocked_packets_total{category=\"lan\"} 5\n"
	"sandwall_blocked_packets_total{category=\"private\"} 0\n"
	"sandwall_blocked_packets_total{category=\"destinations\"} 18446744073709551615\n"
	"sandwall_blocked_packets_total{category=\"sandboxes\"} 0\n"
	"# HELP sandwall_blocked_bytes_total Bytes dropped, per block category.\n"
	"# TYPE sandwall_blocked_bytes_total counter\n"
	"sandwall_blocked_bytes_total{category=\"spoofed\"} 0\n"
	"sandwall_blocked_bytes_total{category=\"metadata\"} 660\n"
	"sandwall_blocked_bytes_total{category=\"link_local\"} 120\n"
	"sandwall_blocked_bytes_total{category=\"host\"} 180\n"
	"sandwall_blocked_bytes_total{category=\"gateways\"} 240\n"
	"sandwall_blocked_bytes_total{category=\"lan\"} 300\n"
	"sandwall_blocked_bytes_total{category=\"private\"} 0\n"
	"sandwall_blocked_bytes_total{category=\"destinations\"} 7\n"
	"sandwall_blocked_bytes_total{category=\"sandboxes\"} 0\n"
	"# HELP sandwall_drift_events_total Changes to the table by other processes.\n"
	"# TYPE sandwall_drift_events_total counter\n"
	"sandwall_drift_events_total 3\n"
	"# HELP sandwall_repairs_total Batches that brought the table back (drift, host changes, reloads).\n"
	"# TYPE sandwall_repairs_total counter\n"
	"sandwall_repairs_total 4\n"
	"# HELP sandwall_repair_failures_total Repairs that failed or did not read back as intended.\n"
	"# TYPE sandwall_repair_failures_total counter\n"
	"sandwall_repair_failures_total 1\n"
	"# HELP sandwall_repair_latency_seconds Time from the event to the commit (ACK) of the last repair batch.\n"
	"# TYPE sandwall_repair_latency_seconds gauge\n"
	"sandwall_repair_latency_seconds 0.000310\n"
	"# HELP sandwall_last_drift_timestamp_seconds When the last drift was seen (0: never).\n"
	"# TYPE sandwall_last_drift_timestamp_seconds gauge\n"
	"sandwall_last_drift_timestamp_seconds 1700000000\n"
	"# HELP sandwall_event_overruns_total Times the kernel dropped netlink events (ENOBUFS) and a resync followed.\n"
	"# TYPE sandwall_event_overruns_total counter\n"
	"sandwall_event_overruns_total 2\n"
	"# HELP sandwall_blocked_logged_total Blocked attempts read from the NFLOG group.\n"
	"# TYPE sandwall_blocked_logged_total counter\n"
	"sandwall_blocked_logged_total 9\n";

static struct sw_metrics sample(void)
{
	struct sw_metrics m;

	memset(&m, 0, sizeof(m));
	m.up = true;
	m.owner = false;
	m.pkts[SW_CAT_METADATA] = 11;
	m.pkts[SW_CAT_LINK_LOCAL] = 2;
	m.pkts[SW_CAT_HOST] = 3;
	m.pkts[SW_CAT_GATEWAYS] = 4;
	m.pkts[SW_CAT_LAN] = 5;
	m.pkts[SW_CAT_DESTINATIONS] = UINT64_MAX;
	for (int c = 0; c < SW_CAT_DESTINATIONS; c++)
		m.bytes[c] = m.pkts[c] * 60;
	m.bytes[SW_CAT_DESTINATIONS] = 7;
	m.drifts = 3;
	m.repairs = 4;
	m.repair_failures = 1;
	m.enobufs = 2;
	m.blocked_logged = 9;
	m.last_repair_seconds = 0.000310;
	m.last_drift_time = 1700000000;
	return m;
}

static void test_metrics_golden(void **state)
{
	struct sw_metrics m = sample();
	char buf[8192];
	int n;

	(void)state;
	n = sw_metrics_render(&m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));
	assert_string_equal(buf, golden);
}

static void test_metrics_down_and_owner(void **state)
{
	struct sw_metrics m;
	char buf[8192];

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_true(sw_metrics_render(&m, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\nsandwall_up 0\n"));
	assert_non_null(strstr(buf, "\nsandwall_owner 0\n"));
	assert_non_null(strstr(buf, "\nsandwall_repair_latency_seconds 0.000000\n"));
	assert_non_null(strstr(buf, "\nsandwall_last_drift_timestamp_seconds 0\n"));
	m.owner = true;
	assert_true(sw_metrics_render(&m, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\nsandwall_owner 1\n"));
}

/* Every line is a comment (# HELP/# TYPE name ...) or "name{labels} value"
 * with a metric name [a-zA-Z_:][a-zA-Z0-9_:]*, and every sample's name has
 * a TYPE line before it. */
static void test_metrics_exposition_format(void **state)
{
	struct sw_metrics m = sample();
	char buf[8192], typed[32][96];
	size_t n_typed = 0, samples = 0;

	(void)state;
	assert_true(sw_metrics_render(&m, buf, sizeof(buf)) > 0);
	assert_int_equal(buf[strlen(buf) - 1], '\n');
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char name[96], rest[128];
		size_t i = 0;

		if (!strncmp(line, "# TYPE ", 7)) {
			char kind[32];

			assert_int_equal(sscanf(line + 7, "%95s %31s", typed[n_typed], kind), 2);
			assert_true(!strcmp(kind, "gauge") || !strcmp(kind, "counter"));
			n_typed++;
			continue;
		}
		if (!strncmp(line, "# HELP ", 7))
			continue;
		assert_true(line[0] != '#');
		assert_true(isalpha((unsigned char)line[0]) || line[0] == '_' || line[0] == ':');
		while (isalnum((unsigned char)line[i]) || line[i] == '_' || line[i] == ':')
			i++;
		assert_true(i < sizeof(name));
		memcpy(name, line, i);
		name[i] = '\0';
		if (line[i] == '{') {
			char *close = strchr(line + i, '}');

			assert_non_null(close);
			/* label="value" */
			assert_int_equal(sscanf(line + i, "{category=\"%127[a-z_]\"}", rest), 1);
			i = (size_t)(close - line) + 1;
		}
		assert_int_equal(line[i], ' ');
		{
			char *end;

			strtod(line + i + 1, &end);
			assert_true(end != line + i + 1 && *end == '\0');
		}
		{
			bool found = false;

			for (size_t t = 0; t < n_typed && !found; t++)
				found = !strcmp(typed[t], name);
			if (!found)
				fail_msg("sample '%s' has no # TYPE line before it", name);
		}
		samples++;
	}
	assert_int_equal(samples, 2 + 2 * SW_CAT_COUNT + 7);
}

/* A too-small buffer is -ENOSPC, never a cut text passed off as whole. */
static void test_metrics_enospc(void **state)
{
	struct sw_metrics m = sample();
	char buf[8192];
	int n;

	(void)state;
	n = sw_metrics_render(&m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(sw_metrics_render(&m, buf, (size_t)n), -ENOSPC);
	assert_int_equal(sw_metrics_render(&m, buf, 10), -ENOSPC);
	assert_int_equal(sw_metrics_render(&m, buf, (size_t)n + 1), n);
	assert_string_equal(buf, golden);
}

/* sw_metrics_write: the file holds exactly the rendered text, mode 0644,
 * replaced atomically (no temporary left behind). */
static void test_metrics_write_file(void **state)
{
	struct sw_metrics m = sample();
	char path[512], *text;
	struct stat st;

	(void)state;
	tmp_path(path, sizeof(path), "sandwall.prom");
	assert_int_equal(sw_metrics_write(path, &m), 0);
	text = slurp(path, NULL);
	assert_string_equal(text, golden);
	free(text);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	m.up = false;
	m.drifts = 4;
	assert_int_equal(sw_metrics_write(path, &m), 0);
	text = slurp(path, NULL);
	assert_non_null(strstr(text, "\nsandwall_up 0\n"));
	assert_non_null(strstr(text, "\nsandwall_drift_events_total 4\n"));
	free(text);
	assert_int_equal(count_files("sandwall.prom"), 1);
	/* a directory that does not exist: an error, not a crash */
	tmp_path(path, sizeof(path), "nodir/sandwall.prom");
	assert_true(sw_metrics_write(path, &m) < 0);
}

/* ---- journal ---------------------------------------------------------------- */

static struct sw_journal J;

static void line(char *buf, size_t len, int i)
{
	snprintf(buf, len, "{\"unix\":%d,\"event\":\"drift\",\"n\":%d}", 1700000000 + i, i);
}

/* The file holds lines first..last (inclusive) of line(), in order. */
static void assert_file_lines(const char *path, int first, int last)
{
	char *text = slurp(path, NULL), want[128], *p = text;
	int count = 0;

	for (int i = first; i <= last; i++) {
		size_t l;

		line(want, sizeof(want), i);
		l = strlen(want);
		if (strncmp(p, want, l) || p[l] != '\n')
			fail_msg("journal line %d: expected '%s', found '%.*s'", i - first + 1, want,
				 (int)strcspn(p, "\n"), p);
		p += l + 1;
		count++;
	}
	if (*p)
		fail_msg("journal has more than %d lines: '%.60s'", count, p);
	free(text);
}

static void assert_ring(const struct sw_journal *j, int first, int last)
{
	char want[128];

	assert_int_equal(j->n, (size_t)(last - first + 1));
	for (size_t i = 0; i < j->n; i++) {
		line(want, sizeof(want), first + (int)i);
		assert_string_equal(j->lines[(j->first + i) % SW_JOURNAL_MAX], want);
	}
}

static void test_journal_missing_file_is_empty(void **state)
{
	char path[512];

	(void)state;
	tmp_path(path, sizeof(path), "none.jsonl");
	assert_int_equal(sw_journal_open(&J, path), 0);
	assert_int_equal(J.n, 0);
	assert_string_equal(J.path, path);
	sw_journal_close(&J);
	assert_int_equal(access(path, F_OK), -1);      /* opening creates nothing */
}

/* 600 events with SW_JOURNAL_MAX 512: the file holds the last 512, in
 * order, after every add; a reopen continues where it stopped. */
static void test_journal_ring_bound_and_reopen(void **state)
{
	char path[512], l[128];
	struct stat st;

	(void)state;
	assert_int_equal(SW_JOURNAL_MAX, 512);
	tmp_path(path, sizeof(path), "events.jsonl");
	assert_int_equal(sw_journal_open(&J, path), 0);
	for (int i = 0; i < 600; i++) {
		line(l, sizeof(l), i);
		assert_int_equal(sw_journal_add(&J, l), 0);
		if (i == 0)
			assert_file_lines(path, 0, 0);
		if (i == 511)
			assert_file_lines(path, 0, 511);
		if (i == 512)
			assert_file_lines(path, 1, 512);
	}
	assert_ring(&J, 88, 599);
	assert_file_lines(path, 88, 599);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_files("events.jsonl"), 1);  /* no temporaries left */
	sw_journal_close(&J);
	assert_int_equal(J.n, 0);

	/* a restarted daemon continues the journal */
	assert_int_equal(sw_journal_open(&J, path), 0);
	assert_ring(&J, 88, 599);
	line(l, sizeof(l), 600);
	assert_int_equal(sw_journal_add(&J, l), 0);
	assert_ring(&J, 89, 600);
	assert_file_lines(path, 89, 600);
	sw_journal_close(&J);
}

/* A file longer than the bound (e.g. written by an older build): only the
 * last SW_JOURNAL_MAX lines are kept; lines that are not JSON objects are
 * dropped; the first add rewrites it bounded. */
static void test_journal_open_trims_and_skips(void **state)
{
	char path[512], l[128];
	FILE *f;

	(void)state;
	tmp_path(path, sizeof(path), "long.jsonl");
	f = fopen(path, "we");
	assert_non_null(f);
	for (int i = 0; i < 700; i++) {
		line(l, sizeof(l), i);
		fprintf(f, "%s\n", l);
		if (i == 650)
			fprintf(f, "garbage line\n\n");
	}
	line(l, sizeof(l), 700);
	fprintf(f, "%s", l);                            /* no final newline */
	fclose(f);
	assert_int_equal(sw_journal_open(&J, path), 0);
	assert_ring(&J, 189, 700);
	line(l, sizeof(l), 701);
	assert_int_equal(sw_journal_add(&J, l), 0);
	assert_file_lines(path, 190, 701);
	sw_journal_close(&J);
}

/* No path: the ring works in memory, nothing is written. */
static void test_journal_memory_only(void **state)
{
	char l[128];

	(void)state;
	assert_int_equal(sw_journal_open(&J, ""), 0);
	for (int i = 0; i < 520; i++) {
		line(l, sizeof(l), i);
		assert_int_equal(sw_journal_add(&J, l), 0);
	}
	assert_ring(&J, 8, 519);
	sw_journal_close(&J);
}

/* ---- sha256 ------------------------------------------------------------------ */

static void hex_of(const void *data, size_t len, char hex[65])
{
	memset(hex, 'X', 65);
	sw_sha256_hex(data, len, hex);
}

static void test_sha256_fips_vectors(void **state)
{
	static const struct { const char *in, *hex; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
		  "klmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	char hex[65];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		hex_of(v[i].in, strlen(v[i].in), hex);
		assert_int_equal(hex[64], '\0');
		assert_string_equal(hex, v[i].hex);
	}
}

/* The padding edges: 55 bytes (length fits the block), 56 (it does not),
 * 63, 64, 65, 119, 120. */
static void test_sha256_padding_edges(void **state)
{
	static const struct { size_t n; const char *hex; } v[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
	};
	char a[128], hex[65];

	(void)state;
	memset(a, 'a', sizeof(a));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		hex_of(a, v[i].n, hex);
		if (strcmp(hex, v[i].hex))
			fail_msg("sha256('a' x %zu) = %s, expected %s", v[i].n, hex, v[i].hex);
	}
}

/* 1,000,000 x 'a', fed in pieces of odd sizes and in one piece. */
static void test_sha256_million_a(void **state)
{
	static const char want[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	static const size_t steps[] = { 1, 3, 63, 64, 65, 1000, 4093 };
	char *a = malloc(1000000), hex[65];
	struct sw_sha256 s;
	uint8_t d[32];

	(void)state;
	assert_non_null(a);
	memset(a, 'a', 1000000);
	hex_of(a, 1000000, hex);
	assert_string_equal(hex, want);
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		size_t off = 0;

		sw_sha256_init(&s);
		while (off < 1000000) {
			size_t n = 1000000 - off < steps[k] ? 1000000 - off : steps[k];

			sw_sha256_update(&s, a + off, n);
			off += n;
		}
		sw_sha256_final(&s, d);
		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", d[i]);
		if (strcmp(hex, want))
			fail_msg("1,000,000 x 'a' in pieces of %zu: %s", steps[k], hex);
	}
	free(a);
}

/* Binary data (every byte value), and init() resets a used context. */
static void test_sha256_binary_and_reinit(void **state)
{
	static const char want[] = "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363";
	uint8_t data[768], d[32];
	struct sw_sha256 s;
	char hex[65];

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	hex_of(data, sizeof(data), hex);
	assert_string_equal(hex, want);
	sw_sha256_init(&s);
	sw_sha256_update(&s, "garbage", 7);
	sw_sha256_init(&s);
	sw_sha256_update(&s, "abc", 3);
	sw_sha256_final(&s, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_golden),
		cmocka_unit_test(test_metrics_down_and_owner),
		cmocka_unit_test(test_metrics_exposition_format),
		cmocka_unit_test(test_metrics_enospc),
		cmocka_unit_test(test_metrics_write_file),
		cmocka_unit_test(test_journal_missing_file_is_empty),
		cmocka_unit_test(test_journal_ring_bound_and_reopen),
		cmocka_unit_test(test_journal_open_trims_and_skips),
		cmocka_unit_test(test_journal_memory_only),
		cmocka_unit_test(test_sha256_fips_vectors),
		cmocka_unit_test(test_sha256_padding_edges),
		cmocka_unit_test(test_sha256_million_a),
		cmocka_unit_test(test_sha256_binary_and_reinit),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
