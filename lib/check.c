/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check.c - will this kernel on this machine resume the image? The checks
 * kernel/power (hibernate.c, swap.c, snapshot.c) and the arch code make
 * before they restore, each predicting the line the kernel prints, and
 * one verdict: the failure the kernel meets first, or what no input told.
 */
#include "checkP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the checks cannot see, said once: the verdict covers what the
 * kernel checks before it restores. */
static void beyond(struct chk_ctx *c)
{
	struct chk_item *it = chk_add(c, "after-load", STAGE_NONE, false);

	chk_set(it, HIB_CHECK_UNKNOWN,
		"not predicted: drivers that fail in their restore callbacks after \"Image successfully loaded\", "
		"firmware that changes its map on every boot, secretmem or CXL memory in use");
	chk_missing(it, "nothing offline can tell");
}

static void verdict(struct hib_check_result *r)
{
	const struct chk_item *first = NULL;
	size_t i, len = 0;

	for (i = 0; i < r->n; i++) {
		const struct chk_item *it = &r->items[i];

		if (it->pub.status == HIB_CHECK_FAIL && (!first || it->stage < first->stage))
			first = it;
	}
	if (first) {
		r->verdict = HIB_VERDICT_NO_RESUME;
		r->message = first->pub.message;
		snprintf(r->reason, sizeof(r->reason), "%s",
			 first->pub.message ? first->pub.message : first->detail);
		return;
	}
	r->verdict = HIB_VERDICT_RESUME;
	for (i = 0; i < r->n; i++) {
		const struct chk_item *it = &r->items[i];
		size_t k;
		bool seen = false;

		if (it->pub.status != HIB_CHECK_UNKNOWN || !it->pub.decides)
			continue;
		r->verdict = HIB_VERDICT_UNKNOWN;
		for (k = 0; k < i; k++)
			if (r->items[k].pub.status == HIB_CHECK_UNKNOWN && r->items[k].pub.decides &&
			    !strcmp(r->items[k].missing, it->missing))
				seen = true;
		if (seen)
			continue;
		len += (size_t)snprintf(r->reason + len, len < sizeof(r->reason) ? sizeof(r->reason) - len : 0,
					"%s%s", len ? "; " : "", it->missing);
	}
}

int hib_check(struct hib_image *img, const struct hib_target *t,
	      const struct hib_check_opts *opts, struct hib_check_result **res)
{
	struct hib_check_opts o = HIB_INIT(struct hib_check_opts);
	struct chk_ctx c = { .img = img, .t = t };
	int rc;

	if (!res || !t)
		return hib_seterr(img, HIB_ERR_INVAL, "hib_check: no %s", res ? "target" : "result");
	*res = NULL;
	if (opts && (rc = HIB_ABI_IN(img, hib_check_opts, &o, opts)))
		return rc;
	c.r = calloc(1, sizeof(*c.r));
	if (!c.r)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	c.tin = hib_target_info(t);
	c.h = hib_image_header(img);
	c.kver = c.tin->kver;
	c.threads = o.threads;
	/* a spent area is read all the same: what is left tells more */
	if (!img->loaded) {
		if (c.h->kind == HIB_KIND_SPENT)
			(void)hib_image_allow_spent(img, 1);
		c.load_rc = hib_image_load(img);
		if (c.load_rc)
			snprintf(c.load_err, sizeof(c.load_err), "%s", hib_image_error(img));
	}
	/* the rest reads what the kernel's own container holds */
	if (!c.load_rc && hib_image_content(img) == HIB_CONTENT_READABLE &&
	    hib_image_container_flags(img) == 0)
		c.in = hib_image_info(img);
	chk_efivar(&c);
	chk_boot(&c);
	if (c.in) {
		chk_header(&c);
		chk_stream(&c);
	}
	if (c.load_rc == HIB_ERR_IO || c.load_rc == HIB_ERR_NOMEM || c.io_rc) {
		rc = c.io_rc ? c.io_rc : c.load_rc;
		if (!c.io_rc)
			hib_seterr(img, rc, "%s", c.load_err);
		free(c.r);
		return rc;
	}
	beyond(&c);
	verdict(c.r);
	*res = c.r;
	return HIB_OK;
}

void hib_check_free(struct hib_check_result *res)
{
	free(res);
}

size_t hib_check_count(const struct hib_check_result *res)
{
	return res ? res->n : 0;
}

const struct hib_check_item *hib_check_get(const struct hib_check_result *res, size_t i)
{
	return res && i < res->n ? &res->items[i].pub : NULL;
}

enum hib_verdict hib_check_verdict(const struct hib_check_result *res)
{
	return res ? res->verdict : HIB_VERDICT_UNKNOWN;
}

const char *hib_check_message(const struct hib_check_result *res)
{
	return res ? res->message : NULL;
}

const char *hib_check_reason(const struct hib_check_result *res)
{
	return res ? res->reason : "";
}

const char *hib_check_status_name(enum hib_check_status s)
{
	switch (s) {
	case HIB_CHECK_PASS:    return "pass";
	case HIB_CHECK_WARN:    return "warn";
	case HIB_CHECK_FAIL:    return "fail";
	case HIB_CHECK_UNKNOWN: return "unknown";
	}
	return NULL;
}

const char *hib_verdict_name(enum hib_verdict v)
{
	switch (v) {
	case HIB_VERDICT_RESUME:    return "resume";
	case HIB_VERDICT_NO_RESUME: return "no-resume";
	case HIB_VERDICT_UNKNOWN:   return "unknown";
	}
	return NULL;
}
