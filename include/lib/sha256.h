/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_SHA256_H
#define SANDWALL_SHA256_H
/* sha256: FIPS 180-4 SHA-256 for the receipt's digests, libsodium's
 * crypto_hash_sha256 (no sodium_init needed: it has one implementation). */
#include <stddef.h>
#include <stdint.h>
#include <sodium/crypto_hash_sha256.h>

struct sw_sha256 {
	crypto_hash_sha256_state st;
};

void sw_sha256_init(struct sw_sha256 *s);
void sw_sha256_update(struct sw_sha256 *s, const void *data, size_t len);
void sw_sha256_final(struct sw_sha256 *s, uint8_t out[32]);
/* Hex digest of a buffer into hex[65]. */
void sw_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
