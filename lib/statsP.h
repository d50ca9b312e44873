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


/* simsize.c: the sizing engine. One engine (the pool, each worker's codec
 * state, the cache of chunk sizes) serves any number of sinks. */
struct hib_engine;

/* Per codec, what the sampled chunks add up to (every one in a full run). */
struct hib_sink_acc {
	uint64_t n;
	uint64_t sum_len, sum_pages;
	double sum_len2, sum_pages2;
};

/* A stream the kernel would write, fed page by page in stream order after
 * its PFN list; the list itself is generated at the end (hib_sink_finish). */
struct hib_sink {
	struct hib_engine *eng;
	struct hib_image *img;
	unsigned int ps;
	unsigned int codecs;        /* bit per enum hib_codec_id */
	int zstd_level[HIB_CODEC_COUNT];
	unsigned int decode_left;   /* chunks still to round trip (the rates) */
	int keep_chunks;            /* per-chunk sizes in chunk_len */
	uint64_t meta_pages;
	uint64_t head_pages;        /* meta pages rounded up to a chunk */
	unsigned char *head;        /* data pages in the last meta chunk (< 32) */
	unsigned char *buf;         /* the chunk being filled after the head */
	size_t cur, cur_nz;         /* its pages, and how many are not zero */
	bool cur_sampled;
	uint64_t n;                 /* stream pages so far, meta slots included */

	/* --sample: chunks not all zero are sized when sampled */
	double sample;              /* 0: every chunk */
	uint64_t thresh, seed;
	uint64_t pop;               /* chunks not all zero (sampled or not) */
	uint64_t zero_chunks;       /* all zero: sized exactly, once */
	uint32_t zero_len[UNC_PAGES + 1][HIB_CODEC_COUNT];
	uint8_t zero_known[UNC_PAGES + 1];
	struct hib_sink_acc acc[HIB_CODEC_COUNT];

	uint32_t (*chunk_len)[HIB_CODEC_COUNT];
	uint64_t chunk_cap;
	uint64_t unc_bytes;
	struct hib_w_size size[HIB_CODEC_COUNT];  /* the writer's sizing pass */
	/* time on the chunks really compressed or decoded, and their bytes
	 * (a chunk sized from the cache costs none) */
	double cmp_sec[HIB_CODEC_COUNT], dec_sec[HIB_CODEC_COUNT];
	uint64_t cmp_unc[HIB_CODEC_COUNT], dec_unc[HIB_CODEC_COUNT];
};

/* Which entries of the PFN list are zero in the stream's meta pages:
 * flagged (one bit per entry, the image's own flags) or, for the entries
 * not flagged, data_zero (one bit per stored data page, in stream order).
 * Either may be NULL. */
struct hib_sink_meta {
	const uint8_t *flagged;
	const uint8_t *data_zero;
};

/* One codec's sizes for a sink: exact in a full run (errors 0), else the
 * sampled chunks scaled up, with a bound (hib_sink_estimate()). */
struct hib_sink_est {
	uint64_t chunks, population, sampled;
	uint64_t cmp_bytes, cmp_bytes_err;
	uint64_t disk_pages, disk_pages_err;
	uint64_t slots, slots_err;
};

/* threads 0: the online CPUs */
HIB_HIDDEN int hib_engine_new(struct hib_image *img, unsigned int threads,
			      struct hib_engine **e);
HIB_HIDDEN void hib_engine_free(struct hib_engine *e);
HIB_HIDDEN int hib_engine_drain(struct hib_engine *e);
HIB_HIDDEN unsigned int hib_engine_workers(const struct hib_engine *e);
HIB_HIDDEN int hib_sink_init(struct hib_sink *s, struct hib_engine *e,
			     uint64_t meta_pages, unsigned int codecs);
/* before the first page; fraction 0 (or 1): every chunk */
HIB_HIDDEN void hib_sink_set_sample(struct hib_sink *s, double fraction, uint64_t seed,
				    unsigned int stream);
/* page NULL: a page of zeros */
HIB_HIDDEN int hib_sink_page(struct hib_sink *s, const unsigned char *page);
HIB_HIDDEN int hib_sink_finish(struct hib_sink *s, const struct hib_sink_meta *meta);
HIB_HIDDEN void hib_sink_estimate(const struct hib_sink *s, enum hib_codec_id c,
				  struct hib_sink_est *est);
HIB_HIDDEN void hib_sink_free(struct hib_sink *s);
HIB_HIDDEN double hib_now(void);

#endif
