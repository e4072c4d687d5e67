// SPDX-License-Identifier: GPL-2.0-or-later
/* receipt: the audit document (see include/receipt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <linux/netfilter/nf_tables.h>

#include "control.h"
#include "diff.h"
#include "export.h"
#include "log.h"
#include "observe.h"
#include "receipt.h"
#include "reconcile.h"
#include "ruleset.h"
#include "sha256.h"

#define MAX_FILE (4 << 20)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;

	*len = 0;
	if (!f)
		return NULL;
	buf = malloc(MAX_FILE + 1);
	if (buf) {
		*len = fread(buf, 1, MAX_FILE, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* A number after "key": in one of our own JSON lines. */
static long long jnum(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

static bool jis(const char *line, const char *key, const char *val)
{
	char pat[96];

	snprintf(pat, sizeof(pat), "\"%s\":\"%s\"", key, val);
	return strstr(line, pat) != NULL;
}

static void sibling(const char *path, const char *name, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	out[0] = '\0';
	if (path[0] && slash)
		snprintf(out, len, "%.*s/%s", (int)(slash - path), path, name);
}

int sw_receipt_cmd(const struct sw_receipt_in *in)
{
	const struct sw_config *cfg = in->cfg;
	char cfg_sha[65] = "", rules_sha[65] = "", err[SW_ERRLEN], vpath[SW_PATH_MAX + 16];
	char reply[SW_CONTROL_REPMAX], when[32], *cfgtext, *rules = NULL, *journal, *vjson;
	size_t len, rlen = 0, jlen = 0, vlen = 0, drifts = 0, unrepaired = 0, events = 0;
	long long first = -1, vtime = -1, last_stop = -1;
	bool daemon, held, vpassed = false;
	struct sw_model have;
	struct sw_diff d = { 0 };
	struct utsname u;
	time_t now = time(NULL);
	FILE *f;
	int rc;

	uname(&u);
	/* digests: the config as read, the ruleset as nft text */
	cfgtext = slurp(cfg->path, &len);
	if (cfgtext)
		sw_sha256_hex(cfgtext, len, cfg_sha);
	free(cfgtext);
	f = open_memstream(&rules, &rlen);
	if (!f || sw_export(in->want, f)) {
		if (f)
			fclose(f);
		free(rules);
		sw_err("cannot render the ruleset");
		return 2;
	}
	fclose(f);
	sw_sha256_hex(rules, rlen, rules_sha);
	free(rules);
	/* what the kernel holds */
	if ((rc = sw_check(in->nl, in->want, &d, err, sizeof(err)))) {
		sw_err("%s", err);
		return 2;
	}
	if ((rc = sw_observe_counters(in->nl, cfg->table, &have))) {
		sw_diff_free(&d);
		sw_err("cannot read the ruleset: %s", strerror(-rc));
		return 2;
	}
	daemon = sw_control_call(in->control, "status", reply, sizeof(reply)) == 0 &&
		 !strncmp(reply, "ok\n", 3);
	/* the daemon's journal: drift events, and whether each was repaired */
	journal = cfg->journal_path[0] ? slurp(cfg->journal_path, &jlen) : NULL;
	for (char *l = journal; l && *l;) {
		char *nl = strchr(l, '\n');

		if (nl)
			*nl = '\0';
		if (first < 0)
			first = jnum(l, "unix");
		events++;
		if (jis(l, "event", "drift")) {
			drifts++;
			unrepaired = 0;         /* a later repair settles earlier failures */
		} else if (jis(l, "event", "repair-failed")) {
			unrepaired++;
		} else if (jis(l, "event", "stop") || jis(l, "event", "removed")) {
			last_stop = jnum(l, "unix");    /* a gap in the watch */
		}
		l = nl ? nl + 1 : NULL;
	}
	/* the last verify */
	sibling(cfg->journal_path, "verify.json", vpath, sizeof(vpath));
	vjson = vpath[0] ? slurp(vpath, &vlen) : NULL;
	if (vjson) {
		vtime = jnum(vjson, "time");
		vpassed = strstr(vjson, "],\"passed\":true}") != NULL;
	}
	/* a verify from before the daemon last stopped says nothing about now */
	held = have.has_table && d.n == 0 && !unrepaired && vjson && vpassed && vtime >= last_stop;

	if (in->json) {
		printf("{\"host\":");
		sw_json_str(stdout, u.nodename);
		printf(",\"kernel\":");
		sw_json_str(stdout, u.release);
		printf(",\"window\":{\"from\":%lld,\"to\":%lld},\"config\":{\"path\":", first,
		       (long long)now);
		sw_json_str(stdout, cfg->path);
		printf(",\"sha256\":\"%s\"},\"ruleset\":{\"table\":\"inet/%s\",\"sha256\":\"%s\","
		       "\"present\":%s,\"kernel_matches\":%s,\"differences\":%zu,\"owner\":%s},",
		       cfg_sha, cfg->table, rules_sha, have.has_table ? "true" : "false",
		       have.has_table && !d.n ? "true" : "false", d.n,
		       have.table_flags & NFT_TABLE_F_OWNER ? "true" : "false");
		printf("\"guarded\":{\"patterns\":[");
		for (size_t i = 0; i < cfg->n_patterns; i++) {
			printf("%s", i ? "," : "");
			sw_json_str(stdout, cfg->patterns[i]);
		}
		printf("],\"interfaces\":[");
		for (size_t i = 0, k = 0; i < in->host->n_links; i++)
			if (sw_ruleset_guarded(cfg, &in->host->links[i])) {
				printf("%s", k++ ? "," : "");
				sw_json_str(stdout, in->host->links[i].name);
			}
		printf("]},\"blocked\":{");
		for (int c = 0; c < SW_CAT_COUNT; c++) {
			int i = sw_model_find_counter(&have, sw_category_name(c));

			printf("%s\"%s\":%llu", c ? "," : "", sw_category_name(c),
			       i < 0 ? 0ULL : (unsigned long long)have.counter_pkts[i]);
		}
		printf("},\"daemon\":%s,\"journal\":{\"events\":%zu,\"drifts\":%zu,\"unrepaired\":%zu,"
		       "\"lines\":[", daemon ? "true" : "false", events, drifts, unrepaired);
		{
			size_t k = 0;

			for (char *l = journal; l && l < journal + jlen; l += strlen(l) + 1)
				if (*l == '{')
					printf("%s%s", k++ ? "," : "", l);
		}
		printf("]},\"verify\":");
		if (vjson)
			printf("{\"time\":%lld,\"passed\":%s,\"stale\":%s}", vtime,
			       vpassed ? "true" : "false", vtime < last_stop ? "true" : "false");
		else
			printf("null");
		printf(",\"verdict\":\"%s\"}\n", held ? "held" : "not held");
	} else {
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		printf("sandwall receipt %s\n", when);
		printf("host              %s (kernel %s)\n", u.nodename, u.release);
		printf("window            %lld .. %lld (unix seconds)\n", first, (long long)now);
		printf("config            %s sha256:%s\n", cfg->path, cfg_sha);
		printf("ruleset           table inet %s sha256:%s\n", cfg->table, rules_sha);
		printf("kernel            %s\n", !have.has_table ? "TABLE ABSENT" :
		       d.n ? "DIFFERS from the config (sandwall check)" : "holds exactly this ruleset");
		printf("ownership         %s\n", have.table_flags & NFT_TABLE_F_OWNER ?
		       "owned by sandwalld" : "not owned");
		printf("daemon            %s\n", daemon ? "running" : "not running");
		printf("guarded           ");
		for (size_t i = 0; i < cfg->n_patterns; i++)
			printf("%s ", cfg->patterns[i]);
		printf("(now:");
		for (size_t i = 0; i < in->host->n_links; i++)
			if (sw_ruleset_guarded(cfg, &in->host->links[i]))
				printf(" %s", in->host->links[i].name);
		printf(")\nblocked packets  ");
		for (int c = 0; c < SW_CAT_COUNT; c++) {
			int i = sw_model_find_counter(&have, sw_category_name(c));

			printf(" %s=%llu", sw_category_name(c),
			       i < 0 ? 0ULL : (unsigned long long)have.counter_pkts[i]);
		}
		printf("\ndrift events      %zu (%zu unrepaired) in %zu journal events\n", drifts,
		       unrepaired, events);
		if (vjson)
			printf("last verify       %s at %lld%s\n", vpassed ? "passed" : "FAILED", vtime,
			       vtime < last_stop ? " (before the daemon last stopped: stale)" : "");
		else
			printf("last verify       none (run sandwall verify)\n");
		printf("verdict           %s\n", held ? "HELD" : "NOT HELD");
	}
	free(journal);
	free(vjson);
	sw_diff_free(&d);
	sw_model_free(&have);
	return held ? 0 : 1;
}
