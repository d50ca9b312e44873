/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * printk.c - the hibernated kernel's log, its printk ring buffer
 * (kernel/printk/printk_ringbuffer.[ch], 5.10+), read with the symbol,
 * size and offset lines VMCOREINFO exports for it (log_buf_vmcoreinfo_setup()
 * in kernel/printk/printk.c), as makedumpfile and crash read it.
 *
 * SYMBOL(prb) is the pointer to the ring; the descriptor ring holds
 * 1 << count_bits descriptors and as many printk_info records; ids run
 * from tail_id to head_id. A descriptor's state_var carries the id and the
 * state in its top two bits: only committed (1) and finalized (2) records
 * are whole. Text blocks are "unsigned long id" then the text, at
 * text_blk_lpos in a ring of 1 << size_bits bytes; a block that wraps is
 * stored from the start of the ring. The older log_buf layout (< 5.10) is
 * not read: it is only named in the error. No kernel that old is in the
 * archives this project's scripts can reach, so no reading of it could be
 * judged against a real kernel's console.
 *
 * printk_info's level and facility are not in VMCOREINFO: they are the
 * bytes after u16 text_len (u8 facility; u8 flags:5, level:3), the layout
 * since 5.10; taken only where caller_id follows them as it does there.
 *
 * A salvaged image (hib_image_set_partial()): a record whose descriptor,
 * info or text the damage took (or a page table mapping them) is skipped
 * and counted (hib_printk_skipped()); the ring itself, its prb and the
 * VMCOREINFO page, must be there, or there is no log to read.
 */
#include "kmemP.h"

#include <stdlib.h>
#include <string.h>

struct pk_off {
	int64_t rb_desc_ring, rb_text_ring;
	int64_t dr_count_bits, dr_descs, dr_infos, dr_head, dr_tail;
	int64_t desc_size, desc_sv, desc_lpos;
	int64_t lpos_begin, lpos_next;
	int64_t info_size, info_seq, info_ts, info_len, info_caller;
	int64_t tr_size_bits, tr_data;
	int64_t counter;
};

struct hib_printk {
	struct hib_kmem *km;
	struct pk_off o;
	uint64_t descs, infos, data;
	unsigned int count_bits, size_bits;
	uint64_t id, head, id_mask;
	uint64_t left;              /* ids still to visit */
	uint64_t skipped;           /* records the damage took a page of */
	bool done, have_level;
	unsigned char *text;        /* one record's text, PK_TEXT_MAX bytes */
	struct hib_printk_rec rec;
};

#define PK_SIZE_BITS_MAX 28         /* log_buf_len is at most 1 << 25 (LOG_BUF_LEN_MAX), and a bit */
#define PK_COUNT_BITS_MAX 26
#define PK_TEXT_MAX 65536u          /* printk_info.text_len is a u16 */

static int need(struct hib_kmem *km, const char *key, int64_t *v)
{
	if (hib_vmci_ld(km->vmci, km->ps, key, v) && *v >= 0)
		return HIB_OK;
	return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
			  "no printk ring buffer: VMCOREINFO has no %s line (before 5.10, or not this kernel's)",
			  key);
}

static int read_offsets(struct hib_kmem *km, struct pk_off *o)
{
	static const struct { const char *key; size_t at; } keys[] = {
#define K(k, f) { k "=", offsetof(struct pk_off, f) }
		K("OFFSET(printk_ringbuffer.desc_ring)", rb_desc_ring),
		K("OFFSET(printk_ringbuffer.text_data_ring)", rb_text_ring),
		K("OFFSET(prb_desc_ring.count_bits)", dr_count_bits),
		K("OFFSET(prb_desc_ring.descs)", dr_descs),
		K("OFFSET(prb_desc_ring.infos)", dr_infos),
		K("OFFSET(prb_desc_ring.head_id)", dr_head),
		K("OFFSET(prb_desc_ring.tail_id)", dr_tail),
		K("SIZE(prb_desc)", desc_size),
		K("OFFSET(prb_desc.state_var)", desc_sv),
		K("OFFSET(prb_desc.text_blk_lpos)", desc_lpos),
		K("OFFSET(prb_data_blk_lpos.begin)", lpos_begin),
		K("OFFSET(prb_data_blk_lpos.next)", lpos_next),
		K("SIZE(printk_info)", info_size),
		K("OFFSET(printk_info.seq)", info_seq),
		K("OFFSET(printk_info.ts_nsec)", info_ts),
		K("OFFSET(printk_info.text_len)", info_len),
		K("OFFSET(printk_info.caller_id)", info_caller),
		K("OFFSET(prb_data_ring.size_bits)", tr_size_bits),
		K("OFFSET(prb_data_ring.data)", tr_data),
		K("OFFSET(atomic_long_t.counter)", counter),
#undef K
	};
	size_t i;
	int rc;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		rc = need(km, keys[i].key, (int64_t *)((char *)o + keys[i].at));
		if (rc)
			return rc;
	}
	return HIB_OK;
}

static int read_u32(struct hib_kmem *km, uint64_t va, uint32_t *v)
{
	unsigned char b[4];
	int rc = hib_kmem_read_virt(km, va, b, 4);

	if (rc == HIB_OK)
		*v = (uint32_t)hib_get_word(&km->img->lay, b, 4);
	return rc;
}

static int read_u64(struct hib_kmem *km, uint64_t va, uint64_t *v)
{
	unsigned char b[8];
	int rc = hib_kmem_read_virt(km, va, b, 8);

	if (rc == HIB_OK)
		*v = hib_get_word(&km->img->lay, b, 8);
	return rc;
}

/* The ring's own pages went with the damage: no log, said as such. */
static int ring_lost(struct hib_kmem *km, uint64_t lost, int rc)
{
	char why[sizeof(km->img->err)];

	if (km->lost_reads == lost)
		return rc;
	memcpy(why, km->img->err, sizeof(why));
	return hib_seterr(km->img, rc, "no printk ring buffer: the damage took a page of it: %s", why);
}

int hib_printk_open(struct hib_kmem *km, struct hib_printk **out)
{
	struct hib_image *img = km->img;
	struct hib_printk *pk;
	struct pk_off o;
	uint64_t prb_sym, rb, tail, word = img->lay.word, lost;
	uint32_t cb, sb;
	int rc;

	*out = NULL;
	if (!km->vmci)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED, "no printk ring buffer: %s",
				  hib_kmem_no_vmci(km));
	lost = km->lost_reads;
	if (!hib_vmci_lx(km->vmci, km->ps, "SYMBOL(prb)=", &prb_sym)) {
		uint64_t lb;

		/* < 5.10 exports its log_buf instead; say which layout, as it is
		 * the one thing the user can act on (another tool reads it) */
		if (hib_vmci_lx(km->vmci, km->ps, "SYMBOL(log_buf)=", &lb))
			return hib_seterr(img, HIB_ERR_UNSUPPORTED,
					  "no printk ring buffer: VMCOREINFO has SYMBOL(log_buf), no SYMBOL(prb): this kernel keeps its log in the pre-5.10 log_buf layout, which hibimg does not read");
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "no printk ring buffer: VMCOREINFO has no SYMBOL(prb) line (before 5.10?)");
	}
	rc = read_offsets(km, &o);
	if (rc)
		return rc;
	rc = hib_kmem_read_word(km, prb_sym, &rb);
	if (rc)
		return ring_lost(km, lost, rc);
	pk = calloc(1, sizeof(*pk));
	if (!pk)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	pk->km = km;
	pk->o = o;
	rc = read_u32(km, rb + o.rb_desc_ring + o.dr_count_bits, &cb);
	if (rc == HIB_OK)
		rc = hib_kmem_read_word(km, rb + o.rb_desc_ring + o.dr_descs, &pk->descs);
	if (rc == HIB_OK)
		rc = hib_kmem_read_word(km, rb + o.rb_desc_ring + o.dr_infos, &pk->infos);
	if (rc == HIB_OK)
		rc = hib_kmem_read_word(km, rb + o.rb_desc_ring + o.dr_head + o.counter, &pk->head);
	if (rc == HIB_OK)
		rc = hib_kmem_read_word(km, rb + o.rb_desc_ring + o.dr_tail + o.counter, &tail);
	if (rc == HIB_OK)
		rc = read_u32(km, rb + o.rb_text_ring + o.tr_size_bits, &sb);
	if (rc == HIB_OK)
		rc = hib_kmem_read_word(km, rb + o.rb_text_ring + o.tr_data, &pk->data);
	if (rc) {
		rc = ring_lost(km, lost, rc);
		goto fail;
	}
	if (cb > PK_COUNT_BITS_MAX || sb > PK_SIZE_BITS_MAX || sb < word ||
	    o.info_len + 4 > o.info_size || o.desc_size < 1 || o.info_size < 1) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"printk ring buffer at 0x%" PRIx64 ": %u descriptor bits, %u text bits: no ring the kernel makes",
				rb, cb, sb);
		goto fail;
	}
	pk->count_bits = cb;
	pk->size_bits = sb;
	pk->id_mask = word == 8 ? ~(3ull << 62) : ~(3ull << 30) & 0xffffffffull;
	pk->head &= pk->id_mask;
	pk->id = tail & pk->id_mask;
	pk->left = 1ull << cb;
	pk->have_level = o.info_caller == o.info_len + 4;
	/* a record's text is at most a u16 text_len: never the ring's size,
	 * which the image chooses */
	pk->text = malloc(PK_TEXT_MAX);
	if (!pk->text) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	*out = pk;
	return HIB_OK;
fail:
	free(pk);
	return rc;
}

void hib_printk_free(struct hib_printk *pk)
{
	if (!pk)
		return;
	free(pk->text);
	free(pk);
}

/* The text of a record whose block is at lpos begin..next, as get_data()
 * finds it; false for a data-less or inconsistent one. */
static int get_text(struct hib_printk *pk, uint64_t begin, uint64_t next,
		    uint64_t text_len, size_t *len)
{
	struct hib_kmem *km = pk->km;
	uint64_t size = 1ull << pk->size_bits, word = km->img->lay.word, at, n;
	unsigned int sb = pk->size_bits;
	int rc;

	*len = 0;
	if (word == 4) {
		begin &= 0xffffffffull;
		next &= 0xffffffffull;
	}
	if ((begin & 1) || (next & 1))
		return HIB_OK;   /* FAILED_LPOS, NO_LPOS: a record without text */
	if (begin < next && begin >> sb == (next - 1) >> sb) {
		at = begin & (size - 1);
		n = next - begin;
	} else if ((begin + size) >> sb == next >> sb) {
		at = 0;
		n = next & (size - 1);
	} else {
		return HIB_OK;
	}
	if (n < word || n > size)
		return HIB_OK;
	n -= word;
	if (text_len < n)
		n = text_len;
	if (n > PK_TEXT_MAX)
		n = PK_TEXT_MAX;
	rc = hib_kmem_read_virt(km, pk->data + at + word, pk->text, n);
	if (rc)
		return rc;
	*len = n;
	return HIB_OK;
}

/* Descriptor id's record into pk->rec: 1, or 0 where the id holds none
 * whole (reserved, reusable or overwritten). */
static int read_record(struct hib_printk *pk, uint64_t id, unsigned int shift)
{
	struct hib_kmem *km = pk->km;
	const struct pk_off *o = &pk->o;
	uint64_t idx = id & ((1ull << pk->count_bits) - 1);
	uint64_t d = pk->descs + idx * (uint64_t)o->desc_size;
	uint64_t in = pk->infos + idx * (uint64_t)o->info_size;
	uint64_t sv, begin, next, seq, ts;
	unsigned char lb[4];
	size_t len;
	int rc, state;

	rc = hib_kmem_read_word(km, d + o->desc_sv + o->counter, &sv);
	if (rc)
		return rc;
	state = (int)((sv >> shift) & 3);
	if ((sv & pk->id_mask) != id || (state != 1 && state != 2))
		return 0;
	rc = hib_kmem_read_word(km, d + o->desc_lpos + o->lpos_begin, &begin);
	if (rc == HIB_OK)
		rc = hib_kmem_read_word(km, d + o->desc_lpos + o->lpos_next, &next);
	if (rc == HIB_OK)
		rc = read_u64(km, in + o->info_seq, &seq);
	if (rc == HIB_OK)
		rc = read_u64(km, in + o->info_ts, &ts);
	if (rc == HIB_OK)
		rc = hib_kmem_read_virt(km, in + o->info_len, lb, 4);
	if (rc)
		return rc;
	rc = get_text(pk, begin, next, hib_get_word(&km->img->lay, lb, 2), &len);
	if (rc)
		return rc;
	memset(&pk->rec, 0, sizeof(pk->rec));
	pk->rec.seq = seq;
	pk->rec.ts_nsec = ts;
	pk->rec.text = (const char *)pk->text;
	pk->rec.text_len = len;
	pk->rec.have_level = pk->have_level;
	if (pk->have_level) {
		pk->rec.facility = lb[2];
		pk->rec.level = lb[3] >> 5;
	}
	return 1;
}

int hib_printk_next(struct hib_printk *pk, const struct hib_printk_rec **out)
{
	struct hib_kmem *km = pk->km;
	unsigned int shift = km->img->lay.word * 8 - 2;

	*out = NULL;
	while (!pk->done && pk->left) {
		uint64_t id = pk->id, lost = km->lost_reads;
		int rc;

		pk->left--;
		pk->done = id == pk->head;
		pk->id = (id + 1) & pk->id_mask;
		rc = read_record(pk, id, shift);
		if (rc == HIB_ERR_UNSUPPORTED && km->lost_reads != lost) {
			pk->skipped++;  /* best effort: the damage took a page of it */
			continue;
		}
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		*out = &pk->rec;
		return 1;
	}
	return 0;
}

uint64_t hib_printk_skipped(const struct hib_printk *pk)
{
	return pk->skipped;
}
