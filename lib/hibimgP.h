/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libhibimg private declarations: format constants and the handle. */
#ifndef _HIBIMGP_H
#define _HIBIMGP_H

#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include "hibimg.h"

#define HIB_HIDDEN __attribute__((visibility("hidden")))

/* kernel/power/swap.c */
#define HIBERNATE_SIG        "S1SUSPEND"
#define UNC_PAGES            32u
/* CMP_PAGES, DIV_ROUND_UP(worst(UNC_SIZE) + CMP_HEADER, PS): 35 for every
 * page size from 4K to 64K and either word size (34.02, 34.004, 34.001
 * pages: the x/16 term scales with PS, the rest is under a page). */
#define CMP_PAGES_MAX        35u
/* bytes_worst_compress(): x + x/16 + 64 + 3 + 2 (6.9+, and lzo1x_worst_compress
 * since 5.1). The pre-5.1 bound is 2 bytes smaller, so this accepts both. */
#define WORST_COMPRESS(x)    ((x) + (x) / 16 + 64 + 3 + 2)

/* kernel/power/snapshot.c */
#define BM_END_OF_MAP        (~(uint64_t)0)

/* arch/x86/power/hibernate.c: RESTORE_MAGIC of struct restore_data_record
 * by era, read by snapshot.c and judged by check-header.c. i386 wrote a
 * record of its own only from 25862a049e6f (2018) on, with 4-byte longs:
 * the magic at 12, the e820 MD5 (u8[16]) or CRC-32 (unsigned long) at 16. */
#define HIB_RESTORE_MAGIC_26      0x0123456789abcdefull /* x86_64, magic @16 */
#define HIB_RESTORE_MAGIC_47      0x123456789abcdef0ull /* x86_64, magic @24 */
#define HIB_RESTORE_MAGIC_MD5     0x23456789abcdef01ull /* x86_64, e820 MD5 @32 */
#define HIB_RESTORE_MAGIC_CRC     0x23456789abcdef02ull /* x86_64, e820 CRC-32 @32 */
#define HIB_RESTORE_MAGIC_32_MD5  0x12345678u           /* i386, e820 MD5 @16 */
#define HIB_RESTORE_MAGIC_32_CRC  0x12345679u           /* i386, e820 CRC-32 @16 */

/*
 * The PFN list (pack_pfns(), unpack_orig_pfns()): stream pages 1..meta_pages,
 * ps / word entries each, an entry an unsigned long of the writer's word
 * size. Since 6.6 its top bit, ENCODED_PFN_ZERO_FLAG, marks a page that was
 * all zero and has no data page. A list that ends inside a page ends with
 * BM_END_OF_MAP cut to that word size. The writer (emit.c) and the reader
 * (reader.c) both go through these.
 */
static inline uint64_t hib_pfn_zero_flag(unsigned int word)
{
	return (uint64_t)1 << (word * 8 - 1);
}

static inline uint64_t hib_pfn_end(unsigned int word)
{
	return BM_END_OF_MAP >> (64 - word * 8);
}

static inline uint64_t hib_pfn_encode(unsigned int word, uint64_t pfn, bool zero)
{
	return zero ? pfn | hib_pfn_zero_flag(word) : pfn;
}

/* false: v is the end marker */
static inline bool hib_pfn_decode(unsigned int word, uint64_t v, uint64_t *pfn,
				  bool *zero)
{
	uint64_t flag = hib_pfn_zero_flag(word);

	if (v == hib_pfn_end(word))
		return false;
	*pfn = v & ~flag;
	*zero = (v & flag) != 0;
	return true;
}

/* nr_meta_pages: DIV_ROUND_UP(entries * sizeof(long), PAGE_SIZE) */
static inline uint64_t hib_pfn_list_pages(uint64_t entries, unsigned int word,
					  unsigned int ps)
{
	return (entries * word + ps - 1) / ps;
}

/* Candidate page sizes, as libblkid probes them. */
#define HIB_MIN_PS           4096u
#define HIB_MAX_PS           65536u

/* How the writer laid out integers. */
struct hib_layout {
	unsigned int ps;        /* page size */
	unsigned int word;      /* sizeof(long), sizeof(size_t) */
	unsigned int sector;    /* sizeof(sector_t) */
	bool be;                /* big-endian writer */
};

/* A run of consecutive PFNs in the PFN list. */
struct pfn_run {
	uint64_t start_pfn;
	uint64_t first_entry;
};

struct hib_image {
	/* hib_image_set_progress(): for the long passes without options */
	hib_progress_fn progress;
	void *progress_arg;
	char *path;
	int fd;
	uint64_t base;              /* the area starts here in fd (find.c: a
				     * partition of a disk image); 0 otherwise */
	unsigned int only_ps;       /* find.c: probe this page size alone */
	uint64_t resume_offset;
	uint64_t devsize;
	uint64_t devpages;          /* devsize / ps */
	char err[768];

	bool opened;
	bool page0_swap;            /* -R on a regular file whose page 0 is a
				     * swap area: the swap file itself, probably */
	const char *compressor;     /* a compressed file, refused by name (probe.c) */
	bool have_fs;               /* no signature, but libblkid sees a file system */
	char fs_type[32], fs_uuid[64];
	const struct hib_container *ct;   /* from the signature (probe.c) */
	bool allow_spent;           /* read what a resume attempt left */
	struct hib_header hdr;
	struct hib_layout lay;

	/* hib_image_load() */
	bool loaded;
	enum hib_content content;   /* the container's verdict, set by load */
	struct hib_info info;
	unsigned char *info_page;   /* stream page 0 */
	uint64_t *map_pages;        /* device page of every map page in the chain */
	uint64_t n_map_pages;
	uint64_t map_page_entries;  /* MAP_PAGE_ENTRIES */
	unsigned char *mapbuf;      /* cache of one map page */
	uint64_t mapbuf_idx;        /* which map page is cached, UINT64_MAX none */

	/* salvage.c: best effort (hib_image_set_partial()), and what its
	 * walk found; the PFN index below then holds what it recovered */
	bool partial;
	struct hib_salvage *salv;

	/* PFN index, built while the meta pages stream by */
	bool pfns_loaded;
	struct hib_pfns pfns;
	struct pfn_run *runs;
	uint64_t n_runs, cap_runs;
	uint8_t *zero_bits;         /* one bit per PFN-list entry */
	uint64_t cap_zero_bits;     /* bytes */

	/* uswsusp.c: the suspend-utils container. map_pages holds the chain
	 * of extents pages, map entries are its data pages in order. */
	bool usw_loaded;
	struct hib_uswsusp usw;
	uint64_t *usw_first;        /* first data page of each extents page */
	uint64_t usw_cache_idx;     /* extents page decoded below, UINT64_MAX none */
	uint64_t usw_cache_n;
	uint64_t *usw_cache_dev;    /* device page of each extent's first page */
	uint64_t *usw_cache_cum;    /* data pages before each extent */

	/* swapfile.c: a swap file read in place (fd is then its device) */
	bool in_place;
	bool copy_suspect;          /* an image whose map fits neither view */
	bool sw_btrfs;              /* not read in place: on btrfs */
	struct hib_swapfile sw;
	char *sw_device;
	int sw_file_fd;             /* the file itself, for the evidence */
	struct hib_sw_extent *sw_ext;   /* by file page */
	struct hib_sw_extent *sw_bydev; /* the same, by device page */
	uint64_t sw_n;
	char sw_why[384];           /* why a regular file was not read in place */
};

/* swapfile.c: a run of file pages on the device */
struct hib_sw_extent {
	uint64_t file_page, dev_page, pages;
};
struct stat;
/* After the header probe of a regular file: maps it and moves the handle
 * onto its device when it is a swap file in place, else records why not
 * (and, for an image whose map fits neither view, copy_suspect). */
HIB_HIDDEN int hib_swapfile_attach(struct hib_image *img, const struct stat *st);
HIB_HIDDEN void hib_swapfile_release(struct hib_image *img);
/* Whether page 0 of the file ends in a signature: -R given on what is
 * probably the swap file itself. */
HIB_HIDDEN bool hib_swapfile_page0(struct hib_image *img);
/* The refusal of an image that looks like a copy of a swap file's bytes. */
HIB_HIDDEN int hib_swapfile_copy_error(struct hib_image *img);

/* area.c */
/* now and then in a long pass: every 256 pages is plenty */
static inline void hib_tick(struct hib_image *img, const char *phase,
			    uint64_t done, uint64_t total)
{
	if (img->progress && ((done & 0xff) == 0 || done == total))
		img->progress(phase, done, total, img->progress_arg);
}
HIB_HIDDEN int hib_seterr(struct hib_image *img, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
HIB_HIDDEN int hib_pread(struct hib_image *img, void *buf, size_t len,
			 uint64_t off, const char *what);
HIB_HIDDEN uint64_t hib_get_word(const struct hib_layout *lay,
				 const unsigned char *p, unsigned int size);

/* abi.c: a struct the caller allocates (HIB_INIT sets its size). Each is
 * taken from the end of its first released layout, HIB_V1_<name>, which
 * never changes, up to the library's sizeof: hib_abi_in() copies options
 * into a zeroed full struct, hib_abi_size() checks a result's size before
 * the library fills a full one, hib_abi_out() copies back what fits. A
 * field appended starts at or after the old sizeof (an explicit pad
 * member fills any tail padding first): an older caller's padding bytes,
 * which it never set, must not become a field. */
HIB_HIDDEN int hib_abi_size(struct hib_image *img, const char *name,
			    const void *caller, size_t min, size_t full);
HIB_HIDDEN int hib_abi_in(struct hib_image *img, const char *name, void *full,
			  size_t full_size, size_t min, const void *caller);
HIB_HIDDEN void hib_abi_out(void *caller, const void *full);
#define HIB_ABI_IN(img, T, full, caller) \
	hib_abi_in(img, #T, full, sizeof(struct T), HIB_V1_##T, caller)
#define HIB_ABI_SIZE(img, T, caller) \
	hib_abi_size(img, #T, caller, HIB_V1_##T, sizeof(struct T))

#define HIB_V1_END(T, last) (offsetof(struct T, last) + sizeof(((struct T *)0)->last))
#define HIB_V1_hib_identity           HIB_V1_END(hib_identity, have_swapper_pg_dir)
#define HIB_V1_hib_page               HIB_V1_END(hib_page, data)
#define HIB_V1_hib_progress           HIB_V1_END(hib_progress, md5_ok)
#define HIB_V1_hib_recompress_opts    HIB_V1_END(hib_recompress_opts, overwrite_swapped_out)
#define HIB_V1_hib_recompress_result  HIB_V1_END(hib_recompress_result, slots_extra_data)
#define HIB_V1_hib_build_opts         HIB_V1_END(hib_build_opts, output_flags)
#define HIB_V1_hib_export_opts        HIB_V1_END(hib_export_opts, output_flags)
#define HIB_V1_hib_export_result      HIB_V1_END(hib_export_result, kernel_map_loads)
#define HIB_V1_hib_slot_usage         HIB_V1_END(hib_slot_usage, first_foreign)
#define HIB_V1_hib_map_page          HIB_V1_END(hib_map_page, extents)
#define HIB_V1_hib_checksum          HIB_V1_END(hib_checksum, none_why)
#define HIB_V1_hib_stats_opts         HIB_V1_END(hib_stats_opts, threads)
#define HIB_V1_hib_sim_opts           HIB_V1_END(hib_sim_opts, zstd_level)
#define HIB_V1_hib_damage             HIB_V1_END(hib_damage, what)
#define HIB_V1_hib_damage_summary     HIB_V1_END(hib_damage_summary, partial)
#define HIB_V1_hib_check_opts         HIB_V1_END(hib_check_opts, threads)
#define HIB_V1_hib_log_line           HIB_V1_END(hib_log_line, quantity)
#define HIB_V1_hib_kernel_id          HIB_V1_END(hib_kernel_id, cmdline_why)
#define HIB_V1_hib_log_numbers        HIB_V1_END(hib_log_numbers, have_compressed_kbytes)

/* header.c */
HIB_HIDDEN int hib_header_probe(struct hib_image *img);
/* probe.c: HIB_ERR_UNSUPPORTED, naming the compressor, when the input is a
 * compressed file; HIB_OK otherwise. */
HIB_HIDDEN int hib_probe_compressed(struct hib_image *img);
/* probe.c: an input with no signature: the file system libblkid sees in
 * it, kept on the handle for the refusal and hib_image_fs_type(). */
HIB_HIDDEN void hib_probe_filesystem(struct hib_image *img);

/* fsprobe.c: what libblkid sees in bytes off..off+size of fd. Strings
 * are "" where it says nothing. */
struct hib_fs {
	char type[32];              /* "ext4", "swap", "swsuspend", ... */
	char uuid[64];
	char label[64];
};
HIB_HIDDEN bool hib_fs_probe(int fd, uint64_t off, uint64_t size, struct hib_fs *fs);
/* The partitions of a disk (image) of size bytes, in bytes; none when it
 * has no partition table. *v is freed with free(). */
struct hib_part {
	uint64_t start, size;
	int partno;
	bool container;             /* an extended partition: holds others */
};
HIB_HIDDEN int hib_fs_partitions(int fd, uint64_t size, struct hib_part **v, size_t *n);

/* image.c: img (fresh) reads bytes base..base+size of from's input as its
 * own area, its resume page at img->resume_offset in pages of
 * img->only_ps, a spent area allowed: what find.c opens at each find. */
HIB_HIDDEN int hib_image_open_area(struct hib_image *img, const struct hib_image *from,
				   uint64_t base, uint64_t size);

/* area.c: why device page v cannot belong to the image, or NULL. */
HIB_HIDDEN const char *hib_bad_page(const struct hib_image *img, uint64_t v);
HIB_HIDDEN int hib_map_read_page(struct hib_image *img, uint64_t idx);
/* pages.c: the raw device page dev (a map entry), whatever the slots are */
HIB_HIDDEN int hib_read_devpage(struct hib_image *img, uint64_t dev, void *buf);

/* codec.c */
HIB_HIDDEN int hib_decompress(enum hib_compression c, const unsigned char *src,
			      size_t src_len, unsigned char *dst, size_t dst_cap,
			      size_t *dst_len);

struct hib_codec {
	void *lzo1, *lzo999, *lz4, *lz4hc;   /* per-thread work memory */
	void *zc, *zd;                       /* zstd contexts, made on first use */
};
HIB_HIDDEN int hib_codec_init(struct hib_codec *cx);
HIB_HIDDEN void hib_codec_free(struct hib_codec *cx);
HIB_HIDDEN int hib_compress(struct hib_codec *cx, enum hib_compression c, int level,
			    const unsigned char *src, size_t len, unsigned char *dst,
			    size_t cap, size_t *out_len);
/* The simulator's what-if codecs: the kernel's LZO1X-1 and LZ4 as the
 * kernel writes them, and zstd at a level, which no kernel writes. One
 * pair for stats, simulate's sizing and its rate batch, so they size and
 * time the same code. */
enum hib_wcodec { HIB_WC_LZO = 0, HIB_WC_LZ4, HIB_WC_ZSTD };
HIB_HIDDEN int hib_wcodec_compress(struct hib_codec *cx, enum hib_wcodec c, int zstd_level,
				   const unsigned char *src, size_t len, unsigned char *dst,
				   size_t cap, size_t *out_len);
HIB_HIDDEN int hib_wcodec_decompress(struct hib_codec *cx, enum hib_wcodec c,
				     const unsigned char *src, size_t len, unsigned char *dst,
				     size_t cap, size_t *out_len);

/* evidence.c: the block devices and files that are the same evidence as
 * an input (see there). */
#define HIB_EVIDENCE_MAX 64
struct hib_evidence {
	dev_t devs[HIB_EVIDENCE_MAX];
	unsigned int ndevs;
	struct { dev_t dev; ino_t ino; } inodes[HIB_EVIDENCE_MAX];
	unsigned int ninodes;
};
HIB_HIDDEN void hib_evidence_of(struct hib_evidence *ev, const struct stat *st);
/* d and every device that lives on it (partitions, holders, loops) */
HIB_HIDDEN void hib_evidence_down(struct hib_evidence *ev, dev_t d);
HIB_HIDDEN bool hib_evidence_has_dev(const struct hib_evidence *ev, dev_t d);
HIB_HIDDEN bool hib_evidence_has_inode(const struct hib_evidence *ev, dev_t dev, ino_t ino);
/* The input's whole evidence: its own (device or file), and for a swap
 * file read in place the file too. */
HIB_HIDDEN void hib_image_evidence(const struct hib_image *img, struct hib_evidence *ev,
				   const struct stat *in);

/* area.c: a whole page (8-byte aligned, ps a multiple of 8) of zeros */
HIB_HIDDEN bool hib_page_zero(const unsigned char *p, unsigned int ps);

/* banner.c: "REL (by@host) [(compiler) ]VERSION" split after "Linux
 * version " (groups: 2 in linux_banner, 1 in a bzImage's kernel_version);
 * and whether VERSION is a built one, not the weak banner's "# SMP ". */
HIB_HIDDEN bool hib_banner_split(const char *s, char rel[65], char ver[65], int groups);
HIB_HIDDEN bool hib_banner_built(const char *ver);

/* vmcoreinfo.c: the VMCOREINFO page and its "KEY=value" lines. key
 * includes the '='; _ld parses a "%ld" value, _lx a "%lx" one. */
/* export-vaddr.c: run_va[r] (n_runs, zeroed by the caller) the linear-map
 * address of run r where the kernel's tables map it there; with kimg_max,
 * *kimg_end the end of the kernel image mapped at PA + kimg_voff from
 * kimg_pa on. Best effort: what cannot be found stays 0. */
HIB_HIDDEN void hib_export_vaddrs(struct hib_kmem *km, uint64_t *run_va,
				  uint64_t kimg_pa, uint64_t kimg_voff,
				  uint64_t kimg_max, uint64_t *kimg_end);
HIB_HIDDEN bool hib_vmci_page(const unsigned char *pg, size_t len);
HIB_HIDDEN const char *hib_vmci_value(const unsigned char *text, size_t len,
				      const char *key, char *buf, size_t cap);
HIB_HIDDEN bool hib_vmci_ld(const unsigned char *text, size_t len, const char *key,
			    int64_t *v);
HIB_HIDDEN bool hib_vmci_lx(const unsigned char *text, size_t len, const char *key,
			    uint64_t *v);
/* A caller's text (hib_export_opts.vmcoreinfo) checked for the kernel's
 * shape; *used: its length without trailing NULs. what names it. */
#define HIB_VMCI_MAX (1u << 20)
HIB_HIDDEN int hib_vmci_check(struct hib_image *img, const char *what, const char *t,
			      size_t len, size_t *used);

/* kdump.c: hib_export()'s kdump-compressed format, into an open output;
 * note/note_len: the caller's checked VMCOREINFO, or NULL. */
HIB_HIDDEN int hib_export_kdump(struct hib_image *img, struct hib_output *out,
				const struct hib_export_opts *o,
				const unsigned char *note, size_t note_len,
				struct hib_export_result *res);

/* kdump-codec.c: one page compressed for a kdump export, as makedumpfile
 * does it (zlib level 1, LZO1X-1, zstd level 1). */
struct hib_kcodec {
	enum hib_kdump_codec codec;
	void *state;                /* libdeflate compressor, LZO work memory, ZSTD_CCtx */
};
HIB_HIDDEN int hib_kcodec_init(struct hib_kcodec *k, enum hib_kdump_codec c);
HIB_HIDDEN void hib_kcodec_free(struct hib_kcodec *k);
/* Room a compressed page may need. */
HIB_HIDDEN size_t hib_kcodec_bound(enum hib_kdump_codec c, size_t ps);
/* The compressed length when smaller than ps, else 0 (stored raw). */
HIB_HIDDEN size_t hib_kcodec_page(struct hib_kcodec *k, const unsigned char *src,
				  size_t ps, unsigned char *dst, size_t cap);
/* page_desc.flags and disk_dump_header.status: DUMP_DH_COMPRESSED_* */
HIB_HIDDEN unsigned int hib_kcodec_flag(enum hib_kdump_codec c);

/*
 * The rings of chunk buffers (the reader's read-ahead, the writer's
 * compress jobs): a slot holds one chunk, UNC_PAGES pages decoded and
 * CMP_PAGES_MAX compressed, 268 KiB at 4 KiB pages but 4.2 MiB at 64 KiB
 * (a 64K-page chunk is 2 MiB uncompressed). Two slots a worker and two
 * more keep every worker busy; past HIB_RING_BYTES the workers are cut,
 * so a ring's memory follows neither the page size nor the CPU count
 * (the budget, not the CPUs, sets the workers at 64 KiB pages: 2).
 */
#define HIB_RING_BYTES       (32u << 20)

static inline unsigned int hib_ring_workers(unsigned int threads, unsigned int ps)
{
	uint64_t slot = (uint64_t)(UNC_PAGES + CMP_PAGES_MAX) * ps;
	uint64_t fit = HIB_RING_BYTES / slot;
	unsigned int workers = threads > 1 ? threads : 0;

	if (workers && 2 * (uint64_t)workers + 2 > fit)
		workers = fit >= 4 ? (unsigned int)((fit - 2) / 2) : 0;
	return workers;
}

static inline unsigned int hib_ring_slots(unsigned int workers)
{
	return workers ? 2 * workers + 2 : 1;
}

/* pool.c */
struct hib_pool;
typedef void (*hib_pool_fn)(void *slot, unsigned int worker, void *arg);
HIB_HIDDEN struct hib_pool *hib_pool_new(unsigned int nthreads, unsigned int nslots,
					 void **slots, hib_pool_fn fn, void *arg);
HIB_HIDDEN void hib_pool_free(struct hib_pool *p);
HIB_HIDDEN unsigned int hib_pool_acquire(struct hib_pool *p);
HIB_HIDDEN void hib_pool_submit(struct hib_pool *p, unsigned int i, int ready);
HIB_HIDDEN unsigned int hib_pool_wait(struct hib_pool *p);
HIB_HIDDEN void hib_pool_release(struct hib_pool *p);
HIB_HIDDEN unsigned int hib_pool_pending(const struct hib_pool *p);
HIB_HIDDEN unsigned int hib_pool_capacity(const struct hib_pool *p);
HIB_HIDDEN unsigned int hib_online_cpus(void);

/* snapshot.c */
/* Decodes img->info_page (word size, arch record, counts); where names the
 * page in messages. */
HIB_HIDDEN int hib_info_decode(struct hib_image *img, const char *where);
HIB_HIDDEN int hib_pfn_index_reset(struct hib_image *img, uint64_t meta_pages);
HIB_HIDDEN int hib_pfn_index_add(struct hib_image *img, uint64_t entry,
				 uint64_t pfn, bool zero);
HIB_HIDDEN bool hib_pfn_is_zero(const struct hib_image *img, uint64_t entry);
/* PFN-list runs: entries in run r; the entry holding pfn, by binary search. */
HIB_HIDDEN uint64_t hib_pfn_run_len(const struct hib_image *img, uint64_t r);
HIB_HIDDEN bool hib_pfn_find(const struct hib_image *img, uint64_t pfn, uint64_t *entry);

/* salvage.c: the best-effort walk (hib_image_load_pfns() of a partial
 * image runs it), and what it keeps on the image */
HIB_HIDDEN int hib_salvage_walk(struct hib_image *img);
HIB_HIDDEN void hib_salvage_free(struct hib_image *img);

/* reader.c: a struct hib_page inside lib/ is always the library's own, so
 * lib/ reads pages without the caller's size check that the public
 * hib_reader_next() makes. */
HIB_HIDDEN int hib_reader_next_page(struct hib_reader *rd, struct hib_page *pg);

/* Where the stream reader stopped, for a container's own final checks. */
struct hib_stream_end {
	struct hib_chunk chunk;     /* the last chunk held */
	bool held;
	uint64_t chunk_pages;       /* pages it decoded to */
	uint64_t left_pages;        /* of them past the end of the stream */
	uint64_t entries_used;      /* map entries (data pages) read */
};

/* A container around the kernel's stream (probe.c picks one; the stream
 * reader asks it for slots and knows none by name). */
struct hib_container {
	const char *name;
	const char *map_page_name;  /* what its chain pages are called in messages */
	unsigned int flags;         /* HIB_CT_*: what it does its own way */
	int (*load)(struct hib_image *img);     /* chain, swsusp_info: loaded */
	int (*map_entry)(struct hib_image *img, uint64_t i, uint64_t *devpage);
	/* fills all of *mp but .size, for chain page i < n_map_pages */
	int (*map_page)(struct hib_image *img, uint64_t i, struct hib_map_page *mp);
	/* marks the slots below nbits it owns besides the map pages and map
	 * entries (its own header pages), returns how many were not marked
	 * yet; NULL: none */
	uint64_t (*own_slots)(const struct hib_image *img, uint8_t *bits, uint64_t nbits);
	void (*release)(struct hib_image *img); /* what load allocated of its own */
	/* fills kind, the stored value or none_why (c is zeroed, full size);
	 * false: not known yet (its header not read) */
	bool (*checksum)(const struct hib_image *img, struct hib_checksum *c);
	/* its fields at the end of the resume page; NULL: the kernel's */
	void (*decode_tail)(struct hib_image *img, const unsigned char *pg);
	bool kernel_chunks;         /* 32-page chunks from stream page 1 */
	/* for the stream reader (reader.c) */
	bool kernel_reader;         /* the kernel loads it: its CRC, its words */
	uint64_t first_entry;       /* entry of stream page 1; 0: data starts
				     * with stream page 0 (swsusp_info) */
	const char *entry_name;     /* what an entry is called in messages */
	size_t sum_size;            /* a checksum of its own: state size, 0 none */
	bool (*sum_begin)(struct hib_image *img, void *sum);  /* false: none here */
	void (*sum_update)(void *sum, const void *buf, size_t len);
	/* its own end-of-stream checks instead of the kernel's CRC */
	int (*finish)(struct hib_image *img, const struct hib_stream_end *end,
		      void *sum, struct hib_progress *prog);
};
HIB_HIDDEN extern const struct hib_container hib_swsusp;   /* map.c */
HIB_HIDDEN extern const struct hib_container hib_uswsusp;  /* uswsusp.c */
/* probe.c: the signature at sig (the resume page's last 10 bytes) */
HIB_HIDDEN const struct hib_container *hib_probe_signature(const unsigned char *sig,
							   enum hib_kind *kind, bool *swap);

/* pages.c: marks every slot below nbits the image owns but the resume page
 * (its container's own pages, map pages, map entries), *n: how many were
 * not marked yet. What the slot count and the rewriter both call the
 * image's slots. */
HIB_HIDDEN int hib_owned_slots(struct hib_image *img, uint8_t *bits, uint64_t nbits,
			       uint64_t *n);

/* Bitmaps of pages and entries (slots of an image, zero-flagged entries,
 * pages seen): one bit each, LSB first. */
static inline bool bit(const uint8_t *b, uint64_t n)
{
	return b[n >> 3] & (1u << (n & 7));
}

static inline void set_bit(uint8_t *b, uint64_t n)
{
	b[n >> 3] |= (uint8_t)(1u << (n & 7));
}

/* Sets bit n, returns whether it was set: the used-page bitmaps that catch
 * loops and pages named twice. */
static inline bool bit_test_set(uint8_t *bits, uint64_t n)
{
	uint8_t m = (uint8_t)(1u << (n & 7));
	bool was = bits[n >> 3] & m;

	bits[n >> 3] |= m;
	return was;
}

/* The last i in [0, n), n >= 1, whose key is <= key, for keys that ascend
 * with i (equal ones allowed) and a first one <= key: the run of the PFN
 * list holding an entry or a PFN, the extents page holding a data page.
 * Each key is a uint64_t stride bytes after the one before: a plain array,
 * or one field of an array of structs. */
static inline uint64_t hib_last_le(const void *first, size_t stride, uint64_t n,
				   uint64_t key)
{
	const unsigned char *b = first;
	uint64_t lo = 0, hi = n;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (*(const uint64_t *)(const void *)(b + mid * stride) <= key)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static inline uint64_t div_round_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Slots an image of `pages` written pages (swsusp_info and the stream, raw
 * or chunk pages) takes with its swap-map pages, as swap_write_page()
 * allocates them: the first map page from get_swap_writer(), another each
 * time one fills (epm = MAP_PAGE_ENTRIES entries), also right after the
 * last entry, so a multiple of epm costs one map page more than rounding
 * up would say. The resume page is not counted. */
static inline uint64_t hib_swap_slots(uint64_t pages, uint64_t epm)
{
	return pages + pages / epm + 1;
}

/* A swap file in place (swapfile.c): swap slot (file page) <-> device
 * page through its extents, false outside them. */
static inline bool hib_sw_slot_dev(const struct hib_image *img, uint64_t slot, uint64_t *dev)
{
	const struct hib_sw_extent *e;
	uint64_t i;

	if (!img->sw_ext || slot >= img->sw.file_pages)
		return false;
	i = hib_last_le(&img->sw_ext[0].file_page, sizeof(*e), img->sw_n, slot);
	e = &img->sw_ext[i];
	if (slot < e->file_page || slot - e->file_page >= e->pages)
		return false;
	*dev = e->dev_page + (slot - e->file_page);
	return true;
}

static inline bool hib_sw_dev_slot(const struct hib_image *img, uint64_t dev, uint64_t *slot)
{
	const struct hib_sw_extent *e;
	uint64_t i;

	if (!img->sw_bydev || dev < img->sw_bydev[0].dev_page)
		return false;
	i = hib_last_le(&img->sw_bydev[0].dev_page, sizeof(*e), img->sw_n, dev);
	e = &img->sw_bydev[i];
	if (dev - e->dev_page >= e->pages)
		return false;
	*slot = e->file_page + (dev - e->dev_page);
	return true;
}

#endif /* _HIBIMGP_H */
