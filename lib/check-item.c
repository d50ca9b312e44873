/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-item.c - one row of hibimg check's result: its status, what was
 * compared, the kernel line it predicts, what would decide it.
 */
#include "checkP.h"

#include <stdio.h>
#include <string.h>

struct chk_item *chk_add(struct chk_ctx *c, const char *name, enum chk_stage stage,
			 bool decides)
{
	struct chk_item *it;

	/* a fixed table: CHK_MAX is more rows than any path adds */
	if (c->r->n == CHK_MAX)
		it = &c->r->items[CHK_MAX - 1];
	else
		it = &c->r->items[c->r->n++];
	memset(it, 0, sizeof(*it));
	it->pub.name = name;
	it->pub.decides = decides;
	it->pub.detail = it->detail;
	it->stage = stage;
	return it;
}

void chk_set(struct chk_item *it, enum hib_check_status st, const char *fmt, ...)
{
	va_list ap;

	it->pub.status = st;
	va_start(ap, fmt);
	vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
	va_end(ap);
}

void chk_message(struct chk_item *it, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(it->message, sizeof(it->message), fmt, ap);
	va_end(ap);
	it->pub.message = it->message;
}

void chk_missing(struct chk_item *it, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(it->missing, sizeof(it->missing), fmt, ap);
	va_end(ap);
	it->pub.missing = it->missing;
}

void chk_missing_input(struct chk_ctx *c, struct chk_item *it, enum hib_tin which,
		       const char *what)
{
	const char *why = c->t->why[which];

	if (why[0])
		chk_missing(it, "%s (%s)", what, why);
	else
		chk_missing(it, "%s", what);
}

const char *chk_codec_word(const struct chk_ctx *c, enum hib_compression comp)
{
	/* 6.9 moved swap.c to the crypto API and hib_comp_algo's names */
	if (c->kver >= HIB_KVER(6, 9, 0))
		return comp == HIB_COMP_LZ4 ? "lz4" : "lzo";
	return comp == HIB_COMP_LZ4 ? "LZ4" : "LZO";
}
