/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crc.c - the kernel's crc32_le(): reflected CRC-32 (poly 0xEDB88320) with
 * no inversion inside. libdeflate computes the zlib convention, which inverts
 * on entry and exit, so crc32_le(c, d) == ~libdeflate_crc32(~c, d).
 */
#include "hibimgP.h"

#include <libdeflate.h>

uint32_t hib_crc32_le(uint32_t crc, const void *buf, size_t len)
{
	return ~libdeflate_crc32(~crc, buf, len);
}
