/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to stats.c and simulate.c: a stream the kernel would write,
 * compressed chunk by chunk as save_compressed_image() would. */
#ifndef _HIBIMG_STATSP_H
#define _HIBIMG_STATSP_H

#include "hibimgP.h"

/* kernel MB as swsusp_show_speed() prints it: 1000 KiB */
#define HIB_KMB 1024000.0

/* The simulator's defaults, in kernel MB/s (hib_sim_defaults() hands them
 * to callers; they are the model's, not the API's). */
#define HIB_SIM_RATE_ZEROCHECK   436.03  /* seed mail: "Copied 4940240 kbytes in 11.33 s" */
#define HIB_SIM_SHARE_ZEROCHECK  0.212728 /* 1 - 4940240/6275216: zero share of that run */
#define HIB_SIM_RATE_LOOP        550.90  /* the same loop without the test */
#define HIB_SIM_RATE_COPY_PAGE   1584.65 /* copy_page(), no test */
#define HIB_SIM_DISK_WRITE       500.0
#define HIB_SIM_DISK_READ        1000.0


struct hib_sink {
	struct hib_image *img;
	unsigned int ps, hdr;
	unsigned int codecs;        /* bit per enum hib_codec_id */
	int zstd_level[HIB_CODEC_COUNT];
	int decode;                 /* decompress every chunk again (rates, check) */
	int keep_chunks;            /* per-chunk sizes in chunk_len */
	uint64_t meta_pages;
	uint64_t head_pages;        /* meta pages rounded up to a chunk */
	unsigned char *head;        /* first chunks, finished when the meta is known */
	unsigned char *buf;         /* the chunk being filled after the head */
	uint64_t n;                 /* stream pages so far, meta slots included */
	struct hib_codec cx;
	void *zc, *zd;              /* ZSTD_CCtx, ZSTD_DCtx */
	unsigned char *cmp, *dec;
	size_t cmp_cap;

	uint64_t nchunks;
	uint32_t (*chunk_len)[HIB_CODEC_COUNT];
	uint64_t chunk_cap;
	uint64_t unc_bytes;
	uint64_t cmp_bytes[HIB_CODEC_COUNT];
	uint64_t disk_pages[HIB_CODEC_COUNT];
	double cmp_sec[HIB_CODEC_COUNT], dec_sec[HIB_CODEC_COUNT];
};

/* Fills meta page m of the PFN list; zero_bits (one bit per entry) says
 * which entries carry ENCODED_PFN_ZERO_FLAG, NULL for none. */
HIB_HIDDEN void hib_meta_page(const struct hib_image *img, uint64_t m,
			      const uint8_t *zero_bits, unsigned char *page);
HIB_HIDDEN int hib_sink_init(struct hib_sink *s, struct hib_image *img,
			     uint64_t meta_pages, unsigned int codecs);
HIB_HIDDEN int hib_sink_page(struct hib_sink *s, const unsigned char *page);
HIB_HIDDEN int hib_sink_finish(struct hib_sink *s, const uint8_t *zero_bits);
HIB_HIDDEN void hib_sink_free(struct hib_sink *s);
HIB_HIDDEN double hib_now(void);

#endif
