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
#include <string.h>
#include <zstd.h>

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

/*
 * Compression, for the writer and the simulator. Levels: LZO 0/1 = LZO1X-1
 * (what the kernel writes), anything higher = LZO1X-999; LZ4 0 = the
 * kernel's LZ4_compress_default, 1..12 = LZ4HC at that level. Every output
 * is a plain LZO1X stream or raw LZ4 block, which the kernel's
 * lzo1x_decompress_safe / LZ4_decompress_safe read.
 */
#include <stdlib.h>
#include <lz4hc.h>

int hib_codec_init(struct hib_codec *cx)
{
	memset(cx, 0, sizeof(*cx));
	pthread_once(&lzo_once, lzo_setup);
	if (!lzo_ok)
		return HIB_ERR_UNSUPPORTED;
	cx->lzo1 = malloc(LZO1X_1_MEM_COMPRESS);
	cx->lz4 = malloc((size_t)LZ4_sizeofState());
	if (!cx->lzo1 || !cx->lz4) {
		hib_codec_free(cx);
		return HIB_ERR_NOMEM;
	}
	return HIB_OK;
}

void hib_codec_free(struct hib_codec *cx)
{
	free(cx->lzo1);
	free(cx->lzo999);
	free(cx->lz4);
	free(cx->lz4hc);
	ZSTD_freeCCtx(cx->zc);
	ZSTD_freeDCtx(cx->zd);
	memset(cx, 0, sizeof(*cx));
}

int hib_compress(struct hib_codec *cx, enum hib_compression c, int level,
		 const unsigned char *src, size_t len, unsigned char *dst,
		 size_t cap, size_t *out_len)
{
	switch (c) {
	case HIB_COMP_LZO: {
		lzo_uint out = cap;
		int r;

		if (level <= 1) {
			r = lzo1x_1_compress(src, len, dst, &out, cx->lzo1);
		} else {
			if (!cx->lzo999 && !(cx->lzo999 = malloc(LZO1X_999_MEM_COMPRESS)))
				return HIB_ERR_NOMEM;
			r = lzo1x_999_compress(src, len, dst, &out, cx->lzo999);
		}
		if (r != LZO_E_OK || out > cap)
			return HIB_ERR_INVAL;
		*out_len = out;
		return HIB_OK;
	}
	case HIB_COMP_LZ4: {
		int r;

		if (len > INT_MAX || cap > INT_MAX)
			return HIB_ERR_INVAL;
		if (level <= 0) {
			r = LZ4_compress_fast_extState(cx->lz4, (const char *)src,
						       (char *)dst, (int)len, (int)cap, 1);
		} else {
			if (!cx->lz4hc && !(cx->lz4hc = malloc((size_t)LZ4_sizeofStateHC())))
				return HIB_ERR_NOMEM;
			r = LZ4_compress_HC_extStateHC(cx->lz4hc, (const char *)src,
						       (char *)dst, (int)len, (int)cap,
						       level);
		}
		if (r <= 0)
			return HIB_ERR_INVAL;
		*out_len = (size_t)r;
		return HIB_OK;
	}
	case HIB_COMP_NONE:
		break;
	}
	return HIB_ERR_INVAL;
}

int hib_wcodec_compress(struct hib_codec *cx, enum hib_wcodec c, int zstd_level,
			const unsigned char *src, size_t len, unsigned char *dst,
			size_t cap, size_t *out_len)
{
	size_t r;

	switch (c) {
	case HIB_WC_LZO:
		return hib_compress(cx, HIB_COMP_LZO, 1, src, len, dst, cap, out_len);
	case HIB_WC_LZ4:
		return hib_compress(cx, HIB_COMP_LZ4, 0, src, len, dst, cap, out_len);
	case HIB_WC_ZSTD:
		if (!cx->zc && !(cx->zc = ZSTD_createCCtx()))
			return HIB_ERR_NOMEM;
		r = ZSTD_compressCCtx(cx->zc, dst, cap, src, len, zstd_level);
		if (ZSTD_isError(r))
			return HIB_ERR_INVAL;
		*out_len = r;
		return HIB_OK;
	}
	return HIB_ERR_INVAL;
}

int hib_wcodec_decompress(struct hib_codec *cx, enum hib_wcodec c,
			  const unsigned char *src, size_t len, unsigned char *dst,
			  size_t cap, size_t *out_len)
{
	size_t r;

	switch (c) {
	case HIB_WC_LZO:
		return hib_decompress(HIB_COMP_LZO, src, len, dst, cap, out_len) ? HIB_ERR_INVAL : HIB_OK;
	case HIB_WC_LZ4:
		return hib_decompress(HIB_COMP_LZ4, src, len, dst, cap, out_len) ? HIB_ERR_INVAL : HIB_OK;
	case HIB_WC_ZSTD:
		if (!cx->zd && !(cx->zd = ZSTD_createDCtx()))
			return HIB_ERR_NOMEM;
		r = ZSTD_decompressDCtx(cx->zd, dst, cap, src, len);
		if (ZSTD_isError(r))
			return HIB_ERR_INVAL;
		*out_len = r;
		return HIB_OK;
	}
	return HIB_ERR_INVAL;
}
