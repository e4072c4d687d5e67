// SPDX-License-Identifier: GPL-2.0-or-later
/* sha256: libsodium's crypto_hash_sha256 behind the project's names. */
#include <stdio.h>

#include "lib/sha256.h"

void sw_sha256_init(struct sw_sha256 *s)
{
	crypto_hash_sha256_init(&s->st);
}

void sw_sha256_update(struct sw_sha256 *s, const void *data, size_t len)
{
	crypto_hash_sha256_update(&s->st, data, len);
}

void sw_sha256_final(struct sw_sha256 *s, uint8_t out[32])
{
	crypto_hash_sha256_final(&s->st, out);
}

void sw_sha256_hex(const void *data, size_t len, char hex[65])
{
	uint8_t d[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(d, data, len);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}
