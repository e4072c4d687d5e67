// SPDX-License-Identifier: GPL-2.0-or-later
/* sandwalld: the daemon's command line; the daemon is sw_daemon_run (daemon.c). */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_check.h"
#include "lib/control.h"
#include "daemon/daemon.h"
#include "lib/log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sandwalld [-c FILE] [-f] [-v] [--control PATH]\n"
		"\n"
		"Install the sandwall table and keep it in place: take kernel ownership\n"
		"where possible, repair any change within milliseconds, follow bridges,\n"
		"addresses and routes, and log who changed what (syslog, key=value).\n"
		"\n"
		"  -c, --config FILE   config file (default " SW_DEFAULT_CONFIG ")\n"
		"  -f, --foreground    also log to stderr (systemd runs it in the foreground anyway)\n"
		"  -v, --verbose       debug messages\n"
		"      --control PATH  control socket (default " SW_CONTROL_PATH ")\n"
		"  -h, --help          this text\n"
		"  -V, --version       print the version\n"
		"\n"
		"signals: HUP reloads the config (a bad config keeps the rules in force);\n"
		"TERM and INT exit and leave the rules in place. see sandwalld(8)\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "control", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct sw_daemon_args a = { .config_path = SW_DEFAULT_CONFIG };
	int c;

	/* A fixed mmap threshold (glibc's default, 128 KiB): every larger
	 * block (a model's element and rule arrays, the config parser's
	 * context, dump buffers) gets its own mapping and goes back to the
	 * kernel when freed. Without it glibc raises the threshold to the
	 * largest block freed so far, and the models rebuilt on every event
	 * and resync leave their old arrays as holes in the heap: 1.7 MiB of
	 * RSS with the default config, 6 MiB with 10,000 destinations
	 * (docs/BENCHMARKS.md, "Daemon memory"). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	a.control_path = getenv("SANDWALL_CONTROL") ? getenv("SANDWALL_CONTROL") : SW_CONTROL_PATH;
	while ((c = getopt_long(argc, argv, "c:fvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': a.config_path = optarg; break;
		case 'f': a.foreground = true; break;
		case 'v': a.verbose = true; break;
		case 'C': a.control_path = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("sandwalld " SW_VERSION "\n"); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sandwalld: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return sw_daemon_run(&a);
}
