// SPDX-License-Identifier: GPL-2.0-or-later
/* lint (include/cli/lint.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/lint.h"
#include "core/holes.h"
#include "core/lint.h"
#include "lib/json.h"
#include "lib/log.h"

#define DMI_DIR "/sys/class/dmi/id"

/* The first line of DIR/NAME, at most len - 1 bytes ("" when unreadable). */
static void read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static const char *cloud(void)
{
	const char *dir = getenv("SANDWALL_DMI_DIR");
	char vendor[128], product[128];

	read_line(dir && *dir ? dir : DMI_DIR, "sys_vendor", vendor, sizeof(vendor));
	read_line(dir && *dir ? dir : DMI_DIR, "product_name", product, sizeof(product));
	return sw_lint_cloud(vendor, product);
}

void sw_cli_lint_warn(const struct sw_config *cfg, const struct sw_host *host)
{
	struct sw_lint *l = malloc(sizeof(*l));

	if (!l)
		return;
	sw_lint(&(struct sw_lint_in){ .cfg = cfg, .host = host, .cloud = cloud() }, l);
	sw_lint_print(l, cfg, stderr, "sandwall: ");
	free(l);
}

int sw_cli_lint(struct sw_cli_run *x)
{
	char err[SW_ERRLEN];
	struct sw_lint *l = malloc(sizeof(*l));
	int rc;

	if (!l) {
		sw_err("%s", strerror(ENOMEM));
		return EXIT_ERR;
	}
	/* what apply would refuse on this host is an error here too */
	if ((rc = sw_host_read(x->host)) || sw_config_check_host(x->cfg, x->host, err, sizeof(err))) {
		sw_err("%s%s", rc ? "cannot read the host's links, addresses and routes: " : "",
		       rc ? strerror(-rc) : err);
		free(l);
		return EXIT_ERR;
	}
	sw_lint(&(struct sw_lint_in){ .cfg = x->cfg, .host = x->host, .cloud = cloud() }, l);
	if (x->o->json) {
		struct sw_jw w;

		sw_jw_init(&w);
		sw_jw_obj(&w, NULL);
		sw_jw_str(&w, "file", x->cfg->path);
		sw_jw_bool(&w, "strict", x->o->strict);
		sw_lint_json(l, x->cfg, &w);
		sw_jw_end(&w);
		if ((rc = sw_jw_print(&w, stdout)))
			sw_err("cannot write the answer: %s", strerror(-rc));
		sw_jw_free(&w);
	} else {
		sw_lint_print(l, x->cfg, stdout, "");
		if (!l->n)
			printf("%s: no warnings\n", x->cfg->path);
	}
	rc = l->n && x->o->strict ? EXIT_DRIFT : 0;
	free(l);
	return rc;
}
