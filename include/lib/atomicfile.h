/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_ATOMICFILE_H
#define SANDWALL_ATOMICFILE_H
/* atomicfile: replace a file's contents at once (temp file, fsync, rename). */
#include <stddef.h>
#include <sys/types.h>

int sw_atomic_write(const char *path, const void *data, size_t len, mode_t mode);

#endif
