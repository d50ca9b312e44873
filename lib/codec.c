/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * codec.c - the block codecs the kernel uses for hibernation: LZO1X
 * (lib/lzo, bitstream-compatible with liblzo2) and raw LZ4 blocks (no frame),
 * decoded only with the "safe" decoders, bounded by the output buffer.
 */
#include "hibimgP.h"

#include <limits.h>
#include <pthread.h>
#include <lz4.h>
#include <lzo/lzo1x.h>

static pthread_once_t lzo_once = PTHREAD_ONCE_INIT;
static int lzo_ok;

static void lzo_setup(void)
{
	lzo_ok = (lzo_init() == LZO_E_OK);
}

int hib_decompress(enum hib_compression c, const unsigned char *src,
		   size_t src_len, unsigned char *dst, size_t dst_cap,
		   size_t *dst_len)
{
	switch (c) {
	case HIB_COMP_LZO: {
		lzo_uint out = dst_cap;
		int r;

		pthread_once(&lzo_once, lzo_setup);
		if (!lzo_ok)
			return HIB_ERR_UNSUPPORTED;
		r = lzo1x_decompress_safe(src, src_len, dst, &out, NULL);
		if (r != LZO_E_OK)
			return r;       /* LZO_E_* are negative */
		*dst_len = out;
		return HIB_OK;
	}
	case HIB_COMP_LZ4: {
		int r;

		if (src_len > INT_MAX || dst_cap > INT_MAX)
			return -1;
		r = LZ4_decompress_safe((const char *)src, (char *)dst,
					(int)src_len, (int)dst_cap);
		if (r < 0)
			return r;
		*dst_len = (size_t)r;
		return HIB_OK;
	}
	case HIB_COMP_NONE:
		break;
	}
	return HIB_ERR_INVAL;
}
