/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_SHA256_H
#define SANDWALL_SHA256_H
/* sha256: FIPS 180-4 SHA-256, for the receipt's digests. */
#include <stddef.h>
#include <stdint.h>

struct sw_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t fill;
};

void sw_sha256_init(struct sw_sha256 *s);
void sw_sha256_update(struct sw_sha256 *s, const void *data, size_t len);
void sw_sha256_final(struct sw_sha256 *s, uint8_t out[32]);
/* Hex digest of a buffer into hex[65]. */
void sw_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
