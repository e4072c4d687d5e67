// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_config: config text -> parser -> ruleset build -> `nft -f` export
 * and the nf_tables batch that apply would send (no kernel). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_check.h"
#include "kernel/encode.h"
#include "core/export.h"
#include "fuzz_host.h"
#include "core/model.h"
#include "kernel/nl.h"
#include "core/ruleset.h"

static ssize_t no_send(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	return (ssize_t)len;
}

static ssize_t no_recv(void *ctx, void *buf, size_t len, int timeout_ms)
{
	(void)ctx;
	(void)buf;
	(void)len;
	(void)timeout_ms;
	return -ETIMEDOUT;
}

static const struct sw_nl_ops ops = { .send = no_send, .recv = no_recv };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sw_config cfg;
	static struct sw_host host;
	static FILE *devnull;
	struct sw_model m;
	struct sw_batch b;
	struct sw_nl nl;
	char err[512];
	char *text;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		fh_host(&host);
	}
	if (size > 256 * 1024)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (sw_config_parse_string(text, "fuzz.conf", &cfg, err, sizeof(err)) == 0 &&
	    sw_ruleset_build(&cfg, &host, &m, err, sizeof(err)) == 0) {
		sw_export(&m, devnull);
		if (sw_nl_open_ops(&nl, &ops, NULL) == 0) {
			if (sw_batch_init(&b, &nl, SW_GEN_REQUIRE, 1) == 0 &&
			    sw_encode_create(&b, &nl, &m) == 0)
				sw_batch_finish(&b, &nl);
			sw_batch_free(&b);
			sw_nl_close(&nl);
		}
		sw_model_free(&m);
	}
	free(text);
	return 0;
}
