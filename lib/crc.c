/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crc.c - the kernel's crc32_le(): reflected CRC-32 (poly 0xEDB88320) with
 * no inversion inside. libdeflate computes the zlib convention, which inverts
 * on entry and exit, so crc32_le(c, d) == ~libdeflate_crc32(~c, d).
 */
#include "hibimgP.h"

#include <libdeflate.h>
#include <pthread.h>

uint32_t hib_crc32_le(uint32_t crc, const void *buf, size_t len)
{
	return ~libdeflate_crc32(~crc, buf, len);
}

/*
 * Combining CRCs computed apart: crc32_le is linear with no inversion, so
 * crc(A || B) = crc(A) * x^(8 |B|) mod P  xor  crc(B). Workers compute each
 * chunk's CRC from 0; the reader folds them in stream order. Multiplication
 * mod P in the reflected representation, as zlib's crc32_combine does it.
 */
#define CRC_POLY 0xedb88320u

static uint32_t multmodp(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		m >>= 1;
		b = (b & 1) ? (b >> 1) ^ CRC_POLY : b >> 1;
	}
	return p;
}

static uint32_t x2n_table[32];        /* x^(2^k) mod P */
static pthread_once_t x2n_once = PTHREAD_ONCE_INIT;

static void x2n_init(void)
{
	uint32_t q = 1u << 30;                /* x^1 */
	int i;

	for (i = 0; i < 32; i++) {
		x2n_table[i] = q;
		q = multmodp(q, q);
	}
}

/* x^(n * 2^k) mod P */
static uint32_t x2nmodp(uint64_t n, unsigned int k)
{
	uint32_t p = 1u << 31;                /* x^0 */

	pthread_once(&x2n_once, x2n_init);
	while (n) {
		if (n & 1)
			p = multmodp(x2n_table[k & 31], p);
		n >>= 1;
		k++;
	}
	return p;
}

uint32_t hib_crc32_le_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	return multmodp(x2nmodp(len_b, 3), crc_a) ^ crc_b;
}
