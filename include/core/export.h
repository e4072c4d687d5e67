/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_EXPORT_H
#define SANDWALL_EXPORT_H
/* export: the desired model as `nft -f` text (what `sandwall export` prints). */
#include <stdio.h>
#include "core/model.h"

/* The text replaces the table atomically when given to `nft -f`:
 * "table inet T" (create), "delete table inet T", then the full table. */
int sw_export(const struct sw_model *m, FILE *f);

#endif
