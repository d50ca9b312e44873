/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to stats.c and simulate.c: a stream the kernel would write,
 * compressed chunk by chunk as save_compressed_image() would and sized by
 * the writer's own sizing pass (emit.c); the result handles behind the
 * getters. */
#ifndef _HIBIMG_STATSP_H
#define _HIBIMG_STATSP_H

#include "writerP.h"

#include <string.h>

/* kernel MB as swsusp_show_speed() prints it: 1000 KiB */
#define HIB_KMB 1024000.0

#define HIB_ZSTD_FAST_LEVEL 1   /* HIB_CODEC_ZSTD_FAST */
#define HIB_ZSTD_LEVEL      3   /* HIB_CODEC_ZSTD, the simulator's default */

/* How many of each the library knows today. Not in hibimg.h: a caller
 * compiled against one count would read past the arrays of a library that
 * knows more, or fewer; callers ask hib_class_name() and friends instead. */
enum {
	HIB_CLASS_COUNT = HIB_CLASS_OTHER + 1,
	HIB_CODEC_COUNT = HIB_CODEC_ZSTD + 1,
	HIB_SIM_COMP_COUNT = HIB_SIM_ZSTD + 1
};

struct hib_stats {
	struct hib_stats_info info;
	uint64_t pages[HIB_CLASS_COUNT];
	uint64_t (*buckets)[HIB_CLASS_COUNT];
	struct hib_stats_chunk *chunks;
	uint32_t (*chunk_len)[HIB_CODEC_COUNT];  /* NULL without the compression pass */
	struct hib_stats_codec codec[HIB_CODEC_COUNT];
};

struct hib_sim {
	struct hib_sim_info info;
	double rate_compress[HIB_SIM_COMP_COUNT];
	double rate_decompress[HIB_SIM_COMP_COUNT];
	size_t n;
	struct hib_sim_scenario sc[2 * HIB_SIM_COMP_COUNT];
	struct hib_sim_inputs *inputs;  /* simrateP.h */
};


struct hib_sink {
	struct hib_image *img;
	unsigned int ps;
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

	uint32_t (*chunk_len)[HIB_CODEC_COUNT];
	uint64_t chunk_cap;
	uint64_t unc_bytes;
	struct hib_w_size size[HIB_CODEC_COUNT];  /* the writer's sizing pass */
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
