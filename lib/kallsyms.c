/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kallsyms.c - a kernel symbol's address from the image alone, through the
 * kernel's own kallsyms tables, which VMCOREINFO names for exactly this
 * (kernel/crash_core.c 6.0-6.8, kernel/vmcore_info.c 6.9+, under
 * CONFIG_KALLSYMS: SYMBOL(kallsyms_names), kallsyms_num_syms,
 * kallsyms_token_table, kallsyms_token_index, and kallsyms_offsets with
 * kallsyms_relative_base, or kallsyms_addresses where 6.1-6.10 ran without
 * CONFIG_KALLSYMS_BASE_RELATIVE). A kernel without them (the minimal
 * fixture kernels: "# CONFIG_KALLSYMS is not set") gives
 * HIB_ERR_UNSUPPORTED and says so.
 *
 * kernel/kallsyms.c: kallsyms_names is one entry per symbol in address
 * order, a length byte (two, 7 bits each, where the first has bit 7 set:
 * 6.1+ "big" symbols) and that many token numbers; each token is a NUL-
 * terminated string at kallsyms_token_table[kallsyms_token_index[t]]; the
 * expanded name's first character is the nm type letter. The address of
 * symbol i (kallsyms_sym_address()): relative_base + (u32)offsets[i]; with
 * CONFIG_KALLSYMS_ABSOLUTE_PERCPU (x86_64 SMP up to 6.14) a negative
 * offset means relative_base - 1 - offset and a non-negative one is the
 * absolute (per-CPU) value. Which of the two a kernel uses is not in
 * VMCOREINFO; the last symbol tells: it is the highest address, a kernel
 * one, which an absolute-percpu table stores negative and a relative one
 * never can (the image is under 2 GiB, so u32 offsets stay below 2^31).
 * Where VMCOREINFO names kallsyms_offsets but no kallsyms_relative_base
 * (Debian's 7.2.13), each offset is place-relative: the address is
 * &kallsyms_offsets[i] + (s32)offsets[i]. Measured, not read in a source
 * tree: its first four entries, 4 apart, all give _text (__pi__text,
 * _stext, _text at one address), and every symbol the tests ask for
 * matches `nm vmlinux` + KERNELOFFSET.
 *
 * A linear scan: kallsyms_seqs_of_names (6.2+, sorted by name) is not in
 * VMCOREINFO. Every read is bounded by num_syms and KSYM_NAME_LEN.
 */
#include "kmemP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KSYM_NAME_LEN 512u         /* include/linux/kallsyms.h, 6.1+ */
#define KSYM_MAX      (1u << 24)    /* far above any kernel's count */

/* Sequential reads of kernel virtual memory, a page at a time. */
struct kstream {
	struct hib_kmem *km;
	uint64_t va;                /* of buf[0] */
	size_t have, pos;
	unsigned char buf[65536];
};

static int ks_byte(struct kstream *s, unsigned char *b)
{
	if (s->pos == s->have) {
		size_t n = s->km->ps - (s->va + s->have) % s->km->ps;
		int rc;

		s->va += s->have;
		s->have = s->pos = 0;
		rc = hib_kmem_read_virt(s->km, s->va, s->buf, n);
		if (rc)
			return rc;
		s->have = n;
	}
	*b = s->buf[s->pos++];
	return HIB_OK;
}

static bool sym(const struct hib_kmem *km, const char *name, uint64_t *v)
{
	char key[64];

	snprintf(key, sizeof(key), "SYMBOL(%s)=", name);
	return hib_vmci_lx(km->vmci, km->ps, key, v);
}

static uint32_t le32(struct hib_kmem *km, const unsigned char *p)
{
	return km->img->hdr.big_endian ?
		(uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] :
		(uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int read_u32(struct hib_kmem *km, uint64_t va, uint32_t *v)
{
	unsigned char b[4];
	int rc = hib_kmem_read_virt(km, va, b, 4);

	if (rc == HIB_OK)
		*v = le32(km, b);
	return rc;
}

struct ktables {
	uint64_t names, offsets, addresses, base;
	uint32_t num;
	bool relative, absolute_percpu, place_relative;
	char *tokens;               /* the 256 tokens, each NUL-terminated */
	size_t tok_len;
	uint16_t index[256];
};

static int unsupported(struct hib_kmem *km, const char *what)
{
	return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
			  "no kallsyms tables: VMCOREINFO has no SYMBOL(%s) (a kernel built without CONFIG_KALLSYMS, or older than 6.0)",
			  what);
}

static int load_tables(struct hib_kmem *km, struct ktables *t)
{
	uint64_t tt, ti;
	unsigned char b[512];
	size_t i, need = 0;
	int rc;

	if (!km->vmci)
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "no kallsyms tables: the image has no VMCOREINFO page");
	if (!sym(km, "kallsyms_names", &t->names))
		return unsupported(km, "kallsyms_names");
	if (!sym(km, "kallsyms_num_syms", &ti))
		return unsupported(km, "kallsyms_num_syms");
	rc = read_u32(km, ti, &t->num);
	if (rc)
		return rc;
	if (!t->num || t->num > KSYM_MAX)
		return hib_seterr(km->img, HIB_ERR_DAMAGED,
				  "kallsyms_num_syms at 0x%" PRIx64 " is %u: not a symbol count",
				  ti, t->num);
	t->relative = sym(km, "kallsyms_offsets", &t->offsets);
	if (t->relative) {
		uint64_t rb;
		uint32_t last;

		if (!sym(km, "kallsyms_relative_base", &rb)) {
			t->place_relative = true;
		} else {
			rc = hib_kmem_read_word(km, rb, &t->base);
			if (rc == HIB_OK)
				rc = read_u32(km, t->offsets + 4 * (uint64_t)(t->num - 1), &last);
			if (rc)
				return rc;
			t->absolute_percpu = (int32_t)last < 0;
		}
	} else if (!sym(km, "kallsyms_addresses", &t->addresses)) {
		return unsupported(km, "kallsyms_offsets");
	}
	if (!sym(km, "kallsyms_token_table", &tt))
		return unsupported(km, "kallsyms_token_table");
	if (!sym(km, "kallsyms_token_index", &ti))
		return unsupported(km, "kallsyms_token_index");
	rc = hib_kmem_read_virt(km, ti, b, sizeof(b));
	if (rc)
		return rc;
	for (i = 0; i < 256; i++) {
		t->index[i] = km->img->hdr.big_endian ? (uint16_t)(b[2 * i] << 8 | b[2 * i + 1]) :
			(uint16_t)(b[2 * i + 1] << 8 | b[2 * i]);
		if (t->index[i] > need)
			need = t->index[i];
	}
	/* the last-placed token ends within a name's length of its start */
	t->tok_len = need + KSYM_NAME_LEN + 1;
	t->tokens = malloc(t->tok_len);
	if (!t->tokens)
		return hib_seterr(km->img, HIB_ERR_NOMEM, "out of memory");
	rc = hib_kmem_read_virt(km, tt, t->tokens, t->tok_len - 1);
	t->tokens[t->tok_len - 1] = 0;
	return rc;
}

static uint64_t address(struct hib_kmem *km, const struct ktables *t, uint32_t i, int *rc)
{
	uint32_t off = 0;
	uint64_t a = 0;

	*rc = HIB_OK;
	if (!t->relative) {
		*rc = hib_kmem_read_word(km, t->addresses + (uint64_t)i * km->img->lay.word, &a);
		return a;
	}
	*rc = read_u32(km, t->offsets + 4 * (uint64_t)i, &off);
	if (t->place_relative)
		return t->offsets + 4 * (uint64_t)i + (uint64_t)(int64_t)(int32_t)off;
	if (!t->absolute_percpu)
		return t->base + off;
	if ((int32_t)off >= 0)
		return (uint64_t)(int64_t)(int32_t)off;
	return t->base - 1 - (uint64_t)(int64_t)(int32_t)off;
}

int hib_kmem_symbol(struct hib_kmem *km, const char *name, uint64_t *addr)
{
	struct ktables t;
	struct kstream *s;
	size_t want;
	uint32_t i;
	int rc = HIB_OK;

	if (!km || !name || !addr)
		return HIB_ERR_INVAL;
	want = strlen(name);
	memset(&t, 0, sizeof(t));
	s = calloc(1, sizeof(*s));
	if (!s)
		return hib_seterr(km->img, HIB_ERR_NOMEM, "out of memory");
	rc = load_tables(km, &t);
	s->km = km;
	s->va = t.names;
	for (i = 0; rc == HIB_OK && i < t.num; i++) {
		unsigned char b, n2;
		unsigned int len;
		size_t got = 0;
		bool first = true, same = true;

		rc = ks_byte(s, &b);
		len = b;
		if (rc == HIB_OK && (len & 0x80)) {
			rc = ks_byte(s, &n2);
			len = (len & 0x7f) | (unsigned int)n2 << 7;
		}
		if (rc == HIB_OK && len > KSYM_NAME_LEN)
			rc = hib_seterr(km->img, HIB_ERR_DAMAGED,
					"kallsyms_names: symbol %u is %u tokens long: not a name", i, len);
		while (rc == HIB_OK && len--) {
			const char *tok;

			rc = ks_byte(s, &b);
			if (rc)
				break;
			/* a token past the table's end reads as empty: no match */
			tok = t.index[b] < t.tok_len ? t.tokens + t.index[b] : "";
			for (; *tok && same; tok++) {
				if (first) {          /* the type letter */
					first = false;
					continue;
				}
				same = got < want && *tok == name[got];
				got++;
			}
		}
		if (rc == HIB_OK && same && got == want) {
			*addr = address(km, &t, i, &rc);
			goto out;
		}
	}
	if (rc == HIB_OK)
		rc = hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				"kallsyms: no symbol '%s' among the kernel's %u (without CONFIG_KALLSYMS_ALL they are functions only)",
				name, t.num);
out:
	free(t.tokens);
	free(s);
	return rc;
}
