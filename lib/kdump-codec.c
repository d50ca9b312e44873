/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kdump-codec.c - a page of a kdump-compressed export, compressed the way
 * makedumpfile does it (makedumpfile.c, write_kdump_pages_*): each page on
 * its own, zlib at level 1 (compress2(Z_BEST_SPEED)), LZO1X-1, or zstd at
 * level 1; a page that does not come out smaller is stored raw. Readers
 * (crash's diskdump.c, libkdumpfile's diskdump.c) decode one page at a
 * time with uncompress(), lzo1x_decompress_safe() and ZSTD_decompress(),
 * so every output is a whole zlib stream, a plain LZO1X stream or a zstd
 * frame. zlib comes from libdeflate, which writes the same zlib format.
 */
#include "hibimgP.h"

#include <libdeflate.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <zstd.h>

/* diskdump_mod.h: page_desc.flags, disk_dump_header.status */
#define DUMP_DH_COMPRESSED_ZLIB   0x1u
#define DUMP_DH_COMPRESSED_LZO    0x2u
#define DUMP_DH_COMPRESSED_ZSTD   0x20u

const char *hib_kdump_codec_name(enum hib_kdump_codec c)
{
	switch (c) {
	case HIB_KDUMP_DEFAULT:
	case HIB_KDUMP_ZSTD: return "zstd";
	case HIB_KDUMP_ZLIB: return "zlib";
	case HIB_KDUMP_LZO:  return "lzo";
	case HIB_KDUMP_NONE: return "none";
	}
	return NULL;
}

unsigned int hib_kcodec_flag(enum hib_kdump_codec c)
{
	switch (c) {
	case HIB_KDUMP_ZLIB: return DUMP_DH_COMPRESSED_ZLIB;
	case HIB_KDUMP_LZO:  return DUMP_DH_COMPRESSED_LZO;
	case HIB_KDUMP_ZSTD: return DUMP_DH_COMPRESSED_ZSTD;
	default:             return 0;
	}
}

int hib_kcodec_init(struct hib_kcodec *k, enum hib_kdump_codec c)
{
	k->codec = c;
	k->state = NULL;
	switch (c) {
	case HIB_KDUMP_ZLIB:
		k->state = libdeflate_alloc_compressor(1);
		break;
	case HIB_KDUMP_LZO:
		if (lzo_init() != LZO_E_OK)
			return HIB_ERR_UNSUPPORTED;
		k->state = malloc(LZO1X_1_MEM_COMPRESS);
		break;
	case HIB_KDUMP_ZSTD:
		k->state = ZSTD_createCCtx();
		break;
	default:
		return HIB_OK;
	}
	return k->state ? HIB_OK : HIB_ERR_NOMEM;
}

void hib_kcodec_free(struct hib_kcodec *k)
{
	switch (k->codec) {
	case HIB_KDUMP_ZLIB:
		if (k->state)
			libdeflate_free_compressor(k->state);
		break;
	case HIB_KDUMP_LZO:
		free(k->state);
		break;
	case HIB_KDUMP_ZSTD:
		ZSTD_freeCCtx(k->state);
		break;
	default:
		break;
	}
	k->state = NULL;
}

size_t hib_kcodec_bound(enum hib_kdump_codec c, size_t ps)
{
	switch (c) {
	case HIB_KDUMP_ZLIB: return ps + ps / 1000 + 64;    /* libdeflate_zlib_compress_bound() is per compressor */
	case HIB_KDUMP_LZO:  return ps + ps / 16 + 64 + 3;  /* lzo1x.h's worst case */
	case HIB_KDUMP_ZSTD: return ZSTD_compressBound(ps);
	default:             return ps;
	}
}

size_t hib_kcodec_page(struct hib_kcodec *k, const unsigned char *src, size_t ps,
		       unsigned char *dst, size_t cap)
{
	size_t n = 0;

	switch (k->codec) {
	case HIB_KDUMP_ZLIB:
		/* 0 when it does not fit: the page is then stored raw */
		n = libdeflate_zlib_compress(k->state, src, ps, dst, cap < ps ? cap : ps - 1);
		break;
	case HIB_KDUMP_LZO: {
		lzo_uint out = cap;

		if (lzo1x_1_compress(src, ps, dst, &out, k->state) == LZO_E_OK)
			n = out;
		break;
	}
	case HIB_KDUMP_ZSTD:
		n = ZSTD_compressCCtx(k->state, dst, cap, src, ps, 1);
		if (ZSTD_isError(n))
			n = 0;
		break;
	default:
		break;
	}
	return n < ps ? n : 0;
}
