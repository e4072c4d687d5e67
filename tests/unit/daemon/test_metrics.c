/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the audit plumbing: the Prometheus textfile (golden text,
 * exposition format, atomic write), the daemon's bounded journal (ring of
 * appended, rotated by size, torn lines, write errors) and SHA-256 (FIPS
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

#include "lib/journal.h"
#include "daemon/metrics.h"
#include "lib/sha256.h"

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
	"sandwall_blocked_logged_total 9\n"
	"# HELP sandwall_record_write_errors_total Writes of the journal or attempts.json that failed (the record has a hole).\n"
	"# TYPE sandwall_record_write_errors_total counter\n"
	"sandwall_record_write_errors_total{file=\"journal\"} 0\n"
	"sandwall_record_write_errors_total{file=\"attempts\"} 0\n"
	"# HELP sandwall_unguarded_links Container-facing links that no guard covers.\n"
	"# TYPE sandwall_unguarded_links gauge\n"
	"sandwall_unguarded_links 0\n";

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
			assert_true(sscanf(line + i, "{category=\"%127[a-z_]\"}", rest) == 1 ||
				    sscanf(line + i, "{file=\"%127[a-z_]\"}", rest) == 1);
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
	assert_int_equal(samples, 2 + 2 * SW_CAT_COUNT + 7 + 2 + 1);
}

/* A too-small buffer is -ENOSPC, never a cut text passed off as whole. */
/* the network log's metrics: there when it is on, absent when it is off */
static void test_metrics_flows(void **state)
{
	struct sw_metrics m = sample();
	char buf[8192];

	(void)state;
	assert_true(sw_metrics_render(&m, buf, sizeof(buf)) > 0);
	assert_null(strstr(buf, "sandwall_flows_"));
	m.flows_on = true;
	m.flows_logged = 12;
	m.flows_dropped = 3;
	m.flows_lost = 1;
	m.flows_open = 2;
	m.flows_untracked = 4;
	assert_true(sw_metrics_render(&m, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\nsandwall_flows_logged_total 12\n"));
	assert_non_null(strstr(buf, "# TYPE sandwall_flows_dropped_total counter\nsandwall_flows_dropped_total 3\n"));
	assert_non_null(strstr(buf, "\nsandwall_flows_lost_events_total 1\n"));
	assert_non_null(strstr(buf, "# TYPE sandwall_flows_open gauge\nsandwall_flows_open 2\n"));
	assert_non_null(strstr(buf, "\nsandwall_flows_untracked 4\n"));
}

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

static void test_journal_missing_file_is_created(void **state)
{
	char path[512];
	struct stat st;

	(void)state;
	tmp_path(path, sizeof(path), "none.jsonl");
	assert_int_equal(sw_journal_open(&J, path), 0);
	assert_string_equal(J.path, path);
	sw_journal_close(&J);
	assert_int_equal(stat(path, &st), 0);           /* appended to: created, empty */
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

/* 600 events: every line kept, in order, after every add (no count
 * bound); a reopen appends after them. */
static void test_journal_appends_and_reopen(void **state)
{
	char path[512], l[128];
	struct stat st;

	(void)state;
	tmp_path(path, sizeof(path), "events.jsonl");
	assert_int_equal(sw_journal_open(&J, path), 0);
	for (int i = 0; i < 600; i++) {
		line(l, sizeof(l), i);
		assert_int_equal(sw_journal_add(&J, l), 0);
		if (i == 0)
			assert_file_lines(path, 0, 0);
		if (i == 511)
			assert_file_lines(path, 0, 511);
	}
	assert_file_lines(path, 0, 599);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_files("events.jsonl"), 1);
	sw_journal_close(&J);
	assert_int_equal(sw_journal_open(&J, path), 0);
	line(l, sizeof(l), 600);
	assert_int_equal(sw_journal_add(&J, l), 0);
	assert_file_lines(path, 0, 600);
	sw_journal_close(&J);
	/* the CLI's one-shot append lands after them */
	line(l, sizeof(l), 601);
	assert_int_equal(sw_journal_append(path, l), 0);
	assert_file_lines(path, 0, 601);
}

/* Bounded by size: past max_bytes the file goes to PATH.1 and a new one
 * starts; sw_journal_read gives PATH.1 then PATH, in order. */
static void test_journal_rotates_by_size(void **state)
{
	char path[512], old[520], l[128], *text;
	size_t len, nl = 0;
	struct stat st;

	(void)state;
	tmp_path(path, sizeof(path), "rot.jsonl");
	snprintf(old, sizeof(old), "%s.1", path);
	assert_int_equal(sw_journal_open(&J, path), 0);
	J.max_bytes = 1000;
	for (int i = 0; i < 100; i++) {
		line(l, sizeof(l), i);
		assert_int_equal(sw_journal_add(&J, l), 0);
	}
	sw_journal_close(&J);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size <= 1000);
	assert_int_equal(stat(old, &st), 0);
	assert_true(st.st_size <= 1000 && st.st_size > 500);
	assert_int_equal(sw_journal_read(path, &text, &len), 0);
	for (size_t i = 0; i < len; i++)
		nl += text[i] == '\n';
	assert_true(nl >= 10 && nl < 100);          /* the oldest fell off */
	line(l, sizeof(l), 99);
	assert_non_null(strstr(text, l));
	assert_null(strstr(text, "\"n\":0}"));
	/* the lines read are consecutive and in order */
	{
		const char *p = text;
		int prev = -1, n;

		while ((p = strstr(p, "\"n\":"))) {
			n = atoi(p + 4);
			assert_true(prev < 0 || n == prev + 1);
			prev = n;
			p += 4;
		}
		assert_int_equal(prev, 99);
	}
	free(text);
}

/* A line torn by a crash (no newline at the end): the next line starts on
 * a line of its own, so only the torn one is lost. */
static void test_journal_torn_line(void **state)
{
	char path[512], l[128], *text;
	FILE *f;

	(void)state;
	tmp_path(path, sizeof(path), "torn.jsonl");
	f = fopen(path, "we");
	assert_non_null(f);
	line(l, sizeof(l), 0);
	fprintf(f, "%s\n{\"unix\":17000", l);
	fclose(f);
	assert_int_equal(sw_journal_open(&J, path), 0);
	line(l, sizeof(l), 1);
	assert_int_equal(sw_journal_add(&J, l), 0);
	sw_journal_close(&J);
	text = slurp(path, NULL);
	assert_non_null(strstr(text, "\n{\"unix\":17000\n"));
	assert_non_null(strstr(text, l));
	assert_int_equal(text[strlen(text) - 1], '\n');
	free(text);
}

/* A write that fails (a directory that cannot be made: as a full disk
 * would) is counted; the episode ends at the next write that works, which
 * first says what is missing (a "hole" line). */
static void test_journal_errors_counted_and_hole(void **state)
{
	char path[600], dir[512], l[128], *text;

	(void)state;
	tmp_path(dir, sizeof(dir), "blocker");
	assert_non_null(fopen(dir, "we"));              /* a file where the directory goes */
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	sw_journal_open(&J, path);
	line(l, sizeof(l), 0);
	assert_true(sw_journal_add(&J, l) < 0);
	assert_true(sw_journal_add(&J, l) < 0);
	assert_int_equal(J.errors, 2);
	assert_int_equal(J.lost, 2);
	assert_true(J.failing);
	/* the disk has room again */
	unlink(dir);
	line(l, sizeof(l), 1);
	assert_int_equal(sw_journal_add(&J, l), 0);
	assert_false(J.failing);
	assert_int_equal(J.errors, 2);
	sw_journal_close(&J);
	text = slurp(path, NULL);
	assert_non_null(strstr(text, "\"event\":\"hole\""));
	assert_non_null(strstr(text, "\"lost\":2"));
	assert_true(strstr(text, "\"event\":\"hole\"") < strstr(text, l));
	free(text);
	unlink(path);
	rmdir(dir);
}

/* No path: nothing is written, nothing fails. */
static void test_journal_off(void **state)
{
	char l[128];

	(void)state;
	assert_int_equal(sw_journal_open(&J, ""), 0);
	line(l, sizeof(l), 0);
	assert_int_equal(sw_journal_add(&J, l), 0);
	assert_int_equal(J.errors, 0);
	sw_journal_close(&J);
}

/* Times: ISO 8601 UTC and unix seconds. */
static void test_time_parse(void **state)
{
	int64_t t;
	char b[32];

	(void)state;
	assert_int_equal(sw_time_parse("2026-12-02T08:30:00Z", &t), 0);
	assert_int_equal(t, 1796200200);
	sw_iso_utc(t, b, sizeof(b));
	assert_string_equal(b, "2026-12-02T08:30:00Z");
	assert_int_equal(sw_time_parse("1796200200", &t), 0);
	assert_int_equal(t, 1796200200);
	assert_int_equal(sw_time_parse("2026-12-02T08:30Z", &t), 0);
	assert_int_equal(t, 1796200200);
	assert_int_equal(sw_time_parse("2026-12-02 08:30", &t), -EINVAL);
	assert_int_equal(sw_time_parse("yesterday", &t), -EINVAL);
	assert_int_equal(sw_time_parse("", &t), -EINVAL);
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
		cmocka_unit_test(test_metrics_flows),
		cmocka_unit_test(test_metrics_enospc),
		cmocka_unit_test(test_metrics_write_file),
		cmocka_unit_test(test_journal_missing_file_is_created),
		cmocka_unit_test(test_journal_appends_and_reopen),
		cmocka_unit_test(test_journal_rotates_by_size),
		cmocka_unit_test(test_journal_torn_line),
		cmocka_unit_test(test_journal_errors_counted_and_hole),
		cmocka_unit_test(test_journal_off),
		cmocka_unit_test(test_time_parse),
		cmocka_unit_test(test_sha256_fips_vectors),
		cmocka_unit_test(test_sha256_padding_edges),
		cmocka_unit_test(test_sha256_million_a),
		cmocka_unit_test(test_sha256_binary_and_reinit),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
