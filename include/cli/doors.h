/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CLI_DOORS_H
#define SANDWALL_CLI_DOORS_H
/* doors: what the config leaves open on purpose, for `status`: the DNS
 * carve-out to the host's resolvers, every [allow] destinations entry (and
 * what a `reopen` entry reopens on this host), host_ports, networks,
 * between, and each [sandbox NAME]'s policy (egress, its allow list and
 * hostnames, dns, budget). */
#include <stdio.h>
#include "core/config.h"
#include "core/host.h"
#include "lib/json.h"

/* "open doors:" and one line a door. host: links, addresses, routes and
 * resolvers (NULL: not read; no resolvers, host categories unknown). */
void sw_cli_doors_print(const struct sw_config *cfg, const struct sw_host *host, FILE *f);
/* "doors":[{"kind":"dns"|"allow"|"host_port"|"network"|"between"|"sandbox",...}]
 * in the open object (docs/json.md). */
void sw_cli_doors_json(const struct sw_config *cfg, const struct sw_host *host, struct sw_jw *w);

#endif
