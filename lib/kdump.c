/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kdump.c - the saved memory in makedumpfile's kdump-compressed format
 * (diskdump_mod.h; read by crash's diskdump.c and libkdumpfile's), which
 * stores each page compressed on its own and leaves pages out by bitmap,
 * as hibernation images already do:
 *
 *   block 0            disk_dump_header ("KDUMP   ", header_version 6)
 *   block 1..          kdump_sub_header, then an ELF note "VMCOREINFO"
 *                      (offset_note; offset_vmcoreinfo points at its text)
 *   bitmap_blocks      1st bitmap: the PFNs the image lists (saved, zero
 *                      or not); 2nd bitmap: the pages that have data here
 *   page_desc[]        one per bit of the 2nd bitmap, in PFN order
 *   page data          from the next block on, compressed or raw
 *
 * Saved pages of zeros (zero-flagged, or data that is all zeros) are,
 * by default (HIB_KDUMP_ZERO_STORE), dumped as makedumpfile -d 1 dumps
 * them: every one a page_desc of the one page of zeros written ahead of
 * the data (its pd_zero; makedumpfile 1.7.8's -c -d 1 file of a hibimg
 * ELF export has every saved PFN in its 2nd bitmap), 24 bytes a page,
 * and every reader reads them as they are. HIB_KDUMP_ZERO_OMIT leaves
 * them in the 1st bitmap only: crash and libkdumpfile call them excluded
 * (crash stops at the first unless run with --zero_excluded;
 * libkdumpfile's file.zero_excluded reads them as zeros). PFNs the
 * image does not list are in neither bitmap: not RAM the image knows.
 *
 * One pass of the stream, memory bounded by buffers, not by RAM: the
 * bitmaps go out through a window as the PFNs ascend (at 1 TiB of 4 KiB
 * pages each bitmap is 32 MiB, never held whole); page_descs and page
 * data are written in PFN order at offsets known when their page goes by
 * (room for a page_desc per page with data is set aside, so the data
 * starts where it does before the zero pages are counted). The headers
 * and the note go last, once the VMCOREINFO page has streamed by.
 */
#include "kmemP.h"

#include <stdlib.h>
#include <string.h>

#define KDUMP_SIGNATURE       "KDUMP   "
#define KDUMP_HEADER_VERSION  6     /* start_pfn_64, end_pfn_64, max_mapnr_64 */
#define KDUMP_DUMP_LEVEL      1     /* DL_EXCLUDE_ZERO */
#define NEW_UTS_LEN           65    /* each string of struct new_utsname */
#define PAGE_DESC             24u   /* off_t offset, u32 size, u32 flags, u64 page_flags */
/* ELF note: Elf_Nhdr (3 words) and "VMCOREINFO\0" padded to 4 */
#define NOTE_HDR              24u

/* Pending output: contiguous bytes gathered so one pwrite covers many. */
#define SINK_BYTES            (1u << 20)
#define BITS_BYTES            (64u << 10)
/* Pages a compress job holds: 256 KiB whatever the page size. */
#define JOB_BYTES             (256u << 10)

/*
 * disk_dump_header and kdump_sub_header as their writer's compiler laid
 * them out (libkdumpfile's disk_dump_header_64/_32, kdump_sub_header_64/
 * _32pack): 8-byte writers align the 16-byte timeval to 8, i386 packs an
 * 8-byte one at 4; i386's sub header has 4-byte longs and its 64-bit
 * fields 4-aligned.
 */
struct klayout {
	unsigned int word;
	unsigned int timestamp;     /* offset of struct timeval */
	unsigned int status;        /* offset of status; nine 4-byte fields follow */
	unsigned int sub_size;      /* sizeof(struct kdump_sub_header) */
	/* kdump_sub_header offsets */
	unsigned int phys_base, dump_level, off_vmci, size_vmci, off_note, size_note,
		     max_mapnr_64;
};

static const struct klayout lay64 = {
	8, 408, 424, 104, 0, 8, 32, 40, 48, 56, 96
};
static const struct klayout lay32 = {
	4, 404, 412, 80, 0, 4, 20, 28, 32, 40, 72
};

struct sink {
	unsigned char *buf;
	size_t len, cap;
	uint64_t off;
};

/* A window of a bitmap: byte i of it is the bitmap's byte start + i. */
struct bits {
	uint64_t file_off;          /* the bitmap's first byte in the file */
	uint64_t start;
	size_t hi;                  /* bytes of the window touched */
	unsigned char *buf;
};

struct kjob {
	unsigned int n;
	uint64_t *pfn;
	uint32_t *len;              /* compressed length, 0: raw */
	uint8_t *zero;              /* STORE: a page of zeros, nothing to compress */
	unsigned char *in, *out;
};

struct kx {
	struct hib_image *img;
	const struct hib_export_opts *o;
	struct hib_export_result *res;
	struct hib_output *out;
	const struct klayout *L;
	unsigned int ps, jp;
	bool be;
	enum hib_kdump_codec codec;
	bool store_zero;            /* HIB_KDUMP_ZERO_STORE */
	uint64_t zero_off;          /* STORE: the shared page of zeros */
	size_t cap;                 /* room per compressed page */
	uint64_t sub_blocks, bm_bytes, desc_off, data_cur;
	struct bits bm1, bm2;
	struct sink desc, data;
	struct hib_kcodec *kc;      /* [0] the caller, [i] worker i */
	unsigned int nkc;
	struct kjob *jobs;
	void **slots;
	unsigned int nslots;
	struct hib_pool *pool;
	unsigned char *vmci;        /* copy of the image's page */
	size_t vmci_len;
	const unsigned char *note;  /* the note's text: the caller's or vmci */
	size_t note_len;
	/* NT_PRSTATUS ahead of VMCOREINFO, as the ELF export has it */
	unsigned char prs[HIB_PRSTATUS_MAX];
	size_t prs_len;
};

static void put(unsigned char *p, uint64_t v, unsigned int size, bool be)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[be ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static int sink_flush(struct kx *x, struct sink *s)
{
	int rc = s->len ? hib_output_pwrite(x->out, s->buf, s->len, s->off) : HIB_OK;

	s->len = 0;
	return rc;
}

static int sink_put(struct kx *x, struct sink *s, uint64_t off, const void *p, size_t n)
{
	int rc;

	if (s->len && (off != s->off + s->len || s->len + n > s->cap)) {
		rc = sink_flush(x, s);
		if (rc)
			return rc;
	}
	if (!s->len)
		s->off = off;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return HIB_OK;
}

static int bits_flush(struct kx *x, struct bits *b)
{
	int rc = b->hi ? hib_output_pwrite(x->out, b->buf, b->hi, b->file_off + b->start) : HIB_OK;

	b->hi = 0;
	return rc;
}

/* PFNs come in ascending order: a window passed is never touched again,
 * and bytes no window touched stay holes, which read as zeros. Bit pfn % 8
 * of byte pfn / 8, as crash's page_is_dumpable() reads it. */
static int bits_set(struct kx *x, struct bits *b, uint64_t pfn)
{
	uint64_t byte = pfn >> 3;
	int rc;

	if (!b->hi || byte < b->start || byte >= b->start + BITS_BYTES) {
		rc = bits_flush(x, b);
		if (rc)
			return rc;
		b->start = byte - byte % BITS_BYTES;
		memset(b->buf, 0, BITS_BYTES);
	}
	b->buf[byte - b->start] |= (unsigned char)(1u << (pfn & 7));
	if (byte - b->start + 1 > b->hi)
		b->hi = (size_t)(byte - b->start + 1);
	return HIB_OK;
}

static void compress_job(void *slot, unsigned int worker, void *arg)
{
	struct kjob *j = slot;
	struct kx *x = arg;
	unsigned int i;

	for (i = 0; i < j->n; i++)
		j->len[i] = j->zero[i] ? 0 : (uint32_t)hib_kcodec_page(&x->kc[worker], j->in + (size_t)i * x->ps,
						      x->ps, j->out + (size_t)i * x->cap, x->cap);
}

/* A finished job into the file: its bits, page_descs and data, in order. */
static int drain(struct kx *x, struct kjob *j)
{
	unsigned int i;
	int rc = HIB_OK;

	for (i = 0; rc == HIB_OK && i < j->n; i++) {
		unsigned char d[PAGE_DESC];
		uint32_t size = j->len[i] ? j->len[i] : x->ps;
		const unsigned char *p = j->len[i] ? j->out + (size_t)i * x->cap :
					 j->in + (size_t)i * x->ps;

		memset(d, 0, sizeof(d));
		/* STORE: every page of zeros points at the one written first,
		 * as makedumpfile's pd_zero at dump level 1 */
		put(d, j->zero[i] ? x->zero_off : x->data_cur, 8, x->be);
		put(d + 8, size, 4, x->be);
		put(d + 12, j->len[i] ? hib_kcodec_flag(x->codec) : 0, 4, x->be);
		rc = bits_set(x, &x->bm2, j->pfn[i]);
		if (rc == HIB_OK)
			rc = sink_put(x, &x->desc, x->desc_off + x->res->dumped_pages * PAGE_DESC,
				      d, sizeof(d));
		x->res->dumped_pages++;
		if (j->zero[i])
			continue;
		if (rc == HIB_OK)
			rc = sink_put(x, &x->data, x->data_cur, p, size);
		x->data_cur += size;
		x->res->data_bytes += size;
		x->res->compressed_pages += j->len[i] != 0;
	}
	j->n = 0;
	return rc;
}

static int drain_head(struct kx *x)
{
	unsigned int i = hib_pool_wait(x->pool);
	int rc;

	if (i == UINT32_MAX)
		return HIB_OK;
	rc = drain(x, x->jobs + i);
	hib_pool_release(x->pool);
	return rc;
}

/* The job to add a page to: a free slot, after draining the oldest if
 * the ring is full. */
static int job_for(struct kx *x, unsigned int *slot)
{
	unsigned int i;
	int rc;

	while ((i = hib_pool_acquire(x->pool)) == UINT32_MAX) {
		rc = drain_head(x);
		if (rc)
			return rc;
	}
	x->jobs[i].n = 0;
	*slot = i;
	return HIB_OK;
}

static int stream(struct kx *x)
{
	struct hib_image *img = x->img;
	struct hib_reader *rd;
	struct hib_page pg;
	uint64_t total = img->pfns.entries, step = total / 100 + 1;
	unsigned int cur = UINT32_MAX;
	int rc, rc2;

	rc = hib_reader_new(img, &rd);
	if (rc)
		return rc;
	(void)hib_reader_set_threads(rd, x->o->threads);
	while ((rc = hib_reader_next_page(rd, &pg)) == 1) {
		struct kjob *j;
		bool zero;

		rc = bits_set(x, &x->bm1, pg.pfn);
		if (rc)
			break;
		x->res->pages++;
		if (x->o->progress && (x->res->pages % step == 0 || x->res->pages == total))
			x->o->progress(x->res->pages, total, x->o->progress_arg);
		if (!pg.data)
			x->res->zero_pages++;
		else
			x->res->data_pages++;
		/* the page identity.c and export.c take */
		if (pg.data && !x->res->vmcoreinfo_page && hib_vmci_page(pg.data, x->ps)) {
			memcpy(x->vmci, pg.data, x->ps);
			x->vmci_len = strnlen((char *)x->vmci, x->ps);
			x->res->vmcoreinfo_page = 1;
			x->res->vmcoreinfo_pfn = pg.pfn;
		}
		zero = !pg.data || hib_page_zero(pg.data, x->ps);
		if (zero && !x->store_zero) {
			x->res->excluded_zero++;
			continue;
		}
		x->res->stored_zero += zero;
		if (cur == UINT32_MAX) {
			rc = job_for(x, &cur);
			if (rc)
				break;
		}
		j = x->jobs + cur;
		j->pfn[j->n] = pg.pfn;
		j->zero[j->n] = zero;
		if (!zero)
			memcpy(j->in + (size_t)j->n * x->ps, pg.data, x->ps);
		if (++j->n == x->jp) {
			hib_pool_submit(x->pool, cur, 1);
			cur = UINT32_MAX;
		}
	}
	hib_reader_free(rd);
	if (cur != UINT32_MAX)
		hib_pool_submit(x->pool, cur, rc >= 0);
	/* what is in flight is drained even after an error: the workers
	 * hold the slots until then */
	while (hib_pool_pending(x->pool)) {
		rc2 = drain_head(x);
		if (rc >= 0 && rc2)
			rc = rc2;
	}
	return rc < 0 ? rc : HIB_OK;
}

static const char *uts_machine(const struct hib_info *in, unsigned int e_machine, bool be)
{
	switch (e_machine) {
	case 62:  return "x86_64";      /* EM_X86_64 */
	case 3:   return "i686";        /* EM_386: crash takes "i686" for X86 */
	case 183: return "aarch64";     /* EM_AARCH64 */
	case 243: return "riscv64";     /* EM_RISCV */
	case 21:  return be ? "ppc64" : "ppc64le";
	case 22:  return "s390x";
	}
	return in->machine[0] ? in->machine : "unknown";
}

static void uts_put(unsigned char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n < NEW_UTS_LEN - 1 ? n : NEW_UTS_LEN - 1);
}

/*
 * struct new_utsname: what crash checks the machine against and what
 * libkdumpfile takes only with a release, a version and a machine. The
 * x86 header holds no utsname (the arch record replaces it), so the
 * release comes from VMCOREINFO or the banner, the version from the
 * banner (a built one, not the weak "# SMP ") or arm64/riscv64's record;
 * the nodename is nowhere outside the kernel's own init_uts_ns.
 */
static void utsname(struct kx *x, unsigned char *u)
{
	struct hib_identity id = HIB_INIT(struct hib_identity);
	const struct hib_info *in = &x->img->info;
	char rel[65] = "", ver[65] = "", buf[128];
	const char *r = "(unknown)", *v = "(unknown)";

	if (hib_image_identify(x->img, &id) != HIB_OK) {
		/* the export itself succeeded: its names are only unknown */
		memset(&id, 0, sizeof(id));
		x->img->err[0] = 0;
	}
	if (!id.banner[0] ||
	    !hib_banner_split(id.banner + strlen("Linux version "), rel, ver, 2) ||
	    !hib_banner_built(ver))
		ver[0] = 0;
	if (x->note && hib_vmci_value(x->note, x->note_len, "OSRELEASE=", buf, sizeof(buf)))
		r = buf;
	else if (id.release[0])
		r = id.release;
	else if (in->release[0])
		r = in->release;
	if (ver[0])
		v = ver;
	else if (in->uts_version[0])
		v = in->uts_version;
	else if (in->version[0])
		v = in->version;
	uts_put(u, "Linux");
	uts_put(u + 2 * NEW_UTS_LEN, r);
	uts_put(u + 3 * NEW_UTS_LEN, v);
	uts_put(u + 4 * NEW_UTS_LEN, uts_machine(in, x->res->e_machine, x->be));
}

static int headers(struct kx *x)
{
	const struct klayout *L = x->L;
	unsigned int w = L->word;
	struct hib_image *img = x->img;
	size_t blk = (size_t)x->ps * (1 + x->sub_blocks);
	unsigned char *h = calloc(1, blk);
	uint64_t note_off = x->ps + L->sub_size, max_mapnr = x->res->max_mapnr;
	unsigned char *s = h ? h + x->ps : NULL;
	int64_t phys_base = 0;
	int rc;

	if (!h)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	memcpy(h, KDUMP_SIGNATURE, 8);
	put(h + 8, KDUMP_HEADER_VERSION, 4, x->be);
	utsname(x, h + 12);
	/* the timestamp stays 0: nothing in the image says when it was
	 * written (and libkdumpfile, which tries the 32-bit layout first,
	 * reads a 64-bit header's tv_usec as block_size: 0 fails there) */
	put(h + L->status, hib_kcodec_flag(x->codec), 4, x->be);
	put(h + L->status + 4, x->ps, 4, x->be);                       /* block_size */
	put(h + L->status + 8, x->sub_blocks, 4, x->be);               /* sub_hdr_size */
	put(h + L->status + 12, 2 * x->bm_bytes / x->ps, 4, x->be);    /* bitmap_blocks */
	put(h + L->status + 16, max_mapnr > UINT32_MAX ? UINT32_MAX : max_mapnr, 4, x->be);
	/* total_ram_blocks, device_blocks, written_blocks, current_cpu: 0 */
	put(h + L->status + 36, img->info.cpus > 0 ? (uint64_t)img->info.cpus : 1, 4, x->be);

	/* x86_64's crash translates kernel-text addresses with phys_base;
	 * arm64's takes the linear map's PHYS_OFFSET from the same field,
	 * as makedumpfile writes it (a61: 0xffffbe48c0000000): without it
	 * crash seeks the IRQ stacks at the wrong physical address */
	if (x->note && x->res->e_machine == 62) {
		(void)hib_vmci_ld(x->note, x->note_len, "NUMBER(phys_base)=", &phys_base);
	} else if (x->note && x->res->e_machine == 183) {
		uint64_t po;

		if (hib_vmci_lx(x->note, x->note_len, "NUMBER(PHYS_OFFSET)=", &po))
			phys_base = (int64_t)po;
	}
	put(s + L->phys_base, (uint64_t)phys_base, w, x->be);
	put(s + L->dump_level, KDUMP_DUMP_LEVEL, 4, x->be);
	put(s + L->max_mapnr_64, max_mapnr, 8, x->be);
	if (x->note) {
		/* the notes as makedumpfile copies /proc/vmcore's: the CPU's
		 * NT_PRSTATUS, then VMCOREINFO, which offset_vmcoreinfo names */
		size_t prsz = x->prs_len ? HIB_PRSTATUS_HDR + ((x->prs_len + 3) & ~(size_t)3) : 0;
		unsigned char *n = h + note_off + prsz;

		if (prsz) {
			put(h + note_off, sizeof(HIB_PRSTATUS_NAME), 4, x->be);
			put(h + note_off + 4, x->prs_len, 4, x->be);
			put(h + note_off + 8, HIB_NT_PRSTATUS, 4, x->be);
			memcpy(h + note_off + 12, HIB_PRSTATUS_NAME, sizeof(HIB_PRSTATUS_NAME));
			memcpy(h + note_off + HIB_PRSTATUS_HDR, x->prs, x->prs_len);
		}
		put(s + L->off_vmci, note_off + prsz + NOTE_HDR, 8, x->be);
		put(s + L->size_vmci, x->note_len, w, x->be);
		put(s + L->off_note, note_off, 8, x->be);
		put(s + L->size_note, prsz + NOTE_HDR + ((x->note_len + 3) & ~(size_t)3), w, x->be);
		put(n, 11, 4, x->be);                   /* namesz: "VMCOREINFO\0" */
		put(n + 4, x->note_len, 4, x->be);      /* descsz; n_type 0 */
		memcpy(n + 12, "VMCOREINFO", 10);
		memcpy(n + NOTE_HDR, x->note, x->note_len);
	}
	rc = hib_output_pwrite(x->out, h, blk, 0);
	free(h);
	return rc;
}

/* The hibernating CPU's registers (prstatus.c), through one more checked
 * pass for the kernel's memory, or the reason in the result; the
 * message on the image stays the export's. */
static void prstatus(struct kx *x)
{
	struct hib_image *img = x->img;
	struct hib_kmem *km = NULL;
	char keep[sizeof(img->err)];

	memcpy(keep, img->err, sizeof(keep));
	if (hib_kmem_open(img, &km) != HIB_OK)
		km = NULL;
	x->res->prstatus = hib_prstatus_export(img, km, img->err, x->res->e_machine, x->prs,
					       &x->prs_len, x->res->prstatus_why,
					       sizeof(x->res->prstatus_why));
	hib_kmem_free(km);
	memcpy(img->err, keep, sizeof(keep));
}

static int setup(struct kx *x)
{
	unsigned int workers, i;

	workers = x->o->threads ? x->o->threads : hib_online_cpus();
	if (workers > 64)
		workers = 64;
	if (workers <= 1 || x->codec == HIB_KDUMP_NONE)
		workers = 0;
	x->nkc = workers + 1;
	x->nslots = workers ? 2 * workers + 2 : 1;
	x->jp = JOB_BYTES / x->ps ? JOB_BYTES / x->ps : 1;
	x->cap = hib_kcodec_bound(x->codec, x->ps);
	x->kc = calloc(x->nkc, sizeof(*x->kc));
	x->jobs = calloc(x->nslots, sizeof(*x->jobs));
	x->slots = calloc(x->nslots, sizeof(*x->slots));
	x->desc.buf = malloc(SINK_BYTES);
	x->data.buf = malloc(SINK_BYTES);
	x->bm1.buf = malloc(BITS_BYTES);
	x->bm2.buf = malloc(BITS_BYTES);
	x->vmci = calloc(1, (size_t)x->ps + 1);
	if (!x->kc || !x->jobs || !x->slots || !x->desc.buf || !x->data.buf ||
	    !x->bm1.buf || !x->bm2.buf || !x->vmci)
		return HIB_ERR_NOMEM;
	x->desc.cap = x->data.cap = SINK_BYTES;
	for (i = 0; i < x->nkc; i++) {
		int rc = hib_kcodec_init(&x->kc[i], x->codec);

		if (rc)
			return rc;
	}
	for (i = 0; i < x->nslots; i++) {
		struct kjob *j = x->jobs + i;

		j->pfn = malloc(x->jp * sizeof(*j->pfn));
		j->len = calloc(x->jp, sizeof(*j->len));
		j->zero = calloc(x->jp, sizeof(*j->zero));
		j->in = malloc((size_t)x->jp * x->ps);
		j->out = malloc((size_t)x->jp * x->cap);
		if (!j->pfn || !j->len || !j->zero || !j->in || !j->out)
			return HIB_ERR_NOMEM;
		x->slots[i] = j;
	}
	x->pool = hib_pool_new(workers, x->nslots, x->slots, compress_job, x);
	return x->pool ? HIB_OK : HIB_ERR_NOMEM;
}

static void teardown(struct kx *x)
{
	unsigned int i;

	hib_pool_free(x->pool);
	for (i = 0; x->kc && i < x->nkc; i++)
		hib_kcodec_free(&x->kc[i]);
	for (i = 0; x->jobs && i < x->nslots; i++) {
		free(x->jobs[i].pfn);
		free(x->jobs[i].len);
		free(x->jobs[i].zero);
		free(x->jobs[i].in);
		free(x->jobs[i].out);
	}
	free(x->kc);
	free(x->jobs);
	free(x->slots);
	free(x->desc.buf);
	free(x->data.buf);
	free(x->bm1.buf);
	free(x->bm2.buf);
	free(x->vmci);
}

int hib_export_kdump(struct hib_image *img, struct hib_output *out,
		     const struct hib_export_opts *o, const unsigned char *note,
		     size_t note_len, struct hib_export_result *res)
{
	struct kx x;
	uint64_t room, bm1_off;
	int rc;

	memset(&x, 0, sizeof(x));
	x.img = img;
	x.o = o;
	x.res = res;
	x.out = out;
	x.ps = img->lay.ps;
	x.be = img->hdr.big_endian;
	/* the layout of the writer's own makedumpfile: i386 packs it */
	x.L = img->info.word_size == 4 ? &lay32 : &lay64;
	x.codec = o->kdump_codec == HIB_KDUMP_DEFAULT ? HIB_KDUMP_ZSTD : o->kdump_codec;
	if (!hib_kdump_codec_name(x.codec))
		return hib_seterr(img, HIB_ERR_INVAL, "unknown kdump codec %d", (int)o->kdump_codec);
	if (o->kdump_zero != HIB_KDUMP_ZERO_OMIT && o->kdump_zero != HIB_KDUMP_ZERO_STORE)
		return hib_seterr(img, HIB_ERR_INVAL, "unknown kdump zero-page mode %d",
				  (int)o->kdump_zero);
	res->kdump_codec = x.codec;
	res->kdump_word = x.L->word;
	res->max_mapnr = img->pfns.highest + 1;
	/* a page size the format cannot name: block_size is an int, and
	 * crash and libkdumpfile take 4 KiB to 64 KiB (MAX_PAGE_SIZE) */
	if (x.ps < 4096 || x.ps > 65536)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "kdump: %u-byte pages: the format's readers take 4 KiB to 64 KiB",
				  x.ps);
	x.bm_bytes = div_round_up(div_round_up(res->max_mapnr, 8), x.ps) * x.ps;
	res->bitmap_bytes = x.bm_bytes;
	if (2 * x.bm_bytes / x.ps > UINT32_MAX)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "kdump: PFN %" PRIu64 " needs more bitmap blocks than bitmap_blocks (32 bits) counts",
				  img->pfns.highest);
	/* room for the note: the caller's text, or a whole page's; and on
	 * x86_64 and arm64 for the registers, which only they leave where
	 * they can be found */
	room = note ? note_len : x.ps;
	if (hib_prstatus_size(res->e_machine))
		room += HIB_PRSTATUS_HDR + hib_prstatus_size(res->e_machine);
	x.sub_blocks = div_round_up(x.L->sub_size + NOTE_HDR + ((room + 3) & ~(uint64_t)3), x.ps);
	bm1_off = (1 + x.sub_blocks) * x.ps;
	x.bm1.file_off = bm1_off;
	x.bm2.file_off = bm1_off + x.bm_bytes;
	x.desc_off = bm1_off + 2 * x.bm_bytes;
	/* a page_desc for every page that may have data (for every page
	 * with STORE); the unused tail (pages of zeros) stays a hole no
	 * reader looks at */
	x.store_zero = o->kdump_zero == HIB_KDUMP_ZERO_STORE;
	x.data_cur = div_round_up(x.desc_off + (img->pfns.entries -
				  (x.store_zero ? 0 : img->pfns.zero_flagged)) *
				  (uint64_t)PAGE_DESC, x.ps) * x.ps;
	/* STORE: the shared page of zeros, raw, ahead of the data; written
	 * as a hole like every other run of zeros the file has */
	x.zero_off = x.data_cur;
	if (x.store_zero) {
		x.data_cur += x.ps;
		res->data_bytes += x.ps;
	}

	rc = setup(&x);
	if (rc == HIB_ERR_NOMEM)
		rc = hib_seterr(img, rc, "out of memory");
	else if (rc)
		rc = hib_seterr(img, rc, "kdump: the %s codec is not available",
				hib_kdump_codec_name(x.codec));
	if (rc == HIB_OK)
		rc = stream(&x);
	if (rc == HIB_OK) {
		if (note) {
			x.note = note;
			x.note_len = note_len;
			res->vmcoreinfo_source = HIB_VMCI_CALLER;
		} else if (res->vmcoreinfo_page) {
			x.note = x.vmci;
			x.note_len = x.vmci_len;
			res->vmcoreinfo_source = HIB_VMCI_PAGE;
		}
		res->vmcoreinfo = x.note != NULL;
		res->vmcoreinfo_len = x.note_len;
		if (x.note && hib_prstatus_size(res->e_machine))
			prstatus(&x);
		rc = headers(&x);
	}
	if (rc == HIB_OK)
		rc = bits_flush(&x, &x.bm1);
	if (rc == HIB_OK)
		rc = bits_flush(&x, &x.bm2);
	if (rc == HIB_OK)
		rc = sink_flush(&x, &x.desc);
	if (rc == HIB_OK)
		rc = sink_flush(&x, &x.data);
	if (rc == HIB_OK) {
		res->file_size = x.data_cur;
		rc = hib_output_set_size(out, x.data_cur);
	}
	teardown(&x);
	return rc;
}
