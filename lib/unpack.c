/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unpack.c - the formats a kernel is compressed in (scripts/Makefile.lib:
 * gzip, xz, lzma, zstd22, lz4 -l, lzop), known by their magic, decoded
 * into one buffer that never grows past the caller's cap. Each decoder
 * reads only the bytes it is given.
 */
#include "targetP.h"

#include <libdeflate.h>
#include <lz4.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>
#ifdef HAVE_LZMA
#include <lzma.h>
#endif

size_t hib_tgt_unpack_cap = HIB_TGT_FILE_MAX;

static const struct {
	const char *name;
	unsigned char magic[9];
	size_t len;
} formats[] = {
	{ "gzip",  { 0x1f, 0x8b }, 2 },
	{ "xz",    { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6 },
	{ "lzma",  { 0x5d, 0, 0 }, 3 },
	{ "zstd",  { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
	{ "lz4",   { 0x02, 0x21, 0x4c, 0x18 }, 4 },     /* legacy frame, lz4 -l */
	{ "lzo",   { 0x89, 'L', 'Z', 'O', 0, 0x0d, 0x0a, 0x1a, 0x0a }, 9 },
	{ "bzip2", { 'B', 'Z', 'h' }, 3 },
};

const char *hib_unpack_format(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (len >= formats[i].len && !memcmp(p, formats[i].magic, formats[i].len))
			return formats[i].name;
	return NULL;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The output: starts at the hint (or 1 MiB), doubles up to cap. */
struct outbuf {
	unsigned char *p;
	size_t len, cap, max;
	size_t stated;              /* the size the container gives, 0: none */
};

static bool out_grow(struct outbuf *o, size_t need)
{
	size_t cap = o->cap ? o->cap : 1u << 20;
	unsigned char *p;

	if (need > o->max)
		return false;
	while (cap < need)
		cap = cap > o->max / 2 ? o->max : cap * 2;
	if (cap <= o->cap)
		return true;
	p = realloc(o->p, cap);
	if (!p)
		return false;
	o->p = p;
	o->cap = cap;
	return true;
}

static int too_big(struct hib_target *t, const char *what, const char *fmt, size_t cap)
{
	return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
			      "%s: its %s data decompress to more than %zu MiB, the most this reads",
			      what, fmt, cap >> 20);
}

static int bad(struct hib_target *t, const char *what, const char *fmt, const char *why)
{
	return hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: %s data cannot be decoded: %s",
			      what, fmt, why);
}

static int un_gzip(struct hib_target *t, const char *what, const unsigned char *p,
		   size_t len, struct outbuf *o)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t in_used, out_len = 0;
	enum libdeflate_result r;

	if (!d)
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
	/* one member; its size is known only by decoding it: try, grow */
	for (;;) {
		size_t want = o->cap ? o->cap : 1u << 20;

		if (want > o->max)
			want = o->max;
		if (!out_grow(o, want)) {
			libdeflate_free_decompressor(d);
			return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
		}
		r = libdeflate_gzip_decompress_ex(d, p, len, o->p, o->cap, &in_used, &out_len);
		if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
			break;
		if (o->cap == o->max) {
			libdeflate_free_decompressor(d);
			return too_big(t, what, "gzip", o->max);
		}
		if (!out_grow(o, o->cap > o->max / 2 ? o->max : o->cap * 2)) {
			libdeflate_free_decompressor(d);
			return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
		}
	}
	libdeflate_free_decompressor(d);
	if (r != LIBDEFLATE_SUCCESS)
		return bad(t, what, "gzip", r == LIBDEFLATE_SHORT_OUTPUT ? "short" : "corrupt or truncated");
	o->len = out_len;
	return HIB_OK;
}

#ifdef HAVE_LZMA
/*
 * A match never reaches back further than the bytes decoded so far, so a
 * dictionary larger than the output is never used: the kernel's xz_wrap.sh
 * asks for 128 MiB (6.12) where the kernel is 14. Each block is decoded
 * with its dictionary cut to what the output may hold, which bounds the
 * decoder by the cap, not by a number in the stream.
 */
static uint32_t dict_for(uint32_t dict, const struct outbuf *o)
{
	/* the stated size where the container gives one: the cap (256 MiB)
	 * is more than a small machine can allocate, and liblzma allocates
	 * the whole dictionary when the block decoder starts */
	size_t most = (o->stated > o->len ? o->stated : o->max) - o->len;

	if (most < LZMA_DICT_SIZE_MIN)
		most = LZMA_DICT_SIZE_MIN;
	return dict > most ? (uint32_t)most : dict;
}

static int code_all(struct hib_target *t, const char *what, const char *fmt,
		    lzma_stream *s, struct outbuf *o)
{
	lzma_ret r;

	for (;;) {
		if (o->len == o->cap) {
			if (o->cap == o->max)
				return too_big(t, what, fmt, o->max);
			if (!out_grow(o, o->cap + 1))
				return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
		}
		s->next_out = o->p + o->len;
		s->avail_out = o->cap - o->len;
		r = lzma_code(s, LZMA_FINISH);
		o->len = o->cap - s->avail_out;
		if (r == LZMA_STREAM_END)
			return HIB_OK;
		if (r == LZMA_OK && s->avail_out == 0)
			continue;
		return bad(t, what, fmt, r == LZMA_OK || r == LZMA_BUF_ERROR ? "truncated" :
			   r == LZMA_MEM_ERROR ? "out of memory" : "corrupt");
	}
}

static int un_xz(struct hib_target *t, const char *what, const unsigned char *p,
		 size_t len, struct outbuf *o)
{
	lzma_stream_flags sf;
	size_t pos = LZMA_STREAM_HEADER_SIZE;

	if (len < LZMA_STREAM_HEADER_SIZE || lzma_stream_header_decode(&sf, p) != LZMA_OK)
		return bad(t, what, "xz", "no stream header");
	/* blocks until the index, whose indicator byte is 0 */
	while (pos < len && p[pos] != 0) {
		lzma_filter filters[LZMA_FILTERS_MAX + 1];
		lzma_block b = { .version = 0, .check = sf.check, .filters = filters };
		lzma_stream s = LZMA_STREAM_INIT;
		lzma_ret r;
		size_t i;
		int rc;

		b.header_size = lzma_block_header_size_decode(p[pos]);
		if (b.header_size > len - pos || lzma_block_header_decode(&b, NULL, p + pos) != LZMA_OK)
			return bad(t, what, "xz", "a corrupt block header");
		for (i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
			if (filters[i].id == LZMA_FILTER_LZMA2 && filters[i].options) {
				lzma_options_lzma *lz = filters[i].options;

				lz->dict_size = dict_for(lz->dict_size, o);
			}
		if ((r = lzma_block_decoder(&s, &b)) != LZMA_OK) {
			for (i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
				free(filters[i].options);
			return r == LZMA_MEM_ERROR ?
			       hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory for its xz dictionary", what) :
			       bad(t, what, "xz", "a block this decoder cannot read");
		}
		s.next_in = p + pos + b.header_size;
		s.avail_in = len - pos - b.header_size;
		rc = code_all(t, what, "xz", &s, o);
		pos = len - s.avail_in;
		lzma_end(&s);
		for (i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
			free(filters[i].options);
		if (rc)
			return rc;
	}
	if (pos >= len)
		return bad(t, what, "xz", "truncated");
	return HIB_OK;
}

/* .lzma: props, le32 dictionary size, le64 size, then the data; decoded
 * from a copy whose dictionary size is cut as for xz */
static int un_lzma(struct hib_target *t, const char *what, const unsigned char *p,
		   size_t len, struct outbuf *o)
{
	lzma_stream s = LZMA_STREAM_INIT;
	unsigned char *copy;
	uint32_t dict;
	int rc, k;

	if (len < 13)
		return bad(t, what, "lzma", "truncated");
	copy = malloc(len);
	if (!copy)
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
	memcpy(copy, p, len);
	dict = dict_for(le32(copy + 1), o);
	for (k = 0; k < 4; k++)
		copy[1 + k] = (unsigned char)(dict >> (8 * k));
	if (lzma_alone_decoder(&s, UINT64_MAX) != LZMA_OK) {
		free(copy);
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: cannot start the lzma decoder", what);
	}
	s.next_in = copy;
	s.avail_in = len;
	rc = code_all(t, what, "lzma", &s, o);
	lzma_end(&s);
	free(copy);
	return rc;
}
#endif

/* The kernel's zstd -22 --ultra reads stdin: its frame declares a 128 MiB
 * window, which a streaming decoder allocates. Decoded in one go into an
 * output of the size the container states, the output is the history and
 * no window is allocated; without a size, the window may not pass the cap. */
static unsigned int log2_floor(size_t v)
{
	unsigned int l = 0;

	while (v >>= 1)
		l++;
	return l;
}

static int un_zstd(struct hib_target *t, const char *what, const unsigned char *p,
		   size_t len, struct outbuf *o)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer in = { p, len, 0 };
	unsigned int wl = log2_floor(o->max);
	size_t r = 1;

	if (!d)
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
	if (o->cap) {
		/* the kernel's size word follows the frame */
		size_t fl = ZSTD_findFrameCompressedSize(p, len);

		ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 31);
		r = ZSTD_isError(fl) ? fl : ZSTD_decompressDCtx(d, o->p, o->cap, p, fl);
		ZSTD_freeDCtx(d);
		if (ZSTD_isError(r))
			return bad(t, what, "zstd", ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ?
				   "it decodes to more than its stated size" : ZSTD_getErrorName(r));
		o->len = r;
		return HIB_OK;
	}
	ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, (int)(wl < 10 ? 10 : wl > 27 ? 27 : wl));
	while (r != 0) {
		ZSTD_outBuffer out;

		if (o->len == o->cap) {
			if (o->cap == o->max) {
				ZSTD_freeDCtx(d);
				return too_big(t, what, "zstd", o->max);
			}
			if (!out_grow(o, o->cap + 1)) {
				ZSTD_freeDCtx(d);
				return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
			}
		}
		out = (ZSTD_outBuffer){ o->p, o->cap, o->len };
		r = ZSTD_decompressStream(d, &out, &in);
		o->len = out.pos;
		if (ZSTD_isError(r)) {
			ZSTD_freeDCtx(d);
			return bad(t, what, "zstd", ZSTD_getErrorName(r));
		}
		if (r != 0 && in.pos == in.size && out.pos < out.size) {
			ZSTD_freeDCtx(d);
			return bad(t, what, "zstd", "truncated");
		}
	}
	ZSTD_freeDCtx(d);
	return HIB_OK;
}

/* lz4 -l: the magic, then blocks of le32 length + data, each at most 8 MiB
 * decoded; a magic again starts another frame (lib/decompress_unlz4.c). The
 * kernel's own stream ends with its le32 size, which reads as a block
 * longer than what is left: that ends it too. */
#define LZ4_LEGACY_MAGIC 0x184c2102u
#define LZ4_LEGACY_BLOCK (8u << 20)

static int un_lz4(struct hib_target *t, const char *what, const unsigned char *p,
		  size_t len, struct outbuf *o)
{
	size_t pos = 4;
	bool any = false;

	while (len - pos >= 4) {
		uint32_t n = le32(p + pos);
		size_t room;
		int r;

		if (n == LZ4_LEGACY_MAGIC) {
			pos += 4;
			continue;
		}
		if (n == 0 || n > len - pos - 4)
			break;
		if (!out_grow(o, o->len + LZ4_LEGACY_BLOCK < o->max ? o->len + LZ4_LEGACY_BLOCK : o->max))
			return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
		room = o->cap - o->len;
		if (room == 0)
			return too_big(t, what, "lz4", o->max);
		if (room > LZ4_LEGACY_BLOCK)
			room = LZ4_LEGACY_BLOCK;
		r = LZ4_decompress_safe((const char *)p + pos + 4, (char *)o->p + o->len,
					(int)n, (int)room);
		if (r < 0)
			return o->len + room == o->max ? too_big(t, what, "lz4", o->max) :
			       bad(t, what, "lz4", "a block is corrupt");
		o->len += (size_t)r;
		pos += 4 + n;
		any = true;
	}
	if (!any)
		return bad(t, what, "lz4", "no block");
	return HIB_OK;
}

/* lzop's format, as lib/decompress_unlzo.c reads it */
#define LZOP_F_ADLER32_D 0x001u
#define LZOP_F_ADLER32_C 0x002u
#define LZOP_F_H_EXTRA   0x040u
#define LZOP_F_CRC32_D   0x100u
#define LZOP_F_CRC32_C   0x200u
#define LZOP_F_H_FILTER  0x800u
#define LZOP_BLOCK_MAX   (64u << 20)

static int un_lzo(struct hib_target *t, const char *what, const unsigned char *p,
		  size_t len, struct outbuf *o)
{
	size_t pos = 9;
	unsigned int version, flags;

#define NEED(n) do { if (len - pos < (size_t)(n)) return bad(t, what, "lzo", "truncated"); } while (0)
	NEED(4);
	version = (unsigned int)p[pos] << 8 | p[pos + 1];
	pos += 4;                               /* version, library version */
	if (version >= 0x0940) {
		NEED(2);
		pos += 2;                       /* version needed */
	}
	NEED(1);
	pos += 1;                               /* method */
	if (version >= 0x0940) {
		NEED(1);
		pos += 1;                       /* level */
	}
	NEED(4);
	flags = be32(p + pos);
	pos += 4;
	if (flags & LZOP_F_H_FILTER) {
		NEED(4);
		pos += 4;
	}
	NEED(8);
	pos += 8;                               /* mode, mtime low */
	if (version >= 0x0940) {
		NEED(4);
		pos += 4;                       /* mtime high */
	}
	NEED(1);
	pos += 1 + p[pos];                      /* name */
	NEED(4);
	pos += 4;                               /* header checksum */
	if (flags & LZOP_F_H_EXTRA)
		return bad(t, what, "lzo", "extra header field");
	if (lzo_init() != LZO_E_OK)
		return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED, "%s: liblzo2 will not start", what);
	for (;;) {
		uint32_t dst_len, src_len;
		lzo_uint out;

		NEED(4);
		dst_len = be32(p + pos);
		pos += 4;
		if (dst_len == 0)
			break;
		if (dst_len > LZOP_BLOCK_MAX)
			return bad(t, what, "lzo", "a block longer than 64 MiB");
		NEED(4);
		src_len = be32(p + pos);
		pos += 4;
		if (src_len == 0 || src_len > dst_len)
			return bad(t, what, "lzo", "a block with an impossible length");
		pos += 4 * (((flags & LZOP_F_ADLER32_D) != 0) + ((flags & LZOP_F_CRC32_D) != 0));
		if (src_len < dst_len)
			pos += 4 * (((flags & LZOP_F_ADLER32_C) != 0) +
				    ((flags & LZOP_F_CRC32_C) != 0));
		if (pos > len)
			return bad(t, what, "lzo", "truncated");
		NEED(src_len);
		if (o->len + dst_len > o->max)
			return too_big(t, what, "lzo", o->max);
		if (!out_grow(o, o->len + dst_len))
			return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
		if (src_len == dst_len) {
			memcpy(o->p + o->len, p + pos, dst_len);
		} else {
			out = dst_len;
			if (lzo1x_decompress_safe(p + pos, src_len, o->p + o->len, &out, NULL) != LZO_E_OK ||
			    out != dst_len)
				return bad(t, what, "lzo", "a block is corrupt");
		}
		o->len += dst_len;
		pos += src_len;
	}
#undef NEED
	return HIB_OK;
}

int hib_unpack(struct hib_target *t, const char *what, const unsigned char *p,
	       size_t len, size_t hint, size_t cap, unsigned char **out, size_t *out_len)
{
	const char *fmt = hib_unpack_format(p, len);
	struct outbuf o = { .max = cap };
	int rc;

	if (!fmt)
		return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				      "%s: data in no compressed format this reads", what);
	if (hint > cap)
		return too_big(t, what, fmt, cap);
	if (hint && !out_grow(&o, hint))
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
	o.stated = hint;
	if (!strcmp(fmt, "gzip"))
		rc = un_gzip(t, what, p, len, &o);
	else if (!strcmp(fmt, "zstd"))
		rc = un_zstd(t, what, p, len, &o);
	else if (!strcmp(fmt, "lz4"))
		rc = un_lz4(t, what, p, len, &o);
	else if (!strcmp(fmt, "lzo"))
		rc = un_lzo(t, what, p, len, &o);
#ifdef HAVE_LZMA
	else if (!strcmp(fmt, "xz"))
		rc = un_xz(t, what, p, len, &o);
	else if (!strcmp(fmt, "lzma"))
		rc = un_lzma(t, what, p, len, &o);
#endif
	else
		rc = hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				    "%s: %s data, which this hibimg was built without", what, fmt);
	if (rc) {
		free(o.p);
		return rc;
	}
	if (!o.len) {
		free(o.p);
		return bad(t, what, fmt, "it holds nothing");
	}
	*out = o.p;
	*out_len = o.len;
	return HIB_OK;
}
