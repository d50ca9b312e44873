/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to simulate.c and simrate.c: the model's inputs (rates, threads,
 * the machine modelled), each with its source, and where they come from:
 * the seed mail, a kernel log, a measurement here on the image's pages,
 * the caller, or an assumption. */
#ifndef _HIBIMG_SIMRATEP_H
#define _HIBIMG_SIMRATEP_H

#include "statsP.h"

/* The seed mail (shared/seeds/nozerocheck-copy_data_pages-2026.txt, patch
 * 3/3, Steam Deck OLED), in kernel MB/s (1000 KiB/s, swsusp_show_speed()):
 *   "Copied 4940240 kbytes in 11.33 seconds (436.03 MB/s)"  zero check
 *   "Copied 4974664 kbytes in 9.03 seconds (550.90 MB/s)"   loop, no check
 *   "Copied 6275216 kbytes in 3.96 seconds (1584.65 MB/s)"  copy_page()
 * The zero-check run copied 4940240 of the 6275216 kbytes the copy_page()
 * run copied (all pages): a zero share of 1 - 4940240/6275216. */
#define HIB_SIM_RATE_ZEROCHECK   436.03
#define HIB_SIM_SHARE_ZEROCHECK  0.212738
#define HIB_SIM_RATE_LOOP        550.90
#define HIB_SIM_RATE_COPY_PAGE   1584.65
/* nobody measured these: an SSD's order of magnitude */
#define HIB_SIM_DISK_WRITE       500.0
#define HIB_SIM_DISK_READ        1000.0
#define HIB_SIM_REPEAT           5

/* the measurement batch: up to 16 MiB of the image's non-zero pages,
 * past most L2 caches (4096 pages of 4 KiB, 256 of 64 KiB) */
/* The codecs are timed on 4 MiB of the image's pages: compute-bound, they
 * need no more, and simulate's peak stays a few MiB above verify's. The
 * copy loops are memory-bound and need a batch past the caches: 16 MiB,
 * gathered only when they are measured (--calibrate). */
#define HIB_SIM_CODEC_BATCH_BYTES (4u << 20)
#define HIB_SIM_COPY_BATCH_BYTES  (16u << 20)
/* a kernel log read whole, bounded */
#define HIB_SIM_LOG_MAX (64u << 20)
#define HIB_SIM_LOGS 4

enum sim_in {
	SIM_IN_THREADS = 0,
	SIM_IN_COPY_ZEROCHECK,      /* as printed: over the pages copied */
	SIM_IN_COPY_SHARE,          /* zero share of the memory it was printed for */
	SIM_IN_COPY_LOOP,
	SIM_IN_COPY_PAGE,
	SIM_IN_LZO_C, SIM_IN_LZO_D,
	SIM_IN_LZ4_C, SIM_IN_LZ4_D,
	SIM_IN_ZSTD_C, SIM_IN_ZSTD_D,
	SIM_IN_DISK_W, SIM_IN_DISK_R,
	SIM_IN_WROTE,               /* a log's "Wrote": the save pipeline (zero check on or unknown) */
	SIM_IN_WROTE_OFF,           /* the same from a log whose kernel ran without it */
	SIM_IN_READ,                /* a log's "Read": the load pipeline */
	SIM_IN_RAM,
	SIM_IN_ZERO_SHARE,
	SIM_IN_COUNT
};

#define SIM_FROM_MAX 256

/* One line of the log simulate uses. */
struct sim_log_line {
	int have;
	unsigned int lineno;
	char text[160];             /* the kernel's message, past its prefix */
	uint64_t v[2];              /* the numbers klog.c read */
	double seconds;             /* "in S seconds" (wrote, read, copied) */
};

struct sim_log {
	struct sim_log_line threads, dthreads, wrote, read, copied, created;
	enum hib_sim_comp comp;     /* the codec "Wrote" wrote with */
	enum hib_sim_comp dcomp;    /* and "Read" read with */
	int created_zero;           /* "Image created" counts zero pages (6.6+) */
	int zerocheck;              /* its hibernation checked for zero pages:
				     * 1 yes (M > 0), 0 no (M = 0, or before
				     * 6.6), -1 no "Image created" to tell */
};

/* What the sizing pass and the batch gave. */
struct sim_meas {
	uint64_t image_cmp;         /* sum of the image's chunks' cmp_len */
	uint64_t batch_pages;        /* gathered: the copy loops ran on all */
	uint64_t codec_pages;        /* of them, the codecs ran on these */
	double copy_zc, copy_loop, copy_page;   /* MB/s, 0: not measured */
	double cmp[HIB_SIM_COMP_COUNT], dec[HIB_SIM_COMP_COUNT];
	/* cmp_len of an all-zero 32-page chunk, for scaling an image without
	 * zero pages to a share that has some */
	uint64_t zero_chunk[HIB_SIM_COMP_COUNT];
};

struct hib_sim_inputs {
	struct hib_sim_input in[SIM_IN_COUNT];
	int have[SIM_IN_COUNT];     /* WROTE and READ only with their log line */
	char from[SIM_IN_COUNT][SIM_FROM_MAX];
	unsigned int nlog;
	char log_path[HIB_SIM_LOGS][SIM_FROM_MAX];
	struct sim_log log[HIB_SIM_LOGS];
	enum hib_sim_comp comp[SIM_IN_COUNT];   /* the codec of WROTE*, READ */
	struct sim_meas meas;
};

/* simscale.c: the memory modelled, saved pages n, zero pages z, PFN-list
 * pages m */
struct sim_mix {
	uint64_t n, z, m;
};
HIB_HIDDEN void hib_sim_scale_mix(const struct sim_mix *img, uint64_t img_ram_pages,
				  uint64_t ram_pages, int share_set, double share,
				  unsigned int word, unsigned int ps, struct sim_mix *out);
/* the stream with the zero check on (zerocheck) or off, for the mix "to",
 * from the image's two streams "on" and "off" of the mix "img" */
HIB_HIDDEN void hib_sim_scale_size(const struct hib_w_size *on, const struct hib_w_size *off,
				   const struct sim_mix *img, const struct sim_mix *to,
				   int zerocheck, uint64_t zero_chunk, int compressed,
				   struct hib_w_size *out);

HIB_HIDDEN int hib_sim_log_read(struct hib_image *img, const char *path, struct sim_log *lg);
/* The measurement batch rides on the sizing pass: hib_sim_batch_page()
 * with each non-zero data page in stream order, hib_sim_batch_chunk() as
 * the reader's chunk callback (the image's own compressed bytes); then
 * hib_sim_measure() times the rates not pinned on it, repeat times, the
 * median, with the sizing workers idle. */
struct sim_batch;
HIB_HIDDEN int hib_sim_batch_new(struct hib_image *img, const struct hib_sim_opts *o,
				 struct sim_batch **b);
HIB_HIDDEN void hib_sim_batch_page(struct sim_batch *b, const unsigned char *page);
HIB_HIDDEN int hib_sim_batch_chunk(const struct hib_chunk *c, void *b);
HIB_HIDDEN int hib_sim_measure(struct hib_image *img, struct sim_batch *b,
			       const struct hib_sim_opts *o, int zstd_level,
			       struct sim_meas *m);
HIB_HIDDEN void hib_sim_batch_free(struct sim_batch *b);
/* Every input, by the precedence given > log > measured > seed/assumed. */
HIB_HIDDEN int hib_sim_inputs_resolve(struct hib_image *img, const struct hib_sim_opts *o,
				      struct hib_sim_inputs *si, unsigned int threads_default);
HIB_HIDDEN void hib_sim_inputs_scale(struct hib_sim_inputs *si, const struct hib_sim_opts *o,
				     uint64_t image_ram, double image_share);
/* Does a rate need measuring, or is every one pinned (given or logged)? */
HIB_HIDDEN void hib_sim_needs(const struct hib_sim_opts *o, int *copy, int *codec);

#endif
