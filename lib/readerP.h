/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the stream reader: reader.c (pages in PFN-list order, the
 * PFN list, the end-of-stream checks) and readahead.c (chunks read ahead
 * and decoded on the pool, stream pages out of them). They share the
 * handle, struct hib_reader.
 */
#ifndef _HIBIMG_READERP_H
#define _HIBIMG_READERP_H

#include "hibimgP.h"
#include "salvageP.h"

enum rd_state { RD_META, RD_DATA, RD_DONE, RD_FAILED };

struct rjob;

struct hib_reader {
	struct hib_image *img;
	enum rd_state state;
	int fail_rc;

	/* the chunk being consumed */
	const unsigned char *unc;
	size_t unc_len, unc_pos;
	struct hib_chunk chunk;
	bool holding;                /* a ring slot is being consumed */

	/* read-ahead */
	unsigned int threads;
	struct hib_pool *pool;
	struct rjob *jobs;
	void **slots;
	unsigned int nslots;
	uint64_t next_entry;         /* next map entry to read */
	uint64_t planned;            /* stream pages the read-ahead expects */
	uint64_t produced;           /* chunks read */
	bool prod_done;

	uint64_t stream_pages;       /* pages - 1 */
	uint64_t plan_total;         /* stream pages the chunks hold */
	uint64_t sp;                 /* stream pages handed out */
	uint64_t pfn_entry;          /* next PFN-list entry to emit */
	uint64_t run;                /* index run cursor */
	uint32_t crc;
	bool want_crc;
	const struct hib_container *ct;
	void *sum;                   /* the container's own checksum, or NULL */
	struct hib_progress prog;

	/* best effort: pages out of the chunks the walk kept (salvage.c) */
	bool partial;
	struct hib_sv_cache svc;
	uint64_t sv_jump;            /* next jump of the walk's index */
	uint64_t sv_last;            /* data stream page of the last data page */

	hib_chunk_cb chunk_cb;
	void *chunk_arg;
};

/* readahead.c */
/* The next stream page (1..pages-1), reading and decoding ahead. */
HIB_HIDDEN int hib_rd_stream_page(struct hib_reader *rd, const unsigned char **page);
/* The ring, its buffers and its threads (the handle stays). */
HIB_HIDDEN void hib_rd_ring_free(struct hib_reader *rd);

#endif
